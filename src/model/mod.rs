//! The facts volmnt reasons about. Every collector (saved files today, the live API, a node
//! probe, the rbd CLI) fills these same types, so everything after collection is pure and can be
//! tested without a cluster.

pub mod cluster;
pub mod node;
pub mod report;

use k8s_openapi::api::core::v1::{Node, PersistentVolume, PersistentVolumeClaim, Pod};
use k8s_openapi::api::storage::v1::{CSIDriver, CSINode, StorageClass, VolumeAttachment};
use serde::{Deserialize, Serialize};

/// Which kind of input a fact was read from; quoted next to evidence so the operator can find it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum Origin {
    /// The Events table of `kubectl describe`.
    Describe,
    /// A `kubectl get events` table, including the 1.5-era layout.
    EventTable,
    /// A core/v1 Event object (JSON/YAML).
    CoreV1,
    /// An events.k8s.io/v1 Event object (JSON/YAML).
    EventsV1,
    /// A kubelet (klog) log line.
    KubeletLog,
    /// Text given as is (`volmnt explain`, or a file that matched no other format).
    #[default]
    Raw,
    /// The live API (filled by the cluster collector).
    Api,
}

impl Origin {
    pub fn label(self) -> &'static str {
        match self {
            Origin::Describe => "describe",
            Origin::EventTable => "event table",
            Origin::CoreV1 => "event",
            Origin::EventsV1 => "event (events.k8s.io/v1)",
            Origin::KubeletLog => "kubelet log",
            Origin::Raw => "message",
            Origin::Api => "api",
        }
    }
}

/// A reference to the object an event is about.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ObjectRef {
    pub kind: Option<String>,
    pub namespace: Option<String>,
    pub name: Option<String>,
    pub uid: Option<String>,
}

/// One Kubernetes event, whatever layout or API version it was read from.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Event {
    /// `Warning` or `Normal` (the event's `type`).
    pub kind: Option<String>,
    pub reason: String,
    pub message: String,
    /// Who reported it, as kubectl prints it: `kubelet, node1`, `attachdetach-controller`.
    pub source: Option<String>,
    /// The node named by the source (`kubelet, node1` → `node1`; `{kubelet 10.46.181.146}`).
    pub source_host: Option<String>,
    pub count: Option<u32>,
    /// Age or timestamp text as printed (`8m49s`, `3s (x4 over 9s)`, RFC 3339).
    pub age: Option<String>,
    /// When it was first and last seen (Unix seconds), when the input carries timestamps
    /// (event objects do; describe and `get events` tables print only ages).
    #[serde(default)]
    pub first_seen: Option<i64>,
    #[serde(default)]
    pub last_seen: Option<i64>,
    pub object: Option<ObjectRef>,
    pub origin: Origin,
    /// Which input it was read from (1 for the first file given, ...; 0 when read live): the
    /// failures pasted without an object belong to the pod of the first input that has some
    /// (diagnose/scope.rs).
    #[serde(skip)]
    pub input: u32,
}

impl Event {
    pub fn is_warning(&self) -> bool {
        self.kind.as_deref() == Some("Warning")
    }
}

/// One kubelet log line in klog format, plain or with a journalctl/syslog prefix.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LogLine {
    /// 1-based line number in the input.
    pub line_no: usize,
    /// klog severity letter: I, W, E or F.
    pub severity: Option<char>,
    /// `0216 13:59:27.380007` as printed (klog has no year).
    pub timestamp: Option<String>,
    pub pid: Option<u32>,
    /// `reconciler.go:294`
    pub location: Option<String>,
    /// Host name from a journalctl/syslog prefix, when present.
    pub host: Option<String>,
    /// The text after the klog header.
    pub message: String,
    /// Which input it was read from (see [`Event::input`]).
    #[serde(skip)]
    pub input: u32,
}

/// How the node's kernel log lines are labelled among a case's [`RawMessage`]s
/// (`kernel log of node worker-1, line 3`).
pub const KERNEL_LOG_LABEL: &str = "kernel log of node";

