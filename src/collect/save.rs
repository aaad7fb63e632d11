//! `doctor pod --save DIR`: what was read from the cluster, written so `--from-file DIR` replays
//! the same diagnosis later (events expire after about an hour; a saved case can be attached to
//! a ticket). Secrets never appear: only their names were ever read.

use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::error::{Error, Result};
use crate::model::{Case, Denied, Event, LogLine, ObjectRef, PluginLogLine, Workload};

fn denied_list<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> std::result::Result<Vec<Denied>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Either {
        Structured(Denied),
        Said(String),
    }
    let items: Vec<Either> = Vec::deserialize(d)?;
    items
        .into_iter()
        .map(|i| match i {
            Either::Structured(d) => Ok(d),
            Either::Said(s) => Denied::parse(&s)
                .ok_or_else(|| serde::de::Error::custom(format!("not a refused read: {s:?}"))),
        })
        .collect()
}

/// The facts of a case that are not Kubernetes objects (`kind: VolmntCase`).
#[derive(Debug, Default, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct CaseFacts {
    pub api_version: String,
    pub kind: String,
    #[serde(default)]
    pub pod: Option<String>,
    #[serde(default)]
    pub namespace: Option<String>,
    /// Objects the API said do not exist.
    #[serde(default)]
    pub missing: Vec<ObjectRef>,
    /// Reads that were refused (structured; the `verb resource in namespace x` strings of
    /// cases saved before are read too).
    #[serde(default, deserialize_with = "denied_list")]
    pub denied: Vec<Denied>,
    /// ConfigMaps and Secrets that exist (names only).
    #[serde(default)]
    pub configmaps: Vec<String>,
    #[serde(default)]
    pub secrets: Vec<String>,
    /// When the case was read (RFC 3339): a replay measures ages from it, as the live run did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub saved_at: Option<String>,
    /// The pod's owners and their rollout (ReplicaSet, Deployment, StatefulSet).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub workloads: Vec<Workload>,
    /// The node plugins' log lines about the pod's volumes (redacted when read).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub plugin_logs: Vec<PluginLogLine>,
    /// The kubelet's log lines the diagnosis read (from the node log query, or files given
    /// beside the live read), so a replay reads the same messages.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub logs: Vec<LogLine>,
    /// Evidence that could not be gathered, and why.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unavailable: Vec<String>,
    /// Pasted `kubectl get` commands that listed nothing.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub empty_listings: Vec<String>,
    /// What is known about the pod's node (the probe's facts, or a pasted transcript's), secrets
    /// redacted, so a replay weighs the same node evidence.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node_facts: Option<crate::model::NodeFacts>,
}

pub const CASE_KIND: &str = "VolmntCase";
pub const CASE_API_VERSION: &str = "volmnt.io/v1";

