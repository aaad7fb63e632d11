//! `node check --via daemonset`: one short-lived DaemonSet instead of one pod per node, so a
//! fleet is probed by the cluster's own machinery (one create, the DaemonSet controller starts
//! a probe pod on every node at once) and the wall time is close to the slowest node's.
//!
//! The DaemonSet's pod template is the `--exec` probe pod ([`exec::probe_pod`]: hostPID, the
//! node's `/` read-only at /host, not privileged, every capability dropped, tolerating every
//! taint), minus what a DaemonSet may not have: no `nodeName` (the controller places one pod per
//! node; named nodes become a required node affinity on `metadata.name`), `restartPolicy:
//! Always` (the only one a DaemonSet accepts) and no `activeDeadlineSeconds` (refused in a
//! DaemonSet by the apiserver's validation). Its end time is therefore kept differently: the
//! container only sleeps for the run's length, the DaemonSet says until when it is needed in a
//! `volmnt.io/expires` annotation, `volmnt node gc` deletes leftovers, and volmnt deletes it on
//! every path: success, error, per-node timeout, Ctrl-C (it is registered before the create
//! request is sent).
//!
//! One lister polls the run's pods (label `volmnt.io/probe-run=<id>`) for all nodes; each node
//! waits for its pod to run, then the probe is exec'd into it exactly as for `--exec`
//! (`exec::exec_probe`), at most `concurrency` at a time. A node whose pod does not start is
//! reported with why: no pod placed on it, the pod's phase and waiting reason, or an image that
//! cannot be pulled.

use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use k8s_openapi::api::apps::v1::DaemonSet;
use k8s_openapi::api::core::v1::Pod;
use kube::api::{DeleteParams, ListParams, PostParams, PropagationPolicy};
use kube::{Api, Client};
use serde_json::json;

use super::exec::{self, ExecOptions};
use super::ProbeRun;
use crate::error::{Error, Result};

/// The label that ties a run's DaemonSet and pods together.
pub const LABEL_RUN: &str = "volmnt.io/probe-run";
/// When a leftover DaemonSet may be deleted by `volmnt node gc` (RFC 3339).
pub const ANNOTATION_EXPIRES: &str = "volmnt.io/expires";

/// DaemonSets created and not yet confirmed deleted (shared with the Ctrl-C path).
#[derive(Debug, Clone, Default)]
pub struct ProbeDaemonSets {
    inner: Arc<Mutex<BTreeSet<(String, String)>>>,
}

impl ProbeDaemonSets {
    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeSet<(String, String)>> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }
    pub fn insert(&self, ns: &str, name: &str) {
        self.lock().insert((ns.to_string(), name.to_string()));
    }
    pub fn remove(&self, ns: &str, name: &str) {
        self.lock().remove(&(ns.to_string(), name.to_string()));
    }
    pub fn pending(&self) -> Vec<(String, String)> {
        self.lock().iter().cloned().collect()
    }
}

/// One node's outcome.
pub struct NodeRun {
    pub node: String,
    pub run: Result<ProbeRun>,
    pub elapsed: Duration,
}

/// `volmnt-probe-ds-<5 random>`, and the run id (the random part).
pub fn names() -> (String, String) {
    let full = exec::pod_name("daemonset");
    let id = full.rsplit('-').next().unwrap_or("run").to_string();
    (format!("volmnt-probe-ds-{id}"), id)
}

