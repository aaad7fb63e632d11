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
use super::slim::ClaimPod;
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
        // The pods that are not Pending are the longest read of a big cluster (47,000 pods at
        // 50,000, 2 to 5 s on the real server) and give only who uses which claim. A claim's
        // users are in its namespace: in one namespace the list starts beside round 1 and is
        // dropped (its request cancelled) when no stuck pod uses a claim; across all
        // namespaces it waits for round 1 and reads only the namespaces of the stuck pods'
        // claims (issue 30).
        let early = scope.namespace.is_some();
        let mut users = Box::pin(async move {
            if early {
                Some(self.claim_users_of(scope).await)
            } else {
                None
            }
        });
        let mut users_done = None;
        let mut first = {
            let first = self.first_round(scope, min_age, now_secs);
            futures::pin_mut!(first);
            loop {
                tokio::select! {
                    r = &mut first => break r?,
                    u = &mut users, if users_done.is_none() => users_done = Some(u),
                }
            }
        };
        if first.stuck.is_empty() && first.young.is_empty() {
            return Ok(Fleet {
                cases: Vec::new(),
                young: 0,
            });
        }
        // The young pods are read as the stuck ones are: their events say whether they are.
        let wanted = narrow(&first);
        let users = async {
            if wanted.claims.is_empty() {
                return Ok(Fetch::Got(Vec::new()));
            }
            let started = match users_done {
                Some(u) => u,
                None => users.await,
            };
            match started {
                Some(u) => u,
                None => self.claim_users_in(scope, &wanted).await,
            }
        };
        let second = self.second_round(scope, &wanted, users).await?;
        // A young pod whose events say a volume failed is stuck at any age.
        let (failing, young): (Vec<Pod>, Vec<Pod>) =
            std::mem::take(&mut first.young).into_iter().partition(|p| {
                second
                    .warnings
                    .get(&(ns_of(p), p.metadata.name.clone().unwrap_or_default()))
                    .is_some_and(has_volume_failure)
            });
        let young = young.len();
        let failing_keys: BTreeSet<Key> = failing
            .iter()
            .map(|p| (ns_of(p), p.metadata.name.clone().unwrap_or_default()))
            .collect();
        first.stuck.extend(failing);
        if first.stuck.is_empty() {
            return Ok(Fleet {
                cases: Vec::new(),
                young,
            });
        }
        // The claims that are not Bound say why in their own Warning events: one more list,
        // only when there is such a claim.
        let claim_events = self.unbound_claims_warnings(scope, &second.pvcs).await?;
        let mut claim_users = first.pending_users;
        claim_users.extend(second.claim_users);
        // Only the users of the stuck pods' claims are kept (the others were never kept), and
        // not a young pod now counted stuck.
        claim_users.retain(|u| {
            !failing_keys.contains(&(u.namespace.clone(), u.name.clone()))
                && u.claims
                    .iter()
                    .any(|cl| wanted.claims.contains(&(u.namespace.clone(), cl.clone())))
        });
        let shared = Shared {
            events: second.warnings,
            claim_events,
            claim_users,
            pvcs: second.pvcs,
            pvs: second.pvs,
            nodes: second.nodes,
            csinodes: second.csinodes,
            configmaps: second.configmaps,
            secrets: second.secrets,
            attachments: second.attachments,
            drivers: first.drivers,
            classes: first.classes,
            read_pvcs: second.read_pvcs,
            read_configmaps: second.read_configmaps,
            read_secrets: second.read_secrets,
        };
        Ok(Fleet {
            cases: self.cases_of(&shared, first.stuck),
            young,
        })
    }

    /// Round 1, side by side: the Pending pods (a pod is stuck only while Pending), from the
    /// watch cache with the server's `status.phase` filter, so the thousands of running pods of
    /// a big cluster are not sent at all; the CSIDrivers and StorageClasses; whether the
    /// namespace exists.
    async fn first_round(
        &self,
        scope: Scope<'_>,
        min_age: Duration,
        now_secs: i64,
    ) -> Result<FirstRound> {
        let c = self.client.clone();
        let label = scope.namespace.unwrap_or("(all namespaces)");
        let mut stuck: Vec<Pod> = Vec::new();
        let mut pending_users: Vec<ClaimUser> = Vec::new();
        let mut young: Vec<Pod> = Vec::new();
        let pods_access = scope.access("pods");
        let pods_fut = self.list_cached(
            scope.api::<Pod>(&c),
            ListParams::default().fields("status.phase=Pending"),
            pods_access,
            |p| {
                if is_stuck(p, now_secs, min_age) {
                    let mut p = p.clone();
                    p.metadata.managed_fields = None;
                    stuck.push(p);
                    return false;
                }
                // Stuck but younger than min_age: kept until the events say whether a
                // volume failed.
                if is_stuck(p, now_secs, Duration::ZERO) {
                    let mut p = p.clone();
                    p.metadata.managed_fields = None;
                    young.push(p);
                }
                if !PodRefs::of(p).claims.is_empty() {
                    pending_users.push(ClaimUser::of(p));
                }
                false
            },
        );
        let drivers_fut = self.list_all::<CSIDriver>("csidrivers");
        let classes_fut = self.list_all::<StorageClass>("storageclasses");
        // A namespace that does not exist lists as empty: ask, so a typo is not "nothing stuck".
        let ns_fut = async {
            match scope.namespace {
                Some(ns) => self.namespace_exists(ns).await,
                None => Some(true),
            }
        };
        let (ns_r, pods_r, drivers, classes) =
            futures::join!(ns_fut, pods_fut, drivers_fut, classes_fut);
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
        // Failed reads of these only matter now that a pod is (or may be) stuck.
        let none = stuck.is_empty() && young.is_empty();
        let drivers = if none {
            Vec::new()
        } else {
            drivers?.ok().unwrap_or_default()
        };
        let classes = if none {
            Vec::new()
        } else {
            classes?.ok().unwrap_or_default()
        };
        Ok(FirstRound {
            stuck,
            young,
            pending_users,
            drivers,
            classes,
        })
    }

    /// Every pod that is not Pending and uses a claim, as who, where and which claims (the
    /// other users a stuck pod's claim may have), from the watch cache in one streamed answer.
    async fn claim_users_of(&self, scope: Scope<'_>) -> Result<Fetch<Vec<ClaimUser>>> {
        let mut claim_users: Vec<ClaimUser> = Vec::new();
        let r = self
            .list_streamed(
                scope.namespace,
                ListParams::default().fields("status.phase!=Pending"),
                scope.access("pods"),
                |p: ClaimPod| {
                    if let Some(u) = p.claim_user() {
                        claim_users.push(u);
                    }
                },
            )
            .await?;
        Ok(r.map(|_| claim_users))
    }

    /// The claim users of the namespaces the stuck pods' claims are in, each namespace one
    /// streamed list, side by side; past `MAX_USER_NAMESPACES` namespaces, one list of the
    /// whole scope. A namespace whose pods may not be listed adds no user (the refusal is
    /// recorded, as for any list).
    async fn claim_users_in(
        &self,
        scope: Scope<'_>,
        wanted: &Wanted,
    ) -> Result<Fetch<Vec<ClaimUser>>> {
        let namespaces: BTreeSet<&str> = wanted.claims.iter().map(|(ns, _)| ns.as_str()).collect();
        if scope.namespace.is_some() || namespaces.len() > MAX_USER_NAMESPACES {
            return self.claim_users_of(scope).await;
        }
        let lists = futures::future::join_all(namespaces.into_iter().map(|ns| {
            self.claim_users_of(Scope {
                namespace: Some(ns),
            })
        }))
        .await;
        let mut all = Vec::new();
        for l in lists {
            if let Fetch::Got(v) = l? {
                all.extend(v);
            }
        }
        Ok(Fetch::Got(all))
    }

    /// Round 2, side by side: what the stuck pods name, each list filtered page by page: their
    /// warning events, their claims and those claims' PVs and attachments, their nodes (and
    /// any other that lists a volume), the ConfigMaps and Secrets that exist (names only), and
    /// when a stuck pod uses a claim, the other pods that may use it (every pod that is not
    /// Pending, decoded to who, where and which claims).
    async fn second_round(
        &self,
        scope: Scope<'_>,
        wanted: &Wanted,
        users: impl std::future::Future<Output = Result<Fetch<Vec<ClaimUser>>>>,
    ) -> Result<SecondRound> {
        let c = self.client.clone();
        // Warning events about the stuck pods. Events have no watch cache (the API server
        // leaves them out by default): this list reads them from etcd, filtered by the server
        // to warnings about pods, then here to the stuck pods' (memory holds only those).
        let mut warnings: HashMap<Key, Vec<Event>> = HashMap::new();
        // In pages of FLEET_PAGE: a list read from etcd costs its number of pages.
        let events_fut = self.list_pages(
            scope.api::<CoreEvent>(&c),
            ListParams::default()
                .fields("involvedObject.kind=Pod,type=Warning")
                .limit(super::reads::FLEET_PAGE),
            scope.access("events"),
            |e: &CoreEvent| {
                let key = (
                    e.involved_object.namespace.clone().unwrap_or_default(),
                    e.involved_object.name.clone().unwrap_or_default(),
                );
                if wanted.pods.contains(&key) {
                    warnings.entry(key).or_default().push(event_from_core(e));
                }
                false
            },
        );
        // The pods that are not Pending and use a claim (started in round 1).
        let users_fut = users;
        let cm_fut =
            self.list_names::<ConfigMap>(scope.api::<ConfigMap>(&c), scope.access("configmaps"));
        let sec_fut = self.list_names::<Secret>(scope.api::<Secret>(&c), scope.access("secrets"));
        let mut pvcs = HashMap::new();
        let pvcs_fut = self.list_cached(
            scope.api::<PersistentVolumeClaim>(&c),
            ListParams::default(),
            scope.access("persistentvolumeclaims"),
            |p: &PersistentVolumeClaim| {
                let key = (
                    ns_of_meta(&p.metadata),
                    p.metadata.name.clone().unwrap_or_default(),
                );
                if wanted.claims.contains(&key) {
                    let mut p = p.clone();
                    p.metadata.managed_fields = None;
                    pvcs.insert(key, p);
                }
                false
            },
        );
        let pvs_and_vas = self.bound_pvs_and_attachments(&wanted.claims);
        let mut nodes = HashMap::new();
        let nodes_fut = self.list_cached(
            Api::<Node>::all(c.clone()),
            ListParams::default(),
            Access::cluster("nodes"),
            |n: &Node| {
                let name = n.metadata.name.clone().unwrap_or_default();
                if wanted.nodes.contains(&name) {
                    nodes.insert(name, super::nodes::trim_node(n.clone()));
                } else if lists_volumes(n) {
                    // Another node that may still hold a stuck pod's volume (its status lists
                    // volumes), kept cut to what the rules read, as `doctor pod` keeps it.
                    nodes.insert(name, slim_node(n.clone()));
                }
                false
            },
        );
        let mut csinodes = HashMap::new();
        let csinodes_fut = self.list_cached(
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
        let (ev_r, users_r, cms, secs, pvc_r, pv_va, node_r, csin_r) = futures::join!(
            events_fut,
            users_fut,
            cm_fut,
            sec_fut,
            pvcs_fut,
            pvs_and_vas,
            nodes_fut,
            csinodes_fut
        );
        ev_r?;
        let claim_users = match users_r? {
            Fetch::Got(v) => v,
            _ => Vec::new(),
        };
        let (read_configmaps, configmaps) = match cms? {
            Fetch::Got(v) => (true, v.into_iter().collect()),
            _ => (false, BTreeSet::new()),
        };
        let (read_secrets, secrets) = match secs? {
            Fetch::Got(v) => (true, v.into_iter().collect()),
            _ => (false, BTreeSet::new()),
        };
        let read_pvcs = matches!(pvc_r?, Fetch::Got(_));
        let (pvs, attachments) = pv_va?;
        node_r?;
        csin_r?;
        Ok(SecondRound {
            warnings,
            claim_users,
            read_pvcs,
            pvcs,
            pvs,
            attachments,
            nodes,
            csinodes,
            configmaps,
            secrets,
            read_configmaps,
            read_secrets,
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

    /// The PVs bound to those claims (from the watch cache), then only their
    /// VolumeAttachments.
    async fn bound_pvs_and_attachments(
        &self,
        claims: &BTreeSet<Key>,
    ) -> Result<(HashMap<String, PersistentVolume>, Vec<VolumeAttachment>)> {
        let mut pvs = HashMap::new();
        if claims.is_empty() {
            return Ok((pvs, Vec::new()));
        }
        self.list_cached(
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
                    let mut pv = pv.clone();
                    pv.metadata.managed_fields = None;
                    pvs.insert(pv.metadata.name.clone().unwrap_or_default(), pv);
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

/// Across all namespaces, the claim users are read per namespace of the stuck pods' claims up to
/// this many namespaces; beyond, one list of every pod is fewer requests for the same answer.
const MAX_USER_NAMESPACES: usize = 16;

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

/// Round 1's answers.
struct FirstRound {
    stuck: Vec<Pod>,
    /// Pods that would be stuck but are younger than min_age: stuck too if their events say a
    /// volume failed (read in round 2, as the stuck pods' are).
    young: Vec<Pod>,
    /// The Pending pods that are not stuck (yet) and use a claim, in compact form.
    pending_users: Vec<ClaimUser>,
    drivers: Vec<CSIDriver>,
    classes: Vec<StorageClass>,
}

/// What round 2 keeps of its lists: the stuck pods, their claims and nodes.
struct Wanted {
    pods: BTreeSet<Key>,
    claims: BTreeSet<Key>,
    nodes: BTreeSet<String>,
}

/// Round 2's answers.
struct SecondRound {
    /// Warning events of the stuck pods by (namespace, pod name).
    warnings: HashMap<Key, Vec<Event>>,
    /// The pods that are not Pending and use a claim, in compact form.
    claim_users: Vec<ClaimUser>,
    /// Whether the claims could be listed (a refused list says nothing about absence).
    read_pvcs: bool,
    pvcs: HashMap<Key, PersistentVolumeClaim>,
    pvs: HashMap<String, PersistentVolume>,
    attachments: Vec<VolumeAttachment>,
    nodes: HashMap<String, Node>,
    csinodes: HashMap<String, CSINode>,
    configmaps: BTreeSet<Key>,
    secrets: BTreeSet<Key>,
    read_configmaps: bool,
    read_secrets: bool,
}

/// What the stuck pods name: themselves, their claims and nodes, and the nodes of the Pending
/// pods on those claims (the others' are added when they are read).
fn narrow(first: &FirstRound) -> Wanted {
    let pods: BTreeSet<Key> = first
        .stuck
        .iter()
        .chain(&first.young)
        .map(|p| (ns_of(p), p.metadata.name.clone().unwrap_or_default()))
        .collect();
    let mut claims: BTreeSet<Key> = BTreeSet::new();
    let mut nodes: BTreeSet<String> = BTreeSet::new();
    for p in first.stuck.iter().chain(&first.young) {
        for cl in PodRefs::of(p).claims {
            claims.insert((ns_of(p), cl));
        }
        nodes.extend(p.spec.as_ref().and_then(|s| s.node_name.clone()));
    }
    Wanted {
        pods,
        claims,
        nodes,
    }
}