/// Write `objects.yaml`, `events.yaml`, `case.yaml` and a README into `dir`.
pub fn write(dir: &Path, case: &Case) -> Result<Vec<String>> {
    std::fs::create_dir_all(dir)
        .map_err(|e| Error::io(format!("creating {}", dir.display()), e))?;
    let mut docs: Vec<Value> = Vec::new();
    let mut add = |kind: &str, api: &str, v: Value| {
        let mut v = v;
        crate::redact::redact_value(&mut v);
        if let Value::Object(m) = &mut v {
            m.insert("apiVersion".into(), api.into());
            m.insert("kind".into(), kind.into());
            if let Some(Value::Object(meta)) = m.get_mut("metadata") {
                meta.remove("managedFields");
            }
        }
        docs.push(v);
    };
    let to = |x: &dyn erased::Ser| x.value();
    if let Some(p) = &case.pod {
        add("Pod", "v1", to(p));
    }
    for p in &case.other_pods {
        add("Pod", "v1", to(p));
    }
    for o in &case.pvcs {
        add("PersistentVolumeClaim", "v1", to(o));
    }
    for o in &case.pvs {
        add("PersistentVolume", "v1", to(o));
    }
    for o in &case.nodes {
        add("Node", "v1", to(o));
    }
    for o in &case.storage_classes {
        add("StorageClass", "storage.k8s.io/v1", to(o));
    }
    for o in &case.csi_drivers {
        add("CSIDriver", "storage.k8s.io/v1", to(o));
    }
    for o in &case.csi_nodes {
        add("CSINode", "storage.k8s.io/v1", to(o));
    }
    for o in &case.volume_attachments {
        add("VolumeAttachment", "storage.k8s.io/v1", to(o));
    }
    for o in &case.daemonsets {
        add("DaemonSet", "apps/v1", to(o));
    }
    let objects = multi_doc(&docs)?;
    let mut events_doc = json!({
        "apiVersion": "v1",
        "kind": "List",
        "items": case.events.iter().enumerate().map(|(i, e)| core_event(case, i, e)).collect::<Vec<_>>(),
    });
    crate::redact::redact_value(&mut events_doc);
    let events = serde_yaml::to_string(&events_doc).map_err(|e| Error::Output(e.to_string()))?;
    let facts = CaseFacts {
        api_version: CASE_API_VERSION.into(),
        kind: CASE_KIND.into(),
        pod: case.pod_display_name().map(str::to_string),
        namespace: case.pod_namespace().map(str::to_string),
        missing: case.missing.clone(),
        denied: case.denied.clone(),
        configmaps: case.configmaps.clone(),
        secrets: case.secrets.clone(),
        saved_at: Some(
            case.captured_at
                .and_then(|t| k8s_openapi::jiff::Timestamp::from_second(t).ok())
                .unwrap_or_else(k8s_openapi::jiff::Timestamp::now)
                .to_string(),
        ),
        workloads: case.workloads.clone(),
        plugin_logs: case.plugin_logs.clone(),
        logs: case.logs.clone(),
        unavailable: case.unavailable.clone(),
        empty_listings: case.empty_listings.clone(),
        node_facts: case.node_facts.clone(),
    };
    // Log lines are text from the node, and the node's facts hold flags, mount options and
    // log lines: redacted once more on the way out.
    let mut facts = serde_json::to_value(&facts).map_err(|e| Error::Output(e.to_string()))?;
    crate::redact::redact_value(&mut facts);
    let facts = serde_yaml::to_string(&facts).map_err(|e| Error::Output(e.to_string()))?;
    let pod = case.pod_display_name().unwrap_or("POD");
    let ns = case.pod_namespace().unwrap_or("default");
    let readme = format!(
        "Saved by volmnt doctor pod {pod} -n {ns}.\n\
         Replay: {replay}\n\
         (reads only these files: no cluster, no rights, and the pod may be gone)\n\
         objects.yaml  the pod, the other pods on its claims and the node plugins' pods on its node, PVCs, PVs, nodes, StorageClasses, CSIDrivers, CSINodes, VolumeAttachments, the node plugins' DaemonSets\n\
         events.yaml   the pod's events (core/v1)\n\
         case.yaml     objects the API said do not exist, reads that were refused, ConfigMap/Secret names (never their data), the pod's owners, the node plugins' and kubelet's log lines about the pod (redacted), evidence that could not be gathered, the node's facts\n",
        replay = replay_command(dir)
    );
    let mut written = Vec::new();
    for (name, text) in [
        ("objects.yaml", objects),
        ("events.yaml", events),
        ("case.yaml", facts),
        ("README.txt", readme),
    ] {
        let path = dir.join(name);
        std::fs::write(&path, text)
            .map_err(|e| Error::io(format!("writing {}", path.display()), e))?;
        written.push(path.display().to_string());
    }
    Ok(written)
}

/// The command that replays a saved case from its files alone (`--offline`: never the cluster,
/// so it works once the pod is gone, for a colleague without read rights, or on a laptop with
/// another kubeconfig; the files name the pod).
pub fn replay_command(dir: &Path) -> String {
    format!(
        "volmnt doctor pod --offline --from-file {}",
        shell_word(&dir.display().to_string())
    )
}

