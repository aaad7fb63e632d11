//! An in-process FAKE Kubernetes API server for tests and benchmarks: real HTTP/1.1 on
//! 127.0.0.1 (hyper 1), real JSON shapes, so the product's own kube-rs client talks to it
//! unchanged.
//!
//! ```ignore
//! let cluster = FakeCluster::from_yaml(YAML);            // or ::fixture("nfs"), ::from_dir(dir)
//! let api = FakeApi::start(cluster, Options::default()).await;
//! let kubeconfig = api.write_kubeconfig(tmp_dir, "default");
//! // ... point kube::Client (or the volmnt binary, KUBECONFIG=...) at it ...
//! assert_eq!(api.requests()[0].verb, "get");
//! ```
//!
//! From a sync test (e.g. one running the real binary), `start_in_background` runs the server on
//! its own runtime thread. Dropping the `FakeApi` shuts the server down.
//!
//! What is faithful to kube-apiserver (and where it comes from):
//! - URL layout and request attributes (verb, group, resource, subresource, namespace, name) as
//!   k8s.io/apiserver's RequestInfoFactory derives them, including `/api/v1/namespaces/{ns}`
//!   being resource `namespaces`, name `{ns}`, in namespace `{ns}`.
//! - `Status` bodies for errors: NotFound, AlreadyExists, Conflict, Forbidden (the RBAC wording of
//!   apiserver's `forbiddenMessage`), Unauthorized, BadRequest, Expired, Invalid,
//!   UnsupportedMediaType, MethodNotAllowed; `details.group` omitted for the core group
//!   (`omitempty`). Unknown paths answer `404 page not found` as text/plain, like the apiserver's
//!   final not-found handler.
//! - Lists: `<Kind>List`, `metadata.resourceVersion`, items without kind/apiVersion, sorted by the
//!   storage key (`<namespace>/<name>`, i.e. etcd order), `limit`/`continue` with the real token
//!   format (base64url JSON `{"v":"meta.k8s.io/v1","rv":N,"start":"<key>\u0000"}`),
//!   `remainingItemCount` only for unfiltered lists (etcd3 store), a bad token →
//!   400 `invalid continue token: continue key is not valid: ...`, a token older than the last
//!   `compact()` → 410 `Expired` with an inconsistent-continue token (etcd3 store.go).
//! - Field selectors validated per kind with the apiserver's field-label tables
//!   (pkg/apis/core/v1/conversion.go, pkg/apis/events/v1, DefaultMetaV1FieldSelectorConversion)
//!   and the same 400 messages; values as the registry strategies' ToSelectableFields compute them.
//! - Label selectors: `=`, `==`, `!=`, `in`, `notin`, exists, `!key`, `>`/`<`.
//! - One Event store served as core/v1 and events.k8s.io/v1, converted like
//!   kubernetes pkg/apis/events/v1/conversion.go (see `core_event_to_events_v1`).
//! - Discovery: /version, /api, /apis, /api/v1, /apis/{g}, /apis/{g}/{v}, and the aggregated
//!   discovery form (apidiscovery.k8s.io/v2 and v2beta1) when the Accept header asks for it.
//! - Watch (`?watch=true`): newline-delimited `{"type":..,"object":..}` events, resume from a
//!   resourceVersion, 410 ERROR event when it is older than the last compaction,
//!   `sendInitialEvents` with the `k8s.io/initial-events-end` bookmark, `timeoutSeconds`,
//!   periodic BOOKMARKs when `allowWatchBookmarks=true` (`Options::bookmark_interval`), an object
//!   that stops matching the selector sent as DELETED and one that starts as ADDED (the cacher's
//!   behaviour), a watcher that falls behind closed rather than silently skipped, and
//!   `close_watches()` ending every stream as an apiserver restart does.
//! - Leases (coordination.k8s.io/v1) with compare-and-swap updates (409 on a stale
//!   resourceVersion); core/v1 Event writes checked as pkg/apis/core/validation/events.go does
//!   (namespace of the involvedObject; the events.k8s.io fields once eventTime is set).
//! - `pods/{name}/log` (container, previous, tailLines, limitBytes, sinceSeconds, timestamps,
//!   with the apiserver's 400/404/422 answers), the node log query through
//!   `nodes/{name}/proxy/logs/` as a kubelet answers it in each configuration ([`NodeLogs`]),
//!   and SelfSubjectAccessReview answered from the same denials as real requests; Deployments,
//!   ReplicaSets and StatefulSets stored like any object (no controller). The messages were
//!   checked against a kube-apiserver and kubelet v1.36.2.
//! - DaemonSets (apps/v1) with a small DaemonSet controller (a pod per eligible node: nodeSelector,
//!   `metadata.name` node affinity, NoSchedule/NoExecute taints against tolerations; each pod's
//!   affinity names its node, as the real controller's; the fake binds the pod to its node
//!   itself, having no scheduler, except on a node with `allocatable.pods: "0"`, where it stays
//!   Pending with PodScheduled=False/Unschedulable as the real scheduler leaves it) and a garbage collector that deletes
//!   an object's dependents (`ownerReferences`) with it unless `propagationPolicy: Orphan`.
//!
//! What is simplified (plainly): no admission (a namespace need not exist; no service-account
//! injection; only a few pod defaults), deletion is immediate (no graceful deletion, no
//! finalizers, no garbage collection), strategic-merge and apply patches are applied as JSON merge
//! patches (no `$patch` directives, lists are replaced, no field managers), `resourceVersion` on a
//! list is ignored (always the latest state; continue pages read the current state, not the
//! token's snapshot), no protobuf, no Table output, unsupported subresources (attach, portforward,
//! proxy other than a node's `logs/`, eviction, binding) answer `404 page not found`, and the labelSelector parse
//! errors' wording is approximate.
//!
//! Exec and a fake kubelet (only when `Options::kubelet` is set; see [`FakeKubelet`]): pods
//! created with `spec.nodeName` on a configured node go Running after `start_delay` (and Failed
//! with `DeadlineExceeded` after `activeDeadlineSeconds`); `pods/{name}/exec` is served as a
//! WebSocket with the Kubernetes channel protocol (`v5.channel.k8s.io`, `v4.channel.k8s.io`:
//! every binary frame starts with its channel byte, 0 stdin, 1 stdout, 2 stderr, 3 the final
//! `Status` as JSON; v5 adds 255 = close a stream, `[255, 0]` closing stdin), as
//! k8s.io/apimachinery/pkg/util/httpstream/wsstream/conn.go and
//! k8s.io/apimachinery/pkg/util/remotecommand/constants.go define it (KEP-3396 for v5). The
//! command runs on THIS machine, with the node's configured root directory standing for the
//! pod's hostPath volumes (env values under a hostPath mountPath are rewritten to it), so a
//! script reads a fixture tree as the node's `/`. There is no PID namespace to share, so the
//! fake sets `VOLMNT_LIVE=0` in the command's environment (the tree is read as files only).

// Handlers return `Result<Response, Response>` (the error is the Status response itself); its size
// does not matter in a test server.
#![allow(dead_code, clippy::result_large_err)]

use std::collections::{BTreeMap, BTreeSet};
use std::convert::Infallible;
use std::hash::{BuildHasher, Hasher};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use http_body_util::combinators::UnsyncBoxBody;
use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Frame, Incoming};
use hyper::header::{HeaderMap, HeaderValue, CONTENT_TYPE};
use hyper::{Method, Response, StatusCode};
use serde::Deserialize;
use serde_json::{json, Map, Value};
use tokio::sync::{broadcast, mpsc, oneshot};

/// The response body type of every handler.
type Body = UnsyncBoxBody<Bytes, Infallible>;

// ---------------------------------------------------------------------------------------------
// Public API
// ---------------------------------------------------------------------------------------------

/// Containers' logs: (namespace, pod, container, previous) → lines, each with how long before
/// the server started it was written (oldest first).
pub type PodLogs = BTreeMap<(String, String, String, bool), Vec<(Duration, String)>>;

/// The objects a fake cluster starts with (any mix of kinds, as JSON).
#[derive(Clone, Debug, Default)]
pub struct FakeCluster {
    pub objects: Vec<Value>,
    /// What `pods/{name}/log` serves.
    pub pod_logs: PodLogs,
    /// How each node's kubelet answers the node log query (`nodes/{name}/proxy/logs/`);
    /// a node not listed answers as a kubelet with its defaults ([`NodeLogs::QueryDisabled`]).
    pub node_logs: BTreeMap<String, NodeLogs>,
}

/// How a node's kubelet answers `GET /api/v1/nodes/NODE/proxy/logs/?query=...` (kubernetes
/// pkg/kubelet/kubelet.go, kubelet_server_journal.go; pkg/kubelet/server/server.go).
#[derive(Clone, Debug)]
pub enum NodeLogs {
    /// `enableSystemLogQuery: true` and the kubelet a journald unit: its journal entries, each
    /// with its age when the server started (oldest first), served as `journalctl --utc
    /// --output=short-precise` prints them.
    Journal(Vec<(Duration, String)>),
    /// The default (`enableSystemLogQuery: false`): `/logs/` is a file server of /var/log, the
    /// query is ignored and the directory listed (200, text/html).
    QueryDisabled,
    /// `enableSystemLogHandler: false`: 405 `logs endpoint is disabled.`
    HandlerDisabled,
    /// The query is on but the kubelet logs to a file: with options, the kubelet says so.
    NotJournald,
    /// The node's InternalIP is loopback or link-local: the apiserver refuses to proxy
    /// (400 `address not allowed`), as it does for a kubelet on 127.0.0.1.
    AddressNotAllowed,
    /// The kubelet does not answer: 503 from the apiserver's proxy.
    Unreachable,
}

impl FakeCluster {
    /// An empty cluster.
    pub fn new() -> FakeCluster {
        FakeCluster::default()
    }

    /// Multi-document YAML (or JSON); `kind: List` (and `PodList` etc.) documents are flattened.
    /// Panics on invalid YAML: this is test support.
    pub fn from_yaml(text: &str) -> FakeCluster {
        let mut cluster = FakeCluster::default();
        for doc in serde_yaml::Deserializer::from_str(text) {
            let value = serde_yaml::Value::deserialize(doc)
                .unwrap_or_else(|e| panic!("fake cluster: invalid YAML: {e}"));
            if value.is_null() {
                continue;
            }
            let json = serde_json::to_value(&value)
                .unwrap_or_else(|e| panic!("fake cluster: YAML is not JSON-compatible: {e}"));
            cluster.push(json);
        }
        cluster
    }

    /// Every `*.yaml`, `*.yml` and `*.json` file of a folder, in file-name order.
    pub fn from_dir(dir: &Path) -> FakeCluster {
        let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
            .unwrap_or_else(|e| panic!("fake cluster: cannot read {}: {e}", dir.display()))
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| {
                p.is_file()
                    && matches!(
                        p.extension().and_then(|x| x.to_str()),
                        Some("yaml" | "yml" | "json")
                    )
            })
            .collect();
        files.sort();
        let mut cluster = FakeCluster::default();
        for f in files {
            let text = std::fs::read_to_string(&f)
                .unwrap_or_else(|e| panic!("fake cluster: cannot read {}: {e}", f.display()));
            cluster
                .objects
                .extend(FakeCluster::from_yaml(&text).objects);
        }
        cluster.read_logs(dir);
        cluster
    }

    /// `fixtures/clusters/<name>/` of this package.
    pub fn fixture(name: &str) -> FakeCluster {
        FakeCluster::from_dir(
            &Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("fixtures/clusters")
                .join(name),
        )
    }

    /// Adds deploy/rbac.yaml's probe namespace (`volmnt`, with its Pod Security label), as an
    /// operator who followed the README has it: the probe pods of `node check` and
    /// `--probe-node` are created there.
    pub fn with_probe_namespace(mut self) -> FakeCluster {
        let text =
            std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/deploy/rbac.yaml"))
                .expect("deploy/rbac.yaml");
        for doc in serde_yaml::Deserializer::from_str(&text) {
            let v = serde_yaml::Value::deserialize(doc).expect("deploy/rbac.yaml parses");
            if v["kind"].as_str() == Some("Namespace") {
                self.push(serde_json::to_value(&v).expect("JSON-compatible"));
            }
        }
        self
    }

    /// Lines a container logged (`previous`: its instance before the last restart), each
    /// with its age (oldest first).
    pub fn with_pod_log(
        mut self,
        namespace: &str,
        pod: &str,
        container: &str,
        previous: bool,
        lines: &[(Duration, &str)],
    ) -> FakeCluster {
        self.pod_logs.insert(
            (namespace.into(), pod.into(), container.into(), previous),
            lines.iter().map(|(a, l)| (*a, l.to_string())).collect(),
        );
        self
    }

    /// How `node`'s kubelet answers the node log query.
    pub fn with_node_logs(mut self, node: &str, logs: NodeLogs) -> FakeCluster {
        self.node_logs.insert(node.into(), logs);
        self
    }

    /// `logs/<namespace>/<pod>/<container>.log` (and `<container>.previous.log`) and
    /// `node-logs/<node>.journal` under a fixture folder: every line a minute old, unless it
    /// starts with an RFC 3339 time (`kubectl logs --timestamps`), which is kept as its age.
    fn read_logs(&mut self, dir: &Path) {
        let age_of = |line: &str| -> (Duration, String) {
            if let Some((t, rest)) = line.split_once(' ') {
                if let Some(secs) = parse_rfc3339_secs(t) {
                    let now = SystemTime::now()
                        .duration_since(UNIX_EPOCH)
                        .unwrap_or_default()
                        .as_secs() as i64;
                    return (
                        Duration::from_secs((now - secs).max(0) as u64),
                        rest.to_string(),
                    );
                }
            }
            (Duration::from_secs(60), line.to_string())
        };
        let read = |p: &Path| -> Vec<(Duration, String)> {
            std::fs::read_to_string(p)
                .unwrap_or_else(|e| panic!("fake cluster: cannot read {}: {e}", p.display()))
                .lines()
                .map(age_of)
                .collect()
        };
        let sorted = |d: &Path| -> Vec<PathBuf> {
            let mut v: Vec<PathBuf> = std::fs::read_dir(d)
                .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect())
                .unwrap_or_default();
            v.sort();
            v
        };
        for ns in sorted(&dir.join("logs")) {
            for pod in sorted(&ns) {
                for f in sorted(&pod) {
                    let file = f.file_name().and_then(|n| n.to_str()).unwrap_or("");
                    let (ctr, previous) = match file.strip_suffix(".previous.log") {
                        Some(c) => (c, true),
                        None => match file.strip_suffix(".log") {
                            Some(c) => (c, false),
                            None => continue,
                        },
                    };
                    let name = |p: &Path| p.file_name().unwrap().to_string_lossy().into_owned();
                    self.pod_logs
                        .insert((name(&ns), name(&pod), ctr.to_string(), previous), read(&f));
                }
            }
        }
        for f in sorted(&dir.join("node-logs")) {
            if let Some(node) = f
                .file_name()
                .and_then(|n| n.to_str())
                .and_then(|n| n.strip_suffix(".journal"))
            {
                self.node_logs
                    .insert(node.to_string(), NodeLogs::Journal(read(&f)));
            }
        }
    }

    /// Adds one object (a `List` is flattened).
    pub fn push(&mut self, obj: Value) {
        let kind = obj.get("kind").and_then(Value::as_str).unwrap_or("");
        if kind.ends_with("List") {
            if let Some(items) = obj.get("items").and_then(Value::as_array) {
                let item_kind = kind.trim_end_matches("List").to_string();
                let list_api = obj.get("apiVersion").cloned();
                for item in items {
                    let mut item = item.clone();
                    if let Some(m) = item.as_object_mut() {
                        if !m.contains_key("kind") && !item_kind.is_empty() {
                            m.insert("kind".into(), Value::String(item_kind.clone()));
                        }
                        if !m.contains_key("apiVersion") {
                            if let Some(api) = &list_api {
                                m.insert("apiVersion".into(), api.clone());
                            }
                        }
                    }
                    self.push(item);
                }
                return;
            }
        }
        self.objects.push(obj);
    }
}

/// An RBAC denial: requests with this verb on this resource (in this namespace, or anywhere when
/// `namespace` is None) get 403 Forbidden. `verb` and `resource` may be `*`; `resource` may name
/// a subresource (`pods/exec`) or be group-qualified (`storageclasses.storage.k8s.io`).
#[derive(Clone, Debug)]
pub struct Deny {
    pub verb: String,
    pub resource: String,
    pub namespace: Option<String>,
}

impl Deny {
    pub fn new(verb: &str, resource: &str, namespace: Option<&str>) -> Deny {
        Deny {
            verb: verb.into(),
            resource: resource.into(),
            namespace: namespace.map(Into::into),
        }
    }
}

/// How the fake server behaves. `Options::default()` (= `Options::new()`) serves
/// events.k8s.io/v1, has no latency, no denials and no authentication.
#[derive(Clone, Debug)]
pub struct Options {
    /// Slept before every response.
    pub latency: Duration,
    /// RBAC: matching requests get 403.
    pub deny: Vec<Deny>,
    /// When set, a request without `Authorization: Bearer <token>` gets 401.
    pub token: Option<String>,
    /// Serve events.k8s.io/v1; false = the group is absent (404 on its paths, not in /apis).
    pub events_v1: bool,
    /// The user named in 403 messages (default `system:serviceaccount:volmnt:volmnt`).
    pub user: Option<String>,
    /// A fake kubelet: runs pods pinned to its nodes and serves exec (None: pods stay Pending and
    /// exec answers 404 like the other unsupported subresources).
    pub kubelet: Option<FakeKubelet>,
    /// How often a watch that asked for `allowWatchBookmarks=true` gets a BOOKMARK with the
    /// current resourceVersion (the apiserver's watch cache sends one about every minute).
    pub bookmark_interval: Duration,
    /// Serve HTTPS with a self-signed certificate and ALPN `h2` and `http/1.1`, as a
    /// kube-apiserver does (the kubeconfig carries the certificate as its CA).
    pub tls: bool,
    /// With `tls`: offer only `http/1.1` in ALPN (an apiserver behind a proxy without h2).
    pub http1_only: bool,
    /// Run the DaemonSet controller (kube-controller-manager's); false: a DaemonSet created is
    /// stored and nothing ever acts on it (no pods, no status), as on an apiserver alone.
    pub daemonset_controller: bool,
}

/// How the fake kubelet behaves, per node.
#[derive(Clone, Debug)]
pub struct FakeKubelet {
    /// Node name → behaviour. A pod pinned to a node not listed stays Pending (no kubelet).
    pub nodes: BTreeMap<String, ExecNode>,
    /// From a pod's creation to Running.
    pub start_delay: Duration,
    /// Subprotocols the server accepts, in its order of preference among the client's
    /// (default v5 then v4); `["v4.channel.k8s.io"]` behaves like a pre-1.30 cluster.
    pub protocols: Vec<String>,
}

impl Default for FakeKubelet {
    fn default() -> Self {
        FakeKubelet {
            nodes: BTreeMap::new(),
            start_delay: Duration::from_millis(50),
            protocols: vec!["v5.channel.k8s.io".into(), "v4.channel.k8s.io".into()],
        }
    }
}

impl FakeKubelet {
    /// Adds a node whose root file system is `root`.
    pub fn node(mut self, name: &str, root: &Path) -> Self {
        self.nodes.insert(name.to_string(), ExecNode::new(root));
        self
    }

    /// Adds a node configured in full.
    pub fn with(mut self, name: &str, node: ExecNode) -> Self {
        self.nodes.insert(name.to_string(), node);
        self
    }
}

/// One node of the fake kubelet.
#[derive(Clone, Debug)]
pub struct ExecNode {
    /// What a hostPath volume of path `/` shows: the node's root file system.
    pub root: PathBuf,
    /// Slept before an exec'd command starts (a slow node).
    pub delay: Duration,
    /// The kubelet is down: pods never start.
    pub dead: bool,
}

impl ExecNode {
    pub fn new(root: &Path) -> ExecNode {
        ExecNode {
            root: root.to_path_buf(),
            delay: Duration::ZERO,
            dead: false,
        }
    }

    pub fn slow(mut self, delay: Duration) -> ExecNode {
        self.delay = delay;
        self
    }

    pub fn dead(mut self) -> ExecNode {
        self.dead = true;
        self
    }
}

/// One exec session the fake served.
#[derive(Clone, Debug)]
pub struct ExecSession {
    pub namespace: String,
    pub pod: String,
    pub node: String,
    pub container: Option<String>,
    pub command: Vec<String>,
    /// The negotiated subprotocol.
    pub protocol: String,
    pub stdin_bytes: usize,
    /// None when the client went away first.
    pub exit_code: Option<i32>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            latency: Duration::ZERO,
            deny: Vec::new(),
            token: None,
            events_v1: true,
            user: None,
            kubelet: None,
            bookmark_interval: Duration::from_secs(60),
            tls: false,
            http1_only: false,
            daemonset_controller: true,
        }
    }
}

impl Options {
    pub fn new() -> Options {
        Options::default()
    }
}

/// One request the server answered.
#[derive(Clone, Debug)]
pub struct Request {
    pub method: String,
    /// The raw (still percent-encoded) path.
    pub path: String,
    /// The raw query string (without `?`).
    pub query: String,
    /// get|list|watch|create|update|patch|delete|deletecollection (the apiserver's verbs); for a
    /// non-resource path (discovery) the lower-cased method.
    pub verb: String,
    pub group: String,
    pub resource: String,
    pub subresource: Option<String>,
    pub namespace: Option<String>,
    pub name: Option<String>,
    /// When the request arrived.
    pub at: Instant,
    /// The response's status code.
    pub status: u16,
    pub content_type: Option<String>,
    /// The request body as text (empty for GET).
    pub body: String,
}

/// A running fake API server. Dropping it shuts the server down.
pub struct FakeApi {
    shared: Arc<Shared>,
    addr: SocketAddr,
    shutdown: Mutex<Option<oneshot::Sender<()>>>,
}

impl FakeApi {
    /// Binds 127.0.0.1 on a free port and serves on the current tokio runtime.
    pub async fn start(cluster: FakeCluster, opts: Options) -> FakeApi {
        let (listener, shared) = prepare(cluster, opts);
        let listener = tokio::net::TcpListener::from_std(listener).expect("fake api: listener");
        let addr = shared.addr;
        let (tx, rx) = oneshot::channel();
        tokio::spawn(serve(listener, shared.clone(), rx));
        FakeApi {
            shared,
            addr,
            shutdown: Mutex::new(Some(tx)),
        }
    }

    /// `http://127.0.0.1:PORT`
    pub fn url(&self) -> String {
        if self.shared.tls.is_some() {
            format!("https://{}", self.addr)
        } else {
            format!("http://{}", self.addr)
        }
    }

