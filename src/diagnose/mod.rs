//! Pure diagnosis: `Case → Report`. Messages are classified against the catalogue in their
//! context, correlation rules add what object state says, findings are merged per cause and
//! ranked, and each gets its evidence and the commands to run.

pub mod catalogue;
pub mod classify;
pub mod context;
pub mod node_check;
pub mod report;
pub mod rules;
pub mod steps;

use std::collections::{BTreeMap, BTreeSet};

use crate::model::{Case, Event, Origin};
use catalogue::catalogue;
use classify::{classify, normalize};
use context::{context_for, hints_from_case, Hints, MsgContext};
pub use report::{Finding, NodeOs, Report, Status, Step, Subject};

/// Knobs that are not facts of the case.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// The node's OS when no Node object says it (`--node-os`): a family id or an osImage.
    pub node_os: Option<String>,
}

/// One message to classify, with a label saying where it came from.
#[derive(Debug, Clone)]
pub struct Msg {
    pub label: String,
    pub text: String,
    pub origin: Origin,
    /// How many times it was seen (event count, duplicates merged).
    pub count: u32,
}

/// The findings under construction, one per cause.
#[derive(Debug, Clone, Default)]
pub struct Acc {
    pub cause: usize,
    pub confidence: f64,
    pub symptom: bool,
    pub evidence: Vec<String>,
    /// Distinct kinds of input that point here (events, kubelet log, rbd, objects).
    pub origins: BTreeSet<&'static str>,
    /// Context of the strongest message, for filling in names.
    pub ctx: Option<MsgContext>,
    /// Names for the command templates (`image`, `lock_id`, ...), set by rules.
    pub vars: BTreeMap<&'static str, String>,
}

/// All findings under construction, keyed by cause id.
#[derive(Debug, Default)]
pub struct Accs {
    pub list: Vec<Acc>,
}

impl Accs {
    pub fn get(&mut self, id: &str) -> Option<&mut Acc> {
        let idx = catalogue().cause_index(id)?;
        self.list.iter_mut().find(|a| a.cause == idx)
    }

    pub fn has(&self, id: &str) -> bool {
        catalogue()
            .cause_index(id)
            .is_some_and(|i| self.list.iter().any(|a| a.cause == i))
    }

    /// The finding for `id`, created at `confidence` when absent (raised to it when lower).
    pub fn entry(&mut self, id: &str, confidence: f64) -> &mut Acc {
        let idx = catalogue()
            .cause_index(id)
            .unwrap_or_else(|| panic!("rule names unknown cause {id}"));
        let pos = match self.list.iter().position(|a| a.cause == idx) {
            Some(p) => p,
            None => {
                self.list.push(Acc {
                    cause: idx,
                    confidence,
                    ..Acc::default()
                });
                self.list.len() - 1
            }
        };
        let a = &mut self.list[pos];
        if a.confidence < confidence {
            a.confidence = confidence;
        }
        a.symptom = false;
        a
    }
}

/// Reasons of events that report a volume problem even when their type is not Warning.
const FAILURE_REASONS: &[&str] = &[
    "FailedMount",
    "FailedAttachVolume",
    "FailedMapVolume",
    "FailedUnMount",
    "FailedDetachVolume",
    "ProvisioningFailed",
    "FailedScheduling",
    "Failed",
    "FailedSync",
    "VolumeFailedDelete",
];

fn is_failure_event(e: &Event) -> bool {
    e.is_warning() || FAILURE_REASONS.contains(&e.reason.as_str())
}

/// An info-level log line is worth reading when it reports a failure (CSI sidecars log errors
/// at I).
fn log_line_matters(severity: Option<char>, message: &str) -> bool {
    matches!(severity, Some('E' | 'W' | 'F')) || looks_like_failure(message)
}

