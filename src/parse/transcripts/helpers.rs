//! Is a program there: `which`, `command -v`, `type`, `whereis`, and `ls -l` / `stat` of a
//! mount helper or storage tool. A program looked for and not found is recorded as such, never
//! judged here.

use std::sync::LazyLock;

use regex::Regex;

use super::command::{basename, Command};
use super::reader::{added, Kind, Outcome, Part, Reader, Shape};
use crate::model::NodeFacts;

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

/// `which`, `command -v`, `type`, `whereis`, `ls -l` of a program.
pub const READER: Reader = Reader {
    kind: Kind::Lookup,
    label: "program lookup",
    doc: "`which`, `command -v`, `type`, `whereis`, `ls -l|stat /sbin/mount.nfs`: each mount \
          helper or storage tool named, found at a path or looked for and missing",
    samples: &["which-helpers.txt", "command-v.txt", "ls-sbin-mount.txt"],
    recognise,
    sniff: Some(sniff),
    read,
};

fn recognise(c: &Command) -> bool {
    match c.prog.as_str() {
        "which" | "type" | "whereis" => true,
        "command" => c.has("-v") || c.has("-V"),
        "ls" | "stat" | "file" => {
            let paths: Vec<&str> = c
                .args
                .iter()
                .map(String::as_str)
                .filter(|a| !a.starts_with('-'))
                .collect();
            !paths.is_empty()
                && paths
                    .iter()
                    .all(|p| is_program_of_interest(basename(p)) && p.contains("bin/"))
        }
        _ => false,
    }
}

fn sniff(s: &Shape) -> bool {
    s.lines.iter().all(|l| {
        LS_MISSING
            .captures(l.trim())
            .is_some_and(|c| is_program_of_interest(basename(c[1].trim())) && c[1].contains("bin/"))
    })
}

fn read(p: &Part, facts: &mut NodeFacts) -> Option<Outcome> {
    let names = p.asked.clone();
    let found = parse_lookup(p.text, &p.prog, &names);
    let found: Vec<Lookup> = found
        .into_iter()
        .filter(|l| is_program_of_interest(&l.name) || names.iter().any(|a| basename(a) == l.name))
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
                if !facts.helpers.contains_key(&l.name) && !facts.tools.contains_key(&l.name) {
                    facts.helpers_missing.insert(l.name, why);
                }
            }
        }
    }
    added(said.join(", "), &["helpers"])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::transcripts::kind_of_command;
    use crate::parse::transcripts::testing::{facts_of, fixture};

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
}
