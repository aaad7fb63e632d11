//! `doctor namespace`: every stuck pod of a namespace (or of all), each with its case, from
//! shared paginated lists read in two rounds (the pods and what does not depend on them; then
//! what the stuck pods name), so the number of requests grows with pages, not with pods.

use std::collections::BTreeSet;
use std::time::Duration;

use k8s_openapi::api::core::v1::{
    ConfigMap, Event as CoreEvent, Node, PersistentVolume, PersistentVolumeClaim, Pod, Secret,
};
use k8s_openapi::api::storage::v1::{CSIDriver, CSINode, StorageClass};
use kube::api::ListParams;
use kube::Api;

use super::assemble::Shared;
use super::client::Cluster;
use super::errors::Access;
use super::nodes::{lists_volumes, slim_node};
use super::reads::Fetch;
use super::refs::{event_from_core, ns_of, ns_of_meta, ClaimUser, PodRefs};
use super::stuck::is_stuck;
use crate::error::{Error, Result};
use crate::model::{Case, Event};

impl Cluster {
    /// Every stuck pod of a namespace (or of all, `None`), each with its case, from shared
    /// paginated lists: the number of requests grows with pages, not with pods.
    pub async fn collect_namespace(
        &self,
        namespace: Option<&str>,
        min_age: Duration,
        now_secs: i64,
    ) -> Result<Vec<Case>> {
        let c = self.client.clone();
        let scope = namespace.unwrap_or("(all namespaces)");
        let scope_ns = namespace.map(str::to_string);
        macro_rules! api_for {
            ($t:ty) => {
                match &scope_ns {
                    Some(ns) => Api::<$t>::namespaced(c.clone(), ns),
                    None => Api::<$t>::all(c.clone()),
                }
            };
        }
        let access_ns = |res: &'static str| match namespace {
            Some(ns) => Access {
                resource: res,
                group: "",
                namespace: Some(ns),
            },
            None => Access::cluster(res),
        };

        // Round 1, side by side: the pods (which are stuck, who uses claims), and every list
        // that does not depend on them. Events are filtered by the server to warnings.
        let mut stuck: Vec<Pod> = Vec::new();
        let mut claim_users: Vec<ClaimUser> = Vec::new();
        let pods_access = access_ns("pods");
        let pods_fut = self.list(api_for!(Pod), ListParams::default(), pods_access, |p| {
            if is_stuck(p, now_secs, min_age) {
                stuck.push(p.clone());
            } else if !PodRefs::of(p).claims.is_empty() {
                claim_users.push(ClaimUser::of(p));
            }
            false
        });
        let mut warnings: std::collections::HashMap<(String, String), Vec<Event>> =
            std::collections::HashMap::new();
        let events_fut = self.list(
            api_for!(CoreEvent),
            ListParams::default().fields("involvedObject.kind=Pod,type=Warning"),
            access_ns("events"),
            |e: &CoreEvent| {
                let key = (
                    e.involved_object.namespace.clone().unwrap_or_default(),
                    e.involved_object.name.clone().unwrap_or_default(),
                );
                warnings.entry(key).or_default().push(event_from_core(e));
                false
            },
        );
        let cm_fut = self.list_names::<ConfigMap>(api_for!(ConfigMap), access_ns("configmaps"));
        let sec_fut = self.list_names::<Secret>(api_for!(Secret), access_ns("secrets"));
        let drivers_fut = self.list_all::<CSIDriver>("csidrivers");
        let classes_fut = self.list_all::<StorageClass>("storageclasses");
        // A namespace that does not exist lists as empty: ask, so a typo is not "nothing stuck".
        let ns_fut = async {
            match namespace {
                Some(ns) => self.namespace_exists(ns).await,
                None => Some(true),
            }
        };
        let (ns_r, pods_r, ev_r, cms, secs, drivers, classes) = futures::join!(
            ns_fut,
            pods_fut,
            events_fut,
            cm_fut,
            sec_fut,
            drivers_fut,
            classes_fut
        );
        if let (Some(false), Some(ns)) = (ns_r, namespace) {
            return Err(self.namespace_missing(ns).await);
        }
        match pods_r? {
            Fetch::Got(_) => {}
            Fetch::Missing => {
                return Err(Error::Input {
                    context: format!("namespace {scope}"),
                    message: "not found".into(),
                })
            }
            Fetch::Denied => {
                return Err(Error::Unreachable(format!(
                    "not allowed to list pods in {scope} ({}); the ClusterRole volmnt-reader in deploy/rbac.yaml grants it",
                    pods_access.describe("list")
                )))
            }
        }
        ev_r?;
        if stuck.is_empty() {
            return Ok(Vec::new());
        }

