//! Another node's own status still lists the pod's volume: kubelet there reports it in
//! status.volumesInUse (mounted or being mounted) and the attach/detach controller in
//! status.volumesAttached, under the unique name `context::unique_names` computes. When that
//! node is not the pod's and the volume can be on one node only, that node holds it: for a
//! cloud or CSI disk a Multi-Attach, for RBD the node whose client holds the image's lock (the
//! in-tree plugin fences with `rbd lock add`) or watch (ceph-csi, and in-tree kubelets from 1.9,
//! check watchers). The node's InternalIP is the RBD client address to look for.

use k8s_openapi::api::core::v1::Node;

use crate::diagnose::context::{matches_unique, Hints};
use crate::diagnose::findings::Accs;
use crate::model::Case;

fn internal_ip(n: &Node) -> Option<String> {
    let addrs = n.status.as_ref()?.addresses.as_ref()?;
    addrs
        .iter()
        .find(|a| a.type_ == "InternalIP")
        .or_else(|| addrs.first())
        .map(|a| a.address.clone())
}

/// Where the node lists the volume: `volumesInUse`, `volumesAttached`, or both.
fn listed_in(n: &Node, names: &[String]) -> Vec<&'static str> {
    let Some(st) = &n.status else {
        return Vec::new();
    };
    let mut out = Vec::new();
    if st
        .volumes_in_use
        .iter()
        .flatten()
        .any(|v| matches_unique(names, v))
    {
        out.push("status.volumesInUse");
    }
    if st
        .volumes_attached
        .iter()
        .flatten()
        .any(|v| matches_unique(names, &v.name))
    {
        out.push("status.volumesAttached");
    }
    out
}