/// A free-standing message: argument of `volmnt explain`, or text that matched no known format.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RawMessage {
    /// Where it came from, e.g. `argument 1`, `stdin`, `events.txt`.
    pub label: String,
    pub text: String,
    /// Which input it was read from (see [`Event::input`]).
    #[serde(skip)]
    pub input: u32,
}

/// An advisory lock on an RBD image, from `rbd lock ls` (text or JSON).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RbdLock {
    /// Lock id (`kubelet_lock_magic_node1`).
    pub id: String,
    /// Locker entity (`client.24128`).
    pub locker: String,
    /// Locker address (`10.47.136.60:0/1864102866`).
    pub address: String,
    /// `exclusive` or `shared`, when the listing says.
    pub lock_type: Option<String>,
    /// The tag of shared locks.
    pub tag: Option<String>,
}

/// A watcher on an RBD image header, from `rbd status`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RbdWatcher {
    /// `127.0.0.1:0/110396212`
    pub address: String,
    /// `client.4181`
    pub client: Option<String>,
    pub cookie: Option<u64>,
}

/// What is known about one RBD image's holders.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RbdImageState {
    /// `pool/image` (or `pool/namespace/image`) when the input names it.
    pub image: Option<String>,
    pub locks: Vec<RbdLock>,
    /// `None` when watchers were not read; `Some(vec![])` when read and empty.
    pub watchers: Option<Vec<RbdWatcher>>,
    /// `exclusive` / `shared` from the text listing header, if any.
    pub lock_kind: Option<String>,
    /// Each holder judged against the cluster (`volmnt rbd` / doctor's RBD hook), when it was.
    pub judged: Vec<HolderJudgement>,
}

/// One lock or watch holder mapped to its node and pods, with a verdict.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct HolderJudgement {
    /// `lock kubelet_lock_magic_node1 (client.24128) at 10.47.136.60:0/1864102866`.
    pub what: String,
    pub node: Option<String>,
    /// Pods on that node that use the image.
    pub pods: Vec<String>,
    /// `live`, `stale` or `unknown`.
    pub verdict: String,
    pub reason: String,
}

/// A read the API refused (403), said as the RBAC rule that would have allowed it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Denied {
    /// `get`, `list`, `watch`.
    pub verb: String,
    /// The resource, with its API group when it has one (`events.events.k8s.io`).
    pub resource: String,
    /// `None` for a cluster-scoped read (or a list across all namespaces).
    pub namespace: Option<String>,
    /// A read the diagnosis can do without (Secret existence: its role is optional). It is a
    /// note in the report, not a partial result.
    #[serde(default)]
    pub optional: bool,
}

impl Denied {
    pub fn new(verb: &str, resource: &str, namespace: Option<&str>) -> Denied {
        Denied {
            verb: verb.to_string(),
            resource: resource.to_string(),
            namespace: namespace.map(str::to_string),
            optional: false,
        }
    }

    /// The resource without its group (`events.events.k8s.io` → `events`).
    pub fn plain_resource(&self) -> &str {
        self.resource.split('.').next().unwrap_or(&self.resource)
    }

    /// Read back `list events in namespace x` / `get nodes (cluster scope)` (saved cases from
    /// before the structured form).
    pub fn parse(s: &str) -> Option<Denied> {
        let mut words = s.split_whitespace();
        let verb = words.next()?;
        let resource = words.next()?;
        let rest: Vec<&str> = words.collect();
        let namespace = match rest.as_slice() {
            ["in", "namespace", ns] => Some(ns.to_string()),
            _ => None,
        };
        Some(Denied {
            verb: verb.into(),
            resource: resource.into(),
            namespace,
            optional: false,
        })
    }
}

impl std::fmt::Display for Denied {
    /// `list events in namespace ops-test`, `get persistentvolumes (cluster scope)`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.namespace {
            Some(ns) => write!(f, "{} {} in namespace {ns}", self.verb, self.resource),
            None => write!(f, "{} {} (cluster scope)", self.verb, self.resource),
        }
    }
}

