//! The public corpus: real attach/mount failure messages from issue threads, docs and Q&A pages,
//! each labelled with the cause its thread established. Every message is classified from its
//! text alone (no volume type, no objects), as `volmnt explain` would.
//!
//! Three files, split as fixtures/corpus/SPLIT.md says (decided before any new record was read):
//! - `real-mount-failures.yaml`: the first 57 records, which the rules were written against: all
//!   `tune`;
//! - `world.yaml`: the records collected later, `tune` or `holdout` by the FNV-1a hash of their
//!   `source` (odd: holdout). Rules are written from the sources and from `tune` only;
//! - `drivers.yaml`: cloud and vendor CSI drivers the others did not hold (issue 27), all
//!   `holdout`, collected before the message catalogue of their programs was written.
//!
//! Printed for both halves: top-1, top-3, the share answered "unknown", wrong answers at
//! confidence ≥ 0.8, and a reliability table (confidence bucket → share right). Misses are
//! listed for `tune` only, so nobody tunes against the holdout by reading it.
//! Records whose thread never settled the cause (`unknown_in_source`), or whose only fix was a
//! code change (`software_bug`, `other`), are kept but not scored.

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;

use serde::Deserialize;
use volmnt::diagnose::{explain, Options};

#[derive(Deserialize, Clone)]
struct Record {
    id: String,
    source: String,
    text: String,
    cause: String,
    #[serde(default)]
    project: Option<String>,
    /// The collection batch the record came in with (world.yaml).
    #[serde(default)]
    collected_from: Option<String>,
}

const FIRST: &str = include_str!("../fixtures/corpus/real-mount-failures.yaml");
const WORLD: &str = include_str!("../fixtures/corpus/world.yaml");
/// Issue 27's cloud and vendor drivers, collected to be held out whole (SPLIT.md rule 4).
const DRIVERS: &str = include_str!("../fixtures/corpus/drivers.yaml");
const NOT_SCORED: &[&str] = &["software_bug", "other", "unknown_in_source"];

