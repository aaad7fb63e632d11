//! `volmnt node check|gc`: what nodes can mount, checked in parallel (over SSH, through a
//! short-lived pod, or on this machine), as a CI preflight with `--require`, and the cleanup of
//! probe pods left behind.

use std::collections::BTreeMap;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use clap::{Args, Subcommand};
use futures::StreamExt;
use k8s_openapi::api::core::v1::Node;
use kube::api::{ListParams, Patch, PatchParams};
use kube::Api;
use serde::Serialize;

use crate::cli::{parse_duration, Global};
use crate::collect::cluster::{Access, Cluster, Fetch};
use crate::collect::node::daemonset;
use crate::collect::node::exec::{self, ExecOptions, ProbePods};
use crate::collect::node::ssh::{self, SshOptions};
use crate::collect::node::ProbeRun;
use crate::diagnose::node_check::Requirement;
use crate::error::{Error, ExitCode, Result};
use crate::render::junit;
use crate::render::Format;

#[derive(Debug, Subcommand)]
pub enum NodeCommand {
    /// Check what nodes can mount (NFS client, rbd, iscsiadm, kernel modules, statd, the kubelet
    /// directory's propagation), over SSH, through a short-lived pod, or on this machine
    #[command(after_help = NODE_CHECK_HELP)]
    Check(Box<NodeCheckArgs>),
    /// Delete probe pods and DaemonSets left behind by an interrupted `node check` (label volmnt.io/probe=true)
    #[command(after_help = NODE_GC_HELP)]
    Gc(NodeGcArgs),
}