/// Everything collected about one stuck pod (or one set of messages).
#[derive(Debug, Clone, Default)]
pub struct Case {
    /// Pod name asked for on the command line.
    pub pod_name: Option<String>,
    pub namespace: Option<String>,
    /// The pod, from `get -o yaml|json`, the API, or rebuilt from `describe`.
    pub pod: Option<Pod>,
    /// Which input the pod object was read from (see [`Event::input`]; 0 when read live).
    pub pod_input: u32,
    pub events: Vec<Event>,
    pub logs: Vec<LogLine>,
    pub messages: Vec<RawMessage>,
    pub pvcs: Vec<PersistentVolumeClaim>,
    pub pvs: Vec<PersistentVolume>,
    pub storage_classes: Vec<StorageClass>,
    pub csi_drivers: Vec<CSIDriver>,
    pub volume_attachments: Vec<VolumeAttachment>,
    pub nodes: Vec<Node>,
    /// Pods other than the one being diagnosed (e.g. others using the same claim).
    pub other_pods: Vec<Pod>,
    pub rbd: Vec<RbdImageState>,
    /// The CSINode of the pod's node (which CSI drivers registered there).
    pub csi_nodes: Vec<CSINode>,
    /// Objects the API confirmed do not exist (404), e.g. a claim or a ConfigMap the pod names.
    pub missing: Vec<ObjectRef>,
    /// Reads the API refused.
    pub denied: Vec<Denied>,
    /// ConfigMaps known to exist (names only; their data is never read).
    pub configmaps: Vec<String>,
    /// Secrets known to exist (names only; their data is never read or kept).
    pub secrets: Vec<String>,
    /// What collection could not do or skipped, said plainly (shown in the report).
    pub notes: Vec<String>,
    /// One line per input read, saying what it was recognised as.
    pub inputs: Vec<String>,
    /// What the node probe found on the pod's node, when it was run.
    pub node_facts: Option<NodeFacts>,
    /// DaemonSets of CSI node plugins (desired and ready counts per node decide whether the
    /// plugin runs on the pod's node).
    pub daemonsets: Vec<k8s_openapi::api::apps::v1::DaemonSet>,
    /// The pod's owners up the chain (ReplicaSet, Deployment, StatefulSet): a Deployment's
    /// RollingUpdate with a ReadWriteOnce claim explains a Multi-Attach.
    pub workloads: Vec<Workload>,
    /// Log lines of the CSI node plugin on the pod's node about this pod's volumes, with the
    /// container they came from.
    pub plugin_logs: Vec<PluginLogLine>,
    /// When the facts were read (Unix seconds): now for a live read, the saved time for a case
    /// written by `--save`. Ages are measured from it, so a replay reads as the live run did.
    pub captured_at: Option<i64>,
    /// Evidence about the cluster that could not be gathered, and why (`node plugin logs of
    /// kube-system/ebs-csi-node-x7k2p: not allowed (get pods/log in namespace kube-system)`,
    /// `kubelet log query on node-3: the kubelet has enableSystemLogQuery off`), so the report
    /// can say what is missing instead of skipping it silently. Not a refused read of
    /// what the diagnosis needs (that is `denied`, a partial result).
    pub unavailable: Vec<String>,
    /// `kubectl get` commands an operator pasted that listed nothing (`kubectl get pods -n
    /// kube-system -l app=ebs-csi-node --field-selector spec.nodeName=ip-10-0-7-217...` →
    /// `No resources found`): an empty answer is a fact too (no node plugin pod there).
    pub empty_listings: Vec<String>,
}

/// An owner of the pod as far as its rollout matters.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Workload {
    /// `Deployment`, `ReplicaSet`, `StatefulSet`, `DaemonSet`, `Job`.
    pub kind: String,
    pub namespace: Option<String>,
    pub name: String,
    /// `RollingUpdate` / `Recreate` (Deployment), `RollingUpdate` / `OnDelete` (StatefulSet).
    pub strategy: Option<String>,
    pub replicas: Option<i32>,
    /// `maxSurge` of a Deployment's RollingUpdate, as written (`25%`, `1`, `0`).
    pub max_surge: Option<String>,
}

