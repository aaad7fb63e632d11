//! Saved Kubernetes objects: `kubectl get ... -o yaml|json`, a `List`/`PodList`/`EventList`,
//! multi-document YAML, and events of both the core/v1 and the events.k8s.io/v1 API.
//!
//! Every document goes through `serde_json::Value` first (YAML is converted), so dispatching on
//! `apiVersion` + `kind` happens once, in one place, before the typed k8s-openapi deserialisation.

use std::sync::LazyLock;

use k8s_openapi::api::core::v1::{
    Event as CoreEvent, Node, ObjectReference, PersistentVolume, PersistentVolumeClaim, Pod,
};
use k8s_openapi::api::events::v1::Event as EventsV1Event;
use k8s_openapi::api::storage::v1::{CSIDriver, StorageClass, VolumeAttachment};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use regex::Regex;
use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::Value;

use crate::error::ParseError;
use crate::model::{Event, ObjectRef, Origin};

const WHAT: &str = "Kubernetes objects (kubectl get -o yaml|json)";

/// The annotation `kubectl apply` leaves behind: for a Secret it holds the whole manifest,
/// data included, so it must never be kept.
const LAST_APPLIED: &str = "kubectl.kubernetes.io/last-applied-configuration";

/// One object read from a saved `kubectl get -o yaml|json`.
#[derive(Debug, Clone, PartialEq)]
pub enum KubeObject {
    /// A core/v1 Pod.
    Pod(Box<Pod>),
    /// An event of either API, already converted to the project's model.
    Event(Event),
    /// A core/v1 PersistentVolumeClaim.
    PersistentVolumeClaim(Box<PersistentVolumeClaim>),
    /// A core/v1 PersistentVolume.
    PersistentVolume(Box<PersistentVolume>),
    /// A storage.k8s.io StorageClass (v1beta1 read as v1).
    StorageClass(Box<StorageClass>),
    /// A storage.k8s.io CSIDriver (v1beta1 read as v1).
    CsiDriver(Box<CSIDriver>),
    /// A storage.k8s.io VolumeAttachment (v1beta1 read as v1).
    VolumeAttachment(Box<VolumeAttachment>),
    /// A core/v1 Node.
    Node(Box<Node>),
    /// An apps/v1 DaemonSet (apps/v1beta2, apps/v1beta1 and extensions/v1beta1 read as v1):
    /// a CSI node plugin's, perhaps.
    DaemonSet(Box<k8s_openapi::api::apps::v1::DaemonSet>),
    /// A Deployment, ReplicaSet or StatefulSet, as far as its rollout matters.
    Workload(crate::model::Workload),
    /// A storage.k8s.io CSINode (v1beta1 read as v1).
    CsiNode(Box<k8s_openapi::api::storage::v1::CSINode>),
    /// Only the metadata: a ConfigMap's data is not needed to diagnose a mount.
    ConfigMap(ObjectMeta),
    /// Only the metadata (without the last-applied annotation): secret data is never kept.
    Secret(ObjectMeta),
    /// Any other kind, remembered by name so the input summary can say what was skipped.
    Other {
        api_version: String,
        kind: String,
        name: Option<String>,
    },
}

impl KubeObject {
    /// The object's `kind` as the API spells it.
    pub fn kind(&self) -> &str {
        match self {
            KubeObject::Pod(_) => "Pod",
            KubeObject::Event(_) => "Event",
            KubeObject::PersistentVolumeClaim(_) => "PersistentVolumeClaim",
            KubeObject::PersistentVolume(_) => "PersistentVolume",
            KubeObject::StorageClass(_) => "StorageClass",
            KubeObject::CsiDriver(_) => "CSIDriver",
            KubeObject::VolumeAttachment(_) => "VolumeAttachment",
            KubeObject::Node(_) => "Node",
            KubeObject::DaemonSet(_) => "DaemonSet",
            KubeObject::Workload(w) => &w.kind,
            KubeObject::CsiNode(_) => "CSINode",
            KubeObject::ConfigMap(_) => "ConfigMap",
            KubeObject::Secret(_) => "Secret",
            KubeObject::Other { kind, .. } => kind,
        }
    }
}

/// True when the first document of `text` is a JSON or YAML object with `apiVersion` and `kind`.
pub fn looks_like_objects(text: &str) -> bool {
    let (body, _) = strip_prompt(text);
    let body = body.trim_start_matches('\u{feff}');
    let trimmed = body.trim_start();
    if trimmed.starts_with('{') || trimmed.starts_with('[') {
        if too_deep(trimmed).is_some() {
            // Not worth parsing to sniff: parse_objects says why it is refused.
            return true;
        }
        return first_json_value(trimmed).is_some_and(|v| has_type_meta(&v));
    }
    // Cheap gate before a YAML parse: a kubelet log or a describe does not start like a mapping.
    if !starts_like_yaml_mapping(body) {
        return false;
    }
    first_yaml_value(body).is_some_and(|v| has_type_meta(&v))
}

/// The most objects one input may hold (documents, and the items of lists). A saved case is
/// a pod and what surrounds it, or a namespace's worth; a dump larger than this is refused
/// with its count instead of being held in memory (each object costs a few KiB parsed).
pub const MAX_OBJECTS: usize = 50_000;

/// Every object in a saved `kubectl get -o yaml|json`, lists flattened, in input order. Each
/// document is turned into its object as soon as it is read, so only one document is held as
/// a generic value at a time.
pub fn parse_objects(text: &str) -> Result<Vec<KubeObject>, ParseError> {
    let mut out = Vec::new();
    let mut docs = 0usize;
    for_each_document(text, &mut |doc| {
        docs += 1;
        collect_document(doc, &mut out)?;
        if out.len() > MAX_OBJECTS {
            return Err(ParseError::new(
                WHAT,
                format!(
                    "more than {MAX_OBJECTS} objects (documents and list items) in one input; save the pod's namespace, or only the objects around the pod"
                ),
            ));
        }
        Ok(())
    })?;
    if docs == 0 {
        return Err(ParseError::new(
            WHAT,
            "empty input: no YAML or JSON document",
        ));
    }
    Ok(out)
}

// ---------------------------------------------------------------------------------------------
// Reading documents

/// A shell prompt followed by the command, as pasted from a terminal
/// (`[root@k8s-master-01 opt]# kubectl get pod x -o yaml`, `$ kubectl ...`, `root@h:~# oc ...`).
static PROMPT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\s*(?:\[[^\]\n]*\]|[\w.@:~/-]*)\s*[#$%>]\s*(?:sudo\s+)?\S*(?:kubectl|oc)\s")
        .expect("prompt regex")
});

