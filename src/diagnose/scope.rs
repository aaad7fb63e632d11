//! Evidence the pod owns (issue 26): which facts of a case are about the pod being diagnosed,
//! and which are about another pod, another claim or volume, another device or another node.
//! The engine only ever sees the first; the second are set aside as context, counted, and said
//! in one line of the report. A busy node's kubelet log, a namespace's event table, a
//! cluster's PV dump, another pod's describe: what they say about others never decides, and
//! adding them changes nothing.
//!
//! Who the pod is, in this order: the pod named on the command line; else the failures pasted
//! without an object (a describe's Events block alone, rows without their header, raw
//! messages: the operator's own question) and the pod object they agree with; else the one pod
//! object; else the first pod the input names with a volume failure. What it owns follows from
//! it: its volumes, their claims and PVs (and those PVs' handles, servers, devices, images),
//! its node, and every name its own failures use. A fact is the pod's when it names one of
//! these; another's when it names a pod, volume, device or server the pod has none of; and a
//! fact that names nothing is kept only where it cannot be taken for another's (the pod's own
//! events, the node's kernel lines that name no device).

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};

use crate::model::{Case, Event, LogLine, NodeFacts, PluginLogLine, KERNEL_LOG_LABEL};
use crate::parse::identity::{self, Names};

use super::context::{hint_of_pod_volume, hint_of_pv, VolumeHint};
use super::messages::is_volume_failure_event;

/// Most names of others the report lists for one kind of fact.
const MAX_NAMED: usize = 4;

/// What was set aside, by kind of fact: how many, and about what.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SetAside {
    kinds: BTreeMap<&'static str, (usize, BTreeSet<String>)>,
}

impl SetAside {
    fn add(&mut self, kind: &'static str, about: impl Into<String>) {
        let e = self.kinds.entry(kind).or_default();
        e.0 += 1;
        let about = about.into();
        if !about.is_empty() {
            e.1.insert(about);
        }
    }

    /// How many facts were set aside.
    pub fn total(&self) -> usize {
        self.kinds.values().map(|(n, _)| n).sum()
    }

    /// `(kind, count, what they are about)`, for the JSON report.
    pub fn items(&self) -> impl Iterator<Item = (&'static str, usize, Vec<String>)> + '_ {
        self.kinds
            .iter()
            .map(|(k, (n, about))| (*k, *n, about.iter().take(MAX_NAMED).cloned().collect()))
    }

    /// The one line the report says, or `None` when nothing was set aside.
    pub fn summary(&self) -> Option<String> {
        if self.kinds.is_empty() {
            return None;
        }
        let parts: Vec<String> = self
            .kinds
            .iter()
            .map(|(k, (n, about))| {
                let mut s = format!("{n} {k}");
                if !about.is_empty() {
                    let shown: Vec<&str> =
                        about.iter().take(MAX_NAMED).map(String::as_str).collect();
                    let more = about.len().saturating_sub(MAX_NAMED);
                    s.push_str(&format!(
                        " ({}{})",
                        shown.join(", "),
                        if more > 0 {
                            format!(", {more} more")
                        } else {
                            String::new()
                        }
                    ));
                }
                s
            })
            .collect();
        Some(format!(
            "Set aside {} fact(s) about other pods, volumes, devices or nodes, which do not bear on this pod: {}",
            self.total(),
            parts.join("; ")
        ))
    }
}

/// Who the pod being diagnosed is, and every name that is its own.
#[derive(Debug, Clone, Default)]
pub struct Subject {
    /// The pod's name and namespace, when known.
    pub pod: Option<String>,
    pub namespace: Option<String>,
    /// The names its facts may use: UIDs, volumes, PVs, handles, disks, device paths, servers.
    pub names: Names,
    /// Its claims (names in its namespace).
    pub claims: BTreeSet<String>,
    /// Its node.
    pub node: Option<String>,
    /// CSI drivers of its volumes.
    pub drivers: BTreeSet<String>,
    /// RBD images of its volumes (`pool/image`).
    pub images: BTreeSet<String>,
    /// StorageClasses of its claims and PVs.
    pub classes: BTreeSet<String>,
    /// When the pod was created (Unix seconds): a line about its device from before is about
    /// another volume that used the device.
    pub created: Option<i64>,
    /// The input asks about a pod of its own (named, an object, failures pasted without an
    /// object, a pod's failure events): a log line is then kept only when it names what the
    /// pod owns. Without one, a log is the whole question, and its first named failure says
    /// whose it is.
    pub anchored: bool,
    /// The first input that asks about a pod (see `first_asking_input`): a later input's
    /// facts are kept only when they are shown to be the pod's.
    pub asking: Option<u32>,
}

/// How a fact stands to the pod.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Relevance {
    /// It names the pod or one of its volumes, devices or servers.
    Own,
    /// It names another pod, volume, device or server, and none of the pod's (the first such
    /// name, for the report).
    Other(String),
    /// It names nothing either way.
    Unnamed,
}

impl Subject {
    /// Whether anything identifies the pod at all.
    pub fn known(&self) -> bool {
        self.pod.is_some() || !self.names.is_empty()
    }

    fn has_pod_identity(&self) -> bool {
        self.pod.is_some() || !self.names.pod_uids.is_empty()
    }

    /// `ns/name` or `name` of a text: is it this pod?
    fn is_pod(&self, named: &str) -> bool {
        let Some(pod) = &self.pod else {
            return self.names.pods.contains(named);
        };
        match named.split_once('/') {
            Some((ns, name)) => {
                name == pod && self.namespace.as_deref().is_none_or(|mine| mine == ns)
            }
            None => named == pod,
        }
    }

