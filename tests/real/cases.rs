//! The real stuck pods: one per cause this node can produce, made for real (a real kubelet
//! failing a real mount), then `volmnt doctor pod` on each, checked for verdict, exit code and
//! JSON. See mod.rs for how to run it.

use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::Value;

use super::{is_root, real_or_skip, wait_for, Real};

/// The FlexVolume driver's directory in the kubelet's default volume plugin dir.
const FLEX_DIR: &str = "/usr/libexec/kubernetes/kubelet-plugins/volume/exec/volmnt.io~cifs";

/// What a case must give.
#[derive(Clone, Debug)]
enum Want {
    /// Exit 1, status "stuck", this cause first.
    Cause(&'static str),
    /// Exit 1, status "stuck", one of these first and the last of them among the findings:
    /// what the message alone leaves open (only node evidence settles it).
    Open(&'static [&'static str]),
    /// Exit 0, status "ok".
    Ok,
}

/// One real case.
struct Case {
    pod: String,
    /// What the node really does (the table's second column).
    what: String,
    want: Want,
    probe_node: bool,
    /// With --probe-node: --probe-kernel-log too (CAP_SYSLOG: this node has
    /// kernel.dmesg_restrict=1, so only then is the kernel's own line read).
    kernel_log: bool,
    /// With --probe-node: --probe-nfs too (the NFS server asked from the node's own network).
    probe_nfs: bool,
    /// Text the evidence must quote (the real message's own words).
    quote: Option<&'static str>,
    /// Why it is not run on this node (a helper it needs missing is installed here, ...).
    skip: Option<String>,
}

/// A pod on realnode with one volume, the container mounting it at /data.
fn pod(ns: &str, name: &str, volume: &str, mount_extra: &str, extra_spec: &str) -> String {
    format!(
        r#"---
apiVersion: v1
kind: Pod
metadata: {{name: {name}, namespace: {ns}, labels: {{app.kubernetes.io/part-of: volmnt-real}}}}
spec:
  nodeName: realnode
  automountServiceAccountToken: false
  terminationGracePeriodSeconds: 0
  containers:
  - name: app
    image: busybox:1.36
    imagePullPolicy: IfNotPresent
    command: [sleep, "3600"]
    volumeMounts: [{{name: data, mountPath: /data{mount_extra}}}]
{extra_spec}  volumes:
  - name: data
    {volume}
"#
    )
}

/// A pod with one volume and nothing else (for other modules of the suite).
pub fn pod_yaml(ns: &str, name: &str, volume: &str) -> String {
    pod(ns, name, volume, "", "")
}

/// A PV bound to nothing yet (the suite binds it by hand).
fn pv(name: &str, class: &str, source: &str, node_affinity: bool) -> String {
    let affinity = if node_affinity {
        "  nodeAffinity: {required: {nodeSelectorTerms: [{matchExpressions: [{key: kubernetes.io/hostname, operator: In, values: [realnode]}]}]}}\n"
    } else {
        ""
    };
    format!(
        r#"---
apiVersion: v1
kind: PersistentVolume
metadata: {{name: {name}, labels: {{app.kubernetes.io/part-of: volmnt-real}}}}
spec:
  capacity: {{storage: 64Mi}}
  accessModes: [ReadWriteOnce]
  persistentVolumeReclaimPolicy: Retain
  storageClassName: {class}
  {source}
{affinity}"#
    )
}

/// A claim; with `volume`, pre-bound to that PV (so that, with the controllers running, the
/// PV binder binds it to that PV and no other of the same class).
fn pvc(ns: &str, name: &str, class: &str, volume: Option<&str>) -> String {
    let volume = volume
        .map(|v| format!(", volumeName: {v}"))
        .unwrap_or_default();
    format!(
        r#"---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {{name: {name}, namespace: {ns}}}
spec: {{accessModes: [ReadWriteOnce], resources: {{requests: {{storage: 64Mi}}}}, storageClassName: {class}{volume}}}
"#
    )
}

/// Why this machine's kernel could mount `fs` (it knows it, or it can load modules), or None.
fn kernel_can_mount(fs: &str) -> Option<String> {
    let known = std::fs::read_to_string("/proc/filesystems").unwrap_or_default();
    if known
        .lines()
        .any(|l| l.split_whitespace().last() == Some(fs))
    {
        return Some(format!("this kernel has {fs} (/proc/filesystems)"));
    }
    let release = std::fs::read_to_string("/proc/sys/kernel/osrelease").unwrap_or_default();
    let modules = format!("/lib/modules/{}", release.trim());
    if Path::new(&modules).is_dir() {
        return Some(format!("this kernel can load modules ({modules})"));
    }
    None
}

impl Case {
    fn want_is(&self, cause: &str) -> bool {
        matches!(self.want, Want::Cause(w) if w == cause)
    }
}

fn on_path(tool: &str) -> Option<String> {
    for d in [
        "/sbin",
        "/usr/sbin",
        "/bin",
        "/usr/bin",
        "/usr/local/sbin",
        "/usr/local/bin",
    ] {
        let p = format!("{d}/{tool}");
        if Path::new(&p).exists() {
            return Some(p);
        }
    }
    None
}

fn sh(args: &[&str]) -> String {
    let o = Command::new(args[0])
        .args(&args[1..])
        .output()
        .unwrap_or_else(|e| panic!("{args:?}: {e}"));
    assert!(
        o.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout).trim().to_string()
}

/// A 64 MiB file under the run's work dir, attached to a free loop device; the device.
fn loop_device(r: &Real, name: &str, fill: impl FnOnce(&Path)) -> String {
    loop_device_of(r, name, 64 << 20, fill)
}

