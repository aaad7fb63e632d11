//! The message catalogue (src/diagnose/formats/, issue 27): its size per program and version,
//! and every format string it holds, rendered with sample values for its verbs, classified.
//!
//! Each format string matching uses (not `info`, not too generic to place a message: see
//! build.rs) is rendered three ways:
//! - whole: every verb given a sample value (a name, a number, a quoted name), and the verb a
//!   `wraps` format carries its reason in (its last verb of anything) given a real inner
//!   message, mount.nfs' `access denied by server while mounting` (nfs_access_denied);
//! - cut half way through its literal text, ending in `...` (as web pages cut a message);
//! - cut inside its last piece and ended with ` ...`, the way Kubernetes shortens an event's
//!   message to the API's 1,024-byte limit (pkg/scheduler/schedule_one.go truncateMessage,
//!   NoteLengthLimit in pkg/apis/core/validation/events.go).
//!
//! What passes: a format meaning a cause classifies to that cause as the top candidate (whole),
//! or among the top three (cut); a `wraps` or `symptom` format gives no wrong answer at
//! confidence >= 0.8 (for `wraps`: anything but the inner message's cause; for `symptom`:
//! anything but its program's symptom cause). Formats whose text (in the key form matching
//! uses) is printed by several programs with different cause meanings cannot all be told
//! apart from their text: they are counted apart, not failed.
//!
//! Classification is the engine's raw one (diagnose::classify: the patterns and the layers,
//! no case), which is what `explain` ranks.

use std::collections::{BTreeMap, HashMap};
use std::io::Write;

use volmnt::diagnose::catalogue::catalogue;
use volmnt::diagnose::classify::{classify, normalize};
use volmnt::diagnose::context::{context_for, Hints};
use volmnt::diagnose::format_catalogue::{formats, size_table, Means};
use volmnt::diagnose::format_text::{key, pieces, Gap, Piece};

/// The inner message a `wraps` format is given, and the cause it means (nfs-utils
/// utils/mount/error.c: `access denied by server while mounting %s`).
const INNER: &str = "mount.nfs: access denied by server while mounting 10.0.0.1:/export";
const INNER_CAUSE: &str = "nfs_access_denied";

fn sample(g: Gap) -> &'static str {
    match g {
        Gap::Any => "vol-7f3a",
        Gap::Dec => "32",
        Gap::Hex => "0x1f",
        Gap::Float => "1.5",
        Gap::Quoted => "\"pvc-7f3a\"",
        Gap::Char => "x",
    }
}

/// The format's pieces with a sample value for each verb (and the inner message for the last
/// verb of anything of a `wraps` format).
fn rendered(text: &str, wraps: bool) -> Vec<(bool, String)> {
    let ps = pieces(text);
    let last_any = ps.iter().rposition(|p| *p == Piece::Verb(Gap::Any));
    ps.iter()
        .enumerate()
        .map(|(i, p)| match p {
            Piece::Lit(l) => (true, l.clone()),
            Piece::Verb(g) if wraps && Some(i) == last_any => (false, INNER.to_string()),
            Piece::Verb(g) => (false, sample(*g).to_string()),
        })
        .collect()
}

fn whole(r: &[(bool, String)]) -> String {
    r.iter().map(|(_, s)| s.as_str()).collect()
}

/// Cut half way through the literal text, ending in `...`.
fn cut_half(r: &[(bool, String)]) -> String {
    let total: usize = r
        .iter()
        .filter(|(l, _)| *l)
        .map(|(_, s)| s.chars().count())
        .sum();
    let mut left = total / 2;
    let mut out = String::new();
    for (lit, s) in r {
        if !lit {
            out.push_str(s);
            continue;
        }
        let n = s.chars().count();
        if n >= left {
            out.extend(s.chars().take(left));
            break;
        }
        out.push_str(s);
        left -= n;
    }
    format!("{}...", out.trim_end())
}

/// Cut inside the last piece, ` ...` appended (Kubernetes' truncateMessage).
fn cut_end(r: &[(bool, String)]) -> String {
    let Some(((_, last), head)) = r.split_last() else {
        return String::new();
    };
    let n = last.chars().count();
    let keep: String = last.chars().take(n.div_ceil(2)).collect();
    format!(
        "{}{} ...",
        head.iter().map(|(_, s)| s.as_str()).collect::<String>(),
        keep
    )
}

/// Causes, best first, with their confidence.
fn ranked(text: &str) -> Vec<(&'static str, f64)> {
    let cat = catalogue();
    let text = normalize(text).into_owned();
    let ctx = context_for(&text, &Hints::default());
    classify(&text, &ctx)
        .into_iter()
        .map(|c| (cat.causes[c.cause].id.as_str(), c.confidence))
        .collect()
}

