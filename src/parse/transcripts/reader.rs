//! What a node transcript reader is ([`Reader`]), and what it is given and gives back: the
//! command a prompt shows ([`Command`]), the lines of a part without one ([`Shape`]), the part to
//! read ([`Part`]) and what reading it added ([`Applied`], [`Outcome`]). The formats' keys
//! ([`Kind`]) and the limits every reader keeps to are here too.

use super::command::{basename, first_stage, operands, Command};
use crate::model::NodeFacts;

/// The most kernel log lines kept from one source (the newest): the probe keeps as many.
pub const MAX_KERNEL_LINES: usize = 2000;

/// The most entries kept of any other list (blkid rows, mounts, packages) from one source.
pub const MAX_ENTRIES: usize = 20_000;

/// The formats volmnt reads as node facts: each is the key of one [`Reader`] in
/// [`READERS`](super::READERS).
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
    /// `talosctl` output (`dmesg`, `version`, `services`): a Talos node.
    Talos,
}

/// One format of node transcript: how it is recognised, and how it is read into [`NodeFacts`].
/// Each is defined beside its parser, in the module of its command family, and listed once in
/// [`READERS`](super::READERS), whose order is the order formats are tried in.
#[derive(Debug)]
pub struct Reader {
    /// The format's key.
    pub kind: Kind,
    /// How the report names it (`uname`, `kernel log`).
    pub label: &'static str,
    /// What it reads, and what it fills.
    pub doc: &'static str,
    /// Real captures of the format under `fixtures/node/` (a test reads each through the whole
    /// table: it must come out as this reader's, and read).
    pub samples: &'static [&'static str],
    /// Whether a prompt's command prints this format: by its program and arguments, or by the
    /// file a `cat`-like command reads.
    pub recognise: fn(&Command) -> bool,
    /// Whether a part without a prompt (or shown by a log viewer or pager) is this format, by
    /// its own shape; `None` when the format is never guessed from its shape.
    pub sniff: Option<fn(&Shape) -> bool>,
    /// Read the part into the facts; `None` when nothing in it fits the format after all.
    pub read: fn(&Part, &mut NodeFacts) -> Option<Outcome>,
}

/// A part without a prompt, as its shape is judged: its non-blank lines.
#[derive(Debug)]
pub struct Shape<'a> {
    /// The whole text.
    pub text: &'a str,
    /// The non-blank lines, a trailing CR removed.
    pub lines: Vec<&'a str>,
    /// The first of them, trimmed.
    pub first: &'a str,
}

impl<'a> Shape<'a> {
    /// `None` when the text has no non-blank line.
    pub fn new(text: &'a str) -> Option<Shape<'a>> {
        let lines: Vec<&str> = text
            .lines()
            .map(|l| l.trim_end_matches('\r'))
            .filter(|l| !l.trim().is_empty())
            .collect();
        let first = lines.first()?.trim();
        Some(Shape { text, lines, first })
    }

    /// How many lines there are.
    pub fn n(&self) -> usize {
        self.lines.len()
    }

    /// How many lines `f` holds for.
    pub fn count(&self, f: impl Fn(&str) -> bool) -> usize {
        self.lines.iter().filter(|l| f(l)).count()
    }

    /// Whether `k` lines are most of them (or the only one).
    pub fn most(&self, k: usize) -> bool {
        k * 2 > self.n() || (k >= 1 && self.n() == 1)
    }

    /// The first line's words (a table's header).
    pub fn header(&self) -> Vec<&'a str> {
        self.first.split_whitespace().collect()
    }
}

/// A part to read: what printed it, and where it came from.
#[derive(Debug)]
pub struct Part<'a> {
    /// The prompt's command; `None` for a part recognised by its shape.
    pub cmd: Option<&'a str>,
    /// The command's program (`""` without a command).
    pub prog: String,
    /// The names the command asks about: its arguments that are not options, after the
    /// program (and after `systemctl`'s or `apk`'s subcommand).
    pub asked: Vec<String>,
    /// What it printed.
    pub text: &'a str,
    /// Where it came from (`file dmesg.txt: dmesg | tail`), for each family's provenance.
    pub source: &'a str,
}

impl<'a> Part<'a> {
    /// The part `cmd` printed (or one recognised by its shape), with the program and names its
    /// readers look at.
    pub fn new(cmd: Option<&'a str>, text: &'a str, source: &'a str) -> Part<'a> {
        let prog = cmd
            .map(|c| first_stage(c).0)
            .and_then(|w| w.first().map(|p| basename(p).to_string()))
            .unwrap_or_default();
        Part {
            cmd,
            prog,
            asked: operands(cmd),
            text,
            source,
        }
    }

    /// Mark each family filled with the part's source.
    pub fn mark(&self, facts: &mut NodeFacts, families: &[&'static str]) {
        for f in families {
            facts.add_provenance(f, self.source);
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

/// What a reader made of a part.
#[derive(Debug)]
pub enum Outcome {
    /// Facts added: [`apply`](super::apply) marks each family with the part's source and derives
    /// what follows from them.
    Added(Applied),
    /// A refusal or an empty answer, said as is: the reader marked what it had to, nothing
    /// more is derived.
    Noted(Applied),
}

/// Facts added (see [`Outcome::Added`]).
pub fn added(summary: String, families: &[&'static str]) -> Option<Outcome> {
    Some(Outcome::Added(Applied {
        summary,
        families: families.to_vec(),
    }))
}

/// Said as is (see [`Outcome::Noted`]).
pub fn noted(summary: String, families: &[&'static str]) -> Option<Outcome> {
    Some(Outcome::Noted(Applied {
        summary,
        families: families.to_vec(),
    }))
}