const NODE_CHECK_HELP: &str = "\
Transports (one parser reads what every transport brings back):
  --exec   the default when nodes are named (or --all) and the cluster is reachable: one
           short-lived pod per node, pinned to it (hostPID, the node's / read-only at /host,
           not privileged, tolerating all taints, activeDeadlineSeconds so it ends by itself),
           the probe run through the exec API, the pod deleted on every path (Ctrl-C included).
           volmnt says what it creates before it does. Leftovers: `volmnt node gc`.
           `--via daemonset`: one short-lived DaemonSet instead (the same pod, started on every
           node at once by the cluster; for fleets), deleted with its pods on every path.
  --ssh    the system `ssh` (BatchMode, your ~/.ssh/config and agent): NODE is [user@]host or
           ssh://[user@]host[:port]; with --all, each node's InternalIP.
  --local  this machine (or --root DIR, a node's file tree). With --node-name, --label and
           --every it is the long-running node check of deploy/node-check.yaml.

Examples:
  volmnt node check node1 node2 --require nfs
  volmnt node check --all --require nfs,rbd -o junit > node-check.xml
  volmnt node check --ssh core@10.0.0.7 --ssh-option IdentityFile=~/.ssh/nodes
  volmnt node check --all --label          # writes volmnt.io/mount.<fs>=true|false labels
  volmnt node check --all --via daemonset --require nfs   # a whole fleet at once
  volmnt node check --local --require nfs

Exit codes:
  0  every node was checked and has what --require asks (or nothing was required)
  1  a checked node lacks something required
  2  usage error
  3  a node could not be reached or probed (and no required check failed)
  130  interrupted (Ctrl-C; 143 for SIGTERM); the probe pods were deleted first";

const NODE_GC_HELP: &str = "\
Deletes pods and DaemonSets labelled volmnt.io/probe=true in the namespace (-n, default the
context's) or in every namespace (-A). `node check` deletes them itself, even on Ctrl-C; gc is
for a volmnt that was killed outright (the pods' activeDeadlineSeconds stops them anyway; a
DaemonSet has no such field, its pods only sleep).

Exit codes:
  0  done (the pods deleted are listed)
  3  the cluster could not be reached, or deleting was not allowed";

#[derive(Debug, Args)]
pub struct NodeCheckArgs {
    /// Nodes to check (with --ssh: [user@]host or ssh://[user@]host[:port])
    #[arg(value_name = "NODE")]
    pub nodes: Vec<String>,
    /// Every node of the cluster
    #[arg(long, conflicts_with = "nodes")]
    pub all: bool,
    /// Probe through a short-lived pod on each node (default when the cluster is reachable)
    #[arg(long, conflicts_with_all = ["ssh", "local"])]
    pub exec: bool,
    /// Probe over SSH with the system ssh client
    #[arg(long, conflicts_with = "local")]
    pub ssh: bool,
    /// Through the cluster: one short-lived pod per node (`pod`), or one DaemonSet for all the
    /// nodes (`daemonset`: one create, every node's pod started at once; for fleets)
    #[arg(long, value_enum, value_name = "HOW", default_value_t = Via::Pod, conflicts_with_all = ["ssh", "local"])]
    pub via: Via,
    /// Probe this machine
    #[arg(long, conflicts_with_all = ["all", "nodes"])]
    pub local: bool,
    /// With --local: read DIR as the node's root file system (e.g. a mounted node image)
    #[arg(long, value_name = "DIR", requires = "local")]
    pub root: Option<PathBuf>,
    /// With --local --root: /proc is the node's own (a pod with hostPID), so its mount table and
    /// processes are read live (deploy/node-check.yaml runs this way)
    #[arg(long, requires = "root")]
    pub host_proc: bool,
    /// With --local: the Kubernetes node this machine is (for --label and the report)
    #[arg(long, value_name = "NAME", env = "NODE_NAME", requires = "local")]
    pub node_name: Option<String>,
    /// With --local: check again this often, forever (the long-running DaemonSet of
    /// deploy/node-check.yaml; stops on SIGTERM)
    #[arg(long, value_name = "DURATION", value_parser = parse_duration, requires = "local")]
    pub every: Option<Duration>,
    /// Passed to ssh as `-o OPTION` (repeatable), e.g. Port=2222, IdentityFile=~/.ssh/nodes
    #[arg(long = "ssh-option", value_name = "OPTION")]
    pub ssh_option: Vec<String>,
    /// The ssh user for destinations that name none (default: ssh's, from ~/.ssh/config)
    #[arg(long, value_name = "USER")]
    pub ssh_user: Option<String>,
    /// ssh's ConnectTimeout
    #[arg(long, value_name = "DURATION", default_value = "10s", value_parser = parse_duration)]
    pub connect_timeout: Duration,
    /// Give up on one node after this long (pod start included); the others go on
    #[arg(long, value_name = "DURATION", default_value = "2m", value_parser = parse_duration)]
    pub timeout: Duration,
    /// Nodes checked at the same time
    #[arg(long, value_name = "N", default_value_t = 10, value_parser = clap::value_parser!(u16).range(1..=256))]
    pub concurrency: u16,
    /// What every node must be able to mount (comma-separated): nfs, rbd, cephfs, iscsi, cifs, glusterfs, xfs, ext4
    #[arg(long, value_name = "FS,...", value_delimiter = ',', value_parser = parse_requirement)]
    pub require: Vec<Requirement>,
    /// Write labels volmnt.io/mount.<fs>=true|false on each node checked (needs patch on nodes)
    #[arg(long)]
    pub label: bool,
    /// Namespace of the probe pods (default: the context's)
    #[arg(short = 'n', long)]
    pub namespace: Option<String>,
    /// Image of the probe pods (needs a POSIX sh and `sleep`)
    #[arg(long, value_name = "IMAGE", default_value = exec::DEFAULT_IMAGE)]
    pub image: String,
    /// Progress on stderr: auto = when stderr is a terminal
    #[arg(long, value_enum, default_value_t = Progress::Auto)]
    pub progress: Progress,
}

/// How `--exec` reaches the nodes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Via {
    /// A probe pod per node, created and deleted one by one.
    Pod,
    /// One DaemonSet: a probe pod on every node, deleted with it.
    Daemonset,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Progress {
    Auto,
    Always,
    Never,
}

#[derive(Debug, Args)]
pub struct NodeGcArgs {
    /// The namespace (default: the context's)
    #[arg(short = 'n', long, conflicts_with = "all_namespaces")]
    pub namespace: Option<String>,
    /// Every namespace (needs list and delete on pods cluster-wide)
    #[arg(short = 'A', long)]
    pub all_namespaces: bool,
    /// Only pods older than this (e.g. 10m), to spare a check running now
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    pub min_age: Option<Duration>,
}

fn parse_requirement(s: &str) -> std::result::Result<Requirement, String> {
    s.parse()
}

pub fn run(c: &NodeCommand, g: &Global) -> Result<ExitCode> {
    match c {
        NodeCommand::Check(a) => run_check(a, g),
        NodeCommand::Gc(a) => run_gc(a, g),
    }
}

/// `1m30s`, `3s`, `500ms`: how durations are said in messages.
pub fn human_duration(d: Duration) -> String {
    let ms = d.as_millis();
    if ms < 1000 {
        return format!("{ms}ms");
    }
    let s = d.as_secs();
    match (s / 3600, (s % 3600) / 60, s % 60) {
        (0, 0, s) if ms % 1000 == 0 => format!("{s}s"),
        (0, 0, _) => format!("{:.1}s", d.as_secs_f64()),
        (0, m, 0) => format!("{m}m"),
        (0, m, s) => format!("{m}m{s}s"),
        (h, m, _) => format!("{h}h{m}m"),
    }
}

// ---------------------------------------------------------------------------------------------
// What is checked where
// ---------------------------------------------------------------------------------------------

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Transport {
    Exec,
    Ssh,
    Local,
}

impl Transport {
    fn name(self) -> &'static str {
        match self {
            Transport::Exec => "exec",
            Transport::Ssh => "ssh",
            Transport::Local => "local",
        }
    }
}

/// One node to check.
#[derive(Debug, Clone)]
struct Target {
    /// The Kubernetes node name, when known (for labels and reports).
    node: Option<String>,
    /// What the transport is given: the node name (exec), the ssh destination, `local`.
    address: String,
}

impl Target {
    fn display(&self) -> String {
        match &self.node {
            Some(n) if *n != self.address => format!("{n} ({})", self.address),
            Some(n) => n.clone(),
            None => self.address.clone(),
        }
    }
}

