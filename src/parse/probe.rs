//! The output of volmnt's node probe (`src/collect/node/probe.sh`) → [`NodeFacts`]. One parser
//! for every transport (local, ssh, exec). Pure: no I/O.
//!
//! # Format, version 1
//!
//! Line-oriented UTF-8 (invalid bytes are replaced). The first line is `volmnt-probe 1`. Every
//! other line is one of:
//!
//! | line | meaning |
//! |---|---|
//! | `[name]` | starts a section; its body is the `\|` lines that follow |
//! | `\|text` | one verbatim line of the current section's file (mountinfo keeps its own octal escapes) |
//! | `key<TAB>field<TAB>field...` | a record; in fields `\\`, `\t`, `\n`, `\r` stand for backslash, tab, newline, CR |
//! | `end` | the probe finished (absent: it was killed or its output cut) |
//!
//! Sections: `[mountinfo]` (the host's `/proc/1/mountinfo`), `[os-release]`, `[filesystems]`
//! (`/proc/filesystems`), and when VOLMNT_LOG_MATCH was given `[kubelet-log]` (kubelet's log
//! lines that name the pod or its volumes) and `[kernel-log]` (the kernel's lines about rbd,
//! nfs, xfs, ext4, cifs, ceph and I/O errors).
//!
//! Records (fields after the key):
//!
//! | key | fields |
//! |---|---|
//! | `root` | the host root read (`/`, `/host`, a `--root` dir) |
//! | `live` | `1` when /proc and processes are the host's, `0` for a mounted tree |
//! | `step_timeout` | seconds per step, `timeout` when the system has that command |
//! | `mountinfo_source` | the file the `[mountinfo]` section came from (empty: none) |
//! | `os_release_source` | `/etc/os-release` or `/usr/lib/os-release` |
//! | `hostname` | name, `etc` or `live` |
//! | `kernel` | release, `uname` or `tree:proc` |
//! | `kernel_tree` | a kernel version whose modules the tree has, the modules base dir |
//! | `kernel_unknown` | why the kernel is not known (a tree without modules) |
//! | `arch` | `uname -m` |
//! | `searched` | the program directories searched (host paths) |
//! | `helper` | mount helper name, host path (`mount.nfs`, `/sbin/mount.nfs`) |
//! | `tool` | tool name, host path |
//! | `modules_loadable` | `no`: the live kernel has no module support |
//! | `module` | name, `loaded`/`builtin`/`available`/`missing` |
//! | `selinux` | mode, `live`/`config` |
//! | `process` | name (`rpc.statd`, `rpcbind`, `kubelet`), `yes`/`no` (live only) |
//! | `kubelet_root` | path, `flag`/`env`/`default` |
//! | `pods_dir` | path, `present`/`absent`/`skipped` |
//! | `pod` | one directory name under `<kubelet-root>/pods` |
//! | `skipped` | step, host path, why (a path on a network filesystem is never touched) |
//! | `log_source` | `kubelet`/`kernel`, where its lines came from (a file, journalctl, dmesg) |
//! | `error` | step, message (a step that failed or timed out) |
//!
//! Unknown records and sections are ignored: a later probe may add some; the version changes
//! only when the meaning of an existing line changes.

use crate::error::ParseError;
use crate::model::{ModuleState, NodeFacts, OsRelease};
use crate::parse::mountinfo;

const WHAT: &str = "volmnt probe output";

/// The output format version this parser reads.
pub const VERSION: u32 = 1;

/// Undo the record escaping (`\\`, `\t`, `\n`, `\r`); an unknown escape is kept as is.
pub fn unescape_field(s: &str) -> String {
    if !s.contains('\\') {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('\\') => out.push('\\'),
            Some('t') => out.push('\t'),
            Some('n') => out.push('\n'),
            Some('r') => out.push('\r'),
            Some(o) => {
                out.push('\\');
                out.push(o);
            }
            None => out.push('\\'),
        }
    }
    out
}

/// Parse `/etc/os-release` (os-release(5): `KEY=value`, value optionally quoted).
pub fn parse_os_release(text: &str) -> OsRelease {
    let mut os = OsRelease::default();
    for line in text.lines() {
        let line = line.trim();
        if line.starts_with('#') {
            continue;
        }
        let Some((k, v)) = line.split_once('=') else {
            continue;
        };
        let v = os_release_value(v.trim());
        let slot = match k.trim() {
            "ID" => &mut os.id,
            "ID_LIKE" => &mut os.id_like,
            "VERSION_ID" => &mut os.version_id,
            "PRETTY_NAME" => &mut os.pretty_name,
            "NAME" => &mut os.name,
            _ => continue,
        };
        if !v.is_empty() {
            *slot = Some(v);
        }
    }
    os
}