/// 64-bit FNV-1a (fixtures/corpus/SPLIT.md).
fn fnv1a(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

#[derive(Clone, Copy, PartialEq, Debug)]
enum Half {
    Tune,
    Holdout,
}

fn records() -> Vec<(Record, Half)> {
    let first: Vec<Record> = serde_yaml::from_str(FIRST).expect("real-mount-failures.yaml parses");
    let world: Vec<Record> = serde_yaml::from_str(WORLD).expect("world.yaml parses");
    let first_sources: BTreeSet<String> =
        first.iter().map(|r| r.source.trim().to_string()).collect();
    let mut out: Vec<(Record, Half)> = first.into_iter().map(|r| (r, Half::Tune)).collect();
    for r in world {
        let src = r.source.trim().to_string();
        let half = if first_sources.contains(&src) || fnv1a(&src).is_multiple_of(2) {
            Half::Tune
        } else {
            Half::Holdout
        };
        out.push((r, half));
    }
    let drivers: Vec<Record> = serde_yaml::from_str(DRIVERS).expect("drivers.yaml parses");
    out.extend(drivers.into_iter().map(|r| (r, Half::Holdout)));
    out
}

/// One half's figures.
#[derive(Default)]
struct Score {
    n: usize,
    top1: usize,
    top3: usize,
    unknown: usize,
    confident_wrong: Vec<String>,
    /// (lower bound, n, right) per confidence bucket.
    buckets: Vec<(f64, usize, usize)>,
    misses: Vec<String>,
    /// The records whose top answer was not their cause.
    missed: Vec<String>,
}

const BUCKETS: &[f64] = &[0.0, 0.3, 0.5, 0.7, 0.8, 0.9];

fn score(recs: &[&Record]) -> Score {
    let mut s = Score {
        buckets: BUCKETS.iter().map(|b| (*b, 0, 0)).collect(),
        ..Score::default()
    };
    for r in recs {
        let report = explain(&r.id, &r.text, &Options::default());
        let ranked: Vec<(&str, f64)> = report
            .findings
            .iter()
            .map(|f| (f.cause.as_str(), f.confidence))
            .collect();
        let (top, conf) = ranked.first().copied().unwrap_or(("(none)", 0.0));
        s.n += 1;
        let right = top == r.cause;
        if right {
            s.top1 += 1;
        } else {
            s.missed.push(r.id.clone());
            s.misses.push(format!(
                "  {:<52} want {:<32} got {}",
                r.id,
                r.cause,
                ranked
                    .iter()
                    .take(3)
                    .map(|(c, p)| format!("{c} {p:.2}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
            if conf >= 0.8 {
                s.confident_wrong
                    .push(format!("{} ({top} {conf:.2}, want {})", r.id, r.cause));
            }
        }
        if ranked.iter().take(3).any(|(c, _)| *c == r.cause) {
            s.top3 += 1;
        }
        if top == "unknown" || top == "(none)" {
            s.unknown += 1;
        }
        let b = BUCKETS.iter().rposition(|lo| conf >= *lo).unwrap_or(0);
        s.buckets[b].1 += 1;
        if right {
            s.buckets[b].2 += 1;
        }
    }
    s
}

/// How much of a set of messages the message catalogue (src/diagnose/formats/) knows: which
/// layers of each message a format string printed, and which layers none did (issue 27).
#[derive(Default)]
struct Coverage {
    n: usize,
    /// Every layer has a format string.
    all_known: usize,
    /// At least one layer has one.
    some_known: usize,
    /// Layers no format string matched, by the program of the layer around them (`(outermost)`:
    /// nothing is around it; `(no layer known)`: no format string matched anywhere).
    unknown_by_program: BTreeMap<String, usize>,
    /// `id  [around] "the unknown text"`, for the tune half only.
    listed: Vec<String>,
}

/// A message's layers as the engine reads it (normalised and unescaped as merge.rs does).
fn layers_of(text: &str) -> volmnt::diagnose::layers::Layers {
    let text = volmnt::diagnose::classify::normalize(&volmnt::parse::mount_error::unescape(text))
        .into_owned();
    volmnt::diagnose::layers::split(&text)
}

fn coverage<'a>(recs: impl IntoIterator<Item = &'a Record>, list: bool) -> Coverage {
    let mut c = Coverage::default();
    for r in recs {
        let text =
            volmnt::diagnose::classify::normalize(&volmnt::parse::mount_error::unescape(&r.text))
                .into_owned();
        let l = layers_of(&r.text);
        c.n += 1;
        if l.all_known() {
            c.all_known += 1;
        }
        if !l.layers.is_empty() {
            c.some_known += 1;
        } else {
            *c.unknown_by_program
                .entry("(no layer known)".into())
                .or_default() += 1;
            if list {
                let t: String = text.chars().take(110).collect();
                c.listed
                    .push(format!("  {:<52} (no layer known) \"{t}\"", r.id));
            }
            continue;
        }
        for u in &l.unknown {
            let around = match l.program_around(u) {
                "-" => "(outermost)".to_string(),
                p => p.to_string(),
            };
            *c.unknown_by_program.entry(around.clone()).or_default() += 1;
            if list {
                let t: String = text[u.span.0..u.span.1].chars().take(110).collect();
                c.listed.push(format!("  {:<52} [{around}] \"{t}\"", r.id));
            }
        }
    }
    c
}

fn by_program(m: &BTreeMap<String, usize>) -> String {
    let mut v: Vec<(&String, &usize)> = m.iter().collect();
    v.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    v.iter()
        .map(|(p, n)| format!("{p} {n}"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn print_coverage(err: &mut impl Write, name: &str, c: &Coverage) {
    let _ = writeln!(
        err,
        "corpus {name}: catalogue: {}/{} = {:.1}% of messages with a named format string for every layer, {:.1}% for at least one",
        c.all_known,
        c.n,
        pct(c.all_known, c.n),
        pct(c.some_known, c.n)
    );
    let _ = writeln!(
        err,
        "corpus {name}: layers with no format string, by the program around them: {}",
        by_program(&c.unknown_by_program)
    );
    if !c.listed.is_empty() {
        let _ = writeln!(
            err,
            "corpus {name}: layers with no format string:\n{}",
            c.listed.join("\n")
        );
    }
}

fn pct(a: usize, n: usize) -> f64 {
    if n == 0 {
        0.0
    } else {
        a as f64 * 100.0 / n as f64
    }
}

/// top-1, top-3, the "unknown" rate and the confident wrong answers of one score.
fn figures(s: &Score) -> String {
    format!(
        "top-1 {}/{} = {:.1}%, top-3 {:.1}%, unknown {:.1}%, wrong at confidence >= 0.8: {}",
        s.top1,
        s.n,
        pct(s.top1, s.n),
        pct(s.top3, s.n),
        pct(s.unknown, s.n),
        s.confident_wrong.len()
    )
}

fn print(err: &mut impl Write, name: &str, s: &Score, misses: bool) {
    let _ = writeln!(err, "corpus {name}: {} scored: {}", s.n, figures(s));
    let _ = writeln!(
        err,
        "corpus {name}: reliability (confidence bucket: right / answered)"
    );
    for (i, (lo, n, right)) in s.buckets.iter().enumerate() {
        let hi = BUCKETS.get(i + 1).copied().unwrap_or(1.0);
        let _ = writeln!(
            err,
            "  [{lo:.1}, {hi:.1}{}  {right:>4} / {n:<4} {}",
            if hi >= 1.0 { "]" } else { ")" },
            if *n == 0 {
                "-".to_string()
            } else {
                format!("{:.0}%", pct(*right, *n))
            }
        );
    }
    if misses && !s.misses.is_empty() {
        let _ = writeln!(err, "corpus {name}: top-1 misses:\n{}", s.misses.join("\n"));
    }
}

#[test]
fn corpus_accuracy_on_tune_and_holdout() {
    let all = records();
    let scored = |h: Half| -> Vec<&Record> {
        all.iter()
            .filter(|(r, half)| *half == h && !NOT_SCORED.contains(&r.cause.as_str()))
            .map(|(r, _)| r)
            .collect()
    };
    let (tune, holdout) = (scored(Half::Tune), scored(Half::Holdout));
    let t = score(&tune);
    let h = score(&holdout);
    // Straight to stderr, so the figures show even when the test passes.
    let mut err = std::io::stderr();
    let projects: BTreeSet<String> = all
        .iter()
        .map(|(r, _)| {
            r.project
                .clone()
                .unwrap_or_else(|| r.source.split('#').next().unwrap_or(&r.source).to_string())
        })
        .collect();
    let _ = writeln!(
        err,
        "corpus: {} records ({} not scored), {} projects; tune {} scored, holdout {} scored",
        all.len(),
        all.iter()
            .filter(|(r, _)| NOT_SCORED.contains(&r.cause.as_str()))
            .count(),
        projects.len(),
        tune.len(),
        holdout.len()
    );
    print(&mut err, "tune", &t, true);
    print(&mut err, "holdout", &h, false);
    // Each batch's holdout records alone: a batch's first figure is measured before any rule is
    // written for it (fixtures/corpus/SPLIT.md), and is the freshest measure of what the engine
    // does on messages it has never seen.
    let batches: BTreeSet<&str> = holdout
        .iter()
        .filter_map(|r| r.collected_from.as_deref())
        .collect();
    for b in batches {
        let recs: Vec<&Record> = holdout
            .iter()
            .copied()
            .filter(|r| r.collected_from.as_deref() == Some(b))
            .collect();
        let s = score(&recs);
        let _ = writeln!(err, "corpus holdout, batch {b}: {}", figures(&s));
    }
    // The message catalogue's reach (issue 27): the unknown layers are listed for the tune
    // half, counted for the holdout (and for its misses, the layers that had no format string).
    print_coverage(&mut err, "tune", &coverage(tune.iter().copied(), true));
    print_coverage(
        &mut err,
        "holdout",
        &coverage(holdout.iter().copied(), false),
    );
    let missed: Vec<&Record> = holdout
        .iter()
        .copied()
        .filter(|r| h.missed.contains(&r.id))
        .collect();
    let hm = coverage(missed.iter().copied(), false);
    let _ = writeln!(
        err,
        "corpus holdout misses ({}): {} with a format string for every layer; layers with no format string, by the program around them: {}",
        hm.n,
        hm.all_known,
        by_program(&hm.unknown_by_program)
    );
    for b in ["drivers-cloud", "drivers-vendor"] {
        let recs: Vec<&Record> = holdout
            .iter()
            .copied()
            .filter(|r| r.collected_from.as_deref() == Some(b))
            .collect();
        let c = coverage(recs.iter().copied(), false);
        let _ = writeln!(
            err,
            "corpus holdout, batch {b}: catalogue: {}/{} = {:.1}% with a format string for every layer; no format string: {}",
            c.all_known,
            c.n,
            pct(c.all_known, c.n),
            by_program(&c.unknown_by_program)
        );
    }
    if !h.confident_wrong.is_empty() || !t.confident_wrong.is_empty() {
        let _ = writeln!(
            err,
            "corpus: wrong at >= 0.8 (tune): {:?}\ncorpus: wrong at >= 0.8 (holdout): {} record(s)",
            t.confident_wrong,
            h.confident_wrong.len()
        );
    }
    assert!(
        pct(t.top1, t.n) >= 85.0,
        "tune top-1 {:.1}% is below 85%",
        pct(t.top1, t.n)
    );
    assert!(
        t.confident_wrong.is_empty(),
        "tune: a wrong answer at confidence >= 0.8: {:?}",
        t.confident_wrong
    );
    // The goal (issue 8) is holdout top-1 >= 90%: `holdout_meets_the_goal` below says so and is
    // run on demand (`cargo test --test tests corpus -- --ignored`); it fails today. What CI
    // holds is a ratchet: the holdout figure may not fall below what it was when these rules
    // landed. When the corpus grows the ratchet restarts from the first figure measured on the
    // grown corpus before any rule was written for the new records (fixtures/corpus/SPLIT.md
    // keeps the history: 37.5% first on 32 scored holdout records, 57.4% on 47, 51.0% first
    // on 98, then 55.3% first on 123 with 12 wrong at >= 0.8).
    if h.n > 0 {
        let _ = writeln!(
            err,
            "corpus holdout: goal top-1 >= {HOLDOUT_GOAL}%: {}",
            if pct(h.top1, h.n) >= HOLDOUT_GOAL {
                "met"
            } else {
                "NOT MET"
            }
        );
        assert!(
            pct(h.top1, h.n) >= HOLDOUT_FLOOR,
            "holdout top-1 {:.1}% fell below the ratchet {HOLDOUT_FLOOR}%",
            pct(h.top1, h.n)
        );
        assert!(
            h.confident_wrong.len() <= HOLDOUT_MAX_CONFIDENT_WRONG,
            "holdout: {} wrong answers at confidence >= 0.8 (ratchet {HOLDOUT_MAX_CONFIDENT_WRONG})",
            h.confident_wrong.len()
        );
    }
}

/// Issue 8's goal for messages never tuned on.
const HOLDOUT_GOAL: f64 = 90.0;
/// What the holdout may not fall below (raise it when the figure rises; never lower it).
const HOLDOUT_FLOOR: f64 = 53.0;
/// Restarted with the corpus at 494 records from the first figure on it (12; it was 9 on the
/// 423-record corpus).
const HOLDOUT_MAX_CONFIDENT_WRONG: usize = 12;

/// Issue 8's acceptance bar, kept as a test that states it; not met yet, so not in CI's run.
#[test]
#[ignore = "issue 8's goal (holdout top-1 >= 90%, top-3 >= 97%, unknown <= 3%) is not met yet"]
fn holdout_meets_the_goal() {
    let all = records();
    let holdout: Vec<&Record> = all
        .iter()
        .filter(|(r, half)| *half == Half::Holdout && !NOT_SCORED.contains(&r.cause.as_str()))
        .map(|(r, _)| r)
        .collect();
    let h = score(&holdout);
    assert!(
        pct(h.top1, h.n) >= HOLDOUT_GOAL,
        "holdout top-1 {:.1}%",
        pct(h.top1, h.n)
    );
    assert!(
        pct(h.top3, h.n) >= 97.0,
        "holdout top-3 {:.1}%",
        pct(h.top3, h.n)
    );
    assert!(
        pct(h.unknown, h.n) <= 3.0,
        "holdout unknown {:.1}%",
        pct(h.unknown, h.n)
    );
    assert!(h.confident_wrong.is_empty(), "holdout wrong at >= 0.8");
}

#[test]
fn the_split_is_by_source_and_never_splits_a_thread() {
    let all = records();
    let mut by_source: std::collections::BTreeMap<&str, BTreeSet<String>> = Default::default();
    for (r, h) in &all {
        by_source
            .entry(r.source.trim())
            .or_default()
            .insert(format!("{h:?}"));
    }
    assert!(by_source.values().all(|halves| halves.len() == 1));
    // The hash is the one SPLIT.md names (FNV-1a 64, reference vectors).
    assert_eq!(fnv1a(""), 0xcbf2_9ce4_8422_2325);
    assert_eq!(fnv1a("a"), 0xaf63_dc4c_8601_ec8c);
    let ids: BTreeSet<&str> = all.iter().map(|(r, _)| r.id.as_str()).collect();
    assert_eq!(ids.len(), all.len(), "record ids are unique");
}
