//! The facts of the differential, one test each: whether a fact the knowledge names (`evidence:`
//! in knowledge.yaml) holds for this case, and how the report quotes it. Only reads what the
//! collectors put in the `Case`; evidence.rs decides what a fact that holds changes.

use regex::Regex;

use super::catalogue::FactDef;
use super::devices::{kernel_lines_kept, names_device, names_other_dev_path, pod_device};
use super::holders::holder;
use super::text::clip;
use crate::model::cluster::node_plugins;
use crate::model::{Case, ModuleState};

/// What a fact's test found: the fact as the report quotes it, with where it came from.
pub(super) struct Found {
    pub source: String,
    pub text: String,
}

/// Where a node fact came from, as the report names it: the node, and the probe or transcript
/// that showed it.
fn node_source(case: &Case, family: &str, fallback: &str) -> String {
    let node = case.node_name().unwrap_or("the node");
    match case
        .node_facts
        .as_ref()
        .and_then(|f| f.provenance.get(family))
    {
        Some(p) => format!("{fallback} on {node} ({p})"),
        None => format!("{fallback} on {node}"),
    }
}

/// The newest line that matches (logs are oldest first).
fn newest_match<'a>(re: &str, lines: impl Iterator<Item = &'a str>) -> Option<String> {
    let re = Regex::new(re).ok()?;
    lines
        .filter(|l| re.is_match(l))
        .last()
        .map(|l| clip(l.trim(), 300))
}

/// What the pod owns that a node fact may name (issue 26): its block devices (the failure's
/// and its local PVs'), its NFS and SMB servers, its RBD images. A fact that names one of them
/// is specific to the pod; one that names none (a partition table on some device, a server
/// the pod does not use, a kernel line naming no device) is about the node at most.
pub(super) struct Own {
    devices: Vec<String>,
    servers: Vec<String>,
    images: Vec<String>,
    ids: Vec<String>,
}

impl Own {
    pub(super) fn of(case: &Case) -> Own {
        let s = super::scope::subject_of(case);
        let mut devices: Vec<String> = s.names.device_paths.iter().cloned().collect();
        devices.extend(pod_device(case));
        devices.sort();
        devices.dedup();
        let images = s
            .images
            .iter()
            .map(|i| i.rsplit('/').next().unwrap_or(i).to_string())
            .filter(|i| !i.is_empty())
            .collect();
        let ids = s
            .names
            .pvs
            .iter()
            .chain(&s.names.pod_uids)
            .chain(&s.names.handles)
            .cloned()
            .collect();
        Own {
            devices,
            servers: s.names.servers.iter().cloned().collect(),
            images,
            ids,
        }
    }

    /// Whether a line or a fact's text names something of the pod's: one of its devices (as a
    /// path or as the kernel names it), servers, images, PVs, handles or its UID.
    fn named_in(&self, text: &str) -> bool {
        let set = |v: &[String]| {
            v.iter()
                .filter(|x| x.len() > 1)
                .cloned()
                .collect::<Vec<_>>()
        };
        set(&self.devices)
            .iter()
            .any(|d| text.contains(d.as_str()) || names_device(text, d))
            || set(&self.servers).iter().any(|v| names_word(text, v))
            || set(&self.images).iter().any(|i| names_word(text, i))
            || set(&self.ids).iter().any(|i| text.contains(i.as_str()))
    }
}

/// Whether `word` appears in `text` on its own (not inside a longer name).
fn names_word(text: &str, word: &str) -> bool {
    let edge =
        |c: Option<char>| c.is_none_or(|c| !(c.is_ascii_alphanumeric() || c == '-' || c == '_'));
    text.match_indices(word).any(|(i, _)| {
        edge(text[..i].chars().next_back()) && edge(text[i + word.len()..].chars().next())
    })
}

