//! A format string of the message catalogue (src/diagnose/formats/) as what matching needs: its
//! literal segments between its verbs, each in the *key* form messages are compared in. A leaf:
//! build.rs includes this file to cut every format at build time, and the matcher
//! (format_match.rs) turns messages into the same key form at run time.
//!
//! The key form is whitespace-insensitive (events and web pages flatten newlines, and pages
//! join lines without a space), ASCII case-insensitive, reads `\"` as `"` and `\n` as a line
//! break, and typographic quotes as plain ones. A key keeps, for every byte, where it was in the
//! text, so a match is quoted from the text itself.

/// What a verb may print: what fills the gap between two literals of a format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Gap {
    /// Anything (`%v %s %w %+v %T`, C `%s %m %pV`, the extractor's `%v` for `${}` and `{}`).
    Any,
    /// A decimal number (`%d %i %u %ld %lu %llu %zu`).
    Dec,
    /// A hexadecimal number (`%x %X %lx %llx %#x %08x`).
    Hex,
    /// A number with a point or an exponent (`%f %g %e`).
    Float,
    /// A quoted string (Go's `%q`).
    Quoted,
    /// One character (`%c`).
    Char,
}

impl Gap {
    /// One letter for the generated table (build.rs) and back.
    pub fn code(self) -> char {
        match self {
            Gap::Any => 'a',
            Gap::Dec => 'd',
            Gap::Hex => 'x',
            Gap::Float => 'f',
            Gap::Quoted => 'q',
            Gap::Char => 'c',
        }
    }

    pub fn from_code(c: char) -> Option<Gap> {
        Some(match c {
            'a' => Gap::Any,
            'd' => Gap::Dec,
            'x' => Gap::Hex,
            'f' => Gap::Float,
            'q' => Gap::Quoted,
            'c' => Gap::Char,
            _ => return None,
        })
    }

    /// Whether `gap` (key bytes) is something this verb can print. A gap that must be a number
    /// or a quote is what keeps `%d items` from matching any words.
    pub fn admits(self, gap: &[u8]) -> bool {
        let digits = |g: &[u8], hex: bool| {
            let g = g
                .strip_prefix(b"-")
                .or_else(|| g.strip_prefix(b"+"))
                .unwrap_or(g);
            let g = if hex {
                g.strip_prefix(b"0x").unwrap_or(g)
            } else {
                g
            };
            !g.is_empty()
                && g.iter().all(|b| {
                    if hex {
                        b.is_ascii_hexdigit()
                    } else {
                        b.is_ascii_digit()
                    }
                })
        };
        match self {
            Gap::Any => true,
            Gap::Dec => digits(gap, false),
            Gap::Hex => digits(gap, true),
            Gap::Float => {
                !gap.is_empty()
                    && gap.iter().any(u8::is_ascii_digit)
                    && gap
                        .iter()
                        .all(|b| b.is_ascii_digit() || b"+-.e".contains(b) || b"infa".contains(b))
            }
            // Go's %q: "..." (or `...` for a raw string, %#q). Whitespace is not in the key, so a
            // quoted string with spaces in it is still two quotes around its words.
            Gap::Quoted => {
                gap.len() >= 2
                    && matches!(gap[0], b'"' | b'`' | b'\'')
                    && gap[gap.len() - 1] == gap[0]
            }
            Gap::Char => {
                gap.len() == 1
                    || (gap.len() > 1
                        && std::str::from_utf8(gap).is_ok_and(|s| s.chars().count() == 1))
            }
        }
    }

    /// Whether a text that ends in this gap (a message cut short inside it) can be the start
    /// of what the verb prints.
    pub fn admits_start(self, gap: &[u8]) -> bool {
        match self {
            Gap::Any => true,
            Gap::Quoted => gap.is_empty() || matches!(gap[0], b'"' | b'`' | b'\''),
            Gap::Char => gap.len() <= 4,
            _ => {
                gap.is_empty()
                    || gap
                        .iter()
                        .all(|b| b.is_ascii_hexdigit() || b"+-.x".contains(b))
            }
        }
    }
}

