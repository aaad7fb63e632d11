//! What every node transcript reader shares: the formats' keys ([`Kind`]), what reading a part
//! added ([`Applied`]), and the limits each reader keeps to.

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

/// What one transcript part added.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Applied {
    /// `uname -r: kernel 3.10.0-957.el7.x86_64`.
    pub summary: String,
    /// The fact families it filled (`kernel`, `modules`, ...).
    pub families: Vec<&'static str>,
}

pub(super) fn applied(summary: String, families: &[&'static str]) -> Option<Applied> {
    Some(Applied {
        summary,
        families: families.to_vec(),
    })
}
