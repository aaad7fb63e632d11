//! The message catalogue's compiled form: what build.rs writes from src/diagnose/formats/*.yaml
//! and the binary reads in place, with nothing to parse or build at start-up (parsing the
//! table and building an Aho-Corasick automaton over 20,000 anchors cost about 150 ms on first
//! use, measured; a start-up may cost a few ms). Both sides are in this one file, so the layout
//! is written down once; build.rs includes it.
//!
//! Layout: little-endian u32 words, then the string bytes.
//! - header: magic `VFC2`, then the counts of families, formats, literals, index slots (a
//!   power of two), bucket entries, and the string bytes' length;
//! - families, 14 words each: file, program, version, layer, symptom (each offset + length into
//!   the strings), and what was left out of the family file: all, info, generic, same;
//! - formats, 8 words each: family; meaning (offset: 24 bits, length: 8 bits; a cause id,
//!   `wraps` or `symptom`); at (offset, length); the whole format (offset, length; whitespace
//!   collapsed); its first literal; and one word ([`pack`]) with its count of literals, its
//!   anchor, whether it travels as a gRPC status and its trailing verb;
//! - literals, 2 words each: the key's offset, then its length (16 bits), the gap before it
//!   (bits 16-19: 0 none, else a verb) and whether it is optional (bit 20);
//! - the anchor index: open addressing over slots of 4 words (the 8-byte gram, its bucket's
//!   first entry and length): every format's anchor is found by its rarest 8-byte piece (build
//!   time counts them over all anchors), so one look-up per position of a message finds every
//!   anchor that can start near it;
//! - bucket entries, 2 words each: a format, and where its gram lies in its anchor.

use super::format_text::{Cut, Gap};

const MAGIC: &[u8; 4] = b"VFC2";
/// Bytes of an anchor's piece in the index.
pub const GRAM: usize = 8;

/// A family as build.rs read it.
pub struct FamilyIn {
    pub file: String,
    pub program: String,
    pub version: String,
    pub layer: String,
    pub symptom: String,
    /// Entries in the file, and those left out: `info`, too generic, the same string again.
    pub all: u32,
    pub info: u32,
    pub generic: u32,
    pub same: u32,
    pub formats: Vec<FormatIn>,
}

/// A format string as build.rs kept it.
pub struct FormatIn {
    pub means: String,
    pub grpc: bool,
    pub at: String,
    pub text: String,
    pub cut: Cut,
    /// Index of the anchor literal in `cut.literals`.
    pub anchor: usize,
}

fn gap_code(g: Option<Gap>) -> u32 {
    match g {
        None => 0,
        Some(Gap::Any) => 1,
        Some(Gap::Dec) => 2,
        Some(Gap::Hex) => 3,
        Some(Gap::Float) => 4,
        Some(Gap::Quoted) => 5,
        Some(Gap::Char) => 6,
    }
}

fn gap_of(code: u32) -> Option<Gap> {
    Some(match code {
        1 => Gap::Any,
        2 => Gap::Dec,
        3 => Gap::Hex,
        4 => Gap::Float,
        5 => Gap::Quoted,
        6 => Gap::Char,
        _ => return None,
    })
}

fn gram(b: &[u8]) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(&b[..GRAM]);
    u64::from_le_bytes(w)
}

fn slot_of(g: u64, bits: u32) -> usize {
    (g.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - bits)) as usize
}

/// The one word of a format that holds its literal count (12 bits), its anchor (12 bits),
/// whether it travels as a gRPC status (bit 24) and its trailing verb (bits 25-28).
fn pack(n_lits: usize, anchor: usize, grpc: bool, trailing: Option<Gap>) -> u32 {
    (n_lits.min(0xfff) as u32)
        | ((anchor.min(0xfff) as u32) << 12)
        | ((grpc as u32) << 24)
        | (gap_code(trailing) << 25)
}

