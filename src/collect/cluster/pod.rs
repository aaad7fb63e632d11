//! `doctor pod`: one pod's case, read in waves whose number does not grow with the number of
//! volumes: (1) the pod; (2) everything that only needs the pod, at once; (3) the PVs and the
//! other pods' nodes, which need the claims and pods of wave 2; then the node plugins' and the
//! kubelet's log lines (evidence.rs).

use std::collections::BTreeSet;

use futures::future::join_all;
use k8s_openapi::api::core::v1::{
    ConfigMap, Event as CoreEvent, Node, PersistentVolume, PersistentVolumeClaim, Pod, Secret,
};
use k8s_openapi::api::events::v1::Event as EventsV1;
use k8s_openapi::api::storage::v1::{CSIDriver, CSINode, StorageClass, VolumeAttachment};
use kube::api::ListParams;
use kube::Api;
use serde::de::DeserializeOwned;

use super::client::Cluster;
use super::errors::Access;
use super::nodes::{lists_volumes, not_ready_or_out_of_service, slim_node};
use super::reads::Fetch;
use super::refs::{event_from_core, event_from_v1, PodRefs};
use crate::error::{Error, Result};
use crate::model::{Case, Event, ObjectRef};

impl Cluster {
    /// Collect everything `doctor pod` needs about one pod.
    pub async fn collect_pod(&self, namespace: &str, name: &str) -> Result<Case> {
        let c = self.client.clone();
        // Wave 1: the pod.
        let pod = match self
            .get(
                Api::<Pod>::namespaced(c.clone(), namespace),
                name,
                Access::ns("pods", namespace),
            )
            .await?
        {
            Fetch::Got(p) => p,
            Fetch::Missing => return Err(self.pod_not_found(namespace, name).await),
            Fetch::Denied => {
                return Err(Error::Unreachable(format!(
                    "not allowed to read pod {namespace}/{name} (needs get on pods in namespace {namespace}); \
                     the ClusterRole volmnt-reader in deploy/rbac.yaml grants it"
                )))
            }
        };
        let mut case = Case {
            pod_name: Some(name.to_string()),
            namespace: Some(namespace.to_string()),
            ..Case::default()
        };
        self.fill_from_pod(&mut case, pod).await?;
        case.denied = self.denied();
        case.inputs.push(format!(
            "live: {} ({} requests)",
            self.target,
            self.request_count()
        ));
        Ok(case)
    }

    /// Waves 2 and 3 for one pod, as two chains that run side by side: (A) the claims, then
    /// their PVs and those PVs' VolumeAttachments; (B) everything else that needs only the pod,
    /// then the nodes of other pods on the claims. A long paginated list in one chain never
    /// delays the other's next step.
    pub async fn fill_from_pod(&self, case: &mut Case, pod: Pod) -> Result<()> {
        let ns = pod
            .metadata
            .namespace
            .clone()
            .unwrap_or_else(|| self.namespace.clone());
        let name = pod.metadata.name.clone().unwrap_or_default();
        let refs = PodRefs::of(&pod);
        let node_name = pod.spec.as_ref().and_then(|s| s.node_name.clone());
        let list_nodes = !refs.claims.is_empty() && !crate::model::is_live(&pod);

        let chain_a = self.claims_chain(&ns, &refs.claims);
        let chain_b = self.pod_chain(&ns, &name, &refs, node_name.as_deref(), list_nodes);
        // (C) The evidence around the pod that needs only the pod (evidence.rs).
        let chain_c = self.evidence_around(&pod);

        let (a, b, around) = futures::join!(chain_a, chain_b, chain_c);
        // Failures are raised in the order the case is filled: chain A's, chain B's, then each
        // PV's, ConfigMap's and Secret's as the case takes them.
        let a = a?;
        let b = b?;
        case.events = merge_events(b.events_core, b.events_v1);
        case.events.extend(a.claim_events);
        put_claims(case, &ns, a.pvcs, a.pvs)?;
        case.volume_attachments = a.attachments.ok().unwrap_or_default();
        if let Some(cn) = b.csinode.ok() {
            case.csi_nodes.push(cn);
        }
        put_existing(
            &mut case.configmaps,
            &mut case.missing,
            &ns,
            "ConfigMap",
            b.configmaps,
        )?;
        put_existing(
            &mut case.secrets,
            &mut case.missing,
            &ns,
            "Secret",
            b.secrets,
        )?;
        case.csi_drivers = b.drivers.ok().unwrap_or_default();
        case.storage_classes = b.classes.ok().unwrap_or_default();
        let (others, other_nodes) = b.other_users;
        put_nodes(case, b.nodes, other_nodes);
        case.other_pods = others;
        case.pod = Some(pod);
        // Last wave: the node plugins' and the kubelet's lines about the pod's volumes.
        self.evidence_logs(case, around).await;
        Ok(())
    }

