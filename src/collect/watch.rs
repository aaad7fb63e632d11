//! `volmnt watch`'s collector: kube's watchers keep a cache of what a stuck pod's case needs,
//! and every pod whose case changed comes out as one `Case`, assembled by the same code as
//! `doctor namespace` (cluster::assemble). The engine that diagnoses it does not know it runs
//! in a loop.
//!
//! Each resource is listed once (paginated) and then watched from that list's
//! resourceVersion, with bookmarks (`allowWatchBookmarks=true`), so a watch that ends (the
//! server closes it every few minutes) resumes where it was without listing again. Only when
//! the server answers 410 Gone (the resourceVersion was compacted away) does kube's watcher
//! list again; the store is swapped whole at the end of that list, so no pod is lost or
//! reported missing in between. Errors are retried with kube's exponential back-off.
//!
//! What is kept: PVCs, PVs, Nodes (without their image lists), CSINodes, VolumeAttachments,
//! CSIDrivers and StorageClasses as kube reflector stores (managedFields dropped); ConfigMaps
//! and Secrets as metadata only (names: existence is all a case needs, and Secrets' data is
//! never read); Warning events about pods, in the compact form the engine reads; and of pods
//! only those that matter: a Pending pod in full (it may be stuck), any other pod that uses a
//! claim as a few strings (to find the other users of a stuck pod's claim). A Running pod
//! without claims costs nothing. That is what keeps 50,000 pods within a small memory budget.
//!
//! A pod is handed out when it is stuck (cluster::is_stuck: Pending, ContainerCreating, older
//! than `min_age`) and something its case is made of changed: the pod, its events, its claims,
//! their PVs and VolumeAttachments, its node and CSINode, the ConfigMaps/Secrets of its
//! namespace, the CSIDrivers and StorageClasses; or when it just became old enough. A pod that
//! was handed out and is no longer stuck (it runs, or is gone) comes out as `Cleared`.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use futures::stream::{BoxStream, SelectAll};
use futures::{FutureExt, StreamExt};
use k8s_openapi::api::core::v1::{
    ConfigMap, Event as CoreEvent, Node, PersistentVolume, PersistentVolumeClaim, Pod, Secret,
};
use k8s_openapi::api::storage::v1::{CSIDriver, CSINode, StorageClass, VolumeAttachment};
use kube::core::PartialObjectMeta;
use kube::runtime::reflector::store::{Store, Writer};
use kube::runtime::reflector::ObjectRef;
use kube::runtime::watcher::{self, Event as WEvent};
use kube::runtime::WatchStreamExt;
use kube::{Api, Client, Resource, ResourceExt};
use serde::de::DeserializeOwned;

use super::cluster::{
    assemble, event_from_core, has_volume_failure, is_stuck, Access, CaseObjects, ClaimUser,
    Cluster,
};
use crate::model::{Case, Denied, Event};

/// (namespace, name) of a pod.
pub type PodKey = (String, String);

/// What to watch and when a pod counts as stuck.
#[derive(Debug, Clone)]
pub struct WatchOptions {
    /// None: every namespace. Some: these namespaces only.
    pub namespaces: Option<Vec<String>>,
    /// Only pods matching this label selector (`app=web,tier!=cache`).
    pub label_selector: Option<String>,
    /// A Pending pod counts as stuck once it is this old.
    pub min_age: Duration,
    /// Every stuck pod is handed out again this often, even if nothing changed.
    pub resync: Duration,
    /// Page size of the lists.
    pub page_size: u32,
    /// Watch Secrets (metadata only) too; without it, whether a Secret exists is not known.
    pub read_secrets: bool,
}

/// One pod that needs (re)diagnosis, or that no longer does.
#[derive(Debug)]
pub enum Update {
    Stuck {
        key: PodKey,
        uid: String,
        node: Option<String>,
        case: Box<Case>,
        /// When the first change that made this case differ arrived.
        since: Instant,
    },
    Cleared {
        key: PodKey,
        uid: String,
    },
}

/// Health of the watch, for metrics and logs.
#[derive(Debug, Clone, Default)]
pub struct Stats {
    /// Every resource listed, and none failing now: the cache is in sync (what /readyz says).
    pub synced: bool,
    /// Resources whose list or watch is failing now (the API server unreachable, an error
    /// answer), each with the number of its feeds failing.
    pub failing: Vec<(String, u64)>,
    /// Objects held, by resource.
    pub cached: Vec<(String, u64)>,
    /// Relists after the first list, by resource.
    pub restarts: Vec<(String, u64)>,
    /// Watch errors (each retried with back-off), by resource.
    pub errors: Vec<(String, u64)>,
    /// Pods that would be stuck but are younger than --min-age and have no volume failure
    /// event: not diagnosed yet (a pod with one is, at any age).
    pub young: u64,
}

// ---------------------------------------------------------------------------------------------
// The cache
// ---------------------------------------------------------------------------------------------

/// What is kept of a pod.
#[derive(Debug, Clone)]
struct PodEntry {
    uid: String,
    user: ClaimUser,
    /// The whole pod while it is Pending (it may be stuck); None otherwise.
    pending: Option<Arc<Pod>>,
}

impl PodEntry {
    /// None for a pod that is not worth keeping (not Pending, no claims).
    fn of(p: &Pod) -> Option<PodEntry> {
        let pending = p.status.as_ref().and_then(|s| s.phase.as_deref()) == Some("Pending")
            && p.metadata.deletion_timestamp.is_none();
        let user = ClaimUser::of(p);
        if !pending && user.claims.is_empty() {
            return None;
        }
        let mut full = p.clone();
        full.metadata.managed_fields = None;
        Some(PodEntry {
            uid: p.metadata.uid.clone().unwrap_or_default(),
            user,
            pending: pending.then(|| Arc::new(full)),
        })
    }
}

/// A store per namespace in scope (or one for all namespaces), each fed by its own watcher.
struct Scoped<K: Resource<DynamicType = ()> + Clone + 'static> {
    stores: Vec<(Option<String>, Store<K>)>,
}

impl<K> Scoped<K>
where
    K: Resource<DynamicType = ()> + Clone + 'static,
{
    fn get(&self, ns: &str, name: &str) -> Option<Arc<K>> {
        self.stores
            .iter()
            .find(|(s, _)| s.as_deref().is_none_or(|s| s == ns))
            .and_then(|(_, st)| st.get(&ObjectRef::new(name).within(ns)))
    }

    fn len(&self) -> usize {
        self.stores.iter().map(|(_, s)| s.len()).sum()
    }
}

