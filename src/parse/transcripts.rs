//! Transcripts of commands run on a node (what an operator pastes into a ticket, and what the
//! node probe prints in the same formats) → the same [`NodeFacts`] whatever the source. One
//! parser per format, each pure and tested on real output; [`kind_of_command`] and [`sniff`] say
//! which format a transcript part is (by its `$ command` prompt, or by its own shape), [`apply`]
//! adds what it says to the facts and names the fact families it filled.
//!
//! Where each format is defined (read at the source, cited beside each parser):
//! util-linux (blkid, lsblk, findmnt, dmesg, mount), kmod (lsmod, modprobe, modinfo),
//! multipath-tools (`multipath -ll`, multipath.conf), open-iscsi (`iscsiadm -m session`),
//! rpcbind (`rpcinfo`), nfs-utils (`showmount`), coreutils (`uname`, `df`), systemd
//! (`systemctl status`, `journalctl -k`), procps (`ps`, `pgrep`, `sysctl`), dpkg, rpm, apk-tools,
//! SELinux's `getenforce`/`sestatus`, os-release(5).
//!
//! Nothing here judges: a missing helper is recorded as looked-for-and-missing, never as "the
//! cause". Secrets in kubelet flags are redacted here, as they are read.

use std::collections::BTreeMap;
use std::sync::LazyLock;

use regex::Regex;

use crate::model::{
    BlkidEntry, DfEntry, IscsiInfo, KubeletInfo, ModuleState, MountEntry, MultipathInfo,
    MultipathMap, NfsServerAnswer, NodeFacts,
};
use crate::parse::mountinfo;
use crate::parse::probe::parse_os_release;

/// The most kernel log lines kept from one source (the newest): the probe keeps as many.
pub const MAX_KERNEL_LINES: usize = 2000;
/// The most entries kept of any other list (blkid rows, mounts, packages) from one source.
pub const MAX_ENTRIES: usize = 20_000;

/// The formats volmnt reads as node facts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `uname -r`, `uname -a`, `/proc/version`.
    Uname,
    /// `/etc/os-release` (or `/etc/redhat-release`), or a Node's `osImage` asked for by jsonpath.
    OsRelease,
    /// `dmesg`, `dmesg -T`, `journalctl -k`, `/var/log/kern.log|messages|syslog`, audit AVCs.
    KernelLog,
    /// `lsmod`, `/proc/modules`.
    Lsmod,
    /// `modprobe`, `modinfo`, `insmod` (their answers and errors).
    Kmod,
    /// The kubelet's command line or unit: `ps`, `pgrep -a`, `/proc/PID/cmdline`, `systemctl cat
    /// kubelet`, `docker inspect kubelet`, MicroK8s' args file, `kubeadm-flags.env`.
    Kubelet,
    /// Is a program there: `which`, `command -v`, `type`, `ls -l /sbin/mount.nfs`.
    Lookup,
    /// `dpkg -s|-l`, `rpm -q|-qa`, `apk info|list`.
    Packages,
    /// `blkid`, `blkid -p`, `blkid -o export`.
    Blkid,
    /// `lsblk -f` (or any `lsblk -o` with FSTYPE/UUID).
    Lsblk,
    /// `findmnt` (tree, `-l`, `-r`, `-P`, `-o ...`).
    Findmnt,
    /// `mount` (no arguments), `/proc/*/mountinfo`, `/proc/mounts`.
    MountTable,
    /// `multipath -ll` / `-l`.
    Multipath,
    /// `multipathd show config`, `/etc/multipath.conf`.
    MultipathConf,
    /// `iscsiadm -m session`.
    Iscsi,
    /// `/etc/iscsi/initiatorname.iscsi`.
    InitiatorName,
    /// `rpcinfo -p HOST`, `rpcinfo -s HOST`.
    Rpcinfo,
    /// `showmount -e HOST`.
    Showmount,
    /// `df`, `df -h`, `df -i`, `df -T`, `df -P`.
    Df,
    /// `systemctl status UNIT`, `systemctl is-active UNIT`, `service UNIT status`.
    Systemctl,
    /// `sysctl kernel.dmesg_restrict`, `/proc/sys/kernel/dmesg_restrict`.
    Sysctl,
    /// `getenforce`, `sestatus`, `/etc/selinux/config`.
    Selinux,
    /// `/proc/filesystems`.
    Filesystems,
}

impl Kind {
    /// How the report names it.
    pub fn label(self) -> &'static str {
        match self {
            Kind::Uname => "uname",
            Kind::OsRelease => "os-release",
            Kind::KernelLog => "kernel log",
            Kind::Lsmod => "lsmod",
            Kind::Kmod => "modprobe/modinfo",
            Kind::Kubelet => "kubelet command line",
            Kind::Lookup => "program lookup",
            Kind::Packages => "package query",
            Kind::Blkid => "blkid",
            Kind::Lsblk => "lsblk",
            Kind::Findmnt => "findmnt",
            Kind::MountTable => "mount table",
            Kind::Multipath => "multipath -ll",
            Kind::MultipathConf => "multipath config",
            Kind::Iscsi => "iscsiadm -m session",
            Kind::InitiatorName => "initiatorname.iscsi",
            Kind::Rpcinfo => "rpcinfo",
            Kind::Showmount => "showmount -e",
            Kind::Df => "df",
            Kind::Systemctl => "systemctl status",
            Kind::Sysctl => "sysctl",
            Kind::Selinux => "SELinux mode",
            Kind::Filesystems => "/proc/filesystems",
        }
    }
}

// --- the command line ---------------------------------------------------------------------------

/// Split a shell command into words (quotes removed; no expansion). Good enough for the commands
/// people paste; `$(...)` and backquotes stay inside one word.
pub fn words(cmd: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quote: Option<char> = None;
    let mut depth = 0usize;
    let mut any = false;
    let mut prev = '\0';
    for c in cmd.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => cur.push(c),
            (None, '(') if prev == '$' || depth > 0 => {
                depth += 1;
                cur.push(c);
            }
            (None, ')') if depth > 0 => {
                depth -= 1;
                cur.push(c);
            }
            (None, c) if depth > 0 => cur.push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                any = true;
            }
            (None, c) if c.is_whitespace() => {
                if any || !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                }
                any = false;
            }
            (None, c) => cur.push(c),
        }
        prev = c;
    }
    if any || !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// The stages of a pipeline (`a | b`) of the command line's first command (what follows `;`,
/// `&&` or `||` printed after it and is not its output), a `|` inside quotes or `$(...)` not
/// counting.
fn split_pipeline(cmd: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut quote: Option<char> = None;
    let mut depth = 0usize;
    let mut start = 0;
    let mut end = cmd.len();
    let mut prev = '\0';
    let bytes = cmd.as_bytes();
    for (i, c) in cmd.char_indices() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '\'' | '"') => quote = Some(c),
            (None, '(') if prev == '$' || depth > 0 => depth += 1,
            (None, ')') if depth > 0 => depth -= 1,
            (None, ';') if depth == 0 => {
                end = i;
                break;
            }
            (None, '&') if depth == 0 && bytes.get(i + 1) == Some(&b'&') => {
                end = i;
                break;
            }
            (None, '|') if depth == 0 && bytes.get(i + 1) == Some(&b'|') => {
                end = i;
                break;
            }
            (None, '|') if depth == 0 => {
                out.push(&cmd[start..i]);
                start = i + 1;
            }
            _ => {}
        }
        prev = c;
    }
    out.push(&cmd[start..end]);
    out.into_iter().filter(|s| !s.trim().is_empty()).collect()
}

/// The command's first pipeline stage, without the wrappers that do not change what prints
/// (`sudo`, `nsenter ... --`, `chroot DIR`, `env X=Y`, `time`): `sudo nsenter -t 1 -m -- ls -l
/// /sbin/mount.nfs | head` → `["ls", "-l", "/sbin/mount.nfs"]`. Also returns the whole line's
/// later stages (for `| grep ...`).
pub fn first_stage(cmd: &str) -> (Vec<String>, Vec<Vec<String>>) {
    let mut stages = split_pipeline(cmd).into_iter().map(words);
    let mut w = stages.next().unwrap_or_default();
    while let Some(first) = w.first().map(|s| basename(s).to_string()) {
        match first.as_str() {
            "sudo" | "doas" => {
                w.remove(0);
                // sudo's own options (`-i`, `-u root`, `-E`).
                while w.first().is_some_and(|a| a.starts_with('-')) {
                    let o = w.remove(0);
                    if matches!(o.as_str(), "-u" | "-g" | "-h" | "-p" | "-C") && !w.is_empty() {
                        w.remove(0);
                    }
                }
            }
            "time" | "exec" | "nohup" => {
                w.remove(0);
            }
            "env" => {
                w.remove(0);
                while w
                    .first()
                    .is_some_and(|a| a.contains('=') || a.starts_with('-'))
                {
                    w.remove(0);
                }
            }
            "chroot" => {
                w.remove(0);
                while w.first().is_some_and(|a| a.starts_with('-')) {
                    w.remove(0);
                }
                if !w.is_empty() {
                    w.remove(0); // the new root
                }
            }
            "nsenter" => {
                w.remove(0);
                match w.iter().position(|a| a == "--") {
                    Some(i) => {
                        w.drain(..=i);
                    }
                    None => {
                        // Options until the first word that is neither an option nor its value.
                        while let Some(a) = w.first() {
                            if !a.starts_with('-') {
                                break;
                            }
                            let takes_value = matches!(a.as_str(), "-t" | "--target" | "-S" | "-G");
                            w.remove(0);
                            if takes_value && !w.is_empty() {
                                w.remove(0);
                            }
                        }
                    }
                }
            }
            _ => break,
        }
    }
    (w, stages.collect())
}

fn basename(s: &str) -> &str {
    s.rsplit('/').next().unwrap_or(s)
}

/// Programs whose presence a lookup (`which`, `ls -l`) can tell: mount helpers and the storage
/// tools volmnt's steps name.
fn is_program_of_interest(name: &str) -> bool {
    name.starts_with("mount.")
        || name.starts_with("mkfs.")
        || name.starts_with("fsck.")
        || matches!(
            name,
            "rbd"
                | "rbd-nbd"
                | "ceph-fuse"
                | "iscsiadm"
                | "iscsid"
                | "multipath"
                | "multipathd"
                | "e2fsck"
                | "resize2fs"
                | "tune2fs"
                | "xfs_repair"
                | "xfs_growfs"
                | "xfs_admin"
                | "blkid"
                | "lsblk"
                | "findmnt"
                | "mount"
                | "umount"
                | "nsenter"
                | "systemd-run"
                | "showmount"
                | "rpcinfo"
                | "rpc.statd"
                | "rpcbind"
                | "jq"
                | "nfs-utils"
                | "glusterfs"
                | "s3fs"
                | "goofys"
                | "mount-s3"
                | "fusermount"
                | "fusermount3"
                | "cryptsetup"
                | "lvm"
                | "zfs"
                | "nvme"
                | "sg_inq"
        )
}

/// The file a `cat`-like command reads, when it reads one file.
fn read_file_arg(w: &[String]) -> Option<&str> {
    let prog = basename(w.first()?);
    if !matches!(
        prog,
        "cat"
            | "head"
            | "tail"
            | "less"
            | "more"
            | "grep"
            | "egrep"
            | "zcat"
            | "tac"
            | "awk"
            | "sed"
    ) {
        return None;
    }
    w[1..]
        .iter()
        .rev()
        .find(|a| a.starts_with('/') || a.contains("/etc/") || a.contains("proc/"))
        .map(String::as_str)
}

fn kind_of_file(path: &str) -> Option<Kind> {
    let p = path.trim_end_matches('/');
    let name = basename(p);
    Some(match p {
        _ if name == "os-release" || p.ends_with("/etc/redhat-release") => Kind::OsRelease,
        _ if p.starts_with("/proc/") && (name == "mountinfo" || name == "mounts") => {
            Kind::MountTable
        }
        "/etc/mtab" => Kind::MountTable,
        "/proc/modules" => Kind::Lsmod,
        "/proc/filesystems" => Kind::Filesystems,
        "/proc/version" => Kind::Uname,
        "/proc/sys/kernel/dmesg_restrict" => Kind::Sysctl,
        _ if p.starts_with("/proc/") && name == "cmdline" => Kind::Kubelet,
        _ if p.ends_with("iscsi/initiatorname.iscsi") => Kind::InitiatorName,
        _ if p.ends_with("/etc/multipath.conf") || p.contains("/etc/multipath/conf.d/") => {
            Kind::MultipathConf
        }
        "/var/log/kern.log" | "/var/log/messages" | "/var/log/syslog" | "/var/log/dmesg" => {
            Kind::KernelLog
        }
        _ if p.contains("microk8s") && p.ends_with("/args/kubelet") => Kind::Kubelet,
        "/etc/default/kubelet" | "/etc/sysconfig/kubelet" => Kind::Kubelet,
        _ if name == "kubeadm-flags.env" => Kind::Kubelet,
        _ if p.contains("kubelet.service") => Kind::Kubelet,
        _ if p.ends_with("/etc/selinux/config") => Kind::Selinux,
        _ if name == "config.yaml" && (p.contains("kubelet") || p.contains("/rancher/")) => {
            Kind::Kubelet
        }
        _ => return None,
    })
}

/// Which node transcript a prompt's command printed, or `None` when it is none of them (the
/// caller then reads it as something else: kubectl output, a log, a message).
pub fn kind_of_command(cmd: &str) -> Option<Kind> {
    let (w, _) = first_stage(cmd);
    let prog = basename(w.first()?);
    let args: Vec<&str> = w[1..].iter().map(String::as_str).collect();
    let has = |a: &str| args.contains(&a);
    let mentions_kubelet = || {
        let c = cmd.to_ascii_lowercase();
        ["kubelet", "kubelite", "k3s", "rke2", "k0s", "hyperkube"]
            .iter()
            .any(|k| c.contains(k))
    };
    Some(match prog {
        "uname" => Kind::Uname,
        "hostnamectl" => Kind::OsRelease,
        "dmesg" => Kind::KernelLog,
        "journalctl"
            if has("-k")
                || has("--dmesg")
                || args
                    .iter()
                    .any(|a| a.starts_with("-k") && !a.starts_with("--"))
                || cmd.contains("_TRANSPORT=kernel")
                || cmd.contains("-t kernel") =>
        {
            Kind::KernelLog
        }
        "ausearch" => Kind::KernelLog,
        "lsmod" => Kind::Lsmod,
        "modprobe" | "modinfo" | "insmod" => Kind::Kmod,
        "ps" | "pgrep" if mentions_kubelet() => Kind::Kubelet,
        "ps" => Kind::Kubelet, // the process list is read for its kubelet line, if any
        "systemctl" => match args.iter().find(|a| !a.starts_with('-')).copied() {
            Some("cat" | "show") if mentions_kubelet() => Kind::Kubelet,
            Some("status" | "is-active") => Kind::Systemctl,
            _ => return None,
        },
        "service" if args.contains(&"status") => Kind::Systemctl,
        "docker" | "crictl" | "podman" | "nerdctl"
            if args.first() == Some(&"inspect") && mentions_kubelet() =>
        {
            Kind::Kubelet
        }
        "which" | "type" | "whereis" => Kind::Lookup,
        "command" if has("-v") || has("-V") => Kind::Lookup,
        "ls" | "stat" | "file" => {
            let paths: Vec<&str> = args
                .iter()
                .filter(|a| !a.starts_with('-'))
                .copied()
                .collect();
            if !paths.is_empty()
                && paths
                    .iter()
                    .all(|p| is_program_of_interest(basename(p)) && p.contains("bin/"))
            {
                Kind::Lookup
            } else {
                return None;
            }
        }
        "dpkg" | "dpkg-query" => Kind::Packages,
        "rpm" if args.iter().any(|a| a.starts_with("-q")) => Kind::Packages,
        "apk" if matches!(args.first(), Some(&("info" | "list"))) => Kind::Packages,
        "blkid" => Kind::Blkid,
        "lsblk" => Kind::Lsblk,
        "findmnt" => Kind::Findmnt,
        // `mount` alone lists the table; `mount -t nfs SRC DST` is a mount attempt (read as a
        // message elsewhere).
        "mount" if args.iter().all(|a| matches!(*a, "-l" | "-v")) => Kind::MountTable,
        "multipath" => Kind::Multipath,
        "multipathd" if cmd.contains("config") => Kind::MultipathConf,
        "iscsiadm" if cmd.contains("session") => Kind::Iscsi,
        "rpcinfo" => Kind::Rpcinfo,
        "showmount" => Kind::Showmount,
        "df" => Kind::Df,
        "sysctl" => Kind::Sysctl,
        "getenforce" | "sestatus" => Kind::Selinux,
        "kubectl" | "oc"
            if args.contains(&"get")
                && args.iter().any(|a| a.starts_with("node") || *a == "no")
                && cmd.contains("osImage") =>
        {
            Kind::OsRelease
        }
        "grep" | "egrep" if mentions_kubelet() && cmd.contains("root-dir") => {
            match read_file_arg(&w).and_then(kind_of_file) {
                Some(k) => k,
                None => Kind::Kubelet,
            }
        }
        _ => return read_file_arg(&w).and_then(kind_of_file),
    })
}

