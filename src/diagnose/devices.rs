//! Which block device the pod's failure is about, and which of the node's kernel lines can be
//! about it: the kernel names every device on the node, and reuses loop and nbd numbers at once.
//! Read when the messages are gathered (which kernel lines to classify) and by the
//! differential's facts (which kernel and kubelet lines to quote).

use regex::Regex;

use crate::model::Case;

/// Which of the node's kernel lines (oldest first) can be about the pod's failure. The kernel
/// names every device on the node: a line about another device than the pod's is not; a line
/// about the pod's device from before the device was attached anew was about the disk that had
/// its name then; and when the pod's volumes are known and none is a block device, no line
/// about a block device is.
pub(crate) fn kernel_lines_kept<'a>(
    lines: impl Iterator<Item = &'a str> + Clone,
    device: Option<&str>,
    no_block: bool,
) -> Vec<bool> {
    let since = device
        .and_then(|d| {
            lines
                .clone()
                .enumerate()
                .filter(|(_, l)| attached_anew(l, d))
                .last()
        })
        .map_or(0, |(i, _)| i + 1);
    lines
        .enumerate()
        .map(|(i, l)| {
            if names_other_device(l, device) {
                return false;
            }
            if let Some(d) = device {
                if i < since && names_device(l, d) {
                    return false;
                }
            }
            !(no_block && kernel_devices(l).next().is_some())
        })
        .collect()
}

/// Whether a kernel log line is about a block device other than the pod's (`/dev/rbd0`): the
/// kernel names devices without `/dev/` (`EXT4-fs (rbd1): ...`, `blk_update_request: I/O error,
/// dev sdb, ...`, `XFS (dm-3): ...`). A line naming no device, or when the pod's device is not
/// known, is not ruled out: a node's log is mostly about other things, but not provably so.
pub(crate) fn names_other_device(line: &str, pod_device: Option<&str>) -> bool {
    let Some(dev) = pod_device else {
        return false;
    };
    let disk = disk_of(dev);
    let mut named = kernel_devices(line).peekable();
    if named.peek().is_none() {
        return false;
    }
    !named.any(|d| d == disk)
}

/// The kernel's name of the disk a device path is or is a partition of (`/dev/sdb1` -> `sdb`,
/// `/dev/loop10` -> `loop10`, `/dev/nvme0n1p2` -> `nvme0n1`).
fn disk_of(device: &str) -> &str {
    let base = device.rsplit('/').next().unwrap_or(device);
    kernel_devices(base).next().unwrap_or(base)
}

/// Whether a kernel line names this device (`XFS (loop1): ...` for `/dev/loop1`, a partition
/// of it too).
pub(crate) fn names_device(line: &str, device: &str) -> bool {
    let disk = disk_of(device);
    kernel_devices(line).any(|d| d == disk)
}

/// The block devices a kernel line names, as the kernel names them (`rbd1`, `sdb`, `loop0`,
/// `dm-3`; a partition by its disk).
fn kernel_devices(line: &str) -> impl Iterator<Item = &str> {
    static KDEV: std::sync::LazyLock<Regex> = std::sync::LazyLock::new(|| {
        Regex::new(r"\b((?:sd|vd|xvd)[a-z]+|nvme[0-9]+n[0-9]+|(?:rbd|nbd|drbd|loop)[0-9]+|dm-[0-9]+)(?:p?[0-9]+)?\b")
            .expect("static regex")
    });
    KDEV.captures_iter(line)
        .map(|c| c.get(1).map_or("", |m| m.as_str()))
}