/// The DaemonSet for a run. `nodes`: Some(names) to place pods on those nodes only.
pub fn daemonset(name: &str, id: &str, nodes: Option<&[String]>, o: &ExecOptions) -> DaemonSet {
    let secs = o.deadline.as_secs().max(1);
    let pod = serde_json::to_value(exec::probe_pod("", name, o)).expect("pod serializes");
    let mut spec = pod["spec"].clone();
    let m = spec.as_object_mut().expect("pod spec is an object");
    m.remove("nodeName");
    m.remove("activeDeadlineSeconds");
    m.insert("restartPolicy".into(), json!("Always"));
    if let Some(nodes) = nodes {
        // One term per node (terms are ORed): the apiserver refuses a `matchFields` requirement
        // whose `In` has more than one value (422 "must be only one value when `operator` is
        // 'In' or 'NotIn' for node field selector"), so the names cannot share one term.
        let terms: Vec<serde_json::Value> = nodes
            .iter()
            .map(|n| json!({"matchFields": [{"key": "metadata.name", "operator": "In", "values": [n]}]}))
            .collect();
        m.insert(
            "affinity".into(),
            json!({"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": terms
            }}}),
        );
    }
    let mut labels = pod["metadata"]["labels"].clone();
    labels[LABEL_RUN] = json!(id);
    let expires = k8s_openapi::jiff::Timestamp::now()
        .checked_add(k8s_openapi::jiff::SignedDuration::from_secs(secs as i64))
        .map(|t| t.strftime("%Y-%m-%dT%H:%M:%SZ").to_string())
        .unwrap_or_default();
    let v = json!({
        "apiVersion": "apps/v1",
        "kind": "DaemonSet",
        "metadata": {
            "name": name,
            "namespace": o.namespace,
            "labels": labels,
            "annotations": {
                ANNOTATION_EXPIRES: expires,
                "volmnt.io/purpose": "read-only node probes of `volmnt node check --via daemonset`; deleted when the check ends",
            },
        },
        "spec": {
            "selector": {"matchLabels": {LABEL_RUN: id}},
            "updateStrategy": {"type": "OnDelete"},
            "template": {
                "metadata": {"labels": labels},
                "spec": spec,
            },
        },
    });
    serde_json::from_value(v).expect("the probe DaemonSet is a valid DaemonSet")
}

/// One line saying what will be created, printed before it is.
pub fn announcement(o: &ExecOptions, name: &str, nodes: usize) -> String {
    format!(
        "volmnt: creating DaemonSet {}/{name} (a probe pod on each of {nodes} node(s)): image {}, \
         hostPID, the node's / mounted read-only at /host, not privileged, all capabilities \
         dropped, tolerating all taints; deleted with its pods when the check ends (it expires \
         after {} s: `volmnt node gc` removes leftovers)",
        o.namespace,
        o.image,
        o.deadline.as_secs().max(1)
    )
}

/// Probe `nodes` through one DaemonSet (`names()`, as announced). Returns each node's outcome; the DaemonSet and its pods
/// are deleted before this returns (`registry` covers cancellation). `per_node` bounds a node
/// from the DaemonSet's creation to its probe's end.
#[allow(clippy::too_many_arguments)]
pub async fn run_all(
    client: &Client,
    (name, id): (String, String),
    nodes: &[String],
    only_these: bool,
    o: &ExecOptions,
    registry: &ProbeDaemonSets,
    per_node: Duration,
    concurrency: usize,
    mut on_done: impl FnMut(&str, bool),
) -> Result<Vec<NodeRun>> {
    let ns = o.namespace.clone();
    let api: Api<DaemonSet> = Api::namespaced(client.clone(), &ns);
    let ds = daemonset(&name, &id, only_these.then_some(nodes), o);
    registry.insert(&ns, &name);
    let started = Instant::now();
    let deadline = tokio::time::Instant::now() + per_node;
    let created = tokio::time::timeout(o.request_timeout, api.create(&PostParams::default(), &ds))
        .await
        .map_err(|_| {
            Error::Unreachable(format!(
                "creating DaemonSet {ns}/{name}: no answer within {:?}",
                o.request_timeout
            ))
        })
        .and_then(|r| {
            r.map_err(|e| exec::api_error(&format!("creating DaemonSet {ns}/{name}"), &ns, e))
        });
    let result = match created {
        Ok(_) => Ok(probe_nodes(
            client,
            &name,
            nodes,
            o,
            &id,
            started,
            deadline,
            concurrency,
            &mut on_done,
        )
        .await),
        Err(e) => Err(e),
    };
    if let Err(e) = delete_run(client, &ns, &name, &id, o.request_timeout).await {
        eprintln!("volmnt: {e}; `volmnt node gc` removes it");
    } else {
        registry.remove(&ns, &name);
    }
    result
}

/// Every pod of the run, by node, as last listed.
type PodsByNode = Arc<HashMap<String, Pod>>;

/// The node a run's pod is for: where it is bound, or, before the scheduler has placed it, the
/// node its required affinity names (the DaemonSet controller gives each pod one `matchFields`
/// term on `metadata.name`). On the real cluster a pod for a node that cannot take it stays
/// unbound, and was reported as "no pod placed there" instead of with the scheduler's reason.
fn node_of(p: &Pod) -> Option<String> {
    let spec = p.spec.as_ref()?;
    if let Some(n) = &spec.node_name {
        return Some(n.clone());
    }
    let terms = &spec
        .affinity
        .as_ref()?
        .node_affinity
        .as_ref()?
        .required_during_scheduling_ignored_during_execution
        .as_ref()?
        .node_selector_terms;
    let mut names = terms
        .iter()
        .flat_map(|t| t.match_fields.iter().flatten())
        .filter(|f| f.key == "metadata.name" && f.operator == "In")
        .flat_map(|f| f.values.iter().flatten());
    match (names.next(), names.next()) {
        (Some(one), None) => Some(one.clone()),
        _ => None,
    }
}