/// Whether the fact holds for this case, how the report says it, and whether it is specific:
/// about the pod's own device, server or image (facts read from the pod's own objects, its
/// driver's plugin, its claim, are specific by how they are found).
pub(super) fn test(
    fact: &FactDef,
    case: &Case,
    own: &Own,
    module: Option<&str>,
    programs: &[String],
    no_block: bool,
) -> Option<(Found, bool)> {
    let found = match fact {
        FactDef::KernelLog(re) => kernel_log(case, re, no_block),
        FactDef::PluginLog(re) => plugin_log(case, re),
        FactDef::KubeletLog(re) => kubelet_log(case, re),
        FactDef::KubeletRootElsewhere(want) => kubelet_root_elsewhere(case, *want),
        FactDef::KernelOlderThan(v) => kernel_older_than(case, v),
        FactDef::ModuleUnavailable(name) => module_unavailable(case, name, module),
        FactDef::HelperMissing(which) => helper_missing(case, which, programs),
        FactDef::PluginNotOnNode(want) => plugin_not_on_node(case, *want),
        FactDef::PluginNotReady(want) => plugin_not_ready(case, *want),
        FactDef::PluginRunsUnregistered(want) => plugin_runs_unregistered(case, *want),
        FactDef::RollingUpdateRwo(want) => rolling_update_rwo(case, *want),
        FactDef::HolderNotReady(want) => holder_not_ready(case, *want),
        FactDef::VaDeleting(where_) => va_deleting(case, where_),
        FactDef::AttachLimitReached(want) => attach_limit_reached(case, *want),
        FactDef::NfsUnreachable(want) => nfs_unreachable(case, *want),
        FactDef::NfsVersionMissing(want) => nfs_version_missing(case, *want),
        FactDef::BlkidUuidClash(want) => blkid_uuid_clash(case, *want),
        FactDef::BlkidNoFilesystem(want) => blkid_no_filesystem(case, *want),
        FactDef::BlkidPartitionTable(want) => blkid_partition_table(case, *want),
        FactDef::BlkidFsNot(t) => blkid_fs_not(case, own, t),
        FactDef::MountOption(re) => mount_option(case, re),
        FactDef::IscsiNoInitiator(want) => iscsi_no_initiator(case, *want),
        FactDef::IscsidDown(want) => iscsid_down(case, *want),
        FactDef::MultipathHoldsDevice(want) => multipath_holds_device(case, *want),
        FactDef::SelinuxEnforcing(want) => selinux_enforcing(case, *want),
        FactDef::Os(re) => os_matches(case, re),
    }?;
    let specific = match fact {
        // Lines and node facts that may be about anything on the node: specific when they name
        // the pod's own device, server, image or volume.
        FactDef::KernelLog(_)
        | FactDef::KubeletLog(_)
        | FactDef::PluginLog(_)
        | FactDef::BlkidUuidClash(_)
        | FactDef::BlkidNoFilesystem(_)
        | FactDef::BlkidPartitionTable(_)
        | FactDef::NfsVersionMissing(_) => own.named_in(&found.text),
        // Measured from the probe pod's own network, not the node's: about that network.
        FactDef::NfsUnreachable(_) => {
            own.named_in(&found.text)
                && !case.node_facts.as_ref().is_some_and(|f| {
                    f.provenance
                        .get("nfs_servers")
                        .is_some_and(|p| p.contains("probe pod's network"))
                })
        }
        // Read from the pod's device, driver, claim or PV by construction.
        FactDef::BlkidFsNot(_)
        | FactDef::MultipathHoldsDevice(_)
        | FactDef::PluginNotOnNode(_)
        | FactDef::PluginNotReady(_)
        | FactDef::PluginRunsUnregistered(_)
        | FactDef::RollingUpdateRwo(_)
        | FactDef::HolderNotReady(_)
        | FactDef::VaDeleting(_)
        | FactDef::AttachLimitReached(_)
        | FactDef::MountOption(_) => true,
        // The node's own state.
        FactDef::KubeletRootElsewhere(_)
        | FactDef::KernelOlderThan(_)
        | FactDef::ModuleUnavailable(_)
        | FactDef::HelperMissing(_)
        | FactDef::IscsiNoInitiator(_)
        | FactDef::IscsidDown(_)
        | FactDef::SelinuxEnforcing(_)
        | FactDef::Os(_) => false,
    };
    Some((found, specific))
}

// What the node's logs say.

/// `kernel_log`: the newest of the node's kernel lines that can be about the pod's failure and
/// match.
fn kernel_log(case: &Case, re: &str, no_block: bool) -> Option<Found> {
    let facts = case.node_facts.as_ref();
    let device = pod_device(case);
    let lines = &facts?.kernel_log;
    let kept = kernel_lines_kept(
        lines.iter().map(String::as_str),
        device.as_deref(),
        no_block,
    );
    let text = newest_match(
        re,
        lines
            .iter()
            .zip(kept)
            .filter_map(|(l, k)| k.then_some(l.as_str())),
    )?;
    Some(Found {
        source: node_source(case, "kernel_log", "kernel log"),
        text,
    })
}

