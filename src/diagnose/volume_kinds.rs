//! What kind of storage a volume or a failing mount is: the client package its mount needs
//! (`nfs`, `rbd`, `iscsi`, ...), read from the message's context or the program it names, and
//! the kinds (`block`, `nfs`, `rbd`, ...) the evidence and suspect rules are written for. The
//! steps (which client to install) and the differential (which rules apply) both ask.

use std::collections::BTreeSet;
use std::sync::LazyLock;

use regex::Regex;

use super::catalogue::FsFamily;
use super::context::{context_for, family_of_fstype, Hints, MsgContext, VolumeHint};
use crate::model::Case;

static TOOL_MISSING: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"(?:exec: "|unknown filesystem type '|failed to execute |can't execute ')(?:/[a-z/]*/)?([a-z0-9._-]+)|\b(iscsiadm|iscsid|rbd|mount\.(?:nfs4?|cifs|glusterfs|ceph)|multipathd?|mkfs\.(?:xfs|ext[234])|xfs)\b"#)
        .expect("static regex")
});

/// Which client package a helper-missing message needs.
pub fn client_of(ctx: &MsgContext) -> Option<String> {
    client_for(ctx).map(str::to_string)
}

pub(crate) fn client_for(ctx: &MsgContext) -> Option<&'static str> {
    match ctx.fs {
        FsFamily::Nfs => return Some("nfs"),
        FsFamily::Cifs => return Some("cifs"),
        FsFamily::Glusterfs => return Some("glusterfs"),
        FsFamily::Cephfs => return Some("cephfs"),
        _ => {}
    }
    let out = ctx.error.output.as_deref().unwrap_or("");
    // An in-tree iSCSI volume: its attacher runs iscsiadm (WaitForAttach, MountDevice), and
    // Go's exec error says only "executable file not found in $PATH", naming no program; the
    // volume's fsType (ext4) is then no clue to what is missing (seen on the real kubelet).
    let iscsi = ctx.volume.as_ref().is_some_and(|h| {
        h.unique_names
            .iter()
            .any(|n| n.starts_with("kubernetes.io/iscsi/"))
    });
    if iscsi && TOOL_MISSING.captures(out).is_none() {
        return Some("iscsi");
    }
    let t = format!("{out} {}", ctx.fstype.as_deref().unwrap_or(""));
    client_in_text(&t)
}

/// The client a missing program belongs to, from a message that names the program
/// (`exec: "rbd": executable file not found`, `iscsiadm: ...`, `mkfs.xfs`).
pub fn client_in_text(text: &str) -> Option<&'static str> {
    let tool = TOOL_MISSING
        .captures(text)
        .and_then(|c| c.get(1).or(c.get(2)))
        .map(|m| m.as_str().trim_end_matches('.').to_ascii_lowercase())?;
    client_of_program(&tool)
}

/// `mount.nfs` → `nfs`, `rbd` → `rbd`, `iscsiadm` → `iscsi`, `mkfs.xfs` → `xfs`.
pub fn client_of_program(tool: &str) -> Option<&'static str> {
    let t = tool.rsplit('/').next().unwrap_or(tool);
    let t = t
        .strip_prefix("mount.")
        .or_else(|| t.strip_prefix("mkfs."))
        .or_else(|| t.strip_prefix("fsck."))
        .unwrap_or(t);
    Some(match t {
        "nfs" | "nfs4" => "nfs",
        "cifs" | "smb3" | "smbfs" => "cifs",
        "glusterfs" => "glusterfs",
        "ceph" | "ceph-fuse" | "cephfs" => "cephfs",
        "rbd" | "rbd-nbd" => "rbd",
        "iscsiadm" | "iscsid" | "iscsi" | "iscsi_tcp" => "iscsi",
        "multipath" | "multipathd" => "multipath",
        "xfs" | "xfs_repair" | "xfs_admin" | "xfs_growfs" => "xfs",
        "ext4" | "ext3" | "ext2" | "e2fsck" | "resize2fs" | "tune2fs" => "ext4",
        _ => return None,
    })
}

/// The kinds of storage a failing mount is, from its message's context.
pub(crate) fn add_ctx(out: &mut BTreeSet<&'static str>, ctx: &MsgContext) {
    add_family(out, ctx.fs);
    add_fstype(out, ctx.fstype.as_deref());
    if let Some(h) = &ctx.volume {
        add_hint(out, h);
    }
    match client_for(ctx) {
        Some(c @ ("nfs" | "cifs" | "glusterfs" | "cephfs")) => {
            out.insert(c);
        }
        Some("rbd") => out.extend(["rbd", "block"]),
        Some("iscsi") => out.extend(["iscsi", "block"]),
        Some("xfs" | "ext4" | "multipath") => {
            out.insert("block");
        }
        _ => {}
    }
}

/// The kinds of storage the pod's volumes and its events' failing mounts are (before any
/// finding is made: for choosing which of the node's lines to read as messages).
pub(crate) fn case_kinds(case: &Case, hints: &Hints) -> BTreeSet<&'static str> {
    let mut out = volume_kinds(hints);
    for e in &case.events {
        let ctx = context_for(&e.message, hints);
        add_ctx(&mut out, &ctx);
    }
    out
}

/// The kinds of storage the pod's volumes are, from its spec, claims and PVs alone.
pub(crate) fn volume_kinds(hints: &Hints) -> BTreeSet<&'static str> {
    let mut out = BTreeSet::new();
    for h in hints.all() {
        add_hint(&mut out, h);
    }
    out
}

fn add_family(out: &mut BTreeSet<&'static str>, f: FsFamily) {
    if f != FsFamily::Unknown {
        out.insert(f.as_str());
    }
}

fn add_fstype(out: &mut BTreeSet<&'static str>, t: Option<&str>) {
    if let Some(t) = t {
        add_family(out, family_of_fstype(t));
    }
}

fn add_hint(out: &mut BTreeSet<&'static str>, h: &VolumeHint) {
    add_family(out, h.fs);
    add_fstype(out, h.fstype.as_deref());
    if h.path.as_deref().is_some_and(|p| p.starts_with("/dev/")) {
        out.insert("block");
    }
    let driver = h.driver.as_deref().unwrap_or("");
    if h.rbd_image.is_some()
        || driver.contains("rbd")
        || h.unique_names
            .iter()
            .any(|n| n.starts_with("kubernetes.io/rbd/"))
    {
        out.extend(["rbd", "block"]);
    }
    if driver.contains("iscsi")
        || h.unique_names
            .iter()
            .any(|n| n.starts_with("kubernetes.io/iscsi/"))
    {
        out.extend(["iscsi", "block"]);
    }
    if h.unique_names
        .iter()
        .any(|n| n.starts_with("kubernetes.io/fc/"))
    {
        out.insert("block");
    }
}