/// Write the table.
pub fn write(families: &[FamilyIn]) -> Vec<u8> {
    let mut strings: Vec<u8> = Vec::new();
    let mut interned: std::collections::HashMap<String, (u32, u32)> = Default::default();
    let mut s = |text: &str| -> (u32, u32) {
        if let Some(&r) = interned.get(text) {
            return r;
        }
        let r = (strings.len() as u32, text.len() as u32);
        strings.extend_from_slice(text.as_bytes());
        interned.insert(text.to_string(), r);
        r
    };
    let mut fam_words: Vec<u32> = Vec::new();
    let mut fmt_words: Vec<u32> = Vec::new();
    let mut lit_words: Vec<u32> = Vec::new();
    // (format index, anchor key)
    let mut anchors: Vec<(u32, Vec<u8>)> = Vec::new();
    for (fi, fam) in families.iter().enumerate() {
        for t in [
            &fam.file,
            &fam.program,
            &fam.version,
            &fam.layer,
            &fam.symptom,
        ] {
            let (o, l) = s(t);
            fam_words.extend([o, l]);
        }
        fam_words.extend([fam.all, fam.info, fam.generic, fam.same]);
        for f in &fam.formats {
            let index = (fmt_words.len() / 8) as u32;
            let (mo, ml) = s(&f.means);
            assert!(
                mo < 1 << 24 && ml < 256,
                "the meaning of {} does not fit",
                f.at
            );
            let (ao, al) = s(&f.at);
            let (to, tl) = s(&f.text);
            let first = (lit_words.len() / 2) as u32;
            for l in &f.cut.literals {
                let (ko, kl) = s(&l.key);
                lit_words.push(ko);
                lit_words.push(
                    kl.min(0xffff) | (gap_code(l.gap_before) << 16) | ((l.optional as u32) << 20),
                );
            }
            fmt_words.extend([
                fi as u32,
                mo | (ml << 24),
                ao,
                al,
                to,
                tl,
                first,
                pack(f.cut.literals.len(), f.anchor, f.grpc, f.cut.trailing),
            ]);
            anchors.push((index, f.cut.literals[f.anchor].key.as_bytes().to_vec()));
        }
    }
    // Each anchor's rarest gram among all distinct anchors.
    let mut distinct: Vec<&[u8]> = anchors.iter().map(|(_, a)| a.as_slice()).collect();
    distinct.sort();
    distinct.dedup();
    let mut count: std::collections::HashMap<u64, u32> = Default::default();
    for a in &distinct {
        let mut seen = std::collections::HashSet::new();
        for p in 0..=a.len().saturating_sub(GRAM) {
            if a.len() >= GRAM && seen.insert(gram(&a[p..])) {
                *count.entry(gram(&a[p..])).or_default() += 1;
            }
        }
    }
    let mut by_gram: std::collections::BTreeMap<u64, Vec<(u32, u32)>> = Default::default();
    for (index, a) in &anchors {
        assert!(a.len() >= GRAM, "an anchor shorter than a gram");
        let p = (0..=a.len() - GRAM)
            .min_by_key(|&p| (count[&gram(&a[p..])], p))
            .unwrap_or(0);
        by_gram
            .entry(gram(&a[p..]))
            .or_default()
            .push((*index, p as u32));
    }
    let bits = ((by_gram.len() * 2).next_power_of_two().trailing_zeros()).max(4);
    let n_slots = 1usize << bits;
    let mut slots = vec![[0u32; 4]; n_slots];
    let mut bucket: Vec<u32> = Vec::new();
    for (g, entries) in &by_gram {
        let mut i = slot_of(*g, bits);
        while slots[i][3] != 0 {
            i = (i + 1) & (n_slots - 1);
        }
        slots[i] = [
            *g as u32,
            (*g >> 32) as u32,
            (bucket.len() / 2) as u32,
            entries.len() as u32,
        ];
        for (f, p) in entries {
            bucket.extend([*f, *p]);
        }
    }
    let mut out = Vec::new();
    out.extend_from_slice(MAGIC);
    for w in [
        families.len() as u32,
        (fmt_words.len() / 8) as u32,
        (lit_words.len() / 2) as u32,
        bits,
        (bucket.len() / 2) as u32,
        strings.len() as u32,
    ] {
        out.extend_from_slice(&w.to_le_bytes());
    }
    for w in fam_words
        .iter()
        .chain(&fmt_words)
        .chain(&lit_words)
        .chain(slots.iter().flatten())
        .chain(&bucket)
    {
        out.extend_from_slice(&w.to_le_bytes());
    }
    out.extend_from_slice(&strings);
    out
}

/// A family, read in place.
#[derive(Debug, Clone, Copy)]
pub struct FamilyRow {
    pub file: &'static str,
    pub program: &'static str,
    pub version: &'static str,
    pub layer: &'static str,
    pub symptom: &'static str,
    pub all: u32,
    pub info: u32,
    pub generic: u32,
    pub same: u32,
}

/// A format, read in place.
#[derive(Debug, Clone, Copy)]
pub struct FormatRow {
    pub family: usize,
    pub means: &'static str,
    pub at: &'static str,
    pub text: &'static str,
    pub first_literal: usize,
    pub literals: usize,
    pub anchor: usize,
    pub grpc: bool,
    pub trailing: Option<Gap>,
}

/// A literal, read in place.
#[derive(Debug, Clone, Copy)]
pub struct LitRow {
    pub key: &'static [u8],
    pub gap_before: Option<Gap>,
    pub optional: bool,
}

/// The table, read in place.
#[derive(Debug, Clone, Copy)]
pub struct Table {
    b: &'static [u8],
    n_families: usize,
    n_formats: usize,
    families_at: usize,
    formats_at: usize,
    literals_at: usize,
    slots_at: usize,
    slot_bits: u32,
    bucket_at: usize,
    strings_at: usize,
}