    /// How what a text names stands to the pod.
    pub fn relevance(&self, n: &Names) -> Relevance {
        if n.is_empty() {
            return Relevance::Unnamed;
        }
        let names_pod = !n.pod_uids.is_empty() || !n.pods.is_empty();
        if names_pod {
            if n.pod_uids.iter().any(|u| self.names.pod_uids.contains(u))
                || n.pods.iter().any(|p| self.is_pod(p))
            {
                return Relevance::Own;
            }
            // Another pod's line, whatever volume name it shares (`data` is every pod's).
            if self.has_pod_identity() {
                let who = n
                    .pods
                    .iter()
                    .next()
                    .map(|p| format!("pod {p}"))
                    .or_else(|| n.pod_uids.iter().next().map(|u| format!("pod UID {u}")))
                    .unwrap_or_default();
                return Relevance::Other(who);
            }
        }
        let mine = &self.names;
        let volumes_mine = |v: &String| mine.volumes.contains(v) || mine.pvs.contains(v);
        // A PV, a handle, a device or a server is one volume's; a pod's volume name (`data`)
        // is every pod's, and ties a line that names another pod to nothing.
        let strong = n.pvs.iter().any(volumes_mine)
            || n.handles.iter().any(|h| mine.handles.contains(h))
            || n.disks.iter().any(|d| mine.disks.contains(d))
            || n.device_paths.iter().any(|d| mine.device_paths.contains(d))
            || n.servers.iter().any(|s| mine.servers.contains(s));
        let weak = n.volumes.iter().any(volumes_mine);
        if strong || (weak && !names_pod) {
            return Relevance::Own;
        }
        // It names something of a kind the pod has, and not the pod's: another's.
        let knows_volumes = !mine.volumes.is_empty() || !mine.pvs.is_empty();
        let other = [
            (
                knows_volumes,
                n.pvs.iter().next().map(|p| format!("PV {p}")),
            ),
            (
                knows_volumes,
                n.volumes.iter().next().map(|v| format!("volume {v}")),
            ),
            (
                !mine.handles.is_empty(),
                n.handles.iter().next().map(|h| format!("volume {h}")),
            ),
            (
                !mine.disks.is_empty(),
                n.disks.iter().next().map(|d| format!("device {d}")),
            ),
            (
                !mine.device_paths.is_empty(),
                n.device_paths.iter().next().map(|d| format!("device {d}")),
            ),
            (
                !mine.servers.is_empty(),
                n.servers.iter().next().map(|s| format!("server {s}")),
            ),
        ]
        .into_iter()
        .find_map(|(known, named)| if known { named } else { None });
        match other {
            Some(o) => Relevance::Other(o),
            None if names_pod && !self.known() => Relevance::Unnamed,
            None => Relevance::Unnamed,
        }
    }
}

/// The case as the pod owns it, and what was set aside.
pub fn own(case: &Case) -> (Cow<'_, Case>, SetAside) {
    let subject = subject_of(case);
    let mut aside = SetAside::default();
    let mut scoped = case.clone_without_logs();
    scoped.logs = Vec::new();
    if let Some(p) = &subject.pod {
        if scoped.pod_name.is_none() {
            scoped.pod_name = Some(p.clone());
        }
        if scoped.namespace.is_none() {
            scoped.namespace = subject.namespace.clone();
        }
    }
    // The pod object itself: another pod's when it is not the subject.
    if let Some(pod) = &case.pod {
        if !is_subject_pod(&subject, pod) {
            aside.add("pods", pod_label(pod));
            scoped.pod = None;
        }
    }
    scoped.events = keep_events(&subject, case, &mut aside);
    scoped.messages = keep_messages(&subject, case, &mut aside);
    scoped.logs = keep_lines(&subject, &case.logs, "kubelet log lines", &mut aside);
    scoped.plugin_logs = keep_plugin_lines(&subject, &case.plugin_logs, &mut aside);
    keep_objects(&subject, case, &mut scoped, &mut aside);
    if let Some(f) = &case.node_facts {
        scoped.node_facts = keep_node_facts(&subject, case, f, &mut aside);
    }
    if aside.total() == 0 {
        return (Cow::Borrowed(case), aside);
    }
    (Cow::Owned(scoped), aside)
}

fn pod_label(pod: &k8s_openapi::api::core::v1::Pod) -> String {
    match (&pod.metadata.namespace, &pod.metadata.name) {
        (Some(ns), Some(n)) => format!("pod {ns}/{n}"),
        (None, Some(n)) => format!("pod {n}"),
        _ => "a pod".into(),
    }
}

fn is_subject_pod(s: &Subject, pod: &k8s_openapi::api::core::v1::Pod) -> bool {
    let Some(want) = &s.pod else {
        return false;
    };
    pod.metadata.name.as_deref() == Some(want.as_str())
        && match (&s.namespace, &pod.metadata.namespace) {
            (Some(a), Some(b)) => a == b,
            _ => true,
        }
}

// --- who the pod is -----------------------------------------------------------------------------

/// The failures pasted without an object, with the input each came from: the operator's own
/// question.
fn implicit_items(case: &Case) -> Vec<(u32, &str)> {
    case.events
        .iter()
        .filter(|e| is_implicit(e) && is_volume_failure_event(e))
        .map(|e| (e.input, e.message.as_str()))
        .chain(
            case.messages
                .iter()
                .filter(|m| !m.label.starts_with(KERNEL_LOG_LABEL))
                .map(|m| (m.input, m.text.as_str())),
        )
        .collect()
}

/// The first input (in the order given) with a failure pasted without an object.
fn first_input(case: &Case) -> Option<u32> {
    implicit_items(case).iter().map(|(i, _)| *i).min()
}

/// An event pasted without the object it is about (a describe's Events block alone, rows
/// without their header).
fn is_implicit(e: &Event) -> bool {
    e.object
        .as_ref()
        .is_none_or(|o| o.name.is_none() && o.uid.is_none())
}

/// The failures of the first input that has any: one paste is one pod's; a later paste's are
/// kept only as far as they agree with it.
fn implicit_texts(case: &Case) -> Vec<&str> {
    let all = implicit_items(case);
    let Some(first) = first_input(case) else {
        return Vec::new();
    };
    all.into_iter()
        .filter(|(i, _)| *i == first)
        .map(|(_, t)| t)
        .collect()
}

/// The names a set of texts gives (pod names left out: a failure of the pod may name another
/// pod, such as the one that holds its volume).
fn names_of<'a>(texts: impl Iterator<Item = &'a str>) -> Names {
    let mut n = Names::default();
    for t in texts {
        let mut one = identity::names(t);
        one.pods.clear();
        n.extend(one);
    }
    n
}

