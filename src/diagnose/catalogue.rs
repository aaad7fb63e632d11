//! The catalogue, plain data at the bottom of diagnose: `knowledge.yaml` (the causes, their
//! patterns and steps, the OS package map, the differential's evidence and suspect rules) loaded
//! once, from what build.rs made of it, and checked. What runs the patterns over a message is the
//! classifier's (matcher.rs); what applies the evidence rules is evidence.rs.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::LazyLock;

use regex::Regex;
use serde::{Deserialize, Serialize};

use super::literals::{literal_needs, Need};
use super::os::{ClientDef, OsDef, OsFields, OsKnowledge, PackageManagerDef};
use crate::model::report::{ActsAt, StepKind};

/// The knowledge file, embedded so the binary needs nothing beside it.
pub const KNOWLEDGE_YAML: &str = include_str!("knowledge.yaml");

/// The same document as JSON, and each pattern's literal needs, made by build.rs from
/// knowledge.yaml: parsing YAML and analysing 300 regexes on every start was half of a
/// `doctor pod`'s CPU time.
const KNOWLEDGE_JSON: &str = include_str!(concat!(env!("OUT_DIR"), "/knowledge.json"));
const PATTERN_NEEDS_JSON: &str = include_str!(concat!(env!("OUT_DIR"), "/pattern-needs.json"));

/// A need as build.rs writes it: a literal is a string, `{"all": [...]}` and `{"any": [...]}`
/// the rest.
fn need_from_json(v: &serde_json::Value) -> Option<Need> {
    let list = |v: &serde_json::Value| -> Option<Vec<Need>> {
        v.as_array()?.iter().map(need_from_json).collect()
    };
    match v {
        serde_json::Value::String(l) => Some(Need::Lit(l.clone())),
        serde_json::Value::Object(m) => match (m.get("all"), m.get("any")) {
            (Some(a), None) => Some(Need::All(list(a)?)),
            (None, Some(a)) => Some(Need::Any(list(a)?)),
            _ => None,
        },
        _ => None,
    }
}

/// The precomputed needs of `patterns`, each only where build.rs saw the same pattern at the
/// same place (a file changed since would otherwise lend one pattern another's literals).
fn precomputed_needs(patterns: &[String]) -> Vec<Option<Need>> {
    let list: Vec<serde_json::Value> = serde_json::from_str(PATTERN_NEEDS_JSON).unwrap_or_default();
    patterns
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let e = list.get(i)?;
            (e["match"].as_str() == Some(p.as_str()))
                .then(|| need_from_json(&e["need"]))
                .flatten()
        })
        .collect()
}

/// Filesystem family of a volume, the context that tells look-alike messages apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum FsFamily {
    Nfs,
    Cifs,
    Glusterfs,
    Cephfs,
    Block,
    #[default]
    Unknown,
}

impl FsFamily {
    pub fn as_str(self) -> &'static str {
        match self {
            FsFamily::Nfs => "nfs",
            FsFamily::Cifs => "cifs",
            FsFamily::Glusterfs => "glusterfs",
            FsFamily::Cephfs => "cephfs",
            FsFamily::Block => "block",
            FsFamily::Unknown => "unknown",
        }
    }
}

/// One remediation or confirmation step as written in the knowledge file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StepDef {
    pub text: String,
    #[serde(default)]
    pub command: Option<String>,
    /// Name of a client in `clients` (or `{client}`): rendered as the OS's install command.
    #[serde(default)]
    pub install: Option<String>,
    /// The step can do harm if the premise is wrong; the report says so.
    #[serde(default)]
    pub confirm_first: bool,
    /// A volmnt feature the step's command needs; the step is left out while it is not built
    /// (see `steps::AVAILABLE`).
    #[serde(default)]
    pub requires: Option<String>,
    /// Only when all these names are known in this case (e.g. `lock_id`).
    #[serde(default)]
    pub when: Vec<String>,
    /// Only when none of these names is known.
    #[serde(default)]
    pub unless: Vec<String>,
    /// What the step does (default: `check` in `confirm`, `change` in `remediation`).
    #[serde(default)]
    pub kind: Option<StepKind>,
    /// For a destructive step: what it can destroy, said plainly ({names} filled in).
    #[serde(default)]
    pub destroys: Option<String>,
    /// What the step acts on, for the safety check: `pod`, `volume_attachment`, `rbd_lock`,
    /// `ceph_client`, `device` (each built from the case's names, see `steps::targets`).
    #[serde(default)]
    pub acts_on: Vec<String>,
    /// A step the engine expands itself: `restart_pod` (delete it when a controller recreates
    /// it; otherwise say kubelet retries and how to recreate a bare pod safely).
    #[serde(default)]
    pub action: Option<String>,
    /// Only for volumes of these filesystem families (alternatives must fit the volume type).
    #[serde(default)]
    pub families: Option<Vec<FsFamily>>,
    /// The step only prepares the next destructive step (its backup or its own check): left
    /// out when that step is withheld.
    #[serde(default)]
    pub prepares: bool,
    /// OS-specific forms: the first whose `when` fits the node's OS replaces the text and the
    /// command (or drops the step, with `skip`).
    #[serde(default)]
    pub variants: Vec<VariantDef>,
    /// A service to act on, rendered for the node's init system.
    #[serde(default)]
    pub service: Option<ServiceDef>,
    /// Where the step is done (`node`, `cluster`, `storage`: the array, the NFS server, Ceph,
    /// the cloud's API). Required for a step without a command; otherwise read from the
    /// command (`steps::acts_at`).
    #[serde(default)]
    pub at: Option<ActsAt>,
}