/// Everything a case is assembled from.
struct Cache {
    pods: HashMap<PodKey, PodEntry>,
    /// (namespace, claim) → pods using it.
    by_claim: HashMap<(String, String), HashSet<PodKey>>,
    /// node → Pending pods on it.
    by_node: HashMap<String, HashSet<PodKey>>,
    /// Warning events by pod, by event name.
    events: HashMap<PodKey, HashMap<String, Event>>,
    /// Warning events by claim (namespace, claim name), by event name.
    claim_events: HashMap<PodKey, HashMap<String, Event>>,
    pvcs: Scoped<PersistentVolumeClaim>,
    configmaps: Scoped<PartialObjectMeta<ConfigMap>>,
    secrets: Scoped<PartialObjectMeta<Secret>>,
    pvs: Store<PersistentVolume>,
    nodes: Store<Node>,
    csinodes: Store<CSINode>,
    attachments: Store<VolumeAttachment>,
    drivers: Store<CSIDriver>,
    classes: Store<StorageClass>,
    pvcs_denied: bool,
    configmaps_denied: bool,
    secrets_denied: bool,
}

impl Cache {
    /// An empty cache over the watchers' stores.
    fn new(scoped: ScopedStores, stores: ClusterStores, read_secrets: bool) -> Cache {
        Cache {
            pods: HashMap::new(),
            by_claim: HashMap::new(),
            by_node: HashMap::new(),
            events: HashMap::new(),
            claim_events: HashMap::new(),
            pvcs: Scoped {
                stores: scoped.pvcs,
            },
            configmaps: Scoped {
                stores: scoped.configmaps,
            },
            secrets: Scoped {
                stores: scoped.secrets,
            },
            pvs: stores.pvs,
            nodes: stores.nodes,
            csinodes: stores.csinodes,
            attachments: stores.attachments,
            drivers: stores.drivers,
            classes: stores.classes,
            pvcs_denied: false,
            configmaps_denied: false,
            // Not watched: whether a Secret exists is not known (never "missing").
            secrets_denied: !read_secrets,
        }
    }

    fn unindex(&mut self, key: &PodKey) -> Option<PodEntry> {
        let old = self.pods.remove(key)?;
        for c in &old.user.claims {
            let k = (key.0.clone(), c.clone());
            if let Some(set) = self.by_claim.get_mut(&k) {
                set.remove(key);
                if set.is_empty() {
                    self.by_claim.remove(&k);
                }
            }
        }
        if let (Some(_), Some(n)) = (&old.pending, &old.user.node) {
            if let Some(set) = self.by_node.get_mut(n) {
                set.remove(key);
                if set.is_empty() {
                    self.by_node.remove(n);
                }
            }
        }
        Some(old)
    }

    fn index(&mut self, key: PodKey, e: PodEntry) {
        for c in &e.user.claims {
            self.by_claim
                .entry((key.0.clone(), c.clone()))
                .or_default()
                .insert(key.clone());
        }
        if let (Some(_), Some(n)) = (&e.pending, &e.user.node) {
            self.by_node
                .entry(n.clone())
                .or_default()
                .insert(key.clone());
        }
        self.pods.insert(key, e);
    }

    /// Pending pods using any of these claims of a namespace.
    fn candidates_using<'a>(
        &'a self,
        ns: &'a str,
        claims: impl IntoIterator<Item = &'a String> + 'a,
    ) -> impl Iterator<Item = PodKey> + 'a {
        claims.into_iter().flat_map(move |c| {
            self.by_claim
                .get(&(ns.to_string(), c.clone()))
                .into_iter()
                .flatten()
                .filter(|k| self.pods.get(*k).is_some_and(|e| e.pending.is_some()))
                .cloned()
        })
    }

    /// The pods' Warning events, or the claims'.
    fn events_map(&mut self, claims: bool) -> &mut HashMap<PodKey, HashMap<String, Event>> {
        if claims {
            &mut self.claim_events
        } else {
            &mut self.events
        }
    }

    fn candidates(&self) -> impl Iterator<Item = &PodKey> {
        self.pods
            .iter()
            .filter(|(_, e)| e.pending.is_some())
            .map(|(k, _)| k)
    }
}

impl CaseObjects for Cache {
    fn events_of(&self, namespace: &str, pod: &str) -> Vec<Event> {
        let mut v: Vec<Event> = self
            .events
            .get(&(namespace.to_string(), pod.to_string()))
            .map(|m| m.values().cloned().collect())
            .unwrap_or_default();
        // Oldest first, as a list would give them (and the same order every time).
        v.sort_by(|a, b| (&a.age, &a.reason, &a.message).cmp(&(&b.age, &b.reason, &b.message)));
        v
    }
    fn claim_events_of(&self, namespace: &str, claim: &str) -> Vec<Event> {
        let mut v: Vec<Event> = self
            .claim_events
            .get(&(namespace.to_string(), claim.to_string()))
            .map(|m| m.values().cloned().collect())
            .unwrap_or_default();
        v.sort_by(|a, b| (&a.age, &a.reason, &a.message).cmp(&(&b.age, &b.reason, &b.message)));
        v
    }
    fn pvc(&self, namespace: &str, name: &str) -> Option<PersistentVolumeClaim> {
        self.pvcs.get(namespace, name).map(|p| (*p).clone())
    }
    fn pv(&self, name: &str) -> Option<PersistentVolume> {
        self.pvs.get(&ObjectRef::new(name)).map(|p| (*p).clone())
    }
    fn node(&self, name: &str) -> Option<Node> {
        self.nodes.get(&ObjectRef::new(name)).map(|n| (*n).clone())
    }
    fn nodes_listing(&self, keys: &BTreeSet<String>) -> Vec<Node> {
        let all = self.nodes.state();
        crate::collect::cluster::nodes_listing(all.iter().map(|n| n.as_ref()), keys)
    }
    fn csinode(&self, name: &str) -> Option<CSINode> {
        self.csinodes
            .get(&ObjectRef::new(name))
            .map(|n| (*n).clone())
    }
    fn pvcs_known(&self) -> bool {
        !self.pvcs_denied
    }
    fn configmap_exists(&self, namespace: &str, name: &str) -> Option<bool> {
        (!self.configmaps_denied).then(|| self.configmaps.get(namespace, name).is_some())
    }
    fn secret_exists(&self, namespace: &str, name: &str) -> Option<bool> {
        (!self.secrets_denied).then(|| self.secrets.get(namespace, name).is_some())
    }
    fn pods_using(&self, ns: &str, claims: &BTreeSet<String>, except: &str) -> Vec<Pod> {
        let mut keys: BTreeSet<&PodKey> = BTreeSet::new();
        for c in claims {
            if let Some(set) = self.by_claim.get(&(ns.to_string(), c.clone())) {
                keys.extend(set.iter().filter(|k| k.1 != except));
            }
        }
        keys.into_iter()
            .filter_map(|k| self.pods.get(k))
            .map(|e| e.user.to_pod())
            .collect()
    }
    fn attachments_of(&self, pvs: &BTreeSet<&str>) -> Vec<VolumeAttachment> {
        self.attachments
            .state()
            .into_iter()
            .filter(|va| {
                va.spec
                    .source
                    .persistent_volume_name
                    .as_deref()
                    .is_some_and(|p| pvs.contains(p))
            })
            .map(|va| (*va).clone())
            .collect()
    }
    fn drivers(&self) -> Vec<CSIDriver> {
        let mut v: Vec<CSIDriver> = self.drivers.state().iter().map(|d| (**d).clone()).collect();
        v.sort_by(|a, b| a.metadata.name.cmp(&b.metadata.name));
        v
    }
    fn classes(&self) -> Vec<StorageClass> {
        let mut v: Vec<StorageClass> = self.classes.state().iter().map(|d| (**d).clone()).collect();
        v.sort_by(|a, b| a.metadata.name.cmp(&b.metadata.name));
        v
    }
}