/// What came back from one node.
struct Checked {
    target: Target,
    elapsed: Duration,
    run: Result<ProbeRun>,
    /// UIDs of the pods the API says run on the node (exec), to tell orphaned mounts.
    pods_on_node: Option<Vec<String>>,
    /// Probed through a pod (`--exec`).
    exec: bool,
}

// ---------------------------------------------------------------------------------------------
// Progress on stderr
// ---------------------------------------------------------------------------------------------

struct ProgressLine {
    enabled: bool,
    total: usize,
    state: Mutex<(usize, usize, Vec<String>)>, // done, failed, running
}

impl ProgressLine {
    fn new(mode: Progress, total: usize) -> ProgressLine {
        let enabled = match mode {
            Progress::Always => true,
            Progress::Never => false,
            Progress::Auto => std::io::stderr().is_terminal(),
        };
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

    fn start(&self, name: &str) {
        let mut s = self.state.lock().unwrap_or_else(|e| e.into_inner());
        s.2.push(name.to_string());
        self.draw(&s);
    }

    fn finish(&self, name: &str, ok: bool) {
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

    fn clear(&self) {
        if self.enabled {
            let mut e = std::io::stderr().lock();
            let _ = write!(e, "\r\x1b[K");
            let _ = e.flush();
        }
    }
}

// ---------------------------------------------------------------------------------------------
// node check
// ---------------------------------------------------------------------------------------------

fn pick_transport(a: &NodeCheckArgs) -> Result<Transport> {
    if a.local {
        return Ok(Transport::Local);
    }
    if a.ssh {
        if a.nodes.is_empty() && !a.all {
            return Err(Error::Usage(
                "--ssh needs destinations (`volmnt node check --ssh [user@]host ...`) or --all"
                    .into(),
            ));
        }
        return Ok(Transport::Ssh);
    }
    if a.nodes.is_empty() && !a.all {
        return Err(Error::Usage(
            "name the nodes to check (`volmnt node check NODE...`), or --all, or --local for this machine"
                .into(),
        ));
    }
    Ok(Transport::Exec)
}

fn validate(a: &NodeCheckArgs, transport: Transport) -> Result<()> {
    for o in &a.ssh_option {
        ssh::validate_option(o).map_err(Error::Usage)?;
    }
    if !a.ssh_option.is_empty() && transport != Transport::Ssh {
        return Err(Error::Usage("--ssh-option is only for --ssh".into()));
    }
    if let Some(u) = &a.ssh_user {
        ssh::validate_destination(&format!("{u}@h"))
            .map_err(|_| Error::Usage(format!("--ssh-user {u:?} is not a user name")))?;
    }
    if transport == Transport::Ssh {
        for d in &a.nodes {
            ssh::validate_destination(d).map_err(Error::Usage)?;
        }
    }
    if transport == Transport::Exec {
        for n in &a.nodes {
            if !is_node_name(n) {
                return Err(Error::Usage(format!(
                    "{n:?} is not a node name (Kubernetes names are lower-case letters, digits, `-` and `.`); \
                     `kubectl get nodes` lists them, and --ssh takes host names and addresses"
                )));
            }
        }
    }
    if a.label
        && ((transport == Transport::Local && a.node_name.is_none())
            || (transport == Transport::Ssh && !a.all))
    {
        return Err(Error::Usage(
            "--label writes Node labels, so it needs node names: use it with --exec, with --ssh --all, or with --local --node-name NAME".into(),
        ));
    }
    if let Some(n) = &a.node_name {
        if !is_node_name(n) {
            return Err(Error::Usage(format!(
                "--node-name {n:?} is not a node name"
            )));
        }
    }
    Ok(())
}

/// A Kubernetes object name as Node names are (RFC 1123 DNS subdomain).
fn is_node_name(n: &str) -> bool {
    !n.is_empty()
        && n.len() <= 253
        && n.split('.').all(|label| {
            !label.is_empty()
                && label.len() <= 63
                && label
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
                && !label.starts_with('-')
                && !label.ends_with('-')
        })
}

pub fn run_check(a: &NodeCheckArgs, g: &Global) -> Result<ExitCode> {
    let Some(every) = a.every else {
        return run_check_once(a, g);
    };
    // The long-running DaemonSet: check, label, print, sleep; a failed round is logged and the
    // next one tried; SIGTERM between rounds ends it with 0.
    loop {
        if let Err(e) = run_check_once(a, g) {
            if e.exit_code() == ExitCode::Usage {
                return Err(e);
            }
            eprintln!("volmnt: {e}");
        }
        let rt = super::runtime()?;
        let stop = rt.block_on(async {
            tokio::select! {
                _ = tokio::time::sleep(every) => false,
                _ = interrupted() => true,
            }
        });
        if stop {
            return Ok(ExitCode::Ok);
        }
    }
}

fn run_check_once(a: &NodeCheckArgs, g: &Global) -> Result<ExitCode> {
    let transport = pick_transport(a)?;
    validate(a, transport)?;
    let rt = super::runtime()?;
    let started = Instant::now();
    let pods = ProbePods::default();
    let dsets = daemonset::ProbeDaemonSets::default();
    let cluster_slot: Arc<Mutex<Option<Cluster>>> = Arc::new(Mutex::new(None));
    let work = check_all(
        a,
        g,
        transport,
        pods.clone(),
        dsets.clone(),
        cluster_slot.clone(),
    );
    let outcome = rt.block_on(async {
        tokio::select! {
            r = work => Ok(r),
            sig = interrupted() => {
                eprintln!("\nvolmnt: {sig}: stopping; deleting the probe pods first");
                Err(sig)
            }
        }
    });
    // Whatever happened, no probe pod outlives the command (the normal path has deleted them
    // already; this catches cancelled ones).
    let cluster = cluster_slot.lock().ok().and_then(|c| c.clone());
    if let Some(cluster) = &cluster {
        let failed = rt.block_on(exec::cleanup(
            &cluster.client(),
            &pods,
            g.conn.request_timeout,
        ));
        for f in &failed {
            eprintln!("volmnt: could not delete probe pod {f}; `volmnt node gc` removes it");
        }
        let failed = rt.block_on(daemonset::cleanup(
            &cluster.client(),
            &dsets,
            g.conn.request_timeout,
        ));
        for f in &failed {
            eprintln!("volmnt: could not delete probe DaemonSet {f}; `volmnt node gc` removes it");
        }
    }
    let result = match outcome {
        Ok(r) => r,
        Err(sig) => {
            drop(rt);
            // 128 + the signal number, as shells report it: SIGINT 2, SIGTERM 15.
            std::process::exit(if sig == "terminated" { 143 } else { 130 });
        }
    };
    let (checked, label_cluster) = result?;
    let evaluated: Vec<analysis::NodeResult> = checked
        .into_iter()
        .map(|c| analysis::evaluate(c, &a.require))
        .collect();
    let mut doc = analysis::document(evaluated, &a.require, transport, started.elapsed());
    if a.label {
        if let Some(cluster) = &label_cluster {
            rt.block_on(write_labels(cluster, &mut doc));
        }
    }
    let out = match g.output {
        Format::Json => crate::render::json::to_json(&doc),
        Format::Yaml => crate::render::json::to_yaml(&doc),
        Format::Junit => Ok(junit::render(&analysis::junit_suites(&doc))),
        Format::Text => Ok(analysis::text(&doc, g.color.enabled())),
    }
    .map_err(Error::Output)?;
    super::emit(&out)?;
    Ok(doc.exit_code())
}

/// Ctrl-C (SIGINT) or SIGTERM, whichever comes first.
pub(crate) async fn interrupted() -> &'static str {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        let mut term = match signal(SignalKind::terminate()) {
            Ok(s) => s,
            Err(_) => {
                let _ = tokio::signal::ctrl_c().await;
                return "interrupted";
            }
        };
        tokio::select! {
            _ = tokio::signal::ctrl_c() => "interrupted",
            _ = term.recv() => "terminated",
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
        "interrupted"
    }
}

