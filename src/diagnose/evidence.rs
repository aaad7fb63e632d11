//! The differential diagnosis: facts from the node and the cluster that tell look-alike causes
//! apart. The knowledge (`evidence:` in knowledge.yaml) says, for the causes a failure message
//! can mean, which fact settles one of them, supports it or rules it out; this module only
//! reads the facts the collectors put in the `Case` (node probe or pasted transcripts, node
//! plugin DaemonSets and logs, workloads, objects) and applies what the knowledge says. It never
//! fetches anything.

use std::collections::BTreeSet;

use super::catalogue::{catalogue, About, EvidenceRule, Mounter, RULE_KINDS};
use super::context::{Hints, VolumeHint};
use super::facts;
use super::findings::{Acc, Accs};
use super::volume_kinds::{add_ctx, client_for, volume_kinds};
use crate::model::Case;

/// What a fact that would settle, but names nothing of the pod's (or is a general fact of the
/// node), raises its cause to: likely, not settled.
const GENERAL_SUPPORT: f64 = 0.85;

/// Most suspects offered for one case (the ranking table stays short).
const MAX_SUSPECTS: usize = 3;

/// Offer the suspects of the symptoms found when every live finding is a symptom (nothing
/// names a cause yet). They come in under the symptom, copy its context (the names its steps
/// need), and fold nothing under them: they are candidates, not findings.
pub fn apply_suspects(_case: &Case, hints: &Hints, accs: &mut Accs) {
    let cat = catalogue();
    let live: Vec<&Acc> = accs.list.iter().filter(|a| a.ruled_out.is_none()).collect();
    if live.is_empty() || live.iter().any(|a| !a.symptom) {
        return;
    }
    let Some(top) = live
        .iter()
        .max_by(|a, b| a.confidence.total_cmp(&b.confidence))
    else {
        return;
    };
    let (top_conf, top_cause) = (top.confidence, top.cause);
    let (ctx, vars) = (top.ctx.clone(), top.vars.clone());
    let symptoms: Vec<&str> = live
        .iter()
        .map(|a| cat.causes[a.cause].id.as_str())
        .collect();
    let kinds = kinds_of(hints, accs);
    // The rules for this kind of storage first, then those for any.
    let mut picked: Vec<(&str, &str)> = Vec::new();
    for specific in [true, false] {
        for rule in &cat.suspects {
            if rule.kinds.is_empty() == specific
                || !rule
                    .for_causes
                    .iter()
                    .any(|c| symptoms.contains(&c.as_str()))
            {
                continue;
            }
            if specific && !rule.kinds.iter().any(|k| kinds.contains(k.as_str())) {
                continue;
            }
            for c in &rule.causes {
                if !picked.iter().any(|(p, _)| p == c) {
                    picked.push((c.as_str(), rule.why.as_str()));
                }
            }
        }
    }
    let base = (top_conf - 0.05).clamp(0.1, 0.3);
    let mut offered = 0;
    for (c, why) in picked {
        if offered == MAX_SUSPECTS {
            break;
        }
        // Already ruled out, or already there: nothing to offer.
        if accs.has(c) {
            continue;
        }
        let conf = base - 0.02 * offered as f64;
        let a = accs.entry(c, conf);
        a.suspect = Some(why.to_string());
        if a.ctx.is_none() {
            a.ctx = ctx.clone();
        }
        for (k, v) in &vars {
            a.vars.entry(k).or_insert_with(|| v.clone());
        }
        offered += 1;
    }
    // A second symptom says no more than the first: the candidates to check come before it.
    if offered > 0 {
        let floor = base - 0.02 * offered as f64;
        for a in accs.list.iter_mut() {
            if a.symptom && a.cause != top_cause && a.confidence > floor {
                a.confidence = floor.max(0.05);
            }
        }
    }
}

/// The differential as one of the correlation rules (`rules::RULES`).
pub fn apply_rule(case: &Case, hints: &Hints, accs: &mut Accs) {
    apply(case, hints, accs);
}

