//! A pod's case from objects already read, without a request: `doctor namespace` reads its lists
//! once into [`Shared`], `volmnt watch` keeps them in its cache, and both answer [`CaseObjects`]
//! so that [`assemble`] builds the same `Case` from either.

use std::collections::BTreeSet;

use k8s_openapi::api::core::v1::{Node, PersistentVolume, PersistentVolumeClaim, Pod};
use k8s_openapi::api::storage::v1::{CSIDriver, CSINode, StorageClass, VolumeAttachment};

use super::nodes::nodes_listing;
use super::refs::{ClaimUser, PodRefs};
use crate::model::{Case, Event, ObjectRef};

/// Reads a namespace-wide run does once (paginated lists, filtered page by page) and shares
/// between its pods, so a pod's case is assembled without further requests.
#[derive(Default)]
pub struct Shared {
    /// Failure events by (namespace, pod name).
    pub events: std::collections::HashMap<(String, String), Vec<Event>>,
    /// Warning events of claims that are not Bound, by (namespace, claim name).
    pub claim_events: std::collections::HashMap<(String, String), Vec<Event>>,
    /// Pods that use a claim, in compact form (to find other users of a stuck pod's claims).
    pub claim_users: Vec<ClaimUser>,
    pub pvcs: std::collections::HashMap<(String, String), PersistentVolumeClaim>,
    pub pvs: std::collections::HashMap<String, PersistentVolume>,
    pub nodes: std::collections::HashMap<String, Node>,
    pub csinodes: std::collections::HashMap<String, CSINode>,
    /// Names of ConfigMaps and Secrets that exist, by namespace (metadata only).
    pub configmaps: BTreeSet<(String, String)>,
    pub secrets: BTreeSet<(String, String)>,
    pub attachments: Vec<VolumeAttachment>,
    pub drivers: Vec<CSIDriver>,
    pub classes: Vec<StorageClass>,
    /// Which of the lists above could be read (a denied list says nothing about absence).
    pub read_pvcs: bool,
    pub read_configmaps: bool,
    pub read_secrets: bool,
}

/// What assembling one pod's case needs to look up: answered by `doctor namespace`'s one-shot
/// lists ([`Shared`]) and by `watch`'s cache (collect::watch), so both build the same `Case`.
pub trait CaseObjects {
    /// The pod's events (failure events are what is diagnosed).
    fn events_of(&self, namespace: &str, pod: &str) -> Vec<Event>;
    /// A claim's Warning events (asked only for claims that are not Bound).
    fn claim_events_of(&self, namespace: &str, claim: &str) -> Vec<Event>;
    fn pvc(&self, namespace: &str, name: &str) -> Option<PersistentVolumeClaim>;
    fn pv(&self, name: &str) -> Option<PersistentVolume>;
    fn node(&self, name: &str) -> Option<Node>;
    /// Nodes whose status lists (volumesInUse, volumesAttached) a volume naming one of
    /// `keys` (a PV name, a CSI volume handle, an in-tree `pool:image`): another node may hold
    /// this pod's volume. `doctor pod` reads the same from its node list.
    fn nodes_listing(&self, keys: &BTreeSet<String>) -> Vec<Node>;
    fn csinode(&self, name: &str) -> Option<CSINode>;
    /// Could the claims be read at all (an unreadable list says nothing about absence)?
    fn pvcs_known(&self) -> bool;
    /// Some(true/false) when ConfigMap/Secret names are known, None when they could not be read.
    fn configmap_exists(&self, namespace: &str, name: &str) -> Option<bool>;
    fn secret_exists(&self, namespace: &str, name: &str) -> Option<bool>;
    /// Other pods of the namespace that use one of these claims (minimal pods: name, node,
    /// phase, claims).
    fn pods_using(&self, namespace: &str, claims: &BTreeSet<String>, except: &str) -> Vec<Pod>;
    /// VolumeAttachments of these PVs.
    fn attachments_of(&self, pvs: &BTreeSet<&str>) -> Vec<VolumeAttachment>;
    fn drivers(&self) -> Vec<CSIDriver>;
    fn classes(&self) -> Vec<StorageClass>;
}

