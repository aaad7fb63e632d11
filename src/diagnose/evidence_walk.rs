//! Every evidence rule walked against every kind of volume (issue 26, point 2): what the
//! objects prove bounds which node facts can bear on which cause. A host mount helper bears on
//! the volumes the kubelet mounts itself, never on one a CSI node plugin mounts; a rule for CSI
//! plugins never applies to an in-tree volume; a rule for a storage family applies only to
//! that family; and no general fact of the node (every helper missing, iscsid stopped, SELinux
//! denials, the kubelet's root elsewhere) moves a verdict the objects prove.

#![cfg(test)]

use k8s_openapi::api::core::v1::{PersistentVolume, PersistentVolumeClaim, Pod};
use k8s_openapi::api::storage::v1::CSINode;
use serde_json::{json, Value};

use super::catalogue::{catalogue, Mounter};
use super::context::hints_from_case;
use super::evidence::{applies, kinds_of};
use super::findings::Accs;
use super::{diagnose, Options};
use crate::model::{Case, Event, IscsiInfo, NodeFacts};

/// One kind of volume: how the pod (and its PV) name it, whether a CSI plugin mounts it, and
/// its storage family.
struct Kind {
    name: &'static str,
    volume: Value,
    pv: Option<Value>,
    csi: bool,
    /// The storage families it is (an iSCSI or RBD volume carries a block filesystem).
    families: &'static [&'static str],
}

fn kinds() -> Vec<Kind> {
    let claim = || json!({"name": "data", "persistentVolumeClaim": {"claimName": "data"}});
    let csi_pv = |driver: &str, fs: &str, attrs: Value| json!({"csi": {"driver": driver, "volumeHandle": "h-1", "fsType": fs, "volumeAttributes": attrs}});
    vec![
        Kind {
            name: "in-tree nfs",
            volume: json!({"name": "data", "nfs": {"server": "10.0.0.5", "path": "/export"}}),
            pv: None,
            csi: false,
            families: &["nfs"],
        },
        Kind {
            name: "nfs PV",
            volume: claim(),
            pv: Some(json!({"nfs": {"server": "10.0.0.5", "path": "/export"}})),
            csi: false,
            families: &["nfs"],
        },
        Kind {
            name: "csi nfs",
            volume: claim(),
            pv: Some(csi_pv(
                "nfs.csi.k8s.io",
                "",
                json!({"server": "10.0.0.5", "share": "/export"}),
            )),
            csi: true,
            families: &["nfs"],
        },
        Kind {
            name: "in-tree iscsi",
            volume: json!({"name": "data", "iscsi": {"targetPortal": "10.0.0.6:3260", "iqn": "iqn.2001-04.com.example:t", "lun": 0, "fsType": "ext4"}}),
            pv: None,
            csi: false,
            families: &["iscsi", "block"],
        },
        Kind {
            name: "local block PV",
            volume: claim(),
            pv: Some(
                json!({"local": {"path": "/dev/sdc", "fsType": "xfs"}, "nodeAffinity": {"required": {"nodeSelectorTerms": [{"matchExpressions": [{"key": "kubernetes.io/hostname", "operator": "In", "values": ["node-1"]}]}]}}}),
            ),
            csi: false,
            families: &["block"],
        },
        Kind {
            name: "csi block (ebs)",
            volume: claim(),
            pv: Some(csi_pv("ebs.csi.aws.com", "ext4", json!({}))),
            csi: true,
            families: &["block"],
        },
        Kind {
            name: "in-tree cephfs",
            volume: json!({"name": "data", "cephfs": {"monitors": ["10.0.0.7:6789"], "user": "admin"}}),
            pv: None,
            csi: false,
            families: &["cephfs"],
        },
        Kind {
            name: "csi cephfs",
            volume: claim(),
            pv: Some(csi_pv("cephfs.csi.ceph.com", "", json!({"fsName": "fs1"}))),
            csi: true,
            families: &["cephfs"],
        },
        Kind {
            name: "in-tree rbd",
            volume: json!({"name": "data", "rbd": {"monitors": ["10.0.0.7:6789"], "image": "img", "pool": "rbd", "fsType": "ext4"}}),
            pv: None,
            csi: false,
            families: &["rbd", "block"],
        },
        Kind {
            name: "csi rbd",
            volume: claim(),
            pv: Some(csi_pv(
                "rbd.csi.ceph.com",
                "ext4",
                json!({"pool": "rbd", "imageName": "csi-vol-1"}),
            )),
            csi: true,
            families: &["rbd", "block"],
        },
        Kind {
            name: "in-tree cifs (flex)",
            volume: json!({"name": "data", "flexVolume": {"driver": "fstab/cifs", "fsType": "cifs"}}),
            pv: None,
            csi: false,
            families: &[],
        },
        Kind {
            name: "csi smb",
            volume: claim(),
            pv: Some(csi_pv(
                "smb.csi.k8s.io",
                "",
                json!({"source": "//10.0.0.8/share"}),
            )),
            csi: true,
            families: &["cifs"],
        },
        Kind {
            name: "csi fuse (s3)",
            volume: claim(),
            pv: Some(csi_pv(
                "ru.yandex.s3.csi",
                "",
                json!({"mounter": "geesefs"}),
            )),
            csi: true,
            families: &[],
        },
        Kind {
            name: "hostPath",
            volume: json!({"name": "data", "hostPath": {"path": "/srv/data", "type": "Directory"}}),
            pv: None,
            csi: false,
            families: &[],
        },
        Kind {
            name: "secret",
            volume: json!({"name": "data", "secret": {"secretName": "s"}}),
            pv: None,
            csi: false,
            families: &[],
        },
    ]
}

