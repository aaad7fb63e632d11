//! The message catalogue (src/diagnose/formats/: every format string on a volume's way to a
//! pod, each with where it is printed and what it means) as the binary holds it: the table
//! build.rs compiled from the family files (format_table.rs), read in place, so the catalogue
//! costs nothing at start-up. Data and loading only; matching a message is format_match.rs.

use std::sync::LazyLock;

use super::catalogue::catalogue;
use super::format_table::{LitRow, Table};
use super::format_text::Gap;

/// The table build.rs wrote.
const TABLE: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/formats.bin"));

/// One program family: a file of src/diagnose/formats/.
#[derive(Debug, Clone)]
pub struct Family {
    /// The file's name without `.yaml`.
    pub file: &'static str,
    /// How reports name the program (`kubelet`, `ceph-csi`, `mount`, `kernel (xfs)`).
    pub program: &'static str,
    /// The version read (a tag, a commit, a Debian version).
    pub version: &'static str,
    /// `kubelet`, `controller`, `sidecar`, `grpc`, `driver`, `mount`, `tool`, `kernel` or
    /// `storage`.
    pub layer: &'static str,
    /// The cause id a bare `symptom` of this program stands for, as written.
    pub symptom: &'static str,
    /// Its index among knowledge.yaml's causes (`None`: not a cause id, which the tests catch).
    pub symptom_cause: Option<usize>,
}

/// What a format string means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Means {
    /// Printed when this is the cause (index into knowledge.yaml's causes).
    Cause(usize),
    /// It carries the message of a layer below in its last verb: that layer says why.
    Wraps,
    /// It says that something failed, not why: its family's `symptom` stands for it.
    Symptom,
}

/// One literal of a format, in key form (format_text.rs).
pub type Lit = LitRow;

/// One format string.
#[derive(Debug, Clone)]
pub struct Format {
    /// Index into the families.
    pub family: usize,
    pub means: Means,
    /// The meaning as written (a cause id that is not one stays visible to the tests).
    pub means_id: &'static str,
    /// Returned as a gRPC status: reaches the kubelet as `rpc error: code = X desc = ...`.
    pub grpc: bool,
    /// `file:line` at the family's version.
    pub at: &'static str,
    /// The literal the index finds it by.
    pub anchor: usize,
    /// The verb it ends in, if it does.
    pub trailing: Option<Gap>,
    /// prefix + fmt + suffix, whitespace collapsed.
    pub text: &'static str,
    first_literal: usize,
    literals: usize,
}

/// The catalogue, read in place.
pub struct FormatCatalogue {
    table: Table,
}

impl FormatCatalogue {
    pub fn families(&self) -> usize {
        self.table.families()
    }

    pub fn family(&self, i: usize) -> Family {
        let r = self.table.family(i);
        Family {
            file: r.file,
            program: r.program,
            version: r.version,
            layer: r.layer,
            symptom: r.symptom,
            symptom_cause: catalogue().cause_index(r.symptom),
        }
    }

    pub fn family_of(&self, f: &Format) -> Family {
        self.family(f.family)
    }

    /// How many format strings matching uses.
    pub fn len(&self) -> usize {
        self.table.formats()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn format(&self, i: usize) -> Format {
        let r = self.table.format(i);
        Format {
            family: r.family,
            means: match r.means {
                "wraps" => Means::Wraps,
                "symptom" => Means::Symptom,
                id => catalogue()
                    .cause_index(id)
                    .map_or(Means::Symptom, Means::Cause),
            },
            means_id: r.means,
            grpc: r.grpc,
            at: r.at,
            anchor: r.anchor,
            trailing: r.trailing,
            text: r.text,
            first_literal: r.first_literal,
            literals: r.literals,
        }
    }

    /// The literals of a format, in order.
    pub fn literals(&self, f: &Format) -> Vec<Lit> {
        (f.first_literal..f.first_literal + f.literals)
            .map(|j| self.table.literal(j))
            .collect()
    }

    /// Every place in a message's key where a format's anchor starts (format_table.rs).
    pub fn anchors_in(&self, key: &[u8], found: impl FnMut(usize, usize)) {
        self.table.anchors_in(key, found)
    }

    /// What build.rs left out of family `i`: (entries in the file, `info`, too generic, the
    /// same string again).
    pub fn dropped(&self, i: usize) -> (u32, u32, u32, u32) {
        let r = self.table.family(i);
        (r.all, r.info, r.generic, r.same)
    }
}

static FORMATS: LazyLock<FormatCatalogue> = LazyLock::new(|| FormatCatalogue {
    table: Table::new(TABLE).expect("build.rs wrote formats.bin in format_table.rs's layout"),
});

/// The catalogue.
pub fn formats() -> &'static FormatCatalogue {
    &FORMATS
}

