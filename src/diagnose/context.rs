//! The context that tells look-alike messages apart: which filesystem family a message is about
//! (from its mount command, its volume plugin, its CSI driver, the shape of its source, or the
//! volume objects in the case) and what each of the pod's volumes is.

use std::collections::HashMap;

use k8s_openapi::api::core::v1::{PersistentVolume, Volume};
use serde::Serialize;

use super::catalogue::{catalogue, FsFamily};
use crate::model::Case;
use crate::parse::mount_error::{self, MountError};

/// What the case says about one volume: its family and the names the remediation needs.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct VolumeHint {
    pub fs: FsFamily,
    pub fstype: Option<String>,
    /// The volume's name in the pod spec.
    pub pod_volume: Option<String>,
    pub pvc: Option<String>,
    pub pv: Option<String>,
    pub driver: Option<String>,
    /// In-tree (`spec.nfs`, `spec.rbd`, ...) rather than CSI.
    pub in_tree: bool,
    pub server: Option<String>,
    pub export: Option<String>,
    /// `pool/image` for RBD volumes.
    pub rbd_image: Option<String>,
    /// Local or hostPath path.
    pub path: Option<String>,
    /// The storage system's id of the volume: a CSI volumeHandle, an in-tree disk id or URI.
    pub handle: Option<String>,
    /// The names kubelet and the attach/detach controller give the volume in a node's
    /// status.volumesInUse / volumesAttached (see `unique_names`).
    pub unique_names: Vec<String>,
    /// One line saying where the hint came from (`PV nfs211: nfs 10.20.172.211:/nfs`).
    pub describe: String,
}

/// Volume hints of a case, by every name a message may use for the volume.
#[derive(Debug, Clone, Default)]
pub struct Hints {
    by_name: HashMap<String, VolumeHint>,
    /// The pod's only storage volume, when it has exactly one.
    only: Option<VolumeHint>,
}

impl Hints {
    /// The hint for exactly this pod volume or PV name.
    pub fn get(&self, name: &str) -> Option<&VolumeHint> {
        self.by_name.get(name)
    }

    /// The hint for the volume a message names, or the pod's only storage volume.
    pub fn for_volume(&self, name: Option<&str>) -> Option<&VolumeHint> {
        name.and_then(|n| {
            self.by_name
                .get(n)
                // ≤1.8 names: kubernetes.io/nfs/<uid>-<volume>
                .or_else(|| {
                    self.by_name
                        .iter()
                        .find(|(k, _)| n.ends_with(&format!("-{k}")))
                        .map(|(_, v)| v)
                })
        })
        .or(self.only.as_ref())
    }

    pub fn all(&self) -> impl Iterator<Item = &VolumeHint> {
        let mut seen: Vec<&VolumeHint> = Vec::new();
        for v in self.by_name.values() {
            if !seen.contains(&v) {
                seen.push(v);
            }
        }
        seen.into_iter()
    }
}

/// One message with everything read out of it.
#[derive(Debug, Clone, Default)]
pub struct MsgContext {
    pub error: MountError,
    pub fs: FsFamily,
    /// Why `fs` was chosen, for the evidence (`mount -t nfs`, `plugin kubernetes.io/nfs`).
    pub fs_reason: Option<String>,
    pub fstype: Option<String>,
    /// Mount options no manual lists for this filesystem.
    pub unusual_options: Vec<String>,
    pub volume: Option<VolumeHint>,
    /// The message itself, whole up to a bound (evidence quotes are cut): names it gives late
    /// (the VM a disk is attached to, the rbd CLI's hint) are read from here.
    pub text: String,
}

/// Most of a message kept in its context.
const MAX_CONTEXT_TEXT: usize = 16 * 1024;

/// Family of an fstype as mount(8) names it.
pub fn family_of_fstype(fstype: &str) -> FsFamily {
    match fstype {
        "nfs" | "nfs4" | "nfs3" => FsFamily::Nfs,
        "cifs" | "smb3" | "smbfs" => FsFamily::Cifs,
        "glusterfs" | "fuse.glusterfs" => FsFamily::Glusterfs,
        "ceph" | "ceph-fuse" | "fuse.ceph-fuse" => FsFamily::Cephfs,
        "ext2" | "ext3" | "ext4" | "xfs" | "btrfs" | "vfat" | "ntfs" | "zfs" | "f2fs" => {
            FsFamily::Block
        }
        _ => FsFamily::Unknown,
    }
}

