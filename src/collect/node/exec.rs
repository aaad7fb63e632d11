//! `--exec`: the probe through a short-lived pod pinned to the node, run with the exec API.
//!
//! The pod (see [`probe_pod`]) sleeps until volmnt execs `sh -s` in it and writes the script on
//! stdin; it is deleted on every path: after the probe, after an error, when the per-node timeout
//! drops the work (a guard deletes it on drop), and on Ctrl-C (the command deletes every pod in
//! the [`ProbePods`] registry before exiting). A pod name is registered BEFORE the create request
//! is sent, so even a create interrupted in flight is cleaned up. `activeDeadlineSeconds` makes
//! the kubelet stop it even if volmnt is killed outright; `volmnt node gc` removes leftovers.

use std::collections::BTreeSet;
use std::hash::{BuildHasher, Hasher};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use k8s_openapi::api::core::v1::{Node, Pod};
use kube::api::{AttachParams, DeleteParams, ListParams, PostParams};
use kube::{Api, Client};
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use super::ssh::{RemoteRoot, MAX_OUTPUT};
use super::ProbeRun;
use crate::error::{Error, Result};

/// Labels every probe pod carries (`volmnt node gc` selects on the second).
pub const LABEL_NAME: (&str, &str) = ("app.kubernetes.io/name", "volmnt");
pub const LABEL_PROBE: (&str, &str) = ("volmnt.io/probe", "true");
/// The selector for probe pods.
pub const PROBE_SELECTOR: &str = "volmnt.io/probe=true";
/// The annotation naming the node a probe pod is for (label values cannot hold every name).
pub const ANNOTATION_NODE: &str = "volmnt.io/node";
/// The container's name.
pub const CONTAINER: &str = "probe";
/// The default image: any image with a POSIX sh and coreutils-like tools works.
pub use crate::model::node::DEFAULT_PROBE_IMAGE as DEFAULT_IMAGE;
pub use crate::model::node::DEFAULT_PROBE_NAMESPACE;

/// How probe pods are made.
#[derive(Debug, Clone)]
pub struct ExecOptions {
    /// Where the pods are created.
    pub namespace: String,
    pub image: String,
    /// `activeDeadlineSeconds` (and the `sleep` the container runs): the pod ends by itself after
    /// this long even if volmnt is killed.
    pub deadline: Duration,
    /// Bound on each API request (create, get, delete).
    pub request_timeout: Duration,
    /// `VOLMNT_STEP_TIMEOUT` for the probe: seconds each command in it may take.
    pub step_timeout_secs: u64,
    /// What the probe is asked for beyond the node's standing facts (a pod's log lines, the
    /// kernel log, df of its volumes, its NFS servers).
    pub ask: super::ssh::ProbeAsk,
    /// Add CAP_SYSLOG to the probe container (`doctor pod --probe-kernel-log`), so it can read
    /// the kernel ring buffer under kernel.dmesg_restrict=1. Off by default: the opt-in is named
    /// in the announcement and the report.
    pub syslog_capability: bool,
    /// The flags that set the probe's image and time limit on the command running it, for the
    /// hints (issue 29: a hint names only flags the command takes).
    pub flags: ProbeFlags,
}

/// `node check` sets the probe with `--image` and `--timeout`; `doctor pod --probe-node` with
/// `--probe-image` and `--probe-timeout`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ProbeFlags {
    pub image: &'static str,
    pub timeout: &'static str,
}

impl ProbeFlags {
    pub const NODE_CHECK: ProbeFlags = ProbeFlags {
        image: "--image",
        timeout: "--timeout",
    };
    pub const DOCTOR_POD: ProbeFlags = ProbeFlags {
        image: "--probe-image",
        timeout: "--probe-timeout",
    };
}

/// The probe pods created and not yet confirmed deleted, shared by every node's task and the
/// Ctrl-C handler.
#[derive(Debug, Clone, Default)]
pub struct ProbePods {
    inner: Arc<Mutex<BTreeSet<(String, String)>>>,
}