type CheckResult = Result<(Vec<Checked>, Option<Cluster>)>;

async fn check_all(
    a: &NodeCheckArgs,
    g: &Global,
    transport: Transport,
    pods: ProbePods,
    dsets: daemonset::ProbeDaemonSets,
    cluster_slot: Arc<Mutex<Option<Cluster>>>,
) -> CheckResult {
    let needs_cluster = transport == Transport::Exec || a.all || a.label;
    let cluster = if needs_cluster {
        let c = Cluster::connect(&super::connect_options(g, a.namespace.clone()))
            .await
            .map_err(|e| match (transport, a.exec) {
                (Transport::Exec, false) => Error::Unreachable(format!(
                    "{e}; checking named nodes goes through the cluster (--exec) by default: use \
                     --ssh [user@]host to reach them over SSH, or --local on the node itself"
                )),
                _ => e,
            })?;
        if let Ok(mut slot) = cluster_slot.lock() {
            *slot = Some(c.clone());
        }
        Some(c)
    } else {
        None
    };

    let targets: Vec<Target> = match (transport, a.all) {
        (Transport::Local, _) => vec![Target {
            node: a.node_name.clone(),
            address: "local".into(),
        }],
        (_, false) => a
            .nodes
            .iter()
            .map(|n| Target {
                node: (transport == Transport::Exec).then(|| n.clone()),
                address: n.clone(),
            })
            .collect(),
        (_, true) => {
            let cluster = cluster.as_ref().expect("connected for --all");
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
                    t.push(Target {
                        node: Some(name),
                        address: addr,
                    });
                } else {
                    t.push(Target {
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
    };

    let exec_opts = cluster.as_ref().map(|c| ExecOptions {
        namespace: c.namespace.clone(),
        image: a.image.clone(),
        deadline: a.timeout + Duration::from_secs(60),
        request_timeout: g.conn.request_timeout,
        step_timeout_secs: crate::collect::node::local::step_timeout_for(a.timeout),
        log_match: Vec::new(),
    });
    if transport == Transport::Exec && a.via == Via::Daemonset {
        let client = cluster
            .as_ref()
            .expect("connected for --exec")
            .exec_client();
        let o = exec_opts.expect("exec options");
        return via_daemonset(a, &client, targets, &o, &dsets, g.conn.request_timeout)
            .await
            .map(|checked| (checked, if a.label { cluster } else { None }));
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
            options: a.ssh_option.clone(),
            user: a.ssh_user.clone(),
        })
    } else {
        None
    };

    let progress = ProgressLine::new(a.progress, targets.len());
    // Probe pods are reached through exec, a WebSocket upgrade: HTTP/1.1.
    let client = cluster.as_ref().map(|c| c.exec_client());
    let per_node = a.timeout;
    let request_timeout = g.conn.request_timeout;
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
                            if !a.all && !exec::node_exists(&client, &t.address, o.request_timeout).await? {
                                return Err(Error::Unreachable(format!(
                                    "node {:?} does not exist in the cluster (`kubectl get nodes` lists them)",
                                    t.address
                                )));
                            }
                            exec::run(&client, &t.address, &o, &pods, per_node).await
                        }
                        Transport::Ssh => {
                            let o = ssh_opts.expect("ssh options");
                            ssh::run(&o, &t.address, per_node).await
                        }
                        Transport::Local => analysis::run_local(root, a.host_proc, per_node).await,
                    }
                };
                // The transports bound themselves by `per_node`; this is a backstop.
                let run = match tokio::time::timeout(per_node + Duration::from_secs(5), work).await {
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
        .buffer_unordered(usize::from(a.concurrency))
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
    checked.sort_by_key(|c| c.target.display());
    Ok((checked, if a.label { cluster } else { None }))
}

