//! What a line of text is about: the pods, volumes, claims, PVs, devices and servers it names.
//! The engine keeps a fact only when it is about the pod being diagnosed (diagnose/scope.rs);
//! this module only reads the names, as the programs that print them write them. Pure.
//!
//! Where each form comes from:
//! - the kubelet's pod directories: `<root>/pods/<pod UID>/volumes/kubernetes.io~<plugin>/<volume>`
//!   and `.../volume-subpaths/<volume>/...` (pkg/kubelet/kubelet_getters.go getPodVolumeDir);
//! - the CSI global mounts: `.../plugins/kubernetes.io/csi/pv/<PV>/globalmount` (before 1.24),
//!   `.../plugins/kubernetes.io/csi/<driver>/<sha256 of the handle>/globalmount` (1.24+) and
//!   `.../volumeDevices/...` (pkg/volume/csi/csi_attacher.go, csi_block.go);
//! - the operation executor's messages: `for volume "X" (UniqueName: "kubernetes.io/csi/
//!   <driver>^<handle>") pod "name" (UID: "uid")` (pkg/volume/util/operationexecutor
//!   GenerateErrorDetailed), `Unable to attach or mount volumes for pod "name_ns(uid)":
//!   unmounted volumes=[a b], unattached volumes=[...]` (pkg/kubelet/volumemanager);
//! - klog's structured keys: `pod="ns/name"`, `podUID="uid"`, `volumeName="..."`,
//!   `pods=["ns/name"]` (k8s.io/klog/v2 KObj);
//! - CSI drivers' request logs: `volume_id:"..."` / `"volume_id":"..."` (gRPC request text and
//!   JSON), `volumeID`, `VolumeId`;
//! - devices: `/dev/...` paths and the kernel's own names (`XFS (loop1)`, `[sdb]`, `rbd1:`);
//! - NFS: `SERVER:/path` mount sources and the kernel's `nfs: server X not responding`.

use std::collections::BTreeSet;
use std::sync::LazyLock;

use regex::Regex;

/// The names one piece of text gives, by kind. Empty when it names nothing.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Names {
    /// Pod UIDs (from pod directories and the kubelet's `UID:` / `podUID=`).
    pub pod_uids: BTreeSet<String>,
    /// Pods as `namespace/name` (or `name` when the namespace is not said).
    pub pods: BTreeSet<String>,
    /// Volume names as the kubelet says them: a pod's volume name, or a PV's name for a claim.
    pub volumes: BTreeSet<String>,
    /// PersistentVolume names (`pvc-<uuid>` and the `pv/<name>` of CSI global mounts).
    pub pvs: BTreeSet<String>,
    /// CSI volume handles (`^<handle>` of a unique name, a driver's `volume_id`).
    pub handles: BTreeSet<String>,
    /// Block devices by the kernel's name of their disk (`sdb`, `loop2`, `rbd0`, `nvme0n1`,
    /// `dm-3`); a partition counts as its disk.
    pub disks: BTreeSet<String>,
    /// Device paths that are not kernel names (`/dev/mapper/x`, `/dev/longhorn/pvc-...`,
    /// `/dev/disk/by-id/...`).
    pub device_paths: BTreeSet<String>,
    /// NFS and SMB servers (host names or addresses) a mount or the kernel names.
    pub servers: BTreeSet<String>,
}

impl Names {
    pub fn is_empty(&self) -> bool {
        self.pod_uids.is_empty()
            && self.pods.is_empty()
            && self.volumes.is_empty()
            && self.pvs.is_empty()
            && self.handles.is_empty()
            && self.disks.is_empty()
            && self.device_paths.is_empty()
            && self.servers.is_empty()
    }

    /// Add what another text names.
    pub fn extend(&mut self, other: Names) {
        self.pod_uids.extend(other.pod_uids);
        self.pods.extend(other.pods);
        self.volumes.extend(other.volumes);
        self.pvs.extend(other.pvs);
        self.handles.extend(other.handles);
        self.disks.extend(other.disks);
        self.device_paths.extend(other.device_paths);
        self.servers.extend(other.servers);
    }
}

const UUID: &str = r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}";

