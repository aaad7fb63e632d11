//! The attach side as the objects record it: the VolumeAttachment of the pod's PV on its node
//! (attached or not, its error) and whether the node's status.volumesAttached lists the volume.
//! In-tree attachable volumes (iSCSI, FC, in-tree RBD), in a PV or inline in the pod, have no
//! VolumeAttachment: kube-controller-manager's attach/detach controller attaches them itself,
//! and only the node's status shows it (the kubelet lists a volume it waits for in
//! status.volumesInUse; the controller adds it to status.volumesAttached once attached).

use crate::diagnose::context::Hints;
use crate::diagnose::findings::Accs;
use crate::model::Case;

/// Findings about the attach step; the first one present gets the object evidence.
const ATTACH_CAUSES: &[&str] = &[
    "attach_timeout",
    "attach_failed_cloud",
    "volume_not_ready",
    "csi_driver_not_registered",
    "storage_backend_error",
    "storage_backend_unreachable",
];

/// The node annotation by which the kubelet leaves attaching to the attach/detach controller
/// (kubelet's enableControllerAttachDetach, the default); without it the kubelet attaches
/// in-tree volumes itself and reports its own failures.
const CONTROLLER_MANAGED: &str = "volumes.kubernetes.io/controller-managed-attach-detach";

/// Lines about the pod's in-tree attachable volumes that the controller has not attached to
/// `node`, and whether the kubelet says it waits for one (status.volumesInUse).
fn in_tree_unattached(case: &Case, hints: &Hints, node: &str) -> (Vec<String>, bool) {
    let Some(n) = case.node() else {
        return (Vec::new(), false);
    };
    let managed = n
        .metadata
        .annotations
        .as_ref()
        .and_then(|a| a.get(CONTROLLER_MANAGED))
        .is_some_and(|v| v == "true");
    if !managed {
        return (Vec::new(), false);
    }
    let status = n.status.as_ref();
    let attached: Vec<&str> = status
        .and_then(|s| s.volumes_attached.as_ref())
        .into_iter()
        .flatten()
        .map(|v| v.name.as_str())
        .collect();
    let in_use: Vec<&str> = status
        .and_then(|s| s.volumes_in_use.as_ref())
        .into_iter()
        .flatten()
        .map(String::as_str)
        .collect();
    let mut lines = Vec::new();
    let mut waiting = false;
    let volumes = case
        .pod
        .as_ref()
        .and_then(|p| p.spec.as_ref())
        .and_then(|s| s.volumes.as_ref());
    for v in volumes.into_iter().flatten() {
        let Some(h) = hints.get(&v.name) else {
            continue;
        };
        if !h.in_tree || h.unique_names.is_empty() {
            continue;
        }
        // A migrated in-tree PV has a VolumeAttachment: what it says is read by messages.
        if let Some(pv) = &h.pv {
            if case
                .volume_attachments
                .iter()
                .any(|va| va.spec.source.persistent_volume_name.as_deref() == Some(pv.as_str()))
            {
                continue;
            }
        }
        let names = &h.unique_names;
        let listed = |l: &[&str]| {
            l.iter()
                .find(|a| crate::diagnose::context::matches_unique(names, a))
                .map(|a| a.to_string())
        };
        if listed(&attached).is_some() {
            continue;
        }
        // Attached to another node: that is Multi-Attach (held_by_node names the node).
        let elsewhere = case.nodes.iter().any(|o| {
            o.metadata.name.as_deref() != Some(node)
                && o.status
                    .as_ref()
                    .and_then(|s| s.volumes_attached.as_ref())
                    .is_some_and(|l| {
                        l.iter()
                            .any(|a| crate::diagnose::context::matches_unique(names, &a.name))
                    })
        });
        if elsewhere {
            continue;
        }
        let what = match &h.pv {
            Some(pv) => format!("volume {} (PV {pv})", v.name),
            None => format!("volume {}", v.name),
        };
        match listed(&in_use) {
            Some(name) => {
                waiting = true;
                lines.push(format!(
                    "node {node} lists {name} in status.volumesInUse (the kubelet waits for it) but not in status.volumesAttached: the attach/detach controller of kube-controller-manager has not attached {what}; an in-tree volume gets no VolumeAttachment, so no other object shows the attach (is kube-controller-manager running, with the attachdetach controller among its --controllers?)"
                ));
            }
            None => lines.push(format!(
                "node {node} status.volumesAttached does not list {}: the attach/detach controller of kube-controller-manager has not attached {what}",
                names[0]
            )),
        }
    }
    (lines, waiting)
}

