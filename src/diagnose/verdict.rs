//! What the report says first: who the subject is and how long it has waited, what a running
//! pod blocks, whether the top finding names a cause, and the one-line verdict.

use super::catalogue::catalogue;
use super::safety;
use super::steps;
use super::text::{clip, human_age};
use crate::model::report::{unsettled_rival, Diagnosis, Finding, Subject};
use crate::model::Case;

/// How long the pod has waited: since it was scheduled, else since it was created.
pub(super) fn stuck_for(case: &Case, now: Option<i64>) -> Option<String> {
    stuck_secs(case, now).map(human_age)
}

/// Events are kept one hour by default (kube-apiserver --event-ttl).
pub(super) const EVENT_TTL_SECS: i64 = 3600;

pub(super) fn stuck_secs(case: &Case, now: Option<i64>) -> Option<i64> {
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
pub(super) fn is_inconclusive(f: &Finding) -> bool {
    let cat = catalogue();
    f.cause == "unknown" || f.confidence < 0.3 || cat.cause(&f.cause).is_some_and(|c| c.symptom)
}

/// Pods that wait for a volume this (running) pod holds: a ReadWriteOnce claim it uses, that a
/// pod on another node (or, for ReadWriteOncePod, any other pod) cannot get.
pub(super) fn blocked_by(case: &Case) -> Vec<String> {
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
pub(super) fn subject_of(case: &Case) -> Subject {
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

pub(super) fn verdict(
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
            // What is wrong with the objects named, when the case names them; then what to
            // change, after the cause id (`; classes that exist: ...`).
            let (what, then) = match f.at_fault.as_deref() {
                Some(a) => match a.split_once("; ") {
                    Some((w, t)) => (w.to_string(), Some(t.to_string())),
                    None => (a.to_string(), None),
                },
                None => (f.title.clone(), None),
            };
            let mut v = format!(
                "{who}{on} {}: {} ({}, confidence {:.2})",
                if subject.name.is_some() || subject.node.is_some() {
                    "is stuck"
                } else {
                    "points at"
                },
                what, f.cause, f.confidence
            );
            if let Some(t) = then {
                v.push_str(&format!("; {t}"));
            }
            // What settled it among the causes its message can mean, or that nothing has yet.
            match (&f.settled_by, unsettled_rival(findings)) {
                (Some(by), _) => v.push_str(&format!("; settled by {}", clip(by, 200))),
                (None, Some(second)) => v.push_str(&format!(
                    "; not settled yet: {} is as likely, and the checks below tell them apart",
                    second.cause
                )),
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