fn os_release_value(v: &str) -> String {
    let quoted = |q: char| v.len() >= 2 && v.starts_with(q) && v.ends_with(q);
    if quoted('\'') {
        return v[1..v.len() - 1].to_string();
    }
    if quoted('"') {
        let inner = &v[1..v.len() - 1];
        let mut out = String::new();
        let mut chars = inner.chars();
        while let Some(c) = chars.next() {
            if c == '\\' {
                if let Some(n) = chars.next() {
                    out.push(n);
                }
            } else {
                out.push(c);
            }
        }
        return out;
    }
    v.to_string()
}

/// Read probe output.
pub fn parse(text: &str) -> Result<NodeFacts, ParseError> {
    let mut lines = text.lines();
    let first = lines
        .next()
        .map(|l| l.trim_end_matches('\r'))
        .ok_or_else(|| ParseError::new(WHAT, "empty: the probe printed nothing"))?;
    let version = match first.strip_prefix("volmnt-probe ") {
        Some(v) => v
            .trim()
            .parse::<u32>()
            .map_err(|_| ParseError::new(WHAT, format!("bad version line `{first}`")).at(1))?,
        None => {
            let shown: String = first.chars().take(80).collect();
            return Err(ParseError::new(
                WHAT,
                format!("not volmnt probe output: the first line is `{shown}`"),
            )
            .at(1));
        }
    };
    if version != VERSION {
        return Err(ParseError::new(
            WHAT,
            format!(
                "probe output format version {version} is not supported; this volmnt reads \
                 version {VERSION} (run the probe of the same volmnt build)"
            ),
        )
        .at(1));
    }

    let mut f = NodeFacts {
        probe_version: version,
        ..NodeFacts::default()
    };
    let mut section: Option<String> = None;
    let mut bodies: std::collections::BTreeMap<String, String> = Default::default();
    let mut live_host: Option<String> = None;
    let mut etc_host: Option<String> = None;
    for (i, raw) in lines.enumerate() {
        let line_no = i + 2;
        let line = raw.strip_suffix('\r').unwrap_or(raw);
        if let Some(body) = line.strip_prefix('|') {
            match &section {
                Some(s) => {
                    let b = bodies.entry(s.clone()).or_default();
                    b.push_str(body);
                    b.push('\n');
                }
                None => f.errors.push(format!(
                    "probe output line {line_no}: text outside a section"
                )),
            }
            continue;
        }
        if let Some(name) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            section = Some(name.to_string());
            continue;
        }
        if line == "end" {
            f.complete = true;
            continue;
        }
        if line.is_empty() {
            continue;
        }
        let mut parts = line.split('\t');
        let key = parts.next().unwrap_or_default();
        let fields: Vec<String> = parts.map(unescape_field).collect();
        let get = |n: usize| fields.get(n).cloned().filter(|s| !s.is_empty());
        match key {
            "root" => f.root = get(0),
            "live" => f.live = get(0).as_deref() == Some("1"),
            "mountinfo_source" => f.mounts_source = get(0),
            "hostname" => match get(1).as_deref() {
                Some("live") => live_host = get(0),
                _ => etc_host = get(0),
            },
            "kernel" => {
                f.kernel = get(0);
                f.kernel_source = get(1);
            }
            // Without a live kernel, the tree's kernel (the last listed) stands in.
            "kernel_tree"
                if f.kernel_source
                    .as_deref()
                    .is_none_or(|s| s == "tree:lib/modules") =>
            {
                f.kernel = get(0);
                f.kernel_source = Some("tree:lib/modules".into());
            }
            "arch" => f.arch = get(0),
            "helper" | "tool" => {
                if let (Some(name), Some(path)) = (get(0), get(1)) {
                    let map = if key == "helper" {
                        &mut f.helpers
                    } else {
                        &mut f.tools
                    };
                    map.entry(name).or_insert(path);
                }
            }
            "modules_loadable" => f.modules_loadable = Some(get(0).as_deref() != Some("no")),
            "module" => {
                let state = match get(1).as_deref() {
                    Some("loaded") => Some(ModuleState::Loaded),
                    Some("builtin") => Some(ModuleState::Builtin),
                    Some("available") => Some(ModuleState::Available),
                    Some("missing") => Some(ModuleState::Missing),
                    _ => None,
                };
                if let (Some(name), Some(state)) = (get(0), state) {
                    f.modules.insert(name, state);
                }
            }
            "selinux" => {
                f.selinux = get(0).map(|s| s.to_ascii_lowercase());
                f.selinux_source = get(1);
            }
            "process" => {
                let running = match get(1).as_deref() {
                    Some("yes") => Some(true),
                    Some("no") => Some(false),
                    _ => None,
                };
                match get(0).as_deref() {
                    Some("rpc.statd") => f.rpc_statd_running = running,
                    Some("rpcbind") => f.rpcbind_running = running,
                    Some("kubelet") => f.kubelet_running = running,
                    _ => {}
                }
            }
            "kubelet_root" => {
                f.kubelet_root = get(0);
                f.kubelet_root_source = get(1);
            }
            "pods_dir" if get(1).as_deref() == Some("present") => {
                f.pod_uids.get_or_insert_with(Vec::new);
            }
            "pod" => {
                if let Some(uid) = get(0) {
                    f.pod_uids.get_or_insert_with(Vec::new).push(uid);
                }
            }
            "skipped" => f.errors.push(format!(
                "{}: skipped {} ({})",
                get(0).unwrap_or_default(),
                get(1).unwrap_or_default(),
                get(2).unwrap_or_default()
            )),
            "error" => f.errors.push(format!(
                "{}: {}",
                get(0).unwrap_or_default(),
                get(1).unwrap_or_default()
            )),
            "log_source" => f.log_sources.push(format!(
                "{}: {}",
                get(0).unwrap_or_default(),
                get(1).unwrap_or_default()
            )),
            // Known records that carry nothing the facts keep, and records of later probes.
            _ => {}
        }
    }
    f.hostname = live_host.or(etc_host);

    if let Some(text) = bodies.get("os-release") {
        f.os = parse_os_release(text);
    }
    if let Some(text) = bodies.get("filesystems") {
        f.filesystems = text
            .lines()
            .filter_map(|l| l.split_whitespace().last())
            .map(str::to_string)
            .collect();
    }
    for (section, into) in [("kubelet-log", 0), ("kernel-log", 1)] {
        if let Some(text) = bodies.get(section) {
            let lines: Vec<String> = text
                .lines()
                .filter(|l| !l.trim().is_empty())
                .map(str::to_string)
                .collect();
            if into == 0 {
                f.kubelet_log = lines;
            } else {
                f.kernel_log = lines;
            }
        }
    }
    if let Some(text) = bodies.get("mountinfo") {
        for (i, l) in text.lines().enumerate() {
            if l.trim().is_empty() {
                continue;
            }
            match mountinfo::parse_mountinfo_line(l) {
                Ok(m) => f.mounts.push(m),
                Err(e) => f
                    .errors
                    .push(format!("mountinfo line {}: {}", i + 1, e.message)),
            }
        }
    }
    if f.mounts_source.is_some() && f.mounts.is_empty() {
        f.errors
            .push("mountinfo: the mount table was empty or unreadable".into());
    }
    if let Some(kr) = f.kubelet_root.clone() {
        if let Some(m) = mountinfo::containing_mount(&f.mounts, &kr) {
            f.kubelet_root_propagation = mountinfo::propagation(m);
            f.kubelet_root_mount = Some(m.mount_point.clone());
        }
    }
    if !f.complete {
        f.errors.push(
            "the probe output ends early (no `end` line): it was killed or cut, so facts after \
             that point are missing"
                .into(),
        );
    }
    Ok(f)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Propagation;

    const SAMPLE: &str = "volmnt-probe 1\n\
        root\t/\n\
        live\t1\n\
        mountinfo_source\t/proc/1/mountinfo\n\
        [mountinfo]\n\
        |1 0 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw\n\
        |2 1 0:50 / /var/lib/kubelet/pods/u1/volumes/kubernetes.io~nfs/v rw - nfs 10.0.0.1:/x rw,hard\n\
        os_release_source\t/etc/os-release\n\
        [os-release]\n\
        |PRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\n\
        |ID=debian\n\
        |VERSION_ID=\"12\"\n\
        hostname\tnode1\tetc\n\
        kernel\t6.1.0-18-amd64\tuname\n\
        helper\tmount.nfs\t/sbin/mount.nfs\n\
        tool\trbd\t/usr/bin/rbd\n\
        module\tnfs\tavailable\n\
        module\trbd\tmissing\n\
        [filesystems]\n\
        |nodev\tsysfs\n\
        |\text4\n\
        selinux\tdisabled\tlive\n\
        process\trpc.statd\tno\n\
        process\trpcbind\tyes\n\
        kubelet_root\t/var/lib/kubelet\tdefault\n\
        pods_dir\t/var/lib/kubelet/pods\tpresent\n\
        pod\tu1\n\
        pod\tx; touch /tmp/pwned\n\
        pod\ta\\tb\\\\c\n\
        some_future_record\twhatever\n\
        [some-future-section]\n\
        |ignored\n\
        end\n";

    #[test]
    fn sample_parses() {
        let f = parse(SAMPLE).unwrap();
        assert!(f.complete, "{:?}", f.errors);
        assert!(f.errors.is_empty(), "{:?}", f.errors);
        assert!(f.live);
        assert_eq!(f.os.id.as_deref(), Some("debian"));
        assert_eq!(f.os.version_id.as_deref(), Some("12"));
        assert_eq!(
            f.os.pretty_name.as_deref(),
            Some("Debian GNU/Linux 12 (bookworm)")
        );
        assert_eq!(f.hostname.as_deref(), Some("node1"));
        assert_eq!(f.kernel.as_deref(), Some("6.1.0-18-amd64"));
        assert_eq!(f.helpers["mount.nfs"], "/sbin/mount.nfs");
        assert_eq!(f.tools["rbd"], "/usr/bin/rbd");
        assert_eq!(f.modules["nfs"], ModuleState::Available);
        assert_eq!(f.modules["rbd"], ModuleState::Missing);
        assert_eq!(f.filesystems, ["sysfs", "ext4"]);
        assert_eq!(f.rpc_statd_running, Some(false));
        assert_eq!(f.rpcbind_running, Some(true));
        assert_eq!(f.kubelet_running, None);
        assert_eq!(f.mounts.len(), 2);
        assert_eq!(f.kubelet_root_propagation, Some(Propagation::Shared));
        assert_eq!(f.kubelet_root_mount.as_deref(), Some("/"));
        assert_eq!(
            f.pod_uids.as_deref().unwrap(),
            ["u1", "x; touch /tmp/pwned", "a\tb\\c"]
        );
    }

    #[test]
    fn versions_and_garbage() {
        let e = parse("volmnt-probe 2\nend\n").unwrap_err();
        assert!(e.message.contains("version 2 is not supported"), "{e}");
        let e = parse("Last login: Mon\nvolmnt-probe 1\n").unwrap_err();
        assert!(e.message.contains("not volmnt probe output"), "{e}");
        assert!(parse("").is_err());
        assert!(parse("volmnt-probe x\n").is_err());
    }

    #[test]
    fn missing_sections_and_cut_output() {
        let f = parse("volmnt-probe 1\nroot\t/mnt\nlive\t0\n").unwrap();
        assert!(!f.complete);
        assert!(f.errors.iter().any(|e| e.contains("ends early")));
        assert!(f.mounts.is_empty());
        assert_eq!(f.pod_uids, None);
        assert_eq!(f.rpc_statd_running, None);
        let f = parse("volmnt-probe 1\r\nroot\t/\r\nend\r\n").unwrap();
        assert!(f.complete);
        assert_eq!(f.root.as_deref(), Some("/"));
    }

    #[test]
    fn os_release_quoting() {
        let os = parse_os_release(
            "# c\nNAME='Alpine Linux'\nID=alpine\nPRETTY_NAME=\"a \\\"q\\\" b\"\nID_LIKE=\"rhel fedora\"\n",
        );
        assert_eq!(os.name.as_deref(), Some("Alpine Linux"));
        assert_eq!(os.pretty_name.as_deref(), Some("a \"q\" b"));
        assert_eq!(os.id_like.as_deref(), Some("rhel fedora"));
    }

    #[test]
    fn field_escapes() {
        assert_eq!(unescape_field(r"a\tb\nc\\d\re\x"), "a\tb\nc\\d\re\\x");
        assert_eq!(unescape_field("trailing\\"), "trailing\\");
    }
}