/// Whether a command only shows text it did not make (a log viewer, a pager, a file reader:
/// `journalctl -b | grep xfs`, `tail /var/log/messages`), so its output may be recognised by its
/// own shape when its command says nothing.
pub fn shows_text(cmd: &str) -> bool {
    let (w, _) = first_stage(cmd);
    w.first().is_some_and(|p| {
        matches!(
            basename(p),
            "journalctl"
                | "grep"
                | "egrep"
                | "zgrep"
                | "tail"
                | "head"
                | "cat"
                | "zcat"
                | "less"
                | "more"
                | "awk"
                | "sed"
                | "tac"
        )
    })
}

// --- recognising a part by its own shape (no prompt) ---------------------------------------------

static DMESG_LINE: LazyLock<Regex> = LazyLock::new(|| {
    // util-linux sys-utils/dmesg.c: `[%5ld.%06ld] ` (default), `[%a %b %e %H:%M:%S %Y] ` (-T,
    // strftime), and journalctl/syslog's `Mon DD HH:MM:SS host kernel: ` or ISO 8601 stamps.
    Regex::new(
        r"^(?:<\d+>)?\[\s*\d+\.\d+\]|^\[[A-Z][a-z]{2} [A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d \d{4}\]|^(?:[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d|\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\S*) \S+ kernel: |^type=[A-Z_]+ msg=audit\(",
    )
    .expect("static regex")
});

/// A syslog/journal line's prefix (`Feb 12 10:00:00 host prog[pid]: `, or journalctl's
/// short-iso), the program captured.
static SYSLOG_PREFIX: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(?:[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d|\d{4}-\d\d-\d\dT\S+) \S+ ([^\s:\[]+)(?:\[\d+\])?: ")
        .expect("static regex")
});

static OS_RELEASE_LINE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^[A-Z][A-Z0-9_]*=\S").expect("static regex"));

static KERNEL_RELEASE: LazyLock<Regex> = LazyLock::new(|| {
    // `uname -r`: 3.10.0-957.el7.x86_64, 5.15.0-1019-aws, 6.18.44-fc-v669, 5.15.136-flatcar.
    Regex::new(r"^\d+\.\d+(?:\.\d+)?[-+_.][0-9A-Za-z._+-]*[A-Za-z][0-9A-Za-z._+-]*$")
        .expect("static regex")
});

static UNAME_A: LazyLock<Regex> = LazyLock::new(|| {
    // coreutils src/uname.c prints, for -a: kernel-name nodename kernel-release kernel-version
    // machine [processor] [hardware-platform] operating-system ("unknown" ones left out).
    Regex::new(r"^(Linux) (\S+) (\d+\.\d+\S*) (#.*?) (x86_64|aarch64|arm64|armv\d\w*|i[3-6]86|ppc64le|ppc64|s390x|riscv64|mips\w*|loongarch64)(?: .*)?$")
        .expect("static regex")
});

static PROC_VERSION: LazyLock<Regex> = LazyLock::new(|| {
    // /proc/version (linux init/version.c): `Linux version RELEASE (builder) ...`.
    Regex::new(r"^Linux version (\S+) ").expect("static regex")
});

static BLKID_LINE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"^(/dev/\S+|\S+):((?: [A-Z_]+="(?:[^"\\]|\\.)*")+)\s*$"#).expect("static regex")
});

static BLKID_TAG: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r#" ([A-Z_]+)="((?:[^"\\]|\\.)*)""#).expect("static regex"));

static PROC_MODULES_LINE: LazyLock<Regex> = LazyLock::new(|| {
    // linux kernel/module/procfs.c m_show: `name size refcnt deps state 0xaddr [taints]`.
    Regex::new(r"^([A-Za-z0-9_]+) \d+ \d+ \S+ (?:Live|Loading|Unloading) 0x[0-9a-f]+")
        .expect("static regex")
});

static ISCSI_SESSION: LazyLock<Regex> = LazyLock::new(|| {
    // open-iscsi usr/session_info.c session_info_print_flat: `%s: [%u] %s:%d,%d %s (%s)`, the
    // address in brackets when it is IPv6 (the README's older example has no colon after the driver).
    Regex::new(
        r"^(\S+?):? \[(\d+)\] (\[[^\]]+\]|[^\s\[\]]+?):(\d+),(-?\d+) (\S+)(?: \((\S+)\))?\s*$",
    )
    .expect("static regex")
});

static MPATH_HEADER: LazyLock<Regex> = LazyLock::new(|| {
    // multipath-tools libmultipath/print.c snprint_multipath_style: `[%A: ]%n[ (%w)] %d %s`
    // (alias, wwid when it differs, dm device, vendor,product); RHEL 5's older layout has
    // `[size=...]` on the same line and no dm name.
    Regex::new(r"^(?:(?:create|reload|switchpg|rename|reject|grow|shrink|unchanged|remove|replace|resize): )?(\S+)(?: \(([^)]+)\))?(?: (dm-\d+|\[\w+\]:\S+))?(?: (\S.*?))?\s*$")
        .expect("static regex")
});

/// Which node transcript a part without a prompt is, by its own shape; `None` when it is not
/// recognisably one (it is then read as the other formats volmnt knows, or skipped).
pub fn sniff(text: &str) -> Option<Kind> {
    let lines: Vec<&str> = text
        .lines()
        .map(|l| l.trim_end_matches('\r'))
        .filter(|l| !l.trim().is_empty())
        .collect();
    let first = *lines.first()?;
    let n = lines.len();
    let count = |f: &dyn Fn(&str) -> bool| lines.iter().filter(|l| f(l)).count();
    let most = |k: usize| k * 2 > n || (k >= 1 && n == 1);
    let ft = first.trim();
    if n == 1 && KERNEL_RELEASE.is_match(ft) {
        return Some(Kind::Uname);
    }
    if UNAME_A.is_match(ft) || PROC_VERSION.is_match(ft) {
        return Some(Kind::Uname);
    }
    if most(count(&|l| DMESG_LINE.is_match(l.trim_start()))) {
        return Some(Kind::KernelLog);
    }
    // A journal or syslog excerpt with the kernel's lines among other programs' (a kubelet's
    // journal is read as its log before this is asked).
    if most(count(&|l| SYSLOG_PREFIX.is_match(l.trim_start())))
        && lines.iter().any(|l| l.contains(" kernel: "))
    {
        return Some(Kind::KernelLog);
    }
    if ft.starts_with("Module") && ft.contains("Size") && ft.contains("Used by") {
        return Some(Kind::Lsmod);
    }
    if most(count(&|l| PROC_MODULES_LINE.is_match(l))) {
        return Some(Kind::Lsmod);
    }
    if most(count(&|l| {
        ["modprobe: ", "modinfo: ", "insmod: "]
            .iter()
            .any(|p| l.starts_with(p))
    })) {
        return Some(Kind::Kmod);
    }
    let os_keys = count(&|l| {
        l.starts_with("ID=")
            || l.starts_with("NAME=")
            || l.starts_with("PRETTY_NAME=")
            || l.starts_with("VERSION_ID=")
            || l.starts_with("ID_LIKE=")
    });
    if os_keys >= 2
        && lines
            .iter()
            .all(|l| OS_RELEASE_LINE.is_match(l) || l.trim_start().starts_with('#'))
    {
        return Some(Kind::OsRelease);
    }
    if most(count(&|l| BLKID_LINE.is_match(l))) {
        return Some(Kind::Blkid);
    }
    let header: Vec<&str> = ft.split_whitespace().collect();
    if header.first() == Some(&"NAME") && header.iter().any(|h| *h == "FSTYPE" || *h == "UUID") {
        return Some(Kind::Lsblk);
    }
    if header.first() == Some(&"TARGET") && header.iter().any(|h| *h == "SOURCE" || *h == "FSTYPE")
    {
        return Some(Kind::Findmnt);
    }
    if header.first() == Some(&"Filesystem") && ft.contains("Mounted on") {
        return Some(Kind::Df);
    }
    if lines
        .iter()
        .all(|l| mountinfo::parse_mountinfo_line(l).is_ok())
        || lines
            .iter()
            .all(|l| mountinfo::parse_mount_output_line(l).is_some())
        || lines.iter().all(|l| parse_proc_mounts_line(l).is_some())
    {
        return Some(Kind::MountTable);
    }
    if lines
        .iter()
        .any(|l| l.trim_start().starts_with("size=") && l.contains("features="))
        || lines
            .iter()
            .any(|l| l.contains("[size=") && l.contains("[features="))
    {
        return Some(Kind::Multipath);
    }
    if lines.iter().any(|l| {
        let t = l.trim_start();
        [
            "defaults",
            "blacklist",
            "blacklist_exceptions",
            "devices",
            "multipaths",
        ]
        .iter()
        .any(|s| {
            t.strip_prefix(s)
                .is_some_and(|r| r.trim_start().starts_with('{'))
        })
    }) {
        return Some(Kind::MultipathConf);
    }
    if most(count(&|l| ISCSI_SESSION.is_match(l))) || ft == "iscsiadm: No active sessions." {
        return Some(Kind::Iscsi);
    }
    if ft.starts_with("InitiatorName=") || (n == 1 && ft.starts_with("## DO NOT EDIT")) {
        return Some(Kind::InitiatorName);
    }
    if ft.starts_with("program vers proto") || ft.starts_with("program version(s)") {
        return Some(Kind::Rpcinfo);
    }
    if ft.starts_with("Export list for ") || ft.starts_with("clnt_create: RPC:") {
        return Some(Kind::Showmount);
    }
    if lines.iter().any(|l| l.trim_start().starts_with("Active: "))
        && lines.iter().any(|l| l.trim_start().starts_with("Loaded: "))
    {
        return Some(Kind::Systemctl);
    }
    if ft.starts_with("kernel.") && ft.contains(" = ") {
        return Some(Kind::Sysctl);
    }
    if n == 1 && matches!(ft, "Enforcing" | "Permissive" | "Disabled") {
        return Some(Kind::Selinux);
    }
    if ft.starts_with("SELinux status:") {
        return Some(Kind::Selinux);
    }
    if (ft.starts_with("Package: ") && lines.iter().any(|l| l.starts_with("Status: ")))
        || ft.starts_with("Desired=Unknown/Install/Remove/Purge/Hold")
        || ft.starts_with("dpkg-query: ")
    {
        return Some(Kind::Packages);
    }
    if !kubelet_processes(text).is_empty() {
        return Some(Kind::Kubelet);
    }
    if lines.iter().all(|l| {
        LS_MISSING
            .captures(l.trim())
            .is_some_and(|c| is_program_of_interest(basename(c[1].trim())) && c[1].contains("bin/"))
    }) {
        return Some(Kind::Lookup);
    }
    if lines.iter().any(|l| {
        let t = l.trim_start();
        t.starts_with("KUBELET_EXTRA_ARGS=")
            || t.starts_with("KUBELET_KUBEADM_ARGS=")
            || (t.starts_with("ExecStart=") && t.contains("kubelet"))
    }) {
        return Some(Kind::Kubelet);
    }
    None
}

// --- one parser per format -----------------------------------------------------------------------

/// `uname -r`, `uname -a` or `/proc/version`: (kernel release, host name, machine).
pub fn parse_uname(text: &str) -> Option<(String, Option<String>, Option<String>)> {
    for l in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
        if let Some(c) = UNAME_A.captures(l) {
            return Some((
                c[3].to_string(),
                Some(c[2].to_string()),
                Some(c[5].to_string()),
            ));
        }
        if let Some(c) = PROC_VERSION.captures(l) {
            return Some((c[1].to_string(), None, None));
        }
        // `uname -r`: the release alone; `uname -rm` / `-nr`: a few words, one of them it.
        let ws: Vec<&str> = l.split_whitespace().collect();
        if ws.len() <= 3 {
            if let Some(r) = ws.iter().find(|w| KERNEL_RELEASE.is_match(w)) {
                return Some((r.to_string(), None, None));
            }
            // `uname -r` of a kernel without a suffix: 6.1.0
            if ws.len() == 1
                && ws[0].split('.').count() >= 2
                && ws[0]
                    .split('.')
                    .all(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_digit()))
            {
                return Some((ws[0].to_string(), None, None));
            }
        }
    }
    None
}

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

/// `lsmod` (kmod tools/lsmod.c: a `Module Size Used by` header, then `%-19s %8ld  %d` and the
/// holders) or `/proc/modules`: the names of the loaded modules.
pub fn parse_lsmod(text: &str) -> Vec<String> {
    text.lines()
        .map(str::trim)
        .filter(|l| !(l.is_empty() || l.starts_with("Module") && l.contains("Used by")))
        .filter_map(|l| {
            let mut w = l.split_whitespace();
            let name = w.next()?;
            let size = w.next()?;
            (size.chars().all(|c| c.is_ascii_digit())
                && name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-'))
            .then(|| name.replace('-', "_"))
        })
        .collect()
}

/// What `modprobe` / `modinfo` / `insmod` said, per module.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KmodAnswer {
    pub module: String,
    /// `Missing` (no module file for this kernel), `Builtin`, `Available` (modinfo found a file).
    pub state: Option<ModuleState>,
    /// The kernel release named in the message (`... not found in directory /lib/modules/REL`).
    pub kernel: Option<String>,
    /// The error as printed, when the module exists but could not be loaded (`could not insert
    /// 'rbd': Operation not permitted`) or the module tree is broken.
    pub error: Option<String>,
}

static KMOD_NOT_FOUND: LazyLock<Regex> = LazyLock::new(|| {
    // kmod tools/modprobe.c: `Module %s not found in directory %s` (FATAL); tools/modinfo.c:
    // `Module %s not found.`, `Module name %s not found.`, `Module alias %s not found.`;
    // busybox: `modprobe: module rbd not found in modules.dep`.
    Regex::new(r"(?i)module(?: name| alias)? '?([A-Za-z0-9_.-]+?)'? not found(?: in directory (/\S*lib/modules/([^/\s]+))| in modules\.dep)?")
        .expect("static regex")
});

static KMOD_INSERT: LazyLock<Regex> = LazyLock::new(|| {
    // kmod tools/modprobe.c: `could not insert '%s': %s`.
    Regex::new(r"could not insert '([A-Za-z0-9_-]+)': (.+)$").expect("static regex")
});

static KMOD_MODDEP: LazyLock<Regex> = LazyLock::new(|| {
    // libkmod: `could not open moddep file '/lib/modules/REL/modules.dep.bin'`.
    Regex::new(r"could not open moddep file '\S*/lib/modules/([^/']+)/modules\.dep")
        .expect("static regex")
});

/// `modprobe`, `modinfo`, `insmod` answers. `modinfo` output (`filename: /lib/modules/...ko` or
/// `(builtin)`, kmod tools/modinfo.c) says the module exists.
pub fn parse_kmod(text: &str, asked: &[String]) -> (Vec<KmodAnswer>, Vec<String>) {
    let mut out: Vec<KmodAnswer> = Vec::new();
    let mut notes = Vec::new();
    let mut modinfo_name: Option<String> = None;
    for l in text.lines().map(str::trim) {
        if let Some(c) = KMOD_NOT_FOUND.captures(l) {
            out.push(KmodAnswer {
                module: c[1].replace('-', "_"),
                state: Some(ModuleState::Missing),
                kernel: c.get(3).map(|m| m.as_str().to_string()),
                error: None,
            });
        } else if let Some(c) = KMOD_INSERT.captures(l) {
            out.push(KmodAnswer {
                module: c[1].replace('-', "_"),
                state: None,
                kernel: None,
                error: Some(c[2].trim().to_string()),
            });
        } else if let Some(c) = KMOD_MODDEP.captures(l) {
            notes.push(format!(
                "kernel modules: /lib/modules/{} has no modules.dep (no module tree for the running kernel: nothing can be loaded)",
                &c[1]
            ));
        } else if let Some(v) = l.strip_prefix("name:") {
            modinfo_name = Some(v.trim().replace('-', "_"));
        } else if let Some(v) = l.strip_prefix("filename:") {
            let v = v.trim();
            let name = modinfo_name.clone().or_else(|| {
                let file = basename(v);
                (v != "(builtin)")
                    .then(|| file.split(".ko").next().unwrap_or(file).replace('-', "_"))
            });
            let name = name.or_else(|| (asked.len() == 1).then(|| asked[0].replace('-', "_")));
            if let Some(module) = name {
                let kernel = v
                    .split("/lib/modules/")
                    .nth(1)
                    .and_then(|r| r.split('/').next())
                    .map(str::to_string);
                out.push(KmodAnswer {
                    module,
                    state: Some(if v == "(builtin)" {
                        ModuleState::Builtin
                    } else {
                        ModuleState::Available
                    }),
                    kernel,
                    error: None,
                });
            }
        }
    }
    (out, notes)
}

// --- the kubelet ---------------------------------------------------------------------------------

/// Kubelet binaries (`basename` of the process' first word), and the distributions' processes
/// that embed one (`k3s server|agent`, `microk8s`'s kubelite, `k0s worker`).
fn is_kubelet_program(w: &[&str], i: usize) -> bool {
    let name = basename(w[i]);
    let next = w.get(i + 1).copied().unwrap_or("");
    match name {
        "kubelet" | "kubelite" => true,
        "hyperkube" => next == "kubelet" || next.starts_with("--"),
        "k3s" | "rke2" => matches!(next, "server" | "agent"),
        "k3s-server" | "k3s-agent" => true,
        "k0s" => next == "worker" || next == "controller",
        "openshift" => next == "start",
        _ => false,
    }
}