/// `plugin_log`: the newest line a CSI node plugin logged about the pod's volumes that matches.
fn plugin_log(case: &Case, re: &str) -> Option<Found> {
    let re = Regex::new(re).ok()?;
    let l = case
        .plugin_logs
        .iter()
        .rfind(|l| re.is_match(&l.line.message))?;
    Some(Found {
        source: format!("node plugin log {}", l.source),
        text: clip(&l.line.message, 300),
    })
}

/// `kubelet_log`: the newest kubelet log line that matches.
fn kubelet_log(case: &Case, re: &str) -> Option<Found> {
    let facts = case.node_facts.as_ref();
    // A line about another device (`Found a dos partition table in /dev/sdc`) is
    // another volume's.
    let device = pod_device(case);
    let text = newest_match(
        re,
        case.logs
            .iter()
            .map(|l| l.message.as_str())
            .chain(
                facts
                    .iter()
                    .flat_map(|f| f.kubelet_log.iter().map(String::as_str)),
            )
            .filter(|l| !names_other_dev_path(l, device.as_deref())),
    )?;
    Some(Found {
        source: "kubelet log".into(),
        text,
    })
}

// The node's kubelet, kernel and modules.

/// `kubelet_root_elsewhere`: where the kubelet's root dir is, against /var/lib/kubelet.
fn kubelet_root_elsewhere(case: &Case, want: bool) -> Option<Found> {
    let facts = case.node_facts.as_ref();
    let f = facts?;
    let (root, how) = match (&f.kubelet, &f.kubelet_root) {
        (Some(k), _) if k.root_dir.is_some() => (
            k.root_dir.clone()?,
            k.flavour
                .as_deref()
                .filter(|fl| !fl.is_empty() && *fl != "unknown")
                .map(|fl| format!("the {fl} kubelet"))
                .unwrap_or_else(|| "the kubelet's flags".into()),
        ),
        (_, Some(r)) => (
            r.clone(),
            f.kubelet_root_source
                .clone()
                .unwrap_or_else(|| "the kubelet".into()),
        ),
        _ => return None,
    };
    let elsewhere = root.trim_end_matches('/') != "/var/lib/kubelet";
    (elsewhere == want).then(|| Found {
        source: node_source(case, "kubelet", "kubelet"),
        text: format!("its root dir is {root} ({how}), not /var/lib/kubelet"),
    })
}

/// `kernel_older_than`: the node's kernel release against a version.
fn kernel_older_than(case: &Case, v: &str) -> Option<Found> {
    let facts = case.node_facts.as_ref();
    let release = facts.and_then(|f| f.kernel.clone()).or_else(|| {
        case.node()
            .and_then(|n| n.status.as_ref()?.node_info.as_ref())
            .map(|i| i.kernel_version.clone())
    })?;
    (version_lt(&release, v)).then(|| Found {
        source: node_source(case, "kernel", "kernel release"),
        text: format!("{release}, older than {v}"),
    })
}

/// `module_unavailable`: the kernel cannot have the module (or the `{module}` a message names).
fn module_unavailable(case: &Case, name: &str, module: Option<&str>) -> Option<Found> {
    let facts = case.node_facts.as_ref();
    let f = facts?;
    let name = if name == "{module}" { module? } else { name };
    let state = f.modules.get(name).copied();
    let in_fs = f.filesystems.iter().any(|fs| fs == name);
    let why = match (state, f.modules_loadable) {
        (Some(ModuleState::Missing), _) => format!("no module {name} for its kernel"),
        (None | Some(ModuleState::Available), Some(false)) if !in_fs => {
            format!("{name} is not loaded or built in, and this kernel cannot load modules")
        }
        _ => return None,
    };
    Some(Found {
        source: node_source(case, "modules", "modules"),
        text: why,
    })
}

/// `helper_missing`: a mount helper this failure needs is known missing on the node.
fn helper_missing(case: &Case, which: &str, programs: &[String]) -> Option<Found> {
    let facts = case.node_facts.as_ref();
    let f = facts?;
    let pasted = f
        .provenance
        .get("helpers")
        .is_some_and(|p| !p.starts_with("node probe"));
    let nfs = |n: &str| n == "mount.nfs" || n == "mount.nfs4";
    let (name, why) = f.helpers_missing.iter().find(|(n, _)| {
        (nfs(n) == (which == "nfs"))
            && (pasted || (n.starts_with("mount.") && programs.iter().any(|p| p == *n)))
    })?;
    Some(Found {
        source: node_source(case, "helpers", "helpers"),
        text: if why.is_empty() {
            format!("{name} is not on the node")
        } else {
            format!("{name} is not on the node ({why})")
        },
    })
}