    /// TCP connections accepted so far.
    pub fn connections(&self) -> usize {
        self.shared.connections.load(Ordering::SeqCst)
    }

    /// TLS handshakes completed so far (0 without `Options::tls`).
    pub fn tls_handshakes(&self) -> usize {
        self.shared.handshakes.load(Ordering::SeqCst)
    }

    /// Connections that negotiated HTTP/2 by ALPN.
    pub fn h2_connections(&self) -> usize {
        self.shared.h2.load(Ordering::SeqCst)
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Writes `<dir>/kubeconfig` with one context `fake` (cluster `fake` = this server, user
    /// `fake` with the bearer token if one is configured, the given default namespace) and
    /// returns its path.
    pub fn write_kubeconfig(&self, dir: &Path, namespace: &str) -> PathBuf {
        let token = self.shared.opts().token;
        let user = match token {
            Some(t) => format!("    token: {}\n", json!(t)),
            None => "    {}\n".to_string(),
        };
        let ca = match &self.shared.tls {
            Some(t) => format!(
                "    certificate-authority-data: {}\n",
                base64::Engine::encode(&base64::engine::general_purpose::STANDARD, &t.cert_pem)
            ),
            None => String::new(),
        };
        let text = format!(
            "apiVersion: v1\nkind: Config\npreferences: {{}}\nclusters:\n- name: fake\n  cluster:\n{ca}    server: {}\ncontexts:\n- name: fake\n  context:\n    cluster: fake\n    user: fake\n    namespace: {}\ncurrent-context: fake\nusers:\n- name: fake\n  user:\n{user}",
            json!(self.url()),
            json!(namespace),
        );
        std::fs::create_dir_all(dir).expect("fake api: create kubeconfig dir");
        let path = dir.join("kubeconfig");
        std::fs::write(&path, text).expect("fake api: write kubeconfig");
        path
    }

    /// Every request answered so far, in the order the responses were produced.
    pub fn requests(&self) -> Vec<Request> {
        self.shared.requests.lock().unwrap().clone()
    }

    pub fn reset_requests(&self) {
        self.shared.requests.lock().unwrap().clear();
        self.shared.max_in_flight.store(0, Ordering::SeqCst);
    }

    /// Every exec session served so far (fake kubelet).
    pub fn exec_sessions(&self) -> Vec<ExecSession> {
        self.shared
            .exec_sessions
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// Writes (POST, PUT, PATCH, DELETE) received so far as `METHOD path`, noted on arrival:
    /// before the injected latency, and before they are answered and recorded in `requests`.
    pub fn writes_received(&self) -> Vec<String> {
        self.shared
            .writes_received
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// The peak number of requests being handled at the same time.
    pub fn max_in_flight(&self) -> usize {
        self.shared.max_in_flight.load(Ordering::SeqCst)
    }

    /// The current objects (after writes), as a GET would return them from their own API
    /// (events in core/v1 form).
    pub fn objects(&self) -> Vec<Value> {
        self.shared.state().objects.values().cloned().collect()
    }

    /// One object by kind (`Pod`, `Node`, ...; or plural resource), namespace (None for
    /// cluster-scoped) and name.
    pub fn object(&self, kind: &str, namespace: Option<&str>, name: &str) -> Option<Value> {
        let state = self.shared.state();
        let def = state.def_by_kind_or_resource(kind)?;
        let key = (
            def.store_group().to_string(),
            def.resource.clone(),
            if def.namespaced {
                namespace.unwrap_or("default").to_string()
            } else {
                String::new()
            },
            name.to_string(),
        );
        state.objects.get(&key).cloned()
    }

    /// Creates or replaces an object (as a controller or kubelet would), bumping its
    /// resourceVersion and notifying watchers.
    pub fn apply(&self, obj: Value) {
        let mut state = self.shared.state();
        let Some((key, obj)) = state.normalize(obj, false) else {
            panic!("fake api: apply: object without kind or name");
        };
        let typ = if state.objects.contains_key(&key) {
            "MODIFIED"
        } else {
            "ADDED"
        };
        let ev = state.commit(typ, key, Some(obj));
        let _ = self.shared.events.send(ev);
    }

    /// As if the cluster moved on (one revision) and etcd then compacted its history: every
    /// continue token and watch resourceVersion issued so far becomes too old (410 Expired).
    pub fn compact(&self) {
        let mut state = self.shared.state();
        state.rv += 1;
        state.compacted = state.rv;
        state.log.clear();
    }

    /// Ends every open watch stream, as an apiserver restart does; clients re-watch from the
    /// last resourceVersion they saw (which, after `compact()`, is answered with 410 Gone).
    pub fn close_watches(&self) {
        self.shared.watch_gen.send_modify(|g| *g += 1);
    }

    /// Down: every open connection (watches included) is closed and new connections are
    /// closed as soon as they are accepted, as when the apiserver process is stopped; the
    /// store is kept, as etcd keeps it. Up again: served as before (resourceVersions go on).
    pub fn set_down(&self, down: bool) {
        self.shared.down.send_replace(down);
    }

    /// Watch streams open right now.
    pub fn open_watches(&self) -> usize {
        self.shared.open_watches.load(Ordering::SeqCst)
    }

    /// Deletes an object as a controller would (DELETED to watchers); false when absent.
    pub fn remove(&self, kind: &str, namespace: Option<&str>, name: &str) -> bool {
        let mut state = self.shared.state();
        let Some(def) = state.def_by_kind_or_resource(kind) else {
            return false;
        };
        let key = store_key(
            &def,
            if def.namespaced {
                namespace.unwrap_or("default")
            } else {
                ""
            },
            name,
        );
        if !state.objects.contains_key(&key) {
            return false;
        }
        let ev = state.commit("DELETED", key, None);
        let _ = self.shared.events.send(ev);
        true
    }

    pub fn set_latency(&self, latency: Duration) {
        self.shared.opts.lock().unwrap().latency = latency;
    }

    pub fn set_deny(&self, deny: Vec<Deny>) {
        self.shared.opts.lock().unwrap().deny = deny;
    }

    /// Stops accepting connections and closes the open ones (also done on drop).
    pub fn shutdown(&self) {
        if let Some(tx) = self.shutdown.lock().unwrap().take() {
            let _ = tx.send(());
        }
    }
}

impl Drop for FakeApi {
    fn drop(&mut self) {
        self.shutdown();
    }
}

/// Runs the server on its own thread (with its own tokio runtime) for sync tests, e.g. ones that
/// run the real binary. It is already listening when this returns. Drop the `FakeApi` to stop
/// it; the thread then ends (join it to wait).
pub fn start_in_background(
    cluster: FakeCluster,
    opts: Options,
) -> (FakeApi, std::thread::JoinHandle<()>) {
    let (listener, shared) = prepare(cluster, opts);
    let addr = shared.addr;
    let (tx, rx) = oneshot::channel();
    let thread_shared = shared.clone();
    let thread = std::thread::Builder::new()
        .name("fake-api".into())
        .spawn(move || {
            let rt = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()
                .expect("fake api: runtime");
            rt.block_on(async move {
                let listener =
                    tokio::net::TcpListener::from_std(listener).expect("fake api: listener");
                serve(listener, thread_shared, rx).await;
            });
            rt.shutdown_timeout(Duration::from_secs(1));
        })
        .expect("fake api: spawn thread");
    (
        FakeApi {
            shared,
            addr,
            shutdown: Mutex::new(Some(tx)),
        },
        thread,
    )
}

// ---------------------------------------------------------------------------------------------
// Resource table
// ---------------------------------------------------------------------------------------------

const VERBS_ALL: &[&str] = &[
    "create",
    "delete",
    "deletecollection",
    "get",
    "list",
    "patch",
    "update",
    "watch",
];
const VERBS_NS: &[&str] = &[
    "create", "delete", "get", "list", "patch", "update", "watch",
];
const VERBS_STATUS: &[&str] = &["get", "patch", "update"];

#[derive(Clone, Debug)]
struct SubDef {
    name: String,
    group: String,
    version: String,
    kind: String,
    verbs: Vec<String>,
}

#[derive(Clone, Debug)]
struct ResDef {
    group: String,
    version: String,
    resource: String,
    singular: String,
    kind: String,
    namespaced: bool,
    short_names: Vec<String>,
    categories: Vec<String>,
    verbs: Vec<String>,
    subresources: Vec<SubDef>,
}

impl ResDef {
    fn api_version(&self) -> String {
        if self.group.is_empty() {
            self.version.clone()
        } else {
            format!("{}/{}", self.group, self.version)
        }
    }

    /// `pods`, `storageclasses.storage.k8s.io`: schema.GroupResource.String().
    fn qualified(&self) -> String {
        if self.group.is_empty() {
            self.resource.clone()
        } else {
            format!("{}.{}", self.resource, self.group)
        }
    }

    fn is_events_v1(&self) -> bool {
        self.group == "events.k8s.io" && self.resource == "events"
    }

    /// Both Event APIs share the core store.
    fn store_group(&self) -> &str {
        if self.is_events_v1() {
            ""
        } else {
            &self.group
        }
    }
}

fn strs(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

#[allow(clippy::too_many_arguments)]
fn def(
    group: &str,
    version: &str,
    resource: &str,
    singular: &str,
    kind: &str,
    namespaced: bool,
    short: &[&str],
    verbs: &[&str],
    subs: &[(&str, &str, &[&str])],
) -> ResDef {
    ResDef {
        group: group.into(),
        version: version.into(),
        resource: resource.into(),
        singular: singular.into(),
        kind: kind.into(),
        namespaced,
        short_names: strs(short),
        categories: if resource == "pods" {
            strs(&["all"])
        } else {
            Vec::new()
        },
        verbs: strs(verbs),
        subresources: subs
            .iter()
            .map(|(name, kind, verbs)| SubDef {
                name: name.to_string(),
                group: if *kind == "Eviction" {
                    "policy".into()
                } else {
                    group.into()
                },
                version: version.into(),
                kind: kind.to_string(),
                verbs: strs(verbs),
            })
            .collect(),
    }
}

fn builtin_defs() -> Vec<ResDef> {
    let st: &[(&str, &str, &[&str])] = &[];
    vec![
        def(
            "",
            "v1",
            "configmaps",
            "configmap",
            "ConfigMap",
            true,
            &["cm"],
            VERBS_ALL,
            st,
        ),
        def(
            "",
            "v1",
            "endpoints",
            "endpoints",
            "Endpoints",
            true,
            &["ep"],
            VERBS_ALL,
            st,
        ),
        def(
            "",
            "v1",
            "events",
            "event",
            "Event",
            true,
            &["ev"],
            VERBS_ALL,
            st,
        ),
        def(
            "",
            "v1",
            "namespaces",
            "namespace",
            "Namespace",
            false,
            &["ns"],
            VERBS_NS,
            &[
                ("finalize", "Namespace", &["update"]),
                ("status", "Namespace", VERBS_STATUS),
            ],
        ),
        def(
            "",
            "v1",
            "nodes",
            "node",
            "Node",
            false,
            &["no"],
            VERBS_ALL,
            &[
                (
                    "proxy",
                    "NodeProxyOptions",
                    &["create", "delete", "get", "patch", "update"],
                ),
                ("status", "Node", VERBS_STATUS),
            ],
        ),
        def(
            "",
            "v1",
            "persistentvolumeclaims",
            "persistentvolumeclaim",
            "PersistentVolumeClaim",
            true,
            &["pvc"],
            VERBS_ALL,
            &[("status", "PersistentVolumeClaim", VERBS_STATUS)],
        ),
        def(
            "",
            "v1",
            "persistentvolumes",
            "persistentvolume",
            "PersistentVolume",
            false,
            &["pv"],
            VERBS_ALL,
            &[("status", "PersistentVolume", VERBS_STATUS)],
        ),
        def(
            "",
            "v1",
            "pods",
            "pod",
            "Pod",
            true,
            &["po"],
            VERBS_ALL,
            &[
                ("attach", "PodAttachOptions", &["create", "get"]),
                ("binding", "Binding", &["create"]),
                ("ephemeralcontainers", "Pod", VERBS_STATUS),
                ("eviction", "Eviction", &["create"]),
                ("exec", "PodExecOptions", &["create", "get"]),
                ("log", "Pod", &["get"]),
                ("portforward", "PodPortForwardOptions", &["create", "get"]),
                (
                    "proxy",
                    "PodProxyOptions",
                    &["create", "delete", "get", "patch", "update"],
                ),
                ("resize", "Pod", VERBS_STATUS),
                ("status", "Pod", VERBS_STATUS),
            ],
        ),
        def(
            "",
            "v1",
            "secrets",
            "secret",
            "Secret",
            true,
            &[],
            VERBS_ALL,
            st,
        ),
        def(
            "apps",
            "v1",
            "daemonsets",
            "daemonset",
            "DaemonSet",
            true,
            &["ds"],
            VERBS_ALL,
            &[("status", "DaemonSet", VERBS_STATUS)],
        ),
        def(
            "apps",
            "v1",
            "deployments",
            "deployment",
            "Deployment",
            true,
            &["deploy"],
            VERBS_ALL,
            &[
                ("scale", "Scale", VERBS_STATUS),
                ("status", "Deployment", VERBS_STATUS),
            ],
        ),
        def(
            "apps",
            "v1",
            "replicasets",
            "replicaset",
            "ReplicaSet",
            true,
            &["rs"],
            VERBS_ALL,
            &[
                ("scale", "Scale", VERBS_STATUS),
                ("status", "ReplicaSet", VERBS_STATUS),
            ],
        ),
        def(
            "apps",
            "v1",
            "statefulsets",
            "statefulset",
            "StatefulSet",
            true,
            &["sts"],
            VERBS_ALL,
            &[
                ("scale", "Scale", VERBS_STATUS),
                ("status", "StatefulSet", VERBS_STATUS),
            ],
        ),
        // Asked with a POST that stores nothing (pkg/registry/authorization/selfsubjectaccessreview).
        def(
            "authorization.k8s.io",
            "v1",
            "selfsubjectaccessreviews",
            "selfsubjectaccessreview",
            "SelfSubjectAccessReview",
            false,
            &[],
            &["create"],
            st,
        ),
        def(
            "coordination.k8s.io",
            "v1",
            "leases",
            "lease",
            "Lease",
            true,
            &[],
            VERBS_ALL,
            st,
        ),
        def(
            "events.k8s.io",
            "v1",
            "events",
            "event",
            "Event",
            true,
            &["ev"],
            VERBS_ALL,
            st,
        ),
        def(
            "storage.k8s.io",
            "v1",
            "csidrivers",
            "csidriver",
            "CSIDriver",
            false,
            &[],
            VERBS_ALL,
            st,
        ),
        def(
            "storage.k8s.io",
            "v1",
            "csinodes",
            "csinode",
            "CSINode",
            false,
            &[],
            VERBS_ALL,
            st,
        ),
        def(
            "storage.k8s.io",
            "v1",
            "storageclasses",
            "storageclass",
            "StorageClass",
            false,
            &["sc"],
            VERBS_ALL,
            st,
        ),
        def(
            "storage.k8s.io",
            "v1",
            "volumeattachments",
            "volumeattachment",
            "VolumeAttachment",
            false,
            &[],
            VERBS_ALL,
            &[("status", "VolumeAttachment", VERBS_STATUS)],
        ),
    ]
}

/// English plural of a kind, as the apiserver's default RESTMapper guesses it.
fn plural_of(kind: &str) -> String {
    let lower = kind.to_lowercase();
    if lower.ends_with('s')
        || lower.ends_with("sh")
        || lower.ends_with("ch")
        || lower.ends_with('x')
    {
        format!("{lower}es")
    } else if lower.ends_with('y')
        && !matches!(
            lower.chars().rev().nth(1),
            Some('a' | 'e' | 'i' | 'o' | 'u')
        )
    {
        format!("{}ies", &lower[..lower.len() - 1])
    } else {
        format!("{lower}s")
    }
}

fn split_api_version(api_version: &str) -> (String, String) {
    match api_version.split_once('/') {
        Some((g, v)) => (g.to_string(), v.to_string()),
        None => (String::new(), api_version.to_string()),
    }
}

// ---------------------------------------------------------------------------------------------
// Store
// ---------------------------------------------------------------------------------------------

/// (store group, resource, namespace or "" for cluster-scoped, name)
type Key = (String, String, String, String);

#[derive(Clone, Debug)]
struct WatchEvent {
    rv: u64,
    typ: &'static str,
    key: Key,
    obj: Value,
    /// The object before this change (MODIFIED), so a watch with a selector can tell an object
    /// that stopped matching (sent as DELETED) from one that started to (sent as ADDED).
    prev: Option<Value>,
}

struct State {
    defs: Vec<ResDef>,
    objects: BTreeMap<Key, Value>,
    /// The cluster's current resourceVersion (etcd revision).
    rv: u64,
    /// History before this revision is gone (continue tokens and watches from it get 410).
    compacted: u64,
    log: Vec<WatchEvent>,
}

const MAX_LOG: usize = 10_000;

impl State {
    fn def_for(&self, group: &str, resource: &str) -> Option<&ResDef> {
        self.defs
            .iter()
            .find(|d| d.group == group && d.resource == resource)
    }

    fn def_for_kind(&self, group: &str, kind: &str) -> Option<&ResDef> {
        self.defs
            .iter()
            .find(|d| d.group == group && d.kind == kind)
    }

    fn def_by_kind_or_resource(&self, what: &str) -> Option<ResDef> {
        self.defs
            .iter()
            .find(|d| d.kind == what && !d.is_events_v1())
            .or_else(|| {
                self.defs
                    .iter()
                    .find(|d| d.resource == what && !d.is_events_v1())
            })
            .cloned()
    }

    /// Turns an incoming object (fixture or `apply`) into its stored form and key: the resource
    /// is found (or, for an unknown kind, guessed and added to discovery), Events are stored as
    /// core/v1, namespace/uid/resourceVersion filled in.
    fn normalize(&mut self, obj: Value, keep_rv: bool) -> Option<(Key, Value)> {
        let kind = obj.get("kind")?.as_str()?.to_string();
        let api_version = obj
            .get("apiVersion")
            .and_then(Value::as_str)
            .unwrap_or("v1")
            .to_string();
        let (group, version) = split_api_version(&api_version);
        let def = match self.def_for_kind(&group, &kind) {
            Some(d) => d.clone(),
            None => {
                let namespaced = obj
                    .pointer("/metadata/namespace")
                    .and_then(Value::as_str)
                    .is_some();
                let d = ResDef {
                    group: group.clone(),
                    version: version.clone(),
                    resource: plural_of(&kind),
                    singular: kind.to_lowercase(),
                    kind: kind.clone(),
                    namespaced,
                    short_names: Vec::new(),
                    categories: Vec::new(),
                    verbs: strs(VERBS_ALL),
                    subresources: Vec::new(),
                };
                self.defs.push(d.clone());
                d
            }
        };
        let mut obj = if def.is_events_v1() {
            events_v1_to_core_event(&obj)
        } else {
            obj
        };
        let store_def = if def.is_events_v1() {
            self.def_for("", "events").cloned().unwrap_or(def)
        } else {
            def
        };
        let m = obj.as_object_mut()?;
        m.insert("kind".into(), Value::String(store_def.kind.clone()));
        m.insert("apiVersion".into(), Value::String(store_def.api_version()));
        let meta = m
            .entry("metadata")
            .or_insert_with(|| json!({}))
            .as_object_mut()?;
        let name = meta.get("name")?.as_str()?.to_string();
        let namespace = if store_def.namespaced {
            let ns = meta
                .get("namespace")
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty())
                .unwrap_or("default")
                .to_string();
            meta.insert("namespace".into(), Value::String(ns.clone()));
            ns
        } else {
            meta.remove("namespace");
            String::new()
        };
        let key: Key = (
            store_def.group.clone(),
            store_def.resource.clone(),
            namespace,
            name,
        );
        if !meta.contains_key("uid") {
            meta.insert("uid".into(), Value::String(stable_uid(&key)));
        }
        if !keep_rv {
            meta.remove("resourceVersion");
        }
        if store_def.group.is_empty() && store_def.resource == "events" {
            fill_core_event_defaults(&mut obj);
        }
        Some((key, obj))
    }

    /// Stores (or, with `obj` None, removes) an object at a new revision and logs the change.
    fn commit(&mut self, typ: &'static str, key: Key, obj: Option<Value>) -> WatchEvent {
        self.rv += 1;
        let rv = self.rv;
        let mut prev = None;
        let obj = match obj {
            Some(mut o) => {
                set_rv(&mut o, rv);
                prev = self.objects.insert(key.clone(), o.clone());
                o
            }
            None => {
                let mut o = self.objects.remove(&key).unwrap_or(Value::Null);
                // A DELETED event carries the object at the deletion's revision.
                set_rv(&mut o, rv);
                o
            }
        };
        let ev = WatchEvent {
            rv,
            typ,
            key,
            obj,
            prev,
        };
        self.log.push(ev.clone());
        if self.log.len() > MAX_LOG {
            let drop = self.log.len() - MAX_LOG;
            self.log.drain(..drop);
            self.compacted = self.log.first().map(|e| e.rv - 1).unwrap_or(self.rv);
        }
        ev
    }
}

fn set_rv(obj: &mut Value, rv: u64) {
    if let Some(meta) = obj.get_mut("metadata").and_then(Value::as_object_mut) {
        meta.insert("resourceVersion".into(), Value::String(rv.to_string()));
    }
}

struct Shared {
    state: Mutex<State>,
    opts: Mutex<Options>,
    requests: Mutex<Vec<Request>>,
    in_flight: AtomicUsize,
    max_in_flight: AtomicUsize,
    writes_received: Mutex<Vec<String>>,
    events: broadcast::Sender<WatchEvent>,
    addr: SocketAddr,
    seq: AtomicU64,
    exec_sessions: Mutex<Vec<ExecSession>>,
    /// Bumped by `close_watches`: every open watch stream ends.
    watch_gen: tokio::sync::watch::Sender<u64>,
    /// `set_down(true)`: every connection is closed and new ones are dropped at once, as when
    /// the apiserver process is stopped.
    down: tokio::sync::watch::Sender<bool>,
    open_watches: Arc<AtomicUsize>,
    /// The server's TLS setup, when it serves HTTPS.
    tls: Option<Tls>,
    connections: AtomicUsize,
    handshakes: AtomicUsize,
    h2: AtomicUsize,
    /// Containers' and kubelets' logs (FakeCluster::pod_logs, node_logs), and when the server
    /// started (their ages count back from it).
    pod_logs: Mutex<PodLogs>,
    node_logs: Mutex<BTreeMap<String, NodeLogs>>,
    started: SystemTime,
}

/// A self-signed certificate for 127.0.0.1 and the acceptor built on it.
struct Tls {
    cert_pem: String,
    acceptor: tokio_rustls::TlsAcceptor,
}

impl Tls {
    fn new(http1_only: bool) -> Tls {
        let cert = rcgen::generate_simple_self_signed(vec!["127.0.0.1".into(), "localhost".into()])
            .expect("fake api: generate a certificate");
        let cert_der = cert.cert.der().clone();
        let key = tokio_rustls::rustls::pki_types::PrivateKeyDer::Pkcs8(
            tokio_rustls::rustls::pki_types::PrivatePkcs8KeyDer::from(
                cert.key_pair.serialize_der(),
            ),
        );
        let mut config = tokio_rustls::rustls::ServerConfig::builder_with_provider(Arc::new(
            tokio_rustls::rustls::crypto::ring::default_provider(),
        ))
        .with_safe_default_protocol_versions()
        .expect("fake api: TLS versions")
        .with_no_client_auth()
        .with_single_cert(vec![cert_der], key)
        .expect("fake api: TLS certificate");
        // As kube-apiserver: HTTP/2 first, HTTP/1.1 for clients that do not offer it.
        config.alpn_protocols = if http1_only {
            vec![b"http/1.1".to_vec()]
        } else {
            vec![b"h2".to_vec(), b"http/1.1".to_vec()]
        };
        Tls {
            cert_pem: cert.cert.pem(),
            acceptor: tokio_rustls::TlsAcceptor::from(Arc::new(config)),
        }
    }
}

impl Shared {
    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn opts(&self) -> Options {
        self.opts.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    fn user(&self) -> String {
        self.opts()
            .user
            .unwrap_or_else(|| "system:serviceaccount:volmnt:volmnt".into())
    }

    fn new_uid(&self) -> String {
        let n = self.seq.fetch_add(1, Ordering::SeqCst);
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_u64(n);
        h.write_u128(
            SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .unwrap_or_default()
                .as_nanos(),
        );
        let a = h.finish();
        h.write_u64(a);
        uuid_from(a, h.finish())
    }
}

fn prepare(cluster: FakeCluster, opts: Options) -> (std::net::TcpListener, Arc<Shared>) {
    let tls = opts.tls;
    let http1_only = opts.http1_only;
    let listener =
        std::net::TcpListener::bind(("127.0.0.1", 0)).expect("fake api: bind 127.0.0.1:0");
    listener
        .set_nonblocking(true)
        .expect("fake api: set_nonblocking");
    let addr = listener.local_addr().expect("fake api: local_addr");
    let mut state = State {
        defs: builtin_defs(),
        objects: BTreeMap::new(),
        rv: 0,
        compacted: 0,
        log: Vec::new(),
    };
    // Keep the fixtures' numeric resourceVersions; the cluster's revision starts above them.
    let mut pending = Vec::new();
    // As on a real cluster, every namespace an object lives in exists (NamespaceLifecycle
    // admission refuses objects in a namespace that does not), and so do the four that
    // kube-apiserver creates itself. A fixture that declares a Namespace keeps its own.
    let pod_logs = cluster.pod_logs;
    let node_logs = cluster.node_logs;
    let mut objects = cluster.objects;
    let declared: BTreeSet<String> = objects
        .iter()
        .filter(|o| o.get("kind").and_then(Value::as_str) == Some("Namespace"))
        .filter_map(|o| {
            o.pointer("/metadata/name")
                .and_then(Value::as_str)
                .map(str::to_string)
        })
        .collect();
    let mut used: BTreeSet<String> = ["default", "kube-system", "kube-public", "kube-node-lease"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    used.extend(objects.iter().filter_map(|o| {
        o.pointer("/metadata/namespace")
            .and_then(Value::as_str)
            .map(str::to_string)
    }));
    for ns in used.difference(&declared) {
        objects.push(serde_json::json!({
            "apiVersion": "v1",
            "kind": "Namespace",
            "metadata": {"name": ns, "labels": {"kubernetes.io/metadata.name": ns}},
            "status": {"phase": "Active"}
        }));
    }
    for obj in objects {
        match state.normalize(obj, true) {
            Some((key, obj)) => pending.push((key, obj)),
            None => panic!("fake cluster: an object without kind or metadata.name"),
        }
    }
    let max_rv = pending
        .iter()
        .filter_map(|(_, o)| {
            o.pointer("/metadata/resourceVersion")
                .and_then(Value::as_str)
                .and_then(|s| s.parse::<u64>().ok())
        })
        .max()
        .unwrap_or(0);
    state.rv = max_rv.max(100);
    for (key, mut obj) in pending {
        let has_rv = obj
            .pointer("/metadata/resourceVersion")
            .and_then(Value::as_str)
            .and_then(|s| s.parse::<u64>().ok())
            .is_some();
        if !has_rv {
            state.rv += 1;
            set_rv(&mut obj, state.rv);
        }
        state.objects.insert(key, obj);
    }
    state.compacted = state.rv;
    let (events, _) = broadcast::channel(16_384);
    let shared = Arc::new(Shared {
        state: Mutex::new(state),
        opts: Mutex::new(opts),
        requests: Mutex::new(Vec::new()),
        in_flight: AtomicUsize::new(0),
        max_in_flight: AtomicUsize::new(0),
        writes_received: Mutex::new(Vec::new()),
        events,
        addr,
        seq: AtomicU64::new(0),
        exec_sessions: Mutex::new(Vec::new()),
        watch_gen: tokio::sync::watch::channel(0).0,
        down: tokio::sync::watch::channel(false).0,
        open_watches: Arc::new(AtomicUsize::new(0)),
        tls: tls.then(|| Tls::new(http1_only)),
        connections: AtomicUsize::new(0),
        handshakes: AtomicUsize::new(0),
        h2: AtomicUsize::new(0),
        pod_logs: Mutex::new(pod_logs),
        node_logs: Mutex::new(node_logs),
        started: SystemTime::now(),
    });
    (listener, shared)
}

/// Accepts connections until `shutdown`; one task per connection. Dropping the JoinSet when the
/// loop ends aborts the open connections.
async fn serve(
    listener: tokio::net::TcpListener,
    shared: Arc<Shared>,
    mut shutdown: oneshot::Receiver<()>,
) {
    let mut conns = tokio::task::JoinSet::new();
    let mut down = shared.down.subscribe();
    loop {
        tokio::select! {
            _ = &mut shutdown => break,
            Ok(()) = down.changed() => {
                if *down.borrow_and_update() {
                    conns.abort_all();
                }
            }
            accepted = listener.accept() => {
                let Ok((stream, _)) = accepted else { continue };
                if *shared.down.borrow() {
                    drop(stream);
                    continue;
                }
                let _ = stream.set_nodelay(true);
                shared.connections.fetch_add(1, Ordering::SeqCst);
                let shared = shared.clone();
                conns.spawn(async move {
                    let svc_shared = shared.clone();
                    let svc = hyper::service::service_fn(move |req| {
                        let shared = svc_shared.clone();
                        async move { Ok::<_, Infallible>(handle(shared, req).await) }
                    });
                    // With TLS on, a plaintext client (a bench's raw replay) is still served:
                    // a TLS connection starts with a handshake record (0x16).
                    let mut first = [0u8; 1];
                    let is_tls = shared.tls.is_some()
                        && matches!(stream.peek(&mut first).await, Ok(1) if first[0] == 0x16);
                    match shared.tls.as_ref().filter(|_| is_tls) {
                        None => {
                            let _ = hyper::server::conn::http1::Builder::new()
                                .serve_connection(hyper_util::rt::TokioIo::new(stream), svc)
                                .with_upgrades()
                                .await;
                        }
                        Some(tls) => {
                            let Ok(tls_stream) = tls.acceptor.accept(stream).await else {
                                return;
                            };
                            shared.handshakes.fetch_add(1, Ordering::SeqCst);
                            let h2 = tls_stream.get_ref().1.alpn_protocol() == Some(b"h2");
                            if h2 {
                                shared.h2.fetch_add(1, Ordering::SeqCst);
                            }
                            let _ = hyper_util::server::conn::auto::Builder::new(
                                hyper_util::rt::TokioExecutor::new(),
                            )
                            .serve_connection_with_upgrades(
                                hyper_util::rt::TokioIo::new(tls_stream),
                                svc,
                            )
                            .await;
                        }
                    }
                });
            }
            Some(_) = conns.join_next(), if !conns.is_empty() => {}
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Request handling
// ---------------------------------------------------------------------------------------------

/// Request attributes as k8s.io/apiserver's RequestInfoFactory derives them.
#[derive(Clone, Debug, Default)]
struct Info {
    resource_request: bool,
    verb: String,
    group: String,
    version: String,
    resource: String,
    subresource: Option<String>,
    namespace: Option<String>,
    name: Option<String>,
    /// The path had `/namespaces/{ns}/` before the resource (or is a namespace itself).
    namespaced_path: bool,
}

fn parse_info(method: &Method, path: &str, query: &[(String, String)]) -> Info {
    let segs: Vec<String> = path
        .split('/')
        .filter(|s| !s.is_empty())
        .map(percent_decode)
        .collect();
    let mut info = Info {
        verb: method.as_str().to_lowercase(),
        ..Info::default()
    };
    let rest: &[String] = match segs.first().map(String::as_str) {
        Some("api") if segs.len() >= 3 => {
            info.version = segs[1].clone();
            &segs[2..]
        }
        Some("apis") if segs.len() >= 4 => {
            info.group = segs[1].clone();
            info.version = segs[2].clone();
            &segs[3..]
        }
        _ => return info,
    };
    info.resource_request = true;
    if rest[0] == "namespaces" && rest.len() >= 2 {
        info.namespace = Some(rest[1].clone());
        info.namespaced_path = true;
        if rest.len() == 2 || (rest.len() == 3 && matches!(rest[2].as_str(), "status" | "finalize"))
        {
            info.resource = "namespaces".into();
            info.name = Some(rest[1].clone());
            info.subresource = rest.get(2).cloned();
        } else {
            info.resource = rest[2].clone();
            info.name = rest.get(3).cloned();
            // `.../pods/p/log`, `.../nodes/n/proxy/logs/`: the subresource is the one segment
            // after the name; the rest is its path (RequestInfoFactory: Parts[2]).
            info.subresource = rest.get(4).cloned();
        }
    } else {
        info.resource = rest[0].clone();
        info.name = rest.get(1).cloned();
        info.subresource = rest.get(2).cloned();
    }
    let watch = query_get(query, "watch").is_some_and(|v| v == "true" || v == "1");
    info.verb = match *method {
        Method::GET | Method::HEAD => {
            if watch {
                "watch"
            } else if info.name.is_some() {
                "get"
            } else {
                "list"
            }
        }
        Method::POST => "create",
        Method::PUT => "update",
        Method::PATCH => "patch",
        Method::DELETE => {
            if info.name.is_some() {
                "delete"
            } else {
                "deletecollection"
            }
        }
        _ => return info,
    }
    .to_string();
    info
}

async fn handle(shared: Arc<Shared>, req: hyper::Request<Incoming>) -> Response<Body> {
    let at = Instant::now();
    if shared.opts().kubelet.is_some() && is_exec_path(req.uri().path()) {
        return exec_upgrade(shared, req, at).await;
    }
    let now = shared.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
    shared.max_in_flight.fetch_max(now, Ordering::SeqCst);
    let (parts, body) = req.into_parts();
    if !matches!(parts.method, Method::GET | Method::HEAD | Method::OPTIONS) {
        shared
            .writes_received
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(format!("{} {}", parts.method, parts.uri.path()));
    }
    let body = body
        .collect()
        .await
        .map(|b| b.to_bytes())
        .unwrap_or_default();
    let latency = shared.opts().latency;
    if !latency.is_zero() {
        tokio::time::sleep(latency).await;
    }
    let path = parts.uri.path().to_string();
    let raw_query = parts.uri.query().unwrap_or("").to_string();
    let query = parse_query(&raw_query);
    let info = parse_info(&parts.method, &path, &query);
    let call = Call {
        method: &parts.method,
        path: &path,
        query: &query,
        headers: &parts.headers,
        body: &body,
        info: &info,
    };
    let mut resp = respond(&shared, &call);
    shared.in_flight.fetch_sub(1, Ordering::SeqCst);
    let headers = resp.headers_mut();
    headers.insert(
        "cache-control",
        HeaderValue::from_static("no-cache, private"),
    );
    if let Ok(v) = HeaderValue::from_str(&shared.new_uid()) {
        headers.insert("audit-id", v);
    }
    let record = Request {
        method: parts.method.to_string(),
        path,
        query: raw_query,
        verb: info.verb.clone(),
        group: info.group.clone(),
        resource: info.resource.clone(),
        subresource: info.subresource.clone(),
        namespace: info.namespace.clone(),
        name: info.name.clone(),
        at,
        status: resp.status().as_u16(),
        content_type: parts
            .headers
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .map(String::from),
        body: String::from_utf8_lossy(&body).into_owned(),
    };
    shared
        .requests
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .push(record);
    resp
}

struct Call<'a> {
    method: &'a Method,
    path: &'a str,
    query: &'a [(String, String)],
    headers: &'a HeaderMap,
    body: &'a [u8],
    info: &'a Info,
}

impl Call<'_> {
    fn q(&self, name: &str) -> Option<&str> {
        query_get(self.query, name)
    }

    /// `?dryRun=All`, or `dryRun: ["All"]` in a DeleteOptions body.
    fn dry_run(&self) -> bool {
        self.q("dryRun") == Some("All")
            || serde_json::from_slice::<Value>(self.body).is_ok_and(|b| {
                b.get("kind").and_then(Value::as_str) == Some("DeleteOptions")
                    || !b.get("metadata").is_some_and(Value::is_object)
            } && b
                .get("dryRun")
                .and_then(Value::as_array)
                .is_some_and(|a| a.iter().any(|v| v == "All")))
    }
}

fn respond(shared: &Arc<Shared>, call: &Call) -> Response<Body> {
    let opts = shared.opts();
    // Authentication, then authorization, then the handler: the apiserver's filter order.
    if let Some(token) = &opts.token {
        let ok = call
            .headers
            .get("authorization")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| {
                v.get(..7)
                    .filter(|p| p.eq_ignore_ascii_case("bearer "))
                    .map(|_| v[7..].trim())
            })
            == Some(token.as_str());
        if !ok {
            return status(401, "Unauthorized", "Unauthorized", None);
        }
    }
    let info = call.info;
    if !info.resource_request {
        return discovery(shared, call, &opts);
    }
    if let Some(resp) = forbidden(shared, info, &opts) {
        return resp;
    }
    let def = {
        let state = shared.state();
        state.def_for(&info.group, &info.resource).cloned()
    };
    let Some(def) = def else {
        return page_not_found();
    };
    if def.version != info.version || (def.is_events_v1() && !opts.events_v1) {
        return page_not_found();
    }
    // Routes that do not exist on the real server.
    if def.namespaced && !info.namespaced_path && info.name.is_some() {
        return page_not_found();
    }
    if !def.namespaced && info.namespaced_path && def.resource != "namespaces" {
        return page_not_found();
    }
    if def.namespaced && !info.namespaced_path && !matches!(info.verb.as_str(), "list" | "watch") {
        return status(
            405,
            "MethodNotAllowed",
            "the server does not allow this method on the requested resource",
            None,
        );
    }
    if def.group.is_empty()
        && def.resource == "pods"
        && info.verb == "get"
        && info.subresource.as_deref() == Some("log")
    {
        return pod_log(shared, call).unwrap_or_else(|e| e);
    }
    if def.group.is_empty()
        && def.resource == "nodes"
        && info.verb == "get"
        && info.subresource.as_deref() == Some("proxy")
    {
        return node_proxy(shared, call).unwrap_or_else(|e| e);
    }
    if def.group == "authorization.k8s.io" && def.resource == "selfsubjectaccessreviews" {
        return self_subject_access_review(shared, call).unwrap_or_else(|e| e);
    }
    if let Some(sub) = &info.subresource {
        if sub != "status" || !matches!(info.verb.as_str(), "get" | "patch" | "update") {
            return page_not_found();
        }
    }
    let result = match info.verb.as_str() {
        "get" => get_one(shared, call, &def),
        "list" => list(shared, call, &def),
        "watch" => watch(shared, call, &def),
        "create" => {
            let r = create(shared, call, &def);
            if def.group.is_empty() && def.resource == "pods" && !call.dry_run() {
                if let Ok(resp) = &r {
                    if resp.status() == 201 {
                        kubelet_start(shared, call);
                    }
                }
            }
            if def.group == "apps"
                && def.resource == "daemonsets"
                && !call.dry_run()
                && shared.opts().daemonset_controller
            {
                if let Ok(resp) = &r {
                    if resp.status() == 201 {
                        daemonset_controller(shared, call);
                    }
                }
            }
            r
        }
        "update" => update(shared, call, &def),
        "patch" => patch(shared, call, &def),
        "delete" => {
            let r = delete(shared, call, &def);
            if !call.dry_run() {
                if let Ok(resp) = &r {
                    if resp.status() == 200 {
                        garbage_collect(shared, call);
                    }
                }
            }
            r
        }
        "deletecollection" => delete_collection(shared, call, &def),
        _ => Err(status(
            405,
            "MethodNotAllowed",
            "the server does not allow this method on the requested resource",
            None,
        )),
    };
    result.unwrap_or_else(|e| e)
}

type Reply = Result<Response<Body>, Response<Body>>;

/// 403 for a denied request, worded like apiserver's responsewriters.forbiddenMessage wrapped in
/// apierrors.NewForbidden.
fn forbidden(shared: &Shared, info: &Info, opts: &Options) -> Option<Response<Body>> {
    let full_resource = match &info.subresource {
        Some(s) => format!("{}/{}", info.resource, s),
        None => info.resource.clone(),
    };
    let qualified_names = |r: &str| -> Vec<String> {
        let mut v = vec![r.to_string()];
        if !info.group.is_empty() {
            v.push(format!("{r}.{}", info.group));
        }
        v
    };
    let names = qualified_names(&full_resource);
    let denied = is_denied(opts, &info.verb, &names, info.namespace.as_deref());
    if !denied {
        return None;
    }
    let user = shared.user();
    let scope = match &info.namespace {
        Some(ns) => format!("in the namespace {}", go_quote(ns)),
        None => "at the cluster scope".into(),
    };
    let reason = format!(
        "User {} cannot {} resource {} in API group {} {scope}",
        go_quote(&user),
        info.verb,
        go_quote(&full_resource),
        go_quote(&info.group),
    );
    let qualified = if info.group.is_empty() {
        info.resource.clone()
    } else {
        format!("{}.{}", info.resource, info.group)
    };
    let name = info.name.clone().unwrap_or_default();
    let message = if name.is_empty() {
        format!("{qualified} is forbidden: {reason}")
    } else {
        format!("{qualified} {} is forbidden: {reason}", go_quote(&name))
    };
    Some(status(
        403,
        "Forbidden",
        &message,
        Some(details(&name, &info.group, &info.resource)),
    ))
}

/// Whether a `Deny` of the options matches (verb, resource names as `pods/log` and
/// `pods/log.group`, namespace).
fn is_denied(opts: &Options, verb: &str, names: &[String], namespace: Option<&str>) -> bool {
    opts.deny.iter().any(|d| {
        (d.verb == "*" || d.verb == verb)
            && (d.resource == "*" || names.contains(&d.resource))
            && match &d.namespace {
                None => true,
                Some(ns) => namespace == Some(ns.as_str()),
            }
    })
}

fn details(name: &str, group: &str, kind: &str) -> Value {
    let mut d = Map::new();
    if !name.is_empty() {
        d.insert("name".into(), json!(name));
    }
    if !group.is_empty() {
        d.insert("group".into(), json!(group));
    }
    d.insert("kind".into(), json!(kind));
    Value::Object(d)
}

fn not_found(def: &ResDef, name: &str) -> Response<Body> {
    status(
        404,
        "NotFound",
        &format!("{} {} not found", def.qualified(), go_quote(name)),
        Some(details(name, &def.group, &def.resource)),
    )
}

/// The namespace and name a request addresses (namespace "" for cluster-scoped).
fn target(def: &ResDef, info: &Info) -> (String, String) {
    let ns = if def.namespaced {
        info.namespace.clone().unwrap_or_default()
    } else {
        String::new()
    };
    (ns, info.name.clone().unwrap_or_default())
}

fn store_key(def: &ResDef, ns: &str, name: &str) -> Key {
    (
        def.store_group().to_string(),
        def.resource.clone(),
        ns.to_string(),
        name.to_string(),
    )
}

/// The object as the requested API serves it.
fn view(def: &ResDef, stored: &Value) -> Value {
    if def.is_events_v1() {
        core_event_to_events_v1(stored)
    } else {
        stored.clone()
    }
}

fn get_one(shared: &Shared, call: &Call, def: &ResDef) -> Reply {
    let (ns, name) = target(def, call.info);
    let state = shared.state();
    match state.objects.get(&store_key(def, &ns, &name)) {
        Some(obj) => Ok(json_response(200, &view(def, obj))),
        None => Err(not_found(def, &name)),
    }
}

/// Parsed `labelSelector` and `fieldSelector` of a request (400 when invalid).
struct Selectors {
    labels: Vec<LabelReq>,
    fields: Vec<FieldReq>,
}

impl Selectors {
    fn from_call(call: &Call, def: &ResDef) -> Result<Selectors, Response<Body>> {
        let labels = parse_label_selector(call.q("labelSelector").unwrap_or(""))
            .map_err(|m| status(400, "BadRequest", &m, None))?;
        let fields = parse_field_selector(call.q("fieldSelector").unwrap_or(""), def)
            .map_err(|m| status(400, "BadRequest", &m, None))?;
        Ok(Selectors { labels, fields })
    }

    fn is_empty(&self) -> bool {
        self.labels.is_empty() && self.fields.is_empty()
    }

    fn matches(&self, def: &ResDef, viewed: &Value) -> bool {
        let empty = Map::new();
        let labels = viewed
            .pointer("/metadata/labels")
            .and_then(Value::as_object)
            .unwrap_or(&empty);
        self.labels.iter().all(|r| r.matches(labels))
            && self.fields.iter().all(|r| r.matches(def, viewed))
    }
}

/// The etcd-style key of an object within a list: `<ns>/<name>` when listing across namespaces,
/// `<name>` otherwise.
fn list_key(all_namespaces: bool, key: &Key) -> String {
    if all_namespaces {
        format!("{}/{}", key.2, key.3)
    } else {
        key.3.clone()
    }
}

/// Objects of the request's resource in the request's namespace (all when none), matching the
/// selectors, in storage-key order, as the requested API serves them.
fn select(state: &State, call: &Call, def: &ResDef, sel: &Selectors) -> Vec<(String, Key, Value)> {
    let ns_filter = if def.namespaced {
        call.info.namespace.clone()
    } else {
        None
    };
    let all = def.namespaced && ns_filter.is_none();
    let mut out: Vec<(String, Key, Value)> = state
        .objects
        .iter()
        .filter(|(k, _)| k.0 == def.store_group() && k.1 == def.resource)
        .filter(|(k, _)| ns_filter.as_ref().is_none_or(|ns| &k.2 == ns))
        .map(|(k, o)| (list_key(all, k), k.clone(), view(def, o)))
        .filter(|(_, _, v)| sel.matches(def, v))
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

fn list_body(def: &ResDef, rv: u64, items: Vec<Value>, extra: Map<String, Value>) -> Value {
    let mut meta = Map::new();
    meta.insert("resourceVersion".into(), json!(rv.to_string()));
    meta.extend(extra);
    json!({
        "kind": format!("{}List", def.kind),
        "apiVersion": def.api_version(),
        "metadata": meta,
        "items": items.into_iter().map(strip_type_meta).collect::<Vec<_>>(),
    })
}

fn strip_type_meta(mut v: Value) -> Value {
    if let Some(m) = v.as_object_mut() {
        m.remove("kind");
        m.remove("apiVersion");
    }
    v
}

const EXPIRED_CONTINUE: &str = "The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.";

fn list(shared: &Shared, call: &Call, def: &ResDef) -> Reply {
    let sel = Selectors::from_call(call, def)?;
    let limit = match call.q("limit") {
        None | Some("") => 0,
        Some(s) => s.parse::<i64>().map_err(|_| {
            status(
                400,
                "BadRequest",
                &format!("strconv.ParseInt: parsing {}: invalid syntax", go_quote(s)),
                None,
            )
        })?,
    };
    let state = shared.state();
    let mut start: Option<String> = None;
    let mut list_rv = state.rv;
    if let Some(token) = call.q("continue").filter(|t| !t.is_empty()) {
        let (key, rv) = decode_continue(token).map_err(|e| {
            status(
                400,
                "BadRequest",
                &format!("invalid continue token: {e}"),
                None,
            )
        })?;
        if rv > 0 && (rv as u64) < state.compacted {
            // etcd3 store: the revision was compacted; offer an inconsistent continuation.
            let mut resp = status_value(410, "Expired", EXPIRED_CONTINUE, None);
            resp["metadata"] = json!({ "continue": encode_continue(&key, -1) });
            return Err(json_response(410, &resp));
        }
        if rv > 0 {
            list_rv = rv as u64;
        }
        start = Some(key);
    }
    // Keys first (cheap), objects only for the page: a list of 50,000 pods in pages of 500
    // must not copy every object for every page.
    let ns_filter = if def.namespaced {
        call.info.namespace.clone()
    } else {
        None
    };
    let all_ns = def.namespaced && ns_filter.is_none();
    let mut keys: Vec<(String, &Key)> = state
        .objects
        .keys()
        .filter(|k| k.0 == def.store_group() && k.1 == def.resource)
        .filter(|k| ns_filter.as_ref().is_none_or(|ns| &k.2 == ns))
        .map(|k| (list_key(all_ns, k), k))
        .filter(|(lk, _)| start.as_ref().is_none_or(|s| lk.as_str() >= s.as_str()))
        .collect();
    keys.sort_by(|a, b| a.0.cmp(&b.0));
    let mut items: Vec<(String, Value)> = Vec::new();
    let mut more = 0usize;
    for (lk, k) in &keys {
        if limit > 0 && items.len() >= limit as usize {
            if !sel.is_empty() {
                // Only whether one more matches matters (no remainingItemCount when filtered).
                let v = view(def, &state.objects[*k]);
                if sel.matches(def, &v) {
                    more = 1;
                    break;
                }
                continue;
            }
            more += 1;
            continue;
        }
        let v = view(def, &state.objects[*k]);
        if sel.matches(def, &v) {
            items.push((lk.clone(), v));
        }
    }
    let mut extra = Map::new();
    if more > 0 {
        let last = &items.last().expect("limit > 0").0;
        extra.insert(
            "continue".into(),
            json!(encode_continue(&format!("{last}\u{0}"), list_rv as i64)),
        );
        if sel.is_empty() {
            extra.insert("remainingItemCount".into(), json!(more));
        }
    }
    let items = items.into_iter().map(|(_, v)| v).collect();
    Ok(json_response(200, &list_body(def, list_rv, items, extra)))
}

fn encode_continue(start: &str, rv: i64) -> String {
    let token = json!({ "v": "meta.k8s.io/v1", "rv": rv, "start": start });
    base64url_encode(token.to_string().as_bytes())
}

/// k8s.io/apiserver/pkg/storage DecodeContinue: the messages are the real ones.
fn decode_continue(token: &str) -> Result<(String, i64), String> {
    let data = base64url_decode(token).map_err(|e| format!("continue key is not valid: {e}"))?;
    let c: Value =
        serde_json::from_slice(&data).map_err(|e| format!("continue key is not valid: {e}"))?;
    if c.get("v").and_then(Value::as_str) != Some("meta.k8s.io/v1") {
        return Err(format!(
            "continue key is not valid: server does not recognize this encoded version {}",
            c.get("v").and_then(Value::as_str).unwrap_or("")
        ));
    }
    let rv = c.get("rv").and_then(Value::as_i64).unwrap_or(0);
    if rv == 0 {
        return Err("continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)".into());
    }
    let start = c.get("start").and_then(Value::as_str).unwrap_or("");
    if start.is_empty() {
        return Err(
            "continue key is not valid: encoded start key empty (version meta.k8s.io/v1)".into(),
        );
    }
    if start.split('/').any(|p| p == ".." || p == ".") || start.starts_with('/') {
        return Err(format!("continue key is not valid: {start}"));
    }
    Ok((start.to_string(), rv))
}

fn watch(shared: &Shared, call: &Call, def: &ResDef) -> Reply {
    let sel = Selectors::from_call(call, def)?;
    let timeout = call
        .q("timeoutSeconds")
        .and_then(|s| s.parse::<u64>().ok())
        .map(Duration::from_secs)
        .unwrap_or(Duration::from_secs(1800));
    let send_initial = call.q("sendInitialEvents") == Some("true");
    let bookmarks = call.q("allowWatchBookmarks") == Some("true");
    let from_rv = call
        .q("resourceVersion")
        .filter(|s| !s.is_empty() && *s != "0")
        .map(|s| s.parse::<u64>().unwrap_or(0));
    let ns_filter = if def.namespaced {
        call.info.namespace.clone()
    } else {
        None
    };
    let mut initial: Vec<Value> = Vec::new();
    let rx;
    let mut last_rv;
    {
        let state = shared.state();
        // Subscribe under the lock so no change between the snapshot and the stream is lost.
        rx = shared.events.subscribe();
        last_rv = state.rv;
        match from_rv {
            Some(rv) if !send_initial => {
                if rv < state.compacted {
                    // etcd3 watcher: "too old resource version: %d (%d)", as a 410 ERROR event.
                    let st = status_value(
                        410,
                        "Expired",
                        &format!("too old resource version: {rv} ({})", state.compacted),
                        None,
                    );
                    initial.push(json!({ "type": "ERROR", "object": st }));
                } else {
                    for ev in state.log.iter().filter(|e| e.rv > rv) {
                        if let Some(line) = watch_line(def, &ns_filter, &sel, ev) {
                            initial.push(line);
                        }
                    }
                }
            }
            _ => {
                for (_, _, v) in select(&state, call, def, &sel) {
                    initial.push(json!({ "type": "ADDED", "object": v }));
                }
                if send_initial {
                    initial.push(bookmark(def, state.rv, true));
                }
            }
        }
    }
    let expired = initial.first().is_some_and(|l| l["type"] == "ERROR");
    let (tx, body_rx) = mpsc::channel::<Bytes>(256);
    let def = def.clone();
    let mut rx = rx;
    let mut closed = shared.watch_gen.subscribe();
    closed.borrow_and_update();
    let every = shared
        .opts()
        .bookmark_interval
        .max(Duration::from_millis(10));
    let open = OpenWatch::new(shared);
    tokio::spawn(async move {
        let _open = open;
        for line in initial {
            if tx.send(ndjson(&line)).await.is_err() {
                return;
            }
        }
        if expired {
            return;
        }
        let deadline = tokio::time::sleep(timeout);
        tokio::pin!(deadline);
        let mut tick = tokio::time::interval_at(tokio::time::Instant::now() + every, every);
        loop {
            tokio::select! {
                // An apiserver restart ends the stream before anything committed after it.
                biased;
                _ = closed.changed() => return,
                _ = &mut deadline => return,
                _ = tx.closed() => return,
                _ = tick.tick(), if bookmarks => {
                    if tx.send(ndjson(&bookmark(&def, last_rv, false))).await.is_err() {
                        return;
                    }
                }
                ev = rx.recv() => match ev {
                    Ok(ev) => {
                        last_rv = ev.rv;
                        if let Some(line) = watch_line(&def, &ns_filter, &sel, &ev) {
                            if tx.send(ndjson(&line)).await.is_err() {
                                return;
                            }
                        }
                    }
                    // A watcher that cannot keep up is closed, as the apiserver's cacher does
                    // ("Forcing watcher close due to unresponsiveness"); the client re-watches
                    // from the last resourceVersion it saw. Dropping events silently would be
                    // a lie no real server tells.
                    Err(broadcast::error::RecvError::Lagged(_)) => return,
                    Err(broadcast::error::RecvError::Closed) => return,
                },
            }
        }
    });
    let body = ChannelBody { rx: body_rx }.boxed_unsync();
    let mut resp = Response::new(body);
    resp.headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    Ok(resp)
}

/// Counts a watch stream while it is open.
struct OpenWatch(Arc<AtomicUsize>);

impl OpenWatch {
    fn new(shared: &Shared) -> OpenWatch {
        shared.open_watches.fetch_add(1, Ordering::SeqCst);
        OpenWatch(shared.open_watches.clone())
    }
}

impl Drop for OpenWatch {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// A BOOKMARK watch event: only kind, apiVersion and metadata.resourceVersion, as the apiserver
/// sends it; `initial_end` marks the end of `sendInitialEvents` (KEP-3157).
fn bookmark(def: &ResDef, rv: u64, initial_end: bool) -> Value {
    let mut meta = json!({ "resourceVersion": rv.to_string() });
    if initial_end {
        meta["annotations"] = json!({ "k8s.io/initial-events-end": "true" });
    }
    json!({
        "type": "BOOKMARK",
        "object": { "kind": def.kind, "apiVersion": def.api_version(), "metadata": meta },
    })
}

/// One change as a watch with these filters sees it. With a selector, the apiserver's cacher
/// turns a change that makes an object stop matching into DELETED, and one that makes it start
/// matching into ADDED (k8s.io/apiserver/pkg/storage/cacher, cacheWatcher.convertToWatchEvent).
fn watch_line(
    def: &ResDef,
    ns_filter: &Option<String>,
    sel: &Selectors,
    ev: &WatchEvent,
) -> Option<Value> {
    if ev.key.0 != def.store_group() || ev.key.1 != def.resource {
        return None;
    }
    if let Some(ns) = ns_filter {
        if &ev.key.2 != ns {
            return None;
        }
    }
    let v = view(def, &ev.obj);
    let now = sel.matches(def, &v);
    let before = match (&ev.prev, ev.typ) {
        (Some(p), "MODIFIED") => sel.matches(def, &view(def, p)),
        (_, "MODIFIED") => true,
        _ => now,
    };
    let typ = match (ev.typ, before, now) {
        ("MODIFIED", true, true) => "MODIFIED",
        ("MODIFIED", false, true) => "ADDED",
        ("MODIFIED", true, false) => "DELETED",
        (t, _, true) if t != "MODIFIED" => t,
        _ => return None,
    };
    Some(json!({ "type": typ, "object": v }))
}

fn ndjson(v: &Value) -> Bytes {
    let mut s = v.to_string();
    s.push('\n');
    Bytes::from(s)
}

/// A response body fed from a channel (watch streams).
struct ChannelBody {
    rx: mpsc::Receiver<Bytes>,
}

impl hyper::body::Body for ChannelBody {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        self.rx
            .poll_recv(cx)
            .map(|chunk| chunk.map(|b| Ok(Frame::data(b))))
    }
}

fn parse_body(call: &Call) -> Result<Value, Response<Body>> {
    serde_json::from_slice::<Value>(call.body)
        .ok()
        .filter(Value::is_object)
        .ok_or_else(|| {
            status(
                400,
                "BadRequest",
                "the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf",
                None,
            )
        })
}

/// What the stored form of a written object is, with the server-owned metadata restored.
fn to_store(def: &ResDef, obj: Value) -> Value {
    let mut obj = if def.is_events_v1() {
        events_v1_to_core_event(&obj)
    } else {
        obj
    };
    if let Some(m) = obj.as_object_mut() {
        let (kind, api) = if def.is_events_v1() {
            ("Event".to_string(), "v1".to_string())
        } else {
            (def.kind.clone(), def.api_version())
        };
        m.insert("kind".into(), json!(kind));
        m.insert("apiVersion".into(), json!(api));
    }
    if def.store_group().is_empty() && def.resource == "events" {
        fill_core_event_defaults(&mut obj);
    }
    obj
}

fn create(shared: &Shared, call: &Call, def: &ResDef) -> Reply {
    let mut obj = parse_body(call)?;
    if let Some(kind) = obj.get("kind").and_then(Value::as_str) {
        if kind != def.kind {
            return Err(status(
                400,
                "BadRequest",
                &format!(
                    "the kind in the data ({kind}) does not match the expected kind ({})",
                    def.kind
                ),
                None,
            ));
        }
    }
    let url_ns = call.info.namespace.clone().unwrap_or_default();
    let meta = obj
        .as_object_mut()
        .expect("object")
        .entry("metadata")
        .or_insert_with(|| json!({}));
    if !meta.is_object() {
        *meta = json!({});
    }
    let meta = meta.as_object_mut().expect("object");
    if def.namespaced {
        match meta.get("namespace").and_then(Value::as_str) {
            Some(ns) if !ns.is_empty() && ns != url_ns => {
                return Err(status(
                    400,
                    "BadRequest",
                    "the namespace of the provided object does not match the namespace sent on the request",
                    None,
                ));
            }
            _ => {
                meta.insert("namespace".into(), json!(url_ns));
            }
        }
    } else {
        meta.remove("namespace");
    }
    let mut name = meta
        .get("name")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string();
    if name.is_empty() {
        let generate = meta
            .get("generateName")
            .and_then(Value::as_str)
            .unwrap_or("");
        if generate.is_empty() {
            return Err(status(
                422,
                "Invalid",
                &format!(
                    "{} {} is invalid: metadata.name: Required value: name or generateName is required",
                    def.kind,
                    go_quote("")
                ),
                Some(json!({
                    "kind": def.kind,
                    "causes": [{
                        "reason": "FieldValueRequired",
                        "message": "Required value: name or generateName is required",
                        "field": "metadata.name",
                    }],
                })),
            ));
        }
        name = format!("{generate}{}", random_suffix(&shared.new_uid()));
        meta.insert("name".into(), json!(name));
    }
    meta.insert("uid".into(), json!(shared.new_uid()));
    meta.insert(
        "creationTimestamp".into(),
        json!(rfc3339(SystemTime::now())),
    );
    meta.remove("resourceVersion");
    meta.remove("deletionTimestamp");
    if def.group.is_empty() && def.resource == "pods" {
        default_pod(&mut obj);
    }
    let key = store_key(def, &url_ns_if(def, &url_ns), &name);
    let mut state = shared.state();
    if state.objects.contains_key(&key) {
        return Err(status(
            409,
            "AlreadyExists",
            &format!("{} {} already exists", def.qualified(), go_quote(&name)),
            Some(details(&name, &def.group, &def.resource)),
        ));
    }
    if def.namespaced && !url_ns.is_empty() {
        admit_namespace(&state, def, &url_ns, &name, &obj)?;
    }
    let mut stored = to_store(def, obj);
    validate_event(def, &stored)?;
    validate_node_affinity(def, &stored)?;
    if call.dry_run() {
        set_rv(&mut stored, state.rv);
        return Ok(json_response(201, &view(def, &stored)));
    }
    let ev = state.commit("ADDED", key, Some(stored));
    let _ = shared.events.send(ev.clone());
    Ok(json_response(201, &view(def, &ev.obj)))
}

/// Admission for an object created in a namespace: NamespaceLifecycle (the namespace must exist:
/// 404 `namespaces "x" not found`, plugin/pkg/admission/namespace/lifecycle) and, for pods,
/// Pod Security admission at the namespace's `pod-security.kubernetes.io/enforce` level
/// (k8s.io/pod-security-admission: 403 `pods "x" is forbidden: violates PodSecurity
/// "baseline:latest": host namespaces (hostPID=true), hostPath volumes (volume "host")`).
/// Only the baseline checks volmnt's probe pods can trip are modelled, worded as in
/// pod-security-admission/policy (check_hostNamespaces.go, check_hostPathVolumes.go,
/// check_privileged.go: reason "hostPath volumes" with detail `volume "x"`/`volumes "x", "y"`).
fn admit_namespace(
    state: &State,
    def: &ResDef,
    ns: &str,
    name: &str,
    obj: &Value,
) -> Result<(), Response<Body>> {
    let ns_obj = state
        .objects
        .iter()
        .find(|(_, o)| {
            o.get("kind").and_then(Value::as_str) == Some("Namespace")
                && o.pointer("/metadata/name").and_then(Value::as_str) == Some(ns)
        })
        .map(|(_, o)| o.clone());
    let Some(ns_obj) = ns_obj else {
        return Err(status(
            404,
            "NotFound",
            &format!("namespaces {} not found", go_quote(ns)),
            Some(details(ns, "", "namespaces")),
        ));
    };
    if !(def.store_group().is_empty() && def.resource == "pods") {
        return Ok(());
    }
    let level = ns_obj
        .pointer("/metadata/labels/pod-security.kubernetes.io~1enforce")
        .and_then(Value::as_str)
        .unwrap_or("privileged");
    if level == "privileged" {
        return Ok(());
    }
    let spec = obj.get("spec").cloned().unwrap_or(Value::Null);
    let mut host_ns = Vec::new();
    for f in ["hostNetwork", "hostPID", "hostIPC"] {
        if spec.get(f).and_then(Value::as_bool) == Some(true) {
            host_ns.push(format!("{f}=true"));
        }
    }
    let mut why = Vec::new();
    if !host_ns.is_empty() {
        why.push(format!("host namespaces ({})", host_ns.join(", ")));
    }
    let host_paths: Vec<String> = spec
        .get("volumes")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|v| v.get("hostPath").is_some())
        .filter_map(|v| v.get("name").and_then(Value::as_str))
        .map(|n| format!("{:?}", n))
        .collect();
    match host_paths.len() {
        0 => {}
        1 => why.push(format!("hostPath volumes (volume {})", host_paths[0])),
        _ => why.push(format!(
            "hostPath volumes (volumes {})",
            host_paths.join(", ")
        )),
    }
    let privileged: Vec<String> = spec
        .get("containers")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|c| {
            c.pointer("/securityContext/privileged")
                .and_then(Value::as_bool)
                == Some(true)
        })
        .filter_map(|c| c.get("name").and_then(Value::as_str))
        .map(|n| format!("{:?}", n))
        .collect();
    if !privileged.is_empty() {
        why.push(format!(
            "privileged (container {} must not set securityContext.privileged=true)",
            privileged.join(", ")
        ));
    }
    if why.is_empty() {
        return Ok(());
    }
    Err(status(
        403,
        "Forbidden",
        &format!(
            "pods {} is forbidden: violates PodSecurity {}: {}",
            go_quote(name),
            go_quote(&format!("{level}:latest")),
            why.join(", ")
        ),
        Some(details(name, "", "pods")),
    ))
}

/// The apiserver's checks on every Event written through core/v1 (kubernetes
/// pkg/apis/core/validation/events.go, legacyValidateEvent): without `eventTime`, the Event's
/// namespace must be its involvedObject's; with `eventTime`, reportingComponent,
/// reportingInstance (at most 128 characters), action and reason are required and the message
/// is at most 1024 characters. 422 Invalid otherwise, worded like apierrors.NewInvalid.
fn validate_event(def: &ResDef, ev: &Value) -> Result<(), Response<Body>> {
    if !(def.store_group().is_empty() && def.resource == "events") {
        return Ok(());
    }
    let s = |p: &str| ev.pointer(p).and_then(Value::as_str).unwrap_or("");
    let ns = s("/metadata/namespace");
    let obj_ns = s("/involvedObject/namespace");
    let mut errs: Vec<(String, String, String)> = Vec::new();
    let invalid = |field: &str, value: &str, why: &str| {
        (
            field.to_string(),
            format!("Invalid value: {}: {why}", go_quote(value)),
            "FieldValueInvalid".to_string(),
        )
    };
    let required = |field: &str| {
        (
            field.to_string(),
            "Required value".to_string(),
            "FieldValueRequired".to_string(),
        )
    };
    if ev.get("eventTime").is_none_or(Value::is_null) {
        let ok = if obj_ns.is_empty() {
            ns.is_empty() || ns == "default"
        } else {
            ns == obj_ns
        };
        if !ok {
            errs.push(invalid(
                "involvedObject.namespace",
                obj_ns,
                "does not match event.namespace",
            ));
        }
    } else {
        if obj_ns.is_empty() && ns != "default" && ns != "kube-system" {
            errs.push(invalid(
                "involvedObject.namespace",
                obj_ns,
                "does not match event.namespace",
            ));
        }
        if s("/reportingComponent").is_empty() {
            errs.push(required("reportingController"));
        }
        let instance = s("/reportingInstance");
        if instance.is_empty() {
            errs.push(required("reportingInstance"));
        } else if instance.len() > 128 {
            errs.push(invalid(
                "reportingInstance",
                "",
                "can have at most 128 characters",
            ));
        }
        if s("/action").is_empty() {
            errs.push(required("action"));
        }
        if s("/reason").is_empty() {
            errs.push(required("reason"));
        }
        if s("/message").len() > 1024 {
            errs.push(invalid("message", "", "can have at most 1024 characters"));
        }
    }
    if errs.is_empty() {
        return Ok(());
    }
    let name = s("/metadata/name");
    let list: Vec<String> = errs.iter().map(|(f, m, _)| format!("{f}: {m}")).collect();
    let message = if list.len() == 1 {
        format!("Event {} is invalid: {}", go_quote(name), list[0])
    } else {
        format!("Event {} is invalid: [{}]", go_quote(name), list.join(", "))
    };
    let causes: Vec<Value> = errs
        .iter()
        .map(|(f, m, r)| json!({ "reason": r, "message": m, "field": f }))
        .collect();
    Err(status(
        422,
        "Invalid",
        &message,
        Some(json!({ "name": name, "kind": "Event", "causes": causes })),
    ))
}

/// A pod spec's required node affinity, as kube-apiserver validates it
/// (pkg/apis/core/validation/validation.go, ValidateNodeFieldSelectorRequirement): a
/// `matchFields` requirement with `In` or `NotIn` takes exactly one value (several node names
/// need one term each), else 422 Invalid. Checked on Pods and on the pod templates of
/// DaemonSets, Deployments, ReplicaSets, StatefulSets and Jobs. The real apiserver refused
/// volmnt's first probe DaemonSet for named nodes this way (issue 19); the fake accepted it.
fn validate_node_affinity(def: &ResDef, obj: &Value) -> Result<(), Response<Body>> {
    let (spec_path, field_prefix) = match (def.store_group(), def.resource.as_str()) {
        ("", "pods") => ("/spec", "spec"),
        ("apps", "daemonsets" | "deployments" | "replicasets" | "statefulsets")
        | ("batch", "jobs") => ("/spec/template/spec", "spec.template.spec"),
        _ => return Ok(()),
    };
    let Some(terms) = obj
        .pointer(&format!(
            "{spec_path}/affinity/nodeAffinity/requiredDuringSchedulingIgnoredDuringExecution/nodeSelectorTerms"
        ))
        .and_then(Value::as_array)
    else {
        return Ok(());
    };
    let mut errs: Vec<(String, String, String)> = Vec::new();
    for (i, t) in terms.iter().enumerate() {
        let fields = t.get("matchFields").and_then(Value::as_array);
        for (j, f) in fields.into_iter().flatten().enumerate() {
            let at = format!(
                "{field_prefix}.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[{i}].matchFields[{j}]"
            );
            match f.get("operator").and_then(Value::as_str).unwrap_or("") {
                "In" | "NotIn" => {
                    let n = f
                        .get("values")
                        .and_then(Value::as_array)
                        .map_or(0, Vec::len);
                    if n != 1 {
                        errs.push((
                            format!("{at}.values"),
                            "Required value: must be only one value when `operator` is 'In' or 'NotIn' for node field selector".into(),
                            "FieldValueRequired".into(),
                        ));
                    }
                }
                op => errs.push((
                    format!("{at}.operator"),
                    format!(
                        "Invalid value: {}: not a valid selector operator",
                        go_quote(op)
                    ),
                    "FieldValueInvalid".into(),
                )),
            }
        }
    }
    if errs.is_empty() {
        return Ok(());
    }
    let name = obj
        .pointer("/metadata/name")
        .and_then(Value::as_str)
        .unwrap_or("");
    let list: Vec<String> = errs.iter().map(|(f, m, _)| format!("{f}: {m}")).collect();
    // errors.NewInvalid names the kind with its group: `DaemonSet.apps "x" is invalid: ...`.
    let kind = if def.group.is_empty() {
        def.kind.clone()
    } else {
        format!("{}.{}", def.kind, def.group)
    };
    let message = format!(
        "{kind} {} is invalid: {}",
        go_quote(name),
        if list.len() == 1 {
            list[0].clone()
        } else {
            format!("[{}]", list.join(", "))
        }
    );
    let causes: Vec<Value> = errs
        .iter()
        .map(|(f, m, r)| json!({ "reason": r, "message": m, "field": f }))
        .collect();
    Err(status(
        422,
        "Invalid",
        &message,
        Some(
            json!({ "name": name, "group": def.store_group(), "kind": def.kind, "causes": causes }),
        ),
    ))
}

fn url_ns_if(def: &ResDef, ns: &str) -> String {
    if def.namespaced {
        ns.to_string()
    } else {
        String::new()
    }
}

/// A few of the defaults the apiserver fills into a new Pod (pkg/apis/core/v1/defaults.go).
fn default_pod(pod: &mut Value) {
    let Some(m) = pod.as_object_mut() else { return };
    let spec = m.entry("spec").or_insert_with(|| json!({}));
    if let Some(spec) = spec.as_object_mut() {
        spec.entry("restartPolicy").or_insert(json!("Always"));
        spec.entry("dnsPolicy").or_insert(json!("ClusterFirst"));
        spec.entry("schedulerName")
            .or_insert(json!("default-scheduler"));
        spec.entry("terminationGracePeriodSeconds")
            .or_insert(json!(30));
        spec.entry("securityContext").or_insert(json!({}));
        if let Some(containers) = spec.get_mut("containers").and_then(Value::as_array_mut) {
            for c in containers.iter_mut().filter_map(Value::as_object_mut) {
                let latest = c.get("image").and_then(Value::as_str).is_some_and(|i| {
                    !i.rsplit('/').next().unwrap_or(i).contains(':') || i.ends_with(":latest")
                });
                c.entry("imagePullPolicy").or_insert(json!(if latest {
                    "Always"
                } else {
                    "IfNotPresent"
                }));
                c.entry("terminationMessagePath")
                    .or_insert(json!("/dev/termination-log"));
                c.entry("terminationMessagePolicy").or_insert(json!("File"));
                c.entry("resources").or_insert(json!({}));
            }
        }
    }
    let status = m.entry("status").or_insert_with(|| json!({}));
    if let Some(status) = status.as_object_mut() {
        status.entry("phase").or_insert(json!("Pending"));
    }
}

/// Server-owned metadata that a write cannot change.
fn keep_server_fields(old: &Value, new: &mut Value) {
    for field in ["uid", "creationTimestamp", "name", "namespace"] {
        if let Some(v) = old.pointer(&format!("/metadata/{field}")) {
            if let Some(meta) = new.get_mut("metadata").and_then(Value::as_object_mut) {
                meta.insert(field.into(), v.clone());
            }
        }
    }
}

fn conflict(def: &ResDef, name: &str, why: &str) -> Response<Body> {
    status(
        409,
        "Conflict",
        &format!(
            "Operation cannot be fulfilled on {} {}: {why}",
            def.qualified(),
            go_quote(name)
        ),
        Some(details(name, &def.group, &def.resource)),
    )
}

fn update(shared: &Shared, call: &Call, def: &ResDef) -> Reply {
    let (ns, name) = target(def, call.info);
    let mut obj = parse_body(call)?;
    let key = store_key(def, &ns, &name);
    let mut state = shared.state();
    let Some(old) = state.objects.get(&key).cloned() else {
        return Err(not_found(def, &name));
    };
    if let Some(rv) = obj
        .pointer("/metadata/resourceVersion")
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
    {
        if Some(rv)
            != old
                .pointer("/metadata/resourceVersion")
                .and_then(Value::as_str)
        {
            return Err(conflict(
                def,
                &name,
                "the object has been modified; please apply your changes to the latest version and try again",
            ));
        }
    }
    if obj.get("metadata").is_none_or(|m| !m.is_object()) {
        obj["metadata"] = json!({});
    }
    let old_view = view(def, &old);
    keep_server_fields(&old_view, &mut obj);
    let stored = to_store(def, obj);
    validate_event(def, &stored)?;
    validate_node_affinity(def, &stored)?;
    if call.dry_run() {
        return Ok(json_response(200, &view(def, &stored)));
    }
    let ev = state.commit("MODIFIED", key, Some(stored));
    let _ = shared.events.send(ev.clone());
    Ok(json_response(200, &view(def, &ev.obj)))
}

fn patch(shared: &Shared, call: &Call, def: &ResDef) -> Reply {
    let (ns, name) = target(def, call.info);
    let content_type = call
        .headers
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    let bad_body = |e: String| status(400, "BadRequest", &e, None);
    enum Kind {
        Merge,
        Json,
        Apply,
    }
    let (kind, patch): (Kind, Value) = match content_type.as_str() {
        "application/merge-patch+json" | "application/strategic-merge-patch+json" => (
            Kind::Merge,
            serde_json::from_slice(call.body).map_err(|e| bad_body(e.to_string()))?,
        ),
        "application/json-patch+json" => (
            Kind::Json,
            serde_json::from_slice(call.body).map_err(|e| bad_body(e.to_string()))?,
        ),
        "application/apply-patch+yaml" | "application/apply-patch+cbor" => {
            if call.q("fieldManager").is_none_or(str::is_empty) {
                return Err(status(
                    400,
                    "BadRequest",
                    "PATCH, application/apply-patch+yaml requests require fieldManager to be set",
                    None,
                ));
            }
            let y: serde_yaml::Value = serde_yaml::from_slice(call.body)
                .map_err(|e| bad_body(format!("error decoding YAML: {e}")))?;
            (
                Kind::Apply,
                serde_json::to_value(y).map_err(|e| bad_body(e.to_string()))?,
            )
        }
        _ => {
            return Err(status(
                415,
                "UnsupportedMediaType",
                "the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml, application/strategic-merge-patch+json",
                None,
            ));
        }
    };
    let key = store_key(def, &ns, &name);
    let mut state = shared.state();
    let old = state.objects.get(&key).cloned();
    let (typ, base) = match (&old, &kind) {
        (Some(o), _) => ("MODIFIED", view(def, o)),
        (None, Kind::Apply) => {
            // Server-side apply creates a missing object.
            let mut fresh = json!({
                "kind": def.kind,
                "apiVersion": def.api_version(),
                "metadata": { "name": name, "uid": shared.new_uid(), "creationTimestamp": rfc3339(SystemTime::now()) },
            });
            if def.namespaced {
                fresh["metadata"]["namespace"] = json!(ns);
            }
            ("ADDED", fresh)
        }
        (None, _) => return Err(not_found(def, &name)),
    };
    let mut new = base.clone();
    match kind {
        Kind::Merge | Kind::Apply => merge_patch(&mut new, &patch),
        Kind::Json => json_patch(&mut new, &patch).map_err(|e| {
            status(
                422,
                "Invalid",
                &e,
                Some(details(&name, &def.group, &def.resource)),
            )
        })?,
    }
    keep_server_fields(&base, &mut new);
    let stored = to_store(def, new);
    validate_event(def, &stored)?;
    if call.dry_run() {
        return Ok(json_response(200, &view(def, &stored)));
    }
    let ev = state.commit(typ, key, Some(stored));
    let _ = shared.events.send(ev.clone());
    Ok(json_response(
        if typ == "ADDED" { 201 } else { 200 },
        &view(def, &ev.obj),
    ))
}

fn delete(shared: &Shared, call: &Call, def: &ResDef) -> Reply {
    let (ns, name) = target(def, call.info);
    let key = store_key(def, &ns, &name);
    let mut state = shared.state();
    let Some(old) = state.objects.get(&key).cloned() else {
        return Err(not_found(def, &name));
    };
    // DeleteOptions.preconditions
    if let Ok(opts) = serde_json::from_slice::<Value>(call.body) {
        if let Some(uid) = opts.pointer("/preconditions/uid").and_then(Value::as_str) {
            let actual = old
                .pointer("/metadata/uid")
                .and_then(Value::as_str)
                .unwrap_or("");
            if uid != actual {
                return Err(conflict(
                    def,
                    &name,
                    &format!("Precondition failed: UID in precondition: {uid}, UID in object meta: {actual}"),
                ));
            }
        }
        if let Some(rv) = opts
            .pointer("/preconditions/resourceVersion")
            .and_then(Value::as_str)
        {
            let actual = old
                .pointer("/metadata/resourceVersion")
                .and_then(Value::as_str)
                .unwrap_or("");
            if rv != actual {
                return Err(conflict(
                    def,
                    &name,
                    &format!("Precondition failed: ResourceVersion in precondition: {rv}, ResourceVersion in object meta: {actual}"),
                ));
            }
        }
    }
    if call.dry_run() {
        return Ok(json_response(200, &view(def, &old)));
    }
    let ev = state.commit("DELETED", key, None);
    let _ = shared.events.send(ev.clone());
    Ok(json_response(200, &view(def, &ev.obj)))
}

fn delete_collection(shared: &Shared, call: &Call, def: &ResDef) -> Reply {
    let sel = Selectors::from_call(call, def)?;
    let mut state = shared.state();
    let selected = select(&state, call, def, &sel);
    let mut deleted = Vec::new();
    for (_, key, v) in selected {
        if call.dry_run() {
            deleted.push(v);
            continue;
        }
        let ev = state.commit("DELETED", key, None);
        let _ = shared.events.send(ev.clone());
        deleted.push(view(def, &ev.obj));
    }
    let rv = state.rv;
    Ok(json_response(200, &list_body(def, rv, deleted, Map::new())))
}

// ---------------------------------------------------------------------------------------------
// Discovery
// ---------------------------------------------------------------------------------------------

fn served_defs(shared: &Shared, opts: &Options) -> Vec<ResDef> {
    shared
        .state()
        .defs
        .iter()
        .filter(|d| opts.events_v1 || !d.is_events_v1())
        .cloned()
        .collect()
}

/// Groups other than core, in the apiserver's priority order for the ones it knows.
fn group_versions(defs: &[ResDef]) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for d in defs.iter().filter(|d| !d.group.is_empty()) {
        let gv = (d.group.clone(), d.version.clone());
        if !out.contains(&gv) {
            out.push(gv);
        }
    }
    // kube-aggregator's apiVersionPriorities: apps 17800, events.k8s.io 17750,
    // authorization.k8s.io 17600, storage.k8s.io 16800, coordination.k8s.io 16500.
    let rank = |g: &str| match g {
        "apps" => 0,
        "events.k8s.io" => 1,
        "authorization.k8s.io" => 2,
        "storage.k8s.io" => 3,
        _ => 4,
    };
    out.sort_by_key(|(g, _)| rank(g));
    out
}

fn resource_list_entries(defs: &[ResDef], group: &str, version: &str) -> Vec<Value> {
    let mut out = Vec::new();
    let mut mine: Vec<&ResDef> = defs
        .iter()
        .filter(|d| d.group == group && d.version == version)
        .collect();
    mine.sort_by(|a, b| a.resource.cmp(&b.resource));
    for d in mine {
        let mut e = json!({
            "name": d.resource,
            "singularName": d.singular,
            "namespaced": d.namespaced,
            "kind": d.kind,
            "verbs": d.verbs,
        });
        if !d.short_names.is_empty() {
            e["shortNames"] = json!(d.short_names);
        }
        if !d.categories.is_empty() {
            e["categories"] = json!(d.categories);
        }
        out.push(e);
        for s in &d.subresources {
            let mut e = json!({
                "name": format!("{}/{}", d.resource, s.name),
                "singularName": "",
                "namespaced": d.namespaced,
                "kind": s.kind,
                "verbs": s.verbs,
            });
            if s.group != d.group {
                e["group"] = json!(s.group);
                e["version"] = json!(s.version);
            }
            out.push(e);
        }
    }
    out
}

fn aggregated_group(defs: &[ResDef], group: &str, versions: &[String]) -> Value {
    let versions: Vec<Value> = versions
        .iter()
        .map(|v| {
            let mut mine: Vec<&ResDef> = defs
                .iter()
                .filter(|d| d.group == group && &d.version == v)
                .collect();
            mine.sort_by(|a, b| a.resource.cmp(&b.resource));
            let resources: Vec<Value> = mine
                .iter()
                .map(|d| {
                    let mut r = json!({
                        "resource": d.resource,
                        "responseKind": { "group": d.group, "version": d.version, "kind": d.kind },
                        "scope": if d.namespaced { "Namespaced" } else { "Cluster" },
                        "singularResource": d.singular,
                        "verbs": d.verbs,
                    });
                    if !d.short_names.is_empty() {
                        r["shortNames"] = json!(d.short_names);
                    }
                    if !d.categories.is_empty() {
                        r["categories"] = json!(d.categories);
                    }
                    if !d.subresources.is_empty() {
                        r["subresources"] = json!(d
                            .subresources
                            .iter()
                            .map(|s| json!({
                                "subresource": s.name,
                                "responseKind": { "group": s.group, "version": s.version, "kind": s.kind },
                                "verbs": s.verbs,
                            }))
                            .collect::<Vec<_>>());
                    }
                    r
                })
                .collect();
            json!({ "version": v, "resources": resources, "freshness": "Current" })
        })
        .collect();
    let mut meta = json!({ "creationTimestamp": null });
    if !group.is_empty() {
        meta["name"] = json!(group);
    }
    json!({ "metadata": meta, "versions": versions })
}

/// `Some("v2")` / `Some("v2beta1")` when the Accept header asks for aggregated discovery.
fn wants_aggregated(headers: &HeaderMap) -> Option<&'static str> {
    let accept = headers.get("accept")?.to_str().ok()?.to_string();
    for part in accept.split(',') {
        let p = part.replace(' ', "");
        if p.contains("as=APIGroupDiscoveryList") && p.contains("g=apidiscovery.k8s.io") {
            if p.contains("v=v2beta1") {
                return Some("v2beta1");
            }
            if p.contains("v=v2") {
                return Some("v2");
            }
        }
    }
    None
}

fn discovery(shared: &Shared, call: &Call, opts: &Options) -> Response<Body> {
    if !matches!(*call.method, Method::GET | Method::HEAD) {
        return page_not_found();
    }
    let defs = served_defs(shared, opts);
    let path = call.path.trim_end_matches('/');
    let segs: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    match segs.as_slice() {
        ["version"] => json_response(
            200,
            &json!({
                "major": "1",
                "minor": "33",
                "emulationMajor": "1",
                "emulationMinor": "33",
                "minCompatibilityMajor": "1",
                "minCompatibilityMinor": "32",
                "gitVersion": "v1.33.1",
                "gitCommit": "8adc0f041b8e7ad1d30e29cc59c6ae7a15e19828",
                "gitTreeState": "clean",
                "buildDate": "2025-05-15T08:19:08Z",
                "goVersion": "go1.24.2",
                "compiler": "gc",
                "platform": "linux/amd64",
            }),
        ),
        ["healthz"] | ["livez"] | ["readyz"] => {
            let mut r = Response::new(full(Bytes::from_static(b"ok")));
            r.headers_mut().insert(
                CONTENT_TYPE,
                HeaderValue::from_static("text/plain; charset=utf-8"),
            );
            r
        }
        ["api"] => {
            if let Some(v) = wants_aggregated(call.headers) {
                return aggregated_response(
                    v,
                    vec![aggregated_group(&defs, "", &["v1".to_string()])],
                );
            }
            json_response(
                200,
                &json!({
                    "kind": "APIVersions",
                    "versions": ["v1"],
                    "serverAddressByClientCIDRs": [
                        { "clientCIDR": "0.0.0.0/0", "serverAddress": shared.addr.to_string() }
                    ],
                }),
            )
        }
        ["api", "v1"] => json_response(
            200,
            &json!({
                "kind": "APIResourceList",
                "groupVersion": "v1",
                "resources": resource_list_entries(&defs, "", "v1"),
            }),
        ),
        ["apis"] => {
            let gvs = group_versions(&defs);
            if let Some(v) = wants_aggregated(call.headers) {
                let mut groups: Vec<String> = Vec::new();
                for (g, _) in &gvs {
                    if !groups.contains(g) {
                        groups.push(g.clone());
                    }
                }
                let items = groups
                    .iter()
                    .map(|g| {
                        let versions: Vec<String> = gvs
                            .iter()
                            .filter(|(gg, _)| gg == g)
                            .map(|(_, v)| v.clone())
                            .collect();
                        aggregated_group(&defs, g, &versions)
                    })
                    .collect();
                return aggregated_response(v, items);
            }
            let mut groups: Vec<Value> = Vec::new();
            let mut seen: Vec<String> = Vec::new();
            for (g, _) in &gvs {
                if seen.contains(g) {
                    continue;
                }
                seen.push(g.clone());
                groups.push(api_group(&gvs, g));
            }
            json_response(
                200,
                &json!({ "kind": "APIGroupList", "apiVersion": "v1", "groups": groups }),
            )
        }
        ["apis", g] => {
            let gvs = group_versions(&defs);
            if gvs.iter().any(|(gg, _)| gg == g) {
                let mut v = api_group(&gvs, g);
                v["kind"] = json!("APIGroup");
                v["apiVersion"] = json!("v1");
                json_response(200, &v)
            } else {
                page_not_found()
            }
        }
        ["apis", g, v] => {
            let entries = resource_list_entries(&defs, g, v);
            if entries.is_empty() {
                page_not_found()
            } else {
                json_response(
                    200,
                    &json!({
                        "kind": "APIResourceList",
                        "apiVersion": "v1",
                        "groupVersion": format!("{g}/{v}"),
                        "resources": entries,
                    }),
                )
            }
        }
        _ => page_not_found(),
    }
}

fn api_group(gvs: &[(String, String)], group: &str) -> Value {
    let versions: Vec<Value> = gvs
        .iter()
        .filter(|(g, _)| g == group)
        .map(|(g, v)| json!({ "groupVersion": format!("{g}/{v}"), "version": v }))
        .collect();
    json!({
        "name": group,
        "versions": versions,
        "preferredVersion": versions.first().cloned().unwrap_or(Value::Null),
    })
}

fn aggregated_response(version: &str, items: Vec<Value>) -> Response<Body> {
    let body = json!({
        "kind": "APIGroupDiscoveryList",
        "apiVersion": format!("apidiscovery.k8s.io/{version}"),
        "metadata": {},
        "items": items,
    });
    let mut r = json_response(200, &body);
    let ct = format!("application/json;g=apidiscovery.k8s.io;v={version};as=APIGroupDiscoveryList");
    if let Ok(v) = HeaderValue::from_str(&ct) {
        r.headers_mut().insert(CONTENT_TYPE, v);
    }
    r
}

// ---------------------------------------------------------------------------------------------
// Events: one store, two APIs
// ---------------------------------------------------------------------------------------------
//
// The mapping is the apiserver's own, kubernetes pkg/apis/events/v1/conversion.go
// (Convert_core_Event_To_v1_Event / Convert_v1_Event_To_core_Event) plus the generated
// same-name field copies:
//   core/v1 involvedObject     <-> events.k8s.io/v1 regarding
//   message                    <-> note
//   source {component, host}   <-> deprecatedSource {component, host}
//   firstTimestamp             <-> deprecatedFirstTimestamp
//   lastTimestamp              <-> deprecatedLastTimestamp
//   count                      <-> deprecatedCount
//   reportingComponent         <-> reportingController   (internal field ReportingController)
//   reportingInstance, eventTime, series {count, lastObservedTime}, action, reason, type,
//   related, metadata          <-> the same names
// Note: the server does NOT derive reportingController from source.component; an old-style
// event without reportingComponent has an empty reportingController in events.k8s.io/v1.

/// core/v1 Event → events.k8s.io/v1 Event.
pub fn core_event_to_events_v1(core: &Value) -> Value {
    let get = |k: &str| core.get(k).filter(|v| !v.is_null()).cloned();
    let nonempty_str = |k: &str| {
        core.get(k)
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
            .map(|s| json!(s))
    };
    let mut m = Map::new();
    m.insert("kind".into(), json!("Event"));
    m.insert("apiVersion".into(), json!("events.k8s.io/v1"));
    m.insert("metadata".into(), get("metadata").unwrap_or(json!({})));
    m.insert("eventTime".into(), get("eventTime").unwrap_or(Value::Null));
    if let Some(series) = get("series") {
        let mut s = Map::new();
        for k in ["count", "lastObservedTime"] {
            if let Some(v) = series.get(k) {
                s.insert(k.into(), v.clone());
            }
        }
        m.insert("series".into(), Value::Object(s));
    }
    if let Some(v) = nonempty_str("reportingComponent") {
        m.insert("reportingController".into(), v);
    }
    if let Some(v) = nonempty_str("reportingInstance") {
        m.insert("reportingInstance".into(), v);
    }
    for k in ["action", "reason", "type"] {
        if let Some(v) = nonempty_str(k) {
            m.insert(k.into(), v);
        }
    }
    m.insert(
        "regarding".into(),
        get("involvedObject").unwrap_or(json!({})),
    );
    if let Some(v) = get("related") {
        m.insert("related".into(), v);
    }
    if let Some(v) = nonempty_str("message") {
        m.insert("note".into(), v);
    }
    m.insert(
        "deprecatedSource".into(),
        get("source").unwrap_or(json!({})),
    );
    m.insert(
        "deprecatedFirstTimestamp".into(),
        get("firstTimestamp").unwrap_or(Value::Null),
    );
    m.insert(
        "deprecatedLastTimestamp".into(),
        get("lastTimestamp").unwrap_or(Value::Null),
    );
    if let Some(c) = core
        .get("count")
        .and_then(Value::as_i64)
        .filter(|c| *c != 0)
    {
        m.insert("deprecatedCount".into(), json!(c));
    }
    Value::Object(m)
}

/// events.k8s.io/v1 Event → core/v1 Event.
pub fn events_v1_to_core_event(ev: &Value) -> Value {
    let get = |k: &str| ev.get(k).filter(|v| !v.is_null()).cloned();
    let mut m = Map::new();
    m.insert("kind".into(), json!("Event"));
    m.insert("apiVersion".into(), json!("v1"));
    m.insert("metadata".into(), get("metadata").unwrap_or(json!({})));
    m.insert(
        "involvedObject".into(),
        get("regarding").unwrap_or(json!({})),
    );
    for k in ["reason", "type", "action", "reportingInstance"] {
        if let Some(v) = get(k) {
            m.insert(k.into(), v);
        }
    }
    if let Some(v) = get("note") {
        m.insert("message".into(), v);
    }
    m.insert(
        "source".into(),
        get("deprecatedSource").unwrap_or(json!({})),
    );
    m.insert(
        "firstTimestamp".into(),
        get("deprecatedFirstTimestamp").unwrap_or(Value::Null),
    );
    m.insert(
        "lastTimestamp".into(),
        get("deprecatedLastTimestamp").unwrap_or(Value::Null),
    );
    if let Some(v) = get("deprecatedCount") {
        m.insert("count".into(), v);
    }
    m.insert("eventTime".into(), get("eventTime").unwrap_or(Value::Null));
    if let Some(v) = get("series") {
        m.insert("series".into(), v);
    }
    if let Some(v) = get("related") {
        m.insert("related".into(), v);
    }
    if let Some(v) = get("reportingController") {
        m.insert("reportingComponent".into(), v);
    }
    let mut out = Value::Object(m);
    fill_core_event_defaults(&mut out);
    out
}

/// The fields a core/v1 Event always has on the wire (non-omitempty in k8s.io/api/core/v1).
fn fill_core_event_defaults(ev: &mut Value) {
    let Some(m) = ev.as_object_mut() else { return };
    m.entry("involvedObject").or_insert(json!({}));
    m.entry("source").or_insert(json!({}));
    for k in ["firstTimestamp", "lastTimestamp", "eventTime"] {
        m.entry(k).or_insert(Value::Null);
    }
    for k in ["reportingComponent", "reportingInstance"] {
        m.entry(k).or_insert(json!(""));
    }
}

// ---------------------------------------------------------------------------------------------
// Selectors
// ---------------------------------------------------------------------------------------------

#[derive(Clone, Debug)]
enum LabelReq {
    Exists(String),
    NotExists(String),
    Eq(String, String),
    NotEq(String, String),
    In(String, Vec<String>),
    NotIn(String, Vec<String>),
    Gt(String, i64),
    Lt(String, i64),
}

impl LabelReq {
    fn matches(&self, labels: &Map<String, Value>) -> bool {
        let get = |k: &str| labels.get(k).and_then(Value::as_str);
        match self {
            LabelReq::Exists(k) => labels.contains_key(k),
            LabelReq::NotExists(k) => !labels.contains_key(k),
            LabelReq::Eq(k, v) => get(k) == Some(v.as_str()),
            LabelReq::NotEq(k, v) => get(k) != Some(v.as_str()),
            LabelReq::In(k, vs) => get(k).is_some_and(|x| vs.iter().any(|v| v == x)),
            LabelReq::NotIn(k, vs) => get(k).is_none_or(|x| !vs.iter().any(|v| v == x)),
            LabelReq::Gt(k, n) => get(k)
                .and_then(|x| x.parse::<i64>().ok())
                .is_some_and(|x| x > *n),
            LabelReq::Lt(k, n) => get(k)
                .and_then(|x| x.parse::<i64>().ok())
                .is_some_and(|x| x < *n),
        }
    }
}

fn valid_label_key(k: &str) -> bool {
    !k.is_empty()
        && k.len() <= 317
        && k.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '/'))
}

fn valid_label_value(v: &str) -> bool {
    v.len() <= 63
        && v.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
}

/// k8s.io/apimachinery/pkg/labels.Parse syntax.
fn parse_label_selector(s: &str) -> Result<Vec<LabelReq>, String> {
    let s = s.trim();
    if s.is_empty() {
        return Ok(Vec::new());
    }
    // Split on commas outside parentheses.
    let mut terms = Vec::new();
    let mut depth = 0i32;
    let mut cur = String::new();
    for c in s.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                terms.push(std::mem::take(&mut cur));
                continue;
            }
            _ => {}
        }
        cur.push(c);
    }
    terms.push(cur);
    let err = |t: &str, why: &str| format!("unable to parse requirement: {why} in {}", go_quote(t));
    let mut out = Vec::new();
    for term in terms {
        let t = term.trim();
        if t.is_empty() {
            return Err(err(t, "found '', expected: identifier"));
        }
        let check_key = |k: &str| -> Result<String, String> {
            let k = k.trim();
            if valid_label_key(k) {
                Ok(k.to_string())
            } else {
                Err(err(t, &format!("invalid label key {}", go_quote(k))))
            }
        };
        let check_value = |v: &str| -> Result<String, String> {
            let v = v.trim();
            if valid_label_value(v) {
                Ok(v.to_string())
            } else {
                Err(err(t, &format!("invalid label value: {}", go_quote(v))))
            }
        };
        if let Some(k) = t.strip_prefix('!') {
            out.push(LabelReq::NotExists(check_key(k)?));
            continue;
        }
        if let Some(open) = t.find('(') {
            if !t.ends_with(')') {
                return Err(err(t, "found '', expected: ')'"));
            }
            let head: Vec<&str> = t[..open].split_whitespace().collect();
            let values: Vec<String> = t[open + 1..t.len() - 1]
                .split(',')
                .map(check_value)
                .collect::<Result<_, _>>()?;
            match head.as_slice() {
                [k, "in"] => out.push(LabelReq::In(check_key(k)?, values)),
                [k, "notin"] => out.push(LabelReq::NotIn(check_key(k)?, values)),
                _ => return Err(err(t, "expected: in, notin")),
            }
            continue;
        }
        if let Some((k, v)) = t.split_once("!=") {
            out.push(LabelReq::NotEq(check_key(k)?, check_value(v)?));
        } else if let Some((k, v)) = t.split_once("==") {
            out.push(LabelReq::Eq(check_key(k)?, check_value(v)?));
        } else if let Some((k, v)) = t.split_once('=') {
            out.push(LabelReq::Eq(check_key(k)?, check_value(v)?));
        } else if let Some((k, v)) = t.split_once('>') {
            let n = v
                .trim()
                .parse()
                .map_err(|_| err(t, "for 'Gt', 'Lt' operators, the value must be an integer"))?;
            out.push(LabelReq::Gt(check_key(k)?, n));
        } else if let Some((k, v)) = t.split_once('<') {
            let n = v
                .trim()
                .parse()
                .map_err(|_| err(t, "for 'Gt', 'Lt' operators, the value must be an integer"))?;
            out.push(LabelReq::Lt(check_key(k)?, n));
        } else {
            out.push(LabelReq::Exists(check_key(t)?));
        }
    }
    Ok(out)
}

