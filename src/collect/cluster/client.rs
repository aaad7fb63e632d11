//! The connection to the API server, as kubectl makes it, and what volmnt counts about its use:
//! requests by the apiserver's verb (`-v`, `volmnt watch`'s metrics), refusals (the report's
//! "not allowed to read"), and when each watch was last accepted (`volmnt watch`'s readiness).
//! Every request is bounded by `--request-timeout` here (`Cluster::timed`), and a transport or
//! API failure is read into volmnt's error here (`Cluster::fail`).

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use kube::config::KubeConfigOptions;
use kube::{Client, Config};

use super::errors::{network_cause, root_cause};
use super::kubeconfig::{apply_overrides, config_error, load_kubeconfig, Overrides};
use crate::error::{Error, Result};
use crate::model::Denied;

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
    /// kubectl's connection flags over the kubeconfig (`--server`, `--token`, `--user`, ...).
    pub overrides: Overrides,
}

/// A connected client with what volmnt tracks about its use.
#[derive(Clone)]
pub struct Cluster {
    /// API reads and writes: one connection, HTTP/2 where the server offers it.
    pub(super) client: Client,
    /// kube's HTTP/1.1 client, for exec's WebSocket upgrade.
    exec_client: Client,
    /// The namespace from `-n` or the context.
    pub namespace: String,
    /// `context NAME at https://...`, for messages.
    pub target: String,
    pub(super) timeout: Duration,
    requests: Arc<AtomicUsize>,
    /// Requests by API verb (get, list, watch, create, update, patch, delete).
    by_verb: Arc<[AtomicUsize; VERBS.len()]>,
    denied: Arc<Mutex<Vec<Denied>>>,
    /// When the server last accepted a watch, by request path (transport::WatchHook).
    watches_accepted: Arc<Mutex<std::collections::HashMap<String, std::time::Instant>>>,
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
        let loaded = apply_overrides(
            load_kubeconfig(o.kubeconfig.as_deref())?,
            o.context.as_deref(),
            &o.overrides,
        )?;
        let mut config = match loaded {
            Some(kc) => {
                if o.context.is_none() {
                    if let Some(cur) = kc.current_context.as_ref().filter(|c| !c.is_empty()) {
                        context_label = if o.overrides.server.is_some() {
                            "--server".to_string()
                        } else {
                            format!("context {cur}")
                        };
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
        let hook: crate::collect::transport::RequestHook =
            Arc::new(move |r: &http::Request<kube::client::Body>| {
                counter.fetch_add(1, Ordering::Relaxed);
                verbs[verb_of(r.method(), r.uri())].fetch_add(1, Ordering::Relaxed);
            });
        let setup =
            |e: kube::Error| Error::Unreachable(format!("setting up the client for {target}: {e}"));
        let watches_accepted: Arc<Mutex<std::collections::HashMap<String, std::time::Instant>>> =
            Arc::default();
        let accepted = watches_accepted.clone();
        let watched: crate::collect::transport::WatchHook = Arc::new(move |path: &str| {
            if let Ok(mut m) = accepted.lock() {
                m.insert(path.to_string(), std::time::Instant::now());
            }
        });
        let client =
            crate::collect::transport::api_client(&config, hook.clone(), watched).map_err(setup)?;
        let exec_client = crate::collect::transport::exec_client(config, hook).map_err(setup)?;
        Ok(Cluster {
            client,
            exec_client,
            namespace,
            target,
            timeout: o.request_timeout,
            requests,
            by_verb,
            denied: Arc::new(Mutex::new(Vec::new())),
            watches_accepted,
        })
    }

    /// When the server last accepted a watch on this path (`/api/v1/pods`), if it ever did.
    pub fn watch_accepted(&self, path: &str) -> Option<std::time::Instant> {
        self.watches_accepted
            .lock()
            .ok()
            .and_then(|m| m.get(path).copied())
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

    pub(super) fn record_denied(&self, what: Denied) {
        if let Ok(mut d) = self.denied.lock() {
            if !d.contains(&what) {
                d.push(what);
            }
        }
    }

    /// Turn a transport or API failure into volmnt's error (401 and unreachable → exit 3).
    pub(super) fn fail(&self, action: &str, e: kube::Error) -> Error {
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

    pub(super) async fn timed<T>(
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

    pub fn client(&self) -> Client {
        self.client.clone()
    }

    /// A client for exec (a WebSocket upgrade, which HTTP/2 cannot carry).
    pub fn exec_client(&self) -> Client {
        self.exec_client.clone()
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
