//! The advice matrix: every cause's Confirm and Fix steps, and an install step of every client,
//! rendered for every node image volmnt knows (36 real osImage strings, and a node whose OS is
//! not known), with every name the steps can use known, with none known, for a managed file
//! service, and for a path on a read-only root; each step checked by rules a storage engineer
//! would apply (each rule is a function below, counted in the figures the test prints):
//! - a package command installs packages the OS's default repositories have, with the OS's own
//!   package manager (fixtures/os/packages.yaml, kept apart from the knowledge file); a package
//!   not verified there only after the package manager's own availability check;
//! - no systemctl or journalctl without systemd, no rc-service without OpenRC, no node command at
//!   all on an OS without a shell, no package command on an OS that installs nothing by command;
//! - no SELinux command on an OS without SELinux, no AppArmor command on one without AppArmor;
//! - no placeholder in a `$` line (no `{name}`, no "the path", no "[needs"), no empty host name,
//!   no "the filesystem type" in prose;
//! - a check only reads: no mount but read-only, bounded in time, on a fresh directory; no
//!   write, no service change, no package change;
//! - anything that can lose data is marked destructive and comes after a check and a backup;
//! - nothing enables a static unit (rpc-statd) and nothing blacklists every SCSI disk from
//!   multipath; rpc-statd, once started, also starts at the next boot;
//! - never `no_root_squash`, `setenforce 0`, `chmod 777`, SELinux or AppArmor disabled, a
//!   privileged pod;
//! - no unmount, lazy unmount or bind change of a pod's path unless a read-only step before it
//!   shows the pod gone from the node (`crictl pods`), and deleting the pod comes before it;
//! - every network or remote command bounded (`ssh -o ConnectTimeout=5 -o BatchMode=yes`,
//!   `timeout N`, `nc -w`);
//! - a kernel module name only from a module name's grammar;
//! - a managed file service (EFS, Azure Files, Filestore, FSx) never gets a Linux NFS server's
//!   commands (showmount, exportfs, rpcinfo);
//! - every step says who acts where, and what runs on the storage system is marked `storage`;
//! - nothing is written where the OS's root is read-only by design.
//!
//! Then one test per defect of the first advice audit, and one per kind of finding of the
//! second (issue 28), each on messages of that kind.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;
use volmnt::diagnose::catalogue::{catalogue, StepDef};
use volmnt::diagnose::os::OsProfile;
use volmnt::diagnose::steps::{fill, node_os, render_steps, StepCtx, Vars};
use volmnt::diagnose::{NodeOs, Options, Step, StepKind};
use volmnt::model::report::ActsAt;
use volmnt::model::Case;

use crate::util::run_stdin;

/// One node image of the matrix: its osImage (or PRETTY_NAME) as nodes report it, the OS volmnt
/// must take it for, and the key of its package list (None: it installs nothing by command).
struct Image {
    name: &'static str,
    os: &'static str,
    table: Option<&'static str>,
}

const fn img(name: &'static str, os: &'static str, table: Option<&'static str>) -> Image {
    Image { name, os, table }
}

