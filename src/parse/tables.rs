//! What an operator pastes about the cluster around a pod, besides objects: `kubectl get`
//! tables of DaemonSets, pods, Deployments, ReplicaSets, StatefulSets, VolumeAttachments,
//! CSINodes, PersistentVolumeClaims and PersistentVolumes (also the blocks of `kubectl get all`, and `No resources found`), and `kubectl logs`
//! of a node plugin. Each becomes the same types the live API fills: a table row is rebuilt
//! into the object's fields the table prints, nothing more.
//!
//! Column layouts are those of kubernetes pkg/printers/internalversion/printers.go (the
//! `*ColumnDefinitions` of pods, daemonSets, deployments, replicaSets, statefulSets,
//! volumeAttachments, csiNodes, persistentVolumeClaims, persistentVolumes; `-o wide` adds the Priority 1 columns; `-A` puts NAMESPACE
//! first), printed through kubectl's tabwriter (cells padded with at least 3 spaces, so a
//! single space stays inside a cell: `NODE SELECTOR`, `2 (31s ago)`). Before 1.11, kubectl
//! printed Deployments as `NAME DESIRED CURRENT UP-TO-DATE AVAILABLE AGE` and DaemonSets with
//! `NODE-SELECTOR`; both are read, as are the PV and PVC tables of OpenShift 3.x's `oc`
//! (`NAME LABELS CAPACITY ACCESSMODES STATUS CLAIM REASON AGE`). The tests use tables a kubectl v1.32 printed from a
//! kube-apiserver v1.36.2 (fixtures/tables/).

use std::collections::BTreeMap;

use k8s_openapi::api::apps::v1::DaemonSet;
use k8s_openapi::api::core::v1::{PersistentVolume, PersistentVolumeClaim, Pod};
use k8s_openapi::api::storage::v1::{CSINode, VolumeAttachment};
use serde_json::{json, Value};

use crate::model::cluster::{TABLE_READY, TABLE_RESTARTS, TABLE_SOURCE, TABLE_STATUS};
use crate::model::{Case, PluginLogLine, Workload};

/// One `kubectl get` table: its header names (upper case, as printed) and its rows' cells.
#[derive(Debug, Clone, PartialEq)]
pub struct Table {
    pub headers: Vec<String>,
    pub rows: Vec<Vec<String>>,
}

impl Table {
    fn col(&self, name: &str) -> Option<usize> {
        self.headers.iter().position(|h| h == name)
    }

    fn cell<'a>(&self, row: &'a [String], name: &str) -> Option<&'a str> {
        let v = row.get(self.col(name)?)?.as_str();
        (!v.is_empty() && v != "<none>").then_some(v)
    }
}

/// Headers printed as two words.
const TWO_WORDS: &[(&str, &str)] = &[
    ("NODE", "SELECTOR"),
    ("NOMINATED", "NODE"),
    ("READINESS", "GATES"),
    ("ACCESS", "MODES"),
    ("RECLAIM", "POLICY"),
];

/// The cells of a header line with where each starts (in chars): split at runs of two or more
/// spaces (tabwriter's padding); a header pasted with single spaces is split at each, and the
/// two-word names joined again.
fn header_cells(line: &str) -> Vec<(usize, String)> {
    let chars: Vec<char> = line.chars().collect();
    let mut out: Vec<(usize, String)> = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        if chars[i] == ' ' || chars[i] == '\t' {
            i += 1;
            continue;
        }
        let start = i;
        let mut cell = String::new();
        while i < chars.len() {
            let c = chars[i];
            let double_space =
                (c == ' ' && chars.get(i + 1).is_some_and(|n| *n == ' ')) || c == '\t';
            if double_space {
                break;
            }
            cell.push(c);
            i += 1;
        }
        out.push((start, cell.trim_end().to_string()));
    }
    // A collapsed header (`NAME READY STATUS RESTARTS AGE IP NODE NOMINATED NODE ...`).
    if out.len() == 1 || out.iter().any(|(_, c)| c.split(' ').count() > 2) {
        let mut words: Vec<(usize, String)> = Vec::new();
        for (start, cell) in out {
            let mut at = start;
            for w in cell.split(' ') {
                words.push((at, w.to_string()));
                at += w.chars().count() + 1;
            }
        }
        let mut joined: Vec<(usize, String)> = Vec::new();
        for (at, w) in words {
            if let Some((_, last)) = joined.last_mut() {
                if TWO_WORDS.iter().any(|(a, b)| last == a && w == *b) {
                    last.push(' ');
                    last.push_str(&w);
                    continue;
                }
            }
            joined.push((at, w));
        }
        return joined;
    }
    out
}

fn is_header(cells: &[(usize, String)]) -> bool {
    cells.len() >= 2
        && matches!(cells[0].1.as_str(), "NAME" | "NAMESPACE")
        && cells.iter().all(|(_, c)| {
            !c.is_empty()
                && c.chars().all(|ch| {
                    ch.is_ascii_uppercase() || ch.is_ascii_digit() || " -()/_".contains(ch)
                })
        })
}

/// A row's cells under the header's columns: cut at the columns' starts when the row is
/// aligned with the header (each start preceded by a space), else split at runs of spaces,
/// a `(31s ago)` kept with the restart count before it.
fn row_cells(line: &str, header: &[(usize, String)]) -> Option<Vec<String>> {
    let chars: Vec<char> = line.chars().collect();
    // A cell may be empty (a PV's REASON): its column's start then falls in the padding. A
    // column's start inside a word means the row is not aligned with the header.
    let aligned = header
        .iter()
        .skip(1)
        .all(|(start, _)| *start < chars.len() && chars[*start - 1] == ' ')
        && header
            .last()
            .is_some_and(|(start, _)| chars[*start..].iter().any(|c| *c != ' '))
        && chars.first().is_some_and(|c| *c != ' ');
    if aligned {
        let mut cells = Vec::with_capacity(header.len());
        for (k, (start, _)) in header.iter().enumerate() {
            let end = header.get(k + 1).map_or(chars.len(), |(s, _)| *s);
            let cell: String = chars[*start..end.min(chars.len())].iter().collect();
            cells.push(cell.trim().to_string());
        }
        return Some(cells);
    }
    let mut tokens: Vec<String> = Vec::new();
    for t in line.split_whitespace() {
        // `2 (31s ago)`: the part in brackets belongs to the count before it.
        let open = tokens
            .last()
            .is_some_and(|l| l.contains(" (") && !l.ends_with(')'));
        if t.starts_with('(') || open {
            if let Some(last) = tokens.last_mut() {
                last.push(' ');
                last.push_str(t);
                continue;
            }
        }
        tokens.push(t.to_string());
    }
    (tokens.len() == header.len()).then_some(tokens)
}