// ---------------------------------------------------------------------------------------------
// The watchers
// ---------------------------------------------------------------------------------------------

/// One watcher's output, typed per resource.
enum Payload {
    Pod(WEvent<Pod>),
    Event(WEvent<CoreEvent>),
    /// A claim's Warning events (why a claim does not bind).
    ClaimEvent(WEvent<CoreEvent>),
    Pvc(WEvent<PersistentVolumeClaim>),
    ConfigMap(WEvent<PartialObjectMeta<ConfigMap>>),
    Secret(WEvent<PartialObjectMeta<Secret>>),
    Pv(WEvent<PersistentVolume>),
    Node(WEvent<Node>),
    CsiNode(WEvent<CSINode>),
    Attachment(WEvent<VolumeAttachment>),
    Driver(WEvent<CSIDriver>),
    Class(WEvent<StorageClass>),
}

type Item = (usize, Result<Payload, watcher::Error>);

/// A watcher's bookkeeping.
struct Feed {
    resource: &'static str,
    group: &'static str,
    namespace: Option<String>,
    /// Pods and events are required; without the others a case is partial, not impossible.
    required: bool,
    /// Listed at least once.
    synced: bool,
    /// A list in progress (after Init, before InitDone).
    listing: bool,
    restarts: u64,
    errors: u64,
    denied: bool,
    /// The request path of this feed's lists and watches (`/api/v1/namespaces/x/pods`).
    path: String,
    /// The last list or watch error with no success after it: while set, this resource's
    /// cache may be stale and the watch is not ready. Cleared by the next object or list end,
    /// or by the server accepting a watch on `path` after it (a resumed watch with nothing to
    /// report yields no item).
    last_error: Option<Instant>,
    /// The writer of this feed's reflector store, when it has one (by type, in `Writers`).
    writer: usize,
}

/// The reflector writers, one per feed that keeps a kube store.
#[derive(Default)]
struct Writers {
    pvcs: Vec<Writer<PersistentVolumeClaim>>,
    configmaps: Vec<Writer<PartialObjectMeta<ConfigMap>>>,
    secrets: Vec<Writer<PartialObjectMeta<Secret>>>,
    pvs: Option<Writer<PersistentVolume>>,
    nodes: Option<Writer<Node>>,
    csinodes: Option<Writer<CSINode>>,
    attachments: Option<Writer<VolumeAttachment>>,
    drivers: Option<Writer<CSIDriver>>,
    classes: Option<Writer<StorageClass>>,
}

/// Objects keep everything but managedFields (never read, often the largest part).
fn trim<K: Resource>(o: &mut K) {
    o.meta_mut().managed_fields = None;
}

/// How long a failed list or watch waits before its next try: 800 ms, doubling, at most 5 s
/// (client-go's reflector goes up to 30 s). On the real apiserver stopped for 20 s, 30 s meant
/// the cache stayed stale (and /readyz 503) for up to 19 s after the server was back; eleven
/// watches retried every 5 s are still a light load on a server that is down.
#[derive(Debug, Clone)]
struct WatchBackoff {
    next: Duration,
}

impl WatchBackoff {
    const FIRST: Duration = Duration::from_millis(800);
    const MAX: Duration = Duration::from_secs(5);

    fn new() -> WatchBackoff {
        WatchBackoff { next: Self::FIRST }
    }
}

impl Iterator for WatchBackoff {
    type Item = Duration;

    fn next(&mut self) -> Option<Duration> {
        let d = self.next;
        self.next = (self.next * 2).min(Self::MAX);
        // A little spread, so the watches of one process do not retry in lockstep.
        let nanos = SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .map(|t| t.subsec_nanos())
            .unwrap_or(0);
        Some(d + Duration::from_millis(u64::from(nanos % 200)))
    }
}

impl kube::runtime::utils::Backoff for WatchBackoff {
    fn reset(&mut self) {
        self.next = Self::FIRST;
    }
}

fn feed<K>(
    api: Api<K>,
    cfg: watcher::Config,
    idx: usize,
    wrap: fn(WEvent<K>) -> Payload,
    modify: fn(&mut K),
    paths: &mut HashMap<usize, String>,
) -> BoxStream<'static, Item>
where
    K: Resource + Clone + DeserializeOwned + std::fmt::Debug + Send + 'static,
{
    paths.insert(idx, api.resource_url().to_string());
    watcher::watcher(api, cfg)
        .backoff(WatchBackoff::new())
        .modify(modify)
        .map(move |r| (idx, r.map(wrap)))
        .boxed()
}

/// The watchers as they are set up: each feed's bookkeeping (its index is its place in
/// `feeds`), its stream, and the reflector writers of the feeds that keep a store.
struct Wiring {
    client: Client,
    page_size: u32,
    feeds: Vec<Feed>,
    /// Each feed's request path, by index, as `feed` names it.
    paths: HashMap<usize, String>,
    streams: SelectAll<BoxStream<'static, Item>>,
    writers: Writers,
}

/// The readers of the namespaced stores, one per namespace in scope (or one for all).
#[derive(Default)]
struct ScopedStores {
    pvcs: Vec<(Option<String>, Store<PersistentVolumeClaim>)>,
    configmaps: Vec<(Option<String>, Store<PartialObjectMeta<ConfigMap>>)>,
    secrets: Vec<(Option<String>, Store<PartialObjectMeta<Secret>>)>,
}