/// `explain_when:` one explanation for the cases that know `when`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExplainWhen {
    pub when: Vec<String>,
    pub text: String,
}

/// One OS-specific form of a step.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VariantDef {
    /// OS attribute → accepted values (`init: [openrc]`, `security: [apparmor]`, `os: [talos]`,
    /// `os: [unknown]` for a node whose OS is not known). All keys must fit.
    pub when: BTreeMap<String, Vec<String>>,
    #[serde(default)]
    pub text: Option<String>,
    #[serde(default)]
    pub command: Option<String>,
    /// The step does not apply to this OS.
    #[serde(default)]
    pub skip: bool,
}

/// `service: {name: statd, action: start}`: `name` is a logical service (`services:` of the
/// node's OS maps it to the unit or OpenRC service).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ServiceDef {
    pub name: String,
    /// `start`, `restart`, `reload`, `enable` (start now and at boot) or `status`.
    pub action: String,
}

/// How to find a name a command needs when the case does not give it (`lookups:`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LookupDef {
    /// How the name reads in a sentence when it is not known (`the pod's node`).
    #[serde(default)]
    pub label: Option<String>,
    pub text: String,
    #[serde(default)]
    pub command: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PatternDef {
    #[serde(rename = "match")]
    pub regex: String,
    #[serde(default)]
    pub fs: Option<Vec<FsFamily>>,
    #[serde(default)]
    pub not_fs: Option<Vec<FsFamily>>,
    #[serde(default)]
    pub not: Option<String>,
    pub confidence: f64,
    #[serde(default)]
    pub symptom: bool,
    /// Only counts when the mount options include one outside the known lists.
    #[serde(default)]
    pub unusual_options: bool,
    /// Look-alikes: causes the same words are printed for (from the sources). Each is offered
    /// beside this pattern's cause, a little lower, so the confirm steps can tell them apart;
    /// a pattern with look-alikes stays under 0.8 (checked when the catalogue is loaded).
    #[serde(default)]
    pub also: Vec<String>,
}

