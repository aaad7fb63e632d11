//! What `volmnt node check` reports: the volume types a node may have to mount, what
//! `--require` accepts, and the per-node verdict (capabilities, requirements, mount-table
//! issues). Built by `diagnose::node_check`, printed by `render::node`.

use std::collections::BTreeMap;
use std::str::FromStr;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::Propagation;

/// A volume type a node may have to mount.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Serialize,
    Deserialize,
    clap::ValueEnum,
)]
#[serde(rename_all = "lowercase")]
pub enum VolumeType {
    Nfs,
    Nfs4,
    Cifs,
    Glusterfs,
    Cephfs,
    Rbd,
    Iscsi,
    Xfs,
    Ext4,
}

impl VolumeType {
    pub const ALL: [VolumeType; 9] = [
        VolumeType::Nfs,
        VolumeType::Nfs4,
        VolumeType::Cifs,
        VolumeType::Glusterfs,
        VolumeType::Cephfs,
        VolumeType::Rbd,
        VolumeType::Iscsi,
        VolumeType::Xfs,
        VolumeType::Ext4,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            VolumeType::Nfs => "nfs",
            VolumeType::Nfs4 => "nfs4",
            VolumeType::Cifs => "cifs",
            VolumeType::Glusterfs => "glusterfs",
            VolumeType::Cephfs => "cephfs",
            VolumeType::Rbd => "rbd",
            VolumeType::Iscsi => "iscsi",
            VolumeType::Xfs => "xfs",
            VolumeType::Ext4 => "ext4",
        }
    }

    /// The client in the catalogue (`clients:` in knowledge.yaml) that brings its tools.
    pub fn client(self) -> &'static str {
        match self {
            VolumeType::Nfs | VolumeType::Nfs4 => "nfs",
            VolumeType::Cifs => "cifs",
            VolumeType::Glusterfs => "glusterfs",
            VolumeType::Cephfs => "cephfs",
            VolumeType::Rbd => "rbd",
            VolumeType::Iscsi => "iscsi",
            VolumeType::Xfs => "xfs",
            VolumeType::Ext4 => "ext4",
        }
    }
}

impl std::fmt::Display for VolumeType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What `--require` accepts: `nfs,rbd,cephfs,iscsi,cifs,glusterfs,xfs,ext4`.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Serialize,
    Deserialize,
    clap::ValueEnum,
)]
#[serde(rename_all = "lowercase")]
pub enum Requirement {
    Nfs,
    Rbd,
    #[value(alias = "ceph")]
    Cephfs,
    Iscsi,
    #[value(alias = "smb")]
    Cifs,
    #[value(alias = "gluster")]
    Glusterfs,
    Xfs,
    Ext4,
}

impl Requirement {
    pub fn volume_type(self) -> VolumeType {
        match self {
            Requirement::Nfs => VolumeType::Nfs,
            Requirement::Rbd => VolumeType::Rbd,
            Requirement::Cephfs => VolumeType::Cephfs,
            Requirement::Iscsi => VolumeType::Iscsi,
            Requirement::Cifs => VolumeType::Cifs,
            Requirement::Glusterfs => VolumeType::Glusterfs,
            Requirement::Xfs => VolumeType::Xfs,
            Requirement::Ext4 => VolumeType::Ext4,
        }
    }

    pub fn as_str(self) -> &'static str {
        self.volume_type().as_str()
    }

    /// A comma-separated list (`nfs,rbd`); duplicates dropped, order kept.
    pub fn parse_list(s: &str) -> Result<Vec<Requirement>, String> {
        let mut out = Vec::new();
        for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let r = part.parse::<Requirement>()?;
            if !out.contains(&r) {
                out.push(r);
            }
        }
        Ok(out)
    }
}

impl FromStr for Requirement {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Ok(match s.trim().to_ascii_lowercase().as_str() {
            "nfs" => Requirement::Nfs,
            "rbd" => Requirement::Rbd,
            "cephfs" | "ceph" => Requirement::Cephfs,
            "iscsi" => Requirement::Iscsi,
            "cifs" | "smb" => Requirement::Cifs,
            "glusterfs" | "gluster" => Requirement::Glusterfs,
            "xfs" => Requirement::Xfs,
            "ext4" => Requirement::Ext4,
            other => {
                return Err(format!(
                    "unknown requirement `{other}` (want nfs, rbd, cephfs, iscsi, cifs, glusterfs, xfs or ext4)"
                ))
            }
        })
    }
}