/// The first input (in the order given; 0 when read live) that asks about a pod: a failure
/// pasted without an object, a pod's failure event, a kubelet or node plugin log line, or the
/// pod object. Its facts say who the pod is; later inputs are read against it.
fn first_asking_input(case: &Case) -> Option<u32> {
    let events = case
        .events
        .iter()
        .filter(|e| is_volume_failure_event(e))
        .map(|e| e.input);
    // A kernel line asks too when it names a volume or its server (an SELinux denial on the
    // PV's directory, an iSCSI portal that did not answer): the node's log was pasted about
    // it. One that names only a device or nothing is the node's, anyone's.
    let messages = case
        .messages
        .iter()
        .filter(|m| {
            !m.label.starts_with(KERNEL_LOG_LABEL) || {
                let n = identity::names(&m.text);
                !n.pvs.is_empty() || !n.pod_uids.is_empty() || !n.servers.is_empty()
            }
        })
        .map(|m| m.input);
    let logs = case
        .logs
        .iter()
        .map(|l| l.input)
        .chain(case.plugin_logs.iter().map(|l| l.line.input));
    let pod = case.pod.iter().map(|_| case.pod_input);
    events.chain(messages).chain(logs).chain(pod).min()
}

/// Who the pod is.
pub fn subject_of(case: &Case) -> Subject {
    let asking = first_asking_input(case);
    let implicit = implicit_texts(case);
    // The failures pasted on their own count when they are the asking input's.
    let implicit: Vec<&str> = if first_input(case) == asking {
        implicit
    } else {
        Vec::new()
    };
    let implicit_names = names_of(implicit.iter().copied());
    let pods: Vec<&k8s_openapi::api::core::v1::Pod> =
        case.pod.iter().chain(case.other_pods.iter()).collect();
    let mut s = Subject {
        asking,
        ..Subject::default()
    };
    // 1. Named on the command line.
    let chosen = if let Some(name) = &case.pod_name {
        s.pod = Some(name.clone());
        s.namespace = case.namespace.clone();
        pods.iter()
            .copied()
            .find(|p| p.metadata.name.as_deref() == Some(name.as_str()))
    } else if let Some(p) = case.pod.as_ref() {
        // 2./3. The pod object, when it is the asking input's or agrees with it.
        let agrees_with_question = if implicit.is_empty() {
            Some(case.pod_input) == asking
        } else {
            agrees(case, p, &implicit_names, &implicit)
        };
        agrees_with_question.then_some(p)
    } else {
        None
    };
    if let Some(p) = chosen {
        s.pod = p.metadata.name.clone();
        s.namespace = p.metadata.namespace.clone().or(s.namespace);
        add_pod(case, p, &mut s);
    }
    // 4. No pod object: the first pod the asking input's failure events name.
    if s.pod.is_none() && implicit.is_empty() {
        if let Some((name, ns)) = first_failing_pod(case, asking) {
            s.pod = Some(name);
            s.namespace = ns.or(case.namespace.clone());
        }
    }
    // What its own failures name is its own too.
    s.names.extend(implicit_names);
    let own_events: Vec<&str> = case
        .events
        .iter()
        .filter(|e| event_is_subjects(&s, e) && (!is_implicit(e) || Some(e.input) == asking))
        .map(|e| e.message.as_str())
        .collect();
    let from_events = names_of(own_events.into_iter());
    s.names.extend(from_events);
    if s.pod.is_some() && s.names.pod_uids.is_empty() {
        // The UID the pod's own kubelet lines give (`pod "name_ns(uid)"`, `podUID=`).
        for l in &case.logs {
            let n = identity::names(&l.message);
            if n.pods.iter().any(|p| s.is_pod(p)) && n.pod_uids.len() == 1 {
                s.names.pod_uids.extend(n.pod_uids);
                break;
            }
        }
    }
    s.anchored = s.pod.is_some() || !implicit.is_empty() || chosen.is_some();
    // Only a log asks: the first named failure of the asking log is the pod's.
    if !s.anchored && !s.known() {
        let lines = case
            .logs
            .iter()
            .chain(case.plugin_logs.iter().map(|l| &l.line))
            .filter(|l| Some(l.input) == asking);
        if let Some(n) = lines
            .map(|l| identity::names(&l.message))
            .find(|n| !n.is_empty())
        {
            if let Some(p) = n.pods.iter().next() {
                match p.split_once('/') {
                    Some((ns, name)) => {
                        s.pod = Some(name.to_string());
                        s.namespace = Some(ns.to_string());
                    }
                    None => s.pod = Some(p.clone()),
                }
            }
            let mut n = n;
            n.pods.clear();
            s.names.extend(n);
        }
    }
    // The claims and PVs its failures name, with what the objects say of them.
    add_named_volumes(case, &mut s);
    s.node = s.node.clone().or_else(|| {
        case.events
            .iter()
            .filter(|e| event_is_subjects(&s, e))
            .find_map(|e| e.source_host.clone().filter(|h| !h.is_empty()))
    });
    s
}

/// Whether the failures pasted on their own can be this pod's: nothing they name conflicts
/// with it, and a pod that brought its own failures (its describe) shares one with them.
fn agrees(
    case: &Case,
    p: &k8s_openapi::api::core::v1::Pod,
    implicit_names: &Names,
    implicit: &[&str],
) -> bool {
    let mut probe = Subject {
        pod: p.metadata.name.clone(),
        namespace: p.metadata.namespace.clone(),
        ..Subject::default()
    };
    add_pod(case, p, &mut probe);
    if let Some(uid) = &p.metadata.uid {
        probe.names.pod_uids.insert(uid.to_ascii_lowercase());
    }
    if !implicit_names.pod_uids.is_empty()
        && probe.names.pod_uids.is_disjoint(&implicit_names.pod_uids)
    {
        return false;
    }
    let own_failures: Vec<&Event> = case
        .events
        .iter()
        .filter(|e| {
            is_volume_failure_event(e)
                && e.object
                    .as_ref()
                    .is_some_and(|o| o.kind.as_deref() == Some("Pod") && o.name == p.metadata.name)
        })
        .collect();
    if own_failures.is_empty() {
        return true;
    }
    // Its describe carried failures: the pasted ones must be among them, or name its volumes.
    let same_text = |t: &str| {
        let t = super::text::normalize(t);
        own_failures
            .iter()
            .any(|e| super::text::normalize(&e.message) == t)
    };
    implicit.iter().any(|t| same_text(t)) || probe.relevance(implicit_names) == Relevance::Own
}

