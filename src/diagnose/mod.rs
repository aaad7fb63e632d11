//! Pure diagnosis: `Case → Report`. Messages are classified against the catalogue in their
//! context, correlation rules add what object state says, findings are merged per cause and
//! ranked, and each gets its evidence and the commands to run.

pub mod catalogue;
pub mod classify;
pub mod context;
pub mod devices;
pub mod evidence;
pub mod findings;
pub mod fleet;
pub mod holders;
pub mod literals;
pub mod matcher;
pub mod node_check;
pub mod options;
pub mod os;
pub use crate::model::report;
pub mod rules;
pub mod safety;
pub mod steps;
pub mod text;
pub mod volume_kinds;

use std::borrow::Cow;
use std::collections::BTreeSet;

use crate::model::{Case, Event, Origin};
use catalogue::catalogue;
use classify::classify;
use context::{context_for, hints_from_case, Hints, MsgContext};
pub use findings::{Acc, Accs, MAX_EVIDENCE};
pub use options::Options;
pub use report::{
    Diagnosis, Evidence, Finding, NodeOs, Report, RuledOut, Status, Step, StepKind, Subject,
    Target, Withheld, SCHEMA_VERSION,
};
use text::normalize;
pub use text::{age_secs, clip, human_age};

/// One message to classify, with a label saying where it came from.
#[derive(Debug, Clone)]
pub struct Msg {
    /// `event FailedMount from kubelet, node1 (8m49s)`: the whole label, for unrecognised lines.
    pub label: String,
    /// The parts of the label, for structured evidence.
    pub source: String,
    pub object: Option<String>,
    pub time: Option<String>,
    /// When it was last seen (Unix seconds), for events that carry it.
    pub last_seen: Option<i64>,
    /// How long before its input was captured it was last seen (`8m49s` in a describe or a
    /// `get events` table), when the input gives an age and no time.
    pub age_secs: Option<i64>,
    pub text: String,
    pub origin: Origin,
    /// How many times it was seen (event count, duplicates merged).
    pub count: u32,
}

/// Reasons of events that are about volumes whatever their message says.
const VOLUME_REASONS: &[&str] = &[
    "FailedMount",
    "FailedAttachVolume",
    "FailedMapVolume",
    "FailedUnMount",
    "FailedUnmapDevice",
    "FailedDetachVolume",
    "ProvisioningFailed",
    "VolumeFailedDelete",
    "FailedBinding",
    "VolumeResizeFailed",
    "FileSystemResizeFailed",
    // A Normal event, but the claim waiting for its external provisioner (kubernetes
    // pkg/controller/volume/persistentvolume: "waiting for a volume to be created, either by
    // external provisioner ..."), repeated each resync while nothing provisions it.
    "ExternalProvisioning",
];

/// Reasons whose message may be about a volume (a scheduler waiting on a claim, a sync error
/// quoting the mount timeout) or about anything else (an image, a sandbox).
const GENERIC_REASONS: &[&str] = &["FailedScheduling", "FailedSync", "Failed"];

/// Words that put a warning about something else (DNS, probes, images) apart from a volume one.
static VOLUME_WORDS: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
    regex::Regex::new(r"(?i)volume|mount|attach|persistentvolumeclaim|\bpvc\b|\bcsi\b|\brbd\b|\bnfs\b|configmap|secret|iscsi|multipath|/dev/|file ?system|storageclass")
        .expect("static regex")
});

/// Whether an event reports a volume problem. A warning about DNS, a probe or an image pull is
/// not one, and must not make a healthy pod look stuck.
pub fn is_volume_failure_event(e: &Event) -> bool {
    if VOLUME_REASONS.contains(&e.reason.as_str()) {
        return true;
    }
    (e.is_warning() || GENERIC_REASONS.contains(&e.reason.as_str()))
        && VOLUME_WORDS.is_match(&e.message)
}

/// An info-level log line is worth reading when it reports a failure (CSI sidecars log errors
/// at I).
fn log_line_matters(severity: Option<char>, message: &str) -> bool {
    matches!(severity, Some('E' | 'W' | 'F')) || looks_like_failure(message)
}