impl CaseObjects for Shared {
    fn events_of(&self, namespace: &str, pod: &str) -> Vec<Event> {
        self.events
            .get(&(namespace.to_string(), pod.to_string()))
            .cloned()
            .unwrap_or_default()
    }
    fn claim_events_of(&self, namespace: &str, claim: &str) -> Vec<Event> {
        self.claim_events
            .get(&(namespace.to_string(), claim.to_string()))
            .cloned()
            .unwrap_or_default()
    }
    fn pvc(&self, namespace: &str, name: &str) -> Option<PersistentVolumeClaim> {
        self.pvcs
            .get(&(namespace.to_string(), name.to_string()))
            .cloned()
    }
    fn pv(&self, name: &str) -> Option<PersistentVolume> {
        self.pvs.get(name).cloned()
    }
    fn node(&self, name: &str) -> Option<Node> {
        self.nodes.get(name).cloned()
    }
    fn nodes_listing(&self, keys: &BTreeSet<String>) -> Vec<Node> {
        nodes_listing(self.nodes.values(), keys)
    }
    fn csinode(&self, name: &str) -> Option<CSINode> {
        self.csinodes.get(name).cloned()
    }
    fn pvcs_known(&self) -> bool {
        self.read_pvcs
    }
    fn configmap_exists(&self, namespace: &str, name: &str) -> Option<bool> {
        let has = self
            .configmaps
            .contains(&(namespace.to_string(), name.to_string()));
        (has || self.read_configmaps).then_some(has)
    }
    fn secret_exists(&self, namespace: &str, name: &str) -> Option<bool> {
        let has = self
            .secrets
            .contains(&(namespace.to_string(), name.to_string()));
        (has || self.read_secrets).then_some(has)
    }
    fn pods_using(&self, ns: &str, claims: &BTreeSet<String>, except: &str) -> Vec<Pod> {
        self.claim_users
            .iter()
            .filter(|u| u.namespace == ns && u.name != except)
            .filter(|u| u.claims.iter().any(|c| claims.contains(c)))
            .map(ClaimUser::to_pod)
            .collect()
    }
    fn attachments_of(&self, pvs: &BTreeSet<&str>) -> Vec<VolumeAttachment> {
        self.attachments
            .iter()
            .filter(|va| {
                va.spec
                    .source
                    .persistent_volume_name
                    .as_deref()
                    .is_some_and(|p| pvs.contains(p))
            })
            .cloned()
            .collect()
    }
    fn drivers(&self) -> Vec<CSIDriver> {
        self.drivers.clone()
    }
    fn classes(&self) -> Vec<StorageClass> {
        self.classes.clone()
    }
}

impl Shared {
    /// One pod's case from the shared reads: no request.
    pub fn assemble(&self, pod: Pod) -> Case {
        assemble(self, pod)
    }
}

