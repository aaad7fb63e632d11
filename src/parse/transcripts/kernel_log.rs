//! The kernel's log: `dmesg` / `dmesg -T` (util-linux sys-utils/dmesg.c), `journalctl -k`
//! (systemd), `/var/log/kern.log|messages|syslog`, and audit AVC records (`ausearch`). Only the
//! kernel's own lines about storage are kept ([`KERNEL_STORAGE_PATTERN`], the same words the
//! probe greps).

use std::sync::LazyLock;

use regex::Regex;

use super::command::Command;
use super::reader::{added, noted, Kind, Outcome, Part, Reader, Shape, MAX_KERNEL_LINES};
use crate::model::NodeFacts;

static DMESG_LINE: LazyLock<Regex> = LazyLock::new(|| {
    // util-linux sys-utils/dmesg.c: `[%5ld.%06ld] ` (default), `[%a %b %e %H:%M:%S %Y] ` (-T,
    // strftime), and journalctl/syslog's `Mon DD HH:MM:SS host kernel: ` or ISO 8601 stamps.
    Regex::new(
        r"^(?:<\d+>)?\[\s*\d+\.\d+\]|^\[[A-Z][a-z]{2} [A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d \d{4}\]|^(?:[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d|\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\S*) \S+ kernel: |^type=[A-Z_]+ msg=audit\(",
    )
    .expect("static regex")
});

/// A kernel line as `dmesg --notime` (util-linux sys-utils/dmesg.c, `-t`) prints it: no stamp,
/// the subsystem's own prefix first (linux fs/xfs xfs_message "XFS (%s): ", fs/ext4
/// "EXT4-fs (%s): ", drivers/scsi "sd H:C:T:L: ", drivers/block/rbd.c "rbd: ", net/ceph
/// "libceph: ", block/blk-core.c, fs/buffer.c, drivers/md/dm "device-mapper: ").
static NOTIME_LINE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(?:XFS \([^)]+\): |EXT[234]-fs(?: error| warning)? \([^)]+\)|BTRFS \w+ \(device [^)]+\)|rbd: |libceph: |ceph: |nfs: |NFS: |NFS4: |lockd: |CIFS(?: VFS)?: |sd \d+:\d+:\d+:\d+: |scsi \d+:\d+:\d+:\d+: |blk_update_request: |I/O error, dev |Buffer I/O error on dev |device-mapper: |print_req_error: |iscsi|connection\d+:\d+: |session\d+: |FS-Cache: |fuse: |audit: type=\d+ )")
        .expect("static regex")
});

/// A syslog/journal line's prefix (`Feb 12 10:00:00 host prog[pid]: `, or journalctl's
/// short-iso), the program captured.
static SYSLOG_PREFIX: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(?:[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d|\d{4}-\d\d-\d\dT\S+) \S+ ([^\s:\[]+)(?:\[\d+\])?: ")
        .expect("static regex")
});

/// The words of a kernel log line that make it about storage: block devices, filesystems,
/// network filesystems and their transports, I/O errors, SELinux/AppArmor denials. The probe
/// greps with the same pattern (`grep -iE`, POSIX ERE: no `\b`, no lookaround), so a pasted
/// `dmesg` and the probe keep the same lines; a test checks probe.sh carries this exact text.
pub const KERNEL_STORAGE_PATTERN: &str = r"rbd|libceph|ceph|nfs|lockd[: ]|sunrpc|cifs|smb[23: ]|ksmbd|iscsi|scsi|\[sd[a-z]|\[vd[a-z]|xvd[a-z]|nvme|virtio_blk|dm-[0-9]|device-mapper|multipath|loop[0-9]|nbd[0-9]|drbd|blk_update_request|i/o error|buffer i/o|xfs|ext[234]|btrfs|jbd2|fuse[:. ]|fuseblk|vfs:|avc: +denied|apparmor=.denied";

static KERNEL_STORAGE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(&format!("(?i){KERNEL_STORAGE_PATTERN}")).expect("static regex"));

/// Whether a kernel log line is about storage ([`KERNEL_STORAGE_PATTERN`]).
pub fn is_storage_kernel_line(line: &str) -> bool {
    KERNEL_STORAGE.is_match(line)
}