    /// Chain A: the claims, then at once the PVs bound to them and only those PVs'
    /// VolumeAttachments. A claim that could not be read ends the chain before its PVs.
    async fn claims_chain(&self, ns: &str, claims: &BTreeSet<String>) -> Result<ClaimReads> {
        let c = self.client.clone();
        let pvcs = join_all(claims.iter().map(|claim| {
            let api = Api::<PersistentVolumeClaim>::namespaced(c.clone(), ns);
            async move {
                let f = self
                    .get(api, claim, Access::ns("persistentvolumeclaims", ns))
                    .await;
                (claim.clone(), f)
            }
        }))
        .await;
        let mut got = Vec::new();
        for (claim, f) in pvcs {
            got.push((claim, f?));
        }
        let pv_names: BTreeSet<String> = got
            .iter()
            .filter_map(|(_, f)| match f {
                Fetch::Got(pvc) => pvc.spec.as_ref()?.volume_name.clone(),
                _ => None,
            })
            .collect();
        let pvs = join_all(pv_names.iter().map(|n| {
            let api = Api::<PersistentVolume>::all(c.clone());
            async move { self.get(api, n, Access::cluster("persistentvolumes")).await }
        }));
        // Only this pod's PVs' attachments are kept, page by page.
        let vas = self.attachments_of(pv_names.clone());
        // A claim that is not Bound says why in its own Warning events (ProvisioningFailed,
        // FailedBinding from the PV controller): read for those claims only, beside the PVs.
        let unbound: Vec<(String, Option<String>)> = got
            .iter()
            .filter_map(|(claim, f)| match f {
                Fetch::Got(pvc) if !is_bound(pvc) => {
                    Some((claim.clone(), pvc.metadata.uid.clone()))
                }
                _ => None,
            })
            .collect();
        let claim_events = join_all(
            unbound
                .iter()
                .map(|(claim, uid)| self.claim_warnings(ns, claim, uid.as_deref())),
        );
        let (pvs, vas, claim_events) = futures::join!(pvs, vas, claim_events);
        let mut events = Vec::new();
        for e in claim_events {
            if let Fetch::Got(v) = e? {
                events.extend(v);
            }
        }
        Ok(ClaimReads {
            pvcs: got,
            pvs,
            attachments: vas?,
            claim_events: events,
        })
    }

    /// A claim's Warning events (core/v1: the PV controller records them there), in the model;
    /// by its uid too, so an earlier claim of the same name does not lend its events.
    async fn claim_warnings(
        &self,
        ns: &str,
        claim: &str,
        uid: Option<&str>,
    ) -> Result<Fetch<Vec<Event>>> {
        let by_uid = uid
            .map(|u| format!(",involvedObject.uid={u}"))
            .unwrap_or_default();
        let lp = ListParams::default().fields(&format!(
            "involvedObject.kind=PersistentVolumeClaim,involvedObject.name={claim},type=Warning{by_uid}"
        ));
        self.list(
            Api::<CoreEvent>::namespaced(self.client.clone(), ns),
            lp,
            Access::ns("events", ns),
            |_| true,
        )
        .await
        .map(|f| f.map(|v| v.iter().map(event_from_core).collect::<Vec<_>>()))
    }

    /// Chain B: everything else that needs only the pod, side by side, one read per object
    /// kind; the other users of its claims are followed by the nodes they run on.
    async fn pod_chain(
        &self,
        ns: &str,
        name: &str,
        refs: &PodRefs,
        node_name: Option<&str>,
        list_nodes: bool,
    ) -> Result<PodReads> {
        let (ev_core, ev_new, node, csinode, configmaps, secrets, others, drivers, classes) = futures::join!(
            self.pod_events_core(ns, name),
            self.pod_events_v1(ns, name),
            self.pod_nodes(node_name, list_nodes),
            self.pod_csinode(node_name),
            self.existing::<ConfigMap>(&refs.configmaps, ns, Access::ns("configmaps", ns)),
            self.existing::<Secret>(&refs.secrets, ns, Access::ns("secrets", ns)),
            self.other_users(ns, name, &refs.claims, node_name, list_nodes),
            self.list_all::<CSIDriver>("csidrivers"),
            self.list_all::<StorageClass>("storageclasses")
        );
        Ok(PodReads {
            events_core: ev_core?,
            events_v1: ev_new?,
            nodes: node?,
            csinode: csinode?,
            configmaps,
            secrets,
            other_users: others?,
            drivers: drivers?,
            classes: classes?,
        })
    }