/// The tables in `text`: blocks separated by blank lines (`kubectl get all` prints one per
/// kind), each a header line and its rows. A row that does not fit its header ends the block.
pub fn parse_tables(text: &str) -> Vec<Table> {
    let mut out = Vec::new();
    let mut current: Option<(Vec<(usize, String)>, Table)> = None;
    for line in text.lines() {
        let line = line.trim_end_matches(['\r', ' ']);
        if line.trim().is_empty() {
            if let Some((_, t)) = current.take() {
                out.push(t);
            }
            continue;
        }
        let cells = header_cells(line);
        if is_header(&cells) {
            if let Some((_, t)) = current.take() {
                out.push(t);
            }
            let headers = cells.iter().map(|(_, c)| c.clone()).collect();
            current = Some((
                cells,
                Table {
                    headers,
                    rows: Vec::new(),
                },
            ));
            continue;
        }
        if let Some((h, t)) = current.as_mut() {
            match row_cells(line, h) {
                Some(r) => t.rows.push(r),
                None => {
                    if let Some((_, t)) = current.take() {
                        out.push(t);
                    }
                }
            }
        }
    }
    if let Some((_, t)) = current {
        out.push(t);
    }
    out.retain(|t| !t.rows.is_empty());
    out
}

/// What kind of objects a table lists, from its header (and, where two kinds print alike,
/// the `kind/` prefix of its names or the command).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TableKind {
    Pods,
    DaemonSets,
    Deployments,
    ReplicaSets,
    StatefulSets,
    VolumeAttachments,
    CsiNodes,
    Pvcs,
    Pvs,
    Nodes,
}

fn kind_of(t: &Table, command: &str) -> Option<TableKind> {
    let h: Vec<&str> = t
        .headers
        .iter()
        .map(String::as_str)
        .skip_while(|h| *h == "NAMESPACE")
        .collect();
    let prefix = t
        .rows
        .first()
        .and_then(|r| r.get(t.col("NAME")?))
        .and_then(|n| n.split_once('/'))
        .map(|(k, _)| k.to_string());
    let said = |words: &[&str]| {
        let cmd: Vec<&str> = command.split_whitespace().collect();
        cmd.iter().any(|w| {
            w.split([',', '/'])
                .any(|p| words.contains(&p.to_ascii_lowercase().as_str()))
        })
    };
    let starts = |cols: &[&str]| h.len() >= cols.len() && h[..cols.len()] == *cols;
    if starts(&["NAME", "READY", "STATUS", "RESTARTS", "AGE"]) {
        return Some(TableKind::Pods);
    }
    if starts(&[
        "NAME",
        "DESIRED",
        "CURRENT",
        "READY",
        "UP-TO-DATE",
        "AVAILABLE",
    ]) && (h.contains(&"NODE SELECTOR") || h.contains(&"NODE-SELECTOR"))
    {
        return Some(TableKind::DaemonSets);
    }
    if starts(&["NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE"])
        || starts(&[
            "NAME",
            "DESIRED",
            "CURRENT",
            "UP-TO-DATE",
            "AVAILABLE",
            "AGE",
        ])
    {
        return Some(TableKind::Deployments);
    }
    if starts(&["NAME", "DESIRED", "CURRENT", "READY", "AGE"]) {
        // ReplicationControllers print alike.
        let rc = prefix.as_deref() == Some("replicationcontroller")
            || said(&["rc", "replicationcontroller", "replicationcontrollers"]);
        return (!rc).then_some(TableKind::ReplicaSets);
    }
    if starts(&["NAME", "READY", "AGE"]) {
        let sts = prefix.as_deref() == Some("statefulset.apps")
            || said(&["sts", "statefulset", "statefulsets", "statefulset.apps"])
            || command.is_empty();
        return sts.then_some(TableKind::StatefulSets);
    }
    if starts(&["NAME", "ATTACHER", "PV", "NODE", "ATTACHED", "AGE"]) {
        return Some(TableKind::VolumeAttachments);
    }
    if h == ["NAME", "DRIVERS", "AGE"] {
        return Some(TableKind::CsiNodes);
    }
    // kubectl's printNode: NAME STATUS ROLES AGE VERSION (-o wide: INTERNAL-IP EXTERNAL-IP
    // OS-IMAGE KERNEL-VERSION CONTAINER-RUNTIME).
    if starts(&["NAME", "STATUS", "ROLES", "AGE", "VERSION"]) {
        return Some(TableKind::Nodes);
    }
    let has = |c: &str| h.contains(&c);
    let modes = has("ACCESS MODES") || has("ACCESSMODES");
    if modes && has("STATUS") && has("CLAIM") && has("CAPACITY") {
        return Some(TableKind::Pvs);
    }
    if modes && has("STATUS") && has("VOLUME") && has("CAPACITY") {
        return Some(TableKind::Pvcs);
    }
    None
}

/// `RWO,ROX` (printers.go's modesToString) → the access modes' API names.
fn access_modes(s: Option<&str>) -> Vec<&'static str> {
    s.unwrap_or("")
        .split(',')
        .filter_map(|m| match m.trim() {
            "RWO" => Some("ReadWriteOnce"),
            "ROX" => Some("ReadOnlyMany"),
            "RWX" => Some("ReadWriteMany"),
            "RWOP" => Some("ReadWriteOncePod"),
            _ => None,
        })
        .collect()
}

/// A PVC row (printPersistentVolumeClaim): STATUS into the phase, VOLUME, CAPACITY (only once
/// bound, as status.capacity), ACCESS MODES, STORAGECLASS, and VOLUMEMODE with `-o wide`.
fn pvc_of(t: &Table, r: &[String], ns: &Option<String>) -> Option<PersistentVolumeClaim> {
    let mut v = json!({
        "metadata": {"name": bare_name(t.cell(r, "NAME")?), "annotations": annotations("kubectl get pvc", &[])},
        "spec": {},
        "status": {},
    });
    if let Some(ns) = t.cell(r, "NAMESPACE").map(str::to_string).or(ns.clone()) {
        v["metadata"]["namespace"] = json!(ns);
    }
    if let Some(p) = t.cell(r, "STATUS") {
        v["status"]["phase"] = json!(p);
    }
    if let Some(vol) = t.cell(r, "VOLUME") {
        v["spec"]["volumeName"] = json!(vol);
    }
    let modes = access_modes(t.cell(r, "ACCESS MODES").or(t.cell(r, "ACCESSMODES")));
    if !modes.is_empty() {
        v["spec"]["accessModes"] = json!(modes);
        v["status"]["accessModes"] = json!(modes);
    }
    if let Some(c) = t.cell(r, "CAPACITY") {
        v["status"]["capacity"] = json!({"storage": c});
    }
    if let Some(sc) = t.cell(r, "STORAGECLASS") {
        v["spec"]["storageClassName"] = json!(sc);
    }
    if let Some(m) = t.cell(r, "VOLUMEMODE") {
        v["spec"]["volumeMode"] = json!(m);
    }
    serde_json::from_value(v).ok()
}