/// A sparse file of `size` bytes under the run's work dir, filled by `fill`, attached to a free
/// loop device; the device.
fn loop_device_of(r: &Real, name: &str, size: u64, fill: impl FnOnce(&Path)) -> String {
    let f = r.work.join(format!("{name}.img"));
    let file = std::fs::File::create(&f).expect("create the backing file");
    file.set_len(size).expect("size the backing file");
    drop(file);
    fill(&f);
    let dev = sh(&["losetup", "-f", "--show", f.to_str().unwrap()]);
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(r.work.join("loops"))
        .and_then(|mut l| {
            use std::io::Write;
            writeln!(l, "{dev}")
        })
        .expect("record the loop device");
    dev
}

/// ext4 with an incompat feature bit no kernel knows (s_feature_incompat at superblock offset
/// 0x60): blkid still says ext4, so the kubelet does not format it, and both fsck and the kernel
/// refuse it ("has unsupported feature(s)", "couldn't mount because of unsupported optional
/// features"), as with a filesystem made by a newer mkfs than the node's kernel knows.
fn ext4_with_unknown_feature(f: &Path) {
    sh(&[
        "mkfs.ext4",
        "-q",
        "-F",
        "-O",
        "^metadata_csum",
        f.to_str().unwrap(),
    ]);
    use std::io::{Read, Seek, SeekFrom, Write};
    let mut h = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(f)
        .unwrap();
    let mut b = [0u8; 4];
    h.seek(SeekFrom::Start(1024 + 0x60)).unwrap();
    h.read_exact(&mut b).unwrap();
    let v = u32::from_le_bytes(b) | 0x1000_0000;
    h.seek(SeekFrom::Start(1024 + 0x60)).unwrap();
    h.write_all(&v.to_le_bytes()).unwrap();
}

/// XFS needs 300 MiB at least (xfsprogs 6.x); the files are sparse.
const XFS_SIZE: u64 = 300 << 20;

fn mkfs_xfs(f: &Path) {
    sh(&["mkfs.xfs", "-q", "-f", f.to_str().unwrap()]);
}

/// XFS with a read-only compatible feature bit no kernel knows (bit 31 of sb_features_ro_compat,
/// set with xfs_db, which rewrites the superblock's CRC): the kernel refuses to mount it
/// read-write ("Superblock has unknown read-only compatible features (0x80000000) enabled",
/// linux fs/xfs/libxfs/xfs_sb.c xfs_validate_sb_write/xfs_sb_validate_v5_features), as with a
/// filesystem made by a newer mkfs.xfs than the node's kernel. The event says only "wrong fs
/// type, bad superblock"; XFS has no fsck step in the kubelet, so only the kernel log tells.
fn xfs_with_unknown_ro_compat(f: &Path) {
    mkfs_xfs(f);
    let file = f.to_str().unwrap();
    let now = sh(&[
        "xfs_db",
        "-r",
        "-c",
        "sb 0",
        "-c",
        "print features_ro_compat",
        file,
    ]);
    let hex = now
        .rsplit("0x")
        .next()
        .and_then(|h| u32::from_str_radix(h.trim(), 16).ok())
        .unwrap_or_else(|| panic!("xfs_db printed {now:?}"));
    let set = format!("write -d features_ro_compat {:#x}", hex | 0x8000_0000);
    sh(&["xfs_db", "-x", "-c", "sb 0", "-c", &set, file]);
}

/// A DOS partition table (one Linux partition from sector 2048) and no filesystem on the whole
/// device: a disk made from an image with partitions.
fn dos_partition_table(f: &Path) {
    let mut mbr = [0u8; 512];
    mbr[440..444].copy_from_slice(&0x1234_abcdu32.to_le_bytes());
    let e = &mut mbr[446..462];
    e[1..4].copy_from_slice(&[0, 2, 0]);
    e[4] = 0x83;
    e[5..8].copy_from_slice(&[0xff, 0xff, 0xff]);
    e[8..12].copy_from_slice(&2048u32.to_le_bytes());
    e[12..16].copy_from_slice(&65536u32.to_le_bytes());
    mbr[510] = 0x55;
    mbr[511] = 0xaa;
    use std::io::Write;
    std::fs::OpenOptions::new()
        .write(true)
        .open(f)
        .unwrap()
        .write_all(&mbr)
        .unwrap();
}

/// Undo the node-side fixtures of a run: its loop devices and the FlexVolume driver.
pub fn node_cleanup(r: &Real) {
    // What the run mounted on the node itself (the XFS original whose clone cannot mount).
    if let Ok(m) = std::fs::read_to_string(r.work.join("mounts")) {
        for dir in m.lines().filter(|d| !d.is_empty()) {
            let _ = Command::new("umount").arg(dir).status();
        }
    }
    if let Ok(l) = std::fs::read_to_string(r.work.join("loops")) {
        for dev in l.lines().filter(|d| !d.is_empty()) {
            let _ = Command::new("losetup").args(["-d", dev]).status();
        }
    }
    let _ = std::fs::remove_dir_all(FLEX_DIR);
    let _ = std::fs::remove_dir_all(format!("/var/lib/volmnt-real/{}", r.ns));
    // The parent too, when no other run is using it.
    let _ = std::fs::remove_dir("/var/lib/volmnt-real");
}

