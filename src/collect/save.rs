//! `doctor pod --save DIR`: what was read from the cluster, written so `--from-file DIR` replays
//! the same diagnosis later (events expire after about an hour; a saved case can be attached to
//! a ticket). Secrets never appear: only their names were ever read.

use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::error::{Error, Result};
use crate::model::{Case, Denied, Event, ObjectRef};

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
        node_facts: case.node_facts.clone(),
    };
    // Redacted as a whole: flags, mount options and log lines may hold what must not be kept.
    let mut facts = serde_json::to_value(&facts).map_err(|e| Error::Output(e.to_string()))?;
    crate::redact::redact_value(&mut facts);
    let facts = serde_yaml::to_string(&facts).map_err(|e| Error::Output(e.to_string()))?;
    let pod = case.pod_display_name().unwrap_or("POD");
    let ns = case.pod_namespace().unwrap_or("default");
    let readme = format!(
        "Saved by volmnt doctor pod {pod} -n {ns}.\n\
         Replay: volmnt doctor pod {pod} -n {ns} --from-file {dir}\n\
         objects.yaml  the pod, the other pods on its claims, PVCs, PVs, nodes, StorageClasses, CSIDrivers, CSINodes, VolumeAttachments\n\
         events.yaml   the pod's events (core/v1)\n\
         case.yaml     objects the API said do not exist, reads that were refused, ConfigMap/Secret names (never their data), the node's facts\n",
        dir = dir.display()
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
    // Timestamps from the API are RFC 3339; describe ages ("8m49s") are not and are left out.
    if let Some(a) = e
        .age
        .as_deref()
        .filter(|a| a.contains('T') && a.ends_with('Z'))
    {
        v["lastTimestamp"] = a.into();
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