/// The readers of the cluster-scoped stores.
struct ClusterStores {
    pvs: Store<PersistentVolume>,
    nodes: Store<Node>,
    csinodes: Store<CSINode>,
    attachments: Store<VolumeAttachment>,
    drivers: Store<CSIDriver>,
    classes: Store<StorageClass>,
}

/// A namespaced kind's API in one namespace, or in all (`None`).
fn api_in<K>(client: &Client, ns: &Option<String>) -> Api<K>
where
    K: Resource<Scope = k8s_openapi::NamespaceResourceScope, DynamicType = ()>,
{
    match ns {
        Some(n) => Api::namespaced(client.clone(), n),
        None => Api::all(client.clone()),
    }
}

impl Wiring {
    fn new(client: Client, page_size: u32) -> Wiring {
        Wiring {
            client,
            page_size,
            feeds: Vec::new(),
            paths: HashMap::new(),
            streams: SelectAll::new(),
            writers: Writers::default(),
        }
    }

    /// A list-and-watch config with the page size asked for.
    fn page(&self) -> watcher::Config {
        watcher::Config::default().page_size(self.page_size)
    }

    /// A new feed's bookkeeping; its index.
    fn add(
        &mut self,
        resource: &'static str,
        group: &'static str,
        namespace: Option<String>,
        required: bool,
        writer: usize,
    ) -> usize {
        self.feeds.push(Feed {
            resource,
            group,
            namespace,
            required,
            synced: false,
            listing: false,
            restarts: 0,
            errors: 0,
            denied: false,
            path: String::new(),
            last_error: None,
            writer,
        });
        self.feeds.len() - 1
    }

    /// Feed `idx`'s stream: `api` listed and watched with `cfg`.
    fn watch<K>(
        &mut self,
        api: Api<K>,
        cfg: watcher::Config,
        idx: usize,
        wrap: fn(WEvent<K>) -> Payload,
        modify: fn(&mut K),
    ) where
        K: Resource + Clone + DeserializeOwned + std::fmt::Debug + Send + 'static,
    {
        self.streams
            .push(feed(api, cfg, idx, wrap, modify, &mut self.paths));
    }

    /// The feeds of one namespace in scope (or of all): its pods, its warning events, its
    /// claims, and its ConfigMaps' and (when asked) Secrets' names.
    fn namespaced(&mut self, ns: &Option<String>, opts: &WatchOptions, stores: &mut ScopedStores) {
        let mut pcfg = self.page();
        if let Some(l) = &opts.label_selector {
            pcfg = pcfg.labels(l);
        }
        let i = self.add("pods", "", ns.clone(), true, 0);
        self.watch(api_in::<Pod>(&self.client, ns), pcfg, i, Payload::Pod, trim);
        // Our own VolumeDiagnosis events are not evidence: leave them out at the source.
        let ecfg = self
            .page()
            .fields("involvedObject.kind=Pod,type=Warning,reason!=VolumeDiagnosis");
        let i = self.add("events", "", ns.clone(), true, 0);
        self.watch(
            api_in::<CoreEvent>(&self.client, ns),
            ecfg,
            i,
            Payload::Event,
            trim,
        );
        // The claims' own Warning events (ProvisioningFailed, FailedBinding): why a claim
        // does not bind, as `doctor pod` reads them.
        let ccfg = self
            .page()
            .fields("involvedObject.kind=PersistentVolumeClaim,type=Warning");
        let i = self.add("events", "", ns.clone(), true, 0);
        self.watch(
            api_in::<CoreEvent>(&self.client, ns),
            ccfg,
            i,
            Payload::ClaimEvent,
            trim,
        );
        let w = Writer::default();
        stores.pvcs.push((ns.clone(), w.as_reader()));
        self.writers.pvcs.push(w);
        let i = self.add(
            "persistentvolumeclaims",
            "",
            ns.clone(),
            false,
            self.writers.pvcs.len() - 1,
        );
        self.watch(
            api_in::<PersistentVolumeClaim>(&self.client, ns),
            self.page(),
            i,
            Payload::Pvc,
            trim,
        );
        let w = Writer::default();
        stores.configmaps.push((ns.clone(), w.as_reader()));
        self.writers.configmaps.push(w);
        let i = self.add(
            "configmaps",
            "",
            ns.clone(),
            false,
            self.writers.configmaps.len() - 1,
        );
        // Metadata only (PartialObjectMetadata lists): names are all a case needs.
        self.watch(
            api_in::<PartialObjectMeta<ConfigMap>>(&self.client, ns),
            self.page(),
            i,
            Payload::ConfigMap,
            trim,
        );
        if !opts.read_secrets {
            return;
        }
        let w = Writer::default();
        stores.secrets.push((ns.clone(), w.as_reader()));
        self.writers.secrets.push(w);
        let i = self.add(
            "secrets",
            "",
            ns.clone(),
            false,
            self.writers.secrets.len() - 1,
        );
        // Never a Secret's data: metadata only.
        self.watch(
            api_in::<PartialObjectMeta<Secret>>(&self.client, ns),
            self.page(),
            i,
            Payload::Secret,
            trim,
        );
    }

    /// One cluster-scoped kind, kept in a store whose writer goes to `slot`.
    fn cluster_feed<K>(
        &mut self,
        resource: &'static str,
        group: &'static str,
        slot: fn(&mut Writers) -> &mut Option<Writer<K>>,
        wrap: fn(WEvent<K>) -> Payload,
        modify: fn(&mut K),
    ) -> Store<K>
    where
        K: Resource<DynamicType = ()> + Clone + DeserializeOwned + std::fmt::Debug + Send + 'static,
    {
        let w: Writer<K> = Writer::default();
        let reader = w.as_reader();
        *slot(&mut self.writers) = Some(w);
        let i = self.add(resource, group, None, false, 0);
        self.watch(
            Api::<K>::all(self.client.clone()),
            self.page(),
            i,
            wrap,
            modify,
        );
        reader
    }