#[derive(Default)]
struct Tally {
    n: usize,
    whole: usize,
    half: usize,
    end: usize,
    collide: usize,
    /// `wraps`, whole: the inner message's cause is the top candidate.
    inner: usize,
}

#[test]
fn the_catalogue_size_per_program_and_version() {
    let rows = size_table();
    let mut err = std::io::stderr().lock();
    let _ = writeln!(
        err,
        "message catalogue: {} families\n{:<44} {:<22} {:<10} {:>6} {:>6} {:>6} {:>6} {:>6} {:>6} {:>7} {:>5}",
        rows.len(),
        "program",
        "version",
        "layer",
        "file",
        "used",
        "cause",
        "wraps",
        "sympt",
        "info",
        "generic",
        "same"
    );
    let mut t = [0usize; 8];
    for r in &rows {
        let _ = writeln!(
            err,
            "{:<44} {:<22} {:<10} {:>6} {:>6} {:>6} {:>6} {:>6} {:>6} {:>7} {:>5}",
            r.program,
            r.version,
            r.layer,
            r.catalogued,
            r.matched,
            r.cause,
            r.wraps,
            r.symptom,
            r.info,
            r.generic,
            r.same
        );
        for (i, v) in [
            r.catalogued,
            r.matched,
            r.cause,
            r.wraps,
            r.symptom,
            r.info,
            r.generic,
            r.same,
        ]
        .iter()
        .enumerate()
        {
            t[i] += v;
        }
        // Every entry of a family file is either used or counted as left out.
        assert_eq!(
            r.catalogued,
            r.matched + r.info + r.generic + r.same,
            "{}: every entry is used or left out for a reason",
            r.file
        );
        assert_eq!(r.matched, r.cause + r.wraps + r.symptom, "{}", r.file);
    }
    let _ = writeln!(
        err,
        "{:<44} {:<22} {:<10} {:>6} {:>6} {:>6} {:>6} {:>6} {:>6} {:>7} {:>5}",
        "total", "", "", t[0], t[1], t[2], t[3], t[4], t[5], t[6], t[7]
    );
    assert!(rows.len() >= 70, "{} families", rows.len());
    assert!(t[1] >= 15_000, "{} format strings used", t[1]);
}

