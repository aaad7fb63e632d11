//! The live cluster → `Case`. Connection like kubectl (KUBECONFIG with several files merged,
//! `--kubeconfig`, `--context`, in-cluster config, exec and token auth through kube-rs), every
//! request bounded by `--request-timeout`, and reads issued in waves whose number does not grow
//! with the number of volumes: (1) the pod; (2) everything that only needs the pod, at once;
//! (3) the PVs and the other pods' nodes, which need the claims and pods of wave 2.
//!
//! A forbidden read does not stop the diagnosis: it is recorded (verb, resource, scope) and the
//! report says what was missing. Secrets are only ever read as metadata.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::future::join_all;
use k8s_openapi::api::core::v1::{
    ConfigMap, Event as CoreEvent, Namespace as NamespaceObj, Node, PersistentVolume,
    PersistentVolumeClaim, Pod, Secret,
};
use k8s_openapi::api::events::v1::Event as EventsV1;
use k8s_openapi::api::storage::v1::{CSIDriver, CSINode, StorageClass, VolumeAttachment};
use kube::api::{ListParams, ObjectList};
use kube::config::{KubeConfigOptions, Kubeconfig};
use kube::{Api, Client, Config};
use serde::de::DeserializeOwned;

use crate::error::{Error, Result};
use crate::model::{Case, Denied, Event, ObjectRef};

mod evidence;

/// How to reach the cluster, as kubectl's flags say it.
#[derive(Debug, Clone, Default)]
pub struct ConnectOptions {
    pub kubeconfig: Option<PathBuf>,
    pub context: Option<String>,
    pub namespace: Option<String>,
    pub request_timeout: Duration,
    /// Long-lived watches (volmnt watch): no read timeout on the connection, since a watch is
    /// quiet for minutes between changes; kube's watcher ends a stream that stays silent past
    /// its server-side timeout (290 s) plus a margin, and every other request is still bounded
    /// by `request_timeout` (`timed`).
    pub long_lived: bool,
}

/// A connected client with what volmnt tracks about its use.
#[derive(Clone)]
pub struct Cluster {
    /// API reads and writes: one connection, HTTP/2 where the server offers it.
    client: Client,
    /// kube's HTTP/1.1 client, for exec's WebSocket upgrade.
    exec_client: Client,
    /// The namespace from `-n` or the context.
    pub namespace: String,
    /// `context NAME at https://...`, for messages.
    pub target: String,
    timeout: Duration,
    requests: Arc<AtomicUsize>,
    /// Requests by API verb (get, list, watch, create, update, patch, delete).
    by_verb: Arc<[AtomicUsize; VERBS.len()]>,
    denied: Arc<Mutex<Vec<Denied>>>,
}

/// The verbs requests are counted by (the apiserver's names for them).
const VERBS: [&str; 8] = [
    "get", "list", "watch", "create", "update", "patch", "delete", "other",
];

/// The apiserver's verb for a request (k8s.io/apiserver RequestInfoFactory): GET with
/// `watch=true` is watch, GET of a named object get, of a collection list; POST create, PUT
/// update, PATCH patch, DELETE delete.
fn verb_of(method: &http::Method, uri: &http::Uri) -> usize {
    let segs: Vec<&str> = uri.path().split('/').filter(|s| !s.is_empty()).collect();
    let rest: &[&str] = match segs.first() {
        Some(&"api") if segs.len() >= 3 => &segs[2..],
        Some(&"apis") if segs.len() >= 4 => &segs[3..],
        _ => &[],
    };
    let named = if rest.first() == Some(&"namespaces") && rest.len() >= 3 {
        rest.len() >= 4
    } else {
        rest.len() >= 2
    };
    let watch = uri
        .query()
        .is_some_and(|q| q.split('&').any(|kv| kv == "watch=true" || kv == "watch=1"));
    let v = match *method {
        http::Method::GET if watch => "watch",
        http::Method::GET if named || rest.is_empty() => "get",
        http::Method::GET => "list",
        http::Method::POST => "create",
        http::Method::PUT => "update",
        http::Method::PATCH => "patch",
        http::Method::DELETE => "delete",
        _ => "other",
    };
    VERBS
        .iter()
        .position(|x| *x == v)
        .unwrap_or(VERBS.len() - 1)
}

/// What a read gave: the object, a confirmed absence, or a refusal (already recorded).
pub enum Fetch<T> {
    Got(T),
    Missing,
    Denied,
}

impl<T> Fetch<T> {
    pub fn ok(self) -> Option<T> {
        match self {
            Fetch::Got(t) => Some(t),
            _ => None,
        }
    }
}

