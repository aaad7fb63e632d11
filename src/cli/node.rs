//! Arguments of `volmnt node check|gc`.

use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, Subcommand};

use super::parse_duration;
use crate::model::node::Requirement;

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
Deletes pods and DaemonSets labelled volmnt.io/probe=true in the probe namespace (-n, default
volmnt) or in every namespace (-A). `node check` deletes them itself, even on Ctrl-C; gc is
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
    #[arg(
        long,
        value_name = "FS,...",
        value_delimiter = ',',
        value_enum,
        ignore_case = true
    )]
    pub require: Vec<Requirement>,
    /// Write labels volmnt.io/mount.<fs>=true|false on each node checked (needs patch on nodes)
    #[arg(long)]
    pub label: bool,
    /// Namespace of the probe pods: the one deploy/rbac.yaml prepares (Role volmnt-node-probe,
    /// Pod Security label)
    #[arg(short = 'n', long, value_name = "NS", env = "VOLMNT_PROBE_NAMESPACE", default_value = crate::model::node::DEFAULT_PROBE_NAMESPACE)]
    pub namespace: String,
    /// Image of the probe pods (needs a POSIX sh and `sleep`)
    #[arg(long, value_name = "IMAGE", default_value = crate::model::node::DEFAULT_PROBE_IMAGE)]
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
    /// The probe namespace (the one deploy/rbac.yaml prepares)
    #[arg(short = 'n', long, value_name = "NS", env = "VOLMNT_PROBE_NAMESPACE", default_value = crate::model::node::DEFAULT_PROBE_NAMESPACE, conflicts_with = "all_namespaces")]
    pub namespace: String,
    /// Every namespace (needs list and delete on pods cluster-wide)
    #[arg(short = 'A', long)]
    pub all_namespaces: bool,
    /// Only pods older than this (e.g. 10m), to spare a check running now
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    pub min_age: Option<Duration>,
}