// Where the CSI node plugin runs.

/// `plugin_not_on_node`: whether the pod's CSI node plugin has a pod on the pod's node.
fn plugin_not_on_node(case: &Case, want: bool) -> Option<Found> {
    let p = node_plugins(case)
        .into_iter()
        .find(|p| p.daemonset.is_some() && p.pods.is_empty() == want)?;
    let ds = p.daemonset.clone().unwrap_or_default();
    let why = if p.off_node_because.is_empty() {
        String::new()
    } else {
        format!(": {}", p.off_node_because.join("; "))
    };
    Some(Found {
        source: format!("DaemonSet {ds}"),
        text: if want {
            format!(
                "no node plugin pod of {} on node {}{why}",
                p.driver,
                p.node.as_deref().unwrap_or("?")
            )
        } else {
            format!("its pod runs on node {}", p.node.as_deref().unwrap_or("?"))
        },
    })
}

/// `plugin_not_ready`: whether the node plugin's pod there is ready.
fn plugin_not_ready(case: &Case, want: bool) -> Option<Found> {
    let p = node_plugins(case).into_iter().find(|p| {
        p.pods.iter().any(|h| {
            let not_ready = h.ready.is_some_and(|(r, t)| r < t)
                || h.phase.as_deref().is_some_and(|ph| ph != "Running");
            not_ready == want
        })
    })?;
    let h = p.pods.first()?;
    Some(Found {
        source: format!("DaemonSet {}", p.daemonset.clone().unwrap_or_default()),
        text: format!("node plugin pod {}", h.summary()),
    })
}

/// `plugin_runs_unregistered`: the node plugin runs and is ready, yet CSINode does not list
/// the driver.
fn plugin_runs_unregistered(case: &Case, want: bool) -> Option<Found> {
    let p = node_plugins(case).into_iter().find(|p| {
        let runs = p
            .pods
            .iter()
            .any(|h| h.phase.as_deref() == Some("Running") && h.ready.is_none_or(|(r, t)| r == t));
        (runs && p.registered == Some(false)) == want
    })?;
    let node = p.node.clone().unwrap_or_default();
    Some(Found {
        source: format!("CSINode {node}"),
        text: format!(
            "the {} node plugin pod runs and is ready on {node}, yet CSINode does not list the driver: its registration does not reach this kubelet",
            p.driver
        ),
    })
}

// The workload and the attachments.

/// `rolling_update_rwo`: the pod's Deployment rolls out with RollingUpdate while its claim is
/// ReadWriteOnce.
fn rolling_update_rwo(case: &Case, want: bool) -> Option<Found> {
    let rwo = case.pvcs.iter().any(|c| {
        c.spec
            .as_ref()
            .and_then(|s| s.access_modes.as_ref())
            .is_some_and(|m| {
                m.iter()
                    .any(|m| m == "ReadWriteOnce" || m == "ReadWriteOncePod")
            })
    });
    let w = case.workloads.iter().find(|w| {
        w.kind == "Deployment" && w.strategy.as_deref().is_none_or(|s| s == "RollingUpdate")
    })?;
    (rwo == want).then(|| Found {
        source: format!("Deployment {}", w.name),
        text: format!(
            "rolls out with {} ({}) while its claim is ReadWriteOnce: the new pod needs the volume before the old one lets it go",
            w.strategy.as_deref().unwrap_or("RollingUpdate (the default)"),
            w.max_surge
                .as_deref()
                .map(|s| format!("maxSurge {s}"))
                .unwrap_or_else(|| "maxSurge 25% by default".into())
        ),
    })
}

/// `holder_not_ready`: a node that holds the volume is NotReady (holders.rs finds it).
fn holder_not_ready(case: &Case, want: bool) -> Option<Found> {
    let n = holder(case, want)?;
    Some(Found {
        source: format!("Node {}", n.metadata.name.as_deref().unwrap_or("?")),
        text: "is NotReady: it cannot detach the volume, and the attach/detach controller waits (6 minutes, or for the out-of-service taint)".into(),
    })
}