#[allow(clippy::too_many_arguments)]
async fn probe_nodes(
    client: &Client,
    name: &str,
    nodes: &[String],
    o: &ExecOptions,
    id: &str,
    started: Instant,
    deadline: tokio::time::Instant,
    concurrency: usize,
    on_done: &mut impl FnMut(&str, bool),
) -> Vec<NodeRun> {
    let pods_api: Api<Pod> = Api::namespaced(client.clone(), &o.namespace);
    let (tx, rx) =
        tokio::sync::watch::channel::<(PodsByNode, Option<String>)>((Arc::default(), None));
    // One lister for every node: a poll of the run's pods, backing off to 1 s.
    let selector = format!("{LABEL_RUN}={id}");
    let request_timeout = o.request_timeout;
    let lister = async move {
        let mut pause = Duration::from_millis(100);
        loop {
            let lp = ListParams::default().labels(&selector);
            match tokio::time::timeout(request_timeout, pods_api.list(&lp)).await {
                Ok(Ok(list)) => {
                    let map: HashMap<String, Pod> = list
                        .items
                        .into_iter()
                        .filter_map(|p| Some((node_of(&p)?, p)))
                        .collect();
                    tx.send_replace((Arc::new(map), None));
                }
                Ok(Err(e)) => {
                    let msg = exec::api_error("listing the probe pods", "", e).to_string();
                    tx.send_modify(|s| s.1 = Some(msg));
                }
                Err(_) => {}
            }
            tokio::time::sleep(pause).await;
            pause = (pause * 2).min(Duration::from_secs(1));
        }
    };
    // Why a node got no pod at all, asked once (at the first node's deadline): a DaemonSet whose
    // status was never written had no controller look at it, which is not a taint.
    let no_pod_why: tokio::sync::OnceCell<String> = tokio::sync::OnceCell::new();
    let no_pod_why = &no_pod_why;
    let ds_api: Api<DaemonSet> = Api::namespaced(client.clone(), &o.namespace);
    let ds_api = &ds_api;
    let execs = Arc::new(tokio::sync::Semaphore::new(concurrency.max(1)));
    let (done_tx, mut done_rx) = tokio::sync::mpsc::unbounded_channel::<(String, bool)>();
    let work = futures::future::join_all(nodes.iter().map(|node| {
        let mut rx = rx.clone();
        let execs = execs.clone();
        let done_tx = done_tx.clone();
        async move {
            let run = async {
                let pod = loop {
                    let (pods, err) = rx.borrow_and_update().clone();
                    if let Some(p) = pods.get(node) {
                        match exec::started(p, o.flags) {
                            Ok(true) => break p.clone(),
                            Ok(false) => {}
                            Err(why) => {
                                return Err(Error::Unreachable(format!("node {node}: {why}")))
                            }
                        }
                    }
                    if tokio::time::Instant::now() >= deadline {
                        let why = match (pods.get(node), err) {
                            (Some(p), _) => format!(
                                "its probe pod {} did not start within the --timeout; it is {}",
                                p.metadata.name.as_deref().unwrap_or("?"),
                                exec::pending_state(Some(p))
                            ),
                            (None, Some(e)) => format!("the probe pods could not be read: {e}"),
                            (None, None) => no_pod_why
                                .get_or_init(|| async {
                                    let got =
                                        tokio::time::timeout(request_timeout, ds_api.get(name))
                                            .await;
                                    match got {
                                        Ok(Ok(ds)) => why_no_pod(&ds, started.elapsed()),
                                        _ => why_no_pod_unread(),
                                    }
                                })
                                .await
                                .clone(),
                        };
                        return Err(Error::Unreachable(format!("node {node}: {why}")));
                    }
                    let _ = tokio::time::timeout_at(deadline, rx.changed()).await;
                };
                let _permit = execs.acquire().await.expect("semaphore open");
                let name = pod.metadata.name.clone().unwrap_or_default();
                exec::exec_probe(client, node, &name, o, deadline).await
            };
            let run = run.await;
            let _ = done_tx.send((node.clone(), run.is_ok()));
            NodeRun {
                node: node.clone(),
                elapsed: started.elapsed(),
                run: run.map(|mut r| {
                    r.elapsed = started.elapsed();
                    r
                }),
            }
        }
    }));
    drop(done_tx);
    let progress = async {
        while let Some((n, ok)) = done_rx.recv().await {
            on_done(&n, ok);
        }
    };
    tokio::select! {
        (runs, _) = async { futures::join!(work, progress) } => runs,
        _ = lister => unreachable!("the lister loops until the work is done"),
    }
}

