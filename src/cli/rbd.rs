//! Arguments of `volmnt rbd status|unlock`.

use clap::{Args, Subcommand};

use super::parse_duration;

#[derive(Debug, Subcommand)]
pub enum RbdCommand {
    /// List an image's locks and watchers, each mapped to a node and its pods, with a verdict
    #[command(visible_alias = "locks", after_help = STATUS_HELP)]
    Status(RbdStatusArgs),
    /// Release an image's stale holders (rbd lock rm / ceph osd blocklist add), after confirmation
    #[command(after_help = UNLOCK_HELP)]
    Unlock(RbdUnlockArgs),
}

const STATUS_HELP: &str = "\
Each holder's address is matched to a Kubernetes node (InternalIP/ExternalIP), and the pods on
that node that use the image (PV -> PVC -> pod) are listed. Verdicts:
  live     a running pod on that node uses the image
  stale    the node is gone, NotReady for more than 5 minutes, or no pod there uses the image
  unknown  could not be judged (no cluster access, a pod there still starting), with the reason

Examples:
  volmnt rbd status kube/pvc-0a1b2c
  volmnt rbd status --pvc data-db-0 -n shop
  volmnt rbd status --pod web-0 -n shop --toolbox rook-ceph/rook-ceph-tools-5d8f

Exit codes:
  0  no stale holder (none at all, or all live)
  1  at least one holder is stale
  2  usage error, or the image, pool, pod or claim does not exist
  3  Ceph could not be reached, or a holder could not be judged (no cluster access)";

const UNLOCK_HELP: &str = "\
Only stale holders are released: `rbd lock rm IMAGE ID LOCKER` for a lock (which blocklists the
locker for an hour unless --no-blocklist), `ceph osd blocklist add ADDR` for a watcher.
A live holder, or one that cannot be judged, is refused unless --force: removing the lock of a
client that still writes lets a second node mount the same filesystem, which corrupts it.
Without --dry-run volmnt asks for confirmation on the terminal (or needs --yes), then lists the
image again to verify that each holder is gone.

Examples:
  volmnt rbd unlock kube/pvc-0a1b2c --dry-run
  volmnt rbd unlock --pvc data-db-0 -n shop

Exit codes:
  0  nothing to do, or every planned command ran and its holder is gone
  1  a holder was refused, not confirmed, or still there afterwards
  2  usage error, or the image, pool, pod or claim does not exist
  3  Ceph or the cluster could not be reached";

/// Which image: named, or found from a pod's or claim's PV.
#[derive(Debug, Args)]
pub struct Target {
    /// The image: pool/image or pool/namespace/image
    #[arg(value_name = "POOL/IMAGE", required_unless_present_any = ["pod", "pvc"], conflicts_with_all = ["pod", "pvc"])]
    pub image: Option<String>,
    /// Find the image from this pod's volumes (its claim's PV, or an inline rbd volume)
    #[arg(long, value_name = "NAME", conflicts_with = "pvc")]
    pub pod: Option<String>,
    /// Find the image from this claim's PV
    #[arg(long, value_name = "NAME")]
    pub pvc: Option<String>,
    /// The namespace of --pod/--pvc (default: the context's)
    #[arg(short = 'n', long)]
    pub namespace: Option<String>,
}

/// How to reach Ceph.
#[derive(Debug, Args)]
pub struct CephArgs {
    /// Ceph config file passed to rbd/ceph as -c (default: theirs, i.e. CEPH_CONF or /etc/ceph/ceph.conf)
    #[arg(long, value_name = "FILE")]
    pub ceph_conf: Option<std::path::PathBuf>,
    /// Ceph user passed to rbd/ceph as --id (e.g. admin)
    #[arg(long, value_name = "NAME")]
    pub id: Option<String>,
    /// Keyring passed to rbd/ceph as --keyring
    #[arg(long, value_name = "FILE")]
    pub keyring: Option<std::path::PathBuf>,
    /// Run rbd/ceph inside this pod (a Rook toolbox) through the exec API instead of locally
    #[arg(long, value_name = "NAMESPACE/POD")]
    pub toolbox: Option<String>,
    /// Give up on an rbd/ceph call after this long
    #[arg(long, value_name = "DURATION", default_value = "30s", value_parser = parse_duration)]
    pub ceph_timeout: std::time::Duration,
}

#[derive(Debug, Args)]
pub struct RbdStatusArgs {
    #[command(flatten)]
    pub target: Target,
    #[command(flatten)]
    pub ceph: CephArgs,
}

#[derive(Debug, Args)]
pub struct RbdUnlockArgs {
    #[command(flatten)]
    pub target: Target,
    #[command(flatten)]
    pub ceph: CephArgs,
    /// Print what would be run and why, and change nothing
    #[arg(long)]
    pub dry_run: bool,
    /// Do not ask: run the plan (still only stale holders, unless --force)
    #[arg(short = 'y', long, conflicts_with = "dry_run")]
    pub yes: bool,
    /// Also release live holders and holders that cannot be judged (risk: a filesystem mounted twice)
    #[arg(long)]
    pub force: bool,
    /// Remove locks without blocklisting the locker (--rbd_blocklist_on_break_lock=false)
    #[arg(long)]
    pub no_blocklist: bool,
}