/// `va_deleting`: a VolumeAttachment of one of the pod's PVs is being deleted, here or elsewhere.
fn va_deleting(case: &Case, where_: &str) -> Option<Found> {
    let here = case.node_name();
    let pvs: Vec<&str> = case
        .pvs
        .iter()
        .filter_map(|p| p.metadata.name.as_deref())
        .collect();
    let va = case.volume_attachments.iter().find(|va| {
        va.metadata.deletion_timestamp.is_some()
            && va
                .spec
                .source
                .persistent_volume_name
                .as_deref()
                .is_some_and(|p| pvs.contains(&p))
            && ((Some(va.spec.node_name.as_str()) == here) == (where_ == "here"))
    })?;
    let since = va
        .metadata
        .deletion_timestamp
        .as_ref()
        .map(|t| t.0.to_string())
        .unwrap_or_default();
    let attached = va.status.as_ref().is_some_and(|s| s.attached);
    let detach_error = va
        .status
        .as_ref()
        .and_then(|s| s.detach_error.as_ref())
        .and_then(|e| e.message.clone())
        .map(|m| format!("; detachError: {m}"))
        .unwrap_or_default();
    Some(Found {
        source: format!(
            "VolumeAttachment {}",
            va.metadata.name.as_deref().unwrap_or("?")
        ),
        text: format!(
            "on node {} is being deleted since {since} and is {}: its detach has not finished{detach_error}",
            va.spec.node_name,
            if attached { "still attached" } else { "not attached" }
        ),
    })
}

/// `attach_limit_reached`: the pod's node has as many volumes of its CSI driver attached as
/// CSINode allows.
fn attach_limit_reached(case: &Case, want: bool) -> Option<Found> {
    let node = case.node_name()?;
    let drivers: Vec<&str> = case
        .pvs
        .iter()
        .filter_map(|p| p.spec.as_ref()?.csi.as_ref().map(|c| c.driver.as_str()))
        .collect();
    let attached: Vec<&str> = case
        .node_named(node)
        .and_then(|n| n.status.as_ref()?.volumes_attached.as_ref())
        .map(|v| v.iter().map(|a| a.name.as_str()).collect())
        .unwrap_or_default();
    let csinode = case
        .csi_nodes
        .iter()
        .find(|c| c.metadata.name.as_deref() == Some(node))?;
    let (driver, used, limit) = csinode.spec.drivers.iter().find_map(|d| {
        if !drivers.contains(&d.name.as_str()) {
            return None;
        }
        let limit = d.allocatable.as_ref()?.count?;
        // kubernetes pkg/volume/csi: a CSI volume's unique name in volumesAttached is
        // `kubernetes.io/csi/<driver>^<handle>`.
        let prefix = format!("kubernetes.io/csi/{}^", d.name);
        // The pod's own volume attached there: the limit did not stop it.
        let own = case
            .pvs
            .iter()
            .filter_map(|p| p.spec.as_ref()?.csi.as_ref())
            .any(|c| attached.contains(&format!("{prefix}{}", c.volume_handle).as_str()));
        if own {
            return None;
        }
        let used = attached.iter().filter(|a| a.starts_with(&prefix)).count();
        Some((d.name.as_str(), used, limit))
    })?;
    ((used as i64 >= i64::from(limit)) == want).then(|| Found {
        source: format!("CSINode {node} and Node {node}'s status"),
        text: format!(
            "{used} volume(s) of {driver} attached to {node}, and CSINode allows {limit}"
        ),
    })
}

// What the NFS server answered.

/// `nfs_unreachable`: whether the NFS server answered from the node.
fn nfs_unreachable(case: &Case, want: bool) -> Option<Found> {
    let facts = case.node_facts.as_ref();
    let s = facts?
        .nfs_servers
        .iter()
        .find(|s| s.reachable.is_some_and(|r| r != want))?;
    Some(Found {
        source: node_source(case, "nfs_servers", "NFS server check"),
        text: format!(
            "{} does not answer from the node{}",
            s.server,
            s.error
                .as_deref()
                .map(|e| format!(" ({e})"))
                .unwrap_or_default()
        ),
    })
}