/// A `ps` column before the command: a number, a time (`00:00:19`, `21:33`, `0:19`), a tty, a
/// state (`Ssl`), a user name from the first column.
fn looks_like_ps_column(w: &str) -> bool {
    w == "?"
        || w.chars()
            .all(|c| c.is_ascii_digit() || c == ':' || c == '.')
        || w.starts_with("pts/")
        || w.starts_with("tty")
        || (w.len() <= 5 && w.chars().all(|c| "RSDZTtWXIsl<NL+".contains(c)))
        || (w.len() == 5
            && w.chars().take(3).all(|c| c.is_ascii_alphabetic())
            && w[3..].chars().all(|c| c.is_ascii_digit()))
}

/// The kubelet processes in a process listing (`ps -ef`, `ps aux`, `pgrep -a`, `ps -o args=`),
/// each as its argument vector from the kubelet program on. `grep kubelet` lines and other
/// programs whose flags mention the kubelet (kube-apiserver's `--kubelet-client-key`) are not
/// kubelets.
pub fn kubelet_processes(text: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    for l in text.lines() {
        let w: Vec<&str> = l.split_whitespace().collect();
        let Some(i) = (0..w.len())
            .find(|&i| !w[i].starts_with('-') && !w[i].contains('=') && is_kubelet_program(&w, i))
        else {
            continue;
        };
        // The command starts the line, or follows ps/pgrep columns (the first may be the user);
        // a kubelet named as an argument (`grep kubelet`, `systemctl status kubelet`) is none.
        let columns_only = w[..i]
            .iter()
            .enumerate()
            .all(|(j, c)| looks_like_ps_column(c) || (j == 0 && !is_command_word(c)));
        if i == 0 || columns_only {
            out.push(w[i..].iter().map(|s| s.to_string()).collect());
        }
    }
    out
}

/// Programs that take a kubelet's name as an argument, so a line with them is no kubelet.
fn is_command_word(w: &str) -> bool {
    matches!(
        basename(w),
        "grep"
            | "egrep"
            | "pgrep"
            | "pidof"
            | "ps"
            | "bash"
            | "sh"
            | "sudo"
            | "systemctl"
            | "journalctl"
            | "tail"
            | "cat"
            | "less"
            | "docker"
            | "crictl"
            | "kubectl"
            | "service"
            | "vi"
            | "vim"
            | "tr"
            | "awk"
            | "sed"
    )
}

static FLAG_TOKEN: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"(?:^|[\s"',\[=])(--?[A-Za-z][A-Za-z0-9-]*(?:=(?:"[^"]*"|'[^']*'|[^\s"',\]]*))?)"#)
        .expect("static regex")
});

/// The flags of an argument vector: `--name=value`, or `--name value` joined as `--name=value`.
fn flags_of(args: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let a = &args[i];
        if a.starts_with('-') && a.len() > 1 {
            if !a.contains('=')
                && args
                    .get(i + 1)
                    .is_some_and(|n| !n.starts_with('-') && looks_like_flag_value(a, n))
            {
                out.push(format!("{a}={}", args[i + 1]));
                i += 2;
                continue;
            }
            out.push(a.clone());
        }
        i += 1;
    }
    out
}

/// Whether `next` is the value of flag `flag` (kubelet's flags are `--name=value` or `--name
/// value`; boolean ones take no value).
fn looks_like_flag_value(flag: &str, next: &str) -> bool {
    let f = flag.trim_start_matches('-');
    !matches!(
        f,
        "v" | "fail-swap-on" | "containerized" | "allow-privileged" | "rotate-certificates"
    ) || f == "v" && next.chars().all(|c| c.is_ascii_digit())
}

/// `${SNAP_COMMON}` and friends as MicroK8s' args file writes them.
fn expand_snap(v: &str) -> String {
    v.replace("${SNAP_COMMON}", "/var/snap/microk8s/common")
        .replace("$SNAP_COMMON", "/var/snap/microk8s/common")
        .replace("${SNAP_DATA}", "/var/snap/microk8s/current")
        .replace("$SNAP_DATA", "/var/snap/microk8s/current")
        .replace("${SNAP}", "/snap/microk8s/current")
}

fn flag_value<'a>(flags: &'a [String], name: &str) -> Option<&'a str> {
    flags.iter().rev().find_map(|f| {
        let f = f.trim_start_matches('-');
        f.strip_prefix(name).and_then(|r| r.strip_prefix('='))
    })
}

/// The flavour from whatever the transcript shows: paths, program names, flags.
fn flavour_of(text: &str, program: Option<&str>) -> Option<&'static str> {
    let t = text.to_ascii_lowercase();
    let p = program.map(basename).unwrap_or("");
    Some(
        if t.contains("microk8s") || p == "kubelite" || t.contains("snap_common") {
            "microk8s"
        } else if p == "rke2" || t.contains("/rancher/rke2") || t.contains("rke2-") {
            "rke2"
        } else if p.starts_with("k3s")
            || t.contains("/rancher/k3s")
            || t.contains("k3s server")
            || t.contains("k3s agent")
        {
            "k3s"
        } else if t.contains("/var/lib/k0s") || p == "k0s" {
            "k0s"
        } else if t.contains("rancher/hyperkube") || t.contains("/opt/rke/") || t.contains("rke-") {
            "rke"
        } else if t.contains("openshift") || t.contains("/etc/origin/") {
            "openshift"
        } else if t.contains("kind://") || t.contains("kindest/node") {
            "kind"
        } else if t.contains("/var/lib/minikube") || t.contains("minikube") {
            "minikube"
        } else if t.contains("bootstrap-kubelet.conf")
            || t.contains("kubeadm-flags.env")
            || t.contains("kubeadm")
        {
            "kubeadm"
        } else {
            return None;
        },
    )
}

/// The flavour's documented kubelet root dir when no flag says: MicroK8s keeps it under its
/// snap's `$SNAP_COMMON`, k0s under its data dir, every other one at kubelet's own default.
pub fn default_root_dir(flavour: Option<&str>) -> &'static str {
    match flavour {
        Some("microk8s") => "/var/snap/microk8s/common/var/lib/kubelet",
        Some("k0s") => "/var/lib/k0s/kubelet",
        _ => "/var/lib/kubelet",
    }
}

static DOCKER_BIND: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r#"(?s)"Source":\s*"([^"]*)",\s*"Destination":\s*"([^"]*)",.*?"Propagation":\s*"([^"]*)""#,
    )
    .expect("static regex")
});

/// The kubelet as a transcript shows it: a process line (`ps`, `pgrep -a`, `/proc/PID/cmdline`
/// with NULs or spaces), a unit (`systemctl cat kubelet`: `ExecStart=` and `Environment=`),
/// an args file (MicroK8s, `kubeadm-flags.env`, `/etc/default/kubelet`), `docker inspect
/// kubelet` (RKE's containerised kubelet: its Args and bind mounts), or bare flags one per line
/// (`... | tr ' ' '\n' | grep root-dir`). `None` when it shows no kubelet at all.
pub fn parse_kubelet(text: &str, cmd: Option<&str>) -> Option<KubeletInfo> {
    let text = text.replace('\0', " ");
    let procs = kubelet_processes(&text);
    let cmd_s = cmd.unwrap_or("");
    let (program, args): (Option<String>, Vec<String>) = match procs.first() {
        Some(p) => (Some(p[0].clone()), p[1..].to_vec()),
        None => {
            // Flags wherever they are written: unit files, env files, args files, JSON arrays.
            let mut v = Vec::new();
            for l in text.lines() {
                let l = l.trim();
                if l.starts_with('#') && !l.contains("--") {
                    continue;
                }
                for c in FLAG_TOKEN.captures_iter(l) {
                    let f = c[1].trim_matches(|c| c == '"' || c == '\'').to_string();
                    if f.starts_with("--") {
                        v.push(f);
                    }
                }
            }
            let program = text
                .split_whitespace()
                .find(|w| {
                    let w = w.trim_start_matches("ExecStart=");
                    matches!(basename(w), "kubelet" | "kubelite")
                })
                .map(|w| w.trim_start_matches("ExecStart=").to_string());
            (program, v)
        }
    };
    let docker = {
        let (w, _) = first_stage(cmd_s);
        w.first()
            .is_some_and(|p| matches!(basename(p), "docker" | "podman" | "crictl" | "nerdctl"))
            && w.get(1).is_some_and(|a| a == "inspect")
    };
    let binds: Vec<String> = if docker {
        DOCKER_BIND
            .captures_iter(&text)
            .map(|c| {
                let prop = if c[3].is_empty() {
                    String::new()
                } else {
                    format!(" ({})", &c[3])
                };
                format!("{} -> {}{prop}", &c[1], &c[2])
            })
            .collect()
    } else {
        Vec::new()
    };
    let flags = flags_of(&args);
    // k3s/rke2 take kubelet flags as `--kubelet-arg=root-dir=X` (or `kubelet-arg: [...]` in
    // their config.yaml).
    let kubelet_arg_root = flag_value(&flags, "kubelet-arg")
        .and_then(|v| v.strip_prefix("root-dir="))
        .map(str::to_string)
        .or_else(|| {
            static KARG: LazyLock<Regex> = LazyLock::new(|| {
                Regex::new(r#"(?s)kubelet-arg.{0,300}?root-dir=([^\s"',\]]+)"#)
                    .expect("static regex")
            });
            KARG.captures(&text).map(|c| c[1].to_string())
        });
    if flags.is_empty()
        && program.is_none()
        && binds.is_empty()
        && !docker
        && kubelet_arg_root.is_none()
    {
        return None;
    }
    let all = format!("{cmd_s}\n{text}");
    let flavour = flavour_of(&all, program.as_deref()).map(str::to_string);
    let (root_dir, root_src) = match flag_value(&flags, "root-dir")
        .map(str::to_string)
        .or(kubelet_arg_root)
    {
        Some(v) => (Some(expand_snap(&v)), Some("flag".to_string())),
        None => (
            Some(default_root_dir(flavour.as_deref()).to_string()),
            Some("default".to_string()),
        ),
    };
    let containerized = if docker || matches!(flavour.as_deref(), Some("kind" | "rke")) {
        Some(true)
    } else if program.is_some() && flavour.is_some() {
        Some(false)
    } else {
        None
    };
    let config = flag_value(&flags, "config").map(str::to_string);
    Some(KubeletInfo {
        flavour: Some(flavour.unwrap_or_else(|| "unknown".into())),
        root_dir,
        containerized,
        flags: flags
            .iter()
            .map(|f| crate::redact::redact(f).into_owned())
            .collect(),
        config,
        root_dir_source: root_src,
        container_binds: binds,
        config_settings: BTreeMap::new(),
    })
}

/// Settings of a KubeletConfiguration file that bear on volumes, top-level `key: value` lines
/// (the file is YAML; these keys are scalars).
pub fn kubelet_config_settings(text: &str) -> BTreeMap<String, String> {
    const KEYS: &[&str] = &[
        "volumePluginDir",
        "enableSystemLogQuery",
        "enableSystemLogHandler",
        "containerRuntimeEndpoint",
        "cgroupDriver",
        "failSwapOn",
        "protectKernelDefaults",
        "staticPodPath",
        "volumeStatsAggPeriod",
        "maxPods",
    ];
    let mut out = BTreeMap::new();
    for l in text.lines() {
        if l.starts_with(' ') || l.starts_with('\t') {
            continue;
        }
        if let Some((k, v)) = l.split_once(':') {
            let k = k.trim().trim_matches('"');
            if KEYS.contains(&k) {
                let v = v
                    .trim()
                    .trim_matches(|c| c == '"' || c == '\'')
                    .trim_end_matches(',');
                out.insert(k.to_string(), crate::redact::redact(v).into_owned());
            }
        }
    }
    out
}

// --- is a program there -----------------------------------------------------------------------------

/// A program looked for: found at a path, or not found (with what was said).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lookup {
    pub name: String,
    pub found: Result<String, String>,
}

static LS_MISSING: LazyLock<Regex> = LazyLock::new(|| {
    // GNU ls: `ls: cannot access '/sbin/mount.nfs': No such file or directory` (quoting by
    // coreutils' quotearg); busybox ls: `ls: /usr/bin/lsblk: No such file or directory`; stat:
    // `stat: cannot statx '/sbin/x': No such file or directory`.
    Regex::new(r"^(?:ls|stat|file): (?:cannot (?:access|stat|statx|open) )?'?([^':]*)'?: (No such file or directory|cannot open.*)$")
        .expect("static regex")
});

static WHICH_MISSING: LazyLock<Regex> = LazyLock::new(|| {
    // GNU which (RHEL): `which: no mount.nfs in (/usr/local/sbin:...)`; bash/dash `type`: `bash:
    // type: x: not found`, `x: not found`; busybox/bash running it: `sh: x: not found`.
    Regex::new(r"(?:^|\s)(?:\S*which: no (\S+) in \((.*)\)|(?:-?\w+: )?(?:type: |line \d+: )?(\S+): (?:command )?not found)$")
        .expect("static regex")
});

/// `which`, `command -v`, `type`, `ls -l`, `stat`: each program named in the command, found (at
/// a path) or not. `asked` are the command's arguments (`which` and `command -v` print nothing
/// for a name they do not find).
pub fn parse_lookup(text: &str, prog: &str, asked: &[String]) -> Vec<Lookup> {
    let mut out: Vec<Lookup> = Vec::new();
    fn push(out: &mut Vec<Lookup>, name: &str, found: Result<String, String>) {
        if !out.iter().any(|l| l.name == name) {
            out.push(Lookup {
                name: name.to_string(),
                found,
            });
        }
    }
    let mut elided_error: Option<String> = None;
    for l in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
        if let Some(c) = LS_MISSING.captures(l) {
            let path = c[1].trim();
            if path == "..." || path.is_empty() {
                elided_error = Some(c[2].to_string());
                continue;
            }
            push(&mut out, basename(path), Err(format!("{path}: {}", &c[2])));
            continue;
        }
        if let Some(c) = WHICH_MISSING.captures(l) {
            if let Some(n) = c.get(1) {
                push(&mut out, n.as_str(), Err(format!("not in {}", &c[2])));
            } else if let Some(n) = c.get(3) {
                push(&mut out, basename(n.as_str()), Err("not found".into()));
            }
            continue;
        }
        // `type`: `mount.nfs is /usr/sbin/mount.nfs`; `whereis`: `mount.nfs: /usr/sbin/mount.nfs`.
        if let Some((n, p)) = l.split_once(" is ") {
            if !n.contains(' ') && p.starts_with('/') {
                push(&mut out, n, Ok(p.trim().to_string()));
                continue;
            }
        }
        if prog == "whereis" {
            if let Some((n, rest)) = l.split_once(':') {
                match rest.split_whitespace().find(|p| p.contains("bin/")) {
                    Some(p) => push(&mut out, n.trim(), Ok(p.to_string())),
                    None => push(&mut out, n.trim(), Err("whereis found nothing".into())),
                }
                continue;
            }
        }
        // `ls -l`: the path is the last word (or before ` -> target`); `which`: the path alone.
        let path = match l.split_once(" -> ") {
            Some((a, _)) => a.split_whitespace().last(),
            None => l.split_whitespace().last(),
        };
        if let Some(p) = path.filter(|p| p.starts_with('/')) {
            let name = basename(p);
            if !name.is_empty() && (asked.is_empty() || asked.iter().any(|a| basename(a) == name)) {
                push(&mut out, name, Ok(p.to_string()));
            }
        }
    }
    // `which`/`command -v` say nothing about a name they do not find.
    for a in asked {
        let name = basename(a);
        if name.is_empty() || name.contains('*') {
            continue;
        }
        if !out.iter().any(|l| l.name == name) {
            match (&elided_error, prog) {
                (Some(e), _) => push(&mut out, name, Err(format!("{a}: {e}"))),
                (None, "which" | "command") => {
                    push(&mut out, name, Err("not found on PATH".into()))
                }
                _ => {}
            }
        }
    }
    out
}

// --- packages ----------------------------------------------------------------------------------------

/// Split `name-version-release[.arch]` (rpm's NVRA, apk's `name-ver-rN`) at its last two dashes.
fn split_nvr(s: &str) -> Option<(String, String)> {
    let mut parts = s.rsplitn(3, '-');
    let rel = parts.next()?;
    let ver = parts.next()?;
    let name = parts.next()?;
    if name.is_empty() || !ver.chars().next()?.is_ascii_digit() {
        return None;
    }
    Some((name.to_string(), format!("{ver}-{rel}")))
}

static DPKG_NOT_INSTALLED: LazyLock<Regex> = LazyLock::new(|| {
    // dpkg src/query/main.c: `package '%s' is not installed and no information is available`,
    // `no packages found matching %s`.
    Regex::new(
        r"dpkg-query: (?:package '([^']+)' is not installed|no packages found matching (\S+))",
    )
    .expect("static regex")
});