/// Every case, with the objects it needs applied and bound. The pods are named after the case.
fn make_cases(r: &Real) -> Vec<Case> {
    // The kubelet refuses pods beyond its maxPods (OutOfpods): room for this run first.
    let node = r.get_json(&["node", "realnode"]);
    let capacity: usize = node["status"]["allocatable"]["pods"]
        .as_str()
        .and_then(|p| p.parse().ok())
        .unwrap_or(110);
    let on_node = r
        .kubectl_ok(&[
            "get",
            "pods",
            "-A",
            "--field-selector",
            "spec.nodeName=realnode,status.phase!=Succeeded,status.phase!=Failed",
            "-o",
            "name",
        ])
        .lines()
        .count();
    assert!(
        on_node + 30 <= capacity,
        "realnode runs {on_node} pods of its {capacity}: this run needs 30 more (delete some pods first)"
    );
    let ns = r.ns.as_str();
    let id = ns.trim_start_matches("volmnt-real-");
    let mut yaml = String::new();
    let mut cases = Vec::new();
    let mut add = |pod: &str, what: String, want: Want, quote: Option<&'static str>| {
        cases.push(Case {
            pod: pod.to_string(),
            what,
            want,
            probe_node: false,
            kernel_log: false,
            probe_nfs: false,
            quote,
            skip: None,
        });
    };

    // Mount helpers the node lacks.
    yaml += &pod(
        ns,
        "nfs-helper-missing",
        "nfs: {server: 127.0.0.1, path: /exports/volmnt}",
        "",
        "",
    );
    add(
        "nfs-helper-missing",
        "inline NFS volume; the node has no mount.nfs and no nfs in its kernel".into(),
        Want::Cause("nfs_client_missing"),
        Some("unknown filesystem type 'nfs'"),
    );
    yaml += &pod(
        ns,
        "cifs-helper-missing",
        "flexVolume: {driver: volmnt.io/cifs, options: {share: //127.0.0.1/share}}",
        "",
        "",
    );
    add(
        "cifs-helper-missing",
        "CIFS share through a FlexVolume driver that runs `mount -t cifs`; no mount.cifs, no cifs in the kernel".into(),
        Want::Cause("fs_helper_missing"),
        Some("unknown filesystem type 'cifs'"),
    );
    yaml += &pod(
        ns,
        "iscsi-attach",
        &format!("iscsi: {{targetPortal: '127.0.0.1:3260', iqn: 'iqn.2024-01.io.volmnt:{id}', lun: 0, fsType: ext4}}"),
        "",
        "",
    );
    let iscsi_want = if r.controllers {
        Want::Cause("fs_helper_missing")
    } else {
        Want::Cause("attach_timeout")
    };
    add(
        "iscsi-attach",
        if r.controllers {
            "inline iSCSI volume; the attach/detach controller attaches it, then the kubelet needs iscsiadm, which the node lacks".into()
        } else {
            "inline iSCSI volume, no kube-controller-manager: nothing attaches it (no VolumeAttachment, no event)".into()
        },
        iscsi_want,
        None,
    );

    // ConfigMaps and Secrets, plain and projected.
    yaml += &format!(
        "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {{name: present, namespace: {ns}}}\ndata: {{a: '1'}}\n\
         ---\napiVersion: v1\nkind: Secret\nmetadata: {{name: present, namespace: {ns}}}\nstringData: {{a: '1'}}\n"
    );
    for (name, vol, what, quote) in [
        (
            "configmap-missing",
            "configMap: {name: absent}",
            "configMap volume of a ConfigMap that does not exist",
            "configmap \"absent\" not found",
        ),
        (
            "configmap-key-missing",
            "configMap: {name: present, items: [{key: nokey, path: x}]}",
            "configMap volume naming a key the ConfigMap lacks",
            "non-existent config key: nokey",
        ),
        (
            "secret-missing",
            "secret: {secretName: absent}",
            "secret volume of a Secret that does not exist",
            "secret \"absent\" not found",
        ),
        (
            "projected-secret-missing",
            "projected: {sources: [{configMap: {name: present}}, {secret: {name: absent}}]}",
            "projected volume, one source a Secret that does not exist",
            "secret \"absent\" not found",
        ),
        (
            "projected-key-missing",
            "projected: {sources: [{secret: {name: present, items: [{key: nokey, path: x}]}}]}",
            "projected volume naming a Secret key that does not exist",
            "non-existent secret key: nokey",
        ),
    ] {
        yaml += &pod(ns, name, vol, "", "");
        add(
            name,
            what.into(),
            Want::Cause("configmap_or_secret_missing"),
            Some(quote),
        );
    }

    // hostPath types.
    let absent = format!("/var/lib/volmnt-real/{ns}/absent");
    for (name, vol, what, quote) in [
        (
            "hostpath-directory-missing",
            format!("hostPath: {{path: {absent}, type: Directory}}"),
            "hostPath type Directory, the path does not exist",
            "is not a directory",
        ),
        (
            "hostpath-file-is-directory",
            "hostPath: {path: /etc, type: File}".to_string(),
            "hostPath type File on a directory",
            "/etc is not a file",
        ),
        (
            "hostpath-socket",
            "hostPath: {path: /etc/hostname, type: Socket}".to_string(),
            "hostPath type Socket on a regular file",
            "is not a socket file",
        ),
    ] {
        yaml += &pod(ns, name, &vol, "", "");
        add(
            name,
            what.into(),
            Want::Cause("hostpath_type_mismatch"),
            Some(quote),
        );
    }

    // Claims.
    let manual = format!("volmnt-real-manual-{id}");
    yaml += &pod(
        ns,
        "pvc-missing",
        "persistentVolumeClaim: {claimName: absent}",
        "",
        "",
    );
    add(
        "pvc-missing",
        "claim that does not exist".into(),
        Want::Cause("pvc_unbound_or_missing"),
        Some("persistentvolumeclaims \"absent\" not found"),
    );
    yaml += &pvc(
        ns,
        "pending",
        &format!("volmnt-real-absent-class-{id}"),
        None,
    );
    yaml += &pod(
        ns,
        "pvc-pending",
        "persistentVolumeClaim: {claimName: pending}",
        "",
        "",
    );
    add(
        "pvc-pending",
        "claim Pending (its StorageClass does not exist, no PV matches)".into(),
        Want::Cause("pvc_unbound_or_missing"),
        Some("PVC is not bound"),
    );
    let local_missing = format!("{ns}-local-missing");
    yaml += &pv(
        &local_missing,
        &manual,
        &format!("local: {{path: /var/lib/volmnt-real/{ns}/local-absent}}"),
        true,
    );
    yaml += &pvc(ns, "local-missing", &manual, Some(&local_missing));
    yaml += &pod(
        ns,
        "local-path-missing",
        "persistentVolumeClaim: {claimName: local-missing}",
        "",
        "",
    );
    add(
        "local-path-missing",
        "local PV whose directory does not exist on the node".into(),
        Want::Cause("local_path_missing"),
        Some("does not exist"),
    );
    // claim-bound-later: pre-bound to a PV that does not exist yet, so it stays Pending; the PV
    // is made once the kubelet has complained (real_stuck_pods_are_diagnosed).
    yaml += &pvc(ns, "later", &manual, Some(&format!("{ns}-later")));
    yaml += &pod(
        ns,
        "claim-bound-later",
        "persistentVolumeClaim: {claimName: later}",
        "",
        "",
    );
    add(
        "claim-bound-later",
        "claim Pending at first (events say so), then bound to a local PV whose directory is missing: the verdict must be today's cause".into(),
        Want::Cause("local_path_missing"),
        Some("does not exist"),
    );

    // CSI.
    let unregistered = format!("unregistered-{id}.csi.volmnt.io");
    yaml += &format!(
        "---\napiVersion: storage.k8s.io/v1\nkind: CSIDriver\nmetadata: {{name: {unregistered}}}\nspec: {{attachRequired: false, podInfoOnMount: false, volumeLifecycleModes: [Persistent, Ephemeral]}}\n"
    );
    let csi_pv = format!("{ns}-csi-unregistered");
    yaml += &pv(
        &csi_pv,
        &manual,
        &format!("csi: {{driver: {unregistered}, volumeHandle: vol-{id}}}"),
        false,
    );
    yaml += &pvc(ns, "csi-unregistered", &manual, Some(&csi_pv));
    yaml += &pod(
        ns,
        "csi-not-registered",
        "persistentVolumeClaim: {claimName: csi-unregistered}",
        "",
        "",
    );
    add(
        "csi-not-registered",
        "CSI PV whose driver has a CSIDriver object but no node plugin registered on the node"
            .into(),
        Want::Cause("csi_driver_not_registered"),
        Some("not found in the list of registered CSI drivers"),
    );
    yaml += &pod(
        ns,
        "csi-inline-not-registered",
        &format!("csi: {{driver: {unregistered}}}"),
        "",
        "",
    );
    add(
        "csi-inline-not-registered",
        "inline (ephemeral) CSI volume of a driver not registered on the node".into(),
        Want::Cause("csi_driver_not_registered"),
        Some("not found in the list of registered CSI drivers"),
    );
    let attach_pv = format!("{ns}-csi-attach");
    yaml += &pv(
        &attach_pv,
        &manual,
        &format!("csi: {{driver: attach-{id}.csi.volmnt.io, volumeHandle: vol-{id}}}"),
        false,
    );
    yaml += &pvc(ns, "csi-attach", &manual, Some(&attach_pv));
    yaml += &pod(
        ns,
        "csi-nothing-attaches",
        "persistentVolumeClaim: {claimName: csi-attach}",
        "",
        "",
    );
    add(
        "csi-nothing-attaches",
        if r.controllers {
            "CSI PV of a driver not installed at all (no CSIDriver object, so attach required; not in the node's CSINode): the attach/detach controller makes a VolumeAttachment no external-attacher ever attaches".into()
        } else {
            "CSI PV of a driver not installed at all (no CSIDriver object, so attach required; not in the node's CSINode), no kube-controller-manager: no VolumeAttachment is ever made".into()
        },
        // The driver is missing, and the attach it would make is the step the pod waits at:
        // one finding, with both facts.
        Want::Cause("csi_driver_not_registered"),
        Some(if r.controllers {
            "attached=false"
        } else {
            "no VolumeAttachment of PV"
        }),
    );

    // Block devices: loop devices as local PVs (Filesystem mode: the kubelet formats a blank
    // one, mounts it at the global mount path, bind-mounts it into the pod).
    let blank = loop_device(r, "blank", |_| {});
    let features = loop_device(r, "ext4-features", ext4_with_unknown_feature);
    let parted = loop_device(r, "partitioned", dos_partition_table);
    let mut loops = vec![
        ("loop-btrfs-no-mkfs", blank.clone(), "btrfs"),
        ("loop-ext4-unknown-feature", features.clone(), "ext4"),
        ("loop-partitioned", parted.clone(), "ext4"),
    ];
    // XFS: a clone of a filesystem that is mounted on the node (same UUID), and one with a
    // feature this kernel lacks. Only the kernel's log says which (`--probe-kernel-log`).
    let xfs_tools = ["mkfs.xfs", "xfs_db"].iter().all(|t| on_path(t).is_some());
    let mut xfs = None;
    if xfs_tools {
        let original = loop_device_of(r, "xfs-original", XFS_SIZE, mkfs_xfs);
        let from = r.work.join("xfs-original.img");
        let clone = loop_device_of(r, "xfs-clone", XFS_SIZE, |f| {
            sh(&[
                "cp",
                "--sparse=always",
                from.to_str().unwrap(),
                f.to_str().unwrap(),
            ]);
        });
        let holder = r.work.join("xfs-original");
        std::fs::create_dir_all(&holder).expect("the original's mount point");
        sh(&["mount", "-t", "xfs", &original, holder.to_str().unwrap()]);
        std::fs::write(r.work.join("mounts"), format!("{}\n", holder.display()))
            .expect("record the mount");
        let ro_compat = loop_device_of(r, "xfs-ro-compat", XFS_SIZE, xfs_with_unknown_ro_compat);
        loops.push(("loop-xfs-duplicate-uuid", clone.clone(), "xfs"));
        loops.push(("loop-xfs-unknown-feature", ro_compat.clone(), "xfs"));
        xfs = Some((original, clone, ro_compat));
    }
    for (name, dev, fs) in &loops {
        let pv_name = format!("{ns}-{name}");
        yaml += &pv(
            &pv_name,
            &manual,
            &format!("local: {{path: {dev}, fsType: {fs}}}"),
            true,
        );
        yaml += &pvc(ns, name, &manual, Some(&pv_name));
        yaml += &pod(
            ns,
            name,
            &format!("persistentVolumeClaim: {{claimName: {name}}}"),
            "",
            "",
        );
    }
    add(
        "loop-btrfs-no-mkfs",
        format!("local PV on blank loop device {blank}, fsType btrfs: the kubelet must format it and the node has no mkfs.btrfs"),
        Want::Cause("fs_helper_missing"),
        Some("executable file not found in $PATH"),
    );
    add(
        "loop-ext4-unknown-feature",
        format!("local PV on loop device {features}: ext4 with a feature this kernel lacks; the event says only \"wrong fs type, bad superblock\""),
        Want::Open(&[
            "block_fs_corrupt_or_unformatted",
            "fs_features_unsupported_by_kernel",
        ]),
        Some("bad superblock on /dev/loop"),
    );
    add(
        "loop-partitioned",
        format!("local PV on loop device {parted}: a DOS partition table, no filesystem on the whole device; the event says only \"wrong fs type, bad superblock\""),
        // "No filesystem, another one, or a damaged one": the event cannot say more.
        Want::Cause("block_fs_corrupt_or_unformatted"),
        Some("bad superblock on /dev/loop"),
    );
    if let Some((original, clone, ro_compat)) = &xfs {
        add(
            "loop-xfs-duplicate-uuid",
            format!("local PV on loop device {clone}: a copy of the XFS filesystem on {original}, which is mounted on the node (same UUID); the event says only \"wrong fs type, bad superblock\""),
            Want::Open(&["block_fs_corrupt_or_unformatted", "xfs_duplicate_uuid"]),
            Some("bad superblock on /dev/loop"),
        );
        add(
            "loop-xfs-unknown-feature",
            format!("local PV on loop device {ro_compat}: XFS with a read-only compatible feature bit this kernel lacks; the event says only \"wrong fs type, bad superblock\""),
            Want::Open(&[
                "block_fs_corrupt_or_unformatted",
                "fs_features_unsupported_by_kernel",
            ]),
            Some("bad superblock on /dev/loop"),
        );
    }

    // subPath through a symlink out of the volume.
    let host = format!("/var/lib/volmnt-real/{ns}/subpath");
    std::fs::create_dir_all(&host).expect("host dir for the subPath case");
    std::os::unix::fs::symlink("/etc", format!("{host}/escape")).expect("symlink");
    yaml += &pod(
        ns,
        "subpath-escape",
        &format!("hostPath: {{path: {host}, type: Directory}}"),
        ", subPath: escape",
        "",
    );
    add(
        "subpath-escape",
        "subPath that is a symlink out of its volume (the kubelet refuses it)".into(),
        Want::Cause("subpath_failure"),
        Some("failed to prepare subPath"),
    );

    // Healthy, with warnings that have nothing to do with volumes.
    yaml += &pod(
        ns,
        "healthy-with-warnings",
        "emptyDir: {}",
        "",
        "    readinessProbe: {exec: {command: ['false']}, periodSeconds: 2}\n",
    );
    add(
        "healthy-with-warnings",
        "Running pod with an emptyDir; its readiness probe fails (Unhealthy warnings) and the kubelet warns of no cluster DNS".into(),
        Want::Ok,
        None,
    );

    // The node evidence cases: the same pods, settled by what the probe reads on the node.
    let mut probed = vec![
        (
            "loop-ext4-unknown-feature",
            "fs_features_unsupported_by_kernel",
            false,
            "the same, with --probe-node: fsck's \"has unsupported feature(s)\" in the kubelet's log about the device",
        ),
        (
            "loop-partitioned",
            "partitioned_disk",
            false,
            "the same, with --probe-node: \"Found a dos partition table in /dev/loopN\" in the kubelet's log",
        ),
        (
            "loop-btrfs-no-mkfs",
            "fs_helper_missing",
            false,
            "the same, with --probe-node",
        ),
        (
            "local-path-missing",
            "local_path_missing",
            false,
            "the same, with --probe-node",
        ),
        (
            "nfs-helper-missing",
            "kernel_module_missing",
            false,
            "the same, with --probe-node: the kernel has no nfs and cannot load modules, so installing mount.nfs alone cannot help (it comes second)",
        ),
        (
            "cifs-helper-missing",
            "kernel_module_missing",
            false,
            "the same, with --probe-node: the kernel has no cifs and cannot load modules (the helper comes second)",
        ),
    ];
    if xfs.is_some() {
        probed.push((
            "loop-xfs-duplicate-uuid",
            "xfs_duplicate_uuid",
            true,
            "the same, with --probe-node --probe-kernel-log: \"XFS (loopN): Filesystem has duplicate UUID ... - can't mount\" in the kernel log",
        ));
        probed.push((
            "loop-xfs-unknown-feature",
            "fs_features_unsupported_by_kernel",
            true,
            "the same, with --probe-node --probe-kernel-log: \"Superblock has unknown read-only compatible features (0x80000000) enabled\" in the kernel log",
        ));
    }
    for (pod, want, kernel_log, what) in probed {
        cases.push(Case {
            pod: pod.to_string(),
            what: what.into(),
            want: Want::Cause(want),
            probe_node: true,
            kernel_log,
            probe_nfs: false,
            quote: None,
            skip: None,
        });
    }
    // Issue 26: the node's general facts never move what the objects prove, and a probe
    // measures from the right place.
    cases.push(Case {
        pod: "csi-not-registered".into(),
        what: "the same, with --probe-node: the node lacks every mount helper, which a CSI plugin's mount never uses".into(),
        want: Want::Cause("csi_driver_not_registered"),
        probe_node: true,
        kernel_log: false,
        probe_nfs: false,
        quote: None,
        skip: None,
    });
    cases.push(Case {
        pod: "iscsi-attach".into(),
        what: "the same, with --probe-node: no node fact rules out what the attach state shows"
            .into(),
        want: if r.controllers {
            Want::Cause("fs_helper_missing")
        } else {
            Want::Cause("attach_timeout")
        },
        probe_node: true,
        kernel_log: false,
        probe_nfs: false,
        quote: None,
        skip: None,
    });
    cases.push(Case {
        pod: "nfs-helper-missing".into(),
        what: "the same, with --probe-node --probe-nfs: the server 127.0.0.1 is asked from the node's own network; the kernel without nfs stays the cause".into(),
        want: Want::Cause("kernel_module_missing"),
        probe_node: true,
        kernel_log: false,
        probe_nfs: true,
        quote: None,
        skip: None,
    });

    // What this node has decides which cases it can produce.
    for c in cases.iter_mut() {
        let need_absent: &[&str] = match c.pod.as_str() {
            "nfs-helper-missing" => &["mount.nfs", "mount.nfs4"],
            "cifs-helper-missing" => &["mount.cifs"],
            "iscsi-attach" => &["iscsiadm"],
            "loop-btrfs-no-mkfs" => &["mkfs.btrfs"],
            _ => &[],
        };
        if let Some(p) = need_absent.iter().find_map(|t| on_path(t)) {
            c.skip = Some(format!("{p} is installed on this node"));
        }
        // The kernel-module cases need a kernel without the filesystem that cannot load it.
        if c.probe_node && c.want_is("kernel_module_missing") {
            let fs = if c.pod.starts_with("nfs") {
                "nfs"
            } else {
                "cifs"
            };
            if let Some(why) = kernel_can_mount(fs) {
                c.skip = Some(why);
            }
        }
    }

    // The FlexVolume driver, where the kubelet looks for it (it notices a new one by itself).
    std::fs::create_dir_all(FLEX_DIR).expect("the kubelet's volume plugin dir");
    std::fs::copy(
        concat!(env!("CARGO_MANIFEST_DIR"), "/tests/real/cifs-flexvolume.sh"),
        format!("{FLEX_DIR}/cifs"),
    )
    .expect("install the FlexVolume driver");
    std::thread::sleep(Duration::from_secs(2));

    r.apply(&yaml);
    for o in [
        format!("pv/{local_missing}"),
        format!("pv/{ns}-later"),
        format!("pv/{csi_pv}"),
        format!("pv/{attach_pv}"),
        format!("csidriver/{unregistered}"),
    ] {
        r.owns(&o);
    }
    for (name, _, _) in &loops {
        r.owns(&format!("pv/{ns}-{name}"));
    }
    r.bind("local-missing", &local_missing);
    r.bind("csi-unregistered", &csi_pv);
    r.bind("csi-attach", &attach_pv);
    for (name, _, _) in &loops {
        r.bind(name, &format!("{ns}-{name}"));
    }
    cases
}

