//! The messages of a case worth classifying: volume failure events (one event seen through both
//! event APIs counted once), kubelet and node plugin log lines that report a failure (a retried
//! operation's lines merged), VolumeAttachment errors, and the node's kernel lines that can be
//! about the pod's device; each with a label saying where it came from, redacted.

use std::borrow::Cow;

use super::context::hints_from_case;
use super::devices::{kernel_lines_kept, pod_device};
use super::text::{age_secs, human_age, normalize};
use super::volume_kinds::case_kinds;
use crate::model::{Case, Event, Origin};
use crate::parse::looks_like_failure;

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
    let device = pod_device(case);
    let kinds = case_kinds(case, &hints_from_case(case));
    let kernel = case
        .messages
        .iter()
        .filter(|m| m.label.starts_with(crate::model::KERNEL_LOG_LABEL))
        .map(|m| m.text.as_str());
    let mut kept = kernel_lines_kept(
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