/// A PV row (printPersistentVolume): CAPACITY, ACCESS MODES, RECLAIM POLICY, STATUS, CLAIM
/// (`namespace/name`), STORAGECLASS, REASON, VOLUMEMODE with `-o wide`. The table does not say
/// what the volume is (NFS, CSI, ...): the rebuilt PV has no source.
fn pv_of(t: &Table, r: &[String]) -> Option<PersistentVolume> {
    let mut v = json!({
        "metadata": {"name": bare_name(t.cell(r, "NAME")?), "annotations": annotations("kubectl get pv", &[])},
        "spec": {},
        "status": {},
    });
    if let Some(c) = t.cell(r, "CAPACITY") {
        v["spec"]["capacity"] = json!({"storage": c});
    }
    let modes = access_modes(t.cell(r, "ACCESS MODES").or(t.cell(r, "ACCESSMODES")));
    if !modes.is_empty() {
        v["spec"]["accessModes"] = json!(modes);
    }
    if let Some(p) = t.cell(r, "RECLAIM POLICY") {
        v["spec"]["persistentVolumeReclaimPolicy"] = json!(p);
    }
    if let Some(p) = t.cell(r, "STATUS") {
        v["status"]["phase"] = json!(p);
    }
    if let Some(reason) = t.cell(r, "REASON") {
        v["status"]["reason"] = json!(reason);
    }
    if let Some((ns, name)) = t.cell(r, "CLAIM").and_then(|c| c.split_once('/')) {
        v["spec"]["claimRef"] =
            json!({"kind": "PersistentVolumeClaim", "namespace": ns, "name": name});
    }
    if let Some(sc) = t.cell(r, "STORAGECLASS") {
        v["spec"]["storageClassName"] = json!(sc);
    }
    if let Some(m) = t.cell(r, "VOLUMEMODE") {
        v["spec"]["volumeMode"] = json!(m);
    }
    serde_json::from_value(v).ok()
}

/// `-n NS` / `--namespace=NS` of a command.
fn namespace_of(command: &str) -> Option<String> {
    let words: Vec<&str> = command.split_whitespace().collect();
    for (i, w) in words.iter().enumerate() {
        if *w == "-n" || *w == "--namespace" {
            return words.get(i + 1).map(|s| s.to_string());
        }
        if let Some(ns) = w
            .strip_prefix("--namespace=")
            .or_else(|| w.strip_prefix("-n="))
        {
            return Some(ns.to_string());
        }
    }
    None
}

/// `pod/web-0`, `daemonset.apps/ebs-csi-node` (kubectl get all) → the name.
fn bare_name(n: &str) -> &str {
    n.split_once('/').map_or(n, |(_, b)| b)
}

fn labels_of(s: &str) -> BTreeMap<String, String> {
    s.split(',')
        .filter_map(|kv| kv.split_once('='))
        .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
        .collect()
}

fn count(s: Option<&str>) -> Option<i32> {
    s?.trim().parse().ok()
}

/// `1/2` → (1, 2).
fn ratio(s: Option<&str>) -> Option<(i32, i32)> {
    let (a, b) = s?.split_once('/')?;
    Some((a.trim().parse().ok()?, b.trim().parse().ok()?))
}

/// Everything read from one pasted part.
#[derive(Debug, Default)]
pub struct Pasted {
    /// What it was (`kubectl get pods table (3 pods)`), for the input summary.
    pub what: Vec<String>,
    pub pods: Vec<Pod>,
    pub daemonsets: Vec<DaemonSet>,
    pub workloads: Vec<Workload>,
    pub volume_attachments: Vec<VolumeAttachment>,
    pub csi_nodes: Vec<CSINode>,
    pub pvcs: Vec<PersistentVolumeClaim>,
    pub pvs: Vec<PersistentVolume>,
    pub nodes: Vec<k8s_openapi::api::core::v1::Node>,
    pub plugin_logs: Vec<PluginLogLine>,
    pub empty_listings: Vec<String>,
    pub notes: Vec<String>,
}

/// The most plugin log lines kept from one pasted `kubectl logs` (the newest).
pub const MAX_PLUGIN_LINES: usize = 5000;

/// The header kubectl printed above pod rows that a `| grep` took away, from the command
/// (`kubectl get pods`, `-A`, `-o wide`) and the rows' cells (kubectl's printPod columns:
/// NAME READY STATUS RESTARTS AGE, NAMESPACE first with -A, then IP NODE NOMINATED NODE
/// READINESS GATES with -o wide); None unless every row fits it.
fn pods_header_for(command: &str, text: &str) -> Option<String> {
    let words: Vec<&str> = command
        .split('|')
        .next()?
        .split_whitespace()
        .filter(|w| *w != "sudo")
        .collect();
    let get_pods = matches!(words.first(), Some(&("kubectl" | "oc" | "kubectl.exe")))
        && words.get(1) == Some(&"get")
        && words
            .get(2)
            .is_some_and(|w| matches!(*w, "pods" | "pod" | "po"));
    if !get_pods || !command.contains('|') {
        return None;
    }
    let all_ns = words.iter().any(|w| *w == "-A" || *w == "--all-namespaces");
    let wide = words.windows(2).any(|w| w[0] == "-o" && w[1] == "wide")
        || words.contains(&"-owide")
        || words.contains(&"--output=wide");
    let base = "NAME   READY   STATUS   RESTARTS   AGE";
    let mut header = if all_ns {
        format!("NAMESPACE   {base}")
    } else {
        base.to_string()
    };
    if wide {
        header.push_str("   IP   NODE   NOMINATED NODE   READINESS GATES");
    }
    let columns = 5 + usize::from(all_ns) + if wide { 4 } else { 0 };
    let ready = usize::from(all_ns) + 1;
    let rows: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    let fits = |l: &&str| {
        let cells: Vec<&str> = l
            .split("  ")
            .map(str::trim)
            .filter(|c| !c.is_empty())
            .collect();
        cells.len() == columns
            && cells[ready]
                .split_once('/')
                .is_some_and(|(a, b)| a.parse::<u32>().is_ok() && b.parse::<u32>().is_ok())
    };
    (!rows.is_empty() && rows.iter().all(fits)).then_some(header)
}

