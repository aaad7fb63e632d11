//! Cases captured on the real cluster (tests/real/, scripts/real-cluster.sh: kube-apiserver and
//! kubelet v1.36) that volmnt got wrong there, replayed offline so CI keeps them: what
//! `doctor pod --save` wrote, and the kubelet's own log lines the node probe reads
//! (fixtures/real/README.md).

use serde_json::Value;

use crate::util::{run, top};

fn replay(pod: &str, inputs: &[&str]) -> Value {
    let mut args = vec!["doctor", "pod", pod];
    for i in inputs {
        args.extend_from_slice(&["--from-file", i]);
    }
    args.extend_from_slice(&["-o", "json"]);
    let out = run(&args);
    out.assert_no_panic();
    assert_eq!(out.code, 1, "{out:#?}");
    out.json()
}

fn causes(doc: &Value) -> Vec<&str> {
    doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["cause"].as_str().unwrap())
        .collect()
}

/// Issue 19: an in-tree iSCSI volume that nothing attaches (no kube-controller-manager): no
/// VolumeAttachment, no event; only the node's status says the kubelet waits (volumesInUse)
/// and nothing attached it (volumesAttached). It was INCONCLUSIVE, the volume "other".
#[test]
fn issue_19_an_in_tree_iscsi_volume_that_nothing_attaches() {
    let doc = replay("iscsi-inline", &[fixture!("real/iscsi-nothing-attaches")]);
    assert_eq!(doc["status"], "stuck", "{doc:#}");
    let f = top(&doc);
    assert_eq!(f["cause"], "attach_timeout", "{doc:#}");
    assert!(f["confidence"].as_f64().unwrap() >= 0.8, "{doc:#}");
    let ev = f["evidence"].to_string();
    assert!(
        ev.contains("status.volumesInUse") && ev.contains("kubernetes.io/iscsi/127.0.0.1:3260:iqn.2024-01.io.volmnt:test:0"),
        "{doc:#}"
    );
    assert!(
        doc["subject"]["volumes"]
            .to_string()
            .contains("lun (iscsi 127.0.0.1:3260 iqn.2024-01.io.volmnt:test lun 0)"),
        "{doc:#}"
    );
}

/// Issue 19: with the node's kubelet log, the pod worker's "unattached volumes=[lun] ...:
/// context deadline exceeded" is the kubelet's wait (a symptom folded under the attach), not
/// a CSI driver's DeadlineExceeded.
#[test]
fn issue_19_the_kubelets_wait_for_the_volumes_is_no_csi_call() {
    let doc = replay(
        "iscsi-inline",
        &[
            fixture!("real/iscsi-nothing-attaches"),
            fixture!("real/iscsi-nothing-attaches.kubelet.log"),
        ],
    );
    assert_eq!(top(&doc)["cause"], "attach_timeout", "{doc:#}");
    assert!(!causes(&doc).contains(&"csi_call_failed"), "{doc:#}");
    assert!(
        top(&doc)["evidence"]
            .to_string()
            .contains("unattached volumes=[lun]"),
        "{doc:#}"
    );
    let out = run(&[
        "explain",
        "-o",
        "json",
        r#"E1126 21:37:51.306203   24996 pod_workers.go:1324] "Error syncing pod, skipping" err="unmounted volumes=[lun], unattached volumes=[lun], failed to process volumes=[]: context deadline exceeded" pod="explore/iscsi-inline""#,
    ]);
    let d = out.json();
    assert_eq!(d["messages"][0]["findings"][0]["cause"], "mount_timeout", "{d:#}");
}
