//! `doctor namespace`: every stuck pod of a namespace (or of all), each with its case, from
//! shared paginated lists read in two rounds (the pods and what does not depend on them; then
//! what the stuck pods name), so the number of requests grows with pages, not with pods.

use std::collections::{BTreeSet, HashMap};
use std::time::Duration;

use k8s_openapi::api::core::v1::{
    ConfigMap, Event as CoreEvent, Node, PersistentVolume, PersistentVolumeClaim, Pod, Secret,
};
use k8s_openapi::api::storage::v1::{CSIDriver, CSINode, StorageClass, VolumeAttachment};
use kube::api::ListParams;
use kube::{Api, Client};

use super::assemble::Shared;
use super::client::Cluster;
use super::errors::Access;
use super::nodes::{lists_volumes, slim_node};
use super::reads::Fetch;
use super::refs::{event_from_core, ns_of, ns_of_meta, ClaimUser, PodRefs};
use super::stuck::{has_volume_failure, is_stuck};
use crate::error::{Error, Result};
use crate::model::{Case, Event};

/// (namespace, name).
type Key = (String, String);

impl Cluster {
    /// Every stuck pod of a namespace (or of all, `None`), each with its case, from shared
    /// paginated lists: the number of requests grows with pages, not with pods. A pod younger
    /// than `min_age` is stuck too when its events say a volume failed; the others are only
    /// counted (`Fleet::young`).
    pub async fn collect_namespace(
        &self,
        namespace: Option<&str>,
        min_age: Duration,
        now_secs: i64,
    ) -> Result<Fleet> {
        let scope = Scope { namespace };
        let mut first = self.first_round(scope, min_age, now_secs).await?;
        let young = first.young.len();
        if first.stuck.is_empty() {
            return Ok(Fleet {
                cases: Vec::new(),
                young,
            });
        }
        let wanted = narrow(&mut first);
        let second = self.second_round(scope, &wanted).await?;
        // The claims that are not Bound say why in their own Warning events: one more list,
        // only when there is such a claim.
        let claim_events = self.unbound_claims_warnings(scope, &second.pvcs).await?;
        // The lists round 1 read for the stuck pods fail the run only now that one is stuck.
        let (read_configmaps, configmaps) = match first.configmaps? {
            Fetch::Got(v) => (true, v.into_iter().collect()),
            _ => (false, BTreeSet::new()),
        };
        let (read_secrets, secrets) = match first.secrets? {
            Fetch::Got(v) => (true, v.into_iter().collect()),
            _ => (false, BTreeSet::new()),
        };
        let shared = Shared {
            events: first.warnings,
            claim_events,
            claim_users: first.claim_users,
            pvcs: second.pvcs,
            pvs: second.pvs,
            nodes: second.nodes,
            csinodes: second.csinodes,
            configmaps,
            secrets,
            attachments: second.attachments,
            drivers: first.drivers?.ok().unwrap_or_default(),
            classes: first.classes?.ok().unwrap_or_default(),
            read_pvcs: second.read_pvcs,
            read_configmaps,
            read_secrets,
        };
        Ok(Fleet {
            cases: self.cases_of(&shared, first.stuck),
            young,
        })
    }