/// One pod's case from objects already read (no request): its events, claims and their PVs,
/// missing ConfigMaps/Secrets, other users of its claims, the nodes involved, its node's
/// CSINode, its PVs' VolumeAttachments, the CSIDrivers and StorageClasses.
pub fn assemble(objs: &impl CaseObjects, pod: Pod) -> Case {
    let ns = pod.metadata.namespace.clone().unwrap_or_default();
    let name = pod.metadata.name.clone().unwrap_or_default();
    let refs = PodRefs::of(&pod);
    let node_name = pod.spec.as_ref().and_then(|s| s.node_name.clone());
    let mut case = Case {
        pod_name: Some(name.clone()),
        namespace: Some(ns.clone()),
        events: objs.events_of(&ns, &name),
        storage_classes: objs.classes(),
        csi_drivers: objs.drivers(),
        ..Case::default()
    };
    let missing = |kind: &str, n: &str| ObjectRef {
        kind: Some(kind.into()),
        namespace: Some(ns.clone()),
        name: Some(n.to_string()),
        uid: None,
    };
    for claim in &refs.claims {
        match objs.pvc(&ns, claim) {
            Some(pvc) => {
                // A claim that is not Bound says why in its own events, as `doctor pod` reads.
                if pvc.status.as_ref().and_then(|s| s.phase.as_deref()) != Some("Bound") {
                    // Not those of an earlier claim of the same name (another uid).
                    let uid = pvc.metadata.uid.as_deref();
                    case.events
                        .extend(objs.claim_events_of(&ns, claim).into_iter().filter(|e| {
                            let of = e.object.as_ref().and_then(|o| o.uid.as_deref());
                            uid.is_none() || of.is_none() || of == uid
                        }));
                }
                if let Some(pv) = pvc
                    .spec
                    .as_ref()
                    .and_then(|s| s.volume_name.as_ref())
                    .and_then(|v| objs.pv(v))
                {
                    case.pvs.push(pv);
                }
                case.pvcs.push(pvc);
            }
            None if objs.pvcs_known() => case.missing.push(missing("PersistentVolumeClaim", claim)),
            None => {}
        }
    }
    for cm in &refs.configmaps {
        match objs.configmap_exists(&ns, cm) {
            Some(true) => case.configmaps.push(cm.clone()),
            Some(false) => case.missing.push(missing("ConfigMap", cm)),
            None => {}
        }
    }
    for sec in &refs.secrets {
        match objs.secret_exists(&ns, sec) {
            Some(true) => case.secrets.push(sec.clone()),
            Some(false) => case.missing.push(missing("Secret", sec)),
            None => {}
        }
    }
    case.other_pods = objs.pods_using(&ns, &refs.claims, &name);
    let mut node_names: Vec<String> = node_name.iter().cloned().collect();
    node_names.extend(
        case.other_pods
            .iter()
            .filter_map(|p| p.spec.as_ref()?.node_name.clone()),
    );
    node_names.dedup();
    // Another node whose status still lists one of the pod's volumes (the old node of a
    // Multi-Attach or of an RBD lock), as `doctor pod` reads it.
    let mut keys: BTreeSet<String> = BTreeSet::new();
    for pv in &case.pvs {
        if let Some(n) = &pv.metadata.name {
            keys.insert(n.clone());
        }
        if let Some(spec) = &pv.spec {
            if let Some(c) = &spec.csi {
                keys.insert(c.volume_handle.clone());
            }
            if let Some(r) = &spec.rbd {
                keys.insert(format!(
                    "{}:{}",
                    r.pool.as_deref().unwrap_or("rbd"),
                    r.image
                ));
            }
        }
    }
    for v in pod.spec.iter().flat_map(|s| s.volumes.iter().flatten()) {
        if let Some(r) = &v.rbd {
            keys.insert(format!(
                "{}:{}",
                r.pool.as_deref().unwrap_or("rbd"),
                r.image
            ));
        }
    }
    if !keys.is_empty() {
        for node in objs.nodes_listing(&keys) {
            if let Some(n) = node.metadata.name.clone() {
                if !node_names.contains(&n) {
                    node_names.push(n);
                }
            }
        }
    }
    for n in &node_names {
        if let Some(node) = objs.node(n) {
            if !case
                .nodes
                .iter()
                .any(|x| x.metadata.name.as_deref() == Some(n))
            {
                case.nodes.push(node);
            }
        }
    }
    if let Some(cn) = node_name.as_ref().and_then(|n| objs.csinode(n)) {
        case.csi_nodes.push(cn);
    }
    let pv_names: BTreeSet<&str> = case
        .pvs
        .iter()
        .filter_map(|p| p.metadata.name.as_deref())
        .collect();
    case.volume_attachments = objs.attachments_of(&pv_names);
    case.pod = Some(pod);
    case
}
