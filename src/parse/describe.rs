//! `kubectl describe pod|pv|pvc` output rebuilt into k8s-openapi objects, whether tidy (as
//! printed) or flattened onto one line (as pasted into a web page).
//!
//! Both shapes are first turned into the same tree of `Key: value` fields: tidy text by its
//! indentation, flattened text by splitting on the labels kubectl prints, in the order it prints
//! them (kubernetes/kubectl pkg/describe/describe.go: describePod, describeVolumes,
//! describePersistentVolume, describePersistentVolumeClaim). The Events section goes to
//! [`crate::parse::events`].

use std::collections::BTreeMap;
use std::sync::LazyLock;

use k8s_openapi::api::core::v1::{
    AWSElasticBlockStoreVolumeSource, AzureDiskVolumeSource, AzureFileVolumeSource,
    CSIPersistentVolumeSource, CSIVolumeSource, CephFSPersistentVolumeSource, CephFSVolumeSource,
    CinderPersistentVolumeSource, CinderVolumeSource, ConfigMapVolumeSource, Container,
    ContainerState, ContainerStateRunning, ContainerStateTerminated, ContainerStateWaiting,
    ContainerStatus, DownwardAPIVolumeSource, EmptyDirVolumeSource, EphemeralVolumeSource,
    FlexVolumeSource, GCEPersistentDiskVolumeSource, GlusterfsPersistentVolumeSource,
    GlusterfsVolumeSource, HostPathVolumeSource, ISCSIPersistentVolumeSource, ISCSIVolumeSource,
    ImageVolumeSource, LocalObjectReference, LocalVolumeSource, NFSVolumeSource, ObjectReference,
    PersistentVolume, PersistentVolumeClaim, PersistentVolumeClaimSpec,
    PersistentVolumeClaimStatus, PersistentVolumeClaimVolumeSource, PersistentVolumeSpec,
    PersistentVolumeStatus, Pod, PodCondition, PodSpec, PodStatus, ProjectedVolumeSource,
    RBDPersistentVolumeSource, RBDVolumeSource, SecretReference, SecretVolumeSource,
    TypedLocalObjectReference, Volume, VolumeDevice, VolumeMount,
};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use regex::Regex;

use crate::error::ParseError;
use crate::model::{Event, ObjectRef, Origin};

/// A pod rebuilt from `kubectl describe pod`, its events, and what could not be read.
#[derive(Debug, Clone, Default)]
pub struct DescribedPod {
    /// The facts describe shows, rebuilt into the API type (unknown fields left empty).
    pub pod: Pod,
    /// The Events section, with `object` set to this pod.
    pub events: Vec<Event>,
    /// What could not be read, said plainly.
    pub notes: Vec<String>,
}

const WHAT_POD: &str = "kubectl describe pod";
const WHAT_PV: &str = "kubectl describe pv";
const WHAT_PVC: &str = "kubectl describe pvc";

// ---------------------------------------------------------------------------------------------
// Field labels, in the order kubectl prints them. The order matters for flattened input: a
// top-level label is only recognised after the ones before it, so `Name:` inside a ConfigMap
// volume or `Reason:` under a container's State are not mistaken for top-level fields.

const POD_TOP: &[&str] = &[
    "Name",
    "Namespace",
    "Priority",
    "Priority Class Name",
    "Runtime Class Name",
    "Service Account",
    "Node",
    "Start Time",
    "Labels",
    "Annotations",
    "Status",
    "Termination Grace Period",
    "Reason",
    "Message",
    "SeccompProfile",
    "LocalhostProfile",
    "IP",
    "IPs",
    "Controlled By",
    // Kubernetes 1.5-1.8 printed the controller under these labels.
    "Created By",
    "Controllers",
    "NominatedNodeName",
    "Resources",
    "Init Containers",
    "Containers",
    "Ephemeral Containers",
    "Readiness Gates",
    "Conditions",
    "Volumes",
    "QoS Class",
    "Node-Selectors",
    "Tolerations",
    "Topology Spread Constraints",
    "SchedulingGroup",
    "Events",
];

const PV_TOP: &[&str] = &[
    "Name",
    "Labels",
    "Annotations",
    "Finalizers",
    "StorageClass",
    "Status",
    "Claim",
    "Reclaim Policy",
    "Access Modes",
    "VolumeMode",
    "Capacity",
    "Node Affinity",
    "Message",
    "Source",
    "Events",
];

const PVC_TOP: &[&str] = &[
    "Name",
    "Namespace",
    "StorageClass",
    "Status",
    "Volume",
    "Labels",
    "Annotations",
    "Finalizers",
    "Capacity",
    "Access Modes",
    "VolumeMode",
    "DataSource",
    "Used By",
    "Conditions",
    "Events",
];

/// Labels under one container (describeContainers).
const CONTAINER_KEYS: &[&str] = &[
    "Container ID",
    "Image",
    "Image ID",
    "Port",
    "Ports",
    "Host Port",
    "Host Ports",
    "SeccompProfile",
    "Command",
    "Args",
    "State",
    "Last State",
    "Ready",
    "Restart Count",
    "Limits",
    "Requests",
    "Liveness",
    "Readiness",
    "Startup",
    "Environment Variables from",
    "Environment",
    "Mounts",
    "Devices",
];

/// Labels under a container's State / Last State (describeStatus).
const STATE_KEYS: &[&str] = &[
    "Reason",
    "Message",
    "Exit Code",
    "Signal",
    "Started",
    "Finished",
];

/// Labels under one volume or a PV's Source (the print*VolumeSource functions).
const VOLUME_KEYS: &[&str] = &[
    "Type",
    "ClaimName",
    "ReadOnly",
    "SecretName",
    "SecretNamespace",
    "Optional",
    "Name",
    "Server",
    "Path",
    "Medium",
    "SizeLimit",
    "HostPathType",
    "Driver",
    "FSType",
    "VolumeHandle",
    "VolumeAttributes",
    "CephMonitors",
    "RBDImage",
    "RBDPool",
    "RadosUser",
    "Keyring",
    "SecretRef",
    "EndpointsName",
    "EndpointsNamespace",
    "Monitors",
    "User",
    "SecretFile",
    "TargetPortal",
    "IQN",
    "Lun",
    "Portals",
    "DiscoveryCHAPAuth",
    "SessionCHAPAuth",
    "InitiatorName",
    "VolumeID",
    "Partition",
    "PDName",
    "DiskName",
    "DiskURI",
    "Kind",
    "CachingMode",
    "ShareName",
    "Options",
    "TokenExpirationSeconds",
    "ConfigMapName",
    "ConfigMapOptional",
    "DownwardAPI",
    "Items",
    "StorageClass",
    "Volume",
    "Labels",
    "Annotations",
    "Capacity",
    "Access Modes",
    "VolumeMode",
    "Reference",
    "PullPolicy",
    "Repository",
    "Revision",
];

/// How the fields under a top-level label are laid out.
#[derive(Clone, Copy)]
enum Section {
    /// Named entries (`name:`) whose first label is one of `start` (containers, volumes).
    Entries {
        keys: &'static [&'static str],
        start: &'static [&'static str],
        sub: &'static [&'static str],
    },
    /// Labels directly under the section (a PV's Source, a PVC's DataSource).
    Children(&'static [&'static str]),
}

const CONTAINERS: Section = Section::Entries {
    keys: CONTAINER_KEYS,
    start: &["Container ID", "Image"],
    sub: STATE_KEYS,
};
const VOLUMES: Section = Section::Entries {
    keys: VOLUME_KEYS,
    start: &["Type"],
    sub: &[],
};

/// The labels of one kind of describe output.
struct Grammar {
    top: &'static [&'static str],
    sections: &'static [(&'static str, Section)],
}

static POD_GRAMMAR: Grammar = Grammar {
    top: POD_TOP,
    sections: &[
        ("Init Containers", CONTAINERS),
        ("Containers", CONTAINERS),
        ("Ephemeral Containers", CONTAINERS),
        ("Volumes", VOLUMES),
    ],
};
static PV_GRAMMAR: Grammar = Grammar {
    top: PV_TOP,
    sections: &[("Source", Section::Children(VOLUME_KEYS))],
};
static PVC_GRAMMAR: Grammar = Grammar {
    top: PVC_TOP,
    sections: &[(
        "DataSource",
        Section::Children(&["APIGroup", "Kind", "Name"]),
    )],
};

// ---------------------------------------------------------------------------------------------
// The field tree. An arena (no recursion, no deep drops) so that hostile input cannot overflow
// the stack.

#[derive(Debug, Default)]
struct Node {
    key: String,
    value: String,
    indent: usize,
    children: Vec<usize>,
}

#[derive(Debug, Default)]
struct Doc {
    nodes: Vec<Node>,
    roots: Vec<usize>,
    /// Open fields, shallowest first.
    stack: Vec<usize>,
    /// Text after `Events:`, when the section is there.
    events: Option<String>,
}

/// Values kubectl prints for "nothing".
fn is_placeholder(v: &str) -> bool {
    matches!(v, "" | "<none>" | "<unset>" | "<nil>" | "nil" | "<unknown>")
}

impl Doc {
    /// Opens a field at `indent`, nested under the nearest shallower open field.
    fn push(&mut self, indent: usize, key: &str, value: &str) {
        while let Some(&top) = self.stack.last() {
            if self.nodes[top].indent >= indent {
                self.stack.pop();
            } else {
                break;
            }
        }
        let id = self.nodes.len();
        self.nodes.push(Node {
            key: key.to_string(),
            value: value.trim().to_string(),
            indent,
            children: Vec::new(),
        });
        match self.stack.last() {
            Some(&p) => self.nodes[p].children.push(id),
            None => self.roots.push(id),
        }
        self.stack.push(id);
    }

