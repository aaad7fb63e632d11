//! `volmnt node check`: from a node's probe facts, which volume types it can mount (and why
//! not), what to install for that OS, and what is wrong in its mount table. Pure, except
//! [`check_nfs_servers`], which the user asks for explicitly (TCP connects with a time limit).

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::net::{SocketAddr, TcpStream, ToSocketAddrs};
use std::sync::mpsc;
use std::time::Duration;

use super::catalogue::catalogue;
use super::os::OsProfile;
use super::steps::os_family;
use crate::model::{ModuleState, MountEntry, NodeFacts, Propagation};
use crate::parse::mountinfo::is_under;

pub use crate::model::node::*;

/// Quote a value for a POSIX shell (single quotes) when it needs it.
pub fn shell_quote(s: &str) -> String {
    if !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-+:=@%,~".contains(c))
    {
        return s.to_string();
    }
    format!("'{}'", s.replace('\'', r"'\''"))
}

// --- OS and install commands ------------------------------------------------------------------

/// The OS family of the probed node (from os-release).
pub fn family_of(facts: &NodeFacts) -> &'static str {
    let os = &facts.os;
    let by_pretty = os
        .pretty_name
        .as_deref()
        .or(os.name.as_deref())
        .map(os_family)
        .unwrap_or("unknown");
    if by_pretty != "unknown" {
        return by_pretty;
    }
    // ID first (exact family ids like `alpine`), then ID_LIKE (`rhel fedora`).
    for s in [os.id.as_deref(), os.id_like.as_deref()]
        .into_iter()
        .flatten()
    {
        for word in std::iter::once(s).chain(s.split_whitespace()) {
            let f = os_family(word);
            if f != "unknown" {
                return f;
            }
        }
    }
    "unknown"
}

fn os_label(facts: &NodeFacts) -> String {
    let os = &facts.os;
    os.pretty_name
        .clone()
        .or_else(|| os.name.clone())
        .or_else(|| os.id.clone())
        .unwrap_or_else(|| "an unknown OS".into())
}

/// The OS profile of the probed node (from os-release: PRETTY_NAME, NAME, ID, then ID_LIKE).
pub fn profile_of(facts: &NodeFacts) -> Option<&'static OsProfile> {
    let os = &facts.os;
    let cat = catalogue();
    [os.pretty_name.as_deref(), os.name.as_deref()]
        .into_iter()
        .flatten()
        .find_map(|s| cat.os.profile(s))
        .or_else(|| {
            [os.id.as_deref(), os.id_like.as_deref()]
                .into_iter()
                .flatten()
                .flat_map(|s| std::iter::once(s).chain(s.split_whitespace()))
                .find_map(|w| cat.os.profile(w))
        })
}

/// How to install `client` on this node.
pub fn install_for(client: &str, facts: &NodeFacts) -> Option<Install> {
    let cat = catalogue();
    let def = cat.os.clients.get(client)?;
    let mut inst = Install {
        client: client.to_string(),
        client_name: def.name.clone(),
        package: None,
        command: None,
        advice: None,
    };
    let Some(p) = profile_of(facts) else {
        let per: Vec<String> = cat
            .os
            .families
            .values()
            .filter_map(|f| {
                Some(format!(
                    "{}: {}",
                    f.family,
                    f.packages.get(client)?.as_ref()?
                ))
            })
            .collect();
        inst.advice = Some(format!(
            "the node's OS is not known (no usable /etc/os-release); the package is {}",
            per.join(", ")
        ));
        return Some(inst);
    };
    let on = os_label(facts);
    if p.ships(client) {
        inst.advice = Some(format!(
            "{on} ships the {} in its image: it is not missing from the OS; look at what runs the mount (a containerized kubelet, a CSI node plugin)",
            def.name
        ));
        return Some(inst);
    }
    let Some(manager) = p.manager.as_deref() else {
        inst.advice = Some(match p.extensions.get(client) {
            Some(ext) => format!("{on} is image-based: add {ext}"),
            None => format!(
                "{on} is image-based: packages cannot be installed by hand; use a node image that has the {}, or a CSI driver whose node plugin brings its own client",
                def.name
            ),
        });
        return Some(inst);
    };
    match p.packages.get(client).cloned().flatten() {
        Some(pkg) => {
            inst.command = cat.os.install_command(manager, &pkg);
            if cat.os.managers.get(manager).is_some_and(|m| m.reboot) {
                inst.advice = Some(format!(
                    "{on} installs into a new snapshot: reboot the node (drained first) to use it"
                ));
            }
            inst.package = Some(pkg);
        }
        None => {
            inst.advice = Some(p.repo_notes.get(client).cloned().unwrap_or_else(|| {
                format!("{on} has no package for it in its default repositories")
            }));
        }
    }
    Some(inst)
}

// --- capabilities -------------------------------------------------------------------------------

/// Kernel support for a filesystem or driver.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Kernel {
    Yes(String),
    No(String),
    Unknown,
}

