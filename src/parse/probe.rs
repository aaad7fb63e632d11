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
//! | `helper_missing` | name, the directories searched (a helper or tool looked for, not found) |
//! | `kubelet_containerized` | `yes`/`no` (the kubelet's cgroup names a container runtime) |
//! | `dmesg_restrict` | `kernel.dmesg_restrict` (`0`/`1`) |
//! | `cap_syslog` | `yes`/`no`: whether the probe itself has CAP_SYSLOG |
//! | `unavailable` | fact family, why it could not be read |
//! | `multipath_conf` | a multipath.conf file read into `[multipath-conf]` |
//! | `multipath_map` | name, WWID, dm device, vendor, product, path devices... (from sysfs) |
//! | `iscsi_initiatorname` | `absent`: /etc/iscsi/initiatorname.iscsi does not exist |
//! | `packages_checked` | `dpkg`/`apk`/`rpm`, the package names looked for |
//! | `nfs_checked_from` | `node` or `pod` (the probe pod's network) |
//! | `nfs_server` | a server asked about (VOLMNT_NFS_SERVERS) |
//! | `nfs_tcp` | server, port, `open`/`closed`/`timeout` |
//!
//! Evidence sections (added to version 1; each holds a real command's or file's format and is
//! read by `parse::transcripts`): `[kubelet-cmdline]` (the kubelet's /proc/PID/cmdline, NULs as
//! spaces), `[kubelet-args FILE]` (root-dir lines of MicroK8s' args file, k3s/rke2 config.yaml),
//! `[kubelet-config FILE]` (top-level KubeletConfiguration settings), `[blkid-cache]`
//! (/run/blkid/blkid.tab), `[blkid-udev]` (`blkid -o udev` layout from udev's database),
//! `[multipath-conf]`, `[iscsi-initiatorname]`, `[iscsi-sessions]` (`iscsiadm -m session`
//! layout, from sysfs), `[df]`/`[df-i]` (`df -P`/`df -Pi`), `[dpkg-status]` (dpkg's status
//! stanzas), `[apk-installed]` (`name version`), `[rpm-q]` (`rpm -q`), `[rpcinfo SERVER]`,
//! `[showmount SERVER]`.
//!
//! Unknown records and sections are ignored: a later probe may add some; the version changes
//! only when the meaning of an existing line changes.

use std::collections::BTreeMap;

use crate::error::ParseError;
use crate::model::{ModuleState, NodeFacts, OsRelease};
use crate::parse::{mountinfo, transcripts};

/// os-release(5) is read by its transcript reader; kept reachable here, where it was first.
pub use crate::parse::transcripts::parse_os_release;

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

/// Read probe output, saying in each fact family's provenance that it came from `via` (`node
/// probe (pod on node-3)`, `node probe (ssh root@10.0.0.5)`).
pub fn parse_from(text: &str, via: &str) -> Result<NodeFacts, ParseError> {
    let mut f = parse(text)?;
    let via = crate::redact::redact(via).into_owned();
    let mut families: Vec<&str> = Vec::new();
    let mut had = |yes: bool, fam: &'static str| {
        if yes {
            families.push(fam);
        }
    };
    had(f.kernel.is_some(), "kernel");
    had(f.os != OsRelease::default(), "os");
    had(f.kubelet.is_some() || f.kubelet_root.is_some(), "kubelet");
    had(
        !f.modules.is_empty() || f.modules_loadable.is_some(),
        "modules",
    );
    had(
        !f.helpers.is_empty() || !f.tools.is_empty() || !f.helpers_missing.is_empty(),
        "helpers",
    );
    had(!f.mounts.is_empty(), "mounts");
    had(!f.filesystems.is_empty(), "filesystems");
    had(f.selinux.is_some(), "selinux");
    had(
        f.rpc_statd_running.is_some() || f.rpcbind_running.is_some() || f.kubelet_running.is_some(),
        "services",
    );
    had(
        f.log_sources.iter().any(|s| s.starts_with("kernel")),
        "kernel_log",
    );
    had(
        f.log_sources.iter().any(|s| s.starts_with("kubelet")),
        "kubelet_log",
    );
    had(!f.blkid.is_empty(), "blkid");
    had(f.multipath.is_some(), "multipath");
    had(f.iscsi.is_some(), "iscsi");
    had(!f.df.is_empty(), "df");
    had(!f.nfs_servers.is_empty(), "nfs_servers");
    had(!f.packages.is_empty(), "packages");
    had(f.dmesg_restrict.is_some(), "dmesg_restrict");
    for fam in families {
        f.add_provenance(fam, &via);
    }
    Ok(f)
}