    /// The pod's core/v1 events, in the model.
    async fn pod_events_core(&self, ns: &str, name: &str) -> Result<Fetch<Vec<Event>>> {
        let lp = ListParams::default().fields(&format!(
            "involvedObject.name={name},involvedObject.namespace={ns},involvedObject.kind=Pod"
        ));
        self.list(
            Api::<CoreEvent>::namespaced(self.client.clone(), ns),
            lp,
            Access::ns("events", ns),
            |_| true,
        )
        .await
        .map(|f| f.map(|v| v.iter().map(event_from_core).collect::<Vec<_>>()))
    }

    /// The pod's events.k8s.io/v1 events, in the model.
    async fn pod_events_v1(&self, ns: &str, name: &str) -> Result<Fetch<Vec<Event>>> {
        let lp = ListParams::default().fields(&format!(
            "regarding.name={name},regarding.namespace={ns},regarding.kind=Pod"
        ));
        // Absent on clusters without events.k8s.io/v1 (404): that is fine.
        self.list(
            Api::<EventsV1>::namespaced(self.client.clone(), ns),
            lp,
            Access::group_ns("events", "events.k8s.io", ns),
            |_| true,
        )
        .await
        .map(|f| f.map(|v| v.iter().map(event_from_v1).collect::<Vec<_>>()))
    }

    /// With claims, every node that still lists a volume in its status (volumesInUse,
    /// volumesAttached) may be the one holding this pod's: one paginated list, the pod's node
    /// kept whole, the others cut to what the rules read. Without claims, the one node is
    /// enough.
    async fn pod_nodes(
        &self,
        node_name: Option<&str>,
        list_nodes: bool,
    ) -> Result<Fetch<Vec<Node>>> {
        let c = self.client.clone();
        match node_name {
            Some(n) if list_nodes => {
                let got = self
                    .list(
                        Api::<Node>::all(c.clone()),
                        ListParams::default(),
                        Access::cluster("nodes"),
                        |node| {
                            node.metadata.name.as_deref() == Some(n)
                                || lists_volumes(node)
                                || not_ready_or_out_of_service(node)
                        },
                    )
                    .await?;
                Ok(got.map(|v| {
                    v.into_iter()
                        .map(|node| {
                            if node.metadata.name.as_deref() == Some(n) {
                                node
                            } else {
                                slim_node(node)
                            }
                        })
                        .collect()
                }))
            }
            Some(n) => Ok(self
                .get(Api::<Node>::all(c.clone()), n, Access::cluster("nodes"))
                .await?
                .map(|node| vec![node])),
            None => Ok(Fetch::Missing),
        }
    }

    /// The CSINode of the pod's node: which CSI drivers registered there.
    async fn pod_csinode(&self, node_name: Option<&str>) -> Result<Fetch<CSINode>> {
        match node_name {
            Some(n) => {
                self.get(
                    Api::<CSINode>::all(self.client.clone()),
                    n,
                    Access::group_cluster("csinodes", "storage.k8s.io"),
                )
                .await
            }
            None => Ok(Fetch::Missing),
        }
    }

    /// Whether each of these ConfigMaps or Secrets exists, read as metadata only (a Secret's
    /// data is never read); each answer is kept with its name.
    async fn existing<K>(
        &self,
        names: &[String],
        ns: &str,
        access: Access<'_>,
    ) -> Vec<(String, Result<Fetch<()>>)>
    where
        K: kube::Resource<Scope = k8s_openapi::NamespaceResourceScope>
            + Clone
            + DeserializeOwned
            + std::fmt::Debug,
        <K as kube::Resource>::DynamicType: Default,
    {
        join_all(names.iter().map(|n| {
            let api = Api::<K>::namespaced(self.client.clone(), ns);
            async move { (n.clone(), self.exists(api, n, access).await) }
        }))
        .await
    }

    /// Other users of the claims, and then (same chain) the nodes they run on.
    async fn other_users(
        &self,
        ns: &str,
        name: &str,
        claims: &BTreeSet<String>,
        node_name: Option<&str>,
        list_nodes: bool,
    ) -> Result<(Vec<Pod>, Vec<Node>)> {
        if claims.is_empty() {
            return Ok((Vec::new(), Vec::new()));
        }
        let c = self.client.clone();
        let others = self
            .list(
                Api::<Pod>::namespaced(c.clone(), ns),
                ListParams::default(),
                Access::ns("pods", ns),
                |p| {
                    p.metadata.name.as_deref() != Some(name)
                        && !PodRefs::of(p).claims.is_disjoint(claims)
                },
            )
            .await?
            .ok()
            .unwrap_or_default();
        // Listed with the rest when every node was listed.
        let mut other_nodes: Vec<String> = others
            .iter()
            .filter_map(|p| p.spec.as_ref()?.node_name.clone())
            .filter(|n| Some(n.as_str()) != node_name && !list_nodes)
            .collect();
        other_nodes.sort();
        other_nodes.dedup();
        let nodes = join_all(other_nodes.iter().map(|n| {
            let api = Api::<Node>::all(c.clone());
            async move { self.get(api, n, Access::cluster("nodes")).await }
        }))
        .await;
        let mut got = Vec::new();
        for f in nodes {
            if let Fetch::Got(n) = f? {
                got.push(n);
            }
        }
        Ok((others, got))
    }
}