impl ProbePods {
    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeSet<(String, String)>> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub fn insert(&self, ns: &str, name: &str) {
        self.lock().insert((ns.to_string(), name.to_string()));
    }

    pub fn remove(&self, ns: &str, name: &str) {
        self.lock().remove(&(ns.to_string(), name.to_string()));
    }

    /// (namespace, name) of every pod still to delete.
    pub fn pending(&self) -> Vec<(String, String)> {
        self.lock().iter().cloned().collect()
    }
}

/// FNV-1a, for a short stable tag of a node name in pod names.
fn fnv1a(s: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in s.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// `volmnt-probe-<node hash>-<random>`: a valid DNS label whatever the node's name, unique per
/// run, and the same prefix for the same node (so a person can tell them apart).
pub fn pod_name(node: &str) -> String {
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write(node.as_bytes());
    h.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default()
            .as_nanos(),
    );
    let mut r = h.finish();
    const ALPHABET: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";
    let suffix: String = (0..5)
        .map(|_| {
            let c = ALPHABET[(r % ALPHABET.len() as u64) as usize] as char;
            r /= ALPHABET.len() as u64;
            c
        })
        .collect();
    format!("volmnt-probe-{:08x}-{suffix}", fnv1a(node) as u32)
}

/// The probe pod for `node`. What it may do, and why:
/// - `nodeName` pins it to the node without the scheduler, and `tolerations: [{operator:
///   Exists}]` lets it run on tainted nodes (control plane, NoExecute, not-ready ones).
/// - `hostPID: true`: `/proc/1` is then the node's init, so `/proc/1/mountinfo` is the node's
///   mount table (and `/proc/*/comm` shows whether rpc.statd or kubelet run).
/// - the node's `/` is mounted read-only at `/host`: the probe reads files only, never writes.
/// - NOT privileged, every capability dropped, no privilege escalation, read-only root file
///   system, RuntimeDefault seccomp: reading files through a hostPath mount needs none of them.
///   It runs as uid 0 so root-owned files the probe checks (e.g. under /etc/ceph, /etc/iscsi)
///   are readable as their owner; without CAP_DAC_OVERRIDE it still cannot read what root's own
///   file modes forbid, nor load modules, mount, or trace processes.
/// - no service-account token, no service links, no host network.
/// - `activeDeadlineSeconds` and `sleep` of the same length: it ends even if volmnt is killed.
/// - `terminationGracePeriodSeconds: 0`: `sleep` as PID 1 ignores SIGTERM, so waiting is useless.
///
/// hostPID and hostPath are refused by the `baseline` Pod Security level: the namespace must
/// allow `privileged` (`pod-security.kubernetes.io/enforce=privileged`), as for any node agent.
pub fn probe_pod(node: &str, name: &str, o: &ExecOptions) -> Pod {
    let secs = o.deadline.as_secs().max(1);
    // Every capability dropped; CAP_SYSLOG alone added back when the user opted in to the
    // kernel log (it lets the probe read the ring buffer, nothing else: no writes, no mounts).
    let capabilities = if o.syslog_capability {
        json!({"drop": ["ALL"], "add": ["SYSLOG"]})
    } else {
        json!({"drop": ["ALL"]})
    };
    let v = json!({
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": name,
            "namespace": o.namespace,
            "labels": {
                LABEL_NAME.0: LABEL_NAME.1,
                "app.kubernetes.io/component": "node-probe",
                LABEL_PROBE.0: LABEL_PROBE.1,
            },
            "annotations": {
                ANNOTATION_NODE: node,
                "volmnt.io/purpose": "read-only node probe of `volmnt node check`; deleted when the check ends",
            },
        },
        "spec": {
            "nodeName": node,
            "hostPID": true,
            "hostNetwork": false,
            "hostIPC": false,
            "restartPolicy": "Never",
            "activeDeadlineSeconds": secs,
            "terminationGracePeriodSeconds": 0,
            "automountServiceAccountToken": false,
            "enableServiceLinks": false,
            "tolerations": [{"operator": "Exists"}],
            "securityContext": {"seccompProfile": {"type": "RuntimeDefault"}},
            "containers": [{
                "name": CONTAINER,
                "image": o.image,
                "imagePullPolicy": "IfNotPresent",
                "command": ["sleep", secs.to_string()],
                "env": [
                    {"name": "VOLMNT_ROOT", "value": RemoteRoot::PodMount.path()},
                    {"name": "VOLMNT_LIVE", "value": "1"},
                ],
                "volumeMounts": [{"name": "host", "mountPath": RemoteRoot::PodMount.path(), "readOnly": true}],
                "securityContext": {
                    "privileged": false,
                    "allowPrivilegeEscalation": false,
                    "readOnlyRootFilesystem": true,
                    "runAsUser": 0,
                    "capabilities": capabilities,
                },
                "resources": {
                    "requests": {"cpu": "10m", "memory": "16Mi"},
                    "limits": {"memory": "64Mi"},
                },
            }],
            "volumes": [{"name": "host", "hostPath": {"path": "/", "type": "Directory"}}],
        },
    });
    serde_json::from_value(v).expect("the probe pod is a valid Pod")
}