/// One line a CSI node plugin logged.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PluginLogLine {
    /// `kube-system/ebs-csi-node-x7k2p/ebs-plugin`, or the file it was read from.
    pub source: String,
    pub line: LogLine,
}

impl Case {
    /// A copy of everything but the log lines, for code that has read them already: they can
    /// be most of a case read from a big log.
    pub fn clone_without_logs(&self) -> Case {
        // Every field named, so a new one cannot be forgotten here.
        let Case {
            pod_name,
            namespace,
            pod,
            pod_input,
            events,
            logs: _,
            messages,
            pvcs,
            pvs,
            storage_classes,
            csi_drivers,
            volume_attachments,
            nodes,
            other_pods,
            rbd,
            csi_nodes,
            missing,
            denied,
            configmaps,
            secrets,
            notes,
            inputs,
            node_facts,
            daemonsets,
            workloads,
            plugin_logs,
            captured_at,
            unavailable,
            empty_listings,
        } = self;
        Case {
            pod_name: pod_name.clone(),
            namespace: namespace.clone(),
            pod: pod.clone(),
            pod_input: *pod_input,
            events: events.clone(),
            logs: Vec::new(),
            messages: messages.clone(),
            pvcs: pvcs.clone(),
            pvs: pvs.clone(),
            storage_classes: storage_classes.clone(),
            csi_drivers: csi_drivers.clone(),
            volume_attachments: volume_attachments.clone(),
            nodes: nodes.clone(),
            other_pods: other_pods.clone(),
            rbd: rbd.clone(),
            csi_nodes: csi_nodes.clone(),
            missing: missing.clone(),
            denied: denied.clone(),
            configmaps: configmaps.clone(),
            secrets: secrets.clone(),
            notes: notes.clone(),
            inputs: inputs.clone(),
            node_facts: node_facts.clone(),
            daemonsets: daemonsets.clone(),
            workloads: workloads.clone(),
            plugin_logs: plugin_logs.clone(),
            captured_at: *captured_at,
            unavailable: unavailable.clone(),
            empty_listings: empty_listings.clone(),
        }
    }

    /// The node the pod is (or is to be) on.
    pub fn node_name(&self) -> Option<&str> {
        let from_pod = self
            .pod
            .as_ref()
            .and_then(|p| p.spec.as_ref())
            .and_then(|s| s.node_name.as_deref());
        from_pod.or_else(|| {
            self.events
                .iter()
                .find_map(|e| e.source_host.as_deref().filter(|h| !h.is_empty()))
        })
    }

    /// The Node object of that name, when one was given.
    pub fn node_named(&self, name: &str) -> Option<&Node> {
        self.nodes
            .iter()
            .find(|n| n.metadata.name.as_deref() == Some(name))
    }

    /// The Node object for the pod's node, when one was given.
    pub fn node(&self) -> Option<&Node> {
        let name = self.node_name()?;
        self.nodes
            .iter()
            .find(|n| n.metadata.name.as_deref() == Some(name))
            .or_else(|| {
                // A describe gives `Node: node1/10.10.107.214`; events may name the node by IP.
                self.nodes.iter().find(|n| {
                    n.status
                        .as_ref()
                        .and_then(|s| s.addresses.as_ref())
                        .is_some_and(|a| a.iter().any(|a| a.address == name))
                })
            })
            .or(if self.nodes.len() == 1 {
                self.nodes.first()
            } else {
                None
            })
    }

    pub fn pod_display_name(&self) -> Option<&str> {
        self.pod
            .as_ref()
            .and_then(|p| p.metadata.name.as_deref())
            .or(self.pod_name.as_deref())
    }

    pub fn pod_namespace(&self) -> Option<&str> {
        self.pod
            .as_ref()
            .and_then(|p| p.metadata.namespace.as_deref())
            .or(self.namespace.as_deref())
    }
}