/// `--via daemonset`: every node's probe pod from one DaemonSet (collect::node::daemonset).
async fn via_daemonset(
    a: &NodeCheckArgs,
    client: &kube::Client,
    targets: Vec<Target>,
    o: &ExecOptions,
    dsets: &daemonset::ProbeDaemonSets,
    request_timeout: Duration,
) -> Result<Vec<Checked>> {
    let names: Vec<String> = targets.iter().map(|t| t.address.clone()).collect();
    if !a.all {
        for n in &names {
            if !exec::node_exists(client, n, request_timeout).await? {
                return Err(Error::Usage(format!(
                    "node {n:?} does not exist in the cluster (`kubectl get nodes` lists them)"
                )));
            }
        }
    }
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
        usize::from(a.concurrency),
        |n, ok| progress.finish(n, ok),
    )
    .await;
    progress.clear();
    let runs = runs?;
    let mut by_node: std::collections::HashMap<String, daemonset::NodeRun> =
        runs.into_iter().map(|r| (r.node.clone(), r)).collect();
    let pairs: Vec<(Target, daemonset::NodeRun)> = targets
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
        .buffer_unordered(usize::from(a.concurrency))
        .collect()
        .await;
    checked.sort_by_key(|c| c.target.display());
    Ok(checked)
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