/// One line saying what will be created, printed before any pod is.
pub fn announcement(o: &ExecOptions, nodes: &[String]) -> String {
    let list = if nodes.len() <= 5 {
        nodes.join(", ")
    } else {
        format!("{}, ... ({} nodes)", nodes[..4].join(", "), nodes.len())
    };
    format!(
        "volmnt: creating {} probe pod{} in namespace {} (one per node: {list}): image {}, hostPID, \
         the node's / mounted read-only at /host, not privileged, {}, \
         tolerating all taints; each is deleted when its node is done (activeDeadlineSeconds={} \
         ends it even if volmnt is killed; `volmnt node gc` removes leftovers)",
        nodes.len(),
        if nodes.len() == 1 { "" } else { "s" },
        o.namespace,
        o.image,
        if o.syslog_capability {
            "all capabilities dropped but CAP_SYSLOG (--probe-kernel-log: to read the kernel log)"
        } else {
            "all capabilities dropped"
        },
        o.deadline.as_secs().max(1),
    )
}

pub(crate) fn api_error(what: &str, ns: &str, e: kube::Error) -> Error {
    match e {
        // Pod Security admission refuses with 403 too, but no Role fixes it: the namespace's
        // `pod-security.kubernetes.io/enforce` label does (the probe needs hostPID and a hostPath).
        kube::Error::Api(s) if s.code == 403 && s.message.contains("violates PodSecurity") => {
            Error::Unreachable(format!(
                "{what}: refused by Pod Security admission in namespace {ns} ({}); the probe pod \
                 needs the privileged level there, which a namespace label sets, not a Role: \
                 kubectl label namespace {ns} pod-security.kubernetes.io/enforce=privileged \
                 (deploy/rbac.yaml creates namespace volmnt with it)",
                s.message
            ))
        }
        kube::Error::Api(s) if s.code == 403 => Error::Unreachable(format!(
            "{what}: not allowed by RBAC ({}); {}",
            s.message,
            probe_role_hint(ns)
        )),
        kube::Error::Api(s) if s.code == 404 && s.message.contains("namespaces") => {
            Error::Unreachable(format!(
                "{what}: namespace {ns} does not exist; `kubectl apply -f deploy/rbac.yaml` creates \
                 namespace volmnt with the Role the probe needs (or name another probe namespace)"
            ))
        }
        kube::Error::Api(s) => Error::Unreachable(format!("{what}: {} ({} {})", s.message, s.code, s.reason)),
        other => Error::Unreachable(format!(
            "{what}: cannot reach the Kubernetes API: {}",
            crate::collect::cluster::network_cause(&other)
        )),
    }
}