static POD_DIR: LazyLock<Regex> = LazyLock::new(|| {
    // `/pods/<uid>/volumes/kubernetes.io~nfs/vol1`, `/pods/<uid>/volume-subpaths/vol1/...`,
    // `/pods/<uid>/volumeDevices/kubernetes.io~csi/...`.
    Regex::new(&format!(
        r"/pods/({UUID})(?:/(?:volumes|volumeDevices)/[a-z0-9.-]+~[a-z0-9.-]+/([A-Za-z0-9._-]+)|/volume-subpaths/([A-Za-z0-9._-]+))?"
    ))
    .expect("static regex")
});
static UID_FIELD: LazyLock<Regex> = LazyLock::new(|| {
    // `(UID: "uid")`, `(UID: uid)`, `podUID="uid"`, `pod_uid=uid`, `"podUID":"uid"`.
    Regex::new(&format!(
        r#"(?:\(UID:\s*\\?"?|podUID[=:]\s*\\?"?|pod_uid[=:]\s*\\?"?|"podUID"\s*:\s*")({UUID})"#
    ))
    .expect("static regex")
});
static POD_NS_UID: LazyLock<Regex> = LazyLock::new(|| {
    // `pod "name_ns(uid)"`: the kubelet's format.Pod (pkg/kubelet/util/format).
    Regex::new(&format!(
        r#"\\?"([a-z0-9][a-z0-9.-]*)_([a-z0-9][a-z0-9-]*)\(({UUID})\)\\?""#
    ))
    .expect("static regex")
});
static POD_OBJECT_REF: LazyLock<Regex> = LazyLock::new(|| {
    // client-go's event recorder as klog prints it (tools/record/event.go:
    // `Event(v1.ObjectReference{Kind:"Pod", Namespace:"ns", Name:"x", UID:"uid", ...})`).
    Regex::new(&format!(
        r#"Kind:"Pod", Namespace:"([a-z0-9-]*)", Name:"([a-z0-9][a-z0-9.-]*)", UID:"({UUID})""#
    ))
    .expect("static regex")
});
static POD_KOBJ: LazyLock<Regex> = LazyLock::new(|| {
    // klog's KObj: `pod="ns/name"`, `pods=["ns/name" ...]`, JSON `"pod":{"name":..}` is rare.
    Regex::new(r#"\bpods?=\[?\\?"([a-z0-9][a-z0-9-]*)/([a-z0-9][a-z0-9.-]*)\\?""#)
        .expect("static regex")
});
static POD_QUOTED: LazyLock<Regex> = LazyLock::new(|| {
    // The operation executor's `pod "name" (UID: ...)` and `for pod "ns"/"name"`.
    Regex::new(r#"\bpod \\?"([a-z0-9][a-z0-9.-]*)\\?" \(UID|for pod \\?"([a-z0-9][a-z0-9-]*)\\?"/\\?"([a-z0-9][a-z0-9.-]*)\\?""#)
        .expect("static regex")
});
static VOLUME_QUOTED: LazyLock<Regex> = LazyLock::new(|| {
    // `volume "x"`, `for volume \"x\"`, `volumeName="x"`, `volume_name=x`.
    Regex::new(r#"(?:\bvolume \\?"|volumeName[=:]\s*\\?"|"volumeName"\s*:\s*")([A-Za-z0-9][A-Za-z0-9._-]*)"#)
        .expect("static regex")
});
static VOLUME_LIST: LazyLock<Regex> = LazyLock::new(|| {
    // `unmounted volumes=[data cache]`, `unattached volumes=[data]`, `volumes=[a b]`.
    Regex::new(r"\b(?:unmounted|unattached|unmounted/unattached)?\s*volumes=\[([A-Za-z0-9._ -]*)\]")
        .expect("static regex")
});
static UNIQUE_NAME: LazyLock<Regex> = LazyLock::new(|| {
    // `kubernetes.io/csi/<driver>^<handle>`: the handle ends at a quote, a space or `)`.
    Regex::new(r#"kubernetes\.io/csi/[A-Za-z0-9._-]+\^([^"\\ )\]]+)"#).expect("static regex")
});
static PV_NAME: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(&format!(r"\b(pvc-{UUID})\b")).expect("static regex"));
static CSI_PV_DIR: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"/kubernetes\.io/csi/pv/([A-Za-z0-9][A-Za-z0-9._-]*)/(?:globalmount|vol_data\.json)",
    )
    .expect("static regex")
});
static INTREE_NAME: LazyLock<Regex> = LazyLock::new(|| {
    // The in-tree plugins' global mounts and unique names: `.../plugins/kubernetes.io/
    // local-volume/mounts/<PV>`, `UniqueName: "kubernetes.io/local-volume/<PV>"` (pkg/volume/local:
    // a local volume is named by its PV), and `.../plugins/kubernetes.io/<plugin>/mounts/<name>`.
    Regex::new(r"kubernetes\.io/local-volume/(?:mounts/)?([A-Za-z0-9][A-Za-z0-9._-]*)|/plugins/kubernetes\.io/[a-z0-9-]+/mounts/([A-Za-z0-9][A-Za-z0-9._-]*)")
        .expect("static regex")
});
static VOLUME_ID: LazyLock<Regex> = LazyLock::new(|| {
    // CSI request logs: `volume_id:"x"` (gRPC text), `"volume_id":"x"` (JSON), `volumeID=x`,
    // `VolumeId: x`.
    Regex::new(
        r#"(?i)\bvolume_?id\\?"?\s*[:=]\s*\\?"?([A-Za-z0-9][A-Za-z0-9._:/#@+-]*[A-Za-z0-9])"#,
    )
    .expect("static regex")
});
static DEV_PATH: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(/dev/[A-Za-z0-9_.][A-Za-z0-9_./:-]*[A-Za-z0-9])").expect("static regex")
});
static KERNEL_DISK: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b((?:sd|vd|xvd|hd)[a-z]+|nvme[0-9]+n[0-9]+|(?:rbd|nbd|drbd|loop|zd)[0-9]+|dm-[0-9]+)(?:p?[0-9]+)?\b")
        .expect("static regex")
});
static NFS_SOURCE: LazyLock<Regex> = LazyLock::new(|| {
    // A mount source `host:/path` (nfs) or `//host/share` (cifs), as mount's arguments and
    // mount.nfs print it; IPv6 in brackets.
    Regex::new(r"(?:^|[\s'\x22(=])(\[[0-9a-fA-F:]+\]|[A-Za-z0-9][A-Za-z0-9.-]*):/[^\s'\x22)]*|(?:^|[\s'\x22(=])//([A-Za-z0-9][A-Za-z0-9.-]*)/[^\s'\x22)]+")
        .expect("static regex")
});
static ISCSI_PORTAL: LazyLock<Regex> = LazyLock::new(|| {
    // kubernetes pkg/volume/iscsi/iscsi_util.go "iscsi: failed to sendtargets to portal %s
    // output: %s, err %v" (also "... to update discoverydb to portal %s"), open-iscsi's
    // "portal: %s" and "[sid: N, target: T, portal: ADDR,PORT]": the target's address.
    Regex::new(r"\bportal:? ([A-Za-z0-9][A-Za-z0-9.-]*\.[A-Za-z0-9.-]*[A-Za-z0-9])(?:[:,]\d+)?\b")
        .expect("static regex")
});
static NFS_KERNEL_SERVER: LazyLock<Regex> = LazyLock::new(|| {
    // linux fs/nfs/client.c, net/sunrpc/clnt.c: `nfs: server %s not responding`, `... OK`.
    Regex::new(r"\bnfs: server ([A-Za-z0-9.:\[\]-]+) (?:not responding|OK)").expect("static regex")
});

