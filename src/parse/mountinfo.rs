//! Mount tables: `/proc/<pid>/mountinfo` (proc(5)) and the output of `mount` (util-linux or
//! busybox: `SRC on TARGET type FSTYPE (OPTS)`), into [`MountEntry`]s. Pure: no I/O.
//!
//! mountinfo line (proc(5)):
//! `36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root rw,errors=continue`
//! = mount ID, parent ID, major:minor, root, mount point, mount options, zero or more optional
//! fields, a `-` separator, fstype, source, superblock options. Space, tab, newline and
//! backslash in paths are written as the octal escapes `\040`, `\011`, `\012`, `\134`.

use std::sync::LazyLock;

use regex::Regex;

use crate::error::ParseError;
use crate::model::{MountEntry, Propagation};

const WHAT: &str = "mountinfo";

/// Decode mountinfo's octal escapes (`\040` → space). Anything else is kept as is.
pub fn unescape(s: &str) -> String {
    if !s.contains('\\') {
        return s.to_string();
    }
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\'
            && i + 3 < b.len()
            && b[i + 1..i + 4].iter().all(|c| (b'0'..=b'7').contains(c))
        {
            let v = (b[i + 1] - b'0') as u32 * 64
                + (b[i + 2] - b'0') as u32 * 8
                + (b[i + 3] - b'0') as u32;
            if let Ok(byte) = u8::try_from(v) {
                out.push(byte);
                i += 4;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn split_opts(s: &str) -> Vec<String> {
    s.split(',')
        .filter(|o| !o.is_empty())
        .map(unescape)
        .collect()
}

/// One mountinfo line.
pub fn parse_mountinfo_line(line: &str) -> Result<MountEntry, ParseError> {
    let fields: Vec<&str> = line.split([' ', '\t']).filter(|f| !f.is_empty()).collect();
    let sep = fields
        .iter()
        .position(|f| *f == "-")
        .ok_or_else(|| ParseError::new(WHAT, "no ` - ` separator before the fstype"))?;
    if sep < 6 {
        return Err(ParseError::new(
            WHAT,
            format!("{sep} fields before ` - `, want at least 6"),
        ));
    }
    if fields.len() < sep + 3 {
        return Err(ParseError::new(
            WHAT,
            "fstype or source missing after ` - `",
        ));
    }
    let num = |s: &str, what: &str| {
        s.parse::<u64>()
            .map_err(|_| ParseError::new(WHAT, format!("{what} `{s}` is not a number")))
    };
    Ok(MountEntry {
        id: Some(num(fields[0], "mount ID")?),
        parent_id: Some(num(fields[1], "parent ID")?),
        major_minor: Some(fields[2].to_string()),
        root: Some(unescape(fields[3])),
        mount_point: unescape(fields[4]),
        options: split_opts(fields[5]),
        optional: fields[6..sep].iter().map(|f| f.to_string()).collect(),
        fstype: unescape(fields[sep + 1]),
        source: unescape(fields[sep + 2]),
        super_options: fields
            .get(sep + 3)
            .map(|o| split_opts(o))
            .unwrap_or_default(),
    })
}

/// A whole mountinfo file; an error names the first bad line.
pub fn parse_mountinfo(text: &str) -> Result<Vec<MountEntry>, ParseError> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| parse_mountinfo_line(l).map_err(|e| e.at(i + 1)))
        .collect()
}

static MOUNT_LINE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(\S.*?) on (/.*) type (\S+) \(([^()]*)\)\s*$").expect("static regex")
});

/// One line of `mount` output, or `None` when the line is something else.
pub fn parse_mount_output_line(line: &str) -> Option<MountEntry> {
    let c = MOUNT_LINE.captures(line.trim_end_matches('\r'))?;
    let opts = split_opts(&c[4]);
    Some(MountEntry {
        source: unescape(&c[1]),
        mount_point: unescape(&c[2]),
        fstype: c[3].to_string(),
        options: opts.clone(),
        super_options: opts,
        ..MountEntry::default()
    })
}

/// Every `mount`-output line of a text (prompts, `df` tables and other lines are skipped).
pub fn parse_mount_output(text: &str) -> Vec<MountEntry> {
    text.lines().filter_map(parse_mount_output_line).collect()
}

/// A mount table in either format, line by line (mountinfo lines first, then `mount` lines).
pub fn parse_any(text: &str) -> Vec<MountEntry> {
    text.lines()
        .filter_map(|l| {
            parse_mountinfo_line(l)
                .ok()
                .or_else(|| parse_mount_output_line(l))
        })
        .collect()
}

/// Propagation of a mount, from its optional fields (mountinfo), or from findmnt's PROPAGATION
/// words (`shared`, `private`, `slave`, `unbindable`, kept in `optional`); `None` for `mount`
/// output, which does not say.
pub fn propagation(m: &MountEntry) -> Option<Propagation> {
    if m.id.is_none() && m.optional.is_empty() {
        return None;
    }
    let has = |p: &str| {
        m.optional
            .iter()
            .any(|f| f == p || f.strip_prefix(p).is_some_and(|r| r.starts_with(':')))
    };
    Some(if has("shared") {
        Propagation::Shared
    } else if has("master") || has("slave") {
        Propagation::Slave
    } else if has("unbindable") {
        Propagation::Unbindable
    } else {
        Propagation::Private
    })
}

/// Whether `path` is `mount_point` or below it (component-wise, not string prefix).
pub fn is_under(path: &str, mount_point: &str) -> bool {
    if mount_point == "/" {
        return path.starts_with('/');
    }
    let mp = mount_point.trim_end_matches('/');
    path == mp || path.strip_prefix(mp).is_some_and(|r| r.starts_with('/'))
}