/// Apply every evidence rule to the findings under construction.
pub fn apply(case: &Case, hints: &Hints, accs: &mut Accs) {
    let cat = catalogue();
    let mut kinds = kinds_of(hints, accs);
    // Nothing tells what the volume is, but the operator pasted a node's transcript showing a
    // helper missing (`ls -l /sbin/mount.nfs`): what they chose to show is what the ticket is
    // about. The probe's search for every helper tells nothing of the kind.
    if kinds.is_empty() {
        if let Some(f) = case.node_facts.as_ref().filter(|f| {
            f.provenance
                .get("helpers")
                .is_some_and(|p| !p.starts_with("node probe"))
        }) {
            kinds.extend(
                f.helpers_missing
                    .keys()
                    .filter_map(|h| super::volume_kinds::client_of_program(h))
                    .filter(|k| RULE_KINDS.contains(k)),
            );
        }
    }
    // `for: [unknown]`: the rule also bears on a failure no message explained (no finding
    // at 0.5 or more that is not ruled out); its `supports` then names the suspect.
    let unexplained = !accs
        .list
        .iter()
        .any(|a| a.ruled_out.is_none() && a.confidence >= 0.5);
    let own = facts::Own::of(case);
    for rule in &cat.evidence {
        let for_unknown = unexplained && rule.for_causes.iter().any(|c| c == "unknown");
        if !for_unknown && !rule.for_causes.iter().any(|c| accs.has(c)) {
            continue;
        }
        if !applies(rule, &kinds, hints, accs) {
            continue;
        }
        let module = module_of(accs);
        let programs = programs_of(accs);
        let no_block = !kinds.is_empty() && !kinds.contains("block");
        let Some((found, specific)) = facts::test(
            &rule.fact,
            case,
            &own,
            module.as_deref(),
            &programs,
            no_block,
        ) else {
            continue;
        };
        // Only a fact about the pod's own device, server, driver or claim, or one no other
        // cause explains, settles or rules out; a general fact of the node (a helper missing
        // somewhere, a partition table on some device) supports (issue 26).
        let decides = rule.about.decides(specific);
        // The failing mount the rule bore on: a cause it brings in speaks of the same volume
        // (its server, export, device), as the finding it came from does.
        let borne = rule
            .for_causes
            .iter()
            .filter_map(|c| cat.cause_index(c))
            .find_map(|i| {
                accs.list
                    .iter()
                    .find(|a| a.cause == i && a.ctx.is_some())
                    .map(|a| (a.ctx.clone(), a.vars.clone()))
            });
        // Node and plugin lines may carry what a mount was given (`password=...`): redacted
        // before anything quotes them, as every message is.
        let quote =
            crate::redact::redact(&format!("{}: {}", found.source, found.text)).into_owned();
        if let Some(c) = rule.settles.as_ref().filter(|_| decides) {
            let a = accs.entry(c, 0.96);
            inherit(a, &borne);
            a.suspect = None;
            if a.confidence < 0.96 {
                a.confidence = 0.96;
            }
            a.fact_from(&found.source, quote.clone());
            if a.settled_by.is_none() {
                a.settled_by = Some(quote.clone());
            }
            for other in rule
                .for_causes
                .iter()
                .filter(|o| *o != c && !rule.keeps.contains(o))
            {
                if let Some(o) = accs.get(other) {
                    o.rule_out(format!("{quote} (settles {c})"));
                }
            }
            // What it keeps stays true but comes after it: the settled cause is the one to fix
            // first (a kernel without nfs makes installing mount.nfs alone useless).
            if let Some(idx) = cat.cause_index(c) {
                for kept in &rule.keeps {
                    if let Some(k) = accs.get(kept) {
                        if !k.after.contains(&idx) {
                            k.after.push(idx);
                        }
                    }
                }
            }
        }
        // What would settle, had it named the pod's own, supports.
        let supported = rule
            .supports
            .as_ref()
            .or(rule.settles.as_ref().filter(|_| !decides));
        if let Some(c) = supported {
            // The supported cause is offered even when no message named it (a node plugin
            // that runs unregistered points at the kubelet dir when only "not registered" was
            // said).
            let to = rule.to.unwrap_or(GENERAL_SUPPORT);
            {
                let a = accs.entry(c, to);
                inherit(a, &borne);
                a.suspect = None;
                if a.ruled_out.is_none() && a.confidence < to {
                    a.confidence = to;
                }
                a.fact_from(&found.source, quote.clone());
            }
        }
        if !decides {
            continue;
        }
        // What a fact settled (the kernel's own line about the device) is not undone by a
        // weaker fact's `rules_out` (a blkid cache that predates the filesystem).
        for c in &rule.rules_out {
            if let Some(a) = accs.get(c) {
                if a.settled_by.is_none() {
                    a.rule_out(quote.clone());
                }
            }
        }
    }
}