/// The node images of both audits and of issue 28's research matrix (real osImage strings).
const IMAGES: &[Image] = &[
    img("Ubuntu 24.04.1 LTS", "ubuntu", Some("ubuntu")),
    img("Ubuntu 22.04.4 LTS", "ubuntu", Some("ubuntu")),
    img("Ubuntu 20.04.6 LTS", "ubuntu", Some("ubuntu")),
    img("Ubuntu Core 24", "ubuntu-core", None),
    img("Ubuntu Core 22", "ubuntu-core", None),
    img(
        "Debian GNU/Linux 12 (bookworm)",
        "debian",
        Some("debian-12"),
    ),
    img(
        "Debian GNU/Linux 11 (bullseye)",
        "debian",
        Some("debian-11"),
    ),
    img("Red Hat Enterprise Linux 9.4 (Plow)", "rhel-9", Some("el9")),
    img(
        "Red Hat Enterprise Linux 8.9 (Ootpa)",
        "rhel-8",
        Some("el8"),
    ),
    img("Rocky Linux 9.3 (Blue Onyx)", "el", Some("el9")),
    img("Rocky Linux 8.9 (Green Obsidian)", "rocky-8", Some("el8")),
    img("AlmaLinux 9.4 (Seafoam Ocelot)", "el", Some("el9")),
    img("Oracle Linux Server 9.4", "oraclelinux-9", Some("el9")),
    img("Oracle Linux Server 8.9", "oraclelinux-8", Some("el8")),
    img("CentOS Stream 9", "centos-stream-9", Some("el9")),
    img("CentOS Linux 7 (Core)", "centos-7", Some("el7")),
    img("Amazon Linux 2", "amazonlinux-2", Some("amzn2")),
    img(
        "Amazon Linux 2023.6.20241111",
        "amazonlinux-2023",
        Some("al2023"),
    ),
    img(
        "Microsoft Azure Linux 3.0",
        "azurelinux-3",
        Some("azurelinux"),
    ),
    img("CBL-Mariner/Linux", "azurelinux-2", Some("azurelinux")),
    img("VMware Photon OS/Linux", "photon", Some("photon")),
    img(
        "SUSE Linux Enterprise Server 15 SP5",
        "suse",
        Some("sles-15"),
    ),
    img("openSUSE Leap 15.5", "opensuse", Some("opensuse-15.5")),
    img(
        "SUSE Linux Enterprise Micro 5.5",
        "sle-micro",
        Some("sle-micro"),
    ),
    img("SUSE Linux Micro 6.0", "sle-micro", Some("sle-micro")),
    img(
        "openSUSE MicroOS",
        "opensuse-microos",
        Some("opensuse-microos"),
    ),
    img("Alpine Linux v3.19", "alpine", Some("alpine-3.19")),
    img("Gentoo Linux", "gentoo", Some("gentoo")),
    img("Arch Linux", "arch", Some("arch")),
    img("NixOS 24.05 (Uakari)", "nixos", None),
    img(
        "Flatcar Container Linux by Kinvolk 3815.2.5 (Oklo)",
        "flatcar",
        None,
    ),
    img("Fedora CoreOS 40.20240701.3.0", "fcos", Some("fcos")),
    img(
        "Red Hat Enterprise Linux CoreOS 415.92.202402201450-0 (Plow)",
        "rhcos",
        None,
    ),
    img(
        "Bottlerocket OS 1.20.3 (aws-k8s-1.29)",
        "bottlerocket",
        None,
    ),
    img("Talos (v1.7.6)", "talos", None),
    img("Container-Optimized OS from Google", "cos", None),
    img("k3OS v0.21.5-k3s2r1", "k3os", None),
];

const PACKAGES: &str = include_str!("../fixtures/os/packages.yaml");

#[derive(serde::Deserialize)]
struct Repo {
    packages: BTreeSet<String>,
    #[serde(default)]
    unverified: BTreeSet<String>,
}

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
            "/var/lib/kubelet/pods/1f2e3d4c-0000-4000-8000-00000000aaaa/volumes/kubernetes.io~nfs/data",
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
        ("pod_uid", "1f2e3d4c-0000-4000-8000-00000000aaaa"),
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
        ("rbd_features", "object-map fast-diff deep-flatten"),
        ("owner_vm", "aks-nodepool1-12345678-vmss_0"),
        (
            "azure_disk",
            "/subscriptions/0000/resourceGroups/rg/providers/Microsoft.Compute/disks/pvc-0cb70641",
        ),
        ("find_multipaths", "strict"),
        ("find_multipaths_strict", "true"),
        ("multipath_maps_empty", "true"),
        ("microk8s", "true"),
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

/// An NFS volume of a managed file service (Amazon EFS), every other name known.
fn managed_vars() -> Vars {
    let mut v = rich_vars();
    for (k, val) in [
        ("managed_fs", "Amazon EFS"),
        ("efs_id", "fs-0123456789abcdef0"),
        ("server", "fs-0123456789abcdef0.efs.us-east-1.amazonaws.com"),
        (
            "source",
            "fs-0123456789abcdef0.efs.us-east-1.amazonaws.com:/",
        ),
        ("export", "/"),
        ("driver", "efs.csi.aws.com"),
        ("client", "nfs"),
    ] {
        v.insert(k, val.to_string());
    }
    for k in ["image", "iscsi", "svc_name", "svc_namespace"] {
        v.remove(k);
    }
    v
}