/// `nfs_version_missing`: the NFS server offers none of the versions the mount asked for.
fn nfs_version_missing(case: &Case, want: bool) -> Option<Found> {
    let facts = case.node_facts.as_ref();
    let wanted = requested_nfs_version(case)?;
    let s = facts?.nfs_servers.iter().find(|s| !s.versions.is_empty())?;
    let missing = !s.versions.iter().any(|v| wanted.starts_with(v.as_str()));
    (missing == want).then(|| Found {
        source: node_source(case, "nfs_servers", "rpcinfo"),
        text: format!(
            "{} offers NFS version(s) {}, not the {wanted} the mount asks for",
            s.server,
            s.versions.join(", ")
        ),
    })
}

// What blkid says of the device.

/// `blkid_uuid_clash`: the device's UUID is another device's on the node too.
fn blkid_uuid_clash(case: &Case, want: bool) -> Option<Found> {
    let facts = case.node_facts.as_ref();
    let f = facts?;
    let device = pod_device(case);
    let e = f.blkid.iter().find(|e| {
        device.as_deref().is_none_or(|d| e.device == d)
            && e.uuid.as_ref().is_some_and(|u| {
                f.blkid
                    .iter()
                    .any(|o| o.device != e.device && o.uuid.as_ref() == Some(u))
            })
    });
    (e.is_some() == want).then(|| Found {
        source: node_source(case, "blkid", "blkid"),
        text: e.map_or_else(
            || "no UUID is shared".into(),
            |e| {
                format!(
                    "{} has UUID {}, which another device on the node has too",
                    e.device,
                    e.uuid.clone().unwrap_or_default()
                )
            },
        ),
    })
}

/// `blkid_no_filesystem`: the device holds no filesystem signature.
fn blkid_no_filesystem(case: &Case, want: bool) -> Option<Found> {
    let facts = case.node_facts.as_ref();
    let f = facts?;
    let device = pod_device(case)?;
    // A device blkid's output or udev's database does not list is one nobody probed
    // (libblkid's cache keeps only what was asked for; a loop device set up without udev
    // is in neither): that says nothing about its contents.
    let e = f.blkid.iter().find(|e| e.device == device)?;
    let none = e.fs_type.is_none() && !e.other.contains_key("PTTYPE");
    let read = f.provenance.contains_key("blkid");
    (read && none == want).then(|| Found {
        source: node_source(case, "blkid", "blkid"),
        text: format!("{device} holds no filesystem signature"),
    })
}

/// `blkid_fs_not`: the pod's device holds a filesystem, and not of this type (ext4 where the
/// look-alikes include XFS's duplicate UUID).
fn blkid_fs_not(case: &Case, own: &Own, t: &str) -> Option<Found> {
    let e = case.node_facts.as_ref()?.blkid.iter().find(|e| {
        own.devices.contains(&e.device)
            && e.fs_type
                .as_deref()
                .is_some_and(|f| !f.is_empty() && f != t)
    })?;
    Some(Found {
        source: node_source(case, "blkid", "blkid"),
        text: format!(
            "{} holds {}, not {t}",
            e.device,
            e.fs_type.as_deref().unwrap_or_default()
        ),
    })
}

/// `blkid_partition_table`: the device holds a partition table, not a filesystem.
fn blkid_partition_table(case: &Case, want: bool) -> Option<Found> {
    let facts = case.node_facts.as_ref();
    let e = facts?
        .blkid
        .iter()
        .find(|e| e.other.contains_key("PTTYPE") == want && e.fs_type.is_none())?;
    Some(Found {
        source: node_source(case, "blkid", "blkid"),
        text: format!(
            "{} holds a partition table ({}), not a filesystem",
            e.device,
            e.other.get("PTTYPE").cloned().unwrap_or_default()
        ),
    })
}

// The mount options.

/// `mount_option`: the PV's or the StorageClass's mountOptions match.
fn mount_option(case: &Case, re: &str) -> Option<Found> {
    let re = Regex::new(re).ok()?;
    let opts = case
        .pvs
        .iter()
        .filter_map(|p| {
            Some((
                format!("PV {}", p.metadata.name.as_deref()?),
                p.spec.as_ref()?.mount_options.clone()?,
            ))
        })
        .chain(case.storage_classes.iter().filter_map(|s| {
            Some((
                format!("StorageClass {}", s.metadata.name.as_deref()?),
                s.mount_options.clone()?,
            ))
        }));
    for (what, o) in opts {
        if let Some(m) = o.iter().find(|o| re.is_match(o)) {
            return Some(Found {
                source: what,
                text: format!("mountOptions {} include {m}", o.join(",")),
            });
        }
    }
    None
}

// iSCSI and multipath.

