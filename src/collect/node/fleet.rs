//! Running the probe on many nodes at once: a bounded pool over the chosen transport (probe
//! pods, one DaemonSet, ssh, this machine), a time limit per node, a progress line on stderr,
//! and what the API says about the pods on each node. Gathers raw outputs; judging them is
//! `diagnose::node_check`'s.

use std::io::Write;
use std::path::PathBuf;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use futures::StreamExt;
use k8s_openapi::api::core::v1::Node;
use kube::api::ListParams;
use kube::Api;

use super::daemonset;
use super::exec::{self, ExecOptions, ProbePods};
use super::ssh::{self, SshOptions};
use super::ProbeRun;
use crate::collect::cluster::{Access, Cluster, Fetch};
use crate::error::{Error, ExitCode, Result};
use crate::model::node::{human_duration, Checked, ProbeTarget, Transport};

/// What to check and how: the command line, as the fleet needs it.
#[derive(Debug, Clone)]
pub struct FleetOptions {
    pub transport: Transport,
    /// `--via daemonset`: one DaemonSet for every node instead of a pod per node.
    pub via_daemonset: bool,
    /// Every node of the cluster (`--all`).
    pub all: bool,
    /// The nodes named on the command line (or ssh destinations).
    pub nodes: Vec<String>,
    /// `--local`: the node this machine is.
    pub node_name: Option<String>,
    pub root: Option<PathBuf>,
    pub host_proc: bool,
    pub image: String,
    /// Per node, pod start included.
    pub timeout: Duration,
    pub connect_timeout: Duration,
    pub ssh_options: Vec<String>,
    pub ssh_user: Option<String>,
    pub concurrency: usize,
    /// Draw the progress line on stderr.
    pub progress: bool,
    /// Keep the cluster connection for labels afterwards.
    pub label: bool,
    pub request_timeout: Duration,
}

pub struct ProgressLine {
    enabled: bool,
    total: usize,
    state: Mutex<(usize, usize, Vec<String>)>, // done, failed, running
}

impl ProgressLine {
    pub fn new(enabled: bool, total: usize) -> ProgressLine {
        ProgressLine {
            enabled,
            total,
            state: Mutex::new((0, 0, Vec::new())),
        }
    }

    fn draw(&self, s: &(usize, usize, Vec<String>)) {
        if !self.enabled {
            return;
        }
        let running = match s.2.len() {
            0 => String::new(),
            1..=3 => format!(" · checking {}", s.2.join(", ")),
            n => format!(" · checking {}, ... ({n})", s.2[..3].join(", ")),
        };
        let failed = if s.1 > 0 {
            format!(", {} not reached", s.1)
        } else {
            String::new()
        };
        let mut line = format!("[{}/{}] done{failed}{running}", s.0, self.total);
        line.truncate(200);
        let mut e = std::io::stderr().lock();
        let _ = write!(e, "\r\x1b[K{line}");
        let _ = e.flush();
    }

    pub fn start(&self, name: &str) {
        let mut s = self.state.lock().unwrap_or_else(|e| e.into_inner());
        s.2.push(name.to_string());
        self.draw(&s);
    }

    pub fn finish(&self, name: &str, ok: bool) {
        let mut s = self.state.lock().unwrap_or_else(|e| e.into_inner());
        s.0 += 1;
        if !ok {
            s.1 += 1;
        }
        if let Some(i) = s.2.iter().position(|n| n == name) {
            s.2.remove(i);
        }
        self.draw(&s);
    }

    pub fn clear(&self) {
        if self.enabled {
            let mut e = std::io::stderr().lock();
            let _ = write!(e, "\r\x1b[K");
            let _ = e.flush();
        }
    }
}

/// `--local`: the probe here (blocking: it runs on the blocking pool).
async fn run_local(root: Option<PathBuf>, host_proc: bool, timeout: Duration) -> Result<ProbeRun> {
    use crate::collect::node::local::{self, ProbeEnv};
    tokio::task::spawn_blocking(move || {
        local::run_env(
            &ProbeEnv {
                live: host_proc.then_some(true),
                root,
                step_timeout_secs: Some(local::step_timeout_for(timeout)),
                ..ProbeEnv::default()
            },
            timeout,
        )
    })
    .await
    .map_err(|e| Error::Unreachable(format!("running the probe: {e}")))?
}