/// Chain A's answers. A PV's failed read is kept and raised when the case takes the PVs.
struct ClaimReads {
    /// Each claim with its read.
    pvcs: Vec<(String, Fetch<PersistentVolumeClaim>)>,
    pvs: Vec<Result<Fetch<PersistentVolume>>>,
    attachments: Fetch<Vec<VolumeAttachment>>,
    /// The Warning events of the claims that are not Bound.
    claim_events: Vec<Event>,
}

/// Chain B's answers. A ConfigMap's or Secret's failed check is kept and raised when the case
/// takes them.
struct PodReads {
    events_core: Fetch<Vec<Event>>,
    events_v1: Fetch<Vec<Event>>,
    /// The pod's node, or every node that lists a volume (`Cluster::pod_nodes`).
    nodes: Fetch<Vec<Node>>,
    csinode: Fetch<CSINode>,
    configmaps: Vec<(String, Result<Fetch<()>>)>,
    secrets: Vec<(String, Result<Fetch<()>>)>,
    /// The other pods on the claims, and the nodes they run on.
    other_users: (Vec<Pod>, Vec<Node>),
    drivers: Fetch<Vec<CSIDriver>>,
    classes: Fetch<Vec<StorageClass>>,
}

/// Whether a claim is Bound (its events then say nothing about the pod's volume any more).
pub(super) fn is_bound(pvc: &PersistentVolumeClaim) -> bool {
    pvc.status.as_ref().and_then(|s| s.phase.as_deref()) == Some("Bound")
}

/// The pod's events from both APIs, as one list.
fn merge_events(core: Fetch<Vec<Event>>, v1: Fetch<Vec<Event>>) -> Vec<Event> {
    let mut events: Vec<Event> = Vec::new();
    if let Fetch::Got(v) = core {
        events.extend(v);
    }
    if let Fetch::Got(v) = v1 {
        // The two APIs serve one store; keep one copy of each event.
        for e in v {
            if !events
                .iter()
                .any(|x| x.reason == e.reason && x.message == e.message)
            {
                events.push(e);
            }
        }
    }
    events
}

/// An object the pod names that the API says is not there.
fn missing(kind: &str, ns: &str, name: String) -> ObjectRef {
    ObjectRef {
        kind: Some(kind.into()),
        namespace: Some(ns.to_string()),
        name: Some(name),
        uid: None,
    }
}

/// The claims that were read (one not found is named as missing; a refused one says
/// nothing), then the PVs bound to them.
fn put_claims(
    case: &mut Case,
    ns: &str,
    pvcs: Vec<(String, Fetch<PersistentVolumeClaim>)>,
    pvs: Vec<Result<Fetch<PersistentVolume>>>,
) -> Result<()> {
    for (claim, f) in pvcs {
        match f {
            Fetch::Got(pvc) => case.pvcs.push(pvc),
            Fetch::Missing => case
                .missing
                .push(missing("PersistentVolumeClaim", ns, claim)),
            Fetch::Denied => {}
        }
    }
    for f in pvs {
        if let Fetch::Got(pv) = f? {
            case.pvs.push(pv);
        }
    }
    Ok(())
}

/// ConfigMaps or Secrets (`kind`) that exist go to `present`, those not found to `absent`; a
/// refused check says neither.
fn put_existing(
    present: &mut Vec<String>,
    absent: &mut Vec<ObjectRef>,
    ns: &str,
    kind: &str,
    checks: Vec<(String, Result<Fetch<()>>)>,
) -> Result<()> {
    for (name, f) in checks {
        match f? {
            Fetch::Got(()) => present.push(name),
            Fetch::Missing => absent.push(missing(kind, ns, name)),
            Fetch::Denied => {}
        }
    }
    Ok(())
}

/// The nodes read with the pod, then those of the claims' other users not already there.
fn put_nodes(case: &mut Case, nodes: Fetch<Vec<Node>>, other_nodes: Vec<Node>) {
    case.nodes.extend(nodes.ok().unwrap_or_default());
    for n in other_nodes {
        if !case
            .nodes
            .iter()
            .any(|x| x.metadata.name == n.metadata.name)
        {
            case.nodes.push(n);
        }
    }
}