/// Which Role grants the probe's permissions in `ns`, and how to bind it.
pub(crate) fn probe_role_hint(ns: &str) -> String {
    if ns == DEFAULT_PROBE_NAMESPACE {
        format!(
            "the Role volmnt-node-probe in namespace {ns} (deploy/rbac.yaml) grants it: \
             kubectl -n {ns} create rolebinding volmnt-node-probe-me --role volmnt-node-probe --user \"$(kubectl auth whoami -o jsonpath='{{.status.userInfo.username}}')\""
        )
    } else {
        format!(
            "deploy/rbac.yaml grants it in namespace {DEFAULT_PROBE_NAMESPACE} (the default probe namespace); \
             for namespace {ns}, create the Role volmnt-node-probe there from that file and bind it, \
             and label the namespace pod-security.kubernetes.io/enforce=privileged"
        )
    }
}

/// Deletes the pod when dropped while still armed (the node's work was cancelled by its timeout
/// or by Ctrl-C); the registry keeps the name until the delete is confirmed, so the command's
/// final cleanup catches it even if the runtime ends first.
struct PodGuard {
    client: Client,
    ns: String,
    name: String,
    pods: ProbePods,
    timeout: Duration,
    armed: bool,
}

impl Drop for PodGuard {
    fn drop(&mut self) {
        if !self.armed {
            return;
        }
        if let Ok(rt) = tokio::runtime::Handle::try_current() {
            let (client, ns, name, pods, t) = (
                self.client.clone(),
                self.ns.clone(),
                self.name.clone(),
                self.pods.clone(),
                self.timeout,
            );
            rt.spawn(async move {
                if delete(&client, &ns, &name, t).await.is_ok() {
                    pods.remove(&ns, &name);
                }
            });
        }
    }
}

/// Delete one pod now (grace period 0). A pod already gone counts as deleted.
pub async fn delete(client: &Client, ns: &str, name: &str, timeout: Duration) -> Result<()> {
    let api: Api<Pod> = Api::namespaced(client.clone(), ns);
    let dp = DeleteParams {
        grace_period_seconds: Some(0),
        ..DeleteParams::default()
    };
    match tokio::time::timeout(timeout, api.delete(name, &dp)).await {
        Ok(Ok(_)) => Ok(()),
        Ok(Err(kube::Error::Api(s))) if s.code == 404 => Ok(()),
        Ok(Err(e)) => Err(api_error(&format!("deleting probe pod {ns}/{name}"), ns, e)),
        Err(_) => Err(Error::Unreachable(format!(
            "deleting probe pod {ns}/{name}: no answer within {timeout:?}"
        ))),
    }
}

/// Delete every pod still in the registry (the last step of every run, and of Ctrl-C). Returns
/// the ones that could not be deleted, with why.
pub async fn cleanup(client: &Client, pods: &ProbePods, timeout: Duration) -> Vec<String> {
    let pending = pods.pending();
    let results = futures::future::join_all(pending.iter().map(|(ns, name)| async move {
        let r = delete(client, ns, name, timeout).await;
        (ns, name, r)
    }))
    .await;
    let mut failed = Vec::new();
    for (ns, name, r) in results {
        match r {
            Ok(()) => pods.remove(ns, name),
            Err(e) => failed.push(format!("{ns}/{name}: {e}")),
        }
    }
    failed
}