/// A message without kubelet's retry clause, which changes on every retry of the same failure:
/// `Operation for %q failed. No retries permitted until %v (durationBeforeRetry %v). Error: %v`
/// (kubernetes pkg/volume/util/nestedpendingoperations/nestedpendingoperations.go). Retries
/// of one failure are then one message, counted, as the events of one failure are.
fn without_retry_clause(text: Cow<'_, str>) -> Cow<'_, str> {
    const UNTIL: &str = "No retries permitted until ";
    const RETRY: &str = "(durationBeforeRetry ";
    let Some(start) = memchr::memmem::find(text.as_bytes(), UNTIL.as_bytes()) else {
        return text;
    };
    let rest = &text[start..];
    let Some(end) = rest
        .find(RETRY)
        .and_then(|r| rest[r..].find(')').map(|c| start + r + c + 1))
    else {
        return text;
    };
    Cow::Owned(format!("{}{}", &text[..start], &text[end..]))
}

/// The messages of a case worth classifying, duplicates merged. An event a cluster serves
/// through both event APIs is one event: counted once, not twice.
pub fn messages_of(case: &Case, now: Option<i64>) -> Vec<Msg> {
    let mut out: Vec<Msg> = Vec::new();
    // Hash of the normalised text → indices in `out` with that hash: merging stays linear on a
    // big log, without a second copy of every message (the texts are compared in `out`).
    use std::hash::BuildHasher as _;
    let hasher = std::collections::hash_map::RandomState::new();
    let mut seen: std::collections::HashMap<u64, Vec<usize>> = std::collections::HashMap::new();
    // (normalised text, reason, object) of events already counted, by API.
    let mut events_seen: std::collections::HashMap<(String, String, String), Origin> =
        std::collections::HashMap::new();
    let mut push = |mut m: Msg, event_key: Option<((String, String, String), Origin)>| {
        // Redact before anything can quote a piece of the text: a quote window may start in
        // the middle of a key, where the redaction patterns no longer see it.
        if let std::borrow::Cow::Owned(r) = crate::redact::redact(&m.text) {
            m.text = r;
        }
        let key = without_retry_clause(normalize(&m.text));
        if let Some((k, origin)) = event_key {
            let k = (key.clone().into_owned(), k.1, k.2);
            match events_seen.get(&k) {
                // The same event through the other API: already counted.
                Some(o) if *o != origin => return,
                _ => {
                    events_seen.insert(k, origin);
                }
            }
        }
        let same = seen.entry(hasher.hash_one(&*key)).or_default();
        match same
            .iter()
            .find(|&&i| without_retry_clause(normalize(&out[i].text)) == key)
        {
            Some(&i) => out[i].count += m.count,
            None => {
                same.push(out.len());
                out.push(m);
            }
        }
    };
    for e in case.events.iter().filter(|e| is_volume_failure_event(e)) {
        let mut object = e.reason.clone();
        if let Some(s) = &e.source {
            object.push_str(&format!(" from {s}"));
        }
        let mut label = format!("{} {object}", e.origin.label());
        if let Some(a) = &e.age {
            label.push_str(&format!(" ({a})"));
        }
        let api = matches!(e.origin, Origin::CoreV1 | Origin::EventsV1);
        let obj = e
            .object
            .as_ref()
            .map(|o| format!("{:?}/{:?}", o.namespace, o.name))
            .unwrap_or_default();
        push(
            Msg {
                label,
                source: e.origin.label().to_string(),
                object: Some(object),
                time: event_age(e, now).or_else(|| e.age.clone()),
                last_seen: e.last_seen,
                age_secs: e
                    .last_seen
                    .is_none()
                    .then(|| e.age.as_deref().and_then(age_secs))
                    .flatten(),
                text: e.message.clone(),
                origin: e.origin,
                count: e.count.unwrap_or(1),
            },
            api.then(|| ((String::new(), e.reason.clone(), obj), e.origin)),
        );
    }
    for l in &case.logs {
        if log_line_matters(l.severity, &l.message) {
            let object = match &l.location {
                Some(loc) => format!("line {} ({loc})", l.line_no),
                None => format!("line {}", l.line_no),
            };
            let source = if l.location.is_some() {
                "kubelet log"
            } else {
                "log"
            };
            push(
                Msg {
                    label: format!("{source} {object}"),
                    source: source.into(),
                    object: Some(object),
                    time: l.timestamp.clone(),
                    last_seen: None,
                    age_secs: None,
                    text: l.message.clone(),
                    origin: Origin::KubeletLog,
                    count: 1,
                },
                None,
            );
        }
    }
    // A CSI node plugin's own lines about the pod's volumes: the driver's account of the failure.
    for l in &case.plugin_logs {
        if log_line_matters(l.line.severity, &l.line.message) {
            let object = format!("{} line {}", l.source, l.line.line_no);
            push(
                Msg {
                    label: format!("node plugin log {object}"),
                    source: "node plugin log".into(),
                    object: Some(object),
                    time: l.line.timestamp.clone(),
                    last_seen: None,
                    age_secs: None,
                    text: l.line.message.clone(),
                    origin: Origin::KubeletLog,
                    count: 1,
                },
                None,
            );
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
            // Since v1.34 the error carries the CSI call's gRPC code (`errorCode`): said in the
            // message as the drivers' own errors say it, so the same rules read it.
            let msg = err.as_ref().and_then(|e| {
                let m = e.message.clone()?;
                Some(match e.error_code.and_then(grpc_code_name) {
                    Some(code) if !m.contains("code = ") => {
                        format!("rpc error: code = {code} desc = {m}")
                    }
                    _ => m,
                })
            });
            if let Some(msg) = msg {
                let object = format!("{name} (node {node}) {what}");
                push(
                    Msg {
                        label: format!("VolumeAttachment {object}"),
                        source: "VolumeAttachment".into(),
                        object: Some(object),
                        time: None,
                        last_seen: None,
                        age_secs: None,
                        text: msg,
                        origin: Origin::Api,
                        count: 1,
                    },
                    None,
                );
            }
        }
    }
    // The node's kernel log names every device on the node: a line about another device than
    // the pod's (or about the pod's device before it held this disk, or about any block device
    // when the pod has none) is not this pod's failure.
    let device = devices::pod_device(case);
    let kinds = volume_kinds::case_kinds(case, &context::hints_from_case(case));
    let kernel = case
        .messages
        .iter()
        .filter(|m| m.label.starts_with(crate::model::KERNEL_LOG_LABEL))
        .map(|m| m.text.as_str());
    let mut kept = devices::kernel_lines_kept(
        kernel,
        device.as_deref(),
        !kinds.is_empty() && !kinds.contains("block"),
    )
    .into_iter();
    for m in &case.messages {
        if m.label.starts_with(crate::model::KERNEL_LOG_LABEL) && !kept.next().unwrap_or(true) {
            continue;
        }
        push(
            Msg {
                label: m.label.clone(),
                source: m.label.clone(),
                object: None,
                time: None,
                last_seen: None,
                age_secs: None,
                text: m.text.clone(),
                origin: Origin::Raw,
                count: 1,
            },
            None,
        );
    }
    out
}

/// The name of a gRPC status code (google.golang.org/grpc/codes), as a driver's error prints it.
fn grpc_code_name(code: i32) -> Option<&'static str> {
    Some(match code {
        1 => "Canceled",
        2 => "Unknown",
        3 => "InvalidArgument",
        4 => "DeadlineExceeded",
        5 => "NotFound",
        6 => "AlreadyExists",
        7 => "PermissionDenied",
        8 => "ResourceExhausted",
        9 => "FailedPrecondition",
        10 => "Aborted",
        11 => "OutOfRange",
        12 => "Unimplemented",
        13 => "Internal",
        14 => "Unavailable",
        15 => "DataLoss",
        16 => "Unauthenticated",
        _ => return None,
    })
}