/// Largest page asked for in one list call; memory stays bounded on big clusters.
pub const PAGE: u32 = 500;

impl Cluster {
    /// Load the config and build the client. Nothing is sent yet.
    pub async fn connect(o: &ConnectOptions) -> Result<Cluster> {
        let kopts = KubeConfigOptions {
            context: o.context.clone(),
            ..KubeConfigOptions::default()
        };
        let context_label = o
            .context
            .clone()
            .map(|c| format!("context {c}"))
            .unwrap_or_else(|| "the current context".into());
        let mut context_label = context_label;
        let mut config = match load_kubeconfig(o.kubeconfig.as_deref())? {
            Some(kc) => {
                if o.context.is_none() {
                    if let Some(cur) = kc.current_context.as_ref().filter(|c| !c.is_empty()) {
                        context_label = format!("context {cur}");
                    }
                }
                if let Some(want) = &o.context {
                    if !kc.contexts.iter().any(|c| &c.name == want) {
                        let names: Vec<&str> =
                            kc.contexts.iter().map(|c| c.name.as_str()).collect();
                        // A typo is a usage error, never "unreachable".
                        return Err(Error::Usage(format!(
                            "context {want} is not in the kubeconfig (it has: {})",
                            if names.is_empty() {
                                "none".to_string()
                            } else {
                                names.join(", ")
                            }
                        )));
                    }
                }
                Config::from_custom_kubeconfig(kc, &kopts)
                    .await
                    .map_err(|e| config_error(&context_label, e))?
            }
            None if o.context.is_none()
                && std::env::var_os("KUBERNETES_SERVICE_HOST").is_some() =>
            {
                Config::incluster().map_err(|e| {
                    Error::Unreachable(format!("reading the in-cluster configuration: {e}"))
                })?
            }
            None => {
                let home = std::env::var_os("HOME")
                    .map(|h| PathBuf::from(h).join(".kube/config").display().to_string())
                    .unwrap_or_else(|| "~/.kube/config (HOME is not set)".into());
                let kc = match std::env::var("KUBECONFIG") {
                    Ok(v) if !v.is_empty() => format!("KUBECONFIG={v} (no such file)"),
                    _ => "KUBECONFIG is not set".into(),
                };
                return Err(Error::NoCluster(format!(
                    "no kubeconfig found: no --kubeconfig given, {kc}, {home} does not exist, and not running in a pod; \
                     give --kubeconfig FILE, or diagnose saved output with --from-file"
                )));
            }
        };
        config.connect_timeout = Some(o.request_timeout);
        config.read_timeout = if o.long_lived {
            None
        } else {
            Some(o.request_timeout)
        };
        config.write_timeout = Some(o.request_timeout);
        // A retry on 429/503 would multiply the time the user waits past --request-timeout.
        config.default_retry = false;
        let namespace = o
            .namespace
            .clone()
            .unwrap_or_else(|| config.default_namespace.clone());
        let target = format!("{context_label} at {}", config.cluster_url);
        let requests = Arc::new(AtomicUsize::new(0));
        let counter = requests.clone();
        let by_verb: Arc<[AtomicUsize; VERBS.len()]> =
            Arc::new(std::array::from_fn(|_| AtomicUsize::new(0)));
        let verbs = by_verb.clone();
        let hook: super::transport::RequestHook =
            Arc::new(move |r: &http::Request<kube::client::Body>| {
                counter.fetch_add(1, Ordering::Relaxed);
                verbs[verb_of(r.method(), r.uri())].fetch_add(1, Ordering::Relaxed);
            });
        let setup =
            |e: kube::Error| Error::Unreachable(format!("setting up the client for {target}: {e}"));
        let client = super::transport::api_client(&config, hook.clone()).map_err(setup)?;
        let exec_client = super::transport::exec_client(config, hook).map_err(setup)?;
        Ok(Cluster {
            client,
            exec_client,
            namespace,
            target,
            timeout: o.request_timeout,
            requests,
            by_verb,
            denied: Arc::new(Mutex::new(Vec::new())),
        })
    }

    /// How many HTTP requests were sent so far (`-v` prints it).
    pub fn request_count(&self) -> usize {
        self.requests.load(Ordering::Relaxed)
    }

    /// Requests sent so far by verb (only verbs used), for `volmnt watch`'s metrics.
    pub fn requests_by_verb(&self) -> Vec<(String, u64)> {
        VERBS
            .iter()
            .zip(self.by_verb.iter())
            .map(|(v, n)| (v.to_string(), n.load(Ordering::Relaxed) as u64))
            .filter(|(_, n)| *n > 0)
            .collect()
    }