fn case_of(k: &Kind) -> Case {
    let pod: Pod = serde_json::from_value(json!({
        "metadata": {"name": "app-0", "namespace": "ns", "uid": "11111111-2222-3333-4444-555555555555"},
        "spec": {"nodeName": "node-1", "containers": [{"name": "c", "image": "busybox"}], "volumes": [k.volume]},
        "status": {"phase": "Pending"}
    }))
    .unwrap();
    let mut case = Case {
        pod: Some(pod),
        ..Case::default()
    };
    if let Some(spec) = &k.pv {
        let mut spec = spec.clone();
        spec["accessModes"] = json!(["ReadWriteOnce"]);
        spec["capacity"] = json!({"storage": "1Gi"});
        spec["claimRef"] = json!({"name": "data", "namespace": "ns"});
        let pv: PersistentVolume = serde_json::from_value(
            json!({"metadata": {"name": "pv-data"}, "spec": spec, "status": {"phase": "Bound"}}),
        )
        .unwrap();
        let pvc: PersistentVolumeClaim = serde_json::from_value(json!({
            "metadata": {"name": "data", "namespace": "ns"},
            "spec": {"accessModes": ["ReadWriteOnce"], "volumeName": "pv-data", "resources": {"requests": {"storage": "1Gi"}}},
            "status": {"phase": "Bound"}
        }))
        .unwrap();
        case.pvs.push(pv);
        case.pvcs.push(pvc);
    }
    case
}

/// Every general fact of the node at once: every helper missing (as the probe says it), no
/// iscsid and no initiator name, SELinux and AppArmor denials, the kubelet's root elsewhere.
fn every_general_node_fact() -> NodeFacts {
    let mut f = NodeFacts {
        hostname: Some("node-1".into()),
        kubelet_root: Some("/data/kubelet".into()),
        kubelet_root_source: Some("kubelet --root-dir".into()),
        selinux: Some("enforcing".into()),
        iscsi: Some(IscsiInfo {
            initiator_name: Some(String::new()),
            iscsid_running: Some(false),
            ..IscsiInfo::default()
        }),
        kernel_log: vec![
            "[100.0] audit: type=1400 audit(1.0:2): avc:  denied  { read } for  pid=1 comm=\"x\" scontext=a tcontext=b tclass=file".into(),
            "[101.0] audit: type=1400 apparmor=\"DENIED\" operation=\"mount\" profile=\"p\"".into(),
        ],
        ..NodeFacts::default()
    };
    for h in [
        "mount.nfs",
        "mount.nfs4",
        "mount.cifs",
        "mount.glusterfs",
        "mount.ceph",
        "mount.fuse.ceph",
        "iscsiadm",
        "rbd",
        "mkfs.xfs",
        "mkfs.ext4",
    ] {
        f.helpers_missing
            .insert(h.into(), "not in /sbin /usr/sbin /bin /usr/bin".into());
    }
    for fam in ["helpers", "iscsi", "kernel_log", "kubelet", "selinux"] {
        f.add_provenance(fam, "node probe (pod on node-1)");
    }
    f
}