    /// Round 1, side by side: the pods (which are stuck, who uses claims), and every list
    /// that does not depend on them. Events are filtered by the server to warnings.
    async fn first_round(
        &self,
        scope: Scope<'_>,
        min_age: Duration,
        now_secs: i64,
    ) -> Result<FirstRound> {
        let c = self.client.clone();
        let label = scope.namespace.unwrap_or("(all namespaces)");
        let mut stuck: Vec<Pod> = Vec::new();
        let mut young: Vec<Pod> = Vec::new();
        let mut claim_users: Vec<ClaimUser> = Vec::new();
        let pods_access = scope.access("pods");
        let pods_fut = self.list(
            scope.api::<Pod>(&c),
            ListParams::default(),
            pods_access,
            |p| {
                if is_stuck(p, now_secs, min_age) {
                    stuck.push(p.clone());
                    return false;
                }
                // Stuck but younger than min_age: kept until the events say whether a
                // volume failed.
                if is_stuck(p, now_secs, Duration::ZERO) {
                    young.push(p.clone());
                }
                if !PodRefs::of(p).claims.is_empty() {
                    claim_users.push(ClaimUser::of(p));
                }
                false
            },
        );
        let mut warnings: HashMap<Key, Vec<Event>> = HashMap::new();
        let events_fut = self.list(
            scope.api::<CoreEvent>(&c),
            ListParams::default().fields("involvedObject.kind=Pod,type=Warning"),
            scope.access("events"),
            |e: &CoreEvent| {
                let key = (
                    e.involved_object.namespace.clone().unwrap_or_default(),
                    e.involved_object.name.clone().unwrap_or_default(),
                );
                warnings.entry(key).or_default().push(event_from_core(e));
                false
            },
        );
        let cm_fut =
            self.list_names::<ConfigMap>(scope.api::<ConfigMap>(&c), scope.access("configmaps"));
        let sec_fut = self.list_names::<Secret>(scope.api::<Secret>(&c), scope.access("secrets"));
        let drivers_fut = self.list_all::<CSIDriver>("csidrivers");
        let classes_fut = self.list_all::<StorageClass>("storageclasses");
        // A namespace that does not exist lists as empty: ask, so a typo is not "nothing stuck".
        let ns_fut = async {
            match scope.namespace {
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
        if let (Some(false), Some(ns)) = (ns_r, scope.namespace) {
            return Err(self.namespace_missing(ns).await);
        }
        match pods_r? {
            Fetch::Got(_) => {}
            Fetch::Missing => {
                return Err(Error::Input {
                    context: format!("namespace {label}"),
                    message: "not found".into(),
                })
            }
            Fetch::Denied => {
                return Err(Error::Unreachable(format!(
                    "not allowed to list pods in {label} ({}); the ClusterRole volmnt-reader in deploy/rbac.yaml grants it",
                    pods_access.describe("list")
                )))
            }
        }
        ev_r?;
        // A young pod whose events say a volume failed is stuck at any age.
        let (failing, young): (Vec<Pod>, Vec<Pod>) = young.into_iter().partition(|p| {
            warnings
                .get(&(ns_of(p), p.metadata.name.clone().unwrap_or_default()))
                .is_some_and(has_volume_failure)
        });
        for p in &failing {
            let key = (ns_of(p), p.metadata.name.clone().unwrap_or_default());
            claim_users.retain(|u| {
                (u.namespace.as_str(), u.name.as_str()) != (key.0.as_str(), key.1.as_str())
            });
        }
        stuck.extend(failing);
        Ok(FirstRound {
            stuck,
            young,
            claim_users,
            warnings,
            configmaps: cms,
            secrets: secs,
            drivers,
            classes,
        })
    }

    /// Round 2: what the stuck pods name, each list filtered page by page.
    async fn second_round(&self, scope: Scope<'_>, wanted: &Wanted) -> Result<SecondRound> {
        let c = self.client.clone();
        let mut pvcs = HashMap::new();
        let pvcs_fut = self.list(
            scope.api::<PersistentVolumeClaim>(&c),
            ListParams::default(),
            scope.access("persistentvolumeclaims"),
            |p: &PersistentVolumeClaim| {
                let key = (
                    ns_of_meta(&p.metadata),
                    p.metadata.name.clone().unwrap_or_default(),
                );
                if wanted.claims.contains(&key) {
                    pvcs.insert(key, p.clone());
                }
                false
            },
        );
        let pvs_and_vas = self.bound_pvs_and_attachments(&wanted.claims);
        let mut nodes = HashMap::new();
        let nodes_fut = self.list(
            Api::<Node>::all(c.clone()),
            ListParams::default(),
            Access::cluster("nodes"),
            |n: &Node| {
                let name = n.metadata.name.clone().unwrap_or_default();
                if wanted.nodes.contains(&name) {
                    nodes.insert(name, n.clone());
                } else if lists_volumes(n) {
                    // Another node that may still hold a stuck pod's volume (its status lists
                    // volumes), kept cut to what the rules read, as `doctor pod` keeps it.
                    nodes.insert(name, slim_node(n.clone()));
                }
                false
            },
        );
        let mut csinodes = HashMap::new();
        let csinodes_fut = self.list(
            Api::<CSINode>::all(c.clone()),
            ListParams::default(),
            Access::group_cluster("csinodes", "storage.k8s.io"),
            |n: &CSINode| {
                let name = n.metadata.name.clone().unwrap_or_default();
                if wanted.nodes.contains(&name) {
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
        Ok(SecondRound {
            read_pvcs,
            pvcs,
            pvs,
            attachments,
            nodes,
            csinodes,
        })
    }

    /// The Warning events of the stuck pods' claims that are not Bound, by claim; no request
    /// when every claim is Bound.
    async fn unbound_claims_warnings(
        &self,
        scope: Scope<'_>,
        pvcs: &HashMap<Key, PersistentVolumeClaim>,
    ) -> Result<HashMap<Key, Vec<Event>>> {
        let unbound: BTreeSet<&Key> = pvcs
            .iter()
            .filter(|(_, p)| p.status.as_ref().and_then(|s| s.phase.as_deref()) != Some("Bound"))
            .map(|(k, _)| k)
            .collect();
        let mut out: HashMap<Key, Vec<Event>> = HashMap::new();
        if unbound.is_empty() {
            return Ok(out);
        }
        self.list(
            scope.api::<CoreEvent>(&self.client),
            ListParams::default().fields("involvedObject.kind=PersistentVolumeClaim,type=Warning"),
            scope.access("events"),
            |e: &CoreEvent| {
                let key = (
                    e.involved_object.namespace.clone().unwrap_or_default(),
                    e.involved_object.name.clone().unwrap_or_default(),
                );
                if unbound.contains(&key) {
                    out.entry(key).or_default().push(event_from_core(e));
                }
                false
            },
        )
        .await?;
        Ok(out)
    }

    /// The PVs bound to those claims, then only their VolumeAttachments.
    async fn bound_pvs_and_attachments(
        &self,
        claims: &BTreeSet<Key>,
    ) -> Result<(HashMap<String, PersistentVolume>, Vec<VolumeAttachment>)> {
        let mut pvs = HashMap::new();
        self.list(
            Api::<PersistentVolume>::all(self.client.clone()),
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
                if key.is_some_and(|k| claims.contains(&k)) {
                    pvs.insert(pv.metadata.name.clone().unwrap_or_default(), pv.clone());
                }
                false
            },
        )
        .await?;
        let names: BTreeSet<String> = pvs.keys().cloned().collect();
        let vas = self.attachments_of(names).await?.ok().unwrap_or_default();
        Ok((pvs, vas))
    }

    /// Each stuck pod's case from the shared reads, with the run's refusals, sorted by
    /// namespace and name (lists come back in any order; reports must not).
    fn cases_of(&self, shared: &Shared, stuck: Vec<Pod>) -> Vec<Case> {
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
        cases
    }
}

/// A namespace-wide run's pods: the stuck ones with their cases, and how many more were left
/// out for being younger than `--min-age` with no volume failure event (the OK line says so).
pub struct Fleet {
    pub cases: Vec<Case>,
    pub young: usize,
}

/// Where a namespace-wide run reads: one namespace, or every one (`None`).
#[derive(Clone, Copy)]
struct Scope<'a> {
    namespace: Option<&'a str>,
}

impl<'a> Scope<'a> {
    /// A namespaced kind's API in this scope.
    fn api<K>(&self, c: &Client) -> Api<K>
    where
        K: kube::Resource<Scope = k8s_openapi::NamespaceResourceScope>,
        <K as kube::Resource>::DynamicType: Default,
    {
        match self.namespace {
            Some(ns) => Api::<K>::namespaced(c.clone(), ns),
            None => Api::<K>::all(c.clone()),
        }
    }

    /// A namespaced kind's read in this scope, as a refusal would name it.
    fn access(&self, resource: &'static str) -> Access<'a> {
        match self.namespace {
            Some(ns) => Access {
                resource,
                group: "",
                namespace: Some(ns),
            },
            None => Access::cluster(resource),
        }
    }
}

/// Round 1's answers. The lists only stuck pods need are kept as they came: a failed one fails
/// the run only when a pod is stuck.
struct FirstRound {
    stuck: Vec<Pod>,
    /// Pods that would be stuck but are younger than min_age and have no volume failure event.
    young: Vec<Pod>,
    /// The other pods that use a claim, in compact form.
    claim_users: Vec<ClaimUser>,
    /// Warning events by (namespace, pod name).
    warnings: HashMap<Key, Vec<Event>>,
    configmaps: Result<Fetch<Vec<Key>>>,
    secrets: Result<Fetch<Vec<Key>>>,
    drivers: Result<Fetch<Vec<CSIDriver>>>,
    classes: Result<Fetch<Vec<StorageClass>>>,
}

/// What round 2 keeps of its lists: the stuck pods' claims, the nodes involved.
struct Wanted {
    claims: BTreeSet<Key>,
    nodes: BTreeSet<String>,
}

/// Round 2's answers.
struct SecondRound {
    /// Whether the claims could be listed (a refused list says nothing about absence).
    read_pvcs: bool,
    pvcs: HashMap<Key, PersistentVolumeClaim>,
    pvs: HashMap<String, PersistentVolume>,
    attachments: Vec<VolumeAttachment>,
    nodes: HashMap<String, Node>,
    csinodes: HashMap<String, CSINode>,
}

/// What the stuck pods name: their claims and nodes, and the nodes of the other pods on those
/// claims. Round 1's warnings and claim users are cut to those of the stuck pods' claims.
fn narrow(first: &mut FirstRound) -> Wanted {
    let wanted_pods: BTreeSet<Key> = first
        .stuck
        .iter()
        .map(|p| (ns_of(p), p.metadata.name.clone().unwrap_or_default()))
        .collect();
    first.warnings.retain(|k, _| wanted_pods.contains(k));
    let mut claims: BTreeSet<Key> = BTreeSet::new();
    let mut nodes: BTreeSet<String> = BTreeSet::new();
    for p in first.stuck.iter() {
        for cl in PodRefs::of(p).claims {
            claims.insert((ns_of(p), cl));
        }
        nodes.extend(p.spec.as_ref().and_then(|s| s.node_name.clone()));
    }
    first.claim_users.retain(|u| {
        u.claims
            .iter()
            .any(|cl| claims.contains(&(u.namespace.clone(), cl.clone())))
    });
    nodes.extend(first.claim_users.iter().filter_map(|u| u.node.clone()));
    Wanted { claims, nodes }
}
