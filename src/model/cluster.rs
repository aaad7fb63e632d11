//! The cluster's facts about a pod's CSI node plugins, derived from the objects in a `Case`:
//! which CSI drivers the pod's volumes use, which DaemonSet runs each driver's node plugin, and
//! how that plugin stands on the pod's node (its pod's phase, readiness and restarts, or why the
//! DaemonSet has no pod there). Pure functions over objects, so the live collector (to choose
//! whose logs to read), a saved case and pasted `kubectl get` tables all give the same answer;
//! they state facts and judge nothing.

use std::collections::BTreeMap;

use k8s_openapi::api::apps::v1::DaemonSet;
use k8s_openapi::api::core::v1::{
    Container, Node, NodeSelectorRequirement, NodeSelectorTerm, PersistentVolume,
    PersistentVolumeClaim, PersistentVolumeSpec, Pod, PodSpec, Taint, Toleration, Volume,
};
use serde::{Deserialize, Serialize};

use super::Case;

/// Annotations a pod rebuilt from a `kubectl get pods` table carries: the table's READY,
/// STATUS and RESTARTS as printed, since the table does not say which container they are of.
pub const TABLE_SOURCE: &str = "volmnt.io/from-table";
pub const TABLE_READY: &str = "volmnt.io/table-ready";
pub const TABLE_STATUS: &str = "volmnt.io/table-status";
pub const TABLE_RESTARTS: &str = "volmnt.io/table-restarts";

impl Case {
    /// Record evidence that could not be gathered, and why: the report says it (its
    /// `unavailable`), so it is never skipped in silence.
    pub fn note_unavailable(&mut self, what: String) {
        if !self.unavailable.contains(&what) {
            self.unavailable.push(what);
        }
    }

    /// Add a claim: a whole one (describe, `-o yaml`) takes the place of one rebuilt from a
    /// `kubectl get pvc` table, which is left out when the whole one is there.
    pub fn add_pvc(&mut self, pvc: PersistentVolumeClaim) {
        let same = |x: &PersistentVolumeClaim| {
            x.metadata.name == pvc.metadata.name
                && (x.metadata.namespace.is_none()
                    || pvc.metadata.namespace.is_none()
                    || x.metadata.namespace == pvc.metadata.namespace)
        };
        let from_table = |m: &k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta| {
            m.annotations
                .as_ref()
                .is_some_and(|a| a.contains_key(TABLE_SOURCE))
        };
        match self.pvcs.iter_mut().find(|x| same(x)) {
            Some(old) if from_table(&old.metadata) && !from_table(&pvc.metadata) => *old = pvc,
            Some(_) if from_table(&pvc.metadata) => {}
            _ => self.pvcs.push(pvc),
        }
    }

    /// Add a volume, as [`Case::add_pvc`] adds a claim.
    pub fn add_pv(&mut self, pv: PersistentVolume) {
        let from_table = |m: &k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta| {
            m.annotations
                .as_ref()
                .is_some_and(|a| a.contains_key(TABLE_SOURCE))
        };
        match self
            .pvs
            .iter_mut()
            .find(|x| x.metadata.name == pv.metadata.name)
        {
            Some(old) if from_table(&old.metadata) && !from_table(&pv.metadata) => *old = pv,
            Some(_) if from_table(&pv.metadata) => {}
            _ => self.pvs.push(pv),
        }
    }

    /// Add a DaemonSet, once per namespace/name: a whole object (from the API or `-o yaml`)
    /// takes the place of one rebuilt from a `kubectl get ds` table.
    pub fn add_daemonset(&mut self, ds: DaemonSet) {
        let key = |d: &DaemonSet| (d.metadata.namespace.clone(), d.metadata.name.clone());
        let from_table = |d: &DaemonSet| {
            d.metadata
                .annotations
                .as_ref()
                .is_some_and(|a| a.contains_key(TABLE_SOURCE))
        };
        match self.daemonsets.iter_mut().find(|d| key(d) == key(&ds)) {
            Some(old) if from_table(old) && !from_table(&ds) => *old = ds,
            Some(_) => {}
            None => self.daemonsets.push(ds),
        }
    }

    /// Add a workload, once per kind/namespace/name, what is known of each merged (a table
    /// gives replicas, a manifest the strategy).
    pub fn add_workload(&mut self, w: super::Workload) {
        let same = |x: &super::Workload| {
            x.kind == w.kind
                && x.name == w.name
                && (x.namespace.is_none() || w.namespace.is_none() || x.namespace == w.namespace)
        };
        match self.workloads.iter_mut().find(|x| same(x)) {
            Some(old) => {
                old.namespace = old.namespace.take().or(w.namespace);
                old.strategy = old.strategy.take().or(w.strategy);
                old.replicas = old.replicas.or(w.replicas);
                old.max_surge = old.max_surge.take().or(w.max_surge);
            }
            None => self.workloads.push(w),
        }
    }
}

/// A CSI driver one of the pod's volumes needs, and how that was read.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct DriverUse {
    pub driver: String,
    /// The pod's volume name.
    pub volume: String,
    /// `inline csi volume`, `PV pvc-1 (csi)`, `PV pv-a (in-tree awsElasticBlockStore, CSI
    /// migration)`, `StorageClass gp3 provisioner (claim not bound)`.
    pub via: String,
    /// The PV's CSI volume handle, when there is one (what the plugin logs name).
    pub volume_handle: Option<String>,
    /// The PV's name, when the volume is a claim bound to one.
    pub pv: Option<String>,
}

