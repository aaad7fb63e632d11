//! A ReadWriteOnce claim used by a pod on another node, or a VolumeAttachment of the PV on
//! another node: the volume cannot come here until it leaves there (Multi-Attach), and for RBD
//! that other node is the one holding the lock or the watch.

use k8s_openapi::api::core::v1::Pod;

use crate::diagnose::context::Hints;
use crate::diagnose::findings::Accs;
use crate::model::Case;

/// Causes that are explained by the volume still being used on another node.
const HELD_ELSEWHERE: &[&str] = &["multi_attach", "rbd_lock_held", "rbd_watcher_stale"];

fn pod_state(p: &Pod) -> String {
    if p.metadata.deletion_timestamp.is_some() {
        return "Terminating".into();
    }
    p.status
        .as_ref()
        .and_then(|s| s.phase.clone())
        .unwrap_or_else(|| "unknown phase".into())
}

pub fn apply(case: &Case, _hints: &Hints, accs: &mut Accs) {
    let Some(pod) = &case.pod else { return };
    let here = pod.spec.as_ref().and_then(|s| s.node_name.clone());
    let mut lines: Vec<(String, String, String)> = Vec::new(); // (line, node, pod)
                                                               // The VolumeAttachment that keeps the volume on another node (the one a fix would delete).
    let mut other_va: Option<(String, String)> = None;
    // Other pods there that run (their volumes are mounted): the holder is a live writer.
    let mut live_users: Vec<String> = Vec::new();
    for pvc in &case.pvcs {
        let claim = pvc.metadata.name.clone().unwrap_or_default();
        let modes = pvc
            .spec
            .as_ref()
            .and_then(|s| s.access_modes.clone())
            .unwrap_or_default();
        let single_node = modes
            .iter()
            .any(|m| m == "ReadWriteOnce" || m == "ReadWriteOncePod");
        if !single_node {
            continue;
        }
        for other in &case.other_pods {
            let uses = other
                .spec
                .iter()
                .flat_map(|s| s.volumes.iter().flatten())
                .any(|v| {
                    v.persistent_volume_claim
                        .as_ref()
                        .is_some_and(|c| c.claim_name == claim)
                });
            let there = other.spec.as_ref().and_then(|s| s.node_name.clone());
            let state = pod_state(other);
            if !uses
                || there.is_none()
                || there == here
                || state == "Succeeded"
                || state == "Failed"
            {
                continue;
            }
            let there = there.unwrap_or_default();
            let name = other.metadata.name.clone().unwrap_or_default();
            if crate::diagnose::safety::is_live(other) {
                live_users.push(format!("pod {name} ({state})"));
            }
            lines.push((
                format!(
                    "pod {name} ({state}) on node {there} uses the same {} claim {claim}",
                    modes.join("/")
                ),
                there,
                name,
            ));
        }
        // The PV attached to another node, as the attach/detach controller sees it.
        let pv = pvc.spec.as_ref().and_then(|s| s.volume_name.clone());
        for va in &case.volume_attachments {
            if va.spec.source.persistent_volume_name != pv
                || Some(&va.spec.node_name) == here.as_ref()
            {
                continue;
            }
            let attached = va.status.as_ref().map(|s| s.attached).unwrap_or(false);
            if attached {
                other_va.get_or_insert((
                    va.metadata.name.clone().unwrap_or_default(),
                    va.spec.node_name.clone(),
                ));
                lines.push((
                    format!(
                        "VolumeAttachment {} attaches PV {} to node {} (attached: true)",
                        va.metadata.name.as_deref().unwrap_or("?"),
                        pv.as_deref().unwrap_or("?"),
                        va.spec.node_name
                    ),
                    va.spec.node_name.clone(),
                    String::new(),
                ));
            }
        }
    }
    if lines.is_empty() {
        return;
    }
    let existing: Vec<&str> = HELD_ELSEWHERE
        .iter()
        .copied()
        .filter(|c| accs.has(c))
        .collect();
    let targets: Vec<&str> = if existing.is_empty() {
        // Nothing in the messages says why; the objects alone make Multi-Attach likely.
        vec!["multi_attach"]
    } else {
        existing
    };
    for t in targets {
        let base = if accs.has(t) { 0.9 } else { 0.6 };
        let a = accs.entry(t, base);
        a.origins.insert("objects");
        for (line, node, pod) in &lines {
            a.fact(line.clone());
            a.vars.entry("other_node").or_insert_with(|| node.clone());
            if t != "multi_attach" {
                // For RBD, the node still using the claim is the likely lock or watch holder.
                a.vars.entry("holder_node").or_insert_with(|| node.clone());
                if !live_users.is_empty() {
                    a.vars
                        .entry("holder_live")
                        .or_insert_with(|| live_users.join(", "));
                }
            }
            if !pod.is_empty() {
                a.vars.entry("other_pod").or_insert_with(|| pod.clone());
            }
        }
        if let (Some((va, va_node)), "multi_attach") = (&other_va, t) {
            a.vars.insert("va", va.clone());
            a.vars.insert("va_node", va_node.clone());
        }
    }
}