/// Whether a text with no prompt is `kubectl logs --prefix` output: its first non-empty lines
/// all start with `[pod/NAME/CONTAINER] ` (a pod's log, not the kubelet's journal).
fn looks_like_prefixed_logs(text: &str) -> bool {
    let mut lines = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .take(5)
        .peekable();
    lines.peek().is_some() && lines.all(|l| crate::parse::klog::kubectl_logs_prefix(l).is_some())
}

/// Whether a command is `kubectl logs` / `oc logs` (the prompt's command, `sudo` dropped).
fn is_logs_command(command: &str) -> bool {
    let mut w = command.split_whitespace().filter(|w| *w != "sudo");
    matches!(w.next(), Some("kubectl" | "oc" | "kubectl.exe")) && w.next() == Some("logs")
}

/// Recognise one pasted part (its prompt's command, when there was one, and its text): the
/// tables above, `No resources found`, or `kubectl logs` of a node plugin. `None` when it is
/// none of these (the caller tries its other formats).
pub fn recognise(command: &str, text: &str, label: &str) -> Option<Pasted> {
    let trimmed = text.trim();
    let prefixed = command.is_empty() && looks_like_prefixed_logs(text);
    if is_logs_command(command)
        || prefixed
        || (command.is_empty() && crate::parse::plugin_log::looks_like_json_log(text))
    {
        let mut lines = crate::parse::plugin_log::parse(text, 1);
        let mut p = Pasted::default();
        if lines.len() > MAX_PLUGIN_LINES {
            p.notes.push(format!(
                "{label}: kept the newest {MAX_PLUGIN_LINES} of {} lines of `{command}`",
                lines.len()
            ));
            lines.drain(..lines.len() - MAX_PLUGIN_LINES);
        }
        let (source, what) = if prefixed {
            (
                format!("{label}: kubectl logs --prefix"),
                "a pod's log as `kubectl logs --prefix` prints it".to_string(),
            )
        } else if command.is_empty() {
            (label.to_string(), "a structured (JSON) log".to_string())
        } else {
            (format!("{label}: {command}"), format!("`{command}`"))
        };
        p.what.push(format!("{what} ({} log line(s))", lines.len()));
        p.plugin_logs = lines
            .into_iter()
            .map(|mut line| {
                if let std::borrow::Cow::Owned(r) = crate::redact::redact(&line.message) {
                    line.message = r;
                }
                PluginLogLine {
                    source: source.clone(),
                    line,
                }
            })
            .collect();
        return Some(p);
    }
    let first = trimmed.lines().next().unwrap_or("");
    if first.starts_with("No resources found") && trimmed.lines().count() == 1 {
        let what = if command.is_empty() {
            first.to_string()
        } else {
            format!("{command} ({first})")
        };
        return Some(Pasted {
            what: vec![format!("an empty listing: {what}")],
            empty_listings: vec![what],
            ..Pasted::default()
        });
    }
    // A cheap look first: most parts (logs, describe) have no table header at all.
    let has_header = text.contains("NAME ")
        && text
            .lines()
            .any(|l| l.starts_with("NAME ") || l.starts_with("NAMESPACE "));
    let headed;
    let text = if has_header {
        text
    } else {
        // `kubectl get pods ... | grep csi`: the rows without the header grep dropped.
        match pods_header_for(command, text) {
            Some(h) => {
                headed = format!("{h}\n{text}");
                headed.as_str()
            }
            None => return None,
        }
    };
    let tables = parse_tables(text);
    if tables.is_empty() {
        return None;
    }
    let ns = namespace_of(command);
    let mut p = Pasted::default();
    for t in &tables {
        let Some(kind) = kind_of(t, command) else {
            continue;
        };
        let n = t.rows.len();
        match kind {
            TableKind::Pods => {
                p.pods
                    .extend(t.rows.iter().filter_map(|r| pod_of(t, r, &ns)));
                p.what.push(format!("kubectl get pods table ({n} pod(s))"));
            }
            TableKind::DaemonSets => {
                p.daemonsets
                    .extend(t.rows.iter().filter_map(|r| daemonset_of(t, r, &ns)));
                p.what.push(format!("kubectl get daemonsets table ({n})"));
            }
            TableKind::Deployments | TableKind::ReplicaSets | TableKind::StatefulSets => {
                p.workloads
                    .extend(t.rows.iter().filter_map(|r| workload_of(t, r, kind, &ns)));
                let k = match kind {
                    TableKind::Deployments => "deployments",
                    TableKind::ReplicaSets => "replicasets",
                    _ => "statefulsets",
                };
                p.what.push(format!("kubectl get {k} table ({n})"));
            }
            TableKind::VolumeAttachments => {
                p.volume_attachments
                    .extend(t.rows.iter().filter_map(|r| attachment_of(t, r)));
                p.what
                    .push(format!("kubectl get volumeattachments table ({n})"));
            }
            TableKind::Pvcs => {
                p.pvcs
                    .extend(t.rows.iter().filter_map(|r| pvc_of(t, r, &ns)));
                p.what.push(format!("kubectl get pvc table ({n})"));
            }
            TableKind::Pvs => {
                p.pvs.extend(t.rows.iter().filter_map(|r| pv_of(t, r)));
                p.what.push(format!("kubectl get pv table ({n})"));
            }
            TableKind::Nodes => {
                p.nodes.extend(t.rows.iter().filter_map(|r| node_of(t, r)));
                p.what.push(format!("kubectl get nodes table ({n})"));
            }
            TableKind::CsiNodes => {
                for r in &t.rows {
                    let name = t.cell(r, "NAME").map(bare_name).unwrap_or("");
                    match count(t.cell(r, "DRIVERS")) {
                        // The table counts drivers without naming them: only "none" is a fact
                        // about which are registered.
                        Some(0) => p.csi_nodes.extend(
                            serde_json::from_value(json!({
                                "metadata": {"name": name, "annotations": {TABLE_SOURCE: "kubectl get csinode"}},
                                "spec": {"drivers": []}
                            }))
                            .ok(),
                        ),
                        Some(k) => p.notes.push(format!(
                            "{label}: CSINode {name} has {k} driver(s), not named by `kubectl get csinode` (`-o yaml` names them)"
                        )),
                        None => {}
                    }
                }
                p.what.push(format!("kubectl get csinodes table ({n})"));
            }
        }
    }
    (!p.what.is_empty()).then_some(p)
}