/// The kernel log lines of a `dmesg` / `dmesg -T` / `journalctl -k` / syslog transcript that are
/// about storage, the newest [`MAX_KERNEL_LINES`]; and how many lines it had. In a syslog file
/// only the kernel's own lines count.
pub fn kernel_log_lines(text: &str) -> (Vec<String>, usize) {
    // A syslog line of another program (`Feb 12 10:00:00 host kubelet[123]: ...`) is not the
    // kernel's, whatever it says.
    let mut kept = Vec::new();
    let mut total = 0;
    for l in text.lines().map(|l| l.trim_end_matches('\r')) {
        if l.trim().is_empty() || l.starts_with("-- ") {
            continue; // journalctl's `-- No entries --` / `-- Boot ... --`
        }
        total += 1;
        let t = l.trim_start();
        if SYSLOG_PREFIX.captures(t).is_some_and(|c| &c[1] != "kernel") {
            continue;
        }
        if is_storage_kernel_line(t) {
            kept.push(t.to_string());
        }
    }
    if kept.len() > MAX_KERNEL_LINES {
        kept.drain(..kept.len() - MAX_KERNEL_LINES);
    }
    (kept, total)
}

/// The kernel's log, however it was shown.
pub const READER: Reader = Reader {
    kind: Kind::KernelLog,
    label: "kernel log",
    doc: "`dmesg`, `dmesg -T`, `journalctl -k`, `/var/log/kern.log|messages|syslog`, audit AVCs: \
          the kernel's lines about storage (the newest MAX_KERNEL_LINES), or dmesg's refusal \
          (kernel.dmesg_restrict)",
    samples: &[
        "dmesg-tail.txt",
        "dmesg-T-tail.txt",
        "journalctl-b-grep.txt",
        "var-log-messages-tail.txt",
    ],
    recognise,
    sniff: Some(sniff),
    read,
};

fn recognise(c: &Command) -> bool {
    match c.prog.as_str() {
        "dmesg" | "ausearch" => true,
        "journalctl" => {
            c.has("-k")
                || c.has("--dmesg")
                || c.args
                    .iter()
                    .any(|a| a.starts_with("-k") && !a.starts_with("--"))
                || c.line.contains("_TRANSPORT=kernel")
                || c.line.contains("-t kernel")
        }
        _ => c.reads(|p, _| {
            matches!(
                p,
                "/var/log/kern.log" | "/var/log/messages" | "/var/log/syslog" | "/var/log/dmesg"
            )
        }),
    }
}

fn sniff(s: &Shape) -> bool {
    if s.most(s.count(|l| DMESG_LINE.is_match(l.trim_start()))) {
        return true;
    }
    // `dmesg --notime`: no stamps, every line the kernel's own subsystem prefix.
    if s.most(s.count(|l| NOTIME_LINE.is_match(l.trim_start()))) {
        return true;
    }
    // A journal or syslog excerpt with the kernel's lines among other programs' (a kubelet's
    // journal is read as its log before this is asked).
    s.most(s.count(|l| SYSLOG_PREFIX.is_match(l.trim_start())))
        && s.lines.iter().any(|l| l.contains(" kernel: "))
}

fn read(p: &Part, facts: &mut NodeFacts) -> Option<Outcome> {
    let (text, source) = (p.text, p.source);
    if text.contains("read kernel buffer failed")
        || text.contains("klogctl") && text.contains("not permitted")
    {
        facts.add_unavailable(format!(
            "kernel log: {source}: dmesg could not read the kernel buffer (kernel.dmesg_restrict=1 without CAP_SYSLOG)"
        ));
        facts.dmesg_restrict.get_or_insert(true);
        p.mark(facts, &["dmesg_restrict"]);
        return noted("dmesg refused (dmesg_restrict)".into(), &["dmesg_restrict"]);
    }
    let (lines, total) = kernel_log_lines(text);
    if total == 0 {
        return None;
    }
    let n = lines.len();
    for l in lines {
        if !facts.kernel_log.contains(&l) {
            facts.kernel_log.push(l);
        }
    }
    if facts.kernel_log.len() > MAX_KERNEL_LINES {
        let extra = facts.kernel_log.len() - MAX_KERNEL_LINES;
        facts.kernel_log.drain(..extra);
    }
    facts.log_sources.push(format!("kernel: {source}"));
    added(
        format!("{n} of {total} kernel log line(s) about storage"),
        &["kernel_log"],
    )
}

