//! `doctor pod`: one pod's case, read in waves whose number does not grow with the number of
//! volumes: (1) the pod; (2) everything that only needs the pod, at once; (3) the PVs and the
//! other pods' nodes, which need the claims and pods of wave 2; then the node plugins' and the
//! kubelet's log lines (evidence.rs).

use std::collections::BTreeSet;

use futures::future::join_all;
use k8s_openapi::api::core::v1::{
    ConfigMap, Event as CoreEvent, Node, PersistentVolume, PersistentVolumeClaim, Pod, Secret,
};
use k8s_openapi::api::storage::v1::{CSIDriver, CSINode, StorageClass, VolumeAttachment};
use kube::api::ListParams;
use kube::Api;
use serde::de::DeserializeOwned;

use super::client::Cluster;
use super::errors::Access;
use super::nodes::{lists_volumes, not_ready_or_out_of_service, slim_node};
use super::reads::Fetch;
use super::refs::{event_from_core, PodRefs};
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

    /// Waves 2 and 3 for one pod, as chains that run side by side: (A) the claims, then
    /// their PVs, beside the VolumeAttachments; (B) everything else that needs only the pod;
    /// (C) the evidence around it (evidence.rs); (D) the pods of its node, from the watch
    /// cache: the daemon pods there, and users of its claims. Then the other users of its
    /// claims where else they can be (`claim_users`), and last the reads through the node's
    /// kubelet, bounded. A long read in one chain never delays another's next step, and no
    /// read here reads every object of a kind from etcd: what could (the pods of a node, every
    /// VolumeAttachment, DaemonSet or node) is answered by the API server's watch cache.
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
        // A node plugin matters only for a CSI volume: a claim (its PV may be one), an inline
        // csi or ephemeral volume, or an in-tree one migrated to CSI.
        let csi = !refs.claims.is_empty() || may_use_csi(&pod);

        let chain_a = self.claims_chain(&ns, &refs.claims);
        let chain_b = self.pod_chain(&ns, &name, &refs, &pod, list_nodes);
        let chain_c = self.evidence_around(&pod, csi);
        let chain_d = async {
            let mut unavailable = Vec::new();
            let got = match &node_name {
                Some(n) if csi => {
                    let claims = &refs.claims;
                    self.pods_on_node(
                        n,
                        |p| {
                            p.metadata.name.as_deref() != Some(name.as_str())
                                && (super::evidence::owned_by_daemonset(p)
                                    || (p.metadata.namespace.as_deref() == Some(ns.as_str())
                                        && uses_any(p, claims)))
                        },
                        &mut unavailable,
                    )
                    .await
                }
                _ => None,
            };
            (got, unavailable)
        };
        let (a, b, mut around, (node_pods, un_node)) =
            futures::join!(chain_a, chain_b, chain_c, chain_d);
        // Failures are raised in the order the case is filled: chain A's, chain B's, then each
        // PV's, ConfigMap's and Secret's as the case takes them.
        let a = a?;
        let b = b?;
        case.events = b.events;
        case.events.extend(a.claim_events);
        put_claims(case, &ns, a.pvcs, a.pvs)?;
        let pv_names: BTreeSet<String> = case
            .pvs
            .iter()
            .filter_map(|p| p.metadata.name.clone())
            .collect();
        case.volume_attachments = a
            .attachments
            .ok()
            .unwrap_or_default()
            .into_iter()
            .filter(|va| {
                va.spec
                    .source
                    .persistent_volume_name
                    .as_ref()
                    .is_some_and(|p| pv_names.contains(p))
            })
            .collect();
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
        case.nodes.extend(b.nodes.ok().unwrap_or_default());
        for u in un_node {
            case.note_unavailable(u);
        }
        // The claims' users on the pod's node, then wherever else they can be.
        let mut others: Vec<Pod> = node_pods
            .iter()
            .flatten()
            .filter(|p| uses_any(p, &refs.claims))
            .cloned()
            .collect();
        let (more, searched, un_holders) = self
            .claim_users(case, &pod, &refs.claims, b.workload_pods, b.unscheduled)
            .await?;
        for u in un_holders {
            case.note_unavailable(u);
        }
        for p in more {
            if !others
                .iter()
                .any(|o| o.metadata.uid.is_some() && o.metadata.uid == p.metadata.uid)
            {
                others.push(p);
            }
        }
        if !refs.claims.is_empty() {
            case.inputs.push(format!(
                "live: {} other pod(s) using the pod's claims, looked for {}",
                others.len(),
                searched
            ));
        }
        // The nodes of those users, when the nodes were not all listed.
        let mut other_nodes: Vec<String> = others
            .iter()
            .filter_map(|p| p.spec.as_ref()?.node_name.clone())
            .filter(|n| Some(n) != node_name.as_ref() && !list_nodes)
            .collect();
        other_nodes.sort();
        other_nodes.dedup();
        let got = join_all(other_nodes.iter().map(|n| {
            let api = Api::<Node>::all(self.client.clone());
            async move { self.get(api, n, Access::cluster("nodes")).await }
        }))
        .await;
        let mut fetched = Vec::new();
        for f in got {
            if let Fetch::Got(n) = f? {
                fetched.push(n);
            }
        }
        put_nodes(case, fetched);
        case.other_pods = others;
        case.pod = Some(pod);
        around.node_pods = node_pods;
        // Last wave: the node plugins' and the kubelet's lines about the pod's volumes.
        self.evidence_logs(case, around).await;
        Ok(())
    }

    /// Other users of the claims besides those on the pod's node, where they can be without
    /// reading every pod of the namespace (50,000 of them took 5 s from etcd, 0.6 s even from
    /// the watch cache, for one claim): the pods of the pod's own workload (its labels without
    /// the per-revision ones: a Deployment's old ReplicaSet keeps the claim on the old node),
    /// the namespace's unscheduled pods, and the pods of every other node that holds one of the
    /// claims' volumes (a VolumeAttachment to it, or its status listing the volume): a claim
    /// that blocks this pod is held by one of those. Each read from the watch cache; the first
    /// two were started with the rest (`pod_chain`). Returns the users and where they were
    /// looked for, for the report's inputs.
    async fn claim_users(
        &self,
        case: &Case,
        pod: &Pod,
        claims: &BTreeSet<String>,
        workload: Option<(String, Vec<Pod>)>,
        unscheduled: Vec<Pod>,
    ) -> Result<(Vec<Pod>, String, Vec<String>)> {
        let mut where_ = Vec::new();
        if claims.is_empty() {
            return Ok((Vec::new(), String::new(), Vec::new()));
        }
        let here = pod.spec.as_ref().and_then(|s| s.node_name.clone());
        if let Some(n) = &here {
            where_.push(format!("on its node {n}"));
        }
        let mut out: Vec<Pod> = Vec::new();
        if let Some((sel, pods)) = workload {
            where_.push(format!("among the pods labelled {sel}"));
            out.extend(pods);
        }
        where_.push("among the unscheduled pods".to_string());
        out.extend(unscheduled);
        // Every node other than the pod's that holds one of its claims' volumes.
        let mut holders: BTreeSet<String> = case
            .volume_attachments
            .iter()
            .map(|va| va.spec.node_name.clone())
            .collect();
        let mut keys: BTreeSet<String> = BTreeSet::new();
        for pv in &case.pvs {
            keys.extend(pv.metadata.name.clone());
            if let Some(c) = pv.spec.as_ref().and_then(|s| s.csi.as_ref()) {
                keys.insert(c.volume_handle.clone());
            }
        }
        holders.extend(
            super::nodes::nodes_listing(case.nodes.iter(), &keys)
                .into_iter()
                .filter_map(|n| n.metadata.name),
        );
        if let Some(n) = &here {
            holders.remove(n);
        }
        if !holders.is_empty() {
            where_.push(format!(
                "on the node(s) holding its volumes ({})",
                holders.iter().cloned().collect::<Vec<_>>().join(", ")
            ));
        }
        let ns = pod.metadata.namespace.clone().unwrap_or_default();
        let me = pod.metadata.name.clone().unwrap_or_default();
        let mut unavailable = Vec::new();
        let lists = join_all(holders.iter().map(|n| {
            let (ns, me) = (&ns, &me);
            let mut un = Vec::new();
            async move {
                let got = self
                    .pods_on_node(
                        n,
                        |p| {
                            p.metadata.name.as_deref() != Some(me.as_str())
                                && p.metadata.namespace.as_deref() == Some(ns.as_str())
                                && uses_any(p, claims)
                        },
                        &mut un,
                    )
                    .await;
                (got, un)
            }
        }))
        .await;
        for (got, un) in lists {
            out.extend(got.into_iter().flatten());
            unavailable.extend(un);
        }
        out.sort_by(|a, b| a.metadata.name.cmp(&b.metadata.name));
        out.dedup_by(|a, b| a.metadata.uid.is_some() && a.metadata.uid == b.metadata.uid);
        Ok((out, where_.join(", "), unavailable))
    }

    /// Chain A: the claims, then at once the PVs bound to them; beside them, the
    /// VolumeAttachments from the watch cache (kept for the PVs once they are known). A claim
    /// that could not be read ends the chain before its PVs.
    async fn claims_chain(&self, ns: &str, claims: &BTreeSet<String>) -> Result<ClaimReads> {
        let c = self.client.clone();
        let vas = async {
            if claims.is_empty() {
                return Ok(Fetch::Got(Vec::new()));
            }
            self.list_any(
                Api::<VolumeAttachment>::all(c.clone()),
                ListParams::default(),
                Access::group_cluster("volumeattachments", "storage.k8s.io"),
                |va: &VolumeAttachment| va.spec.source.persistent_volume_name.is_some(),
            )
            .await
        };
        let claims_then_pvs = async {
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
            }))
            .await;
            Ok::<_, Error>((got, pvs))
        };
        let (got, vas) = futures::join!(claims_then_pvs, vas);
        let (pvcs, pvs) = got?;
        // A claim that is not Bound says why in its own Warning events (ProvisioningFailed,
        // FailedBinding from the PV controller): read for those claims only.
        let unbound: Vec<(String, Option<String>)> = pvcs
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
        )
        .await;
        let mut events = Vec::new();
        for e in claim_events {
            if let Fetch::Got(v) = e? {
                events.extend(v);
            }
        }
        Ok(ClaimReads {
            pvcs,
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
        self.core_events(ns, lp).await
    }

    /// Chain B: everything else that needs only the pod, side by side, one read per object
    /// kind, with the first places other users of its claims are looked for (its workload's
    /// pods, the unscheduled ones).
    async fn pod_chain(
        &self,
        ns: &str,
        name: &str,
        refs: &PodRefs,
        pod: &Pod,
        list_nodes: bool,
    ) -> Result<PodReads> {
        let node_name = pod.spec.as_ref().and_then(|s| s.node_name.as_deref());
        let users = |p: &Pod| p.metadata.name.as_deref() != Some(name) && uses_any(p, &refs.claims);
        let workload = async {
            let Some(sel) = workload_selector(pod).filter(|_| !refs.claims.is_empty()) else {
                return Ok(None);
            };
            let got = self
                .list_any(
                    Api::<Pod>::namespaced(self.client.clone(), ns),
                    ListParams::default().labels(&sel),
                    Access::ns("pods", ns),
                    users,
                )
                .await?;
            Ok::<_, Error>(got.ok().map(|v| (sel, v)))
        };
        let unscheduled = async {
            if refs.claims.is_empty() {
                return Ok(Vec::new());
            }
            Ok::<_, Error>(
                self.list_any(
                    Api::<Pod>::namespaced(self.client.clone(), ns),
                    ListParams::default().fields("spec.nodeName="),
                    Access::ns("pods", ns),
                    users,
                )
                .await?
                .ok()
                .unwrap_or_default(),
            )
        };
        let (events, node, csinode, configmaps, secrets, workload, unscheduled, drivers, classes) = futures::join!(
            self.pod_events(ns, name),
            self.pod_nodes(node_name, list_nodes),
            self.pod_csinode(node_name),
            self.existing::<ConfigMap>(&refs.configmaps, ns, Access::ns("configmaps", ns)),
            self.existing::<Secret>(&refs.secrets, ns, Access::ns("secrets", ns)),
            workload,
            unscheduled,
            self.list_all::<CSIDriver>("csidrivers"),
            self.list_all::<StorageClass>("storageclasses")
        );
        Ok(PodReads {
            events: events?,
            nodes: node?,
            csinode: csinode?,
            configmaps,
            secrets,
            workload_pods: workload?,
            unscheduled: unscheduled?,
            drivers: drivers?,
            classes: classes?,
        })
    }

    /// The pod's events. Both event APIs serve one store, and the API server keeps no cache of
    /// it (events are left out of the watch cache by default), so a list filtered by
    /// `involvedObject.name` reads and decodes every event of the namespace from etcd: 0.2 to
    /// 0.5 s with 20,000 of them on a real v1.36 server, more than `kubectl describe` takes in
    /// all, and it grows with the namespace. Every Kubernetes component names an event after the
    /// object it is about (client-go's recorders: `NAME.<hex time>`), and the store is kept in
    /// name order, so the pod's events are read where they are: a list that starts at the key
    /// `NAME.` (`events_from`), a page at a time, until the names leave that prefix; O(the pod's
    /// events). Where the server will not start a list there, the filtered list is read as
    /// before. Only core/v1 is read: events.k8s.io/v1 serves the same objects.
    async fn pod_events(&self, ns: &str, name: &str) -> Result<Vec<Event>> {
        let core = match self.events_from(ns, name).await? {
            Some(f) => f,
            None => self.pod_events_core(ns, name).await?,
        };
        Ok(core.ok().unwrap_or_default())
    }

    /// The events named `NAME.*` of the namespace, kept when about the pod: a list started at
    /// that key (a continue token saying "from key NAME., at the latest version", the form
    /// k8s.io/apiserver's storage.EncodeContinue gives, version meta.k8s.io/v1, resourceVersion
    /// -1), pages of 20, then 100, then 500, stopping at the first name past the prefix. None
    /// when the server would not start there (it refused the token, or answered from before
    /// the prefix): the caller reads the filtered list instead.
    async fn events_from(&self, ns: &str, name: &str) -> Result<Option<Fetch<Vec<Event>>>> {
        let prefix = format!("{name}.");
        let api = Api::<CoreEvent>::namespaced(self.client.clone(), ns);
        let access = Access::ns("events", ns);
        let mut token = start_key_token(&prefix);
        let mut out = Vec::new();
        for limit in [20u32, 100]
            .into_iter()
            .chain(std::iter::repeat(super::reads::PAGE))
        {
            let lp = ListParams::default().limit(limit).continue_token(&token);
            let action = format!("list events in {ns} from key {prefix}");
            let page = match self.timed(&action, api.list(&lp)).await? {
                Ok(p) => p,
                Err(kube::Error::Api(s)) if s.code == 403 => {
                    self.record_denied(access.describe("list"));
                    return Ok(Some(Fetch::Denied));
                }
                Err(kube::Error::Api(s)) if s.code == 404 => return Ok(Some(Fetch::Missing)),
                // 400 (a token it does not take), 410, 5xx: read the filtered list instead.
                Err(kube::Error::Api(_)) => return Ok(None),
                Err(e) => return Err(self.fail(&action, e)),
            };
            let mut past = false;
            for e in &page.items {
                let n = e.metadata.name.as_deref().unwrap_or("");
                if n < prefix.as_str() && out.is_empty() {
                    // Not started where asked.
                    return Ok(None);
                }
                if !n.starts_with(&prefix) {
                    past = true;
                    break;
                }
                let o = &e.involved_object;
                if o.name.as_deref() == Some(name)
                    && o.kind.as_deref() == Some("Pod")
                    && o.namespace.as_deref().is_none_or(|n| n == ns)
                {
                    out.push(event_from_core(e));
                }
            }
            match page.metadata.continue_.filter(|c| !c.is_empty()) {
                Some(next) if !past => token = next,
                _ => break,
            }
        }
        Ok(Some(Fetch::Got(out)))
    }

    /// The core/v1 events of a namespace that `lp` selects, in the model.
    async fn core_events(&self, ns: &str, lp: ListParams) -> Result<Fetch<Vec<Event>>> {
        self.list(
            Api::<CoreEvent>::namespaced(self.client.clone(), ns),
            lp,
            Access::ns("events", ns),
            |_| true,
        )
        .await
        .map(|f| f.map(|v| v.iter().map(event_from_core).collect::<Vec<_>>()))
    }

    /// The pod's core/v1 events, in the model: the list filtered by the server.
    async fn pod_events_core(&self, ns: &str, name: &str) -> Result<Fetch<Vec<Event>>> {
        let lp = ListParams::default().fields(&format!(
            "involvedObject.name={name},involvedObject.namespace={ns},involvedObject.kind=Pod"
        ));
        self.core_events(ns, lp).await
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
                    .list_any(
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
    events: Vec<Event>,
    /// The pod's node, or every node that lists a volume (`Cluster::pod_nodes`).
    nodes: Fetch<Vec<Node>>,
    csinode: Fetch<CSINode>,
    configmaps: Vec<(String, Result<Fetch<()>>)>,
    secrets: Vec<(String, Result<Fetch<()>>)>,
    /// The pods of the pod's workload that use its claims, and the label selector they were
    /// read with (None: no claims, or nothing to tell the workload by).
    workload_pods: Option<(String, Vec<Pod>)>,
    /// The namespace's unscheduled pods that use its claims.
    unscheduled: Vec<Pod>,
    drivers: Fetch<Vec<CSIDriver>>,
    classes: Fetch<Vec<StorageClass>>,
}

/// Whether a claim is Bound (its events then say nothing about the pod's volume any more).
pub(super) fn is_bound(pvc: &PersistentVolumeClaim) -> bool {
    pvc.status.as_ref().and_then(|s| s.phase.as_deref()) == Some("Bound")
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

/// The nodes of the claims' other users not already there.
fn put_nodes(case: &mut Case, other_nodes: Vec<Node>) {
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

/// Whether a pod uses one of these claims (of its own namespace; the caller checks that).
fn uses_any(p: &Pod, claims: &BTreeSet<String>) -> bool {
    !claims.is_empty() && !PodRefs::of(p).claims.is_disjoint(claims)
}

/// Whether a pod's volumes may be served by a CSI driver without a claim: an inline csi
/// volume, or an in-tree one that CSI migration hands to a driver.
fn may_use_csi(pod: &Pod) -> bool {
    let case = Case {
        pod: Some(pod.clone()),
        ..Case::default()
    };
    !crate::model::cluster::pod_csi_drivers(&case).is_empty()
}

/// Labels every instance and revision of a workload gets for itself, not shared with the
/// workload's other pods.
const PER_POD_LABELS: &[&str] = &[
    "pod-template-hash",
    "controller-revision-hash",
    "pod-template-generation",
    "statefulset.kubernetes.io/pod-name",
    "apps.kubernetes.io/pod-index",
    "batch.kubernetes.io/job-completion-index",
    "batch.kubernetes.io/controller-uid",
    "controller-uid",
];

/// A label selector for the pods of a pod's workload: its own labels without the per-pod and
/// per-revision ones (a Deployment's pods of every ReplicaSet, a StatefulSet's of every
/// revision). None for a pod that no controller owns or that keeps no other label.
fn workload_selector(pod: &Pod) -> Option<String> {
    let owned = pod
        .metadata
        .owner_references
        .iter()
        .flatten()
        .any(|r| r.controller == Some(true));
    if !owned {
        return None;
    }
    let terms: Vec<String> = pod
        .metadata
        .labels
        .iter()
        .flatten()
        .filter(|(k, _)| !PER_POD_LABELS.contains(&k.as_str()))
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    (!terms.is_empty()).then(|| terms.join(","))
}

/// A continue token that starts a list at `key` (relative to the list's own prefix, as the API
/// server's storage.EncodeContinue writes it: base64url without padding of
/// `{"v":"meta.k8s.io/v1","rv":-1,"start":KEY}`; resourceVersion -1 reads the latest data).
fn start_key_token(key: &str) -> String {
    let json = serde_json::json!({ "v": "meta.k8s.io/v1", "rv": -1, "start": key }).to_string();
    base64url(json.as_bytes())
}

/// RFC 4648 base64url, without padding.
fn base64url(data: &[u8]) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let mut out = String::with_capacity(data.len().div_ceil(3) * 4);
    for chunk in data.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..=chunk.len() {
            out.push(A[((n >> (18 - 6 * i)) & 63) as usize] as char);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_start_key_token_is_the_api_servers_own_form() {
        assert_eq!(base64url(b"f"), "Zg");
        assert_eq!(base64url(b"fo"), "Zm8");
        assert_eq!(base64url(b"foo"), "Zm9v");
        assert_eq!(base64url(&[0xfb, 0xff]), "-_8");
        // {"rv":-1,"start":"web-0.","v":"meta.k8s.io/v1"}: EncodeContinue's fields (its
        // order is v, rv, start; the server decodes JSON, not bytes).
        assert_eq!(
            start_key_token("web-0."),
            "eyJydiI6LTEsInN0YXJ0Ijoid2ViLTAuIiwidiI6Im1ldGEuazhzLmlvL3YxIn0"
        );
    }
}