/// Whether a rule bears on this case's volumes: its storage kinds (when the case tells them)
/// and who mounts them. `csi` and a rule for CSI plugins' mounts alone: only where a failing
/// volume is a CSI one, or none is known to be in-tree; a rule for the kubelet's own mounts
/// (a host helper): never where every failing volume is known to be a CSI one, whose node
/// plugin mounts with its own helpers.
pub(crate) fn applies(
    rule: &EvidenceRule,
    kinds: &BTreeSet<&'static str>,
    hints: &Hints,
    accs: &Accs,
) -> bool {
    let csi_only_rule =
        rule.mounted_by == [Mounter::Plugin] || rule.kinds.iter().any(|k| k == "csi");
    if csi_only_rule && all_in_tree(hints, accs) {
        return false;
    }
    if rule.mounted_by == [Mounter::Kubelet] && all_csi(hints, accs) {
        return false;
    }
    let families: Vec<&String> = rule
        .kinds
        .iter()
        .filter(|k| *k != "csi" && *k != "any")
        .collect();
    if families.is_empty() {
        return true;
    }
    // What the volume is cannot be told (a pasted message alone): a fact about the pod's own
    // device or server may still bear on it, a general fact of the node about one kind of
    // storage (iscsid stopped, no cifs in the kernel) may not.
    if kinds.is_empty() {
        return !matches!(rule.about, About::Node | About::Kind);
    }
    families.iter().any(|k| kinds.contains(k.as_str()))
}

/// Whether every failing volume the case shows is a CSI one (a CSI driver's PV or inline
/// volume, a `kubernetes.io~csi` path) and none an in-tree one: what a host mount helper says
/// does not concern it.
pub(crate) fn all_csi(hints: &Hints, accs: &Accs) -> bool {
    // The failing volumes whose kind is known (a claim whose PV is not resolved there says
    // nothing yet: the PV's own hint does).
    let failing: Vec<&VolumeHint> = accs
        .list
        .iter()
        .filter(|a| a.ruled_out.is_none())
        .filter_map(|a| a.ctx.as_ref()?.volume.as_ref())
        .filter(|h| is_storage(h))
        .collect();
    if !failing.is_empty() {
        return failing.iter().all(|h| is_csi(h));
    }
    let known: Vec<&VolumeHint> = hints.all().filter(|h| is_storage(h)).collect();
    if !known.is_empty() {
        return known.iter().all(|h| is_csi(h));
    }
    accs.list.iter().any(|a| {
        a.evidence
            .iter()
            .any(|e| e.text.contains("kubernetes.io~csi") || e.text.contains("kubernetes.io/csi"))
    })
}

/// A cause an evidence rule brought in without a message of its own takes the context (the
/// failing volume, its server and export) of the finding the rule bore on, so its steps name
/// them.
fn inherit(
    a: &mut Acc,
    borne: &Option<(
        Option<super::context::MsgContext>,
        std::collections::BTreeMap<&'static str, String>,
    )>,
) {
    if let (None, Some((ctx, vars))) = (&a.ctx, borne) {
        a.ctx = ctx.clone();
        for (k, v) in vars {
            a.vars.entry(k).or_insert_with(|| v.clone());
        }
    }
}

/// Whether a volume is a CSI driver's (mounted by its node plugin, not by the kubelet).
fn is_csi(h: &VolumeHint) -> bool {
    h.driver.is_some() && !h.in_tree
}

/// Whether a volume hint is storage a mount can fail on (a driver, a server, a path, a
/// device, an image, a filesystem): not a Secret, ConfigMap, projected token or emptyDir,
/// which the kubelet writes itself and no node fact bears on.
fn is_storage(h: &VolumeHint) -> bool {
    h.driver.is_some()
        || h.server.is_some()
        || h.path.is_some()
        || h.rbd_image.is_some()
        || h.fstype.is_some()
        || h.fs != super::catalogue::FsFamily::Unknown
        || !h.unique_names.is_empty()
}