        // Round 2: what the stuck pods name, each list filtered page by page.
        let wanted_pods: BTreeSet<(String, String)> = stuck
            .iter()
            .map(|p| (ns_of(p), p.metadata.name.clone().unwrap_or_default()))
            .collect();
        warnings.retain(|k, _| wanted_pods.contains(k));
        let mut wanted_claims: BTreeSet<(String, String)> = BTreeSet::new();
        let mut wanted_nodes: BTreeSet<String> = BTreeSet::new();
        for p in stuck.iter() {
            for cl in PodRefs::of(p).claims {
                wanted_claims.insert((ns_of(p), cl));
            }
            wanted_nodes.extend(p.spec.as_ref().and_then(|s| s.node_name.clone()));
        }
        claim_users.retain(|u| {
            u.claims
                .iter()
                .any(|cl| wanted_claims.contains(&(u.namespace.clone(), cl.clone())))
        });
        wanted_nodes.extend(claim_users.iter().filter_map(|u| u.node.clone()));
        let mut pvcs = std::collections::HashMap::new();
        let pvcs_fut = self.list(
            api_for!(PersistentVolumeClaim),
            ListParams::default(),
            access_ns("persistentvolumeclaims"),
            |p: &PersistentVolumeClaim| {
                let key = (
                    ns_of_meta(&p.metadata),
                    p.metadata.name.clone().unwrap_or_default(),
                );
                if wanted_claims.contains(&key) {
                    pvcs.insert(key, p.clone());
                }
                false
            },
        );
        // The PVs bound to those claims, then only their VolumeAttachments.
        let pvs_and_vas = async {
            let mut pvs = std::collections::HashMap::new();
            self.list(
                Api::<PersistentVolume>::all(c.clone()),
                ListParams::default(),
                Access::cluster("persistentvolumes"),
                |pv: &PersistentVolume| {
                    let claim = pv.spec.as_ref().and_then(|s| s.claim_ref.as_ref());
                    let key = claim.map(|r| {
                        (
                            r.namespace.clone().unwrap_or_default(),
                            r.name.clone().unwrap_or_default(),
                        )
                    });
                    if key.is_some_and(|k| wanted_claims.contains(&k)) {
                        pvs.insert(pv.metadata.name.clone().unwrap_or_default(), pv.clone());
                    }
                    false
                },
            )
            .await?;
            let names: BTreeSet<String> = pvs.keys().cloned().collect();
            let vas = self.attachments_of(names).await?.ok().unwrap_or_default();
            Ok::<_, Error>((pvs, vas))
        };
        let mut nodes = std::collections::HashMap::new();
        let nodes_fut = self.list(
            Api::<Node>::all(c.clone()),
            ListParams::default(),
            Access::cluster("nodes"),
            |n: &Node| {
                let name = n.metadata.name.clone().unwrap_or_default();
                if wanted_nodes.contains(&name) {
                    nodes.insert(name, n.clone());
                } else if lists_volumes(n) {
                    // Another node that may still hold a stuck pod's volume (its status lists
                    // volumes), kept cut to what the rules read, as `doctor pod` keeps it.
                    nodes.insert(name, slim_node(n.clone()));
                }
                false
            },
        );
        let mut csinodes = std::collections::HashMap::new();
        let csinodes_fut = self.list(
            Api::<CSINode>::all(c.clone()),
            ListParams::default(),
            Access::group_cluster("csinodes", "storage.k8s.io"),
            |n: &CSINode| {
                let name = n.metadata.name.clone().unwrap_or_default();
                if wanted_nodes.contains(&name) {
                    csinodes.insert(name, n.clone());
                }
                false
            },
        );
        let (pvc_r, pv_va, node_r, csin_r) =
            futures::join!(pvcs_fut, pvs_and_vas, nodes_fut, csinodes_fut);
        let read_pvcs = matches!(pvc_r?, Fetch::Got(_));
        let (pvs, attachments) = pv_va?;
        node_r?;
        csin_r?;
        let (read_configmaps, configmaps) = match cms? {
            Fetch::Got(v) => (true, v.into_iter().collect()),
            _ => (false, BTreeSet::new()),
        };
        let (read_secrets, secrets) = match secs? {
            Fetch::Got(v) => (true, v.into_iter().collect()),
            _ => (false, BTreeSet::new()),
        };
        let shared = Shared {
            events: warnings,
            claim_users,
            pvcs,
            pvs,
            nodes,
            csinodes,
            configmaps,
            secrets,
            attachments,
            drivers: drivers?.ok().unwrap_or_default(),
            classes: classes?.ok().unwrap_or_default(),
            read_pvcs,
            read_configmaps,
            read_secrets,
        };
        let denied = self.denied();
        let mut cases: Vec<Case> = stuck
            .into_iter()
            .map(|p| {
                let mut case = shared.assemble(p);
                case.denied = denied.clone();
                case
            })
            .collect();
        cases.sort_by(|a, b| {
            (a.namespace.as_deref(), a.pod_name.as_deref())
                .cmp(&(b.namespace.as_deref(), b.pod_name.as_deref()))
        });
        Ok(cases)
    }
}
