//! The mount table: `findmnt` in every layout (util-linux misc-utils/findmnt.c), `mount` with no
//! arguments and `/proc/*/mountinfo` (read by `parse::mountinfo`), `/proc/mounts` and
//! `/etc/mtab` (fstab(5) layout).

use std::collections::BTreeMap;
use std::sync::LazyLock;

use regex::Regex;

use super::blkid::unescape_blkid;
use super::columns::{cells, header_columns, strip_tree};
use super::command::{first_stage, Command};
use super::reader::{added, Kind, Outcome, Part, Reader, Shape, MAX_ENTRIES};
use crate::model::{MountEntry, NodeFacts};
use crate::parse::mountinfo;

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

/// `/proc/PID/mountinfo` whole (the probe's `[mountinfo]` section): its mounts, and a note for
/// each line that does not parse.
pub fn read_mountinfo(text: &str) -> (Vec<MountEntry>, Vec<String>) {
    let mut mounts = Vec::new();
    let mut errors = Vec::new();
    for (i, l) in text.lines().enumerate() {
        if l.trim().is_empty() {
            continue;
        }
        match mountinfo::parse_mountinfo_line(l) {
            Ok(m) => mounts.push(m),
            Err(e) => errors.push(format!("mountinfo line {}: {}", i + 1, e.message)),
        }
    }
    (mounts, errors)
}

/// `findmnt` in every layout.
pub const FINDMNT: Reader = Reader {
    kind: Kind::Findmnt,
    label: "findmnt",
    doc: "`findmnt` (tree, `-l`, `-r`, `-P`, `-o ...`): the mounts, with their propagation when \
          the PROPAGATION column was asked for",
    samples: &[
        "findmnt-default.txt",
        "findmnt-l.txt",
        "findmnt-r.txt",
        "findmnt-o.txt",
    ],
    recognise: |c| c.prog == "findmnt",
    sniff: Some(findmnt_sniff),
    read: findmnt_read,
};

fn findmnt_sniff(s: &Shape) -> bool {
    let header = s.header();
    header.first() == Some(&"TARGET") && header.iter().any(|h| *h == "SOURCE" || *h == "FSTYPE")
}

fn findmnt_read(p: &Part, facts: &mut NodeFacts) -> Option<Outcome> {
    let raw = p.cmd.is_some_and(|c| {
        let (w, _) = first_stage(c);
        w.iter().any(|a| {
            a == "-r"
                || a == "--raw"
                || (a.starts_with('-') && !a.starts_with("--") && a.contains('r'))
        })
    });
    add_mounts(facts, parse_findmnt(p.text, raw), "findmnt")
}

/// `mount`, `/proc/*/mountinfo`, `/proc/mounts`, `/etc/mtab`.
pub const MOUNT_TABLE: Reader = Reader {
    kind: Kind::MountTable,
    label: "mount table",
    doc: "`mount` (no arguments), `/proc/*/mountinfo`, `/proc/mounts`, `/etc/mtab`: the mounts \
          (mountinfo's with their ids and propagation)",
    samples: &["mount-grep.txt", "mountinfo.txt"],
    recognise: mount_table_recognise,
    sniff: Some(mount_table_sniff),
    read: mount_table_read,
};

fn mount_table_recognise(c: &Command) -> bool {
    // `mount` alone lists the table; `mount -t nfs SRC DST` is a mount attempt (read as a
    // message elsewhere).
    (c.prog == "mount" && c.args.iter().all(|a| matches!(a.as_str(), "-l" | "-v")))
        || c.reads(|p, name| {
            (p.starts_with("/proc/") && (name == "mountinfo" || name == "mounts"))
                || p == "/etc/mtab"
        })
}

fn mount_table_sniff(s: &Shape) -> bool {
    s.lines
        .iter()
        .all(|l| mountinfo::parse_mountinfo_line(l).is_ok())
        || s.lines
            .iter()
            .all(|l| mountinfo::parse_mount_output_line(l).is_some())
        || s.lines.iter().all(|l| parse_proc_mounts_line(l).is_some())
}

fn mount_table_read(p: &Part, facts: &mut NodeFacts) -> Option<Outcome> {
    let text = p.text;
    let mi: Vec<MountEntry> = text
        .lines()
        .filter_map(|l| mountinfo::parse_mountinfo_line(l).ok())
        .collect();
    let mo = mountinfo::parse_mount_output(text);
    let mounts = if !mi.is_empty() {
        mi
    } else if !mo.is_empty() {
        mo
    } else {
        text.lines().filter_map(parse_proc_mounts_line).collect()
    };
    let what = if mounts.first().is_some_and(|m| m.id.is_some()) {
        "mountinfo"
    } else {
        "mount"
    };
    add_mounts(facts, mounts, what)
}

/// Mounts into the facts (each once, at most [`MAX_ENTRIES`]), `what` naming the source kept
/// when it is the first.
fn add_mounts(facts: &mut NodeFacts, mounts: Vec<MountEntry>, what: &str) -> Option<Outcome> {
    if mounts.is_empty() {
        return None;
    }
    let n = mounts.len();
    for m in mounts {
        if !facts.mounts.contains(&m) {
            facts.mounts.push(m);
        }
    }
    if facts.mounts.len() > MAX_ENTRIES {
        facts.mounts.truncate(MAX_ENTRIES);
    }
    facts.mounts_source.get_or_insert_with(|| what.to_string());
    added(format!("{n} mount(s) ({what})"), &["mounts"])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Propagation;
    use crate::parse::transcripts::testing::{facts_of, fixture, parts};
    use crate::parse::transcripts::{apply, Kind};

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
}