impl std::fmt::Display for Requirement {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How to get a missing client onto this node.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Install {
    /// Catalogue client id (`nfs`, `rbd`, ...).
    pub client: String,
    /// `NFS client (mount.nfs)`.
    pub client_name: String,
    /// The package for this OS (`nfs-utils`); `None` when the OS is unknown or immutable.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub package: Option<String>,
    /// The command to run on the node (`sudo dnf install -y nfs-utils`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    /// What to do instead when there is no command (immutable or unknown OS).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub advice: Option<String>,
}

/// Whether the node can mount one volume type.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Capability {
    pub volume: VolumeType,
    pub ok: bool,
    /// One sentence: what was found, or what is missing.
    pub reason: String,
    /// Programs found (`mount.nfs` → path).
    pub found: BTreeMap<String, String>,
    /// Programs and kernel parts missing.
    pub missing: Vec<String>,
    /// Userspace is there but kernel support could not be established (no module list).
    pub kernel_unknown: bool,
    /// Why it cannot mount, said by kind: the helper is missing (a package fixes it), the
    /// filesystem is not in the kernel, modules cannot be loaded. Empty when it can.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub why_not: Vec<String>,
    /// Caveats that do not fail the check (rpc.statd not running, ...).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// How to install what is missing (userspace only; a kernel part is not a package).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub install: Option<Install>,
    /// The kernel part that is missing (`kernel module nfs`), when the kernel lacks it; with
    /// `modules_locked` when this kernel cannot load modules at all.
    #[serde(skip)]
    pub kernel_missing: Option<String>,
    #[serde(skip)]
    pub modules_locked: bool,
}

/// One `--require` result.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RequirementResult {
    pub requirement: Requirement,
    pub ok: bool,
    pub detail: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub install: Option<Install>,
    /// What to do first, by what the node lacks: a kernel without the filesystem is fixed by
    /// another kernel (or its modules package), never by the helper's package alone; a helper
    /// by its package. `None` when the requirement is met.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fix: Option<String>,
}

/// A client to install, with the volume types that need it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MissingPackage {
    pub install: Install,
    pub for_volumes: Vec<VolumeType>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum IssueKind {
    /// A kubelet volume mount of a pod that is no longer on the node.
    OrphanedMount,
    /// The same source mounted twice on the same target.
    DuplicateMount,
    /// A filesystem that should be writable is read-only (remounted after errors).
    ReadOnlyRemount,
    /// The kubelet root dir is on a mount without shared propagation.
    KubeletRootNotShared,
    /// A `hard` NFS mount whose server does not answer (only with the reachability check).
    NfsServerUnreachable,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    Warning,
    Error,
}

/// One problem in the mount table.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MountIssue {
    pub kind: IssueKind,
    pub severity: Severity,
    pub detail: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mount_point: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fstype: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pod_uid: Option<String>,
    /// A command that fixes it (paths shell-quoted).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fix: Option<String>,
}

/// What orphaned mounts were judged against.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum OrphanBasis {
    /// The pods the API says run on the node.
    Api,
    /// The pod directories under `<kubelet-root>/pods` (the API was not asked or not reachable).
    PodDirectories,
    /// Neither was available: orphans cannot be told.
    None,
}

/// One NFS server's answer to the reachability check.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ServerReach {
    /// As the mounts name it (`10.20.172.211`).
    pub server: String,
    /// What was connected to (`10.20.172.211:2049`), when the name resolved.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub address: Option<String>,
    pub reachable: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Mount points using it.
    pub mounts: Vec<String>,
    /// Whether any of them is `hard` (a dead server makes access hang forever).
    pub hard: bool,
}

/// Everything `node check` says about one node: what the text table, JSON and JUnit print.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NodeReport {
    /// The node's host name, as the probe found it.
    pub node: Option<String>,
    /// `PRETTY_NAME` of os-release.
    pub os: Option<String>,
    /// `rhel`, `debian`, `suse`, `alpine`, `immutable` or `unknown`.
    pub os_family: String,
    pub kernel: Option<String>,
    /// Whether the probe saw the live node (processes, /proc), not a mounted tree.
    pub live: bool,
    pub capabilities: Vec<Capability>,
    pub requirements: Vec<RequirementResult>,
    pub missing_packages: Vec<MissingPackage>,
    pub issues: Vec<MountIssue>,
    pub kubelet_root: Option<String>,
    pub kubelet_root_propagation: Option<Propagation>,
    pub orphan_basis: OrphanBasis,
    /// Filled by [`check_nfs_servers`] only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nfs_servers: Option<Vec<ServerReach>>,
    pub selinux: Option<String>,
    pub mounts_read: usize,
    /// What the probe could not do.
    pub probe_errors: Vec<String>,
    pub notes: Vec<String>,
}

impl NodeReport {
    /// Every `--require` passed.
    pub fn requirements_met(&self) -> bool {
        self.requirements.iter().all(|r| r.ok)
    }