/// The pod's state while waiting for it: `Ok(true)` running, `Ok(false)` not yet, `Err` never
/// will (failed, image cannot be pulled, ...).
pub(crate) fn started(pod: &Pod, flags: ProbeFlags) -> std::result::Result<bool, String> {
    let Some(status) = pod.status.as_ref() else {
        return Ok(false);
    };
    let phase = status.phase.as_deref().unwrap_or("Pending");
    if matches!(phase, "Failed" | "Succeeded") {
        return Err(format!(
            "the probe pod ended ({phase}{}{})",
            status
                .reason
                .as_deref()
                .map(|r| format!(", {r}"))
                .unwrap_or_default(),
            status
                .message
                .as_deref()
                .map(|m| format!(": {m}"))
                .unwrap_or_default()
        ));
    }
    for cs in status.container_statuses.iter().flatten() {
        if let Some(w) = cs.state.as_ref().and_then(|s| s.waiting.as_ref()) {
            let reason = w.reason.as_deref().unwrap_or("");
            if matches!(
                reason,
                "ErrImagePull"
                    | "ImagePullBackOff"
                    | "InvalidImageName"
                    | "ErrImageNeverPull"
                    | "CreateContainerConfigError"
                    | "CreateContainerError"
                    | "RunContainerError"
            ) {
                return Err(format!(
                    "the probe container cannot start: {reason}{} (use {} for a reachable image)",
                    w.message
                        .as_deref()
                        .map(|m| format!(": {m}"))
                        .unwrap_or_default(),
                    flags.image
                ));
            }
        }
        if cs.state.as_ref().and_then(|s| s.running.as_ref()).is_some() {
            return Ok(phase == "Running");
        }
    }
    Ok(false)
}

pub(crate) fn pending_state(pod: Option<&Pod>) -> String {
    let Some(status) = pod.and_then(|p| p.status.as_ref()) else {
        return "not reported by the kubelet yet (is the node's kubelet running?)".into();
    };
    // Not placed yet: the scheduler says why (a DaemonSet's pods are scheduled like any other).
    if let Some(c) = status
        .conditions
        .iter()
        .flatten()
        .find(|c| c.type_ == "PodScheduled" && c.status == "False")
    {
        return format!(
            "{}, not scheduled ({}{})",
            status.phase.as_deref().unwrap_or("Pending"),
            c.reason.as_deref().unwrap_or("no reason given"),
            c.message
                .as_deref()
                .map(|m| format!(": {m}"))
                .unwrap_or_default()
        );
    }
    let waiting = status
        .container_statuses
        .iter()
        .flatten()
        .find_map(|cs| cs.state.as_ref()?.waiting.as_ref()?.reason.clone());
    if status
        .container_statuses
        .as_ref()
        .is_none_or(|c| c.is_empty())
    {
        return format!(
            "{}, with no container status: not reported by the kubelet yet (is the node's kubelet running?)",
            status.phase.as_deref().unwrap_or("Pending")
        );
    }
    format!(
        "{}{}",
        status.phase.as_deref().unwrap_or("Pending"),
        waiting.map(|w| format!(" ({w})")).unwrap_or_default()
    )
}

/// Check that the node exists (a typo should not create a pod that never starts).
pub async fn node_exists(client: &Client, node: &str, timeout: Duration) -> Result<bool> {
    let api: Api<Node> = Api::all(client.clone());
    match tokio::time::timeout(timeout, api.get_metadata_opt(node)).await {
        Ok(Ok(n)) => Ok(n.is_some()),
        // Reading nodes is volmnt-reader's, not the probe Role's.
        Ok(Err(kube::Error::Api(s))) if s.code == 403 => Err(Error::Unreachable(format!(
            "reading node {node}: not allowed by RBAC ({}); the ClusterRole volmnt-reader in deploy/rbac.yaml grants it",
            s.message
        ))),
        Ok(Err(e)) => Err(api_error(&format!("reading node {node}"), "", e)),
        Err(_) => Err(Error::Unreachable(format!(
            "reading node {node}: no answer within {timeout:?} (--request-timeout)"
        ))),
    }
}

/// Run the probe on `node` through a probe pod; `timeout` bounds it all (pod start included).
/// The pod is deleted before this returns, whatever happened.
pub async fn run(
    client: &Client,
    node: &str,
    o: &ExecOptions,
    pods: &ProbePods,
    timeout: Duration,
) -> Result<ProbeRun> {
    let started_at = Instant::now();
    let deadline = tokio::time::Instant::now() + timeout;
    let name = pod_name(node);
    let ns = o.namespace.clone();
    pods.insert(&ns, &name);
    let mut guard = PodGuard {
        client: client.clone(),
        ns: ns.clone(),
        name: name.clone(),
        pods: pods.clone(),
        timeout: o.request_timeout,
        armed: true,
    };
    let result = probe_in_pod(client, node, &name, o, deadline).await;
    // The normal path deletes here and waits for it; the guard covers cancellation.
    let deleted = delete(client, &ns, &name, o.request_timeout).await;
    guard.armed = false;
    if deleted.is_ok() {
        pods.remove(&ns, &name);
    }
    let mut run = result?;
    run.elapsed = started_at.elapsed();
    if let Err(e) = deleted {
        run.stderr
            .push_str(&format!("\nvolmnt: the probe pod was not deleted: {e}\n"));
    }
    Ok(run)
}