/// One literal of a format, with the verb printed just before it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Literal {
    /// The verb between the previous literal and this one (or before the first): `None` when
    /// this literal follows the previous one directly (never, once they are joined) or starts
    /// the format.
    pub gap_before: Option<Gap>,
    /// From the call's prefix (`ID: %v Req-ID: %v ` of ceph-csi's log, `mount: %s: `): a
    /// message quoted without it still matches.
    pub optional: bool,
    /// The literal in key form.
    pub key: String,
    /// The literal as written (for the anchor rule).
    pub raw: String,
}

/// A format cut at its verbs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cut {
    pub literals: Vec<Literal>,
    /// The verb after the last literal, when the format ends in one (`...: %v`).
    pub trailing: Option<Gap>,
}

/// Read one verb at `s[i..]` (just after its `%`): its gap and the bytes it takes, or `None`
/// when `%` starts no verb there (then it is a literal `%`).
fn verb_at(s: &[u8], i: usize) -> Option<(Gap, usize)> {
    let mut j = i;
    // Python's %(name)s.
    if s.get(j) == Some(&b'(') {
        let close = s[j..].iter().position(|&b| b == b')')?;
        j += close + 1;
    }
    // Go's explicit argument index %[1]s.
    if s.get(j) == Some(&b'[') {
        let close = s[j..].iter().position(|&b| b == b']')?;
        j += close + 1;
    }
    while j < s.len() && b"-+ #0'".contains(&s[j]) {
        j += 1;
    }
    while j < s.len() && (s[j].is_ascii_digit() || s[j] == b'*') {
        j += 1;
    }
    if s.get(j) == Some(&b'.') {
        j += 1;
        while j < s.len() && (s[j].is_ascii_digit() || s[j] == b'*') {
            j += 1;
        }
    }
    // C length modifiers.
    while j < s.len() && b"hlLqjztI".contains(&s[j]) {
        // `%q` alone is Go's quoted string, not a length.
        if s[j] == b'q' && (j + 1 >= s.len() || !b"diouxX".contains(&s[j + 1])) {
            break;
        }
        j += 1;
    }
    let c = *s.get(j)?;
    let gap = match c {
        b'v' | b's' | b'w' | b'T' | b'm' | b'S' | b'V' | b'r' | b'a' | b'A' => Gap::Any,
        b'd' | b'i' | b'u' | b'o' | b'O' | b'b' | b'n' => Gap::Dec,
        b'x' | b'X' => Gap::Hex,
        b'f' | b'F' | b'g' | b'G' | b'e' | b'E' => Gap::Float,
        b'q' => Gap::Quoted,
        b'c' | b'C' | b'U' => Gap::Char,
        b't' => Gap::Any,
        // The kernel's %p extensions: %pU (a UUID), %pI4 (an address), %pV (a nested format),
        // %pe (an errno name), %pg (a block device), %pd (a dentry), ...: anything.
        b'p' => {
            let mut k = j + 1;
            if k < s.len() && s[k].is_ascii_alphabetic() {
                k += 1;
                while k < s.len() && s[k].is_ascii_alphanumeric() {
                    k += 1;
                }
            }
            return Some((Gap::Any, k - i));
        }
        _ => return None,
    };
    Some((gap, j + 1 - i))
}

/// Append `text` to `out` in key form (see the module's comment); `at` gets, for every byte
/// pushed, the offset of the byte of `text` it came from (plus `base`).
pub fn push_key(text: &str, base: usize, out: &mut Vec<u8>, at: Option<&mut Vec<u32>>) {
    let b = text.as_bytes();
    let mut at = at;
    let mut push = |out: &mut Vec<u8>, byte: u8, from: usize| {
        out.push(byte);
        if let Some(a) = at.as_deref_mut() {
            a.push((base + from) as u32);
        }
    };
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        if c == b'\\' {
            match b.get(i + 1) {
                Some(b'n' | b't' | b'r') => {
                    i += 2;
                    continue;
                }
                Some(b'"' | b'\\' | b'\'') => {
                    // `\"` reads `"`; `\\` one backslash (a flattened, escaped copy).
                    let mut k = i;
                    while b.get(k) == Some(&b'\\') {
                        k += 1;
                    }
                    if b.get(k) == Some(&b'"') || b.get(k) == Some(&b'\'') {
                        i = k;
                        continue;
                    }
                    push(out, b'\\', i);
                    i = k;
                    continue;
                }
                _ => {}
            }
        }
        if c < 0x80 {
            push(out, c.to_ascii_lowercase(), i);
            i += 1;
            continue;
        }
        // Typographic quotes and the ellipsis as web pages print them.
        let ch = text[i..].chars().next().expect("char boundary");
        let n = ch.len_utf8();
        match ch {
            '\u{201C}' | '\u{201D}' | '\u{201E}' | '\u{00AB}' | '\u{00BB}' => push(out, b'"', i),
            '\u{2018}' | '\u{2019}' | '\u{201A}' => push(out, b'\'', i),
            '\u{00A0}' | '\u{2007}' | '\u{202F}' | '\u{200B}' => {}
            '\u{2026}' => {
                for _ in 0..3 {
                    push(out, b'.', i);
                }
            }
            _ => {
                for k in 0..n {
                    push(out, b[i + k], i + k);
                }
            }
        }
        i += n;
    }
}