fn annotations(source: &str, extra: &[(&str, Option<&str>)]) -> Value {
    let mut a = serde_json::Map::new();
    a.insert(TABLE_SOURCE.into(), json!(source));
    for (k, v) in extra {
        if let Some(v) = v {
            a.insert(k.to_string(), json!(v));
        }
    }
    Value::Object(a)
}

/// A pod row (kubectl's printPod): READY, STATUS and RESTARTS as annotations (the table does
/// not say which container they are of); NODE, IP, NOMINATED NODE into their fields; the phase
/// where STATUS is one (a reason such as CrashLoopBackOff is no phase).
fn pod_of(t: &Table, r: &[String], ns: &Option<String>) -> Option<Pod> {
    let name = bare_name(t.cell(r, "NAME")?);
    let namespace = t.cell(r, "NAMESPACE").map(str::to_string).or(ns.clone());
    let status = t.cell(r, "STATUS");
    let phase = match status {
        Some(s @ ("Running" | "Pending" | "Succeeded" | "Failed" | "Unknown")) => Some(s),
        Some("Completed") => Some("Succeeded"),
        Some(s) if s == "ContainerCreating" || s == "PodInitializing" || s.starts_with("Init:") => {
            Some("Pending")
        }
        _ => None,
    };
    let mut v = json!({
        "metadata": {
            "name": name,
            "annotations": annotations("kubectl get pods", &[
                (TABLE_READY, t.cell(r, "READY")),
                (TABLE_STATUS, status),
                (TABLE_RESTARTS, t.cell(r, "RESTARTS")),
            ]),
        },
        "spec": {"containers": []},
        "status": {},
    });
    if let Some(ns) = namespace {
        v["metadata"]["namespace"] = json!(ns);
    }
    if let Some(n) = t.cell(r, "NODE") {
        v["spec"]["nodeName"] = json!(n);
    }
    if let Some(p) = phase {
        v["status"]["phase"] = json!(p);
    }
    if let Some(ip) = t.cell(r, "IP") {
        v["status"]["podIP"] = json!(ip);
    }
    if let Some(n) = t.cell(r, "NOMINATED NODE") {
        v["status"]["nominatedNodeName"] = json!(n);
    }
    serde_json::from_value(v).ok()
}

/// A DaemonSet row (printDaemonSet): the five counts into status, NODE SELECTOR into the
/// template's nodeSelector, and with `-o wide` its containers and images and its selector.
fn daemonset_of(t: &Table, r: &[String], ns: &Option<String>) -> Option<DaemonSet> {
    let name = bare_name(t.cell(r, "NAME")?);
    let namespace = t.cell(r, "NAMESPACE").map(str::to_string).or(ns.clone());
    let selector = t
        .cell(r, "NODE SELECTOR")
        .or_else(|| t.cell(r, "NODE-SELECTOR"))
        .map(labels_of)
        .unwrap_or_default();
    let names: Vec<&str> = t
        .cell(r, "CONTAINERS")
        .map(|c| c.split(',').collect())
        .unwrap_or_default();
    let images: Vec<&str> = t
        .cell(r, "IMAGES")
        .map(|c| c.split(',').collect())
        .unwrap_or_default();
    let containers: Vec<Value> = names
        .iter()
        .enumerate()
        .map(|(i, n)| {
            let mut c = json!({"name": n});
            if let Some(img) = images.get(i) {
                c["image"] = json!(img);
            }
            c
        })
        .collect();
    let mut v = json!({
        "metadata": {"name": name, "annotations": annotations("kubectl get daemonsets", &[])},
        "spec": {
            "selector": {"matchLabels": t.cell(r, "SELECTOR").map(labels_of).unwrap_or_default()},
            "template": {"spec": {"containers": containers}},
        },
        "status": {
            "desiredNumberScheduled": count(t.cell(r, "DESIRED"))?,
            "currentNumberScheduled": count(t.cell(r, "CURRENT"))?,
            "numberReady": count(t.cell(r, "READY"))?,
            // Not printed; the controller's count of pods where none should run.
            "numberMisscheduled": 0,
        },
    });
    if !selector.is_empty() {
        v["spec"]["template"]["spec"]["nodeSelector"] = json!(selector);
    }
    if let Some(u) = count(t.cell(r, "UP-TO-DATE")) {
        v["status"]["updatedNumberScheduled"] = json!(u);
    }
    if let Some(a) = count(t.cell(r, "AVAILABLE")) {
        v["status"]["numberAvailable"] = json!(a);
    }
    if let Some(ns) = namespace {
        v["metadata"]["namespace"] = json!(ns);
    }
    serde_json::from_value(v).ok()
}

/// A Deployment, ReplicaSet or StatefulSet row: its desired replicas (READY's second number,
/// or DESIRED).
fn workload_of(t: &Table, r: &[String], kind: TableKind, ns: &Option<String>) -> Option<Workload> {
    let name = bare_name(t.cell(r, "NAME")?).to_string();
    let replicas =
        count(t.cell(r, "DESIRED")).or_else(|| ratio(t.cell(r, "READY")).map(|(_, n)| n));
    Some(Workload {
        kind: match kind {
            TableKind::Deployments => "Deployment",
            TableKind::ReplicaSets => "ReplicaSet",
            _ => "StatefulSet",
        }
        .into(),
        namespace: t.cell(r, "NAMESPACE").map(str::to_string).or(ns.clone()),
        name,
        replicas,
        ..Workload::default()
    })
}

/// A VolumeAttachment row (printVolumeAttachment): attacher, PV, node, attached.
fn attachment_of(t: &Table, r: &[String]) -> Option<VolumeAttachment> {
    let mut v = json!({
        "metadata": {"name": bare_name(t.cell(r, "NAME")?), "annotations": annotations("kubectl get volumeattachments", &[])},
        "spec": {
            "attacher": t.cell(r, "ATTACHER")?,
            "nodeName": t.cell(r, "NODE")?,
            "source": {},
        },
        "status": {"attached": t.cell(r, "ATTACHED")? == "true"},
    });
    if let Some(pv) = t.cell(r, "PV") {
        v["spec"]["source"]["persistentVolumeName"] = json!(pv);
    }
    serde_json::from_value(v).ok()
}

