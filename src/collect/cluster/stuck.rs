//! Which pods a namespace-wide run (and `volmnt watch`) hands out: those stuck on their volumes.

use std::time::Duration;

use k8s_openapi::api::core::v1::Pod;

use super::refs::PodRefs;

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
