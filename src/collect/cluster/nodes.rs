//! Nodes as the rules read them: which other nodes may hold a pod's volume (their status lists
//! volumes, or they are NotReady or out-of-service), and a node cut to what the rules read.

use std::collections::BTreeSet;

use k8s_openapi::api::core::v1::Node;

/// The nodes among `nodes` whose status lists a volume naming one of `keys`, cut to what the
/// rules read.
pub fn nodes_listing<'a>(
    nodes: impl Iterator<Item = &'a Node>,
    keys: &BTreeSet<String>,
) -> Vec<Node> {
    nodes
        .filter(|n| {
            n.status.as_ref().is_some_and(|s| {
                s.volumes_in_use
                    .iter()
                    .flatten()
                    .chain(s.volumes_attached.iter().flatten().map(|a| &a.name))
                    .any(|v| keys.iter().any(|k| v.ends_with(k.as_str())))
            })
        })
        .map(|n| slim_node(n.clone()))
        .collect()
}

/// Whether a node's status lists any volume (in use or attached).
pub(super) fn lists_volumes(n: &Node) -> bool {
    n.status.as_ref().is_some_and(|s| {
        s.volumes_in_use.as_ref().is_some_and(|v| !v.is_empty())
            || s.volumes_attached.as_ref().is_some_and(|v| !v.is_empty())
    })
}

/// A node that is not Ready, or tainted out-of-service (GA in 1.28; what releases its
/// volumes for another node): the holder of a Multi-Attach may be such a node even when its
/// status no longer lists the volume.
pub(super) fn not_ready_or_out_of_service(n: &Node) -> bool {
    let not_ready = n
        .status
        .as_ref()
        .and_then(|s| s.conditions.as_ref())
        .is_some_and(|c| c.iter().any(|c| c.type_ == "Ready" && c.status != "True"));
    let out_of_service = n
        .spec
        .as_ref()
        .and_then(|s| s.taints.as_ref())
        .is_some_and(|t| {
            t.iter()
                .any(|t| t.key == "node.kubernetes.io/out-of-service")
        });
    not_ready || out_of_service
}

/// A node cut to what the rules read about another node: name, addresses, readiness, taints,
/// kubelet version and the volumes its status lists (a whole Node carries its image list, tens
/// of KiB).
pub(super) fn slim_node(n: Node) -> Node {
    let st = n.status.unwrap_or_default();
    Node {
        metadata: k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta {
            name: n.metadata.name,
            ..Default::default()
        },
        // Taints say NotReady/unreachable since when, and out-of-service.
        spec: n
            .spec
            .filter(|s| s.taints.as_ref().is_some_and(|t| !t.is_empty()))
            .map(|s| k8s_openapi::api::core::v1::NodeSpec {
                taints: s.taints,
                unschedulable: s.unschedulable,
                ..Default::default()
            }),
        status: Some(k8s_openapi::api::core::v1::NodeStatus {
            addresses: st.addresses,
            conditions: st.conditions,
            node_info: st.node_info,
            volumes_in_use: st.volumes_in_use,
            volumes_attached: st.volumes_attached,
            ..Default::default()
        }),
    }
}

/// A node kept whole for the rules but without what they never read: its image list (the
/// bulk of a Node, tens of KiB) and managedFields.
pub(super) fn trim_node(mut n: Node) -> Node {
    n.metadata.managed_fields = None;
    if let Some(s) = n.status.as_mut() {
        s.images = None;
    }
    n
}