pub fn apply(case: &Case, hints: &Hints, accs: &mut Accs) {
    let Some(here) = case.node_name().map(str::to_string) else {
        return;
    };
    if case
        .pod
        .as_ref()
        .is_some_and(crate::diagnose::safety::is_live)
    {
        return;
    }
    for h in hints.all() {
        if h.unique_names.is_empty() {
            continue;
        }
        // A volume several nodes may mount at once is no evidence of anything.
        let pv = h.pv.as_deref().and_then(|n| {
            case.pvs
                .iter()
                .find(|p| p.metadata.name.as_deref() == Some(n))
        });
        let modes = pv
            .and_then(|p| p.spec.as_ref()?.access_modes.clone())
            .unwrap_or_default();
        if modes
            .iter()
            .any(|m| m == "ReadWriteMany" || m == "ReadOnlyMany")
        {
            continue;
        }
        for n in &case.nodes {
            let name = n.metadata.name.clone().unwrap_or_default();
            if name == here
                || n.status
                    .as_ref()
                    .and_then(|s| s.addresses.as_ref())
                    .is_some_and(|a| a.iter().any(|a| a.address == here))
            {
                continue;
            }
            let where_ = listed_in(n, &h.unique_names);
            if where_.is_empty() {
                continue;
            }
            let ip = internal_ip(n);
            let pods: Vec<String> = case
                .other_pods
                .iter()
                .filter(|p| {
                    p.spec.as_ref().and_then(|s| s.node_name.as_deref()) == Some(name.as_str())
                })
                .filter(|p| {
                    h.pvc.as_deref().is_some_and(|claim| {
                        p.spec
                            .iter()
                            .flat_map(|s| s.volumes.iter().flatten())
                            .any(|v| {
                                v.persistent_volume_claim
                                    .as_ref()
                                    .is_some_and(|c| c.claim_name == claim)
                            })
                    })
                })
                .filter_map(|p| p.metadata.name.clone())
                .collect();
            let volume = h.pv.clone().or(h.pod_volume.clone()).unwrap_or_default();
            let line = format!(
                "node {name}{} still lists volume {volume} in its {} ({}): it has not released it{}",
                ip.as_deref().map(|i| format!(" ({i})")).unwrap_or_default(),
                where_.join(" and "),
                h.unique_names[0],
                if pods.is_empty() {
                    "; no pod there uses the claim now".to_string()
                } else {
                    format!("; pods there on the claim: {}", pods.join(", "))
                }
            );
            let targets: Vec<(&str, f64)> = match &h.rbd_image {
                // In-tree RBD fenced with an advisory lock (the 2017 incident); ceph-csi (and
                // in-tree from 1.9) refuse on a watcher: both stay in view, the likelier first.
                Some(_) if h.in_tree => vec![("rbd_lock_held", 0.75), ("rbd_watcher_stale", 0.7)],
                Some(_) => vec![("rbd_watcher_stale", 0.75), ("rbd_lock_held", 0.6)],
                None => vec![("multi_attach", 0.75)],
            };
            for (cause, base) in targets {
                let had = accs.has(cause);
                let a = accs.entry(cause, if had { 0.9 } else { base });
                a.origins.insert("objects");
                a.fact(line.clone());
                a.vars.entry("other_node").or_insert_with(|| name.clone());
                if let Some(img) = &h.rbd_image {
                    a.vars.entry("image").or_insert_with(|| img.clone());
                    a.vars.entry("holder_node").or_insert_with(|| name.clone());
                    if let Some(ip) = &ip {
                        a.vars.entry("locker_host").or_insert_with(|| ip.clone());
                    }
                }
                if let Some(p) = pods.first() {
                    a.vars.entry("other_pod").or_insert_with(|| p.clone());
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnose::context::hints_from_case;
    use serde_json::json;

    fn case(pv: serde_json::Value, other_node_status: serde_json::Value) -> Case {
        Case {
            pod: Some(
                serde_json::from_value(json!({
                    "metadata": {"name": "new", "namespace": "default"},
                    "spec": {"nodeName": "node-b", "containers": [{"name": "c"}],
                             "volumes": [{"name": "data", "persistentVolumeClaim": {"claimName": "data"}}]},
                    "status": {"phase": "Pending"}
                }))
                .unwrap(),
            ),
            pvcs: vec![serde_json::from_value(json!({
                "metadata": {"name": "data", "namespace": "default"},
                "spec": {"volumeName": "pv-1", "accessModes": ["ReadWriteOnce"]}
            }))
            .unwrap()],
            pvs: vec![serde_json::from_value(pv).unwrap()],
            nodes: vec![
                serde_json::from_value(json!({"metadata": {"name": "node-b"}, "status": {}})).unwrap(),
                serde_json::from_value(json!({"metadata": {"name": "node-a"}, "status": other_node_status})).unwrap(),
            ],
            ..Case::default()
        }
    }

    #[test]
    fn an_in_tree_rbd_volume_listed_by_another_node_points_at_its_lock() {
        let c = case(
            json!({"metadata": {"name": "pv-1"}, "spec": {"accessModes": ["ReadWriteOnce"],
                   "rbd": {"image": "index-api-image", "pool": "mioss", "monitors": ["m:6789"]}}}),
            json!({"addresses": [{"type": "InternalIP", "address": "10.47.136.60"}],
                   "volumesInUse": ["kubernetes.io/rbd/mioss:index-api-image"]}),
        );
        let mut accs = Accs::default();
        apply(&c, &hints_from_case(&c), &mut accs);
        let lock = accs.get("rbd_lock_held").expect("lock finding");
        assert_eq!(lock.vars["locker_host"], "10.47.136.60");
        assert_eq!(lock.vars["image"], "mioss/index-api-image");
        assert!(lock.evidence[0].text.contains(
            "node node-a (10.47.136.60) still lists volume pv-1 in its status.volumesInUse"
        ));
        let (l, w) = (
            lock.confidence,
            accs.get("rbd_watcher_stale").unwrap().confidence,
        );
        assert!(l > w && l - w < 0.1, "close look-alikes: {l} {w}");
    }

    /// ceph-csi: the other node's volumesAttached names the image by the driver and handle;
    /// the image comes from the PV's attributes, the holder is that node, and the pod still
    /// there on the claim is named.
    #[test]
    fn a_ceph_csi_image_listed_by_another_node_names_the_watcher_node_and_its_pod() {
        let handle = "0001-0009-rook-ceph-0000000000000002-6a2a4e2d-1a1b-11ee-8e5a-0242ac110003";
        let mut c = case(
            json!({"metadata": {"name": "pv-1"}, "spec": {"accessModes": ["ReadWriteOnce"],
                   "csi": {"driver": "rook-ceph.rbd.csi.ceph.com", "volumeHandle": handle,
                           "volumeAttributes": {"pool": "replicapool",
                                                "imageName": "csi-vol-6a2a4e2d-1a1b-11ee-8e5a-0242ac110003"}}}}),
            json!({"addresses": [{"type": "InternalIP", "address": "10.0.0.61"}],
                   "volumesAttached": [{"name": format!("kubernetes.io/csi/rook-ceph.rbd.csi.ceph.com^{handle}"), "devicePath": ""}],
                   "volumesInUse": [format!("kubernetes.io/csi/rook-ceph.rbd.csi.ceph.com^{handle}")]}),
        );
        c.other_pods = vec![serde_json::from_value(json!({
            "metadata": {"name": "web-old", "namespace": "default"},
            "spec": {"nodeName": "node-a", "containers": [{"name": "c"}],
                     "volumes": [{"name": "data", "persistentVolumeClaim": {"claimName": "data"}}]},
            "status": {"phase": "Running"}
        }))
        .unwrap()];
        let mut accs = Accs::default();
        apply(&c, &hints_from_case(&c), &mut accs);
        let w = accs.get("rbd_watcher_stale").expect("watcher finding");
        assert_eq!(
            w.vars["image"],
            "replicapool/csi-vol-6a2a4e2d-1a1b-11ee-8e5a-0242ac110003"
        );
        assert_eq!(w.vars["holder_node"], "node-a");
        assert_eq!(w.vars["locker_host"], "10.0.0.61");
        assert_eq!(w.vars["other_pod"], "web-old");
        let text = &w.evidence[0].text;
        assert!(
            text.contains("status.volumesInUse and status.volumesAttached")
                && text.contains("pods there on the claim: web-old"),
            "{text}"
        );
        // ceph-csi refuses on a watcher: that comes first, the lock second.
        let l = accs.get("rbd_lock_held").unwrap().confidence;
        assert!(accs.get("rbd_watcher_stale").unwrap().confidence > l);
    }

    /// The in-tree vSphere and FC names, as their plugins' GetVolumeName build them.
    #[test]
    fn vsphere_and_fc_volumes_are_matched_by_their_plugins_names() {
        for (pv, listed) in [
            (
                json!({"metadata": {"name": "pv-1"}, "spec": {"accessModes": ["ReadWriteOnce"],
                       "vsphereVolume": {"volumePath": "[datastore1] kubevols/pv-1.vmdk", "fsType": "ext4"}}}),
                "kubernetes.io/vsphere-volume/[datastore1] kubevols/pv-1.vmdk",
            ),
            (
                json!({"metadata": {"name": "pv-1"}, "spec": {"accessModes": ["ReadWriteOnce"],
                       "fc": {"targetWWNs": ["500a0981891b8dc5", "500a0981991b8dc5"], "lun": 2}}}),
                "kubernetes.io/fc/[500a0981891b8dc5 500a0981991b8dc5]:2",
            ),
            (
                json!({"metadata": {"name": "pv-1"}, "spec": {"accessModes": ["ReadWriteOnce"],
                       "fc": {"wwids": ["3600508b400105e210000900000490000"]}}}),
                "kubernetes.io/fc/[3600508b400105e210000900000490000]",
            ),
        ] {
            let c = case(
                pv,
                json!({"volumesAttached": [{"name": listed, "devicePath": "/dev/sdb"}]}),
            );
            let mut accs = Accs::default();
            apply(&c, &hints_from_case(&c), &mut accs);
            assert_eq!(
                accs.get("multi_attach")
                    .map(|a| a.vars["other_node"].clone()),
                Some("node-a".to_string()),
                "{listed}"
            );
        }
    }

    #[test]
    fn a_csi_disk_attached_to_another_node_is_multi_attach() {
        let c = case(
            json!({"metadata": {"name": "pv-1"}, "spec": {"accessModes": ["ReadWriteOnce"],
                   "csi": {"driver": "ebs.csi.aws.com", "volumeHandle": "vol-0a1b"}}}),
            json!({"volumesAttached": [{"name": "kubernetes.io/csi/ebs.csi.aws.com^vol-0a1b", "devicePath": ""}]}),
        );
        let mut accs = Accs::default();
        apply(&c, &hints_from_case(&c), &mut accs);
        let a = accs.get("multi_attach").expect("multi-attach");
        assert_eq!(a.vars["other_node"], "node-a");
        // A ReadWriteMany volume on several nodes is normal.
        let mut rwx = c.clone();
        rwx.pvs[0].spec.as_mut().unwrap().access_modes = Some(vec!["ReadWriteMany".into()]);
        let mut accs = Accs::default();
        apply(&rwx, &hints_from_case(&rwx), &mut accs);
        assert!(accs.list.is_empty());
    }
}