/// A path as one shell word: as is when it is plain, else in single quotes.
fn shell_word(s: &str) -> String {
    if !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-+=:@%,".contains(c))
    {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

fn multi_doc(docs: &[Value]) -> Result<String> {
    let mut out = String::new();
    for d in docs {
        out.push_str("---\n");
        out.push_str(&serde_yaml::to_string(d).map_err(|e| Error::Output(e.to_string()))?);
    }
    Ok(out)
}

/// Our event model back as a core/v1 Event, as `kubectl get events -o yaml` would show it.
fn core_event(case: &Case, i: usize, e: &Event) -> Value {
    let (component, host) = match e.source.as_deref().and_then(|s| s.split_once(", ")) {
        Some((c, h)) => (Some(c.to_string()), Some(h.to_string())),
        None => (e.source.clone(), e.source_host.clone()),
    };
    let obj = e.object.clone().unwrap_or_default();
    let pod = case.pod_display_name().unwrap_or("pod");
    let ns = obj
        .namespace
        .clone()
        .or_else(|| case.pod_namespace().map(str::to_string))
        .unwrap_or_default();
    let mut v = json!({
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {"name": format!("{pod}.volmnt{i}"), "namespace": ns},
        "involvedObject": {"kind": obj.kind.unwrap_or_else(|| "Pod".into()), "name": obj.name.unwrap_or_else(|| pod.to_string()), "namespace": ns, "uid": obj.uid},
        "reason": e.reason,
        "message": e.message,
        "type": e.kind,
        "source": {"component": component, "host": host},
        "count": e.count,
    });
    // The times the API gave, so a replay shows the same ages and repeats ("x12 over 9m");
    // describe ages ("8m49s") are not times and are left out.
    let rfc3339 = |t: i64| {
        k8s_openapi::jiff::Timestamp::from_second(t)
            .ok()
            .map(|t| t.to_string())
    };
    if let Some(t) = e.first_seen.and_then(rfc3339) {
        v["firstTimestamp"] = t.into();
    }
    match e.last_seen.and_then(rfc3339) {
        Some(t) => v["lastTimestamp"] = t.into(),
        None => {
            if let Some(a) = e
                .age
                .as_deref()
                .filter(|a| a.contains('T') && a.ends_with('Z'))
            {
                v["lastTimestamp"] = a.into();
            }
        }
    }
    v
}

/// Serialising any k8s-openapi object to a JSON value without naming each type.
mod erased {
    pub trait Ser {
        fn value(&self) -> serde_json::Value;
    }
    impl<T: serde::Serialize> Ser for T {
        fn value(&self) -> serde_json::Value {
            serde_json::to_value(self).unwrap_or(serde_json::Value::Null)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collect::offline;
    use serde_json::json;

    /// What the cluster's evidence adds to a case (DaemonSets, owners, plugin and kubelet log
    /// lines, what could not be read) is written and read back as it was.
    #[test]
    fn the_cluster_evidence_replays_as_it_was_saved() {
        let mut case = Case {
            pod_name: Some("db-0".into()),
            namespace: Some("data".into()),
            pod: Some(
                serde_json::from_value(json!({
                    "metadata": {"name": "db-0", "namespace": "data", "uid": "u-1"},
                    "spec": {"nodeName": "n1", "containers": []}
                }))
                .unwrap(),
            ),
            daemonsets: vec![serde_json::from_value(json!({
                "metadata": {"name": "ebs-csi-node", "namespace": "kube-system"},
                "spec": {"selector": {}, "template": {"spec": {"containers": [
                    {"name": "node-driver-registrar", "args": ["--kubelet-registration-path=/var/lib/kubelet/plugins/ebs.csi.aws.com/csi.sock"]}
                ]}}},
                "status": {"desiredNumberScheduled": 3, "currentNumberScheduled": 3, "numberReady": 2, "numberMisscheduled": 0}
            }))
            .unwrap()],
            workloads: vec![Workload {
                kind: "StatefulSet".into(),
                namespace: Some("data".into()),
                name: "db".into(),
                strategy: Some("OnDelete".into()),
                replicas: Some(1),
                max_surge: None,
            }],
            plugin_logs: vec![PluginLogLine {
                source: "kube-system/ebs-csi-node-9fz2w/ebs-plugin".into(),
                line: crate::parse::plugin_log::parse_line(
                    r#"E1121 10:07:41.799613       1 driver.go:107] "GRPC error" err="no device path for device \"/dev/xvdac\" volume \"vol-02d38d88d79844a04\"""#,
                    5,
                ),
            }],
            logs: crate::parse::klog::parse_klog(
                "E1121 10:07:41.802391    2741 nestedpendingoperations.go:348] MountVolume.MountDevice failed for volume \"pvc-1\" pod \"db-0\" (UID: \"u-1\")",
            ),
            unavailable: vec!["kubelet log query of node n1: the kubelet has enableSystemLogQuery off".into()],
            ..Case::default()
        };
        case.events.push(Event {
            kind: Some("Warning".into()),
            reason: "FailedMount".into(),
            message: "MountVolume.MountDevice failed".into(),
            ..Event::default()
        });
        let dir = std::env::temp_dir().join(format!("volmnt-save-{}", std::process::id()));
        write(&dir, &case).unwrap();
        let mut back = Case::default();
        for s in
            offline::read_inputs(&dir.to_string_lossy(), 1 << 20, &mut std::io::empty()).unwrap()
        {
            offline::add_source(&mut back, &s).unwrap();
        }
        let _ = std::fs::remove_dir_all(&dir);
        assert_eq!(back.daemonsets, case.daemonsets);
        assert_eq!(back.workloads, case.workloads);
        assert_eq!(back.plugin_logs, case.plugin_logs);
        assert_eq!(back.logs, case.logs);
        assert_eq!(back.unavailable, case.unavailable);
        // Said by the report's `unavailable`, not repeated among the notes.
        assert!(back.notes.is_empty(), "{:?}", back.notes);
    }
}