/// One cause: what it is, how to confirm it, what to run, how to recognise it.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CauseDef {
    pub id: String,
    pub title: String,
    /// The filesystem family the cause belongs to, when it belongs to one.
    #[serde(default)]
    pub fs: Option<FsFamily>,
    pub explain: String,
    /// A more precise explanation when the case knows these names (the first whose `when`
    /// names are all known replaces `explain`).
    #[serde(default)]
    pub explain_when: Vec<ExplainWhen>,
    #[serde(default)]
    pub confirm: Vec<StepDef>,
    #[serde(default)]
    pub remediation: Vec<StepDef>,
    #[serde(default)]
    pub sources: Vec<String>,
    #[serde(default)]
    pub patterns: Vec<PatternDef>,
    /// Causes this one is a consequence of: when one of them is also found, this finding is
    /// folded under it (an attach timeout caused by Multi-Attach) instead of ranked as a rival.
    #[serde(default)]
    pub consequence_of: Vec<String>,
    /// A symptom cause: it says *that* a volume is stuck, not why (a kubelet timeout).
    #[serde(default)]
    pub symptom: bool,
    /// The object at the root of the cause, as a template (`CSI driver {driver}`).
    #[serde(default)]
    pub root: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct Knowledge {
    package_managers: BTreeMap<String, PackageManagerDef>,
    clients: BTreeMap<String, ClientDef>,
    os_families: BTreeMap<String, OsFields>,
    operating_systems: Vec<OsDef>,
    mount_options: BTreeMap<String, Vec<String>>,
    plugin_families: BTreeMap<String, FsFamily>,
    csi_driver_families: Vec<DriverFamilyDef>,
    lookups: BTreeMap<String, LookupDef>,
    causes: Vec<CauseDef>,
    #[serde(default)]
    evidence: Vec<EvidenceRule>,
    #[serde(default)]
    suspects: Vec<SuspectRule>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct DriverFamilyDef {
    #[serde(rename = "match")]
    regex: String,
    fs: FsFamily,
}

/// A pattern: which cause it points at. Its regex and its veto are compiled by the pattern scan
/// (matcher.rs) only when first needed, so start-up compiles neither.
#[derive(Debug, Clone)]
pub struct Pattern {
    pub cause: usize,
    pub def: PatternDef,
}

/// One fact a rule tests, as written in the knowledge (one key).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "snake_case")]
pub enum FactDef {
    /// A line of the node's kernel log (probe, pasted dmesg / journalctl -k) matches.
    KernelLog(String),
    /// A line a CSI node plugin logged about the pod's volumes matches.
    PluginLog(String),
    /// A kubelet log line matches (the node's journal, a pasted kubelet log).
    KubeletLog(String),
    /// The kubelet's root dir is not /var/lib/kubelet (its flags, its flavour's default).
    KubeletRootElsewhere(bool),
    /// The node's kernel release is older than this (`4.17`).
    KernelOlderThan(String),
    /// The kernel cannot have this module (or the `{module}` a message names): not in its
    /// modules, or modules cannot be loaded at all and its filesystem is not built in.
    ModuleUnavailable(String),
    /// The CSI node plugin of the pod's driver has no pod on the pod's node.
    PluginNotOnNode(bool),
    /// The CSI node plugin's pod on the pod's node is not ready (or restarts).
    PluginNotReady(bool),
    /// The node plugin runs and is ready on the node, yet CSINode does not list the driver.
    PluginRunsUnregistered(bool),
    /// The pod's Deployment rolls out with RollingUpdate while its claim is ReadWriteOnce.
    RollingUpdateRwo(bool),
    /// A node that holds the volume (another pod's, the VolumeAttachment's) is NotReady.
    HolderNotReady(bool),
    /// A VolumeAttachment of one of the pod's PVs is being deleted (deletionTimestamp set, its
    /// finalizer not yet removed): a detach that has not finished. `here`: on the pod's node;
    /// `elsewhere`: on another node.
    VaDeleting(String),
    /// The pod's node has as many volumes of the pod's CSI driver attached (its status'
    /// volumesAttached) as CSINode allows it (`allocatable.count`).
    AttachLimitReached(bool),
    /// The NFS server did not answer from the node.
    NfsUnreachable(bool),
    /// The NFS server answered but offers no NFS version the mount asked for.
    NfsVersionMissing(bool),
    /// blkid: the device's UUID is the UUID of a filesystem already mounted on the node.
    BlkidUuidClash(bool),
    /// blkid -p: the device holds no filesystem signature.
    BlkidNoFilesystem(bool),
    /// blkid: the device holds a partition table (PTTYPE).
    BlkidPartitionTable(bool),
    /// blkid: the pod's device holds a filesystem, and not of this type (`xfs`).
    BlkidFsNot(String),
    /// The PV's or the StorageClass's mountOptions match.
    MountOption(String),
    /// open-iscsi has no initiator name on the node.
    IscsiNoInitiator(bool),
    /// iscsid is not running on the node.
    IscsidDown(bool),
    /// multipathd made a map of the pod's device (it appears among a map's paths).
    MultipathHoldsDevice(bool),
    /// SELinux is enforcing on the node.
    SelinuxEnforcing(bool),
    /// The node's OS (os-release or the Node's osImage) matches.
    Os(String),
    /// A mount helper is known missing on the node (looked for and not found) that this
    /// failure needs: the helper of the failing mount's filesystem, or a program a pasted
    /// transcript shows missing (the probe looks for every helper, and a node lacks most of them; what an
    /// operator chose to show is the one the ticket is about). `nfs`: mount.nfs / mount.nfs4
    /// (the NFS client, a cause of its own); `other`: any other program.
    HelperMissing(String),
}

/// `evidence:` one rule of the differential.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EvidenceRule {
    pub id: String,
    /// `{kernel_log: REGEX}`: one key, the fact's kind.
    #[serde(with = "serde_yaml::with::singleton_map")]
    pub fact: FactDef,
    /// The causes this fact bears on (the candidates of one message family): the rule applies
    /// only when one of them is a finding. `unknown` stands for a failure no message explained:
    /// the rule's `supports` is then offered as the suspect (created at `to`).
    #[serde(rename = "for")]
    pub for_causes: Vec<String>,
    /// This cause is the one: raised to at least 0.96 and marked as settled by the fact; the
    /// other candidates of `for` are ruled out (but those in `keeps`).
    #[serde(default)]
    pub settles: Option<String>,
    #[serde(default)]
    pub keeps: Vec<String>,
    /// Made more likely: raised to at least `to` (offered at `to` when no message named it).
    #[serde(default)]
    pub supports: Option<String>,
    #[serde(default)]
    pub to: Option<f64>,
    /// Contradicted by the fact.
    #[serde(default)]
    pub rules_out: Vec<String>,
    /// The kinds of storage the fact bears on (`block`, `nfs`, `cifs`, `cephfs`, `glusterfs`,
    /// `rbd`, `iscsi`; `any`): the rule applies only when the failing volume is of one of them,
    /// or when what the volume is cannot be told (a pasted message alone). A node without nfs
    /// in its kernel says nothing about a pod whose XFS disk does not mount. `csi`: only when a
    /// failing volume is a CSI one (or none is known to be in-tree). Every rule states it.
    pub kinds: Vec<String>,
    /// Who mounts the volumes the fact bears on: `kubelet` (in-tree and FlexVolume plugins:
    /// the host's mount helpers) and/or `plugin` (a CSI node plugin, from its own container). A
    /// rule for the kubelet's mounts alone never applies to a volume known to be CSI.
    pub mounted_by: Vec<Mounter>,
    /// What the fact is about; only a fact about the pod's own device, server, driver or
    /// claim, or one no other cause explains (`kind`), settles or rules out: a `node` fact
    /// (general) only supports.
    pub about: About,
    /// Where the rule comes from (the code that prints the fact, a manual).
    #[serde(default)]
    pub sources: Vec<String>,
}

