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
use k8s_openapi::api::storage::v1::{CSIDriver, CSINode, StorageClass};
use kube::api::ListParams;
use kube::Api;

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
        let c = self.client.clone();
        let ns = pod
            .metadata
            .namespace
            .clone()
            .unwrap_or_else(|| self.namespace.clone());
        let name = pod.metadata.name.clone().unwrap_or_default();
        let refs = PodRefs::of(&pod);
        let node_name = pod.spec.as_ref().and_then(|s| s.node_name.clone());
        let list_nodes = !refs.claims.is_empty() && !crate::model::is_live(&pod);

        let chain_a = async {
            let pvcs = join_all(refs.claims.iter().map(|claim| {
                let api = Api::<PersistentVolumeClaim>::namespaced(c.clone(), &ns);
                let ns = ns.clone();
                async move {
                    let f = self
                        .get(api, claim, Access::ns("persistentvolumeclaims", &ns))
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
            let (pvs, vas) = futures::join!(pvs, vas);
            Ok::<_, Error>((got, pvs, vas?))
        };

        let chain_b = async {
            let events_core = async {
                let lp = ListParams::default().fields(&format!(
                    "involvedObject.name={name},involvedObject.namespace={ns},involvedObject.kind=Pod"
                ));
                self.list(
                    Api::<CoreEvent>::namespaced(c.clone(), &ns),
                    lp,
                    Access::ns("events", &ns),
                    |_| true,
                )
                .await
                .map(|f| match f {
                    Fetch::Got(v) => Fetch::Got(v.iter().map(event_from_core).collect::<Vec<_>>()),
                    Fetch::Missing => Fetch::Missing,
                    Fetch::Denied => Fetch::Denied,
                })
            };
            let events_new = async {
                let lp = ListParams::default().fields(&format!(
                    "regarding.name={name},regarding.namespace={ns},regarding.kind=Pod"
                ));
                // Absent on clusters without events.k8s.io/v1 (404): that is fine.
                self.list(
                    Api::<EventsV1>::namespaced(c.clone(), &ns),
                    lp,
                    Access::group_ns("events", "events.k8s.io", &ns),
                    |_| true,
                )
                .await
                .map(|f| match f {
                    Fetch::Got(v) => Fetch::Got(v.iter().map(event_from_v1).collect::<Vec<_>>()),
                    Fetch::Missing => Fetch::Missing,
                    Fetch::Denied => Fetch::Denied,
                })
            };
            // With claims, every node that still lists a volume in its status (volumesInUse,
            // volumesAttached) may be the one holding this pod's: one paginated list, the pod's
            // node kept whole, the others cut to what the rules read. Without claims, the one
            // node is enough.
            let node = async {
                match &node_name {
                    Some(n) if list_nodes => {
                        let here = n.clone();
                        let got = self
                            .list(
                                Api::<Node>::all(c.clone()),
                                ListParams::default(),
                                Access::cluster("nodes"),
                                |node| {
                                    node.metadata.name.as_deref() == Some(here.as_str())
                                        || lists_volumes(node)
                                        || not_ready_or_out_of_service(node)
                                },
                            )
                            .await?;
                        Ok(match got {
                            Fetch::Got(v) => Fetch::Got(
                                v.into_iter()
                                    .map(|node| {
                                        if node.metadata.name.as_deref() == Some(n.as_str()) {
                                            node
                                        } else {
                                            slim_node(node)
                                        }
                                    })
                                    .collect(),
                            ),
                            Fetch::Missing => Fetch::Missing,
                            Fetch::Denied => Fetch::Denied,
                        })
                    }
                    Some(n) => Ok(
                        match self
                            .get(Api::<Node>::all(c.clone()), n, Access::cluster("nodes"))
                            .await?
                        {
                            Fetch::Got(node) => Fetch::Got(vec![node]),
                            Fetch::Missing => Fetch::Missing,
                            Fetch::Denied => Fetch::Denied,
                        },
                    ),
                    None => Ok::<_, Error>(Fetch::Missing),
                }
            };
            let csinode = async {
                match &node_name {
                    Some(n) => {
                        self.get(
                            Api::<CSINode>::all(c.clone()),
                            n,
                            Access::group_cluster("csinodes", "storage.k8s.io"),
                        )
                        .await
                    }
                    None => Ok(Fetch::Missing),
                }
            };
            let configmaps = join_all(refs.configmaps.iter().map(|cm| {
                let api = Api::<ConfigMap>::namespaced(c.clone(), &ns);
                let ns = ns.clone();
                async move {
                    (
                        cm.clone(),
                        self.exists(api, cm, Access::ns("configmaps", &ns)).await,
                    )
                }
            }));
            let secrets = join_all(refs.secrets.iter().map(|s| {
                let api = Api::<Secret>::namespaced(c.clone(), &ns);
                let ns = ns.clone();
                async move {
                    (
                        s.clone(),
                        self.exists(api, s, Access::ns("secrets", &ns)).await,
                    )
                }
            }));
            let claim_set: BTreeSet<String> = refs.claims.iter().cloned().collect();
            // Other users of the claims, and then (same chain) the nodes they run on.
            let others_and_nodes = async {
                if refs.claims.is_empty() {
                    return Ok((Vec::new(), Vec::new()));
                }
                let me = name.clone();
                let others = self
                    .list(
                        Api::<Pod>::namespaced(c.clone(), &ns),
                        ListParams::default(),
                        Access::ns("pods", &ns),
                        move |p| {
                            p.metadata.name.as_deref() != Some(me.as_str())
                                && !PodRefs::of(p).claims.is_disjoint(&claim_set)
                        },
                    )
                    .await?
                    .ok()
                    .unwrap_or_default();
                // Listed with the rest when every node was listed.
                let mut other_nodes: Vec<String> = others
                    .iter()
                    .filter_map(|p| p.spec.as_ref()?.node_name.clone())
                    .filter(|n| Some(n) != node_name.as_ref() && !list_nodes)
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
                Ok::<_, Error>((others, got))
            };
            let drivers = self.list_all::<CSIDriver>("csidrivers");
            let classes = self.list_all::<StorageClass>("storageclasses");
            let (ev_core, ev_new, node, csinode, configmaps, secrets, others, drivers, classes) = futures::join!(
                events_core,
                events_new,
                node,
                csinode,
                configmaps,
                secrets,
                others_and_nodes,
                drivers,
                classes
            );
            Ok::<_, Error>((
                ev_core?, ev_new?, node?, csinode?, configmaps, secrets, others?, drivers?,
                classes?,
            ))
        };

        // (C) The evidence around the pod that needs only the pod (evidence.rs).
        let chain_c = self.evidence_around(&pod);

        let (a, b, around) = futures::join!(chain_a, chain_b, chain_c);
        let (pvcs, pvs, vas) = a?;
        let (
            ev_core,
            ev_new,
            node,
            csinode,
            configmaps,
            secrets,
            (others, other_nodes),
            drivers,
            classes,
        ) = b?;

        let mut events: Vec<Event> = Vec::new();
        if let Fetch::Got(v) = ev_core {
            events.extend(v);
        }
        if let Fetch::Got(v) = ev_new {
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
        case.events = events;
        let missing = |kind: &str, n: String| ObjectRef {
            kind: Some(kind.into()),
            namespace: Some(ns.clone()),
            name: Some(n),
            uid: None,
        };
        for (claim, f) in pvcs {
            match f {
                Fetch::Got(pvc) => case.pvcs.push(pvc),
                Fetch::Missing => case.missing.push(missing("PersistentVolumeClaim", claim)),
                Fetch::Denied => {}
            }
        }
        for f in pvs {
            if let Fetch::Got(pv) = f? {
                case.pvs.push(pv);
            }
        }
        case.volume_attachments = vas.ok().unwrap_or_default();
        if let Some(cn) = csinode.ok() {
            case.csi_nodes.push(cn);
        }
        for (cm, f) in configmaps {
            match f? {
                Fetch::Got(()) => case.configmaps.push(cm),
                Fetch::Missing => case.missing.push(missing("ConfigMap", cm)),
                Fetch::Denied => {}
            }
        }
        for (sec, f) in secrets {
            match f? {
                Fetch::Got(()) => case.secrets.push(sec),
                Fetch::Missing => case.missing.push(missing("Secret", sec)),
                Fetch::Denied => {}
            }
        }
        case.csi_drivers = drivers.ok().unwrap_or_default();
        case.storage_classes = classes.ok().unwrap_or_default();
        case.nodes.extend(node.ok().unwrap_or_default());
        for n in other_nodes {
            if !case
                .nodes
                .iter()
                .any(|x| x.metadata.name == n.metadata.name)
            {
                case.nodes.push(n);
            }
        }
        case.other_pods = others;
        case.pod = Some(pod);
        // Last wave: the node plugins' and the kubelet's lines about the pod's volumes.
        self.evidence_logs(case, around).await;
        Ok(())
    }
}