fn kernel_support(facts: &NodeFacts, fs: Option<&str>, module: &str) -> Kernel {
    if let Some(fs) = fs {
        if facts.filesystems.iter().any(|f| f == fs) {
            return Kernel::Yes(format!("{fs} in /proc/filesystems"));
        }
    }
    match facts.modules.get(module) {
        Some(ModuleState::Missing) => {
            return Kernel::No(format!("kernel module {module}"));
        }
        Some(s) => {
            let s = match s {
                ModuleState::Loaded => "loaded",
                ModuleState::Builtin => "built in",
                _ => "available",
            };
            return Kernel::Yes(format!("module {module} {s}"));
        }
        None => {}
    }
    if facts.modules_loadable == Some(false) && !facts.filesystems.is_empty() {
        return Kernel::No(format!(
            "kernel support for {} (not in /proc/filesystems, and this kernel cannot load modules)",
            fs.unwrap_or(module)
        ));
    }
    Kernel::Unknown
}

fn find<'a>(facts: &'a NodeFacts, name: &str) -> Option<&'a String> {
    facts.helpers.get(name).or_else(|| facts.tools.get(name))
}

/// One way to mount a type: programs (all needed; `a|b` = either) and kernel support.
struct Way {
    programs: &'static [&'static str],
    fs: Option<&'static str>,
    module: &'static str,
}

fn ways(v: VolumeType) -> &'static [Way] {
    match v {
        VolumeType::Nfs => &[Way {
            programs: &["mount.nfs"],
            fs: Some("nfs"),
            module: "nfs",
        }],
        VolumeType::Nfs4 => &[Way {
            programs: &["mount.nfs4"],
            fs: Some("nfs4"),
            module: "nfsv4",
        }],
        VolumeType::Cifs => &[Way {
            programs: &["mount.cifs"],
            fs: Some("cifs"),
            module: "cifs",
        }],
        VolumeType::Glusterfs => &[Way {
            programs: &["mount.glusterfs"],
            fs: Some("fuse"),
            module: "fuse",
        }],
        VolumeType::Cephfs => &[
            Way {
                programs: &["mount.ceph"],
                fs: Some("ceph"),
                module: "ceph",
            },
            Way {
                programs: &["ceph-fuse"],
                fs: Some("fuse"),
                module: "fuse",
            },
        ],
        VolumeType::Rbd => &[
            Way {
                programs: &["rbd"],
                fs: None,
                module: "rbd",
            },
            Way {
                programs: &["rbd-nbd"],
                fs: None,
                module: "nbd",
            },
        ],
        VolumeType::Iscsi => &[Way {
            programs: &["iscsiadm"],
            fs: None,
            module: "iscsi_tcp",
        }],
        VolumeType::Xfs => &[Way {
            programs: &["mkfs.xfs", "xfs_repair|fsck.xfs"],
            fs: Some("xfs"),
            module: "xfs",
        }],
        VolumeType::Ext4 => &[Way {
            programs: &["mkfs.ext4", "fsck.ext4|e2fsck"],
            fs: Some("ext4"),
            module: "ext4",
        }],
    }
}

/// One way's verdict: programs found, programs missing, kernel.
fn judge_way(facts: &NodeFacts, w: &Way) -> (BTreeMap<String, String>, Vec<String>, Kernel) {
    let mut found = BTreeMap::new();
    let mut missing = Vec::new();
    for p in w.programs {
        let hit = p
            .split('|')
            .find_map(|alt| find(facts, alt).map(|path| (alt, path)));
        match hit {
            Some((name, path)) => {
                found.insert(name.to_string(), path.clone());
            }
            None => missing.push(p.replace('|', " or ")),
        }
    }
    (found, missing, kernel_support(facts, w.fs, w.module))
}

fn capability(facts: &NodeFacts, v: VolumeType) -> Capability {
    let judged: Vec<_> = ways(v).iter().map(|w| judge_way(facts, w)).collect();
    // The best way: userspace complete and kernel not known missing, then userspace complete.
    let pick = judged
        .iter()
        .position(|(_, m, k)| m.is_empty() && !matches!(k, Kernel::No(_)))
        .or_else(|| judged.iter().position(|(_, m, _)| m.is_empty()))
        .unwrap_or(0);
    let (found, missing_progs, kernel) = judged[pick].clone();
    let mut missing = missing_progs.clone();
    if let Kernel::No(what) = &kernel {
        missing.push(what.clone());
    }
    let ok = missing.is_empty();
    let kernel_unknown = matches!(kernel, Kernel::Unknown);
    let found_text = found
        .iter()
        .map(|(n, p)| format!("{n} at {p}"))
        .collect::<Vec<_>>()
        .join(", ");
    let reason = if ok {
        let k = match &kernel {
            Kernel::Yes(s) => format!("; {s}"),
            _ => "; kernel support not known".into(),
        };
        format!("{found_text}{k}")
    } else {
        let alt = if judged.len() > 1 {
            let others: Vec<String> = ways(v)
                .iter()
                .enumerate()
                .filter(|(i, _)| *i != pick)
                .map(|(_, w)| w.programs.join(" + "))
                .collect();
            format!(" (nor the alternative: {})", others.join(", "))
        } else {
            String::new()
        };
        format!("missing {}{alt}", missing.join(", "))
    };
    let mut notes = Vec::new();
    if matches!(v, VolumeType::Nfs) && ok && facts.rpc_statd_running == Some(false) {
        notes.push(
            "rpc.statd is not running: NFSv3 mounts without `nolock` need it for locking \
             (mount.nfs starts it through start-statd where systemd allows)"
                .into(),
        );
    }
    if matches!(v, VolumeType::Nfs | VolumeType::Nfs4) && ok && kernel_unknown && !facts.live {
        notes.push("kernel support not checked: the tree has no module list for its kernel".into());
    }
    let install = if missing_progs.is_empty() {
        None
    } else {
        install_for(v.client(), facts)
    };
    // Why not, by kind: a helper (a package installs it) is not a kernel problem.
    let mut why_not = Vec::new();
    if !missing_progs.is_empty() {
        why_not.push(format!("helper missing: {}", missing_progs.join(", ")));
    }
    match &kernel {
        Kernel::No(what) if what.contains("cannot load modules") => why_not.push(format!(
            "not in the kernel, and modules cannot be loaded ({what})"
        )),
        Kernel::No(what) => why_not.push(format!("not in the kernel: {what}")),
        _ => {}
    }
    let (kernel_missing, modules_locked) = match &kernel {
        Kernel::No(what) => (Some(what.clone()), what.contains("cannot load modules")),
        _ => (None, false),
    };
    Capability {
        volume: v,
        ok,
        reason,
        found,
        missing,
        kernel_unknown,
        why_not,
        notes,
        install,
        kernel_missing,
        modules_locked,
    }
}