/// The mount that holds `path`: the longest mount point above it, the last one mounted when
/// several are stacked on the same point.
pub fn containing_mount<'a>(mounts: &'a [MountEntry], path: &str) -> Option<&'a MountEntry> {
    let mut best: Option<&MountEntry> = None;
    for m in mounts.iter().filter(|m| is_under(path, &m.mount_point)) {
        if best.is_none_or(|b| m.mount_point.len() >= b.mount_point.len()) {
            best = Some(m);
        }
    }
    best
}

/// Filesystem types whose contents volmnt never touches (a dead server makes any access hang).
pub fn is_network_fs(fstype: &str) -> bool {
    matches!(
        fstype,
        "nfs" | "nfs4" | "cifs" | "smb3" | "smbfs" | "glusterfs" | "ceph" | "9p" | "afs"
    ) || fstype.starts_with("fuse")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn proc5_example() {
        let m = parse_mountinfo_line(
            "36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root rw,errors=continue",
        )
        .unwrap();
        assert_eq!(m.id, Some(36));
        assert_eq!(m.parent_id, Some(35));
        assert_eq!(m.major_minor.as_deref(), Some("98:0"));
        assert_eq!(m.root.as_deref(), Some("/mnt1"));
        assert_eq!(m.mount_point, "/mnt2");
        assert_eq!(m.options, ["rw", "noatime"]);
        assert_eq!(m.optional, ["master:1"]);
        assert_eq!(m.fstype, "ext3");
        assert_eq!(m.source, "/dev/root");
        assert_eq!(m.super_options, ["rw", "errors=continue"]);
        assert_eq!(propagation(&m), Some(Propagation::Slave));
    }

    #[test]
    fn no_optional_fields_and_escapes() {
        let m = parse_mountinfo_line(
            r"412 30 0:55 / /var/lib/kubelet/pods/x/volumes/kubernetes.io~nfs/my\040vol rw,relatime - nfs 10.0.0.1:/a\134b rw,vers=3,hard",
        )
        .unwrap();
        assert!(m.optional.is_empty());
        assert_eq!(
            m.mount_point,
            "/var/lib/kubelet/pods/x/volumes/kubernetes.io~nfs/my vol"
        );
        assert_eq!(m.source, r"10.0.0.1:/a\b");
        assert!(m.has_option("hard"));
        assert_eq!(m.option_value("vers"), Some("3"));
        assert_eq!(propagation(&m), Some(Propagation::Private));
    }

    #[test]
    fn shared_and_slave_is_shared() {
        let m =
            parse_mountinfo_line("1 0 8:1 / / rw shared:1 master:2 - ext4 /dev/sda1 rw").unwrap();
        assert_eq!(propagation(&m), Some(Propagation::Shared));
    }

    #[test]
    fn bad_lines_are_errors_with_line_numbers() {
        let e = parse_mountinfo("1 0 8:1 / / rw - ext4 /dev/sda1 rw\nnonsense here\n").unwrap_err();
        assert_eq!(e.line, Some(2));
        assert!(parse_mountinfo_line("x 0 8:1 / / rw - ext4 /dev/sda1 rw").is_err());
        assert!(parse_mountinfo_line("1 0 8:1 / / rw - ext4").is_err());
    }

    #[test]
    fn unescape_keeps_non_octal() {
        assert_eq!(unescape(r"a\040b\011c\012d\134e"), "a b\tc\nd\\e");
        assert_eq!(unescape(r"a\9b\04"), r"a\9b\04");
        assert_eq!(unescape(r"\777"), r"\777");
    }

    #[test]
    fn mount_output_lines() {
        let m = parse_mount_output_line(
            "10.20.172.211:/nfs on /var/lib/kubelet/pods/c4/volumes/kubernetes.io~nfs/nfs211 type nfs (rw,relatime,vers=3,hard,addr=10.20.172.211)",
        )
        .unwrap();
        assert_eq!(m.source, "10.20.172.211:/nfs");
        assert_eq!(m.fstype, "nfs");
        assert_eq!(m.option_value("addr"), Some("10.20.172.211"));
        assert_eq!(propagation(&m), None);
        assert!(parse_mount_output_line("# mount | grep kubelet").is_none());
        assert!(parse_mount_output_line("/ # df -h").is_none());
        // A target with " on " and " type " in it still parses from the right.
        let m = parse_mount_output_line("tmpfs on /a on b type x type tmpfs (rw)").unwrap();
        assert_eq!(m.mount_point, "/a on b type x");
        assert_eq!(m.fstype, "tmpfs");
    }

    #[test]
    fn containing_mount_is_longest_and_last() {
        let mounts = parse_mountinfo(
            "1 0 8:1 / / rw shared:1 - ext4 /dev/sda1 rw\n\
             2 1 8:2 / /var rw - ext4 /dev/sda2 rw\n\
             3 1 8:3 / /var/lib/kubelet rw - xfs /dev/sdb rw\n\
             4 1 8:4 / /var/lib/kubelet rw shared:9 - xfs /dev/sdb rw\n\
             5 1 8:5 / /var/lib/kubeletx rw - xfs /dev/sdc rw\n",
        )
        .unwrap();
        assert_eq!(
            containing_mount(&mounts, "/var/lib/kubelet").unwrap().id,
            Some(4)
        );
        assert_eq!(
            containing_mount(&mounts, "/var/lib/kubelet/pods")
                .unwrap()
                .id,
            Some(4)
        );
        assert_eq!(containing_mount(&mounts, "/var/lib/k").unwrap().id, Some(2));
        assert_eq!(containing_mount(&mounts, "/etc").unwrap().id, Some(1));
    }
}
