//! The advice matrix: every cause's Confirm and Fix steps rendered for every OS volmnt knows
//! (and for a node whose OS is not known), with every name the steps can use known and with
//! none known, and each step checked by rules a storage engineer would apply:
//! - a package command installs packages the OS's default repositories have, with the OS's own
//!   package manager (fixtures/os/packages.yaml, kept apart from the knowledge file);
//! - no systemctl or journalctl without systemd, no rc-service without OpenRC, no node command at all on an
//!   OS without a shell, no package command on an image-based OS that has no package manager;
//! - no SELinux command on an OS without SELinux, no AppArmor command on one without AppArmor;
//! - no placeholder in a `$` line (no `{name}`, no "the path", no "[needs");
//! - a check only reads: no mount but read-only, bounded in time, on a fresh directory; no
//!   write, no service change, no package change;
//! - anything that can lose data is marked destructive and comes after a check and a backup;
//! - nothing enables a static unit (rpc-statd) and nothing blacklists every SCSI disk from
//!   multipath.
//!
//! Then one test per defect of the advice audit, each on the message that showed it.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;
use volmnt::diagnose::catalogue::{catalogue, StepDef};
use volmnt::diagnose::steps::{node_os, render_steps, StepCtx, Vars};
use volmnt::diagnose::{NodeOs, Options, Step, StepKind};
use volmnt::model::Case;

use crate::util::run_stdin;

/// The OS images of the audit, with the key of their package list (None: no package manager).
const IMAGES: &[(&str, Option<&str>)] = &[
    ("Ubuntu 22.04.4 LTS", Some("ubuntu-22.04")),
    ("Debian GNU/Linux 12 (bookworm)", Some("debian-12")),
    ("CentOS Linux 7 (Core)", Some("el7")),
    ("Red Hat Enterprise Linux 9.4 (Plow)", Some("el9")),
    ("Rocky Linux 9.3 (Blue Onyx)", Some("el9")),
    ("SUSE Linux Enterprise Server 15 SP5", Some("sles-15")),
    ("openSUSE Leap 15.5", Some("opensuse-15.5")),
    ("SUSE Linux Enterprise Micro 5.5", Some("sle-micro-5.5")),
    ("Alpine Linux v3.19", Some("alpine-3.19")),
    ("Amazon Linux 2", Some("amzn2")),
    ("Amazon Linux 2023.4.20240401", Some("al2023")),
    ("Flatcar Container Linux by Kinvolk 3815.2.5 (Oklo)", None),
    ("Fedora CoreOS 39.20240210.3.0", Some("fcos")),
    ("Bottlerocket OS 1.20.3 (aws-k8s-1.29)", None),
    ("Talos (v1.7.5)", None),
    ("Container-Optimized OS from Google", None),
    (
        "Red Hat Enterprise Linux CoreOS 415.92.202402201450-0 (Plow)",
        None,
    ),
];

const PACKAGES: &str = include_str!("../fixtures/os/packages.yaml");

/// A value for every name a step can use, as a real case would give it.
fn rich_vars() -> Vars {
    let mut v = Vars::new();
    for (k, val) in [
        ("node", "node-3"),
        ("pod", "web-0"),
        ("namespace", "shop"),
        ("controller", "StatefulSet/web"),
        ("image", "replicapool/csi-vol-0a1b"),
        ("server", "10.0.0.5"),
        ("export", "/exports/data"),
        ("source", "10.0.0.5:/exports/data"),
        ("share", "data"),
        ("path", "/var/lib/data"),
        ("pv", "pvc-0cb70641"),
        ("pvc", "data-web-0"),
        ("claim", "data-web-0"),
        ("driver", "rbd.csi.ceph.com"),
        ("device", "/dev/rbd0"),
        ("device_stable", "/dev/rbd/replicapool/csi-vol-0a1b"),
        ("device_check", "/dev/rbd/replicapool/csi-vol-0a1b"),
        ("module", "rbd"),
        ("volume", "data"),
        ("holder_node", "node-1"),
        ("other_node", "node-1"),
        ("other_pod", "web-0-old"),
        ("va", "csi-0a1b2c"),
        ("va_node", "node-1"),
        (
            "target",
            "/var/lib/kubelet/pods/1f2e/volumes/kubernetes.io~nfs/data",
        ),
        ("endpoint_host", "10.0.0.9"),
        ("endpoint_port", "3260"),
        ("hostpath_kind", "directory"),
        ("hostpath_create_type", "DirectoryOrCreate"),
        ("fstype", "xfs"),
        ("watcher_addr", "10.0.0.7:0/1864102866"),
        ("locker", "client.24128"),
        ("locker_host", "10.0.0.7"),
        ("lock_id", "kubelet_lock_magic_node1"),
        ("object", "configmap app-config"),
        ("object_kind", "configmap"),
        ("object_name", "app-config"),
        ("object_title", "ConfigMap"),
        ("svc_name", "nfs-server"),
        ("svc_namespace", "storage"),
        ("programs", "mount.nfs mount.nfs4"),
        ("client", "nfs"),
        ("pod_uid", "1f2e3d4c"),
        ("options", "nfsvers=4.2"),
        ("exit_status", "32"),
        ("holder_live", "pod shop/web-0-old (Running)"),
        ("fsck_check", "xfs_repair -n"),
        ("fsck_repair", "xfs_repair"),
        (
            "backup_command",
            "sudo rbd snap create replicapool/csi-vol-0a1b@volmnt-before-repair",
        ),
        (
            "backup_what",
            "a snapshot of RBD image replicapool/csi-vol-0a1b",
        ),
        ("iscsi", "true"),
        ("in_tree", "true"),
        ("longhorn", "true"),
    ] {
        v.insert(k, val.to_string());
    }
    v
}