/// One line of a mount table: `/proc/*/mountinfo` (every field) or `mount` output (source,
/// target, type and options only).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MountEntry {
    /// Mount ID (mountinfo only).
    pub id: Option<u64>,
    /// Parent mount ID (mountinfo only).
    pub parent_id: Option<u64>,
    /// `major:minor` of the device (mountinfo only).
    pub major_minor: Option<String>,
    /// The root of the mount within its filesystem (mountinfo only; `/` for a whole filesystem).
    pub root: Option<String>,
    /// Where it is mounted, octal escapes (`\040`) decoded.
    pub mount_point: String,
    /// Per-mount options (`rw,relatime`).
    pub options: Vec<String>,
    /// Optional fields (`shared:5`, `master:1`, `propagate_from:2`, `unbindable`).
    pub optional: Vec<String>,
    /// `nfs`, `ext4`, `fuse.glusterfs`, ...
    pub fstype: String,
    /// `10.20.172.211:/nfs`, `/dev/rbd0`, `tmpfs`.
    pub source: String,
    /// Per-superblock options (mountinfo), or all options for `mount` output.
    pub super_options: Vec<String>,
}

impl MountEntry {
    /// An option set on this mount or its superblock (`ro`, `hard`, `vers=3` by name).
    pub fn has_option(&self, name: &str) -> bool {
        self.options
            .iter()
            .chain(&self.super_options)
            .any(|o| o == name || o.split_once('=').is_some_and(|(k, _)| k == name))
    }

    /// The value of `name=value` among the options, superblock options last.
    pub fn option_value(&self, name: &str) -> Option<&str> {
        self.options
            .iter()
            .chain(&self.super_options)
            .find_map(|o| {
                o.split_once('=')
                    .filter(|(k, _)| *k == name)
                    .map(|(_, v)| v)
            })
    }
}

/// How a kernel module is available on a node.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ModuleState {
    /// In /proc/modules (live only).
    Loaded,
    /// Built into the kernel (modules.builtin).
    Builtin,
    /// A module file exists for the kernel (modules.dep), not loaded now.
    Available,
    /// The module directory was read and it is not there.
    Missing,
}

impl ModuleState {
    pub fn usable(self) -> bool {
        !matches!(self, ModuleState::Missing)
    }
}

/// Mount propagation of a mount, from mountinfo's optional fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Propagation {
    /// `shared:N` (also when it is a slave too).
    Shared,
    /// `master:N` only: receives mounts, does not send them.
    Slave,
    /// No propagation fields.
    Private,
    /// `unbindable`.
    Unbindable,
}

/// `/etc/os-release` fields volmnt uses.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct OsRelease {
    pub id: Option<String>,
    pub id_like: Option<String>,
    pub version_id: Option<String>,
    pub pretty_name: Option<String>,
    pub name: Option<String>,
}