/// Family from the shape of a mount source: `host:/path`, `//host/share`, `/dev/x`, `mon:6789:/`.
fn family_of_source(source: &str) -> FsFamily {
    if source.starts_with("//") {
        FsFamily::Cifs
    } else if source.starts_with("/dev/") {
        FsFamily::Block
    } else if let Some((host, rest)) = source.split_once(':') {
        if host.is_empty() || host.contains('/') {
            FsFamily::Unknown
        } else if rest.starts_with('/') {
            FsFamily::Nfs
        } else if rest.split(':').next().is_some_and(|p| {
            p.split(',')
                .next()
                .unwrap_or("")
                .chars()
                .all(|c| c.is_ascii_digit())
        }) && rest.contains(":/")
        {
            FsFamily::Cephfs // mon1:6789,mon2:6789:/path
        } else {
            FsFamily::Glusterfs // host:volname
        }
    } else {
        FsFamily::Unknown
    }
}

/// Read a message in the light of the case.
pub fn context_for(text: &str, hints: &Hints) -> MsgContext {
    let error = mount_error::parse(text);
    let cat = catalogue();
    let volume = hints.for_volume(error.volume.as_deref()).cloned();
    let mount = error.mount.as_ref();
    // util-linux libmount (context_mount.c, ENODEV): "unknown filesystem type '%s'": the
    // kernel has no such filesystem, whoever ran mount (a FlexVolume driver's own `mount -t
    // cifs` shows no `Mounting arguments:`).
    static UNKNOWN_FS: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r"unknown filesystem type '([A-Za-z0-9_.-]+)'").expect("static regex")
    });
    let unknown_fs = UNKNOWN_FS.captures(text).map(|c| c[1].to_string());
    let fstype = mount
        .and_then(|m| m.fstype.clone())
        .or_else(|| volume.as_ref().and_then(|v| v.fstype.clone()))
        .or_else(|| unknown_fs.clone());

    let mut pick: Option<(FsFamily, String)> = None;
    let mut consider = |fam: FsFamily, why: String| {
        if pick.is_none() && fam != FsFamily::Unknown {
            pick = Some((fam, why));
        }
    };
    if let Some(t) = mount.and_then(|m| m.fstype.as_deref()) {
        consider(family_of_fstype(t), format!("mount -t {t}"));
    }
    if let Some(t) = &unknown_fs {
        consider(
            family_of_fstype(t),
            format!("unknown filesystem type '{t}'"),
        );
    }
    if let Some(p) = &error.plugin {
        if let Some(f) = cat.plugin_families.get(p) {
            consider(*f, format!("volume plugin {p}"));
        }
    }
    if let Some(d) = &error.driver {
        consider(cat.driver_family(d), format!("CSI driver {d}"));
    }
    if let Some(s) = mount.and_then(|m| m.source.as_deref()) {
        consider(family_of_source(s), format!("mount source {s}"));
    }
    if text.contains("mount.nfs") {
        consider(FsFamily::Nfs, "mount.nfs output".into());
    }
    if text.contains("mount error(") || text.contains("mount.cifs") {
        consider(FsFamily::Cifs, "mount.cifs output".into());
    }
    if text.contains("iscsiadm") || text.contains("rbd: ") || text.contains("rbd image ") {
        consider(FsFamily::Block, "iSCSI/RBD output".into());
    }
    if let Some(d) = &error.device {
        consider(FsFamily::Block, format!("block device {d}"));
    }
    if let Some(v) = &volume {
        consider(v.fs, v.describe.clone());
    }
    let (fs, fs_reason) = match pick {
        Some((f, why)) => (f, Some(why)),
        None => (FsFamily::Unknown, None),
    };
    let unusual_options = match (fstype.as_deref(), mount) {
        (Some(t), Some(m)) => cat.unusual_options(t, &m.options),
        _ => Vec::new(),
    };
    MsgContext {
        error,
        fs,
        fs_reason,
        fstype,
        unusual_options,
        volume,
        text: {
            let mut end = MAX_CONTEXT_TEXT.min(text.len());
            while !text.is_char_boundary(end) {
                end -= 1;
            }
            text[..end].to_string()
        },
    }
}