    /// The cluster-scoped feeds: PVs, Nodes (without their image lists), CSINodes,
    /// VolumeAttachments, CSIDrivers and StorageClasses.
    fn cluster_scoped(&mut self) -> ClusterStores {
        let pvs = self.cluster_feed("persistentvolumes", "", |w| &mut w.pvs, Payload::Pv, trim);
        let nodes = self.cluster_feed("nodes", "", |w| &mut w.nodes, Payload::Node, node_trim);
        let csinodes = self.cluster_feed(
            "csinodes",
            "storage.k8s.io",
            |w| &mut w.csinodes,
            Payload::CsiNode,
            trim,
        );
        let attachments = self.cluster_feed(
            "volumeattachments",
            "storage.k8s.io",
            |w| &mut w.attachments,
            Payload::Attachment,
            trim,
        );
        let drivers = self.cluster_feed(
            "csidrivers",
            "storage.k8s.io",
            |w| &mut w.drivers,
            Payload::Driver,
            trim,
        );
        let classes = self.cluster_feed(
            "storageclasses",
            "storage.k8s.io",
            |w| &mut w.classes,
            Payload::Class,
            trim,
        );
        ClusterStores {
            pvs,
            nodes,
            csinodes,
            attachments,
            drivers,
            classes,
        }
    }

    /// The feeds, each with its request path, their streams and the writers.
    fn finish(mut self) -> (Vec<Feed>, SelectAll<BoxStream<'static, Item>>, Writers) {
        for (i, p) in self.paths {
            self.feeds[i].path = p;
        }
        (self.feeds, self.streams, self.writers)
    }
}

/// The collector: watchers, the cache, and which pods need diagnosis.
pub struct Collector {
    opts: WatchOptions,
    cache: Cache,
    writers: Writers,
    feeds: Vec<Feed>,
    streams: SelectAll<BoxStream<'static, Item>>,
    /// List buffers of the pod and event feeds (a relist swaps them in at its end).
    pod_buf: HashMap<usize, HashMap<PodKey, PodEntry>>,
    event_buf: HashMap<usize, HashMap<PodKey, HashMap<String, Event>>>,
    /// The same for the claims' events feeds.
    claim_event_buf: HashMap<usize, HashMap<PodKey, HashMap<String, Event>>>,
    dirty: HashMap<PodKey, Instant>,
    /// Pods handed out as stuck (and their uids), so that recovery is reported once.
    reported: HashMap<PodKey, String>,
    /// Pending pods that become old enough at this Unix second.
    due: BTreeMap<i64, HashSet<PodKey>>,
    was_synced: bool,
    /// Whether the last look found a feed failing (to log the change once).
    was_failing: bool,
    next_resync: Instant,
    target: String,
    /// For when the server last accepted each feed's watch.
    cluster: Cluster,
    log: Arc<dyn Fn(String) + Send + Sync>,
}

fn unix_now() -> i64 {
    SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}

fn node_trim(n: &mut Node) {
    n.metadata.managed_fields = None;
    if let Some(s) = n.status.as_mut() {
        // The image list is the bulk of a Node and says nothing about volumes.
        s.images = None;
    }
}

impl Collector {
    /// Start every watcher (nothing is read until `next` is polled).
    pub fn start(
        cluster: &Cluster,
        opts: WatchOptions,
        log: Arc<dyn Fn(String) + Send + Sync>,
    ) -> Collector {
        let scopes: Vec<Option<String>> = match &opts.namespaces {
            None => vec![None],
            Some(v) => v.iter().cloned().map(Some).collect(),
        };
        let mut wiring = Wiring::new(cluster.client(), opts.page_size);
        let mut scoped = ScopedStores::default();
        for ns in &scopes {
            wiring.namespaced(ns, &opts, &mut scoped);
        }
        let stores = wiring.cluster_scoped();
        let (feeds, streams, writers) = wiring.finish();
        let cache = Cache::new(scoped, stores, opts.read_secrets);
        let resync = opts.resync;
        Collector {
            opts,
            cache,
            writers,
            feeds,
            streams,
            pod_buf: HashMap::new(),
            event_buf: HashMap::new(),
            claim_event_buf: HashMap::new(),
            dirty: HashMap::new(),
            reported: HashMap::new(),
            due: BTreeMap::new(),
            was_synced: false,
            was_failing: false,
            next_resync: Instant::now() + resync,
            target: cluster.target.clone(),
            cluster: cluster.clone(),
            log,
        }
    }

    /// Every watched resource has been listed (or is refused and optional).
    pub fn synced(&self) -> bool {
        self.feeds
            .iter()
            .all(|f| f.synced || (f.denied && !f.required))
    }

    /// Feeds whose list or watch fails now (an error with no success after it), not counting
    /// a refused optional one (it is reported as refused, and diagnoses go on without it).
    fn failing(&self) -> impl Iterator<Item = &Feed> {
        self.feeds.iter().filter(|f| {
            let Some(err) = f.last_error else {
                return false;
            };
            let recovered = self
                .cluster
                .watch_accepted(&f.path)
                .is_some_and(|ok| ok > err);
            !recovered && (!f.denied || f.required)
        })
    }

    /// Reads refused so far (`list secrets in namespace x`), for cases and logs.
    pub fn denied(&self) -> Vec<Denied> {
        let mut v: Vec<Denied> = self
            .feeds
            .iter()
            .filter(|f| f.denied)
            .map(|f| {
                Access {
                    resource: f.resource,
                    group: f.group,
                    namespace: f.namespace.as_deref(),
                }
                .describe("list")
            })
            .collect();
        v.sort();
        v.dedup();
        v
    }

    pub fn stats(&mut self) -> Stats {
        let mut failing: BTreeMap<String, u64> = BTreeMap::new();
        for f in self.failing() {
            *failing.entry(f.resource.to_string()).or_default() += 1;
        }
        let now_failing = !failing.is_empty();
        if now_failing != self.was_failing && self.was_synced {
            self.was_failing = now_failing;
            (self.log)(if now_failing {
                format!(
                    "watch failing for {}: the cache may be stale, /readyz answers 503 until it is re-established",
                    failing.keys().cloned().collect::<Vec<_>>().join(", ")
                )
            } else {
                "every watch re-established: ready again".to_string()
            });
        }
        let mut restarts: BTreeMap<String, u64> = BTreeMap::new();
        let mut errors: BTreeMap<String, u64> = BTreeMap::new();
        for f in &self.feeds {
            *restarts.entry(f.resource.to_string()).or_default() += f.restarts;
            *errors.entry(f.resource.to_string()).or_default() += f.errors;
        }
        let c = &self.cache;
        let cached = vec![
            ("pods".to_string(), c.pods.len() as u64),
            (
                "events".to_string(),
                c.events.values().map(|m| m.len() as u64).sum(),
            ),
            ("persistentvolumeclaims".to_string(), c.pvcs.len() as u64),
            ("persistentvolumes".to_string(), c.pvs.len() as u64),
            ("nodes".to_string(), c.nodes.len() as u64),
            ("csinodes".to_string(), c.csinodes.len() as u64),
            ("volumeattachments".to_string(), c.attachments.len() as u64),
            ("csidrivers".to_string(), c.drivers.len() as u64),
            ("storageclasses".to_string(), c.classes.len() as u64),
            ("configmaps".to_string(), c.configmaps.len() as u64),
            ("secrets".to_string(), c.secrets.len() as u64),
        ];
        let now_secs = unix_now();
        let young = c
            .candidates()
            .filter(|k| self.waits_for_min_age(k, now_secs))
            .count() as u64;
        Stats {
            young,
            synced: self.synced() && !now_failing,
            failing: failing.into_iter().collect(),
            cached,
            restarts: restarts.into_iter().collect(),
            errors: errors.into_iter().collect(),
        }
    }