/// What to do first about a capability the node lacks, by what it lacks: the kernel first
/// (no package of the helper brings a filesystem into a kernel), then the helper's install.
fn fix_for(c: &Capability, facts: &NodeFacts) -> Option<String> {
    let install = c
        .install
        .as_ref()
        .and_then(|i| match (&i.package, &i.command) {
            (Some(p), Some(cmd)) => Some(format!("install {p}: {cmd}")),
            _ => i.advice.clone().map(|a| format!("{}: {a}", i.client_name)),
        });
    let kernel = facts
        .kernel
        .as_deref()
        .map(|k| format!("its kernel {k}"))
        .unwrap_or_else(|| "its kernel".into());
    match (&c.kernel_missing, install) {
        (Some(what), install) => {
            let first = if c.modules_locked {
                format!(
                    "{kernel} has no {} support (not in /proc/filesystems) and cannot load modules: boot the node on a kernel (or node image) built with it",
                    c.volume
                )
            } else {
                format!(
                    "{kernel} has no {} support ({what}): install the kernel's extra modules package for it, or boot a kernel that has it",
                    c.volume
                )
            };
            Some(match install {
                Some(i) => format!(
                    "{first}; then {i} (the package alone cannot mount {})",
                    c.volume
                ),
                None => first,
            })
        }
        (None, Some(i)) => Some(i),
        (None, None) => None,
    }
}

// --- mount table --------------------------------------------------------------------------------

/// The pod UID of a kubelet per-pod mount (`<root>/pods/<uid>/volumes/...` or
/// `.../volume-subpaths/...`), when it is one.
pub fn pod_uid_of<'a>(mount_point: &'a str, kubelet_root: &str) -> Option<&'a str> {
    let rest = mount_point.strip_prefix(kubelet_root.trim_end_matches('/'))?;
    let rest = rest.strip_prefix("/pods/")?;
    let (uid, tail) = rest.split_once('/')?;
    (tail.starts_with("volumes/") || tail.starts_with("volume-subpaths/")).then_some(uid)
}

fn orphans(
    facts: &NodeFacts,
    kroot: &str,
    pods_on_node: Option<&[String]>,
) -> (OrphanBasis, Vec<MountIssue>) {
    let (basis, known): (OrphanBasis, BTreeSet<&str>) = match (pods_on_node, &facts.pod_uids) {
        (Some(api), _) => (OrphanBasis::Api, api.iter().map(String::as_str).collect()),
        (None, Some(dirs)) => (
            OrphanBasis::PodDirectories,
            dirs.iter().map(String::as_str).collect(),
        ),
        (None, None) => return (OrphanBasis::None, Vec::new()),
    };
    let mut out = Vec::new();
    for m in &facts.mounts {
        let Some(uid) = pod_uid_of(&m.mount_point, kroot) else {
            continue;
        };
        if known.contains(uid) {
            continue;
        }
        let why = match basis {
            OrphanBasis::Api => "the API lists no pod with this UID on the node",
            _ => "its pod directory is no longer there",
        };
        let net = crate::parse::mountinfo::is_network_fs(&m.fstype);
        let fix = if net {
            format!("sudo umount -f -l {}", shell_quote(&m.mount_point))
        } else {
            format!("sudo umount {}", shell_quote(&m.mount_point))
        };
        out.push(MountIssue {
            kind: IssueKind::OrphanedMount,
            severity: Severity::Error,
            detail: format!(
                "{} mount of {} for pod {uid} is orphaned: {why}{}",
                m.fstype,
                m.source,
                if net {
                    "; kubelet keeps retrying to clean it up, and a dead server makes it hang"
                } else {
                    ""
                }
            ),
            mount_point: Some(m.mount_point.clone()),
            source: Some(m.source.clone()),
            fstype: Some(m.fstype.clone()),
            pod_uid: Some(uid.to_string()),
            fix: Some(fix),
        });
    }
    (basis, out)
}