/// Who mounts a volume on the node.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Mounter {
    /// The kubelet's in-tree (or FlexVolume) plugin, with the host's mount helpers.
    Kubelet,
    /// A CSI node plugin, from its own container.
    Plugin,
}

/// What an evidence rule's fact is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum About {
    /// The pod's block device (or RBD image).
    Device,
    /// The pod's NFS (or SMB) server.
    Server,
    /// The pod's CSI driver on the pod's node.
    Driver,
    /// The pod's claim, its PV and what holds it.
    Claim,
    /// The node cannot mount any volume of the pod's kind (its kernel lacks the filesystem):
    /// only this cause explains it.
    Kind,
    /// A general fact of the node: supports, never settles or rules out.
    Node,
}

impl About {
    /// Whether a fact of this kind may settle or rule out when it holds for the pod's own
    /// object (`specific`, as the fact's test found it).
    pub fn decides(self, specific: bool) -> bool {
        match self {
            About::Kind => true,
            About::Node => false,
            _ => specific,
        }
    }
}

/// The storage kinds an evidence or suspect rule may name.
pub const RULE_KINDS: &[&str] = &[
    "any",
    "block",
    "nfs",
    "cifs",
    "cephfs",
    "glusterfs",
    "rbd",
    "iscsi",
    "csi",
];

/// Rules checked when the catalogue loads: every cause they name exists, every regex compiles.
pub fn check_evidence(rules: &[EvidenceRule], causes: &BTreeSet<&str>) -> Result<(), String> {
    for r in rules {
        let names = r
            .for_causes
            .iter()
            .chain(r.settles.iter())
            .chain(r.supports.iter())
            .chain(&r.rules_out)
            .chain(&r.keeps);
        for c in names {
            if !causes.contains(c.as_str()) {
                return Err(format!("evidence {}: unknown cause {c}", r.id));
            }
        }
        if r.settles.is_none() && r.supports.is_none() && r.rules_out.is_empty() {
            return Err(format!(
                "evidence {}: settles, supports or rules out nothing",
                r.id
            ));
        }
        if r.kinds.is_empty() || r.kinds.iter().any(|k| !RULE_KINDS.contains(&k.as_str())) {
            return Err(format!(
                "evidence {}: kinds must name the storage it bears on, from {RULE_KINDS:?}",
                r.id
            ));
        }
        if r.mounted_by.is_empty() {
            return Err(format!(
                "evidence {}: mounted_by must say whose mounts it bears on",
                r.id
            ));
        }
        // A host helper bears on what the kubelet mounts with it, never on a CSI plugin's.
        if matches!(r.fact, FactDef::HelperMissing(_)) && r.mounted_by != [Mounter::Kubelet] {
            return Err(format!(
                "evidence {}: a host helper bears on the kubelet's own mounts only",
                r.id
            ));
        }
        if let FactDef::KernelLog(re)
        | FactDef::PluginLog(re)
        | FactDef::KubeletLog(re)
        | FactDef::MountOption(re)
        | FactDef::Os(re) = &r.fact
        {
            Regex::new(re).map_err(|e| format!("evidence {}: {e}", r.id))?;
        }
    }
    Ok(())
}