/// Build the volume hints from the pod, its claims and the PVs in the case.
pub fn hints_from_case(case: &Case) -> Hints {
    let mut hints = Hints::default();
    let pv_hint = |pv: &PersistentVolume| hint_of_pv(pv);
    for pv in &case.pvs {
        if let Some(name) = &pv.metadata.name {
            hints.by_name.insert(name.clone(), pv_hint(pv));
        }
    }
    let pod = match &case.pod {
        Some(p) => p,
        None => {
            if case.pvs.len() == 1 {
                hints.only = hints.by_name.values().next().cloned();
            }
            return hints;
        }
    };
    let pod_name = pod.metadata.name.clone().unwrap_or_default();
    let mut storage: Vec<VolumeHint> = Vec::new();
    for vol in pod.spec.iter().flat_map(|s| s.volumes.iter().flatten()) {
        let mut h = hint_of_pod_volume(vol, &pod_name);
        if let Some(claim) = &h.pvc {
            // claim → PV (from the PVC's volumeName, or a PV whose claimRef names the claim)
            let pv = case
                .pvcs
                .iter()
                .find(|c| c.metadata.name.as_deref() == Some(claim))
                .and_then(|c| c.spec.as_ref()?.volume_name.clone())
                .and_then(|n| {
                    case.pvs
                        .iter()
                        .find(|p| p.metadata.name.as_deref() == Some(&n))
                })
                .or_else(|| {
                    case.pvs.iter().find(|p| {
                        p.spec
                            .as_ref()
                            .and_then(|s| s.claim_ref.as_ref())
                            .is_some_and(|r| r.name.as_deref() == Some(claim))
                    })
                });
            if let Some(pv) = pv {
                let mut from_pv = pv_hint(pv);
                from_pv.pod_volume = h.pod_volume.clone();
                from_pv.pvc = h.pvc.clone();
                h = from_pv;
            }
        }
        if h.fs != FsFamily::Unknown || h.pvc.is_some() {
            storage.push(h.clone());
        }
        if let Some(n) = &h.pod_volume {
            hints.by_name.insert(n.clone(), h.clone());
        }
        if let Some(n) = &h.pv {
            hints.by_name.insert(n.clone(), h);
        }
    }
    if storage.len() == 1 {
        hints.only = storage.pop();
    }
    hints
}

