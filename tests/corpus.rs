//! The public corpus: 57 real attach/mount failure messages from issue threads, each labelled
//! with the cause the thread established (fixtures/corpus/real-mount-failures.yaml). Every
//! message is classified from its text alone (no volume type, no objects), as `volmnt explain`
//! would. Records whose cause is `software_bug` or `other` are left out: no rule can name a bug.

use std::io::Write;

use serde::Deserialize;
use volmnt::diagnose::{explain, Options};

#[derive(Deserialize)]
struct Record {
    id: String,
    text: String,
    cause: String,
}

const CORPUS: &str = include_str!("../fixtures/corpus/real-mount-failures.yaml");
const EXCLUDED: &[&str] = &["software_bug", "other"];

#[test]
fn corpus_accuracy_top1_at_least_85_percent() {
    let records: Vec<Record> = serde_yaml::from_str(CORPUS).expect("corpus parses");
    assert_eq!(records.len(), 57, "the corpus file changed");
    let scored: Vec<&Record> = records
        .iter()
        .filter(|r| !EXCLUDED.contains(&r.cause.as_str()))
        .collect();
    let mut top1 = 0;
    let mut top3 = 0;
    let mut misses = Vec::new();
    for r in &scored {
        let report = explain(&r.id, &r.text, &Options::default());
        let ranked: Vec<&str> = report.findings.iter().map(|f| f.cause.as_str()).collect();
        if ranked.first() == Some(&r.cause.as_str()) {
            top1 += 1;
        } else {
            misses.push(format!(
                "  {:<48} want {:<32} got {}",
                r.id,
                r.cause,
                ranked
                    .iter()
                    .take(3)
                    .cloned()
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        if ranked.iter().take(3).any(|c| *c == r.cause) {
            top3 += 1;
        }
    }
    let n = scored.len();
    let p1 = top1 as f64 / n as f64;
    let p3 = top3 as f64 / n as f64;
    // Written straight to stderr so the figures show even when the test passes.
    let mut err = std::io::stderr();
    let _ = writeln!(
        err,
        "corpus: {n} scored ({} excluded as software_bug/other): top-1 {top1}/{n} = {:.1}%, top-3 {top3}/{n} = {:.1}%",
        records.len() - n,
        p1 * 100.0,
        p3 * 100.0
    );
    if !misses.is_empty() {
        let _ = writeln!(err, "corpus: top-1 misses:\n{}", misses.join("\n"));
    }
    assert!(p1 >= 0.85, "top-1 accuracy {:.1}% is below 85%", p1 * 100.0);
}