/// In-tree volume plugins whose operations Kubernetes hands to a CSI driver (CSI migration,
/// GA for these between 1.23 and 1.27; kubernetes pkg/volume/csimigration and
/// k8s.io/csi-translation-lib/plugins). Their pods need that driver's node plugin.
const MIGRATED: &[(&str, &str)] = &[
    ("awsElasticBlockStore", "ebs.csi.aws.com"),
    ("gcePersistentDisk", "pd.csi.storage.gke.io"),
    ("azureDisk", "disk.csi.azure.com"),
    ("azureFile", "file.csi.azure.com"),
    ("cinder", "cinder.csi.openstack.org"),
    ("vsphereVolume", "csi.vsphere.vmware.com"),
    ("portworxVolume", "pxd.portworx.com"),
];

/// Which in-tree source a PV spec or pod volume has, by its JSON field name.
fn in_tree_source(v: &serde_json::Value) -> Option<(&'static str, &'static str)> {
    MIGRATED
        .iter()
        .find(|(field, _)| v.get(*field).is_some_and(|x| !x.is_null()))
        .copied()
}

fn pv_driver(spec: &PersistentVolumeSpec) -> Option<(String, String, Option<String>)> {
    if let Some(csi) = &spec.csi {
        return Some((
            csi.driver.clone(),
            "csi".into(),
            Some(csi.volume_handle.clone()),
        ));
    }
    let v = serde_json::to_value(spec).ok()?;
    in_tree_source(&v).map(|(field, driver)| {
        (
            driver.to_string(),
            format!("in-tree {field}, CSI migration"),
            None,
        )
    })
}

/// The CSI drivers the pod's volumes use: inline `csi` volumes, claims bound to CSI PVs, PVs
/// of migrated in-tree plugins, and for a claim not bound yet its StorageClass's provisioner
/// when that names a CSI driver (a DNS-like name, as CSI requires).
pub fn pod_csi_drivers(case: &Case) -> Vec<DriverUse> {
    let Some(pod) = &case.pod else {
        return Vec::new();
    };
    let pod_name = pod.metadata.name.clone().unwrap_or_default();
    let mut out = Vec::new();
    for v in pod.spec.iter().flat_map(|s| s.volumes.iter().flatten()) {
        if let Some(csi) = &v.csi {
            out.push(DriverUse {
                driver: csi.driver.clone(),
                volume: v.name.clone(),
                via: "inline csi volume".into(),
                volume_handle: None,
                pv: None,
            });
            continue;
        }
        if let Some((field, driver)) = serde_json::to_value(v)
            .ok()
            .and_then(|j| in_tree_source(&j).map(|(f, d)| (f.to_string(), d.to_string())))
        {
            out.push(DriverUse {
                driver,
                volume: v.name.clone(),
                via: format!("inline in-tree {field}, CSI migration"),
                volume_handle: None,
                pv: None,
            });
            continue;
        }
        let claim = match (&v.persistent_volume_claim, &v.ephemeral) {
            (Some(c), _) => c.claim_name.clone(),
            (None, Some(_)) => format!("{pod_name}-{}", v.name),
            _ => continue,
        };
        let pvc = case
            .pvcs
            .iter()
            .find(|c| c.metadata.name.as_deref() == Some(claim.as_str()));
        let pv_name = pvc
            .and_then(|c| c.spec.as_ref())
            .and_then(|s| s.volume_name.clone());
        let pv = pv_name.as_deref().and_then(|n| {
            case.pvs
                .iter()
                .find(|p| p.metadata.name.as_deref() == Some(n))
        });
        if let Some((driver, how, handle)) = pv.and_then(|p| p.spec.as_ref()).and_then(pv_driver) {
            out.push(DriverUse {
                driver,
                volume: v.name.clone(),
                via: format!("PV {} ({how})", pv_name.clone().unwrap_or_default()),
                volume_handle: handle,
                pv: pv_name,
            });
            continue;
        }
        if pv.is_some() {
            continue; // bound to a PV that is no CSI volume (NFS, local, hostPath, ...)
        }
        // Not bound (or its PV unknown): the class that will provision it.
        let class = pvc
            .and_then(|c| c.spec.as_ref())
            .and_then(|s| s.storage_class_name.clone())
            .or_else(|| {
                v.ephemeral
                    .as_ref()
                    .and_then(|e| e.volume_claim_template.as_ref())
                    .and_then(|t| t.spec.storage_class_name.clone())
            });
        let sc = class.as_deref().and_then(|c| {
            case.storage_classes
                .iter()
                .find(|s| s.metadata.name.as_deref() == Some(c))
        });
        if let Some(sc) = sc.filter(|s| looks_like_csi_name(&s.provisioner)) {
            out.push(DriverUse {
                driver: sc.provisioner.clone(),
                volume: v.name.clone(),
                via: format!(
                    "StorageClass {} provisioner (claim {claim} not bound)",
                    class.unwrap_or_default()
                ),
                volume_handle: None,
                pv: pv_name,
            });
        }
    }
    out.sort();
    out.dedup();
    out
}

/// CSI driver names are DNS-subdomain-like (`ebs.csi.aws.com`); in-tree provisioners are
/// `kubernetes.io/...`.
fn looks_like_csi_name(s: &str) -> bool {
    s.contains('.') && !s.contains('/')
}

/// How a DaemonSet was matched to a CSI driver, strongest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum MatchedBy {
    /// node-driver-registrar's `--kubelet-registration-path=<root>/plugins/DRIVER/csi.sock`
    /// (after `$(VAR)` expansion from the container's env): the socket kubelet registers.
    RegistrationPath,
    /// The driver's name in a container's args or env (`--drivername=nfs.csi.k8s.io`).
    ContainerArgs,
    /// The driver's name in a hostPath of the pod template (`/var/lib/kubelet/plugins/DRIVER`).
    HostPath,
    /// The CSIDriver object and the DaemonSet carry the same `app.kubernetes.io/instance`
    /// (or `app.kubernetes.io/part-of`) label: installed together by one chart.
    InstallLabel,
    /// Only the DaemonSet's name or images share a word with the driver's name (what a
    /// `kubectl get ds` table allows): weak.
    Name,
}

