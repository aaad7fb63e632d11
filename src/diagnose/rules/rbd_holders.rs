//! `rbd lock ls` / `rbd status` output in the case names who holds the image: the lock's
//! locker and address (the old node, in the 2017 incident) or the watcher's address.

use crate::diagnose::context::Hints;
use crate::diagnose::findings::Accs;
use crate::model::Case;

pub fn apply(case: &Case, hints: &Hints, accs: &mut Accs) {
    let rbd_volume = hints.all().any(|h| h.rbd_image.is_some());
    for state in &case.rbd {
        let image = state
            .image
            .clone()
            .or_else(|| hints.all().find_map(|h| h.rbd_image.clone()));
        if let Some(lock) = state.locks.first() {
            // A listed lock corroborates a "locked" message; alone, it is a lead when the pod
            // waits on volumes (or uses an RBD volume at all).
            let stuck_on_volume = accs.has("mount_timeout") || accs.has("attach_timeout");
            let base = if accs.has("rbd_lock_held") {
                0.9
            } else if stuck_on_volume || rbd_volume {
                0.7
            } else {
                0.5
            };
            let kind = state.lock_kind.as_deref().unwrap_or("");
            let a = accs.entry("rbd_lock_held", base);
            a.origins.insert("rbd lock ls");
            for l in &state.locks {
                a.fact_from(
                    "rbd",
                    format!(
                        "rbd lock ls {}: {}lock id {} held by {} at {}",
                        image.as_deref().unwrap_or("(image)"),
                        if kind.is_empty() {
                            String::new()
                        } else {
                            format!("{kind} ")
                        },
                        l.id,
                        l.locker,
                        l.address
                    ),
                );
            }
            if let Some(img) = &image {
                a.vars.insert("image", img.clone());
            }
            a.vars.insert("lock_id", lock.id.clone());
            a.vars.insert("locker", lock.locker.clone());
            a.vars.insert("locker_addr", lock.address.clone());
            if let Some(host) = lock.address.split(':').next() {
                a.vars.insert("locker_host", host.to_string());
                if let Some(node) = node_with_address(case, host) {
                    a.vars.insert("holder_node", node);
                }
                if let Some(line) = holder_vs_node(case, host) {
                    a.fact_from("rbd", line);
                }
            }
        } else if state.watchers.as_ref().is_none_or(|w| w.is_empty()) {
            if let Some(a) = accs.get("rbd_lock_held") {
                a.confidence = (a.confidence - 0.25).max(0.3);
                a.fact_from("rbd", format!(
                    "rbd lock ls {} lists no lock now: it may have been released since, or the holder is a watcher (see rbd status)",
                    image.as_deref().unwrap_or("(image)")
                ));
            }
        }
        // Holders judged against the cluster (doctor's RBD hook): name node, pods, verdict.
        if !state.judged.is_empty() {
            let target = ["rbd_lock_held", "rbd_watcher_stale"]
                .into_iter()
                .find(|c| accs.has(c))
                .unwrap_or("rbd_lock_held");
            let a = accs.entry(target, 0.6);
            a.origins.insert("ceph");
            for j in &state.judged {
                let node = j
                    .node
                    .as_deref()
                    .map_or_else(|| "no Kubernetes node".to_string(), |n| format!("node {n}"));
                let pods = if j.pods.is_empty() {
                    String::new()
                } else {
                    format!(", used there by {}", j.pods.join(", "))
                };
                a.fact_from(
                    "rbd",
                    format!(
                        "{} is on {node}{pods}: {} ({})",
                        j.what, j.verdict, j.reason
                    ),
                );
                if let Some(n) = &j.node {
                    a.vars.insert("holder_node", n.clone());
                }
                if j.verdict == "live" {
                    a.vars.insert("holder_live", j.pods.join(", "));
                }
            }
        }
        if let Some(w) = state.watchers.as_ref().and_then(|w| w.first()) {
            let base = if accs.has("rbd_watcher_stale") {
                0.9
            } else {
                0.6
            };
            let a = accs.entry("rbd_watcher_stale", base);
            a.origins.insert("rbd status");
            for w in state.watchers.iter().flatten() {
                a.fact_from(
                    "rbd",
                    format!(
                        "rbd status {}: watcher {}{}",
                        image.as_deref().unwrap_or("(image)"),
                        w.address,
                        w.client
                            .as_deref()
                            .map(|c| format!(" ({c})"))
                            .unwrap_or_default()
                    ),
                );
            }
            if let Some(img) = &image {
                a.vars.insert("image", img.clone());
            }
            a.vars.insert("watcher_addr", w.address.clone());
        }
    }
}

/// The node whose name or one of whose addresses is `host`.
fn node_with_address(case: &Case, host: &str) -> Option<String> {
    case.nodes
        .iter()
        .find(|n| {
            n.metadata.name.as_deref() == Some(host)
                || n.status
                    .iter()
                    .flat_map(|s| s.addresses.iter().flatten())
                    .any(|a| a.address == host)
        })
        .and_then(|n| n.metadata.name.clone())
}

/// Is the holder this pod's own node (a leftover map there) or another one (the old node)?
fn holder_vs_node(case: &Case, host: &str) -> Option<String> {
    let node = case.node_name()?;
    let mut own: Vec<String> = vec![node.to_string()];
    if let Some(n) = case.node() {
        own.extend(
            n.status
                .iter()
                .flat_map(|s| s.addresses.iter().flatten())
                .map(|a| a.address.clone()),
        );
    }
    if let Some(ip) = case
        .pod
        .as_ref()
        .and_then(|p| p.status.as_ref()?.host_ip.clone())
    {
        own.push(ip);
    }
    Some(if own.iter().any(|a| a == host) {
        format!("the lock holder {host} is this pod's own node ({node}): a previous pod there, or a map that was not cleaned up")
    } else {
        format!("the lock holder {host} is not this pod's node ({node}): most likely the node the pod ran on before")
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{RbdImageState, RbdLock};

    fn lock_case() -> Case {
        Case {
            rbd: vec![RbdImageState {
                image: Some("mioss/index-api-image".into()),
                locks: vec![RbdLock {
                    id: "kubelet_lock_magic_node1".into(),
                    locker: "client.24128".into(),
                    address: "10.47.136.60:0/1864102866".into(),
                    lock_type: None,
                    tag: None,
                }],
                watchers: None,
                lock_kind: Some("exclusive".into()),
                judged: Vec::new(),
            }],
            ..Case::default()
        }
    }

    #[test]
    fn a_listed_lock_names_the_holder_and_the_command() {
        let case = lock_case();
        let mut accs = Accs::default();
        accs.entry("rbd_lock_held", 0.95);
        apply(&case, &Hints::default(), &mut accs);
        let a = accs.get("rbd_lock_held").unwrap();
        assert!(a.confidence >= 0.95);
        assert_eq!(a.vars["locker_addr"], "10.47.136.60:0/1864102866");
        assert_eq!(a.vars["locker_host"], "10.47.136.60");
        assert!(a.evidence[0]
            .text
            .contains("exclusive lock id kubelet_lock_magic_node1 held by client.24128"));
    }

    #[test]
    fn no_lock_listed_weakens_a_lock_finding() {
        let mut case = lock_case();
        case.rbd[0].locks.clear();
        case.rbd[0].watchers = Some(vec![]);
        let mut accs = Accs::default();
        accs.entry("rbd_lock_held", 0.95);
        apply(&case, &Hints::default(), &mut accs);
        assert!(accs.get("rbd_lock_held").unwrap().confidence < 0.95);
    }
}
