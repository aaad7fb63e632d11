//! The verdict's first clause: what is wrong, with the objects at fault named (the ConfigMap or
//! Secret and its key, the claim and its class, the driver and the node, the path, the device,
//! the server and the export), worded from the names this case gives. A rule that read the
//! answer off the objects words it itself (`Acc::headline`, e.g. the claim and its missing
//! StorageClass); for the others this table does, per cause: the first wording whose names are
//! all known is used, none when none is (the verdict then says the cause's title). Only names
//! known from the case go in, so a clause never guesses.

use super::steps::{fill_command, Vars};

/// Per cause, the wordings in order of preference. Causes that only say *that* a volume is
/// stuck (symptoms) have none: their verdict says so in its own words.
const WORDINGS: &[(&str, &[&str])] = &[
    (
        "nfs_client_missing",
        &["the NFS client (mount.nfs) is not installed on node {node}"],
    ),
    (
        "fs_helper_missing",
        &[
            "node {node} lacks {programs} (the {client})",
            "node {node} lacks {programs}",
            "node {node} lacks the mount helper or tool the volume needs",
        ],
    ),
    (
        "nfs_server_unreachable",
        &[
            "NFS server {server} does not answer node {node}",
            "NFS server {server} cannot be reached",
        ],
    ),
    (
        "nfs_access_denied",
        &[
            "NFS server {server} refuses node {node} access to export {export}",
            "NFS server {server} refuses access to export {export}",
            "NFS server {server} refuses access",
        ],
    ),
    (
        "nfs_export_missing",
        &[
            "export {export} does not exist on NFS server {server}",
            "the export does not exist on NFS server {server}",
        ],
    ),
    (
        "nfs_version_unsupported",
        &["NFS server {server} does not offer the NFS version or transport asked for"],
    ),
    (
        "nfs_statd_missing",
        &["rpc.statd is not running on node {node} (NFSv3 locking)"],
    ),
    (
        "stale_file_handle",
        &[
            "NFS export {server}:{export} gives a stale file handle on node {node}",
            "the NFS mount on node {node} has a stale file handle",
        ],
    ),
    (
        "rbd_lock_held",
        &[
            "RBD image {image} is locked by {locker} on {holder_node}",
            "RBD image {image} is locked by {locker}",
            "RBD image {image} is locked by another client",
        ],
    ),
    (
        "rbd_watcher_stale",
        &[
            "RBD image {image} is still watched by {watcher_addr}",
            "RBD image {image} is still watched by another client",
        ],
    ),
    (
        "multi_attach",
        &[
            "PersistentVolume {pv} is still attached to node {other_node}",
            "PersistentVolume {pv} is still attached to another node",
        ],
    ),
    (
        "attach_timeout",
        &[
            "CSI driver {driver} did not attach the volume to node {node} in time",
            "the volume was not attached to node {node} in time",
        ],
    ),
    (
        "csi_call_failed",
        &["CSI driver {driver} failed the call on node {node}"],
    ),
    (
        "volume_missing_on_backend",
        &["the storage system has no volume for PersistentVolume {pv}"],
    ),
    (
        "attach_failed_cloud",
        &[
            "the cloud refused or failed to attach the disk to node {node} (CSI driver {driver})",
            "the cloud refused or failed to attach the disk to node {node}",
        ],
    ),
    (
        "csi_driver_not_registered",
        &[
            "CSI driver {driver} is not registered on node {node}",
            "CSI driver {driver} is not registered on the node",
        ],
    ),
    (
        "csi_operation_pending",
        &[
            "CSI driver {driver} is still busy with an earlier operation on volume {volume}",
            "CSI driver {driver} is still busy with an earlier operation on the volume",
        ],
    ),
    (
        "pvc_unbound_or_missing",
        &["PersistentVolumeClaim {namespace}/{pvc} is missing or not bound"],
    ),
    (
        "configmap_or_secret_missing",
        &[
            "{object_title} {namespace}/{object_name} has no key {object_key}",
            "{object_title} {namespace}/{object_name} does not exist",
            "{object_title} {object_name} does not exist",
            "key {object_key} is missing from a ConfigMap or Secret the pod mounts",
        ],
    ),
    (
        "block_fs_corrupt_or_unformatted",
        &[
            "device {device} of PersistentVolume {pv} has no filesystem, another one, or a damaged one",
            "the device of PersistentVolume {pv} has no filesystem, another one, or a damaged one",
        ],
    ),
    (
        "partitioned_disk",
        &[
            "device {device} of PersistentVolume {pv} holds a partition table; the filesystem is in a partition",
            "the disk of PersistentVolume {pv} holds a partition table; the filesystem is in a partition",
        ],
    ),
    (
        "mkfs_options_rejected",
        &[
            "mkfs refused the options it was given for PersistentVolume {pv}; device {device} is still blank",
            "mkfs refused the options it was given for PersistentVolume {pv}; the device is still blank",
        ],
    ),
    (
        "invalid_mount_option",
        &[
            "PersistentVolume {pv} passes mount options {fstype} does not take ({options})",
            "PersistentVolume {pv} passes a mount option its filesystem does not take",
        ],
    ),
    (
        "xfs_duplicate_uuid",
        &["an XFS filesystem with the same UUID as {device_check} is already mounted on node {node}"],
    ),
    (
        "fs_features_unsupported_by_kernel",
        &[
            "the kernel of node {node} does not support the features of the filesystem on {device}",
            "the kernel of node {node} does not support the filesystem's features",
        ],
    ),
    (
        "rbd_image_features_unsupported",
        &[
            "RBD image {image} has features the kernel rbd driver of node {node} does not support",
            "RBD image {image} has features the node's kernel rbd driver does not support",
        ],
    ),
    (
        "device_missing",
        &[
            "device {device} is not on node {node}",
            "the volume's device is not on node {node}",
        ],
    ),
    (
        "local_path_missing",
        &["path {path} does not exist on node {node}"],
    ),
    (
        "hostpath_type_mismatch",
        &[
            "hostPath {path} on node {node} is not a {hostpath_kind}",
            "hostPath {path} on node {node} fails its type check",
        ],
    ),
    (
        "kubelet_dir_or_propagation",
        &["the kubelet or the CSI plugin on node {node} does not see the host's paths"],
    ),
    (
        "permission_denied_or_selinux",
        &[
            "permission is denied on {path}",
            "permission is denied preparing PersistentVolume {pv}",
        ],
    ),
    (
        "subpath_failure",
        &["the subPath of volume {volume} could not be prepared"],
    ),
    (
        "device_busy",
        &[
            "device {device_check} on node {node} is busy",
            "a device or mount point on node {node} is busy",
        ],
    ),
    (
        "readonly_or_io_error",
        &["PersistentVolume {pv} is read-only or gives I/O errors"],
    ),
    (
        "smb_access_denied",
        &[
            "SMB server {server} refuses the credentials or share {share}",
            "SMB server {server} refuses the credentials or the share",
        ],
    ),
    (
        "smb_share_not_found",
        &["SMB share //{server}/{share} does not exist"],
    ),
    (
        "gluster_endpoints_missing",
        &["the GlusterFS Endpoints object is missing in namespace {namespace}"],
    ),
    (
        "storage_backend_unreachable",
        &[
            "CSI driver {driver} cannot reach its storage at {endpoint_host}:{endpoint_port} from node {node}",
            "CSI driver {driver} cannot reach its storage from node {node}",
        ],
    ),
    (
        "storage_backend_error",
        &["the storage of CSI driver {driver} reported an error"],
    ),
    (
        "volume_not_ready",
        &["PersistentVolume {pv} is not ready on the storage side"],
    ),
    (
        "pv_node_affinity_conflict",
        &["PersistentVolume {pv} can only be used on other nodes than {node}"],
    ),
    (
        "kernel_module_missing",
        &[
            "the kernel of node {node} has no {module}",
            "the kernel of node {node} has no driver for this filesystem or transport",
        ],
    ),
    (
        "kernel_module_mismatch",
        &[
            "kernel module {module} on node {node} does not fit the running kernel",
            "a kernel module on node {node} does not fit the running kernel",
        ],
    ),
    (
        "ceph_auth_failed",
        &["Ceph refuses the credentials of CSI driver {driver}"],
    ),
    (
        "fuse_mount_broken",
        &["a FUSE or network mount on node {node} is broken"],
    ),
    (
        "volume_mode_mismatch",
        &["the pod and PersistentVolumeClaim {namespace}/{claim} disagree on the volume mode"],
    ),
    (
        "storage_capacity_exhausted",
        &[
            "the storage of CSI driver {driver} has no room for PersistentVolumeClaim {namespace}/{claim}",
            "the storage of CSI driver {driver} has no room for the volume",
        ],
    ),
    (
        "storage_node_not_ready",
        &["the storage system's agent on node {node} is down or not registered"],
    ),
    (
        "storage_replicas_unavailable",
        &["PersistentVolume {pv} has no healthy replica"],
    ),
    (
        "storage_credentials_rejected",
        &["the storage refuses the credentials of CSI driver {driver}"],
    ),
    (
        "array_host_not_registered",
        &["node {node} is not registered on the storage array"],
    ),
    (
        "node_not_in_storage_topology",
        &[
            "node {node} is not one the storage class of PersistentVolumeClaim {namespace}/{claim} can place volumes on",
            "node {node} is not one the storage class can place volumes on",
        ],
    ),
    (
        "fuse_daemon_failed",
        &["the FUSE daemon of CSI driver {driver} did not mount on node {node}"],
    ),
    (
        "multipath_misconfigured",
        &["multipathd on node {node} gives the volume no usable multipath device"],
    ),
];