/// Why the DaemonSet put no pod on a node, from its status. The DaemonSet controller (in
/// kube-controller-manager) writes `status.observedGeneration` once it has looked at the object
/// (pkg/controller/daemon/daemon_controller.go storeDaemonSetStatus, v1.36); never written means no
/// controller runs, and no node gets a pod, whatever its taints.
pub fn why_no_pod(ds: &DaemonSet, waited: Duration) -> String {
    let status = ds.status.as_ref();
    if status.and_then(|s| s.observed_generation).is_none() {
        return format!(
            "no DaemonSet controller acted on the probe DaemonSet: its status was never written in {}              (is kube-controller-manager running?), so no node got a probe pod;              `--via pod` (the default) needs no controller",
            crate::model::node::human_duration(waited)
        );
    }
    let desired = status.map(|s| s.desired_number_scheduled).unwrap_or(0);
    format!(
        "the DaemonSet controller placed no probe pod on it ({desired} node(s) got one): a taint          with an effect other than NoSchedule/NoExecute, or the node gone? `kubectl describe node` says"
    )
}

/// When the DaemonSet itself could not be read back.
fn why_no_pod_unread() -> String {
    "the DaemonSet placed no probe pod on it, and the DaemonSet could not be read back to say why      (no DaemonSet controller running? a taint? the node gone? `kubectl describe node` says)"
        .to_string()
}

/// Delete the run's DaemonSet (its pods go with it, by the garbage collector) and then its
/// pods by name, so nothing is left even before the collector gets to them.
async fn delete_run(
    client: &Client,
    ns: &str,
    name: &str,
    id: &str,
    timeout: Duration,
) -> Result<()> {
    let api: Api<DaemonSet> = Api::namespaced(client.clone(), ns);
    let dp = DeleteParams {
        propagation_policy: Some(PropagationPolicy::Background),
        grace_period_seconds: Some(0),
        ..DeleteParams::default()
    };
    match tokio::time::timeout(timeout, api.delete(name, &dp)).await {
        Ok(Ok(_)) => {}
        Ok(Err(kube::Error::Api(s))) if s.code == 404 => {}
        Ok(Err(e)) => {
            return Err(exec::api_error(
                &format!("deleting DaemonSet {ns}/{name}"),
                ns,
                e,
            ))
        }
        Err(_) => {
            return Err(Error::Unreachable(format!(
                "deleting DaemonSet {ns}/{name}: no answer within {timeout:?}"
            )))
        }
    }
    let pods: Api<Pod> = Api::namespaced(client.clone(), ns);
    if let Ok(Ok(list)) = tokio::time::timeout(
        timeout,
        pods.list_metadata(&ListParams::default().labels(&format!("{LABEL_RUN}={id}"))),
    )
    .await
    {
        for p in list.items {
            if let Some(n) = p.metadata.name {
                exec::delete(client, ns, &n, timeout).await?;
            }
        }
    }
    Ok(())
}

/// Delete every DaemonSet still in the registry (Ctrl-C, or a cancelled run).
pub async fn cleanup(
    client: &Client,
    registry: &ProbeDaemonSets,
    timeout: Duration,
) -> Vec<String> {
    let mut failed = Vec::new();
    for (ns, name) in registry.pending() {
        let id = name.trim_start_matches("volmnt-probe-ds-").to_string();
        match delete_run(client, &ns, &name, &id, timeout).await {
            Ok(()) => registry.remove(&ns, &name),
            Err(e) => failed.push(format!("{ns}/{name}: {e}")),
        }
    }
    failed
}

