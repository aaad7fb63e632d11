//! The report: what every renderer prints and what `-o json|yaml` promises. The contract is
//! written down in `schema/report.schema.json` (tests validate every output against it); it is
//! versioned by [`SCHEMA_VERSION`]. Built by `diagnose`, never by renderers. Every field is
//! always present (empty lists, `null`), so a consumer never has to guess whether a key is
//! missing or empty.

use serde::Serialize;

use crate::model::Denied;

/// Version of the JSON/YAML document. Raised when a field changes meaning or disappears; new
/// fields do not raise it.
pub const SCHEMA_VERSION: u32 = 1;

/// The headline: what the first line says and what decides the exit code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Nothing in the input points at a volume problem (a running pod is OK, whatever
    /// unrelated warnings it has). Exit 0.
    Ok,
    /// A cause was found. Exit 1.
    Stuck,
    /// The pod is stuck on a volume, but the input only shows symptoms (a kubelet timeout) or
    /// messages no rule knows: the report says what to read next. Exit 1.
    Inconclusive,
    /// Some reads were refused: what follows is built from what could be read. Exit 3.
    Partial,
}

impl Status {
    pub fn label(self) -> &'static str {
        match self {
            Status::Ok => "OK",
            Status::Stuck => "STUCK",
            Status::Inconclusive => "INCONCLUSIVE",
            Status::Partial => "PARTIAL",
        }
    }
}

/// What the evidence says about the pod, whether or not some reads were refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Diagnosis {
    Ok,
    Stuck,
    Inconclusive,
}

/// What a step does, which decides where it may stand and how it is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum StepKind {
    /// Reads only (`kubectl get`, `blkid -p`, `fsck -n`).
    Check,
    /// Saves what a later step could lose (a snapshot, the pod's spec).
    Backup,
    /// Changes something that can be undone or that loses nothing (install a package, delete a
    /// pod a controller recreates).
    #[default]
    Change,
    /// Can destroy data or cut a live client off (repairing fsck, lock removal, blocklisting,
    /// deleting a VolumeAttachment). Marked, and only after a check and a backup.
    Destructive,
}

/// Who acts where: a step runs on the pod's node (a shell there, `talosctl`, `oc debug node/`),
/// in the cluster (the Kubernetes API: `kubectl`, `volmnt`), or on the storage system itself
/// (the array, the NFS server, Ceph, the cloud's API: `rbd`, `ceph`, `aws`, `az`, `gcloud`,
/// `exportfs`, the array's console). Steps on the storage system are often another team's: the
/// report marks them apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum ActsAt {
    Node,
    #[default]
    Cluster,
    Storage,
}

impl ActsAt {
    pub fn as_str(self) -> &'static str {
        match self {
            ActsAt::Node => "node",
            ActsAt::Cluster => "cluster",
            ActsAt::Storage => "storage",
        }
    }
}

/// What a step acts on: the safety check (`diagnose::safety`) refuses any step whose target a
/// live workload uses.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Target {
    Pod {
        namespace: String,
        name: String,
    },
    VolumeAttachment {
        name: String,
    },
    /// An advisory lock on an RBD image (`rbd lock remove`).
    RbdLock {
        image: String,
        lock_id: String,
        locker: String,
    },
    /// A Ceph client address (`ceph osd blocklist add`).
    CephClient {
        address: String,
    },
    /// A node as a whole (the out-of-service taint that force-detaches its volumes).
    Node {
        name: String,
    },
    /// A block device or a mount on a node (`fsck -y`, `umount`).
    Device {
        node: Option<String>,
        path: String,
        /// The PV whose device or mount it is, when known.
        volume: Option<String>,
    },
}

/// One step the operator can take.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Step {
    pub text: String,
    /// A command that can be pasted as is; `null` when the step is something to do by hand or
    /// a name it needs is not known (then the text says how to find it).
    pub command: Option<String>,
    pub kind: StepKind,
    /// `kind == destructive`, for consumers that only look at a flag.
    pub destructive: bool,
    /// What it can destroy, said plainly (shown in red beside a destructive step).
    pub destroys: Option<String>,
    /// Do not run before confirming the premise (it can lose data or cut a live client off).
    pub needs_confirmation: bool,
    /// Set on alternatives that apply to one OS family only (when the node's OS is unknown).
    pub os_family: Option<String>,
    /// What the step acts on.
    pub targets: Vec<Target>,
    /// Where it is done: on the node, in the cluster, or on the storage system.
    pub acts_at: ActsAt,
    /// The step only prepares the next destructive one (its backup, its check): left out when
    /// that one is withheld.
    #[serde(skip)]
    pub prepares: bool,
}

impl Step {
    /// A plain step: text, maybe a command, nothing it acts on.
    pub fn new(text: impl Into<String>, command: Option<String>, kind: StepKind) -> Step {
        Step {
            text: text.into(),
            command,
            destructive: kind == StepKind::Destructive,
            kind,
            destroys: None,
            needs_confirmation: false,
            os_family: None,
            targets: Vec::new(),
            acts_at: ActsAt::Cluster,
            prepares: false,
        }
    }