/// Diagnose one pod (or whatever the case holds).
pub fn diagnose(case: &Case, opts: &Options) -> Report {
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
        notes.insert(
            0,
            "Events are kept one hour (kube-apiserver --event-ttl): kubelet's log on the node keeps the failure's own words longer (--probe-node reads it, or pass it with --from-file)".into(),
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
    }
}

/// An event's age as `kubectl describe` prints it: `8m45s (x5 over 18m)`. Without a `now`
/// (saved files), its timestamp as written and how long it repeated: `2026-11-21T10:02:01Z (x5
/// over 18m)`.
fn event_age(e: &Event, now: Option<i64>) -> Option<String> {
    let last = e.last_seen?;
    let repeated = |age: String, since: i64| match (e.count, e.first_seen) {
        (Some(n), Some(first)) if n > 1 => {
            format!("{age} (x{n} over {})", human_age(since - first))
        }
        _ => age,
    };
    Some(match now {
        Some(now) => repeated(human_age(now - last), now),
        None => repeated(e.age.clone()?, last),
    })
}

/// How long the pod has waited: since it was scheduled, else since it was created.
fn stuck_for(case: &Case, now: Option<i64>) -> Option<String> {
    stuck_secs(case, now).map(human_age)
}

/// Events are kept one hour by default (kube-apiserver --event-ttl).
const EVENT_TTL_SECS: i64 = 3600;

