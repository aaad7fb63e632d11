//! Every flag volmnt takes, with its help text.

pub mod argv;
pub mod node;
pub mod rbd;

use clap::{Args, Parser, Subcommand};

use crate::error::EXIT_CODES_HELP;
use crate::render::{ColorChoice, Format};

/// Why is this pod stuck in ContainerCreating because of a volume, and what do I run to fix it?
#[derive(Debug, Parser)]
#[command(
    name = "volmnt",
    version,
    about = "Why is this pod stuck in ContainerCreating because of a volume, and what to run to fix it",
    long_about = "volmnt reads what a stuck pod leaves behind (kubectl describe, events, saved objects, \
kubelet logs, rbd lock listings), names the likely causes ranked by confidence with the evidence for \
each, and prints the exact commands to confirm and fix them, adapted to the node's OS.\n\n\
Also installed as kubectl-volmnt, it works as `kubectl volmnt ...`.",
    after_help = EXIT_CODES_HELP,
    propagate_version = true
)]
pub struct Cli {
    #[command(flatten)]
    pub global: Global,
    #[command(subcommand)]
    pub command: Command,
}

/// Flags every command takes.
#[derive(Debug, Args, Clone)]
pub struct Global {
    /// Output format: a readable report, or one JSON/YAML document on stdout
    #[arg(short = 'o', long = "output", value_enum, default_value_t = Format::Text, global = true)]
    pub output: Format,
    /// Colour the text report (auto: only on a terminal, and never when NO_COLOR is set)
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto, global = true)]
    pub color: ColorChoice,
    /// Say more on stderr about what was read and decided (with a cluster: the request count)
    #[arg(short = 'v', long = "verbose", action = clap::ArgAction::Count, global = true)]
    pub verbose: u8,
    #[command(flatten)]
    pub conn: Connection,
    /// How volmnt was invoked (`volmnt`, or `kubectl volmnt` as a kubectl plugin), set by main
    /// from argv[0]: the commands a report suggests are written the same way.
    #[arg(skip = String::from("volmnt"))]
    pub invocation: String,
}

/// How to reach the cluster, as kubectl takes it.
#[derive(Debug, Args, Clone)]
pub struct Connection {
    /// Path to the kubeconfig file (default: $KUBECONFIG, which may list several files, then ~/.kube/config, then in-cluster)
    #[arg(long, value_name = "FILE", global = true, env = "VOLMNT_KUBECONFIG")]
    pub kubeconfig: Option<std::path::PathBuf>,
    /// The kubeconfig context to use (default: the current context)
    #[arg(long, value_name = "NAME", global = true)]
    pub context: Option<String>,
    /// Give up on a request to the API server after this long (e.g. 5s, 1m, 500ms)
    #[arg(long, value_name = "DURATION", default_value = "15s", value_parser = parse_duration, global = true)]
    pub request_timeout: std::time::Duration,
    /// The kubeconfig cluster to use (default: the context's)
    #[arg(long, value_name = "NAME", global = true)]
    pub cluster: Option<String>,
    /// The kubeconfig user to use (default: the context's)
    #[arg(long, value_name = "NAME", global = true)]
    pub user: Option<String>,
    /// The address of the API server (as kubectl's --server; works without a kubeconfig)
    #[arg(short = 's', long, value_name = "URL", global = true)]
    pub server: Option<String>,
    /// Bearer token for the API server (as kubectl's --token; never printed)
    #[arg(long, value_name = "TOKEN", global = true)]
    pub token: Option<String>,
    /// A CA certificate file to verify the API server with
    #[arg(long, value_name = "FILE", global = true)]
    pub certificate_authority: Option<std::path::PathBuf>,
    /// A client certificate file for TLS
    #[arg(long, value_name = "FILE", global = true)]
    pub client_certificate: Option<std::path::PathBuf>,
    /// A client key file for TLS
    #[arg(long, value_name = "FILE", global = true)]
    pub client_key: Option<std::path::PathBuf>,
    /// Do not verify the API server's certificate (insecure, as kubectl's flag)
    #[arg(long, global = true)]
    pub insecure_skip_tls_verify: bool,
    /// Act as this user (impersonation, as kubectl's --as; needs impersonate rights)
    #[arg(long = "as", value_name = "USER", global = true)]
    pub as_user: Option<String>,
    /// Act as this group (repeatable; with --as)
    #[arg(
        long = "as-group",
        value_name = "GROUP",
        global = true,
        requires = "as_user"
    )]
    pub as_group: Vec<String>,
}