    /// Reads refused so far, sorted (requests finish in any order; reports must not).
    pub fn denied(&self) -> Vec<Denied> {
        let mut d = self.denied.lock().map(|d| d.clone()).unwrap_or_default();
        d.sort();
        d
    }

    fn record_denied(&self, what: Denied) {
        if let Ok(mut d) = self.denied.lock() {
            if !d.contains(&what) {
                d.push(what);
            }
        }
    }

    /// Turn a transport or API failure into volmnt's error (401 and unreachable → exit 3).
    fn fail(&self, action: &str, e: kube::Error) -> Error {
        match e {
            kube::Error::Api(s) if s.code == 401 => Error::Unreachable(format!(
                "{action}: the API server ({}) refused the credentials (401 Unauthorized)",
                self.target
            )),
            kube::Error::Api(s) => {
                Error::Unreachable(format!("{action}: {} ({} {})", s.message, s.code, s.reason))
            }
            other => {
                let cause = root_cause(&other);
                // kube's own read timeout (set from --request-timeout) fires before ours.
                if cause.contains("timed out") || cause.contains("deadline has elapsed") {
                    Error::Unreachable(format!(
                        "{action}: no answer from {} within {:?} (--request-timeout)",
                        self.target, self.timeout
                    ))
                } else {
                    Error::Unreachable(format!(
                        "{action}: cannot reach the Kubernetes API ({}): {}",
                        self.target,
                        network_cause(&other)
                    ))
                }
            }
        }
    }

    async fn timed<T>(
        &self,
        action: &str,
        fut: impl std::future::Future<Output = kube::Result<T>>,
    ) -> Result<kube::Result<T>> {
        tokio::time::timeout(self.timeout, fut).await.map_err(|_| {
            Error::Unreachable(format!(
                "{action}: no answer from {} within {:?} (--request-timeout)",
                self.target, self.timeout
            ))
        })
    }