/// Add what a pod object says about itself: UID, volumes, claims, node, inline sources.
fn add_pod(case: &Case, p: &k8s_openapi::api::core::v1::Pod, s: &mut Subject) {
    if let Some(uid) = &p.metadata.uid {
        s.names.pod_uids.insert(uid.to_ascii_lowercase());
    }
    s.created = p
        .metadata
        .creation_timestamp
        .as_ref()
        .map(|t| t.0.as_second());
    let pod_name = p.metadata.name.clone().unwrap_or_default();
    let Some(spec) = &p.spec else {
        return;
    };
    if s.node.is_none() {
        s.node = spec.node_name.clone();
    }
    for v in spec.volumes.iter().flatten() {
        let h = hint_of_pod_volume(v, &pod_name);
        s.names.volumes.insert(v.name.clone());
        if let Some(c) = &h.pvc {
            s.claims.insert(c.clone());
        }
        add_hint(s, &h);
    }
    add_claims(case, s);
}

/// The PVs of the pod's claims (by the claim's volumeName or the PV's claimRef).
fn add_claims(case: &Case, s: &mut Subject) {
    let ns_ok = |ns: Option<&str>| match (ns, s.namespace.as_deref()) {
        (Some(a), Some(b)) => a == b,
        _ => true,
    };
    let mut pv_names: BTreeSet<String> = BTreeSet::new();
    for c in &case.pvcs {
        let Some(name) = c.metadata.name.as_deref() else {
            continue;
        };
        if !s.claims.contains(name) || !ns_ok(c.metadata.namespace.as_deref()) {
            continue;
        }
        if let Some(v) = c.spec.as_ref().and_then(|sp| sp.volume_name.clone()) {
            pv_names.insert(v);
        }
        if let Some(sc) = c.spec.as_ref().and_then(|sp| sp.storage_class_name.clone()) {
            s.classes.insert(sc);
        }
    }
    for pv in &case.pvs {
        let name = pv.metadata.name.clone().unwrap_or_default();
        let by_claim = pv
            .spec
            .as_ref()
            .and_then(|sp| sp.claim_ref.as_ref())
            .is_some_and(|r| {
                r.name.as_deref().is_some_and(|n| s.claims.contains(n))
                    && ns_ok(r.namespace.as_deref())
            });
        if pv_names.contains(&name) || by_claim {
            pv_names.insert(name);
        }
    }
    for name in pv_names {
        s.names.pvs.insert(name.clone());
        if let Some(pv) = case
            .pvs
            .iter()
            .find(|p| p.metadata.name.as_deref() == Some(name.as_str()))
        {
            add_hint(s, &hint_of_pv(pv));
            if let Some(sc) = pv
                .spec
                .as_ref()
                .and_then(|sp| sp.storage_class_name.clone())
            {
                s.classes.insert(sc);
            }
        }
    }
}

/// PVs and claims the pod's own failures name, when no pod object tied them to it.
fn add_named_volumes(case: &Case, s: &mut Subject) {
    let named: BTreeSet<String> = s
        .names
        .pvs
        .iter()
        .chain(s.names.volumes.iter())
        .cloned()
        .collect();
    for pv in &case.pvs {
        let Some(name) = pv.metadata.name.as_deref() else {
            continue;
        };
        let handle = pv
            .spec
            .as_ref()
            .and_then(|sp| sp.csi.as_ref())
            .map(|c| c.volume_handle.clone());
        if named.contains(name) || handle.is_some_and(|h| s.names.handles.contains(&h)) {
            s.names.pvs.insert(name.to_string());
            add_hint(s, &hint_of_pv(pv));
            if let Some(r) = pv.spec.as_ref().and_then(|sp| sp.claim_ref.as_ref()) {
                if let Some(c) = &r.name {
                    s.claims.insert(c.clone());
                }
                if s.namespace.is_none() {
                    s.namespace = r.namespace.clone();
                }
            }
        }
    }
    for c in &case.pvcs {
        if let Some(name) = c.metadata.name.as_deref() {
            if named.contains(name) {
                s.claims.insert(name.to_string());
            }
        }
    }
    add_claims(case, s);
}

/// What one volume hint adds: its PV, handle, server, device, image, driver.
fn add_hint(s: &mut Subject, h: &VolumeHint) {
    if let Some(pv) = &h.pv {
        s.names.pvs.insert(pv.clone());
    }
    if let Some(hd) = &h.handle {
        s.names.handles.insert(hd.clone());
    }
    if let Some(srv) = &h.server {
        s.names
            .servers
            .insert(srv.trim_matches(['[', ']']).to_ascii_lowercase());
    }
    if let Some(p) = &h.path {
        match identity::disk_name(p) {
            Some(d) => {
                s.names.disks.insert(d);
            }
            None if p.starts_with("/dev/") => {
                s.names.device_paths.insert(p.clone());
            }
            None => {}
        }
    }
    if let Some(img) = &h.rbd_image {
        s.images.insert(img.clone());
    }
    if let Some(d) = &h.driver {
        s.drivers.insert(d.clone());
    }
    for u in &h.unique_names {
        if let Some((_, handle)) = u.split_once('^') {
            s.names.handles.insert(handle.to_string());
        }
    }
}