    /// A failed requirement or an error-level mount issue (exit code 1).
    pub fn has_problems(&self) -> bool {
        !self.requirements_met() || self.issues.iter().any(|i| i.severity == Severity::Error)
    }

    pub fn capability(&self, v: VolumeType) -> Option<&Capability> {
        self.capabilities.iter().find(|c| c.volume == v)
    }
}

/// What one run of the probe gave back.
#[derive(Debug, Clone)]
pub struct ProbeRun {
    /// The node name, or the host for --ssh, or `local`.
    pub target: String,
    pub stdout: Vec<u8>,
    pub stderr: String,
    /// `None` when the process was killed (timeout).
    pub exit_code: Option<i32>,
    pub elapsed: Duration,
}

/// The image of the probe pods (`node check --exec`, `doctor --probe-node`): it needs a POSIX
/// sh and `sleep`.
pub const DEFAULT_PROBE_IMAGE: &str = "busybox:1.36";

/// The namespace the probe pods run in, everywhere (`node check`, `node gc`, `doctor
/// --probe-node`): the one deploy/rbac.yaml prepares (its Role, its Pod Security label).
/// `--probe-namespace`/`-n` or VOLMNT_PROBE_NAMESPACE override it.
pub const DEFAULT_PROBE_NAMESPACE: &str = "volmnt";

/// `1m30s`, `3s`, `500ms`: how durations are said in messages.
pub fn human_duration(d: Duration) -> String {
    let ms = d.as_millis();
    if ms < 1000 {
        return format!("{ms}ms");
    }
    let s = d.as_secs();
    match (s / 3600, (s % 3600) / 60, s % 60) {
        (0, 0, s) if ms.is_multiple_of(1000) => format!("{s}s"),
        (0, 0, _) => format!("{:.1}s", d.as_secs_f64()),
        (0, m, 0) => format!("{m}m"),
        (0, m, s) => format!("{m}m{s}s"),
        (h, m, _) => format!("{h}h{m}m"),
    }
}

/// How `node check` reached the nodes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Transport {
    Exec,
    Ssh,
    Local,
}

impl Transport {
    pub fn name(self) -> &'static str {
        match self {
            Transport::Exec => "exec",
            Transport::Ssh => "ssh",
            Transport::Local => "local",
        }
    }
}

/// One node to check.
#[derive(Debug, Clone)]
pub struct ProbeTarget {
    /// The Kubernetes node name, when known (for labels and reports).
    pub node: Option<String>,
    /// What the transport is given: the node name (exec), the ssh destination, `local`.
    pub address: String,
}

impl ProbeTarget {
    pub fn display(&self) -> String {
        match &self.node {
            Some(n) if *n != self.address => format!("{n} ({})", self.address),
            Some(n) => n.clone(),
            None => self.address.clone(),
        }
    }
}

/// What came back from one node: the probe's raw output, or why there is none.
#[derive(Debug)]
pub struct Checked {
    pub target: ProbeTarget,
    pub elapsed: Duration,
    pub run: crate::error::Result<ProbeRun>,
    /// UIDs of the pods the API says run on the node (exec), to tell orphaned mounts.
    pub pods_on_node: Option<Vec<String>>,
    /// Probed through a pod (`--exec`).
    pub exec: bool,
}

/// One node's outcome.
#[derive(Debug, Clone, Serialize)]
pub struct NodeResult {
    /// The Kubernetes node name, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node: Option<String>,
    /// What was contacted: the node name (exec), the ssh destination, `local`.
    pub target: String,
    /// `pass` (every requirement met), `fail` (one is not), `problem` (errors in the mount
    /// table) or `unreachable` (not probed).
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

impl NodeResult {
    /// `node-a`, or `node-a (10.0.0.7)` when the address differs from the name.
    pub fn name(&self) -> String {
        match &self.node {
            Some(node) if *node != self.target => format!("{node} ({})", self.target),
            Some(node) => node.clone(),
            None => self.target.clone(),
        }
    }
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
pub struct NodeCheck {
    /// The version of this document's shape (schema/volmnt.schema.json, `node_check`).
    pub schema_version: u32,
    /// `pass`, `fail`, `problem` or `unreachable`, as the exit code says it.
    pub status: &'static str,
    pub transport: Transport,
    pub required: Vec<Requirement>,
    pub summary: Summary,
    pub elapsed_ms: u64,
    pub nodes: Vec<NodeResult>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_as_people_write_them() {
        assert_eq!(human_duration(Duration::from_millis(250)), "250ms");
        assert_eq!(human_duration(Duration::from_secs(3)), "3s");
        assert_eq!(human_duration(Duration::from_millis(1500)), "1.5s");
        assert_eq!(human_duration(Duration::from_secs(120)), "2m");
        assert_eq!(human_duration(Duration::from_secs(90)), "1m30s");
    }
}