/// Whether every volume the case shows is an in-tree one (`spec.nfs`, a `kubernetes.io~nfs`
/// path) and none a CSI one: what concerns CSI node plugins alone (where they think the
/// kubelet's root dir is) does not concern it.
fn all_in_tree(hints: &Hints, accs: &Accs) -> bool {
    let mut any = false;
    // A pod whose volumes are all the kubelet's own (Secret, ConfigMap, projected, emptyDir,
    // hostPath): no claim that could be CSI.
    let mut kubelet_only = true;
    let mut seen = false;
    for h in hints.all() {
        if is_csi(h) {
            return false;
        }
        seen = true;
        any |= h.in_tree && is_storage(h);
        kubelet_only &= h.in_tree && h.pvc.is_none();
    }
    any |= seen && kubelet_only;
    for ctx in accs.list.iter().filter_map(|a| a.ctx.as_ref()) {
        if ctx.volume.as_ref().is_some_and(is_csi) {
            return false;
        }
    }
    let csi_path = accs.list.iter().any(|a| {
        a.evidence
            .iter()
            .any(|e| e.text.contains("kubernetes.io~csi") || e.text.contains("/csi/"))
    });
    any && !csi_path
}

/// The kinds of storage the pod's volumes and the findings' failing mounts are (`block`,
/// `nfs`, `cifs`, `cephfs`, `glusterfs`, `rbd`, `iscsi`); empty when nothing tells.
pub(crate) fn kinds_of(hints: &Hints, accs: &Accs) -> BTreeSet<&'static str> {
    let mut out = volume_kinds(hints);
    for ctx in accs
        .list
        .iter()
        .filter(|a| a.ruled_out.is_none())
        .filter_map(|a| a.ctx.as_ref())
    {
        add_ctx(&mut out, ctx);
    }
    out
}

/// The mount helpers the findings' failing mounts need (`mount.glusterfs` for a glusterfs
/// volume, `mount.aznfs` for `-t aznfs`).
fn programs_of(accs: &Accs) -> Vec<String> {
    let cat = catalogue();
    let mut out: Vec<String> = Vec::new();
    for ctx in accs.list.iter().filter_map(|a| a.ctx.as_ref()) {
        if let Some(c) = client_for(ctx) {
            if let Some(d) = cat.os.clients.get(c) {
                out.extend(d.programs.iter().cloned());
            }
        }
        if let Some(t) = &ctx.fstype {
            out.push(format!("mount.{t}"));
        }
    }
    out.sort();
    out.dedup();
    out
}