    /// GET one object; 404 and 403 are answers, not errors.
    pub async fn get<K>(&self, api: Api<K>, name: &str, access: Access<'_>) -> Result<Fetch<K>>
    where
        K: kube::Resource + Clone + DeserializeOwned + std::fmt::Debug,
    {
        let action = match access.namespace {
            Some(ns) => format!("reading {} {ns}/{name}", access.resource),
            None => format!("reading {} {name}", access.resource),
        };
        match self.timed(&action, api.get(name)).await? {
            Ok(o) => Ok(Fetch::Got(o)),
            Err(kube::Error::Api(s)) if s.code == 404 => Ok(Fetch::Missing),
            Err(kube::Error::Api(s)) if s.code == 403 => {
                self.record_denied(access.describe("get"));
                Ok(Fetch::Denied)
            }
            Err(e) => Err(self.fail(&action, e)),
        }
    }

    /// GET only an object's metadata (used for Secrets and ConfigMaps: existence only).
    pub async fn exists<K>(&self, api: Api<K>, name: &str, access: Access<'_>) -> Result<Fetch<()>>
    where
        K: kube::Resource + Clone + DeserializeOwned + std::fmt::Debug,
    {
        let action = format!("checking {} {name}", access.resource);
        match self.timed(&action, api.get_metadata(name)).await? {
            Ok(_) => Ok(Fetch::Got(())),
            Err(kube::Error::Api(s)) if s.code == 404 => Ok(Fetch::Missing),
            Err(kube::Error::Api(s)) if s.code == 403 => {
                self.record_denied(access.describe("get"));
                Ok(Fetch::Denied)
            }
            Err(e) => Err(self.fail(&action, e)),
        }
    }

    /// LIST with pagination; `keep` filters each page so memory holds only what is kept.
    pub async fn list<K>(
        &self,
        api: Api<K>,
        params: ListParams,
        access: Access<'_>,
        mut keep: impl FnMut(&K) -> bool,
    ) -> Result<Fetch<Vec<K>>>
    where
        K: kube::Resource + Clone + DeserializeOwned + std::fmt::Debug,
    {
        let mut out = Vec::new();
        let mut params = params.limit(PAGE);
        loop {
            let action = format!("listing {}", access.resource);
            let page: ObjectList<K> = match self.timed(&action, api.list(&params)).await? {
                Ok(p) => p,
                Err(kube::Error::Api(s)) if s.code == 404 => return Ok(Fetch::Missing),
                Err(kube::Error::Api(s)) if s.code == 403 => {
                    self.record_denied(access.describe("list"));
                    return Ok(Fetch::Denied);
                }
                Err(e) => return Err(self.fail(&action, e)),
            };
            out.extend(page.items.into_iter().filter(|o| keep(o)));
            match page.metadata.continue_.filter(|c| !c.is_empty()) {
                Some(token) => params = params.continue_token(&token),
                None => break,
            }
        }
        Ok(Fetch::Got(out))
    }

    pub fn client(&self) -> Client {
        self.client.clone()
    }

    /// A client for exec (a WebSocket upgrade, which HTTP/2 cannot carry).
    pub fn exec_client(&self) -> Client {
        self.exec_client.clone()
    }

    /// Names of objects (metadata only, paginated) matching `params`; `None` when not allowed or
    /// not answered (the caller is composing an error: nothing here may fail it further).
    async fn names_matching<K>(
        &self,
        api: Api<K>,
        params: ListParams,
    ) -> Option<Vec<(String, String)>>
    where
        K: kube::Resource + Clone + DeserializeOwned + std::fmt::Debug,
    {
        let mut out = Vec::new();
        let mut params = params.limit(PAGE);
        loop {
            let page = tokio::time::timeout(self.timeout, api.list_metadata(&params))
                .await
                .ok()?
                .ok()?;
            out.extend(page.items.iter().map(|m| {
                (
                    ns_of_meta(&m.metadata),
                    m.metadata.name.clone().unwrap_or_default(),
                )
            }));
            match page.metadata.continue_.filter(|c| !c.is_empty()) {
                Some(t) => params = params.continue_token(&t),
                None => return Some(out),
            }
        }
    }

    /// Whether a namespace exists: `Some(false)` only on a 404 (a refused or failed read says
    /// nothing).
    pub async fn namespace_exists(&self, ns: &str) -> Option<bool> {
        let api: Api<NamespaceObj> = Api::all(self.client.clone());
        match tokio::time::timeout(self.timeout, api.get_metadata(ns)).await {
            Ok(Ok(_)) => Some(true),
            Ok(Err(kube::Error::Api(s))) if s.code == 404 => Some(false),
            _ => None,
        }
    }

    /// The error for a namespace that does not exist, with the names closest to it.
    pub async fn namespace_missing(&self, ns: &str) -> Error {
        let api: Api<NamespaceObj> = Api::all(self.client.clone());
        let names = self
            .names_matching(api, ListParams::default())
            .await
            .unwrap_or_default();
        let near = crate::parse::closest(ns, names.iter().map(|(_, n)| n.as_str()));
        let hint = match near.as_slice() {
            [] => "`kubectl get namespaces` lists them".to_string(),
            n => format!("did you mean {}?", quoted_list(n)),
        };
        Error::Usage(format!(
            "namespace {ns:?} does not exist in {}; {hint}",
            self.target
        ))
    }

    /// The error for a pod that is not there: whether its namespace exists, in which namespaces
    /// a pod of that name does exist, and the names in its namespace closest to it.
    async fn pod_not_found(&self, ns: &str, name: &str) -> Error {
        let c = self.client.clone();
        let (ns_exists, elsewhere, here) = futures::join!(
            self.namespace_exists(ns),
            self.names_matching(
                Api::<Pod>::all(c.clone()),
                ListParams::default().fields(&format!("metadata.name={name}")),
            ),
            self.names_matching(Api::<Pod>::namespaced(c.clone(), ns), ListParams::default()),
        );
        let elsewhere: Vec<String> = elsewhere
            .unwrap_or_default()
            .into_iter()
            .filter(|(n, pod)| n != ns && pod == name)
            .map(|(n, _)| n)
            .collect();
        let there = match elsewhere.as_slice() {
            [] => String::new(),
            [one] => format!(
                "; a pod {name:?} exists in namespace {one}: volmnt doctor pod {name} -n {one}"
            ),
            many => format!(
                "; pods named {name:?} exist in namespaces {}",
                many.join(", ")
            ),
        };
        if ns_exists == Some(false) {
            let Error::Usage(m) = self.namespace_missing(ns).await else {
                unreachable!("namespace_missing is a usage error")
            };
            return Error::Usage(format!("pod {ns}/{name}: {m}{there}"));
        }
        let near = here
            .map(|v| {
                crate::parse::closest(name, v.iter().map(|(_, n)| n.as_str()))
                    .into_iter()
                    .map(str::to_string)
                    .collect::<Vec<_>>()
            })
            .unwrap_or_default();
        let similar = if near.is_empty() {
            format!("`kubectl get pods -n {ns}` lists the pods there")
        } else {
            let r: Vec<&str> = near.iter().map(String::as_str).collect();
            format!("did you mean {}?", quoted_list(&r))
        };
        Error::Usage(format!(
            "pod {name:?} not found in namespace {ns} ({}){there}; {similar}",
            self.target
        ))
    }

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
fn lists_volumes(n: &Node) -> bool {
    n.status.as_ref().is_some_and(|s| {
        s.volumes_in_use.as_ref().is_some_and(|v| !v.is_empty())
            || s.volumes_attached.as_ref().is_some_and(|v| !v.is_empty())
    })
}

/// A node that is not Ready, or tainted out-of-service (GA in 1.28; what releases its
/// volumes for another node): the holder of a Multi-Attach may be such a node even when its
/// status no longer lists the volume.
fn not_ready_or_out_of_service(n: &Node) -> bool {
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
fn slim_node(n: Node) -> Node {
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

/// What one refused read was: verb, resource, API group, scope.
#[derive(Debug, Clone, Copy)]
pub struct Access<'a> {
    pub resource: &'a str,
    pub group: &'a str,
    pub namespace: Option<&'a str>,
}

impl<'a> Access<'a> {
    pub fn ns(resource: &'a str, namespace: &'a str) -> Self {
        Access {
            resource,
            group: "",
            namespace: Some(namespace),
        }
    }
    pub fn group_ns(resource: &'a str, group: &'a str, namespace: &'a str) -> Self {
        Access {
            resource,
            group,
            namespace: Some(namespace),
        }
    }
    pub fn cluster(resource: &'a str) -> Self {
        Access {
            resource,
            group: "",
            namespace: None,
        }
    }
    pub fn group_cluster(resource: &'a str, group: &'a str) -> Self {
        Access {
            resource,
            group,
            namespace: None,
        }
    }
    /// The refused read as the RBAC rule that would allow it. Secret existence is optional:
    /// its role (volmnt-secret-names) is separate because RBAC cannot grant metadata alone.
    pub fn describe(&self, verb: &str) -> Denied {
        let res = if self.group.is_empty() {
            self.resource.to_string()
        } else {
            format!("{}.{}", self.resource, self.group)
        };
        let mut d = Denied::new(verb, &res, self.namespace);
        d.optional = self.resource == "secrets" && self.group.is_empty();
        d
    }
}

/// What a pod's spec names: claims (incl. generic ephemeral ones), ConfigMaps and Secrets.
pub struct PodRefs {
    pub claims: BTreeSet<String>,
    pub configmaps: Vec<String>,
    pub secrets: Vec<String>,
}

impl PodRefs {
    pub fn of(pod: &Pod) -> PodRefs {
        let mut r = PodRefs {
            claims: BTreeSet::new(),
            configmaps: Vec::new(),
            secrets: Vec::new(),
        };
        let pod_name = pod.metadata.name.clone().unwrap_or_default();
        for v in pod.spec.iter().flat_map(|s| s.volumes.iter().flatten()) {
            if let Some(c) = &v.persistent_volume_claim {
                r.claims.insert(c.claim_name.clone());
            }
            if v.ephemeral.is_some() {
                r.claims.insert(format!("{pod_name}-{}", v.name));
            }
            if let Some(cm) = &v.config_map {
                if cm.optional != Some(true) {
                    r.configmaps.push(cm.name.clone());
                }
            }
            if let Some(s) = &v.secret {
                if s.optional != Some(true) {
                    r.secrets.extend(s.secret_name.clone());
                }
            }
            for src in v.projected.iter().flat_map(|p| p.sources.iter().flatten()) {
                if let Some(cm) = &src.config_map {
                    if cm.optional != Some(true) {
                        r.configmaps.push(cm.name.clone());
                    }
                }
                if let Some(s) = &src.secret {
                    if s.optional != Some(true) {
                        r.secrets.push(s.name.clone());
                    }
                }
            }
        }
        r.configmaps.sort();
        r.configmaps.dedup();
        r.secrets.sort();
        r.secrets.dedup();
        r
    }
}

/// Reads a namespace-wide run does once (paginated lists, filtered page by page) and shares
/// between its pods, so a pod's case is assembled without further requests.
#[derive(Default)]
pub struct Shared {
    /// Failure events by (namespace, pod name).
    pub events: std::collections::HashMap<(String, String), Vec<Event>>,
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

/// Is this pod stuck on its volumes: Pending, a container waiting in ContainerCreating (or
/// not started at all yet), for at least `min_age`.
pub fn is_stuck(pod: &Pod, now_secs: i64, min_age: Duration) -> bool {
    let Some(status) = &pod.status else {
        return false;
    };
    if status.phase.as_deref() != Some("Pending") {
        return false;
    }
    let created = pod
        .metadata
        .creation_timestamp
        .as_ref()
        .map(|t| t.0.as_second())
        .unwrap_or(now_secs);
    if now_secs - created < min_age.as_secs() as i64 {
        return false;
    }
    let waiting: Vec<&str> = status
        .container_statuses
        .iter()
        .chain(status.init_container_statuses.iter())
        .flatten()
        .filter_map(|c| c.state.as_ref()?.waiting.as_ref()?.reason.as_deref())
        .collect();
    let scheduled = pod
        .spec
        .as_ref()
        .and_then(|s| s.node_name.as_ref())
        .is_some();
    waiting
        .iter()
        .any(|r| *r == "ContainerCreating" || *r == "PodInitializing")
        || (waiting.is_empty() && scheduled)
        || pod_has_volume_claims_unscheduled(pod)
}

/// Pending and unscheduled with claims: often an unbound PVC (FailedScheduling).
fn pod_has_volume_claims_unscheduled(pod: &Pod) -> bool {
    let scheduled = pod
        .spec
        .as_ref()
        .and_then(|s| s.node_name.as_ref())
        .is_some();
    !scheduled && !PodRefs::of(pod).claims.is_empty()
}

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

    /// The VolumeAttachments of these PVs, filtered page by page (none asked: no request).
    async fn attachments_of(&self, pvs: BTreeSet<String>) -> Result<Fetch<Vec<VolumeAttachment>>> {
        if pvs.is_empty() {
            return Ok(Fetch::Got(Vec::new()));
        }
        self.list(
            Api::<VolumeAttachment>::all(self.client.clone()),
            ListParams::default(),
            Access::group_cluster("volumeattachments", "storage.k8s.io"),
            move |va: &VolumeAttachment| {
                va.spec
                    .source
                    .persistent_volume_name
                    .as_ref()
                    .is_some_and(|p| pvs.contains(p))
            },
        )
        .await
    }

    /// Every object of a small cluster-scoped storage.k8s.io kind (CSIDrivers, StorageClasses).
    async fn list_all<K>(&self, resource: &'static str) -> Result<Fetch<Vec<K>>>
    where
        K: kube::Resource<Scope = k8s_openapi::ClusterResourceScope>
            + Clone
            + DeserializeOwned
            + std::fmt::Debug,
        <K as kube::Resource>::DynamicType: Default,
    {
        self.list(
            Api::<K>::all(self.client.clone()),
            ListParams::default(),
            Access::group_cluster(resource, "storage.k8s.io"),
            |_| true,
        )
        .await
    }

    /// (namespace, name) of every object of a kind, read as metadata only (Secrets included).
    async fn list_names<K>(
        &self,
        api: Api<K>,
        access: Access<'_>,
    ) -> Result<Fetch<Vec<(String, String)>>>
    where
        K: kube::Resource + Clone + DeserializeOwned + std::fmt::Debug,
    {
        let mut out = Vec::new();
        let mut params = ListParams::default().limit(PAGE);
        loop {
            let action = format!("listing {}", access.resource);
            let page = match self.timed(&action, api.list_metadata(&params)).await? {
                Ok(p) => p,
                Err(kube::Error::Api(s)) if s.code == 403 => {
                    self.record_denied(access.describe("list"));
                    return Ok(Fetch::Denied);
                }
                Err(kube::Error::Api(s)) if s.code == 404 => return Ok(Fetch::Missing),
                Err(e) => return Err(self.fail(&action, e)),
            };
            out.extend(page.items.iter().map(|m| {
                (
                    ns_of_meta(&m.metadata),
                    m.metadata.name.clone().unwrap_or_default(),
                )
            }));
            match page.metadata.continue_.filter(|c| !c.is_empty()) {
                Some(t) => params = params.continue_token(&t),
                None => break,
            }
        }
        Ok(Fetch::Got(out))
    }
}

#[cfg(test)]
mod verb_tests {
    use super::*;

    #[test]
    fn requests_are_counted_by_the_apiservers_verb() {
        let v = |m: http::Method, u: &str| VERBS[verb_of(&m, &u.parse().unwrap())];
        assert_eq!(v(http::Method::GET, "/api/v1/namespaces/a/pods"), "list");
        assert_eq!(v(http::Method::GET, "/api/v1/namespaces/a/pods/p"), "get");
        assert_eq!(
            v(
                http::Method::GET,
                "/api/v1/pods?watch=true&resourceVersion=5"
            ),
            "watch"
        );
        assert_eq!(v(http::Method::GET, "/api/v1/nodes/n1"), "get");
        assert_eq!(
            v(
                http::Method::GET,
                "/apis/storage.k8s.io/v1/csidrivers?limit=500"
            ),
            "list"
        );
        assert_eq!(
            v(
                http::Method::PUT,
                "/apis/coordination.k8s.io/v1/namespaces/v/leases/l"
            ),
            "update"
        );
        assert_eq!(
            v(http::Method::PATCH, "/api/v1/namespaces/a/events/e"),
            "patch"
        );
        assert_eq!(v(http::Method::GET, "/version"), "get");
    }
}

fn ns_of(p: &Pod) -> String {
    ns_of_meta(&p.metadata)
}

fn ns_of_meta(m: &k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta) -> String {
    m.namespace.clone().unwrap_or_default()
}

/// What a namespace-wide run keeps of a pod that uses claims: a few strings, not the pod (a
/// k8s-openapi `Volume` alone is over 3 KB, every source type inline).
#[derive(Debug, Clone)]
pub struct ClaimUser {
    pub namespace: String,
    pub name: String,
    pub node: Option<String>,
    pub phase: Option<String>,
    pub deleting: bool,
    pub claims: Vec<String>,
}

impl ClaimUser {
    pub fn of(p: &Pod) -> ClaimUser {
        ClaimUser {
            namespace: ns_of(p),
            name: p.metadata.name.clone().unwrap_or_default(),
            node: p.spec.as_ref().and_then(|s| s.node_name.clone()),
            phase: p.status.as_ref().and_then(|s| s.phase.clone()),
            deleting: p.metadata.deletion_timestamp.is_some(),
            claims: PodRefs::of(p).claims.into_iter().collect(),
        }
    }

    /// Back to a minimal Pod: name, node, phase and its claim volumes (what the rules read).
    pub fn to_pod(&self) -> Pod {
        use k8s_openapi::api::core::v1::{
            PersistentVolumeClaimVolumeSource, PodSpec, PodStatus, Volume,
        };
        let mut p = Pod::default();
        p.metadata.name = Some(self.name.clone());
        p.metadata.namespace = Some(self.namespace.clone());
        if self.deleting {
            // Only presence matters to the rules; the time is not kept.
            p.metadata.deletion_timestamp = Some(
                k8s_openapi::apimachinery::pkg::apis::meta::v1::Time(Default::default()),
            );
        }
        p.spec = Some(PodSpec {
            node_name: self.node.clone(),
            volumes: Some(
                self.claims
                    .iter()
                    .map(|c| Volume {
                        name: c.clone(),
                        persistent_volume_claim: Some(PersistentVolumeClaimVolumeSource {
                            claim_name: c.clone(),
                            read_only: None,
                        }),
                        ..Volume::default()
                    })
                    .collect(),
            ),
            ..PodSpec::default()
        });
        p.status = Some(PodStatus {
            phase: self.phase.clone(),
            ..PodStatus::default()
        });
        p
    }
}

/// A core/v1 Event in the model: the same conversion as saved objects, so both paths diagnose
/// alike.
pub fn event_from_core(e: &CoreEvent) -> Event {
    crate::parse::objects::from_core_event(e)
}

/// An events.k8s.io/v1 Event in the same model.
pub fn event_from_v1(e: &EventsV1) -> Event {
    crate::parse::objects::from_events_v1(e)
}

/// The kubeconfig as kubectl finds it: `--kubeconfig`, else every existing file listed in
/// KUBECONFIG merged in order (kubectl skips missing ones), else ~/.kube/config.
fn load_kubeconfig(explicit: Option<&std::path::Path>) -> Result<Option<Kubeconfig>> {
    let read = |p: &std::path::Path| {
        Kubeconfig::read_from(p).map_err(|e| {
            Error::Unreachable(format!(
                "reading kubeconfig {}: {}",
                p.display(),
                root_cause(&e)
            ))
        })
    };
    if let Some(p) = explicit {
        // A path given on the command line that is not there is a usage error (exit 2).
        if !p.is_file() {
            return Err(Error::Usage(format!(
                "--kubeconfig {}: no such file",
                p.display()
            )));
        }
        return read(p).map(Some);
    }
    if let Some(list) = std::env::var_os("KUBECONFIG").filter(|v| !v.is_empty()) {
        let mut merged: Option<Kubeconfig> = None;
        for p in std::env::split_paths(&list).filter(|p| p.is_file()) {
            let kc = read(&p)?;
            merged = Some(match merged {
                Some(m) => m.merge(kc).map_err(|e| {
                    Error::Unreachable(format!("merging kubeconfig {}: {e}", p.display()))
                })?,
                None => kc,
            });
        }
        return Ok(merged);
    }
    let home = std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".kube/config"));
    match home.filter(|p| p.is_file()) {
        Some(p) => read(&p).map(Some),
        None => Ok(None),
    }
}

/// `"a"`, `"a" or "b"`, `"a", "b" or "c"`.
fn quoted_list(names: &[&str]) -> String {
    let q: Vec<String> = names.iter().map(|n| format!("{n:?}")).collect();
    match q.as_slice() {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} or {last}", rest.join(", ")),
    }
}

fn config_error(context: &str, e: kube::config::KubeconfigError) -> Error {
    let msg = root_cause(&e);
    Error::Unreachable(format!("loading the kubeconfig for {context}: {msg}"))
}

/// A transport failure as one human line: what went wrong, in the words an operator searches
/// for, without the library's chain of wrappers (`ServiceError: client error (Connect): ...`).
pub(crate) fn network_cause(e: &dyn std::error::Error) -> String {
    let chain = root_cause(e);
    let lower = chain.to_ascii_lowercase();
    let innermost = chain
        .rsplit(": ")
        .next()
        .unwrap_or(&chain)
        .trim()
        .to_string();
    if lower.contains("connection refused") {
        "connection refused (nothing listens at that address and port, or a firewall rejects it)"
            .into()
    } else if lower.contains("dns error")
        || lower.contains("failed to lookup address")
        || lower.contains("name or service not known")
        || lower.contains("no such host")
    {
        "the server's host name does not resolve (DNS)".into()
    } else if lower.contains("no route to host") || lower.contains("network is unreachable") {
        "no route to the server (network unreachable)".into()
    } else if lower.contains("connection reset") {
        "the connection was reset by the server or a proxy".into()
    } else if lower.contains("certificate")
        || lower.contains("invalid peer")
        || lower.contains("tls")
    {
        format!("TLS failed: {innermost} (check the kubeconfig's certificate-authority-data and server name)")
    } else {
        innermost
    }
}

/// The innermost message of an error chain: what actually went wrong.
fn root_cause(e: &dyn std::error::Error) -> String {
    let mut msgs = vec![e.to_string()];
    let mut cur = e.source();
    while let Some(s) = cur {
        let m = s.to_string();
        if !msgs.iter().any(|x| x.contains(&m)) {
            msgs.push(m);
        }
        cur = s.source();
    }
    msgs.join(": ")
}

/// What shell completion asks the cluster for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Names {
    Pods,
    Namespaces,
    Nodes,
    Claims,
}

/// Names for shell completion: best effort and bounded (`o.request_timeout`, one connection,
/// metadata only), never an error: a shell waiting on a completion must not hang or print one.
/// Pods and claims are those of `o.namespace` (or the context's).
pub fn names_for_completion(o: &ConnectOptions, what: Names) -> Vec<String> {
    let Ok(rt) = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    else {
        return Vec::new();
    };
    let budget = o.request_timeout;
    rt.block_on(async {
        let work = async {
            let cluster = Cluster::connect(o).await.ok()?;
            let c = cluster.client();
            let ns = cluster.namespace.clone();
            let names = match what {
                Names::Pods => {
                    cluster
                        .names_matching(Api::<Pod>::namespaced(c, &ns), ListParams::default())
                        .await
                }
                Names::Claims => {
                    cluster
                        .names_matching(
                            Api::<PersistentVolumeClaim>::namespaced(c, &ns),
                            ListParams::default(),
                        )
                        .await
                }
                Names::Namespaces => {
                    cluster
                        .names_matching(Api::<NamespaceObj>::all(c), ListParams::default())
                        .await
                }
                Names::Nodes => {
                    cluster
                        .names_matching(Api::<Node>::all(c), ListParams::default())
                        .await
                }
            }?;
            Some(names.into_iter().map(|(_, n)| n).collect::<Vec<_>>())
        };
        tokio::time::timeout(budget, work)
            .await
            .ok()
            .flatten()
            .unwrap_or_default()
    })
}

/// The kubeconfig's context names (no network): `--kubeconfig`, else KUBECONFIG, else
/// ~/.kube/config, as kubectl reads them.
pub fn context_names(kubeconfig: Option<&std::path::Path>) -> Vec<String> {
    let kc = match kubeconfig {
        Some(p) => Kubeconfig::read_from(p),
        None => Kubeconfig::read(),
    };
    kc.map(|k| k.contexts.into_iter().map(|c| c.name).collect())
        .unwrap_or_default()
}