/// Mounts stacked twice under the kubelet root (volume mounts). Elsewhere (containers stack
/// /dev/pts and /dev/shm routinely) they say nothing about volumes.
fn duplicates(facts: &NodeFacts, kroot: &str) -> Vec<MountIssue> {
    let mut seen: HashMap<(&str, &str), usize> = HashMap::new();
    let mut order = Vec::new();
    for m in &facts.mounts {
        if m.fstype == "autofs" || !is_under(&m.mount_point, kroot) {
            continue;
        }
        let key = (m.source.as_str(), m.mount_point.as_str());
        let n = seen.entry(key).or_insert(0);
        *n += 1;
        if *n == 2 {
            order.push((key, m));
        }
    }
    order
        .into_iter()
        .map(|(key, m)| MountIssue {
            kind: IssueKind::DuplicateMount,
            severity: Severity::Warning,
            detail: format!(
                "{} is mounted {} times on {} ({}): stacked mounts hide each other and \
                 make unmounting by kubelet fail or leave one behind",
                m.source, seen[&key], m.mount_point, m.fstype
            ),
            mount_point: Some(m.mount_point.clone()),
            source: Some(m.source.clone()),
            fstype: Some(m.fstype.clone()),
            pod_uid: None,
            fix: Some(format!("sudo umount {}", shell_quote(&m.mount_point))),
        })
        .collect()
}

/// The mount is read-only at the superblock (mountinfo), or at all (`mount` output).
fn read_only(m: &MountEntry) -> bool {
    if m.id.is_some() {
        m.super_options.iter().any(|o| o == "ro")
    } else {
        m.options.iter().any(|o| o == "ro")
    }
}

fn read_only_remounts(facts: &NodeFacts, kroot: &str) -> Vec<MountIssue> {
    const RW_FS: &[&str] = &["ext2", "ext3", "ext4", "xfs", "btrfs"];
    facts
        .mounts
        .iter()
        .filter(|m| RW_FS.contains(&m.fstype.as_str()) && read_only(m))
        .filter(|m| {
            let mp = m.mount_point.as_str();
            matches!(mp, "/" | "/var" | "/var/lib")
                || is_under(kroot, mp)
                || (is_under(mp, kroot) && pod_uid_of(mp, kroot).is_none())
        })
        .map(|m| MountIssue {
            kind: IssueKind::ReadOnlyRemount,
            severity: Severity::Error,
            detail: format!(
                "{} ({} on {}) is read-only: a filesystem kubelet writes to, most likely \
                 remounted read-only after I/O errors (errors=remount-ro)",
                m.mount_point, m.fstype, m.source
            ),
            mount_point: Some(m.mount_point.clone()),
            source: Some(m.source.clone()),
            fstype: Some(m.fstype.clone()),
            pod_uid: None,
            fix: Some("sudo dmesg | grep -iE 'remount|I/O error|EXT4-fs error|XFS'".into()),
        })
        .collect()
}

fn propagation_issue(facts: &NodeFacts, kroot: &str) -> Option<MountIssue> {
    let p = facts.kubelet_root_propagation?;
    if p == Propagation::Shared {
        return None;
    }
    let mp = facts
        .kubelet_root_mount
        .clone()
        .unwrap_or_else(|| "/".into());
    let what = match p {
        Propagation::Slave => "slave (receives mounts but does not share them)",
        Propagation::Unbindable => "unbindable",
        _ => "private",
    };
    // Where the probe saw that kubelet does not run, this is a machine that is not (yet) a
    // node: worth saying, not an error of a node.
    let no_kubelet = facts.live && facts.kubelet_running == Some(false);
    Some(MountIssue {
        kind: IssueKind::KubeletRootNotShared,
        severity: if no_kubelet {
            Severity::Warning
        } else {
            Severity::Error
        },
        detail: format!(
            "the kubelet root dir {kroot} is on mount {mp}, whose propagation is {what}: \
             volumes that CSI node plugins or containerized kubelets mount there are not seen by \
             pods (mountPropagation Bidirectional/HostToContainer needs shared){}",
            if no_kubelet {
                "; kubelet does not run here, so this matters only once it does"
            } else {
                ""
            }
        ),
        mount_point: Some(mp.clone()),
        source: None,
        fstype: None,
        pod_uid: None,
        fix: Some(format!("sudo mount --make-rshared {}", shell_quote(&mp))),
    })
}

