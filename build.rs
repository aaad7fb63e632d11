//! Work the binary would otherwise redo on every start, done once at build time from
//! src/diagnose/knowledge.yaml: the document as JSON (parsed several times faster than YAML), and
//! for each pattern the literals it needs (src/diagnose/literals.rs, the same code the catalogue
//! runs, included here). Together they were about half of a `doctor pod`'s CPU time on the real
//! cluster (issue 19). The catalogue checks the pattern list against what it loads and computes
//! anything that does not match, so a stale file costs time, never a wrong answer.

#[allow(dead_code)]
#[path = "src/diagnose/literals.rs"]
mod literals;

#[allow(dead_code)]
#[path = "src/diagnose/format_text.rs"]
mod format_text;

#[allow(dead_code)]
#[path = "src/diagnose/format_table.rs"]
mod format_table;

use literals::Need;
use serde_json::{json, Value};

fn need_json(n: &Need) -> Value {
    match n {
        Need::Lit(l) => json!(l),
        Need::All(v) => json!({ "all": v.iter().map(need_json).collect::<Vec<_>>() }),
        Need::Any(v) => json!({ "any": v.iter().map(need_json).collect::<Vec<_>>() }),
    }
}

/// The message catalogue (src/diagnose/formats/*.yaml) as the table the binary reads in place
/// (src/diagnose/format_table.rs says the layout): parsing 120,000 lines of YAML, cutting 26,000
/// format strings at their verbs and indexing their anchors is done here, once. Left out of
/// each family, and counted: `info` entries (not a failure), entries with no literal specific
/// enough to place a message (format_text::can_anchor: 12 characters and two words), and
/// repeats of a string the family already has at another line (kept once, at its first line,
/// with the meaning that says most: a cause, then symptom, then wraps).
fn compile_formats(out: &std::path::Path) {
    let dir = std::path::Path::new("src/diagnose/formats");
    println!("cargo::rerun-if-changed=src/diagnose/formats");
    println!("cargo::rerun-if-changed=src/diagnose/format_text.rs");
    println!("cargo::rerun-if-changed=src/diagnose/format_table.rs");
    let mut files: Vec<std::path::PathBuf> = std::fs::read_dir(dir)
        .map(|d| {
            d.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "yaml"))
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    let mut families = Vec::new();
    for f in files {
        println!("cargo::rerun-if-changed={}", f.display());
        let stem = f
            .file_stem()
            .unwrap_or_default()
            .to_string_lossy()
            .to_string();
        // A family that does not parse is reported by the catalogue's tests
        // (format_catalogue.rs reads the files again); here it is left out.
        let Ok(doc) = std::fs::read_to_string(&f)
            .map_err(|e| e.to_string())
            .and_then(|t| serde_yaml::from_str::<Value>(&t).map_err(|e| e.to_string()))
        else {
            continue;
        };
        let field = |k: &str| doc[k].as_str().unwrap_or("").to_string();
        let mut fam = format_table::FamilyIn {
            file: stem,
            program: field("program"),
            version: field("version"),
            layer: field("layer"),
            symptom: field("symptom"),
            all: 0,
            info: 0,
            generic: 0,
            same: 0,
            formats: Vec::new(),
        };
        // Whole format → (index in `fam.formats`, its meaning's rank).
        let mut seen: std::collections::HashMap<String, (usize, u8)> = Default::default();
        for e in doc["formats"].as_array().into_iter().flatten() {
            fam.all += 1;
            let means = e["means"].as_str().unwrap_or("symptom");
            if means == "info" {
                fam.info += 1;
                continue;
            }
            let s = |k: &str| e[k].as_str().unwrap_or("");
            let (prefix, fmt, suffix) = (s("prefix"), s("fmt"), s("suffix"));
            let cut = format_text::cut(prefix, fmt, suffix);
            let Some(anchor) = format_text::anchor(&cut) else {
                fam.generic += 1;
                continue;
            };
            let text = format!("{prefix}{fmt}{suffix}")
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ");
            let rank = match means {
                "wraps" => 0,
                "symptom" => 1,
                _ => 2,
            };
            let entry = format_table::FormatIn {
                means: means.to_string(),
                grpc: e["grpc"].as_bool() == Some(true),
                at: s("at").to_string(),
                text: text.clone(),
                cut,
                anchor,
            };
            match seen.get(&text).copied() {
                Some((i, r)) => {
                    fam.same += 1;
                    if rank > r {
                        // The same string with a meaning that says more: that meaning, at the
                        // first line.
                        let at = std::mem::take(&mut fam.formats[i].at);
                        fam.formats[i] = format_table::FormatIn { at, ..entry };
                        seen.insert(text, (i, rank));
                    }
                }
                None => {
                    seen.insert(text, (fam.formats.len(), rank));
                    fam.formats.push(entry);
                }
            }
        }
        families.push(fam);
    }
    std::fs::write(out.join("formats.bin"), format_table::write(&families))
        .expect("write formats.bin");
}

fn main() {
    let src = "src/diagnose/knowledge.yaml";
    println!("cargo::rerun-if-changed={src}");
    println!("cargo::rerun-if-changed=src/diagnose/literals.rs");
    let out = std::path::PathBuf::from(std::env::var_os("OUT_DIR").expect("OUT_DIR"));
    let text = std::fs::read_to_string(src).expect("read knowledge.yaml");
    // A broken file is reported by the catalogue's own checks (and its tests) with context;
    // here it only means nothing is precomputed.
    let (doc, needs) = match serde_yaml::from_str::<Value>(&text) {
        Ok(doc) => {
            let mut needs = Vec::new();
            for c in doc["causes"].as_array().into_iter().flatten() {
                for p in c["patterns"].as_array().into_iter().flatten() {
                    let re = p["match"].as_str().unwrap_or("");
                    needs.push(json!({
                        "match": re,
                        "need": literals::literal_needs(re).ok().map(|n| need_json(&n)),
                    }));
                }
            }
            (doc, needs)
        }
        Err(_) => (Value::Null, Vec::new()),
    };
    std::fs::write(out.join("knowledge.json"), doc.to_string()).expect("write knowledge.json");
    std::fs::write(
        out.join("pattern-needs.json"),
        Value::from(needs).to_string(),
    )
    .expect("write pattern-needs.json");
    compile_formats(&out);
}