    /// Adds a continuation line to the deepest open field shallower than it.
    fn append(&mut self, indent: usize, text: &str, sep: char) {
        // Bounded look-back keeps pathological indentation linear.
        let target = self
            .stack
            .iter()
            .rev()
            .take(32)
            .find(|&&s| self.nodes[s].indent < indent)
            .or(self.stack.last())
            .copied();
        if let Some(t) = target {
            let v = &mut self.nodes[t].value;
            if !v.is_empty() {
                v.push(sep);
            }
            v.push_str(text.trim());
        }
    }

    fn kids(&self, parent: Option<usize>) -> &[usize] {
        match parent {
            Some(p) => self.nodes.get(p).map_or(&[][..], |n| &n.children[..]),
            None => &self.roots,
        }
    }

    /// The first field called `key` under `parent` (None: top level).
    fn child(&self, parent: Option<usize>, key: &str) -> Option<usize> {
        self.kids(parent)
            .iter()
            .copied()
            .find(|&k| self.nodes[k].key == key)
    }

    /// A field's value, trimmed, or None when empty or a placeholder.
    fn value(&self, id: usize) -> Option<&str> {
        let v = self.nodes.get(id)?.value.trim();
        (!is_placeholder(v)).then_some(v)
    }

    /// The value of `key` under `parent`.
    fn get(&self, parent: Option<usize>, key: &str) -> Option<&str> {
        self.value(self.child(parent, key)?)
    }

    /// The first word of `key`'s value (values may carry trailing words in flattened input).
    fn word(&self, parent: Option<usize>, key: &str) -> Option<&str> {
        self.get(parent, key)?
            .split_whitespace()
            .next()
            .filter(|w| !is_placeholder(w))
    }

    fn string(&self, parent: Option<usize>, key: &str) -> Option<String> {
        self.word(parent, key).map(str::to_string)
    }

    fn boolean(&self, parent: Option<usize>, key: &str) -> Option<bool> {
        match self.word(parent, key)? {
            w if w.eq_ignore_ascii_case("true") => Some(true),
            w if w.eq_ignore_ascii_case("false") => Some(false),
            _ => None,
        }
    }

    fn int(&self, parent: Option<usize>, key: &str) -> Option<i32> {
        self.word(parent, key)?.parse().ok()
    }
}

// ---------------------------------------------------------------------------------------------
// Reading text into a Doc.

/// `Key:  value` at the start of a (dedented) line; keys are capitalised labels.
static FIELD_RE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^([A-Z][A-Za-z0-9 ()/._-]{0,60}?):(?:\s+(.*?))?\s*$").expect("field regex")
});
/// `name:` alone on a line: a container or volume entry.
static ENTRY_RE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^([^\s:]\S*):\s*$").expect("entry regex"));

/// Reads describe text of one kind into a Doc; `what` names it in errors.
fn read_doc(text: &str, grammar: &Grammar, what: &'static str) -> Result<Doc, ParseError> {
    if text.trim().is_empty() {
        return Err(ParseError::new(what, "empty input"));
    }
    let doc = match tidy_start(text, grammar) {
        Some((line, base)) => read_tidy(text, line, base),
        None => read_flat(text, grammar).ok_or_else(|| {
            ParseError::new(
                what,
                "no `Name:` field found; is this `kubectl describe` output?",
            )
        })?,
    };
    match doc.get(None, "Name") {
        Some(_) => Ok(doc),
        None => Err(ParseError::new(what, "the `Name:` field is empty")),
    }
}

/// Leading whitespace, in chars.
fn indent_of(line: &str) -> usize {
    line.chars().take_while(|c| c.is_whitespace()).count()
}

/// Whether `line` (already trimmed at the start) begins with the label `key:`.
fn starts_with_label(line: &str, key: &str) -> bool {
    line.strip_prefix(key)
        .and_then(|r| r.strip_prefix(':'))
        .is_some_and(|r| r.is_empty() || r.starts_with(char::is_whitespace))
}

/// Where a tidy describe starts: the `Name:` line and its indentation, when another top-level
/// label follows at the same indentation (otherwise the text is treated as flattened).
fn tidy_start(text: &str, grammar: &Grammar) -> Option<(usize, usize)> {
    let lines: Vec<&str> = text.lines().collect();
    let (at, base) = lines
        .iter()
        .enumerate()
        .find_map(|(i, l)| starts_with_label(l.trim_start(), "Name").then(|| (i, indent_of(l))))?;
    let more = lines[at + 1..].iter().any(|l| {
        indent_of(l) == base
            && grammar.top[1..]
                .iter()
                .any(|k| starts_with_label(l.trim_start(), k))
    });
    more.then_some((at, base))
}

/// Reads a tidy describe from line `start`, dedented by `base`.
fn read_tidy(text: &str, start: usize, base: usize) -> Doc {
    let mut doc = Doc::default();
    let mut lines = text.lines().skip(start);
    while let Some(raw) = lines.next() {
        if raw.trim().is_empty() {
            continue;
        }
        let line = dedent(raw, base);
        if let Some(rest) = line.strip_prefix("Events:") {
            // Events is the last section; its messages may start at column 0.
            let mut events = rest.to_string();
            for l in lines.by_ref() {
                events.push('\n');
                events.push_str(l);
            }
            doc.events = Some(events);
            break;
        }
        let indent = indent_of(line);
        let body = line.trim_start();
        if let Some(c) = FIELD_RE.captures(body) {
            let key = c.get(1).map_or("", |m| m.as_str()).trim();
            let value = c.get(2).map_or("", |m| m.as_str());
            doc.push(indent, key, value);
        } else if let Some(c) = ENTRY_RE.captures(body) {
            doc.push(indent, c.get(1).map_or("", |m| m.as_str()), "");
        } else {
            doc.append(indent, body, '\n');
        }
    }
    doc
}

/// Strips up to `n` leading whitespace chars.
fn dedent(line: &str, n: usize) -> &str {
    let cut = line
        .char_indices()
        .take(n)
        .take_while(|(_, c)| c.is_whitespace())
        .last()
        .map_or(0, |(i, c)| i + c.len_utf8());
    &line[cut..]
}

/// Byte spans of whitespace-separated tokens.
fn token_spans(text: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in text.char_indices() {
        match (c.is_whitespace(), start) {
            (true, Some(s)) => {
                out.push((s, i));
                start = None;
            }
            (false, None) => start = Some(i),
            _ => {}
        }
    }
    if let Some(s) = start {
        out.push((s, text.len()));
    }
    out
}

/// How many tokens the label `key:` takes at token `i`, if it is there.
fn label_at(text: &str, toks: &[(usize, usize)], i: usize, key: &str) -> Option<usize> {
    // Called for every token and every label of a flattened describe: nothing is allocated,
    // and a token that does not start with the label's first letter is rejected at once.
    let &(s, e) = toks.get(i)?;
    if text.as_bytes()[s..e].first() != key.as_bytes().first() {
        return None;
    }
    let mut n = 0;
    let mut words = key.split(' ').peekable();
    while let Some(w) = words.next() {
        let &(s, e) = toks.get(i + n)?;
        let tok = &text[s..e];
        let ok = if words.peek().is_none() {
            tok.strip_suffix(':') == Some(w)
        } else {
            tok == w
        };
        if !ok {
            return None;
        }
        n += 1;
    }
    Some(n)
}

/// The longest label of `keys` at token `i`.
fn longest_label<'k>(
    text: &str,
    toks: &[(usize, usize)],
    i: usize,
    keys: &[&'k str],
) -> Option<(&'k str, usize)> {
    keys.iter()
        .filter_map(|k| label_at(text, toks, i, k).map(|n| (*k, n)))
        .max_by_key(|(_, n)| *n)
}

/// Reads a flattened describe (line breaks lost) by splitting on the known labels.
fn read_flat(text: &str, grammar: &Grammar) -> Option<Doc> {
    let toks = token_spans(text);
    let first = (0..toks.len()).find(|&i| label_at(text, &toks, i, "Name").is_some())?;
    let mut doc = Doc::default();
    // Tokens of the open field's value, joined when the field closes.
    let mut pending: Vec<usize> = Vec::new();
    let mut top_at = 0usize;
    let mut section: Option<Section> = None;
    doc.push(0, "Name", "");
    let mut i = first + 1;
    while i < toks.len() {
        if let Some((idx, n)) = next_top(text, &toks, i, grammar.top, top_at) {
            flush(&mut doc, &text_of(text, &toks, &pending));
            pending.clear();
            let key = grammar.top[idx];
            let last = i + n - 1;
            if key == "Events" {
                doc.events = Some(text[toks[last].1..].to_string());
                return Some(doc);
            }
            doc.push(0, key, "");
            top_at = idx;
            section = grammar
                .sections
                .iter()
                .find(|(k, _)| *k == key)
                .map(|(_, s)| *s);
            i += n;
            continue;
        }
        if let Some((key, n, indent, entry)) = section_label(text, &toks, i, section, &pending) {
            if let Some(name_tok) = entry {
                pending.pop();
                flush(&mut doc, &text_of(text, &toks, &pending));
                pending.clear();
                let (s, e) = toks[name_tok];
                doc.push(2, text[s..e].trim_end_matches(':'), "");
            } else {
                flush(&mut doc, &text_of(text, &toks, &pending));
                pending.clear();
            }
            doc.push(indent, key, "");
            i += n;
            continue;
        }
        pending.push(i);
        i += 1;
    }
    flush(&mut doc, &text_of(text, &toks, &pending));
    Some(doc)
}