/// Judge one node's facts. `pods_on_node`: the pod UIDs the API says run on the node, when it
/// was reachable (orphans are then judged against it, else against the pod directories).
pub fn analyze(
    facts: &NodeFacts,
    require: &[Requirement],
    pods_on_node: Option<&[String]>,
) -> NodeReport {
    let family = family_of(facts);
    let capabilities: Vec<Capability> = VolumeType::ALL
        .iter()
        .map(|v| capability(facts, *v))
        .collect();
    let cap = |v: VolumeType| {
        capabilities
            .iter()
            .find(|c| c.volume == v)
            .expect("every type has a row")
    };

    let requirements = require
        .iter()
        .map(|r| {
            let c = cap(r.volume_type());
            let os = os_label(facts);
            let detail = if c.ok {
                format!("{} volumes can be mounted: {}", r, c.reason)
            } else {
                let mut d = format!("{} volumes cannot be mounted on {os}: {}", r, c.reason);
                match (&c.install, fix_for(c, facts)) {
                    // The helper alone: its package, named with the client it brings.
                    (Some(i), Some(_)) if c.kernel_missing.is_none() => {
                        match (&i.package, &i.command) {
                            (Some(p), Some(cmd)) => {
                                d.push_str(&format!("; install {p} ({}): {cmd}", i.client_name))
                            }
                            _ => {
                                if let Some(a) = &i.advice {
                                    d.push_str(&format!("; {}: {a}", i.client_name));
                                }
                            }
                        }
                    }
                    (_, Some(fix)) => d.push_str(&format!("; {fix}")),
                    (_, None) if !c.missing.is_empty() => d.push_str(
                        "; the kernel lacks it: use a kernel (or kernel modules package) that has it",
                    ),
                    _ => {}
                }
                d
            };
            RequirementResult {
                requirement: *r,
                ok: c.ok,
                detail,
                install: if c.ok { None } else { c.install.clone() },
                fix: if c.ok { None } else { fix_for(c, facts) },
            }
        })
        .collect();

    let mut missing_packages: Vec<MissingPackage> = Vec::new();
    for c in capabilities.iter().filter(|c| !c.ok) {
        let Some(i) = &c.install else { continue };
        // One entry per package (ceph-common serves cephfs and rbd), per client when the
        // package is not known.
        let same = |m: &&mut MissingPackage| match (&m.install.package, &i.package) {
            (Some(a), Some(b)) => a == b,
            _ => m.install.client == i.client,
        };
        match missing_packages.iter_mut().find(same) {
            Some(m) => m.for_volumes.push(c.volume),
            None => missing_packages.push(MissingPackage {
                install: i.clone(),
                for_volumes: vec![c.volume],
            }),
        }
    }

    let kroot = facts
        .kubelet_root
        .clone()
        .unwrap_or_else(|| "/var/lib/kubelet".into());
    let (orphan_basis, mut issues) = orphans(facts, &kroot, pods_on_node);
    issues.extend(duplicates(facts, &kroot));
    issues.extend(read_only_remounts(facts, &kroot));
    issues.extend(propagation_issue(facts, &kroot));

    let mut notes = Vec::new();
    if facts.mounts.is_empty() {
        notes.push(
            "no mount table was read: orphaned, duplicate and read-only mounts and the kubelet \
             root's propagation were not checked"
                .into(),
        );
    } else if orphan_basis == OrphanBasis::None {
        notes.push(
            "orphaned mounts not checked: neither the API nor the pod directories were available"
                .into(),
        );
    } else if orphan_basis == OrphanBasis::PodDirectories {
        notes.push(
            "orphaned mounts judged by the pod directories on the node; with the API reachable \
             they are compared with the pods scheduled there"
                .into(),
        );
    }
    if !facts.live {
        notes.push(
            "read from a host filesystem, not the live node: running services (rpc.statd, \
             rpcbind, kubelet) were not checked"
                .into(),
        );
    }
    if family == "unknown" {
        notes.push("the OS is not known (no usable /etc/os-release): install commands are not given per OS".into());
    }
    // A mount stacked twice is one duplicate_mount issue; the same orphan must not be listed
    // once per stacked copy.
    let mut seen_issue = std::collections::BTreeSet::new();
    let issues: Vec<MountIssue> = issues
        .into_iter()
        .filter(|i| {
            seen_issue.insert((
                format!("{:?}", i.kind),
                i.mount_point.clone(),
                i.detail.clone(),
            ))
        })
        .collect();

    NodeReport {
        node: facts.hostname.clone(),
        os: facts
            .os
            .pretty_name
            .clone()
            .or_else(|| facts.os.name.clone()),
        os_family: family.to_string(),
        kernel: facts.kernel.clone(),
        live: facts.live,
        capabilities,
        requirements,
        missing_packages,
        issues,
        kubelet_root: facts.kubelet_root.clone(),
        kubelet_root_propagation: facts.kubelet_root_propagation,
        orphan_basis,
        nfs_servers: None,
        selinux: facts.selinux.clone(),
        mounts_read: facts.mounts.len(),
        probe_errors: facts.errors.clone(),
        notes,
    }
}

// --- NFS server reachability (opt-in) ----------------------------------------------------------

/// An NFS server the mount table uses, and how to reach it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NfsServer {
    /// Host as the mount source names it.
    pub host: String,
    /// The address mount.nfs resolved (`addr=`), when the options carry it.
    pub addr: Option<String>,
    pub port: u16,
    pub mounts: Vec<String>,
    pub hard: bool,
}

/// The host part of an NFS source: `10.0.0.1:/x` → `10.0.0.1`, `[::1]:/x` → `::1`.
fn nfs_host(source: &str) -> Option<&str> {
    if let Some(rest) = source.strip_prefix('[') {
        return rest.split_once("]:").map(|(h, _)| h);
    }
    source
        .split_once(':')
        .map(|(h, _)| h)
        .filter(|h| !h.is_empty())
}

