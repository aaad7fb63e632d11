//! Transcripts of commands run on a node (what an operator pastes into a ticket, and what the
//! node probe prints in the same formats) → the same [`NodeFacts`] whatever the source.
//!
//! Each format is one [`Reader`], defined in the module of its command family beside its
//! parser, its documentation and its tests: how its command is recognised, how its output is
//! recognised without a prompt (by its own shape), and how it is read into the facts.
//! [`READERS`] lists them all, once; [`kind_of_command`], [`sniff`] and [`apply`] walk that list
//! (the first reader that recognises a part reads it, so the list's order is a priority).
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

mod blkid;
mod columns;
mod command;
mod df;
mod facts;
mod filesystems;
mod helpers;
mod iscsi;
mod kernel_log;
mod kmod;
mod kubelet;
mod mounts;
mod multipath;
mod nfs;
mod os_release;
mod packages;
mod reader;
mod selinux;
mod services;
mod talos;
#[cfg(test)]
mod testing;
mod uname;

pub use blkid::{add_devices, parse_blkid, parse_blkid_cache, parse_lsblk};
pub use command::{first_stage, shows_text, words, Command};
pub use df::parse_df;
pub use facts::{derive, merge};
pub use filesystems::parse_filesystems;
pub use helpers::{parse_lookup, Lookup};
pub use iscsi::{parse_initiatorname, parse_iscsi_sessions};
pub use kernel_log::{
    is_storage_kernel_line, kernel_log_lines, probe_section_lines, KERNEL_STORAGE_PATTERN,
};
pub use kmod::{parse_kmod, parse_lsmod, KmodAnswer};
pub use kubelet::{default_root_dir, kubelet_config_settings, kubelet_processes, parse_kubelet};
pub use mounts::{parse_findmnt, parse_proc_mounts_line, read_mountinfo};
pub use multipath::{add_conf, parse_multipath_conf, parse_multipath_ll};
pub use nfs::{parse_rpcinfo, parse_showmount};
pub use os_release::parse_os_release;
pub use packages::{parse_name_version, parse_packages};
pub use reader::{Applied, Kind, Outcome, Part, Reader, Shape, MAX_ENTRIES, MAX_KERNEL_LINES};
pub use selinux::parse_selinux;
pub use services::{parse_sysctl, parse_systemctl};
pub use uname::parse_uname;

use crate::model::NodeFacts;

/// Every node transcript format, in the order they are tried: by a prompt's command
/// ([`kind_of_command`]) and by a part's own shape ([`sniff`]), the first that recognises it
/// reads it.
///
/// The order is the one the shape tests have always been asked in, and it matters there:
/// `uname -r`'s one line before anything else, kernel log lines before the tables, a `NAME
/// ... FSTYPE` header as lsblk's before a `TARGET` one as findmnt's, the mount table's
/// line-by-line test after the tables with a header, and the kubelet's process lines after
/// every format with a fixed first line. Commands are told apart by their program, so their
/// order matters only for the files a `cat`-like command reads; the few paths two readers
/// could claim say in their reader which one keeps them. `/proc/filesystems` has no shape to
/// sniff; it stands before the kubelet so that a `grep` of /proc/filesystems for the
/// kubelet's root-dir stays its, as it always was.
pub static READERS: &[Reader] = &[
    uname::READER,
    talos::READER,
    kernel_log::READER,
    kmod::LSMOD,
    kmod::KMOD,
    os_release::READER,
    blkid::BLKID,
    blkid::LSBLK,
    mounts::FINDMNT,
    df::READER,
    mounts::MOUNT_TABLE,
    multipath::MULTIPATH,
    multipath::MULTIPATH_CONF,
    iscsi::SESSIONS,
    iscsi::INITIATOR_NAME,
    nfs::RPCINFO,
    nfs::SHOWMOUNT,
    services::SYSTEMCTL,
    services::SYSCTL,
    selinux::READER,
    packages::READER,
    filesystems::READER,
    kubelet::READER,
    helpers::READER,
];

/// The reader of a format.
pub fn reader(kind: Kind) -> &'static Reader {
    READERS
        .iter()
        .find(|r| r.kind == kind)
        .expect("every Kind has its reader in READERS")
}

impl Kind {
    /// How the report names it.
    pub fn label(self) -> &'static str {
        reader(self).label
    }
}

/// Which node transcript a prompt's command printed, or `None` when it is none of them (the
/// caller then reads it as something else: kubectl output, a log, a message).
pub fn kind_of_command(cmd: &str) -> Option<Kind> {
    let c = Command::new(cmd)?;
    READERS.iter().find(|r| (r.recognise)(&c)).map(|r| r.kind)
}

/// Which node transcript a part without a prompt is, by its own shape; `None` when it is not
/// recognisably one (it is then read as the other formats volmnt knows, or skipped).
pub fn sniff(text: &str) -> Option<Kind> {
    let s = Shape::new(text)?;
    READERS
        .iter()
        .find(|r| r.sniff.is_some_and(|sniff| sniff(&s)))
        .map(|r| r.kind)
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
    let part = Part::new(cmd, text, source);
    match (reader(kind).read)(&part, facts)? {
        Outcome::Noted(a) => Some(a),
        Outcome::Added(a) => {
            part.mark(facts, &a.families);
            derive(facts);
            Some(a)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::transcripts::testing::parts;

    /// Every format has one reader, and every reader's sample captures read through the whole
    /// table as `doctor --from-file` reads them: each part is recognised and reads, one of them
    /// as this reader's.
    #[test]
    fn every_reader_reads_its_samples() {
        for (i, r) in READERS.iter().enumerate() {
            assert!(
                !READERS[..i].iter().any(|x| x.kind == r.kind),
                "{:?} twice in READERS",
                r.kind
            );
            assert_eq!(reader(r.kind).label, r.label);
            for name in r.samples {
                let path = format!("{}/fixtures/node/{name}", env!("CARGO_MANIFEST_DIR"));
                let text = std::fs::read_to_string(&path).expect(name);
                let mut seen = false;
                for (cmd, body) in parts(&text) {
                    let kind = match &cmd {
                        Some(c) => kind_of_command(c)
                            .or_else(|| shows_text(c).then(|| sniff(&body)).flatten()),
                        None => sniff(&body),
                    };
                    let kind = kind.unwrap_or_else(|| panic!("{name}: {cmd:?} not recognised"));
                    let mut facts = NodeFacts::default();
                    assert!(
                        apply(kind, cmd.as_deref(), &body, &mut facts, "t").is_some(),
                        "{name}: {kind:?} read nothing from {cmd:?}"
                    );
                    seen |= kind == r.kind;
                }
                assert!(seen, "{name}: no part of it is read as {}", r.label);
            }
        }
        assert_eq!(READERS.len(), 24);
    }

    #[test]
    fn commands_are_recognised_through_their_wrappers() {
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
}