/// What a case that names almost nothing gives.
fn poor_vars() -> Vars {
    let mut v = Vars::new();
    v.insert("fsck_check", "fsck -n".into());
    v.insert("fsck_repair", "fsck -y".into());
    v
}

fn os_for(image: Option<&str>) -> NodeOs {
    let opts = Options {
        node_os: image.map(str::to_string),
        ..Options::default()
    };
    node_os(&Case::default(), &opts)
}

/// Every step of every cause, and an install step of every client, for one OS and one set of
/// names.
fn rendered(os: &NodeOs, vars: &Vars) -> Vec<(String, &'static str, Vec<Step>)> {
    let cat = catalogue();
    let mut out = Vec::new();
    for c in &cat.causes {
        for (which, defs, confirm) in [
            ("confirm", &c.confirm, true),
            ("fix", &c.remediation, false),
        ] {
            let cx = StepCtx {
                fs: Default::default(),
                invocation: "volmnt",
                confirm,
            };
            out.push((c.id.clone(), which, render_steps(defs, vars, os, &cx)));
        }
    }
    for client in cat.os.clients.keys() {
        let def: StepDef =
            serde_yaml::from_str(&format!("{{text: Install it, install: {client}}}")).unwrap();
        let cx = StepCtx {
            fs: Default::default(),
            invocation: "volmnt",
            confirm: false,
        };
        out.push((
            format!("install {client}"),
            "fix",
            render_steps(&[def], vars, os, &cx),
        ));
    }
    out
}

/// `sudo apt-get ... install -y a b` → ("apt", [a, b]).
fn package_command(cmd: &str) -> Option<(&'static str, Vec<String>)> {
    for part in cmd.split("&&").map(str::trim) {
        let words: Vec<&str> = part.split_whitespace().filter(|w| *w != "sudo").collect();
        let (mgr, rest): (&str, &[&str]) = match words.as_slice() {
            ["apt-get", "install", rest @ ..] | ["apt", "install", rest @ ..] => ("apt", rest),
            ["dnf", "install", rest @ ..] => ("dnf", rest),
            ["yum", "install", rest @ ..] => ("yum", rest),
            ["zypper", "install", rest @ ..] | ["zypper", "in", rest @ ..] => ("zypper", rest),
            ["apk", "add", rest @ ..] => ("apk", rest),
            ["transactional-update", "pkg", "install", rest @ ..] => ("transactional-update", rest),
            ["rpm-ostree", "install", rest @ ..] => ("rpm-ostree", rest),
            _ => continue,
        };
        // `linux-modules-extra-$(uname -r)` is one package name.
        let joined = rest.join(" ").replace("$(uname -r)", "$(uname_-r)");
        let pkgs = joined
            .split_whitespace()
            .filter(|w| !w.starts_with('-'))
            .map(|w| w.replace("$(uname_-r)", "$(uname -r)"))
            .collect();
        return Some((mgr, pkgs));
    }
    None
}

/// A command that can lose data: it must be a marked destructive step after a check and a
/// backup.
fn destroys_data(cmd: &str) -> bool {
    let re = regex::Regex::new(
        r"\bmkfs(\.\w+)?\s|\bwipefs\b|\bdd\s+if=|\bxfs_repair\b(?:[^|;&]*\s-L\b|\s+/)|\be2fsck\s+-f?[yp]|\bfsck\s+-y|\bsgdisk\s+--zap|\blvremove\b|\brbd\s+(rm|remove)\s|\brbd\s+lock\s+(rm|remove)\b|\bceph\s+osd\s+(blocklist|blacklist)\s+add\b|\bkubectl\s+delete\s+(volumeattachment|pv|pvc|persistentvolume)",
    )
    .unwrap();
    re.is_match(cmd)
}

