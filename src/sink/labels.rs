//! `node check --label`: what each node can mount, written onto it as labels
//! `volmnt.io/mount.<fs>=true|false` (decided by `diagnose::node_check`; this only writes).

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::Node;
use kube::api::{Patch, PatchParams};
use kube::Api;

use crate::model::node::NodeCheck;

/// `--label`: `volmnt.io/mount.<fs>=true|false` on every node that was checked.
pub async fn write_labels(client: &kube::Client, doc: &mut NodeCheck) {
    let api: Api<Node> = Api::all(client.clone());
    for n in &mut doc.nodes {
        let Some(node) = n.node.clone() else { continue };
        if n.labels.is_empty() {
            continue;
        }
        let labels: BTreeMap<String, Option<String>> = n
            .labels
            .iter()
            .map(|(k, v)| (k.clone(), Some(v.clone())))
            .collect();
        let patch = serde_json::json!({"metadata": {"labels": labels}});
        match api
            .patch(&node, &PatchParams::default(), &Patch::Merge(&patch))
            .await
        {
            Ok(_) => n.labelled = true,
            Err(e) => {
                let msg = match e {
                    kube::Error::Api(s) if s.code == 403 => format!(
                        "not allowed to label node {node} (needs patch on nodes: the ClusterRole volmnt-node-labeler in deploy/rbac-optional.yaml)"
                    ),
                    other => format!("labelling node {node}: {other}"),
                };
                eprintln!("volmnt: {msg}");
                n.notes.push(msg);
            }
        }
    }
}