/// The kernel module a finding's message names (`Module rbd not found`), for
/// `module_unavailable: "{module}"`.
fn module_of(accs: &Accs) -> Option<String> {
    accs.list
        .iter()
        .flat_map(|a| a.evidence.iter())
        .find_map(|e| super::text::kernel_module_in(&e.text))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnose::devices::names_other_device;
    use crate::diagnose::{diagnose, Options};
    use crate::model::{Event, NodeFacts};

    fn failed_mount(msg: &str) -> Event {
        Event {
            kind: Some("Warning".into()),
            reason: "FailedMount".into(),
            message: msg.into(),
            source: Some("kubelet, node-3".into()),
            source_host: Some("node-3".into()),
            count: Some(5),
            ..Event::default()
        }
    }

    const WRONG_FS: &str = "MountVolume.MountDevice failed for volume \"pvc-1\" : mount failed: exit status 32 Mounting command: mount Mounting arguments: -t xfs -o defaults /dev/rbd1 /var/lib/kubelet/plugins/kubernetes.io/csi/pv/pvc-1/globalmount Output: mount: /var/lib/kubelet/plugins/kubernetes.io/csi/pv/pvc-1/globalmount: wrong fs type, bad option, bad superblock on /dev/rbd1, missing codepage or helper program, or other error.";

    #[test]
    fn the_kernel_log_settles_a_wrong_fs_type_between_its_look_alikes() {
        let mut case = Case {
            events: vec![failed_mount(WRONG_FS)],
            ..Case::default()
        };
        // The message alone: a look-alike family, nothing settled.
        let r = diagnose(&case, &Options::default());
        assert!(r.findings[0].settled_by.is_none());
        assert!(r.findings.len() > 1, "{:#?}", r.findings);
        // The node's kernel log says which.
        let facts = NodeFacts {
            kernel_log: vec![
                "[ 7.1] XFS (rbd1): Filesystem has duplicate UUID 3d5e1a2b-0000-4c1d-9e0f-112233445566 - can't mount".into(),
            ],
            provenance: [("kernel_log".to_string(), "file dmesg.txt: dmesg".to_string())]
                .into_iter()
                .collect(),
            ..NodeFacts::default()
        };
        case.node_facts = Some(facts);
        let r = diagnose(&case, &Options::default());
        let top = &r.findings[0];
        assert_eq!(top.cause, "xfs_duplicate_uuid", "{:#?}", r.findings);
        assert!(top.confidence >= 0.96);
        let by = top.settled_by.as_deref().unwrap();
        assert!(
            by.starts_with("kernel log on node-3 (file dmesg.txt: dmesg): "),
            "{by}"
        );
        assert!(
            r.verdict.contains("settled by kernel log on node-3"),
            "{}",
            r.verdict
        );
        // Its look-alikes are ruled out, with the fact as the reason.
        assert!(r
            .ruled_out
            .iter()
            .any(|x| x.cause == "block_fs_corrupt_or_unformatted"
                && x.because.contains("duplicate UUID")));
    }

    #[test]
    fn a_missing_helper_settles_only_when_it_is_the_one_the_mount_needs() {
        let exit32 = failed_mount("MountVolume.SetUp failed for volume \"gv\" : mount failed: exit status 32 Mounting command: mount Mounting arguments: -t glusterfs 10.0.0.7:gv0 /var/lib/kubelet/pods/1/volumes/kubernetes.io~glusterfs/gv Output: Mount failed. Check the log file for more details.");
        // The probe looked for every helper: a node without mount.cifs says nothing about a
        // glusterfs mount; without mount.glusterfs it makes it the likely cause. A helper
        // missing on the node is a general fact of the node (issue 26): it supports, it does
        // not settle (the kubelet may run in a container with its own, a CSI plugin mounts
        // with its own).
        let mut facts = NodeFacts::default();
        facts.add_provenance("helpers", "node probe (ssh)");
        facts
            .helpers_missing
            .insert("mount.cifs".into(), "not in /sbin /usr/sbin".into());
        let mut case = Case {
            events: vec![exit32],
            node_facts: Some(facts.clone()),
            ..Case::default()
        };
        let r = diagnose(&case, &Options::default());
        assert_ne!(
            r.findings[0].cause, "fs_helper_missing",
            "{:#?}",
            r.findings[0]
        );
        facts
            .helpers_missing
            .insert("mount.glusterfs".into(), "not in /sbin /usr/sbin".into());
        case.node_facts = Some(facts);
        let r = diagnose(&case, &Options::default());
        assert_eq!(r.findings[0].cause, "fs_helper_missing");
        assert!(r.findings[0].settled_by.is_none(), "{:#?}", r.findings[0]);
        assert!(r.findings[0]
            .evidence
            .iter()
            .any(|e| e.contains("mount.glusterfs is not on the node")));
        // mount.nfs missing is the NFS client, a cause of its own.
        let mut facts = NodeFacts::default();
        facts.add_provenance("helpers", "file ls.txt: ls -l /sbin/mount.nfs");
        facts
            .helpers_missing
            .insert("mount.nfs".into(), String::new());
        case.events = vec![failed_mount(
            "MountVolume.SetUp failed for volume \"v\" : mount failed: exit status 32",
        )];
        case.node_facts = Some(facts);
        let r = diagnose(&case, &Options::default());
        assert_eq!(
            r.findings[0].cause, "nfs_client_missing",
            "{:#?}",
            r.findings
        );
    }

    #[test]
    fn an_unexplained_failure_on_a_kubelet_rooted_elsewhere_names_that_as_the_suspect() {
        let facts = NodeFacts {
            kubelet_root: Some("/data/kubelet".into()),
            kubelet_root_source: Some("kubelet --root-dir".into()),
            ..NodeFacts::default()
        };
        let mut case = Case {
            events: vec![failed_mount("MountVolume.SetUp failed for volume \"v\" : rpc error: code = Internal desc = frobnicator said no")],
            ..Case::default()
        };
        let r = diagnose(&case, &Options::default());
        assert_ne!(r.findings[0].cause, "kubelet_dir_or_propagation");
        case.node_facts = Some(facts);
        let r = diagnose(&case, &Options::default());
        let top = &r.findings[0];
        assert_eq!(top.cause, "kubelet_dir_or_propagation", "{:#?}", r.findings);
        // A suspect, not settled: the message did not say so.
        assert!(top.confidence < 0.7 && top.settled_by.is_none());
    }

    #[test]
    fn a_notready_node_is_the_holder_only_when_it_is_shown_to_hold_the_volume() {
        let multi = Event {
            kind: Some("Warning".into()),
            reason: "FailedAttachVolume".into(),
            message: "Multi-Attach error for volume \"pvc-1a2b\" Volume is already exclusively attached to one node and can't be attached to another".into(),
            ..Event::default()
        };
        let node: k8s_openapi::api::core::v1::Node = serde_json::from_value(serde_json::json!({
            "metadata": {"name": "worker-2"},
            "status": {"conditions": [{"type": "Ready", "status": "Unknown"}]}
        }))
        .unwrap();
        let mut case = Case {
            events: vec![multi],
            nodes: vec![node],
            pvs: vec![serde_json::from_value(
                serde_json::json!({"metadata": {"name": "pvc-1a2b"}, "spec": {}}),
            )
            .unwrap()],
            ..Case::default()
        };
        let quotes = |case: &Case| {
            let r = diagnose(case, &Options::default());
            r.findings[0]
                .evidence
                .iter()
                .any(|e| e.contains("is NotReady"))
        };
        // A NotReady node somewhere in the cluster is no holder.
        assert!(!quotes(&case));
        // Its VolumeAttachment of the pod's PV makes it one.
        case.volume_attachments = vec![serde_json::from_value(serde_json::json!({
            "metadata": {"name": "csi-1"},
            "spec": {"attacher": "ebs.csi.aws.com", "nodeName": "worker-2",
                     "source": {"persistentVolumeName": "pvc-1a2b"}},
            "status": {"attached": true}
        }))
        .unwrap()];
        assert!(quotes(&case));
    }

    #[test]
    fn a_kernel_line_about_another_device_settles_nothing() {
        // The node's log speaks of rbd7 and sdb; the pod's mount is on /dev/rbd1.
        let facts = NodeFacts {
            kernel_log: vec![
                "[ 7.1] XFS (rbd7): Filesystem has duplicate UUID 3d5e1a2b-0000-4c1d-9e0f-112233445566 - can't mount".into(),
                "[ 9.0] blk_update_request: I/O error, dev sdb, sector 2048".into(),
            ],
            ..NodeFacts::default()
        };
        let case = Case {
            events: vec![failed_mount(WRONG_FS)],
            node_facts: Some(facts),
            messages: vec![crate::model::RawMessage {
                label: format!("{} node-3, line 1", crate::model::KERNEL_LOG_LABEL),
                text: "[ 7.1] XFS (rbd7): Filesystem has duplicate UUID 3d5e1a2b-0000-4c1d-9e0f-112233445566 - can't mount".into(),
                input: 0,
            }],
            ..Case::default()
        };
        let r = diagnose(&case, &Options::default());
        assert!(r.findings[0].settled_by.is_none(), "{:#?}", r.findings[0]);
        assert_ne!(r.findings[0].cause, "xfs_duplicate_uuid");
        assert!(names_other_device("XFS (rbd7): x", Some("/dev/rbd1")));
        assert!(!names_other_device("XFS (rbd1): x", Some("/dev/rbd1")));
        assert!(!names_other_device("EXT4-fs (sdb1): x", Some("/dev/sdb1")));
        assert!(!names_other_device("EXT4-fs (sdb1): x", Some("/dev/sdb")));
        assert!(!names_other_device(
            "nfs: server 10.0.0.5 not responding",
            Some("/dev/rbd1")
        ));
        assert!(!names_other_device("XFS (rbd7): x", None));
    }

    #[test]
    fn a_kernel_without_nfs_is_the_cause_before_the_missing_helper() {
        let msg = "MountVolume.SetUp failed for volume \"nfs\" : mount failed: exit status 32 Mounting command: mount Mounting arguments: -t nfs 10.0.0.5:/e /var/lib/kubelet/pods/1/volumes/kubernetes.io~nfs/nfs Output: mount: wrong fs type, bad option, bad superblock on 10.0.0.5:/e, missing codepage or helper program, or other error (for several filesystems (e.g. nfs, cifs) you might need a /sbin/mount.<type> helper program)";
        let facts = NodeFacts {
            filesystems: vec!["ext4".into(), "tmpfs".into()],
            modules_loadable: Some(false),
            ..NodeFacts::default()
        };
        let case = Case {
            events: vec![failed_mount(msg)],
            node_facts: Some(facts),
            ..Case::default()
        };
        let r = diagnose(&case, &Options::default());
        assert_eq!(
            r.findings[0].cause, "kernel_module_missing",
            "{:#?}",
            r.findings
        );
        assert!(r.findings[0]
            .settled_by
            .as_deref()
            .unwrap()
            .contains("cannot load modules"));
        // The helper is missing too: kept, below.
        assert!(r.findings.iter().any(|f| f.cause == "nfs_client_missing"));
    }
}
