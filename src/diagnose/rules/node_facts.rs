//! What the node probe found (`doctor pod --probe-node`) confirms or rules out the node-side
//! causes: a missing mount helper or tool, rpc.statd not running, kubelet's root dir not shared.

use crate::diagnose::context::Hints;
use crate::diagnose::findings::Accs;
use crate::model::{Case, NodeFacts, Propagation};

/// The helper or tool each client needs, as the probe names them.
fn needed_by(client: &str) -> &'static [&'static str] {
    match client {
        "nfs" => &["mount.nfs", "mount.nfs4"],
        "cifs" => &["mount.cifs", "mount.smb3"],
        "glusterfs" => &["mount.glusterfs"],
        "cephfs" => &["mount.ceph", "ceph-fuse"],
        "iscsi" => &["iscsiadm"],
        "xfs" => &["mkfs.xfs"],
        "ext4" => &["mkfs.ext4"],
        _ => &[],
    }
}

fn found<'a>(facts: &'a NodeFacts, names: &[&str]) -> Option<(&'a str, &'a str)> {
    names.iter().find_map(|n| {
        facts
            .helpers
            .get_key_value(*n)
            .or_else(|| facts.tools.get_key_value(*n))
            .map(|(k, v)| (k.as_str(), v.as_str()))
    })
}

pub fn apply(case: &Case, hints: &Hints, accs: &mut Accs) {
    let Some(facts) = &case.node_facts else {
        return;
    };
    // A CSI node plugin mounts with the helpers of its own container: what the host lacks
    // says nothing of a volume that only CSI plugins mount (issue 26).
    let csi_only = crate::diagnose::evidence::all_csi(hints, accs);
    let node = case.node_name().unwrap_or("the node").to_string();
    let os = facts
        .os
        .pretty_name
        .clone()
        .unwrap_or_else(|| "its OS".into());
    // A helper missing or present.
    for (cause, client) in [
        ("nfs_client_missing", Some("nfs".to_string())),
        ("fs_helper_missing", None),
    ] {
        let Some(a) = accs.get(cause) else { continue };
        // A CSI driver's plugin brings its own helpers: the host's say nothing then.
        if csi_only || (a.vars.contains_key("driver") && cause == "fs_helper_missing") {
            continue;
        }
        let client = client
            .or_else(|| {
                a.ctx
                    .as_ref()
                    .and_then(crate::diagnose::volume_kinds::client_of)
            })
            .unwrap_or_default();
        let names = needed_by(&client);
        if names.is_empty() {
            continue;
        }
        // Where the helpers were read: the probe looks for every one; a pasted transcript
        // says only what it shows, so a helper it does not mention is not known missing.
        let src = facts
            .provenance
            .get("helpers")
            .cloned()
            .unwrap_or_else(|| "node probe".into());
        match found(facts, names) {
            Some((name, path)) => {
                a.rule_out(format!("{name} is installed on {node} ({path}, {src})"));
            }
            // Missing when a source said so (the probe's `helper_missing`, a transcript's
            // `No such file or directory`), or when probe output from before `helper_missing`
            // existed lists helpers without this one (that probe also searched for all).
            None if names.iter().any(|n| facts.helper_state(n) == Some(false))
                || (src.starts_with("node probe") && facts.helpers_missing.is_empty()) =>
            {
                a.origins.insert("node probe");
                a.confidence = a.confidence.max(0.97);
                a.fact_from(
                    &src,
                    format!("{src}: {} not found on {node} ({os})", names.join(" / ")),
                );
            }
            None => {}
        }
    }
    if let Some(a) = accs.get("nfs_statd_missing") {
        match facts.rpc_statd_running {
            Some(false) => {
                a.confidence = a.confidence.max(0.97);
                a.fact_from(
                    "node probe",
                    format!("node probe: rpc.statd is not running on {node}"),
                );
            }
            Some(true) => {
                a.rule_out(format!(
                    "rpc.statd is running on {node} now (node probe): a retry finds it"
                ));
            }
            None => {}
        }
    }
    if let (Some(a), Some(p)) = (
        accs.get("kubelet_dir_or_propagation"),
        &facts.kubelet_root_propagation,
    ) {
        if *p != Propagation::Shared {
            a.confidence = a.confidence.max(0.85);
            a.fact_from(
                "node probe",
                format!(
                    "node probe: kubelet's root dir {} on {node} is not a shared mount ({p:?})",
                    facts.kubelet_root.as_deref().unwrap_or("?")
                ),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnose::catalogue::FsFamily;
    use crate::diagnose::context::MsgContext;

    fn accs_with(cause: &str) -> Accs {
        let mut accs = Accs::default();
        let a = accs.entry(cause, 0.92);
        a.ctx = Some(MsgContext {
            fs: FsFamily::Nfs,
            ..MsgContext::default()
        });
        accs
    }

    #[test]
    fn a_missing_helper_is_confirmed_and_a_present_one_rules_the_cause_out() {
        let mut facts = NodeFacts::default();
        facts.os.pretty_name = Some("CentOS Linux 7 (Core)".into());
        // A transcript that never mentions the helper decides nothing.
        facts.add_provenance("helpers", "file node.txt: ls -l /sbin");
        let case = Case {
            node_facts: Some(facts.clone()),
            ..Case::default()
        };
        let mut accs = accs_with("nfs_client_missing");
        apply(&case, &Hints::default(), &mut accs);
        let a = accs.get("nfs_client_missing").unwrap();
        assert!(a.confidence < 0.97 && a.ruled_out.is_none() && a.evidence.is_empty());

        // The probe searched and said so.
        facts.provenance.clear();
        facts.add_provenance("helpers", "node probe (ssh)");
        facts
            .helpers_missing
            .insert("mount.nfs".into(), "not in /sbin /usr/sbin".into());
        let case = Case {
            node_facts: Some(facts.clone()),
            ..Case::default()
        };
        let mut accs = accs_with("nfs_client_missing");
        apply(&case, &Hints::default(), &mut accs);
        let a = accs.get("nfs_client_missing").unwrap();
        assert!(a.confidence >= 0.97);
        assert!(a.evidence[0]
            .text
            .contains("mount.nfs / mount.nfs4 not found"));
        assert!(a.evidence[0].text.contains("CentOS Linux 7"));
        assert!(a.evidence[0].text.starts_with("node probe (ssh):"));

        facts.helpers_missing.clear();
        facts
            .helpers
            .insert("mount.nfs".into(), "/usr/sbin/mount.nfs".into());
        let case = Case {
            node_facts: Some(facts),
            ..Case::default()
        };
        let mut accs = accs_with("nfs_client_missing");
        apply(&case, &Hints::default(), &mut accs);
        let a = accs.get("nfs_client_missing").unwrap();
        let why = a.ruled_out.as_deref().expect("ruled out");
        assert!(why.contains("/usr/sbin/mount.nfs"), "{why}");
    }
}