async fn probe_in_pod(
    client: &Client,
    node: &str,
    name: &str,
    o: &ExecOptions,
    deadline: tokio::time::Instant,
) -> Result<ProbeRun> {
    let ns = &o.namespace;
    let api: Api<Pod> = Api::namespaced(client.clone(), ns);
    let pod = probe_pod(node, name, o);
    let left = || deadline.saturating_duration_since(tokio::time::Instant::now());
    match tokio::time::timeout(
        o.request_timeout.min(left()),
        api.create(&PostParams::default(), &pod),
    )
    .await
    {
        Ok(Ok(_)) => {}
        Ok(Err(e)) => return Err(api_error(&format!("creating probe pod {ns}/{name}"), ns, e)),
        Err(_) => {
            return Err(Error::Unreachable(format!(
                "creating probe pod {ns}/{name}: no answer in time"
            )))
        }
    }

    // Wait until it runs: poll (cheap, and works through every proxy), backing off to 1 s.
    let mut last: Option<Pod> = None;
    let mut pause = Duration::from_millis(100);
    loop {
        if tokio::time::Instant::now() >= deadline {
            return Err(Error::Unreachable(format!(
                "node {node}: the probe pod {ns}/{name} did not start in time ({}); it is {}",
                o.flags.timeout,
                pending_state(last.as_ref())
            )));
        }
        match tokio::time::timeout(o.request_timeout.min(left()), api.get_opt(name)).await {
            Ok(Ok(Some(p))) => {
                match started(&p, o.flags) {
                    Ok(true) => break,
                    Ok(false) => {}
                    Err(why) => {
                        return Err(Error::Unreachable(format!("node {node}: {why}")));
                    }
                }
                last = Some(p);
            }
            Ok(Ok(None)) => {
                return Err(Error::Unreachable(format!(
                    "node {node}: the probe pod {ns}/{name} disappeared before it started (deleted by someone, or evicted)"
                )))
            }
            Ok(Err(e)) => return Err(api_error(&format!("reading probe pod {ns}/{name}"), ns, e)),
            Err(_) => {} // the deadline check above reports it
        }
        tokio::time::sleep(pause.min(left())).await;
        pause = (pause * 2).min(Duration::from_secs(1));
    }

    exec_probe(client, node, name, o, deadline).await
}