fn stuck_secs(case: &Case, now: Option<i64>) -> Option<i64> {
    let now = now?;
    let pod = case.pod.as_ref()?;
    let status = pod.status.as_ref()?;
    if safety::is_live(pod) {
        return None;
    }
    let since = status
        .conditions
        .iter()
        .flatten()
        .find(|c| c.type_ == "PodScheduled" && c.status == "True")
        .and_then(|c| c.last_transition_time.as_ref())
        .map(|t| t.0.as_second())
        .or_else(|| {
            pod.metadata
                .creation_timestamp
                .as_ref()
                .map(|t| t.0.as_second())
        })?;
    Some(now - since)
}

/// `Kubelet gave up` → `kubelet gave up` (the first letter only: ids and names stay).
fn lowercase_first(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_lowercase().chain(c).collect(),
        None => String::new(),
    }
}

/// A finding that does not name a cause: only symptoms, nothing recognised, or everything
/// ruled out.
fn is_inconclusive(f: &Finding) -> bool {
    let cat = catalogue();
    f.cause == "unknown" || f.confidence < 0.3 || cat.cause(&f.cause).is_some_and(|c| c.symptom)
}

/// Pods that wait for a volume this (running) pod holds: a ReadWriteOnce claim it uses, that a
/// pod on another node (or, for ReadWriteOncePod, any other pod) cannot get.
fn blocked_by(case: &Case) -> Vec<String> {
    let Some(pod) = &case.pod else {
        return Vec::new();
    };
    let me = pod.metadata.name.clone().unwrap_or_default();
    let here = pod.spec.as_ref().and_then(|s| s.node_name.clone());
    let mut out = Vec::new();
    for pvc in &case.pvcs {
        let claim = pvc.metadata.name.clone().unwrap_or_default();
        let modes = pvc
            .spec
            .as_ref()
            .and_then(|s| s.access_modes.clone())
            .unwrap_or_default();
        let rwop = modes.iter().any(|m| m == "ReadWriteOncePod");
        let rwo = modes.iter().any(|m| m == "ReadWriteOnce");
        if !rwo && !rwop {
            continue;
        }
        let uses_claim = |p: &k8s_openapi::api::core::v1::Pod| {
            p.spec
                .iter()
                .flat_map(|s| s.volumes.iter().flatten())
                .any(|v| {
                    v.persistent_volume_claim
                        .as_ref()
                        .is_some_and(|c| c.claim_name == claim)
                })
        };
        if !pod
            .spec
            .iter()
            .flat_map(|s| s.volumes.iter().flatten())
            .any(|v| {
                v.persistent_volume_claim
                    .as_ref()
                    .is_some_and(|c| c.claim_name == claim)
            })
        {
            continue;
        }
        for other in case.other_pods.iter().filter(|p| uses_claim(p)) {
            if safety::is_live(other) {
                continue;
            }
            let phase = other.status.as_ref().and_then(|s| s.phase.as_deref());
            if matches!(phase, Some("Succeeded" | "Failed")) {
                continue;
            }
            let there = other.spec.as_ref().and_then(|s| s.node_name.clone());
            let elsewhere = there.is_some() && there != here;
            if !(rwop || elsewhere) {
                continue;
            }
            let name = other.metadata.name.clone().unwrap_or_default();
            let on = there
                .map(|n| format!(" on {n}"))
                .unwrap_or_else(|| " (not scheduled yet)".into());
            out.push(format!(
                "{me} holds {} claim {claim}, which blocks {name}{on}",
                modes.join("/")
            ));
        }
    }
    out
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

/// A failure message no pattern matched, kept until every message has been seen.
struct Unmatched {
    label: String,
    msg: Evidence,
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
    let time = match (&m.time, m.count) {
        // A log line repeated (a retried operation): the first time, and how many there were.
        (Some(t), n) if n > 1 && m.origin == Origin::KubeletLog => Some(format!("{t}, x{n}")),
        (Some(t), _) => Some(t.clone()),
        (None, n) if n > 1 => Some(format!("x{n}")),
        _ => None,
    };
    let quote = |q: String| Evidence {
        source: m.source.clone(),
        object: m.object.clone(),
        time: time.clone(),
        text: q,
        quoted: true,
    };
    if cands.is_empty() {
        // "Successfully assigned ..." is not a failure; only unmatched failures are reported.
        if looks_like_failure(&text) {
            unmatched.push(Unmatched {
                label,
                msg: quote(head_of(&text)),
                text,
                ctx,
            });
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
                    lookalike_of: c.lookalike_of,
                    ..Acc::default()
                });
                accs.list.len() - 1
            }
        };
        let a = &mut accs.list[pos];
        if c.lookalike_of.is_none() {
            a.lookalike_of = None;
        }
        a.symptom &= c.symptom;
        a.origins.insert(origin_kind);
        if let Some(age) = m.age_secs {
            a.min_age = Some(a.min_age.map_or(age, |x| x.min(age)));
        }
        if let Some(t) = m.last_seen {
            a.last_seen = Some(a.last_seen.map_or(t, |x| x.max(t)));
        }
        let in_head = c.at.1 <= head.len();
        let in_output = output_at.is_some_and(|o| c.at.0 >= o);
        let q = if in_head || in_output {
            head.clone()
        } else {
            c.quote.clone()
        };
        let e = quote(q);
        if !a.evidence.contains(&e) {
            a.add(e);
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
                let mut e = u.msg;
                e.text = format!("{}\" (same volume; no detail in this one", e.text);
                a.add(e);
            }
            None => rest.push(format!("{}: {}", u.label, clip(&u.text, 400))),
        }
    }
    rest
}