static RPM_NOT_INSTALLED: LazyLock<Regex> = LazyLock::new(|| {
    // rpm lib/query.c: `package %s is not installed`.
    Regex::new(r"^package (\S+) is not installed").expect("static regex")
});

/// Package queries → name → version (`None`: not installed). dpkg -s (the status stanza:
/// `Package:`, `Status: install ok installed`, `Version:`), dpkg -l (`ii  name  version ...`;
/// other states are not installed), rpm -q / -qa (NVRA), apk info / list.
pub fn parse_packages(
    text: &str,
    prog: &str,
    asked: &[String],
) -> BTreeMap<String, Option<String>> {
    let mut out = BTreeMap::new();
    let mut stanza: (Option<String>, Option<String>, Option<bool>) = (None, None, None);
    let flush = |s: &mut (Option<String>, Option<String>, Option<bool>),
                 out: &mut BTreeMap<String, Option<String>>| {
        if let Some(name) = s.0.take() {
            let installed = s.2.take().unwrap_or(true);
            let version = s.1.take();
            out.insert(
                name,
                if installed {
                    version.or(Some(String::new()))
                } else {
                    None
                },
            );
        }
        *s = (None, None, None);
    };
    for l in text.lines().map(|l| l.trim_end_matches('\r')) {
        if let Some(c) = DPKG_NOT_INSTALLED.captures(l) {
            let n = c.get(1).or(c.get(2)).map(|m| m.as_str()).unwrap_or("");
            out.insert(n.to_string(), None);
            continue;
        }
        if let Some(c) = RPM_NOT_INSTALLED.captures(l.trim()) {
            out.insert(c[1].to_string(), None);
            continue;
        }
        match prog {
            "dpkg" | "dpkg-query" => {
                if let Some(v) = l.strip_prefix("Package: ") {
                    flush(&mut stanza, &mut out);
                    stanza.0 = Some(v.trim().to_string());
                } else if let Some(v) = l.strip_prefix("Status: ") {
                    stanza.2 =
                        Some(v.trim().ends_with(" installed") && !v.contains("not-installed"));
                } else if let Some(v) = l.strip_prefix("Version: ") {
                    stanza.1 = Some(v.trim().to_string());
                } else {
                    // dpkg -l rows: `ii  name[:arch]  version  arch  description`.
                    let w: Vec<&str> = l.split_whitespace().collect();
                    if w.len() >= 3
                        && w[0].len() >= 2
                        && w[0].len() <= 3
                        && w[0].chars().all(|c| c.is_ascii_alphabetic())
                        && !l.starts_with("Desired")
                    {
                        let name = w[1].split(':').next().unwrap_or(w[1]).to_string();
                        let installed = w[0].starts_with("ii") || w[0].starts_with("hi");
                        out.insert(name, installed.then(|| w[2].to_string()));
                    }
                }
            }
            "rpm" => {
                let t = l.trim();
                if t.is_empty() || t.contains(' ') {
                    continue;
                }
                // NVRA: strip the arch.
                let nvr = t
                    .rsplit_once('.')
                    .filter(|(_, a)| {
                        matches!(
                            *a,
                            "x86_64"
                                | "noarch"
                                | "aarch64"
                                | "i686"
                                | "ppc64le"
                                | "s390x"
                                | "armv7hl"
                        )
                    })
                    .map_or(t, |(a, _)| a);
                if let Some((n, v)) = split_nvr(nvr) {
                    out.insert(n, Some(v));
                }
            }
            "apk" => {
                let t = l.trim();
                if t.is_empty() {
                    continue;
                }
                // `apk info -e NAME` prints the name; `apk info NAME` prints `NAME-VER-rN
                // description:`; `apk list -I` prints `NAME-VER-rN ARCH {ORIGIN} (LICENSE)
                // [installed]`.
                let first = t.split_whitespace().next().unwrap_or(t);
                if asked.iter().any(|a| a == first) && !t.contains(' ') {
                    out.insert(first.to_string(), Some(String::new()));
                } else if t.ends_with("description:")
                    || t.contains("[installed]")
                    || t.contains(" {")
                {
                    if let Some((n, v)) = split_nvr(first) {
                        out.insert(n, Some(v));
                    }
                }
            }
            _ => {}
        }
    }
    flush(&mut stanza, &mut out);
    // `apk info -e` prints nothing for a package that is not there.
    if prog == "apk" {
        for a in asked
            .iter()
            .filter(|a| !a.starts_with('-') && !matches!(a.as_str(), "info" | "list"))
        {
            out.entry(a.clone()).or_insert(None);
        }
    }
    out.retain(|k, _| !k.is_empty());
    out
}

// --- block devices ---------------------------------------------------------------------------------

/// Undo blkid's escaping inside a tag value (util-linux misc-utils/blkid.c safe_print: `\"`
/// and `\\` are escaped with a backslash).
fn unescape_blkid(v: &str) -> String {
    let mut out = String::with_capacity(v.len());
    let mut it = v.chars();
    while let Some(c) = it.next() {
        if c == '\\' {
            if let Some(n) = it.next() {
                out.push(n);
            }
        } else {
            out.push(c);
        }
    }
    out
}

fn blkid_entry(device: &str, tags: BTreeMap<String, String>) -> BlkidEntry {
    let mut tags = tags;
    BlkidEntry {
        device: device.to_string(),
        fs_type: tags.remove("TYPE"),
        uuid: tags.remove("UUID"),
        label: tags.remove("LABEL"),
        other: tags,
    }
}

/// `blkid` / `blkid -p` (util-linux misc-utils/blkid.c print_value: `DEV: NAME="value" ...`),
/// and `blkid -o export` / `-o udev` (`DEVNAME=...` then `NAME=value` lines, a blank line
/// between devices; udev's keys are `ID_FS_TYPE`, `ID_FS_UUID`, ...).
pub fn parse_blkid(text: &str) -> Vec<BlkidEntry> {
    let mut out = Vec::new();
    let mut export: Option<(String, BTreeMap<String, String>)> = None;
    for l in text.lines().map(|l| l.trim_end_matches('\r')) {
        if let Some(c) = BLKID_LINE.captures(l) {
            let tags = BLKID_TAG
                .captures_iter(&c[2])
                .map(|t| (t[1].to_string(), unescape_blkid(&t[2])))
                .collect();
            out.push(blkid_entry(&c[1], tags));
            continue;
        }
        let t = l.trim();
        if t.is_empty() {
            if let Some((d, tags)) = export.take() {
                out.push(blkid_entry(&d, tags));
            }
            continue;
        }
        if let Some(d) = t.strip_prefix("DEVNAME=") {
            if let Some((d0, tags)) = export.take() {
                out.push(blkid_entry(&d0, tags));
            }
            export = Some((d.to_string(), BTreeMap::new()));
        } else if let (Some((_, tags)), Some((k, v))) = (export.as_mut(), t.split_once('=')) {
            let k = k.strip_prefix("ID_FS_").unwrap_or(k);
            tags.insert(k.to_string(), unescape_blkid(v));
        }
    }
    if let Some((d, tags)) = export.take() {
        out.push(blkid_entry(&d, tags));
    }
    out.truncate(MAX_ENTRIES);
    out
}

/// libblkid's cache file, /run/blkid/blkid.tab (util-linux libblkid/src/save.c save_dev: one
/// `<device DEVNO="0x0801" TIME="..." NAME="value"...>/dev/sda1</device>` per line). Read by
/// the probe because it needs no access to the devices; it is as old as each device's last probe.
pub fn parse_blkid_cache(text: &str) -> Vec<BlkidEntry> {
    static DEVICE: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r#"^<device((?: [A-Z_]+="(?:[^"\\]|\\.)*")*)>([^<]+)</device>"#)
            .expect("static regex")
    });
    let mut out: Vec<BlkidEntry> = Vec::new();
    for l in text.lines().map(str::trim) {
        let Some(c) = DEVICE.captures(l) else {
            continue;
        };
        let mut tags: BTreeMap<String, String> = BLKID_TAG
            .captures_iter(&c[1])
            .map(|t| (t[1].to_string(), unescape_blkid(&t[2])))
            .collect();
        for k in ["DEVNO", "TIME", "PRI"] {
            tags.remove(k);
        }
        out.push(blkid_entry(c[2].trim(), tags));
    }
    out.truncate(MAX_ENTRIES);
    out
}

/// Column start offsets from a left-aligned header (libsmartcols pads every header cell to its
/// column's width, so a cell's text lies between its header's start and the next one's).
fn header_columns(header: &str) -> Vec<(usize, String)> {
    let mut cols = Vec::new();
    let mut prev_space = true;
    for (i, c) in header.char_indices() {
        if !c.is_whitespace() && prev_space {
            cols.push((i, String::new()));
        }
        if let (false, Some(last)) = (c.is_whitespace(), cols.last_mut()) {
            last.1.push(c);
        }
        prev_space = c.is_whitespace();
    }
    cols
}

/// The cells of a row under `cols` (by byte offset; a row shorter than a column leaves it
/// empty).
fn cells(row: &str, cols: &[(usize, String)]) -> Vec<String> {
    let chars: Vec<char> = row.chars().collect();
    // Offsets in the header are bytes of ASCII text; a row may hold tree characters (`├─`), which
    // lsblk/findmnt print one column wide each: index by chars.
    (0..cols.len())
        .map(|i| {
            let start = cols[i].0;
            let end = cols.get(i + 1).map_or(chars.len(), |c| c.0);
            if start >= chars.len() {
                return String::new();
            }
            chars[start..end.min(chars.len())]
                .iter()
                .collect::<String>()
                .trim()
                .to_string()
        })
        .collect()
}

/// Tree and list decorations lsblk and findmnt draw before a name (`├─`, `└─`, `│ `, and their
/// ASCII forms `|-`, `` `- ``).
fn strip_tree(s: &str) -> &str {
    s.trim_start_matches(['├', '└', '│', '─', '|', '`', '-', ' '])
}

/// `lsblk -f` (util-linux lsblk-cmd/lsblk.c, `-f`: NAME,FSTYPE,FSVER,LABEL,UUID,FSAVAIL,FSUSE%,
/// MOUNTPOINTS; older releases have fewer) or any `lsblk -o` listing with FSTYPE/UUID, as
/// blkid-like entries. A row with only MOUNTPOINTS continues the previous device's.
pub fn parse_lsblk(text: &str) -> Vec<BlkidEntry> {
    let mut lines = text
        .lines()
        .map(|l| l.trim_end_matches('\r'))
        .filter(|l| !l.trim().is_empty());
    let Some(header) = lines.next() else {
        return Vec::new();
    };
    let cols = header_columns(header);
    let idx = |name: &str| cols.iter().position(|c| c.1 == name);
    let Some(name_i) = idx("NAME").or(idx("KNAME")).or(idx("PATH")) else {
        return Vec::new();
    };
    let mut out: Vec<BlkidEntry> = Vec::new();
    for row in lines {
        let c = cells(row, &cols);
        let name = strip_tree(&c[name_i]).to_string();
        if name.is_empty() {
            // a continuation: another mount point of the device above
            if let (Some(last), Some(mi)) =
                (out.last_mut(), idx("MOUNTPOINTS").or(idx("MOUNTPOINT")))
            {
                if !c[mi].is_empty() {
                    let e = last.other.entry("MOUNTPOINTS".into()).or_default();
                    if !e.is_empty() {
                        e.push(',');
                    }
                    e.push_str(&c[mi]);
                }
            }
            continue;
        }
        let device = if name.starts_with('/') {
            name.clone()
        } else {
            format!("/dev/{name}")
        };
        let mut tags = BTreeMap::new();
        for (i, (_, h)) in cols.iter().enumerate() {
            if i == name_i || c[i].is_empty() {
                continue;
            }
            let key = match h.as_str() {
                "FSTYPE" => "TYPE",
                "MOUNTPOINT" => "MOUNTPOINTS",
                other => other,
            };
            tags.insert(key.to_string(), c[i].clone());
        }
        out.push(blkid_entry(&device, tags));
    }
    out.truncate(MAX_ENTRIES);
    out
}

// --- mount tables --------------------------------------------------------------------------------

/// Undo libsmartcols' raw-output escaping (`\x20` for a space).
fn unescape_hex(s: &str) -> String {
    if !s.contains("\\x") {
        return s.to_string();
    }
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\' && i + 3 < b.len() && b.get(i + 1) == Some(&b'x') {
            if let Ok(v) = u8::from_str_radix(
                std::str::from_utf8(&b[i + 2..(i + 4).min(b.len())]).unwrap_or(""),
                16,
            ) {
                out.push(v);
                i += 4;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// A findmnt row's cells by column name → a mount entry. SOURCE `DEV[/root]` is a bind mount of
/// `/root` within DEV (findmnt's FSROOT notation).
fn findmnt_entry(get: &dyn Fn(&str) -> Option<String>) -> Option<MountEntry> {
    let target = get("TARGET")?;
    let target = strip_tree(&target).to_string();
    if !target.starts_with('/') {
        return None;
    }
    let (source, root) = match get("SOURCE") {
        Some(s) => match s.strip_suffix(']').and_then(|r| r.rsplit_once('[')) {
            Some((dev, root)) if root.starts_with('/') => (dev.to_string(), Some(root.to_string())),
            _ => (s, None),
        },
        None => (String::new(), None),
    };
    let opts = |k: &str| -> Vec<String> {
        get(k)
            .map(|o| {
                o.split(',')
                    .filter(|s| !s.is_empty())
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default()
    };
    let options = if get("OPTIONS").is_some() {
        opts("OPTIONS")
    } else {
        opts("VFS-OPTIONS")
    };
    let super_options = if get("FS-OPTIONS").is_some() {
        opts("FS-OPTIONS")
    } else {
        options.clone()
    };
    let optional = get("PROPAGATION")
        .map(|p| p.split(',').map(str::to_string).collect())
        .unwrap_or_default();
    Some(MountEntry {
        id: get("ID").and_then(|v| v.parse().ok()),
        parent_id: get("PARENT").and_then(|v| v.parse().ok()),
        major_minor: get("MAJ:MIN"),
        root: get("FSROOT").or(root),
        mount_point: target,
        options,
        optional,
        fstype: get("FSTYPE").unwrap_or_default(),
        source,
        super_options,
    })
}

static PAIR: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r#"([A-Z:%-]+)="((?:[^"\\]|\\.)*)""#).expect("static regex"));

/// `findmnt` in any layout (util-linux misc-utils/findmnt.c through libsmartcols): the default
/// tree or `-l` (aligned columns under a header), `-r` (raw: cells separated by one space,
/// blanks as `\x20`), `-P` (`KEY="value"` pairs); columns as `-o` chose them.
pub fn parse_findmnt(text: &str, raw: bool) -> Vec<MountEntry> {
    let lines: Vec<&str> = text
        .lines()
        .map(|l| l.trim_end_matches('\r'))
        .filter(|l| !l.trim().is_empty())
        .collect();
    let mut out = Vec::new();
    if lines.iter().any(|l| l.starts_with("TARGET=\"")) {
        for l in &lines {
            let m: BTreeMap<String, String> = PAIR
                .captures_iter(l)
                .map(|c| (c[1].to_string(), unescape_blkid(&c[2])))
                .collect();
            let get = |k: &str| m.get(k).cloned().filter(|v| !v.is_empty());
            out.extend(findmnt_entry(&get));
        }
        return out;
    }
    let Some(header) = lines.first() else {
        return out;
    };
    let names: Vec<String> = header.split_whitespace().map(str::to_string).collect();
    let raw = raw
        || lines[1..]
            .iter()
            .all(|l| l.split(' ').count() == names.len() && !l.contains("  "));
    let cols = header_columns(header);
    for l in &lines[1..] {
        let cells: Vec<String> = if raw {
            l.split(' ').map(unescape_hex).collect()
        } else {
            cells(l, &cols)
        };
        let get = |k: &str| {
            names
                .iter()
                .position(|n| n == k)
                .and_then(|i| cells.get(i).cloned())
                .filter(|v| !v.is_empty())
        };
        out.extend(findmnt_entry(&get));
    }
    out.truncate(MAX_ENTRIES);
    out
}

/// One line of `/proc/mounts` or `/etc/mtab` (fstab(5) layout: `SOURCE TARGET TYPE OPTIONS 0 0`,
/// blanks in paths as `\040`).
pub fn parse_proc_mounts_line(line: &str) -> Option<MountEntry> {
    let w: Vec<&str> = line.split_whitespace().collect();
    if w.len() != 6
        || !w[1].starts_with('/')
        || !w[4].chars().all(|c| c.is_ascii_digit())
        || !w[5].chars().all(|c| c.is_ascii_digit())
    {
        return None;
    }
    let opts: Vec<String> = w[3]
        .split(',')
        .filter(|o| !o.is_empty())
        .map(mountinfo::unescape)
        .collect();
    Some(MountEntry {
        source: mountinfo::unescape(w[0]),
        mount_point: mountinfo::unescape(w[1]),
        fstype: w[2].to_string(),
        options: opts.clone(),
        super_options: opts,
        ..MountEntry::default()
    })
}

// --- multipath -----------------------------------------------------------------------------------

/// `multipath -ll` / `-l` topology (multipath-tools libmultipath/print.c
/// snprint_multipath_topology__: the map line `%n (%w) %d %s`, `size=... features=...`, then per
/// path group `|-+- policy=...` and per path `` | `- H:C:T:L dev maj:min ...``), and RHEL 5's
/// older `\_` layout.
pub fn parse_multipath_ll(text: &str) -> Vec<MultipathMap> {
    static PATH: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"^[\s|`\\_-]*(?:[|`]-|\\_)\s*(\d+:\d+:\d+(?::\d+)?)\s+(\S+)\s+\d+:\d+")
            .expect("static regex")
    });
    let lines: Vec<&str> = text.lines().map(|l| l.trim_end_matches('\r')).collect();
    let mut out: Vec<MultipathMap> = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        if l.trim().is_empty() {
            continue;
        }
        if let Some(c) = PATH.captures(l) {
            if let Some(m) = out.last_mut() {
                m.paths.push(c[2].to_string());
            }
            continue;
        }
        let t = l.trim_start();
        if t.starts_with("size=")
            || t.starts_with("[size=")
            || t.starts_with("|-+-")
            || t.starts_with("`-+-")
            || t.starts_with("\\_")
            || l.starts_with(' ')
        {
            continue;
        }
        // A map header is followed by its size line (or carries `[size=` itself).
        let next_is_size = lines.get(i + 1).is_some_and(|n| {
            n.trim_start().starts_with("size=") || n.trim_start().starts_with("[size=")
        });
        if !next_is_size && !l.contains("[size=") {
            continue;
        }
        let head = l.split(" [size=").next().unwrap_or(l);
        if let Some(c) = MPATH_HEADER.captures(head) {
            let (vendor, product) = match c.get(4).map(|m| m.as_str()) {
                Some(vp) => match vp.split_once(',') {
                    Some((v, p)) => (Some(v.trim().to_string()), Some(p.trim().to_string())),
                    None => (Some(vp.trim().to_string()), None),
                },
                None => (None, None),
            };
            let name = c[1].to_string();
            let wwid = c.get(2).map(|m| m.as_str().to_string()).or_else(|| {
                // Without user_friendly_names the name is the WWID.
                name.chars()
                    .all(|ch| ch.is_ascii_hexdigit())
                    .then(|| name.clone())
            });
            out.push(MultipathMap {
                name,
                wwid,
                dm: c.get(3).map(|m| m.as_str().to_string()),
                vendor,
                product,
                paths: Vec::new(),
            });
        }
    }
    out
}