    /// The same step, said to be done at `at`.
    pub fn at(mut self, at: ActsAt) -> Step {
        self.acts_at = at;
        self
    }
}

/// A step volmnt would have offered but did not, and why (a live workload uses its target, the
/// read it needs was just refused, its backup step could not be given). Its command is not
/// carried: nothing should run it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Withheld {
    pub text: String,
    pub reason: String,
}

/// One piece of evidence: a quote from the input or a fact read from an object.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Default)]
pub struct Evidence {
    /// Where it was read: `event`, `kubelet log`, `objects`, `rbd`, `node probe`, `message`.
    pub source: String,
    /// The object or line it is about (`FailedMount from kubelet, node1`, `line 3 (rbd.go:228)`).
    pub object: Option<String>,
    /// When, as kubectl prints it (`8m45s (x5 over 18m)`), or as the input printed it.
    pub time: Option<String>,
    /// The quote (verbatim, clipped) or the fact.
    pub text: String,
    /// True when `text` is quoted from the input; false for a fact volmnt states.
    pub quoted: bool,
    /// For a quoted message: the format strings of the message catalogue that printed it, one
    /// per layer, outermost first (the kubelet's, then the CSI driver's gRPC status, the
    /// driver's, mount's, the kernel's); several for one layer when programs print the same
    /// text. Empty for a fact, or when no format string is known.
    pub printed_by: Vec<PrintedBy>,
}

/// One format string that printed (part of) a message: which program, at which version, where
/// in its source, its layer on the way of a volume to a pod, and what the string means.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Default)]
pub struct PrintedBy {
    /// `kubelet`, `ceph-csi`, `mount (util-linux)`, `grpc-go`, ...
    pub program: String,
    /// The version the catalogue read (a tag, a commit, a Debian version).
    pub version: String,
    /// `file:line` at that version.
    pub at: String,
    /// `kubelet`, `controller`, `sidecar`, `grpc`, `driver`, `mount`, `tool`, `kernel` or
    /// `storage`.
    pub layer: String,
    /// A cause id, `wraps` (a reason from a layer below follows) or `symptom` (says that
    /// something failed, not why).
    pub means: String,
    /// Which layer of the message it printed, 0 the outermost: format strings with the same
    /// index are alternatives for one span (programs that print the same text).
    pub layer_index: usize,
}

impl Evidence {
    /// A fact volmnt read off an object or worked out.
    pub fn fact(source: &str, text: impl Into<String>) -> Evidence {
        Evidence {
            source: source.to_string(),
            text: text.into(),
            ..Evidence::default()
        }
    }

    /// The one-line form in `evidence` and in the text report.
    pub fn line(&self) -> String {
        if !self.quoted {
            return self.text.clone();
        }
        let mut head = self.source.clone();
        if let Some(o) = &self.object {
            head.push(' ');
            head.push_str(o);
        }
        if let Some(t) = &self.time {
            head.push_str(&format!(" ({t})"));
        }
        format!("{head}: \"{}\"", self.text)
    }
}

/// One likely cause, with why we think so and what to do.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Finding {
    /// Stable snake_case id from the catalogue.
    pub cause: String,
    pub title: String,
    /// 0..1, two decimals.
    pub confidence: f64,
    /// The explanation, filled in with this case's names.
    pub summary: String,
    /// Quotes from the inputs and facts from the objects that support this cause, one line each.
    pub evidence: Vec<String>,
    /// The same evidence, structured.
    pub evidence_detail: Vec<Evidence>,
    /// How volmnt got there (which filesystem family, from where): shown in text under `-v`.
    pub reasoning: Vec<String>,
    /// How to confirm it before acting.
    pub confirm: Vec<Step>,
    pub remediation: Vec<Step>,
    /// Steps left out, with the reason.
    pub withheld: Vec<Withheld>,
    /// The object at the root of the cause (`Secret shop/tls`, `CSI driver x`, `node node-3`),
    /// or the cause id when no object is known: what `doctor namespace` groups pods by.
    pub root: String,
    /// What is wrong, with the objects at fault named (`Secret shop/tls does not exist`,
    /// `PersistentVolumeClaim shop/data cannot bind because StorageClass fast does not exist;
    /// classes that exist: ...`): the verdict's first clause; a clause after `; ` says what
    /// to change. `null` when the case does not name them (the title says the cause).
    pub at_fault: Option<String>,
    /// Findings that are consequences of this one (an attach timeout caused by Multi-Attach),
    /// folded here instead of ranked as rivals.
    pub consequences: Vec<String>,
    pub volume: Option<String>,
    /// The fact of the node or the cluster that settled this cause among the causes its
    /// message can mean (`kernel log on node-3 (node probe): XFS (rbd0): Filesystem has
    /// duplicate UUID ...`); `null` when nothing beyond the message has.
    pub settled_by: Option<String>,
    /// Offered as a suspect behind a symptom nothing explains (no message or fact names it;
    /// the usual causes of that symptom for this kind of storage), with why; `null` otherwise.
    pub suspect: Option<String>,
}