    /// Hand out every stuck pod again (e.g. this replica just became the leader).
    pub fn mark_all(&mut self) {
        let now = Instant::now();
        let keys: Vec<PodKey> = self.cache.candidates().cloned().collect();
        for k in keys {
            self.dirty.entry(k).or_insert(now);
        }
    }

    /// Wait for the next pods whose case changed. Nothing comes out before the cache is synced.
    pub async fn next(&mut self) -> Vec<Update> {
        loop {
            if self.synced() {
                if !self.was_synced {
                    self.was_synced = true;
                    (self.log)(format!(
                        "watch cache synced from {}: {} pods kept, {} Pending",
                        self.target,
                        self.cache.pods.len(),
                        self.cache.candidates().count()
                    ));
                    self.mark_all();
                }
                if Instant::now() >= self.next_resync {
                    self.next_resync = Instant::now() + self.opts.resync;
                    let now = Instant::now();
                    for k in self.reported.keys() {
                        self.dirty.entry(k.clone()).or_insert(now);
                    }
                }
                if !self.dirty.is_empty() {
                    let out = self.flush();
                    if !out.is_empty() {
                        return out;
                    }
                }
            }
            let due_in = self.due.keys().next().map(|secs| {
                Duration::from_secs((secs - unix_now()).max(0) as u64) + Duration::from_millis(50)
            });
            let resync_in = self.next_resync.saturating_duration_since(Instant::now());
            let wait = due_in.map_or(resync_in, |d| d.min(resync_in));
            tokio::select! {
                item = self.streams.next() => match item {
                    Some(item) => {
                        self.handle(item);
                        // Take what is already there in one go: one diagnosis per pod per burst.
                        for _ in 0..4096 {
                            match self.streams.next().now_or_never() {
                                Some(Some(item)) => self.handle(item),
                                _ => break,
                            }
                        }
                    }
                    None => std::future::pending::<()>().await,
                },
                _ = tokio::time::sleep(wait) => {
                    let now_secs = unix_now();
                    let now = Instant::now();
                    let later = self.due.split_off(&(now_secs + 1));
                    let ready = std::mem::replace(&mut self.due, later);
                    for k in ready.into_values().flatten() {
                        self.dirty.entry(k).or_insert(now);
                    }
                }
            }
        }
    }

    /// Turn the dirty pods into updates.
    fn flush(&mut self) -> Vec<Update> {
        let now_secs = unix_now();
        let denied = self.denied();
        let mut out = Vec::new();
        let mut dirty: Vec<(PodKey, Instant)> = self.dirty.drain().collect();
        dirty.sort();
        for (key, since) in dirty {
            let entry = self.cache.pods.get(&key);
            match entry.and_then(|e| e.pending.clone().map(|p| (e.uid.clone(), p))) {
                Some((uid, pod)) if self.stuck_now(&key, &pod, now_secs) => {
                    let node = pod.spec.as_ref().and_then(|s| s.node_name.clone());
                    let mut case = assemble(&self.cache, (*pod).clone());
                    case.denied = denied.clone();
                    case.inputs.push(format!("watch: {} (cache)", self.target));
                    self.reported.insert(key.clone(), uid.clone());
                    out.push(Update::Stuck {
                        key,
                        uid,
                        node,
                        case: Box::new(case),
                        since,
                    });
                }
                Some((_, pod)) => {
                    let created = pod
                        .metadata
                        .creation_timestamp
                        .as_ref()
                        .map(|t| t.0.as_second())
                        .unwrap_or(now_secs);
                    let ready_at = created + self.opts.min_age.as_secs() as i64;
                    if ready_at > now_secs {
                        self.due.entry(ready_at).or_default().insert(key.clone());
                    }
                    if let Some(uid) = self.reported.remove(&key) {
                        out.push(Update::Cleared { key, uid });
                    }
                }
                None => {
                    if let Some(uid) = self.reported.remove(&key) {
                        out.push(Update::Cleared { key, uid });
                    }
                }
            }
        }
        out
    }

    /// Stuck: for --min-age, or younger with a volume failure event (issue 29: a failing
    /// rollout is reported from its first FailedMount, not two minutes later).
    fn stuck_now(&self, key: &PodKey, pod: &Pod, now_secs: i64) -> bool {
        is_stuck(pod, now_secs, self.opts.min_age)
            || (is_stuck(pod, now_secs, Duration::ZERO) && self.has_volume_failure(key))
    }

    /// Would be stuck, but younger than --min-age and with no volume failure event.
    fn waits_for_min_age(&self, key: &PodKey, now_secs: i64) -> bool {
        let pod = self.cache.pods.get(key).and_then(|e| e.pending.as_ref());
        pod.is_some_and(|p| {
            is_stuck(p, now_secs, Duration::ZERO) && !self.stuck_now(key, p, now_secs)
        })
    }

    fn has_volume_failure(&self, key: &PodKey) -> bool {
        self.cache
            .events
            .get(key)
            .is_some_and(|m| has_volume_failure(m.values()))
    }

    fn mark(&mut self, keys: impl IntoIterator<Item = PodKey>) {
        let now = Instant::now();
        for k in keys {
            let candidate = self.cache.pods.get(&k).is_some_and(|e| e.pending.is_some());
            if candidate || self.reported.contains_key(&k) {
                self.dirty.entry(k).or_insert(now);
            }
        }
    }

    fn mark_namespace(&mut self, ns: &str) {
        let keys: Vec<PodKey> = self
            .cache
            .candidates()
            .filter(|k| k.0 == ns)
            .cloned()
            .collect();
        self.mark(keys);
    }

    fn mark_claim(&mut self, ns: &str, claim: &str) {
        let claim = claim.to_string();
        let keys: Vec<PodKey> = self
            .cache
            .candidates_using(ns, std::iter::once(&claim))
            .collect();
        self.mark(keys);
    }

