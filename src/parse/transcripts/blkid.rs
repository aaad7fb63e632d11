//! Block devices' filesystems: `blkid` / `blkid -p` / `blkid -o export|udev` (util-linux
//! misc-utils/blkid.c), libblkid's cache file (/run/blkid/blkid.tab), and `lsblk -f`
//! (util-linux lsblk-cmd/lsblk.c) read as the same entries.

use std::collections::BTreeMap;
use std::sync::LazyLock;

use regex::Regex;

use super::columns::{cells, header_columns, strip_tree};
use super::reader::{added, noted, Kind, Outcome, Part, Reader, Shape, MAX_ENTRIES};
use crate::model::{BlkidEntry, NodeFacts};

static BLKID_LINE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"^(/dev/\S+|\S+):((?: [A-Z_]+="(?:[^"\\]|\\.)*")+)\s*$"#).expect("static regex")
});

static BLKID_TAG: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r#" ([A-Z_]+)="((?:[^"\\]|\\.)*)""#).expect("static regex"));

/// Undo blkid's escaping inside a tag value (util-linux misc-utils/blkid.c safe_print: `\"`
/// and `\\` are escaped with a backslash).
pub(super) fn unescape_blkid(v: &str) -> String {
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

/// Add device entries to the facts' list: a device already there is updated (its filesystem
/// type, UUID and label replaced when `newer` says this reading is the better one), another one
/// is added.
pub fn add_devices(
    into: &mut Vec<BlkidEntry>,
    entries: Vec<BlkidEntry>,
    newer: impl Fn(&BlkidEntry) -> bool,
) {
    for e in entries {
        match into.iter_mut().find(|x| x.device == e.device) {
            Some(x) => {
                if newer(x) {
                    x.fs_type = e.fs_type.or(x.fs_type.take());
                    x.uuid = e.uuid.or(x.uuid.take());
                    x.label = e.label.or(x.label.take());
                }
                x.other.extend(e.other);
            }
            None => into.push(e),
        }
    }
}

/// `blkid` in its layouts.
pub const BLKID: Reader = Reader {
    kind: Kind::Blkid,
    label: "blkid",
    doc: "`blkid`, `blkid -p`, `blkid -o export|udev`: each device's filesystem type, UUID, label \
          and other tags; a probe it was refused is noted as unavailable",
    samples: &["blkid.txt", "blkid-p.txt"],
    recognise: |c| c.prog == "blkid",
    sniff: Some(blkid_sniff),
    read: blkid_read,
};

fn blkid_sniff(s: &Shape) -> bool {
    s.most(s.count(|l| BLKID_LINE.is_match(l)))
}

fn blkid_read(p: &Part, facts: &mut NodeFacts) -> Option<Outcome> {
    read_devices(p, facts, parse_blkid(p.text), true)
}

/// `lsblk -f` and `lsblk -o` with FSTYPE/UUID.
pub const LSBLK: Reader = Reader {
    kind: Kind::Lsblk,
    label: "lsblk",
    doc: "`lsblk -f` (or any `lsblk -o` with FSTYPE/UUID): the same entries as blkid's, from \
          udev's cache (blkid's own answer wins over it), with their mount points",
    samples: &["lsblk-f.txt"],
    recognise: |c| c.prog == "lsblk",
    sniff: Some(lsblk_sniff),
    read: lsblk_read,
};

fn lsblk_sniff(s: &Shape) -> bool {
    let header = s.header();
    header.first() == Some(&"NAME") && header.iter().any(|h| *h == "FSTYPE" || *h == "UUID")
}

fn lsblk_read(p: &Part, facts: &mut NodeFacts) -> Option<Outcome> {
    read_devices(p, facts, parse_lsblk(p.text), false)
}

/// Devices from blkid (`blkid`: its answer wins over lsblk's) or lsblk.
fn read_devices(
    p: &Part,
    facts: &mut NodeFacts,
    entries: Vec<BlkidEntry>,
    blkid: bool,
) -> Option<Outcome> {
    let text = p.text;
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
        if !blkid
            && text
                .lines()
                .next()
                .is_some_and(|h| h.trim_start().starts_with("NAME"))
        {
            return noted("lsblk: no devices".into(), &["blkid"]);
        }
        return None;
    }
    let n = entries.len();
    // blkid's answer over lsblk's (which reads udev's cache).
    add_devices(&mut facts.blkid, entries, |x| blkid || x.fs_type.is_none());
    added(format!("{n} device(s)"), &["blkid"])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::transcripts::testing::{facts_of, fixture};

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
}