impl MatchedBy {
    pub fn label(self) -> &'static str {
        match self {
            MatchedBy::RegistrationPath => "node-driver-registrar's --kubelet-registration-path",
            MatchedBy::ContainerArgs => "the driver name in a container's args or env",
            MatchedBy::HostPath => "the driver name in a hostPath of the pod template",
            MatchedBy::InstallLabel => "the CSIDriver's install label",
            MatchedBy::Name => "a word of the driver name in the DaemonSet's name or images (weak)",
        }
    }
}

/// `$(VAR)` references in an arg replaced by the container's env values (as kubelet expands
/// them; `valueFrom` entries are left as written).
fn expand(arg: &str, env: &BTreeMap<String, String>) -> String {
    let mut out = String::with_capacity(arg.len());
    let mut rest = arg;
    while let Some(i) = rest.find("$(") {
        out.push_str(&rest[..i]);
        let after = &rest[i + 2..];
        match after.find(')') {
            Some(j) => {
                let name = &after[..j];
                match env.get(name) {
                    Some(v) => out.push_str(v),
                    None => {
                        out.push_str("$(");
                        out.push_str(name);
                        out.push(')');
                    }
                }
                rest = &after[j + 1..];
            }
            None => {
                out.push_str(&rest[i..]);
                rest = "";
            }
        }
    }
    out.push_str(rest);
    out
}

fn container_env(c: &Container) -> BTreeMap<String, String> {
    c.env
        .iter()
        .flatten()
        .filter_map(|e| e.value.clone().map(|v| (e.name.clone(), v)))
        .collect()
}

/// A container's args and command, `$(VAR)`s expanded, plus its env values.
fn container_words(c: &Container) -> Vec<String> {
    let env = container_env(c);
    c.command
        .iter()
        .flatten()
        .chain(c.args.iter().flatten())
        .map(|a| expand(a, &env))
        .chain(env.values().cloned())
        .collect()
}

