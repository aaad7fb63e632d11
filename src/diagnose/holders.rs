//! Which other node holds the pod's volume: a VolumeAttachment there, the node's own status, or
//! another pod there on one of its claims. The differential's `holder_not_ready` fact and the
//! out-of-service step both ask, and must agree on which node that is.

use regex::Regex;

use crate::model::Case;

/// A node other than the pod's that is shown to hold one of its volumes and is not Ready (the
/// `holder_not_ready` fact): it cannot let the volume go by itself.
pub(crate) fn notready_holder(case: &Case) -> Option<&k8s_openapi::api::core::v1::Node> {
    holder(case, true)
}

/// A node other than the pod's, shown to hold one of its volumes, whose Ready condition is not
/// True (`not_ready`) or is.
pub(crate) fn holder(case: &Case, not_ready: bool) -> Option<&k8s_openapi::api::core::v1::Node> {
    let here = case.node_name();
    case.nodes.iter().find(|n| {
        n.metadata.name.as_deref().is_some_and(|name| {
            Some(name) != here
                && crate::model::ready_status(n).is_some_and(|s| (s != "True") == not_ready)
                && holds_volume(case, name)
        })
    })
}

/// Whether node `name` is shown to hold one of the pod's volumes: a VolumeAttachment there for
/// one of its PVs, the node's status listing one (volumesAttached / volumesInUse name the PV or
/// its CSI handle), or another pod there using one of its claims. A NotReady node that is not
/// shown to hold it is no holder: the out-of-service taint advice must never point at it.
fn holds_volume(case: &Case, name: &str) -> bool {
    // The PVs: those saved, and those the pod's volume events name (`Multi-Attach error for
    // volume "pvc-..."`, the attach/detach controller's name for the PV).
    static FOR_VOLUME: std::sync::LazyLock<Regex> = std::sync::LazyLock::new(|| {
        Regex::new(r#"for volume \\?"([A-Za-z0-9][A-Za-z0-9._-]*)\\?""#).expect("static regex")
    });
    let mut pvs: Vec<&str> = case
        .pvs
        .iter()
        .filter_map(|p| p.metadata.name.as_deref())
        .collect();
    for e in &case.events {
        for c in FOR_VOLUME.captures_iter(&e.message) {
            if let Some(m) = c.get(1) {
                pvs.push(m.as_str());
            }
        }
    }
    let handles: Vec<&str> = case
        .pvs
        .iter()
        .filter_map(|p| {
            p.spec
                .as_ref()?
                .csi
                .as_ref()
                .map(|c| c.volume_handle.as_str())
        })
        .collect();
    let by_va = case.volume_attachments.iter().any(|va| {
        va.spec.node_name == name
            && va
                .spec
                .source
                .persistent_volume_name
                .as_deref()
                .is_some_and(|p| pvs.contains(&p))
    });
    let by_status = case
        .nodes
        .iter()
        .filter(|n| n.metadata.name.as_deref() == Some(name))
        .filter_map(|n| n.status.as_ref())
        .any(|st| {
            let attached = st
                .volumes_attached
                .iter()
                .flatten()
                .map(|a| a.name.as_str());
            let in_use = st.volumes_in_use.iter().flatten().map(String::as_str);
            attached.chain(in_use).any(|u| {
                pvs.iter().any(|p| u.ends_with(p))
                    || handles.iter().any(|h| !h.is_empty() && u.ends_with(h))
            })
        });
    let claims: Vec<&str> = case
        .pod
        .as_ref()
        .and_then(|p| p.spec.as_ref()?.volumes.as_ref())
        .into_iter()
        .flatten()
        .filter_map(|v| {
            v.persistent_volume_claim
                .as_ref()
                .map(|c| c.claim_name.as_str())
        })
        .collect();
    let by_pod = case.other_pods.iter().any(|o| {
        o.spec.as_ref().is_some_and(|s| {
            s.node_name.as_deref() == Some(name)
                && s.volumes.iter().flatten().any(|v| {
                    v.persistent_volume_claim
                        .as_ref()
                        .is_some_and(|c| claims.contains(&c.claim_name.as_str()))
                })
        })
    });
    by_va || by_status || by_pod
}