/// The clause for `cause` from this case's names, or `None` when no wording has all its names.
pub fn wording(cause: &str, vars: &Vars) -> Option<String> {
    let (_, forms) = WORDINGS.iter().find(|(id, _)| *id == cause)?;
    forms.iter().find_map(|t| fill_command(t, vars).ok())
}

/// Every cause the table words (for its test against the catalogue).
#[cfg(test)]
pub fn worded() -> impl Iterator<Item = &'static str> {
    WORDINGS.iter().map(|(id, _)| *id)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnose::catalogue::catalogue;

    /// Every cause that names a cause (not a symptom, not `unknown`) has a wording, and every
    /// wording is for a cause the catalogue has, with names the steps know.
    #[test]
    fn every_cause_has_a_wording_and_every_wording_a_cause() {
        let cat = catalogue();
        for id in worded() {
            assert!(cat.cause(id).is_some(), "{id} is not a cause");
        }
        let worded: Vec<&str> = worded().collect();
        for c in &cat.causes {
            if c.symptom || c.id == "unknown" || c.id == "volume_operation_failed" {
                continue;
            }
            assert!(worded.contains(&c.id.as_str()), "{} has no wording", c.id);
        }
    }

    #[test]
    fn the_first_wording_with_all_its_names_is_used() {
        let mut v = Vars::new();
        v.insert("object_title", "Secret".into());
        v.insert("object_name", "db-creds".into());
        v.insert("namespace", "shop".into());
        assert_eq!(
            wording("configmap_or_secret_missing", &v).as_deref(),
            Some("Secret shop/db-creds does not exist")
        );
        v.insert("object_key", "password".into());
        assert_eq!(
            wording("configmap_or_secret_missing", &v).as_deref(),
            Some("Secret shop/db-creds has no key password")
        );
        assert_eq!(wording("nfs_client_missing", &Vars::new()), None);
        assert_eq!(wording("mount_timeout", &v), None);
    }
}