/// Exec `sh -s` in a running probe pod (one of `--exec`'s, or of `--via daemonset`'s
/// DaemonSet) and write the probe on its stdin; its output, bounded by `deadline`.
pub async fn exec_probe(
    client: &Client,
    node: &str,
    name: &str,
    o: &ExecOptions,
    deadline: tokio::time::Instant,
) -> Result<ProbeRun> {
    let ns = &o.namespace;
    let api: Api<Pod> = Api::namespaced(client.clone(), ns);
    let left = || deadline.saturating_duration_since(tokio::time::Instant::now());
    // Exec `sh -s` and write the script on stdin.
    let ap = AttachParams::default()
        .container(CONTAINER)
        .stdin(true)
        .stdout(true)
        .stderr(true)
        .max_stdin_buf_size(64 << 10)
        .max_stdout_buf_size(64 << 10)
        .max_stderr_buf_size(64 << 10);
    let exec = async {
        let mut proc = api
            .exec(name, ["sh", "-s"], &ap)
            .await
            .map_err(|e| api_error(&format!("exec in probe pod {ns}/{name}"), ns, e))?;
        let script =
            super::ssh::wrap_script_with(RemoteRoot::PodMount, o.step_timeout_secs, &o.ask);
        let mut stdin = proc.stdin();
        let stdout = proc.stdout();
        let stderr = proc.stderr();
        let status = proc.take_status();
        let write = async {
            if let Some(w) = stdin.as_mut() {
                let _ = w.write_all(script.as_bytes()).await;
                let _ = w.flush().await;
            }
        };
        let (_, out, err) = tokio::join!(write, read_capped(stdout), read_capped(stderr));
        let status = match status {
            Some(s) => s.await,
            None => None,
        };
        // Only now: with the v4 protocol, closing stdin closes the whole stream.
        drop(stdin);
        let _ = proc.join().await;
        Ok::<_, Error>((out, err, status))
    };
    let ((stdout, truncated), (err, _), status) =
        tokio::time::timeout(left(), exec).await.map_err(|_| {
            Error::Unreachable(format!(
                "node {node}: the probe did not finish in time ({})",
                o.flags.timeout
            ))
        })??;
    if truncated {
        return Err(Error::Unreachable(format!(
            "node {node}: the probe printed more than {} MiB; not a volmnt probe's output",
            MAX_OUTPUT >> 20
        )));
    }
    let stderr = String::from_utf8_lossy(&err).into_owned();
    let exit_code = match &status {
        Some(s) if s.status.as_deref() == Some("Success") => Some(0),
        Some(s) if s.reason.as_deref() == Some("NonZeroExitCode") => s
            .details
            .as_ref()
            .and_then(|d| d.causes.as_ref())
            .and_then(|c| {
                c.iter()
                    .find(|c| c.reason.as_deref() == Some("ExitCode"))
                    .and_then(|c| c.message.as_deref()?.parse().ok())
            }),
        Some(s) => {
            return Err(Error::Unreachable(format!(
                "node {node}: exec failed: {}",
                s.message.as_deref().unwrap_or("no message")
            )))
        }
        // The stream ended without a status: the connection was cut.
        None if stdout.is_empty() => {
            return Err(Error::Unreachable(format!(
                "node {node}: the exec stream closed without output or status"
            )))
        }
        None => None,
    };
    Ok(ProbeRun {
        target: node.to_string(),
        stdout,
        stderr,
        exit_code,
        elapsed: Duration::ZERO,
    })
}

async fn read_capped<R: tokio::io::AsyncRead + Unpin>(r: Option<R>) -> (Vec<u8>, bool) {
    let Some(mut r) = r else {
        return (Vec::new(), false);
    };
    let mut buf = Vec::new();
    let mut chunk = [0u8; 16 << 10];
    let mut dropped = false;
    loop {
        match r.read(&mut chunk).await {
            Ok(0) | Err(_) => break,
            Ok(n) => {
                let room = (MAX_OUTPUT as usize).saturating_sub(buf.len());
                dropped |= n > room;
                buf.extend_from_slice(&chunk[..n.min(room)]);
            }
        }
    }
    (buf, dropped)
}