/// One line per program and version: how many format strings the catalogue holds, how many of
/// them have a meaning read by hand, and what was left out (`volmnt explain --catalogue`, and
/// the tests print it).
pub fn size_table() -> Vec<SizeRow> {
    let fc = formats();
    let mut rows: Vec<SizeRow> = (0..fc.families())
        .map(|i| {
            let fam = fc.family(i);
            let (all, info, generic, same) = fc.dropped(i);
            SizeRow {
                program: fam.program,
                version: fam.version,
                layer: fam.layer,
                file: fam.file,
                catalogued: all as usize,
                matched: 0,
                cause: 0,
                wraps: 0,
                symptom: 0,
                info: info as usize,
                generic: generic as usize,
                same: same as usize,
            }
        })
        .collect();
    for i in 0..fc.len() {
        let f = fc.format(i);
        let r = &mut rows[f.family];
        r.matched += 1;
        match f.means {
            Means::Cause(_) => r.cause += 1,
            Means::Wraps => r.wraps += 1,
            Means::Symptom => r.symptom += 1,
        }
    }
    rows
}

/// The size of one family.
#[derive(Debug, Clone, serde::Serialize)]
pub struct SizeRow {
    pub program: &'static str,
    pub version: &'static str,
    pub layer: &'static str,
    pub file: &'static str,
    /// Format strings in the family file.
    pub catalogued: usize,
    /// Those matching uses (distinct strings, not `info`, with a specific literal).
    pub matched: usize,
    /// Of those: meaning a cause, wrapping a layer below, a symptom.
    pub cause: usize,
    pub wraps: usize,
    pub symptom: usize,
    /// Left out: `info`, too generic to place a message, a repeat of a kept string.
    pub info: usize,
    pub generic: usize,
    pub same: usize,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn family_files() -> Vec<(String, serde_yaml::Value)> {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/src/diagnose/formats");
        let mut out: Vec<(String, serde_yaml::Value)> = std::fs::read_dir(dir)
            .expect("formats/")
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "yaml"))
            .map(|p| {
                let text = std::fs::read_to_string(&p).expect("read");
                let doc =
                    serde_yaml::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
                (p.file_stem().unwrap().to_string_lossy().to_string(), doc)
            })
            .collect();
        out.sort_by(|a, b| a.0.cmp(&b.0));
        out
    }

    #[test]
    fn every_meaning_is_a_cause_id_or_wraps_symptom_info() {
        let cat = catalogue();
        let mut bad = Vec::new();
        for (file, doc) in family_files() {
            let sym = doc["symptom"].as_str().unwrap_or("");
            if cat.cause_index(sym).is_none() {
                bad.push(format!("{file}: symptom {sym:?} is not a cause id"));
            }
            for e in doc["formats"].as_sequence().into_iter().flatten() {
                let m = e["means"].as_str().unwrap_or("");
                if !matches!(m, "wraps" | "symptom" | "info") && cat.cause_index(m).is_none() {
                    bad.push(format!(
                        "{file} {}: means {m:?}",
                        e["at"].as_str().unwrap_or("")
                    ));
                }
            }
        }
        assert!(bad.is_empty(), "{}", bad.join("\n"));
    }

    #[test]
    fn every_family_file_is_loaded_whole() {
        let fc = formats();
        let files = family_files();
        assert_eq!(fc.families(), files.len(), "a family file was left out");
        let rows = size_table();
        for (file, doc) in &files {
            let all = doc["formats"].as_sequence().map_or(0, |s| s.len());
            let i = rows
                .iter()
                .position(|r| r.file == file)
                .unwrap_or_else(|| panic!("{file}: not loaded"));
            let r = &rows[i];
            assert_eq!(r.catalogued, all, "{file}");
            assert_eq!(
                r.matched + r.info + r.generic + r.same,
                all,
                "{file}: entries lost"
            );
            assert!(fc.family(i).symptom_cause.is_some(), "{file}");
        }
        // Every kept meaning was read as written: no cause id fell back to `symptom`.
        for i in 0..fc.len() {
            let f = fc.format(i);
            if !matches!(f.means_id, "wraps" | "symptom") {
                assert!(
                    matches!(f.means, Means::Cause(_)),
                    "{}: {}",
                    f.at,
                    f.means_id
                );
            }
            let lits = fc.literals(&f);
            assert!(
                f.anchor < lits.len() && !lits[f.anchor].optional,
                "{}",
                f.at
            );
        }
    }

    #[test]
    fn loading_is_cheap() {
        // The table is read in place: the first look-up costs what the knowledge file's load
        // costs (it resolves cause ids), and nothing is parsed or built for the formats.
        let _ = catalogue();
        let t = std::time::Instant::now();
        let fc = formats();
        let mut n = 0;
        fc.anchors_in(b"mountvolume.setupfailedforvolume\"x\":", |_, _| n += 1);
        assert!(fc.len() > 10_000 && n > 0);
        assert!(
            t.elapsed() < std::time::Duration::from_millis(50),
            "{:?}",
            t.elapsed()
        );
    }
}