/// `500ms`, `5s`, `2m`, `1h`, or a number of seconds (as kubectl's --request-timeout).
pub fn parse_duration(s: &str) -> Result<std::time::Duration, String> {
    let s = s.trim();
    let (num, unit) = match s.find(|c: char| !c.is_ascii_digit() && c != '.') {
        Some(i) => (&s[..i], &s[i..]),
        None => (s, "s"),
    };
    let n: f64 = num
        .parse()
        .map_err(|_| format!("{s:?} is not a duration (examples: 500ms, 5s, 2m)"))?;
    let secs = match unit {
        "ms" => n / 1000.0,
        "s" => n,
        "m" => n * 60.0,
        "h" => n * 3600.0,
        _ => return Err(format!("{s:?}: unknown unit {unit:?} (use ms, s, m or h)")),
    };
    if !(0.0..=86400.0).contains(&secs) || secs == 0.0 {
        return Err(format!("{s:?} must be more than 0 and at most a day"));
    }
    Ok(std::time::Duration::from_secs_f64(secs))
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Classify raw error messages (event messages, kubelet log lines, mount output)
    #[command(after_help = EXPLAIN_HELP)]
    Explain(ExplainArgs),
    /// Diagnose a stuck pod
    #[command(subcommand)]
    Doctor(DoctorCommand),
    /// Check what a node can mount (over SSH, through a short-lived pod, or locally); CI preflight
    #[command(subcommand)]
    Node(node::NodeCommand),
    /// Find who holds an RBD image (locks and watchers) and release it only when provably stale
    #[command(subcommand)]
    Rbd(rbd::RbdCommand),
    /// Run as a controller: diagnose every pod stuck on volumes as it happens, write the verdict
    /// onto the pod as an Event, export Prometheus metrics
    #[command(after_help = WATCH_HELP)]
    Watch(WatchArgs),
    /// Print a shell completion script
    Completions(CompletionsArgs),
}

const WATCH_HELP: &str = "\
volmnt watch lists and then watches (kube's watchers, with bookmarks) the pods, their events,
claims, PVs, nodes, CSINodes, VolumeAttachments, CSIDrivers, StorageClasses and ConfigMap/Secret
names, and diagnoses each pod stuck on volumes for longer than --min-age with the same engine as
`volmnt doctor`, again whenever its events or volume objects change. The verdict goes onto the
pod as a Warning Event, reason VolumeDiagnosis (message: cause id, verdict, first fix), one per
pod and cause, updated (count, lastTimestamp) rather than repeated, and none once the pod runs.

Only the replica that holds the Lease (coordination.k8s.io/v1) writes Events. /metrics (the
Prometheus text format), /healthz and /readyz are served on --listen. deploy/ and charts/volmnt
install it in a cluster; deploy/rbac.yaml has the role it needs (volmnt-watch).

Examples:
  volmnt watch -A --listen 0.0.0.0:8080
  volmnt watch -n shop -n billing -l tier=db --min-age 5m
  volmnt watch -A --dry-run            # log what would be written, write nothing

Exit codes:
  0  stopped by SIGTERM or Ctrl-C (the Lease released first)
  2  usage error
  3  the cluster could not be reached, or --listen could not be bound";