/// Suspects are offered because nothing explained the symptom; once the evidence settles or
/// supports a cause (0.5 or more), those still unsupported have nothing more to say.
fn drop_suspects_once_explained(accs: &mut Accs) {
    let explained = accs
        .list
        .iter()
        .any(|a| a.ruled_out.is_none() && a.suspect.is_none() && !a.symptom && a.confidence >= 0.5);
    if explained {
        accs.list.retain(|a| a.suspect.is_none());
    }
}

/// Messages that only say "timed out waiting for volumes" support the real cause when one is
/// known; alone they stay as a finding of their own (an inconclusive one).
fn fold_symptoms(accs: &mut Accs) {
    // A cause the evidence ruled out explains nothing: symptoms stay on their own then. Nor
    // does a suspect nothing supports: it is a candidate to check, not an explanation.
    if !accs
        .list
        .iter()
        .any(|a| !a.symptom && a.ruled_out.is_none() && a.suspect.is_none())
    {
        return;
    }
    let (symptoms, mut causes): (Vec<Acc>, Vec<Acc>) = accs.list.drain(..).partition(|a| a.symptom);
    causes.sort_by(|a, b| {
        (a.ruled_out.is_some() || a.suspect.is_some())
            .cmp(&(b.ruled_out.is_some() || b.suspect.is_some()))
            .then(b.confidence.total_cmp(&a.confidence))
    });
    if let Some(top) = causes.first_mut() {
        // One is enough to show the pod is waiting on this; the others only repeat it, and
        // are counted by what they say (the symptom cause's own title), never as something
        // they do not say.
        const SHOWN: usize = 1;
        let cat = catalogue();
        let mut shown = 0;
        let mut more: Vec<String> = Vec::new();
        for s in symptoms {
            let n = s.evidence.len();
            let take = SHOWN.saturating_sub(shown).min(n);
            for e in s.evidence.into_iter().take(take) {
                let mut e = e;
                e.source = format!("symptom, {}", e.source);
                top.add(e);
            }
            shown += take;
            if n > take {
                more.push(format!(
                    "{} that {}",
                    n - take,
                    cat.causes[s.cause].title.to_lowercase()
                ));
            }
        }
        if !more.is_empty() {
            top.fact(format!("symptom messages too: {}", more.join("; ")));
        }
    }
    accs.list = causes;
}

/// A finding that is a consequence of another one found too (an attach timeout while the
/// volume is still attached elsewhere) is folded under it, not ranked as its rival.
fn fold_consequences(accs: &mut Accs) {
    let cat = catalogue();
    loop {
        // A suspect neither folds under a finding nor takes one under it: nothing said it.
        let pair = accs.list.iter().enumerate().find_map(|(i, a)| {
            if a.suspect.is_some() {
                return None;
            }
            let def = &cat.causes[a.cause];
            def.consequence_of.iter().find_map(|root| {
                let ri = cat.cause_index(root)?;
                let j = accs
                    .list
                    .iter()
                    .position(|b| b.cause == ri && b.ruled_out.is_none() && b.suspect.is_none())?;
                (j != i).then_some((i, j))
            })
        });
        let Some((i, j)) = pair else { break };
        let folded = accs.list.remove(i);
        let j = if i < j { j - 1 } else { j };
        let root = &mut accs.list[j];
        let id = cat.causes[folded.cause].id.clone();
        if !root.consequences.contains(&id) {
            root.consequences.push(id.clone());
        }
        for mut e in folded.evidence.into_iter().take(2) {
            e.source = format!("consequence ({id}), {}", e.source);
            root.add(e);
        }
        root.origins.extend(folded.origins);
    }
}