impl Table {
    /// `None` when the bytes are not a table of this layout.
    pub fn new(b: &'static [u8]) -> Option<Table> {
        if b.get(..4)? != MAGIC {
            return None;
        }
        let w = |i: usize| -> Option<usize> {
            let s = b.get(4 + 4 * i..8 + 4 * i)?;
            Some(u32::from_le_bytes([s[0], s[1], s[2], s[3]]) as usize)
        };
        let (nf, nfmt, nlit, bits, nb, ns) = (w(0)?, w(1)?, w(2)?, w(3)?, w(4)?, w(5)?);
        let families_at = 28;
        let formats_at = families_at + nf * 56;
        let literals_at = formats_at + nfmt * 32;
        let slots_at = literals_at + nlit * 8;
        let bucket_at = slots_at + (1usize << bits) * 16;
        let strings_at = bucket_at + nb * 8;
        (b.len() == strings_at + ns).then_some(Table {
            b,
            n_families: nf,
            n_formats: nfmt,
            families_at,
            formats_at,
            literals_at,
            slots_at,
            slot_bits: bits as u32,
            bucket_at,
            strings_at,
        })
    }

    fn word(&self, at: usize) -> u32 {
        let s = &self.b[at..at + 4];
        u32::from_le_bytes([s[0], s[1], s[2], s[3]])
    }

    fn bytes(&self, off: u32, len: u32) -> &'static [u8] {
        let s = self.strings_at + off as usize;
        &self.b[s..s + len as usize]
    }

    fn str(&self, off: u32, len: u32) -> &'static str {
        std::str::from_utf8(self.bytes(off, len)).unwrap_or("")
    }

    pub fn families(&self) -> usize {
        self.n_families
    }

    pub fn formats(&self) -> usize {
        self.n_formats
    }

    pub fn family(&self, i: usize) -> FamilyRow {
        let at = self.families_at + i * 56;
        let w = |k: usize| self.word(at + 4 * k);
        FamilyRow {
            file: self.str(w(0), w(1)),
            program: self.str(w(2), w(3)),
            version: self.str(w(4), w(5)),
            layer: self.str(w(6), w(7)),
            symptom: self.str(w(8), w(9)),
            all: w(10),
            info: w(11),
            generic: w(12),
            same: w(13),
        }
    }

    pub fn format(&self, i: usize) -> FormatRow {
        let at = self.formats_at + i * 32;
        let w = |k: usize| self.word(at + 4 * k);
        let packed = w(7);
        FormatRow {
            family: w(0) as usize,
            means: self.str(w(1) & 0xff_ffff, w(1) >> 24),
            at: self.str(w(2), w(3)),
            text: self.str(w(4), w(5)),
            first_literal: w(6) as usize,
            literals: (packed & 0xfff) as usize,
            anchor: ((packed >> 12) & 0xfff) as usize,
            grpc: (packed >> 24) & 1 == 1,
            trailing: gap_of((packed >> 25) & 0xf),
        }
    }

    pub fn literal(&self, j: usize) -> LitRow {
        let at = self.literals_at + j * 8;
        let (a, b) = (self.word(at), self.word(at + 4));
        LitRow {
            key: self.bytes(a, b & 0xffff),
            gap_before: gap_of((b >> 16) & 0xf),
            optional: (b >> 20) & 1 == 1,
        }
    }

    /// Every place in `key` where a format's anchor starts: `found(format, start)`, each
    /// anchor occurrence once. One look-up of the index per position.
    pub fn anchors_in(&self, key: &[u8], mut found: impl FnMut(usize, usize)) {
        if key.len() < GRAM {
            return;
        }
        let mask = (1usize << self.slot_bits) - 1;
        for p in 0..=key.len() - GRAM {
            let g = gram(&key[p..]);
            let mut i = slot_of(g, self.slot_bits);
            loop {
                let at = self.slots_at + i * 16;
                let len = self.word(at + 12) as usize;
                if len == 0 {
                    break;
                }
                let sg = self.word(at) as u64 | ((self.word(at + 4) as u64) << 32);
                if sg == g {
                    let first = self.word(at + 8) as usize;
                    for e in first..first + len {
                        let f = self.word(self.bucket_at + e * 8) as usize;
                        let off = self.word(self.bucket_at + e * 8 + 4) as usize;
                        if off > p {
                            continue;
                        }
                        let start = p - off;
                        let row = self.format(f);
                        let anchor = self.literal(row.first_literal + row.anchor).key;
                        if key[start..].starts_with(anchor) {
                            found(f, start);
                        }
                    }
                    break;
                }
                i = (i + 1) & mask;
            }
        }
    }
}