/// A volume source, whether it sits in a pod spec or a PV spec (their k8s-openapi types differ).
enum Src<'a> {
    Nfs(&'a str, &'a str),
    Rbd(Option<&'a str>, &'a str, Option<&'a String>),
    CephFs(Option<&'a String>),
    Glusterfs(&'a str),
    Iscsi(&'a str, Option<&'a String>),
    /// In-tree cloud disks: plugin name, disk id, fsType.
    Disk(&'static str, &'a str, Option<&'a String>),
    Csi(
        &'a str,
        Option<&'a String>,
        Option<&'a std::collections::BTreeMap<String, String>>,
        Option<&'a str>,
    ),
    Local(&'a str, Option<&'a String>),
    HostPath(&'a str),
}

/// Fill a hint from a source; `what` names where it sits (`pod volume data`, `PV pv-1`).
fn apply_source(h: &mut VolumeHint, src: Src, what: &str) {
    let tree = if h.pv.is_some() { "in-tree " } else { "" };
    match src {
        Src::Nfs(server, path) => {
            h.fs = FsFamily::Nfs;
            h.server = Some(server.to_string());
            h.export = Some(path.to_string());
            h.describe = format!("{what}: {tree}nfs {server}:{path}");
        }
        Src::Rbd(pool, image, fs_type) => {
            h.fs = FsFamily::Block;
            h.fstype = fs_type.cloned();
            h.rbd_image = Some(format!("{}/{image}", pool.unwrap_or("rbd")));
            h.describe = format!("{what}: {tree}rbd image {image}");
        }
        Src::CephFs(path) => {
            h.fs = FsFamily::Cephfs;
            h.export = path.cloned();
            h.describe = format!("{what}: {tree}cephfs");
        }
        Src::Glusterfs(path) => {
            h.fs = FsFamily::Glusterfs;
            h.export = Some(path.to_string());
            h.describe = format!("{what}: {tree}glusterfs {path}");
        }
        Src::Iscsi(portal, fs_type) => {
            h.fs = FsFamily::Block;
            h.fstype = fs_type.cloned();
            h.describe = format!("{what}: {tree}iscsi {portal}");
        }
        Src::Disk(plugin, id, fs_type) => {
            h.fs = FsFamily::Block;
            h.handle = Some(id.to_string());
            h.fstype = fs_type.cloned();
            h.describe = format!("{what}: {tree}{plugin} {id}");
        }
        Src::Csi(driver, fs_type, attrs, handle) => {
            h.in_tree = false;
            h.handle = handle.map(str::to_string);
            h.driver = Some(driver.to_string());
            h.fs = catalogue().driver_family(driver);
            h.fstype = fs_type.cloned();
            if let Some(attrs) = attrs {
                // ceph-csi: pool + imageName (+ radosNamespace); csi-driver-nfs: server + share.
                if let (Some(pool), Some(image)) = (attrs.get("pool"), attrs.get("imageName")) {
                    h.rbd_image = Some(
                        match attrs.get("radosNamespace").filter(|n| !n.is_empty()) {
                            Some(ns) => format!("{pool}/{ns}/{image}"),
                            None => format!("{pool}/{image}"),
                        },
                    );
                }
                if let Some(server) = attrs.get("server") {
                    h.server = Some(server.clone());
                    h.export = attrs.get("share").cloned();
                }
            }
            h.describe = format!("{what}: CSI driver {driver}");
        }
        Src::Local(path, fs_type) => {
            h.path = Some(path.to_string());
            h.fstype = fs_type.cloned();
            h.describe = format!("{what}: local {path}");
        }
        Src::HostPath(path) => {
            h.path = Some(path.to_string());
            h.describe = format!("{what}: hostPath {path}");
        }
    }
}

pub(crate) fn hint_of_pod_volume(v: &Volume, pod_name: &str) -> VolumeHint {
    let mut h = VolumeHint {
        pod_volume: Some(v.name.clone()),
        in_tree: true,
        ..VolumeHint::default()
    };
    if let Some(c) = &v.persistent_volume_claim {
        h.pvc = Some(c.claim_name.clone());
        h.in_tree = false;
        h.describe = format!("volume {} uses claim {}", v.name, c.claim_name);
        return h;
    }
    if v.ephemeral.is_some() {
        // Generic ephemeral volumes get a claim named <pod>-<volume>.
        h.pvc = Some(format!("{pod_name}-{}", v.name));
        h.in_tree = false;
        h.describe = format!("generic ephemeral volume {}", v.name);
        return h;
    }
    let src = if let Some(n) = &v.nfs {
        Src::Nfs(&n.server, &n.path)
    } else if let Some(r) = &v.rbd {
        Src::Rbd(r.pool.as_deref(), &r.image, r.fs_type.as_ref())
    } else if let Some(c) = &v.cephfs {
        Src::CephFs(c.path.as_ref())
    } else if let Some(g) = &v.glusterfs {
        Src::Glusterfs(&g.path)
    } else if let Some(i) = &v.iscsi {
        Src::Iscsi(&i.target_portal, i.fs_type.as_ref())
    } else if let Some(e) = &v.aws_elastic_block_store {
        Src::Disk("aws-ebs", &e.volume_id, e.fs_type.as_ref())
    } else if let Some(c) = &v.csi {
        Src::Csi(
            &c.driver,
            c.fs_type.as_ref(),
            c.volume_attributes.as_ref(),
            None,
        )
    } else if let Some(p) = &v.host_path {
        Src::HostPath(&p.path)
    } else if let Some(f) = &v.flex_volume {
        // A FlexVolume driver runs on the host, as the kubelet's own plugin: its filesystem
        // says what it mounts (`cifs` through `mount -t cifs` and the host's helper).
        h.fstype = f.fs_type.clone();
        if let Some(t) = &f.fs_type {
            h.fs = family_of_fstype(t);
        }
        h.describe = format!("pod volume {}: flexVolume {}", v.name, f.driver);
        return h;
    } else {
        return h;
    };
    apply_source(&mut h, src, &format!("pod volume {}", v.name));
    h.unique_names = inline_unique_names(v);
    h
}

/// The unique names of an attachable volume written inline in a pod spec (the same as for a
/// PV with that source, see `unique_names`): iscsi `portal:iqn:lun`, rbd `pool:image`, fc.
pub fn inline_unique_names(v: &Volume) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(i) = &v.iscsi {
        out.push(format!(
            "kubernetes.io/iscsi/{}:{}:{}",
            i.target_portal, i.iqn, i.lun
        ));
    }
    if let Some(r) = &v.rbd {
        let pool = r.pool.as_deref().unwrap_or("rbd");
        out.push(format!("kubernetes.io/rbd/{pool}:{}", r.image));
    }
    if let Some(f) = &v.fc {
        let wwns = f.target_wwns.clone().unwrap_or_default();
        let wwids = f.wwids.clone().unwrap_or_default();
        match (wwns.is_empty(), f.lun) {
            (false, Some(lun)) => out.push(format!("kubernetes.io/fc/[{}]:{lun}", wwns.join(" "))),
            _ if !wwids.is_empty() => out.push(format!("kubernetes.io/fc/[{}]", wwids.join(" "))),
            _ => {}
        }
    }
    out
}

/// The unique volume names a node's status.volumesInUse and volumesAttached use for a PV:
/// - CSI: `kubernetes.io/csi/<driver>^<volumeHandle>` (pkg/volume/csi/csi_plugin.go
///   GetVolumeName: driver + "^" + handle, behind the plugin name "kubernetes.io/csi");
/// - in-tree plugins: `kubernetes.io/<plugin>/<name>` with the plugin's GetVolumeName
///   (pkg/volume/util/volumehelper GetUniqueVolumeName): rbd `pool:image`, aws-ebs the volume
///   id, gce-pd the disk name, azure-disk the disk URI, cinder the volume id, iscsi
///   `portal:iqn:lun`, vsphere-volume the volume path (pkg/volume/vsphere_volume
///   GetVolumeName: `[datastore] dir/disk.vmdk`), fc Go's `%v` of the target WWNs with the LUN
///   (`[wwn1 wwn2]:0`) or of the WWIDs (`[wwid]`) (pkg/volume/fc/fc.go GetVolumeName);
/// - in-tree volumes under CSI migration carry the CSI driver's name instead
///   (k8s.io/csi-translation-lib: ebs.csi.aws.com, pd.csi.storage.gke.io, disk.csi.azure.com,
///   cinder.csi.openstack.org; their handles: the EBS id, `projects/UNSPECIFIED/zones/…/disks/…`,
///   the disk URI, the Cinder id).
pub fn unique_names(pv: &PersistentVolume) -> Vec<String> {
    let Some(spec) = &pv.spec else {
        return Vec::new();
    };
    let mut out = Vec::new();
    if let Some(c) = &spec.csi {
        out.push(format!(
            "kubernetes.io/csi/{}^{}",
            c.driver, c.volume_handle
        ));
    }
    if let Some(r) = &spec.rbd {
        let pool = r.pool.as_deref().unwrap_or("rbd");
        out.push(format!("kubernetes.io/rbd/{pool}:{}", r.image));
    }
    if let Some(e) = &spec.aws_elastic_block_store {
        out.push(format!("kubernetes.io/aws-ebs/{}", e.volume_id));
        let id = e.volume_id.rsplit('/').next().unwrap_or(&e.volume_id);
        out.push(format!("kubernetes.io/csi/ebs.csi.aws.com^{id}"));
    }
    if let Some(g) = &spec.gce_persistent_disk {
        out.push(format!("kubernetes.io/gce-pd/{}", g.pd_name));
        // The migrated handle names the zone, which only the PV's topology gives: match the
        // disk name at the end instead (see `matches_unique`).
        out.push(format!(
            "kubernetes.io/csi/pd.csi.storage.gke.io^*/disks/{}",
            g.pd_name
        ));
    }
    if let Some(a) = &spec.azure_disk {
        out.push(format!("kubernetes.io/azure-disk/{}", a.disk_uri));
        out.push(format!(
            "kubernetes.io/csi/disk.csi.azure.com^{}",
            a.disk_uri
        ));
    }
    if let Some(c) = &spec.cinder {
        out.push(format!("kubernetes.io/cinder/{}", c.volume_id));
        out.push(format!(
            "kubernetes.io/csi/cinder.csi.openstack.org^{}",
            c.volume_id
        ));
    }
    if let Some(i) = &spec.iscsi {
        out.push(format!(
            "kubernetes.io/iscsi/{}:{}:{}",
            i.target_portal, i.iqn, i.lun
        ));
    }
    if let Some(v) = &spec.vsphere_volume {
        out.push(format!("kubernetes.io/vsphere-volume/{}", v.volume_path));
    }
    if let Some(f) = &spec.fc {
        let wwns = f.target_wwns.clone().unwrap_or_default();
        let wwids = f.wwids.clone().unwrap_or_default();
        match (wwns.is_empty(), f.lun) {
            (false, Some(lun)) => out.push(format!("kubernetes.io/fc/[{}]:{lun}", wwns.join(" "))),
            _ if !wwids.is_empty() => out.push(format!("kubernetes.io/fc/[{}]", wwids.join(" "))),
            _ => {}
        }
    }
    out
}

/// Whether a name from a node's status is one of `names` (a `*` stands for a handle prefix).
pub fn matches_unique(names: &[String], listed: &str) -> bool {
    names.iter().any(|n| match n.split_once('*') {
        Some((head, tail)) => listed.starts_with(head) && listed.ends_with(tail),
        None => n == listed,
    })
}

pub(crate) fn hint_of_pv(pv: &PersistentVolume) -> VolumeHint {
    let name = pv.metadata.name.clone().unwrap_or_default();
    let mut h = VolumeHint {
        pv: Some(name.clone()),
        in_tree: true,
        unique_names: unique_names(pv),
        ..VolumeHint::default()
    };
    let Some(spec) = &pv.spec else {
        return h;
    };
    h.pvc = spec.claim_ref.as_ref().and_then(|r| r.name.clone());
    let src = if let Some(n) = &spec.nfs {
        Src::Nfs(&n.server, &n.path)
    } else if let Some(r) = &spec.rbd {
        Src::Rbd(r.pool.as_deref(), &r.image, r.fs_type.as_ref())
    } else if let Some(c) = &spec.cephfs {
        Src::CephFs(c.path.as_ref())
    } else if let Some(g) = &spec.glusterfs {
        Src::Glusterfs(&g.path)
    } else if let Some(i) = &spec.iscsi {
        Src::Iscsi(&i.target_portal, i.fs_type.as_ref())
    } else if let Some(e) = &spec.aws_elastic_block_store {
        Src::Disk("aws-ebs", &e.volume_id, e.fs_type.as_ref())
    } else if let Some(g) = &spec.gce_persistent_disk {
        Src::Disk("gce-pd", &g.pd_name, g.fs_type.as_ref())
    } else if let Some(a) = &spec.azure_disk {
        Src::Disk("azure-disk", &a.disk_uri, a.fs_type.as_ref())
    } else if let Some(l) = &spec.local {
        Src::Local(&l.path, l.fs_type.as_ref())
    } else if let Some(p) = &spec.host_path {
        Src::HostPath(&p.path)
    } else if let Some(c) = &spec.csi {
        Src::Csi(
            &c.driver,
            c.fs_type.as_ref(),
            c.volume_attributes.as_ref(),
            Some(&c.volume_handle),
        )
    } else {
        h.describe = format!("PV {name}");
        return h;
    };
    apply_source(&mut h, src, &format!("PV {name}"));
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn source_shapes() {
        assert_eq!(family_of_source("10.20.172.211:/nfs"), FsFamily::Nfs);
        assert_eq!(family_of_source("fileserver:/documents"), FsFamily::Nfs);
        assert_eq!(family_of_source("//srv/share"), FsFamily::Cifs);
        assert_eq!(family_of_source("/dev/rbd0"), FsFamily::Block);
        assert_eq!(
            family_of_source("10.0.0.1:6789,10.0.0.2:6789:/vol"),
            FsFamily::Cephfs
        );
        assert_eq!(
            family_of_source("192.168.105.95:heketidbstorage"),
            FsFamily::Glusterfs
        );
        assert_eq!(family_of_source("tmpfs"), FsFamily::Unknown);
    }

    #[test]
    fn the_mount_command_decides_before_anything_else() {
        let c = context_for(
            "MountVolume.SetUp failed for volume \"x\" : mount failed: exit status 32 Mounting command: systemd-run Mounting arguments: --description=Kubernetes transient mount for /var/lib/kubelet/pods/e2531fbe-a133-11e8-b55d-000c2931d938/volumes/kubernetes.io~glusterfs/heketi-storage --scope -- mount -t glusterfs 192.168.105.95:heketidbstorage /var/lib/kubelet/pods/e2531fbe-a133-11e8-b55d-000c2931d938/volumes/kubernetes.io~glusterfs/heketi-storage Output: mount: unknown filesystem type 'glusterfs'",
            &Hints::default(),
        );
        assert_eq!(c.fs, FsFamily::Glusterfs);
        assert_eq!(c.fs_reason.as_deref(), Some("mount -t glusterfs"));
    }

    #[test]
    fn plugin_path_and_driver_decide_when_there_is_no_command() {
        let c = context_for("mount: /var/lib/kubelet/plugins/kubernetes.io/aws-ebs/mounts/vol-1: wrong fs type, bad option, bad superblock on /dev/nvme3n1, missing codepage or helper program, or other error.", &Hints::default());
        assert_eq!(c.fs, FsFamily::Block);
        let c = context_for(
            "driver name hostpath.csi.k8s.io not found in the list of registered CSI drivers",
            &Hints::default(),
        );
        assert_eq!(c.error.driver.as_deref(), Some("hostpath.csi.k8s.io"));
    }
}