/// `multipathd show config` or /etc/multipath.conf (multipath.conf(5), multipath-tools
/// multipath/multipath.conf.5.in): `find_multipaths` from `defaults`, and the `blacklist`
/// section's entries as written (`devnode "..."`, `wwid "..."`, `device { vendor ... product
/// ... }` as one line).
pub fn parse_multipath_conf(text: &str) -> (Option<String>, Vec<String>) {
    let mut find = None;
    let mut blacklist = Vec::new();
    let mut stack: Vec<String> = Vec::new();
    let mut device: Vec<String> = Vec::new();
    for raw in text.lines() {
        let l = raw.split('#').next().unwrap_or("").trim();
        if l.is_empty() {
            continue;
        }
        if let Some(name) = l.strip_suffix('{') {
            stack.push(name.trim().to_string());
            continue;
        }
        if l == "}" {
            if stack.last().map(String::as_str) == Some("device")
                && stack.get(stack.len().wrapping_sub(2)).map(String::as_str) == Some("blacklist")
                && !device.is_empty()
            {
                blacklist.push(format!("device {}", device.join(" ")));
            }
            if stack.last().map(String::as_str) == Some("device") {
                device.clear();
            }
            stack.pop();
            continue;
        }
        let section: Vec<&str> = stack.iter().map(String::as_str).collect();
        match section.as_slice() {
            ["defaults"] | [] => {
                if let Some(v) = l.strip_prefix("find_multipaths") {
                    find = Some(v.trim().trim_matches('"').to_string());
                }
            }
            ["blacklist"] => blacklist.push(l.to_string()),
            ["blacklist", "device"] => device.push(l.to_string()),
            _ => {}
        }
    }
    (find, blacklist)
}

// --- iSCSI ----------------------------------------------------------------------------------------

/// `iscsiadm -m session`: (portal `addr:port`, target IQN) per session; `Some(vec![])` for
/// "iscsiadm: No active sessions." (open-iscsi usr/iscsiadm.c).
pub fn parse_iscsi_sessions(text: &str) -> Option<Vec<(String, String)>> {
    let mut out = Vec::new();
    let mut seen = false;
    for l in text.lines().map(str::trim) {
        if l.contains("No active sessions") {
            seen = true;
        }
        if let Some(c) = ISCSI_SESSION.captures(l) {
            seen = true;
            out.push((format!("{}:{}", &c[3], &c[4]), c[6].to_string()));
        }
    }
    seen.then_some(out)
}

/// /etc/iscsi/initiatorname.iscsi: `InitiatorName=iqn...` (`Some("")` when the file has no
/// name); `Err` when `cat` said the file does not exist.
pub fn parse_initiatorname(text: &str) -> Result<String, String> {
    for l in text.lines().map(str::trim) {
        if let Some(v) = l.strip_prefix("InitiatorName=") {
            return Ok(v.trim().to_string());
        }
        if l.contains("No such file or directory") {
            return Err(l.to_string());
        }
    }
    Ok(String::new())
}

// --- NFS servers --------------------------------------------------------------------------------

/// `rpcinfo -p HOST` (`program vers proto port service`) or `rpcinfo -s HOST` (`program
/// version(s) netid(s) service owner`), from rpcbind's rpcinfo: the NFS versions the server
/// registered (program 100003), or the error (`rpcinfo: can't contact portmapper: RPC: Remote
/// system error - Connection refused`).
pub fn parse_rpcinfo(text: &str, server: &str) -> NfsServerAnswer {
    let mut a = NfsServerAnswer {
        server: server.to_string(),
        ..NfsServerAnswer::default()
    };
    let mut table = false;
    for l in text.lines().map(str::trim) {
        if l.starts_with("program vers") || l.starts_with("program version") {
            table = true;
            a.reachable = Some(true);
            continue;
        }
        if l.starts_with("rpcinfo:") || l.contains("RPC: ") {
            a.reachable = Some(false);
            a.error = Some(l.to_string());
            continue;
        }
        let w: Vec<&str> = l.split_whitespace().collect();
        if table && w.len() >= 2 && w[0] == "100003" {
            for v in w[1].split(',') {
                if v.chars().all(|c| c.is_ascii_digit()) && !a.versions.iter().any(|x| x == v) {
                    a.versions.push(v.to_string());
                }
            }
        }
    }
    a
}

/// `showmount -e HOST` (nfs-utils utils/showmount/showmount.c: `Export list for %s:` then
/// `%-*s clients`), or its error (`clnt_create: RPC: Program not registered`, `rpc mount
/// export: RPC: Unable to receive; errno = Connection refused`).
pub fn parse_showmount(text: &str, server: Option<&str>) -> NfsServerAnswer {
    let mut a = NfsServerAnswer {
        server: server.unwrap_or_default().to_string(),
        ..NfsServerAnswer::default()
    };
    for l in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
        if let Some(h) = l.strip_prefix("Export list for ") {
            a.server = h.trim_end_matches(':').to_string();
            a.reachable = Some(true);
            continue;
        }
        if l.starts_with("clnt_create:")
            || l.starts_with("rpc mount export:")
            || l.starts_with("showmount:")
            || l.contains("RPC: ")
        {
            a.reachable =
                Some(l.contains("Program not registered") || l.contains("Program unavailable"));
            a.error = Some(l.to_string());
            continue;
        }
        if a.reachable == Some(true) && l.starts_with('/') {
            let (path, clients) = l.split_once(char::is_whitespace).unwrap_or((l, ""));
            a.exports
                .push((path.to_string(), clients.trim().to_string()));
        }
    }
    a
}

// --- df ------------------------------------------------------------------------------------------

/// `df` in its layouts (coreutils src/df.c: `Filesystem ... Use% Mounted on`, `-i`: `IUse%`,
/// `-T` adds `Type`; a long device name on its own line with the numbers on the next, as df
/// prints without `-P`).
pub fn parse_df(text: &str) -> Vec<DfEntry> {
    let mut out = Vec::new();
    let mut lines = text
        .lines()
        .map(|l| l.trim_end_matches('\r'))
        .filter(|l| !l.trim().is_empty());
    let Some(header) = lines.find(|l| l.starts_with("Filesystem")) else {
        return out;
    };
    let inodes = header.contains("IUse%") || header.contains("Inodes");
    let h: Vec<&str> = header.split_whitespace().collect();
    let pct_i = h
        .iter()
        .position(|c| c.ends_with("Use%") || *c == "Capacity");
    let mut pending: Option<String> = None;
    for l in lines {
        let mut w: Vec<&str> = l.split_whitespace().collect();
        if w.len() == 1 && !l.starts_with(' ') {
            pending = Some(w[0].to_string());
            continue;
        }
        let fs = match pending.take() {
            Some(p) if l.starts_with(' ') => p,
            _ => {
                if w.is_empty() {
                    continue;
                }
                w.remove(0).to_string()
            }
        };
        // The percentage is the cell under `Use%` (`-` when df cannot say), the mount point what
        // follows it; else the first cell ending in `%`.
        let at_header = pct_i
            .map(|i| i.saturating_sub(1))
            .filter(|&i| w.get(i).is_some_and(|c| c.ends_with('%') || *c == "-"));
        let Some(pi) = at_header.or_else(|| w.iter().position(|c| c.ends_with('%'))) else {
            continue;
        };
        let mounted_on = w[pi + 1..].join(" ");
        if mounted_on.is_empty() {
            continue;
        }
        out.push(DfEntry {
            filesystem: fs,
            mounted_on,
            use_percent: w[pi].trim_end_matches('%').parse().ok(),
            inodes,
        });
    }
    out
}

// --- services, sysctl, SELinux ---------------------------------------------------------------------

/// `systemctl status UNIT...` (systemd src/systemctl/systemctl-show.c: a `● UNIT - Description`
/// line, then `Active: active (running) since ...`; `Unit %s could not be found.`), `systemctl
/// is-active` (`active`/`inactive`/`failed` per unit) and `service X status`: unit → running.
pub fn parse_systemctl(text: &str, asked: &[String]) -> Vec<(String, bool)> {
    let mut out: Vec<(String, bool)> = Vec::new();
    let mut unit: Option<String> = None;
    let bare: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    // `systemctl is-active a b`: one word per unit.
    if !asked.is_empty()
        && bare.len() == asked.len()
        && bare.iter().all(|l| {
            matches!(
                *l,
                "active" | "inactive" | "failed" | "activating" | "deactivating" | "unknown"
            )
        })
    {
        return asked
            .iter()
            .zip(bare)
            .map(|(u, s)| (unit_name(u), s == "active"))
            .collect();
    }
    for l in text.lines().map(str::trim) {
        if let Some(rest) = l
            .strip_prefix('●')
            .or_else(|| l.strip_prefix('○'))
            .or_else(|| l.strip_prefix('×'))
            .or_else(|| l.strip_prefix('*'))
        {
            unit = rest.split_whitespace().next().map(unit_name);
            continue;
        }
        if let Some(u) = l
            .strip_prefix("Unit ")
            .and_then(|r| r.strip_suffix(" could not be found."))
        {
            out.push((unit_name(u), false));
            continue;
        }
        if let Some(a) = l.strip_prefix("Active: ") {
            let u = unit.clone().or_else(|| asked.first().map(|a| unit_name(a)));
            if let Some(u) = u {
                out.push((u, a.starts_with("active")));
            }
        }
    }
    out
}

fn unit_name(u: &str) -> String {
    u.trim()
        .trim_end_matches(".service")
        .trim_end_matches(".socket")
        .to_string()
}

/// `sysctl KEY` (procps sysctl.c: `%s = %s`) or the bare value of `/proc/sys/...`.
pub fn parse_sysctl(text: &str) -> Vec<(String, String)> {
    text.lines()
        .filter_map(|l| {
            let (k, v) = l.split_once(" = ").or_else(|| l.split_once('='))?;
            Some((k.trim().to_string(), v.trim().to_string()))
        })
        .filter(|(k, _)| k.contains('.') && !k.contains(' '))
        .collect()
}

/// `getenforce` (`Enforcing`/`Permissive`/`Disabled`), `sestatus` (`SELinux status: enabled`,
/// `Current mode: enforcing`), /etc/selinux/config (`SELINUX=enforcing`).
pub fn parse_selinux(text: &str) -> Option<(String, &'static str)> {
    let mut status_disabled = false;
    for l in text.lines().map(str::trim) {
        match l {
            "Enforcing" | "Permissive" | "Disabled" => {
                return Some((l.to_ascii_lowercase(), "getenforce"))
            }
            _ => {}
        }
        if let Some(v) = l.strip_prefix("Current mode:") {
            return Some((v.trim().to_ascii_lowercase(), "sestatus"));
        }
        if let Some(v) = l.strip_prefix("SELinux status:") {
            status_disabled = v.trim() == "disabled";
        }
        if let Some(v) = l.strip_prefix("SELINUX=") {
            return Some((v.trim().to_ascii_lowercase(), "config"));
        }
    }
    status_disabled.then(|| ("disabled".to_string(), "sestatus"))
}

// --- adding a transcript to the facts ----------------------------------------------------------------

/// What one transcript part added.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Applied {
    /// `uname -r: kernel 3.10.0-957.el7.x86_64`.
    pub summary: String,
    /// The fact families it filled (`kernel`, `modules`, ...).
    pub families: Vec<&'static str>,
}