/// `suspects:` the causes a symptom can stand for when nothing names one. A repeated symptom
/// outlives the messages that said why (events expire after an hour; kubelet's "timed out
/// waiting for the condition" or a bare "exit status 32" repeats for days): the usual causes
/// behind it, for the kind of storage failing, are offered as candidates with the checks that
/// settle them, below the symptom, and the evidence rules can then settle or rule them out.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SuspectRule {
    /// The symptom causes it applies to (each `symptom: true`).
    #[serde(rename = "for")]
    pub for_causes: Vec<String>,
    /// The kinds of storage failing (as in `evidence:`); empty: any, and a case whose kind
    /// cannot be told.
    #[serde(default)]
    pub kinds: Vec<String>,
    /// The candidates, the likeliest first.
    pub causes: Vec<String>,
    /// Why they are suspects, in one sentence for the report.
    pub why: String,
    #[serde(default)]
    pub sources: Vec<String>,
}

/// Check the `suspects:` rules against the causes.
pub fn check_suspects(rules: &[SuspectRule], causes: &[CauseDef]) -> Result<(), String> {
    for r in rules {
        for c in &r.for_causes {
            match causes.iter().find(|d| d.id == *c) {
                Some(d) if d.symptom => {}
                Some(_) => return Err(format!("suspects for {c}: {c} is not a symptom")),
                None => return Err(format!("suspects: unknown cause {c}")),
            }
        }
        for c in &r.causes {
            match causes.iter().find(|d| d.id == *c) {
                Some(d) if !d.symptom => {}
                Some(_) => return Err(format!("suspects: {c} is a symptom, not a cause")),
                None => return Err(format!("suspects: unknown cause {c}")),
            }
        }
        if r.sources.is_empty() {
            return Err(format!("suspects for {:?}: no sources", r.for_causes));
        }
    }
    Ok(())
}

/// The loaded, checked knowledge.
#[derive(Debug)]
pub struct Catalogue {
    pub causes: Vec<CauseDef>,
    pub patterns: Vec<Pattern>,
    /// What each pattern needs in literals (by index, [`literal_needs`]): worked out by build.rs
    /// for the embedded file, and what the pattern scan's prefilter is made of (matcher.rs).
    pub needs: Vec<Need>,
    /// Node operating systems: packages, init, services, security module, shell.
    pub os: OsKnowledge,
    /// The differential: facts of the node and the cluster that tell look-alike causes apart.
    pub evidence: Vec<EvidenceRule>,
    /// The differential's candidates for a symptom nothing explains (`suspects:`).
    pub suspects: Vec<SuspectRule>,
    pub mount_options: BTreeMap<String, Vec<String>>,
    pub plugin_families: BTreeMap<String, FsFamily>,
    pub csi_driver_families: Vec<(Regex, FsFamily)>,
    pub lookups: BTreeMap<String, LookupDef>,
}

/// Check one list of steps: destructive steps say what they destroy and stand after a check
/// and a backup step (`checks_before`: the confirm list already holds a check).
fn check_steps(
    cause: &str,
    list: &[StepDef],
    checks_before: bool,
    what: &str,
) -> Result<(), String> {
    let mut checked = checks_before;
    let mut backed_up = false;
    for s in list {
        if !s.acts_on.iter().all(|t| TARGET_KINDS.contains(&t.as_str())) {
            return Err(format!(
                "{cause}: {what} step {:?}: unknown acts_on {:?}",
                s.text, s.acts_on
            ));
        }
        if let Some(a) = &s.action {
            if a != "restart_pod" {
                return Err(format!("{cause}: unknown action {a}"));
            }
        }
        // Who acts where must be said for a step whose command does not say it.
        if s.command.is_none()
            && s.install.is_none()
            && s.action.is_none()
            && s.service.is_none()
            && s.at.is_none()
        {
            return Err(format!(
                "{cause}: {what} step {:?} has no command: say where it is done (`at: node|cluster|storage`)",
                s.text
            ));
        }
        match s.kind {
            Some(StepKind::Check) => checked = true,
            None if what == "confirm" => checked = true,
            Some(StepKind::Backup) => backed_up = true,
            Some(StepKind::Destructive) => {
                if s.destroys.as_deref().is_none_or(|d| d.trim().is_empty()) {
                    return Err(format!(
                        "{cause}: destructive step {:?} does not say what it destroys",
                        s.text
                    ));
                }
                if !checked || !backed_up {
                    return Err(format!(
                        "{cause}: destructive step {:?} must come after a read-only check and a backup step",
                        s.text
                    ));
                }
                if s.acts_on.is_empty() {
                    return Err(format!(
                        "{cause}: destructive step {:?} does not say what it acts on",
                        s.text
                    ));
                }
            }
            _ => {}
        }
        if s.destroys.is_some() && s.kind != Some(StepKind::Destructive) {
            return Err(format!(
                "{cause}: step {:?} says what it destroys but is not `kind: destructive`",
                s.text
            ));
        }
    }
    Ok(())
}