/// A cause kept beside the one a fact settled comes after it: its confidence is put just under
/// that cause's (chains too: the order is settled in a few passes).
fn keep_after(list: &mut [Acc]) {
    for _ in 0..list.len() {
        let mut changed = false;
        for i in 0..list.len() {
            let cap = list[i]
                .after
                .iter()
                .filter_map(|c| {
                    list.iter()
                        .find(|b| b.cause == *c && b.ruled_out.is_none())
                        .map(|b| b.confidence)
                })
                .fold(f64::INFINITY, f64::min);
            if cap.is_finite() && list[i].confidence > cap - 0.01 {
                list[i].confidence = (cap - 0.01).max(0.0);
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
}

/// Merge, rank, and turn each accumulator into a finding; every step passes the safety check.
fn finish(
    accs: Accs,
    case: &Case,
    os: &NodeOs,
    opts: &Options,
    live: &safety::Live,
    ruled_out: &mut Vec<RuledOut>,
) -> Vec<Finding> {
    let cat = catalogue();
    let (out, mut list): (Vec<Acc>, Vec<Acc>) =
        accs.list.into_iter().partition(|a| a.ruled_out.is_some());
    let mut ruled: Vec<&Acc> = out.iter().collect();
    ruled.sort_by(|a, b| {
        b.confidence
            .total_cmp(&a.confidence)
            .then(a.cause.cmp(&b.cause))
    });
    ruled_out.extend(ruled.into_iter().map(|a| RuledOut {
        cause: cat.causes[a.cause].id.clone(),
        title: cat.causes[a.cause].title.clone(),
        because: a.ruled_out.clone().unwrap_or_default(),
    }));
    for a in &mut list {
        // Independent kinds of input agreeing make a cause more likely.
        let extra = a.origins.len().saturating_sub(1) as f64;
        a.confidence = (a.confidence + 0.04 * extra).min(0.99);
    }
    keep_after(&mut list);
    // What the node's or the cluster's facts settled comes first, then by confidence.
    list.sort_by(|a, b| {
        b.settled_by
            .is_some()
            .cmp(&a.settled_by.is_some())
            .then(b.confidence.total_cmp(&a.confidence))
            .then(a.cause.cmp(&b.cause))
    });
    list.into_iter()
        .map(|a| {
            let def = &cat.causes[a.cause];
            let vars = steps::vars_for(case, &a);
            let fs = a.ctx.as_ref().map(|c| c.fs).unwrap_or_default();
            let (mut evidence, mut reasoning) = (Vec::new(), Vec::new());
            if let Some(ctx) = &a.ctx {
                let (e, r) = steps::context_evidence(ctx);
                evidence.extend(e);
                reasoning.extend(r);
            }
            evidence.extend(a.evidence.iter().map(|e| {
                let mut e = e.clone();
                e.text = clip(&e.text, 600);
                e
            }));
            if let Some(why) = &a.suspect {
                evidence.push(Evidence::fact(
                    "knowledge",
                    format!("a suspect: no message or fact names it yet. {why}"),
                ));
            }
            if let Some(of) = a.lookalike_of {
                evidence.push(Evidence::fact(
                    "knowledge",
                    format!(
                        "the same words are printed for: {} ({}); the Confirm steps tell the two apart",
                        cat.causes[of].title, cat.causes[of].id
                    ),
                ));
            }
            let (confirm, remediation, withheld) =
                vetted_steps(def, &vars, os, fs, opts, case, live);
            Finding {
                cause: def.id.clone(),
                title: def.title.clone(),
                confidence: (a.confidence * 100.0).round() / 100.0,
                summary: steps::fill(&normalize(steps::explain_for(def, &vars)), &vars),
                evidence: evidence.iter().map(Evidence::line).collect(),
                evidence_detail: evidence,
                reasoning,
                confirm,
                remediation,
                withheld,
                root: root_of(def, &vars),
                consequences: a.consequences.clone(),
                volume: vars.get("volume").cloned(),
                settled_by: a.settled_by.clone(),
                suspect: a.suspect.clone(),
            }
        })
        .collect()
}

/// A cause's steps for this case, through the safety check.
fn vetted_steps(
    def: &catalogue::CauseDef,
    vars: &steps::Vars,
    os: &NodeOs,
    fs: catalogue::FsFamily,
    opts: &Options,
    case: &Case,
    live: &safety::Live,
) -> (Vec<Step>, Vec<Step>, Vec<Withheld>) {
    let cx = |confirm| steps::StepCtx {
        fs,
        invocation: &opts.invocation,
        confirm,
    };
    let denied: Vec<crate::model::Denied> = case.denied.clone();
    let (confirm, mut withheld) = safety::vet(
        steps::render_steps(&def.confirm, vars, os, &cx(true)),
        live,
        case,
        &denied,
        false,
    );
    let checked = confirm
        .iter()
        .any(|s| s.kind == StepKind::Check && s.command.is_some());
    let (remediation, w2) = safety::vet(
        steps::render_steps(&def.remediation, vars, os, &cx(false)),
        live,
        case,
        &denied,
        checked,
    );
    withheld.extend(w2);
    (confirm, remediation, withheld)
}

fn unknown_finding(
    case: &Case,
    os: &NodeOs,
    unrecognised: &[String],
    stuck: bool,
    opts: &Options,
    live: &safety::Live,
) -> Finding {
    let cat = catalogue();
    let def = cat.cause("unknown").expect("catalogue has unknown");
    let acc = Acc::default();
    let vars = steps::vars_for(case, &acc);
    let mut evidence: Vec<Evidence> = unrecognised
        .iter()
        .take(MAX_EVIDENCE)
        .map(|u| Evidence::fact("message", u.clone()))
        .collect();
    if evidence.is_empty() && stuck {
        evidence.push(Evidence::fact(
            "objects",
            "the pod is waiting (ContainerCreating/Pending) but the input has no failure message",
        ));
    }
    let (confirm, remediation, withheld) =
        vetted_steps(def, &vars, os, Default::default(), opts, case, live);
    Finding {
        cause: def.id.clone(),
        title: def.title.clone(),
        confidence: 0.1,
        summary: steps::fill(&normalize(&def.explain), &vars),
        evidence: evidence.iter().map(Evidence::line).collect(),
        evidence_detail: evidence,
        reasoning: Vec::new(),
        confirm,
        remediation,
        root: root_of(def, &vars),
        withheld,
        consequences: Vec::new(),
        volume: None,
        settled_by: None,
        suspect: None,
    }
}

/// The object at the root of a cause in this case, or the cause id.
fn root_of(def: &catalogue::CauseDef, vars: &steps::Vars) -> String {
    def.root
        .as_deref()
        .and_then(|t| steps::fill_command(t, vars).ok())
        .unwrap_or_else(|| def.id.clone())
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
        stuck_for: None,
        controller: pod.and_then(steps::controller_of),
        volumes,
    }
}

fn verdict(
    subject: &Subject,
    findings: &[Finding],
    diagnosis: Diagnosis,
    blocks: &[String],
) -> String {
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
    if diagnosis == Diagnosis::Ok
        && subject.name.is_some()
        && (subject.phase.as_deref() == Some("Running") || !blocks.is_empty())
    {
        let mut v = format!("{who}{on} is running: its volumes are mounted");
        if !blocks.is_empty() {
            v.push_str(&format!("; {}", blocks.join("; ")));
        }
        return v;
    }
    match findings.first() {
        None => format!("{who}{on}: no volume problem found in the input"),
        Some(f) if f.cause == "unknown" => format!(
            "{who}{on} is stuck on a volume, but the cause is not recognised (unknown, confidence {:.2}): see the steps to gather more",
            f.confidence
        ),
        Some(f) if diagnosis == Diagnosis::Inconclusive && f.confidence >= 0.3 => format!(
            "{who}{on} is stuck on a volume, but the input only says that {} ({}, confidence {:.2}), not why: {}",
            lowercase_first(&f.title),
            f.cause,
            f.confidence,
            suspects_clause(findings).unwrap_or_else(|| "read what the steps name next".into())
        ),
        // Everything was weakened (e.g. the node probe ruled the message's cause out).
        Some(f) if f.confidence < 0.3 => format!(
            "{who}{on} is stuck on a volume, but no cause is likely; best remaining guess: {} ({}, confidence {:.2}); {}",
            f.title,
            f.cause,
            f.confidence,
            suspects_clause(findings).unwrap_or_else(|| "see the evidence".into())
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
            // What settled it among the causes its message can mean, or that nothing has yet.
            match (&f.settled_by, findings.get(1)) {
                (Some(by), _) => v.push_str(&format!("; settled by {}", clip(by, 200))),
                (None, Some(second)) if second.confidence >= f.confidence - 0.1 => {
                    v.push_str(&format!(
                        "; not settled yet: {} is as likely, and the checks below tell them apart",
                        second.cause
                    ))
                }
                _ => {}
            }
            v
        }
    }
}

/// "nothing settles it yet; suspects: a, b (the checks below tell them apart)", when the
/// findings offer suspects.
fn suspects_clause(findings: &[Finding]) -> Option<String> {
    let s: Vec<&str> = findings
        .iter()
        .filter(|f| f.suspect.is_some())
        .map(|f| f.cause.as_str())
        .collect();
    (!s.is_empty()).then(|| {
        format!(
            "nothing names the cause yet; the usual ones to check: {} (the checks below tell them apart)",
            s.join(", ")
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(origin: Origin, count: u32) -> Event {
        Event {
            kind: Some("Warning".into()),
            reason: "FailedMount".into(),
            message: r#"MountVolume.SetUp failed for volume "v" : secret "s" not found"#.into(),
            count: Some(count),
            age: Some("2026-11-21T10:02:01Z".into()),
            first_seen: Some(1_000),
            last_seen: Some(1_000 + 18 * 60),
            object: Some(crate::model::ObjectRef {
                kind: Some("Pod".into()),
                name: Some("p".into()),
                namespace: Some("ns".into()),
                uid: None,
            }),
            origin,
            ..Event::default()
        }
    }

    #[test]
    fn one_event_seen_through_both_event_apis_counts_once() {
        let case = Case {
            events: vec![ev(Origin::CoreV1, 5), ev(Origin::EventsV1, 5)],
            ..Case::default()
        };
        let msgs = messages_of(&case, Some(1_000 + 18 * 60 + 525));
        assert_eq!(msgs.len(), 1);
        assert_eq!(msgs[0].count, 5, "not 10: it is one event");
        assert_eq!(msgs[0].time.as_deref(), Some("8m45s (x5 over 26m)"));
        // Saved files: the event's own timestamp, and how long it repeated.
        let msgs = messages_of(&case, None);
        assert_eq!(
            msgs[0].time.as_deref(),
            Some("2026-11-21T10:02:01Z (x5 over 18m)")
        );
    }

    #[test]
    fn kubelet_retries_of_one_failure_are_one_message_counted() {
        // Lines as nestedpendingoperations.go prints them, two retries apart.
        let line = |no: usize, until: &str, dur: &str, err: &str| crate::model::LogLine {
            line_no: no,
            severity: Some('E'),
            location: Some("nestedpendingoperations.go:348".into()),
            message: format!(
                r#"Operation for "{{volumeName:kubernetes.io/nfs/u-v podName:u nodeName:}}" failed. No retries permitted until 2024-09-24 {until} +0000 UTC m=+905.1 (durationBeforeRetry {dur}). Error: {err}"#
            ),
            ..Default::default()
        };
        let busy = "MountVolume.SetUp failed for volume \"v\" : mount failed: exit status 32";
        let case = Case {
            logs: vec![
                line(10, "13:58:58.196096091", "500ms", busy),
                line(20, "13:59:00.196096091", "1s", busy),
                line(30, "14:01:02.196096091", "2m2s", busy),
                line(
                    40,
                    "14:03:04.196096091",
                    "2m2s",
                    "MountVolume.SetUp failed for volume \"w\" : other",
                ),
            ],
            ..Case::default()
        };
        let msgs = messages_of(&case, None);
        assert_eq!(msgs.len(), 2, "{msgs:#?}");
        assert_eq!(msgs[0].count, 3);
        assert!(
            msgs[0].text.contains("(durationBeforeRetry 500ms)"),
            "the first line, verbatim"
        );
        assert_eq!(msgs[1].count, 1);
        // Without the clause, or with half of it, a text is its own key.
        let plain = "mount failed: No retries permitted until later";
        assert_eq!(without_retry_clause(Cow::Borrowed(plain)), plain);
    }
}