/// What volmnt's probe script found on one node (`parse::probe::parse` fills it).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct NodeFacts {
    /// Probe output format version.
    pub probe_version: u32,
    /// The host root the probe read (`/`, `/host`, or the `--root` directory).
    pub root: Option<String>,
    /// Whether processes and /proc were those of the host itself (not a mounted tree).
    pub live: bool,
    pub hostname: Option<String>,
    pub os: OsRelease,
    /// Kernel release: `uname -r` when live, else what the tree says.
    pub kernel: Option<String>,
    /// Where the kernel release came from (`uname`, `tree:proc`, `tree:lib/modules`).
    pub kernel_source: Option<String>,
    pub arch: Option<String>,
    /// Mount helpers found (`mount.nfs` → `/sbin/mount.nfs`), paths as seen on the host.
    pub helpers: std::collections::BTreeMap<String, String>,
    /// Other tools found (`rbd`, `iscsiadm`, `mkfs.xfs`, `systemd-run`, ...).
    pub tools: std::collections::BTreeMap<String, String>,
    /// Filesystem types the kernel supports now (`/proc/filesystems`); empty when not read.
    pub filesystems: Vec<String>,
    /// Kernel modules of interest and how they are available; empty when not known.
    pub modules: std::collections::BTreeMap<String, ModuleState>,
    /// `Some(false)` when the live kernel has no module support (no /proc/modules): what
    /// /proc/filesystems lacks cannot be loaded.
    pub modules_loadable: Option<bool>,
    /// `None` when not known (not live).
    pub rpc_statd_running: Option<bool>,
    pub rpcbind_running: Option<bool>,
    pub kubelet_running: Option<bool>,
    /// `enforcing`, `permissive` or `disabled`.
    pub selinux: Option<String>,
    /// `live` (from /sys/fs/selinux) or `config` (from /etc/selinux/config).
    pub selinux_source: Option<String>,
    pub mounts: Vec<MountEntry>,
    /// Which file the mount table came from; `None` when there was none.
    pub mounts_source: Option<String>,
    pub kubelet_root: Option<String>,
    /// `flag` (kubelet's --root-dir), `env`, `default`.
    pub kubelet_root_source: Option<String>,
    /// Propagation of the mount holding the kubelet root dir; `None` without a mount table.
    pub kubelet_root_propagation: Option<Propagation>,
    /// Mount point of the mount holding the kubelet root dir.
    pub kubelet_root_mount: Option<String>,
    /// Pod UID directories under `<kubelet-root>/pods`; `None` when not listed.
    pub pod_uids: Option<Vec<String>>,
    /// What the probe could not do (step: message), timeouts included.
    pub errors: Vec<String>,
    /// kubelet's log lines about the pod (its UID, volume or PV names), when asked for.
    #[serde(default)]
    pub kubelet_log: Vec<String>,
    /// The kernel's lines about rbd, nfs, xfs, ext4, cifs, ceph and I/O errors, when asked for.
    #[serde(default)]
    pub kernel_log: Vec<String>,
    /// Where those lines came from (`kubelet: /var/log/syslog`, `kernel: dmesg`).
    #[serde(default)]
    pub log_sources: Vec<String>,
    /// Whether the output ended with the probe's end marker.
    pub complete: bool,
    // --- Evidence for the differential diagnosis (issue 18). Every source of node facts (the
    // probe through any transport, a pasted transcript) fills these same fields; each family
    // says where it came from in `provenance`, and what could not be read in `unavailable`.
    /// The kubelet as it runs on the node: its flavour, root dir and flags.
    #[serde(default)]
    pub kubelet: Option<KubeletInfo>,
    /// `blkid` of the devices the pod's volumes use (and any with a clashing UUID).
    #[serde(default)]
    pub blkid: Vec<BlkidEntry>,
    /// multipathd's maps and the settings that decide which disks it takes.
    #[serde(default)]
    pub multipath: Option<MultipathInfo>,
    /// open-iscsi's state: initiator name, sessions, iscsid.
    #[serde(default)]
    pub iscsi: Option<IscsiInfo>,
    /// `df` of the volume's filesystems.
    #[serde(default)]
    pub df: Vec<DfEntry>,
    /// What NFS servers the pod's volumes name answered from this node.
    #[serde(default)]
    pub nfs_servers: Vec<NfsServerAnswer>,
    /// Packages queried (`dpkg -s`, `rpm -q`, `apk info -e`): name -> version, `None` when not
    /// installed.
    #[serde(default)]
    pub packages: std::collections::BTreeMap<String, Option<String>>,
    /// `kernel.dmesg_restrict` (1: the kernel log needs CAP_SYSLOG).
    #[serde(default)]
    pub dmesg_restrict: Option<bool>,
    /// Fact family (`kernel`, `os`, `kubelet`, `modules`, `helpers`, `kernel_log`, `blkid`,
    /// `mounts`, `multipath`, `iscsi`, `df`, `nfs_servers`, `packages`) -> where it was read
    /// (`node probe (exec pod)`, `file dmesg.txt: dmesg -T`).
    #[serde(default)]
    pub provenance: std::collections::BTreeMap<String, String>,
    /// Evidence that could not be gathered, and why (`kernel log: kernel.dmesg_restrict=1 and
    /// the probe runs without CAP_SYSLOG`).
    #[serde(default)]
    pub unavailable: Vec<String>,
    /// Helpers and tools looked for and NOT found, with where they were looked for and what was
    /// said (`mount.nfs` -> `/sbin/mount.nfs: No such file or directory`). A name in neither
    /// `helpers`/`tools` nor here was not looked for (see [`NodeFacts::helper_state`]).
    #[serde(default)]
    pub helpers_missing: std::collections::BTreeMap<String, String>,
}