/// A node row: its Ready condition from STATUS (`Ready`, `NotReady`, `Unknown`, with
/// `,SchedulingDisabled` when cordoned), its kubelet version, and with -o wide its address, OS
/// image, kernel and runtime (kubernetes pkg/printers/internalversion printNode).
fn node_of(t: &Table, r: &[String]) -> Option<k8s_openapi::api::core::v1::Node> {
    let name = bare_name(t.cell(r, "NAME")?);
    let status = t.cell(r, "STATUS")?;
    let mut words = status.split(',');
    let ready = match words.next()? {
        "Ready" => "True",
        "NotReady" => "False",
        "Unknown" => "Unknown",
        _ => return None,
    };
    let cordoned = words.any(|w| w == "SchedulingDisabled");
    let known = |c: &str| t.cell(r, c).filter(|v| !v.is_empty() && *v != "<none>");
    let mut v = json!({
        "metadata": {"name": name, "annotations": annotations("kubectl get nodes", &[])},
        "spec": {},
        "status": {
            "conditions": [{"type": "Ready", "status": ready}],
            "nodeInfo": {
                "kubeletVersion": t.cell(r, "VERSION").unwrap_or(""),
                "kubeProxyVersion": "",
                "osImage": known("OS-IMAGE").unwrap_or(""),
                "kernelVersion": known("KERNEL-VERSION").unwrap_or(""),
                "containerRuntimeVersion": known("CONTAINER-RUNTIME").unwrap_or(""),
                "architecture": "", "bootID": "", "machineID": "", "operatingSystem": "linux", "systemUUID": "",
            },
        },
    });
    if cordoned {
        v["spec"]["unschedulable"] = json!(true);
    }
    if let Some(ip) = known("INTERNAL-IP") {
        v["status"]["addresses"] = json!([{"type": "InternalIP", "address": ip}]);
    }
    serde_json::from_value(v).ok()
}