/// What to probe: this machine (`--local`), the nodes named, or every node of the cluster
/// (`--all`; over SSH, each at its InternalIP).
async fn targets_of(a: &FleetOptions, cluster: Option<&Cluster>) -> Result<Vec<ProbeTarget>> {
    let transport = a.transport;
    Ok(match (transport, a.all) {
        (Transport::Local, _) => vec![ProbeTarget {
            node: a.node_name.clone(),
            address: "local".into(),
        }],
        (_, false) => a
            .nodes
            .iter()
            .map(|n| ProbeTarget {
                node: (transport == Transport::Exec).then(|| n.clone()),
                address: n.clone(),
            })
            .collect(),
        (_, true) => {
            let cluster = cluster.expect("connected for --all");
            let nodes = match cluster
                .list(
                    Api::<Node>::all(cluster.client()),
                    ListParams::default(),
                    Access::cluster("nodes"),
                    |_| true,
                )
                .await?
            {
                Fetch::Got(n) => n,
                _ => {
                    return Err(Error::Unreachable(
                        "--all: not allowed to list nodes (needs list on nodes; deploy/rbac.yaml's volmnt-reader has it)"
                            .into(),
                    ))
                }
            };
            let mut t = Vec::new();
            for n in nodes {
                let name = n.metadata.name.clone().unwrap_or_default();
                if transport == Transport::Ssh {
                    let addr = internal_ip(&n).unwrap_or_else(|| name.clone());
                    if ssh::validate_destination(&addr).is_err() {
                        continue;
                    }
                    t.push(ProbeTarget {
                        node: Some(name),
                        address: addr,
                    });
                } else {
                    t.push(ProbeTarget {
                        node: Some(name.clone()),
                        address: name,
                    });
                }
            }
            if t.is_empty() {
                return Err(Error::Input {
                    context: "--all".into(),
                    message: format!("the cluster ({}) has no nodes", cluster.target),
                });
            }
            t
        }
    })
}