/// Drops a leading pasted shell-prompt line; returns the rest and how many lines were dropped.
fn strip_prompt(text: &str) -> (&str, usize) {
    let start = text.len() - text.trim_start_matches(['\n', '\r', ' ', '\t']).len();
    let rest = &text[start..];
    let first_line_end = rest.find('\n').unwrap_or(rest.len());
    if PROMPT.is_match(&rest[..first_line_end]) {
        let skipped = text[..start].matches('\n').count() + 1;
        let after = rest.get(first_line_end + 1..).unwrap_or("");
        (after, skipped)
    } else {
        (text, 0)
    }
}

/// Each document of a JSON stream or a multi-document YAML, in order, empty documents dropped.
fn for_each_document(
    text: &str,
    f: &mut dyn FnMut(Value) -> Result<(), ParseError>,
) -> Result<(), ParseError> {
    let (body, skipped) = strip_prompt(text);
    let body = body.trim_start_matches('\u{feff}');
    let trimmed = body.trim_start();
    if trimmed.is_empty() {
        return Ok(());
    }
    if trimmed.starts_with('{') || trimmed.starts_with('[') {
        // Line numbers count from the start of the input, not of the trimmed JSON.
        let lead = skipped + body[..body.len() - trimmed.len()].matches('\n').count();
        json_documents(trimmed, lead, f)
    } else {
        yaml_documents(body, skipped, f)
    }
}

fn nested_too_deep(line: usize, col: usize) -> ParseError {
    ParseError::new(
        WHAT,
        format!(
            "nested more than {MAX_NESTING} levels deep (column {col}); Kubernetes objects are not"
        ),
    )
    .at(line)
}

/// Several JSON values back to back are accepted: people concatenate `kubectl get -o json` runs.
fn json_documents(
    text: &str,
    lead_lines: usize,
    f: &mut dyn FnMut(Value) -> Result<(), ParseError>,
) -> Result<(), ParseError> {
    // The same bound as YAML's, said the same way (serde_json's own limit, 128, would read as
    // a syntax error).
    if let Some((line, col)) = too_deep(text) {
        return Err(nested_too_deep(line + lead_lines, col));
    }
    for r in serde_json::Deserializer::from_str(text).into_iter::<Value>() {
        let v = r.map_err(|e| {
            let full = e.to_string();
            let msg = without_location(&full);
            ParseError::new(WHAT, format!("invalid JSON: {msg} (column {})", e.column()))
                .at(e.line() + lead_lines)
        })?;
        f(v)?;
    }
    Ok(())
}

/// Nesting volmnt accepts in saved objects: Kubernetes objects are a few levels deep (a pod spec
/// is under 20); YAML parsers take time quadratic in nesting (50,000 nested `[` took seconds),
/// so deeper input is refused before any parse.
pub const MAX_NESTING: usize = 256;

/// Where `text` nests deeper than [`MAX_NESTING`] (1-based line and column), by a linear scan
/// of flow brackets and of block sequences opened on one line (`- - - x`), outside quotes and
/// comments.
pub fn too_deep(text: &str) -> Option<(usize, usize)> {
    let bytes = text.as_bytes();
    let (mut depth, mut line, mut col) = (0usize, 1usize, 0usize);
    let mut quote: Option<u8> = None;
    let mut at_line_start = true;
    let mut block = 0usize;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        col += 1;
        if b == b'\n' {
            line += 1;
            col = 0;
            at_line_start = true;
            block = 0;
            if quote == Some(b'\'') || quote == Some(b'"') {
                // quoted scalars may span lines; keep the quote open
            }
            i += 1;
            continue;
        }
        match quote {
            Some(q) => {
                if q == b'"' && b == b'\\' {
                    i += 2;
                    col += 1;
                    continue;
                }
                if b == q {
                    quote = None;
                }
            }
            None => match b {
                b'\'' | b'"' => quote = Some(b),
                b'#' if i == 0 || bytes[i - 1].is_ascii_whitespace() => {
                    while i < bytes.len() && bytes[i] != b'\n' {
                        i += 1;
                    }
                    continue;
                }
                b'[' | b'{' => {
                    depth += 1;
                    if depth + block > MAX_NESTING {
                        return Some((line, col));
                    }
                }
                b']' | b'}' => depth = depth.saturating_sub(1),
                b'-' if at_line_start && bytes.get(i + 1).is_some_and(|c| *c == b' ') => {
                    block += 1;
                    if depth + block > MAX_NESTING {
                        return Some((line, col));
                    }
                }
                b' ' | b'\t' => {}
                _ => at_line_start = false,
            },
        }
        i += 1;
    }
    None
}

fn yaml_documents(
    text: &str,
    lead_lines: usize,
    f: &mut dyn FnMut(Value) -> Result<(), ParseError>,
) -> Result<(), ParseError> {
    if let Some((line, col)) = too_deep(text) {
        return Err(nested_too_deep(line + lead_lines, col));
    }
    for doc in serde_yaml::Deserializer::from_str(text) {
        let value = serde_yaml::Value::deserialize(doc).map_err(|e| yaml_error(&e, lead_lines))?;
        if value.is_null() {
            continue; // `---` followed by nothing, or a document of comments only
        }
        f(yaml_to_json(value)?)?;
    }
    Ok(())
}

fn yaml_error(e: &serde_yaml::Error, lead_lines: usize) -> ParseError {
    let full = e.to_string();
    let msg = without_location(&full);
    match e.location() {
        Some(loc) => ParseError::new(
            WHAT,
            format!("invalid YAML: {msg} (column {})", loc.column()),
        )
        .at(loc.line() + lead_lines),
        None => ParseError::new(WHAT, format!("invalid YAML: {msg}")),
    }
}

/// serde's message without its trailing `at line L column C`: the line is reported by
/// [`ParseError::at`], counted from the start of the input rather than of the parsed part.
fn without_location(msg: &str) -> &str {
    match msg.rfind(" at line ") {
        Some(i) if msg[i..].contains(" column ") => &msg[..i],
        _ => msg,
    }
}

fn yaml_to_json(value: serde_yaml::Value) -> Result<Value, ParseError> {
    serde_json::to_value(value)
        .map_err(|e| ParseError::new(WHAT, format!("YAML that JSON cannot represent: {e}")))
}

fn first_json_value(text: &str) -> Option<Value> {
    serde_json::Deserializer::from_str(text)
        .into_iter::<Value>()
        .next()?
        .ok()
}