fn applied(summary: String, families: &[&'static str]) -> Option<Applied> {
    Some(Applied {
        summary,
        families: families.to_vec(),
    })
}

/// The arguments of a command that are names (not options), after the program (and after a
/// subcommand such as `systemctl status`).
fn operands(cmd: Option<&str>) -> Vec<String> {
    let Some(cmd) = cmd else {
        return Vec::new();
    };
    let (w, _) = first_stage(cmd);
    let prog = w
        .first()
        .map(|p| basename(p).to_string())
        .unwrap_or_default();
    let mut rest: Vec<String> = w
        .into_iter()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    if matches!(prog.as_str(), "systemctl" | "apk") && !rest.is_empty() {
        rest.remove(0);
    }
    if prog == "service" {
        rest.retain(|a| a != "status");
    }
    rest
}

/// Read `text` (what `cmd` printed, or a part recognised as `kind` by its shape) into `facts`,
/// marking each family filled with `source` (`file dmesg.txt: dmesg | tail`; the caller redacts
/// it). `None` when nothing in the text fits the format after all (the caller reads it as
/// something else).
pub fn apply(
    kind: Kind,
    cmd: Option<&str>,
    text: &str,
    facts: &mut NodeFacts,
    source: &str,
) -> Option<Applied> {
    let prog = cmd
        .map(|c| first_stage(c).0)
        .and_then(|w| w.first().map(|p| basename(p).to_string()))
        .unwrap_or_default();
    let asked = operands(cmd);
    let mark = |facts: &mut NodeFacts, fams: &[&'static str]| {
        for f in fams {
            facts.add_provenance(f, source);
        }
    };
    let result = match kind {
        Kind::Uname => {
            let (rel, host, arch) = parse_uname(text)?;
            facts.kernel = Some(rel.clone());
            facts.kernel_source = Some("uname".into());
            if facts.hostname.is_none() {
                facts.hostname = host;
            }
            if facts.arch.is_none() {
                facts.arch = arch;
            }
            applied(format!("kernel {rel}"), &["kernel"])
        }
        Kind::OsRelease => {
            let os = parse_os_release(text);
            if os.id.is_some() || os.pretty_name.is_some() || os.name.is_some() {
                let shown = os
                    .pretty_name
                    .clone()
                    .or(os.name.clone())
                    .or(os.id.clone())
                    .unwrap_or_default();
                facts.os = os;
                applied(format!("OS {shown}"), &["os"])
            } else {
                // `/etc/redhat-release`, `hostnamectl`'s `Operating System:`, or a Node's osImage.
                let line = text.lines().map(str::trim).find(|l| !l.is_empty())?;
                let name = line
                    .strip_prefix("Operating System:")
                    .map(str::trim)
                    .or_else(|| {
                        text.lines()
                            .find_map(|l| l.trim().strip_prefix("Operating System:"))
                            .map(str::trim)
                    })
                    .unwrap_or(line);
                if name.len() > 120 || name.contains('=') {
                    return None;
                }
                facts.os.pretty_name = Some(name.to_string());
                applied(format!("OS {name}"), &["os"])
            }
        }
        Kind::KernelLog => {
            if text.contains("read kernel buffer failed")
                || text.contains("klogctl") && text.contains("not permitted")
            {
                facts.add_unavailable(format!(
                    "kernel log: {source}: dmesg could not read the kernel buffer (kernel.dmesg_restrict=1 without CAP_SYSLOG)"
                ));
                facts.dmesg_restrict.get_or_insert(true);
                mark(facts, &["dmesg_restrict"]);
                return applied("dmesg refused (dmesg_restrict)".into(), &["dmesg_restrict"]);
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
            applied(
                format!("{n} of {total} kernel log line(s) about storage"),
                &["kernel_log"],
            )
        }
        Kind::Lsmod => {
            // kmod's lsmod on a kernel built without module support (libkmod: `could not open
            // /proc/modules`): nothing can ever be loaded there.
            if text.contains("could not open /proc/modules") {
                facts.modules_loadable = Some(false);
                facts.add_provenance("modules", source);
                return applied(
                    "no /proc/modules: the kernel cannot load modules".into(),
                    &["modules"],
                );
            }
            let loaded = parse_lsmod(text);
            if loaded.is_empty() && !text.contains("Used by") {
                return None;
            }
            let n = loaded.len();
            for m in loaded {
                facts.modules.insert(m, ModuleState::Loaded);
            }
            applied(format!("{n} loaded module(s)"), &["modules"])
        }
        Kind::Kmod => {
            let (answers, notes) = parse_kmod(text, &asked);
            if answers.is_empty() && notes.is_empty() {
                return None;
            }
            let mut said = Vec::new();
            for a in &answers {
                if let Some(s) = a.state {
                    // What is loaded stays loaded; a module file found is better than not.
                    let keep = matches!(facts.modules.get(&a.module), Some(ModuleState::Loaded));
                    if !keep {
                        facts.modules.insert(a.module.clone(), s);
                    }
                    said.push(format!(
                        "{} {}",
                        a.module,
                        match s {
                            ModuleState::Missing => "not found",
                            ModuleState::Builtin => "built in",
                            ModuleState::Available => "available",
                            ModuleState::Loaded => "loaded",
                        }
                    ));
                }
                if let Some(e) = &a.error {
                    facts.errors.push(format!("modprobe {}: {e}", a.module));
                    said.push(format!("{} could not be loaded ({e})", a.module));
                }
                if facts.kernel.is_none() {
                    if let Some(k) = &a.kernel {
                        facts.kernel = Some(k.clone());
                        facts.kernel_source = Some("modprobe".into());
                    }
                }
            }
            for n in notes {
                if n.contains("nothing can be loaded") {
                    facts.modules_loadable = Some(false);
                }
                facts.errors.push(n.clone());
                said.push(n);
            }
            applied(said.join("; "), &["modules"])
        }
        Kind::Kubelet => {
            if prog == "cat" || prog == "grep" {
                if let Some(p) =
                    cmd.and_then(|c| read_file_arg(&first_stage(c).0).map(str::to_string))
                {
                    if p.ends_with(".yaml") && text.contains("KubeletConfiguration") {
                        let settings = kubelet_config_settings(text);
                        let k = facts.kubelet.get_or_insert_with(KubeletInfo::default);
                        k.config.get_or_insert(p);
                        let n = settings.len();
                        k.config_settings.extend(settings);
                        mark(facts, &["kubelet"]);
                        return applied(
                            format!("kubelet config ({n} setting(s) read)"),
                            &["kubelet"],
                        );
                    }
                }
            }
            let info = parse_kubelet(text, cmd)?;
            let shown = format!(
                "kubelet {} (root dir {}{})",
                info.flavour.as_deref().unwrap_or("unknown"),
                info.root_dir.as_deref().unwrap_or("?"),
                info.root_dir_source
                    .as_deref()
                    .map(|s| format!(", {s}"))
                    .unwrap_or_default()
            );
            merge_kubelet(facts, info);
            facts.kubelet_running.get_or_insert(true);
            applied(shown, &["kubelet"])
        }
        Kind::Lookup => {
            let names = asked.clone();
            let found = parse_lookup(text, &prog, &names);
            let found: Vec<Lookup> = found
                .into_iter()
                .filter(|l| {
                    is_program_of_interest(&l.name) || names.iter().any(|a| basename(a) == l.name)
                })
                .collect();
            if found.is_empty() {
                return None;
            }
            let mut said = Vec::new();
            for l in found {
                let helper = l.name.starts_with("mount.");
                match l.found {
                    Ok(p) => {
                        said.push(format!("{} at {p}", l.name));
                        facts.helpers_missing.remove(&l.name);
                        if helper {
                            facts.helpers.insert(l.name, p);
                        } else {
                            facts.tools.insert(l.name, p);
                        }
                    }
                    Err(why) => {
                        said.push(format!("{} missing", l.name));
                        if !facts.helpers.contains_key(&l.name)
                            && !facts.tools.contains_key(&l.name)
                        {
                            facts.helpers_missing.insert(l.name, why);
                        }
                    }
                }
            }
            applied(said.join(", "), &["helpers"])
        }
        Kind::Packages => {
            let p = if prog.is_empty() {
                if text.contains("Package: ")
                    || text.contains("Desired=")
                    || text.contains("dpkg-query")
                {
                    "dpkg"
                } else {
                    "rpm"
                }
            } else {
                prog.as_str()
            };
            let pk = parse_packages(text, p, &asked);
            if pk.is_empty() {
                return None;
            }
            let n = pk.len();
            let missing = pk.values().filter(|v| v.is_none()).count();
            facts.packages.extend(pk);
            applied(
                format!("{n} package(s), {missing} not installed"),
                &["packages"],
            )
        }
        Kind::Blkid | Kind::Lsblk => {
            let mut entries = if kind == Kind::Blkid {
                parse_blkid(text)
            } else {
                parse_lsblk(text)
            };
            let refused: Vec<&str> = text
                .lines()
                .map(str::trim)
                .filter(|l| {
                    l.starts_with("blkid: error:")
                        || l.contains("Permission denied")
                        || l.contains("Operation not permitted")
                })
                .collect();
            for r in &refused {
                facts.add_unavailable(format!("blkid: {r}"));
            }
            if entries.is_empty() && refused.is_empty() {
                if kind == Kind::Lsblk
                    && text
                        .lines()
                        .next()
                        .is_some_and(|h| h.trim_start().starts_with("NAME"))
                {
                    return applied("lsblk: no devices".into(), &["blkid"]);
                }
                return None;
            }
            let n = entries.len();
            for e in entries.drain(..) {
                match facts.blkid.iter_mut().find(|x| x.device == e.device) {
                    Some(x) => {
                        // blkid's answer over lsblk's (which reads udev's cache).
                        if kind == Kind::Blkid || x.fs_type.is_none() {
                            x.fs_type = e.fs_type.or(x.fs_type.take());
                            x.uuid = e.uuid.or(x.uuid.take());
                            x.label = e.label.or(x.label.take());
                        }
                        x.other.extend(e.other);
                    }
                    None => facts.blkid.push(e),
                }
            }
            applied(format!("{n} device(s)"), &["blkid"])
        }
        Kind::Findmnt | Kind::MountTable => {
            let mounts = if kind == Kind::Findmnt {
                let raw = cmd.is_some_and(|c| {
                    let (w, _) = first_stage(c);
                    w.iter().any(|a| {
                        a == "-r"
                            || a == "--raw"
                            || (a.starts_with('-') && !a.starts_with("--") && a.contains('r'))
                    })
                });
                parse_findmnt(text, raw)
            } else {
                let mi: Vec<MountEntry> = text
                    .lines()
                    .filter_map(|l| mountinfo::parse_mountinfo_line(l).ok())
                    .collect();
                let mo = mountinfo::parse_mount_output(text);
                if !mi.is_empty() {
                    mi
                } else if !mo.is_empty() {
                    mo
                } else {
                    text.lines().filter_map(parse_proc_mounts_line).collect()
                }
            };
            if mounts.is_empty() {
                return None;
            }
            let n = mounts.len();
            let what = if kind == Kind::Findmnt {
                "findmnt"
            } else if mounts[0].id.is_some() {
                "mountinfo"
            } else {
                "mount"
            };
            for m in mounts {
                if !facts.mounts.contains(&m) {
                    facts.mounts.push(m);
                }
            }
            if facts.mounts.len() > MAX_ENTRIES {
                facts.mounts.truncate(MAX_ENTRIES);
            }
            facts.mounts_source.get_or_insert_with(|| what.to_string());
            applied(format!("{n} mount(s) ({what})"), &["mounts"])
        }
        Kind::Multipath => {
            let maps = parse_multipath_ll(text);
            if maps.is_empty() {
                return None;
            }
            let n = maps.len();
            let mp = facts.multipath.get_or_insert_with(MultipathInfo::default);
            mp.maps.extend(maps);
            applied(format!("{n} multipath map(s)"), &["multipath"])
        }
        Kind::MultipathConf => {
            let (find, blacklist) = parse_multipath_conf(text);
            if find.is_none() && blacklist.is_empty() && !text.contains('{') {
                return None;
            }
            let mp = facts.multipath.get_or_insert_with(MultipathInfo::default);
            if find.is_some() {
                mp.find_multipaths = find.clone();
            }
            let n = blacklist.len();
            mp.blacklist.extend(blacklist);
            applied(
                format!(
                    "find_multipaths {}, {n} blacklist entr{}",
                    find.as_deref().unwrap_or("(not set)"),
                    if n == 1 { "y" } else { "ies" }
                ),
                &["multipath"],
            )
        }
        Kind::Iscsi => {
            let sessions = parse_iscsi_sessions(text)?;
            let n = sessions.len();
            let i = facts.iscsi.get_or_insert_with(IscsiInfo::default);
            i.sessions.extend(sessions);
            applied(format!("{n} iSCSI session(s)"), &["iscsi"])
        }
        Kind::InitiatorName => {
            let r = parse_initiatorname(text);
            let i = facts.iscsi.get_or_insert_with(IscsiInfo::default);
            let said = match r {
                Ok(name) => {
                    i.initiator_file_present = Some(true);
                    let s = if name.is_empty() {
                        "initiator name empty".to_string()
                    } else {
                        format!("initiator {name}")
                    };
                    i.initiator_name = Some(name);
                    s
                }
                Err(e) => {
                    i.initiator_file_present = Some(false);
                    format!("no initiator name file ({e})")
                }
            };
            applied(said, &["iscsi"])
        }
        Kind::Rpcinfo | Kind::Showmount => {
            let server = asked.iter().find(|a| !a.starts_with('-')).cloned();
            let a = if kind == Kind::Rpcinfo {
                parse_rpcinfo(text, server.as_deref().unwrap_or("localhost"))
            } else {
                parse_showmount(text, server.as_deref())
            };
            if a.reachable.is_none() && a.exports.is_empty() {
                return None;
            }
            let shown = format!(
                "NFS server {}: {}",
                a.server,
                match (a.reachable, &a.error) {
                    (Some(true), _) if !a.versions.is_empty() =>
                        format!("answers, NFS versions {}", a.versions.join(",")),
                    (Some(true), _) if !a.exports.is_empty() =>
                        format!("{} export(s)", a.exports.len()),
                    (Some(true), _) => "answers".into(),
                    (_, Some(e)) => e.clone(),
                    _ => "no answer".into(),
                }
            );
            match facts.nfs_servers.iter_mut().find(|s| s.server == a.server) {
                Some(s) => {
                    if a.reachable.is_some() {
                        s.reachable = a.reachable.or(s.reachable);
                    }
                    s.versions.extend(a.versions);
                    s.exports.extend(a.exports);
                    if a.error.is_some() {
                        s.error = a.error;
                    }
                }
                None => facts.nfs_servers.push(a),
            }
            applied(shown, &["nfs_servers"])
        }
        Kind::Df => {
            let rows = parse_df(text);
            if rows.is_empty() {
                return None;
            }
            let n = rows.len();
            facts.df.extend(rows);
            applied(format!("{n} filesystem(s)"), &["df"])
        }
        Kind::Systemctl => {
            let units = parse_systemctl(text, &asked);
            if units.is_empty() {
                if text.contains("System has not been booted with systemd") {
                    facts.add_unavailable(format!(
                        "services: {source}: systemd is not running (no unit states)"
                    ));
                    return applied("systemd not running".into(), &["services"]);
                }
                return None;
            }
            let mut said = Vec::new();
            for (u, running) in units {
                match u.as_str() {
                    "rpc-statd" | "nfs-lock" | "rpc.statd" | "statd" => {
                        facts.rpc_statd_running = Some(running)
                    }
                    "rpcbind" => facts.rpcbind_running = Some(running),
                    "iscsid" => {
                        facts
                            .iscsi
                            .get_or_insert_with(IscsiInfo::default)
                            .iscsid_running = Some(running)
                    }
                    "multipathd" => {
                        facts
                            .multipath
                            .get_or_insert_with(MultipathInfo::default)
                            .running = Some(running)
                    }
                    "kubelet"
                    | "k3s"
                    | "k3s-agent"
                    | "rke2-server"
                    | "rke2-agent"
                    | "snap.microk8s.daemon-kubelite"
                    | "k0sworker" => facts.kubelet_running = Some(running),
                    _ => {}
                }
                said.push(format!(
                    "{u} {}",
                    if running { "running" } else { "not running" }
                ));
            }
            applied(said.join(", "), &["services"])
        }
        Kind::Sysctl => {
            let mut kv = parse_sysctl(text);
            if kv.is_empty() {
                // `cat /proc/sys/kernel/dmesg_restrict`: the value alone.
                let v = text.trim();
                if (v == "0" || v == "1") && cmd.is_some_and(|c| c.contains("dmesg_restrict")) {
                    kv.push(("kernel.dmesg_restrict".into(), v.into()));
                }
            }
            let v = kv.iter().find(|(k, _)| k == "kernel.dmesg_restrict")?;
            let restricted = v.1 != "0";
            facts.dmesg_restrict = Some(restricted);
            applied(
                format!("kernel.dmesg_restrict = {}", v.1),
                &["dmesg_restrict"],
            )
        }
        Kind::Selinux => {
            let (mode, src) = parse_selinux(text)?;
            facts.selinux = Some(mode.clone());
            facts.selinux_source = Some(src.to_string());
            applied(format!("SELinux {mode}"), &["selinux"])
        }
        Kind::Filesystems => {
            let fs: Vec<String> = text
                .lines()
                .filter_map(|l| l.split_whitespace().last())
                .map(str::to_string)
                .collect();
            if fs.is_empty() {
                return None;
            }
            let n = fs.len();
            facts.filesystems = fs;
            applied(format!("{n} filesystem type(s)"), &["filesystems"])
        }
    };
    if let Some(a) = &result {
        mark(facts, &a.families);
    }
    derive(facts);
    result
}

/// Merge a kubelet reading into the facts: a later, more specific reading (a flag) wins over a
/// default; flags accumulate.
fn merge_kubelet(facts: &mut NodeFacts, info: KubeletInfo) {
    let k = facts.kubelet.get_or_insert_with(KubeletInfo::default);
    let from_flag = info.root_dir_source.as_deref() == Some("flag");
    if (k.root_dir.is_none() || from_flag) && info.root_dir.is_some() {
        k.root_dir = info.root_dir.clone();
        k.root_dir_source = info.root_dir_source.clone();
    }
    if k.flavour.as_deref().is_none_or(|f| f == "unknown") {
        k.flavour = info.flavour;
    }
    if info.containerized.is_some() && k.containerized != Some(true) {
        k.containerized = info.containerized;
    }
    for f in info.flags {
        if !k.flags.contains(&f) {
            k.flags.push(f);
        }
    }
    if k.config.is_none() {
        k.config = info.config;
    }
    k.container_binds.extend(info.container_binds);
    k.config_settings.extend(info.config_settings);
    // The same root dir where the rules read it.
    if let Some(r) = k.root_dir.clone() {
        facts.kubelet_root = Some(r);
        facts.kubelet_root_source = k.root_dir_source.clone();
    }
}

/// Facts that follow from others, whichever source gave them: the propagation of the mount
/// holding the kubelet's root dir.
pub fn derive(facts: &mut NodeFacts) {
    if let Some(kr) = facts.kubelet_root.clone() {
        if let Some(m) = mountinfo::containing_mount(&facts.mounts, &kr) {
            if let Some(p) = mountinfo::propagation(m) {
                facts.kubelet_root_propagation = Some(p);
            }
            facts.kubelet_root_mount = Some(m.mount_point.clone());
        }
    }
}

/// Add what `from` knows to `into` (the probe's facts and a pasted transcript's, or two saved
/// readings): a fact `into` lacks is taken, lists are joined without repeats, provenance and
/// what could not be read are kept from both.
pub fn merge(into: &mut NodeFacts, from: NodeFacts) {
    fn fill<T>(a: &mut Option<T>, b: Option<T>) {
        if a.is_none() {
            *a = b;
        }
    }
    fn join<T: PartialEq>(a: &mut Vec<T>, b: Vec<T>) {
        for x in b {
            if !a.contains(&x) {
                a.push(x);
            }
        }
    }
    let NodeFacts {
        probe_version,
        root,
        live,
        hostname,
        os,
        kernel,
        kernel_source,
        arch,
        helpers,
        tools,
        filesystems,
        modules,
        modules_loadable,
        rpc_statd_running,
        rpcbind_running,
        kubelet_running,
        selinux,
        selinux_source,
        mounts,
        mounts_source,
        kubelet_root,
        kubelet_root_source,
        kubelet_root_propagation,
        kubelet_root_mount,
        pod_uids,
        errors,
        kubelet_log,
        kernel_log,
        log_sources,
        complete,
        kubelet,
        blkid,
        multipath,
        iscsi,
        df,
        nfs_servers,
        packages,
        dmesg_restrict,
        provenance,
        unavailable,
        helpers_missing,
    } = from;
    into.probe_version = into.probe_version.max(probe_version);
    fill(&mut into.root, root);
    into.live |= live;
    fill(&mut into.hostname, hostname);
    if into.os == Default::default() {
        into.os = os;
    }
    if into.kernel.is_none() {
        into.kernel = kernel;
        into.kernel_source = kernel_source;
    }
    fill(&mut into.arch, arch);
    for (k, v) in helpers {
        into.helpers_missing.remove(&k);
        into.helpers.entry(k).or_insert(v);
    }
    for (k, v) in tools {
        into.helpers_missing.remove(&k);
        into.tools.entry(k).or_insert(v);
    }
    for (k, v) in helpers_missing {
        if !into.helpers.contains_key(&k) && !into.tools.contains_key(&k) {
            into.helpers_missing.entry(k).or_insert(v);
        }
    }
    if into.filesystems.is_empty() {
        into.filesystems = filesystems;
    }
    for (k, v) in modules {
        into.modules.entry(k).or_insert(v);
    }
    fill(&mut into.modules_loadable, modules_loadable);
    fill(&mut into.rpc_statd_running, rpc_statd_running);
    fill(&mut into.rpcbind_running, rpcbind_running);
    fill(&mut into.kubelet_running, kubelet_running);
    if into.selinux.is_none() {
        into.selinux = selinux;
        into.selinux_source = selinux_source;
    }
    join(&mut into.mounts, mounts);
    fill(&mut into.mounts_source, mounts_source);
    let better = into.kubelet_root.is_none()
        || into.kubelet_root_source.as_deref() == Some("default")
            && kubelet_root_source.as_deref() == Some("flag");
    if better && kubelet_root.is_some() {
        into.kubelet_root = kubelet_root;
        into.kubelet_root_source = kubelet_root_source;
    }
    fill(&mut into.kubelet_root_propagation, kubelet_root_propagation);
    fill(&mut into.kubelet_root_mount, kubelet_root_mount);
    fill(&mut into.pod_uids, pod_uids);
    join(&mut into.errors, errors);
    join(&mut into.kubelet_log, kubelet_log);
    join(&mut into.kernel_log, kernel_log);
    join(&mut into.log_sources, log_sources);
    into.complete |= complete;
    if let Some(k) = kubelet {
        let mut tmp = NodeFacts {
            kubelet: into.kubelet.take(),
            ..NodeFacts::default()
        };
        merge_kubelet(&mut tmp, k);
        into.kubelet = tmp.kubelet;
    }
    for b in blkid {
        if !into.blkid.iter().any(|x| x.device == b.device) {
            into.blkid.push(b);
        }
    }
    match (&mut into.multipath, multipath) {
        (Some(a), Some(b)) => {
            join(&mut a.maps, b.maps);
            fill(&mut a.find_multipaths, b.find_multipaths);
            join(&mut a.blacklist, b.blacklist);
            fill(&mut a.running, b.running);
        }
        (a @ None, b) => *a = b,
        _ => {}
    }
    match (&mut into.iscsi, iscsi) {
        (Some(a), Some(b)) => {
            fill(&mut a.initiator_name, b.initiator_name);
            join(&mut a.sessions, b.sessions);
            fill(&mut a.iscsid_running, b.iscsid_running);
            fill(&mut a.initiator_file_present, b.initiator_file_present);
        }
        (a @ None, b) => *a = b,
        _ => {}
    }
    join(&mut into.df, df);
    for n in nfs_servers {
        if !into.nfs_servers.iter().any(|x| x.server == n.server) {
            into.nfs_servers.push(n);
        }
    }
    for (k, v) in packages {
        into.packages.entry(k).or_insert(v);
    }
    fill(&mut into.dmesg_restrict, dmesg_restrict);
    for (k, v) in provenance {
        for s in v.split("; ") {
            into.add_provenance(&k, s);
        }
    }
    join(&mut into.unavailable, unavailable);
    derive(into);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Propagation;

    /// A transcript file's parts: (the prompt's command, its output); a file without a prompt is
    /// one part without a command.
    fn parts(text: &str) -> Vec<(Option<String>, String)> {
        let prompt = Regex::new(r"^(?:\[[^\]]*\]\s?[#$]|[#$])\s*(\S.*)$").unwrap();
        let mut out: Vec<(Option<String>, String)> = Vec::new();
        for l in text.lines() {
            if let Some(c) = prompt.captures(l) {
                out.push((Some(c[1].to_string()), String::new()));
                continue;
            }
            if out.is_empty() {
                out.push((None, String::new()));
            }
            let body = &mut out.last_mut().unwrap().1;
            body.push_str(l);
            body.push('\n');
        }
        out
    }

    /// Read every part of a transcript into one set of facts, as `doctor --from-file` does.
    fn facts_of(text: &str) -> NodeFacts {
        let mut f = NodeFacts::default();
        for (cmd, body) in parts(text) {
            let kind = match &cmd {
                Some(c) => {
                    kind_of_command(c).or_else(|| shows_text(c).then(|| sniff(&body)).flatten())
                }
                None => sniff(&body),
            };
            let kind = kind.unwrap_or_else(|| panic!("not recognised: {cmd:?}\n{body}"));
            apply(kind, cmd.as_deref(), &body, &mut f, "test")
                .unwrap_or_else(|| panic!("{kind:?} read nothing from {cmd:?}\n{body}"));
        }
        f
    }

    macro_rules! fixture {
        ($name:literal) => {
            include_str!(concat!("../../fixtures/node/", $name))
        };
    }

    #[test]
    fn uname_and_os_release() {
        let f = facts_of(fixture!("uname-r.txt"));
        assert_eq!(f.kernel.as_deref(), Some("6.18.44-fc-v669"));
        assert_eq!(f.provenance["kernel"], "test");
        let f = facts_of(fixture!("uname-a.txt"));
        assert_eq!(f.kernel.as_deref(), Some("6.18.44-fc-v669"));
        assert_eq!(f.hostname.as_deref(), Some("vm"));
        assert_eq!(f.arch.as_deref(), Some("x86_64"));
        for (rel, ok) in [
            ("3.10.0-957.el7.x86_64", true),
            ("5.15.136-flatcar", true),
            ("6.2.0-1016-azure", true),
            ("1.27", false),
        ] {
            assert_eq!(sniff(rel) == Some(Kind::Uname), ok, "{rel}");
        }
        let f = facts_of(fixture!("os-release-debian12.txt"));
        assert_eq!(f.os.id.as_deref(), Some("debian"));
        assert_eq!(
            f.os.pretty_name.as_deref(),
            Some("Debian GNU/Linux 12 (bookworm)")
        );
        let body = parts(fixture!("os-release-debian12.txt")).remove(0).1;
        assert_eq!(sniff(&body), Some(Kind::OsRelease));
    }

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
    fn the_probe_greps_the_same_storage_words() {
        let probe = include_str!("../collect/node/probe.sh");
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

    #[test]
    fn modules_from_lsmod_proc_modules_modprobe_and_modinfo() {
        let f = facts_of(fixture!("lsmod-kmod-testsuite.txt"));
        assert_eq!(f.modules.get("btusb"), Some(&ModuleState::Loaded));
        let f = facts_of(fixture!("proc-modules-kmod-testsuite.txt"));
        assert_eq!(f.modules.get("btusb"), Some(&ModuleState::Loaded));
        let body = parts(fixture!("proc-modules-kmod-testsuite.txt"))
            .remove(0)
            .1;
        assert_eq!(sniff(&body), Some(Kind::Lsmod));
        let f = facts_of(fixture!("lsmod-no-module-support.txt"));
        assert_eq!(f.modules_loadable, Some(false));
        let f = facts_of(fixture!("modprobe-modinfo-debian12.txt"));
        assert_eq!(f.modules.get("rbd"), Some(&ModuleState::Missing));
        assert_eq!(f.kernel.as_deref(), Some("6.18.44-fc-v669"));
        let f = facts_of(fixture!("modinfo-builtin-kmod-testsuite.txt"));
        assert_eq!(f.modules.get("intel_uncore"), Some(&ModuleState::Builtin));
        // libkmod's moddep error (a tune case's CentOS 7 without a module tree)
        let (a, notes) = parse_kmod("modprobe: ERROR: ../libkmod/libkmod.c:586 kmod_search_moddep() could not open moddep file '/lib/modules/3.10.0-693.11.1.el7.x86_64/modules.dep.bin'\nmodprobe: FATAL: Module iscsi_tcp not found in directory /lib/modules/3.10.0-693.11.1.el7.x86_64\n", &[]);
        assert_eq!(a[0].module, "iscsi_tcp");
        assert_eq!(a[0].kernel.as_deref(), Some("3.10.0-693.11.1.el7.x86_64"));
        assert_eq!(notes.len(), 1);
        let (a, _) = parse_kmod(
            "modprobe: ERROR: could not insert 'rbd': Operation not permitted\n",
            &[],
        );
        assert_eq!(a[0].error.as_deref(), Some("Operation not permitted"));
    }

    #[test]
    fn the_kubelet_from_every_process_listing() {
        for file in [
            fixture!("ps-ef-grep-kubelet.txt"),
            fixture!("ps-aux-grep-kubelet.txt"),
            fixture!("pgrep-a-kubelet.txt"),
            fixture!("proc-cmdline-kubelet.txt"),
        ] {
            let f = facts_of(file);
            let k = f.kubelet.as_ref().expect("a kubelet");
            assert_eq!(k.root_dir.as_deref(), Some("/var/lib/kubelet"), "{file}");
            assert_eq!(k.root_dir_source.as_deref(), Some("flag"));
            assert_eq!(
                k.config.as_deref(),
                Some("/work/k8s-env/kubelet/config.yaml")
            );
            // kube-apiserver's flags (which name the kubelet) are not the kubelet's.
            assert!(
                !k.flags.iter().any(|x| x.contains("etcd-servers")),
                "{:?}",
                k.flags
            );
            assert!(k
                .flags
                .contains(&"--hostname-override=realnode".to_string()));
            assert_eq!(f.kubelet_root.as_deref(), Some("/var/lib/kubelet"));
        }
        // `grep kubelet` and `systemctl status kubelet` are no kubelets.
        assert!(kubelet_processes("root 3494 3492 0 21:55 ? 00:00:00 grep kubelet\n").is_empty());
        assert!(kubelet_processes("bash -c ps -ef | grep kubelet").is_empty());
    }

    #[test]
    fn kubelet_flavours_and_root_dirs() {
        let k = |text: &str, cmd: Option<&str>| parse_kubelet(text, cmd).expect("a kubelet");
        // MicroK8s' args file (a tune case's line).
        let m = k(
            "--root-dir=${SNAP_COMMON}/var/lib/kubelet\n",
            Some("grep root-dir /var/snap/microk8s/current/args/kubelet"),
        );
        assert_eq!(m.flavour.as_deref(), Some("microk8s"));
        assert_eq!(
            m.root_dir.as_deref(),
            Some("/var/snap/microk8s/common/var/lib/kubelet")
        );
        // RKE's containerised kubelet (a tune case's docker inspect).
        let r = k(
            "--root-dir=/opt/rke/var/lib/kubelet\n",
            Some("docker inspect kubelet --format '{{join .Args \"\\n\"}}' | grep root-dir"),
        );
        assert_eq!(r.flavour.as_deref(), Some("rke"));
        assert_eq!(r.containerized, Some(true));
        assert_eq!(r.root_dir.as_deref(), Some("/opt/rke/var/lib/kubelet"));
        let binds = k(
            "            {\n                \"Type\": \"bind\",\n                \"Source\": \"/var/lib/kubelet/volumeplugins\",\n                \"Destination\": \"/var/lib/kubelet/volumeplugins\",\n                \"Mode\": \"shared,z\",\n                \"RW\": true,\n                \"Propagation\": \"shared\"\n            },\n",
            Some("docker inspect kubelet"),
        );
        assert_eq!(
            binds.container_binds,
            ["/var/lib/kubelet/volumeplugins -> /var/lib/kubelet/volumeplugins (shared)"]
        );
        assert_eq!(binds.root_dir_source.as_deref(), Some("default"));
        // k3s embeds the kubelet; its flags come as --kubelet-arg.
        let t = k("root 812 1 5 09:00 ? 00:10:00 /usr/local/bin/k3s server --kubelet-arg root-dir=/data/kubelet --token K10abc::server:s3cr3tvalue\n", None);
        assert_eq!(t.flavour.as_deref(), Some("k3s"));
        assert_eq!(t.root_dir.as_deref(), Some("/data/kubelet"));
        assert!(
            t.flags.iter().all(|f| !f.contains("s3cr3t")),
            "{:?}",
            t.flags
        );
        let t = k("  812 /usr/local/bin/k3s agent\n", None);
        assert_eq!(
            (t.flavour.as_deref(), t.root_dir.as_deref()),
            (Some("k3s"), Some("/var/lib/kubelet"))
        );
        // k0s
        let z = k("  1234 /var/lib/k0s/bin/kubelet --config=/var/lib/k0s/kubelet-config.yaml --kubeconfig=/var/lib/k0s/kubelet.conf\n", None);
        assert_eq!(
            (z.flavour.as_deref(), z.root_dir.as_deref()),
            (Some("k0s"), Some("/var/lib/k0s/kubelet"))
        );
        // kind, minikube, OpenShift, kubeadm's unit
        let kind = k("  300 /usr/bin/kubelet --node-ip=172.18.0.2 --provider-id=kind://docker/kind/kind-control-plane\n", None);
        assert_eq!(
            (kind.flavour.as_deref(), kind.containerized),
            (Some("kind"), Some(true))
        );
        let mk = k(
            "  300 /var/lib/minikube/binaries/v1.30.0/kubelet --hostname-override=minikube\n",
            None,
        );
        assert_eq!(mk.flavour.as_deref(), Some("minikube"));
        let oc = k("  300 /usr/bin/kubelet --config=/etc/kubernetes/kubelet.conf --node-labels=node-role.kubernetes.io/worker,node.openshift.io/os_id=rhcos\n", None);
        assert_eq!(oc.flavour.as_deref(), Some("openshift"));
        let unit = k(
            "# /lib/systemd/system/kubelet.service\n[Service]\nExecStart=/usr/bin/kubelet\n# /etc/systemd/system/kubelet.service.d/10-kubeadm.conf\nEnvironment=\"KUBELET_KUBECONFIG_ARGS=--bootstrap-kubeconfig=/etc/kubernetes/bootstrap-kubelet.conf --kubeconfig=/etc/kubernetes/kubelet.conf\"\nEnvironment=\"KUBELET_CONFIG_ARGS=--config=/var/lib/kubelet/config.yaml\"\nExecStart=/usr/bin/kubelet $KUBELET_KUBECONFIG_ARGS $KUBELET_CONFIG_ARGS\n",
            Some("systemctl cat kubelet"),
        );
        assert_eq!(unit.flavour.as_deref(), Some("kubeadm"));
        assert_eq!(unit.config.as_deref(), Some("/var/lib/kubelet/config.yaml"));
        // A tune case's `ps -o args= -C kubelet | tr ' ' '\n' | grep root-dir`.
        let v = k(
            "--root-dir=/data/kubelet/pods\n",
            Some("ps -o args= -C kubelet | tr ' ' '\\n' | grep root-dir"),
        );
        assert_eq!(v.root_dir.as_deref(), Some("/data/kubelet/pods"));
        // Secrets in flags never stay.
        let s = k("  9 /usr/bin/kubelet --token=abcdef0123456789 --azure-container-registry-config=/etc/kubernetes/azure.json --password=hunter2\n", None);
        assert!(
            s.flags
                .iter()
                .all(|f| !f.contains("abcdef0123") && !f.contains("hunter2")),
            "{:?}",
            s.flags
        );
        // k3s' config.yaml: its kubelet-arg list, never its token.
        let c = k(
            "token: totally-not-generated-one\nkubelet-arg:\n  - \"root-dir=/srv/kubelet\"\n",
            Some("cat /etc/rancher/k3s/config.yaml"),
        );
        assert_eq!(
            (c.flavour.as_deref(), c.root_dir.as_deref()),
            (Some("k3s"), Some("/srv/kubelet"))
        );
        assert!(c.flags.is_empty());
    }

    #[test]
    fn helpers_found_and_missing() {
        let f = facts_of(fixture!("which-helpers.txt"));
        assert_eq!(
            f.tools.get("findmnt").map(String::as_str),
            Some("/usr/bin/findmnt")
        );
        assert_eq!(f.helper_state("mount.nfs"), Some(false));
        assert_eq!(f.helper_state("mount.cifs"), Some(false));
        assert_eq!(f.helper_state("mount.glusterfs"), None, "not looked for");
        let f = facts_of(fixture!("command-v.txt"));
        assert_eq!(f.helper_state("blkid"), Some(true));
        assert_eq!(f.helper_state("mount.nfs"), Some(false));
        let f = facts_of(fixture!("ls-sbin-mount.txt"));
        assert_eq!(f.helper_state("mount.nfs"), Some(false));
        assert_eq!(f.helper_state("mount.fuse3"), Some(false));
        assert!(f.helpers_missing["mount.nfs"].contains("No such file or directory"));
        // `ls -l` of a helper that is there, GNU `which` and `type` saying no.
        let l = parse_lookup("-rwsr-xr-x 1 root root 141376 Nov  4  2022 /sbin/mount.nfs\nlrwxrwxrwx 1 root root 9 Nov  4  2022 /sbin/mount.nfs4 -> mount.nfs\n", "ls", &["/sbin/mount.nfs".into(), "/sbin/mount.nfs4".into()]);
        assert_eq!(l.iter().filter(|l| l.found.is_ok()).count(), 2, "{l:?}");
        let l = parse_lookup(
            "/usr/bin/which: no mount.nfs in (/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin)\n",
            "which",
            &["mount.nfs".into()],
        );
        assert!(l[0].found.as_ref().unwrap_err().contains("/usr/sbin"));
        let l = parse_lookup(
            "-bash: type: mount.cifs: not found\nmount.nfs is /usr/sbin/mount.nfs\n",
            "type",
            &["mount.cifs".into(), "mount.nfs".into()],
        );
        assert!(l.iter().any(|x| x.name == "mount.cifs" && x.found.is_err()));
        assert!(l.iter().any(|x| x.name == "mount.nfs" && x.found.is_ok()));
        // An ls that is not about a program is not a lookup (it stays a message).
        assert_eq!(kind_of_command("ls /var/lib/kubelet/pods/x/volumes"), None);
    }

    #[test]
    fn packages_from_dpkg_rpm_and_apk() {
        let f = facts_of(fixture!("dpkg-s-util-linux.txt"));
        assert_eq!(
            f.packages["util-linux"].as_deref(),
            Some("2.38.1-5+deb12u3")
        );
        assert_eq!(f.packages["nfs-common"], None);
        let f = facts_of(fixture!("dpkg-l.txt"));
        assert_eq!(f.packages["mount"].as_deref(), Some("2.38.1-5+deb12u3"));
        assert_eq!(f.packages["open-iscsi"], None);
        let p = parse_packages(
            "rpm-plugin-selinux-4.14.2-26.el8_1.x86_64\npython3-libselinux-2.9-2.1.el8.x86_64\n",
            "rpm",
            &[],
        );
        assert_eq!(p["python3-libselinux"].as_deref(), Some("2.9-2.1.el8"));
        let p = parse_packages("package nfs-utils is not installed\n", "rpm", &[]);
        assert_eq!(p["nfs-utils"], None);
        let p = parse_packages(
            "nfs-utils-2.6.4-r1 x86_64 {nfs-utils} (GPL-2.0-only) [installed]\n",
            "apk",
            &[],
        );
        assert_eq!(p["nfs-utils"].as_deref(), Some("2.6.4-r1"));
        let p = parse_packages("", "apk", &["open-iscsi".into()]);
        assert_eq!(p["open-iscsi"], None);
    }

    #[test]
    fn block_devices_from_blkid_lsblk_and_the_cache() {
        let f = facts_of(fixture!("blkid.txt"));
        assert_eq!(f.blkid.len(), 2);
        assert_eq!(f.blkid[0].device, "/dev/loop1");
        assert_eq!(f.blkid[0].fs_type.as_deref(), Some("ext4"));
        assert_eq!(
            f.blkid[0].uuid.as_deref(),
            Some("4224d143-e5a8-42b6-8eec-343609226629")
        );
        assert_eq!(f.blkid[1].other["PTTYPE"], "dos");
        let f = facts_of(fixture!("blkid-p.txt"));
        assert_eq!(f.blkid[0].other["USAGE"], "filesystem");
        assert!(
            f.unavailable[0].contains("/dev/vda: Operation not permitted"),
            "{:?}",
            f.unavailable
        );
        let f = facts_of(fixture!("lsblk-f.txt"));
        let vda = f.blkid.iter().find(|b| b.device == "/dev/vda").unwrap();
        assert_eq!(vda.other["MOUNTPOINTS"], "/var/lib/kubelet,/");
        assert_eq!(vda.fs_type, None);
        let c = parse_blkid_cache("<device DEVNO=\"0x0701\" TIME=\"1795730085.186326\" UUID=\"4224d143-e5a8-42b6-8eec-343609226629\" BLOCK_SIZE=\"1024\" TYPE=\"ext4\">/dev/loop1</device>\n");
        assert_eq!(c[0].device, "/dev/loop1");
        assert_eq!(c[0].fs_type.as_deref(), Some("ext4"));
        assert!(!c[0].other.contains_key("TIME"));
        let u = parse_blkid("DEVNAME=/dev/sdb\nID_FS_UUID=2d3e\nID_FS_TYPE=xfs\n\nDEVNAME=/dev/sdc\nID_FS_UUID=2d3e\nID_FS_TYPE=xfs\n");
        assert_eq!(u.len(), 2);
        assert_eq!(u[1].uuid.as_deref(), Some("2d3e"));
        assert_eq!(
            parse_blkid(r#"/dev/sda1: LABEL="a \"b\" c" TYPE="ext4""#)[0]
                .label
                .as_deref(),
            Some("a \"b\" c")
        );
    }

    #[test]
    fn mount_tables_in_every_layout() {
        for (file, n) in [
            (fixture!("findmnt-default.txt"), 1),
            (fixture!("findmnt-r.txt"), 2),
            (fixture!("findmnt-o.txt"), 2),
            (fixture!("mount-grep.txt"), 0),
            (fixture!("mountinfo.txt"), 0),
        ] {
            let f = facts_of(file);
            assert!(f.mounts.len() >= n.max(1), "{file}");
            if n > 0 {
                let m = f
                    .mounts
                    .iter()
                    .find(|m| m.mount_point == "/var/lib/kubelet")
                    .unwrap();
                assert_eq!(m.source, "/dev/vda");
                assert_eq!(m.root.as_deref(), Some("/var/lib/kubelet"));
                assert_eq!(m.fstype, "ext4");
            }
        }
        let f = facts_of(fixture!("findmnt-l.txt"));
        assert!(f
            .mounts
            .iter()
            .any(|m| m.fstype == "tmpfs" && m.mount_point.contains("kube-api-access")));
        let f = facts_of(fixture!("mountinfo.txt"));
        assert!(f.mounts.iter().all(|m| m.id.is_some()));
        // findmnt's PROPAGATION column and the kubelet's root dir, from two transcripts.
        let mut f = facts_of(fixture!("findmnt-o.txt"));
        apply(
            Kind::Kubelet,
            Some("pgrep -a kubelet"),
            &parts(fixture!("pgrep-a-kubelet.txt"))[0].1,
            &mut f,
            "t",
        )
        .unwrap();
        assert_eq!(f.kubelet_root_propagation, Some(Propagation::Shared));
        assert_eq!(f.kubelet_root_mount.as_deref(), Some("/var/lib/kubelet"));
        let m = parse_proc_mounts_line("10.0.0.1:/export /var/lib/kubelet/pods/u/volumes/kubernetes.io~nfs/v nfs4 rw,relatime,vers=4.1 0 0").unwrap();
        assert_eq!(m.fstype, "nfs4");
    }

    #[test]
    fn df_use_and_inodes() {
        let f = facts_of(fixture!("df-h.txt"));
        assert_eq!(f.df.len(), 3);
        assert_eq!(f.df[1].mounted_on, "/var/lib/kubelet");
        assert_eq!(f.df[1].use_percent, Some(33));
        assert!(!f.df[0].inodes);
        let f = facts_of(fixture!("df-i.txt"));
        assert_eq!(f.df[0].use_percent, Some(3));
        assert!(f.df[0].inodes);
        // df -P (the probe's), a wrapped device name, a `-` percentage
        let d = parse_df("Filesystem     1024-blocks     Used Available Capacity Mounted on\n/dev/vda         264212084 33061960  62223928      35% /var/lib/kubelet\n/dev/mapper/vg-very-long-logical-volume\n                  1000 990 10 99% /data\n");
        assert_eq!(
            (d[0].use_percent, d[1].use_percent, d[1].filesystem.as_str()),
            (
                Some(35),
                Some(99),
                "/dev/mapper/vg-very-long-logical-volume"
            )
        );
        let d = parse_df("Filesystem Inodes IUsed IFree IUse% Mounted on\nbtrfs - - - - /srv\n");
        assert_eq!((d[0].use_percent, d[0].mounted_on.as_str()), (None, "/srv"));
    }

    #[test]
    fn multipath_maps_and_settings() {
        let f = facts_of(fixture!("multipath-ll-rhel6.txt"));
        let m = &f.multipath.as_ref().unwrap().maps[0];
        assert_eq!(m.name, "3600d0230000000000e13955cc3757800");
        assert_eq!(m.wwid.as_deref(), Some("3600d0230000000000e13955cc3757800"));
        assert_eq!(m.dm.as_deref(), Some("dm-1"));
        assert_eq!(
            (m.vendor.as_deref(), m.product.as_deref()),
            (Some("WINSYS"), Some("SF2372"))
        );
        assert_eq!(m.paths, ["sdb", "sdf"]);
        let f = facts_of(fixture!("multipath-ll-nvme-foreign.txt"));
        assert_eq!(
            f.multipath.as_ref().unwrap().maps[0].paths,
            ["nvme4c38n1", "nvme4c39n1"]
        );
        let f = facts_of(fixture!("multipath-ll-rhel5.txt"));
        let m = &f.multipath.as_ref().unwrap().maps[0];
        assert_eq!(
            (m.name.as_str(), m.wwid.as_deref()),
            ("mpath1", Some("3600d0230003228bc000339414edb8101"))
        );
        assert_eq!(m.paths, ["sdb", "sdc"]);
        let f = facts_of(fixture!("multipath-conf-longhorn.txt"));
        let mp = f.multipath.unwrap();
        assert_eq!(mp.find_multipaths.as_deref(), Some("yes"));
        assert_eq!(mp.blacklist, ["devnode \"^sd[a-z0-9]+\""]);
        let (_, bl) = parse_multipath_conf("blacklist {\n    wwid 26353900f02796769\n    device {\n        vendor \"IBM\"\n        product \"3S42\"\n    }\n}\n");
        assert_eq!(
            bl,
            [
                "wwid 26353900f02796769",
                "device vendor \"IBM\" product \"3S42\""
            ]
        );
    }

    #[test]
    fn iscsi_sessions_and_initiator() {
        let f = facts_of(fixture!("iscsiadm-session-readme.txt"));
        let i = f.iscsi.unwrap();
        assert_eq!(i.sessions.len(), 2);
        assert_eq!(
            i.sessions[0],
            (
                "10.15.84.19:3260".into(),
                "iqn.1992-08.com.netapp:sn.33615311".into()
            )
        );
        // today's layout (open-iscsi usr/session_info.c), IPv6 in brackets
        let s = parse_iscsi_sessions("tcp: [21] 127.0.0.1:3260,1 iqn.2009-10.com.redhat:storage-1 (non-flash)\ntcp: [2] [fe80::1]:3260,1 iqn.x:y (non-flash)\n").unwrap();
        assert_eq!(s[1].0, "[fe80::1]:3260");
        assert_eq!(
            parse_iscsi_sessions("iscsiadm: No active sessions.\n"),
            Some(vec![])
        );
        assert_eq!(
            parse_initiatorname(
                "## DO NOT EDIT\nInitiatorName=iqn.1993-08.org.debian:01:5ac3b2f4\n"
            ),
            Ok("iqn.1993-08.org.debian:01:5ac3b2f4".into())
        );
        assert!(parse_initiatorname(
            "cat: /etc/iscsi/initiatorname.iscsi: No such file or directory\n"
        )
        .is_err());
    }

    #[test]
    fn nfs_servers_answer_or_not() {
        let f = facts_of(fixture!("rpcinfo-p-ltp.txt"));
        let s = &f.nfs_servers[0];
        assert_eq!(
            (s.server.as_str(), s.reachable, s.versions.clone()),
            (
                "10.0.0.2",
                Some(true),
                vec!["3".to_string(), "4".to_string()]
            )
        );
        let f = facts_of(fixture!("rpcinfo-showmount-refused.txt"));
        let s = &f.nfs_servers[0];
        assert_eq!(s.reachable, Some(false));
        assert!(
            s.error.as_deref().unwrap().contains("Unable to receive"),
            "{s:?}"
        );
        let f = facts_of(fixture!("showmount-e.txt"));
        let s = &f.nfs_servers[0];
        assert_eq!(s.reachable, Some(true));
        assert_eq!(s.exports, [("/data/nfs".to_string(), "*".to_string())]);
        let a = parse_rpcinfo("   program version(s) netid(s)                         service     owner\n    100000  2,3,4     local,udp,tcp,udp6,tcp6          portmapper  superuser\n    100003  3,4       udp6,tcp6,udp,tcp                nfs         superuser\n", "srv");
        assert_eq!(a.versions, ["3", "4"]);
    }

    #[test]
    fn services_sysctl_and_selinux() {
        let f = facts_of(fixture!("systemctl-status-kubelet.txt"));
        assert_eq!(f.kubelet_running, Some(true));
        let f = facts_of(fixture!("systemctl-status-rpc-statd.txt"));
        assert!(f.unavailable[0].contains("systemd is not running"));
        assert_eq!(parse_systemctl("● rpc-statd.service - NFS status monitor for NFSv2/3 locking.\n     Loaded: loaded (/lib/systemd/system/rpc-statd.service; static)\n     Active: inactive (dead)\n", &["rpc-statd".into()]), [("rpc-statd".to_string(), false)]);
        assert_eq!(
            parse_systemctl(
                "Unit iscsid.service could not be found.\n",
                &["iscsid".into()]
            ),
            [("iscsid".to_string(), false)]
        );
        assert_eq!(
            parse_systemctl("active\ninactive\n", &["rpcbind".into(), "iscsid".into()]),
            [("rpcbind".to_string(), true), ("iscsid".to_string(), false)]
        );
        let f = facts_of(fixture!("sysctl-dmesg-restrict.txt"));
        assert_eq!(f.dmesg_restrict, Some(true));
        let f = facts_of(fixture!("getenforce-sestatus.txt"));
        assert_eq!(f.selinux.as_deref(), Some("enforcing"));
        assert_eq!(f.selinux_source.as_deref(), Some("sestatus"));
    }

    #[test]
    fn commands_are_read_through_their_wrappers() {
        assert_eq!(
            first_stage("sudo nsenter -t 1 -m -- ls -l /sbin/mount.nfs | head").0,
            ["ls", "-l", "/sbin/mount.nfs"]
        );
        assert_eq!(
            first_stage("nsenter --target 1 --mount -- ls -la /sbin/mount.aznfs").0[0],
            "ls"
        );
        assert_eq!(
            first_stage("sudo -u root chroot /host uname -r").0,
            ["uname", "-r"]
        );
        assert_eq!(
            first_stage("grep -E 'a|b' /var/log/kern.log | tail").0,
            ["grep", "-E", "a|b", "/var/log/kern.log"]
        );
        for (cmd, kind) in [
            (
                "cat /proc/$(pgrep -x kubelet)/cmdline | tr '\\0' ' '",
                Some(Kind::Kubelet),
            ),
            ("dmesg -T | grep -i xfs", Some(Kind::KernelLog)),
            ("journalctl -k --since today", Some(Kind::KernelLog)),
            ("journalctl -u kubelet", None),
            ("sudo modprobe iscsi_tcp", Some(Kind::Kmod)),
            ("lsmod | grep iscsi", Some(Kind::Lsmod)),
            ("mount | grep kubelet", Some(Kind::MountTable)),
            ("mount -t nfs 10.0.0.1:/x /mnt", None),
            (
                "cat /etc/iscsi/initiatorname.iscsi",
                Some(Kind::InitiatorName),
            ),
            ("cat /var/lib/kubelet/config.yaml", Some(Kind::Kubelet)),
            ("rpm -qa | grep selinux", Some(Kind::Packages)),
            ("systemctl status iscsid", Some(Kind::Systemctl)),
            ("systemctl restart iscsid", None),
            (
                "kubectl get nodes -o jsonpath='{.items[*].status.nodeInfo.osImage}'",
                Some(Kind::OsRelease),
            ),
            ("kubectl get pods -o wide", None),
            (
                "docker run --rm -it --entrypoint=/bin/sh ghcr.io/truenas/truenas-csi:latest",
                None,
            ),
        ] {
            assert_eq!(kind_of_command(cmd), kind, "{cmd}");
        }
    }

    #[test]
    fn merging_keeps_both_readings() {
        let mut a = facts_of(fixture!("uname-r.txt"));
        let b = facts_of(fixture!("ls-sbin-mount.txt"));
        let mut c = NodeFacts::default();
        c.helpers
            .insert("mount.nfs".into(), "/usr/sbin/mount.nfs".into());
        c.add_provenance("helpers", "node probe");
        merge(&mut a, b);
        assert_eq!(a.helper_state("mount.nfs"), Some(false));
        merge(&mut a, c);
        assert_eq!(
            a.helper_state("mount.nfs"),
            Some(true),
            "found beats not found"
        );
        assert_eq!(a.provenance["helpers"], "test; node probe");
        assert_eq!(a.kernel.as_deref(), Some("6.18.44-fc-v669"));
    }
}