/// The pod has shown what its case is about (an event with these words, or a state).
fn shown(r: &Real, c: &Case, node: &Value) -> bool {
    let events = r.events_of(&c.pod);
    let has = |w: &str| events.iter().any(|(_, m)| m.contains(w));
    match c.pod.as_str() {
        "healthy-with-warnings" => {
            let p = r.get_json(&["pod", "-n", &r.ns, &c.pod]);
            p["status"]["phase"] == "Running"
                && events.iter().any(|(reason, _)| reason == "Unhealthy")
        }
        "iscsi-attach" | "csi-nothing-attaches" => {
            let in_use = node["status"]["volumesInUse"].to_string();
            let waiting = in_use.contains(if c.pod == "iscsi-attach" {
                "kubernetes.io/iscsi/"
            } else {
                "csi.volmnt.io^"
            });
            // With the controllers, the iSCSI attach is made and the kubelet's own step fails.
            waiting && (!r.controllers || c.pod != "iscsi-attach" || !events.is_empty())
        }
        _ => c.quote.is_some_and(has),
    }
}

/// One row of the results table.
struct Row {
    case: String,
    what: String,
    want: String,
    got: String,
    exit: i32,
    pass: bool,
    why: String,
}

fn check(r: &Real, c: &Case) -> Row {
    let mut args = vec![
        "doctor",
        "pod",
        c.pod.as_str(),
        "-n",
        r.ns.as_str(),
        "-o",
        "json",
    ];
    if c.probe_node {
        args.push("--probe-node");
    }
    if c.kernel_log {
        args.push("--probe-kernel-log");
    }
    if c.probe_nfs {
        args.push("--probe-nfs");
    }
    // What the probe saw is kept, as an operator's `--save` keeps it: fixtures/real/ holds such
    // saves, replayed offline by tests/real_captures.rs.
    let save = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("real-saves")
        .join(&r.ns)
        .join(format!(
            "{}{}",
            c.pod,
            if c.probe_nfs { "-nfs" } else { "" }
        ))
        .to_string_lossy()
        .into_owned();
    if c.probe_node {
        let _ = std::fs::remove_dir_all(&save);
        args.extend(["--save", save.as_str()]);
    }
    let out = r.volmnt(&args);
    out.assert_no_panic();
    let case = match (c.probe_node, c.kernel_log, c.probe_nfs) {
        (true, true, _) => format!("{} --probe-node --probe-kernel-log", c.pod),
        (true, false, true) => format!("{} --probe-node --probe-nfs", c.pod),
        (true, false, false) => format!("{} --probe-node", c.pod),
        _ => c.pod.clone(),
    };
    let want = match &c.want {
        Want::Cause(w) => format!("{w} (exit 1)"),
        Want::Open(ws) => format!("{} (exit 1)", ws.join(" or ")),
        Want::Ok => "ok (exit 0)".into(),
    };
    let mut why = Vec::new();
    let doc = if out.stdout.trim_start().starts_with('{') {
        out.json()
    } else {
        why.push(format!("no JSON: {}", out.stderr.trim()));
        Value::Null
    };
    let findings: Vec<(String, f64)> = doc["findings"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|f| {
            (
                f["cause"].as_str().unwrap_or("").to_string(),
                f["confidence"].as_f64().unwrap_or(0.0),
            )
        })
        .collect();
    let status = doc["status"].as_str().unwrap_or("?").to_string();
    let got = match findings.first() {
        Some((cause, conf)) if status != "ok" => format!("{status}: {cause} {conf:.2}"),
        _ => status.clone(),
    };
    let top = findings.first().map(|f| f.0.as_str()).unwrap_or("");
    match &c.want {
        Want::Cause(w) => {
            if out.code != 1 {
                why.push(format!("exit {}", out.code));
            }
            if status != "stuck" {
                why.push(format!("status {status}"));
            }
            if top != *w {
                why.push(format!("top cause {top}"));
            }
        }
        Want::Open(ws) => {
            if out.code != 1 {
                why.push(format!("exit {}", out.code));
            }
            if !ws.contains(&top) {
                why.push(format!("top cause {top}"));
            }
            let last = ws[ws.len() - 1];
            if !findings.iter().any(|f| f.0 == last) {
                why.push(format!("{last} not among the candidates"));
            }
        }
        Want::Ok => {
            if out.code != 0 {
                why.push(format!("exit {}", out.code));
            }
            if status != "ok" {
                why.push(format!("status {status}"));
            }
        }
    }
    if let Some(q) = c.quote {
        let ev = doc["findings"][0]["evidence"].to_string();
        if !ev.contains(&q.replace('"', "\\\"")) {
            why.push(format!("the evidence does not quote {q:?}"));
        }
    }
    if c.pod == "iscsi-attach" {
        // Issue 19: the volume was listed as "other" in the report's header.
        let vols = doc["subject"]["volumes"].to_string();
        if !vols.contains("data (iscsi 127.0.0.1:3260") {
            why.push(format!("volumes {vols}"));
        }
    }
    Row {
        case,
        what: c.what.clone(),
        want,
        got,
        exit: out.code,
        pass: why.is_empty(),
        why: why.join("; "),
    }
}

