//! Evidence the pod owns (issue 26), held the metamorphic way: for every whole case of
//! fixtures/cases and every saved real case of fixtures/real, adding inputs about other pods
//! (a busy node's whole kubelet log, every PV of a cluster, another namespace's event table,
//! another pod's describe, another case's files, and all of them at once) leaves the verdict
//! and its confidence exactly as they were. The distractors are real captures
//! (fixtures/distractors/README.md).

use std::path::{Path, PathBuf};

use crate::util::{run_cmd, BIN};

const DISTRACTORS: &[(&str, &[&str])] = &[
    (
        "a busy node's whole kubelet log",
        &["busy-node.kubelet.log"],
    ),
    ("every PV of a cluster", &["cluster-pvs.yaml"]),
    ("another namespace's event table", &["vbusy-events.txt"]),
    ("another pod's describe", &["other-pod-describe.txt"]),
    (
        "all four",
        &[
            "busy-node.kubelet.log",
            "cluster-pvs.yaml",
            "vbusy-events.txt",
            "other-pod-describe.txt",
        ],
    ),
];

/// A case to hold: its name, its own files, and the pod to name (fixtures/real's saves are
/// replayed with their pod's name, as `doctor pod NAME --from-file DIR` is).
struct Subject {
    id: String,
    files: Vec<PathBuf>,
    pod: Option<String>,
}

fn subjects() -> Vec<Subject> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    let mut out = Vec::new();
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(root.join("cases"))
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    for d in dirs {
        out.push(Subject {
            id: format!("cases/{}", d.file_name().unwrap().to_string_lossy()),
            files: crate::cases::inputs(&d),
            pod: None,
        });
    }
    // fixtures/real: each save directory is one pod's (its case.yaml names it), with the
    // node's kubelet lines beside it when the probe read them.
    let real = root.join("real");
    let mut saves: Vec<PathBuf> = std::fs::read_dir(&real)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_dir())
        .collect();
    saves.sort();
    for d in saves {
        let facts = std::fs::read_to_string(d.join("case.yaml")).unwrap_or_default();
        let pod = facts
            .lines()
            .find_map(|l| l.strip_prefix("pod: "))
            .map(|p| p.trim().trim_matches('\'').to_string());
        let mut files = vec![d.clone()];
        let log = real.join(format!(
            "{}.kubelet.log",
            d.file_name().unwrap().to_string_lossy()
        ));
        if log.is_file() {
            files.push(log);
        }
        out.push(Subject {
            id: format!("real/{}", d.file_name().unwrap().to_string_lossy()),
            files,
            pod,
        });
    }
    out
}

/// The verdict: the first finding's cause and confidence, or the refusal.
fn verdict(pod: Option<&str>, files: &[PathBuf]) -> String {
    let mut args: Vec<String> = vec!["doctor".into(), "pod".into()];
    if let Some(p) = pod {
        args.push(p.into());
    }
    for f in files {
        args.push("--from-file".into());
        args.push(f.to_string_lossy().into_owned());
    }
    args.extend(["-o".into(), "json".into()]);
    let out = run_cmd(std::process::Command::new(BIN).args(&args), None);
    out.assert_no_panic();
    if out.code == 2 {
        return format!("refused: {}", out.stderr.lines().next().unwrap_or(""));
    }
    let doc: serde_json::Value = serde_json::from_str(&out.stdout).expect("JSON");
    match doc["findings"].as_array().and_then(|f| f.first()) {
        Some(f) => format!(
            "{} {:.2}",
            f["cause"].as_str().unwrap_or("?"),
            f["confidence"].as_f64().unwrap_or(0.0)
        ),
        None => format!("no finding ({})", doc["status"].as_str().unwrap_or("?")),
    }
}

/// The case as `doctor pod --from-file` reads it, for asking who its pod is.
fn read_case(files: &[PathBuf]) -> volmnt::model::Case {
    use volmnt::collect::offline;
    let mut case = volmnt::model::Case::default();
    for f in files {
        let Ok(srcs) = offline::read_inputs(&f.to_string_lossy(), 64 << 20, &mut std::io::empty())
        else {
            continue;
        };
        for s in &srcs {
            let _ = offline::add_source(&mut case, s);
        }
    }
    case
}

