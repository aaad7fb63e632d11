//! Facts read from several sources into one: what follows from facts already read ([`derive`])
//! and two readings joined ([`merge`]).

use super::kubelet::merge_kubelet;
use crate::model::NodeFacts;
use crate::parse::mountinfo;

/// Facts that follow from others, whichever source gave them: the propagation of the mount
/// holding the kubelet's root dir.
pub fn derive(facts: &mut NodeFacts) {
    if let Some(kr) = facts.kubelet_root.clone() {
        if let Some(m) = mountinfo::containing_mount(&facts.mounts, &kr) {
            if let Some(p) = mountinfo::propagation(m) {
                facts.kubelet_root_propagation = Some(p);
            }
            facts.kubelet_root_mount = Some(m.mount_point.clone());
        }
    }
}

/// Add what `from` knows to `into` (the probe's facts and a pasted transcript's, or two saved
/// readings): a fact `into` lacks is taken, lists are joined without repeats, provenance and
/// what could not be read are kept from both.
pub fn merge(into: &mut NodeFacts, from: NodeFacts) {
    fn fill<T>(a: &mut Option<T>, b: Option<T>) {
        if a.is_none() {
            *a = b;
        }
    }
    fn join<T: PartialEq>(a: &mut Vec<T>, b: Vec<T>) {
        for x in b {
            if !a.contains(&x) {
                a.push(x);
            }
        }
    }
    let NodeFacts {
        probe_version,
        root,
        live,
        hostname,
        os,
        kernel,
        kernel_source,
        arch,
        helpers,
        tools,
        filesystems,
        modules,
        modules_loadable,
        rpc_statd_running,
        rpcbind_running,
        kubelet_running,
        selinux,
        selinux_source,
        mounts,
        mounts_source,
        kubelet_root,
        kubelet_root_source,
        kubelet_root_propagation,
        kubelet_root_mount,
        pod_uids,
        errors,
        kubelet_log,
        kernel_log,
        log_sources,
        complete,
        kubelet,
        blkid,
        multipath,
        iscsi,
        df,
        nfs_servers,
        packages,
        dmesg_restrict,
        provenance,
        unavailable,
        helpers_missing,
    } = from;
    into.probe_version = into.probe_version.max(probe_version);
    fill(&mut into.root, root);
    into.live |= live;
    fill(&mut into.hostname, hostname);
    if into.os == Default::default() {
        into.os = os;
    }
    if into.kernel.is_none() {
        into.kernel = kernel;
        into.kernel_source = kernel_source;
    }
    fill(&mut into.arch, arch);
    for (k, v) in helpers {
        into.helpers_missing.remove(&k);
        into.helpers.entry(k).or_insert(v);
    }
    for (k, v) in tools {
        into.helpers_missing.remove(&k);
        into.tools.entry(k).or_insert(v);
    }
    for (k, v) in helpers_missing {
        if !into.helpers.contains_key(&k) && !into.tools.contains_key(&k) {
            into.helpers_missing.entry(k).or_insert(v);
        }
    }
    if into.filesystems.is_empty() {
        into.filesystems = filesystems;
    }
    for (k, v) in modules {
        into.modules.entry(k).or_insert(v);
    }
    fill(&mut into.modules_loadable, modules_loadable);
    fill(&mut into.rpc_statd_running, rpc_statd_running);
    fill(&mut into.rpcbind_running, rpcbind_running);
    fill(&mut into.kubelet_running, kubelet_running);
    if into.selinux.is_none() {
        into.selinux = selinux;
        into.selinux_source = selinux_source;
    }
    join(&mut into.mounts, mounts);
    fill(&mut into.mounts_source, mounts_source);
    let better = into.kubelet_root.is_none()
        || into.kubelet_root_source.as_deref() == Some("default")
            && kubelet_root_source.as_deref() == Some("flag");
    if better && kubelet_root.is_some() {
        into.kubelet_root = kubelet_root;
        into.kubelet_root_source = kubelet_root_source;
    }
    fill(&mut into.kubelet_root_propagation, kubelet_root_propagation);
    fill(&mut into.kubelet_root_mount, kubelet_root_mount);
    fill(&mut into.pod_uids, pod_uids);
    join(&mut into.errors, errors);
    join(&mut into.kubelet_log, kubelet_log);
    join(&mut into.kernel_log, kernel_log);
    join(&mut into.log_sources, log_sources);
    into.complete |= complete;
    if let Some(k) = kubelet {
        let mut tmp = NodeFacts {
            kubelet: into.kubelet.take(),
            ..NodeFacts::default()
        };
        merge_kubelet(&mut tmp, k);
        into.kubelet = tmp.kubelet;
    }
    for b in blkid {
        if !into.blkid.iter().any(|x| x.device == b.device) {
            into.blkid.push(b);
        }
    }
    match (&mut into.multipath, multipath) {
        (Some(a), Some(b)) => {
            join(&mut a.maps, b.maps);
            fill(&mut a.find_multipaths, b.find_multipaths);
            join(&mut a.blacklist, b.blacklist);
            fill(&mut a.running, b.running);
        }
        (a @ None, b) => *a = b,
        _ => {}
    }
    match (&mut into.iscsi, iscsi) {
        (Some(a), Some(b)) => {
            fill(&mut a.initiator_name, b.initiator_name);
            join(&mut a.sessions, b.sessions);
            fill(&mut a.iscsid_running, b.iscsid_running);
            fill(&mut a.initiator_file_present, b.initiator_file_present);
        }
        (a @ None, b) => *a = b,
        _ => {}
    }
    join(&mut into.df, df);
    for n in nfs_servers {
        if !into.nfs_servers.iter().any(|x| x.server == n.server) {
            into.nfs_servers.push(n);
        }
    }
    for (k, v) in packages {
        into.packages.entry(k).or_insert(v);
    }
    fill(&mut into.dmesg_restrict, dmesg_restrict);
    for (k, v) in provenance {
        for s in v.split("; ") {
            into.add_provenance(&k, s);
        }
    }
    join(&mut into.unavailable, unavailable);
    derive(into);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::transcripts::testing::{facts_of, fixture};

    #[test]
    fn merging_keeps_both_readings() {
        let mut a = facts_of(fixture!("uname-r.txt"));
        let b = facts_of(fixture!("ls-sbin-mount.txt"));
        let mut c = NodeFacts::default();
        c.helpers
            .insert("mount.nfs".into(), "/usr/sbin/mount.nfs".into());
        c.add_provenance("helpers", "node probe");
        merge(&mut a, b);
        assert_eq!(a.helper_state("mount.nfs"), Some(false));
        merge(&mut a, c);
        assert_eq!(
            a.helper_state("mount.nfs"),
            Some(true),
            "found beats not found"
        );
        assert_eq!(a.provenance["helpers"], "test; node probe");
        assert_eq!(a.kernel.as_deref(), Some("6.18.44-fc-v669"));
    }
}
