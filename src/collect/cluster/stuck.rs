//! Which pods a namespace-wide run (and `volmnt watch`) hands out: those stuck on their volumes.

use std::time::Duration;

use k8s_openapi::api::core::v1::Pod;

use super::refs::PodRefs;
use crate::model::Event;

/// Is this pod stuck on its volumes: Pending, a container waiting in ContainerCreating (or
/// not started at all yet), for at least `min_age`.
pub fn is_stuck(pod: &Pod, now_secs: i64, min_age: Duration) -> bool {
    let Some(status) = &pod.status else {
        return false;
    };
    if status.phase.as_deref() != Some("Pending") {
        return false;
    }
    let created = pod
        .metadata
        .creation_timestamp
        .as_ref()
        .map(|t| t.0.as_second())
        .unwrap_or(now_secs);
    if now_secs - created < min_age.as_secs() as i64 {
        return false;
    }
    let waiting: Vec<&str> = status
        .container_statuses
        .iter()
        .chain(status.init_container_statuses.iter())
        .flatten()
        .filter_map(|c| c.state.as_ref()?.waiting.as_ref()?.reason.as_deref())
        .collect();
    let scheduled = pod
        .spec
        .as_ref()
        .and_then(|s| s.node_name.as_ref())
        .is_some();
    waiting
        .iter()
        .any(|r| *r == "ContainerCreating" || *r == "PodInitializing")
        || (waiting.is_empty() && scheduled)
        || pod_has_volume_claims_unscheduled(pod)
}

/// Pending and unscheduled with claims: often an unbound PVC (FailedScheduling).
fn pod_has_volume_claims_unscheduled(pod: &Pod) -> bool {
    let scheduled = pod
        .spec
        .as_ref()
        .and_then(|s| s.node_name.as_ref())
        .is_some();
    !scheduled && !PodRefs::of(pod).claims.is_empty()
}

/// Reasons of the Warning events that say a pod's volume failed (kubelet's volume manager and
/// the attach/detach controller: kubernetes pkg/kubelet/events/event.go, pkg/controller/volume
/// events): a pod with one is stuck on a volume whatever its age.
const VOLUME_FAILURE_REASONS: [&str; 4] = [
    "FailedMount",
    "FailedAttachVolume",
    "FailedMapVolume",
    "FailedBinding",
];

/// Whether these events say the pod's volume failed: a volume failure reason, or the
/// scheduler's FailedScheduling about its claims or volumes (`pod has unbound immediate
/// PersistentVolumeClaims`, `volume node affinity conflict`). A pod with such an event is
/// reported however young it is (issue 29: a rollout failing for 81 s on a missing Secret was
/// "OK" under the 2m --min-age).
pub fn has_volume_failure<'a>(events: impl IntoIterator<Item = &'a Event>) -> bool {
    events.into_iter().any(|e| {
        e.is_warning()
            && (VOLUME_FAILURE_REASONS.contains(&e.reason.as_str())
                || (e.reason == "FailedScheduling" && {
                    let m = e.message.to_ascii_lowercase();
                    m.contains("persistentvolumeclaim") || m.contains("volume")
                }))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(reason: &str, msg: &str) -> Event {
        Event {
            kind: Some("Warning".into()),
            reason: reason.into(),
            message: msg.into(),
            ..Event::default()
        }
    }

    #[test]
    fn volume_failures_are_told_from_other_warnings() {
        assert!(has_volume_failure(&[ev(
            "FailedMount",
            "MountVolume.SetUp failed for volume \"creds\" : secret \"db\" not found"
        )]));
        assert!(has_volume_failure(&[ev(
            "FailedScheduling",
            "0/3 nodes are available: pod has unbound immediate PersistentVolumeClaims."
        )]));
        assert!(!has_volume_failure(&[ev(
            "FailedScheduling",
            "0/3 nodes are available: 3 Insufficient cpu."
        )]));
        assert!(!has_volume_failure(&[ev(
            "BackOff",
            "Back-off pulling image"
        )]));
    }
}