/// A top-level label after position `after` in the grammar's order, at token `i`.
fn next_top(
    text: &str,
    toks: &[(usize, usize)],
    i: usize,
    top: &[&str],
    after: usize,
) -> Option<(usize, usize)> {
    top.iter()
        .enumerate()
        .skip(after + 1)
        .filter_map(|(idx, k)| label_at(text, toks, i, k).map(|n| (idx, n)))
        .max_by_key(|(_, n)| *n)
}

/// A section label at token `i`: (key, tokens, indent, token of the entry name it opens).
fn section_label(
    text: &str,
    toks: &[(usize, usize)],
    i: usize,
    section: Option<Section>,
    pending: &[usize],
) -> Option<(&'static str, usize, usize, Option<usize>)> {
    match section? {
        Section::Children(keys) => longest_label(text, toks, i, keys).map(|(k, n)| (k, n, 4, None)),
        Section::Entries { keys, start, sub } => {
            let (key, n) = longest_label(text, toks, i, keys)
                .into_iter()
                .chain(longest_label(text, toks, i, sub))
                .max_by_key(|(_, n)| *n)?;
            let indent = if sub.contains(&key) { 6 } else { 4 };
            // `vol1: Type: ...`: the `name:` token just before an entry's first label.
            let entry = (start.contains(&key))
                .then(|| pending.last().copied())
                .flatten()
                .filter(|&p| p + 1 == i)
                .filter(|&p| {
                    let (s, e) = toks[p];
                    let t = &text[s..e];
                    t.len() > 1 && t.ends_with(':')
                });
            Some((key, n, indent, entry))
        }
    }
}

/// The text of some tokens, joined by single spaces.
fn text_of(text: &str, toks: &[(usize, usize)], ids: &[usize]) -> String {
    let mut out = String::new();
    for &id in ids {
        if let Some(&(s, e)) = toks.get(id) {
            if !out.is_empty() {
                out.push(' ');
            }
            out.push_str(&text[s..e]);
        }
    }
    out
}

/// Gives the open field its value.
fn flush(doc: &mut Doc, value: &str) {
    if let Some(&top) = doc.stack.last() {
        let v = &mut doc.nodes[top].value;
        if !v.is_empty() && !value.is_empty() {
            v.push(' ');
        }
        v.push_str(value.trim());
    }
}

/// Whether `key:` occurs as a label: at the start or after whitespace, before whitespace or end.
fn has_label(text: &str, key: &str) -> bool {
    text.match_indices(key).any(|(i, _)| {
        let before_ok = text[..i]
            .chars()
            .next_back()
            .is_none_or(char::is_whitespace);
        let after_ok = text[i + key.len()..]
            .chars()
            .next()
            .is_none_or(char::is_whitespace);
        before_ok && after_ok
    })
}

// ---------------------------------------------------------------------------------------------
// Events.

/// Reads the Events section, noting when it is missing or unreadable.
fn read_events(doc: &Doc, object: ObjectRef, notes: &mut Vec<String>) -> Vec<Event> {
    let Some(text) = doc.events.as_deref() else {
        notes.push(
            "the describe output has no Events section (cut off, or --show-events=false)"
                .to_string(),
        );
        return Vec::new();
    };
    let trimmed = text.trim_start();
    if trimmed.is_empty() || trimmed.starts_with("<none>") {
        return Vec::new();
    }
    match crate::parse::events::parse_event_table_bounded(text, Origin::Describe) {
        Ok((mut events, skipped)) => {
            if skipped > 0 {
                notes.push(format!(
                    "the Events section has {skipped} more rows than the {} newest read",
                    crate::parse::events::MAX_EVENT_LINES
                ));
            }
            for e in &mut events {
                e.object.get_or_insert_with(|| object.clone());
            }
            events
        }
        Err(e) => {
            notes.push(format!(
                "the Events section could not be read: {}",
                e.message
            ));
            Vec::new()
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Small value readers.

/// `a=b c=d` (labels, node selectors, CSI attributes) into a map.
fn pairs(value: Option<&str>) -> Option<BTreeMap<String, String>> {
    let map: BTreeMap<String, String> = value?
        .split_whitespace()
        .filter_map(|t| t.split_once('='))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    (!map.is_empty()).then_some(map)
}

/// A Go-printed list `[a b c]` (or `a, b`) into its items.
fn go_list(value: Option<&str>) -> Vec<String> {
    value
        .unwrap_or("")
        .split(|c: char| c.is_whitespace() || c == ',' || c == '[' || c == ']')
        .filter(|s| !s.is_empty() && !is_placeholder(s))
        .map(str::to_string)
        .collect()
}

static REF_NAME_RE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"Name:([^,}\s]+)").expect("ref name regex"));
static REF_NS_RE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"Namespace:([^,}\s]+)").expect("ref ns regex"));
static DNS_NAME_RE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$").expect("dns regex"));

/// The secret's name from a printed reference (`&LocalObjectReference{Name:ceph-secret,}`).
/// Only the name is kept: describe never prints secret data, and neither does volmnt.
fn ref_name(value: Option<&str>) -> Option<String> {
    let v = value?;
    if let Some(c) = REF_NAME_RE.captures(v) {
        return c.get(1).map(|m| m.as_str().to_string());
    }
    let w = v.split_whitespace().next()?;
    DNS_NAME_RE.is_match(w).then(|| w.to_string())
}

fn ref_namespace(value: Option<&str>) -> Option<String> {
    REF_NS_RE
        .captures(value?)
        .and_then(|c| c.get(1))
        .map(|m| m.as_str().to_string())
}

/// `RWO,RWX` (or `[ReadWriteOnce]`) into the API's access mode names.
fn access_modes(value: Option<&str>) -> Option<Vec<String>> {
    let modes: Vec<String> = go_list(value)
        .into_iter()
        .map(|m| match m.as_str() {
            "RWO" => "ReadWriteOnce".to_string(),
            "ROX" => "ReadOnlyMany".to_string(),
            "RWX" => "ReadWriteMany".to_string(),
            "RWOP" => "ReadWriteOncePod".to_string(),
            _ => m,
        })
        .collect();
    (!modes.is_empty()).then_some(modes)
}

/// `{"storage": 10Gi}` from a Capacity value.
fn storage(value: Option<&str>) -> Option<BTreeMap<String, Quantity>> {
    let q = value?.split_whitespace().next()?;
    Some(BTreeMap::from([(
        "storage".to_string(),
        Quantity(q.to_string()),
    )]))
}

/// The first word of a `Type:` value: `PersistentVolumeClaim (a reference ...)` → the kind.
fn type_word(doc: &Doc, parent: Option<usize>) -> Option<&str> {
    doc.word(parent, "Type")
}

// ---------------------------------------------------------------------------------------------
// Pods.

/// True when the text looks like `kubectl describe pod` (tidy or flattened).
pub fn looks_like_pod_describe(text: &str) -> bool {
    // A ticket often pastes only the head, the volumes and the events (the containers cut as
    // noise): `Volumes:` with `Events:` is a pod's too.
    has_label(text, "Name:")
        && (has_label(text, "Containers:")
            || (has_label(text, "Volumes:") && has_label(text, "Events:")))
        && (has_label(text, "Node:") || has_label(text, "QoS Class:"))
        && !has_label(text, "Pod Template:")
}

/// Rebuilds a Pod (and its events) from `kubectl describe pod`, tidy or flattened.
pub fn parse_pod(text: &str) -> Result<DescribedPod, ParseError> {
    let doc = read_doc(text, &POD_GRAMMAR, WHAT_POD)?;
    let mut notes = Vec::new();
    let pod = build_pod(&doc, &mut notes);
    let object = ObjectRef {
        kind: Some("Pod".to_string()),
        namespace: pod.metadata.namespace.clone(),
        name: pod.metadata.name.clone(),
        uid: None,
    };
    let events = read_events(&doc, object, &mut notes);
    Ok(DescribedPod { pod, events, notes })
}

fn build_pod(doc: &Doc, notes: &mut Vec<String>) -> Pod {
    let metadata = ObjectMeta {
        name: doc.string(None, "Name"),
        namespace: doc.string(None, "Namespace"),
        labels: pairs(doc.get(None, "Labels")),
        // describe prints nothing when the pod has no controller: then it is a bare pod.
        owner_references: Some(
            doc.word(None, "Controlled By")
                .or_else(|| doc.word(None, "Controllers"))
                .or_else(|| doc.word(None, "Created By"))
                .and_then(controller_ref)
                .into_iter()
                .collect(),
        ),
        ..Default::default()
    };
    // `Node: node1/10.10.107.214`; `<none>` when not scheduled.
    let node = doc.word(None, "Node");
    let (node_name, host_ip) = match node.map(|n| n.split_once('/')) {
        Some(Some((n, ip))) => (non_empty(n), non_empty(ip)),
        Some(None) => (node.map(str::to_string), None),
        None => (None, None),
    };
    let phase = match doc.get(None, "Status") {
        Some(s) if s.starts_with("Terminating") => {
            notes.push(format!("the pod is being deleted (Status: {s})"));
            None
        }
        Some(s) => s.split_whitespace().next().map(str::to_string),
        None => None,
    };
    let (containers, statuses) = read_containers(doc, "Containers");
    let (init_containers, init_statuses) = read_containers(doc, "Init Containers");
    if containers.is_empty() {
        notes.push("no containers were found in the describe output".to_string());
    }
    let spec = PodSpec {
        containers,
        init_containers: (!init_containers.is_empty()).then_some(init_containers),
        node_name,
        priority: doc.int(None, "Priority"),
        service_account_name: doc.string(None, "Service Account"),
        node_selector: pairs(doc.get(None, "Node-Selectors")),
        volumes: read_volumes(doc, notes),
        ..Default::default()
    };
    let status = PodStatus {
        phase,
        host_ip,
        pod_ip: doc.string(None, "IP"),
        qos_class: doc.string(None, "QoS Class"),
        reason: doc.get(None, "Reason").map(str::to_string),
        message: doc.get(None, "Message").map(str::to_string),
        conditions: read_conditions(doc.get(None, "Conditions")),
        container_statuses: (!statuses.is_empty()).then_some(statuses),
        init_container_statuses: (!init_statuses.is_empty()).then_some(init_statuses),
        ..Default::default()
    };
    Pod {
        metadata,
        spec: Some(spec),
        status: Some(status),
    }
}