/// `volmnt node gc`: delete every probe pod (label `volmnt.io/probe=true`) in `namespace`, or in
/// every namespace. Returns `namespace/name` of each pod deleted.
pub async fn gc(
    client: &Client,
    namespace: Option<&str>,
    min_age: Option<Duration>,
    timeout: Duration,
) -> Result<Vec<String>> {
    let api: Api<Pod> = match namespace {
        Some(ns) => Api::namespaced(client.clone(), ns),
        None => Api::all(client.clone()),
    };
    let scope = namespace
        .map(|n| format!("namespace {n}"))
        .unwrap_or_else(|| "all namespaces".into());
    let list = tokio::time::timeout(
        timeout,
        api.list(&ListParams::default().labels(PROBE_SELECTOR)),
    )
    .await
    .map_err(|_| {
        Error::Unreachable(format!(
            "listing probe pods in {scope}: no answer within {timeout:?}"
        ))
    })?
    .map_err(|e| {
        api_error(
            &format!("listing probe pods in {scope}"),
            namespace.unwrap_or("*"),
            e,
        )
    })?;
    let now = k8s_openapi::jiff::Timestamp::now();
    let mut out = Vec::new();
    for p in list.items {
        let (Some(ns), Some(name)) = (p.metadata.namespace.clone(), p.metadata.name.clone()) else {
            continue;
        };
        if let (Some(min), Some(created)) = (min_age, p.metadata.creation_timestamp.as_ref()) {
            let age = now.duration_since(created.0).as_secs();
            if age < min.as_secs() as i64 {
                continue;
            }
        }
        delete(client, &ns, &name, timeout).await?;
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
            flags: ProbeFlags::NODE_CHECK,
        }
    }

    #[test]
    fn pod_names_are_dns_labels_whatever_the_node_name() {
        for node in [
            "node1",
            "node1; touch /tmp/pwned",
            "$(id)",
            "Ünïcode.example.com",
        ] {
            let n = pod_name(node);
            assert!(n.len() <= 63, "{n}");
            assert!(
                n.chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'),
                "{n}"
            );
            assert!(n.starts_with("volmnt-probe-"));
        }
        assert_ne!(pod_name("a"), pod_name("a"), "a random part per run");
        assert_eq!(
            pod_name("a")[..21],
            pod_name("a")[..21],
            "a stable node part"
        );
    }

    #[test]
    fn the_pod_is_pinned_read_only_unprivileged_and_ends_by_itself() {
        let p = serde_json::to_value(probe_pod("node-7", "volmnt-probe-x", &opts())).unwrap();
        let s = &p["spec"];
        assert_eq!(s["nodeName"], "node-7");
        assert_eq!(s["hostPID"], true);
        assert_eq!(s["activeDeadlineSeconds"], 150);
        assert_eq!(s["restartPolicy"], "Never");
        assert_eq!(s["tolerations"], json!([{"operator": "Exists"}]));
        assert_eq!(s["automountServiceAccountToken"], false);
        let c = &s["containers"][0];
        assert_eq!(c["command"], json!(["sleep", "150"]));
        assert_eq!(c["securityContext"]["privileged"], false);
        assert_eq!(c["securityContext"]["capabilities"]["drop"], json!(["ALL"]));
        assert_eq!(
            c["volumeMounts"][0],
            json!({"name": "host", "mountPath": "/host", "readOnly": true})
        );
        assert_eq!(s["volumes"][0]["hostPath"]["path"], "/");
        assert_eq!(p["metadata"]["labels"]["volmnt.io/probe"], "true");
        assert_eq!(p["metadata"]["labels"]["app.kubernetes.io/name"], "volmnt");
        assert_eq!(p["metadata"]["annotations"]["volmnt.io/node"], "node-7");
    }

    /// Issue 29: the way out names the flag of the command running the probe.
    #[test]
    fn an_image_that_cannot_be_pulled_names_the_commands_own_flag() {
        let pod: Pod = serde_json::from_value(serde_json::json!({
            "status": {"phase": "Pending", "containerStatuses": [{
                "name": "probe", "image": "x", "imageID": "", "ready": false, "restartCount": 0,
                "state": {"waiting": {"reason": "ImagePullBackOff", "message": "Back-off pulling image"}}
            }]}
        }))
        .unwrap();
        let e = started(&pod, ProbeFlags::DOCTOR_POD).unwrap_err();
        assert!(
            e.contains("(use --probe-image for a reachable image)"),
            "{e}"
        );
        let e = started(&pod, ProbeFlags::NODE_CHECK).unwrap_err();
        assert!(e.contains("(use --image for a reachable image)"), "{e}");
    }

    #[test]
    fn the_announcement_says_what_and_where() {
        let a = announcement(&opts(), &["n1".into(), "n2".into()]);
        assert!(a.contains("2 probe pods in namespace volmnt"), "{a}");
        assert!(a.contains("read-only"));
        assert!(a.contains("deleted"));
    }
}