/// Every rule against every kind: the rule applies only to the volumes its facts can bear on.
#[test]
fn issue_26_every_evidence_rule_walked_against_every_volume_kind() {
    let cat = catalogue();
    let mut applied = 0;
    let mut walked = 0;
    for k in kinds() {
        let case = case_of(&k);
        let hints = hints_from_case(&case);
        let accs = Accs::default();
        let kinds = kinds_of(&hints, &accs);
        for f in k.families {
            assert!(kinds.contains(f), "{}: kinds {kinds:?}", k.name);
        }
        for rule in &cat.evidence {
            walked += 1;
            let a = applies(rule, &kinds, &hints, &accs);
            applied += usize::from(a);
            if !a {
                continue;
            }
            assert!(
                !(k.csi && rule.mounted_by == [Mounter::Kubelet]),
                "{}: {} is about the kubelet's own mounts (host helpers), not a CSI plugin's",
                k.name,
                rule.id
            );
            assert!(
                k.csi || rule.mounted_by != [Mounter::Plugin],
                "{}: {} is about CSI node plugins",
                k.name,
                rule.id
            );
            let families: Vec<&str> = rule
                .kinds
                .iter()
                .map(String::as_str)
                .filter(|f| *f != "any" && *f != "csi")
                .collect();
            if !families.is_empty() && !k.families.is_empty() {
                assert!(
                    families.iter().any(|f| k.families.contains(f)),
                    "{}: {} is for {families:?}",
                    k.name,
                    rule.id
                );
            }
        }
    }
    eprintln!(
        "evidence rules x volume kinds: {walked} pairs walked, {applied} where the rule applies"
    );
    assert!(applied > 0 && applied < walked);
}

/// A CSI volume whose driver is not registered on the node (the object proves it: CSINode does
/// not list it, the kubelet says so) stays that, whatever general facts the node's probe adds.
#[test]
fn issue_26_no_general_node_fact_moves_what_the_objects_prove() {
    let mut checked = 0;
    for k in kinds().into_iter().filter(|k| k.csi) {
        let mut case = case_of(&k);
        let driver = k.pv.as_ref().unwrap()["csi"]["driver"]
            .as_str()
            .unwrap()
            .to_string();
        case.csi_nodes.push(
            serde_json::from_value::<CSINode>(
                json!({"metadata": {"name": "node-1"}, "spec": {"drivers": []}}),
            )
            .unwrap(),
        );
        case.events.push(Event {
            kind: Some("Warning".into()),
            reason: "FailedMount".into(),
            message: format!("MountVolume.MountDevice failed for volume \"pv-data\" : kubernetes.io/csi: attacher.MountDevice failed to create newCsiDriverClient: driver name {driver} not found in the list of registered CSI drivers"),
            source: Some("kubelet, node-1".into()),
            ..Event::default()
        });
        let bare = diagnose(&case, &Options::default());
        let top = &bare.findings[0];
        assert_eq!(
            top.cause, "csi_driver_not_registered",
            "{}: {top:#?}",
            k.name
        );
        case.node_facts = Some(every_general_node_fact());
        let probed = diagnose(&case, &Options::default());
        let p = &probed.findings[0];
        assert_eq!(
            (p.cause.as_str(), p.confidence),
            (top.cause.as_str(), top.confidence),
            "{}: general node facts moved the verdict: {p:#?}",
            k.name
        );
        assert!(
            p.settled_by
                .as_deref()
                .is_none_or(|s| !s.contains("helpers")),
            "{}: {p:#?}",
            k.name
        );
        checked += 1;
    }
    assert!(checked >= 5);
}

