//! Work the binary would otherwise redo on every start, done once at build time from
//! src/diagnose/knowledge.yaml: the document as JSON (parsed several times faster than YAML), and
//! for each pattern the literals it needs (src/diagnose/literals.rs, the same code the catalogue
//! runs, included here). Together they were about half of a `doctor pod`'s CPU time on the real
//! cluster (issue 19). The catalogue checks the pattern list against what it loads and computes
//! anything that does not match, so a stale file costs time, never a wrong answer.

#[allow(dead_code)]
#[path = "src/diagnose/literals.rs"]
mod literals;

use literals::Need;
use serde_json::{json, Value};

fn need_json(n: &Need) -> Value {
    match n {
        Need::Lit(l) => json!(l),
        Need::All(v) => json!({ "all": v.iter().map(need_json).collect::<Vec<_>>() }),
        Need::Any(v) => json!({ "any": v.iter().map(need_json).collect::<Vec<_>>() }),
    }
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
}