/// The kernel's name of a disk from a device path or a kernel name (`/dev/sdb1` → `sdb`,
/// `loop2` → `loop2`, `/dev/nvme0n1p2` → `nvme0n1`); `None` for other paths.
pub fn disk_name(device: &str) -> Option<String> {
    let base = device.rsplit('/').next().unwrap_or(device);
    let c = KERNEL_DISK.captures(base)?;
    let m = c.get(0)?;
    (m.start() == 0 && m.end() == base.len()).then(|| c[1].to_string())
}

/// What `text` names. A PV-like name (`pvc-<uuid>`) is a PV, never a pod UID; a UUID counts as
/// a pod UID only where the kubelet writes one.
pub fn names(text: &str) -> Names {
    let mut n = Names::default();
    for c in POD_DIR.captures_iter(text) {
        n.pod_uids.insert(c[1].to_ascii_lowercase());
        if let Some(v) = c.get(2).or_else(|| c.get(3)) {
            n.volumes.insert(v.as_str().to_string());
        }
    }
    for c in UID_FIELD.captures_iter(text) {
        n.pod_uids.insert(c[1].to_ascii_lowercase());
    }
    for c in POD_NS_UID.captures_iter(text) {
        n.pods.insert(format!("{}/{}", &c[2], &c[1]));
        n.pod_uids.insert(c[3].to_ascii_lowercase());
    }
    for c in POD_OBJECT_REF.captures_iter(text) {
        n.pods.insert(format!("{}/{}", &c[1], &c[2]));
        n.pod_uids.insert(c[3].to_ascii_lowercase());
    }
    for c in POD_KOBJ.captures_iter(text) {
        n.pods.insert(format!("{}/{}", &c[1], &c[2]));
    }
    for c in POD_QUOTED.captures_iter(text) {
        match (c.get(1), c.get(2), c.get(3)) {
            (Some(name), _, _) => {
                n.pods.insert(name.as_str().to_string());
            }
            (None, Some(ns), Some(name)) => {
                n.pods.insert(format!("{}/{}", ns.as_str(), name.as_str()));
            }
            _ => {}
        }
    }
    for c in VOLUME_QUOTED.captures_iter(text) {
        n.volumes.insert(c[1].to_string());
    }
    for c in VOLUME_LIST.captures_iter(text) {
        for v in c[1].split_whitespace() {
            n.volumes.insert(v.to_string());
        }
    }
    for c in UNIQUE_NAME.captures_iter(text) {
        n.handles.insert(c[1].to_string());
    }
    for c in INTREE_NAME.captures_iter(text) {
        match (c.get(1), c.get(2)) {
            (Some(pv), _) => {
                n.pvs.insert(pv.as_str().to_string());
            }
            (None, Some(v)) => {
                n.volumes.insert(v.as_str().to_string());
            }
            _ => {}
        }
    }
    for c in VOLUME_ID.captures_iter(text) {
        n.handles.insert(c[1].to_string());
    }
    for c in PV_NAME.captures_iter(text) {
        n.pvs.insert(c[1].to_ascii_lowercase());
    }
    for c in CSI_PV_DIR.captures_iter(text) {
        n.pvs.insert(c[1].to_string());
    }
    for c in DEV_PATH.captures_iter(text) {
        let path = c[1].trim_end_matches(['.', ':', ',']);
        match disk_name(path) {
            Some(d) => {
                n.disks.insert(d);
            }
            None if !matches!(path, "/dev/null" | "/dev/zero" | "/dev/kmsg" | "/dev/fuse") => {
                n.device_paths.insert(path.to_string());
            }
            None => {}
        }
    }
    for m in kernel_disks(text) {
        n.disks.insert(m);
    }
    for c in NFS_SOURCE.captures_iter(text) {
        if let Some(h) = c.get(1).or_else(|| c.get(2)) {
            let h = h.as_str();
            // `Mounting arguments: -t nfs ...`: a word that is not a host (`C:` in a Windows
            // path, an option) is left out by wanting a dot, a colon or a bracket in it.
            if h.contains('.') || h.contains(':') || h.starts_with('[') {
                n.servers
                    .insert(h.trim_matches(['[', ']']).to_ascii_lowercase());
            }
        }
    }
    for c in ISCSI_PORTAL.captures_iter(text) {
        n.servers.insert(c[1].to_ascii_lowercase());
    }
    for c in NFS_KERNEL_SERVER.captures_iter(text) {
        n.servers
            .insert(c[1].trim_matches(['[', ']']).to_ascii_lowercase());
    }
    // A pod volume named like a PV is the PV itself (CSI volumes of claims are named by their
    // PV in the kubelet's messages).
    let pvs: Vec<String> = n
        .volumes
        .iter()
        .filter(|v| PV_NAME.is_match(v))
        .cloned()
        .collect();
    n.pvs.extend(pvs);
    n
}