impl Pasted {
    /// Put what was read into the case; returns what it was, for the input summary. A pod row
    /// of the pod being diagnosed is left out: its own input (describe, -o yaml) says more.
    pub fn add_to(self, case: &mut Case) -> String {
        let me = case
            .pod
            .as_ref()
            .and_then(|p| p.metadata.name.clone())
            .or(case.pod_name.clone());
        for p in self.pods {
            if me.is_some() && p.metadata.name == me {
                continue;
            }
            let dup = case.other_pods.iter().any(|o| {
                o.metadata.name == p.metadata.name
                    && (o.metadata.namespace.is_none()
                        || p.metadata.namespace.is_none()
                        || o.metadata.namespace == p.metadata.namespace)
            });
            if !dup {
                case.other_pods.push(p);
            }
        }
        for d in self.daemonsets {
            case.add_daemonset(d);
        }
        for w in self.workloads {
            case.add_workload(w);
        }
        for va in self.volume_attachments {
            if !case
                .volume_attachments
                .iter()
                .any(|x| x.metadata.name == va.metadata.name)
            {
                case.volume_attachments.push(va);
            }
        }
        for cn in self.csi_nodes {
            if !case
                .csi_nodes
                .iter()
                .any(|x| x.metadata.name == cn.metadata.name)
            {
                case.csi_nodes.push(cn);
            }
        }
        for c in self.pvcs {
            case.add_pvc(c);
        }
        for v in self.pvs {
            case.add_pv(v);
        }
        // A node saved whole (-o yaml) or described says more than its row.
        for n in self.nodes {
            if !case
                .nodes
                .iter()
                .any(|x| x.metadata.name == n.metadata.name)
            {
                case.nodes.push(n);
            }
        }
        case.plugin_logs.extend(self.plugin_logs);
        case.empty_listings.extend(self.empty_listings);
        case.notes.extend(self.notes);
        self.what.join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const REAL: &str = include_str!("../../fixtures/tables/real-cluster-v1.36.txt");

    /// The part of the capture after `$ kubectl CMD`, up to the next prompt.
    fn part(cmd: &str) -> String {
        let start = REAL
            .find(&format!("$ kubectl {cmd}\n"))
            .unwrap_or_else(|| panic!("{cmd} in the capture"))
            + cmd.len()
            + 11;
        let rest = &REAL[start..];
        rest[..rest.find("\n$ ").map_or(rest.len(), |i| i + 1)].to_string()
    }

    #[test]
    fn pods_wide_with_restarts_since_and_none_cells() {
        let cmd = "get pods -n cev-shapes -o wide";
        let t = &parse_tables(&part(cmd))[0];
        assert_eq!(
            t.headers,
            [
                "NAME",
                "READY",
                "STATUS",
                "RESTARTS",
                "AGE",
                "IP",
                "NODE",
                "NOMINATED NODE",
                "READINESS GATES"
            ]
        );
        let p = recognise(&format!("kubectl {cmd}"), &part(cmd), "f").unwrap();
        assert_eq!(p.pods.len(), 4);
        let crashy = p
            .pods
            .iter()
            .find(|p| p.metadata.name.as_deref() == Some("crashy-csi-node-k2x9q"))
            .unwrap();
        let h = crate::model::cluster::PodHealth::of(crashy);
        assert_eq!(h.namespace.as_deref(), Some("cev-shapes"));
        assert_eq!(h.node.as_deref(), Some("realnode"));
        assert_eq!(h.ready, Some((1, 2)));
        assert_eq!(h.reason.as_deref(), Some("Error"));
        assert!(h.restarts.unwrap() >= 2, "{h:?}");
        let creating = &p.pods[0];
        assert_eq!(
            creating.status.as_ref().unwrap().phase.as_deref(),
            Some("Pending")
        );
        assert_eq!(creating.status.as_ref().unwrap().pod_ip, None);
    }

    #[test]
    fn daemonsets_plain_wide_and_all_namespaces() {
        for cmd in [
            "get ds -n cev-shapes",
            "get ds -n cev-shapes -o wide",
            "get ds -A",
        ] {
            let p = recognise(&format!("kubectl {cmd}"), &part(cmd), "f").unwrap();
            assert_eq!(p.daemonsets.len(), 2, "{cmd}");
            let d = &p.daemonsets[0];
            assert_eq!(d.metadata.name.as_deref(), Some("crashy-csi-node"));
            assert_eq!(d.metadata.namespace.as_deref(), Some("cev-shapes"), "{cmd}");
            let sel = d
                .spec
                .as_ref()
                .unwrap()
                .template
                .spec
                .as_ref()
                .unwrap()
                .node_selector
                .clone()
                .unwrap();
            assert_eq!(
                sel.get("storage").map(String::as_str),
                Some("true"),
                "{cmd}"
            );
            assert_eq!(
                sel.get("kubernetes.io/os").map(String::as_str),
                Some("linux")
            );
            assert_eq!(d.status.as_ref().unwrap().desired_number_scheduled, 0);
        }
        let wide = recognise(
            "kubectl get ds -o wide",
            &part("get ds -n cev-shapes -o wide"),
            "f",
        )
        .unwrap();
        let fake = &wide.daemonsets[1];
        let spec = fake.spec.as_ref().unwrap();
        let names: Vec<&str> = spec
            .template
            .spec
            .as_ref()
            .unwrap()
            .containers
            .iter()
            .map(|c| c.name.as_str())
            .collect();
        assert_eq!(names, ["node-driver-registrar", "plugin"]);
        assert_eq!(
            spec.selector
                .match_labels
                .as_ref()
                .unwrap()
                .get("app")
                .map(String::as_str),
            Some("fake-csi-node")
        );
    }

    #[test]
    fn workloads_from_deploy_rs_and_sts_tables() {
        let p = recognise(
            "kubectl get deploy -n cev-shapes",
            &part("get deploy -n cev-shapes"),
            "f",
        )
        .unwrap();
        assert_eq!(
            p.workloads,
            [Workload {
                kind: "Deployment".into(),
                namespace: Some("cev-shapes".into()),
                name: "web".into(),
                replicas: Some(2),
                ..Workload::default()
            }]
        );
        let rs = recognise(
            "kubectl get rs -n cev-shapes -o wide",
            &part("get rs -n cev-shapes -o wide"),
            "f",
        )
        .unwrap();
        assert_eq!(rs.workloads[0].kind, "ReplicaSet");
        assert_eq!(rs.workloads[0].replicas, Some(2));
        let sts = recognise(
            "kubectl get sts -n cev-shapes -o wide",
            &part("get sts -n cev-shapes -o wide"),
            "f",
        )
        .unwrap();
        assert_eq!(
            (sts.workloads[0].kind.as_str(), sts.workloads[0].replicas),
            ("StatefulSet", Some(1))
        );
        // Kubernetes before 1.11 printed Deployments with DESIRED and CURRENT.
        let old = "NAME      DESIRED   CURRENT   UP-TO-DATE   AVAILABLE   AGE\nnginx     3         3         3            3            18s\n";
        let p = recognise("", old, "f").unwrap();
        assert_eq!(
            (p.workloads[0].kind.as_str(), p.workloads[0].replicas),
            ("Deployment", Some(3))
        );
    }

    #[test]
    fn get_all_prints_one_table_per_kind() {
        let p = recognise(
            "kubectl get all -n cev-shapes",
            &part("get all -n cev-shapes"),
            "f",
        )
        .unwrap();
        assert_eq!(p.pods.len(), 4);
        assert_eq!(p.pods[0].metadata.name.as_deref(), Some("app-inline-csi"));
        assert_eq!(p.daemonsets.len(), 2);
        let kinds: Vec<&str> = p.workloads.iter().map(|w| w.kind.as_str()).collect();
        assert_eq!(kinds, ["Deployment", "ReplicaSet", "StatefulSet"]);
        assert_eq!(p.workloads[1].name, "web-6b7f9c8d5");
    }

    #[test]
    fn csinodes_and_empty_listings() {
        let p = recognise("kubectl get csinode", &part("get csinode"), "f").unwrap();
        assert_eq!(p.csi_nodes.len(), 1);
        assert!(p.csi_nodes[0].spec.drivers.is_empty());
        let none = part("get volumeattachment");
        assert_eq!(none.trim(), "No resources found");
        let cmd = "kubectl get pods -n cev-shapes -l app=nothing-here --field-selector spec.nodeName=realnode";
        let p = recognise(cmd, &part(&cmd[8..]), "f").unwrap();
        assert_eq!(p.empty_listings.len(), 1);
        assert!(
            p.empty_listings[0].starts_with(cmd),
            "{:?}",
            p.empty_listings
        );
        let many = "NAME       DRIVERS   AGE\nnode-1     2         3d\n";
        let p = recognise("", many, "f").unwrap();
        assert!(p.csi_nodes.is_empty());
        assert!(p.notes[0].contains("not named"));
    }

    #[test]
    fn volume_attachments_table() {
        // printers.go volumeAttachmentColumnDefinitions, as kubectl prints them.
        let t = "NAME                                                                   ATTACHER          PV                                         NODE               ATTACHED   AGE\n\
csi-1f0dc61aa4a2bd54b82b50c4ffa5c4fa2e2f1b1a0b4bde3b0ba5c0b3a4f8a1e2   ebs.csi.aws.com   pvc-0a1b2c3d-4e5f-6a7b-8c9d-0e1f2a3b4c5d   ip-10-0-1-23.ec2   false      4m\n";
        let p = recognise("kubectl get volumeattachment", t, "f").unwrap();
        let va = &p.volume_attachments[0];
        assert_eq!(va.spec.attacher, "ebs.csi.aws.com");
        assert_eq!(va.spec.node_name, "ip-10-0-1-23.ec2");
        assert_eq!(
            va.spec.source.persistent_volume_name.as_deref(),
            Some("pvc-0a1b2c3d-4e5f-6a7b-8c9d-0e1f2a3b4c5d")
        );
        assert!(!va.status.as_ref().unwrap().attached);
    }

    #[test]
    fn a_pasted_table_that_lost_its_alignment() {
        // fixtures/cases/external-attacher-126/pods.txt, and the same with single spaces.
        let t = "NAME                                                               READY   STATUS             RESTARTS   AGE\n\
csi-attacher-cinderplugin-0                                        1/2     CrashLoopBackOff   92         9h\n\
csi-nodeplugin-cinderplugin-cch5f                                  1/2     CrashLoopBackOff   110        9h\n";
        let collapsed = "NAME READY STATUS RESTARTS AGE\ncsi-nodeplugin-cinderplugin-cch5f 1/2 CrashLoopBackOff 110 (2m ago) 9h\n";
        for (text, restarts) in [(t, "92"), (collapsed, "110 (2m ago)")] {
            let p = recognise("kubectl get pod -n kube-system", text, "f").unwrap();
            let ann = p.pods[0].metadata.annotations.clone().unwrap();
            assert_eq!(ann[TABLE_RESTARTS], restarts);
            assert_eq!(ann[TABLE_STATUS], "CrashLoopBackOff");
            assert_eq!(p.pods[0].metadata.namespace.as_deref(), Some("kube-system"));
        }
    }

    #[test]
    fn kubectl_logs_of_a_node_plugin() {
        let text = include_str!("../../fixtures/tables/plugin-logs.txt");
        let first = text.split("\n$ ").next().unwrap();
        let (cmd, body) = first.split_once('\n').unwrap();
        let p = recognise(cmd.trim_start_matches("$ "), body, "plugin-logs.txt").unwrap();
        assert_eq!(p.plugin_logs.len(), 4);
        assert_eq!(
            p.plugin_logs[0].source,
            "plugin-logs.txt: kubectl logs -n cev-shapes fake-csi-node-abcde -c plugin --tail=4"
        );
        assert_eq!(p.plugin_logs[3].line.severity, Some('E'));
        assert!(p.plugin_logs[3].line.message.contains("volume_id=vol-0abc"));
        // A password a driver logged is redacted on the way in.
        let p = recognise(
            "kubectl logs ds/csi-smb-node -c smb",
            "E0101 00:00:00.000001 1 mount.go:1] mount failed: mount -t cifs -o username=u,password=Sup3rSecretSmbPw9 //h/s /mnt\n",
            "f",
        )
        .unwrap();
        assert!(
            !p.plugin_logs[0].line.message.contains("Sup3rSecret"),
            "{:?}",
            p.plugin_logs
        );
    }

    #[test]
    fn mangled_tables_are_read_or_left_alone_never_a_panic() {
        // Cut anywhere, tabs for spaces, columns shifted, non-ASCII in cells, a header alone.
        let mut inputs: Vec<String> = Vec::new();
        for cut in (0..REAL.len())
            .step_by(7)
            .filter(|c| REAL.is_char_boundary(*c))
        {
            inputs.push(REAL[..cut].to_string());
            inputs.push(REAL[cut..].to_string());
        }
        inputs.push(REAL.replace("   ", "\t"));
        inputs.push(REAL.replace("  ", " "));
        inputs.push(REAL.replace("NAME ", "NAME  é "));
        inputs.push(REAL.replace("realnode", "nœud-ünïcode"));
        inputs.push("NAME   READY   STATUS   RESTARTS   AGE\n".into());
        inputs.push("NAME\nx\n".into());
        inputs.push("NAMESPACE NAME\n a b c d e f g\n".into());
        for text in &inputs {
            for cmd in ["", "kubectl get all -A", "kubectl logs x"] {
                if let Some(p) = recognise(cmd, text, "f") {
                    p.add_to(&mut Case::default());
                }
            }
        }
    }

    /// printers.go persistentVolumeClaimColumnDefinitions / persistentVolumeColumnDefinitions
    /// (kubectl 1.29+: VOLUMEATTRIBUTESCLASS), and OpenShift 3's `oc get pv` with LABELS and
    /// ACCESSMODES; a PV row's empty REASON cell.
    #[test]
    fn claims_and_volumes_from_their_tables() {
        let p = recognise(
            "kubectl get pvc -n shop",
            "NAME   STATUS    VOLUME   CAPACITY   ACCESS MODES   STORAGECLASS   VOLUMEATTRIBUTESCLASS   AGE\ndata   Bound     pv-1     1Gi        RWO            gp3            <unset>                 1d\nlogs   Pending                                        gp3            <unset>                 5m\n",
            "f",
        )
        .expect("a pvc table");
        assert_eq!(p.pvcs.len(), 2);
        let data = &p.pvcs[0];
        assert_eq!(data.metadata.namespace.as_deref(), Some("shop"));
        let spec = data.spec.as_ref().unwrap();
        assert_eq!(spec.volume_name.as_deref(), Some("pv-1"));
        assert_eq!(
            spec.access_modes.as_deref(),
            Some(&["ReadWriteOnce".to_string()][..])
        );
        let logs = &p.pvcs[1];
        assert_eq!(
            logs.status.as_ref().unwrap().phase.as_deref(),
            Some("Pending")
        );
        assert!(logs.spec.as_ref().unwrap().volume_name.is_none());

        let p = recognise(
            "kubectl get pv",
            "NAME   CAPACITY   ACCESS MODES   RECLAIM POLICY   STATUS     CLAIM       STORAGECLASS   VOLUMEATTRIBUTESCLASS   REASON   AGE\npv-1   1Gi        RWO,ROX        Retain           Released   shop/data   gp3            <unset>                          3d\n",
            "f",
        )
        .expect("a pv table");
        let pv = &p.pvs[0];
        let spec = pv.spec.as_ref().unwrap();
        assert_eq!(
            spec.claim_ref.as_ref().unwrap().namespace.as_deref(),
            Some("shop")
        );
        assert_eq!(
            spec.persistent_volume_reclaim_policy.as_deref(),
            Some("Retain")
        );
        assert_eq!(spec.access_modes.as_ref().unwrap().len(), 2);
        assert_eq!(
            pv.status.as_ref().unwrap().phase.as_deref(),
            Some("Released")
        );

        let p = recognise(
            "oc get pv",
            "NAME           LABELS    CAPACITY   ACCESSMODES   STATUS    CLAIM             REASON    AGE\ngluster-pv01   <none>    2Gi        RWX           Bound     testvol/pvclaim             46s\n",
            "f",
        )
        .expect("an OpenShift 3 pv table");
        assert_eq!(
            p.pvs[0]
                .spec
                .as_ref()
                .unwrap()
                .claim_ref
                .as_ref()
                .unwrap()
                .name
                .as_deref(),
            Some("pvclaim")
        );
        // A whole claim read afterwards takes the table's place.
        let mut case = Case::default();
        let table = recognise(
            "kubectl get pvc -n shop",
            "NAME   STATUS    VOLUME   CAPACITY   ACCESS MODES   STORAGECLASS   AGE\ndata   Bound     pv-1     1Gi        RWO            gp3            1d\n",
            "f",
        )
        .unwrap();
        table.add_to(&mut case);
        let mut whole = case.pvcs[0].clone();
        whole.metadata.annotations = None;
        case.add_pvc(whole);
        assert_eq!(case.pvcs.len(), 1);
        assert!(case.pvcs[0].metadata.annotations.is_none());
    }

    #[test]
    fn what_is_not_a_table_is_left_alone() {
        assert!(recognise("", "LAST SEEN   TYPE      REASON        OBJECT    MESSAGE\n5m   Warning   FailedMount   pod/x   MountVolume failed\n", "f").is_none());
        assert!(recognise("", "Name: x\nNamespace: y\n", "f").is_none());
        // A header whose rows do not fit is no table.
        assert!(parse_tables("NAME   READY   STATUS   RESTARTS   AGE\nthis is prose, not a row of five cells at all\n").is_empty());
    }
}