/// The driver directory of node-driver-registrar's registration path, from any container
/// (`--kubelet-registration-path=/var/lib/kubelet/plugins/ebs.csi.aws.com/csi.sock` →
/// `ebs.csi.aws.com`; also the two-argument form).
pub fn registration_dirs(spec: &PodSpec) -> Vec<String> {
    let mut out = Vec::new();
    for c in spec
        .containers
        .iter()
        .chain(spec.init_containers.iter().flatten())
    {
        let words = container_words(c);
        for (i, w) in words.iter().enumerate() {
            let path = if let Some(p) = w.strip_prefix("--kubelet-registration-path=") {
                p.to_string()
            } else if w == "--kubelet-registration-path" {
                match words.get(i + 1) {
                    Some(p) => p.clone(),
                    None => continue,
                }
            } else {
                continue;
            };
            let parts: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
            // `.../plugins/DRIVER/csi.sock`: the directory under plugins/, before the socket.
            if let Some(k) = parts.iter().position(|p| *p == "plugins") {
                if parts.len() > k + 2 {
                    out.push(parts[k + 1].to_string());
                }
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

/// Whether `hay` holds `name` as a whole token (not part of a longer DNS name or word).
fn has_token(hay: &str, name: &str) -> bool {
    let is_word = |c: char| c.is_ascii_alphanumeric() || c == '.' || c == '-' || c == '_';
    hay.match_indices(name).any(|(i, _)| {
        let before = hay[..i].chars().next_back();
        let after = hay[i + name.len()..].chars().next();
        before.is_none_or(|c| !is_word(c))
            && after.is_none_or(|c| {
                !is_word(c) || (c == '.' && hay[i + name.len()..].starts_with(".sock"))
            })
    })
}

/// The words of a driver name worth looking for in a DaemonSet's name (`ebs.csi.aws.com` →
/// `ebs`; `driver.longhorn.io` → `longhorn`; `disk.csi.azure.com` → `disk`, `azure`).
fn name_words(driver: &str) -> Vec<&str> {
    const GENERIC: &[&str] = &[
        "csi",
        "io",
        "com",
        "org",
        "net",
        "k8s",
        "kubernetes",
        "driver",
        "storage",
        "cloud",
        "x-k8s",
        "sigs",
        "plugin",
        "www",
    ];
    driver
        .split('.')
        .filter(|w| w.len() >= 2 && !GENERIC.contains(w))
        .collect()
}

/// Whether a DaemonSet runs the node plugin of `driver`, and how that was seen. Matching, in
/// order: the registrar's registration path; the name in a container's args or env; in a
/// hostPath; the CSIDriver's install label; a word of the name in the DaemonSet's name or
/// images (the only thing a `kubectl get ds` table shows).
pub fn daemonset_serves(
    ds: &DaemonSet,
    driver: &str,
    csi_driver: Option<&k8s_openapi::api::storage::v1::CSIDriver>,
) -> Option<MatchedBy> {
    let spec = ds.spec.as_ref().and_then(|s| s.template.spec.as_ref());
    if let Some(spec) = spec {
        let dirs = registration_dirs(spec);
        if dirs.iter().any(|d| d == driver) {
            return Some(MatchedBy::RegistrationPath);
        }
        let in_args = spec
            .containers
            .iter()
            .chain(spec.init_containers.iter().flatten())
            .flat_map(container_words)
            .any(|w| has_token(&w, driver));
        if in_args {
            return Some(MatchedBy::ContainerArgs);
        }
        let in_host_path = spec
            .volumes
            .iter()
            .flatten()
            .filter_map(|v: &Volume| v.host_path.as_ref())
            .any(|h| has_token(&h.path, driver));
        if in_host_path {
            return Some(MatchedBy::HostPath);
        }
    }
    if let Some(cd) = csi_driver {
        const KEYS: &[&str] = &["app.kubernetes.io/instance", "app.kubernetes.io/part-of"];
        let labels_of = |m: &k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta| {
            m.labels.clone().unwrap_or_default()
        };
        let (a, b) = (labels_of(&cd.metadata), labels_of(&ds.metadata));
        let tmpl = ds
            .spec
            .as_ref()
            .and_then(|s| s.template.metadata.as_ref())
            .map(labels_of)
            .unwrap_or_default();
        if KEYS.iter().any(|k| {
            a.get(*k)
                .is_some_and(|v| b.get(*k) == Some(v) || tmpl.get(*k) == Some(v))
        }) {
            return Some(MatchedBy::InstallLabel);
        }
    }
    // A DaemonSet whose template registers another driver is not this one's, whatever its name.
    if spec.is_some_and(|s| !registration_dirs(s).is_empty()) {
        return None;
    }
    let name = ds
        .metadata
        .name
        .as_deref()
        .unwrap_or("")
        .to_ascii_lowercase();
    let images: Vec<String> = spec
        .into_iter()
        .flat_map(|s| s.containers.iter())
        .filter_map(|c| c.image.as_ref().map(|i| i.to_ascii_lowercase()))
        .collect();
    let words = name_words(driver);
    let looks_csi = name.contains("csi") || name.contains("plugin") || name.contains("node");
    if looks_csi
        && words
            .iter()
            .any(|w| name.contains(w) || images.iter().any(|i| i.contains(w)))
    {
        return Some(MatchedBy::Name);
    }
    None
}

/// A pod as far as its health matters: from its status, or from a `kubectl get pods` table
/// row (which gives the totals only).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PodHealth {
    pub namespace: Option<String>,
    pub name: String,
    pub node: Option<String>,
    /// `Running`, `Pending`, ... (`None` when a table's STATUS does not say).
    pub phase: Option<String>,
    /// What kubectl's STATUS column would say (`CrashLoopBackOff`, `ContainerCreating`,
    /// `Terminating`), when it differs from the phase.
    pub reason: Option<String>,
    /// (ready containers, containers).
    pub ready: Option<(u32, u32)>,
    /// Restarts of all its containers.
    pub restarts: Option<u32>,
    /// Per container: `name: ready|not ready, N restarts, waiting: Reason, last terminated:
    /// Reason (exit N)` (empty for a table row).
    pub containers: Vec<String>,
    /// Rebuilt from a `kubectl get pods` table.
    pub from_table: bool,
}

impl PodHealth {
    pub fn of(pod: &Pod) -> PodHealth {
        let ann = pod.metadata.annotations.clone().unwrap_or_default();
        let mut h = PodHealth {
            namespace: pod.metadata.namespace.clone(),
            name: pod.metadata.name.clone().unwrap_or_default(),
            node: pod.spec.as_ref().and_then(|s| s.node_name.clone()),
            phase: pod.status.as_ref().and_then(|s| s.phase.clone()),
            from_table: ann.contains_key(TABLE_SOURCE),
            ..PodHealth::default()
        };
        if h.from_table {
            h.reason = ann
                .get(TABLE_STATUS)
                .filter(|s| Some(s.as_str()) != h.phase.as_deref())
                .cloned();
            h.ready = ann.get(TABLE_READY).and_then(|r| {
                let (a, b) = r.split_once('/')?;
                Some((a.trim().parse().ok()?, b.trim().parse().ok()?))
            });
            h.restarts = ann
                .get(TABLE_RESTARTS)
                .and_then(|r| r.split_whitespace().next()?.parse().ok());
            return h;
        }
        let Some(st) = &pod.status else {
            return h;
        };
        let cs: Vec<_> = st.container_statuses.iter().flatten().collect();
        if !cs.is_empty() {
            h.ready = Some((
                cs.iter().filter(|c| c.ready).count() as u32,
                cs.len() as u32,
            ));
            h.restarts = Some(cs.iter().map(|c| c.restart_count.max(0) as u32).sum());
        }
        for c in st
            .init_container_statuses
            .iter()
            .flatten()
            .chain(cs.iter().copied())
        {
            let mut s = format!(
                "{}: {}, {} restart(s)",
                c.name,
                if c.ready { "ready" } else { "not ready" },
                c.restart_count
            );
            if let Some(w) = c.state.as_ref().and_then(|s| s.waiting.as_ref()) {
                let why = w.reason.clone().unwrap_or_else(|| "waiting".into());
                s.push_str(&format!(", waiting: {why}"));
                // The first waiting reason, unless a later one says more than the usual wait.
                if h.reason.as_deref().is_none_or(|r| r == "ContainerCreating") {
                    h.reason = Some(why);
                }
            }
            if let Some(t) = c.last_state.as_ref().and_then(|s| s.terminated.as_ref()) {
                s.push_str(&format!(
                    ", last terminated: {} (exit {})",
                    t.reason.clone().unwrap_or_else(|| "?".into()),
                    t.exit_code
                ));
            }
            h.containers.push(s);
        }
        if pod.metadata.deletion_timestamp.is_some() {
            h.reason = Some("Terminating".into());
        }
        h
    }

    /// `Running, 2/2 ready, 0 restarts`, `CrashLoopBackOff, 1/2 ready, 110 restarts`.
    pub fn summary(&self) -> String {
        let mut parts = Vec::new();
        match (&self.phase, &self.reason) {
            (Some(p), Some(r)) => parts.push(format!("{p} ({r})")),
            (Some(p), None) => parts.push(p.clone()),
            (None, Some(r)) => parts.push(r.clone()),
            (None, None) => parts.push("phase unknown".into()),
        }
        if let Some((r, t)) = self.ready {
            parts.push(format!("{r}/{t} ready"));
        }
        if let Some(n) = self.restarts {
            parts.push(format!("{n} restart(s)"));
        }
        parts.join(", ")
    }
}

/// One CSI driver's node plugin as it stands on the pod's node.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct NodePlugin {
    pub driver: String,
    /// The pod's volumes that need it.
    pub volumes: Vec<String>,
    /// `namespace/name` of the DaemonSet, when one serves the driver.
    pub daemonset: Option<String>,
    pub matched_by: Option<MatchedBy>,
    /// `status.desiredNumberScheduled` and `status.numberReady` of the DaemonSet.
    pub desired: Option<i32>,
    pub ready: Option<i32>,
    /// `status.numberUnavailable` / `numberMisscheduled` as the DaemonSet reports them.
    pub unavailable: Option<i32>,
    /// The node the pod is on.
    pub node: Option<String>,
    /// The DaemonSet's pods on that node (one, normally).
    pub pods: Vec<PodHealth>,
    /// When none is there: what in the DaemonSet's pod template keeps it off the node
    /// (`nodeSelector kubernetes.io/os=windows: the node has kubernetes.io/os=linux`, `taint
    /// storage=ssd:NoSchedule not tolerated`). Empty when nothing in the template does (the
    /// pod is then missing for another reason: deleted, not created yet, or the pods on the
    /// node were not read).
    pub off_node_because: Vec<String>,
    /// Whether the node's CSINode lists the driver (`None`: no CSINode read).
    pub registered: Option<bool>,
    /// The CSINode's allocatable volume count for the driver, when it has one.
    pub allocatable: Option<i32>,
}

/// For each CSI driver of the pod's volumes: the DaemonSet that runs its node plugin (the
/// strongest match; `None` when no DaemonSet read serves it), its counts, its pods on the
/// pod's node and, when it has none there, why its template keeps it off that node.
pub fn node_plugins(case: &Case) -> Vec<NodePlugin> {
    let uses = pod_csi_drivers(case);
    let mut by_driver: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for u in &uses {
        by_driver
            .entry(u.driver.clone())
            .or_default()
            .push(u.volume.clone());
    }
    let node_name = case.node_name().map(str::to_string);
    let node = case.node();
    let csinode = node_name.as_deref().and_then(|n| {
        case.csi_nodes
            .iter()
            .find(|c| c.metadata.name.as_deref() == Some(n))
    });
    let mut out = Vec::new();
    for (driver, mut volumes) in by_driver {
        volumes.sort();
        volumes.dedup();
        let cd = case
            .csi_drivers
            .iter()
            .find(|d| d.metadata.name.as_deref() == Some(driver.as_str()));
        let best = case
            .daemonsets
            .iter()
            .filter_map(|ds| daemonset_serves(ds, &driver, cd).map(|m| (m, ds)))
            .min_by_key(|(m, ds)| (*m, ds.metadata.name.clone()));
        let mut p = NodePlugin {
            driver: driver.clone(),
            volumes,
            node: node_name.clone(),
            ..NodePlugin::default()
        };
        if let Some(cn) = csinode {
            let d = cn.spec.drivers.iter().find(|d| d.name == driver);
            p.registered = Some(d.is_some());
            p.allocatable = d.and_then(|d| d.allocatable.as_ref()?.count);
        }
        if let Some((m, ds)) = best {
            let ns = ds.metadata.namespace.clone().unwrap_or_default();
            let name = ds.metadata.name.clone().unwrap_or_default();
            p.daemonset = Some(format!("{ns}/{name}"));
            p.matched_by = Some(m);
            let st = ds.status.as_ref();
            p.desired = st.map(|s| s.desired_number_scheduled);
            p.ready = st.map(|s| s.number_ready);
            p.unavailable = st.and_then(|s| s.number_unavailable);
            p.pods = case
                .other_pods
                .iter()
                .filter(|pod| owned_by(pod, ds))
                .filter(|pod| {
                    node_name.is_some()
                        && pod.spec.as_ref().and_then(|s| s.node_name.as_ref())
                            == node_name.as_ref()
                })
                .map(PodHealth::of)
                .collect();
            if p.pods.is_empty() {
                if let (Some(n), Some(spec)) = (
                    node,
                    ds.spec.as_ref().and_then(|s| s.template.spec.as_ref()),
                ) {
                    p.off_node_because = keeps_off(spec, n);
                }
            }
        }
        out.push(p);
    }
    out
}

/// Whether the pod belongs to the DaemonSet: its controller reference, or (a pod rebuilt from
/// a table, which has none) its name `<daemonset>-<5 characters>` in the same namespace.
pub fn owned_by(pod: &Pod, ds: &DaemonSet) -> bool {
    let same_ns = pod.metadata.namespace.is_none()
        || ds.metadata.namespace.is_none()
        || pod.metadata.namespace == ds.metadata.namespace;
    let ds_name = ds.metadata.name.as_deref().unwrap_or("");
    if let Some(refs) = &pod.metadata.owner_references {
        return same_ns
            && refs.iter().any(|r| {
                r.kind == "DaemonSet"
                    && r.name == ds_name
                    && (ds.metadata.uid.is_none() || ds.metadata.uid.as_deref() == Some(&r.uid))
            });
    }
    let name = pod.metadata.name.as_deref().unwrap_or("");
    same_ns
        && name
            .strip_prefix(ds_name)
            .and_then(|r| r.strip_prefix('-'))
            .is_some_and(|s| s.len() == 5 && s.chars().all(|c| c.is_ascii_alphanumeric()))
}

/// The tolerations the DaemonSet controller adds to every daemon pod
/// (kubernetes pkg/controller/daemon/util/daemonset_util.go, AddOrUpdateDaemonPodTolerations),
/// so a node tainted with these still gets one.
const DAEMON_TOLERATED: &[(&str, &str)] = &[
    ("node.kubernetes.io/not-ready", "NoExecute"),
    ("node.kubernetes.io/unreachable", "NoExecute"),
    ("node.kubernetes.io/disk-pressure", "NoSchedule"),
    ("node.kubernetes.io/memory-pressure", "NoSchedule"),
    ("node.kubernetes.io/pid-pressure", "NoSchedule"),
    ("node.kubernetes.io/unschedulable", "NoSchedule"),
];

fn tolerates(t: &Toleration, taint: &Taint) -> bool {
    if t.effect
        .as_deref()
        .is_some_and(|e| !e.is_empty() && e != taint.effect)
    {
        return false;
    }
    match t.operator.as_deref() {
        Some("Exists") => t
            .key
            .as_deref()
            .is_none_or(|k| k.is_empty() || k == taint.key),
        _ => {
            t.key.as_deref() == Some(taint.key.as_str())
                && t.value.as_deref().unwrap_or("") == taint.value.as_deref().unwrap_or("")
        }
    }
}

fn requirement_holds(r: &NodeSelectorRequirement, value: Option<&str>) -> bool {
    let values = r.values.clone().unwrap_or_default();
    match r.operator.as_str() {
        "In" => value.is_some_and(|v| values.iter().any(|x| x == v)),
        "NotIn" => value.is_none_or(|v| !values.iter().any(|x| x == v)),
        "Exists" => value.is_some(),
        "DoesNotExist" => value.is_none(),
        "Gt" | "Lt" => {
            let (Some(v), Some(x)) = (
                value.and_then(|v| v.parse::<i64>().ok()),
                values.first().and_then(|x| x.parse::<i64>().ok()),
            ) else {
                return false;
            };
            if r.operator == "Gt" {
                v > x
            } else {
                v < x
            }
        }
        _ => false,
    }
}

fn term_holds(t: &NodeSelectorTerm, node: &Node) -> bool {
    let labels = node.metadata.labels.clone().unwrap_or_default();
    let name = node.metadata.name.clone();
    let exprs = t.match_expressions.iter().flatten();
    let fields = t.match_fields.iter().flatten();
    let any = t.match_expressions.as_ref().is_some_and(|e| !e.is_empty())
        || t.match_fields.as_ref().is_some_and(|f| !f.is_empty());
    // An empty term matches no node (k8s.io/component-helpers/scheduling/corev1/nodeaffinity).
    any && exprs
        .clone()
        .all(|r| requirement_holds(r, labels.get(&r.key).map(String::as_str)))
        && fields.clone().all(|r| {
            let v = if r.key == "metadata.name" {
                name.as_deref()
            } else {
                None
            };
            requirement_holds(r, v)
        })
}

/// What in a pod template keeps its pods off `node`: nodeSelector labels the node lacks, a
/// required node affinity no term of which holds, NoSchedule/NoExecute taints no toleration
/// covers (with the DaemonSet controller's own tolerations). Empty: nothing in the template.
pub fn keeps_off(spec: &PodSpec, node: &Node) -> Vec<String> {
    let mut out = Vec::new();
    let labels = node.metadata.labels.clone().unwrap_or_default();
    for (k, v) in spec.node_selector.iter().flatten() {
        match labels.get(k) {
            Some(have) if have == v => {}
            Some(have) => out.push(format!("nodeSelector {k}={v}: the node has {k}={have}")),
            None => out.push(format!("nodeSelector {k}={v}: the node has no label {k}")),
        }
    }
    if let Some(req) = spec
        .affinity
        .as_ref()
        .and_then(|a| a.node_affinity.as_ref())
        .and_then(|n| {
            n.required_during_scheduling_ignored_during_execution
                .as_ref()
        })
    {
        if !req.node_selector_terms.iter().any(|t| term_holds(t, node)) {
            let terms: Vec<String> = req
                .node_selector_terms
                .iter()
                .map(|t| {
                    t.match_expressions
                        .iter()
                        .flatten()
                        .chain(t.match_fields.iter().flatten())
                        .map(|r| {
                            format!(
                                "{} {} {}",
                                r.key,
                                r.operator,
                                r.values.clone().unwrap_or_default().join(",")
                            )
                            .trim_end()
                            .to_string()
                        })
                        .collect::<Vec<_>>()
                        .join(" and ")
                })
                .collect();
            out.push(format!(
                "required node affinity ({}) does not match the node",
                terms.join(" or ")
            ));
        }
    }
    let tolerations = spec.tolerations.clone().unwrap_or_default();
    for taint in node
        .spec
        .as_ref()
        .and_then(|s| s.taints.as_ref())
        .into_iter()
        .flatten()
    {
        if !matches!(taint.effect.as_str(), "NoSchedule" | "NoExecute") {
            continue;
        }
        let by_controller = DAEMON_TOLERATED
            .iter()
            .any(|(k, e)| *k == taint.key && *e == taint.effect)
            || (taint.key == "node.kubernetes.io/network-unavailable"
                && taint.effect == "NoSchedule"
                && spec.host_network == Some(true));
        if by_controller || tolerations.iter().any(|t| tolerates(t, taint)) {
            continue;
        }
        let kv = match taint.value.as_deref().filter(|v| !v.is_empty()) {
            Some(v) => format!("{}={v}", taint.key),
            None => taint.key.clone(),
        };
        out.push(format!("taint {kv}:{} not tolerated", taint.effect));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn ds(v: serde_json::Value) -> DaemonSet {
        serde_json::from_value(v).unwrap()
    }

    /// aws-ebs-csi-driver's ebs-csi-node (deploy/kubernetes/base/node.yaml), cut to what matters.
    fn ebs_node() -> DaemonSet {
        ds(json!({
            "metadata": {"name": "ebs-csi-node", "namespace": "kube-system", "uid": "u-ds"},
            "spec": {"selector": {"matchLabels": {"app": "ebs-csi-node"}}, "template": {
                "metadata": {"labels": {"app": "ebs-csi-node"}},
                "spec": {
                    "nodeSelector": {"kubernetes.io/os": "linux"},
                    "tolerations": [{"operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300}],
                    "containers": [
                        {"name": "ebs-plugin", "image": "public.ecr.aws/ebs-csi-driver/aws-ebs-csi-driver:v1.37.0",
                         "args": ["node", "--endpoint=$(CSI_ENDPOINT)"],
                         "env": [{"name": "CSI_ENDPOINT", "value": "unix:/csi/csi.sock"}]},
                        {"name": "node-driver-registrar", "image": "public.ecr.aws/csi-components/csi-node-driver-registrar:v2.12.0",
                         "args": ["--csi-address=$(ADDRESS)", "--kubelet-registration-path=$(DRIVER_REG_SOCK_PATH)"],
                         "env": [{"name": "ADDRESS", "value": "/csi/csi.sock"},
                                 {"name": "DRIVER_REG_SOCK_PATH", "value": "/var/lib/kubelet/plugins/ebs.csi.aws.com/csi.sock"}]}
                    ],
                    "volumes": [{"name": "plugin-dir", "hostPath": {"path": "/var/lib/kubelet/plugins/ebs.csi.aws.com/", "type": "DirectoryOrCreate"}}]
                }}},
            "status": {"desiredNumberScheduled": 3, "currentNumberScheduled": 2, "numberReady": 2, "numberMisscheduled": 0, "numberUnavailable": 1}
        }))
    }

    #[test]
    fn the_registration_path_names_the_driver_after_env_expansion() {
        let d = ebs_node();
        assert_eq!(
            registration_dirs(d.spec.as_ref().unwrap().template.spec.as_ref().unwrap()),
            vec!["ebs.csi.aws.com"]
        );
        assert_eq!(
            daemonset_serves(&d, "ebs.csi.aws.com", None),
            Some(MatchedBy::RegistrationPath)
        );
        assert_eq!(daemonset_serves(&d, "efs.csi.aws.com", None), None);
    }

    #[test]
    fn a_registration_dir_that_is_not_the_driver_falls_back_to_the_args() {
        // csi-driver-nfs before v4: registered as csi-nfsplugin, named by --drivername.
        let d = ds(json!({
            "metadata": {"name": "csi-nfs-node", "namespace": "kube-system"},
            "spec": {"selector": {}, "template": {"spec": {"containers": [
                {"name": "node-driver-registrar", "args": ["--kubelet-registration-path=/var/lib/kubelet/plugins/csi-nfsplugin/csi.sock"]},
                {"name": "nfs", "args": ["--nodeid=$(NODE_ID)", "--drivername=nfs.csi.k8s.io"]}
            ]}}}
        }));
        assert_eq!(
            daemonset_serves(&d, "nfs.csi.k8s.io", None),
            Some(MatchedBy::ContainerArgs)
        );
        // `nfs.csi.k8s.io` is no token of `xnfs.csi.k8s.io.example`.
        assert!(!has_token("--drivername=xnfs.csi.k8s.io", "nfs.csi.k8s.io"));
        assert!(has_token(
            "/plugins/nfs.csi.k8s.io/csi.sock",
            "nfs.csi.k8s.io"
        ));
    }

    #[test]
    fn a_table_daemonset_is_matched_by_its_name_only() {
        let d = ds(json!({"metadata": {"name": "csi-azuredisk-node", "namespace": "kube-system"}}));
        assert_eq!(
            daemonset_serves(&d, "disk.csi.azure.com", None),
            Some(MatchedBy::Name)
        );
        let d = ds(json!({"metadata": {"name": "kube-proxy", "namespace": "kube-system"}}));
        assert_eq!(daemonset_serves(&d, "disk.csi.azure.com", None), None);
    }

    fn node(v: serde_json::Value) -> Node {
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn a_taint_or_a_selector_keeps_the_plugin_off_the_node() {
        let d = ebs_node();
        let spec = d.spec.as_ref().unwrap().template.spec.clone().unwrap();
        let n = node(
            json!({"metadata": {"name": "n1", "labels": {"kubernetes.io/os": "linux"}},
            "spec": {"taints": [
                {"key": "dedicated", "value": "gpu", "effect": "NoSchedule"},
                {"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"},
                {"key": "node.kubernetes.io/out-of-service", "value": "nodeshutdown", "effect": "NoExecute"},
                {"key": "soft", "effect": "PreferNoSchedule"}
            ]}}),
        );
        // The plugin tolerates every NoExecute taint; the controller adds unschedulable.
        assert_eq!(
            keeps_off(&spec, &n),
            vec!["taint dedicated=gpu:NoSchedule not tolerated"]
        );
        let win =
            node(json!({"metadata": {"name": "w1", "labels": {"kubernetes.io/os": "windows"}}}));
        assert_eq!(
            keeps_off(&spec, &win),
            vec!["nodeSelector kubernetes.io/os=linux: the node has kubernetes.io/os=windows"]
        );
    }

    #[test]
    fn required_node_affinity_is_judged_term_by_term() {
        let spec: PodSpec = serde_json::from_value(json!({"containers": [], "affinity": {"nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
                {"matchExpressions": [{"key": "eks.amazonaws.com/compute-type", "operator": "NotIn", "values": ["fargate"]}]},
            ]}}}})).unwrap();
        let fargate = node(
            json!({"metadata": {"name": "f", "labels": {"eks.amazonaws.com/compute-type": "fargate"}}}),
        );
        assert_eq!(
            keeps_off(&spec, &fargate),
            vec!["required node affinity (eks.amazonaws.com/compute-type NotIn fargate) does not match the node"]
        );
        let ec2 = node(json!({"metadata": {"name": "e", "labels": {}}}));
        assert!(keeps_off(&spec, &ec2).is_empty());
    }

    fn case_with_ebs(pods: Vec<serde_json::Value>) -> Case {
        let pod: Pod = serde_json::from_value(json!({
            "metadata": {"name": "web-0", "namespace": "shop", "uid": "p-1"},
            "spec": {"nodeName": "n1", "containers": [], "volumes": [
                {"name": "data", "persistentVolumeClaim": {"claimName": "data-web-0"}},
                {"name": "old", "awsElasticBlockStore": {"volumeID": "vol-9"}}
            ]}
        }))
        .unwrap();
        Case {
            pod: Some(pod),
            pvcs: vec![serde_json::from_value(json!({"metadata": {"name": "data-web-0", "namespace": "shop"}, "spec": {"volumeName": "pvc-1"}})).unwrap()],
            pvs: vec![serde_json::from_value(json!({"metadata": {"name": "pvc-1"}, "spec": {"csi": {"driver": "ebs.csi.aws.com", "volumeHandle": "vol-0abc"}}})).unwrap()],
            nodes: vec![node(json!({"metadata": {"name": "n1", "labels": {"kubernetes.io/os": "linux"}}}))],
            daemonsets: vec![ebs_node()],
            other_pods: pods.into_iter().map(|p| serde_json::from_value(p).unwrap()).collect(),
            ..Case::default()
        }
    }

    #[test]
    fn the_plugin_pod_on_the_node_is_found_by_its_owner() {
        let c = case_with_ebs(vec![json!({
            "metadata": {"name": "ebs-csi-node-x7k2p", "namespace": "kube-system",
                "ownerReferences": [{"apiVersion": "apps/v1", "kind": "DaemonSet", "name": "ebs-csi-node", "uid": "u-ds"}]},
            "spec": {"nodeName": "n1", "containers": []},
            "status": {"phase": "Running", "containerStatuses": [
                {"name": "ebs-plugin", "ready": false, "restartCount": 7, "image": "", "imageID": "",
                 "state": {"waiting": {"reason": "CrashLoopBackOff"}},
                 "lastState": {"terminated": {"reason": "Error", "exitCode": 1}}},
                {"name": "node-driver-registrar", "ready": true, "restartCount": 0, "image": "", "imageID": "", "state": {"running": {}}}
            ]}
        })]);
        let uses = pod_csi_drivers(&c);
        assert_eq!(uses.len(), 2, "{uses:?}");
        assert_eq!(uses[0].volume_handle.as_deref(), Some("vol-0abc"));
        assert!(uses[1].via.contains("CSI migration"), "{uses:?}");
        let p = node_plugins(&c);
        assert_eq!(p.len(), 1);
        assert_eq!(p[0].volumes, vec!["data", "old"]);
        assert_eq!(p[0].daemonset.as_deref(), Some("kube-system/ebs-csi-node"));
        assert_eq!((p[0].desired, p[0].ready), (Some(3), Some(2)));
        assert_eq!(p[0].pods.len(), 1);
        assert_eq!(
            p[0].pods[0].summary(),
            "Running (CrashLoopBackOff), 1/2 ready, 7 restart(s)"
        );
        assert!(p[0].pods[0].containers[0].contains("last terminated: Error (exit 1)"));
    }

    #[test]
    fn with_no_plugin_pod_on_the_node_the_template_says_why() {
        let mut c = case_with_ebs(vec![]);
        c.nodes = vec![node(
            json!({"metadata": {"name": "n1", "labels": {"kubernetes.io/os": "linux"}},
            "spec": {"taints": [{"key": "storage", "value": "none", "effect": "NoSchedule"}]}}),
        )];
        let p = node_plugins(&c);
        assert!(p[0].pods.is_empty());
        assert_eq!(
            p[0].off_node_because,
            vec!["taint storage=none:NoSchedule not tolerated"]
        );
    }

    #[test]
    fn a_table_row_is_read_from_its_annotations() {
        let c = case_with_ebs(vec![json!({
            "metadata": {"name": "ebs-csi-node-x7k2p", "namespace": "kube-system", "annotations": {
                TABLE_SOURCE: "kubectl get pods", TABLE_READY: "2/3", TABLE_STATUS: "CrashLoopBackOff", TABLE_RESTARTS: "110 (2m ago)"}},
            "spec": {"nodeName": "n1", "containers": []}
        })]);
        let p = node_plugins(&c);
        assert_eq!(
            p[0].pods[0].summary(),
            "CrashLoopBackOff, 2/3 ready, 110 restart(s)"
        );
    }
}