/// Where a selectable field's value comes from.
#[derive(Clone, Debug)]
enum FieldSrc {
    /// A dotted JSON path; absent = "".
    Path(&'static str),
    /// A bool at a dotted JSON path; absent = "false".
    Bool(&'static str),
    /// Pod `status.podIP`: podIPs[0].ip (the internal form) else podIP.
    PodIp,
    /// core Event `source`: source.component, else reportingComponent (EventToSelectableFields).
    EventSource,
    /// Accepted by the field-label conversion but never set by ToSelectableFields: matches "".
    Never,
}

#[derive(Clone, Debug)]
struct FieldReq {
    src: FieldSrc,
    value: String,
    negate: bool,
}

impl FieldReq {
    fn matches(&self, _def: &ResDef, obj: &Value) -> bool {
        let actual = match &self.src {
            FieldSrc::Path(p) => scalar_at(obj, p).unwrap_or_default(),
            FieldSrc::Bool(p) => scalar_at(obj, p).unwrap_or_else(|| "false".into()),
            FieldSrc::PodIp => obj
                .pointer("/status/podIPs/0/ip")
                .and_then(Value::as_str)
                .map(String::from)
                .or_else(|| scalar_at(obj, "status.podIP"))
                .unwrap_or_default(),
            FieldSrc::EventSource => scalar_at(obj, "source.component")
                .filter(|s| !s.is_empty())
                .or_else(|| scalar_at(obj, "reportingComponent"))
                .unwrap_or_default(),
            FieldSrc::Never => String::new(),
        };
        (actual == self.value) != self.negate
    }
}

fn scalar_at(obj: &Value, dotted: &str) -> Option<String> {
    let mut cur = obj;
    for part in dotted.split('.') {
        cur = cur.get(part)?;
    }
    match cur {
        Value::String(s) => Some(s.clone()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// The field-label conversion of a kind: which labels it accepts (and where their values come
/// from) and its rejection message. Sources: pkg/apis/core/v1/conversion.go (Pod, Node,
/// Namespace, Secret, Event), events.k8s.io's conversion (regarding.* → involvedObject.*,
/// reportingController → reportingComponent), runtime.DefaultMetaV1FieldSelectorConversion for
/// every other kind.
fn field_label(def: &ResDef, label: &str) -> Result<FieldSrc, String> {
    let unsupported = || format!("field label not supported: {label}");
    match (def.group.as_str(), def.resource.as_str()) {
        ("", "pods") => Ok(match label {
            "metadata.name" => FieldSrc::Path("metadata.name"),
            "metadata.namespace" => FieldSrc::Path("metadata.namespace"),
            "spec.nodeName" | "spec.host" => FieldSrc::Path("spec.nodeName"),
            "spec.restartPolicy" => FieldSrc::Path("spec.restartPolicy"),
            "spec.schedulerName" => FieldSrc::Path("spec.schedulerName"),
            "spec.serviceAccountName" => FieldSrc::Path("spec.serviceAccountName"),
            "spec.hostNetwork" => FieldSrc::Bool("spec.hostNetwork"),
            "status.phase" => FieldSrc::Path("status.phase"),
            "status.podIP" => FieldSrc::PodIp,
            "status.podIPs" => FieldSrc::Never,
            "status.nominatedNodeName" => FieldSrc::Path("status.nominatedNodeName"),
            _ => return Err(unsupported()),
        }),
        ("", "nodes") => Ok(match label {
            "metadata.name" => FieldSrc::Path("metadata.name"),
            "spec.unschedulable" => FieldSrc::Bool("spec.unschedulable"),
            _ => return Err(unsupported()),
        }),
        ("", "namespaces") => Ok(match label {
            "metadata.name" => FieldSrc::Path("metadata.name"),
            "status.phase" => FieldSrc::Path("status.phase"),
            _ => return Err(unsupported()),
        }),
        ("", "secrets") => Ok(match label {
            "metadata.name" => FieldSrc::Path("metadata.name"),
            "metadata.namespace" => FieldSrc::Path("metadata.namespace"),
            "type" => FieldSrc::Path("type"),
            _ => return Err(unsupported()),
        }),
        ("", "events") => Ok(match label {
            "metadata.name" => FieldSrc::Path("metadata.name"),
            "metadata.namespace" => FieldSrc::Path("metadata.namespace"),
            "involvedObject.kind" => FieldSrc::Path("involvedObject.kind"),
            "involvedObject.namespace" => FieldSrc::Path("involvedObject.namespace"),
            "involvedObject.name" => FieldSrc::Path("involvedObject.name"),
            "involvedObject.uid" => FieldSrc::Path("involvedObject.uid"),
            "involvedObject.apiVersion" => FieldSrc::Path("involvedObject.apiVersion"),
            "involvedObject.resourceVersion" => FieldSrc::Path("involvedObject.resourceVersion"),
            "involvedObject.fieldPath" => FieldSrc::Path("involvedObject.fieldPath"),
            "reason" => FieldSrc::Path("reason"),
            "reportingComponent" => FieldSrc::Path("reportingComponent"),
            "source" => FieldSrc::EventSource,
            "type" => FieldSrc::Path("type"),
            _ => return Err(unsupported()),
        }),
        ("events.k8s.io", "events") => Ok(match label {
            "metadata.name" => FieldSrc::Path("metadata.name"),
            "metadata.namespace" => FieldSrc::Path("metadata.namespace"),
            "regarding.kind" => FieldSrc::Path("regarding.kind"),
            "regarding.namespace" => FieldSrc::Path("regarding.namespace"),
            "regarding.name" => FieldSrc::Path("regarding.name"),
            "regarding.uid" => FieldSrc::Path("regarding.uid"),
            "regarding.apiVersion" => FieldSrc::Path("regarding.apiVersion"),
            "regarding.resourceVersion" => FieldSrc::Path("regarding.resourceVersion"),
            "regarding.fieldPath" => FieldSrc::Path("regarding.fieldPath"),
            "reason" => FieldSrc::Path("reason"),
            "reportingController" => FieldSrc::Path("reportingController"),
            "type" => FieldSrc::Path("type"),
            _ => return Err(unsupported()),
        }),
        _ => match label {
            "metadata.name" => Ok(FieldSrc::Path("metadata.name")),
            "metadata.namespace" => Ok(FieldSrc::Path("metadata.namespace")),
            _ => Err(format!(
                "{} is not a known field selector: only {}, {}",
                go_quote(label),
                go_quote("metadata.name"),
                go_quote("metadata.namespace")
            )),
        },
    }
}

/// k8s.io/apimachinery/pkg/fields.ParseSelector syntax (`=`, `==`, `!=`, comma = AND, `\`
/// escapes), then every term through the kind's field-label conversion.
fn parse_field_selector(s: &str, def: &ResDef) -> Result<Vec<FieldReq>, String> {
    if s.trim().is_empty() {
        return Ok(Vec::new());
    }
    // Split on unescaped commas.
    let mut terms = Vec::new();
    let mut cur = String::new();
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                cur.push(c);
                if let Some(n) = chars.next() {
                    cur.push(n);
                }
            }
            ',' => terms.push(std::mem::take(&mut cur)),
            _ => cur.push(c),
        }
    }
    terms.push(cur);
    let mut out = Vec::new();
    for term in terms {
        let (field, op, value) = split_field_term(&term).ok_or_else(|| {
            format!(
                "invalid selector: {}; can't understand {}",
                go_single_quote(s),
                go_single_quote(&term)
            )
        })?;
        let value = unescape_field_value(&value).map_err(|e| format!("invalid selector: {e}"))?;
        let src = field_label(def, field.trim())?;
        out.push(FieldReq {
            src,
            value,
            negate: op == "!=",
        });
    }
    Ok(out)
}

fn split_field_term(term: &str) -> Option<(String, &'static str, String)> {
    let bytes = term.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'!' if bytes.get(i + 1) == Some(&b'=') => {
                return Some((term[..i].to_string(), "!=", term[i + 2..].to_string()))
            }
            b'=' if bytes.get(i + 1) == Some(&b'=') => {
                return Some((term[..i].to_string(), "==", term[i + 2..].to_string()))
            }
            b'=' => return Some((term[..i].to_string(), "=", term[i + 1..].to_string())),
            _ => i += 1,
        }
    }
    None
}