/// What a read-only check may not do.
pub fn writes(cmd: &str) -> Option<&'static str> {
    let checks: &[(&str, &str)] = &[
        (
            r"\bsystemctl\s+(start|stop|restart|reload|enable|disable|mask)\b",
            "changes a service",
        ),
        (
            r"\brc-(service\s+\S+\s+(start|stop|restart)|update\s+add)\b",
            "changes a service",
        ),
        (r"\bmodprobe\s+[a-z]", "loads a module"),
        (
            r"\b(apt-get|apt|dnf|yum|zypper|apk|rpm-ostree|transactional-update)\s+(install|add|in|pkg)\b",
            "installs a package",
        ),
        (r"\btee\s+(-a\s+)?/|\bsed\s+-i", "writes a file"),
        (
            r"\b(chcon|semanage|restorecon|chown|chmod|rm|rmdir -p|mkfs|wipefs)\b\s",
            "changes files",
        ),
        (
            r"\bkubectl\s+(delete|apply|patch|edit|replace|scale|drain|cordon|label|annotate|create)\b",
            "changes the cluster",
        ),
        (r"\bexportfs\s+-r", "re-exports"),
        (r"\bumount\s+-l\b", "unmounts"),
    ];
    for (re, why) in checks {
        if regex::Regex::new(re).unwrap().is_match(cmd) {
            return Some(why);
        }
    }
    // A redirection into a file (not /dev/null, not bash's /dev/tcp connect).
    if regex::Regex::new(r"[^2&]>\s*/(?:[^d]|d[^e]|de[^v])")
        .unwrap()
        .is_match(cmd)
    {
        return Some("writes a file");
    }
    if regex::Regex::new(r"(^|[;&|]\s*|sudo\s+|timeout\s+\d+\s+)mount\s+(-\w|/|\S+:/)")
        .unwrap()
        .is_match(cmd)
    {
        let ok = cmd.contains("mktemp -d")
            && regex::Regex::new(r"-o\s+ro[,\s]").unwrap().is_match(cmd)
            && cmd.contains("timeout ");
        if !ok {
            return Some(
                "mounts (a check may only mount read-only, bounded in time, on a fresh directory)",
            );
        }
    }
    None
}

static RE0: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
    regex::Regex::new(r"systemctl\s+enable\b[^;&|]*\brpc-statd\b").unwrap()
});
static RE1: std::sync::LazyLock<regex::Regex> =
    std::sync::LazyLock::new(|| regex::Regex::new(r"\bnc\s+-\w*z").unwrap());
static RE2: std::sync::LazyLock<regex::Regex> =
    std::sync::LazyLock::new(|| regex::Regex::new(r"\bjournalctl\b").unwrap());
static RE3: std::sync::LazyLock<regex::Regex> =
    std::sync::LazyLock::new(|| regex::Regex::new(r"\brc-(service|update)\b").unwrap());