/// A hostPath/local path outside every image-based OS's writable directories, with a device
/// multipathd holds as a path of one of its maps.
fn read_only_path_vars() -> Vars {
    let mut v = rich_vars();
    v.insert("path", "/data/app".into());
    v.insert("device", "/dev/sdc".into());
    v.insert("multipath_held", "mpatha".into());
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
            ["tdnf", "install", rest @ ..] => ("tdnf", rest),
            ["zypper", "install", rest @ ..] | ["zypper", "in", rest @ ..] => ("zypper", rest),
            ["apk", "add", rest @ ..] => ("apk", rest),
            ["pacman", "-Syu", rest @ ..] | ["pacman", "-S", rest @ ..] => ("pacman", rest),
            ["emerge", rest @ ..] if !rest.contains(&"--pretend") => ("portage", rest),
            ["transactional-update", "pkg", "install", rest @ ..] => ("transactional-update", rest),
            ["rpm-ostree", "install", rest @ ..] => ("rpm-ostree", rest),
            ["snap", "install", rest @ ..] => ("snap", rest),
            ["nix-env", rest @ ..] => ("nix-env", rest),
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

/// The availability check a package manager has (the command's first words).
fn availability_check(cmd: &str) -> bool {
    [
        "apt-cache policy",
        "dnf -q list --available",
        "yum -q list available",
        "tdnf list available",
        "zypper search -x",
        "apk search -x",
        "pacman -Si",
        "emerge --pretend",
    ]
    .iter()
    .any(|c| cmd.starts_with(c))
}

/// A command that can lose data: it must be a marked destructive step after a check and a
/// backup.
fn destroys_data(cmd: &str) -> bool {
    static RE: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(
            r"\bmkfs(\.\w+)?\s|\bwipefs\b|\bdd\s+if=|\bxfs_repair\b(?:[^|;&]*\s-L\b|\s+/)|\be2fsck\s+-f?[yp]|\bfsck\s+-y|\bsgdisk\s+--zap|\blvremove\b|\brbd\s+(rm|remove)\s|\brbd\s+lock\s+(rm|remove)\b|\bceph\s+osd\s+(blocklist|blacklist)\s+add\b|\bkubectl\s+delete\s+(volumeattachment|pv|pvc|persistentvolume)",
        )
        .unwrap()
    });
    RE.is_match(cmd)
}