/// `Controlled By:  ReplicaSet/web-7d9f` → the controller reference (its uid is not printed).
fn controller_ref(
    value: &str,
) -> Option<k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference> {
    let (kind, name) = value.split_once('/')?;
    if kind.is_empty() || name.is_empty() || is_placeholder(value) {
        return None;
    }
    let api_version = match kind {
        "ReplicaSet" | "StatefulSet" | "DaemonSet" | "Deployment" => "apps/v1",
        "Job" | "CronJob" => "batch/v1",
        "ReplicationController" => "v1",
        _ => "",
    };
    Some(
        k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference {
            api_version: api_version.into(),
            kind: kind.into(),
            name: name.into(),
            controller: Some(true),
            ..Default::default()
        },
    )
}

fn non_empty(s: &str) -> Option<String> {
    (!s.is_empty() && !is_placeholder(s)).then(|| s.to_string())
}

/// `Type Status` rows of the Conditions table (`Initialized True`, ...).
fn read_conditions(value: Option<&str>) -> Option<Vec<PodCondition>> {
    let words: Vec<&str> = value?.split_whitespace().collect();
    let conditions: Vec<PodCondition> = words
        .windows(2)
        .filter(|w| matches!(w[1], "True" | "False" | "Unknown"))
        .map(|w| PodCondition {
            type_: w[0].to_string(),
            status: w[1].to_string(),
            ..Default::default()
        })
        .collect();
    (!conditions.is_empty()).then_some(conditions)
}

/// The containers (and their statuses) of the `Containers:` or `Init Containers:` section.
fn read_containers(doc: &Doc, section: &str) -> (Vec<Container>, Vec<ContainerStatus>) {
    let mut containers = Vec::new();
    let mut statuses = Vec::new();
    let Some(sec) = doc.child(None, section) else {
        return (containers, statuses);
    };
    for &entry in doc.kids(Some(sec)) {
        let (c, s) = read_container(doc, entry);
        containers.push(c);
        statuses.extend(s);
    }
    (containers, statuses)
}

static MOUNT_RE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(\S+) from (\S+) \(([^)]*)\)").expect("mount regex"));
static DEVICE_RE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(\S+) from (\S+)").expect("device regex"));
static SUBPATH_RE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r#"path="((?:[^"\\]|\\.)*)""#).expect("subpath regex"));

fn read_container(doc: &Doc, entry: usize) -> (Container, Option<ContainerStatus>) {
    let e = Some(entry);
    let name = doc.nodes[entry].key.clone();
    let mounts: Vec<VolumeMount> = doc
        .get(e, "Mounts")
        .map(|m| {
            MOUNT_RE
                .captures_iter(m)
                .filter_map(|c| mount(&c))
                .collect()
        })
        .unwrap_or_default();
    let devices: Vec<VolumeDevice> = doc
        .get(e, "Devices")
        .map(|d| {
            DEVICE_RE
                .captures_iter(d)
                .filter_map(|c| {
                    Some(VolumeDevice {
                        device_path: c.get(1)?.as_str().to_string(),
                        name: c.get(2)?.as_str().to_string(),
                    })
                })
                .collect()
        })
        .unwrap_or_default();
    let container = Container {
        name: name.clone(),
        image: doc.string(e, "Image"),
        volume_mounts: (!mounts.is_empty()).then_some(mounts),
        volume_devices: (!devices.is_empty()).then_some(devices),
        ..Default::default()
    };
    // kubectl prints Container ID / State / Ready only when the container has a status.
    let has_status = ["Container ID", "State", "Ready", "Restart Count"]
        .iter()
        .any(|k| doc.child(e, k).is_some());
    let status = has_status.then(|| ContainerStatus {
        name,
        image: doc.string(e, "Image").unwrap_or_default(),
        image_id: doc.string(e, "Image ID").unwrap_or_default(),
        container_id: doc.string(e, "Container ID"),
        ready: doc.word(e, "Ready") == Some("True"),
        restart_count: doc.int(e, "Restart Count").unwrap_or(0),
        state: doc.child(e, "State").and_then(|s| read_state(doc, s)),
        last_state: doc.child(e, "Last State").and_then(|s| read_state(doc, s)),
        ..Default::default()
    });
    (container, status)
}

/// `/tmp from vol1 (rw,path="sub")` into a VolumeMount.
fn mount(c: &regex::Captures<'_>) -> Option<VolumeMount> {
    let flags = c.get(3)?.as_str();
    Some(VolumeMount {
        mount_path: c.get(1)?.as_str().to_string(),
        name: c.get(2)?.as_str().to_string(),
        read_only: Some(flags.split(',').any(|f| f == "ro")),
        sub_path: SUBPATH_RE
            .captures(flags)
            .and_then(|s| s.get(1))
            .map(|m| m.as_str().replace("\\\"", "\"")),
        ..Default::default()
    })
}

/// `State: Waiting` with its `Reason:` (and Terminated's exit code) into a ContainerState.
fn read_state(doc: &Doc, id: usize) -> Option<ContainerState> {
    let s = Some(id);
    let reason = doc.get(s, "Reason").map(str::to_string);
    let message = doc.get(s, "Message").map(str::to_string);
    match doc.value(id)?.split_whitespace().next()? {
        "Waiting" => Some(ContainerState {
            waiting: Some(ContainerStateWaiting { reason, message }),
            ..Default::default()
        }),
        "Running" => Some(ContainerState {
            running: Some(ContainerStateRunning::default()),
            ..Default::default()
        }),
        "Terminated" => Some(ContainerState {
            terminated: Some(ContainerStateTerminated {
                exit_code: doc.int(s, "Exit Code").unwrap_or(0),
                signal: doc.int(s, "Signal"),
                reason,
                message,
                ..Default::default()
            }),
            ..Default::default()
        }),
        _ => None,
    }
}

/// The pod's volumes from the `Volumes:` section.
fn read_volumes(doc: &Doc, notes: &mut Vec<String>) -> Option<Vec<Volume>> {
    let sec = doc.child(None, "Volumes")?;
    let volumes: Vec<Volume> = doc
        .kids(Some(sec))
        .iter()
        .map(|&v| read_volume(doc, v, notes))
        .collect();
    (!volumes.is_empty()).then_some(volumes)
}