fn first_yaml_value(text: &str) -> Option<Value> {
    if too_deep(text).is_some() {
        // Not worth parsing to sniff: the parser's own error says why.
        return Some(serde_json::json!({"apiVersion": "?", "kind": "?"}));
    }
    serde_yaml::Deserializer::from_str(text)
        .map(serde_yaml::Value::deserialize)
        .find(|r| !matches!(r, Ok(serde_yaml::Value::Null)))?
        .ok()
        .and_then(|v| serde_json::to_value(v).ok())
}

/// The first meaningful line is `---`, a comment, or a `key:` at column 0.
fn starts_like_yaml_mapping(text: &str) -> bool {
    static KEY: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"^[A-Za-z_][\w.-]*:(?:\s|$)").expect("key regex"));
    text.lines()
        .map(str::trim_end)
        .find(|l| !l.is_empty() && !l.starts_with('#') && *l != "---")
        .is_some_and(|l| KEY.is_match(l))
}

fn has_type_meta(v: &Value) -> bool {
    match v {
        Value::Array(items) => items.first().is_some_and(has_type_meta),
        _ => str_at(v, &["apiVersion"]).is_some() && str_at(v, &["kind"]).is_some(),
    }
}

// ---------------------------------------------------------------------------------------------
// Dispatch

fn collect_document(doc: Value, out: &mut Vec<KubeObject>) -> Result<(), ParseError> {
    match doc {
        // `kubectl get -o json | jq .items` gives a bare array of objects.
        Value::Array(items) => items.into_iter().try_for_each(|i| collect_object(i, out)),
        Value::Object(_) => collect_object(doc, out),
        other => Err(not_an_object(&other)),
    }
}

fn not_an_object(v: &Value) -> ParseError {
    let what = match v {
        Value::Null => "nothing",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a plain string",
        Value::Array(_) => "an array",
        Value::Object(_) => "a mapping",
    };
    ParseError::new(
        WHAT,
        format!("not a Kubernetes object: no apiVersion/kind (found {what})"),
    )
}

fn collect_object(mut v: Value, out: &mut Vec<KubeObject>) -> Result<(), ParseError> {
    let (Some(api_version), Some(kind)) = (str_at(&v, &["apiVersion"]), str_at(&v, &["kind"]))
    else {
        return Err(not_an_object(&v));
    };
    let (api_version, kind) = (api_version.to_string(), kind.to_string());
    if kind.ends_with("List") {
        if let Some(Value::Array(items)) = v.get_mut("items") {
            // A typed list read from the API (`PodList`) leaves apiVersion/kind off its items.
            let item_kind = kind.strip_suffix("List").filter(|k| !k.is_empty());
            for item in std::mem::take(items) {
                collect_object(with_type_meta(item, &api_version, item_kind), out)?;
            }
            return Ok(());
        }
    }
    out.push(to_object(&api_version, &kind, v)?);
    Ok(())
}

fn with_type_meta(mut item: Value, api_version: &str, kind: Option<&str>) -> Value {
    if let (Some(kind), Value::Object(map)) = (kind, &mut item) {
        map.entry("apiVersion")
            .or_insert_with(|| Value::String(api_version.to_string()));
        map.entry("kind")
            .or_insert_with(|| Value::String(kind.to_string()));
    }
    item
}

fn to_object(api_version: &str, kind: &str, v: Value) -> Result<KubeObject, ParseError> {
    Ok(match (api_version, kind) {
        ("v1", "Pod") => KubeObject::Pod(typed(kind, v)?),
        ("v1", "PersistentVolumeClaim") => KubeObject::PersistentVolumeClaim(typed(kind, v)?),
        ("v1", "PersistentVolume") => KubeObject::PersistentVolume(typed(kind, v)?),
        ("v1", "Node") => KubeObject::Node(typed(kind, v)?),
        ("v1", "Event") => KubeObject::Event(core_event(&v)),
        ("events.k8s.io/v1" | "events.k8s.io/v1beta1", "Event") => {
            KubeObject::Event(events_v1_event(&v))
        }
        ("v1", "ConfigMap") => KubeObject::ConfigMap(metadata_only(kind, &v)?),
        ("v1", "Secret") => {
            let mut meta = metadata_only(kind, &v)?;
            if let Some(a) = meta.annotations.as_mut() {
                a.remove(LAST_APPLIED);
            }
            KubeObject::Secret(meta)
        }
        ("storage.k8s.io/v1" | "storage.k8s.io/v1beta1", _) => storage_object(kind, v)?,
        (APPS_V1 | "apps/v1beta2" | "apps/v1beta1" | "extensions/v1beta1", "DaemonSet") => {
            KubeObject::DaemonSet(typed(kind, as_version(v, APPS_V1))?)
        }
        (
            APPS_V1 | "apps/v1beta2" | "apps/v1beta1" | "extensions/v1beta1",
            "Deployment" | "ReplicaSet" | "StatefulSet",
        ) => KubeObject::Workload(workload(kind, &v)),
        _ => KubeObject::Other {
            api_version: api_version.to_string(),
            kind: kind.to_string(),
            name: str_at(&v, &["metadata", "name"]).map(str::to_string),
        },
    })
}

const APPS_V1: &str = "apps/v1";

/// The object relabelled with `api_version`: the beta versions of apps/v1 and storage.k8s.io/v1
/// have the v1 schema for what volmnt reads, and k8s-openapi checks apiVersion.
fn as_version(mut v: Value, api_version: &str) -> Value {
    if let Value::Object(map) = &mut v {
        map.insert("apiVersion".into(), Value::String(api_version.into()));
    }
    v
}

/// A Deployment, ReplicaSet or StatefulSet as a workload: read from the value rather than
/// typed, so a pasted fragment (`spec.strategy` without a name) still says its strategy.
fn workload(kind: &str, v: &Value) -> crate::model::Workload {
    let strategy = match kind {
        "Deployment" => str_at(v, &["spec", "strategy", "type"]),
        "StatefulSet" => str_at(v, &["spec", "updateStrategy", "type"]),
        _ => None,
    };
    let max_surge = v
        .pointer("/spec/strategy/rollingUpdate/maxSurge")
        .filter(|_| kind == "Deployment")
        .and_then(|m| match m {
            Value::String(s) => Some(s.clone()),
            Value::Number(n) => Some(n.to_string()),
            _ => None,
        });
    crate::model::Workload {
        kind: kind.to_string(),
        namespace: str_at(v, &["metadata", "namespace"]).map(str::to_string),
        name: str_at(v, &["metadata", "name"]).unwrap_or("").to_string(),
        strategy: strategy.map(str::to_string),
        replicas: v
            .pointer("/spec/replicas")
            .and_then(Value::as_i64)
            .and_then(|n| i32::try_from(n).ok()),
        max_surge,
    }
}