/// What the report is about.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Subject {
    /// `pod` or `message`.
    pub kind: String,
    pub name: Option<String>,
    pub namespace: Option<String>,
    pub node: Option<String>,
    pub phase: Option<String>,
    /// `ContainerCreating` and the like.
    pub waiting_reason: Option<String>,
    /// How long the pod has waited, as kubectl prints ages (`18m`), when known.
    pub stuck_for: Option<String>,
    /// The pod's controller (`ReplicaSet/web-7d9f`), `null` for a bare pod or when not known.
    pub controller: Option<String>,
    pub volumes: Vec<String>,
}

/// The node's OS as far as it is known, which decides install commands.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct NodeOs {
    pub os_image: Option<String>,
    /// `rhel`, `debian`, `suse`, `alpine`, `immutable`, or `unknown`.
    pub family: String,
    /// Where the OS came from (`Node node1 status.nodeInfo.osImage`, `--node-os`).
    pub source: Option<String>,
    pub kernel: Option<String>,
    pub kubelet_version: Option<String>,
    /// The OS as volmnt knows it (`ubuntu`, `el7`, `talos`, ...), when the image is known.
    pub os: Option<String>,
    /// `systemd`, `openrc` or `none`, when the OS is known.
    pub init: Option<String>,
    /// `selinux`, `apparmor` or `none`, when the OS is known.
    pub security: Option<String>,
    /// How software gets onto the node: `package`, `transactional`, `rpm-ostree`,
    /// `machine-config`, `extension` or `image`.
    pub delivery: Option<String>,
}

/// A cause the evidence contradicts: not a candidate any more, said once with the reason.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RuledOut {
    pub cause: String,
    pub title: String,
    pub because: String,
}

/// A ranked diagnosis of one pod or one message.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Report {
    pub schema_version: u32,
    /// One line: what is wrong, most likely first.
    pub verdict: String,
    pub status: Status,
    pub diagnosis: Diagnosis,
    pub subject: Subject,
    pub node_os: NodeOs,
    /// Best first.
    pub findings: Vec<Finding>,
    /// Pods this (running) pod keeps waiting: it holds a volume they need.
    pub blocks: Vec<String>,
    /// Failure messages no rule recognised (quoted, so nothing is hidden).
    pub unrecognised: Vec<String>,
    /// Reads the API refused: the report is partial (optional reads are notes instead).
    pub denied: Vec<Denied>,
    /// What could not be read or was skipped.
    /// Causes the evidence rules out (best first as they would have ranked), each with why.
    pub ruled_out: Vec<RuledOut>,
    /// Evidence that could not be gathered, and why (the cluster's and the node's): what the
    /// diagnosis is built without.
    pub unavailable: Vec<String>,
    pub notes: Vec<String>,
    /// What each input was recognised as.
    pub inputs: Vec<String>,
    /// Facts about other pods, volumes, devices or nodes that the input held and the
    /// diagnosis did not use (issue 26), by kind.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub set_aside: Vec<SetAside>,
}

/// Facts of one kind set aside because they are about something else than the pod.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SetAside {
    /// `kubelet log lines`, `events`, `PersistentVolumes`, `kernel log lines`, ...
    pub kind: String,
    pub count: usize,
    /// What they are about, a few of them: `pod vbusy/web-0`, `PV pvc-...`, `device loop2`.
    pub about: Vec<String>,
}

impl Step {
    /// How much it takes to run, for "cheapest first": a read of the API (1), volmnt's own
    /// read-only probe (2), a command on the node (3).
    pub fn cost(&self) -> u8 {
        match self
            .command
            .as_deref()
            .and_then(|c| c.split_whitespace().next())
        {
            Some("kubectl" | "oc") => 1,
            Some("volmnt" | "kubectl-volmnt") => 2,
            _ => 3,
        }
    }
}

impl Finding {
    /// What to run first for this cause anywhere a single step is shown (the fleet summary, a
    /// watch Event): its first read-only check with a command, for this node's OS (never an
    /// alternative for one family when the OS is not known). A change, let alone a destructive
    /// step, is only ever shown in the full report, after its checks and backup.
    pub fn first_step(&self) -> Option<&Step> {
        self.confirm.iter().chain(&self.remediation).find(|s| {
            s.kind == StepKind::Check
                && s.command.is_some()
                && s.os_family.is_none()
                && !s.needs_confirmation
        })
    }
}

impl Report {
    pub fn top(&self) -> Option<&Finding> {
        self.findings.first()
    }
}

/// The finding as likely as the first (within 0.1) when nothing settled the first: the
/// verdict then says "not settled yet", and the fleet summary keeps that caveat.
pub fn unsettled_rival(findings: &[Finding]) -> Option<&Finding> {
    let first = findings.first()?;
    let second = findings.get(1)?;
    (first.settled_by.is_none() && second.confidence >= first.confidence - 0.1).then_some(second)
}
