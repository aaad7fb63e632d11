//! `kubectl describe node`, as kubectl prints it (k8s.io/kubectl/pkg/describe/describe.go,
//! `describeNode`): `Name:`, `Labels:` and `Taints:` with one entry per line, `Unschedulable:`,
//! the `Conditions:` table (`Type Status LastHeartbeatTime LastTransitionTime Reason Message`,
//! times as RFC 1123 with a numeric zone: six words each), `Addresses:`, and `System Info:`
//! (`Kernel Version:`, `OS Image:`, `Container Runtime Version:`, `Kubelet Version:`, ...).
//! Rebuilt into the fields of a Node that the engine reads: its name and labels, taints,
//! conditions (Ready), addresses and node info (the OS and kernel the advice is written for).
//! What it does not print (volumesInUse, volumesAttached) stays unknown.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{
    Node, NodeAddress, NodeCondition, NodeSpec, NodeStatus, NodeSystemInfo, Taint,
};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

/// Whether a text is `kubectl describe node` output.
pub fn looks_like_node_describe(text: &str) -> bool {
    let has = |label: &str| text.lines().any(|l| l.starts_with(label));
    has("Name:")
        && (has("System Info:") || (has("Taints:") && has("Conditions:")))
        && !has("Containers:")
        && !has("Reclaim Policy:")
}

/// The top-level fields this reads, in the order kubectl prints them.
const SECTIONS: &[&str] = &[
    "Labels:",
    "Annotations:",
    "Taints:",
    "Conditions:",
    "Addresses:",
    "Capacity:",
    "Allocatable:",
    "System Info:",
];

/// The Node `kubectl describe node` printed, or None when it names none.
pub fn parse_node(text: &str) -> Option<Node> {
    let mut name = None;
    let mut labels = BTreeMap::new();
    let mut taints = Vec::new();
    let mut unschedulable = None;
    let mut conditions = Vec::new();
    let mut addresses = Vec::new();
    let mut info = NodeSystemInfo::default();
    let mut has_info = false;
    let mut section = "";
    for raw in text.lines() {
        let line = raw.trim_end();
        if line.is_empty() {
            continue;
        }
        let top = !line.starts_with([' ', '\t']);
        if top {
            let (key, value) = match line.split_once(':') {
                Some((k, v)) => (k.trim(), v.trim()),
                None => {
                    section = "";
                    continue;
                }
            };
            section = SECTIONS
                .iter()
                .find(|s| s.trim_end_matches(':') == key)
                .copied()
                .unwrap_or("");
            match key {
                "Name" if name.is_none() && !value.is_empty() => name = Some(value.to_string()),
                "Unschedulable" => unschedulable = Some(value == "true"),
                _ => {}
            }
            // The first entry of a list field is on the field's own line.
            entry(section, value, &mut labels, &mut taints);
            continue;
        }
        let item = line.trim();
        match section {
            "Labels:" | "Taints:" => entry(section, item, &mut labels, &mut taints),
            "Conditions:" => {
                let words: Vec<&str> = item.split_whitespace().collect();
                if words.len() < 2 || words[0] == "Type" || words[0].starts_with("---") {
                    continue;
                }
                // Type, Status, two times of six words each, Reason, Message.
                let (reason, message) = if words.len() > 14 {
                    (Some(words[14].to_string()), Some(words[15..].join(" ")))
                } else {
                    (None, None)
                };
                conditions.push(NodeCondition {
                    type_: words[0].to_string(),
                    status: words[1].to_string(),
                    reason,
                    message: message.filter(|m| !m.is_empty()),
                    ..NodeCondition::default()
                });
            }
            "Addresses:" => {
                if let Some((t, a)) = item.split_once(':') {
                    addresses.push(NodeAddress {
                        type_: t.trim().to_string(),
                        address: a.trim().to_string(),
                    });
                }
            }
            "System Info:" => {
                if let Some((k, v)) = item.split_once(':') {
                    let v = v.trim().to_string();
                    has_info = true;
                    match k.trim() {
                        "Machine ID" => info.machine_id = v,
                        "System UUID" => info.system_uuid = v,
                        "Boot ID" => info.boot_id = v,
                        "Kernel Version" => info.kernel_version = v,
                        "OS Image" => info.os_image = v,
                        "Operating System" => info.operating_system = v,
                        "Architecture" => info.architecture = v,
                        "Container Runtime Version" => info.container_runtime_version = v,
                        "Kubelet Version" => info.kubelet_version = v,
                        "Kube-Proxy Version" => info.kube_proxy_version = v,
                        _ => {}
                    }
                }
            }
            _ => {}
        }
    }
    let name = name?;
    Some(Node {
        metadata: ObjectMeta {
            name: Some(name),
            labels: (!labels.is_empty()).then_some(labels),
            ..ObjectMeta::default()
        },
        spec: Some(NodeSpec {
            taints: (!taints.is_empty()).then_some(taints),
            unschedulable,
            ..NodeSpec::default()
        }),
        status: Some(NodeStatus {
            conditions: (!conditions.is_empty()).then_some(conditions),
            addresses: (!addresses.is_empty()).then_some(addresses),
            node_info: has_info.then_some(info),
            ..NodeStatus::default()
        }),
    })
}