/// storage.k8s.io/v1beta1 objects (clusters before 1.19/1.22) have the v1 schema for what we
/// read, so they are relabelled v1; k8s-openapi checks apiVersion and would refuse them.
fn storage_object(kind: &str, mut v: Value) -> Result<KubeObject, ParseError> {
    if !matches!(
        kind,
        "StorageClass" | "CSIDriver" | "VolumeAttachment" | "CSINode"
    ) {
        return Ok(KubeObject::Other {
            api_version: str_at(&v, &["apiVersion"]).unwrap_or_default().to_string(),
            kind: kind.to_string(),
            name: str_at(&v, &["metadata", "name"]).map(str::to_string),
        });
    }
    if let Value::Object(map) = &mut v {
        map.insert(
            "apiVersion".into(),
            Value::String("storage.k8s.io/v1".into()),
        );
    }
    Ok(match kind {
        "StorageClass" => KubeObject::StorageClass(typed(kind, v)?),
        "CSIDriver" => KubeObject::CsiDriver(typed(kind, v)?),
        "CSINode" => KubeObject::CsiNode(typed(kind, v)?),
        _ => KubeObject::VolumeAttachment(typed(kind, v)?),
    })
}

/// Typed deserialisation; a failure names the object so the operator can find it in the file.
fn typed<T: DeserializeOwned>(kind: &str, v: Value) -> Result<Box<T>, ParseError> {
    let name = object_label(&v);
    serde_json::from_value::<T>(v)
        .map(Box::new)
        .map_err(|e| ParseError::new(WHAT, format!("{kind} {name}: {e}")))
}

fn metadata_only(kind: &str, v: &Value) -> Result<ObjectMeta, ParseError> {
    let Some(meta) = v.get("metadata") else {
        return Ok(ObjectMeta::default());
    };
    // Only the metadata subtree is cloned: the data never leaves the input Value.
    serde_json::from_value(meta.clone()).map_err(|e| {
        ParseError::new(
            WHAT,
            format!("{kind} {}: bad metadata: {e}", object_label(v)),
        )
    })
}

fn object_label(v: &Value) -> String {
    match (
        str_at(v, &["metadata", "namespace"]),
        str_at(v, &["metadata", "name"]),
    ) {
        (Some(ns), Some(name)) => format!("{ns}/{name}"),
        (None, Some(name)) => name.to_string(),
        _ => "(unnamed)".to_string(),
    }
}

/// A non-empty string at `path` in `v`.
fn str_at<'a>(v: &'a Value, path: &[&str]) -> Option<&'a str> {
    path.iter()
        .try_fold(v, |v, key| v.get(key))?
        .as_str()
        .filter(|s| !s.is_empty())
}

fn u32_at(v: &Value, path: &[&str]) -> Option<u32> {
    let n = path.iter().try_fold(v, |v, key| v.get(key))?;
    n.as_u64().and_then(|n| u32::try_from(n).ok())
}

// ---------------------------------------------------------------------------------------------
// Events
//
// Field names follow the Kubernetes API reference as generated into k8s-openapi 0.29
// (`k8s_openapi::api::core::v1::Event`, `k8s_openapi::api::events::v1::Event`,
// https://kubernetes.io/docs/reference/kubernetes-api/cluster-resources/event-v1/).
// Timestamps are taken from the input text as written, not re-formatted from the parsed time.

/// The parts of an event of either API that the model needs.
#[derive(Default)]
struct EventFields {
    type_: Option<String>,
    reason: Option<String>,
    message: Option<String>,
    object: Option<ObjectRef>,
    component: Option<String>,
    host: Option<String>,
    reporting_controller: Option<String>,
    reporting_instance: Option<String>,
    count: Option<i64>,
}

/// Where a core/v1 event keeps its last and first sighting, best first.
const CORE_LAST: &[&[&str]] = &[
    &["lastTimestamp"],
    &["series", "lastObservedTime"],
    &["eventTime"],
    &["firstTimestamp"],
    &["metadata", "creationTimestamp"],
];
const CORE_FIRST: &[&[&str]] = &[
    &["firstTimestamp"],
    &["eventTime"],
    &["lastTimestamp"],
    &["metadata", "creationTimestamp"],
];
/// The same for events.k8s.io/v1 (the latest observation first, as for lastTimestamp).
const V1_LAST: &[&[&str]] = &[
    &["series", "lastObservedTime"],
    &["deprecatedLastTimestamp"],
    &["eventTime"],
    &["deprecatedFirstTimestamp"],
    &["metadata", "creationTimestamp"],
];
const V1_FIRST: &[&[&str]] = &[
    &["deprecatedFirstTimestamp"],
    &["eventTime"],
    &["deprecatedLastTimestamp"],
    &["metadata", "creationTimestamp"],
];

/// A core/v1 Event (as the API serves it) in the model; the live collector uses this too.
pub fn from_core_event(e: &CoreEvent) -> Event {
    let fields = EventFields {
        count: e
            .series
            .as_ref()
            .and_then(|s| s.count)
            .or(e.count)
            .map(i64::from),
        type_: e.type_.clone(),
        reason: e.reason.clone(),
        message: e.message.clone(),
        object: Some(object_ref(&e.involved_object)),
        component: e.source.as_ref().and_then(|s| s.component.clone()),
        host: e.source.as_ref().and_then(|s| s.host.clone()),
        reporting_controller: e.reporting_component.clone(),
        reporting_instance: e.reporting_instance.clone(),
    };
    let last = e
        .last_timestamp
        .as_ref()
        .map(|t| t.0)
        .or_else(|| {
            e.series
                .as_ref()
                .and_then(|s| s.last_observed_time.as_ref())
                .map(|t| t.0)
        })
        .or_else(|| e.event_time.as_ref().map(|t| t.0))
        .or_else(|| e.first_timestamp.as_ref().map(|t| t.0))
        .or_else(|| e.metadata.creation_timestamp.as_ref().map(|t| t.0));
    let first = e
        .first_timestamp
        .as_ref()
        .map(|t| t.0)
        .or_else(|| e.event_time.as_ref().map(|t| t.0))
        .or(last);
    let mut ev = finish_event(fields, last.map(|t| t.to_string()), Origin::CoreV1);
    ev.last_seen = last.map(|t| t.as_second());
    ev.first_seen = first.map(|t| t.as_second());
    ev
}