impl NodeFacts {
    /// Whether a helper or tool is on the node: `Some(true)` found, `Some(false)` looked for and
    /// not found, `None` not known. The probe searches every program directory for every helper
    /// it knows, so for probe facts a helper it knows that is absent from `helpers` and `tools`
    /// is missing; a pasted transcript says only what it shows (`ls -l /sbin/mount.nfs`).
    pub fn helper_state(&self, name: &str) -> Option<bool> {
        if self.helpers.contains_key(name) || self.tools.contains_key(name) {
            Some(true)
        } else if self.helpers_missing.contains_key(name) {
            Some(false)
        } else {
            None
        }
    }

    /// Record where a fact family was read; a second source of the same family is added to the
    /// first (`file a.txt: dmesg; file b.txt: journalctl -k`). The caller redacts `source`.
    pub fn add_provenance(&mut self, family: &str, source: &str) {
        let source = source.to_string();
        match self.provenance.get_mut(family) {
            Some(old) if old.split("; ").any(|s| s == source) => {}
            Some(old) => {
                old.push_str("; ");
                old.push_str(&source);
            }
            None => {
                self.provenance.insert(family.to_string(), source);
            }
        }
    }

    /// Record a fact that could not be gathered, once.
    pub fn add_unavailable(&mut self, what: impl Into<String>) {
        let what = what.into();
        if !self.unavailable.contains(&what) {
            self.unavailable.push(what);
        }
    }
}

/// The kubelet on a node, as its process, flags and config show it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct KubeletInfo {
    /// `kubeadm`, `microk8s`, `k3s`, `rke`, `rke2`, `k0s`, `openshift`, `kind`, `minikube`,
    /// or `unknown`.
    pub flavour: Option<String>,
    /// `--root-dir` (or the flavour's default).
    pub root_dir: Option<String>,
    /// Runs in a container (RKE's kubelet container, kind's node container, a k3s/rke2
    /// embedded kubelet counts as not containerised).
    pub containerized: Option<bool>,
    /// Its command line flags, secrets redacted (`--root-dir=/var/lib/k0s/kubelet`).
    pub flags: Vec<String>,
    /// `--config` file, when given.
    pub config: Option<String>,
    /// Where the root dir came from: `flag` (`--root-dir`, or a k3s/rke2 `kubelet-arg`), or
    /// `default` (the flavour's documented default).
    #[serde(default)]
    pub root_dir_source: Option<String>,
    /// A containerized kubelet's bind mounts as its runtime shows them (`docker inspect
    /// kubelet`): `SOURCE -> DESTINATION (PROPAGATION)`. The kubelet sees only what is bound.
    #[serde(default)]
    pub container_binds: Vec<String>,
    /// Storage-relevant settings of the `--config` file (KubeletConfiguration) when it was read:
    /// `volumePluginDir`, `enableSystemLogQuery`, ... (KubeletConfiguration has no root dir: it
    /// is a flag only).
    #[serde(default)]
    pub config_settings: std::collections::BTreeMap<String, String>,
}

/// One `blkid` line: `/dev/rbd0: UUID="..." BLOCK_SIZE="512" TYPE="xfs"`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct BlkidEntry {
    pub device: String,
    pub fs_type: Option<String>,
    pub uuid: Option<String>,
    pub label: Option<String>,
    /// Any other tags as printed (`PARTUUID`, `PTTYPE`, `BLOCK_SIZE`).
    pub other: std::collections::BTreeMap<String, String>,
}