/// `text` in key form.
pub fn key(text: &str) -> String {
    let mut out = Vec::with_capacity(text.len());
    push_key(text, 0, &mut out, None);
    // Only ASCII bytes are changed or dropped, so the bytes are still UTF-8.
    String::from_utf8(out).unwrap_or_default()
}

/// Cut `prefix + fmt + suffix` at its verbs. The prefix's literals are optional.
pub fn cut(prefix: &str, fmt: &str, suffix: &str) -> Cut {
    let mut literals: Vec<Literal> = Vec::new();
    let mut pending_gap: Option<Gap> = None;
    for (part, optional) in [(prefix, true), (fmt, false), (suffix, false)] {
        let s = part.as_bytes();
        let mut lit_start = 0;
        let mut i = 0;
        let flush = |from: usize, to: usize, gap: &mut Option<Gap>, lits: &mut Vec<Literal>| {
            let k = key(&part[from..to]);
            if k.is_empty() {
                return;
            }
            match (gap.take(), lits.last_mut()) {
                // Two literals with no verb between (a `%%`, a suffix starting where the format
                // ends): one literal.
                (None, Some(last)) if last.optional == optional => {
                    last.key.push_str(&k);
                    last.raw.push_str(&part[from..to]);
                }
                (g, _) => lits.push(Literal {
                    gap_before: g,
                    optional,
                    key: k,
                    raw: part[from..to].to_string(),
                }),
            }
        };
        while i < s.len() {
            if s[i] == b'%' {
                if s.get(i + 1) == Some(&b'%') {
                    flush(lit_start, i + 1, &mut pending_gap, &mut literals);
                    i += 2;
                    lit_start = i;
                    continue;
                }
                if let Some((g, n)) = verb_at(s, i + 1) {
                    flush(lit_start, i, &mut pending_gap, &mut literals);
                    // Two verbs in a row print one gap; a number next to anything is anything.
                    pending_gap = Some(match pending_gap {
                        None => g,
                        Some(p) if p == g => g,
                        Some(_) => Gap::Any,
                    });
                    i += 1 + n;
                    lit_start = i;
                    continue;
                }
            }
            i += 1;
        }
        flush(lit_start, s.len(), &mut pending_gap, &mut literals);
    }
    Cut {
        literals,
        trailing: pending_gap,
    }
}

/// A piece of a format string as written: literal text, or a verb and what it prints.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Piece {
    Lit(String),
    Verb(Gap),
}

/// A format string as its pieces, in order (`%%` is a literal `%`): what a test renders with
/// sample values for its verbs.
pub fn pieces(text: &str) -> Vec<Piece> {
    let s = text.as_bytes();
    let mut out = Vec::new();
    let mut lit = String::new();
    let mut from = 0;
    let mut i = 0;
    while i < s.len() {
        if s[i] == b'%' {
            if s.get(i + 1) == Some(&b'%') {
                lit.push_str(&text[from..i + 1]);
                i += 2;
                from = i;
                continue;
            }
            if let Some((g, n)) = verb_at(s, i + 1) {
                lit.push_str(&text[from..i]);
                if !lit.is_empty() {
                    out.push(Piece::Lit(std::mem::take(&mut lit)));
                }
                out.push(Piece::Verb(g));
                i += 1 + n;
                from = i;
                continue;
            }
        }
        i += 1;
    }
    lit.push_str(&text[from..]);
    if !lit.is_empty() {
        out.push(Piece::Lit(lit));
    }
    out
}