fn unescape_field_value(v: &str) -> Result<String, String> {
    let mut out = String::new();
    let mut chars = v.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.next() {
                Some(n @ ('\\' | ',' | '=')) => out.push(n),
                Some(n) => return Err(format!("invalid escape sequence: \\{n}")),
                None => return Err("invalid trailing escape sequence".into()),
            }
        } else {
            out.push(c);
        }
    }
    Ok(out)
}

// ---------------------------------------------------------------------------------------------
// Patches
// ---------------------------------------------------------------------------------------------

/// RFC 7386 JSON merge patch.
fn merge_patch(target: &mut Value, patch: &Value) {
    match patch {
        Value::Object(p) => {
            if !target.is_object() {
                *target = json!({});
            }
            let t = target.as_object_mut().expect("object");
            for (k, v) in p {
                if v.is_null() {
                    t.remove(k);
                } else {
                    merge_patch(t.entry(k.clone()).or_insert(Value::Null), v);
                }
            }
        }
        other => *target = other.clone(),
    }
}

/// RFC 6902 JSON patch: add, remove, replace, test, move, copy.
fn json_patch(doc: &mut Value, patch: &Value) -> Result<(), String> {
    let ops = patch
        .as_array()
        .ok_or("json patch: the patch is not an array")?;
    for op in ops {
        let name = op.get("op").and_then(Value::as_str).unwrap_or("");
        let path = op.get("path").and_then(Value::as_str).unwrap_or("");
        match name {
            "add" => pointer_add(doc, path, op.get("value").cloned().unwrap_or(Value::Null))?,
            "remove" => {
                pointer_remove(doc, path)?;
            }
            "replace" => {
                pointer_remove(doc, path)?;
                pointer_add(doc, path, op.get("value").cloned().unwrap_or(Value::Null))?;
            }
            "test" => {
                if doc.pointer(path) != op.get("value") {
                    return Err(format!("testing value {path} failed"));
                }
            }
            "move" | "copy" => {
                let from = op.get("from").and_then(Value::as_str).unwrap_or("");
                let v = if name == "move" {
                    pointer_remove(doc, from)?
                } else {
                    doc.pointer(from)
                        .cloned()
                        .ok_or_else(|| format!("doc is missing path: {from}"))?
                };
                pointer_add(doc, path, v)?;
            }
            other => return Err(format!("Unexpected kind: {other}")),
        }
    }
    Ok(())
}