/// The first pod the asking input names with a volume failure: an event's object, then a
/// message's `pod "name_ns(uid)"`. A log is not read here: a log alone is the whole question,
/// and its first named failure (a pod, or only a volume) says whose it is (`subject_of`).
fn first_failing_pod(case: &Case, asking: Option<u32>) -> Option<(String, Option<String>)> {
    let asks = |input: u32| Some(input) == asking;
    let from_events = case
        .events
        .iter()
        .filter(|e| is_volume_failure_event(e) && asks(e.input))
        .filter_map(|e| e.object.as_ref())
        .find(|o| o.kind.as_deref().is_none_or(|k| k == "Pod"))
        .and_then(|o| Some((o.name.clone()?, o.namespace.clone())));
    if from_events.is_some() {
        return from_events;
    }
    let texts = case
        .events
        .iter()
        .filter(|e| is_volume_failure_event(e) && asks(e.input))
        .map(|e| e.message.as_str())
        .chain(
            case.messages
                .iter()
                .filter(|m| asks(m.input))
                .map(|m| m.text.as_str()),
        );
    for t in texts {
        if let Some(p) = identity::names(t).pods.into_iter().next() {
            return Some(match p.split_once('/') {
                Some((ns, n)) => (n.to_string(), Some(ns.to_string())),
                None => (p, None),
            });
        }
    }
    None
}

// --- what the pod owns ----------------------------------------------------------------------

fn event_is_subjects(s: &Subject, e: &Event) -> bool {
    let Some(o) = e
        .object
        .as_ref()
        .filter(|o| o.name.is_some() || o.uid.is_some())
    else {
        return true;
    };
    let name = o.name.as_deref().unwrap_or_default();
    let ns_ok = match (&o.namespace, &s.namespace) {
        (Some(a), Some(b)) => a == b,
        _ => true,
    };
    match o.kind.as_deref() {
        Some("Pod") | None => match &s.pod {
            Some(pod) => {
                pod == name && ns_ok
                    || o.uid
                        .as_ref()
                        .is_some_and(|u| s.names.pod_uids.contains(&u.to_ascii_lowercase()))
            }
            // The pod is known only by its volumes: a pod's event is its own when it names
            // one of them.
            None => s.relevance(&identity::names(&e.message)) == Relevance::Own,
        },
        Some("PersistentVolumeClaim") => s.claims.contains(name) && ns_ok,
        Some("PersistentVolume") => s.names.pvs.contains(name),
        Some("Node") => s.node.as_deref() == Some(name),
        // A VolumeAttachment's events name its PV in their message.
        _ => s.relevance(&identity::names(&e.message)) == Relevance::Own,
    }
}

/// `pod ns/name` of an event's object, for the report.
fn object_label(e: &Event) -> String {
    let Some(o) = &e.object else {
        return String::new();
    };
    let kind = o.kind.as_deref().unwrap_or("Pod").to_ascii_lowercase();
    let n = o.name.clone().unwrap_or_default();
    match &o.namespace {
        Some(ns) => format!("{kind} {ns}/{n}"),
        None => format!("{kind} {n}"),
    }
}

fn keep_events(s: &Subject, case: &Case, aside: &mut SetAside) -> Vec<Event> {
    // The question is the asking input's (an earlier log or object asks before a later paste).
    let first = s.asking.or_else(|| first_input(case));
    let events = &case.events;
    let mut kept = Vec::new();
    // One paste is one pod's: a later paste whose rows name another pod's volume, and none of
    // this pod's, is that pod's, its rows that name nothing too (a FailedScheduling beside
    // another claim's FailedMount).
    let others = other_pastes(
        s,
        events
            .iter()
            .filter(|e| is_implicit(e) && Some(e.input) != first)
            .map(|e| (e.input, e.message.as_str())),
    );
    for e in events {
        if is_implicit(e) && Some(e.input) != first {
            // Another paste's failure: the pod's when it names what the pod owns or nothing
            // that is another's.
            match s.relevance(&identity::names(&e.message)) {
                Relevance::Other(who) => aside.add("events", who),
                _ if others.contains_key(&e.input) => aside.add("events", others[&e.input].clone()),
                _ => kept.push(e.clone()),
            }
            continue;
        }
        if event_is_subjects(s, e) {
            kept.push(e.clone());
            continue;
        }
        // A later input's event about an object the pod's names do not reach.
        if !is_implicit(e) && Some(e.input) != s.asking {
            aside.add("events", object_label(e));
            continue;
        }
        // An event about an object of the pod's that the pod's names do not reach (its
        // claim when the claim's name is unknown): kept unless it is provably another's.
        let kind = e
            .object
            .as_ref()
            .and_then(|o| o.kind.as_deref())
            .unwrap_or("Pod");
        let who = object_label(e);
        let provably_other = match kind {
            "Pod" => s.known() || s.anchored,
            "PersistentVolumeClaim" => !s.claims.is_empty() || s.pod.is_some(),
            "PersistentVolume" => !s.names.pvs.is_empty() || s.pod.is_some(),
            "Node" => s.node.is_some(),
            _ => !matches!(
                s.relevance(&identity::names(&e.message)),
                Relevance::Unnamed
            ),
        };
        if provably_other {
            aside.add("events", who);
        } else {
            kept.push(e.clone());
        }
    }
    kept
}

/// The later pastes (by input) that are another pod's: some of their failures name another
/// pod's volume, device or server, and none names the pod's own. What they are about, for the
/// report.
fn other_pastes<'a>(
    s: &Subject,
    items: impl Iterator<Item = (u32, &'a str)>,
) -> BTreeMap<u32, String> {
    let mut seen: BTreeMap<u32, (bool, Option<String>)> = BTreeMap::new();
    for (input, text) in items {
        let e = seen.entry(input).or_default();
        match s.relevance(&identity::names(text)) {
            Relevance::Own => e.0 = true,
            Relevance::Other(who) => {
                e.1.get_or_insert(who);
            }
            Relevance::Unnamed => {}
        }
    }
    seen.into_iter()
        .filter_map(|(input, (own, other))| (!own).then_some(other).flatten().map(|o| (input, o)))
        .collect()
}