/// An events.k8s.io/v1 Event in the model; the live collector uses this too.
pub fn from_events_v1(e: &EventsV1Event) -> Event {
    let fields = EventFields {
        count: e
            .series
            .as_ref()
            .map(|s| s.count)
            .or(e.deprecated_count)
            .map(i64::from),
        type_: e.type_.clone(),
        reason: e.reason.clone(),
        message: e.note.clone(),
        object: e.regarding.as_ref().map(object_ref),
        component: e
            .deprecated_source
            .as_ref()
            .and_then(|s| s.component.clone()),
        host: e.deprecated_source.as_ref().and_then(|s| s.host.clone()),
        reporting_controller: e.reporting_controller.clone(),
        reporting_instance: e.reporting_instance.clone(),
    };
    let last = e
        .series
        .as_ref()
        .map(|s| s.last_observed_time.0)
        .or_else(|| e.deprecated_last_timestamp.as_ref().map(|t| t.0))
        .or_else(|| e.event_time.as_ref().map(|t| t.0))
        .or_else(|| e.deprecated_first_timestamp.as_ref().map(|t| t.0))
        .or_else(|| e.metadata.creation_timestamp.as_ref().map(|t| t.0));
    let first = e
        .deprecated_first_timestamp
        .as_ref()
        .map(|t| t.0)
        .or_else(|| e.event_time.as_ref().map(|t| t.0))
        .or(last);
    let mut ev = finish_event(fields, last.map(|t| t.to_string()), Origin::EventsV1);
    ev.last_seen = last.map(|t| t.as_second());
    ev.first_seen = first.map(|t| t.as_second());
    ev
}

fn core_event(v: &Value) -> Event {
    // Typed first; a hand-written or odd event (bad timestamp, wrong field type) still
    // yields what can be read from the raw value.
    let mut ev = match serde_json::from_value::<CoreEvent>(v.clone()) {
        Ok(e) => from_core_event(&e),
        Err(_) => {
            let fields = loose_fields(
                v,
                "involvedObject",
                "source",
                "reportingComponent",
                &["count"],
            );
            let mut ev = finish_event(fields, first_str(v, CORE_LAST), Origin::CoreV1);
            ev.last_seen = first_time(v, CORE_LAST);
            ev.first_seen = first_time(v, CORE_FIRST);
            ev
        }
    };
    // As written in the input, not re-formatted.
    ev.age = first_str(v, CORE_LAST);
    ev
}

fn events_v1_event(v: &Value) -> Event {
    let mut ev = match serde_json::from_value::<EventsV1Event>(v.clone()) {
        Ok(e) => from_events_v1(&e),
        Err(_) => {
            let fields = loose_fields(
                v,
                "regarding",
                "deprecatedSource",
                "reportingController",
                &["deprecatedCount"],
            );
            let mut ev = finish_event(fields, first_str(v, V1_LAST), Origin::EventsV1);
            ev.last_seen = first_time(v, V1_LAST);
            ev.first_seen = first_time(v, V1_FIRST);
            ev
        }
    };
    ev.age = first_str(v, V1_LAST);
    ev
}

/// The first of `paths` that holds a valid RFC 3339 time, as Unix seconds.
fn first_time(v: &Value, paths: &[&[&str]]) -> Option<i64> {
    paths.iter().find_map(|p| {
        let s = str_at(v, p)?;
        s.parse::<k8s_openapi::jiff::Timestamp>()
            .ok()
            .map(|t| t.as_second())
    })
}

/// Reads an event from the raw value when the typed form refused it; names differ per API.
fn loose_fields(
    v: &Value,
    object_key: &str,
    source_key: &str,
    controller_key: &str,
    count_path: &[&str],
) -> EventFields {
    let s = |path: &[&str]| str_at(v, path).map(str::to_string);
    let object = v.get(object_key).map(|o| ObjectRef {
        kind: str_at(o, &["kind"]).map(str::to_string),
        namespace: str_at(o, &["namespace"]).map(str::to_string),
        name: str_at(o, &["name"]).map(str::to_string),
        uid: str_at(o, &["uid"]).map(str::to_string),
    });
    EventFields {
        type_: s(&["type"]),
        reason: s(&["reason"]),
        message: s(&["message"]).or_else(|| s(&["note"])),
        object,
        component: s(&[source_key, "component"]),
        host: s(&[source_key, "host"]),
        reporting_controller: s(&[controller_key]),
        reporting_instance: s(&["reportingInstance"]),
        count: u32_at(v, &["series", "count"])
            .or_else(|| u32_at(v, count_path))
            .map(i64::from),
    }
}

fn object_ref(r: &ObjectReference) -> ObjectRef {
    ObjectRef {
        kind: r.kind.clone(),
        namespace: r.namespace.clone(),
        name: r.name.clone(),
        uid: r.uid.clone(),
    }
}

fn first_str(v: &Value, paths: &[&[&str]]) -> Option<String> {
    paths.iter().find_map(|p| str_at(v, p)).map(str::to_string)
}

fn finish_event(f: EventFields, age: Option<String>, origin: Origin) -> Event {
    let nonempty = |s: Option<String>| s.filter(|s| !s.is_empty());
    let component = nonempty(f.component).or(nonempty(f.reporting_controller));
    let host = nonempty(f.host);
    let instance = host.clone().or(nonempty(f.reporting_instance));
    // reportingInstance names a node only for the kubelet; for a controller it is a process
    // id (`kube-controller-manager-master1`), which must not be taken for the pod's node.
    let is_kubelet = component.as_deref() == Some("kubelet");
    let source_host = host.or_else(|| instance.clone().filter(|_| is_kubelet));
    Event {
        kind: nonempty(f.type_),
        reason: f.reason.unwrap_or_default(),
        message: f.message.unwrap_or_default(),
        source: format_source(component.as_deref(), instance.as_deref()),
        source_host,
        count: f
            .count
            .and_then(|c| u32::try_from(c).ok())
            .filter(|c| *c > 0),
        age,
        first_seen: None,
        last_seen: None,
        object: f.object.filter(|o| *o != ObjectRef::default()),
        origin,
        input: 0,
    }
}