/// What a read-only check may not do.
pub fn writes(cmd: &str) -> Option<&'static str> {
    let checks: &[(&str, &str)] = &[
        (
            r"\bsystemctl\s+(start|stop|restart|reload|enable|disable|mask|add-wants)\b",
            "changes a service",
        ),
        (
            r"\brc-(service\s+\S+\s+(start|stop|restart)|update\s+add)\b",
            "changes a service",
        ),
        (r"\bmodprobe\s+[a-z]", "loads a module"),
        (
            r"\b(apt-get|apt|dnf|yum|tdnf|zypper|apk|rpm-ostree|transactional-update|pacman|emerge)\s+(install\b|add\b|in\b|pkg\b|-S(yu)?\s|--ask)",
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
        (r"\bnixos-rebuild\b", "rebuilds the node"),
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

macro_rules! re {
    ($name:ident, $pat:expr) => {
        static $name: std::sync::LazyLock<regex::Regex> =
            std::sync::LazyLock::new(|| regex::Regex::new($pat).unwrap());
    };
}

re!(RE0, r"systemctl\s+enable\b[^;&|]*\brpc-statd\b");
re!(RE1, r"\bnc\s+-\w*z");
re!(RE2, r"\bjournalctl\b");
re!(RE3, r"\brc-(service|update)\b");
re!(DEVNODE_SD, r#"devnode\s+\\?"\^sd"#);
re!(
    PLACEHOLDER,
    r"\{[a-z_]+\}|\[needs|\bthe (path|device|filesystem type|pod's node|stuck pod|claim)\b|<[a-z][a-z -]*>"
);
re!(
    SELINUX_CMD,
    r"\b(semanage|chcon|restorecon|getenforce|ausearch|sestatus)\b"
);
re!(APPARMOR_CMD, r"\b(aa-status|apparmor_parser)\b");
// Issue 28's rules, written apart from volmnt's own safety gate so a bug there cannot hide here.
re!(
    WEAKENS,
    r"(?i)\bno_root_squash\b|\bno_all_squash\b|\bsetenforce\s+(0|permissive)\b|\bSELINUX=(disabled|permissive)\b|\bselinux=0\b|\benforcing=0\b|\bapparmor=0\b|\baa-(teardown|disable|complain)\b|systemctl\s+(stop|disable|mask)\s+apparmor|\b(disable|turn\s+off|switch\s+off)\s+(selinux|apparmor)\b|\b(selinux|apparmor)\s+off\b|\bchmod\s+(-R\s+)?(0?777|a\+rwx|ugo\+rwx|o\+w)\b|\bprivileged\b|--privileged"
);
re!(
    UNMOUNTS_POD,
    r"\bumount\b[^;&|]*?/pods/|\bmount\s+(?:--bind|--rbind|--move|--make-\S+|-o\s+\S*\bbind\b)[^;&|]*?/pods/"
);
re!(DELETES_POD, r"kubectl\s+(delete\s+pod|replace\s+--force)\b");
re!(
    NETWORK,
    r"(?:^|[;&|(]\s*|sudo\s+)(ssh|scp|showmount|rpcinfo|smbclient|curl|wget|ping|nc|ncat|telnet)\s|\boc\s+debug\s|/dev/tcp/|\bmount\s+-t\s+(nfs4?|cifs|smb3|ceph|glusterfs)\b|\biscsiadm\s+-m\s+(discovery|node)\b[^;&|]*(--login|-l\b|-t\s+st)|\bstat\s[^;&|]*/pods/"
);
re!(
    MODULE_USE,
    r"\b(?:modprobe|modinfo(?:\s+-\S+)*(?:\s+-F\s+\S+)?|insmod)\s+([^\s;&|]+)|echo\s+([^\s;&|]+)\s*\|\s*sudo\s+tee\s+(?:-a\s+)?/etc/modules"
);
re!(
    SERVER_SIDE_NFS,
    r"\b(showmount|exportfs|rpcinfo)\b|/etc/exports|nfs-server|nfs-kernel-server"
);
re!(
    EMPTY_HOST,
    r"node/\s|node/$|-n\s+(--|$)|//\s|//$|/dev/tcp//|\bssh(\s+-o\s+\S+)*\s+(rbd|sudo|$)|@\s|\s-e\s*(;|$)"
);
re!(STATD_START, r"systemctl\s+start\b[^;&|]*\brpc-statd\b");

/// English words a careless reader takes for a module name (`modprobe failed`).
const NOT_MODULES: &[&str] = &[
    "failed", "error", "fatal", "not", "could", "driver", "module", "modules", "the", "is", "was",
    "with", "for", "and", "args", "exit", "status", "returned", "command",
];

/// Whether a network or remote command is bounded in time.
fn bounded(part: &str) -> bool {
    let p = part.trim();
    if p.contains("ssh ") || p.starts_with("ssh") {
        return p.contains("-o ConnectTimeout=") && p.contains("-o BatchMode=yes");
    }
    p.contains("timeout ")
        || regex::Regex::new(r"\bnc\s+(-\w+\s+)*-w\s*\d")
            .unwrap()
            .is_match(p)
        || p.contains("--max-time")
        || regex::Regex::new(r"\bping\b.*-W\s*\d").unwrap().is_match(p)
}

/// The checks of one rendered step list, in order, for one OS (or none), adding what they
/// find to `problems` and counting each rule that was applied in `rules`.
#[allow(clippy::too_many_arguments)]
fn check_list(
    steps: &[Step],
    cause: &str,
    which: &str,
    vars_name: &str,
    image: Option<&str>,
    profile: Option<&OsProfile>,
    repo: Option<&Repo>,
    repos: &BTreeMap<String, Repo>,
    rules: &mut BTreeMap<&'static str, usize>,
    problems: &mut Vec<String>,
) {
    let mut rule = |r: &'static str| *rules.entry(r).or_default() += 1;
    let at = |s: &Step| {
        format!(
            "{} / {cause} {which} ({vars_name}): {:?}",
            image.unwrap_or("unknown OS"),
            s.command.as_deref().unwrap_or(&s.text)
        )
    };
    let mut checked = which == "fix"
        && catalogue()
            .cause(cause)
            .is_some_and(|c| !c.confirm.is_empty());
    let mut backed_up = false;
    let mut pod_gone_shown = false;
    let mut availability_checked = false;
    for (i, s) in steps.iter().enumerate() {
        match s.kind {
            StepKind::Check => checked = true,
            StepKind::Backup => backed_up = true,
            _ => {}
        }
        rule("security is never weakened");
        if let Some(m) = WEAKENS
            .find(&s.text)
            .or_else(|| s.command.as_deref().and_then(|c| WEAKENS.find(c)))
        {
            problems.push(format!("weakens security (`{}`): {}", m.as_str(), at(s)));
        }
        rule("no placeholder prose");
        if vars_name != "no names" && s.text.contains("the filesystem type") {
            problems.push(format!("a placeholder in the prose: {}", at(s)));
        }
        rule("every step says who acts where");
        if let Some(cmd) = s.command.as_deref() {
            let first = cmd
                .split_whitespace()
                .find(|w| *w != "sudo" && !w.contains('='))
                .unwrap_or("");
            let first = if first == "timeout" {
                cmd.split_whitespace().nth(2).unwrap_or("")
            } else {
                first
            };
            let storage_cli = ["rbd", "ceph", "aws", "az", "gcloud", "exportfs"].contains(&first)
                || cmd.contains("volmnt rbd ");
            if storage_cli && s.acts_at != ActsAt::Storage {
                problems.push(format!(
                    "acts on the storage system, not marked so: {}",
                    at(s)
                ));
            }
            if first == "kubectl" && !cmd.contains("rbd ") && s.acts_at != ActsAt::Cluster {
                problems.push(format!("a kubectl step not marked `cluster`: {}", at(s)));
            }
            if !storage_cli
                && [
                    "sudo",
                    "findmnt",
                    "lsblk",
                    "blkid",
                    "dmesg",
                    "journalctl",
                    "talosctl",
                ]
                .iter()
                .any(|w| cmd.starts_with(w))
                && s.acts_at != ActsAt::Node
            {
                problems.push(format!("a node command not marked `node`: {}", at(s)));
            }
        } else if (s.text.starts_with("On the server")
            || s.text.contains("on the Ceph side")
            || s.text.starts_with("On the target (the array)"))
            && s.acts_at != ActsAt::Storage
        {
            problems.push(format!("a storage-side step not marked so: {}", at(s)));
        }
        if shows_pod_gone(s) {
            pod_gone_shown = true;
        }
        let Some(cmd) = s.command.as_deref() else {
            continue;
        };
        if cmd.starts_with("apt-cache policy") || availability_check(cmd) {
            availability_checked = true;
        }
        rule("no placeholder in a command");
        if vars_name != "no names" && PLACEHOLDER.is_match(cmd) {
            problems.push(format!("placeholder in a command: {}", at(s)));
        }
        rule("no empty host name");
        if EMPTY_HOST.is_match(cmd) {
            problems.push(format!("an empty host name in a command: {}", at(s)));
        }
        rule("what can lose data is destructive, after a check and a backup");
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
        rule("a check only reads");
        if s.kind == StepKind::Check {
            if let Some(why) = writes(cmd) {
                problems.push(format!("a check that {why}: {}", at(s)));
            }
        }
        rule("no /mnt, no blacklist of every SCSI disk, no enabled static unit");
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
        rule("rpc-statd started now also starts at boot");
        // (An image-based OS keeps it with its own configuration: its text says how.)
        if STATD_START.is_match(cmd)
            && !cmd.contains("add-wants")
            && !s.text.contains("MachineConfig")
            && !s.text.contains("node image")
        {
            problems.push(format!(
                "starts rpc-statd for this boot only (a containerised kubelet cannot start it on demand): {}",
                at(s)
            ));
        }
        rule("a pod's path is unmounted only once the pod is gone, after its deletion");
        if UNMOUNTS_POD.is_match(cmd) {
            if !pod_gone_shown {
                problems.push(format!(
                    "unmounts a pod's path with no read-only step before it showing the pod gone from the node: {}",
                    at(s)
                ));
            }
            if steps[i + 1..]
                .iter()
                .filter_map(|l| l.command.as_deref())
                .any(|c| DELETES_POD.is_match(c))
            {
                problems.push(format!(
                    "deletes the pod after unmounting its path: {}",
                    at(s)
                ));
            }
        }
        rule("every network or remote command is bounded");
        for part in cmd.split(['&', ';', '|']) {
            if NETWORK.is_match(part) && !bounded(part) {
                problems.push(format!(
                    "an unbounded network command `{}`: {}",
                    part.trim(),
                    at(s)
                ));
            }
        }
        rule("a module name only from a module name's grammar");
        for c in MODULE_USE.captures_iter(cmd) {
            let m = c.get(1).or(c.get(2)).unwrap().as_str();
            let ok = (m.starts_with('{') && vars_name == "no names")
                || (m.chars().all(|ch| {
                    ch.is_ascii_lowercase() || ch.is_ascii_digit() || ch == '_' || ch == '-'
                }) && !NOT_MODULES.contains(&m));
            if !ok {
                problems.push(format!("`{m}` is not a kernel module name: {}", at(s)));
            }
        }
        rule("a managed file service gets no NFS server commands");
        if vars_name == "managed NFS" && SERVER_SIDE_NFS.is_match(cmd) {
            problems.push(format!(
                "a Linux NFS server's command for a managed file service: {}",
                at(s)
            ));
        }
        rule("nc -z only where every nc has it");
        if RE1.is_match(cmd) && profile.is_some_and(|p| p.family != "alpine") {
            problems.push(format!(
                "nc -z is not in every nc (ncat has none): {}",
                at(s)
            ));
        }
        let Some(p) = profile else {
            rule("an unknown OS's alternatives say their family");
            // Unknown OS: alternatives must say which family they are for.
            if let Some((_, pkgs)) = package_command(cmd) {
                let fam = s.os_family.as_deref().unwrap_or("?");
                let known: BTreeSet<String> = repos
                    .iter()
                    .filter(|(k, _)| match fam {
                        "debian" => k.starts_with("debian") || k.starts_with("ubuntu"),
                        "rhel" => {
                            k.starts_with("el")
                                || k.starts_with("amzn")
                                || k.starts_with("al2")
                                || k.starts_with("azurelinux")
                        }
                        "suse" => k.starts_with("sles") || k.starts_with("opensuse"),
                        "alpine" => k.starts_with("alpine"),
                        _ => false,
                    })
                    .flat_map(|(_, v)| v.packages.iter().cloned())
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
        rule("no shell command where there is no shell");
        if p.shell == "talosctl" && on_node {
            problems.push(format!(
                "a shell command on an OS without a shell: {}",
                at(s)
            ));
        }
        rule("init commands fit the init system");
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
        rule("security commands fit the security module");
        if p.security != "selinux" && SELINUX_CMD.is_match(cmd) {
            problems.push(format!(
                "SELinux command on {} ({}): {}",
                p.name,
                p.security,
                at(s)
            ));
        }
        if p.security != "apparmor" && APPARMOR_CMD.is_match(cmd) {
            problems.push(format!(
                "AppArmor command on {} ({}): {}",
                p.name,
                p.security,
                at(s)
            ));
        }
        rule("no service command for a service the OS has not");
        for svc in ["rpc-statd", "rpc.statd", "iscsid", "multipathd", "rpcbind"] {
            let logical = match svc {
                "rpc-statd" | "rpc.statd" => "statd",
                other => other,
            };
            if (cmd.contains(&format!("systemctl start {svc}"))
                || cmd.contains(&format!("rc-service {svc}")))
                && !p.has_service(logical)
            {
                problems.push(format!("{svc} on {}, which has none: {}", p.name, at(s)));
            }
        }
        rule("nothing written where the root is read-only by design");
        if on_node {
            for w in volmnt::diagnose::os_steps::paths_written(cmd) {
                if !p.writable_path(&w) {
                    problems.push(format!(
                        "writes {w}, read-only by design on {}: {}",
                        p.name,
                        at(s)
                    ));
                }
            }
        }
        rule("packages from the OS's own manager and default repositories");
        if let Some((mgr, pkgs)) = package_command(cmd) {
            if p.manager.as_deref() != Some(mgr) {
                problems.push(format!(
                    "package manager {mgr} on {} (which has {:?}): {}",
                    p.name,
                    p.manager,
                    at(s)
                ));
            }
            for pkg in pkgs {
                let verified = repo.is_some_and(|r| r.packages.contains(&pkg));
                let checked_first =
                    repo.is_some_and(|r| r.unverified.contains(&pkg)) && availability_checked;
                if !verified && !checked_first {
                    problems.push(format!(
                        "package {pkg} is not in {}'s default repositories (nor checked there first): {}",
                        p.name,
                        at(s)
                    ));
                }
            }
        }
    }
}

/// A read-only step that shows the pod gone from the node.
fn shows_pod_gone(s: &Step) -> bool {
    s.kind == StepKind::Check
        && s.command
            .as_deref()
            .is_some_and(|c| c.contains("crictl pods"))
}

#[test]
fn every_step_for_every_os_follows_the_rules() {
    let repos: BTreeMap<String, Repo> =
        serde_yaml::from_str(PACKAGES).expect("packages.yaml parses");
    let mut problems: Vec<String> = Vec::new();
    let mut rules: BTreeMap<&'static str, usize> = BTreeMap::new();
    let mut steps_checked = 0usize;
    let mut lists = 0usize;
    let images: Vec<Option<&Image>> = IMAGES.iter().map(Some).chain([None]).collect();
    let cat = catalogue();
    for image in &images {
        let os = os_for(image.map(|i| i.name));
        let profile = os.os.as_deref().and_then(|o| cat.os.profile(o));
        if let Some(i) = image {
            assert_eq!(
                os.os.as_deref(),
                Some(i.os),
                "{} is taken for the OS it is",
                i.name
            );
        }
        let repo = image.and_then(|i| i.table).map(|t| &repos[t]);
        for (vars_name, vars) in [
            ("all names", rich_vars()),
            ("no names", poor_vars()),
            ("managed NFS", managed_vars()),
            ("read-only path", read_only_path_vars()),
        ] {
            for (cause, which, steps) in rendered(&os, &vars) {
                lists += 1;
                steps_checked += steps.len();
                check_list(
                    &steps,
                    &cause,
                    which,
                    vars_name,
                    image.map(|i| i.name),
                    profile,
                    repo,
                    &repos,
                    &mut rules,
                    &mut problems,
                );
            }
        }
    }
    // No explanation reads a missing name as a placeholder.
    for c in &cat.causes {
        let text = fill(
            volmnt::diagnose::steps::explain_for(c, &poor_vars()),
            &poor_vars(),
        );
        if text.contains("the filesystem type") {
            problems.push(format!(
                "{}: a placeholder in the explanation: {text}",
                c.id
            ));
        }
    }
    eprintln!(
        "advice matrix: {} node images + an unknown OS × {} causes and {} clients × 4 name sets: {lists} step lists, {steps_checked} steps checked against {} rules ({} rule applications)",
        IMAGES.len(),
        cat.causes.len(),
        cat.os.clients.len(),
        rules.len(),
        rules.values().sum::<usize>()
    );
    for (r, n) in &rules {
        eprintln!("  {n:>8}  {r}");
    }
    assert!(IMAGES.len() >= 30);
    assert!(
        problems.is_empty(),
        "{} problem(s):\n{}",
        problems.len(),
        problems.join("\n")
    );
}

/// An osImage no entry knows stays generic, and the report says so.
#[test]
fn an_unknown_node_image_stays_generic_and_says_so() {
    for image in ["Plan 9 from Bell Labs", "MyCorp Linux 3.1 (custom)"] {
        let os = os_for(Some(image));
        assert_eq!(os.family, "unknown", "{image}");
        assert_eq!(os.os, None, "{image}");
        let r = explain(NFS_HELPER, image);
        let f = finding(&r, "nfs_client_missing");
        let all = texts(f);
        assert!(
            all.contains("OS are not known") || all.contains("OS is not known"),
            "{all}"
        );
        // Each alternative is said to be for its family, never the one command.
        let fix = f["remediation"].as_array().unwrap();
        assert!(
            fix.iter()
                .filter(|s| s["command"]
                    .as_str()
                    .is_some_and(|c| package_command(c).is_some()))
                .all(|s| s["os_family"].is_string()),
            "{fix:#?}"
        );
    }
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
    for os in IMAGES.iter().map(|i| i.name) {
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
    // Issue 28: statd also starts at the next boot (a containerised kubelet cannot start it on
    // demand), through the boot target, since the static unit cannot be enabled.
    let ubuntu = cmds("Ubuntu 22.04.4 LTS");
    assert!(
        ubuntu.iter().any(|c| c
            == "sudo systemctl enable --now rpcbind && sudo systemctl add-wants multi-user.target rpc-statd.service && sudo systemctl start rpc-statd"),
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
    // Defect 15. (The pod's directory carries its UID, as kubelet names it: since issue 28 the
    // unmount is offered only with a check that the pod named there is gone from the node.)
    let msg = "MountVolume.SetUp failed for volume \"nfs\" : mount failed: exit status 32 Mounting command: mount Mounting arguments: -t nfs 10.0.0.5:/exports /var/lib/kubelet/pods/5d1c9a3e-2b7f-4c1d-9e0f-8a7b6c5d4e3f/volumes/kubernetes.io~nfs/nfs Output: mount.nfs: Stale file handle";
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