/// Raw messages: the first paste's are the question; a later one is kept unless it names
/// another pod's volume, device or server.
fn keep_messages(s: &Subject, case: &Case, aside: &mut SetAside) -> Vec<crate::model::RawMessage> {
    let first = s.asking.or_else(|| first_input(case));
    let later = |m: &&crate::model::RawMessage| {
        !m.label.starts_with(KERNEL_LOG_LABEL) && Some(m.input) != first
    };
    let others = other_pastes(
        s,
        case.messages
            .iter()
            .filter(later)
            .map(|m| (m.input, m.text.as_str())),
    );
    case.messages
        .iter()
        .filter(|m| {
            if !later(m) {
                return true;
            }
            match s.relevance(&identity::names(&m.text)) {
                Relevance::Other(who) => {
                    aside.add("messages", who);
                    false
                }
                _ if others.contains_key(&m.input) => {
                    aside.add("messages", others[&m.input].clone());
                    false
                }
                _ => true,
            }
        })
        .cloned()
        .collect()
}

/// Kubelet log lines: the pod's own, and lines that name nothing only while nothing names the
/// pod (a log pasted alone, from a ticket about one pod).
fn keep_lines(
    s: &Subject,
    lines: &[LogLine],
    kind: &'static str,
    aside: &mut SetAside,
) -> Vec<LogLine> {
    let mut kept = Vec::new();
    let mixed = mixed_inputs(s, lines.iter().map(|l| (l.input, l.message.as_str())));
    for l in lines {
        let n = identity::names(&l.message);
        match s.relevance(&n) {
            // A line naming the pod's own UID is the pod's whatever its klog time seems to say
            // (klog prints no year and the node's local time): only a line tied by a device or
            // a volume name can be about whatever used them before the pod existed.
            Relevance::Own if names_own_uid(s, &n) || !before_the_pod(s, l) => kept.push(l.clone()),
            Relevance::Own => aside.add(kind, "from before the pod was created"),
            Relevance::Other(who) => aside.add(kind, who),
            // A later input's line not shown to be the pod's (a node's whole log added).
            _ if Some(l.input) != s.asking => aside.add(kind, first_name(&n)),
            // The asking log names no one else's volume (a sidecar's log about the pod's
            // volume, a paste about one pod): its lines that name nothing came with it.
            Relevance::Unnamed if !mixed.contains(&l.input) => kept.push(l.clone()),
            // A line that names a pod or volume the input does not tie to the pod, or names
            // nothing, while the input asks about a pod: not shown to be the pod's.
            Relevance::Unnamed if s.anchored || s.known() => aside.add(kind, first_name(&n)),
            Relevance::Unnamed => kept.push(l.clone()),
        }
    }
    kept
}

/// The inputs (one log file, one paste) some of whose lines are about another pod, volume,
/// device or server: a log of many (a busy node's kubelet log), where a line that names
/// nothing cannot be told to be the pod's.
fn mixed_inputs<'a>(s: &Subject, lines: impl Iterator<Item = (u32, &'a str)>) -> BTreeSet<u32> {
    let mut out = BTreeSet::new();
    for (input, text) in lines {
        if !out.contains(&input)
            && matches!(s.relevance(&identity::names(text)), Relevance::Other(_))
        {
            out.insert(input);
        }
    }
    out
}

/// The first thing a text names, for the report (`pod ns/x`, `PV pvc-...`).
fn first_name(n: &Names) -> String {
    n.pods
        .iter()
        .next()
        .map(|p| format!("pod {p}"))
        .or_else(|| n.pvs.iter().next().map(|p| format!("PV {p}")))
        .or_else(|| n.volumes.iter().next().map(|v| format!("volume {v}")))
        .or_else(|| n.disks.iter().next().map(|d| format!("device {d}")))
        .or_else(|| n.servers.iter().next().map(|d| format!("server {d}")))
        .unwrap_or_default()
}

fn keep_plugin_lines(
    s: &Subject,
    lines: &[PluginLogLine],
    aside: &mut SetAside,
) -> Vec<PluginLogLine> {
    let mut kept = Vec::new();
    for l in lines {
        match s.relevance(&identity::names(&l.line.message)) {
            Relevance::Own => kept.push(l.clone()),
            Relevance::Other(who) => aside.add("node plugin log lines", who),
            _ if Some(l.line.input) != s.asking => aside.add("node plugin log lines", ""),
            // One driver's own log, asked about the pod's volumes (live: its lines about them;
            // pasted: the question itself): a line naming nothing came with one that did (a
            // request and its error).
            Relevance::Unnamed => kept.push(l.clone()),
        }
    }
    kept
}

/// Whether a text names the pod's own UID (unique to this pod object, unlike its name).
fn names_own_uid(s: &Subject, n: &Names) -> bool {
    n.pod_uids.iter().any(|u| s.names.pod_uids.contains(u))
}

/// A kubelet line with a klog time (`MMDD hh:mm:ss`) from before the pod was created: about
/// whatever used the device then. The year is the pod's (klog prints none); a line from
/// December read against a pod of January is from the year before.
fn before_the_pod(s: &Subject, l: &LogLine) -> bool {
    let (Some(created), Some(ts)) = (s.created, l.timestamp.as_deref()) else {
        return false;
    };
    let Some(t) = klog_time(ts, created) else {
        return false;
    };
    // A minute of slack: clocks and the API server's creation time differ a little.
    t + 60 < created
}

fn klog_time(ts: &str, near: i64) -> Option<i64> {
    let ts = ts.trim();
    let (md, hms) = ts.split_once(' ')?;
    if md.len() != 4 {
        return None;
    }
    let month: i8 = md[..2].parse().ok()?;
    let day: i8 = md[2..].parse().ok()?;
    let hms = hms.split('.').next()?;
    let mut parts = hms.split(':').map(|p| p.parse::<i8>().ok());
    let (h, m, sec) = (parts.next()??, parts.next()??, parts.next()??);
    let year = k8s_openapi::jiff::Timestamp::from_second(near)
        .ok()?
        .to_zoned(k8s_openapi::jiff::tz::TimeZone::UTC)
        .year();
    let at = |y: i16| -> Option<i64> {
        let dt = k8s_openapi::jiff::civil::date(y, month, day).at(h, m, sec, 0);
        Some(
            dt.to_zoned(k8s_openapi::jiff::tz::TimeZone::UTC)
                .ok()?
                .timestamp()
                .as_second(),
        )
    };
    let t = at(year)?;
    // Half a year after the reference time: it was last year's date.
    Some(if t > near + 183 * 86_400 {
        at(year - 1)?
    } else {
        t
    })
}