#[derive(Debug, Args)]
pub struct WatchArgs {
    /// Namespaces to watch (repeatable, or comma-separated; default: the context's)
    #[arg(
        short = 'n',
        long,
        value_delimiter = ',',
        conflicts_with = "all_namespaces"
    )]
    pub namespace: Vec<String>,
    /// Every namespace
    #[arg(short = 'A', long)]
    pub all_namespaces: bool,
    /// Only pods matching this label selector (e.g. `app=web,tier!=cache`)
    #[arg(short = 'l', long, value_name = "SELECTOR")]
    pub selector: Option<String>,
    /// A pod counts as stuck once it is this old (e.g. 2m, 30s)
    #[arg(long, value_name = "DURATION", default_value = "2m", value_parser = parse_duration)]
    pub min_age: std::time::Duration,
    /// Log what would be written; write nothing (no Events, no Lease)
    #[arg(long)]
    pub dry_run: bool,
    /// Address for /metrics, /healthz and /readyz
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:8080")]
    pub listen: std::net::SocketAddr,
    /// An unchanged diagnosis bumps its Event's count and lastTimestamp at most this often
    #[arg(long, value_name = "DURATION", default_value = "5m", value_parser = parse_duration)]
    pub event_refresh: std::time::Duration,
    /// Diagnose every stuck pod again this often, even if nothing changed
    #[arg(long, value_name = "DURATION", default_value = "10m", value_parser = parse_duration)]
    pub resync: std::time::Duration,
    /// Take part in leader election (only the leader writes); false for a single replica
    #[arg(long, value_name = "BOOL", default_value_t = true, action = clap::ArgAction::Set)]
    pub leader_elect: bool,
    /// Namespace of the Lease (default: $POD_NAMESPACE, else the context's namespace)
    #[arg(long, value_name = "NS")]
    pub lease_namespace: Option<String>,
    /// Name of the Lease
    #[arg(long, value_name = "NAME", default_value = "volmnt-watch")]
    pub lease_name: String,
    /// How long a leader's claim lasts without renewal
    #[arg(long, value_name = "DURATION", default_value = "15s", value_parser = parse_duration)]
    pub lease_duration: std::time::Duration,
    /// A leader that could not renew for this long stops writing (less than --lease-duration)
    #[arg(long, value_name = "DURATION", default_value = "10s", value_parser = parse_duration)]
    pub renew_deadline: std::time::Duration,
    /// How often the Lease is renewed, or tried
    #[arg(long, value_name = "DURATION", default_value = "2s", value_parser = parse_duration)]
    pub retry_period: std::time::Duration,
    /// This replica's name in the Lease (default: $POD_NAME, else the host name, with the pid)
    #[arg(long, value_name = "NAME")]
    pub identity: Option<String>,
    /// Event writes at the same time
    #[arg(long, value_name = "N", default_value_t = 8, value_parser = clap::value_parser!(u16).range(1..=64))]
    pub concurrency: u16,
    /// Also watch Secrets (metadata only) to tell whether a Secret a pod mounts exists. Off by
    /// default: RBAC cannot grant Secrets' metadata without their data, and kubelet's own
    /// events already name a missing Secret
    #[arg(long)]
    pub read_secrets: bool,
}

const EXPLAIN_HELP: &str = "\
Each MESSAGE is classified on its own. With `-`, the whole of stdin is ONE message, which may span
lines (mount output usually does).

Examples:
  volmnt explain 'MountVolume.SetUp failed for volume \"pvc-1\" : rbd image p/i is still being used'
  kubectl get events -n ns -o jsonpath='{.items[0].message}' | volmnt explain -

Exit codes:
  0  no message describes a failure
  1  at least one message describes a failure (recognised or not)
  2  usage or input error";

#[derive(Debug, Args)]
pub struct ExplainArgs {
    /// Messages to classify; `-` reads one message from stdin
    #[arg(required = true, value_name = "MESSAGE")]
    pub messages: Vec<String>,
    /// The node's OS (osImage such as "Ubuntu 22.04.4 LTS", or rhel|debian|suse|alpine|immutable), for install commands
    #[arg(long, value_name = "OS")]
    pub node_os: Option<String>,
}

#[derive(Debug, Subcommand)]
pub enum DoctorCommand {
    /// Diagnose one pod: live from the cluster, or from saved output (--from-file), or a bundled real case (--example)
    #[command(visible_aliases = ["pods", "po"], after_help = DOCTOR_POD_HELP)]
    Pod(DoctorPodArgs),
    /// Find the pods of a namespace (or all, -A) stuck on volumes and diagnose each, grouped by cause and node
    #[command(visible_aliases = ["ns", "namespaces"], after_help = DOCTOR_NS_HELP)]
    Namespace(DoctorNamespaceArgs),
}

const DOCTOR_NS_HELP: &str = "\
A pod counts as stuck when it is Pending with a container waiting in ContainerCreating (or has
volume warnings) for longer than --min-age. Events are listed once per namespace and each PV and
node is read once, with paginated lists, so memory stays bounded on large clusters.