/// The kinds of object a step may act on (`acts_on:`).
pub const TARGET_KINDS: &[&str] = &[
    "pod",
    "volume_attachment",
    "rbd_lock",
    "ceph_client",
    "device",
    "node",
];

/// The highest confidence a message that fits several causes may give one of them.
pub const LOOKALIKE_MAX: f64 = 0.8;
/// How far below the pattern's own cause its look-alikes are offered.
pub const LOOKALIKE_GAP: f64 = 0.1;

impl Catalogue {
    /// Parse and check a knowledge document. Used once for the embedded file; tests feed others.
    pub fn from_yaml(text: &str) -> Result<Catalogue, String> {
        let k: Knowledge =
            serde_yaml::from_str(text).map_err(|e| format!("knowledge.yaml: {e}"))?;
        Self::from_knowledge(k, false)
    }

    /// The embedded knowledge, from what build.rs made of it (the YAML itself if that failed).
    fn embedded() -> Result<Catalogue, String> {
        match serde_json::from_str::<Knowledge>(KNOWLEDGE_JSON) {
            Ok(k) => Self::from_knowledge(k, true),
            Err(_) => Self::from_yaml(KNOWLEDGE_YAML),
        }
    }

    fn from_knowledge(k: Knowledge, precomputed: bool) -> Result<Catalogue, String> {
        let mut seen = std::collections::HashSet::new();
        let mut patterns = Vec::new();
        for (i, c) in k.causes.iter().enumerate() {
            if !seen.insert(c.id.as_str()) {
                return Err(format!("cause {} is defined twice", c.id));
            }
            if !c
                .id
                .chars()
                .all(|ch| ch.is_ascii_lowercase() || ch == '_' || ch.is_ascii_digit())
            {
                return Err(format!("cause id {} is not snake_case", c.id));
            }
            for p in &c.patterns {
                if !(0.0..=1.0).contains(&p.confidence) {
                    return Err(format!(
                        "{}: confidence {} outside 0..1",
                        c.id, p.confidence
                    ));
                }
                // Syntax only here (cheap); the regexes are compiled on first use. A pattern
                // the set accepts is valid; the veto is parsed to catch a typo at load time.
                if let Some(n) = &p.not {
                    regex_syntax::Parser::new()
                        .parse(n)
                        .map_err(|e| format!("{}: {e}", c.id))?;
                }
                patterns.push(Pattern {
                    cause: i,
                    def: p.clone(),
                });
            }
            for s in c.remediation.iter().chain(&c.confirm) {
                if let Some(client) = &s.install {
                    if client != "{client}" && !k.clients.contains_key(client) {
                        return Err(format!("{}: unknown client {client}", c.id));
                    }
                }
            }
            check_steps(&c.id, &c.confirm, false, "confirm")?;
            check_steps(&c.id, &c.remediation, !c.confirm.is_empty(), "remediation")?;
        }
        for c in &k.causes {
            for p in &c.patterns {
                for other in &p.also {
                    if !seen.contains(other.as_str()) || other == &c.id {
                        return Err(format!("{}: `also` names {other}, not another cause", c.id));
                    }
                }
                if !p.also.is_empty() && p.confidence >= LOOKALIKE_MAX {
                    return Err(format!(
                        "{}: a pattern with look-alikes ({}) cannot tell them apart, so its confidence must stay under {LOOKALIKE_MAX}",
                        c.id,
                        p.also.join(", ")
                    ));
                }
            }
            for other in &c.consequence_of {
                if !seen.contains(other.as_str()) {
                    return Err(format!(
                        "{}: consequence_of names unknown cause {other}",
                        c.id
                    ));
                }
            }
        }
        if !seen.contains("unknown") {
            return Err("the catalogue must define `unknown`".into());
        }
        let regexes: Vec<String> = patterns.iter().map(|p| p.def.regex.clone()).collect();
        let known = if precomputed {
            precomputed_needs(&regexes)
        } else {
            Vec::new()
        };
        let needs = pattern_needs(&regexes, known)?;
        let os = OsKnowledge::build(
            k.package_managers,
            k.clients,
            k.os_families,
            k.operating_systems,
        )?;
        let ids: BTreeSet<&str> = k.causes.iter().map(|c| c.id.as_str()).collect();
        check_evidence(&k.evidence, &ids)?;
        check_suspects(&k.suspects, &k.causes)?;
        Ok(Catalogue {
            evidence: k.evidence,
            suspects: k.suspects,
            causes: k.causes,
            patterns,
            needs,
            os,
            mount_options: k.mount_options,
            plugin_families: k.plugin_families,
            csi_driver_families: k
                .csi_driver_families
                .into_iter()
                .map(|d| Ok((Regex::new(&d.regex).map_err(|e| e.to_string())?, d.fs)))
                .collect::<Result<Vec<_>, String>>()?,
            lookups: k.lookups,
        })
    }