fn split_pointer(path: &str) -> Result<(String, String), String> {
    let idx = path
        .rfind('/')
        .ok_or_else(|| format!("invalid JSON pointer {path}"))?;
    let last = path[idx + 1..].replace("~1", "/").replace("~0", "~");
    Ok((path[..idx].to_string(), last))
}

fn pointer_add(doc: &mut Value, path: &str, value: Value) -> Result<(), String> {
    if path.is_empty() {
        *doc = value;
        return Ok(());
    }
    let (parent, last) = split_pointer(path)?;
    let missing = || format!("doc is missing path: {path}");
    match doc.pointer_mut(&parent).ok_or_else(missing)? {
        Value::Object(m) => {
            m.insert(last, value);
        }
        Value::Array(a) => {
            if last == "-" {
                a.push(value);
            } else {
                let i: usize = last.parse().map_err(|_| missing())?;
                if i > a.len() {
                    return Err(missing());
                }
                a.insert(i, value);
            }
        }
        _ => return Err(missing()),
    }
    Ok(())
}

fn pointer_remove(doc: &mut Value, path: &str) -> Result<Value, String> {
    let (parent, last) = split_pointer(path)?;
    let missing = || format!("doc is missing path: {path}");
    match doc.pointer_mut(&parent).ok_or_else(missing)? {
        Value::Object(m) => m.remove(&last).ok_or_else(missing),
        Value::Array(a) => {
            let i: usize = last.parse().map_err(|_| missing())?;
            if i >= a.len() {
                return Err(missing());
            }
            Ok(a.remove(i))
        }
        _ => Err(missing()),
    }
}

