//! Messages describe the past; objects describe the present. A finding that rests on events
//! only gives way when the objects as they are now contradict it (the claim an old event called
//! unbound is Bound now, the ConfigMap an event could not find exists now, the CSI driver is
//! registered on the node now), and a finding whose newest message is much older than the
//! newest failure weighs less than what the pod is failing on now.

use crate::diagnose::catalogue::catalogue;
use crate::diagnose::context::Hints;
use crate::diagnose::findings::Accs;
use crate::diagnose::text::human_age;
use crate::model::Case;

/// How much older than the newest failure a finding's newest message may be before it weighs
/// less (kubelet retries every two minutes at most: ten minutes of silence means it moved on).
const STALE_AFTER_SECS: i64 = 600;

/// The objects as they are now contradict the finding: it leaves the ranking.
fn rule_out(accs: &mut Accs, id: &str, why: String) {
    if let Some(a) = accs.get(id) {
        a.rule_out(why);
    }
}

/// Operations kubelet runs only once the pod is on a node with its claims bound: a newer
/// failure at one of these makes an older "claim not bound / not found" history.
fn past_binding(op: &str) -> bool {
    [
        "MountVolume.",
        "AttachVolume.",
        "MapVolume.",
        "UnmapVolume.",
    ]
    .iter()
    .any(|p| op.starts_with(p))
}

pub fn apply(case: &Case, _hints: &Hints, accs: &mut Accs) {
    // The claim is Bound now.
    if accs
        .get("pvc_unbound_or_missing")
        .is_some_and(|a| !a.from_objects)
    {
        let claims = pod_claims(case);
        let bound: Vec<String> = claims
            .iter()
            .filter_map(|c| {
                let pvc = case
                    .pvcs
                    .iter()
                    .find(|p| p.metadata.name.as_deref() == Some(c.as_str()))?;
                (pvc.status.as_ref()?.phase.as_deref() == Some("Bound")).then(|| c.clone())
            })
            .collect();
        if !claims.is_empty() && bound.len() == claims.len() {
            rule_out(
                accs,
                "pvc_unbound_or_missing",
                format!(
                    "every claim of the pod is Bound now ({}): the message is from before they were bound",
                    bound.join(", ")
                ),
            );
        }
    }
    // The ConfigMap or Secret exists now.
    if let Some(a) = accs
        .get("configmap_or_secret_missing")
        .filter(|a| !a.from_objects)
    {
        let named = a
            .evidence
            .iter()
            .find_map(|e| object_named(&e.text))
            .filter(|(kind, name)| match kind.as_str() {
                "configmap" => case.configmaps.contains(name),
                _ => case.secrets.contains(name),
            });
        if let Some((kind, name)) = named {
            rule_out(
                accs,
                "configmap_or_secret_missing",
                format!("{kind} {name} exists now: the message is from before it was created"),
            );
        }
    }
    // The CSI driver is registered on the pod's node now.
    if accs
        .get("csi_driver_not_registered")
        .is_some_and(|a| !a.from_objects)
    {
        let registered: Vec<String> = case
            .csi_nodes
            .iter()
            .filter(|n| n.metadata.name.as_deref() == case.node_name())
            .flat_map(|n| n.spec.drivers.iter().map(|d| d.name.clone()))
            .collect();
        let driver = accs
            .get("csi_driver_not_registered")
            .and_then(|a| a.evidence.iter().find_map(|e| driver_named(&e.text)));
        if let Some(d) = driver.filter(|d| registered.contains(d)) {
            rule_out(
                accs,
                "csi_driver_not_registered",
                format!(
                    "CSINode {} lists driver {d} now: it registered after the message",
                    case.node_name().unwrap_or("?")
                ),
            );
        }
    }
    // A claim reported unbound or missing, then a newer failure at a later stage (kubelet
    // mounting or attaching a volume of the pod): the claim was bound since; that report is
    // history. Times are compared when both have them, else ages from the same kind of input.
    let later_stage = |a: &crate::diagnose::findings::Acc| {
        a.ruled_out.is_none()
            && a.ctx
                .as_ref()
                .and_then(|c| c.error.operation.as_deref())
                .is_some_and(past_binding)
    };
    if let Some(pvc_idx) = accs
        .list
        .iter()
        .position(|a| catalogue().causes[a.cause].id == "pvc_unbound_or_missing" && !a.from_objects)
    {
        let (seen, age) = (accs.list[pvc_idx].last_seen, accs.list[pvc_idx].min_age);
        let newer = accs.list.iter().enumerate().find_map(|(i, a)| {
            if i == pvc_idx || !later_stage(a) {
                return None;
            }
            match (seen, a.last_seen, age, a.min_age) {
                (Some(old), Some(new), _, _) if new > old => Some((human_age(new - old), a.cause)),
                (_, _, Some(old), Some(new)) if new < old => Some((human_age(old - new), a.cause)),
                _ => None,
            }
        });
        if let Some((gap, cause)) = newer {
            let title = &catalogue().causes[cause].title;
            accs.list[pvc_idx].rule_out(format!(
                "history: {gap} later the pod fails at a later stage ({title}), which needs its claims bound"
            ));
        }
    }
    // Recency: what the pod failed on last counts most.
    let cat = catalogue();
    let newest = accs
        .list
        .iter()
        .filter(|a| !a.symptom && !cat.causes[a.cause].symptom)
        .filter_map(|a| a.last_seen)
        .max();
    if let Some(newest) = newest {
        for a in accs.list.iter_mut().filter(|a| !a.from_objects) {
            if let Some(t) = a.last_seen {
                if newest - t > STALE_AFTER_SECS {
                    a.confidence *= 0.8;
                    // A weakening fact is not support from the objects.
                    let e = crate::model::report::Evidence::fact(
                        "objects",
                        format!(
                            "its newest message is {} older than the pod's newest failure: the state may have changed since",
                            human_age(newest - t)
                        ),
                    );
                    a.add(e);
                }
            }
        }
    }
}

