//! Pure diagnosis: `Case → Report`. Messages are classified against the catalogue in their
//! context, correlation rules add what object state says, findings are merged per cause and
//! ranked, and each gets its evidence and the commands to run.
//!
//! This file is the engine: the `diagnose` entry and its orchestration. The layers under it,
//! each importing only those below it:
//!
//! - the data: `catalogue` (knowledge.yaml loaded and checked: causes, patterns, steps, OS
//!   map, evidence and suspect rules), over `literals` and `os`; `text` (normalising, clipping,
//!   ages) beside it;
//! - reading one message or volume: `context`, `matcher` (the pattern scan) and `classify`;
//!   `volume_kinds`, `devices` and `holders` (what kind of storage, which device, which node
//!   holds it); `findings` (the accumulators) and `options`;
//! - what the case says: `facts` and `evidence` (the differential), `steps` (commands for this
//!   case and node), `safety`, `messages`; then `rules` (the correlation rules);
//! - the report: `at_fault` (what is wrong, the objects named), `merge` (messages into
//!   findings, folding), `rank` (ranking and steps), `verdict`; `fleet` and `node_check` apart.

mod at_fault;
pub mod catalogue;
pub mod classify;
pub mod context;
pub mod devices;
pub mod evidence;
mod evidence_walk;
pub mod facts;
pub mod findings;
pub mod fleet;
pub mod format_catalogue;
pub mod format_match;
pub mod format_table;
pub mod format_text;
pub mod holders;
pub mod layers;
pub mod literals;
pub mod matcher;
mod merge;
pub mod messages;
pub mod node_check;
pub mod options;
pub mod os;
pub mod os_steps;
mod rank;
pub use crate::model::report;
pub mod rules;
pub mod safety;
pub mod scope;
pub mod steps;
pub mod text;
mod verdict;
pub mod volume_kinds;

use std::collections::BTreeSet;

use crate::model::{Case, Origin};
use context::hints_from_case;
pub use findings::{Acc, Accs, MAX_EVIDENCE};
use merge::{
    attach_unmatched, classify_into, drop_suspects_once_explained, fold_consequences, fold_symptoms,
};
pub use messages::{is_volume_failure_event, messages_of, Msg};
pub use options::Options;
use rank::{finish, unknown_finding};
pub use report::{
    Diagnosis, Evidence, Finding, NodeOs, Report, RuledOut, Status, Step, StepKind, Subject,
    Target, Withheld, SCHEMA_VERSION,
};
pub use text::{age_secs, clip, human_age};
use verdict::{
    blocked_by, is_inconclusive, stuck_for, stuck_secs, subject_of, verdict, EVENT_TTL_SECS,
};