// ---------------------------------------------------------------------------------------------
// Small helpers
// ---------------------------------------------------------------------------------------------

fn full(b: Bytes) -> Body {
    Full::new(b).boxed_unsync()
}

fn json_response(code: u16, v: &Value) -> Response<Body> {
    let mut r = Response::new(full(Bytes::from(v.to_string())));
    *r.status_mut() = StatusCode::from_u16(code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    r.headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    r
}

fn status_value(code: u16, reason: &str, message: &str, details: Option<Value>) -> Value {
    let mut v = json!({
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": message,
        "reason": reason,
        "code": code,
    });
    if let Some(d) = details {
        v["details"] = d;
    }
    v
}

/// A `Status` error response.
fn status(code: u16, reason: &str, message: &str, details: Option<Value>) -> Response<Body> {
    json_response(code, &status_value(code, reason, message, details))
}

/// What the apiserver answers for a path it does not serve (Go's http.NotFound).
fn page_not_found() -> Response<Body> {
    let mut r = Response::new(full(Bytes::from_static(b"404 page not found\n")));
    *r.status_mut() = StatusCode::NOT_FOUND;
    r.headers_mut().insert(
        CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    r.headers_mut().insert(
        "x-content-type-options",
        HeaderValue::from_static("nosniff"),
    );
    r
}

/// Go's `%q` for the strings we quote (JSON escaping is the same for printable text).
fn go_quote(s: &str) -> String {
    json!(s).to_string()
}

fn go_single_quote(s: &str) -> String {
    format!("'{s}'")
}

fn query_get<'a>(query: &'a [(String, String)], name: &str) -> Option<&'a str> {
    query
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.as_str())
}