/// The messages of a case worth classifying, duplicates merged.
pub fn messages_of(case: &Case) -> Vec<Msg> {
    let mut out: Vec<Msg> = Vec::new();
    // Normalised text → index in `out`: merging stays linear on a big log.
    let mut seen: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    let mut push = |mut m: Msg| {
        // Redact before anything can quote a piece of the text: a quote window may start in
        // the middle of a key, where the redaction patterns no longer see it.
        if let std::borrow::Cow::Owned(r) = crate::redact::redact(&m.text) {
            m.text = r;
        }
        let key = normalize(&m.text).into_owned();
        match seen.get(&key) {
            Some(&i) => out[i].count += m.count,
            None => {
                seen.insert(key, out.len());
                out.push(m);
            }
        }
    };
    for e in case.events.iter().filter(|e| is_failure_event(e)) {
        let mut label = format!("{} {}", e.origin.label(), e.reason);
        if let Some(s) = &e.source {
            label.push_str(&format!(" from {s}"));
        }
        if let Some(a) = &e.age {
            label.push_str(&format!(" ({a})"));
        }
        push(Msg {
            label,
            text: e.message.clone(),
            origin: e.origin,
            count: e.count.unwrap_or(1),
        });
    }
    for l in &case.logs {
        if log_line_matters(l.severity, &l.message) {
            let label = match &l.location {
                Some(loc) => format!("kubelet log line {} ({loc})", l.line_no),
                None => format!("log line {}", l.line_no),
            };
            push(Msg {
                label,
                text: l.message.clone(),
                origin: Origin::KubeletLog,
                count: 1,
            });
        }
    }
    // A VolumeAttachment's attach/detach error is the storage side's own account of the failure.
    for va in &case.volume_attachments {
        let name = va.metadata.name.as_deref().unwrap_or("?");
        let node = &va.spec.node_name;
        for (what, err) in va.status.iter().flat_map(|s| {
            [
                ("attachError", &s.attach_error),
                ("detachError", &s.detach_error),
            ]
        }) {
            if let Some(msg) = err.as_ref().and_then(|e| e.message.clone()) {
                push(Msg {
                    label: format!("VolumeAttachment {name} (node {node}) {what}"),
                    text: msg,
                    origin: Origin::Api,
                    count: 1,
                });
            }
        }
    }
    for m in &case.messages {
        push(Msg {
            label: m.label.clone(),
            text: m.text.clone(),
            origin: Origin::Raw,
            count: 1,
        });
    }
    out
}