/// One pod volume, by its `Type:`. Unknown types keep the name only, with a note.
fn read_volume(doc: &Doc, id: usize, notes: &mut Vec<String>) -> Volume {
    let v = Some(id);
    let name = doc.nodes[id].key.clone();
    let mut vol = Volume {
        name: name.clone(),
        ..Default::default()
    };
    let ro = doc.boolean(v, "ReadOnly");
    let fs = doc.string(v, "FSType");
    match type_word(doc, v) {
        Some("PersistentVolumeClaim") => {
            vol.persistent_volume_claim = Some(PersistentVolumeClaimVolumeSource {
                claim_name: doc.string(v, "ClaimName").unwrap_or_default(),
                read_only: ro,
            })
        }
        Some("NFS") => vol.nfs = Some(nfs(doc, v)),
        Some("Secret") => {
            vol.secret = Some(SecretVolumeSource {
                secret_name: doc.string(v, "SecretName"),
                optional: doc.boolean(v, "Optional"),
                ..Default::default()
            })
        }
        Some("ConfigMap") => {
            vol.config_map = Some(ConfigMapVolumeSource {
                name: doc.string(v, "Name").unwrap_or_default(),
                optional: doc.boolean(v, "Optional"),
                ..Default::default()
            })
        }
        Some("HostPath") => vol.host_path = Some(host_path(doc, v)),
        Some("EmptyDir") => {
            vol.empty_dir = Some(EmptyDirVolumeSource {
                medium: doc.string(v, "Medium"),
                size_limit: doc.string(v, "SizeLimit").map(Quantity),
            })
        }
        Some("Projected") => vol.projected = Some(ProjectedVolumeSource::default()),
        Some("DownwardAPI") => vol.downward_api = Some(DownwardAPIVolumeSource::default()),
        Some("EphemeralVolume") => vol.ephemeral = Some(EphemeralVolumeSource::default()),
        Some("CSI") => {
            vol.csi = Some(CSIVolumeSource {
                driver: doc.string(v, "Driver").unwrap_or_default(),
                fs_type: fs,
                read_only: ro,
                volume_attributes: pairs(doc.get(v, "VolumeAttributes")),
                ..Default::default()
            })
        }
        Some("RBD") => {
            vol.rbd = Some(RBDVolumeSource {
                monitors: go_list(doc.get(v, "CephMonitors")),
                image: doc.string(v, "RBDImage").unwrap_or_default(),
                fs_type: fs,
                pool: doc.string(v, "RBDPool"),
                user: doc.string(v, "RadosUser"),
                keyring: doc.string(v, "Keyring"),
                secret_ref: ref_name(doc.get(v, "SecretRef"))
                    .map(|name| LocalObjectReference { name }),
                read_only: ro,
            })
        }
        Some("Glusterfs") => {
            vol.glusterfs = Some(GlusterfsVolumeSource {
                endpoints: doc.string(v, "EndpointsName").unwrap_or_default(),
                path: doc.string(v, "Path").unwrap_or_default(),
                read_only: ro,
            })
        }
        Some("CephFS") => {
            vol.cephfs = Some(CephFSVolumeSource {
                monitors: go_list(doc.get(v, "Monitors")),
                path: doc.string(v, "Path"),
                user: doc.string(v, "User"),
                secret_file: doc.string(v, "SecretFile"),
                secret_ref: ref_name(doc.get(v, "SecretRef"))
                    .map(|name| LocalObjectReference { name }),
                read_only: ro,
            })
        }
        Some("ISCSI") => {
            vol.iscsi = Some(ISCSIVolumeSource {
                target_portal: doc.string(v, "TargetPortal").unwrap_or_default(),
                iqn: doc.string(v, "IQN").unwrap_or_default(),
                lun: doc.int(v, "Lun").unwrap_or(0),
                fs_type: fs,
                read_only: ro,
                portals: Some(go_list(doc.get(v, "Portals"))).filter(|p| !p.is_empty()),
                secret_ref: ref_name(doc.get(v, "SecretRef"))
                    .map(|name| LocalObjectReference { name }),
                ..Default::default()
            })
        }
        Some("AWSElasticBlockStore") => vol.aws_elastic_block_store = Some(aws_ebs(doc, v)),
        Some("GCEPersistentDisk") => vol.gce_persistent_disk = Some(gce_pd(doc, v)),
        Some("AzureDisk") => vol.azure_disk = Some(azure_disk(doc, v)),
        Some("AzureFile") => {
            vol.azure_file = Some(AzureFileVolumeSource {
                secret_name: doc.string(v, "SecretName").unwrap_or_default(),
                share_name: doc.string(v, "ShareName").unwrap_or_default(),
                read_only: ro,
            })
        }
        Some("Cinder") => {
            vol.cinder = Some(CinderVolumeSource {
                volume_id: doc.string(v, "VolumeID").unwrap_or_default(),
                fs_type: fs,
                read_only: ro,
                secret_ref: ref_name(doc.get(v, "SecretRef"))
                    .map(|name| LocalObjectReference { name }),
            })
        }
        Some("FlexVolume") => {
            vol.flex_volume = Some(FlexVolumeSource {
                driver: doc.string(v, "Driver").unwrap_or_default(),
                fs_type: fs,
                read_only: ro,
                ..Default::default()
            })
        }
        Some("Image") => {
            vol.image = Some(ImageVolumeSource {
                reference: doc.string(v, "Reference"),
                pull_policy: doc.string(v, "PullPolicy"),
            })
        }
        other => notes.push(format!(
            "volume {name}: type {} is not read by volmnt; kept by name only",
            other.unwrap_or("<missing>")
        )),
    }
    vol
}

fn nfs(doc: &Doc, v: Option<usize>) -> NFSVolumeSource {
    NFSVolumeSource {
        server: doc.string(v, "Server").unwrap_or_default(),
        path: doc.string(v, "Path").unwrap_or_default(),
        read_only: doc.boolean(v, "ReadOnly"),
    }
}

fn host_path(doc: &Doc, v: Option<usize>) -> HostPathVolumeSource {
    HostPathVolumeSource {
        path: doc.string(v, "Path").unwrap_or_default(),
        type_: doc.string(v, "HostPathType"),
    }
}

fn aws_ebs(doc: &Doc, v: Option<usize>) -> AWSElasticBlockStoreVolumeSource {
    AWSElasticBlockStoreVolumeSource {
        volume_id: doc.string(v, "VolumeID").unwrap_or_default(),
        fs_type: doc.string(v, "FSType"),
        partition: doc.int(v, "Partition"),
        read_only: doc.boolean(v, "ReadOnly"),
    }
}

fn gce_pd(doc: &Doc, v: Option<usize>) -> GCEPersistentDiskVolumeSource {
    GCEPersistentDiskVolumeSource {
        pd_name: doc.string(v, "PDName").unwrap_or_default(),
        fs_type: doc.string(v, "FSType"),
        partition: doc.int(v, "Partition"),
        read_only: doc.boolean(v, "ReadOnly"),
    }
}

fn azure_disk(doc: &Doc, v: Option<usize>) -> AzureDiskVolumeSource {
    AzureDiskVolumeSource {
        disk_name: doc.string(v, "DiskName").unwrap_or_default(),
        disk_uri: doc.string(v, "DiskURI").unwrap_or_default(),
        kind: doc.string(v, "Kind"),
        fs_type: doc.string(v, "FSType"),
        caching_mode: doc.string(v, "CachingMode"),
        read_only: doc.boolean(v, "ReadOnly"),
    }
}

// ---------------------------------------------------------------------------------------------
// PersistentVolumes.

/// True when the text looks like `kubectl describe pv`.
pub fn looks_like_pv_describe(text: &str) -> bool {
    has_label(text, "Name:")
        && has_label(text, "Reclaim Policy:")
        && has_label(text, "Source:")
        && !has_label(text, "Containers:")
}

/// Rebuilds a PersistentVolume from `kubectl describe pv`.
pub fn parse_pv(text: &str) -> Result<PersistentVolume, ParseError> {
    let doc = read_doc(text, &PV_GRAMMAR, WHAT_PV)?;
    let claim_ref = doc.word(None, "Claim").map(|c| {
        let (ns, name) = c.split_once('/').unwrap_or(("", c));
        ObjectReference {
            kind: Some("PersistentVolumeClaim".to_string()),
            namespace: non_empty(ns),
            name: non_empty(name),
            ..Default::default()
        }
    });
    let mut spec = PersistentVolumeSpec {
        storage_class_name: doc.string(None, "StorageClass"),
        claim_ref,
        persistent_volume_reclaim_policy: doc.string(None, "Reclaim Policy"),
        access_modes: access_modes(doc.get(None, "Access Modes")),
        volume_mode: doc.string(None, "VolumeMode"),
        capacity: storage(doc.get(None, "Capacity")),
        ..Default::default()
    };
    if let Some(src) = doc.child(None, "Source") {
        read_pv_source(&doc, Some(src), &mut spec);
    }
    let status = PersistentVolumeStatus {
        phase: doc.word(None, "Status").map(str::to_string),
        message: doc.get(None, "Message").map(str::to_string),
        ..Default::default()
    };
    Ok(PersistentVolume {
        metadata: ObjectMeta {
            name: doc.string(None, "Name"),
            labels: pairs(doc.get(None, "Labels")),
            ..Default::default()
        },
        spec: Some(spec),
        status: Some(status),
    })
}

/// Fills the volume source of a PV spec from its `Source:` section.
fn read_pv_source(doc: &Doc, v: Option<usize>, spec: &mut PersistentVolumeSpec) {
    let ro = doc.boolean(v, "ReadOnly");
    let fs = doc.string(v, "FSType");
    let secret = || {
        ref_name(doc.get(v, "SecretRef")).map(|name| SecretReference {
            name: Some(name),
            namespace: ref_namespace(doc.get(v, "SecretRef")),
        })
    };
    match type_word(doc, v) {
        Some("NFS") => spec.nfs = Some(nfs(doc, v)),
        Some("HostPath") => spec.host_path = Some(host_path(doc, v)),
        Some("LocalVolume") => {
            spec.local = Some(LocalVolumeSource {
                path: doc.string(v, "Path").unwrap_or_default(),
                fs_type: fs,
            })
        }
        Some("CSI") => {
            spec.csi = Some(CSIPersistentVolumeSource {
                driver: doc.string(v, "Driver").unwrap_or_default(),
                volume_handle: doc.string(v, "VolumeHandle").unwrap_or_default(),
                fs_type: fs,
                read_only: ro,
                volume_attributes: pairs(doc.get(v, "VolumeAttributes")),
                ..Default::default()
            })
        }
        Some("RBD") => {
            spec.rbd = Some(RBDPersistentVolumeSource {
                monitors: go_list(doc.get(v, "CephMonitors")),
                image: doc.string(v, "RBDImage").unwrap_or_default(),
                fs_type: fs,
                pool: doc.string(v, "RBDPool"),
                user: doc.string(v, "RadosUser"),
                keyring: doc.string(v, "Keyring"),
                secret_ref: secret(),
                read_only: ro,
            })
        }
        Some("ISCSI") => {
            spec.iscsi = Some(ISCSIPersistentVolumeSource {
                target_portal: doc.string(v, "TargetPortal").unwrap_or_default(),
                iqn: doc.string(v, "IQN").unwrap_or_default(),
                lun: doc.int(v, "Lun").unwrap_or(0),
                fs_type: fs,
                read_only: ro,
                portals: Some(go_list(doc.get(v, "Portals"))).filter(|p| !p.is_empty()),
                secret_ref: secret(),
                ..Default::default()
            })
        }
        Some("CephFS") => {
            spec.cephfs = Some(CephFSPersistentVolumeSource {
                monitors: go_list(doc.get(v, "Monitors")),
                path: doc.string(v, "Path"),
                user: doc.string(v, "User"),
                secret_file: doc.string(v, "SecretFile"),
                secret_ref: secret(),
                read_only: ro,
            })
        }
        Some("Glusterfs") => {
            spec.glusterfs = Some(GlusterfsPersistentVolumeSource {
                endpoints: doc.string(v, "EndpointsName").unwrap_or_default(),
                endpoints_namespace: doc.string(v, "EndpointsNamespace"),
                path: doc.string(v, "Path").unwrap_or_default(),
                read_only: ro,
            })
        }
        Some("Cinder") => {
            spec.cinder = Some(CinderPersistentVolumeSource {
                volume_id: doc.string(v, "VolumeID").unwrap_or_default(),
                fs_type: fs,
                read_only: ro,
                secret_ref: secret(),
            })
        }
        Some("AWSElasticBlockStore") => spec.aws_elastic_block_store = Some(aws_ebs(doc, v)),
        Some("GCEPersistentDisk") => spec.gce_persistent_disk = Some(gce_pd(doc, v)),
        Some("AzureDisk") => spec.azure_disk = Some(azure_disk(doc, v)),
        _ => {}
    }
}