fn table(rows: &[Row], r: &Real, skipped: &[(String, String)]) -> String {
    let mut t = String::new();
    let _ =
        writeln!(
        t,
        "real cluster: kube-apiserver + kubelet v1.36 (node realnode), kube-controller-manager {}",
        if r.controllers { "running" } else { "not running" }
    );
    let _ = writeln!(
        t,
        "\n| case | what the node does | expected | volmnt's verdict | exit | |"
    );
    let _ = writeln!(t, "|---|---|---|---|---|---|");
    for row in rows {
        let _ = writeln!(
            t,
            "| {} | {} | {} | {} | {} | {} |",
            row.case,
            row.what,
            row.want,
            row.got,
            row.exit,
            if row.pass {
                "ok".to_string()
            } else {
                format!("**FAIL**: {}", row.why)
            }
        );
    }
    for (c, why) in skipped {
        let _ = writeln!(t, "| {c} | not produced here: {why} | | | | skipped |");
    }
    t
}

/// Every real case, one namespace, one table.
#[test]
fn real_stuck_pods_are_diagnosed() {
    let r = real_or_skip!();
    assert!(
        is_root(),
        "the real-cluster suite makes loop devices and writes the kubelet's plugin dir: run it as root"
    );
    struct Cleanup<'a>(&'a Real);
    impl Drop for Cleanup<'_> {
        fn drop(&mut self) {
            self.0.cleanup();
        }
    }
    let _cleanup = Cleanup(&r);
    let cases = make_cases(&r);
    let started = Instant::now();

    // claim-bound-later: wait for the kubelet to say the claim is not bound, then bind it.
    assert!(
        wait_for(Duration::from_secs(90), || r
            .events_of("claim-bound-later")
            .iter()
            .any(|(_, m)| m.contains("not bound"))),
        "no 'not bound' event for claim-bound-later: {:?}",
        r.events_of("claim-bound-later")
    );
    let later = format!("{}-later", r.ns);
    r.apply(&pv(
        &later,
        &format!(
            "volmnt-real-manual-{}",
            r.ns.trim_start_matches("volmnt-real-")
        ),
        &format!(
            "local: {{path: /var/lib/volmnt-real/{}/later-absent}}",
            r.ns
        ),
        true,
    ));
    r.bind("later", &later);

    let (run, skipped): (Vec<&Case>, Vec<&Case>) = cases.iter().partition(|c| c.skip.is_none());
    let pending = |c: &&Case| {
        let node = r.get_json(&["node", "realnode"]);
        !shown(&r, c, &node)
    };
    let shown_all = wait_for(Duration::from_secs(150), || {
        run.iter().filter(|c| !c.probe_node).all(|c| !pending(c))
    });
    let late: Vec<&str> = run
        .iter()
        .filter(|c| !c.probe_node && pending(c))
        .map(|c| c.pod.as_str())
        .collect();
    eprintln!(
        "real: every case shown after {:.0?} ({} not: {late:?})",
        started.elapsed(),
        late.len()
    );
    let rows: Vec<Row> = run.iter().map(|c| check(&r, c)).collect();
    let skipped: Vec<(String, String)> = skipped
        .iter()
        .map(|c| {
            let name = if c.probe_node {
                format!("{} --probe-node", c.pod)
            } else {
                c.pod.clone()
            };
            (name, c.skip.clone().unwrap_or_default())
        })
        .collect();
    // Issue 26, on the real node: the node's whole kubelet log (`-f`, as --help suggests)
    // and the node probe added to every plain case leave its first cause as it was, and never
    // lower its confidence (the log also holds the pod's own lines, which may settle it).
    let kubelet_log =
        std::env::var("VOLMNT_REAL_KUBELET_LOG").unwrap_or_else(|_| "/var/log/kubelet.log".into());
    // What each pod may be diagnosed as, by any of its cases (plain, or probed with the
    // pod's own deciding fact): the node's evidence may settle a plain case into what its
    // probed case expects, never into anything else.
    let mut answers: std::collections::BTreeMap<&str, Vec<&str>> = Default::default();
    for c in &run {
        let a = answers.entry(c.pod.as_str()).or_default();
        match &c.want {
            Want::Cause(w) => a.push(w),
            Want::Open(ws) => a.extend(ws.iter().copied()),
            Want::Ok => a.push("(none)"),
        }
    }
    let mut moved = Vec::new();
    let mut held = 0;
    for c in run.iter().filter(|c| !c.probe_node) {
        let top = |extra: &[&str]| -> (String, f64) {
            let mut args = vec![
                "doctor",
                "pod",
                c.pod.as_str(),
                "-n",
                r.ns.as_str(),
                "-o",
                "json",
            ];
            args.extend_from_slice(extra);
            // Kept (as --save keeps it), to replay what moved.
            let save = Path::new(env!("CARGO_TARGET_TMPDIR"))
                .join("real-saves/issue-26")
                .join(format!("{}{}", c.pod, extra.first().copied().unwrap_or("")))
                .to_string_lossy()
                .into_owned();
            let _ = std::fs::remove_dir_all(&save);
            args.extend(["--save", save.as_str()]);
            let out = r.volmnt(&args);
            out.assert_no_panic();
            if !out.stdout.trim_start().starts_with('{') {
                return (format!("no JSON: {}", out.stderr.trim()), 0.0);
            }
            let doc = out.json();
            let f = &doc["findings"][0];
            (
                f["cause"].as_str().unwrap_or("(none)").to_string(),
                f["confidence"].as_f64().unwrap_or(0.0),
            )
        };
        let base = top(&[]);
        let mut variants: Vec<(&str, Vec<&str>)> = vec![("--probe-node", vec!["--probe-node"])];
        if Path::new(&kubelet_log).is_file() {
            variants.push((
                "-f the node's kubelet log",
                vec!["-f", kubelet_log.as_str()],
            ));
        }
        for (what, extra) in variants {
            let got = top(&extra);
            held += 1;
            let same = got.0 == base.0 && got.1 + 1e-9 >= base.1;
            let own_deciding_fact = got.0 != base.0
                && got.1 + 1e-9 >= base.1
                && answers[c.pod.as_str()].contains(&got.0.as_str());
            if !same && !own_deciding_fact {
                moved.push(format!(
                    "  {} + {what}: {} {:.2} -> {} {:.2}",
                    c.pod, base.0, base.1, got.0, got.1
                ));
            }
        }
    }
    eprintln!(
        "real, issue 26: {held} runs adding the node's kubelet log or its probe to a plain case; {} moved the verdict",
        moved.len()
    );
    let t = table(&rows, &r, &skipped);
    eprintln!("{t}");
    let file = concat!(env!("CARGO_TARGET_TMPDIR"), "/real-cluster.md");
    let _ = std::fs::write(file, &t);
    eprintln!("(written to {file})");
    let failed: Vec<&Row> = rows.iter().filter(|r| !r.pass).collect();
    assert!(
        moved.is_empty(),
        "the node's own evidence moved verdicts it has nothing to do with:\n{}",
        moved.join("\n")
    );
    assert!(
        shown_all && failed.is_empty(),
        "{} of {} real cases wrong; {} never showed their failure: {late:?}\n{t}",
        failed.len(),
        rows.len(),
        late.len()
    );
}
