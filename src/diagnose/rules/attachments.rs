//! The attach side as the objects record it: the VolumeAttachment of the pod's PV on its node
//! (attached or not, its error) and whether the node's status.volumesAttached lists the volume.

use crate::diagnose::context::Hints;
use crate::diagnose::Accs;
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

pub fn apply(case: &Case, _hints: &Hints, accs: &mut Accs) {
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
                    .map(|m| format!(", attachError: \"{}\"", crate::diagnose::clip(&m, 300)))
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
    if lines.is_empty() {
        return;
    }
    let target = ATTACH_CAUSES
        .iter()
        .copied()
        .find(|c| accs.has(c))
        .unwrap_or("attach_timeout");
    let base = if accs.has(target) { 0.85 } else { 0.55 };
    let a = accs.entry(target, base);
    a.origins.insert("objects");
    for l in lines {
        a.fact(l);
    }
    if let Some(n) = va_name {
        a.vars.insert("va", n);
    }
}