// ---------------------------------------------------------------------------------------------
// PersistentVolumeClaims.

/// True when the text looks like `kubectl describe pvc`.
pub fn looks_like_pvc_describe(text: &str) -> bool {
    has_label(text, "Name:")
        && has_label(text, "Namespace:")
        && has_label(text, "Volume:")
        && has_label(text, "Access Modes:")
        && !has_label(text, "Reclaim Policy:")
        && !has_label(text, "Containers:")
}

/// Rebuilds a PersistentVolumeClaim and its events from `kubectl describe pvc`.
pub fn parse_pvc(text: &str) -> Result<(PersistentVolumeClaim, Vec<Event>), ParseError> {
    let doc = read_doc(text, &PVC_GRAMMAR, WHAT_PVC)?;
    let data_source = doc.child(None, "DataSource").and_then(|d| {
        Some(TypedLocalObjectReference {
            api_group: doc.string(Some(d), "APIGroup"),
            kind: doc.string(Some(d), "Kind")?,
            name: doc.string(Some(d), "Name")?,
        })
    });
    let pvc = PersistentVolumeClaim {
        metadata: ObjectMeta {
            name: doc.string(None, "Name"),
            namespace: doc.string(None, "Namespace"),
            labels: pairs(doc.get(None, "Labels")),
            ..Default::default()
        },
        spec: Some(PersistentVolumeClaimSpec {
            storage_class_name: doc.string(None, "StorageClass"),
            volume_name: doc.string(None, "Volume"),
            volume_mode: doc.string(None, "VolumeMode"),
            data_source,
            ..Default::default()
        }),
        status: Some(PersistentVolumeClaimStatus {
            phase: doc.word(None, "Status").map(str::to_string),
            capacity: storage(doc.get(None, "Capacity")),
            access_modes: access_modes(doc.get(None, "Access Modes")),
            ..Default::default()
        }),
    };
    let object = ObjectRef {
        kind: Some("PersistentVolumeClaim".to_string()),
        namespace: pvc.metadata.namespace.clone(),
        name: pvc.metadata.name.clone(),
        uid: None,
    };
    // A PVC describe without an Events section is normal enough not to need a note here.
    let mut notes = Vec::new();
    let events = read_events(&doc, object, &mut notes);
    Ok((pvc, events))
}