    pub fn cause(&self, id: &str) -> Option<&CauseDef> {
        self.causes.iter().find(|c| c.id == id)
    }

    pub fn cause_index(&self, id: &str) -> Option<usize> {
        self.causes.iter().position(|c| c.id == id)
    }

    /// Filesystem family of a CSI driver, by its name.
    pub fn driver_family(&self, driver: &str) -> FsFamily {
        self.csi_driver_families
            .iter()
            .find(|(re, _)| re.is_match(driver))
            .map(|(_, f)| *f)
            .unwrap_or_default()
    }

    /// Mount options in `options` that neither mount(8) nor the filesystem's man page lists.
    pub fn unusual_options(&self, fstype: &str, options: &[String]) -> Vec<String> {
        let Some(own) = self.mount_options.get(fstype) else {
            // Only judge filesystems whose option list we carry.
            return Vec::new();
        };
        let generic = self.mount_options.get("generic");
        options
            .iter()
            .filter(|o| {
                let name = o.split('=').next().unwrap_or(o);
                let known = |list: &Vec<String>| {
                    list.iter().any(|k| {
                        k == name || (k.ends_with('*') && name.starts_with(&k[..k.len() - 1]))
                    })
                };
                !name.starts_with('<') && !known(own) && !generic.is_some_and(known)
            })
            .cloned()
            .collect()
    }
}

/// What each pattern needs in literals: `known` where build.rs worked it out (by index), the
/// rest worked out now. A pattern that is no regex is refused here, when the catalogue loads.
fn pattern_needs(patterns: &[String], known: Vec<Option<Need>>) -> Result<Vec<Need>, String> {
    let mut known = known.into_iter();
    patterns
        .iter()
        .map(|p| match known.next().flatten() {
            Some(n) => Ok(n),
            None => literal_needs(p).map_err(|e| format!("{p}: {e}")),
        })
        .collect()
}

static CATALOGUE: LazyLock<Catalogue> = LazyLock::new(|| {
    // The embedded file is checked by a unit test; a broken build cannot ship.
    Catalogue::embedded().expect("embedded knowledge.yaml is valid")
});