/// Read probe output.
pub fn parse(text: &str) -> Result<NodeFacts, ParseError> {
    let mut lines = text.lines();
    let version = read_version(lines.next())?;
    let mut f = NodeFacts {
        probe_version: version,
        ..NodeFacts::default()
    };
    let mut r = Reading::default();
    read_lines(&mut f, &mut r, lines);
    f.hostname = r.live_host.take().or(r.etc_host.take());
    read_sections(&mut f, &r);
    if !f.complete {
        f.errors.push(
            "the probe output ends early (no `end` line): it was killed or cut, so facts after \
             that point are missing"
                .into(),
        );
    }
    Ok(f)
}

/// The first line: `volmnt-probe VERSION`, of the version this parser reads.
fn read_version(first: Option<&str>) -> Result<u32, ParseError> {
    let first = first
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
    Ok(version)
}

/// What the lines leave for the sections: their bodies, and the records that mean something
/// only beside others (the host name's two sources, the kubelet's cgroup, what was checked).
#[derive(Default)]
struct Reading {
    bodies: BTreeMap<String, String>,
    live_host: Option<String>,
    etc_host: Option<String>,
    containerized: Option<bool>,
    packages_checked: Vec<String>,
    nfs_from: Option<String>,
}

/// The lines after the first: section bodies kept for [`read_sections`], records read as they
/// come.
fn read_lines<'a>(f: &mut NodeFacts, r: &mut Reading, lines: impl Iterator<Item = &'a str>) {
    let mut section: Option<String> = None;
    for (i, raw) in lines.enumerate() {
        let line_no = i + 2;
        let line = raw.strip_suffix('\r').unwrap_or(raw);
        if let Some(body) = line.strip_prefix('|') {
            match &section {
                Some(s) => {
                    let b = r.bodies.entry(s.clone()).or_default();
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
        let fields = Fields(parts.map(unescape_field).collect());
        read_record(f, r, key, &fields);
    }
}

/// A record's fields, unescaped.
struct Fields(Vec<String>);

impl Fields {
    /// Field `n`, `None` when absent or empty.
    fn get(&self, n: usize) -> Option<String> {
        self.0.get(n).cloned().filter(|s| !s.is_empty())
    }

    /// The non-empty fields from `n` on.
    fn list(&self, n: usize) -> Vec<String> {
        self.0
            .iter()
            .skip(n)
            .filter(|p| !p.is_empty())
            .cloned()
            .collect()
    }
}

/// One record, by its family.
fn read_record(f: &mut NodeFacts, r: &mut Reading, key: &str, fields: &Fields) {
    match key {
        "root" | "live" | "mountinfo_source" | "hostname" | "kernel" | "kernel_tree" | "arch" => {
            host_record(f, r, key, fields)
        }
        "helper" | "tool" | "helper_missing" => program_record(f, key, fields),
        "modules_loadable" | "module" => module_record(f, key, fields),
        "selinux" | "process" | "dmesg_restrict" => state_record(f, key, fields),
        "kubelet_root" | "pods_dir" | "pod" | "kubelet_containerized" => {
            kubelet_record(f, r, key, fields)
        }
        "skipped" | "error" | "log_source" | "unavailable" => note_record(f, key, fields),
        "multipath_map" | "iscsi_initiatorname" => storage_record(f, key, fields),
        "packages_checked" | "nfs_checked_from" | "nfs_server" | "nfs_tcp" => {
            checked_record(f, r, key, fields)
        }
        // Known records that carry nothing the facts keep, and records of later probes.
        _ => {}
    }
}

/// What was read and where: the root, whether it is live, the host, its kernel and machine.
fn host_record(f: &mut NodeFacts, r: &mut Reading, key: &str, fields: &Fields) {
    let get = |n: usize| fields.get(n);
    match key {
        "root" => f.root = get(0),
        "live" => f.live = get(0).as_deref() == Some("1"),
        "mountinfo_source" => f.mounts_source = get(0),
        "hostname" => match get(1).as_deref() {
            Some("live") => r.live_host = get(0),
            _ => r.etc_host = get(0),
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
        _ => {}
    }
}

/// Mount helpers and tools, found or looked for and missing.
fn program_record(f: &mut NodeFacts, key: &str, fields: &Fields) {
    let get = |n: usize| fields.get(n);
    match key {
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
        "helper_missing" => {
            if let Some(name) = get(0) {
                let dirs = get(1).unwrap_or_default();
                f.helpers_missing
                    .insert(name, format!("not in {}", dirs.trim()));
            }
        }
        _ => {}
    }
}

/// Kernel modules: whether any can be loaded, and each one's state.
fn module_record(f: &mut NodeFacts, key: &str, fields: &Fields) {
    let get = |n: usize| fields.get(n);
    match key {
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
        _ => {}
    }
}

/// The node's state: SELinux's mode, which daemons run, kernel.dmesg_restrict.
fn state_record(f: &mut NodeFacts, key: &str, fields: &Fields) {
    let get = |n: usize| fields.get(n);
    match key {
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
                Some("multipathd") => {
                    f.multipath.get_or_insert_with(Default::default).running = running
                }
                Some("iscsid") => {
                    f.iscsi.get_or_insert_with(Default::default).iscsid_running = running
                }
                _ => {}
            }
        }
        "dmesg_restrict" => f.dmesg_restrict = get(0).map(|v| v != "0"),
        _ => {}
    }
}

/// The kubelet's root dir, its pods, whether it runs in a container.
fn kubelet_record(f: &mut NodeFacts, r: &mut Reading, key: &str, fields: &Fields) {
    let get = |n: usize| fields.get(n);
    match key {
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
        "kubelet_containerized" => r.containerized = Some(get(0).as_deref() == Some("yes")),
        _ => {}
    }
}

/// What the probe says about itself: steps skipped or failed, where logs came from, what it
/// could not read.
fn note_record(f: &mut NodeFacts, key: &str, fields: &Fields) {
    let get = |n: usize| fields.get(n).unwrap_or_default();
    match key {
        "skipped" => f
            .errors
            .push(format!("{}: skipped {} ({})", get(0), get(1), get(2))),
        "error" => f.errors.push(format!("{}: {}", get(0), get(1))),
        "log_source" => f.log_sources.push(format!("{}: {}", get(0), get(1))),
        "unavailable" => f.add_unavailable(format!("{}: {}", get(0), get(1))),
        _ => {}
    }
}

/// Multipath maps read from sysfs, and an absent iSCSI initiator name file.
fn storage_record(f: &mut NodeFacts, key: &str, fields: &Fields) {
    let get = |n: usize| fields.get(n);
    match key {
        "multipath_map" => {
            if let Some(name) = get(0) {
                let mp = f.multipath.get_or_insert_with(Default::default);
                mp.maps.push(crate::model::MultipathMap {
                    name,
                    wwid: get(1),
                    dm: get(2),
                    vendor: get(3).map(|v| v.trim().to_string()),
                    product: get(4).map(|v| v.trim().to_string()),
                    paths: fields.list(5),
                });
            }
        }
        "iscsi_initiatorname" if get(0).as_deref() == Some("absent") => {
            f.iscsi
                .get_or_insert_with(Default::default)
                .initiator_file_present = Some(false);
        }
        _ => {}
    }
}

/// What the probe looked for: packages by name, NFS servers (from where, and their TCP port).
fn checked_record(f: &mut NodeFacts, r: &mut Reading, key: &str, fields: &Fields) {
    let get = |n: usize| fields.get(n);
    match key {
        "packages_checked" => r.packages_checked = fields.list(1),
        "nfs_checked_from" => r.nfs_from = get(0),
        "nfs_server" => {
            if let Some(s) = get(0) {
                if !f.nfs_servers.iter().any(|x| x.server == s) {
                    f.nfs_servers.push(crate::model::NfsServerAnswer {
                        server: s,
                        ..Default::default()
                    });
                }
            }
        }
        "nfs_tcp" => {
            if let (Some(s), Some(state)) = (get(0), get(2)) {
                if let Some(x) = f.nfs_servers.iter_mut().find(|x| x.server == s) {
                    let open = state == "open";
                    x.reachable = Some(x.reachable.unwrap_or(false) || open);
                    if !open && x.error.is_none() {
                        x.error = Some(format!("TCP port 2049: {state}"));
                    }
                }
            }
        }
        _ => {}
    }
}

/// The sections, once every record is read, each by the reader of the format it holds.
fn read_sections(f: &mut NodeFacts, r: &Reading) {
    if let Some(text) = r.bodies.get("os-release") {
        f.os = parse_os_release(text);
    }
    if let Some(text) = r.bodies.get("filesystems") {
        f.filesystems = transcripts::parse_filesystems(text);
    }
    read_log_sections(f, &r.bodies);
    read_evidence_sections(
        f,
        &r.bodies,
        r.containerized,
        &r.packages_checked,
        r.nfs_from.as_deref(),
    );
    if let Some(text) = r.bodies.get("mountinfo") {
        let (mounts, errors) = transcripts::read_mountinfo(text);
        f.mounts.extend(mounts);
        f.errors.extend(errors);
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
        // The probe's root dir is the whole reading (flag, args files, flavour dirs).
        if let Some(k) = f.kubelet.as_mut() {
            k.root_dir = Some(kr);
            k.root_dir_source = f.kubelet_root_source.clone();
        }
    }
}

/// `[kubelet-log]` (the kubelet's lines that name the pod or its volumes) and `[kernel-log]`
/// (the kernel's storage lines, read by the kernel log reader).
fn read_log_sections(f: &mut NodeFacts, bodies: &BTreeMap<String, String>) {
    if let Some(text) = bodies.get("kubelet-log") {
        f.kubelet_log = text
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(str::to_string)
            .collect();
    }
    if let Some(text) = bodies.get("kernel-log") {
        let (lines, refused) = transcripts::probe_section_lines(text);
        if refused {
            f.add_unavailable(
                "kernel_log: dmesg could not read the kernel ring buffer (kernel.dmesg_restrict=1 needs CAP_SYSLOG)",
            );
            f.log_sources.retain(|s| s != "kernel: dmesg");
        }
        f.kernel_log = lines;
    }
}

/// The evidence sections (format version 1 additions), each read by the parser of the command
/// or file it holds, so the probe and a pasted transcript give the same facts.
fn read_evidence_sections(
    f: &mut NodeFacts,
    bodies: &BTreeMap<String, String>,
    containerized: Option<bool>,
    packages_checked: &[String],
    nfs_from: Option<&str>,
) {
    let root = f.root.clone().unwrap_or_else(|| "/".into());
    let prefix = root.trim_end_matches('/').to_string();
    for (name, text) in bodies {
        let (sec, arg) = match name.split_once(' ') {
            Some((s, a)) => (s, Some(a)),
            None => (name.as_str(), None),
        };
        match sec {
            "kubelet-cmdline" => kubelet_section(f, text, "cat /proc/PID/cmdline"),
            "kubelet-args" => {
                kubelet_section(f, text, &format!("grep root-dir {}", arg.unwrap_or("")))
            }
            "kubelet-config" => {
                let k = f.kubelet.get_or_insert_with(Default::default);
                k.config
                    .get_or_insert_with(|| arg.unwrap_or_default().to_string());
                k.config_settings
                    .extend(transcripts::kubelet_config_settings(text));
            }
            "blkid-cache" | "blkid-udev" => {
                let entries = if sec == "blkid-cache" {
                    transcripts::parse_blkid_cache(text)
                } else {
                    transcripts::parse_blkid(text)
                };
                // udev's reading is newer than blkid's cache.
                transcripts::add_devices(&mut f.blkid, entries, |_| sec == "blkid-udev");
            }
            "multipath-conf" => {
                let (find, blacklist) = transcripts::parse_multipath_conf(text);
                transcripts::add_conf(
                    f.multipath.get_or_insert_with(Default::default),
                    find,
                    blacklist,
                );
            }
            "iscsi-initiatorname" | "iscsi-sessions" => iscsi_section(f, sec, text),
            "df" | "df-i" => df_section(f, &prefix, text),
            "dpkg-status" | "rpm-q" | "apk-installed" => {
                packages_section(f, sec, text, packages_checked)
            }
            "rpcinfo" | "showmount" => nfs_section(f, sec, arg.unwrap_or_default(), text),
            _ => {}
        }
    }
    if let (Some(k), Some(c)) = (f.kubelet.as_mut(), containerized) {
        k.containerized = Some(c);
    }
    match nfs_from {
        Some("pod") if !f.nfs_servers.is_empty() => {
            f.add_provenance(
                "nfs_servers",
                "the probe pod's network on the node, not the node's own (no hostNetwork): a NetworkPolicy or the node's firewall may differ",
            );
            // A loopback server is the node's own; the pod's loopback is the pod's: what it
            // answered there says nothing of the node's (issue 26).
            let mut gone = Vec::new();
            f.nfs_servers.retain(|s| {
                let lo = is_loopback(&s.server);
                if lo {
                    gone.push(s.server.clone());
                }
                !lo
            });
            for g in gone {
                f.unavailable.push(format!(
                    "nfs_servers: {g} is the node's own loopback; the probe pod has a loopback of its own, so it could not ask it (run the probe on the host, or with --probe-nfs in a hostNetwork probe pod)"
                ));
            }
        }
        Some("node") if !f.nfs_servers.is_empty() => {
            f.add_provenance("nfs_servers", "the node's own network");
        }
        _ => {}
    }
}

/// `127.0.0.1`, `127.x.y.z`, `::1`, `localhost`: the host's own loopback.
fn is_loopback(server: &str) -> bool {
    let s = server.trim_matches(|c| c == '[' || c == ']');
    s.eq_ignore_ascii_case("localhost")
        || s == "::1"
        || s.parse::<std::net::Ipv4Addr>()
            .is_ok_and(|a| a.is_loopback())
}

/// `[kubelet-cmdline]` and `[kubelet-args FILE]`, read as `cmd`'s output would be.
fn kubelet_section(f: &mut NodeFacts, text: &str, cmd: &str) {
    if let Some(k) = transcripts::parse_kubelet(text, Some(cmd)) {
        let mut tmp = NodeFacts {
            kubelet: f.kubelet.take(),
            ..NodeFacts::default()
        };
        transcripts::merge(
            &mut tmp,
            NodeFacts {
                kubelet: Some(k),
                ..NodeFacts::default()
            },
        );
        f.kubelet = tmp.kubelet;
    }
}

/// `[iscsi-initiatorname]` (the file) and `[iscsi-sessions]` (`iscsiadm -m session`'s layout).
fn iscsi_section(f: &mut NodeFacts, sec: &str, text: &str) {
    let i = f.iscsi.get_or_insert_with(Default::default);
    if sec == "iscsi-initiatorname" {
        if let Ok(name) = transcripts::parse_initiatorname(text) {
            i.initiator_file_present = Some(true);
            i.initiator_name = Some(name);
        }
    } else {
        i.sessions
            .extend(transcripts::parse_iscsi_sessions(text).unwrap_or_default());
    }
}

/// `[df]` / `[df-i]` (`df -P` / `df -Pi` of the host's paths under the probe's root, which is
/// taken off again).
fn df_section(f: &mut NodeFacts, prefix: &str, text: &str) {
    for mut d in transcripts::parse_df(text) {
        if !prefix.is_empty() {
            if let Some(r) = d.mounted_on.strip_prefix(prefix) {
                d.mounted_on = if r.is_empty() {
                    "/".into()
                } else {
                    r.to_string()
                };
            }
        }
        f.df.push(d);
    }
}

/// `[dpkg-status]`, `[rpm-q]`, `[apk-installed]`; a package checked and not listed is not
/// installed.
fn packages_section(f: &mut NodeFacts, sec: &str, text: &str, packages_checked: &[String]) {
    let pk = match sec {
        "dpkg-status" => transcripts::parse_packages(text, "dpkg", &[]),
        "rpm-q" => transcripts::parse_packages(text, "rpm", packages_checked),
        _ => transcripts::parse_name_version(text),
    };
    f.packages.extend(pk);
    for p in packages_checked {
        f.packages.entry(p.clone()).or_insert(None);
    }
}

/// `[rpcinfo SERVER]` / `[showmount SERVER]`: joined to what the records said of the server
/// (its TCP port).
fn nfs_section(f: &mut NodeFacts, sec: &str, server: &str, text: &str) {
    let a = if sec == "rpcinfo" {
        transcripts::parse_rpcinfo(text, server)
    } else {
        let mut a = transcripts::parse_showmount(text, Some(server));
        a.server = server.to_string();
        a
    };
    match f.nfs_servers.iter_mut().find(|x| x.server == server) {
        Some(x) => {
            if let Some(r) = a.reachable {
                x.reachable = Some(x.reachable.unwrap_or(false) || r);
            }
            x.versions.extend(a.versions);
            x.exports.extend(a.exports);
            if a.error.is_some() {
                x.error = a.error;
            }
        }
        None => f.nfs_servers.push(a),
    }
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

    /// Issue 26: an NFS server on the node's loopback asked from a probe pod's own network
    /// is not measured at all (the pod's loopback is its own); asked from the node's network
    /// (on the host, or a hostNetwork probe pod) it is, and the facts say where from.
    #[test]
    fn a_loopback_nfs_server_is_only_measured_from_the_nodes_network() {
        let out = |from: &str| {
            format!(
                "volmnt-probe 1\nroot\t/host\nlive\t1\nnfs_checked_from\t{from}\nnfs_server\t127.0.0.1\nnfs_tcp\t127.0.0.1\t2049\tclosed\nnfs_server\t10.0.0.5\nnfs_tcp\t10.0.0.5\t2049\topen\nend\n"
            )
        };
        let pod = parse(&out("pod")).unwrap();
        assert_eq!(
            pod.nfs_servers
                .iter()
                .map(|s| s.server.as_str())
                .collect::<Vec<_>>(),
            ["10.0.0.5"]
        );
        assert!(
            pod.unavailable
                .iter()
                .any(|u| u.contains("127.0.0.1 is the node's own loopback")),
            "{:?}",
            pod.unavailable
        );
        assert!(pod.provenance["nfs_servers"].contains("probe pod's network"));
        let node = parse(&out("node")).unwrap();
        let lo = node
            .nfs_servers
            .iter()
            .find(|s| s.server == "127.0.0.1")
            .unwrap();
        assert_eq!(lo.reachable, Some(false));
        assert_eq!(node.provenance["nfs_servers"], "the node's own network");
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
    fn field_escapes() {
        assert_eq!(unescape_field(r"a\tb\nc\\d\re\x"), "a\tb\nc\\d\re\\x");
        assert_eq!(unescape_field("trailing\\"), "trailing\\");
    }
}