/// `iscsi_no_initiator`: open-iscsi has no initiator name on the node.
fn iscsi_no_initiator(case: &Case, want: bool) -> Option<Found> {
    let facts = case.node_facts.as_ref();
    let i = facts?.iscsi.as_ref()?;
    let none = i
        .initiator_name
        .as_deref()
        .is_some_and(|n| n.trim().is_empty());
    (none == want).then(|| Found {
        source: node_source(case, "iscsi", "open-iscsi"),
        text: "/etc/iscsi/initiatorname.iscsi has no InitiatorName".into(),
    })
}

/// `iscsid_down`: whether iscsid runs on the node.
fn iscsid_down(case: &Case, want: bool) -> Option<Found> {
    let facts = case.node_facts.as_ref();
    let running = facts?.iscsi.as_ref()?.iscsid_running?;
    (running != want).then(|| Found {
        source: node_source(case, "iscsi", "iscsid"),
        text: "iscsid is not running".into(),
    })
}

/// `multipath_holds_device`: whether multipathd made a map of the pod's device.
fn multipath_holds_device(case: &Case, want: bool) -> Option<Found> {
    let facts = case.node_facts.as_ref();
    let m = facts?.multipath.as_ref()?;
    let device = pod_device(case)?;
    let dev = device.trim_start_matches("/dev/");
    let map = m.maps.iter().find(|map| map.paths.iter().any(|p| p == dev));
    (map.is_some() == want).then(|| Found {
        source: node_source(case, "multipath", "multipath -ll"),
        text: map.map_or_else(
            || format!("no multipath map holds {device}"),
            |map| {
                format!(
                    "map {} holds {device} ({} {})",
                    map.name,
                    map.vendor.as_deref().unwrap_or("?"),
                    map.product.as_deref().unwrap_or("?")
                )
            },
        ),
    })
}

// The node's OS and its security module.

/// `selinux_enforcing`: whether SELinux is enforcing on the node.
fn selinux_enforcing(case: &Case, want: bool) -> Option<Found> {
    let facts = case.node_facts.as_ref();
    let mode = facts?.selinux.clone()?;
    ((mode == "enforcing") == want).then(|| Found {
        source: node_source(case, "selinux", "SELinux"),
        text: format!("is {mode}"),
    })
}

/// `os`: the node's OS (os-release or the Node's osImage) matches.
fn os_matches(case: &Case, re: &str) -> Option<Found> {
    let facts = case.node_facts.as_ref();
    let re = Regex::new(re).ok()?;
    let os = facts.and_then(|f| f.os.pretty_name.clone()).or_else(|| {
        case.node()
            .and_then(|n| n.status.as_ref()?.node_info.as_ref())
            .map(|i| i.os_image.clone())
    })?;
    re.is_match(&os).then(|| Found {
        source: node_source(case, "os", "OS"),
        text: os,
    })
}

/// `nfsvers=4.1` / `vers=3` of the mount (the PV's options or the message's mount command).
fn requested_nfs_version(case: &Case) -> Option<String> {
    static VERS: std::sync::LazyLock<Regex> =
        std::sync::LazyLock::new(|| Regex::new(r"\b(?:nfs)?vers=([0-9.]+)").expect("static regex"));
    case.pvs
        .iter()
        .filter_map(|p| p.spec.as_ref()?.mount_options.clone())
        .flatten()
        .chain(case.events.iter().map(|e| e.message.clone()))
        .find_map(|t| VERS.captures(&t).map(|c| c[1].to_string()))
}

/// `3.10.0-1160.el7.x86_64` < `4.17`: compares the leading numbers.
pub fn version_lt(release: &str, than: &str) -> bool {
    let nums = |s: &str| -> Vec<u64> {
        s.split(|c: char| !c.is_ascii_digit())
            .take_while(|p| !p.is_empty())
            .filter_map(|p| p.parse().ok())
            .take(3)
            .collect()
    };
    let (a, b) = (nums(release), nums(than));
    if a.is_empty() {
        return false;
    }
    a < b
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kernel_releases_compare_by_their_numbers() {
        assert!(version_lt("3.10.0-1160.el7.x86_64", "4.17"));
        assert!(!version_lt("5.15.0-91-generic", "4.17"));
        assert!(version_lt("4.9.0", "4.17"));
        assert!(!version_lt("4.17.0", "4.17"));
        assert!(!version_lt("unknown", "4.17"));
    }
}
