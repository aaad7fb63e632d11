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

mod blkid;
mod columns;
mod command;
mod df;
mod facts;
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
#[cfg(test)]
mod testing;
mod uname;

pub use blkid::{parse_blkid, parse_blkid_cache, parse_lsblk};
pub use command::{first_stage, shows_text, words};
pub use df::parse_df;
pub use facts::{derive, merge};
pub use helpers::{parse_lookup, Lookup};
pub use iscsi::{parse_initiatorname, parse_iscsi_sessions};
pub use kernel_log::{is_storage_kernel_line, kernel_log_lines, KERNEL_STORAGE_PATTERN};
pub use kmod::{parse_kmod, parse_lsmod, KmodAnswer};
pub use kubelet::{default_root_dir, kubelet_config_settings, kubelet_processes, parse_kubelet};
pub use mounts::{parse_findmnt, parse_proc_mounts_line};
pub use multipath::{parse_multipath_conf, parse_multipath_ll};
pub use nfs::{parse_rpcinfo, parse_showmount};
pub use os_release::parse_os_release;
pub use packages::parse_packages;
pub use reader::{Applied, Kind, MAX_ENTRIES, MAX_KERNEL_LINES};
pub use selinux::parse_selinux;
pub use services::{parse_sysctl, parse_systemctl};
pub use uname::parse_uname;

use blkid::BLKID_LINE;
use command::{basename, operands, read_file_arg};
use helpers::{is_program_of_interest, LS_MISSING};
use iscsi::ISCSI_SESSION;
use kernel_log::{DMESG_LINE, SYSLOG_PREFIX};
use kmod::PROC_MODULES_LINE;
use kubelet::merge_kubelet;
use os_release::OS_RELEASE_LINE;
use reader::applied;
use uname::{KERNEL_RELEASE, PROC_VERSION, UNAME_A};

use crate::model::{IscsiInfo, KubeletInfo, ModuleState, MountEntry, MultipathInfo, NodeFacts};
use crate::parse::mountinfo;

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

#[cfg(test)]
mod tests {
    use super::*;

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