/// The NFS servers of the mount table, one entry per (server, port).
pub fn nfs_servers(facts: &NodeFacts) -> Vec<NfsServer> {
    let mut out: Vec<NfsServer> = Vec::new();
    for m in facts
        .mounts
        .iter()
        .filter(|m| m.fstype == "nfs" || m.fstype == "nfs4")
    {
        let Some(host) = nfs_host(&m.source) else {
            continue;
        };
        let port = m
            .option_value("port")
            .and_then(|p| p.parse::<u16>().ok())
            .filter(|p| *p != 0)
            .unwrap_or(2049);
        let addr = m.option_value("addr").map(str::to_string);
        // NFS mounts are hard unless `soft` (or `softerr`) is set.
        let hard = !m.has_option("soft") && !m.has_option("softerr");
        match out.iter_mut().find(|s| s.host == host && s.port == port) {
            Some(s) => {
                s.mounts.push(m.mount_point.clone());
                s.hard |= hard;
            }
            None => out.push(NfsServer {
                host: host.to_string(),
                addr,
                port,
                mounts: vec![m.mount_point.clone()],
                hard,
            }),
        }
    }
    out
}

/// TCP connect to one server within `timeout` (name resolution included).
pub fn reach(server: &NfsServer, timeout: Duration) -> ServerReach {
    let name = server.addr.clone().unwrap_or_else(|| server.host.clone());
    let port = server.port;
    let (tx, rx) = mpsc::channel();
    // Resolution has no time limit of its own: run it aside and stop waiting at the deadline.
    std::thread::spawn(move || {
        let r = (name.as_str(), port)
            .to_socket_addrs()
            .map(|mut a| a.next());
        let _ = tx.send(r);
    });
    let start = std::time::Instant::now();
    let mut result = ServerReach {
        server: server.host.clone(),
        address: None,
        reachable: false,
        error: None,
        mounts: server.mounts.clone(),
        hard: server.hard,
    };
    let addr: SocketAddr = match rx.recv_timeout(timeout) {
        Ok(Ok(Some(a))) => a,
        Ok(Ok(None)) => {
            result.error = Some("the name resolves to no address".into());
            return result;
        }
        Ok(Err(e)) => {
            result.error = Some(format!("cannot resolve: {e}"));
            return result;
        }
        Err(_) => {
            result.error = Some(format!("name resolution took longer than {timeout:?}"));
            return result;
        }
    };
    result.address = Some(addr.to_string());
    let left = timeout
        .saturating_sub(start.elapsed())
        .max(Duration::from_millis(1));
    match TcpStream::connect_timeout(&addr, left) {
        Ok(_) => result.reachable = true,
        Err(e) if e.kind() == std::io::ErrorKind::TimedOut => {
            result.error = Some(format!("no answer within {timeout:?}"));
        }
        Err(e) => result.error = Some(e.to_string()),
    }
    result
}

/// The reachability check the user asked for (`timeout` per server, servers in parallel): adds
/// the results and an issue per `hard`-mounted server that does not answer. It connects from
/// where volmnt runs, which is the node only with `--local`.
pub fn check_nfs_servers(report: &mut NodeReport, facts: &NodeFacts, timeout: Duration) {
    let servers = nfs_servers(facts);
    let handles: Vec<_> = servers
        .into_iter()
        .map(|s| std::thread::spawn(move || reach(&s, timeout)))
        .collect();
    let results: Vec<ServerReach> = handles.into_iter().filter_map(|h| h.join().ok()).collect();
    for r in results.iter().filter(|r| !r.reachable && r.hard) {
        report.issues.push(MountIssue {
            kind: IssueKind::NfsServerUnreachable,
            severity: Severity::Error,
            detail: format!(
                "NFS server {} ({}) does not answer on TCP: {}; {} `hard` mount(s) on it hang \
                 every process that touches them: {}",
                r.server,
                r.address.as_deref().unwrap_or("unresolved"),
                r.error.as_deref().unwrap_or("unreachable"),
                r.mounts.len(),
                r.mounts.join(", ")
            ),
            mount_point: r.mounts.first().cloned(),
            source: Some(r.server.clone()),
            fstype: Some("nfs".into()),
            pod_uid: None,
            fix: r
                .mounts
                .first()
                .map(|m| format!("sudo umount -f -l {}", shell_quote(m))),
        });
    }
    report.nfs_servers = Some(results);
}

// ---------------------------------------------------------------------------------------------
// From what each node sent back to the verdict of the whole check
// ---------------------------------------------------------------------------------------------

fn unreachable(c: &Checked, error: String) -> NodeResult {
    NodeResult {
        node: c.target.node.clone(),
        target: c.target.address.clone(),
        status: "unreachable",
        elapsed_ms: c.elapsed.as_millis() as u64,
        error: Some(error),
        report: None,
        labels: BTreeMap::new(),
        labelled: false,
        notes: Vec::new(),
    }
}