fn pod_claims(case: &Case) -> Vec<String> {
    let Some(pod) = &case.pod else {
        return Vec::new();
    };
    let name = pod.metadata.name.clone().unwrap_or_default();
    pod.spec
        .iter()
        .flat_map(|s| s.volumes.iter().flatten())
        .filter_map(|v| match (&v.persistent_volume_claim, &v.ephemeral) {
            (Some(c), _) => Some(c.claim_name.clone()),
            (None, Some(_)) => Some(format!("{name}-{}", v.name)),
            _ => None,
        })
        .collect()
}

/// `configmap "x" not found` → ("configmap", "x").
fn object_named(text: &str) -> Option<(String, String)> {
    static RE: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r#"\b(configmap|secret)s? "([^"]+)" not found"#).expect("static regex")
    });
    let c = RE.captures(text)?;
    Some((c[1].to_string(), c[2].to_string()))
}

/// `driver name x not found in the list of registered CSI drivers` → "x".
fn driver_named(text: &str) -> Option<String> {
    static RE: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r"driver name (\S+) not found").expect("static regex")
    });
    RE.captures(text).map(|c| c[1].to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnose::{diagnose, Options};
    use crate::model::{Event, ObjectRef, Origin};
    use serde_json::json;

    fn ev(reason: &str, msg: &str, last: i64) -> Event {
        Event {
            kind: Some("Warning".into()),
            reason: reason.into(),
            message: msg.into(),
            last_seen: Some(last),
            first_seen: Some(last),
            origin: Origin::CoreV1,
            object: Some(ObjectRef {
                kind: Some("Pod".into()),
                name: Some("db-0".into()),
                namespace: Some("shop".into()),
                uid: None,
            }),
            ..Event::default()
        }
    }

    #[test]
    fn an_old_unbound_claim_event_does_not_outrank_the_bound_claim_of_now() {
        // Issue 12: the claim was briefly unbound and is Bound now; the newest event is about
        // the local path.
        let case = Case {
            pod: Some(
                serde_json::from_value(json!({
                    "metadata": {"name": "db-0", "namespace": "shop"},
                    "spec": {"nodeName": "n1", "containers": [{"name": "c"}],
                             "volumes": [{"name": "data", "persistentVolumeClaim": {"claimName": "data-db-0"}}]},
                    "status": {"phase": "Pending"}
                }))
                .unwrap(),
            ),
            pvcs: vec![serde_json::from_value(json!({
                "metadata": {"name": "data-db-0", "namespace": "shop"},
                "spec": {"volumeName": "local-pv-1"},
                "status": {"phase": "Bound"}
            }))
            .unwrap()],
            events: vec![
                ev("FailedScheduling", "0/3 nodes are available: pod has unbound immediate PersistentVolumeClaims. preemption: 0/3 nodes are available", 1_000),
                ev("FailedMount", r#"MountVolume.NewMounter initialization failed for volume "local-pv-1" : path "/mnt/disks/x" does not exist"#, 1_000 + 1_800),
            ],
            ..Case::default()
        };
        let r = diagnose(&case, &Options::default());
        assert_eq!(
            r.findings[0].cause, "local_path_missing",
            "{:#?}",
            r.findings
        );
        // Ruled out by the claim as it is now: not ranked, listed apart with the reason.
        assert!(!r
            .findings
            .iter()
            .any(|f| f.cause == "pvc_unbound_or_missing"));
        let pvc = r
            .ruled_out
            .iter()
            .find(|x| x.cause == "pvc_unbound_or_missing")
            .expect("ruled out");
        assert!(pvc.because.contains("Bound now"), "{}", pvc.because);
    }
}