static DEVNODE_SD: std::sync::LazyLock<regex::Regex> =
    std::sync::LazyLock::new(|| regex::Regex::new(r#"devnode\s+\\?"\^sd"#).unwrap());

#[test]
fn every_step_for_every_os_follows_the_rules() {
    let tables: BTreeMap<String, BTreeSet<String>> =
        serde_yaml::from_str(PACKAGES).expect("packages.yaml parses");
    let placeholder = regex::Regex::new(
        r"\{[a-z_]+\}|\[needs|\bthe (path|device|filesystem type|pod's node|stuck pod|claim)\b|<[a-z][a-z -]*>",
    )
    .unwrap();
    let selinux_cmd =
        regex::Regex::new(r"\b(semanage|chcon|restorecon|getenforce|ausearch|sestatus)\b").unwrap();
    let apparmor_cmd = regex::Regex::new(r"\b(aa-status|apparmor_parser|aa-complain)\b").unwrap();
    let mut problems: Vec<String> = Vec::new();
    let mut steps_checked = 0usize;
    let mut combos = 0usize;
    let images: Vec<(Option<&str>, Option<&str>)> = IMAGES
        .iter()
        .map(|(i, t)| (Some(*i), *t))
        .chain(std::iter::once((None, None)))
        .collect();
    for (image, table) in &images {
        let os = os_for(*image);
        let cat = catalogue();
        let profile = os.os.as_deref().and_then(|o| cat.os.profile(o));
        assert!(
            image.is_none() || profile.is_some(),
            "{image:?} is an OS volmnt knows"
        );
        for (vars_name, vars) in [("all names", rich_vars()), ("no names", poor_vars())] {
            for (cause, which, steps) in rendered(&os, &vars) {
                combos += 1;
                let at = |s: &Step| {
                    format!(
                        "{} / {cause} {which} ({vars_name}): {:?}",
                        image.unwrap_or("unknown OS"),
                        s.command.as_deref().unwrap_or(&s.text)
                    )
                };
                let mut checked = which == "fix"
                    && catalogue()
                        .cause(&cause)
                        .is_some_and(|c| !c.confirm.is_empty());
                let mut backed_up = false;
                for s in &steps {
                    steps_checked += 1;
                    match s.kind {
                        StepKind::Check => checked = true,
                        StepKind::Backup => backed_up = true,
                        _ => {}
                    }
                    let Some(cmd) = s.command.as_deref() else {
                        continue;
                    };
                    if vars_name == "all names" && placeholder.is_match(cmd) {
                        problems.push(format!("placeholder in a command: {}", at(s)));
                    }
                    if destroys_data(cmd) {
                        if s.kind != StepKind::Destructive || !s.destructive {
                            problems.push(format!(
                                "can lose data but is not marked destructive: {}",
                                at(s)
                            ));
                        }
                        if !checked || !backed_up {
                            problems.push(format!(
                                "destructive without a check and a backup before it: {}",
                                at(s)
                            ));
                        }
                    }
                    if s.kind == StepKind::Check {
                        if let Some(why) = writes(cmd) {
                            problems.push(format!("a check that {why}: {}", at(s)));
                        }
                    }
                    if cmd.contains("/mnt") {
                        problems.push(format!("uses /mnt, which may be in use: {}", at(s)));
                    }
                    if DEVNODE_SD.is_match(cmd) {
                        problems.push(format!(
                            "blacklists every SCSI disk from multipath: {}",
                            at(s)
                        ));
                    }
                    if RE0.is_match(cmd) {
                        problems.push(format!("enables a static unit: {}", at(s)));
                    }
                    if RE1.is_match(cmd) && profile.is_some_and(|p| p.family != "alpine") {
                        problems.push(format!(
                            "nc -z is not in every nc (ncat has none): {}",
                            at(s)
                        ));
                    }
                    let Some(p) = profile else {
                        // Unknown OS: alternatives must say which family they are for.
                        if let Some((_, pkgs)) = package_command(cmd) {
                            let fam = s.os_family.as_deref().unwrap_or("?");
                            let known: BTreeSet<String> = tables
                                .iter()
                                .filter(|(k, _)| match fam {
                                    "debian" => k.starts_with("debian") || k.starts_with("ubuntu"),
                                    "rhel" => {
                                        k.starts_with("el")
                                            || k.starts_with("amzn")
                                            || k.starts_with("al2")
                                    }
                                    "suse" => k.starts_with("sles") || k.starts_with("opensuse"),
                                    _ => false,
                                })
                                .flat_map(|(_, v)| v.iter().cloned())
                                .collect();
                            for pkg in pkgs {
                                if !known.contains(&pkg) {
                                    problems.push(format!(
                                        "package {pkg} is not in the {fam} lists: {}",
                                        at(s)
                                    ));
                                }
                            }
                        }
                        continue;
                    };
                    let on_node = volmnt::diagnose::steps::runs_on_node(cmd);
                    if p.shell == "talosctl" && on_node {
                        problems.push(format!(
                            "a shell command on an OS without a shell: {}",
                            at(s)
                        ));
                    }
                    if p.init != "systemd" && RE2.is_match(cmd) {
                        problems.push(format!(
                            "journalctl on {} ({}), which has no journal: {}",
                            p.name,
                            p.init,
                            at(s)
                        ));
                    }
                    if p.init != "systemd" && cmd.contains("systemctl") {
                        problems.push(format!("systemctl on {} ({}): {}", p.name, p.init, at(s)));
                    }
                    if p.init != "openrc" && RE3.is_match(cmd) {
                        problems.push(format!("OpenRC command on {}: {}", p.name, at(s)));
                    }
                    if p.security != "selinux" && selinux_cmd.is_match(cmd) {
                        problems.push(format!(
                            "SELinux command on {} ({}): {}",
                            p.name,
                            p.security,
                            at(s)
                        ));
                    }
                    if p.security != "apparmor" && apparmor_cmd.is_match(cmd) {
                        problems.push(format!(
                            "AppArmor command on {} ({}): {}",
                            p.name,
                            p.security,
                            at(s)
                        ));
                    }
                    if let Some((mgr, pkgs)) = package_command(cmd) {
                        if p.manager.as_deref() != Some(mgr) {
                            problems.push(format!(
                                "package manager {mgr} on {} (which has {:?}): {}",
                                p.name,
                                p.manager,
                                at(s)
                            ));
                        }
                        let list = table.and_then(|t| tables.get(t));
                        for pkg in pkgs {
                            if !list.is_some_and(|l| l.contains(&pkg)) {
                                problems.push(format!(
                                    "package {pkg} is not in {}'s default repositories: {}",
                                    p.name,
                                    at(s)
                                ));
                            }
                        }
                    }
                }
            }
        }
    }
    eprintln!(
        "advice matrix: {} OS images + unknown × {} causes and {} clients × 2 name sets: {combos} step lists, {steps_checked} steps checked",
        IMAGES.len(),
        catalogue().causes.len(),
        catalogue().os.clients.len()
    );
    assert!(
        problems.is_empty(),
        "{} problem(s):\n{}",
        problems.len(),
        problems.join("\n")
    );
}

// --- The advice audit's defects, each on the message that showed it ------------------------

fn explain(message: &str, os: &str) -> Value {
    let out = run_stdin(
        &["explain", "--node-os", os, "-o", "json", "-"],
        message.as_bytes(),
    );
    out.assert_no_panic();
    // One message read from stdin: its report is the first (and only) of `messages`.
    out.json()["messages"][0].clone()
}

/// Every `$` command of a finding, Confirm and Fix.
fn commands(f: &Value) -> Vec<String> {
    ["confirm", "remediation"]
        .iter()
        .flat_map(|k| f[*k].as_array().cloned().unwrap_or_default())
        .filter_map(|s| s["command"].as_str().map(str::to_string))
        .collect()
}

fn texts(f: &Value) -> String {
    ["confirm", "remediation"]
        .iter()
        .flat_map(|k| f[*k].as_array().cloned().unwrap_or_default())
        .map(|s| {
            format!(
                "{} {}",
                s["text"].as_str().unwrap_or(""),
                s["command"].as_str().unwrap_or("")
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn finding<'a>(r: &'a Value, cause: &str) -> &'a Value {
    r["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["cause"] == cause)
        .unwrap_or_else(|| panic!("no {cause} finding in {r:#}"))
}

const XFS_FEATURES: &str = "MountVolume.MountDevice failed for volume \"pvc-1\" : mount failed: exit status 32 Mounting command: mount Mounting arguments: -t xfs -o defaults /dev/dm-2 /var/lib/kubelet/plugins/kubernetes.io/csi/pv/pvc-1/globalmount Output: mount: /var/lib/kubelet/plugins/kubernetes.io/csi/pv/pvc-1/globalmount: wrong fs type, bad option, bad superblock on /dev/dm-2, missing codepage or helper program, or other error.\n[2936368.664178] XFS (dm-2): Superblock has unknown read-only compatible features (0x4) enabled.";

#[test]
fn unknown_xfs_features_never_get_a_reformat() {
    // Defect 1 (harmful): "re-create the filesystem" destroyed the data, unmarked, no backup.
    for (os, _) in IMAGES {
        let r = explain(XFS_FEATURES, os);
        let f = finding(&r, "fs_features_unsupported_by_kernel");
        let all = texts(f).to_lowercase();
        assert!(
            !all.contains("re-create the filesystem") && !all.contains("reformat"),
            "{all}"
        );
        assert!(commands(f).iter().all(|c| !c.contains("mkfs")), "{all}");
        assert!(all.contains("kernel"), "points at the kernel: {all}");
    }
}

#[test]
fn a_busy_longhorn_device_is_blacklisted_by_vendor_never_every_sd_disk() {
    // Defect 2 (harmful): `blacklist { devnode "^sd[a-z0-9]+" }` took multipath from every SAN LUN.
    let msg = "MountVolume.MountDevice failed for volume \"pvc-2\" : rpc error: code = Internal desc = mount failed: exit status 32 Mounting command: mount Mounting arguments: -t ext4 -o defaults /dev/longhorn/pvc-2 /var/lib/kubelet/plugins/kubernetes.io/csi/driver.longhorn.io/x/globalmount Output: mount: /var/lib/kubelet/plugins/kubernetes.io/csi/driver.longhorn.io/x/globalmount: /dev/longhorn/pvc-2 already mounted or mount point busy.";
    let r = explain(msg, "Ubuntu 22.04.4 LTS");
    let f = finding(&r, "device_busy");
    let all = texts(f);
    assert!(!all.contains("^sd"), "{all}");
    assert!(all.contains("IET") && all.contains("VIRTUAL-DISK"), "{all}");
    assert!(
        commands(f)
            .iter()
            .any(|c| c.contains("/etc/multipath/conf.d/")),
        "{all}"
    );
}

const NFS_HELPER: &str = "MountVolume.SetUp failed for volume \"nfs\" : mount failed: exit status 32 Mounting command: mount Mounting arguments: -t nfs 10.0.0.5:/exports /var/lib/kubelet/pods/1/volumes/kubernetes.io~nfs/nfs Output: mount: wrong fs type, bad option, bad superblock on 10.0.0.5:/exports, missing codepage or helper program, or other error (for several filesystems (e.g. nfs, cifs) you might need a /sbin/mount.<type> helper program)";

#[test]
fn image_based_oses_that_ship_an_nfs_client_are_not_told_to_add_one() {
    // Defect 3: Flatcar, Fedora CoreOS and Talos ship the NFS client.
    for os in [
        "Flatcar Container Linux by Kinvolk 3815.2.5 (Oklo)",
        "Fedora CoreOS 39.20240210.3.0",
        "Talos (v1.7.5)",
    ] {
        let r = explain(NFS_HELPER, os);
        let f = finding(&r, "nfs_client_missing");
        let all = texts(f);
        assert!(all.contains("ships the NFS client"), "{os}: {all}");
        assert!(
            !all.contains("extension") || os.contains("Talos") && !all.contains("add the"),
            "{os}: {all}"
        );
        assert!(
            commands(f).iter().all(|c| package_command(c).is_none()),
            "{os}"
        );
    }
}

#[test]
fn sle_micro_installs_into_a_snapshot_and_reboots() {
    // Defect 4: `zypper install` on SLE Micro's read-only root.
    let r = explain(NFS_HELPER, "SUSE Linux Enterprise Micro 5.5");
    let cmds = commands(finding(&r, "nfs_client_missing"));
    assert!(
        cmds.iter()
            .any(|c| c == "sudo transactional-update pkg install -y nfs-client"),
        "{cmds:?}"
    );
    assert!(!cmds.iter().any(|c| c.contains("zypper")), "{cmds:?}");
    assert!(cmds.iter().any(|c| c.contains("reboot")), "{cmds:?}");
}

const RBD_MISSING: &str = "MountVolume.WaitForAttach failed for volume \"pvc-3\" : error: exec: \"rbd\": executable file not found in $PATH";

#[test]
fn ceph_common_is_not_offered_from_a_repository_that_lacks_it() {
    // Defect 5 (and 9): Rocky/RHEL 9 have no ceph-common; a missing `rbd` is ceph-common.
    for os in [
        "Rocky Linux 9.3 (Blue Onyx)",
        "Red Hat Enterprise Linux 9.4 (Plow)",
    ] {
        let r = explain(RBD_MISSING, os);
        let f = finding(&r, "fs_helper_missing");
        assert!(
            !commands(f)
                .iter()
                .any(|c| c.contains("dnf install -y ceph-common")),
            "{os}"
        );
        assert!(
            texts(f).contains("Ceph's own repository"),
            "{os}: {}",
            texts(f)
        );
    }
    let r = explain(RBD_MISSING, "Ubuntu 22.04.4 LTS");
    assert!(commands(finding(&r, "fs_helper_missing"))
        .iter()
        .any(|c| c == "sudo apt-get update && sudo apt-get install -y ceph-common"));
}

const STATD: &str = "MountVolume.SetUp failed for volume \"data\" : mount failed: exit status 32 Mounting command: mount Mounting arguments: -t nfs 10.0.0.5:/x /var/lib/kubelet/pods/1/volumes/kubernetes.io~nfs/data Output: mount.nfs: rpc.statd is not running but is required for remote locking. mount.nfs: Either use '-o nolock' to keep locks local, or start statd. mount.nfs: an incorrect mount option was specified";

#[test]
fn statd_is_started_the_way_each_init_system_does_it() {
    // Defects 6 and 7: systemctl on Alpine and Talos; `enable` of the static rpc-statd unit.
    let cmds = |os: &str| {
        let r = explain(STATD, os);
        commands(finding(&r, "nfs_statd_missing"))
    };
    let alpine = cmds("Alpine Linux v3.19");
    assert!(
        alpine
            .iter()
            .any(|c| c.contains("rc-service rpc.statd start")),
        "{alpine:?}"
    );
    assert!(
        !alpine.iter().any(|c| c.contains("systemctl")),
        "{alpine:?}"
    );
    let talos = cmds("Talos (v1.7.5)");
    assert!(
        !talos
            .iter()
            .any(|c| c.contains("systemctl") || c.contains("pgrep")),
        "{talos:?}"
    );
    let ubuntu = cmds("Ubuntu 22.04.4 LTS");
    assert!(
        ubuntu
            .iter()
            .any(|c| c == "sudo systemctl enable --now rpcbind && sudo systemctl start rpc-statd"),
        "{ubuntu:?}"
    );
    // Defect 17: mount.nfs's trailer line is not a second cause.
    let r = explain(STATD, "Ubuntu 22.04.4 LTS");
    assert!(
        !r["findings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["cause"] == "invalid_mount_option"),
        "{r:#}"
    );
}

#[test]
fn iscsi_messages_get_the_iscsi_initiator() {
    // Defect 8.
    let msg = "MountVolume.WaitForAttach failed for volume \"pv-iscsi\" : exec: \"iscsiadm\": executable file not found in $PATH";
    for (os, pkg) in [
        ("Ubuntu 22.04.4 LTS", "open-iscsi"),
        ("Rocky Linux 9.3 (Blue Onyx)", "iscsi-initiator-utils"),
    ] {
        let r = explain(msg, os);
        let f = finding(&r, "fs_helper_missing");
        assert!(
            commands(f).iter().any(|c| c.ends_with(pkg)),
            "{os}: {:?}",
            commands(f)
        );
    }
}

#[test]
fn no_placeholder_prose_reaches_a_helper_step() {
    // Defects 10 and 11: "(the filesystem here is the filesystem type)", `mkfs.the filesystem
    // type`, and `mkfs.cifs` for CIFS.
    let cifs = "MountVolume.SetUp failed for volume \"smb\" : mount failed: exit status 32 Mounting command: mount Mounting arguments: -t cifs //srv/share /var/lib/kubelet/pods/1/volumes/kubernetes.io~csi/smb/mount Output: mount: wrong fs type, bad option, bad superblock on //srv/share, missing codepage or helper program, or other error (for several filesystems (e.g. nfs, cifs) you might need a /sbin/mount.<type> helper program)";
    let r = explain(cifs, "Ubuntu 22.04.4 LTS");
    let f = &r["findings"][0];
    let all = texts(f);
    assert!(
        !all.contains("the filesystem type") && !all.contains("mkfs.cifs"),
        "{all}"
    );
    assert!(
        commands(f).iter().any(|c| c.ends_with("cifs-utils")),
        "{all}"
    );
}

#[test]
fn a_missing_rbd_module_is_the_kernel_not_a_lost_volume() {
    // Defect 12.
    let msg = "MountVolume.SetUp failed for volume \"pvc-0\" : rbd: map failed exit status 2 modprobe: FATAL: Module rbd not found in directory /lib/modules/4.10.0-28-generic rbd: failed to load rbd kernel module (1) rbd: sysfs write failed rbd: map failed: (2) No such file or directory";
    let r = explain(msg, "Ubuntu 22.04.4 LTS");
    assert_eq!(r["findings"][0]["cause"], "kernel_module_missing", "{r:#}");
    assert!(!texts(&r["findings"][0]).contains("restore it from a backup"));
    assert!(commands(&r["findings"][0])
        .iter()
        .any(|c| c.contains("modinfo -n rbd")));
}

#[test]
fn a_kubelet_dir_elsewhere_is_not_answered_by_creating_the_path() {
    // Defect 13: k0s/k3s/MicroK8s keep the kubelet's root elsewhere.
    let msg = "MountVolume.SetUp failed for volume \"registration-dir\" : hostPath type check failed: /var/lib/kubelet/plugins_registry/ is not a directory";
    let r = explain(msg, "Ubuntu 22.04.4 LTS");
    assert_eq!(
        r["findings"][0]["cause"], "kubelet_dir_or_propagation",
        "{r:#}"
    );
    assert!(!texts(&r["findings"][0]).contains("Create the path"));
}

#[test]
fn the_duplicate_uuid_fix_names_the_device_dmesg_named_and_replays_a_dirty_log_first() {
    // Defect 14.
    let msg = "MountVolume.MountDevice failed for volume \"pvc-4\" : mount failed: exit status 32 Output: mount: /var/lib/kubelet/plugins/x/globalmount: wrong fs type, bad option, bad superblock on /dev/rbd1.\n[ 7.1] XFS (rbd1): Filesystem has duplicate UUID 3d5e1a2b-0000-4c1d-9e0f-112233445566 - can't mount";
    let r = explain(msg, "Ubuntu 22.04.4 LTS");
    let f = finding(&r, "xfs_duplicate_uuid");
    let cmds = commands(f);
    let gen = cmds
        .iter()
        .find(|c| c.contains("xfs_admin -U generate"))
        .expect("a UUID step");
    assert!(
        gen.contains("/dev/rbd1") && !gen.contains(" device"),
        "{gen}"
    );
    assert!(
        gen.find("nouuid").unwrap() < gen.find("xfs_admin").unwrap(),
        "{gen}"
    );
}

#[test]
fn a_stale_handle_is_checked_before_anything_is_unmounted() {
    // Defect 15.
    let msg = "MountVolume.SetUp failed for volume \"nfs\" : mount failed: exit status 32 Mounting command: mount Mounting arguments: -t nfs 10.0.0.5:/exports /var/lib/kubelet/pods/1/volumes/kubernetes.io~nfs/nfs Output: mount.nfs: Stale file handle";
    let r = explain(msg, "Ubuntu 22.04.4 LTS");
    let f = finding(&r, "stale_file_handle");
    let confirm: Vec<String> = f["confirm"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|s| s["command"].as_str().map(str::to_string))
        .collect();
    assert!(
        confirm
            .iter()
            .any(|c| c.contains("findmnt -M") && c.contains("stat")),
        "{confirm:?}"
    );
    let umount = f["remediation"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["command"].as_str().is_some_and(|c| c.contains("umount")))
        .expect("umount step");
    assert_eq!(umount["needs_confirmation"], true);
    assert!(
        umount["text"].as_str().unwrap().contains("Only if"),
        "{umount}"
    );
}

#[test]
fn selinux_advice_is_persistent_names_the_path_and_stays_off_apparmor_nodes() {
    // Defect 16.
    let msg =
        "MountVolume.SetUp failed for volume \"data\" : mkdir /var/lib/app/data: permission denied";
    let rocky = explain(msg, "Rocky Linux 9.3 (Blue Onyx)");
    let f = finding(&rocky, "permission_denied_or_selinux");
    let cmds = commands(f);
    assert!(
        cmds.iter().any(|c| c
            .contains("semanage fcontext -a -t container_file_t '/var/lib/app/data(/.*)?'")
            && c.contains("restorecon -Rv /var/lib/app/data")),
        "{cmds:?}"
    );
    assert!(!texts(f).contains("[needs"), "{}", texts(f));
    assert!(!cmds
        .iter()
        .any(|c| c.starts_with("chcon") || c.contains(" chcon ")));
    let ubuntu = explain(msg, "Ubuntu 22.04.4 LTS");
    let f = finding(&ubuntu, "permission_denied_or_selinux");
    let cmds = commands(f);
    assert!(
        !cmds
            .iter()
            .any(|c| c.contains("semanage") || c.contains("getenforce")),
        "{cmds:?}"
    );
    assert!(texts(f).contains("AppArmor"));
}

#[test]
fn version_and_access_checks_never_mount_over_mnt() {
    // Defect 18.
    let msg = "mount.nfs: access denied by server while mounting 10.0.0.5:/exports/data";
    let r = explain(msg, "Ubuntu 22.04.4 LTS");
    let f = finding(&r, "nfs_access_denied");
    for c in commands(f) {
        assert!(!c.contains("/mnt"), "{c}");
        if c.contains("mount -t nfs") {
            assert!(
                c.contains("mktemp -d") && c.contains("-o ro,") && c.contains("timeout"),
                "{c}"
            );
        }
    }
}

#[test]
fn port_checks_work_with_the_nodes_own_tools() {
    // Defect 19: ncat (CentOS 7) has no -z.
    let msg = "MountVolume.WaitForAttach failed for volume \"pv\" : iscsiadm: cannot make connection to 10.0.0.9: connection refused; dial tcp 10.0.0.9:3260: i/o timeout";
    let r = explain(msg, "CentOS Linux 7 (Core)");
    let all: Vec<String> = r["findings"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(commands)
        .collect();
    assert!(
        all.iter()
            .all(|c| !c.contains("nc -vz") && !c.contains("nc -z")),
        "{all:?}"
    );
}

#[test]
fn a_device_without_a_by_id_name_still_gets_read_only_checks() {
    // Defect 20: Longhorn, RBD, DRBD and virtio disks have no /dev/disk/by-id name.
    let msg = "MountVolume.MountDevice failed for volume \"pvc-5\" : rpc error: code = Internal desc = mount failed: exit status 32 Mounting command: mount Mounting arguments: -t ext4 -o defaults /dev/drbd1000 /var/lib/kubelet/plugins/kubernetes.io/csi/linstor.csi.linbit.com/x/globalmount Output: mount: /var/lib/kubelet/plugins/kubernetes.io/csi/linstor.csi.linbit.com/x/globalmount: wrong fs type, bad option, bad superblock on /dev/drbd1000, missing codepage or helper program, or other error.";
    let r = explain(msg, "Ubuntu 22.04.4 LTS");
    let f = finding(&r, "block_fs_corrupt_or_unformatted");
    let cmds = commands(f);
    assert!(
        cmds.iter().any(|c| c.contains("blkid -p /dev/drbd1000")),
        "{cmds:?}"
    );
    assert!(
        cmds.iter()
            .any(|c| c.contains("findmnt --source /dev/drbd1000")),
        "{cmds:?}"
    );
}

#[test]
fn a_service_name_in_an_nfs_pv_is_answered_with_its_cluster_ip() {
    // Defect 21: the node's resolver never sees cluster DNS.
    let msg = "MountVolume.SetUp failed for volume \"pvc-6\" : mount failed: exit status 32 Mounting command: mount Mounting arguments: -t nfs nfs-pvc-6.openebs.svc.cluster.local:/ /var/lib/kubelet/pods/3e/volumes/kubernetes.io~nfs/pvc-6 Output: mount.nfs: Failed to resolve server nfs-pvc-6.openebs.svc.cluster.local: Name or service not known";
    let r = explain(msg, "Ubuntu 22.04.4 LTS");
    let f = &r["findings"][0];
    let cmds = commands(f);
    assert!(
        cmds.iter()
            .any(|c| c == "kubectl get svc nfs-pvc-6 -n openebs -o jsonpath='{.spec.clusterIP}'"),
        "{cmds:?}"
    );
    assert!(texts(f).contains("ClusterIP"));
}

#[test]
fn a_summary_line_counts_only_messages_that_say_it() {
    // Defect 22: "1 more message(s) say kubelet timed out" where none did.
    let msgs = "Warning  FailedMount  1m  kubelet  MountVolume.SetUp failed for volume \"nfs\" : mount failed: exit status 32 Mounting command: mount Mounting arguments: -t nfs 10.0.0.5:/e /var/lib/kubelet/pods/1/volumes/kubernetes.io~nfs/nfs Output: mount.nfs: access denied by server while mounting 10.0.0.5:/e\n";
    let r = explain(msgs, "Ubuntu 22.04.4 LTS");
    let s = serde_json::to_string(&r).unwrap();
    assert!(!s.contains("say kubelet timed out"), "{s}");
}