/// `kubelet, node1` as kubectl describe prints the From column (kubernetes
/// pkg/printers/internalversion/printers.go, `formatEventSource`: component, then `, host` when
/// there is one; reportingController/reportingInstance stand in for missing parts).
fn format_source(component: Option<&str>, host: Option<&str>) -> Option<String> {
    match (component, host) {
        (Some(c), Some(h)) => Some(format!("{c}, {h}")),
        (Some(c), None) => Some(c.to_string()),
        (None, Some(h)) => Some(h.to_string()),
        (None, None) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NFS_DUMP: &str = include_str!("../../fixtures/synthetic/objects/nfs-incident.yaml");
    const CORE_EVENTS: &str =
        include_str!("../../fixtures/synthetic/objects/nfs-events-core-v1.json");
    const V1_EVENTS: &str =
        include_str!("../../fixtures/synthetic/objects/nfs-events-events-v1.yaml");
    const STORAGE: &str = include_str!("../../fixtures/synthetic/objects/storage-objects.yaml");
    const RANCHER: &str = include_str!("../../fixtures/seed/nfs-pvc-rancher.json");
    const BROKEN_NODE: &str = include_str!("../../fixtures/seed/node-volumes-attached.yaml");

    const NFS_MESSAGE: &str = "MountVolume.SetUp failed for volume \"nfs211\" : mount failed: exit status 32\nMounting command: systemd-run\nMounting arguments: --description=Kubernetes transient mount for /var/lib/kubelet/pods/cddc94e7-8033-4150-bed5-d141e3b71e49/volumes/kubernetes.io~nfs/nfs211 --scope -- mount -t nfs 10.20.172.211:/nfs /var/lib/kubelet/pods/cddc94e7-8033-4150-bed5-d141e3b71e49/volumes/kubernetes.io~nfs/nfs211\nOutput: Running scope as unit run-38284.scope.\nmount: wrong fs type, bad option, bad superblock on 10.20.172.211:/nfs,\n       missing codepage or helper program, or other error\n       (for several filesystems (e.g. nfs, cifs) you might\n       need a /sbin/mount.<type> helper program)\n\n       In some cases useful info is found in syslog - try\n       dmesg | tail or so.";

    fn events(objs: &[KubeObject]) -> Vec<&Event> {
        objs.iter()
            .filter_map(|o| match o {
                KubeObject::Event(e) => Some(e),
                _ => None,
            })
            .collect()
    }

    fn err(text: &str) -> ParseError {
        match parse_objects(text) {
            Err(e) => e,
            Ok(v) => panic!("expected an error, got {} objects", v.len()),
        }
    }

    #[test]
    fn nfs_incident_dump() {
        assert!(looks_like_objects(NFS_DUMP));
        let objs = parse_objects(NFS_DUMP).expect("parse");
        let kinds: Vec<&str> = objs.iter().map(KubeObject::kind).collect();
        assert_eq!(
            kinds,
            [
                "Pod",
                "PersistentVolumeClaim",
                "PersistentVolume",
                "Node",
                "Secret",
                "Deployment"
            ]
        );

        let KubeObject::Pod(pod) = &objs[0] else {
            panic!("pod")
        };
        assert_eq!(
            pod.metadata.name.as_deref(),
            Some("node1-nfs-test-547c4d7678-j6kwv")
        );
        assert_eq!(pod.metadata.namespace.as_deref(), Some("ops-test"));
        let spec = pod.spec.as_ref().expect("spec");
        assert_eq!(spec.node_name.as_deref(), Some("node1"));
        let claim = spec
            .volumes
            .as_ref()
            .and_then(|v| v.iter().find_map(|v| v.persistent_volume_claim.as_ref()))
            .expect("claim");
        assert_eq!(claim.claim_name, "nfs-211");
        let phase = pod.status.as_ref().and_then(|s| s.phase.as_deref());
        assert_eq!(phase, Some("Pending"));

        let KubeObject::PersistentVolumeClaim(pvc) = &objs[1] else {
            panic!("pvc")
        };
        let pvc_spec = pvc.spec.as_ref().expect("pvc spec");
        assert_eq!(pvc_spec.volume_name.as_deref(), Some("nfs211"));
        let pvc_phase = pvc.status.as_ref().and_then(|s| s.phase.as_deref());
        assert_eq!(pvc_phase, Some("Bound"));

        let KubeObject::PersistentVolume(pv) = &objs[2] else {
            panic!("pv")
        };
        let pv_spec = pv.spec.as_ref().expect("pv spec");
        let nfs = pv_spec.nfs.as_ref().expect("nfs source");
        assert_eq!(
            (nfs.server.as_str(), nfs.path.as_str()),
            ("10.20.172.211", "/nfs")
        );
        assert_eq!(pv_spec.storage_class_name.as_deref(), Some("nfs216"));
        assert_eq!(
            pv_spec.access_modes.as_deref(),
            Some(&["ReadWriteMany".to_string()][..])
        );
        let claim_ref = pv_spec.claim_ref.as_ref().expect("claimRef");
        assert_eq!(claim_ref.name.as_deref(), Some("nfs-211"));

        let KubeObject::Node(node) = &objs[3] else {
            panic!("node")
        };
        let status = node.status.as_ref().expect("node status");
        let info = status.node_info.as_ref().expect("nodeInfo");
        assert_eq!(info.os_image, "CentOS Linux 7 (Core)");
        assert_eq!(info.kernel_version, "3.10.0-1062.el7.x86_64");
        assert_eq!(info.kubelet_version, "v1.17.4");
        let ip = status
            .addresses
            .as_ref()
            .and_then(|a| a.iter().find(|a| a.type_ == "InternalIP"))
            .map(|a| a.address.as_str());
        assert_eq!(ip, Some("10.10.107.214"));
    }

    #[test]
    fn secret_keeps_no_data() {
        let objs = parse_objects(NFS_DUMP).expect("parse");
        let KubeObject::Secret(meta) = &objs[4] else {
            panic!("secret")
        };
        assert_eq!(meta.name.as_deref(), Some("default-token-f6wjj"));
        let annotations = meta.annotations.as_ref().expect("annotations");
        assert!(!annotations.contains_key(LAST_APPLIED));
        assert!(annotations.contains_key("kubernetes.io/service-account.name"));
        // The fixture's token and ca.crt values must not survive anywhere in the parsed form.
        let printed = format!("{objs:?}");
        assert!(!printed.contains("ZXlKaGJHY2lPaUpTVXpJMU5pSXNJbXRwWkNJNklpSjku"));
        assert!(!printed.contains("c2VjcmV0LXZhbHVl"));
    }

    #[test]
    fn a_deployment_is_read_for_its_rollout() {
        let objs = parse_objects(NFS_DUMP).expect("parse");
        assert_eq!(
            objs[5],
            KubeObject::Workload(crate::model::Workload {
                kind: "Deployment".into(),
                namespace: Some("ops-test".into()),
                name: "node1-nfs-test".into(),
                strategy: Some("RollingUpdate".into()),
                replicas: Some(2),
                max_surge: Some("1".into()),
            })
        );
    }

    #[test]
    fn other_kinds_are_named() {
        let objs = parse_objects("apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: backup\n")
            .expect("parse");
        assert_eq!(
            objs[0],
            KubeObject::Other {
                api_version: "batch/v1".into(),
                kind: "Job".into(),
                name: Some("backup".into()),
            }
        );
    }

    /// `kubectl get -o yaml` of a kube-apiserver v1.36.2 (fixtures/tables/): a DaemonSet, a
    /// StatefulSet, and a CSINode with no driver (`drivers: null`, as the API serves it).
    #[test]
    fn daemonsets_statefulsets_and_csinodes() {
        let body = |t: &'static str| t.split_once('\n').unwrap().1;
        let ds = parse_objects(body(include_str!(
            "../../fixtures/tables/daemonset.yaml.txt"
        )))
        .expect("parse");
        let KubeObject::DaemonSet(d) = &ds[0] else {
            panic!("{ds:?}")
        };
        let spec = d.spec.as_ref().unwrap().template.spec.as_ref().unwrap();
        assert_eq!(
            crate::model::cluster::registration_dirs(spec),
            ["fake.csi.example.com"]
        );
        let sts = parse_objects(body(include_str!(
            "../../fixtures/tables/statefulset-db.yaml.txt"
        )))
        .expect("parse");
        assert_eq!(
            sts[0],
            KubeObject::Workload(crate::model::Workload {
                kind: "StatefulSet".into(),
                namespace: Some("cev-shapes".into()),
                name: "db".into(),
                strategy: Some("RollingUpdate".into()),
                replicas: Some(1),
                max_surge: None,
            })
        );
        let cn = parse_objects(body(include_str!("../../fixtures/tables/csinode.yaml.txt")))
            .expect("parse");
        let KubeObject::CsiNode(n) = &cn[0] else {
            panic!("{cn:?}")
        };
        assert_eq!(n.metadata.name.as_deref(), Some("realnode"));
        assert!(n.spec.drivers.is_empty());
        // A fragment as pasted in a thread: no name, only the strategy.
        let frag = parse_objects(
            "apiVersion: apps/v1\nkind: Deployment\nspec:\n  strategy:\n    type: RollingUpdate\n",
        )
        .expect("parse");
        let KubeObject::Workload(w) = &frag[0] else {
            panic!("{frag:?}")
        };
        assert_eq!(w.strategy.as_deref(), Some("RollingUpdate"));
        // extensions/v1beta1 (before 1.16) is read as apps/v1.
        let old = parse_objects("apiVersion: extensions/v1beta1\nkind: DaemonSet\nmetadata:\n  name: csi-rbdplugin\nspec:\n  template:\n    spec:\n      containers: []\n")
            .expect("parse");
        assert_eq!(old[0].kind(), "DaemonSet");
    }

    #[test]
    fn core_v1_event_list() {
        assert!(looks_like_objects(CORE_EVENTS));
        let objs = parse_objects(CORE_EVENTS).expect("parse");
        let evs = events(&objs);
        assert_eq!(evs.len(), 2);
        let first = evs[0];
        assert_eq!(first.kind.as_deref(), Some("Warning"));
        assert!(first.is_warning());
        assert_eq!(first.reason, "FailedMount");
        assert_eq!(first.message, NFS_MESSAGE);
        assert_eq!(first.source.as_deref(), Some("kubelet, node1"));
        assert_eq!(first.source_host.as_deref(), Some("node1"));
        assert_eq!(first.count, Some(1));
        assert_eq!(first.age.as_deref(), Some("2020-04-30T09:00:35Z"));
        assert_eq!(first.origin, Origin::CoreV1);
        let obj = first.object.as_ref().expect("involvedObject");
        assert_eq!(obj.kind.as_deref(), Some("Pod"));
        assert_eq!(obj.namespace.as_deref(), Some("ops-test"));
        assert_eq!(obj.name.as_deref(), Some("node1-nfs-test-547c4d7678-j6kwv"));
        assert_eq!(
            obj.uid.as_deref(),
            Some("cddc94e7-8033-4150-bed5-d141e3b71e49")
        );
        assert_eq!(evs[1].message, NFS_MESSAGE);
        assert_eq!(evs[1].count, Some(1));
        assert_eq!(evs[1].age.as_deref(), Some("2020-04-30T09:00:36Z"));
    }

    #[test]
    fn events_v1_list_matches_core_v1() {
        assert!(looks_like_objects(V1_EVENTS));
        let objs = parse_objects(V1_EVENTS).expect("parse");
        let v1 = events(&objs);
        let core_objs = parse_objects(CORE_EVENTS).expect("parse");
        let core = events(&core_objs);
        assert_eq!(v1.len(), 2);
        for (a, b) in v1.iter().zip(&core) {
            assert_eq!(a.origin, Origin::EventsV1);
            assert_eq!(
                (
                    &a.kind,
                    &a.reason,
                    &a.message,
                    &a.source,
                    &a.source_host,
                    &a.object
                ),
                (
                    &b.kind,
                    &b.reason,
                    &b.message,
                    &b.source,
                    &b.source_host,
                    &b.object
                )
            );
        }
        // The first is a legacy event seen through the new API: deprecated* fields only.
        assert_eq!(v1[0].count, core[0].count);
        assert_eq!(v1[0].age, core[0].age);
        // The second is new-style: source from reportingController/Instance, count and time
        // from its series.
        assert_eq!(v1[1].count, Some(2));
        assert_eq!(v1[1].age.as_deref(), Some("2020-04-30T09:08:17.102943Z"));
    }

    #[test]
    fn event_without_metadata_still_gives_its_message() {
        let text = r#"{"apiVersion":"v1","kind":"Event","type":"Warning","reason":"FailedAttachVolume",
            "message":"Multi-Attach error for volume \"pvc-1\"","lastTimestamp":"not a time",
            "source":{"component":"attachdetach-controller"}}"#;
        let objs = parse_objects(text).expect("parse");
        let evs = events(&objs);
        assert_eq!(evs[0].message, "Multi-Attach error for volume \"pvc-1\"");
        assert_eq!(evs[0].source.as_deref(), Some("attachdetach-controller"));
        assert_eq!(evs[0].source_host, None);
        assert_eq!(evs[0].age.as_deref(), Some("not a time"));
        assert_eq!(evs[0].object, None);
    }

    #[test]
    fn events_v1beta1_and_reporting_fields() {
        let text = "apiVersion: events.k8s.io/v1beta1\nkind: Event\nnote: attach failed\n\
                    reason: FailedAttachVolume\ntype: Warning\n\
                    reportingController: attachdetach-controller\n\
                    reportingInstance: kube-controller-manager-master1\n\
                    deprecatedCount: 3\n\
                    regarding: {kind: Pod, name: p, namespace: ns}\n";
        let objs = parse_objects(text).expect("parse");
        let e = events(&objs)[0];
        assert_eq!(e.message, "attach failed");
        assert_eq!(e.count, Some(3));
        assert_eq!(
            e.source.as_deref(),
            Some("attachdetach-controller, kube-controller-manager-master1")
        );
        // A controller's instance is not a node name.
        assert_eq!(e.source_host, None);
        assert_eq!(e.origin, Origin::EventsV1);
    }

    #[test]
    fn storage_objects() {
        let objs = parse_objects(STORAGE).expect("parse");
        assert_eq!(objs.len(), 4);
        let KubeObject::StorageClass(sc) = &objs[0] else {
            panic!("sc")
        };
        assert_eq!(sc.metadata.name.as_deref(), Some("csi-rbd-sc"));
        assert_eq!(sc.provisioner, "rbd.csi.ceph.com");
        let params = sc.parameters.as_ref().expect("parameters");
        assert_eq!(params.get("pool").map(String::as_str), Some("kube"));
        let KubeObject::CsiDriver(d) = &objs[1] else {
            panic!("csidriver")
        };
        assert_eq!(d.metadata.name.as_deref(), Some("rbd.csi.ceph.com"));
        assert_eq!(d.spec.attach_required, Some(true));
        let KubeObject::VolumeAttachment(va) = &objs[2] else {
            panic!("va")
        };
        assert_eq!(va.spec.node_name, "node1");
        assert_eq!(
            va.spec.source.persistent_volume_name.as_deref(),
            Some("pvc-62702773-9386-4d7c-8bf3-8a3171a167a4")
        );
        let status = va.status.as_ref().expect("status");
        assert!(!status.attached);
        let msg = status
            .attach_error
            .as_ref()
            .and_then(|e| e.message.as_deref());
        assert!(msg.is_some_and(|m| m.contains("is not ready for workloads")));
        // A v1beta1 CSIDriver from an old cluster is read as v1.
        let KubeObject::CsiDriver(old) = &objs[3] else {
            panic!("v1beta1 csidriver")
        };
        assert_eq!(old.spec.pod_info_on_mount, Some(false));
    }

    #[test]
    fn typed_list_items_without_kind() {
        let text = "\n{\"apiVersion\":\"v1\",\"kind\":\"PodList\",\"items\":[{\"metadata\":{\"name\":\"a\"}},{\"metadata\":{\"name\":\"b\"}}]}";
        let objs = parse_objects(text).expect("parse");
        assert_eq!(objs.len(), 2);
        assert!(objs.iter().all(|o| o.kind() == "Pod"));
        assert!(
            parse_objects("{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[]}")
                .expect("empty list")
                .is_empty()
        );
    }

    #[test]
    fn documents_with_leading_separator_and_empty_ones() {
        let text = "---\n---\n# a comment only\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n  k: v\n---\n";
        let objs = parse_objects(text).expect("parse");
        assert_eq!(objs.len(), 1);
        let KubeObject::ConfigMap(meta) = &objs[0] else {
            panic!("cm")
        };
        assert_eq!(meta.name.as_deref(), Some("cm"));
    }

    #[test]
    fn pasted_prompt_line_is_skipped() {
        let text = "[root@k8s-master-01 opt]# kubectl get pv nfs211 -o json\n{\"apiVersion\":\"v1\",\"kind\":\"PersistentVolume\",\"metadata\":{\"name\":\"nfs211\"}}\n";
        assert!(looks_like_objects(text));
        let objs = parse_objects(text).expect("parse");
        assert_eq!(objs[0].kind(), "PersistentVolume");
    }

    #[test]
    fn typed_failure_names_the_object() {
        let text = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  namespace: ns\nspec:\n  containers: 5\n";
        let e = err(text);
        assert!(e.message.contains("Pod ns/p"), "{e}");
        assert!(e.message.contains("invalid type"), "{e}");
    }

    #[test]
    fn not_kubernetes_objects() {
        assert!(!looks_like_objects(RANCHER));
        let e = err(RANCHER);
        assert!(
            e.message
                .contains("not a Kubernetes object: no apiVersion/kind"),
            "{e}"
        );
        let e = err("[{\"id\":\"kubelet_lock_magic_node1\",\"locker\":\"client.4174\"}]");
        assert!(e.message.contains("no apiVersion/kind"), "{e}");
    }

    #[test]
    fn broken_yaml_is_an_error() {
        assert!(!looks_like_objects(BROKEN_NODE));
        let e = err(BROKEN_NODE);
        assert!(e.message.contains("invalid YAML"), "{e}");
        assert!(e.line.is_some());
    }

    #[test]
    fn degenerate_inputs_are_errors() {
        for text in [
            "",
            "\n  \n",
            "---",
            "---\n---\n",
            "just a scalar",
            "42",
            "[1, 2, 3]",
            "\u{0}\u{1}\u{7f}\u{fffd}\u{fffd}",
            "{{{{",
            "]]]: [[[",
            "\t- : -\n\t\t",
            "@@@ %%% ``` !!binary",
        ] {
            let e = err(text);
            assert_eq!(e.what, WHAT);
            assert!(!looks_like_objects(text), "{text:?}");
        }
        assert!(err("[1, 2, 3]").message.contains("a number"));
    }

    #[test]
    fn other_formats_do_not_look_like_objects() {
        let log = include_str!("../../fixtures/seed/rbd-kubelet.log");
        let describe = include_str!("../../fixtures/seed/nfs-describe-pod.txt");
        let deployment = include_str!("../../fixtures/seed/nfs-deployment.yaml");
        assert!(!looks_like_objects(log));
        assert!(!looks_like_objects(describe));
        assert!(looks_like_objects(deployment));
    }
}