/// The cluster's objects: the pod's claims, PVs, classes, drivers, attachments and the other
/// pods that use its claims are its own; the rest is another's.
fn keep_objects(s: &Subject, case: &Case, scoped: &mut Case, aside: &mut SetAside) {
    let knows_volumes = !s.claims.is_empty() || !s.names.pvs.is_empty() || s.pod.is_some();
    let ns_ok = |ns: Option<&str>| match (ns, s.namespace.as_deref()) {
        (Some(a), Some(b)) => a == b,
        _ => true,
    };
    // A lone object nothing contradicts is the pod's (a ticket's one PV beside its events);
    // among several, only those its names reach.
    let lone = |n: usize| n == 1;
    scoped.pvcs = case
        .pvcs
        .iter()
        .filter(|c| {
            let name = c.metadata.name.as_deref().unwrap_or_default();
            let mine = s.claims.contains(name) && ns_ok(c.metadata.namespace.as_deref());
            let keep = mine || (!knows_volumes && lone(case.pvcs.len()));
            if !keep {
                aside.add("PersistentVolumeClaims", format!("claim {name}"));
            }
            keep
        })
        .cloned()
        .collect();
    scoped.pvs = case
        .pvs
        .iter()
        .filter(|pv| {
            let name = pv.metadata.name.as_deref().unwrap_or_default();
            let mine = s.names.pvs.contains(name);
            let keep = mine || (!knows_volumes && lone(case.pvs.len()));
            if !keep {
                aside.add("PersistentVolumes", format!("PV {name}"));
            }
            keep
        })
        .cloned()
        .collect();
    let classes: BTreeSet<String> = s
        .classes
        .iter()
        .cloned()
        .chain(
            scoped
                .pvcs
                .iter()
                .filter_map(|c| c.spec.as_ref()?.storage_class_name.clone()),
        )
        .chain(
            scoped
                .pvs
                .iter()
                .filter_map(|p| p.spec.as_ref()?.storage_class_name.clone()),
        )
        .collect();
    let drivers: BTreeSet<String> = s
        .drivers
        .iter()
        .cloned()
        .chain(
            scoped
                .pvs
                .iter()
                .filter_map(|p| Some(p.spec.as_ref()?.csi.as_ref()?.driver.clone())),
        )
        .collect();
    // Classes and drivers are the cluster's: kept when they are the pod's, or when nothing
    // says which are (a claim whose class is the question: "standard-v2 does not exist" wants
    // the classes that do).
    scoped.storage_classes = case.storage_classes.clone();
    scoped.csi_drivers = case
        .csi_drivers
        .iter()
        .filter(|d| {
            let name = d.metadata.name.as_deref().unwrap_or_default();
            let keep = drivers.is_empty() || drivers.contains(name);
            if !keep {
                aside.add("CSIDrivers", format!("driver {name}"));
            }
            keep
        })
        .cloned()
        .collect();
    let _ = &classes;
    scoped.volume_attachments = case
        .volume_attachments
        .iter()
        .filter(|va| {
            let pv = va.spec.source.persistent_volume_name.as_deref();
            let inline_handle = va
                .spec
                .source
                .inline_volume_spec
                .as_ref()
                .and_then(|sp| sp.csi.as_ref())
                .map(|c| c.volume_handle.as_str());
            let mine = pv.is_some_and(|p| s.names.pvs.contains(p))
                || inline_handle.is_some_and(|h| s.names.handles.contains(h));
            let keep = mine || (!knows_volumes && lone(case.volume_attachments.len()));
            if !keep {
                aside.add(
                    "VolumeAttachments",
                    pv.map(|p| format!("PV {p}")).unwrap_or_default(),
                );
            }
            keep
        })
        .cloned()
        .collect();
    // Other pods: those that use one of the pod's claims (they may hold its volume), and those
    // on its node (a node plugin, a holder of an RBD lock); another namespace's or node's are
    // not the pod's.
    scoped.other_pods = case
        .other_pods
        .iter()
        .filter(|p| {
            if s.pod.is_none() && !knows_volumes {
                return true;
            }
            let uses_claim = p
                .spec
                .iter()
                .flat_map(|sp| sp.volumes.iter().flatten())
                .any(|v| {
                    v.persistent_volume_claim
                        .as_ref()
                        .is_some_and(|c| s.claims.contains(&c.claim_name))
                        && ns_ok(p.metadata.namespace.as_deref())
                });
            let on_node = s.node.is_some()
                && p.spec.as_ref().and_then(|sp| sp.node_name.as_deref()) == s.node.as_deref();
            let is_pod = is_subject_pod(s, p);
            let keep = (uses_claim || on_node) && !is_pod;
            if !keep && !is_pod {
                aside.add("pods", pod_label(p));
            }
            keep
        })
        .cloned()
        .collect();
    // RBD states of the pod's images (or of none known).
    scoped.rbd = case
        .rbd
        .iter()
        .filter(|r| {
            let keep = s.images.is_empty()
                || r.image.as_ref().is_none_or(|i| {
                    s.images.contains(i) || s.images.iter().any(|m| m.ends_with(&format!("/{i}")))
                });
            if !keep {
                aside.add("RBD images", r.image.clone().unwrap_or_default());
            }
            keep
        })
        .cloned()
        .collect();
}