/// One entry of `Labels:` (`key=value`) or `Taints:` (`key=value:Effect`, `key:Effect`).
fn entry(
    section: &str,
    item: &str,
    labels: &mut BTreeMap<String, String>,
    taints: &mut Vec<Taint>,
) {
    if item.is_empty() || item == "<none>" {
        return;
    }
    match section {
        "Labels:" => {
            let (k, v) = item.split_once('=').unwrap_or((item, ""));
            labels.insert(k.to_string(), v.to_string());
        }
        "Taints:" => {
            let Some((kv, effect)) = item.rsplit_once(':') else {
                return;
            };
            let (key, value) = match kv.split_once('=') {
                Some((k, v)) => (k.to_string(), Some(v.to_string())),
                None => (kv.to_string(), None),
            };
            taints.push(Taint {
                key,
                value,
                effect: effect.to_string(),
                ..Taint::default()
            });
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NODE: &str = "Name:               worker-2
Roles:              <none>
Labels:             kubernetes.io/hostname=worker-2
                    kubernetes.io/os=linux
Annotations:        node.alpha.kubernetes.io/ttl: 0
CreationTimestamp:  Mon, 02 Oct 2023 10:11:12 +0000
Taints:             node.kubernetes.io/unreachable:NoExecute
                    node.kubernetes.io/out-of-service=nodeshutdown:NoExecute
Unschedulable:      false
Conditions:
  Type             Status    LastHeartbeatTime                 LastTransitionTime                Reason              Message
  ----             ------    -----------------                 ------------------                ------              -------
  MemoryPressure   Unknown   Tue, 03 Oct 2023 09:01:02 +0000   Tue, 03 Oct 2023 09:05:02 +0000   NodeStatusUnknown   Kubelet stopped posting node status.
  Ready            Unknown   Tue, 03 Oct 2023 09:01:02 +0000   Tue, 03 Oct 2023 09:05:02 +0000   NodeStatusUnknown   Kubelet stopped posting node status.
Addresses:
  InternalIP:  10.0.0.12
  Hostname:    worker-2
System Info:
  Machine ID:                 abc
  Kernel Version:             5.15.0-86-generic
  OS Image:                   Ubuntu 22.04.3 LTS
  Operating System:           linux
  Architecture:               amd64
  Container Runtime Version:  containerd://1.7.2
  Kubelet Version:            v1.27.4
Non-terminated Pods:          (1 in total)
  Namespace                   Name      CPU Requests  CPU Limits  Memory Requests  Memory Limits  Age
  ---------                   ----      ------------  ----------  ---------------  -------------  ---
  default                     web-0     0 (0%)        0 (0%)      0 (0%)           0 (0%)         20h
Events:              <none>
";

    #[test]
    fn a_described_node_gives_its_name_taints_conditions_and_os() {
        assert!(looks_like_node_describe(NODE));
        let n = parse_node(NODE).unwrap();
        assert_eq!(n.metadata.name.as_deref(), Some("worker-2"));
        assert_eq!(
            n.metadata.labels.as_ref().unwrap()["kubernetes.io/os"],
            "linux"
        );
        let taints = n.spec.as_ref().unwrap().taints.clone().unwrap();
        assert_eq!(taints.len(), 2);
        assert_eq!(taints[1].key, "node.kubernetes.io/out-of-service");
        assert_eq!(taints[1].value.as_deref(), Some("nodeshutdown"));
        assert_eq!(taints[1].effect, "NoExecute");
        let st = n.status.as_ref().unwrap();
        let ready = st
            .conditions
            .as_ref()
            .unwrap()
            .iter()
            .find(|c| c.type_ == "Ready")
            .unwrap();
        assert_eq!(ready.status, "Unknown");
        assert_eq!(ready.reason.as_deref(), Some("NodeStatusUnknown"));
        assert_eq!(
            ready.message.as_deref(),
            Some("Kubelet stopped posting node status.")
        );
        let info = st.node_info.as_ref().unwrap();
        assert_eq!(info.os_image, "Ubuntu 22.04.3 LTS");
        assert_eq!(info.kernel_version, "5.15.0-86-generic");
        assert_eq!(st.addresses.as_ref().unwrap()[0].address, "10.0.0.12");
        // A pod's describe is not a node's.
        assert!(!looks_like_node_describe(
            "Name: x\nNamespace: y\nContainers:\n  c:\nConditions:\n  Type Status\nTaints: <none>\n"
        ));
    }
}