/// The embedded catalogue.
pub fn catalogue() -> &'static Catalogue {
    &CATALOGUE
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every candidate the differential can name beside another (a pattern's `also`
    /// look-alikes, a symptom's `suspects`) has a check of its own to settle it: a Confirm step
    /// with a command, a service query or a package query, which "To tell them apart" lists.
    #[test]
    fn every_candidate_has_a_check_that_settles_it() {
        let cat = Catalogue::from_yaml(KNOWLEDGE_YAML).unwrap();
        let mut named: Vec<&str> = cat
            .patterns
            .iter()
            .flat_map(|p| p.def.also.iter().map(String::as_str))
            .collect();
        named.extend(
            cat.suspects
                .iter()
                .flat_map(|r| r.causes.iter().map(String::as_str)),
        );
        named.sort_unstable();
        named.dedup();
        let without: Vec<&str> = named
            .into_iter()
            .filter(|id| {
                let def = cat.cause(id).expect("a known cause");
                !def.confirm
                    .iter()
                    .any(|s| s.command.is_some() || s.service.is_some() || s.install.is_some())
            })
            .collect();
        assert!(without.is_empty(), "no check of their own: {without:?}");
    }

    /// What build.rs made of knowledge.yaml (the JSON document, each pattern's literal needs)
    /// loads to the same catalogue as the YAML itself, every need precomputed and equal to the
    /// one computed now.
    #[test]
    fn the_build_time_form_is_the_same_knowledge() {
        let from_yaml = Catalogue::from_yaml(KNOWLEDGE_YAML).unwrap();
        // The JSON form itself loads (embedded() would fall back to the YAML silently).
        if let Err(e) = serde_json::from_str::<Knowledge>(KNOWLEDGE_JSON) {
            panic!("knowledge.json from build.rs does not load: {e}");
        }
        let built = Catalogue::embedded().unwrap();
        assert_eq!(
            format!("{:?}", from_yaml.causes),
            format!("{:?}", built.causes)
        );
        assert_eq!(
            format!("{:?}", from_yaml.evidence),
            format!("{:?}", built.evidence)
        );
        assert_eq!(
            format!("{:?}", from_yaml.suspects),
            format!("{:?}", built.suspects)
        );
        assert_eq!(from_yaml.patterns.len(), built.patterns.len());
        let regexes: Vec<String> = from_yaml
            .patterns
            .iter()
            .map(|p| p.def.regex.clone())
            .collect();
        let known = precomputed_needs(&regexes);
        assert_eq!(known.len(), regexes.len());
        for (re, need) in regexes.iter().zip(&known) {
            assert_eq!(need.as_ref(), Some(&literal_needs(re).unwrap()), "{re}");
        }
        // The prefilter made of either is the same (matcher.rs, the_build_time_needs_make_the_same_prefilter).
        assert_eq!(from_yaml.needs, built.needs);
        // A pattern changed since the build gets its needs computed, not another's.
        let mut moved = regexes.clone();
        moved.swap(0, 1);
        assert!(precomputed_needs(&moved)[..2].iter().all(Option::is_none));
    }

    #[test]
    fn embedded_knowledge_loads_and_has_the_contract_ids() {
        let c = Catalogue::from_yaml(KNOWLEDGE_YAML).unwrap();
        // The ids DESIGN.md and the issue promise; JSON consumers rely on them.
        for id in [
            "nfs_client_missing",
            "fs_helper_missing",
            "nfs_server_unreachable",
            "nfs_access_denied",
            "nfs_export_missing",
            "nfs_version_unsupported",
            "nfs_statd_missing",
            "stale_file_handle",
            "rbd_lock_held",
            "rbd_watcher_stale",
            "multi_attach",
            "attach_timeout",
            "attach_failed_cloud",
            "csi_driver_not_registered",
            "csi_operation_pending",
            "pvc_unbound_or_missing",
            "configmap_or_secret_missing",
            "block_fs_corrupt_or_unformatted",
            "permission_denied_or_selinux",
            "subpath_failure",
            "device_busy",
            "hostpath_type_mismatch",
            "kubelet_dir_or_propagation",
            "readonly_or_io_error",
            "smb_access_denied",
            "smb_share_not_found",
            "gluster_endpoints_missing",
            "invalid_mount_option",
            "xfs_duplicate_uuid",
            "partitioned_disk",
            "fs_features_unsupported_by_kernel",
            "local_path_missing",
            "storage_backend_unreachable",
            "storage_backend_error",
            "volume_not_ready",
            "unknown",
        ] {
            let cause = c.cause(id).unwrap_or_else(|| panic!("missing cause {id}"));
            assert!(!cause.explain.trim().is_empty(), "{id} has no explanation");
            if id != "unknown" {
                assert!(!cause.patterns.is_empty(), "{id} has no pattern");
                assert!(
                    !cause.remediation.is_empty() || !cause.confirm.is_empty(),
                    "{id} says nothing to run"
                );
            }
        }
    }

    #[test]
    fn bad_knowledge_is_refused_with_the_reason() {
        let dup = KNOWLEDGE_YAML.replace("id: fs_helper_missing", "id: nfs_client_missing");
        assert!(Catalogue::from_yaml(&dup).unwrap_err().contains("twice"));
        let bad_re = KNOWLEDGE_YAML.replace("'is host /dev mounted", "'(is host /dev mounted");
        assert!(Catalogue::from_yaml(&bad_re).is_err());
    }

    #[test]
    fn unusual_options_are_those_no_manual_lists() {
        let c = catalogue();
        let opts = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            c.unusual_options("xfs", &opts(&["debug", "defaults"])),
            ["debug"]
        );
        assert!(c
            .unusual_options("ext4", &opts(&["_netdev", "data=ordered", "noatime"]))
            .is_empty());
        assert!(c.unusual_options("nfs", &opts(&["anything"])).is_empty());
    }

    /// `suspects:` names a symptom it applies to and real causes to offer, each sourced.
    #[test]
    fn suspect_rules_are_checked_against_the_causes() {
        let causes = &catalogue().causes;
        let rule = |for_c: &str, c: &str, sources: Vec<String>| SuspectRule {
            for_causes: vec![for_c.into()],
            kinds: vec![],
            causes: vec![c.into()],
            why: "x".into(),
            sources,
        };
        let src = || vec!["a source".to_string()];
        assert!(check_suspects(&[rule("mount_timeout", "attach_timeout", src())], causes).is_ok());
        let e = check_suspects(&[rule("mount_timeout", "mount_failed", src())], causes);
        assert!(e.unwrap_err().contains("is a symptom"));
        let e = check_suspects(
            &[rule("nfs_client_missing", "attach_timeout", src())],
            causes,
        );
        assert!(e.unwrap_err().contains("is not a symptom"));
        let e = check_suspects(&[rule("mount_timeout", "no_such", src())], causes);
        assert!(e.unwrap_err().contains("unknown cause"));
        let e = check_suspects(&[rule("mount_timeout", "attach_timeout", vec![])], causes);
        assert!(e.unwrap_err().contains("no sources"));
    }
}