/// Parse and judge what one node sent back.
pub fn evaluate(c: Checked, required: &[Requirement]) -> NodeResult {
    let run = match &c.run {
        Err(e) => return unreachable(&c, e.to_string()),
        Ok(r) => r,
    };
    let text = String::from_utf8_lossy(&run.stdout);
    let facts = match crate::parse::probe::parse(&text) {
        Ok(f) => f,
        Err(e) => {
            let why = match (run.exit_code, crate::parse::last_line(&run.stderr)) {
                (None, _) => format!("the probe was stopped at the time limit; {e}"),
                (Some(code), Some(err)) if code != 0 => {
                    format!("the probe failed (exit {code}): {err}; {e}")
                }
                _ => e.to_string(),
            };
            return unreachable(&c, why);
        }
    };
    let mut report = analyze(&facts, required, c.pods_on_node.as_deref());
    if let (Some(node), true) = (&c.target.node, c.exec) {
        // In the probe pod the host name is the pod's own (its UTS namespace), not the node's.
        report.node = Some(node.clone());
    }
    let labels = report
        .capabilities
        .iter()
        .map(|cap| {
            (
                format!("volmnt.io/mount.{}", cap.volume),
                cap.ok.to_string(),
            )
        })
        .collect();
    let mut notes = Vec::new();
    if run.exit_code.is_none() {
        notes.push("the probe was stopped at the time limit: some facts may be missing".into());
    }
    if run.stderr.contains("volmnt: the probe pod was not deleted") {
        notes.push(run.stderr.trim().to_string());
    }
    NodeResult {
        node: c.target.node.clone(),
        target: c.target.address.clone(),
        // Requirements decide pass/fail; an error in the mount table (an orphaned mount
        // to a server that may hang) is a problem found all the same (exit 1).
        status: if !report.requirements_met() {
            "fail"
        } else if report.has_problems() {
            "problem"
        } else {
            "pass"
        },
        elapsed_ms: c.elapsed.as_millis() as u64,
        error: None,
        report: Some(report),
        labels,
        labelled: false,
        notes,
    }
}