/// Diagnose one pod (or whatever the case holds).
pub fn diagnose(case: &Case, opts: &Options) -> Report {
    let msgs = messages_of(case);
    // Without a pod object, the events still say which pod they are about.
    let named;
    let case = match (case.pod_display_name(), pod_named_by(case, &msgs)) {
        (None, Some((name, ns))) => {
            named = Case {
                pod_name: Some(name),
                namespace: case.namespace.clone().or(ns),
                ..case.clone()
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
    let node_os = steps::node_os(case, opts);
    rules::apply_all(case, &hints, &mut accs);
    fold_symptoms(&mut accs);
    let subject = subject_of(case);
    let mut findings = finish(accs, case, &node_os);
    let pod_stuck = subject.waiting_reason.as_deref() == Some("ContainerCreating")
        || subject.phase.as_deref() == Some("Pending");
    if findings.is_empty() && (!unrecognised.is_empty() || pod_stuck) {
        findings.push(unknown_finding(case, &node_os, &unrecognised, pod_stuck));
    }
    let mut notes = case.notes.clone();
    notes.extend(extra_notes);
    if !case.denied.is_empty() {
        notes.insert(
            0,
            format!(
                "Not allowed to read: {}. The diagnosis uses what could be read; deploy/rbac.yaml \
                 has the role volmnt needs.",
                case.denied.join("; ")
            ),
        );
    }
    if node_os.family == "unknown" && findings.iter().any(has_install_step) {
        notes.push(
            "The node's OS is not known, so install commands are given for each family; \
             add the Node object (`kubectl get node NAME -o yaml`) or --node-os to get one."
                .into(),
        );
    }
    let status = if findings.is_empty() {
        Status::Ok
    } else {
        Status::Problem
    };
    Report {
        verdict: verdict(&subject, &findings),
        status,
        subject,
        node_os,
        findings,
        unrecognised,
        denied: case.denied.clone(),
        notes,
        inputs: case.inputs.clone(),
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
pub fn explain(label: &str, text: &str, opts: &Options) -> Report {
    let case = Case {
        messages: vec![crate::model::RawMessage {
            label: label.to_string(),
            text: text.to_string(),
        }],
        ..Case::default()
    };
    let mut r = diagnose(&case, opts);
    r.subject.kind = "message".into();
    r.verdict = match r.top() {
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

/// Words that make a message a failure report even when no pattern names its cause.
pub static FAILURE_WORDS: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
    regex::Regex::new(r"(?i)fail|error|denied|timed out|timeout|not found|locked|busy|cannot|unable|refused|no such|not ready|still being used|stale|exit status|invalid|not permitted|can't|couldn't")
        .expect("static regex")
});

pub fn looks_like_failure(text: &str) -> bool {
    FAILURE_WORDS.is_match(text)
}

/// A failure message no pattern matched, kept until every message has been seen.
struct Unmatched {
    label: String,
    text: String,
    ctx: MsgContext,
}

fn classify_into(m: &Msg, hints: &Hints, accs: &mut Accs, unmatched: &mut Vec<Unmatched>) {
    let text = normalize(&crate::parse::mount_error::unescape(&m.text)).into_owned();
    if text.is_empty() {
        return;
    }
    let ctx = context_for(&text, hints);
    let cands = classify(&text, &ctx);
    let label = if m.count > 1 {
        format!("{} ×{}", m.label, m.count)
    } else {
        m.label.clone()
    };
    if cands.is_empty() {
        // "Successfully assigned ..." is not a failure; only unmatched failures are reported.
        if looks_like_failure(&text) {
            unmatched.push(Unmatched { label, text, ctx });
        }
        return;
    }
    let origin_kind = match m.origin {
        Origin::KubeletLog => "kubelet log",
        Origin::Raw => "message",
        Origin::Api => "objects",
        _ => "events",
    };
    let head = head_of(&text);
    // Mount's output is shown on its own line (see steps::context_evidence).
    let output_at = text.find(" Output:").or_else(|| text.find("Output:"));
    for c in cands {
        let pos = match accs.list.iter().position(|a| a.cause == c.cause) {
            Some(p) => p,
            None => {
                accs.list.push(Acc {
                    cause: c.cause,
                    confidence: c.confidence,
                    symptom: c.symptom,
                    ..Acc::default()
                });
                accs.list.len() - 1
            }
        };
        let a = &mut accs.list[pos];
        a.symptom &= c.symptom;
        a.origins.insert(origin_kind);
        let in_head = c.at.1 <= head.len();
        let in_output = output_at.is_some_and(|o| c.at.0 >= o);
        let quote = if in_head || in_output {
            head.clone()
        } else {
            c.quote.clone()
        };
        let line = format!("{label}: \"{quote}\"");
        if !a.evidence.contains(&line) && a.evidence.len() < 8 {
            a.evidence.push(line);
        }
        if a.ctx.is_none() || c.confidence > a.confidence {
            a.ctx = Some(ctx.clone());
        }
        if c.confidence > a.confidence {
            a.confidence = c.confidence;
        }
    }
}

/// The message up to where the mount command starts: the part a person reads first.
fn head_of(text: &str) -> String {
    let end = ["Mounting command:", "Mounting arguments:", "Output:"]
        .iter()
        .filter_map(|m| text.find(m))
        .min()
        .unwrap_or(text.len());
    clip(text[..end].trim(), 300)
}

/// A failure message with no detail of its own ("mount failed: exit status 32" cut short) that
/// names a volume a finding is about supports that finding instead of standing alone.
fn attach_unmatched(accs: &mut Accs, unmatched: Vec<Unmatched>) -> Vec<String> {
    let mut rest = Vec::new();
    for u in unmatched {
        let volume = u.ctx.error.volume.as_deref();
        let target = volume.and_then(|v| {
            accs.list.iter_mut().filter(|a| !a.symptom).find(|a| {
                a.ctx
                    .as_ref()
                    .and_then(|c| c.error.volume.as_deref())
                    .is_some_and(|av| av == v)
            })
        });
        match target {
            Some(a) => {
                let line = format!(
                    "{}: \"{}\" (same volume; no detail in this one)",
                    u.label,
                    head_of(&u.text)
                );
                if a.evidence.len() < 8 {
                    a.evidence.push(line);
                }
            }
            None => rest.push(format!("{}: {}", u.label, clip(&u.text, 400))),
        }
    }
    rest
}

/// Messages that only say "timed out waiting for volumes" support the real cause when one is
/// known; alone they stay as a finding of their own.
fn fold_symptoms(accs: &mut Accs) {
    if !accs.list.iter().any(|a| !a.symptom) {
        return;
    }
    let (symptoms, mut causes): (Vec<Acc>, Vec<Acc>) = accs.list.drain(..).partition(|a| a.symptom);
    causes.sort_by(|a, b| b.confidence.total_cmp(&a.confidence));
    if let Some(top) = causes.first_mut() {
        // Two are enough to show the pod is waiting on this; more only repeat it.
        const SHOWN: usize = 2;
        let all: Vec<String> = symptoms.into_iter().flat_map(|s| s.evidence).collect();
        for e in all.iter().take(SHOWN) {
            top.evidence.push(format!("symptom, {e}"));
        }
        if all.len() > SHOWN {
            top.evidence.push(format!(
                "symptom: {} more message(s) say kubelet timed out waiting for the volumes",
                all.len() - SHOWN
            ));
        }
    }
    accs.list = causes;
}

/// Merge, rank, and turn each accumulator into a finding.
fn finish(accs: Accs, case: &Case, os: &NodeOs) -> Vec<Finding> {
    let cat = catalogue();
    let mut list = accs.list;
    for a in &mut list {
        // Independent kinds of input agreeing make a cause more likely.
        let extra = a.origins.len().saturating_sub(1) as f64;
        a.confidence = (a.confidence + 0.04 * extra).min(0.99);
    }
    list.sort_by(|a, b| {
        b.confidence
            .total_cmp(&a.confidence)
            .then(a.cause.cmp(&b.cause))
    });
    list.into_iter()
        .map(|a| {
            let def = &cat.causes[a.cause];
            let vars = steps::vars_for(case, &a);
            let mut evidence = Vec::new();
            if let Some(ctx) = &a.ctx {
                evidence.extend(steps::context_evidence(ctx));
            }
            evidence.extend(a.evidence.iter().map(|e| clip(e, 600)));
            Finding {
                cause: def.id.clone(),
                title: def.title.clone(),
                confidence: (a.confidence * 100.0).round() / 100.0,
                summary: steps::fill(&normalize(&def.explain), &vars),
                evidence,
                confirm: steps::render_steps(&def.confirm, &vars, os),
                remediation: steps::render_steps(&def.remediation, &vars, os),
                volume: vars.get("volume").cloned(),
            }
        })
        .collect()
}

fn unknown_finding(case: &Case, os: &NodeOs, unrecognised: &[String], stuck: bool) -> Finding {
    let cat = catalogue();
    let def = cat.cause("unknown").expect("catalogue has unknown");
    let acc = Acc::default();
    let vars = steps::vars_for(case, &acc);
    let mut evidence: Vec<String> = unrecognised.iter().take(8).cloned().collect();
    if evidence.is_empty() && stuck {
        evidence.push(
            "the pod is waiting (ContainerCreating/Pending) but the input has no failure message"
                .into(),
        );
    }
    Finding {
        cause: def.id.clone(),
        title: def.title.clone(),
        confidence: 0.1,
        summary: steps::fill(&normalize(&def.explain), &vars),
        evidence,
        confirm: steps::render_steps(&def.confirm, &vars, os),
        remediation: Vec::new(),
        volume: None,
    }
}

fn subject_of(case: &Case) -> Subject {
    let pod = case.pod.as_ref();
    let waiting = pod
        .and_then(|p| p.status.as_ref())
        .and_then(|s| s.container_statuses.as_ref())
        .and_then(|cs| {
            cs.iter()
                .find_map(|c| c.state.as_ref()?.waiting.as_ref()?.reason.clone())
        });
    let volumes = pod
        .and_then(|p| p.spec.as_ref())
        .and_then(|s| s.volumes.as_ref())
        .map(|vs| vs.iter().map(steps::describe_volume).collect())
        .unwrap_or_default();
    Subject {
        kind: "pod".into(),
        name: case.pod_display_name().map(str::to_string),
        namespace: case.pod_namespace().map(str::to_string),
        node: case.node_name().map(str::to_string),
        phase: pod
            .and_then(|p| p.status.as_ref())
            .and_then(|s| s.phase.clone()),
        waiting_reason: waiting,
        volumes,
    }
}

fn verdict(subject: &Subject, findings: &[Finding]) -> String {
    let who = match (&subject.name, &subject.namespace) {
        (Some(n), Some(ns)) => format!("Pod {ns}/{n}"),
        (Some(n), None) => format!("Pod {n}"),
        _ if subject.node.is_some() => "The pod".to_string(),
        // Only messages (a manual mount, a pasted log line): no pod to name.
        _ => "The input".to_string(),
    };
    let on = subject
        .node
        .as_ref()
        .map(|n| format!(" on {n}"))
        .unwrap_or_default();
    match findings.first() {
        None => format!("{who}{on}: no volume problem found in the input"),
        Some(f) if f.cause == "unknown" => format!(
            "{who}{on} is stuck on a volume, but the cause is not recognised: see the steps to gather more"
        ),
        // Everything was weakened (e.g. the node probe ruled the message's cause out).
        Some(f) if f.confidence < 0.3 => format!(
            "{who}{on} is stuck on a volume, but no cause is likely; best remaining guess: {} ({}, confidence {:.2}); see the evidence",
            f.title, f.cause, f.confidence
        ),
        Some(f) => {
            let mut v = format!(
                "{who}{on} {}: {} ({}, confidence {:.2})",
                if subject.name.is_some() || subject.node.is_some() {
                    "is stuck"
                } else {
                    "points at"
                },
                f.title, f.cause, f.confidence
            );
            if let Some(second) = findings.get(1) {
                if second.confidence >= f.confidence - 0.1 {
                    v.push_str(&format!("; close second: {}", second.cause));
                }
            }
            v
        }
    }
}

/// Shorten a quote to `max` bytes at a char boundary.
pub fn clip(s: &str, max: usize) -> String {
    if s.len() <= max {
        return s.to_string();
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &s[..end])
}