/// Probe every target (the nodes named, every node of the cluster with `all`, or this
/// machine), at most `concurrency` at a time, each within `timeout`. The probe pods and
/// DaemonSets created are recorded in `pods`/`dsets` so the caller deletes them on every path.
/// `cluster` is connected when the transport is exec, or for `all`/`label`.
pub async fn check_all(
    a: &FleetOptions,
    cluster: Option<&Cluster>,
    pods: ProbePods,
    dsets: daemonset::ProbeDaemonSets,
) -> Result<Vec<Checked>> {
    let transport = a.transport;
    let targets = targets_of(a, cluster).await?;

    // The probe pods' namespace must exist (a typo would otherwise fail every node alike):
    // said once, with the names closest to it; every node is then not checked (exit 3), each
    // named in the report (issue 29: the CI preflight's JUnit names every node not checked).
    let no_probe_namespace = if transport == Transport::Exec {
        let cluster = cluster.expect("connected for --exec");
        cluster.require_namespace(&cluster.namespace).await.err().map(|e| {
            format!(
                "namespace {} does not exist, so no probe pod can be created there (-n/--namespace): {e}; `kubectl apply -f deploy/rbac.yaml` creates namespace {} with the Role the probe needs",
                cluster.namespace,
                crate::model::node::DEFAULT_PROBE_NAMESPACE
            )
        })
    } else {
        None
    };
    // A node whose existence could not even be read (no rights, no answer) is not checked,
    // with its own reason; the others go on. A name the cluster does not have is a usage error.
    let (targets, mut unchecked) = if transport == Transport::Exec && !a.all {
        let cluster = cluster.expect("connected for --exec");
        readable_targets(cluster, targets, a.request_timeout).await?
    } else {
        (targets, Vec::new())
    };
    if let Some(why) = no_probe_namespace {
        eprintln!("volmnt: {why}");
        unchecked.extend(targets.into_iter().map(|t| Checked {
            target: t,
            elapsed: Duration::ZERO,
            run: Err(Error::Unreachable(format!("not checked: {why}"))),
            pods_on_node: None,
            exec: true,
        }));
        return Ok(unchecked);
    }
    if targets.is_empty() {
        return Ok(unchecked);
    }

    let exec_opts = cluster.map(|c| ExecOptions {
        namespace: c.namespace.clone(),
        image: a.image.clone(),
        deadline: a.timeout + Duration::from_secs(60),
        request_timeout: a.request_timeout,
        step_timeout_secs: crate::collect::node::local::step_timeout_for(a.timeout),
        ask: Default::default(),
        syslog_capability: false,
        flags: exec::ProbeFlags::NODE_CHECK,
    });
    if transport == Transport::Exec && a.via_daemonset {
        let client = cluster.expect("connected for --exec").exec_client();
        let o = exec_opts.expect("exec options");
        let mut checked = via_daemonset(a, &client, targets, &o, &dsets, a.request_timeout).await?;
        checked.extend(unchecked);
        checked.sort_by_key(|c| c.target.display());
        return Ok(checked);
    }
    if transport == Transport::Exec {
        let names: Vec<String> = targets.iter().map(|t| t.address.clone()).collect();
        if let Some(o) = &exec_opts {
            eprintln!("{}", exec::announcement(o, &names));
        }
    }
    let ssh_opts = if transport == Transport::Ssh {
        Some(SshOptions {
            program: ssh::find_ssh()?,
            connect_timeout: a.connect_timeout.min(a.timeout),
            options: a.ssh_options.clone(),
            user: a.ssh_user.clone(),
        })
    } else {
        None
    };

    let progress = ProgressLine::new(a.progress, targets.len());
    // Probe pods are reached through exec, a WebSocket upgrade: HTTP/1.1.
    let client = cluster.map(|c| c.exec_client());
    let per_node = a.timeout;
    let request_timeout = a.request_timeout;
    let checked: Vec<Checked> = futures::stream::iter(targets)
        .map(|t| {
            let pods = pods.clone();
            let client = client.clone();
            let exec_opts = exec_opts.clone();
            let ssh_opts = ssh_opts.clone();
            let progress = &progress;
            let root = a.root.clone();
            async move {
                let label = t.display();
                progress.start(&label);
                let t0 = Instant::now();
                let work = async {
                    match transport {
                        Transport::Exec => {
                            let client = client.clone().expect("connected for --exec");
                            let o = exec_opts.expect("exec options");
                            exec::run(&client, &t.address, &o, &pods, per_node).await
                        }
                        Transport::Ssh => {
                            let o = ssh_opts.expect("ssh options");
                            ssh::run(&o, &t.address, per_node).await
                        }
                        Transport::Local => run_local(root, a.host_proc, per_node).await,
                    }
                };
                // The transports bound themselves by `per_node`; this is a backstop.
                let run = match tokio::time::timeout(per_node + Duration::from_secs(5), work).await
                {
                    Ok(r) => r,
                    Err(_) => Err(Error::Unreachable(format!(
                        "{}: no result within {} (--timeout)",
                        t.display(),
                        human_duration(per_node)
                    ))),
                };
                let pods_on_node = match (&client, &t.node, &run) {
                    (Some(c), Some(n), Ok(_)) if transport != Transport::Ssh => {
                        pod_uids_on(c, n, request_timeout).await
                    }
                    _ => None,
                };
                progress.finish(&label, run.is_ok());
                Checked {
                    target: t,
                    elapsed: t0.elapsed(),
                    run,
                    pods_on_node,
                    exec: transport == Transport::Exec,
                }
            }
        })
        .buffer_unordered(a.concurrency)
        .collect()
        .await;
    progress.clear();
    // On this machine, a bad --root is the command line's fault, not a node's.
    if transport == Transport::Local {
        if let Some(Err(e)) = checked.iter().map(|c| &c.run).find(|r| r.is_err()) {
            if e.exit_code() == ExitCode::Usage {
                return Err(Error::Usage(e.to_string()));
            }
        }
    }
    let mut checked = checked;
    checked.extend(unchecked);
    checked.sort_by_key(|c| c.target.display());
    Ok(checked)
}

/// The named nodes that exist, and those whose existence could not be read (not checked, with
/// why); a name the cluster does not have is a typo, not an unreachable node: the whole
/// command is refused (exit 2) before anything is created, with the names closest to it.
async fn readable_targets(
    cluster: &Cluster,
    targets: Vec<ProbeTarget>,
    request_timeout: Duration,
) -> Result<(Vec<ProbeTarget>, Vec<Checked>)> {
    let client = cluster.client();
    let mut missing = Vec::new();
    let mut readable = Vec::new();
    let mut unchecked = Vec::new();
    for t in targets {
        match exec::node_exists(&client, &t.address, request_timeout).await {
            Ok(true) => readable.push(t),
            Ok(false) => missing.push(t.address.clone()),
            Err(e) => unchecked.push(Checked {
                target: t,
                elapsed: Duration::ZERO,
                run: Err(Error::Unreachable(format!("not checked: {e}"))),
                pods_on_node: None,
                exec: true,
            }),
        }
    }
    if !missing.is_empty() {
        return Err(unknown_nodes(cluster, &missing).await);
    }
    Ok((readable, unchecked))
}