/// The words of a literal: what whitespace separates, each with two letters or more (a path
/// or a dotted name is one word).
fn words(lit: &str) -> usize {
    lit.split_whitespace()
        .filter(|w| w.chars().filter(|c| c.is_alphabetic()).count() >= 2)
        .count()
}

/// Shortest literal text that can place a message, in characters, whitespace collapsed.
pub const ANCHOR_MIN_CHARS: usize = 12;

/// The anchor of a format: its first required literal that can place a message by itself (a
/// message cut short keeps its beginning); `None` when no literal can ([`can_anchor`]).
pub fn anchor(cut: &Cut) -> Option<usize> {
    cut.literals
        .iter()
        .position(|l| !l.optional && can_anchor(&l.raw))
}

/// Whether a literal (as written, not in key form) is specific enough to place a message on
/// its own: at least [`ANCHOR_MIN_CHARS`] characters once its whitespace is collapsed, and two
/// words apart. `failed: ` or `%s not found` could be any program's; `mount program didn't pass
/// remote address` is one.
pub fn can_anchor(lit: &str) -> bool {
    let collapsed: Vec<&str> = lit.split_whitespace().collect();
    collapsed.join(" ").chars().count() >= ANCHOR_MIN_CHARS && words(lit) >= 2
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verbs_of_go_c_and_python_cut_a_format() {
        let c = cut(
            "",
            "failed to map %q: %d devices, %08x %lu %pU %(name)s %%done %m",
            "",
        );
        let lits: Vec<&str> = c.literals.iter().map(|l| l.key.as_str()).collect();
        assert_eq!(lits, ["failedtomap", ":", "devices,", "%done"]);
        assert_eq!(c.literals[1].gap_before, Some(Gap::Quoted));
        assert_eq!(c.literals[2].gap_before, Some(Gap::Dec));
        // %08x %lu %pU %(name)s: one gap of anything.
        assert_eq!(c.literals[3].gap_before, Some(Gap::Any));
        assert_eq!(c.trailing, Some(Gap::Any));
    }

    #[test]
    fn a_prefix_is_optional_and_a_suffix_is_not() {
        let c = cut("ID: %v Req-ID: %v ", "failed to stage %s", ": %v");
        assert!(c.literals[0].optional && c.literals[1].optional);
        assert!(!c.literals[2].optional && !c.literals[3].optional);
        assert_eq!(c.literals[3].key, ":");
    }

    #[test]
    fn the_key_form_ignores_whitespace_case_and_escaped_quotes() {
        assert_eq!(
            key("Mount  failed:\n exit \\\"x\\\""),
            "mountfailed:exit\"x\""
        );
        assert_eq!(key("a\\nb \u{201C}q\u{201D} c\u{2026}"), "ab\"q\"c...");
    }

    #[test]
    fn gaps_admit_what_their_verb_prints() {
        assert!(Gap::Dec.admits(b"-32"));
        assert!(!Gap::Dec.admits(b"abc"));
        assert!(Gap::Hex.admits(b"0x1f"));
        assert!(Gap::Quoted.admits(b"\"pvc-1\""));
        assert!(!Gap::Quoted.admits(b"pvc-1"));
    }

    #[test]
    fn a_format_renders_from_its_pieces() {
        assert_eq!(
            pieces("map %q: %d%% done: %v"),
            [
                Piece::Lit("map ".into()),
                Piece::Verb(Gap::Quoted),
                Piece::Lit(": ".into()),
                Piece::Verb(Gap::Dec),
                Piece::Lit("% done: ".into()),
                Piece::Verb(Gap::Any),
            ]
        );
    }

    #[test]
    fn generic_literals_cannot_anchor() {
        assert!(!can_anchor("failed: "));
        assert!(!can_anchor("exit status "));
        assert!(can_anchor("Permission denied"));
        assert!(can_anchor(" is not bound"));
        assert!(!can_anchor("/var/lib/kubelet"));
    }
}