/// Whether case `b`'s files (or one of them) are provably about another pod than case `a`'s: `b` names its pod
/// or volumes, none of them `a`'s, and any node command output it carries says which host it
/// was run on (a transcript that names no host could be anyone's node, `a`'s too).
fn provably_another(a: &volmnt::model::Case, b: &volmnt::model::Case) -> bool {
    use volmnt::diagnose::scope::{subject_of, Relevance};
    let (sa, sb) = (subject_of(a), subject_of(b));
    if !sb.known() || !sa.known() {
        return false;
    }
    let mut names = sb.names.clone();
    if let Some(p) = &sb.pod {
        names.pods.insert(match &sb.namespace {
            Some(ns) => format!("{ns}/{p}"),
            None => p.clone(),
        });
    }
    matches!(sa.relevance(&names), Relevance::Other(_))
        && b.node_facts.as_ref().is_none_or(|f| f.hostname.is_some())
}

#[test]
fn issue_26_facts_about_other_pods_never_move_a_verdict() {
    let all = subjects();
    assert!(all.len() >= 150, "{} subjects", all.len());
    let distractors = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/distractors");
    // Each case lends its files as "another case's" to the case before it that they are
    // provably not about (the next such case in order).
    let cases: Vec<&Subject> = all.iter().filter(|s| s.id.starts_with("cases/")).collect();
    let read: Vec<volmnt::model::Case> = cases.iter().map(|c| read_case(&c.files)).collect();
    let mut not_provably_other = 0;
    let neighbours: Vec<Option<usize>> = (0..cases.len())
        .map(|i| {
            let n = (1..cases.len()).map(|k| (i + k) % cases.len()).find(|&j| {
                // Every file of the other case must be provably another's: a file that
                // names nothing (a pasted error line alone) could be this pod's own.
                provably_another(&read[i], &read[j])
                    && cases[j]
                        .files
                        .iter()
                        .all(|f| provably_another(&read[i], &read_case(std::slice::from_ref(f))))
            });
            if n.is_none() {
                not_provably_other += 1;
            }
            n
        })
        .collect();
    let neighbour = |i: usize| -> Option<&Subject> { neighbours[i].map(|j| cases[j]) };
    let refused_bases = std::sync::atomic::AtomicUsize::new(0);
    let jobs: Vec<(usize, &Subject)> = all.iter().enumerate().collect();
    let changed = std::sync::Mutex::new(Vec::new());
    let runs = std::sync::atomic::AtomicUsize::new(0);
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get().min(4));
    let next = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(&(idx, s)) = jobs.get(i) else { break };
                let base = verdict(s.pod.as_deref(), &s.files);
                if base.starts_with("refused") {
                    // Nothing of its own was read: what the distractors say is all there is.
                    refused_bases.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    continue;
                }
                let mut variants: Vec<(String, Vec<PathBuf>)> = DISTRACTORS
                    .iter()
                    .map(|(what, files)| {
                        let mut f = s.files.clone();
                        f.extend(files.iter().map(|d| distractors.join(d)));
                        (what.to_string(), f)
                    })
                    .collect();
                if let Some(other) = (idx < cases.len()).then(|| neighbour(idx)).flatten() {
                    // Another case's files, after the case's own (as an operator adds more).
                    let mut f = s.files.clone();
                    f.extend(other.files.iter().cloned());
                    variants.push((format!("the files of {}", other.id), f));
                }
                for (what, files) in variants {
                    let got = verdict(s.pod.as_deref(), &files);
                    runs.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    if got != base {
                        changed
                            .lock()
                            .unwrap()
                            .push(format!("  {:<50} + {what}: {base} -> {got}", s.id));
                    }
                }
            });
        }
    });
    let mut changed = changed.into_inner().unwrap();
    changed.sort();
    eprintln!(
        "metamorphic: {} subjects ({} refused on their own inputs, not held), {} runs with inputs about other pods, {} verdict(s) changed; {} case(s) had no other case provably about another pod to lend them files",
        all.len(),
        refused_bases.into_inner(),
        runs.into_inner(),
        changed.len(),
        not_provably_other
    );
    assert!(
        changed.is_empty(),
        "verdicts moved by facts about other pods:\n{}",
        changed.join("\n")
    );
}