/// `--via daemonset`: every node's probe pod from one DaemonSet (collect::node::daemonset).
async fn via_daemonset(
    a: &FleetOptions,
    client: &kube::Client,
    targets: Vec<ProbeTarget>,
    o: &ExecOptions,
    dsets: &daemonset::ProbeDaemonSets,
    request_timeout: Duration,
) -> Result<Vec<Checked>> {
    let names: Vec<String> = targets.iter().map(|t| t.address.clone()).collect();
    let run_names = daemonset::names();
    eprintln!("{}", daemonset::announcement(o, &run_names.0, names.len()));
    let progress = ProgressLine::new(a.progress, targets.len());
    let runs = daemonset::run_all(
        client,
        run_names,
        &names,
        !a.all,
        o,
        dsets,
        a.timeout,
        a.concurrency,
        |n, ok| progress.finish(n, ok),
    )
    .await;
    progress.clear();
    let runs = runs?;
    let mut by_node: std::collections::HashMap<String, daemonset::NodeRun> =
        runs.into_iter().map(|r| (r.node.clone(), r)).collect();
    let pairs: Vec<(ProbeTarget, daemonset::NodeRun)> = targets
        .into_iter()
        .filter_map(|t| by_node.remove(&t.address).map(|r| (t, r)))
        .collect();
    let mut checked: Vec<Checked> = futures::stream::iter(pairs)
        .map(|(t, r)| async move {
            let pods_on_node = match &r.run {
                Ok(_) => pod_uids_on(client, &t.address, request_timeout).await,
                Err(_) => None,
            };
            Checked {
                target: t,
                elapsed: r.elapsed,
                run: r.run,
                pods_on_node,
                exec: true,
            }
        })
        .buffer_unordered(a.concurrency)
        .collect()
        .await;
    checked.sort_by_key(|c| c.target.display());
    Ok(checked)
}

/// The usage error for node names the cluster does not have, with the closest real names.
async fn unknown_nodes(cluster: &Cluster, missing: &[String]) -> Error {
    let names: Vec<String> = match cluster
        .list(
            Api::<Node>::all(cluster.client()),
            ListParams::default(),
            Access::cluster("nodes"),
            |_| true,
        )
        .await
    {
        Ok(Fetch::Got(nodes)) => nodes.into_iter().filter_map(|n| n.metadata.name).collect(),
        _ => Vec::new(),
    };
    let parts: Vec<String> = missing
        .iter()
        .map(|m| {
            let near = crate::parse::closest(m, names.iter().map(String::as_str));
            match near.as_slice() {
                [] => format!("node {m:?} does not exist"),
                n => format!(
                    "node {m:?} does not exist (did you mean {}?)",
                    n.iter()
                        .map(|x| format!("{x:?}"))
                        .collect::<Vec<_>>()
                        .join(" or ")
                ),
            }
        })
        .collect();
    Error::Usage(format!(
        "{} in {}; `kubectl get nodes` lists them",
        parts.join("; "),
        cluster.target
    ))
}

/// UIDs of the pods on `node` (any namespace), so the analysis can tell a pod's leftover mount
/// from a live one. `None` when the API does not say (then the pod directories are used).
async fn pod_uids_on(client: &kube::Client, node: &str, timeout: Duration) -> Option<Vec<String>> {
    let api: Api<k8s_openapi::api::core::v1::Pod> = Api::all(client.clone());
    let lp = ListParams::default().fields(&format!("spec.nodeName={node}"));
    let list = tokio::time::timeout(timeout, api.list_metadata(&lp))
        .await
        .ok()?
        .ok()?;
    Some(
        list.items
            .into_iter()
            .filter_map(|p| p.metadata.uid)
            .collect(),
    )
}

/// The node's InternalIP (the first), for `--ssh --all`.
fn internal_ip(n: &Node) -> Option<String> {
    n.status
        .as_ref()?
        .addresses
        .as_ref()?
        .iter()
        .find(|a| a.type_ == "InternalIP")
        .map(|a| a.address.clone())
}