Examples:
  volmnt doctor namespace -n shop
  volmnt doctor namespace -A --min-age 10m -o json

Exit codes:
  0  no pod is stuck on a volume
  1  at least one pod is stuck (the summary groups them by cause and node)
  2  usage error
  3  the cluster could not be reached, or a read was refused (partial report printed)";

#[derive(Debug, Args)]
pub struct DoctorNamespaceArgs {
    /// The namespace (default: the context's)
    #[arg(short = 'n', long, conflicts_with = "all_namespaces")]
    pub namespace: Option<String>,
    /// Every namespace
    #[arg(short = 'A', long)]
    pub all_namespaces: bool,
    /// Only pods stuck for at least this long (e.g. 2m, 30s)
    #[arg(long, value_name = "DURATION", default_value = "2m", value_parser = parse_duration)]
    pub min_age: std::time::Duration,
    /// Pods diagnosed at the same time
    #[arg(long, value_name = "N", default_value_t = 16, value_parser = clap::value_parser!(u16).range(1..=256))]
    pub concurrency: u16,
    /// Print one full report per group of stuck pods (the sample), after the summary
    #[arg(long, conflicts_with = "all_reports")]
    pub details: bool,
    /// Print every stuck pod's full report, after the summary (-o json always has them all)
    #[arg(long)]
    pub all_reports: bool,
}

const DOCTOR_POD_HELP: &str = "\
Without --from-file or --example, volmnt reads the pod and everything around it from the cluster
in your kubeconfig (read-only; see deploy/rbac.yaml for the permissions): its events, each
volume's PVC, PV, StorageClass, CSIDriver and VolumeAttachments, the node, the other pods using
the same claims, and whether the ConfigMaps and Secrets it mounts exist (never their data).
--save DIR writes what was read, to replay later with --from-file DIR.

Inputs (--from-file, any mix, each recognised by its content; a directory reads every file in it):
  kubectl describe pod|pv|pvc           (tidy, or flattened onto one line)
  kubectl get events                    (today's and the 1.5-era table layouts)
  kubectl get pod|pvc|pv|node|sc|volumeattachment|events -o yaml|json (one object, a List, or a
                                        multi-document dump; core/v1 and events.k8s.io/v1 events)
  kubelet log                           (klog lines, plain or as journalctl prints them)
  rbd lock ls [--format json], rbd status [--format json]
  the node's command output, as its facts: uname, os-release, dmesg / journalctl -k, lsmod,
                                        modprobe, ps / pgrep of the kubelet, which / ls of helpers,
                                        dpkg / rpm / apk, blkid, lsblk, findmnt / mount /
                                        mountinfo, multipath, iscsiadm, rpcinfo, showmount, df,
                                        systemctl status, sysctl, getenforce / sestatus
  a shell transcript holding several of these after `$ command` / `# command` prompts
An input (or transcript part) volmnt does not read is named in the notes and skipped; only when
nothing in any input is read is that an input error.

Examples:
  volmnt doctor pod web-0 -n shop
  volmnt doctor pod web-0 -n shop --save ./case-web-0
  volmnt doctor pod --example nfs
  kubectl describe pod web-0 -n shop > describe.txt
  volmnt doctor pod web-0 -n shop --from-file describe.txt --from-file kubelet.log
  kubectl describe pod web-0 | volmnt doctor pod --from-file - -o json

Exit codes:
  0  nothing wrong was found in the input
  1  a problem was found (the report names it, or says it is not recognised)
  2  usage or input error (unreadable, unrecognised or empty input; nothing to diagnose)
  3  could not reach or read what was needed";

/// Bundled real cases for `--example`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Example {
    /// 2020: NFS PV on a fresh node without nfs-utils (describe + the node's OS)
    Nfs,
    /// 2017: Ceph RBD image locked by the old node (events + kubelet log + rbd lock list)
    Rbd,
}