fn parse_query(q: &str) -> Vec<(String, String)> {
    q.split('&')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (k, v) = p.split_once('=').unwrap_or((p, ""));
            (
                percent_decode(&k.replace('+', " ")),
                percent_decode(&v.replace('+', " ")),
            )
        })
        .collect()
}

fn percent_decode(s: &str) -> String {
    let hex = |c: u8| (c as char).to_digit(16).map(|d| d as u8);
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' && i + 2 < b.len() {
            if let (Some(h), Some(l)) = (hex(b[i + 1]), hex(b[i + 2])) {
                out.push(h * 16 + l);
                i += 3;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

const B64URL: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/// base64.RawURLEncoding (no padding).
fn base64url_encode(data: &[u8]) -> String {
    let mut out = String::new();
    for chunk in data.chunks(3) {
        let n = chunk.len();
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let v = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..=n {
            out.push(B64URL[((v >> (18 - 6 * i)) & 63) as usize] as char);
        }
    }
    out
}

/// base64.RawURLEncoding decoding, with Go's error wording.
fn base64url_decode(s: &str) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    let mut acc: u32 = 0;
    let mut bits = 0;
    for (i, c) in s.bytes().enumerate() {
        let v = match B64URL.iter().position(|&x| x == c) {
            Some(v) => v as u32,
            None => return Err(format!("illegal base64 data at input byte {i}")),
        };
        acc = (acc << 6) | v;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    if s.len() % 4 == 1 {
        return Err(format!("illegal base64 data at input byte {}", s.len() - 1));
    }
    Ok(out)
}

/// RFC 3339 in UTC, seconds precision (metav1.Time).
fn rfc3339(t: SystemTime) -> String {
    rfc3339_secs(t.duration_since(UNIX_EPOCH).unwrap_or_default().as_secs() as i64)
}

/// RFC 3339 in UTC of seconds since the epoch (also used by benches/live.rs).
pub fn rfc3339_secs(secs: i64) -> String {
    let days = secs.div_euclid(86_400);
    let sod = secs.rem_euclid(86_400);
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        sod / 3600,
        sod % 3600 / 60,
        sod % 60
    )
}

fn uuid_from(a: u64, b: u64) -> String {
    let a = (a & 0xffff_ffff_ffff_0fff) | 0x0000_0000_0000_4000; // version 4
    let b = (b & 0x3fff_ffff_ffff_ffff) | 0x8000_0000_0000_0000; // RFC 4122 variant
    format!(
        "{:08x}-{:04x}-{:04x}-{:04x}-{:012x}",
        a >> 32,
        (a >> 16) & 0xffff,
        a & 0xffff,
        b >> 48,
        b & 0xffff_ffff_ffff
    )
}

/// A deterministic uid for a fixture object that has none.
fn stable_uid(key: &Key) -> String {
    let fnv = |s: &str, seed: u64| {
        let mut h = seed;
        for b in s.bytes() {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x100_0000_01b3);
        }
        h
    };
    let s = format!("{}/{}/{}/{}", key.0, key.1, key.2, key.3);
    uuid_from(
        fnv(&s, 0xcbf2_9ce4_8422_2325),
        fnv(&s, 0x8422_2325_cbf2_9ce4),
    )
}

/// 5 characters from the apiserver's name-generator alphabet (no vowels, no confusables).
fn random_suffix(seed: &str) -> String {
    const ALPHANUMS: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in seed.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x100_0000_01b3);
    }
    (0..5)
        .map(|i| ALPHANUMS[((h >> (i * 8)) % ALPHANUMS.len() as u64) as usize] as char)
        .collect()
}

// ---------------------------------------------------------------------------------------------
// Fake kubelet: pods pinned to a node go Running; exec over WebSocket runs on this machine
// ---------------------------------------------------------------------------------------------

/// `/api/v1/namespaces/{ns}/pods/{name}/exec`
fn is_exec_path(path: &str) -> bool {
    let segs: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    segs.len() == 7
        && segs[0] == "api"
        && segs[1] == "v1"
        && segs[2] == "namespaces"
        && segs[4] == "pods"
        && segs[6] == "exec"
}

fn pod_key(ns: &str, name: &str) -> Key {
    (String::new(), "pods".into(), ns.into(), name.into())
}

/// Change a stored pod as the kubelet would (status writes), if it is still the same pod (uid).
fn update_pod(
    shared: &Shared,
    ns: &str,
    name: &str,
    uid: &str,
    f: impl FnOnce(&mut Value),
) -> bool {
    let mut state = shared.state();
    let key = pod_key(ns, name);
    let Some(mut pod) = state.objects.get(&key).cloned() else {
        return false;
    };
    if pod.pointer("/metadata/uid").and_then(Value::as_str) != Some(uid) {
        return false;
    }
    f(&mut pod);
    let ev = state.commit("MODIFIED", key, Some(pod));
    let _ = shared.events.send(ev);
    true
}

/// After a pod is created: if it is pinned to a live node of the fake kubelet, mark it Running
/// after `start_delay`, and Failed (DeadlineExceeded) after its `activeDeadlineSeconds`.
fn kubelet_start(shared: &Arc<Shared>, call: &Call) {
    let Ok(body) = serde_json::from_slice::<Value>(call.body) else {
        return;
    };
    let ns = call.info.namespace.clone().unwrap_or_default();
    kubelet_start_pod(shared, &ns, &body);
}

/// The fake kubelet takes a pod bound to one of its nodes (`spec.nodeName`).
fn kubelet_start_pod(shared: &Arc<Shared>, ns: &str, body: &Value) {
    let Some(kubelet) = shared.opts().kubelet else {
        return;
    };
    let Some(node) = body.pointer("/spec/nodeName").and_then(Value::as_str) else {
        return;
    };
    match kubelet.nodes.get(node) {
        Some(n) if !n.dead => {}
        _ => return,
    }
    let ns = ns.to_string();
    let Some(name) = body
        .pointer("/metadata/name")
        .and_then(Value::as_str)
        .map(String::from)
    else {
        return;
    };
    let uid = shared
        .state()
        .objects
        .get(&pod_key(&ns, &name))
        .and_then(|p| {
            p.pointer("/metadata/uid")
                .and_then(Value::as_str)
                .map(String::from)
        });
    let Some(uid) = uid else {
        return;
    };
    let deadline = body
        .pointer("/spec/activeDeadlineSeconds")
        .and_then(Value::as_u64);
    let shared = shared.clone();
    tokio::spawn(async move {
        tokio::time::sleep(kubelet.start_delay).await;
        let now = rfc3339(SystemTime::now());
        let running = update_pod(&shared, &ns, &name, &uid, |pod| {
            let statuses: Vec<Value> = pod
                .pointer("/spec/containers")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default()
                .iter()
                .map(|c| {
                    json!({
                        "name": c["name"],
                        "image": c["image"],
                        "imageID": "",
                        "ready": true,
                        "started": true,
                        "restartCount": 0,
                        "state": {"running": {"startedAt": now}},
                    })
                })
                .collect();
            pod["status"] = json!({
                "phase": "Running",
                "startTime": now,
                "hostIP": "127.0.0.1",
                "podIP": "127.0.0.1",
                "conditions": [{"type": "Ready", "status": "True", "lastTransitionTime": now}],
                "containerStatuses": statuses,
            });
        });
        if let (true, Some(secs)) = (running, deadline) {
            tokio::time::sleep(Duration::from_secs(secs)).await;
            update_pod(&shared, &ns, &name, &uid, |pod| {
                pod["status"]["phase"] = json!("Failed");
                pod["status"]["reason"] = json!("DeadlineExceeded");
                pod["status"]["message"] =
                    json!("Pod was active on the node longer than the specified deadline");
            });
        }
    });
}

/// The DaemonSet controller (pkg/controller/daemon), simplified: when a DaemonSet is created,
/// one pod per eligible node, at once, named `<ds>-<5 random>`, owned by the DaemonSet
/// (`ownerReferences`, controller), labelled as its template. Eligible: the template's
/// `nodeSelector` matches the node's labels, its required node affinity's `matchFields` on
/// `metadata.name` (what the real controller itself adds to each pod) includes the node, and
/// every NoSchedule/NoExecute taint of the node is tolerated. The real controller sets that
/// affinity and leaves the binding to the scheduler; here the pod gets `spec.nodeName` directly
/// (the fake has no scheduler), and the fake kubelet starts it if it runs that node. The
/// DaemonSet's status counts the pods scheduled. Rolling updates are not simulated.
fn daemonset_controller(shared: &Arc<Shared>, call: &Call) {
    let ns = call.info.namespace.clone().unwrap_or_default();
    let Ok(body) = serde_json::from_slice::<Value>(call.body) else {
        return;
    };
    let Some(name) = body.pointer("/metadata/name").and_then(Value::as_str) else {
        return;
    };
    let ds_key: Key = (
        "apps".into(),
        "daemonsets".into(),
        ns.clone(),
        name.to_string(),
    );
    let (ds, nodes) = {
        let state = shared.state();
        let Some(ds) = state.objects.get(&ds_key).cloned() else {
            return;
        };
        let nodes: Vec<Value> = state
            .objects
            .iter()
            .filter(|(k, _)| k.0.is_empty() && k.1 == "nodes")
            .map(|(_, v)| v.clone())
            .collect();
        (ds, nodes)
    };
    let template = ds.pointer("/spec/template").cloned().unwrap_or(json!({}));
    let tspec = template.get("spec").cloned().unwrap_or(json!({}));
    let empty = Map::new();
    let selector = tspec
        .get("nodeSelector")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let allowed_names: Option<Vec<String>> = tspec
        .pointer("/affinity/nodeAffinity/requiredDuringSchedulingIgnoredDuringExecution/nodeSelectorTerms")
        .and_then(Value::as_array)
        .map(|terms| {
            terms
                .iter()
                .flat_map(|t| t.get("matchFields").and_then(Value::as_array).cloned().unwrap_or_default())
                .filter(|f| f["key"] == "metadata.name" && f["operator"] == "In")
                .flat_map(|f| f["values"].as_array().cloned().unwrap_or_default())
                .filter_map(|v| v.as_str().map(String::from))
                .collect()
        });
    let tolerations: Vec<Value> = tspec
        .get("tolerations")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let tolerates = |taint: &Value| {
        tolerations.iter().any(|t| {
            let key_ok = t
                .get("key")
                .and_then(Value::as_str)
                .is_none_or(|k| k.is_empty() || Some(k) == taint["key"].as_str());
            let effect_ok = t
                .get("effect")
                .and_then(Value::as_str)
                .is_none_or(|e| e.is_empty() || Some(e) == taint["effect"].as_str());
            let op = t.get("operator").and_then(Value::as_str).unwrap_or("Equal");
            let value_ok = op == "Exists" || t.get("value") == taint.get("value");
            key_ok && effect_ok && value_ok
        })
    };
    let ds_uid = ds.pointer("/metadata/uid").cloned().unwrap_or(Value::Null);
    let mut scheduled = 0;
    let node_count = nodes.len();
    for node in nodes {
        let node_name = node
            .pointer("/metadata/name")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        let labels = node
            .pointer("/metadata/labels")
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default();
        if !selector.iter().all(|(k, v)| labels.get(k) == Some(v)) {
            continue;
        }
        if allowed_names
            .as_ref()
            .is_some_and(|names| !names.contains(&node_name))
        {
            continue;
        }
        let taints = node
            .pointer("/spec/taints")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        if taints
            .iter()
            .filter(|t| matches!(t["effect"].as_str(), Some("NoSchedule" | "NoExecute")))
            .any(|t| !tolerates(t))
        {
            continue;
        }
        let pod_name = format!("{name}-{}", random_suffix(&shared.new_uid()));
        let mut meta = template.get("metadata").cloned().unwrap_or(json!({}));
        meta["name"] = json!(pod_name);
        meta["namespace"] = json!(ns);
        meta["uid"] = json!(shared.new_uid());
        meta["creationTimestamp"] = json!(rfc3339(SystemTime::now()));
        meta["ownerReferences"] = json!([{
            "apiVersion": "apps/v1", "kind": "DaemonSet", "name": name, "uid": ds_uid,
            "controller": true, "blockOwnerDeletion": true,
        }]);
        // As the real controller (pkg/controller/daemon/util
        // ReplaceDaemonSetPodNodeNameNodeAffinity): each pod's required node affinity becomes
        // one matchFields term naming its node, and the scheduler binds it.
        let mut spec = tspec.clone();
        spec["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"] = json!({
            "nodeSelectorTerms": [{"matchFields": [
                {"key": "metadata.name", "operator": "In", "values": [node_name]}
            ]}]
        });
        // A node with no room for pods (allocatable pods "0", as an API-only Node without a
        // kubelet has) is never bound: the pod stays Pending with the scheduler's reason, as
        // on the real cluster. The others the fake binds at once, having no scheduler.
        let room = node
            .pointer("/status/allocatable/pods")
            .and_then(Value::as_str)
            != Some("0");
        if room {
            spec["nodeName"] = json!(node_name);
        }
        let mut pod = json!({ "apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec });
        default_pod(&mut pod);
        if !room {
            pod["status"] = json!({"phase": "Pending", "conditions": [{
                "type": "PodScheduled", "status": "False", "reason": "Unschedulable",
                "message": format!("0/{} nodes are available: 1 Too many pods, {} node(s) didn't satisfy plugin(s) [NodeAffinity].", node_count, node_count - 1),
            }]});
        }
        {
            let mut state = shared.state();
            let key = pod_key(&ns, &pod_name);
            let ev = state.commit("ADDED", key, Some(pod.clone()));
            let _ = shared.events.send(ev);
        }
        if room {
            scheduled += 1;
            kubelet_start_pod(shared, &ns, &pod);
        }
    }
    let mut state = shared.state();
    if let Some(mut ds) = state.objects.get(&ds_key).cloned() {
        ds["status"] = json!({
            "desiredNumberScheduled": scheduled,
            "currentNumberScheduled": scheduled,
            "numberMisscheduled": 0,
            "numberReady": 0,
            "observedGeneration": 1,
        });
        let ev = state.commit("MODIFIED", ds_key, Some(ds));
        let _ = shared.events.send(ev);
    }
}

/// The garbage collector, simplified: when an object is deleted (without
/// `propagationPolicy: Orphan`), the objects it owns (`ownerReferences[].uid`) go with it, at
/// once (the real collector does this in the background, or first with Foreground).
fn garbage_collect(shared: &Arc<Shared>, call: &Call) {
    let orphan = serde_json::from_slice::<Value>(call.body)
        .ok()
        .is_some_and(|b| b.get("propagationPolicy").and_then(Value::as_str) == Some("Orphan"))
        || call.q("propagationPolicy") == Some("Orphan");
    if orphan {
        return;
    }
    let mut state = shared.state();
    // The deleted object's uid: the last DELETED event of this name.
    let Some(uid) = state
        .log
        .iter()
        .rev()
        .find(|e| e.typ == "DELETED" && Some(e.key.3.as_str()) == call.info.name.as_deref())
        .and_then(|e| {
            e.obj
                .pointer("/metadata/uid")
                .and_then(Value::as_str)
                .map(String::from)
        })
    else {
        return;
    };
    let owned: Vec<Key> = state
        .objects
        .iter()
        .filter(|(_, o)| {
            o.pointer("/metadata/ownerReferences")
                .and_then(Value::as_array)
                .is_some_and(|refs| refs.iter().any(|r| r["uid"] == uid.as_str()))
        })
        .map(|(k, _)| k.clone())
        .collect();
    for k in owned {
        let ev = state.commit("DELETED", k, None);
        let _ = shared.events.send(ev);
    }
}

/// The environment of an exec'd command: the container's `env` from the pod spec, with values
/// under a hostPath volume's mountPath rewritten into the node's root directory.
fn container_env(pod: &Value, container: &Value, root: &Path) -> Vec<(String, String)> {
    let mut host_paths: BTreeMap<String, String> = BTreeMap::new();
    for v in pod
        .pointer("/spec/volumes")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        if let (Some(n), Some(p)) = (
            v["name"].as_str(),
            v.pointer("/hostPath/path").and_then(Value::as_str),
        ) {
            host_paths.insert(n.to_string(), p.to_string());
        }
    }
    let mut mounts: Vec<(String, PathBuf)> = Vec::new();
    for m in container["volumeMounts"].as_array().into_iter().flatten() {
        if let (Some(n), Some(mp)) = (m["name"].as_str(), m["mountPath"].as_str()) {
            if let Some(hp) = host_paths.get(n) {
                mounts.push((mp.to_string(), root.join(hp.trim_start_matches('/'))));
            }
        }
    }
    let mut out = Vec::new();
    for e in container["env"].as_array().into_iter().flatten() {
        let (Some(k), Some(v)) = (e["name"].as_str(), e["value"].as_str()) else {
            continue;
        };
        let mapped = mounts.iter().find_map(|(mp, dir)| {
            if v == mp {
                Some(dir.to_string_lossy().into_owned())
            } else {
                v.strip_prefix(mp.as_str())
                    .and_then(|r| r.strip_prefix('/'))
                    .map(|r| dir.join(r).to_string_lossy().into_owned())
            }
        });
        out.push((k.to_string(), mapped.unwrap_or_else(|| v.to_string())));
    }
    out
}

/// Answer an exec request: checks as the apiserver and kubelet make them, then the WebSocket
/// upgrade (101) and the session on the upgraded connection.
async fn exec_upgrade(
    shared: Arc<Shared>,
    req: hyper::Request<Incoming>,
    at: Instant,
) -> Response<Body> {
    let path = req.uri().path().to_string();
    let raw_query = req.uri().query().unwrap_or("").to_string();
    let query = parse_query(&raw_query);
    let info = parse_info(req.method(), &path, &query);
    let method = req.method().to_string();
    let resp = exec_response(&shared, req, &info, &query);
    let record = Request {
        method,
        path,
        query: raw_query,
        verb: info.verb.clone(),
        group: info.group.clone(),
        resource: info.resource.clone(),
        subresource: info.subresource.clone(),
        namespace: info.namespace.clone(),
        name: info.name.clone(),
        at,
        status: resp.status().as_u16(),
        content_type: None,
        body: String::new(),
    };
    shared
        .requests
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .push(record);
    resp
}

fn exec_response(
    shared: &Arc<Shared>,
    req: hyper::Request<Incoming>,
    info: &Info,
    query: &[(String, String)],
) -> Response<Body> {
    let opts = shared.opts();
    let kubelet = opts.kubelet.clone().unwrap_or_default();
    if let Some(token) = &opts.token {
        let ok = req
            .headers()
            .get("authorization")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "))
            == Some(token.as_str());
        if !ok {
            return status(401, "Unauthorized", "Unauthorized", None);
        }
    }
    if let Some(resp) = forbidden(shared, info, &opts) {
        return resp;
    }
    let ns = info.namespace.clone().unwrap_or_default();
    let name = info.name.clone().unwrap_or_default();
    let (pod, def) = {
        let state = shared.state();
        (
            state.objects.get(&pod_key(&ns, &name)).cloned(),
            state.def_for("", "pods").cloned(),
        )
    };
    let Some(pod) = pod else {
        return match def {
            Some(d) => not_found(&d, &name),
            None => page_not_found(),
        };
    };
    let Some(node) = pod
        .pointer("/spec/nodeName")
        .and_then(Value::as_str)
        .map(String::from)
    else {
        return status(
            400,
            "BadRequest",
            &format!("pod {name} does not have a host assigned"),
            None,
        );
    };
    let containers = pod
        .pointer("/spec/containers")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let wanted = query_get(query, "container").map(String::from);
    let container = match &wanted {
        Some(c) => containers.iter().find(|x| x["name"] == c.as_str()).cloned(),
        None if containers.len() == 1 => containers.first().cloned(),
        None => None,
    };
    let Some(container) = container else {
        return status(
            400,
            "BadRequest",
            &format!(
                "container {} is not valid for pod {name}",
                wanted.unwrap_or_default()
            ),
            None,
        );
    };
    let phase = pod
        .pointer("/status/phase")
        .and_then(Value::as_str)
        .unwrap_or("Pending");
    if matches!(phase, "Succeeded" | "Failed") {
        return status(
            400,
            "BadRequest",
            &format!("cannot exec into a container in a completed pod; current phase is {phase}"),
            None,
        );
    }
    let behaviour = kubelet.nodes.get(&node).cloned();
    let Some(behaviour) = behaviour.filter(|_| phase == "Running") else {
        return status(
            500,
            "InternalError",
            &format!(
                "Internal error occurred: unable to upgrade connection: container not found ({})",
                go_quote(container["name"].as_str().unwrap_or(""))
            ),
            None,
        );
    };
    let command: Vec<String> = query
        .iter()
        .filter(|(k, _)| k == "command")
        .map(|(_, v)| v.clone())
        .collect();
    if command.is_empty() {
        return status(
            400,
            "BadRequest",
            "you must specify at least 1 command",
            None,
        );
    }
    let headers = req.headers();
    let is_ws = headers
        .get("upgrade")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.eq_ignore_ascii_case("websocket"));
    let key = headers
        .get("sec-websocket-key")
        .map(|v| v.as_bytes().to_vec());
    let (true, Some(key)) = (is_ws, key) else {
        return status(400, "BadRequest", "Upgrade request required", None);
    };
    let offered: Vec<String> = headers
        .get_all("sec-websocket-protocol")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(|p| p.trim().to_string())
        .collect();
    // As Go's websocket handshake: the first protocol the client offers that the server allows.
    let Some(protocol) = offered
        .iter()
        .find(|p| kubelet.protocols.contains(p))
        .cloned()
    else {
        return status(
            400,
            "BadRequest",
            &format!(
                "requested protocol(s) are not supported: {offered:?}; supports {:?}",
                kubelet.protocols
            ),
            None,
        );
    };
    let accept = tokio_tungstenite::tungstenite::handshake::derive_accept_key(&key);
    let mut env = vec![
        (
            "PATH".to_string(),
            std::env::var("PATH").unwrap_or_else(|_| "/usr/bin:/bin".into()),
        ),
        ("LC_ALL".to_string(), "C".to_string()),
    ];
    env.extend(container_env(&pod, &container, &behaviour.root));
    env.push(("VOLMNT_LIVE".into(), "0".into()));
    let session = ExecSession {
        namespace: ns,
        pod: name,
        node,
        container: container["name"].as_str().map(String::from),
        command,
        protocol: protocol.clone(),
        stdin_bytes: 0,
        exit_code: None,
    };
    let shared = shared.clone();
    let on_upgrade = hyper::upgrade::on(req);
    tokio::spawn(async move {
        if let Ok(upgraded) = on_upgrade.await {
            exec_session(shared, upgraded, session, behaviour, env).await;
        }
    });
    let mut resp = Response::new(full(Bytes::new()));
    *resp.status_mut() = StatusCode::SWITCHING_PROTOCOLS;
    let h = resp.headers_mut();
    h.insert("upgrade", HeaderValue::from_static("websocket"));
    h.insert("connection", HeaderValue::from_static("Upgrade"));
    if let Ok(v) = HeaderValue::from_str(&accept) {
        h.insert("sec-websocket-accept", v);
    }
    if let Ok(v) = HeaderValue::from_str(&protocol) {
        h.insert("sec-websocket-protocol", v);
    }
    resp
}