/// Diagnose one pod (or whatever the case holds).
/// Every case's report, in the order given, the cases shared out over the machine's cores
/// (issue 30: a fleet of 3,000 stuck pods is 3,000 independent diagnoses; on one core they
/// were seconds of a `doctor namespace -A` run the API server was not the cause of). Each
/// case is dropped once its report is made, so the two are never all in memory together.
pub fn diagnose_all(cases: Vec<Case>, opts: &Options) -> Vec<Report> {
    let cores = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1);
    // Below a few dozen cases a thread costs more than it saves.
    if cores < 2 || cases.len() < 32 {
        return cases.into_iter().map(|c| diagnose(&c, opts)).collect();
    }
    let chunk = cases.len().div_ceil(cores);
    let mut parts: Vec<Vec<Case>> = Vec::with_capacity(cores);
    let mut rest = cases.into_iter();
    loop {
        let part: Vec<Case> = rest.by_ref().take(chunk).collect();
        if part.is_empty() {
            break;
        }
        parts.push(part);
    }
    std::thread::scope(|s| {
        let handles: Vec<_> = parts
            .into_iter()
            .map(|part| {
                s.spawn(move || {
                    part.into_iter()
                        .map(|c| diagnose(&c, opts))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| match h.join() {
                Ok(v) => v,
                // A panic in one part is the same panic as on one thread.
                Err(e) => std::panic::resume_unwind(e),
            })
            .collect()
    })
}

pub fn diagnose(case: &Case, opts: &Options) -> Report {
    // Only what the pod owns is evidence (issue 26): facts about other pods, volumes, devices
    // and nodes are set aside before anything reads them, and said in one line.
    let (owned, set_aside) = scope::own(case);
    let mut report = diagnose_owned(&owned, opts);
    // Everything the input said was about other pods, and nothing of this pod's own is left
    // (no pod object, no failure of its own): that is not "no problem found" (issue 26).
    if report.status == report::Status::Ok && set_aside.total() > 0 && says_nothing_own(&owned) {
        report.status = report::Status::Inconclusive;
        report.diagnosis = report::Diagnosis::Inconclusive;
        let who = report
            .verdict
            .split(':')
            .next()
            .unwrap_or("The pod")
            .to_string();
        report.verdict = format!(
            "{who}: nothing in the input is about this pod; {} fact(s) about other pods, volumes, devices or nodes were set aside (give this pod's describe, events or kubelet lines)",
            set_aside.total()
        );
    }
    if let Some(line) = set_aside.summary() {
        report.notes.push(line);
    }
    report.set_aside = set_aside
        .items()
        .map(|(kind, count, about)| report::SetAside {
            kind: kind.to_string(),
            count,
            about,
        })
        .collect();
    report
}

/// Whether a scoped case holds nothing of the pod's own to read: no pod object, no event, log
/// line, plugin line, message or node fact.
fn says_nothing_own(case: &Case) -> bool {
    case.pod.is_none()
        && case.events.is_empty()
        && case.logs.is_empty()
        && case.plugin_logs.is_empty()
        && case.messages.is_empty()
        && case.node_facts.is_none()
}

/// Diagnose a case whose facts are all the pod's own.
fn diagnose_owned(case: &Case, opts: &Options) -> Report {
    let now = opts.now;
    let msgs = messages_of(case, now);
    // Without a pod object, the events still say which pod they are about.
    let named;
    let case = match (case.pod_display_name(), pod_named_by(case, &msgs)) {
        (None, Some((name, ns))) => {
            // The log lines are in `msgs` now; nothing below reads them.
            named = Case {
                pod_name: Some(name),
                namespace: case.namespace.clone().or(ns),
                ..case.clone_without_logs()
            };
            &named
        }
        _ => case,
    };
    let hints = hints_from_case(case);
    let mut accs = Accs::default();
    let mut unmatched = Vec::new();
    for m in &msgs {
        classify_into(m, &hints, &mut accs, &mut unmatched);
    }
    let mut unrecognised = attach_unmatched(&mut accs, unmatched);
    let mut extra_notes = Vec::new();
    const MAX_UNRECOGNISED: usize = 20;
    if unrecognised.len() > MAX_UNRECOGNISED {
        extra_notes.push(format!(
            "{} more failure messages matched no rule and are not listed",
            unrecognised.len() - MAX_UNRECOGNISED
        ));
        unrecognised.truncate(MAX_UNRECOGNISED);
    }
    let ignored: BTreeSet<&str> = case
        .events
        .iter()
        .filter(|e| e.is_warning() && !is_volume_failure_event(e))
        .map(|e| e.reason.as_str())
        .collect();
    if !ignored.is_empty() {
        extra_notes.push(format!(
            "warnings not about volumes were left out: {}",
            ignored.into_iter().collect::<Vec<_>>().join(", ")
        ));
    }
    let node_os = steps::node_os(case, opts);
    rules::apply_all(case, &hints, &mut accs);
    drop_suspects_once_explained(&mut accs);
    fold_symptoms(&mut accs);
    fold_consequences(&mut accs);
    let mut subject = subject_of(case);
    subject.stuck_for = stuck_for(case, now);
    let live = safety::Live::of(case);
    let pod_live = case.pod.as_ref().is_some_and(safety::is_live);
    let denied_required: Vec<crate::model::Denied> = case
        .denied
        .iter()
        .filter(|d| !d.optional)
        .cloned()
        .collect();
    let mut notes = Vec::new();
    let mut ruled_out = Vec::new();
    let (findings, blocks, diagnosis) = if pod_live {
        // Its volumes are mounted: nothing stuck here, whatever older events say.
        let volume_events = msgs
            .iter()
            .filter(|m| m.origin != Origin::KubeletLog)
            .count();
        if volume_events > 0 {
            notes.push(format!(
                "{volume_events} volume warning(s) in the input are from before the pod's containers started; they no longer hold it back"
            ));
        }
        unrecognised.clear();
        (Vec::new(), blocked_by(case), Diagnosis::Ok)
    } else {
        let mut findings = finish(accs, case, &node_os, opts, &live, &mut ruled_out);
        let pod_stuck = subject.waiting_reason.as_deref() == Some("ContainerCreating")
            || subject.phase.as_deref() == Some("Pending");
        if findings.is_empty() && (!unrecognised.is_empty() || pod_stuck) {
            findings.push(unknown_finding(
                case,
                &node_os,
                &unrecognised,
                pod_stuck,
                opts,
                &live,
            ));
        }
        let diagnosis = match findings.first() {
            None => Diagnosis::Ok,
            Some(f) if is_inconclusive(f) => Diagnosis::Inconclusive,
            Some(_) => Diagnosis::Stuck,
        };
        (findings, Vec::new(), diagnosis)
    };
    notes.extend(case.notes.iter().cloned());
    notes.extend(extra_notes);
    for d in case.denied.iter().filter(|d| d.optional) {
        notes.push(format!(
            "Secret existence not checked: reading Secrets' metadata is an optional permission (role volmnt-secret-names in deploy/rbac-optional.yaml), and `{d}` was not granted"
        ));
    }
    if node_os.family == "unknown" && findings.iter().any(has_install_step) {
        notes.push(
            "The node's OS is not known, so install commands are given for each family; \
             add the Node object (`kubectl get node NAME -o yaml`) or --node-os to get one."
                .into(),
        );
    }
    let status = if !denied_required.is_empty() {
        Status::Partial
    } else {
        match diagnosis {
            Diagnosis::Ok => Status::Ok,
            Diagnosis::Stuck => Status::Stuck,
            Diagnosis::Inconclusive => Status::Inconclusive,
        }
    };
    let mut verdict = verdict(&subject, &findings, diagnosis, &blocks);
    // Waiting longer than events live, and none left: say so first, and what was read instead.
    let event_failures = msgs
        .iter()
        .filter(|m| matches!(m.origin, Origin::CoreV1 | Origin::EventsV1))
        .count();
    if diagnosis != Diagnosis::Ok
        && event_failures == 0
        && stuck_secs(case, now).is_some_and(|s| s > EVENT_TTL_SECS)
    {
        verdict = format!(
            "{verdict}. It has waited {}, longer than events are kept (1 hour by default): its failure events are gone, so this is read from what lasts (the pod, the claims and volumes, the nodes' volume status, VolumeAttachments{})",
            stuck_for(case, now).unwrap_or_default(),
            if case.node_facts.is_some() { ", the node probe" } else { "" }
        );
        // Named as whole commands: this note also reaches `doctor namespace` and the watch,
        // which take neither flag (issue 29: hints name only flags the command takes).
        let pod = match (&case.pod_name, &case.namespace) {
            (Some(p), Some(ns)) => format!("{p} -n {ns}"),
            (Some(p), None) => p.clone(),
            _ => "NAME".to_string(),
        };
        notes.insert(
            0,
            format!("Events are kept one hour (`kube-apiserver --event-ttl`): kubelet's log on the node keeps the failure's own words longer (`volmnt doctor pod {pod} --probe-node` reads it, or give the log to `volmnt doctor pod {pod} --offline --from-file FILE`)"),
        );
    }
    if !denied_required.is_empty() {
        verdict = format!(
            "{verdict} (from what could be read: {} read(s) refused, listed below)",
            denied_required.len()
        );
    }
    Report {
        schema_version: SCHEMA_VERSION,
        verdict,
        status,
        diagnosis,
        subject,
        node_os,
        findings,
        blocks,
        unrecognised,
        denied: denied_required,
        ruled_out,
        unavailable: case
            .unavailable
            .iter()
            .chain(case.node_facts.iter().flat_map(|f| f.unavailable.iter()))
            .cloned()
            .collect(),
        notes,
        inputs: case.inputs.clone(),
        set_aside: Vec::new(),
    }
}

static POD_IN_MESSAGE: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
    regex::Regex::new(r#"for pod "([a-z0-9][a-z0-9.-]*)_([a-z0-9][a-z0-9-]*)\(|for pod "([a-z0-9][a-z0-9.-]*)"/"([a-z0-9][a-z0-9-]*)""#)
        .expect("static regex")
});

/// The one pod the events are about (by their object, or as named in their messages); the
/// kubelet log only when the events say nothing. `None` when several pods are named.
fn pod_named_by(case: &Case, msgs: &[Msg]) -> Option<(String, Option<String>)> {
    let mut from_objects: Vec<(String, Option<String>)> = case
        .events
        .iter()
        .filter_map(|e| e.object.as_ref())
        .filter(|o| o.kind.as_deref() == Some("Pod"))
        .filter_map(|o| Some((o.name.clone()?, o.namespace.clone())))
        .collect();
    from_objects.dedup();
    if from_objects.len() == 1 {
        return from_objects.pop();
    }
    for want_log in [false, true] {
        let mut names: Vec<(String, Option<String>)> = Vec::new();
        for m in msgs
            .iter()
            .filter(|m| (m.origin == Origin::KubeletLog) == want_log)
        {
            for c in POD_IN_MESSAGE.captures_iter(&m.text) {
                let (n, ns) = match (c.get(1), c.get(2), c.get(3), c.get(4)) {
                    (Some(n), Some(ns), _, _) | (_, _, Some(n), Some(ns)) => (n, ns),
                    _ => continue,
                };
                let item = (n.as_str().to_string(), Some(ns.as_str().to_string()));
                if !names.contains(&item) {
                    names.push(item);
                }
            }
        }
        match names.len() {
            0 => continue,
            1 => return names.pop(),
            _ => return None,
        }
    }
    None
}

/// Classify one free-standing message (`volmnt explain`).
/// Classify one free-standing message (`volmnt explain`).
pub fn explain(label: &str, text: &str, opts: &Options) -> Report {
    let case = Case {
        messages: vec![crate::model::RawMessage {
            label: label.to_string(),
            text: text.to_string(),
            input: 0,
        }],
        ..Case::default()
    };
    let mut r = diagnose(&case, opts);
    r.subject.kind = "message".into();
    r.verdict = match r.top() {
        Some(f) if r.diagnosis == Diagnosis::Inconclusive && f.cause != "unknown" => format!(
            "{label}: says that a volume is stuck, not why ({}, confidence {:.2}): see what to read next",
            f.cause, f.confidence
        ),
        Some(f) if f.cause != "unknown" => format!(
            "{}: {} ({}, confidence {:.2})",
            label, f.title, f.cause, f.confidence
        ),
        Some(_) => format!("{label}: not recognised (unknown)"),
        None => format!("{label}: no failure in this message"),
    };
    r
}

fn has_install_step(f: &Finding) -> bool {
    f.remediation.iter().any(|s| {
        s.command
            .as_deref()
            .is_some_and(|c| c.contains(" install "))
    })
}

pub use crate::parse::{looks_like_failure, FAILURE_WORDS};
