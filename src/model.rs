//! The facts volmnt reasons about. Every collector (saved files today, the live API, a node
//! probe, the rbd CLI) fills these same types, so everything after collection is pure and can be
//! tested without a cluster.

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
    pub object: Option<ObjectRef>,
    pub origin: Origin,
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
}

/// A free-standing message: argument of `volmnt explain`, or text that matched no known format.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RawMessage {
    /// Where it came from, e.g. `argument 1`, `stdin`, `events.txt`.
    pub label: String,
    pub text: String,
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

/// Everything collected about one stuck pod (or one set of messages).
#[derive(Debug, Clone, Default)]
pub struct Case {
    /// Pod name asked for on the command line.
    pub pod_name: Option<String>,
    pub namespace: Option<String>,
    /// The pod, from `get -o yaml|json`, the API, or rebuilt from `describe`.
    pub pod: Option<Pod>,
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
    /// Reads the API refused, said as "verb resource in scope" (e.g. `list events in namespace x`).
    pub denied: Vec<String>,
    /// ConfigMaps known to exist (names only; their data is never read).
    pub configmaps: Vec<String>,
    /// Secrets known to exist (names only; their data is never read or kept).
    pub secrets: Vec<String>,
    /// What collection could not do or skipped, said plainly (shown in the report).
    pub notes: Vec<String>,
    /// One line per input read, saying what it was recognised as.
    pub inputs: Vec<String>,
}

impl Case {
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