/// The whole check: every node's result, the counts and the overall status.
pub fn document(
    mut nodes: Vec<NodeResult>,
    required: &[Requirement],
    transport: Transport,
    elapsed: Duration,
) -> NodeCheck {
    nodes.sort_by_key(NodeResult::name);
    let count = |s: &str| nodes.iter().filter(|n| n.status == s).count();
    let summary = Summary {
        checked: nodes.len(),
        passed: count("pass"),
        failed: count("fail"),
        problems: count("problem"),
        unreachable: count("unreachable"),
    };
    let status = if summary.failed > 0 {
        "fail"
    } else if summary.problems > 0 {
        "problem"
    } else if summary.unreachable > 0 || nodes.is_empty() {
        // Nothing checked is never a pass.
        "unreachable"
    } else {
        "pass"
    };
    NodeCheck {
        schema_version: crate::model::report::SCHEMA_VERSION,
        status,
        transport,
        required: required.to_vec(),
        summary,
        elapsed_ms: elapsed.as_millis() as u64,
        nodes,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::OsRelease;

    fn facts(pretty: &str, helpers: &[(&str, &str)]) -> NodeFacts {
        NodeFacts {
            os: OsRelease {
                pretty_name: Some(pretty.into()),
                ..Default::default()
            },
            helpers: helpers
                .iter()
                .map(|(a, b)| (a.to_string(), b.to_string()))
                .collect(),
            ..Default::default()
        }
    }

    #[test]
    fn requirement_parsing() {
        assert_eq!(
            Requirement::parse_list("nfs, rbd,nfs,CephFS").unwrap(),
            [Requirement::Nfs, Requirement::Rbd, Requirement::Cephfs]
        );
        assert!(Requirement::parse_list("nfs,zfs")
            .unwrap_err()
            .contains("zfs"));
        assert!(Requirement::parse_list("").unwrap().is_empty());
    }

    #[test]
    fn install_commands_per_family() {
        let cmd = |p: &str| {
            install_for("nfs", &facts(p, &[]))
                .and_then(|i| i.command)
                .unwrap_or_default()
        };
        assert_eq!(
            cmd("Rocky Linux 9.3 (Blue Onyx)"),
            "sudo dnf install -y nfs-utils"
        );
        assert_eq!(
            cmd("CentOS Linux 7 (Core)"),
            "sudo yum install -y nfs-utils"
        );
        assert!(cmd("Ubuntu 22.04.4 LTS").contains("apt-get install -y nfs-common"));
        assert_eq!(
            cmd("openSUSE Leap 15.5"),
            "sudo zypper install -y nfs-client"
        );
        assert_eq!(cmd("Alpine Linux v3.19"), "sudo apk add nfs-utils");
        let flatcar = install_for(
            "nfs",
            &facts("Flatcar Container Linux by Kinvolk 3815.2.5 (Oklo)", &[]),
        )
        .unwrap();
        // Flatcar ships the NFS client; Bottlerocket has none and no package manager.
        assert!(flatcar.command.is_none());
        assert!(flatcar.advice.unwrap().contains("ships the NFS client"));
        let br = install_for("nfs", &facts("Bottlerocket OS 1.20.3 (aws-k8s-1.29)", &[])).unwrap();
        assert!(br.command.is_none());
        assert!(br.advice.unwrap().contains("image-based"));
        let rbd = install_for("rbd", &facts("Debian GNU/Linux 12 (bookworm)", &[])).unwrap();
        assert_eq!(rbd.package.as_deref(), Some("ceph-common"));
    }

    #[test]
    /// Issue 29: the fix follows what the node lacks. A kernel without NFS that cannot load
    /// modules is fixed by another kernel first, never by nfs-common alone; a helper alone by
    /// its package.
    fn the_fix_follows_what_the_node_lacks_kernel_or_helper() {
        let mut f = facts("Debian GNU/Linux 12 (bookworm)", &[]);
        f.kernel = Some("6.18.44-fc-v782".into());
        let helper_only = analyze(&f, &[Requirement::Nfs], None);
        let fix = helper_only.requirements[0].fix.clone().unwrap();
        assert!(fix.starts_with("install nfs-common: sudo apt-get"), "{fix}");
        f.modules_loadable = Some(false);
        f.filesystems = vec!["ext4".into(), "xfs".into()];
        let both = analyze(&f, &[Requirement::Nfs], None);
        let fix = both.requirements[0].fix.clone().unwrap();
        assert!(
            fix.starts_with("its kernel 6.18.44-fc-v782 has no nfs support")
                && fix.contains("cannot load modules: boot the node on a kernel")
                && fix.contains("; then install nfs-common"),
            "{fix}"
        );
        assert!(
            both.requirements[0].detail.contains(&fix),
            "{:?}",
            both.requirements[0]
        );
        f.helpers
            .insert("mount.nfs".into(), "/usr/sbin/mount.nfs".into());
        let kernel_only = analyze(&f, &[Requirement::Nfs], None);
        let fix = kernel_only.requirements[0].fix.clone().unwrap();
        assert!(
            fix.contains("boot the node on a kernel") && !fix.contains("install nfs-common"),
            "{fix}"
        );
    }

    #[test]
    fn nfs_needs_helper_and_kernel() {
        let mut f = facts("Rocky Linux 9.3 (Blue Onyx)", &[]);
        let r = analyze(&f, &[Requirement::Nfs], None);
        assert!(!r.requirements_met());
        assert!(
            r.requirements[0].detail.contains("nfs-utils"),
            "{:?}",
            r.requirements[0]
        );
        assert_eq!(
            r.missing_packages[0].install.package.as_deref(),
            Some("nfs-utils")
        );
        f.helpers
            .insert("mount.nfs".into(), "/usr/sbin/mount.nfs".into());
        let r = analyze(&f, &[Requirement::Nfs], None);
        assert!(r.requirements_met(), "{:?}", r.requirements);
        assert!(r.capability(VolumeType::Nfs).unwrap().kernel_unknown);
        f.modules.insert("nfs".into(), ModuleState::Missing);
        let r = analyze(&f, &[Requirement::Nfs], None);
        assert!(!r.requirements_met());
        assert!(
            r.requirements[0].install.is_none(),
            "a kernel module is not a package"
        );
        assert!(r.requirements[0].detail.contains("kernel"));
        // No module support and not in /proc/filesystems: missing too.
        f.modules.clear();
        f.modules_loadable = Some(false);
        f.filesystems = vec!["ext4".into()];
        assert!(!analyze(&f, &[Requirement::Nfs], None).requirements_met());
        f.filesystems.push("nfs".into());
        assert!(analyze(&f, &[Requirement::Nfs], None).requirements_met());
    }

    #[test]
    fn alternatives_for_ceph_and_rbd() {
        let f = facts("Ubuntu 22.04.4 LTS", &[("ceph-fuse", "/usr/bin/ceph-fuse")]);
        let r = analyze(&f, &[Requirement::Cephfs, Requirement::Rbd], None);
        assert!(r.requirements[0].ok, "{:?}", r.requirements[0]);
        assert!(!r.requirements[1].ok);
        let mut f = f;
        f.tools.insert("rbd-nbd".into(), "/usr/bin/rbd-nbd".into());
        f.modules.insert("rbd".into(), ModuleState::Missing);
        f.modules.insert("nbd".into(), ModuleState::Available);
        let r = analyze(&f, &[Requirement::Rbd], None);
        assert!(r.requirements[0].ok, "{:?}", r.requirements[0]);
        assert!(r
            .capability(VolumeType::Rbd)
            .unwrap()
            .found
            .contains_key("rbd-nbd"));
    }

    #[test]
    fn pod_uid_paths() {
        let k = "/var/lib/kubelet";
        assert_eq!(
            pod_uid_of("/var/lib/kubelet/pods/abc/volumes/kubernetes.io~nfs/v", k),
            Some("abc")
        );
        assert_eq!(
            pod_uid_of("/var/lib/kubelet/pods/abc/volume-subpaths/v/c/0", k),
            Some("abc")
        );
        assert_eq!(pod_uid_of("/var/lib/kubelet/pods/abc", k), None);
        assert_eq!(
            pod_uid_of("/var/lib/kubelet/plugins/x/globalmount", k),
            None
        );
        assert_eq!(pod_uid_of("/var/lib/kubeletx/pods/a/volumes/b", k), None);
    }

    #[test]
    fn quoting() {
        assert_eq!(shell_quote("/var/lib/kubelet"), "/var/lib/kubelet");
        assert_eq!(shell_quote("a b"), "'a b'");
        assert_eq!(shell_quote("$(id)"), "'$(id)'");
        assert_eq!(shell_quote("x'; touch /tmp/p"), r"'x'\''; touch /tmp/p'");
        assert_eq!(shell_quote(""), "''");
    }

    #[test]
    fn nfs_hosts() {
        assert_eq!(nfs_host("10.0.0.1:/x"), Some("10.0.0.1"));
        assert_eq!(nfs_host("[::1]:/x"), Some("::1"));
        assert_eq!(nfs_host("nfs.example:/a:b"), Some("nfs.example"));
        assert_eq!(nfs_host("/dev/sda"), None);
    }
}