    fn mark_pv(&mut self, pv: &PersistentVolume) {
        if let Some(r) = pv.spec.as_ref().and_then(|s| s.claim_ref.as_ref()) {
            let ns = r.namespace.clone().unwrap_or_default();
            let name = r.name.clone().unwrap_or_default();
            self.mark_claim(&ns, &name);
        }
    }

    fn mark_node(&mut self, node: &str) {
        let keys: Vec<PodKey> = self
            .cache
            .by_node
            .get(node)
            .into_iter()
            .flatten()
            .cloned()
            .collect();
        self.mark(keys);
    }

    fn mark_everything(&mut self) {
        let keys: Vec<PodKey> = self.cache.candidates().cloned().collect();
        self.mark(keys);
    }

    fn handle(&mut self, (idx, item): Item) {
        let payload = match item {
            Ok(p) => p,
            Err(e) => {
                self.watch_error(idx, e);
                return;
            }
        };
        // List bookkeeping common to every feed.
        let phase = match &payload {
            Payload::Pod(e) => phase_of(e),
            Payload::Event(e) => phase_of(e),
            Payload::ClaimEvent(e) => phase_of(e),
            Payload::Pvc(e) => phase_of(e),
            Payload::ConfigMap(e) => phase_of(e),
            Payload::Secret(e) => phase_of(e),
            Payload::Pv(e) => phase_of(e),
            Payload::Node(e) => phase_of(e),
            Payload::CsiNode(e) => phase_of(e),
            Payload::Attachment(e) => phase_of(e),
            Payload::Driver(e) => phase_of(e),
            Payload::Class(e) => phase_of(e),
        };
        let mut relisted = false;
        {
            let f = &mut self.feeds[idx];
            // Init comes before the list is even tried; anything else is data the server sent.
            if phase != Phase::Init {
                f.last_error = None;
            }
            match phase {
                Phase::Init => {
                    if f.synced {
                        f.restarts += 1;
                    }
                    f.listing = true;
                }
                Phase::InitDone => {
                    relisted = f.synced;
                    f.synced = true;
                    f.listing = false;
                    if f.denied {
                        f.denied = false;
                    }
                }
                Phase::Other => {}
            }
        }
        if phase == Phase::InitDone {
            let f = &self.feeds[idx];
            match f.resource {
                "persistentvolumeclaims" => self.cache.pvcs_denied = false,
                "configmaps" => self.cache.configmaps_denied = false,
                "secrets" => self.cache.secrets_denied = false,
                _ => {}
            }
            if relisted {
                (self.log)(format!(
                    "{} relisted{} (the watch could not resume: its resourceVersion expired)",
                    f.resource,
                    f.namespace
                        .as_ref()
                        .map(|n| format!(" in namespace {n}"))
                        .unwrap_or_default()
                ));
            }
        }
        let w = self.feeds[idx].writer;
        match payload {
            Payload::Pod(e) => self.on_pod(idx, e),
            Payload::Event(e) => self.on_event(idx, e, false),
            Payload::ClaimEvent(e) => self.on_event(idx, e, true),
            Payload::Pvc(e) => {
                self.writers.pvcs[w].apply_watcher_event(&e);
                if let WEvent::Apply(p) | WEvent::Delete(p) = &e {
                    let ns = p.namespace().unwrap_or_default();
                    self.mark_claim(&ns, &p.name_any());
                }
            }
            Payload::ConfigMap(e) => {
                self.writers.configmaps[w].apply_watcher_event(&e);
                if let WEvent::Apply(m) | WEvent::Delete(m) = &e {
                    self.mark_namespace(&m.metadata.namespace.clone().unwrap_or_default());
                }
            }
            Payload::Secret(e) => {
                self.writers.secrets[w].apply_watcher_event(&e);
                if let WEvent::Apply(m) | WEvent::Delete(m) = &e {
                    self.mark_namespace(&m.metadata.namespace.clone().unwrap_or_default());
                }
            }
            Payload::Pv(e) => {
                if let Some(wr) = self.writers.pvs.as_mut() {
                    wr.apply_watcher_event(&e);
                }
                if let WEvent::Apply(p) | WEvent::Delete(p) = &e {
                    self.mark_pv(p);
                }
            }
            Payload::Node(e) => {
                if let Some(wr) = self.writers.nodes.as_mut() {
                    wr.apply_watcher_event(&e);
                }
                if let WEvent::Apply(n) | WEvent::Delete(n) = &e {
                    self.mark_node(&n.name_any());
                }
            }
            Payload::CsiNode(e) => {
                if let Some(wr) = self.writers.csinodes.as_mut() {
                    wr.apply_watcher_event(&e);
                }
                if let WEvent::Apply(n) | WEvent::Delete(n) = &e {
                    self.mark_node(&n.name_any());
                }
            }
            Payload::Attachment(e) => {
                if let Some(wr) = self.writers.attachments.as_mut() {
                    wr.apply_watcher_event(&e);
                }
                if let WEvent::Apply(va) | WEvent::Delete(va) = &e {
                    let pv = va
                        .spec
                        .source
                        .persistent_volume_name
                        .as_ref()
                        .and_then(|n| self.cache.pvs.get(&ObjectRef::new(n)));
                    if let Some(pv) = pv {
                        self.mark_pv(&pv);
                    }
                }
            }
            Payload::Driver(e) => {
                if let Some(wr) = self.writers.drivers.as_mut() {
                    wr.apply_watcher_event(&e);
                }
                if matches!(e, WEvent::Apply(_) | WEvent::Delete(_)) {
                    self.mark_everything();
                }
            }
            Payload::Class(e) => {
                if let Some(wr) = self.writers.classes.as_mut() {
                    wr.apply_watcher_event(&e);
                }
                if matches!(e, WEvent::Apply(_) | WEvent::Delete(_)) {
                    self.mark_everything();
                }
            }
        }
        if relisted {
            // Whatever changed while the watch was down is in the new list.
            self.mark_everything();
        }
    }