/// The node's facts: another node's are set aside whole; of the pod's node's, the kernel and
/// kubelet lines about other pods and devices.
fn keep_node_facts(
    s: &Subject,
    case: &Case,
    f: &NodeFacts,
    aside: &mut SetAside,
) -> Option<NodeFacts> {
    // The probe says which node it ran on (`node probe (pod on realnode)`): a probe pod's
    // hostname is its own, not the node's.
    let probed_on = f.provenance.values().find_map(|p| {
        let rest = p.strip_prefix("node probe (")?;
        let on = rest.rsplit_once(" on ")?.1.trim_end_matches(')');
        (!on.is_empty()).then_some(on)
    });
    if let (Some(node), Some(host)) = (s.node.as_deref(), probed_on.or(f.hostname.as_deref())) {
        if !same_host(node, host, case) {
            aside.add("node facts", format!("node {host}"));
            return None;
        }
    }
    let mut f = f.clone();
    let known = s.known() || s.anchored;
    f.kubelet_log
        .retain(|l| match s.relevance(&identity::names(l)) {
            Relevance::Own => true,
            Relevance::Other(who) => {
                aside.add("kubelet log lines", who);
                false
            }
            Relevance::Unnamed if known => {
                aside.add("kubelet log lines", "");
                false
            }
            Relevance::Unnamed => true,
        });
    // Kernel lines name devices and servers; a line about another device or server is
    // another volume's. Lines that name neither stay (the node's own state: a module, a
    // denial), and devices.rs still drops what a reused device name said before.
    f.kernel_log.retain(|l| {
        let n = identity::names(l);
        let n = Names {
            disks: n.disks,
            device_paths: n.device_paths,
            servers: n.servers,
            ..Names::default()
        };
        match s.relevance(&n) {
            Relevance::Other(who) => {
                aside.add("kernel log lines", who);
                false
            }
            _ => true,
        }
    });
    Some(f)
}

/// Whether a node name and a host name are the same machine (`node-1` and
/// `node-1.example.com`, or an address the Node lists).
fn same_host(node: &str, host: &str, case: &Case) -> bool {
    let short = |s: &str| s.split('.').next().unwrap_or(s).to_ascii_lowercase();
    if short(node) == short(host) {
        return true;
    }
    case.node_named(node).is_some_and(|n| {
        n.status
            .as_ref()
            .and_then(|st| st.addresses.as_ref())
            .is_some_and(|a| a.iter().any(|a| short(&a.address) == short(host)))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{LogLine, ObjectRef, Origin, RawMessage};

    fn event(reason: &str, msg: &str, pod: Option<(&str, &str)>) -> Event {
        Event {
            kind: Some("Warning".into()),
            reason: reason.into(),
            message: msg.into(),
            object: pod.map(|(ns, n)| ObjectRef {
                kind: Some("Pod".into()),
                namespace: Some(ns.into()),
                name: Some(n.into()),
                uid: None,
            }),
            origin: Origin::EventTable,
            ..Event::default()
        }
    }

    fn line(msg: &str) -> LogLine {
        LogLine {
            line_no: 1,
            severity: Some('E'),
            message: msg.into(),
            ..LogLine::default()
        }
    }

    const MINE: &str = r#"MountVolume.SetUp failed for volume "pvc-7e9588ad-19d1-4099-bd49-30fd2b9f0d42" : rpc error: code = Internal desc = mount failed: exit status 32"#;
    const OTHERS: &str = r#"Operation for "{volumeName:kubernetes.io/local-volume/vlong-parted podName: nodeName:}" failed. Error: MountVolume.MountDevice failed for volume "vlong-parted" (UniqueName: "kubernetes.io/local-volume/vlong-parted") pod "parted" (UID: "5ff015a1-7824-4682-8337-e9fd291294fe") : local: failed to mount device /dev/loop2"#;

    #[test]
    fn another_pods_kubelet_lines_are_set_aside_and_said() {
        let case = Case {
            events: vec![event("FailedMount", MINE, None)],
            logs: vec![line(OTHERS), line(&format!("E1129 {MINE}"))],
            ..Case::default()
        };
        let (own, aside) = own(&case);
        assert_eq!(own.logs.len(), 1);
        assert!(own.logs[0].message.contains("pvc-7e9588ad"));
        assert_eq!(aside.total(), 1);
        let said = aside.summary().unwrap();
        assert!(
            said.contains("1 kubelet log lines") && said.contains("parted"),
            "{said}"
        );
    }

    #[test]
    fn a_namespaces_event_table_lends_nothing_to_the_pod() {
        let case = Case {
            events: vec![
                event("FailedMount", MINE, None),
                event(
                    "FailedMount",
                    r#"MountVolume.SetUp failed for volume "tls" : secret "worker-tls" not found"#,
                    Some(("vbusy", "worker-1")),
                ),
            ],
            ..Case::default()
        };
        let (own, aside) = own(&case);
        assert_eq!(own.events.len(), 1);
        assert!(own.events[0].message.contains("pvc-7e9588ad"));
        assert_eq!(aside.total(), 1);
    }

    #[test]
    fn the_pod_named_on_the_command_line_is_the_subject() {
        let case = Case {
            pod_name: Some("worker-1".into()),
            events: vec![
                event("FailedMount", MINE, Some(("shop", "web-0"))),
                event(
                    "FailedMount",
                    "secret \"worker-tls\" not found",
                    Some(("shop", "worker-1")),
                ),
            ],
            ..Case::default()
        };
        let (own, _) = own(&case);
        assert_eq!(own.events.len(), 1);
        assert!(own.events[0].message.contains("worker-tls"));
    }

    #[test]
    fn a_raw_message_keeps_its_own_lines_and_drops_anothers_device() {
        let case = Case {
            messages: vec![RawMessage {
                label: "ticket".into(),
                text: "mount: /mnt: wrong fs type, bad option, bad superblock on /dev/sdb".into(),
                input: 0,
            }],
            logs: vec![line("fsck: Found a dos partition table in /dev/loop2")],
            ..Case::default()
        };
        let (own, aside) = own(&case);
        assert!(own.logs.is_empty(), "{:?}", own.logs);
        assert_eq!(aside.total(), 1);
    }

    #[test]
    fn a_log_alone_is_its_first_named_failures() {
        let case = Case {
            logs: vec![line(OTHERS), line(&format!("{MINE} pod=\"shop/web-0\""))],
            ..Case::default()
        };
        let (own, _) = own(&case);
        assert_eq!(own.logs.len(), 1);
        assert!(own.logs[0].message.contains("parted"));
    }

    #[test]
    fn klog_times_read_in_the_pods_year() {
        // 2026-11-29 02:46:56 UTC
        let near = 1_795_920_416;
        assert_eq!(klog_time("1129 02:46:56.076557", near), Some(near));
        // A December line read against a January pod is from the year before.
        let jan = near + 60 * 86_400;
        assert!(klog_time("1231 23:00:00.0", jan).unwrap() < jan);
    }
}