/// The pods listed under `Used By:` in `kubectl describe pvc` (empty when none or unreadable).
pub fn pvc_used_by(text: &str) -> Vec<String> {
    let Ok(doc) = read_doc(text, &PVC_GRAMMAR, WHAT_PVC) else {
        return Vec::new();
    };
    doc.get(None, "Used By")
        .map(|v| {
            v.split_whitespace()
                .filter(|p| !is_placeholder(p))
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    const TIDY: &str = include_str!("../../fixtures/seed/nfs-describe-pod.txt");
    const FLAT: &str = include_str!("../../fixtures/seed/nfs-describe-pod-flattened.txt");
    const PV: &str = include_str!("../../fixtures/seed/nfs-describe-pv.txt");

    /// The facts both NFS fixtures must give.
    fn check_nfs_pod(d: &DescribedPod) {
        let p = &d.pod;
        assert_eq!(
            p.metadata.name.as_deref(),
            Some("node1-nfs-test-547c4d7678-j6kwv")
        );
        assert_eq!(p.metadata.namespace.as_deref(), Some("ops-test"));
        let labels = p.metadata.labels.as_ref().unwrap();
        assert_eq!(
            labels.get("pod-template-hash").map(String::as_str),
            Some("547c4d7678")
        );
        let spec = p.spec.as_ref().unwrap();
        let status = p.status.as_ref().unwrap();
        assert_eq!(spec.node_name.as_deref(), Some("node1"));
        assert_eq!(status.host_ip.as_deref(), Some("10.10.107.214"));
        assert_eq!(status.phase.as_deref(), Some("Pending"));
        assert_eq!(status.qos_class.as_deref(), Some("BestEffort"));
        assert_eq!(status.pod_ip, None);

        assert_eq!(spec.containers.len(), 1);
        let c = &spec.containers[0];
        assert_eq!(c.name, "node1-nfs-test");
        assert_eq!(c.image.as_deref(), Some("alpine"));
        let mounts = c.volume_mounts.as_ref().unwrap();
        assert_eq!(mounts.len(), 2);
        assert_eq!(
            (mounts[0].mount_path.as_str(), mounts[0].name.as_str()),
            ("/tmp", "vol1")
        );
        assert_eq!(mounts[0].read_only, Some(false));
        assert_eq!(mounts[1].name, "default-token-f6wjj");
        assert_eq!(mounts[1].read_only, Some(true));
        let cs = &status.container_statuses.as_ref().unwrap()[0];
        assert!(!cs.ready);
        let waiting = cs.state.as_ref().unwrap().waiting.as_ref().unwrap();
        assert_eq!(waiting.reason.as_deref(), Some("ContainerCreating"));
        let conds = status.conditions.as_ref().unwrap();
        assert_eq!(conds.len(), 4);
        assert_eq!(
            (conds[3].type_.as_str(), conds[3].status.as_str()),
            ("PodScheduled", "True")
        );

        let vols = spec.volumes.as_ref().unwrap();
        assert_eq!(vols.len(), 2);
        assert_eq!(vols[0].name, "vol1");
        let pvc = vols[0].persistent_volume_claim.as_ref().unwrap();
        assert_eq!(pvc.claim_name, "nfs-211");
        assert_eq!(pvc.read_only, Some(false));
        assert_eq!(vols[1].name, "default-token-f6wjj");
        let secret = vols[1].secret.as_ref().unwrap();
        assert_eq!(secret.secret_name.as_deref(), Some("default-token-f6wjj"));
        assert_eq!(secret.optional, Some(false));

        assert_eq!(d.events.len(), 2, "{:#?}", d.events);
        for e in &d.events {
            assert_eq!(e.kind.as_deref(), Some("Warning"));
            assert_eq!(e.reason, "FailedMount");
            assert_eq!(e.source_host.as_deref(), Some("node1"));
            assert!(e.source.as_deref().unwrap().starts_with("kubelet"));
            assert_eq!(e.origin, Origin::Describe);
            let obj = e.object.as_ref().unwrap();
            assert_eq!(obj.name.as_deref(), Some("node1-nfs-test-547c4d7678-j6kwv"));
        }
        let m = &d.events[0].message;
        assert!(m.contains("Mounting arguments: --description=Kubernetes transient mount for"));
        assert!(m.contains("mount -t nfs 10.20.172.211:/nfs"));
        assert!(m.contains("helper program"));
        assert!(d.notes.is_empty(), "{:?}", d.notes);
    }

    #[test]
    fn tidy_nfs_pod() {
        assert!(looks_like_pod_describe(TIDY));
        assert!(!looks_like_pv_describe(TIDY));
        assert!(!looks_like_pvc_describe(TIDY));
        let d = parse_pod(TIDY).unwrap();
        check_nfs_pod(&d);
        let m = &d.events[0].message;
        assert!(m.contains("exit status 32\nMounting command: systemd-run\nMounting arguments:"));
        assert!(m.contains("\n       missing codepage or helper program, or other error\n"));
    }

    #[test]
    fn flattened_nfs_pod() {
        assert!(looks_like_pod_describe(FLAT));
        let d = parse_pod(FLAT).unwrap();
        check_nfs_pod(&d);
        assert!(d.events[0].message.ends_with("dmesg | tail or so."));
        assert_eq!(
            d.events[1].message,
            "MountVolume.SetUp failed for volume \"nfs211\" : mount failed: exit status 32"
        );
    }

    #[test]
    fn nfs_pv() {
        assert!(looks_like_pv_describe(PV));
        assert!(!looks_like_pod_describe(PV));
        assert!(!looks_like_pvc_describe(PV));
        let pv = parse_pv(PV).unwrap();
        assert_eq!(pv.metadata.name.as_deref(), Some("nfs211"));
        let spec = pv.spec.as_ref().unwrap();
        let nfs = spec.nfs.as_ref().unwrap();
        assert_eq!(nfs.server, "10.20.172.211");
        assert_eq!(nfs.path, "/nfs");
        assert_eq!(nfs.read_only, Some(false));
        assert_eq!(spec.storage_class_name.as_deref(), Some("nfs216"));
        let claim = spec.claim_ref.as_ref().unwrap();
        assert_eq!(claim.namespace.as_deref(), Some("ops-test"));
        assert_eq!(claim.name.as_deref(), Some("nfs-211"));
        assert_eq!(pv.status.as_ref().unwrap().phase.as_deref(), Some("Bound"));
        assert_eq!(
            spec.access_modes.as_deref(),
            Some(&["ReadWriteMany".to_string()][..])
        );
        assert_eq!(
            spec.persistent_volume_reclaim_policy.as_deref(),
            Some("Retain")
        );
        assert_eq!(
            spec.capacity.as_ref().unwrap().get("storage"),
            Some(&Quantity("10Gi".to_string()))
        );
    }

    #[test]
    fn flattened_pv() {
        let flat = PV.split_whitespace().collect::<Vec<_>>().join(" ");
        let pv = parse_pv(&flat).unwrap();
        let nfs = pv.spec.as_ref().unwrap().nfs.as_ref().unwrap();
        assert_eq!(nfs.server, "10.20.172.211");
        assert_eq!(
            pv.spec.as_ref().unwrap().storage_class_name.as_deref(),
            Some("nfs216")
        );
    }

    // Shape from describePersistentVolumeClaim / printPersistentVolumeClaim / DescribeEvents in
    // kubernetes/kubectl pkg/describe/describe.go.
    const PVC_PENDING: &str = "\
Name:          data-web-0
Namespace:     shop
StorageClass:  csi-rbd-sc
Status:        Pending
Volume:        
Labels:        app=web
Annotations:   volume.beta.kubernetes.io/storage-provisioner: rbd.csi.ceph.com
               volume.kubernetes.io/storage-provisioner: rbd.csi.ceph.com
Finalizers:    [kubernetes.io/pvc-protection]
Capacity:      
Access Modes:  
VolumeMode:    Filesystem
Used By:       web-0
Events:
  Type     Reason                Age                From                                                                                         Message
  ----     ------                ----               ----                                                                                         -------
  Normal   ExternalProvisioning  12s (x5 over 58s)  persistentvolume-controller                                                                  waiting for a volume to be created, either by external provisioner \"rbd.csi.ceph.com\" or manually created by system administrator
  Normal   Provisioning          40s (x4 over 58s)  rbd.csi.ceph.com_csi-rbdplugin-provisioner-5d9b8c7f4-x2x9z_0c4b1e7e-6f2d-4c55-9f65-3e0b2c1a9d11  External provisioner is provisioning volume for claim \"shop/data-web-0\"
  Warning  ProvisioningFailed    40s (x4 over 58s)  rbd.csi.ceph.com_csi-rbdplugin-provisioner-5d9b8c7f4-x2x9z_0c4b1e7e-6f2d-4c55-9f65-3e0b2c1a9d11  failed to provision volume with StorageClass \"csi-rbd-sc\": rpc error: code = InvalidArgument desc = missing required field pool
";

    const PVC_BOUND: &str = "\
Name:          nfs-211
Namespace:     ops-test
StorageClass:  nfs216
Status:        Bound
Volume:        nfs211
Labels:        <none>
Annotations:   pv.kubernetes.io/bind-completed: yes
Finalizers:    [kubernetes.io/pvc-protection]
Capacity:      10Gi
Access Modes:  RWX
VolumeMode:    Filesystem
Used By:       node1-nfs-test-547c4d7678-j6kwv
               node2-nfs-test-6b8f9d5c4-q7xkp
Events:        <none>
";

    #[test]
    fn pvc_pending_with_events() {
        assert!(looks_like_pvc_describe(PVC_PENDING));
        assert!(!looks_like_pv_describe(PVC_PENDING));
        let (pvc, events) = parse_pvc(PVC_PENDING).unwrap();
        assert_eq!(pvc.metadata.name.as_deref(), Some("data-web-0"));
        let spec = pvc.spec.as_ref().unwrap();
        assert_eq!(spec.storage_class_name.as_deref(), Some("csi-rbd-sc"));
        assert_eq!(spec.volume_name, None);
        let status = pvc.status.as_ref().unwrap();
        assert_eq!(status.phase.as_deref(), Some("Pending"));
        assert_eq!(status.capacity, None);
        assert_eq!(status.access_modes, None);
        assert_eq!(events.len(), 3);
        assert_eq!(events[0].reason, "ExternalProvisioning");
        assert_eq!(events[0].count, Some(5));
        assert_eq!(events[2].reason, "ProvisioningFailed");
        assert!(events[2].message.contains("missing required field pool"));
        assert_eq!(
            events[2].object.as_ref().unwrap().kind.as_deref(),
            Some("PersistentVolumeClaim")
        );
        assert_eq!(pvc_used_by(PVC_PENDING), vec!["web-0".to_string()]);
    }

    #[test]
    fn pvc_bound() {
        let (pvc, events) = parse_pvc(PVC_BOUND).unwrap();
        assert!(events.is_empty());
        assert_eq!(
            pvc.spec.as_ref().unwrap().volume_name.as_deref(),
            Some("nfs211")
        );
        let status = pvc.status.as_ref().unwrap();
        assert_eq!(status.phase.as_deref(), Some("Bound"));
        assert_eq!(
            status.access_modes.as_deref(),
            Some(&["ReadWriteMany".to_string()][..])
        );
        assert_eq!(pvc.metadata.labels, None);
        assert_eq!(
            pvc_used_by(PVC_BOUND),
            vec![
                "node1-nfs-test-547c4d7678-j6kwv".to_string(),
                "node2-nfs-test-6b8f9d5c4-q7xkp".to_string()
            ]
        );
    }

    // Volume printers from describeVolumes (kubernetes/kubectl pkg/describe/describe.go).
    const MANY_VOLUMES: &str = "\
Name:             db-0
Namespace:        shop
Priority:         0
Service Account:  default
Node:             <none>
Labels:           app=db
Annotations:      <none>
Status:           Pending
IP:               
IPs:              <none>
Init Containers:
  init-perms:
    Image:      busybox:1.36
    Port:       <none>
    Host Port:  <none>
    Environment:  <none>
    Mounts:
      /data from data (rw,path=\"pg\")
Containers:
  postgres:
    Image:      postgres:16
    Port:       5432/TCP
    Host Port:  0/TCP
    Environment:
      PGDATA:  /var/lib/postgresql/data/pg
    Mounts:
      /dev/shm from shm (rw)
      /etc/cfg from cfg (ro)
      /var/lib/postgresql/data from data (rw)
    Devices:
      /dev/xvdb from raw
Conditions:
  Type           Status
  PodScheduled   False 
Volumes:
  data:
    Type:       RBD (a Rados Block Device mount on the host that shares a pod's lifetime)
    CephMonitors:  [10.0.0.1:6789 10.0.0.2:6789]
    RBDImage:      db-image
    FSType:        ext4
    RBDPool:       kube
    RadosUser:     admin
    Keyring:       /etc/ceph/keyring
    SecretRef:     &LocalObjectReference{Name:ceph-secret,}
    ReadOnly:      false
  shm:
    Type:       EmptyDir (a temporary directory that shares a pod's lifetime)
    Medium:     Memory
    SizeLimit:  1Gi
  cfg:
    Type:      ConfigMap (a volume populated by a ConfigMap)
    Name:      db-config
    Optional:  false
  host:
    Type:          HostPath (bare host directory volume)
    Path:          /var/log
    HostPathType:  DirectoryOrCreate
  scratch:
    Type:          EphemeralVolume (an inline specification for a volume that gets created and deleted with the pod)
    StorageClass:  fast
    Volume:        
    Labels:            <none>
    Annotations:   <none>
    Capacity:      
    Access Modes:  
    VolumeMode:    Filesystem
  secrets-store:
    Type:              CSI (a Container Storage Interface (CSI) volume source)
    Driver:            secrets-store.csi.k8s.io
    FSType:            
    ReadOnly:          true
    VolumeAttributes:      secretProviderClass=vault-db
                           usePodIdentity=false
  shared:
    Type:      NFS (an NFS mount that lasts the lifetime of a pod)
    Server:    nfs.example.com
    Path:      /exports/shared
    ReadOnly:  true
  gluster:
    Type:           Glusterfs (a Glusterfs mount on the host that shares a pod's lifetime)
    EndpointsName:  glusterfs-cluster
    Path:           kube_vol
    ReadOnly:       false
  cephfs:
    Type:        CephFS (a CephFS mount on the host that shares a pod's lifetime)
    Monitors:    [10.16.154.78:6789]
    Path:        /
    User:        admin
    SecretFile:  
    SecretRef:   &LocalObjectReference{Name:ceph-secret,}
    ReadOnly:    true
  iscsi:
    Type:          ISCSI (an ISCSI Disk resource that is attached to a kubelet's host machine and then exposed to the pod)
    TargetPortal:  10.0.2.15:3260
    IQN:           iqn.2001-04.com.example:storage.kube.sys1.xyz
    Lun:           0
    ISCSIInterface default
    FSType:        ext4
    ReadOnly:      true
    Portals:       []
    DiscoveryCHAPAuth:  false
    SessionCHAPAuth:    false
    SecretRef:          nil
    InitiatorName:      <none>
  ebs:
    Type:       AWSElasticBlockStore (a Persistent Disk resource in AWS)
    VolumeID:   vol-0123456789abcdef0
    FSType:     ext4
    Partition:  1
    ReadOnly:   false
  kube-api-access-x2f9q:
    Type:                    Projected (a volume that contains injected data from multiple sources)
    TokenExpirationSeconds:  3607
    ConfigMapName:           kube-root-ca.crt
    ConfigMapOptional:       <nil>
    DownwardAPI:             true
  repo:
    Type:        GitRepo (a volume that is pulled from git when the pod is created)
    Repository:  https://example.com/repo.git
    Revision:    main
QoS Class:       BestEffort
Node-Selectors:  disktype=ssd
Tolerations:     node.kubernetes.io/not-ready:NoExecute op=Exists for 300s
";

    #[test]
    fn many_volume_types() {
        let d = parse_pod(MANY_VOLUMES).unwrap();
        let spec = d.pod.spec.as_ref().unwrap();
        assert_eq!(spec.node_name, None);
        assert_eq!(d.pod.status.as_ref().unwrap().host_ip, None);
        assert_eq!(spec.service_account_name.as_deref(), Some("default"));
        assert_eq!(
            spec.node_selector
                .as_ref()
                .unwrap()
                .get("disktype")
                .map(String::as_str),
            Some("ssd")
        );
        let init = &spec.init_containers.as_ref().unwrap()[0];
        let m = &init.volume_mounts.as_ref().unwrap()[0];
        assert_eq!(m.sub_path.as_deref(), Some("pg"));
        assert_eq!(m.read_only, Some(false));
        let c = &spec.containers[0];
        assert_eq!(c.volume_mounts.as_ref().unwrap().len(), 3);
        assert_eq!(c.volume_devices.as_ref().unwrap()[0].name, "raw");
        // No status lines were printed, so no container status is invented.
        assert_eq!(d.pod.status.as_ref().unwrap().container_statuses, None);

        let vols = spec.volumes.as_ref().unwrap();
        let by = |n: &str| vols.iter().find(|v| v.name == n).unwrap();
        let rbd = by("data").rbd.as_ref().unwrap();
        assert_eq!(rbd.monitors, vec!["10.0.0.1:6789", "10.0.0.2:6789"]);
        assert_eq!(rbd.image, "db-image");
        assert_eq!(rbd.pool.as_deref(), Some("kube"));
        assert_eq!(rbd.user.as_deref(), Some("admin"));
        assert_eq!(rbd.secret_ref.as_ref().unwrap().name, "ceph-secret");
        let shm = by("shm").empty_dir.as_ref().unwrap();
        assert_eq!(shm.medium.as_deref(), Some("Memory"));
        assert_eq!(shm.size_limit, Some(Quantity("1Gi".to_string())));
        assert_eq!(by("cfg").config_map.as_ref().unwrap().name, "db-config");
        let hp = by("host").host_path.as_ref().unwrap();
        assert_eq!(
            (hp.path.as_str(), hp.type_.as_deref()),
            ("/var/log", Some("DirectoryOrCreate"))
        );
        assert_eq!(
            by("scratch").ephemeral,
            Some(EphemeralVolumeSource::default())
        );
        let csi = by("secrets-store").csi.as_ref().unwrap();
        assert_eq!(csi.driver, "secrets-store.csi.k8s.io");
        assert_eq!(csi.fs_type, None);
        assert_eq!(csi.read_only, Some(true));
        let attrs = csi.volume_attributes.as_ref().unwrap();
        assert_eq!(
            attrs.get("usePodIdentity").map(String::as_str),
            Some("false")
        );
        assert_eq!(by("shared").nfs.as_ref().unwrap().server, "nfs.example.com");
        assert_eq!(
            by("gluster").glusterfs.as_ref().unwrap().endpoints,
            "glusterfs-cluster"
        );
        let cephfs = by("cephfs").cephfs.as_ref().unwrap();
        assert_eq!(cephfs.monitors, vec!["10.16.154.78:6789"]);
        assert_eq!(cephfs.secret_file, None);
        let iscsi = by("iscsi").iscsi.as_ref().unwrap();
        assert_eq!(iscsi.lun, 0);
        assert_eq!(iscsi.target_portal, "10.0.2.15:3260");
        assert_eq!(iscsi.secret_ref, None);
        assert_eq!(iscsi.portals, None);
        let ebs = by("ebs").aws_elastic_block_store.as_ref().unwrap();
        assert_eq!(
            (ebs.volume_id.as_str(), ebs.partition),
            ("vol-0123456789abcdef0", Some(1))
        );
        assert!(by("kube-api-access-x2f9q").projected.is_some());
        // GitRepo is not read: kept by name, with a note.
        let repo = by("repo");
        assert_eq!(repo.git_repo, None);
        assert!(d
            .notes
            .iter()
            .any(|n| n.contains("volume repo") && n.contains("GitRepo")));
        assert!(d.notes.iter().any(|n| n.contains("no Events section")));
        assert_eq!(vols.len(), 13);
    }

    #[test]
    fn many_volume_types_flattened() {
        let flat = MANY_VOLUMES
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        let d = parse_pod(&flat).unwrap();
        let spec = d.pod.spec.as_ref().unwrap();
        let vols = spec.volumes.as_ref().unwrap();
        assert_eq!(
            vols.len(),
            13,
            "{:?}",
            vols.iter().map(|v| &v.name).collect::<Vec<_>>()
        );
        let by = |n: &str| vols.iter().find(|v| v.name == n).unwrap();
        assert_eq!(
            by("data").rbd.as_ref().unwrap().pool.as_deref(),
            Some("kube")
        );
        assert_eq!(by("cfg").config_map.as_ref().unwrap().name, "db-config");
        assert_eq!(by("iscsi").iscsi.as_ref().unwrap().lun, 0);
        assert_eq!(spec.init_containers.as_ref().unwrap()[0].name, "init-perms");
        assert_eq!(spec.containers[0].name, "postgres");
        assert_eq!(spec.containers[0].volume_mounts.as_ref().unwrap().len(), 3);
    }

    #[test]
    fn terminated_state_and_events_none() {
        let text = "\
Name:         job-x
Namespace:    default
Node:         worker-1/192.168.1.20
Status:       Failed
IP:           10.244.1.7
Containers:
  main:
    Container ID:   containerd://abc
    Image:          busybox
    Image ID:       docker.io/library/busybox@sha256:0
    State:          Terminated
      Reason:       Error
      Exit Code:    2
    Ready:          False
    Restart Count:  3
    Mounts:         <none>
Volumes:            <none>
QoS Class:          BestEffort
Events:             <none>
";
        let d = parse_pod(text).unwrap();
        assert!(d.events.is_empty());
        assert!(d.notes.is_empty(), "{:?}", d.notes);
        let st = d.pod.status.as_ref().unwrap();
        assert_eq!(st.pod_ip.as_deref(), Some("10.244.1.7"));
        let cs = &st.container_statuses.as_ref().unwrap()[0];
        assert_eq!(cs.restart_count, 3);
        assert_eq!(cs.container_id.as_deref(), Some("containerd://abc"));
        let t = cs.state.as_ref().unwrap().terminated.as_ref().unwrap();
        assert_eq!((t.exit_code, t.reason.as_deref()), (2, Some("Error")));
        assert_eq!(d.pod.spec.as_ref().unwrap().volumes, None);
    }

    #[test]
    fn errors() {
        let e = parse_pod("").unwrap_err();
        assert!(e.message.contains("empty"));
        let e = parse_pod("   \n\t\n").unwrap_err();
        assert!(e.message.contains("empty"));
        let e = parse_pod("Namespace: x\nStatus: Pending\n").unwrap_err();
        assert!(e.message.contains("Name:"));
        assert!(parse_pv("hello world").is_err());
        assert!(parse_pvc("Name:").is_err());
        assert!(pvc_used_by("").is_empty());
    }

    /// A deterministic pseudo-random byte stream (no extra dependency for a fuzz-ish test).
    fn garbage(len: usize, mut seed: u64) -> Vec<u8> {
        (0..len)
            .map(|_| {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                (seed >> 24) as u8
            })
            .collect()
    }

    #[test]
    fn never_panics() {
        for text in [TIDY, FLAT, PV, PVC_PENDING, MANY_VOLUMES] {
            let cuts = text
                .char_indices()
                .map(|(i, _)| i)
                .step_by(7)
                .chain([text.len()]);
            for cut in cuts {
                let prefix = &text[..cut];
                let _ = parse_pod(prefix);
                let _ = parse_pv(prefix);
                let _ = parse_pvc(prefix);
                let _ = looks_like_pod_describe(prefix);
            }
        }
        let mut inputs: Vec<String> = (0..20)
            .map(|s| String::from_utf8_lossy(&garbage(4096, s + 1)).into_owned())
            .collect();
        // Garbage salted with labels, so the field machinery actually runs on it.
        let salted: String = String::from_utf8_lossy(&garbage(20000, 99))
            .split_inclusive(|c: char| c.is_ascii_punctuation())
            .zip(POD_TOP.iter().chain(VOLUME_KEYS).cycle())
            .map(|(g, k)| format!("{g} {k}: "))
            .collect();
        inputs.push(salted);
        inputs.push("x".repeat(1 << 20));
        inputs.push(format!(
            "Name: a Containers: {} Events: {}",
            "b: Image: c ".repeat(20000),
            "Warning X 1s k m ".repeat(20000)
        ));
        inputs.push(
            (0..5000)
                .map(|i| format!("{}Name: x\n", " ".repeat(i % 300)))
                .collect(),
        );
        for text in &inputs {
            let _ = parse_pod(text);
            let _ = parse_pv(text);
            let _ = parse_pvc(text);
        }
    }
}