/// One exec session: the command runs here; frames carry its stdin, stdout, stderr and final
/// Status (channel 3).
async fn exec_session(
    shared: Arc<Shared>,
    upgraded: hyper::upgrade::Upgraded,
    mut session: ExecSession,
    node: ExecNode,
    env: Vec<(String, String)>,
) {
    use futures::{SinkExt, StreamExt};
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    use tokio_tungstenite::tungstenite::protocol::Role;
    use tokio_tungstenite::tungstenite::Message;

    let ws = tokio_tungstenite::WebSocketStream::from_raw_socket(
        hyper_util::rt::TokioIo::new(upgraded),
        Role::Server,
        None,
    )
    .await;
    let (mut tx, mut rx) = ws.split();
    let v5 = session.protocol.starts_with("v5.");
    let record = |s: ExecSession| {
        shared
            .exec_sessions
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(s);
    };

    // A slow node: the command starts late (the client may give up meanwhile); what arrives on
    // stdin meanwhile is kept for it.
    let mut early_stdin: Vec<Vec<u8>> = Vec::new();
    let mut early_close = false;
    if !node.delay.is_zero() {
        let sleep = tokio::time::sleep(node.delay);
        tokio::pin!(sleep);
        loop {
            tokio::select! {
                _ = &mut sleep => break,
                m = rx.next() => match m {
                    Some(Ok(Message::Binary(b))) if b.first() == Some(&0) => {
                        session.stdin_bytes += b.len() - 1;
                        early_stdin.push(b[1..].to_vec());
                    }
                    Some(Ok(Message::Binary(b))) if v5 && b[..] == [255, 0] => early_close = true,
                    Some(Ok(Message::Binary(_))) | Some(Ok(Message::Ping(_))) | Some(Ok(Message::Pong(_))) => {}
                    _ => { record(session); return; }
                },
            }
        }
    }

    let mut child = match tokio::process::Command::new(&session.command[0])
        .args(&session.command[1..])
        .env_clear()
        .envs(env)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
    {
        Ok(c) => c,
        Err(e) => {
            let st = json!({
                "metadata": {},
                "status": "Failure",
                "message": format!("OCI runtime exec failed: exec failed: unable to start container process: exec: {}: {e}: unknown", go_quote(&session.command[0])),
            });
            let mut frame = vec![3u8];
            frame.extend_from_slice(st.to_string().as_bytes());
            let _ = tx.send(Message::binary(frame)).await;
            let _ = tx.send(Message::Close(None)).await;
            record(session);
            return;
        }
    };
    // stdin through its own task, so a command that does not read cannot stall the socket.
    let (in_tx, mut in_rx) = mpsc::unbounded_channel::<Vec<u8>>();
    let mut stdin = child.stdin.take();
    tokio::spawn(async move {
        while let Some(chunk) = in_rx.recv().await {
            let Some(w) = stdin.as_mut() else { break };
            if w.write_all(&chunk).await.is_err() {
                break;
            }
        }
        // Channel closed (v5 close-stream, or the session ended): EOF for the command.
        drop(stdin);
    });
    for chunk in early_stdin {
        let _ = in_tx.send(chunk);
    }
    let mut in_tx = (!early_close).then_some(in_tx);
    let (out_tx, mut out_rx) = mpsc::channel::<(u8, Vec<u8>)>(16);
    for (ch, pipe) in [
        (
            1u8,
            child
                .stdout
                .take()
                .map(|p| Box::new(p) as Box<dyn tokio::io::AsyncRead + Send + Unpin>),
        ),
        (
            2u8,
            child
                .stderr
                .take()
                .map(|p| Box::new(p) as Box<dyn tokio::io::AsyncRead + Send + Unpin>),
        ),
    ] {
        let Some(mut pipe) = pipe else { continue };
        let out_tx = out_tx.clone();
        tokio::spawn(async move {
            let mut buf = vec![0u8; 16 << 10];
            loop {
                match pipe.read(&mut buf).await {
                    Ok(0) | Err(_) => break,
                    Ok(n) => {
                        if out_tx.send((ch, buf[..n].to_vec())).await.is_err() {
                            break;
                        }
                    }
                }
            }
        });
    }
    drop(out_tx);
    let mut client_gone = false;
    loop {
        tokio::select! {
            m = rx.next() => match m {
                Some(Ok(Message::Binary(b))) if !b.is_empty() => match b[0] {
                    0 => {
                        session.stdin_bytes += b.len() - 1;
                        if let Some(t) = &in_tx {
                            let _ = t.send(b[1..].to_vec());
                        }
                    }
                    255 if v5 && b.get(1) == Some(&0) => in_tx = None,
                    _ => {}
                },
                Some(Ok(Message::Close(_))) | None | Some(Err(_)) => {
                    client_gone = true;
                    break;
                }
                Some(Ok(_)) => {}
            },
            chunk = out_rx.recv() => match chunk {
                Some((ch, data)) => {
                    let mut frame = Vec::with_capacity(data.len() + 1);
                    frame.push(ch);
                    frame.extend_from_slice(&data);
                    if tx.send(Message::binary(frame)).await.is_err() {
                        client_gone = true;
                        break;
                    }
                }
                None => break,
            },
        }
    }
    drop(in_tx);
    if client_gone {
        let _ = child.kill().await;
        record(session);
        return;
    }
    let code = child.wait().await.ok().and_then(|s| s.code()).unwrap_or(-1);
    session.exit_code = Some(code);
    // As the kubelet's v4+ error stream writes it (remotecommand/httpstream.go).
    let st = if code == 0 {
        json!({"metadata": {}, "status": "Success"})
    } else {
        json!({
            "metadata": {},
            "status": "Failure",
            "message": format!("command terminated with non-zero exit code: error executing command {:?}, exit code {code}", session.command),
            "reason": "NonZeroExitCode",
            "details": {"causes": [{"reason": "ExitCode", "message": code.to_string()}]},
        })
    };
    let mut frame = vec![3u8];
    frame.extend_from_slice(st.to_string().as_bytes());
    let _ = tx.send(Message::binary(frame)).await;
    let _ = tx.send(Message::Close(None)).await;
    record(session);
}

// ---------------------------------------------------------------------------------------------
// Logs and access reviews: pods/log, the node log query through nodes/proxy, and
// SelfSubjectAccessReview, with the real server's answers (checked against a kube-apiserver
// and kubelet v1.36.2: the messages below are theirs).
// ---------------------------------------------------------------------------------------------

fn text_response(code: u16, content_type: &'static str, body: String) -> Response<Body> {
    let mut r = Response::new(full(Bytes::from(body)));
    *r.status_mut() = StatusCode::from_u16(code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    r.headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static(content_type));
    r
}

/// `2026-11-26T21:54:02Z` → seconds since the epoch (the fractional part is ignored).
fn parse_rfc3339_secs(t: &str) -> Option<i64> {
    let b = t.as_bytes();
    if t.len() < 20 || b[4] != b'-' || b[7] != b'-' || b[10] != b'T' || !t.ends_with('Z') {
        return None;
    }
    let n = |r: std::ops::Range<usize>| t.get(r)?.parse::<i64>().ok();
    let (y, m, d) = (n(0..4)?, n(5..7)?, n(8..10)?);
    let (hh, mm, ss) = (n(11..13)?, n(14..16)?, n(17..19)?);
    // Howard Hinnant's days_from_civil.
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    Some(days * 86_400 + hh * 3600 + mm * 60 + ss)
}

/// When an entry of the given age (at server start) was written.
fn written_at(shared: &Shared, age: Duration) -> SystemTime {
    shared.started.checked_sub(age).unwrap_or(UNIX_EPOCH)
}

/// `2026-11-26T21:54:02.452270541Z`, as `kubectl logs --timestamps` prints (RFC3339Nano).
fn rfc3339_nanos(t: SystemTime) -> String {
    let d = t.duration_since(UNIX_EPOCH).unwrap_or_default();
    let secs = rfc3339_secs(d.as_secs() as i64);
    format!("{}.{:09}Z", secs.trim_end_matches('Z'), d.subsec_nanos())
}

/// `Nov 26 21:54:02.452270` (journalctl --utc --output=short-precise).
fn journal_time(t: SystemTime) -> String {
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let d = t.duration_since(UNIX_EPOCH).unwrap_or_default();
    let full = rfc3339_secs(d.as_secs() as i64);
    let month: usize = full[5..7].parse().unwrap_or(1);
    format!(
        "{} {} {}.{:06}",
        MONTHS[month.clamp(1, 12) - 1],
        &full[8..10],
        &full[11..19],
        d.subsec_micros()
    )
}

fn invalid_log_option(pod: &str, field: &str, value: i64, must: &str) -> Response<Body> {
    // As the apiserver's validation of PodLogOptions says it (422 Invalid).
    let detail = format!("Invalid value: {value}: {must}");
    let mut v = status_value(
        422,
        "Invalid",
        &format!(
            "PodLogOptions {} is invalid: {field}: {detail}",
            go_quote(pod)
        ),
        Some(json!({
            "name": pod,
            "kind": "PodLogOptions",
            "causes": [{"reason": "FieldValueInvalid", "message": detail, "field": field}],
        })),
    );
    v["code"] = json!(422);
    json_response(422, &v)
}

/// `GET /api/v1/namespaces/{ns}/pods/{name}/log`: container, previous, tailLines, limitBytes,
/// sinceSeconds, timestamps (pkg/registry/core/pod/rest/log.go and the kubelet's log server).
fn pod_log(shared: &Shared, call: &Call) -> Reply {
    let info = call.info;
    let ns = info.namespace.clone().unwrap_or_default();
    let name = info.name.clone().unwrap_or_default();
    let def = shared
        .state()
        .def_for("", "pods")
        .cloned()
        .expect("pods are served");
    let pod = shared
        .state()
        .objects
        .get(&store_key(&def, &ns, &name))
        .cloned()
        .ok_or_else(|| not_found(&def, &name))?;
    let int = |k: &str| -> Result<Option<i64>, Response<Body>> {
        match call.q(k) {
            None => Ok(None),
            Some(v) => v.parse::<i64>().map(Some).map_err(|_| {
                status(
                    400,
                    "BadRequest",
                    &format!(
                        "couldn't parse {k} {v:?}: strconv.ParseInt: parsing {v:?}: invalid syntax"
                    ),
                    None,
                )
            }),
        }
    };
    let (tail, limit, since) = (int("tailLines")?, int("limitBytes")?, int("sinceSeconds")?);
    if let Some(t) = tail.filter(|t| *t < 0) {
        return Err(invalid_log_option(
            &name,
            "tailLines",
            t,
            "must be greater than or equal to 0",
        ));
    }
    if let Some(l) = limit.filter(|l| *l < 1) {
        return Err(invalid_log_option(
            &name,
            "limitBytes",
            l,
            "must be greater than 0",
        ));
    }
    if let Some(s) = since.filter(|s| *s < 1) {
        return Err(invalid_log_option(
            &name,
            "sinceSeconds",
            s,
            "must be greater than 0",
        ));
    }
    let names = |k: &str| -> Vec<String> {
        pod.pointer(&format!("/spec/{k}"))
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|c| c.get("name").and_then(Value::as_str).map(str::to_string))
            .collect()
    };
    let (containers, inits) = (names("containers"), names("initContainers"));
    let container = match call.q("container") {
        Some(c) if !c.is_empty() => c.to_string(),
        _ if containers.len() == 1 => containers[0].clone(),
        _ => {
            let mut m = format!(
                "a container name must be specified for pod {name}, choose one of: [{}]",
                containers.join(" ")
            );
            if !inits.is_empty() {
                m.push_str(&format!(
                    " or one of the init containers: [{}]",
                    inits.join(" ")
                ));
            }
            return Err(status(400, "BadRequest", &m, None));
        }
    };
    if !containers.contains(&container) && !inits.contains(&container) {
        return Err(status(
            400,
            "BadRequest",
            &format!("container {container} is not valid for pod {name}"),
            None,
        ));
    }
    if pod
        .pointer("/spec/nodeName")
        .and_then(Value::as_str)
        .is_none()
    {
        return Err(status(
            400,
            "BadRequest",
            &format!("pod {name} does not have a host assigned"),
            None,
        ));
    }
    let previous = call.q("previous") == Some("true");
    let key = (ns.clone(), name.clone(), container.clone(), previous);
    let Some(entries) = shared
        .pod_logs
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .get(&key)
        .cloned()
    else {
        if previous {
            return Err(status(
                400,
                "BadRequest",
                &format!(
                    "previous terminated container {} in pod {} not found",
                    go_quote(&container),
                    go_quote(&name)
                ),
                None,
            ));
        }
        let waiting = pod
            .pointer("/status/containerStatuses")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .find(|c| c.get("name").and_then(Value::as_str) == Some(container.as_str()))
            .and_then(|c| c.pointer("/state/waiting/reason"))
            .and_then(Value::as_str)
            .map(str::to_string);
        if let Some(reason) = waiting {
            return Err(status(
                400,
                "BadRequest",
                &format!(
                    "container {} in pod {} is waiting to start: {reason}",
                    go_quote(&container),
                    go_quote(&name)
                ),
                None,
            ));
        }
        return Ok(text_response(200, "text/plain", String::new()));
    };
    let now = SystemTime::now();
    let mut lines: Vec<(SystemTime, String)> = entries
        .iter()
        .map(|(age, l)| (written_at(shared, *age), l.clone()))
        .filter(|(t, _)| {
            since.is_none_or(|s| {
                now.duration_since(*t).unwrap_or_default() <= Duration::from_secs(s as u64)
            })
        })
        .collect();
    if let Some(t) = tail {
        let t = t as usize;
        if lines.len() > t {
            lines.drain(..lines.len() - t);
        }
    }
    let stamps = call.q("timestamps") == Some("true");
    let mut body = String::new();
    for (t, l) in lines {
        if stamps {
            body.push_str(&rfc3339_nanos(t));
            body.push(' ');
        }
        body.push_str(&l);
        body.push('\n');
    }
    if let Some(l) = limit {
        let mut end = (l as usize).min(body.len());
        while !body.is_char_boundary(end) {
            end -= 1;
        }
        body.truncate(end);
    }
    Ok(text_response(200, "text/plain", body))
}

/// `GET /api/v1/nodes/{name}/proxy/logs/?query=...`: the apiserver's node proxy to the kubelet's
/// log server, as [`NodeLogs`] configures each node.
fn node_proxy(shared: &Shared, call: &Call) -> Reply {
    let info = call.info;
    let name = info.name.clone().unwrap_or_default();
    let def = shared
        .state()
        .def_for("", "nodes")
        .cloned()
        .expect("nodes are served");
    if !shared
        .state()
        .objects
        .contains_key(&store_key(&def, "", &name))
    {
        return Err(not_found(&def, &name));
    }
    // The path after `proxy`: only the kubelet's /logs/ is served here.
    let rest = call
        .path
        .split_once("/proxy")
        .map(|(_, r)| r.trim_start_matches('/'))
        .unwrap_or("");
    if !(rest == "logs" || rest.starts_with("logs/")) {
        return Err(text_response(
            404,
            "text/plain; charset=utf-8",
            "404 page not found\n".into(),
        ));
    }
    let mode = shared
        .node_logs
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .get(&name)
        .cloned()
        .unwrap_or(NodeLogs::QueryDisabled);
    let listing = || {
        // Go's http.FileServer directory listing (net/http/fs.go dirList).
        let mut b = String::from(
            "<!doctype html>\n<meta name=\"viewport\" content=\"width=device-width\">\n<pre>\n",
        );
        for f in [
            "README",
            "alternatives.log",
            "apt/",
            "containers/",
            "journal/",
            "pods/",
        ] {
            b.push_str(&format!("<a href=\"{f}\">{f}</a>\n"));
        }
        b.push_str("</pre>\n");
        text_response(200, "text/html; charset=utf-8", b)
    };
    match mode {
        NodeLogs::AddressNotAllowed => Err(status(400, "BadRequest", "address not allowed", None)),
        NodeLogs::Unreachable => Err(status(
            503,
            "ServiceUnavailable",
            "error trying to reach service: dial tcp 10.0.0.9:10250: connect: connection refused",
            None,
        )),
        NodeLogs::HandlerDisabled => Err(text_response(
            405,
            "text/plain; charset=utf-8",
            "logs endpoint is disabled.\n".into(),
        )),
        NodeLogs::QueryDisabled => Ok(listing()),
        NodeLogs::NotJournald => {
            let has_options = ["sinceTime", "untilTime", "tailLines", "pattern", "boot"]
                .iter()
                .any(|k| call.q(k).is_some());
            if call.q("query").is_none() {
                return Ok(listing());
            }
            let q = call.q("query").unwrap_or("");
            Ok(text_response(
                200,
                "text/plain;charset=UTF-8",
                if has_options {
                    format!("\noptions present and query resolved to log files for [{q}]\ntry without specifying options\n")
                } else {
                    format!("\nlog not found for {q}\n")
                },
            ))
        }
        NodeLogs::Journal(entries) => {
            let Some(q) = call.q("query") else {
                return Ok(listing());
            };
            if q.trim().is_empty() {
                return Err(text_response(
                    400,
                    "text/plain; charset=utf-8",
                    "unit: Invalid value: \"\": unit cannot be empty\n".into(),
                ));
            }
            let tail = match call.q("tailLines") {
                None => None,
                Some(v) => match v.parse::<i64>() {
                    Ok(n) if (0..=100_000).contains(&n) => Some(n as usize),
                    Ok(n) => {
                        return Err(text_response(
                            406,
                            "text/plain; charset=utf-8",
                            format!("tailLines: Invalid value: {n}: must be between 0 and 100000, inclusive\n"),
                        ))
                    }
                    Err(e) => {
                        return Err(text_response(
                            400,
                            "text/plain; charset=utf-8",
                            format!("tailLines: Invalid value: {v:?}: {e}\n"),
                        ))
                    }
                },
            };
            let since = match call.q("sinceTime") {
                None => None,
                Some(t) => match parse_rfc3339_secs(t) {
                    Some(s) => Some(s),
                    None => {
                        return Err(text_response(
                            400,
                            "text/plain; charset=utf-8",
                            format!("sinceTime: Invalid value: {t:?}: invalid time format\n"),
                        ))
                    }
                },
            };
            // journalctl --grep is PCRE2 and, without --case-sensitive=true, case-insensitive.
            let pattern = match call.q("pattern") {
                None => None,
                Some(p) => match regex::RegexBuilder::new(p)
                    .case_insensitive(call.q("case-sensitive") != Some("true"))
                    .build()
                {
                    Ok(r) => Some(r),
                    Err(e) => {
                        return Err(text_response(
                            406,
                            "text/plain; charset=utf-8",
                            format!("pattern: Invalid value: {p:?}: {e}\n"),
                        ))
                    }
                },
            };
            let mut lines: Vec<String> = entries
                .iter()
                .map(|(age, l)| (written_at(shared, *age), l))
                .filter(|(t, _)| {
                    since.is_none_or(|s| {
                        t.duration_since(UNIX_EPOCH).unwrap_or_default().as_secs() as i64 >= s
                    })
                })
                .filter(|(_, l)| pattern.as_ref().is_none_or(|r| r.is_match(l)))
                .map(|(t, l)| format!("{} {name} kubelet[1187]: {l}", journal_time(t)))
                .collect();
            if let Some(t) = tail {
                if lines.len() > t {
                    lines.drain(..lines.len() - t);
                }
            }
            let body = if lines.is_empty() {
                "-- No entries --\n".to_string()
            } else {
                lines.join("\n") + "\n"
            };
            Ok(text_response(200, "text/plain;charset=UTF-8", body))
        }
    }
}

/// `POST /apis/authorization.k8s.io/v1/selfsubjectaccessreviews`: the review is answered from
/// the options' denials (what `forbidden` would answer that request) and stored nowhere.
fn self_subject_access_review(shared: &Shared, call: &Call) -> Reply {
    if call.info.verb != "create" {
        return Err(status(
            405,
            "MethodNotAllowed",
            "the server does not allow this method on the requested resource",
            None,
        ));
    }
    let body: Value = serde_json::from_slice(call.body).map_err(|e| {
        status(
            400,
            "BadRequest",
            &format!("the body of the request was in an unknown format: {e}"),
            None,
        )
    })?;
    let attrs = body.pointer("/spec/resourceAttributes").cloned();
    let non = body.pointer("/spec/nonResourceAttributes").cloned();
    if attrs.is_none() == non.is_none() {
        let m = "SelfSubjectAccessReview.authorization.k8s.io \"\" is invalid: spec.resourceAttributes: Invalid value: \"null\": exactly one of nonResourceAttributes or resourceAttributes must be specified";
        return Err(status(422, "Invalid", m, None));
    }
    let allowed = match &attrs {
        Some(a) => {
            let s = |k: &str| a.get(k).and_then(Value::as_str).unwrap_or("").to_string();
            let (group, resource, sub) = (s("group"), s("resource"), s("subresource"));
            let full = if sub.is_empty() {
                resource.clone()
            } else {
                format!("{resource}/{sub}")
            };
            let mut names = vec![full.clone()];
            if !group.is_empty() {
                names.push(format!("{full}.{group}"));
            }
            let ns = s("namespace");
            let opts = shared.opts();
            if ns.is_empty() {
                // Every namespace: refused in one is not allowed in all.
                !opts.deny.iter().any(|d| {
                    (d.verb == "*" || d.verb == s("verb"))
                        && (d.resource == "*" || names.contains(&d.resource))
                })
            } else {
                !is_denied(&opts, &s("verb"), &names, Some(ns.as_str()))
            }
        }
        None => true,
    };
    let mut spec = Map::new();
    if let Some(a) = attrs {
        spec.insert("resourceAttributes".into(), a);
    }
    if let Some(n) = non {
        spec.insert("nonResourceAttributes".into(), n);
    }
    Ok(json_response(
        201,
        &json!({
            "kind": "SelfSubjectAccessReview",
            "apiVersion": "authorization.k8s.io/v1",
            "metadata": {},
            "spec": spec,
            "status": {"allowed": allowed},
        }),
    ))
}