    fn watch_error(&mut self, idx: usize, e: watcher::Error) {
        let f = &mut self.feeds[idx];
        f.errors += 1;
        let api_code = match &e {
            watcher::Error::InitialListFailed(kube::Error::Api(s))
            | watcher::Error::WatchStartFailed(kube::Error::Api(s))
            | watcher::Error::WatchFailed(kube::Error::Api(s)) => Some(s.code),
            watcher::Error::WatchError(s) => Some(s.code),
            _ => None,
        };
        let scope = f
            .namespace
            .as_ref()
            .map(|n| format!(" in namespace {n}"))
            .unwrap_or_default();
        if api_code == Some(403) {
            f.last_error = Some(Instant::now());
            if !f.denied {
                f.denied = true;
                let what = Access {
                    resource: f.resource,
                    group: f.group,
                    namespace: f.namespace.as_deref(),
                }
                .describe("list/watch");
                let consequence = if f.required {
                    "volmnt cannot work without it"
                } else {
                    "diagnoses go on without it"
                };
                (self.log)(format!(
                    "not allowed to {what} ({consequence}); the ClusterRole volmnt-watch in deploy/watch.yaml grants what volmnt watch needs"
                ));
                match f.resource {
                    "persistentvolumeclaims" if !f.synced => self.cache.pvcs_denied = true,
                    "configmaps" if !f.synced => self.cache.configmaps_denied = true,
                    "secrets" if !f.synced => self.cache.secrets_denied = true,
                    _ => {}
                }
            }
            return;
        }
        if api_code == Some(410) {
            // kube's watcher lists again on its next step; counted as a restart at its Init.
            return;
        }
        // One line per failure, not per retry: an API server down for minutes would
        // otherwise log every resource every few seconds (volmnt_watch_errors_total counts them).
        let first = f.last_error.is_none();
        f.last_error = Some(Instant::now());
        if first {
            (self.log)(format!(
                "watching {}{scope}: {e} (retrying with back-off; further errors are counted in volmnt_watch_errors_total)",
                f.resource
            ));
        }
    }

    fn on_pod(&mut self, idx: usize, e: WEvent<Pod>) {
        match e {
            WEvent::Init => {
                self.pod_buf.insert(idx, HashMap::new());
            }
            WEvent::InitApply(p) => {
                if let Some(entry) = PodEntry::of(&p) {
                    self.pod_buf
                        .entry(idx)
                        .or_default()
                        .insert(pod_key(&p), entry);
                }
            }
            WEvent::InitDone => {
                let buf = self.pod_buf.remove(&idx).unwrap_or_default();
                let scope = self.feeds[idx].namespace.clone();
                let in_scope = |k: &PodKey| scope.as_ref().is_none_or(|n| &k.0 == n);
                let gone: Vec<PodKey> = self
                    .cache
                    .pods
                    .keys()
                    .filter(|k| in_scope(k) && !buf.contains_key(*k))
                    .cloned()
                    .collect();
                for k in gone {
                    self.replace_pod(k, None);
                }
                for (k, entry) in buf {
                    self.replace_pod(k, Some(entry));
                }
            }
            WEvent::Apply(p) => {
                let key = pod_key(&p);
                self.replace_pod(key, PodEntry::of(&p));
            }
            WEvent::Delete(p) => {
                self.replace_pod(pod_key(&p), None);
            }
        }
    }

    /// Store (or drop) a pod; mark it and the stuck pods that share a claim with it.
    fn replace_pod(&mut self, key: PodKey, entry: Option<PodEntry>) {
        let old = self.cache.unindex(&key);
        let mut claims: BTreeSet<String> = BTreeSet::new();
        if let Some(o) = &old {
            claims.extend(o.user.claims.iter().cloned());
        }
        if let Some(n) = &entry {
            claims.extend(n.user.claims.iter().cloned());
            self.cache.index(key.clone(), n.clone());
        }
        let mut keys: Vec<PodKey> = self.cache.candidates_using(&key.0, claims.iter()).collect();
        keys.push(key);
        self.mark(keys);
    }

    /// A Warning event of a pod (`claims` false) or of a claim (`claims` true): kept by the
    /// object it is about, and the pods it concerns marked (the pod, or the Pending pods using
    /// the claim). A list's events replace those of its scope at once.
    fn on_event(&mut self, idx: usize, e: WEvent<CoreEvent>, claims: bool) {
        let buf = if claims {
            &mut self.claim_event_buf
        } else {
            &mut self.event_buf
        };
        let mut touched: Vec<PodKey> = Vec::new();
        match e {
            WEvent::Init => {
                buf.insert(idx, HashMap::new());
            }
            WEvent::InitApply(ev) => {
                buf.entry(idx)
                    .or_default()
                    .entry(involved_pod(&ev))
                    .or_default()
                    .insert(ev.name_any(), event_from_core(&ev));
            }
            WEvent::InitDone => {
                let fresh = buf.remove(&idx).unwrap_or_default();
                let scope = self.feeds[idx].namespace.clone();
                let in_scope = |k: &PodKey| scope.as_ref().is_none_or(|n| &k.0 == n);
                let map = self.cache.events_map(claims);
                touched.extend(map.keys().filter(|k| in_scope(k)).cloned());
                map.retain(|k, _| !in_scope(k));
                touched.extend(fresh.keys().cloned());
                map.extend(fresh);
            }
            WEvent::Apply(ev) => {
                let key = involved_pod(&ev);
                self.cache
                    .events_map(claims)
                    .entry(key.clone())
                    .or_default()
                    .insert(ev.name_any(), event_from_core(&ev));
                touched.push(key);
            }
            WEvent::Delete(ev) => {
                let key = involved_pod(&ev);
                let map = self.cache.events_map(claims);
                if let Some(m) = map.get_mut(&key) {
                    m.remove(&ev.name_any());
                    if m.is_empty() {
                        map.remove(&key);
                    }
                }
                touched.push(key);
            }
        }
        if claims {
            for (ns, claim) in touched {
                self.mark_claim(&ns, &claim);
            }
        } else {
            self.mark(touched);
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Init,
    InitDone,
    Other,
}

fn phase_of<K>(e: &WEvent<K>) -> Phase {
    match e {
        WEvent::Init => Phase::Init,
        WEvent::InitDone => Phase::InitDone,
        _ => Phase::Other,
    }
}

fn pod_key(p: &Pod) -> PodKey {
    (p.namespace().unwrap_or_default(), p.name_any())
}

fn involved_pod(e: &CoreEvent) -> PodKey {
    (
        e.involved_object
            .namespace
            .clone()
            .or_else(|| e.metadata.namespace.clone())
            .unwrap_or_default(),
        e.involved_object.name.clone().unwrap_or_default(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retries_double_from_800_ms_to_at_most_5_s_and_start_over_on_reset() {
        use kube::runtime::utils::Backoff;
        let mut b = WatchBackoff::new();
        let waits: Vec<u128> = (0..6).map(|_| b.next().unwrap().as_millis()).collect();
        for (w, base) in waits.iter().zip([800, 1600, 3200, 5000, 5000, 5000]) {
            assert!((base..base + 200).contains(w), "{waits:?}");
        }
        b.reset();
        assert!(b.next().unwrap() < Duration::from_secs(1));
    }
}