/// `--label`: `volmnt.io/mount.<fs>=true|false` on every node that was checked.
async fn write_labels(cluster: &Cluster, doc: &mut analysis::Document) {
    let api: Api<Node> = Api::all(cluster.client());
    for n in &mut doc.nodes {
        let Some(node) = n.node.clone() else { continue };
        if n.labels.is_empty() {
            continue;
        }
        let labels: BTreeMap<String, Option<String>> = n
            .labels
            .iter()
            .map(|(k, v)| (k.clone(), Some(v.clone())))
            .collect();
        let patch = serde_json::json!({"metadata": {"labels": labels}});
        match api
            .patch(&node, &PatchParams::default(), &Patch::Merge(&patch))
            .await
        {
            Ok(_) => n.labelled = true,
            Err(e) => {
                let msg = match e {
                    kube::Error::Api(s) if s.code == 403 => format!(
                        "not allowed to label node {node} (needs patch on nodes: deploy/rbac.yaml's volmnt-node-labeler)"
                    ),
                    other => format!("labelling node {node}: {other}"),
                };
                eprintln!("volmnt: {msg}");
                n.notes.push(msg);
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// node gc
// ---------------------------------------------------------------------------------------------

pub fn run_gc(a: &NodeGcArgs, g: &Global) -> Result<ExitCode> {
    let rt = super::runtime()?;
    let deleted = rt.block_on(async {
        let cluster = Cluster::connect(&super::connect_options(g, a.namespace.clone())).await?;
        let ns = (!a.all_namespaces).then(|| cluster.namespace.clone());
        // DaemonSets first: deleting them takes their pods along.
        let dsets = daemonset::gc(
            &cluster.client(),
            ns.as_deref(),
            a.min_age,
            g.conn.request_timeout,
        )
        .await?;
        let pods = exec::gc(
            &cluster.client(),
            ns.as_deref(),
            a.min_age,
            g.conn.request_timeout,
        )
        .await?;
        Ok::<_, Error>((pods, dsets))
    })?;
    let (deleted, deleted_ds) = deleted;
    let doc = serde_json::json!({ "deleted": deleted, "deleted_daemonsets": deleted_ds });
    let out = match g.output {
        Format::Json => crate::render::json::to_json(&doc),
        Format::Yaml => crate::render::json::to_yaml(&doc),
        Format::Junit => Err(crate::render::JUNIT_ONLY.to_string()),
        Format::Text if deleted.is_empty() && deleted_ds.is_empty() => {
            Ok("no probe pods or DaemonSets to delete\n".to_string())
        }
        Format::Text => Ok(deleted_ds
            .iter()
            .map(|d| format!("deleted DaemonSet {d} (and its pods)\n"))
            .chain(deleted.iter().map(|p| format!("deleted pod {p}\n")))
            .collect()),
    }
    .map_err(Error::Output)?;
    super::emit(&out)?;
    Ok(ExitCode::Ok)
}

// ---------------------------------------------------------------------------------------------
// From probe output to the verdict: parse::probe reads it, diagnose::node_check judges it
// ---------------------------------------------------------------------------------------------

mod analysis {
    use super::*;
    use crate::diagnose::node_check::{self, NodeReport, Severity};

    /// One node's outcome.
    #[derive(Debug, Clone, Serialize)]
    pub struct NodeResult {
        /// The Kubernetes node name, when known.
        #[serde(skip_serializing_if = "Option::is_none")]
        pub node: Option<String>,
        /// What was contacted: the node name (exec), the ssh destination, `local`.
        pub target: String,
        /// `pass` (every requirement met), `fail` (one is not), or `unreachable` (not probed).
        pub status: &'static str,
        pub elapsed_ms: u64,
        /// Why the node could not be probed.
        #[serde(skip_serializing_if = "Option::is_none")]
        pub error: Option<String>,
        /// The probe's findings, when it ran.
        #[serde(skip_serializing_if = "Option::is_none")]
        pub report: Option<NodeReport>,
        /// Labels `--label` writes for this node (what it can mount).
        #[serde(skip_serializing_if = "BTreeMap::is_empty")]
        pub labels: BTreeMap<String, String>,
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        pub labelled: bool,
        #[serde(skip_serializing_if = "Vec::is_empty")]
        pub notes: Vec<String>,
    }

    #[derive(Debug, Clone, Serialize)]
    pub struct Summary {
        pub checked: usize,
        pub passed: usize,
        pub failed: usize,
        /// Requirements met, but errors in the mount table.
        pub problems: usize,
        pub unreachable: usize,
    }

    /// The whole `node check` document (`-o json|yaml`).
    #[derive(Debug, Clone, Serialize)]
    pub struct Document {
        /// `pass`, `fail` or `unreachable`, as the exit code says it.
        pub status: &'static str,
        pub transport: Transport,
        pub required: Vec<Requirement>,
        pub summary: Summary,
        pub elapsed_ms: u64,
        pub nodes: Vec<NodeResult>,
    }

    impl Document {
        pub fn exit_code(&self) -> ExitCode {
            match self.status {
                "fail" | "problem" => ExitCode::Problem,
                "unreachable" => ExitCode::Unreachable,
                _ => ExitCode::Ok,
            }
        }
    }

    /// `--local`: the probe here (blocking: it runs on the blocking pool).
    pub async fn run_local(
        root: Option<PathBuf>,
        host_proc: bool,
        timeout: Duration,
    ) -> Result<ProbeRun> {
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

    fn unreachable(c: &Checked, error: String) -> NodeResult {
        NodeResult {
            node: c.target.node.clone(),
            target: c.target.address.clone(),
            status: "unreachable",
            elapsed_ms: c.elapsed.as_millis() as u64,
            error: Some(error),
            report: None,
            labels: BTreeMap::new(),
            labelled: false,
            notes: Vec::new(),
        }
    }

    /// Parse and judge what one node sent back.
    pub fn evaluate(c: Checked, required: &[Requirement]) -> NodeResult {
        let run = match &c.run {
            Err(e) => return unreachable(&c, e.to_string()),
            Ok(r) => r,
        };
        let text = String::from_utf8_lossy(&run.stdout);
        let facts = match crate::parse::probe::parse(&text) {
            Ok(f) => f,
            Err(e) => {
                let why = match (run.exit_code, ssh::last_line(&run.stderr)) {
                    (None, _) => format!("the probe was stopped at the time limit; {e}"),
                    (Some(code), Some(err)) if code != 0 => {
                        format!("the probe failed (exit {code}): {err}; {e}")
                    }
                    _ => e.to_string(),
                };
                return unreachable(&c, why);
            }
        };
        let mut report = node_check::analyze(&facts, required, c.pods_on_node.as_deref());
        if let (Some(node), true) = (&c.target.node, c.exec) {
            // In the probe pod the host name is the pod's own (its UTS namespace), not the node's.
            report.node = Some(node.clone());
        }
        let labels = report
            .capabilities
            .iter()
            .map(|cap| {
                (
                    format!("volmnt.io/mount.{}", cap.volume),
                    cap.ok.to_string(),
                )
            })
            .collect();
        let mut notes = Vec::new();
        if run.exit_code.is_none() {
            notes.push("the probe was stopped at the time limit: some facts may be missing".into());
        }
        if run.stderr.contains("volmnt: the probe pod was not deleted") {
            notes.push(run.stderr.trim().to_string());
        }
        NodeResult {
            node: c.target.node.clone(),
            target: c.target.address.clone(),
            // Requirements decide pass/fail; an error in the mount table (an orphaned mount
            // to a server that may hang) is a problem found all the same (exit 1).
            status: if !report.requirements_met() {
                "fail"
            } else if report.has_problems() {
                "problem"
            } else {
                "pass"
            },
            elapsed_ms: c.elapsed.as_millis() as u64,
            error: None,
            report: Some(report),
            labels,
            labelled: false,
            notes,
        }
    }

    pub fn document(
        mut nodes: Vec<NodeResult>,
        required: &[Requirement],
        transport: Transport,
        elapsed: Duration,
    ) -> Document {
        nodes.sort_by_key(name_of);
        let count = |s: &str| nodes.iter().filter(|n| n.status == s).count();
        let summary = Summary {
            checked: nodes.len(),
            passed: count("pass"),
            failed: count("fail"),
            problems: count("problem"),
            unreachable: count("unreachable"),
        };
        let status = if summary.failed > 0 {
            "fail"
        } else if summary.problems > 0 {
            "problem"
        } else if summary.unreachable > 0 {
            "unreachable"
        } else {
            "pass"
        };
        Document {
            status,
            transport,
            required: required.to_vec(),
            summary,
            elapsed_ms: elapsed.as_millis() as u64,
            nodes,
        }
    }

    pub fn name_of(n: &NodeResult) -> String {
        match &n.node {
            Some(node) if *node != n.target => format!("{node} ({})", n.target),
            Some(node) => node.clone(),
            None => n.target.clone(),
        }
    }

    fn req_list(r: &[Requirement]) -> String {
        r.iter().map(|r| r.as_str()).collect::<Vec<_>>().join(", ")
    }

    fn paint(s: &str, color: bool, code: &str) -> String {
        if color {
            format!("\x1b[{code}m{s}\x1b[0m")
        } else {
            s.to_string()
        }
    }

    pub fn text(doc: &Document, color: bool) -> String {
        let mut out = String::new();
        let s = &doc.summary;
        let head = match doc.status {
            "pass" if doc.required.is_empty() => {
                format!("{} {} node(s) checked", paint("OK", color, "32"), s.checked)
            }
            "pass" => format!(
                "{} every node ({}) has {}",
                paint("PASS", color, "32"),
                s.checked,
                req_list(&doc.required)
            ),
            "fail" => format!(
                "{} {} of {} node(s) cannot mount what is required ({}){}",
                paint("FAIL", color, "31"),
                s.failed,
                s.checked,
                req_list(&doc.required),
                if s.unreachable > 0 {
                    format!("; {} could not be probed", s.unreachable)
                } else {
                    String::new()
                }
            ),
            "problem" => format!(
                "{} {} of {} node(s) have errors in their mount tables{}",
                paint("PROBLEM", color, "31"),
                s.problems,
                s.checked,
                if doc.required.is_empty() {
                    String::new()
                } else {
                    format!(" (every node has {})", req_list(&doc.required))
                }
            ),
            _ => format!(
                "{} {} of {} node(s) could not be probed",
                paint("UNREACHABLE", color, "33"),
                s.unreachable,
                s.checked
            ),
        };
        out.push_str(&format!(
            "{head} (via {}, {})\n",
            doc.transport.name(),
            human_duration(Duration::from_millis(doc.elapsed_ms))
        ));
        for n in &doc.nodes {
            out.push('\n');
            let took = human_duration(Duration::from_millis(n.elapsed_ms));
            let Some(r) = &n.report else {
                out.push_str(&format!(
                    "{}  {}  [{took}]\n  {}\n",
                    name_of(n),
                    paint("UNREACHABLE", color, "33"),
                    n.error.as_deref().unwrap_or("")
                ));
                continue;
            };
            let status = match n.status {
                "pass" if doc.required.is_empty() => paint("checked", color, "32"),
                "pass" => paint("PASS", color, "32"),
                "problem" => paint("PROBLEM", color, "31"),
                _ => paint("FAIL", color, "31"),
            };
            let about: Vec<String> = [
                r.os.clone(),
                r.kernel.clone().map(|k| format!("kernel {k}")),
            ]
            .into_iter()
            .flatten()
            .collect();
            out.push_str(&format!(
                "{}  {status}  {}[{took}]\n",
                name_of(n),
                if about.is_empty() {
                    String::new()
                } else {
                    format!("{}  ", about.join(", "))
                }
            ));
            for q in &r.requirements {
                let mark = if q.ok {
                    paint("ok", color, "32")
                } else {
                    paint("MISSING", color, "31")
                };
                out.push_str(&format!(
                    "  require {}: {mark}  {}\n",
                    q.requirement, q.detail
                ));
                let fix = q
                    .install
                    .as_ref()
                    .and_then(|i| i.command.as_deref().or(i.advice.as_deref()));
                if let Some(fix) = fix.filter(|f| !q.detail.contains(*f)) {
                    out.push_str(&format!("      fix: {fix}\n"));
                }
            }
            let can: Vec<&str> = r
                .capabilities
                .iter()
                .filter(|c| c.ok)
                .map(|c| c.volume.as_str())
                .collect();
            let cannot: Vec<&str> = r
                .capabilities
                .iter()
                .filter(|c| !c.ok)
                .map(|c| c.volume.as_str())
                .collect();
            out.push_str(&format!(
                "  can mount: {}{}\n",
                if can.is_empty() {
                    "-".to_string()
                } else {
                    can.join(", ")
                },
                if cannot.is_empty() {
                    String::new()
                } else {
                    format!("; cannot: {}", cannot.join(", "))
                }
            ));
            for i in &r.issues {
                let sev = match i.severity {
                    Severity::Error => paint("error", color, "31"),
                    Severity::Warning => paint("warning", color, "33"),
                };
                out.push_str(&format!("  {sev}: {}\n", i.detail));
                if let Some(fix) = &i.fix {
                    out.push_str(&format!("      fix: {fix}\n"));
                }
            }
            for e in &r.probe_errors {
                out.push_str(&format!("  probe: {e}\n"));
            }
            for note in r.notes.iter().chain(&n.notes) {
                out.push_str(&format!("  note: {note}\n"));
            }
            if n.labelled {
                out.push_str(&format!(
                    "  labelled: {} labels volmnt.io/mount.*\n",
                    n.labels.len()
                ));
            }
        }
        out
    }

    /// `-o junit`: a suite per node; a case per requirement (or one `probe` case when nothing is
    /// required). A node not reached gives an `<error>` in each of its cases.
    pub fn junit_suites(doc: &Document) -> Vec<junit::Suite> {
        doc.nodes
            .iter()
            .map(|n| {
                let name = n.node.clone().unwrap_or_else(|| n.target.clone());
                let classname = format!("volmnt.node-check.{name}");
                let time = n.elapsed_ms as f64 / 1000.0;
                let case = |case: &str, outcome: junit::Outcome| junit::TestCase {
                    classname: classname.clone(),
                    name: case.to_string(),
                    time,
                    outcome,
                    system_out: None,
                };
                let cases = match &n.report {
                    None => {
                        let err = n.error.clone().unwrap_or_default();
                        let names: Vec<&str> = if doc.required.is_empty() {
                            vec!["probe"]
                        } else {
                            doc.required.iter().map(|r| r.as_str()).collect()
                        };
                        names
                            .into_iter()
                            .map(|r| {
                                case(
                                    r,
                                    junit::Outcome::Error {
                                        message: format!("{name} could not be probed"),
                                        text: err.clone(),
                                    },
                                )
                            })
                            .collect()
                    }
                    Some(r) if r.requirements.is_empty() => {
                        vec![case("probe", junit::Outcome::Passed)]
                    }
                    Some(r) => r
                        .requirements
                        .iter()
                        .map(|q| {
                            let outcome = if q.ok {
                                junit::Outcome::Passed
                            } else {
                                let fix = q
                                    .install
                                    .as_ref()
                                    .and_then(|i| i.command.clone().or_else(|| i.advice.clone()))
                                    .map(|f| format!("\nfix: {f}"))
                                    .unwrap_or_default();
                                junit::Outcome::Failed {
                                    message: format!("{name} cannot mount {}", q.requirement),
                                    text: format!("{}{fix}", q.detail),
                                }
                            };
                            case(q.requirement.as_str(), outcome)
                        })
                        .collect(),
                };
                let mut properties = vec![
                    ("transport".to_string(), doc.transport.name().to_string()),
                    ("target".to_string(), n.target.clone()),
                ];
                if let Some(os) = n.report.as_ref().and_then(|r| r.os.clone()) {
                    properties.push(("os".into(), os));
                }
                junit::Suite {
                    name,
                    time,
                    cases,
                    properties,
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn node_names_are_dns_subdomains() {
        for ok in ["node1", "ip-10-0-0-7.ec2.internal", "a"] {
            assert!(is_node_name(ok), "{ok}");
        }
        for bad in ["node1; touch x", "$(id)", "Node1", "-n", "a..b", "", "a_b"] {
            assert!(!is_node_name(bad), "{bad}");
        }
    }

    #[test]
    fn durations_read_as_people_write_them() {
        assert_eq!(human_duration(Duration::from_millis(250)), "250ms");
        assert_eq!(human_duration(Duration::from_secs(3)), "3s");
        assert_eq!(human_duration(Duration::from_millis(1500)), "1.5s");
        assert_eq!(human_duration(Duration::from_secs(120)), "2m");
        assert_eq!(human_duration(Duration::from_secs(90)), "1m30s");
    }
}