/// The probe's `[kernel-log]` section (lines it already chose with [`KERNEL_STORAGE_PATTERN`]):
/// its storage lines, and whether dmesg refused to read the ring buffer. dmesg's refusal
/// (`dmesg: read kernel buffer failed: Operation not permitted`) is no kernel line: it says the
/// ring buffer could not be read.
pub fn probe_section_lines(text: &str) -> (Vec<String>, bool) {
    let mut lines: Vec<String> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(str::to_string)
        .collect();
    let before = lines.len();
    lines.retain(|l| {
        !(l.contains("read kernel buffer failed")
            || l.starts_with("dmesg:")
            || l.contains("klogctl"))
    });
    let refused = lines.len() < before;
    lines.retain(|l| is_storage_kernel_line(l));
    (lines, refused)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::NodeFacts;
    use crate::parse::transcripts::testing::{facts_of, fixture, parts};
    use crate::parse::transcripts::{apply, sniff, Kind};

    #[test]
    fn kernel_log_keeps_storage_lines_of_the_kernel_only() {
        for file in [fixture!("dmesg-tail.txt"), fixture!("dmesg-T-tail.txt")] {
            let f = facts_of(file);
            assert_eq!(f.kernel_log.len(), 2, "{:#?}", f.kernel_log);
            assert!(f.kernel_log[0].contains(
                "EXT4-fs (loop1): Couldn't mount because of unsupported optional features"
            ));
            assert!(f.kernel_log[1].contains("EXT4-fs (loop2): VFS: Can't find ext4 filesystem"));
            let body = parts(file).remove(0).1;
            assert_eq!(sniff(&body), Some(Kind::KernelLog));
        }
        // systemd-fsck names xfs too, but it is not the kernel.
        let f = facts_of(fixture!("journalctl-b-grep.txt"));
        assert_eq!(f.kernel_log.len(), 2, "{:#?}", f.kernel_log);
        assert!(f
            .kernel_log
            .iter()
            .all(|l| l.contains("kernel: XFS (vda4)")));
        let f = facts_of(fixture!("var-log-messages-tail.txt"));
        assert_eq!(f.kernel_log.len(), 4, "{:#?}", f.kernel_log);
        assert!(!f.kernel_log.iter().any(|l| l.contains("Please review")));
        // Audit AVC denials are kept, the SYSCALL record that follows is not.
        let (kept, total) = kernel_log_lines(
            "type=AVC msg=audit(1590840690.471:714): avc:  denied  { create } for  pid=17975 comm=\"mkdir\"\ntype=SYSCALL msg=audit(1590840690.471:714): arch=c000003e syscall=83\n",
        );
        assert_eq!((kept.len(), total), (1, 2));
        // dmesg refused
        let mut f = NodeFacts::default();
        apply(
            Kind::KernelLog,
            Some("dmesg"),
            "dmesg: read kernel buffer failed: Operation not permitted\n",
            &mut f,
            "t",
        )
        .unwrap();
        assert_eq!(f.dmesg_restrict, Some(true));
        assert!(
            f.unavailable[0].contains("could not read the kernel buffer"),
            "{:?}",
            f.unavailable
        );
        assert!(f.kernel_log.is_empty());
    }

    #[test]
    fn dmesg_notime_lines_are_read_as_the_kernel_log() {
        let text = "XFS (rbd1): Mounting V5 Filesystem\nXFS (rbd1): Filesystem has duplicate UUID 3d5e1a2b-0000-4c1d-9e0f-112233445566 - can't mount\n";
        assert_eq!(sniff(text), Some(Kind::KernelLog));
        let mut f = NodeFacts::default();
        apply(Kind::KernelLog, None, text, &mut f, "t").unwrap();
        assert_eq!(f.kernel_log.len(), 2, "{:?}", f.kernel_log);
        // A raw mount message is not a kernel log.
        assert_ne!(
            sniff("MountVolume.SetUp failed for volume \"x\" : mount failed: exit status 32\n"),
            Some(Kind::KernelLog)
        );
    }

    #[test]
    fn the_probe_greps_the_same_storage_words() {
        let probe = include_str!("../../collect/node/probe.sh");
        assert!(
            probe.contains(&format!("KPAT='{KERNEL_STORAGE_PATTERN}'")),
            "probe.sh's KPAT differs from KERNEL_STORAGE_PATTERN"
        );
        for (line, keep) in [
            (
                "[12.3] XFS (rbd0): Filesystem has duplicate UUID 2d3e - can't mount",
                true,
            ),
            ("[1.0] sd 2:0:0:0: [sdb] Attached SCSI disk", true),
            ("[1.0] Buffer I/O error on dev dm-3, logical block 0", true),
            (
                "[1.0] nfs: server 10.0.0.1 not responding, still trying",
                true,
            ),
            (
                "[1.0] libceph: mon0 10.0.0.1:6789 socket closed (con state CONNECTING)",
                true,
            ),
            (
                "[1.0] audit: type=1400 apparmor=\"DENIED\" operation=\"mount\"",
                true,
            ),
            (
                "[0.1] Kernel is locked down from Kernel configuration",
                false,
            ),
            ("[1.0] e1000: eth0 NIC Link is Up", false),
            ("[1.0] Connection refused by peer", false),
        ] {
            assert_eq!(is_storage_kernel_line(line), keep, "{line}");
        }
    }
}