/// The disks a kernel line names by the kernel's own names (`XFS (loop1): ...`, `[sdb] ...`,
/// `rbd1: ...`, `blk_update_request: I/O error, dev sdc, sector 0`), not inside a path.
fn kernel_disks(text: &str) -> impl Iterator<Item = String> + '_ {
    KERNEL_DISK.captures_iter(text).filter_map(move |c| {
        let m = c.get(0)?;
        // The kernel writes a disk's name in brackets or parentheses (`[sdb]`, `XFS (loop1):`),
        // before a colon (`rbd1: capacity`, `loop2: detected capacity change`) or after `dev `
        // (`I/O error, dev sdc, sector 0`); prose that happens to contain `sdk` is no disk, and
        // inside a `/dev/...` path it was counted already.
        let before = text[..m.start()].chars().last();
        let after = text[m.end()..].chars().next();
        let bracketed =
            matches!(before, Some('(') | Some('[')) && matches!(after, Some(')') | Some(']'));
        let labelled = (before.is_none() || before == Some(' ')) && matches!(after, Some(':'));
        let after_dev = text[..m.start()].ends_with("dev ")
            && matches!(after, None | Some(',') | Some(' ') | Some(':'));
        (bracketed || labelled || after_dev).then(|| c[1].to_string())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(v: &[&str]) -> BTreeSet<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn a_kubelet_mount_failure_names_its_pod_volume_and_server() {
        // seed-data/nfs-describe-pod.txt: the mount command of the 2020 incident.
        let t = r#"MountVolume.SetUp failed for volume "nfs211" : mount failed: exit status 32 Mounting command: systemd-run Mounting arguments: --description=Kubernetes transient mount for /var/lib/kubelet/pods/cddc94e7-8033-4150-bed5-d141e3b71e49/volumes/kubernetes.io~nfs/nfs211 --scope -- mount -t nfs 10.20.172.211:/nfs /var/lib/kubelet/pods/cddc94e7-8033-4150-bed5-d141e3b71e49/volumes/kubernetes.io~nfs/nfs211"#;
        let n = names(t);
        assert_eq!(n.pod_uids, set(&["cddc94e7-8033-4150-bed5-d141e3b71e49"]));
        assert_eq!(n.volumes, set(&["nfs211"]));
        assert_eq!(n.servers, set(&["10.20.172.211"]));
        assert!(n.pvs.is_empty() && n.disks.is_empty());
    }

    #[test]
    fn the_operation_executors_detailed_error_names_pod_uid_handle_and_pv() {
        let t = r#"E1201 10:00:00.000000 1234 nestedpendingoperations.go:348] Operation for "{volumeName:kubernetes.io/csi/rbd.csi.ceph.com^0001-0009-rook-ceph-0000000000000002-5e1b podName: nodeName:}" failed. No retries permitted until 2024-12-01 10:02:00 (durationBeforeRetry 2m0s). Error: MountVolume.MountDevice failed for volume "pvc-7e9588ad-19d1-4099-bd49-30fd2b9f0d42" (UniqueName: "kubernetes.io/csi/rbd.csi.ceph.com^0001-0009-rook-ceph-0000000000000002-5e1b") pod "web-0" (UID: "0a1b2c3d-1111-2222-3333-444455556666") : rpc error: code = Internal desc = rbd image replicapool/csi-vol-5e1b is still being used"#;
        let n = names(t);
        assert_eq!(n.pods, set(&["web-0"]));
        assert_eq!(n.pod_uids, set(&["0a1b2c3d-1111-2222-3333-444455556666"]));
        assert_eq!(n.pvs, set(&["pvc-7e9588ad-19d1-4099-bd49-30fd2b9f0d42"]));
        assert!(n
            .handles
            .contains("0001-0009-rook-ceph-0000000000000002-5e1b"));
    }

    #[test]
    fn the_volume_managers_timeout_names_the_pod_and_its_volumes() {
        let t = r#"Unable to attach or mount volumes for pod "web-0_shop(0a1b2c3d-1111-2222-3333-444455556666)": unmounted volumes=[data cache], unattached volumes=[data]: timed out waiting for the condition"#;
        let n = names(t);
        assert_eq!(n.pods, set(&["shop/web-0"]));
        assert_eq!(n.volumes, set(&["data", "cache"]));
        let k = names(
            r#"I1201 "Volume is marked as mounted" pod="shop/web-0" podUID="0a1b2c3d-1111-2222-3333-444455556666" volumeName="kubernetes.io/nfs/x""#,
        );
        assert_eq!(k.pods, set(&["shop/web-0"]));
        assert_eq!(k.pod_uids, set(&["0a1b2c3d-1111-2222-3333-444455556666"]));
    }

    #[test]
    fn devices_are_named_by_their_disk_in_paths_and_in_kernel_lines() {
        assert_eq!(
            names("XFS (loop1): Filesystem has duplicate UUID 1234 - can't mount").disks,
            set(&["loop1"])
        );
        assert_eq!(
            names("sd 2:0:0:1: [sdb] Attached SCSI disk").disks,
            set(&["sdb"])
        );
        assert_eq!(
            names("blk_update_request: I/O error, dev sdc, sector 0").disks,
            set(&["sdc"])
        );
        assert_eq!(
            names("rbd1: capacity 1073741824 features 0x1").disks,
            set(&["rbd1"])
        );
        assert_eq!(
            names("fsck: Found a dos partition table in /dev/loop2p1").disks,
            set(&["loop2"])
        );
        assert_eq!(names("/dev/nvme0n1p2 is busy").disks, set(&["nvme0n1"]));
        let n = names("mount /dev/longhorn/pvc-8ffdf006-f66c-4b1e-8c52-bc3641a3d96c failed");
        assert!(n
            .device_paths
            .contains("/dev/longhorn/pvc-8ffdf006-f66c-4b1e-8c52-bc3641a3d96c"));
        assert!(n.pvs.contains("pvc-8ffdf006-f66c-4b1e-8c52-bc3641a3d96c"));
        // Words that only contain a disk-like name are not disks.
        assert!(names("the sdk failed; backup-loop1 done").disks.is_empty());
        assert_eq!(disk_name("/dev/sdc1").as_deref(), Some("sdc"));
        assert_eq!(disk_name("/dev/mapper/mpatha"), None);
    }

    #[test]
    fn the_address_of_an_iscsi_portal_is_a_server() {
        assert_eq!(
            names("iscsi: failed to sendtargets to portal 1.2.3.4:3260 output: x, err signal: aborted").servers,
            set(&["1.2.3.4"])
        );
        assert_eq!(
            names("iscsiadm: Could not login to [iface: default, target: iqn.x:t, portal: 10.0.0.6,3260].").servers,
            set(&["10.0.0.6"])
        );
    }

    #[test]
    fn servers_of_nfs_and_smb_mounts_and_of_the_kernel() {
        assert_eq!(
            names("mount.nfs: access denied by server while mounting fs-01.example.com:/exports/a")
                .servers,
            set(&["fs-01.example.com"])
        );
        assert_eq!(
            names("nfs: server 10.0.0.5 not responding, still trying").servers,
            set(&["10.0.0.5"])
        );
        assert_eq!(
            names("mount -t cifs //files.corp.local/share /mnt").servers,
            set(&["files.corp.local"])
        );
        assert!(names("exit status 32: mount failed").is_empty());
    }

    #[test]
    fn csi_request_logs_name_the_volume_handle() {
        let n = names(
            r#"GRPC request: {"target_path":"/var/lib/kubelet/pods/0a1b2c3d-1111-2222-3333-444455556666/volumes/kubernetes.io~csi/pvc-7e9588ad-19d1-4099-bd49-30fd2b9f0d42/mount","volume_id":"vol-0abc123"}"#,
        );
        assert!(n.handles.contains("vol-0abc123"));
        assert!(n.pvs.contains("pvc-7e9588ad-19d1-4099-bd49-30fd2b9f0d42"));
        assert!(n.pod_uids.contains("0a1b2c3d-1111-2222-3333-444455556666"));
    }
}