/// `volmnt node gc`: the probe DaemonSets (label volmnt.io/probe=true, with their pods) in a
/// namespace or every one; with `min_age`, only those older. `namespace/name` of each deleted.
pub async fn gc(
    client: &Client,
    namespace: Option<&str>,
    min_age: Option<Duration>,
    timeout: Duration,
) -> Result<Vec<String>> {
    let api: Api<DaemonSet> = match namespace {
        Some(ns) => Api::namespaced(client.clone(), ns),
        None => Api::all(client.clone()),
    };
    let list = tokio::time::timeout(
        timeout,
        api.list(&ListParams::default().labels(exec::PROBE_SELECTOR)),
    )
    .await
    .map_err(|_| {
        Error::Unreachable(format!(
            "listing probe DaemonSets: no answer within {timeout:?}"
        ))
    })?
    .map_err(|e| exec::api_error("listing probe DaemonSets", namespace.unwrap_or("*"), e))?;
    let now = k8s_openapi::jiff::Timestamp::now();
    let mut out = Vec::new();
    for ds in list.items {
        let (Some(ns), Some(name)) = (ds.metadata.namespace.clone(), ds.metadata.name.clone())
        else {
            continue;
        };
        if let (Some(min), Some(created)) = (min_age, ds.metadata.creation_timestamp.as_ref()) {
            if now.duration_since(created.0).as_secs() < min.as_secs() as i64 {
                continue;
            }
        }
        let id = ds
            .metadata
            .labels
            .as_ref()
            .and_then(|l| l.get(LABEL_RUN).cloned())
            .unwrap_or_default();
        delete_run(client, &ns, &name, &id, timeout).await?;
        out.push(format!("{ns}/{name}"));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts() -> ExecOptions {
        ExecOptions {
            namespace: "volmnt".into(),
            image: "busybox:1.36".into(),
            deadline: Duration::from_secs(150),
            request_timeout: Duration::from_secs(5),
            step_timeout_secs: 5,
            ask: Default::default(),
            syslog_capability: false,
            flags: exec::ProbeFlags::NODE_CHECK,
        }
    }

    #[test]
    fn the_daemonset_is_the_probe_pod_without_what_a_daemonset_may_not_have() {
        let (name, id) = names();
        assert!(
            name.starts_with("volmnt-probe-ds-") && name.len() <= 63,
            "{name}"
        );
        let ds = serde_json::to_value(daemonset(&name, &id, None, &opts())).unwrap();
        let s = &ds["spec"]["template"]["spec"];
        assert!(s.get("nodeName").is_none());
        assert!(s.get("activeDeadlineSeconds").is_none());
        assert_eq!(s["restartPolicy"], "Always");
        assert_eq!(s["hostPID"], true);
        assert_eq!(s["tolerations"], json!([{"operator": "Exists"}]));
        let c = &s["containers"][0];
        assert_eq!(c["securityContext"]["privileged"], false);
        assert_eq!(c["securityContext"]["capabilities"]["drop"], json!(["ALL"]));
        assert_eq!(c["volumeMounts"][0]["readOnly"], true);
        assert_eq!(ds["spec"]["selector"]["matchLabels"][LABEL_RUN], id);
        assert_eq!(ds["spec"]["template"]["metadata"]["labels"][LABEL_RUN], id);
        assert_eq!(ds["metadata"]["labels"]["volmnt.io/probe"], "true");
        assert!(ds["metadata"]["annotations"][ANNOTATION_EXPIRES]
            .as_str()
            .unwrap()
            .ends_with('Z'));
        let named = serde_json::to_value(daemonset(
            &name,
            &id,
            Some(&["n1".into(), "n2".into()]),
            &opts(),
        ))
        .unwrap();
        // One term per node, one value each: what the apiserver's validation accepts.
        assert_eq!(
            named["spec"]["template"]["spec"]["affinity"]["nodeAffinity"]
                ["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"],
            json!([
                {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["n1"]}]},
                {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["n2"]}]},
            ])
        );
    }

    /// Issue 29: a DaemonSet nobody ever looked at (no status) is a missing controller; one
    /// whose controller ran and placed pods elsewhere is a node that cannot take the pod.
    #[test]
    fn no_status_means_no_controller_not_a_taint() {
        let never: DaemonSet = serde_json::from_value(serde_json::json!({
            "metadata": {"name": "volmnt-probe-ds-x"},
        }))
        .unwrap();
        let why = why_no_pod(&never, Duration::from_secs(120));
        assert!(why.contains("no DaemonSet controller acted"), "{why}");
        assert!(!why.contains("taint"), "{why}");
        let seen: DaemonSet = serde_json::from_value(serde_json::json!({
            "metadata": {"name": "volmnt-probe-ds-x"},
            "status": {"observedGeneration": 1, "desiredNumberScheduled": 2,
                       "currentNumberScheduled": 2, "numberMisscheduled": 0, "numberReady": 2},
        }))
        .unwrap();
        let why = why_no_pod(&seen, Duration::from_secs(120));
        assert!(
            why.contains("taint") && why.contains("2 node(s) got one"),
            "{why}"
        );
    }
}