/// Whether a kernel line says the device was attached anew (a loop device set up on a file, a
/// disk that appeared): what the kernel said under that name before was about another disk
/// (loop and nbd numbers are reused at once). The kernel's words: block/genhd.c
/// set_capacity_and_notify "%s: detected capacity change from %lld to %lld" (from 0: a device
/// that was empty, as loop_configure leaves a loop device before its file's size is set),
/// drivers/scsi/sd.c "Attached SCSI disk", drivers/block/rbd.c "%s: capacity %llu features",
/// drivers/block/virtio_blk.c and sd.c "[%s] %llu %d-byte logical blocks" on a probe (a resize
/// says "new size:" first).
pub(crate) fn attached_anew(line: &str, device: &str) -> bool {
    let base = disk_of(device);
    if base.is_empty() {
        return false;
    }
    let at = |needle: &str| line.find(needle);
    if let Some(i) = at(&format!("{base}: detected capacity change from 0 to ")) {
        return line[..i].ends_with(' ') || line[..i].ends_with(']') || i == 0;
    }
    if let Some(i) = at(&format!("[{base}] ")) {
        let rest = &line[i + base.len() + 3..];
        if rest.starts_with("Attached SCSI ") {
            return true;
        }
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        if digits > 0 && rest[digits..].starts_with(' ') && rest.contains("-byte logical blocks") {
            return true;
        }
    }
    at(&format!("rbd: {base}: capacity ")).is_some()
}

/// Whether a line names a device path (`/dev/sdc`) and none of them is the pod's device (or a
/// partition of it).
pub(crate) fn names_other_dev_path(line: &str, pod_device: Option<&str>) -> bool {
    let Some(dev) = pod_device else {
        return false;
    };
    let mut named = DEV_PATH
        .captures_iter(line)
        .map(|c| c.get(1).map_or("", |m| m.as_str()))
        .peekable();
    if named.peek().is_none() {
        return false;
    }
    !named.any(|d| d == dev || disk_of(d) == disk_of(dev))
}

/// A block device path in a message (`/dev/rbd0`, `/dev/mapper/x`).
static DEV_PATH: std::sync::LazyLock<Regex> = std::sync::LazyLock::new(|| {
    Regex::new(r"(/dev/(?:sd|vd|xvd|nvme|rbd|nbd|dm-|drbd|loop|longhorn/|mapper/)[A-Za-z0-9_./-]*[A-Za-z0-9])")
        .expect("static regex")
});

/// The block device the pod's failure names (`/dev/rbd0`), from the messages (not from the
/// node's kernel log, which names every device on the node).
pub(crate) fn pod_device(case: &Case) -> Option<String> {
    case.events
        .iter()
        .map(|e| e.message.as_str())
        .chain(case.logs.iter().map(|l| l.message.as_str()))
        .chain(
            case.messages
                .iter()
                .filter(|m| !m.label.starts_with(crate::model::KERNEL_LOG_LABEL))
                .map(|m| m.text.as_str()),
        )
        .find_map(|t| DEV_PATH.captures(t).map(|c| c[1].to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A loop number is reused at once: what the kernel said of loop5 before `loop5: detected
    /// capacity change from 0 to ...` was about the disk that had the name then; a line about
    /// another device is never the pod's; with no block volume, no device line is.
    #[test]
    fn kernel_lines_about_a_reused_device_name_before_it_was_attached_are_dropped() {
        let lines = [
            "[10.0] EXT4-fs (loop5): VFS: Can't find ext4 filesystem",
            "[11.0] loop5: detected capacity change from 0 to 614400",
            "[12.0] XFS (loop5): Superblock has unknown read-only compatible features (0x80000000) enabled.",
            "[13.0] XFS (loop6): Filesystem has duplicate UUID 65a8888f-bc89-4bec-bcb3-cb463494f828 - can't mount",
            "[14.0] nfs: server 10.0.0.1 not responding",
        ];
        let kept = kernel_lines_kept(lines.iter().copied(), Some("/dev/loop5"), false);
        // (The attach line itself goes too: it is no failure.)
        assert_eq!(kept, [false, false, true, false, true]);
        // The pod's volumes are all NFS: no line about a block device is about it.
        let kept = kernel_lines_kept(lines.iter().copied(), None, true);
        assert_eq!(kept, [false, false, false, false, true]);
        assert!(attached_anew(lines[1], "/dev/loop5"));
        assert!(!attached_anew(lines[1], "/dev/loop50"));
    }
}