/// Use what is in hand (issue 26, point 5): blkid showing ext4 on the pod's device rules out
/// XFS's duplicate UUID; blkid of another device says nothing of it.
#[test]
fn issue_26_blkid_of_the_pods_device_rules_out_what_it_cannot_be() {
    use crate::model::BlkidEntry;
    let msg = "MountVolume.MountDevice failed for volume \"pv-data\" : mount failed: exit status 32 Mounting command: mount Mounting arguments: -t xfs -o defaults /dev/sdc /var/lib/kubelet/plugins/kubernetes.io/local-volume/mounts/pv-data Output: mount: /var/lib/kubelet/plugins/kubernetes.io/local-volume/mounts/pv-data: wrong fs type, bad option, bad superblock on /dev/sdc, missing codepage or helper program, or other error.";
    let mut case = Case {
        events: vec![Event {
            kind: Some("Warning".into()),
            reason: "FailedMount".into(),
            message: msg.into(),
            source: Some("kubelet, node-1".into()),
            ..Event::default()
        }],
        ..Case::default()
    };
    let live = |r: &crate::model::report::Report| -> Vec<String> {
        r.findings.iter().map(|f| f.cause.clone()).collect()
    };
    let bare = diagnose(&case, &Options::default());
    assert!(
        live(&bare).contains(&"xfs_duplicate_uuid".to_string()),
        "{:#?}",
        bare.findings
    );
    let blkid = |dev: &str| {
        let mut f = NodeFacts::default();
        f.blkid.push(BlkidEntry {
            device: dev.into(),
            fs_type: Some("ext4".into()),
            uuid: Some("0b1c2d3e-0000-4000-8000-000000000001".into()),
            ..BlkidEntry::default()
        });
        f.add_provenance("blkid", "file blkid.txt: blkid");
        f
    };
    // Another device's ext4: nothing changes.
    case.node_facts = Some(blkid("/dev/sdd"));
    let other = diagnose(&case, &Options::default());
    assert_eq!(live(&other), live(&bare));
    // The pod's own device is ext4: the duplicate XFS UUID is ruled out.
    case.node_facts = Some(blkid("/dev/sdc"));
    let own = diagnose(&case, &Options::default());
    assert!(
        !live(&own).contains(&"xfs_duplicate_uuid".to_string()),
        "{:#?}",
        own.findings
    );
    assert!(
        own.ruled_out
            .iter()
            .any(|r| r.cause == "xfs_duplicate_uuid" && r.because.contains("/dev/sdc holds ext4")),
        "{:#?}",
        own.ruled_out
    );
}

/// A cause an evidence rule brings in (the NFS server silent from the node, beside a mount
/// that failed for another reason) speaks of the same volume: its steps name the server the
/// mount used, never "(not named in the input)".
#[test]
fn a_cause_the_evidence_brings_in_names_the_failing_volumes_server() {
    use crate::model::NfsServerAnswer;
    let msg = "MountVolume.SetUp failed for volume \"data\" : mount failed: exit status 32 Mounting command: mount Mounting arguments: -t nfs 10.0.0.5:/export /var/lib/kubelet/pods/11111111-2222-3333-4444-555555555555/volumes/kubernetes.io~nfs/data Output: mount: /var/lib/kubelet/pods/11111111-2222-3333-4444-555555555555/volumes/kubernetes.io~nfs/data: unknown filesystem type 'nfs'.";
    let mut facts = NodeFacts::default();
    facts.nfs_servers.push(NfsServerAnswer {
        server: "10.0.0.5".into(),
        reachable: Some(false),
        error: Some("TCP port 2049: closed".into()),
        ..NfsServerAnswer::default()
    });
    facts.add_provenance("nfs_servers", "the node's own network");
    let case = Case {
        events: vec![Event {
            kind: Some("Warning".into()),
            reason: "FailedMount".into(),
            message: msg.into(),
            source: Some("kubelet, node-1".into()),
            ..Event::default()
        }],
        node_facts: Some(facts),
        ..Case::default()
    };
    let r = diagnose(&case, &Options::default());
    let f = r
        .findings
        .iter()
        .find(|f| f.cause == "nfs_server_unreachable")
        .unwrap_or_else(|| panic!("{:#?}", r.findings));
    let text = serde_json::to_string(f).unwrap();
    assert!(!text.contains("not named in the input"), "{text}");
    assert!(f.summary.contains("10.0.0.5"), "{}", f.summary);
}