pub fn apply(case: &Case, hints: &Hints, accs: &mut Accs) {
    let Some(node) = case.node_name().map(str::to_string) else {
        return;
    };
    let attached_on_node: Vec<String> = case
        .node()
        .and_then(|n| n.status.as_ref()?.volumes_attached.clone())
        .unwrap_or_default()
        .into_iter()
        .map(|v| v.name)
        .collect();
    let mut lines = Vec::new();
    let mut multi_attach_lines: Vec<String> = Vec::new();
    let mut va_name = None;
    for pv in &case.pvs {
        let pv_name = pv.metadata.name.as_deref().unwrap_or("?");
        let Some(csi) = pv.spec.as_ref().and_then(|s| s.csi.as_ref()) else {
            continue;
        };
        let va = case.volume_attachments.iter().find(|va| {
            va.spec.node_name == node
                && va.spec.source.persistent_volume_name.as_deref() == Some(pv_name)
        });
        let unique = format!("kubernetes.io/csi/{}^{}", csi.driver, csi.volume_handle);
        let listed = attached_on_node.contains(&unique);
        match va {
            Some(va) => {
                let st = va.status.as_ref();
                let attached = st.map(|s| s.attached).unwrap_or(false);
                if attached {
                    continue;
                }
                let name = va.metadata.name.clone().unwrap_or_default();
                let err = st
                    .and_then(|s| s.attach_error.as_ref())
                    .and_then(|e| e.message.clone())
                    .map(|m| {
                        format!(
                            ", attachError: \"{}\"",
                            crate::diagnose::text::clip(&m, 300)
                        )
                    })
                    .unwrap_or_default();
                lines.push(format!(
                    "VolumeAttachment {name} for PV {pv_name} on node {node}: attached=false{err}"
                ));
                va_name = Some(name);
            }
            None if !case.volume_attachments.is_empty() || case.node().is_some() => {
                // Drivers whose CSIDriver says attachRequired: false never get one.
                let needs_attach = case
                    .csi_drivers
                    .iter()
                    .find(|d| d.metadata.name.as_deref() == Some(csi.driver.as_str()))
                    .and_then(|d| d.spec.attach_required)
                    .unwrap_or(true);
                let elsewhere = case.volume_attachments.iter().find(|va| {
                    va.spec.node_name != node
                        && va.spec.source.persistent_volume_name.as_deref() == Some(pv_name)
                        && va.status.as_ref().is_some_and(|s| s.attached)
                });
                // Attached elsewhere, by a VolumeAttachment or by another node's own status.
                let names = crate::diagnose::context::unique_names(pv);
                let other_node = elsewhere.map(|o| o.spec.node_name.clone()).or_else(|| {
                    case.nodes
                        .iter()
                        .filter(|n| n.metadata.name.as_deref() != Some(node.as_str()))
                        .find(|n| {
                            n.status
                                .as_ref()
                                .and_then(|s| s.volumes_attached.as_ref())
                                .is_some_and(|v| {
                                    v.iter().any(|a| {
                                        crate::diagnose::context::matches_unique(&names, &a.name)
                                    })
                                })
                        })
                        .and_then(|n| n.metadata.name.clone())
                });
                if let Some(other) = other_node {
                    // The attach/detach controller does not start an attach while the volume is
                    // attached elsewhere: that is Multi-Attach (claim_elsewhere names it).
                    multi_attach_lines.push(format!(
                        "no VolumeAttachment of PV {pv_name} to node {node} yet: the attach/detach controller waits while it is attached to node {other}"
                    ));
                } else if needs_attach && !listed {
                    lines.push(format!(
                        "no VolumeAttachment of PV {pv_name} to node {node} exists: the attach was never started (is the driver's external-attacher running?)"
                    ));
                }
                continue;
            }
            None => continue,
        }
        if case.node().is_some() && !listed {
            lines.push(format!(
                "node {node} status.volumesAttached does not list {unique}"
            ));
        }
    }
    if !multi_attach_lines.is_empty() {
        let base = if accs.has("multi_attach") { 0.9 } else { 0.6 };
        let a = accs.entry("multi_attach", base);
        a.origins.insert("objects");
        for l in multi_attach_lines {
            a.fact(l);
        }
    }
    let (in_tree, waiting) = in_tree_unattached(case, hints, &node);
    let any_in_tree = !in_tree.is_empty();
    lines.extend(in_tree);
    if lines.is_empty() {
        return;
    }
    let target = ATTACH_CAUSES
        .iter()
        .copied()
        .find(|c| accs.has(c))
        .unwrap_or("attach_timeout");
    // The kubelet itself saying it waits for an attach no one made is as plain as an event.
    let base = if accs.has(target) || waiting {
        0.85
    } else {
        0.55
    };
    let a = accs.entry(target, base);
    a.origins.insert("objects");
    for l in lines {
        a.fact(l);
    }
    if let Some(n) = va_name {
        a.vars.insert("va", n);
    }
    // The steps for the attach/detach controller, not for a CSI attacher it does not have.
    if any_in_tree {
        a.vars.insert("in_tree", "true".into());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnose::context::hints_from_case;
    use serde_json::json;

    /// An inline in-tree iSCSI volume on `node`, with the node's annotations and status.
    fn iscsi_case(annotations: serde_json::Value, status: serde_json::Value) -> Case {
        Case {
            pod: Some(
                serde_json::from_value(json!({
                    "metadata": {"name": "app", "namespace": "default"},
                    "spec": {"nodeName": "node-a", "containers": [{"name": "c"}],
                             "volumes": [{"name": "lun", "iscsi": {"targetPortal": "10.0.0.9:3260",
                                          "iqn": "iqn.2024-01.io.example:t", "lun": 0}}]},
                    "status": {"phase": "Pending"}
                }))
                .unwrap(),
            ),
            nodes: vec![serde_json::from_value(json!({
                "metadata": {"name": "node-a", "annotations": annotations},
                "status": status,
            }))
            .unwrap()],
            ..Case::default()
        }
    }

    const NAME: &str = "kubernetes.io/iscsi/10.0.0.9:3260:iqn.2024-01.io.example:t:0";

    fn run(c: &Case) -> Accs {
        let mut accs = Accs::default();
        apply(c, &hints_from_case(c), &mut accs);
        accs
    }

    #[test]
    fn an_in_tree_volume_the_kubelet_waits_for_and_nothing_attached_is_an_attach_finding() {
        let c = iscsi_case(
            json!({CONTROLLER_MANAGED: "true"}),
            json!({"volumesInUse": [NAME]}),
        );
        let mut accs = run(&c);
        let a = accs.get("attach_timeout").expect("attach finding");
        assert!(a.confidence >= 0.85, "{}", a.confidence);
        assert!(a.evidence[0].text.contains(NAME), "{:?}", a.evidence);
        assert!(a.evidence[0].text.contains("status.volumesInUse"));
    }

    #[test]
    fn attached_or_not_left_to_the_controller_says_nothing() {
        let attached = iscsi_case(
            json!({CONTROLLER_MANAGED: "true"}),
            json!({"volumesInUse": [NAME], "volumesAttached": [{"name": NAME, "devicePath": ""}]}),
        );
        assert!(!run(&attached).has("attach_timeout"));
        // The kubelet attaches by itself: its own errors say what happens.
        let self_attaching = iscsi_case(json!({}), json!({"volumesInUse": [NAME]}));
        assert!(!run(&self_attaching).has("attach_timeout"));
    }
}