#[test]
fn every_catalogued_format_classifies_to_its_meaning() {
    let fc = formats();
    let cat = catalogue();
    // Texts (key form) printed with different cause meanings: not told apart by text alone.
    let mut meanings: HashMap<String, Vec<&'static str>> = HashMap::new();
    for i in 0..fc.len() {
        let f = fc.format(i);
        if let Means::Cause(c) = f.means {
            let m = meanings.entry(key(f.text)).or_default();
            let id = cat.causes[c].id.as_str();
            if !m.contains(&id) {
                m.push(id);
            }
        }
    }
    let mut by_family: BTreeMap<(&'static str, &'static str), [Tally; 3]> = BTreeMap::new();
    let mut failures: Vec<(String, String)> = Vec::new();
    for i in 0..fc.len() {
        let f = fc.format(i);
        let fam = fc.family_of(&f);
        let wraps = f.means == Means::Wraps;
        let r = rendered(f.text, wraps);
        let kind = match f.means {
            Means::Cause(_) => 0,
            Means::Wraps => 1,
            Means::Symptom => 2,
        };
        let t = &mut by_family.entry((fam.file, fam.program)).or_default()[kind];
        t.n += 1;
        let texts = [whole(&r), cut_half(&r), cut_end(&r)];
        let got: Vec<Vec<(&str, f64)>> = texts.iter().map(|t| ranked(t)).collect();
        let pass: Vec<bool> = match f.means {
            Means::Cause(c) => {
                let want = cat.causes[c].id.as_str();
                if meanings.get(&key(f.text)).is_some_and(|m| m.len() > 1) {
                    t.collide += 1;
                }
                vec![
                    got[0].first().is_some_and(|(c, _)| *c == want),
                    got[1].iter().take(3).any(|(c, _)| *c == want),
                    got[2].iter().take(3).any(|(c, _)| *c == want),
                ]
            }
            Means::Wraps | Means::Symptom => {
                let ok = if wraps { INNER_CAUSE } else { fam.symptom };
                got.iter()
                    .map(|g| g.first().is_none_or(|(c, p)| *c == ok || *p < 0.8))
                    .collect()
            }
        };
        if wraps && got[0].first().is_some_and(|(c, _)| *c == INNER_CAUSE) {
            t.inner += 1;
        }
        t.whole += pass[0] as usize;
        t.half += pass[1] as usize;
        t.end += pass[2] as usize;
        for (k, name) in ["whole", "cut half way", "cut at the end"]
            .iter()
            .enumerate()
        {
            let shown = failures.iter().filter(|(n, _)| n == name).count();
            if !pass[k] && shown < 25 {
                failures.push((
                    name.to_string(),
                    format!(
                        "  {} {} [{}] {:?} -> {}",
                        fam.program,
                        f.at,
                        f.means_id,
                        texts[k].chars().take(140).collect::<String>(),
                        got[k]
                            .iter()
                            .take(2)
                            .map(|(c, p)| format!("{c} {p:.2}"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                ));
            }
        }
    }
    let mut err = std::io::stderr().lock();
    let pct = |a: usize, n: usize| {
        if n == 0 {
            "-".to_string()
        } else {
            format!("{:.0}%", 100.0 * a as f64 / n as f64)
        }
    };
    let _ = writeln!(
        err,
        "every catalogued format string, rendered (whole / cut half way / cut at the end): share that passes\n{:<44} {:>20} {:>20} {:>20}",
        "program", "cause (collide)", "wraps", "symptom"
    );
    let mut tot: [Tally; 3] = Default::default();
    for ((_, program), ts) in &by_family {
        let cell = |t: &Tally| {
            if t.n == 0 {
                "-".to_string()
            } else {
                format!(
                    "{} {}/{}/{}",
                    t.n,
                    pct(t.whole, t.n),
                    pct(t.half, t.n),
                    pct(t.end, t.n)
                )
            }
        };
        let _ = writeln!(
            err,
            "{:<44} {:>20} {:>20} {:>20}",
            program,
            format!("{} ({})", cell(&ts[0]), ts[0].collide),
            cell(&ts[1]),
            cell(&ts[2])
        );
        for k in 0..3 {
            tot[k].n += ts[k].n;
            tot[k].whole += ts[k].whole;
            tot[k].half += ts[k].half;
            tot[k].end += ts[k].end;
            tot[k].collide += ts[k].collide;
            tot[k].inner += ts[k].inner;
        }
    }
    for (name, t) in ["cause", "wraps", "symptom"].iter().zip(&tot) {
        let _ = writeln!(
            err,
            "all {name}: {} format strings: whole {}/{} = {}, cut half way {} = {}, cut at the end {} = {}{}",
            t.n,
            t.whole,
            t.n,
            pct(t.whole, t.n),
            t.half,
            pct(t.half, t.n),
            t.end,
            pct(t.end, t.n),
            match *name {
                "cause" => format!(" ({} share their text with another cause meaning)", t.collide),
                "wraps" => format!(
                    " (passing: no wrong answer at >= 0.8); the inner message's cause first, whole: {}/{} = {}",
                    t.inner,
                    t.n,
                    pct(t.inner, t.n)
                ),
                _ => " (passing: no wrong answer at >= 0.8)".to_string(),
            }
        );
    }
    for name in ["whole", "cut half way", "cut at the end"] {
        let _ = writeln!(
            err,
            "first failures ({name}):\n{}",
            failures
                .iter()
                .filter(|(n, _)| n == name)
                .map(|(_, l)| l.as_str())
                .collect::<Vec<_>>()
                .join("\n")
        );
    }
    // A ratchet at the figures first measured (issue 27): raise it as they rise.
    let share = |a: usize, n: usize| 100.0 * a as f64 / n.max(1) as f64;
    assert!(
        share(tot[0].whole, tot[0].n) >= CAUSE_WHOLE_FLOOR,
        "cause formats, whole: {:.1}% < {CAUSE_WHOLE_FLOOR}%",
        share(tot[0].whole, tot[0].n)
    );
    assert!(
        share(tot[1].whole + tot[2].whole, tot[1].n + tot[2].n) >= NO_WRONG_FLOOR,
        "wraps/symptom formats with no wrong confident answer: {:.1}% < {NO_WRONG_FLOOR}%",
        share(tot[1].whole + tot[2].whole, tot[1].n + tot[2].n)
    );
}

/// The share of cause formats, whole, classified to their cause: 925/943 = 98.1% when first
/// measured (issue 27).
const CAUSE_WHOLE_FLOOR: f64 = 97.5;
/// The share of wraps/symptom formats, whole, with no wrong answer at >= 0.8: 21,565/21,785 =
/// 99.0% when first measured.
const NO_WRONG_FLOOR: f64 = 98.5;