#[derive(Debug, Args)]
pub struct DoctorPodArgs {
    /// The pod's name, or pod/NAME as kubectl takes it (optional offline: taken from the input
    /// when it names one pod)
    #[arg(value_parser = argv::pod_name)]
    pub name: Option<String>,
    /// The pod's namespace
    #[arg(short = 'n', long)]
    pub namespace: Option<String>,
    /// Read saved output from FILE (repeatable; `-` for stdin). With a pod NAME and a cluster in
    /// the kubeconfig, the files add to the live read (a kubelet log beside the live objects)
    #[arg(short = 'f', long = "from-file", value_name = "FILE")]
    pub from_file: Vec<String>,
    /// Read only the files given, never the cluster (replaying a saved case, or a pod NAME
    /// that is not the current cluster's)
    #[arg(long, requires = "from_file")]
    pub offline: bool,
    /// Diagnose a bundled real case instead of files
    #[arg(long, value_enum, conflicts_with = "from_file")]
    pub example: Option<Example>,
    /// The node's OS (osImage such as "CentOS Linux 7 (Core)", or rhel|debian|suse|alpine|immutable), when no Node object is given
    #[arg(long, value_name = "OS")]
    pub node_os: Option<String>,
    /// Refuse inputs larger than this many MiB (a kubelet log is best cut with journalctl --since)
    #[arg(long, value_name = "MIB", default_value_t = 128)]
    pub max_input_mib: u64,
    /// Write everything read from the cluster into DIR (replay with --from-file DIR); never Secrets
    #[arg(long, value_name = "DIR", conflicts_with_all = ["offline", "example"])]
    pub save: Option<std::path::PathBuf>,
    /// Also run volmnt's read-only probe on the pod's node, through a short-lived pod (hostPID,
    /// host root read-only; announced first, deleted on every path), so a missing mount helper is
    /// confirmed or ruled out
    #[arg(long, conflicts_with_all = ["offline", "example"])]
    pub probe_node: bool,
    /// Namespace for the probe pod: the one deploy/rbac.yaml prepares (Role volmnt-node-probe,
    /// Pod Security label), as for `node check`
    #[arg(
        long,
        value_name = "NS",
        env = "VOLMNT_PROBE_NAMESPACE",
        default_value = crate::model::node::DEFAULT_PROBE_NAMESPACE,
        requires = "probe_node"
    )]
    pub probe_namespace: String,
    /// Image of the probe pod (it only needs a POSIX sh)
    #[arg(long, value_name = "IMAGE", default_value = crate::model::node::DEFAULT_PROBE_IMAGE, requires = "probe_node")]
    pub probe_image: String,
    /// Give up on the probe after this long (pod start included)
    #[arg(long, value_name = "DURATION", default_value = "2m", value_parser = parse_duration, requires = "probe_node")]
    pub probe_timeout: std::time::Duration,
    /// Let the probe read the kernel log: adds CAP_SYSLOG (only that) to the probe pod, which
    /// kernel.dmesg_restrict=1 requires for dmesg. Without it the probe reads the kernel's lines
    /// only from /var/log files and the journal, and the report says the ring buffer was not read
    #[arg(long, requires = "probe_node")]
    pub probe_kernel_log: bool,
    /// With --probe-node: also ask, from the node, whether the pod's NFS servers answer
    /// (`rpcinfo -p`, `showmount -e` and a TCP connect to 2049, 3 s each, where the probe image
    /// has them). Off by default: it sends traffic from the node to each server
    #[arg(long, requires = "probe_node")]
    pub probe_nfs: bool,
}

#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell to generate the script for
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn cli_definition_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn help_documents_exit_codes() {
        let help = Cli::command().render_long_help().to_string();
        assert!(help.contains("Exit codes:"));
        assert!(help.contains("3  could not reach"));
    }

    #[test]
    fn durations_read_like_kubectl() {
        use std::time::Duration;
        assert_eq!(parse_duration("5s"), Ok(Duration::from_secs(5)));
        assert_eq!(parse_duration("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_duration("2m"), Ok(Duration::from_secs(120)));
        assert_eq!(parse_duration("7"), Ok(Duration::from_secs(7)));
        assert!(parse_duration("0").is_err());
        assert!(parse_duration("5 parsecs").is_err());
        assert!(parse_duration("-1s").is_err());
    }

    #[test]
    fn example_and_from_file_exclude_each_other() {
        let r = Cli::try_parse_from(["volmnt", "doctor", "pod", "--example", "nfs", "-f", "x"]);
        assert!(r.is_err());
    }
}