/// multipathd's view: `multipath -ll` maps and `multipathd show config` settings.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MultipathInfo {
    pub maps: Vec<MultipathMap>,
    /// `find_multipaths` (`yes`, `no`, `strict`, `greedy`, `smart`).
    pub find_multipaths: Option<String>,
    /// Blacklist entries as written (`devnode "^sd[a-z0-9]+"`, `wwid "..."`, `device IET
    /// VIRTUAL-DISK`).
    pub blacklist: Vec<String>,
    /// Whether multipathd runs.
    pub running: Option<bool>,
    /// `multipath -ll` was read: `maps` are all the maps there are (none, when it printed
    /// nothing).
    #[serde(default)]
    pub listed: bool,
}

/// One `multipath -ll` map.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MultipathMap {
    /// `mpatha` or the WWID when user_friendly_names is off.
    pub name: String,
    pub wwid: Option<String>,
    /// `dm-3`.
    pub dm: Option<String>,
    pub vendor: Option<String>,
    pub product: Option<String>,
    /// The path devices (`sdb`, `sdc`).
    pub paths: Vec<String>,
}

/// open-iscsi on a node.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct IscsiInfo {
    /// From /etc/iscsi/initiatorname.iscsi; `Some("")` when the file has no name.
    pub initiator_name: Option<String>,
    /// `iscsiadm -m session`: (portal, target IQN).
    pub sessions: Vec<(String, String)>,
    pub iscsid_running: Option<bool>,
    /// Whether /etc/iscsi/initiatorname.iscsi exists (`Some(false)`: `cat` said "No such file or
    /// directory"; without it iscsid cannot log in).
    #[serde(default)]
    pub initiator_file_present: Option<bool>,
}

/// One `df` row.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DfEntry {
    pub filesystem: String,
    pub mounted_on: String,
    /// `Use%` (or `IUse%` with `inodes`), 0..100.
    pub use_percent: Option<u8>,
    pub inodes: bool,
}

/// An NFS server as this node sees it (`rpcinfo`, `showmount -e`, a TCP connect).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct NfsServerAnswer {
    pub server: String,
    /// Whether it answered at all (TCP 2049 or rpcbind).
    pub reachable: Option<bool>,
    /// NFS versions rpcbind says it offers (`3`, `4`).
    pub versions: Vec<String>,
    /// `showmount -e`: export path -> clients allowed.
    pub exports: Vec<(String, String)>,
    /// The error the check gave, as printed.
    pub error: Option<String>,
}

/// Whether a pod's volumes are mounted and in use: it runs, or one of its containers (init
/// containers included) has started, which kubelet allows only once every volume is mounted.
/// A pod that has finished (Succeeded/Failed) uses nothing.
/// The status of a Node's Ready condition (`True`, `False`, `Unknown`), when it reports one.
pub fn ready_status(node: &Node) -> Option<&str> {
    node.status
        .as_ref()?
        .conditions
        .as_ref()?
        .iter()
        .find(|c| c.type_ == "Ready")
        .map(|c| c.status.as_str())
}

pub fn is_live(pod: &Pod) -> bool {
    let Some(status) = &pod.status else {
        return false;
    };
    match status.phase.as_deref() {
        Some("Succeeded" | "Failed") => return false,
        Some("Running") => return true,
        _ => {}
    }
    containers_started(pod)
}

/// Whether any container of the pod has started (now or before a restart).
pub fn containers_started(pod: &Pod) -> bool {
    let Some(status) = &pod.status else {
        return false;
    };
    status
        .container_statuses
        .iter()
        .flatten()
        .chain(status.init_container_statuses.iter().flatten())
        .any(|c| {
            c.started == Some(true)
                || c.state
                    .as_ref()
                    .is_some_and(|s| s.running.is_some() || s.terminated.is_some())
                || c.last_state
                    .as_ref()
                    .is_some_and(|s| s.running.is_some() || s.terminated.is_some())
        })
}
