//! The cluster's evidence around a stuck pod, beyond its volume chain (issue 18): the CSI node
//! plugins' DaemonSets and their pods on the pod's node, those pods' recent log lines about
//! the pod's volumes, the pod's owners (ReplicaSet → Deployment, StatefulSet) and their rollout
//! strategy, and the kubelet's own journal lines about the pod through the node log query.
//!
//! Reads only (a SelfSubjectAccessReview is a POST that asks and stores nothing), each bounded
//! by `--request-timeout`, in the waves of `fill_from_pod`: what needs only the pod goes with
//! wave 2 (DaemonSets, the node's daemon pods, the pod's owner, what may be read), the
//! Deployment above a ReplicaSet with wave 3, and the log reads, which need the PVs, in one
//! last wave. Before reading a log it asks (SelfSubjectAccessReview) whether it may, so a read
//! that needs a right the user lacks is said, with the right, instead of being tried or
//! skipped in silence. Whatever evidence cannot be had is a line in `case.unavailable`; it
//! never fails the diagnosis.

use std::collections::{BTreeMap, BTreeSet};

use futures::future::join_all;
use futures::AsyncReadExt;
use k8s_openapi::api::apps::v1::{DaemonSet, Deployment, ReplicaSet, StatefulSet};
use k8s_openapi::api::authorization::v1::{
    ResourceAttributes, SelfSubjectAccessReview, SelfSubjectAccessReviewSpec,
};
use k8s_openapi::api::core::v1::Pod;
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use kube::api::{ListParams, LogParams, PostParams};
use kube::Api;

use super::client::Cluster;
use super::errors::Access;
use crate::model::cluster::{node_plugins, pod_csi_drivers, registration_dirs};
use crate::model::{Case, PluginLogLine, Workload};

/// Log lines asked of each node plugin container (the newest), and at most this many bytes:
/// a plugin retries a failing mount every two minutes or so, so its recent lines hold it.
pub const PLUGIN_TAIL_LINES: i64 = 2000;
pub const PLUGIN_LIMIT_BYTES: i64 = 2 << 20;
/// How far back logs are read (the node probe reads kubelet's journal as far back).
pub const LOG_SINCE_SECONDS: i64 = 2 * 3600;
/// A previous (crashed) container's lines asked for: why it stopped is at its end.
pub const PREVIOUS_TAIL_LINES: i64 = 200;
/// The kubelet's journal lines asked of the node log query, and the bytes read of its answer
/// (it has no byte limit of its own).
pub const KUBELET_TAIL_LINES: usize = 2000;
pub const KUBELET_MAX_BYTES: u64 = 4 << 20;
/// Plugin lines kept per container, the newest.
pub const PLUGIN_LINES_KEPT: usize = 500;

/// May a read be done, as a SelfSubjectAccessReview answered it.
#[derive(Debug, Clone, PartialEq)]
pub enum May {
    Yes,
    /// Refused; the authorizer's reason when it gave one.
    No(Option<String>),
    /// The review itself could not be asked (an old or locked-down API server): try the read.
    Unknown(String),
}

/// What the first evidence reads found (they need only the pod).
#[derive(Default)]
pub struct Around {
    daemonsets: Vec<DaemonSet>,
    /// Daemon pods on the pod's node (owned by a DaemonSet).
    node_pods: Vec<Pod>,
    workloads: Vec<Workload>,
    /// `get pods/log` by namespace (`""`: every namespace).
    logs_may: BTreeMap<String, May>,
    /// `get nodes/proxy` on the pod's node.
    node_proxy_may: Option<May>,
    unavailable: Vec<String>,
    inputs: Vec<String>,
}

/// Whether a DaemonSet may run a CSI node plugin (kept from the list; the driver is matched
/// later, when the PVs are known): a registrar, a hostPath under kubelet's plugins, or `csi`
/// in its name or images.
fn could_be_node_plugin(ds: &DaemonSet) -> bool {
    let name = ds.metadata.name.as_deref().unwrap_or("");
    let Some(spec) = ds.spec.as_ref().and_then(|s| s.template.spec.as_ref()) else {
        return name.contains("csi");
    };
    !registration_dirs(spec).is_empty()
        || spec
            .volumes
            .iter()
            .flatten()
            .filter_map(|v| v.host_path.as_ref())
            .any(|h| h.path.contains("/plugins") || h.path.contains("csi"))
        || name.contains("csi")
        || spec
            .containers
            .iter()
            .any(|c| c.image.as_deref().is_some_and(|i| i.contains("csi")))
}

fn owned_by_daemonset(p: &Pod) -> bool {
    p.metadata
        .owner_references
        .iter()
        .flatten()
        .any(|r| r.kind == "DaemonSet")
}

fn int_or_string(v: &IntOrString) -> String {
    match v {
        IntOrString::Int(i) => i.to_string(),
        IntOrString::String(s) => s.clone(),
    }
}

/// The evidence line for a read refused with 403.
fn refused(what: &str, access: Access<'_>, verb: &str, role: &str) -> String {
    format!("{what}: not allowed ({}); {role}", access.describe(verb))
}

const READER: &str = "the ClusterRole volmnt-reader in deploy/rbac.yaml grants it";

impl Cluster {
    /// Ask whether a read may be done. Never fails: a review that cannot be asked is `Unknown`.
    async fn may(&self, attrs: ResourceAttributes) -> May {
        let review = SelfSubjectAccessReview {
            spec: SelfSubjectAccessReviewSpec {
                resource_attributes: Some(attrs),
                ..Default::default()
            },
            ..Default::default()
        };
        let api: Api<SelfSubjectAccessReview> = Api::all(self.client.clone());
        let pp = PostParams::default();
        match tokio::time::timeout(self.timeout, api.create(&pp, &review)).await {
            Ok(Ok(r)) => match r.status {
                Some(s) if s.allowed => May::Yes,
                Some(s) => May::No(s.reason.filter(|r| !r.is_empty())),
                None => {
                    May::Unknown("the SelfSubjectAccessReview came back without a status".into())
                }
            },
            Ok(Err(kube::Error::Api(s))) => May::Unknown(format!(
                "SelfSubjectAccessReview not answered: {} ({})",
                s.message, s.code
            )),
            Ok(Err(e)) => May::Unknown(format!("SelfSubjectAccessReview failed: {e}")),
            Err(_) => May::Unknown(format!(
                "SelfSubjectAccessReview: no answer within {:?}",
                self.timeout
            )),
        }
    }

    /// A GET whose 403 is evidence missing (said in `unavailable`), not a partial result.
    async fn evidence_get<K>(
        &self,
        api: Api<K>,
        name: &str,
        access: Access<'_>,
        unavailable: &mut Vec<String>,
    ) -> Option<K>
    where
        K: kube::Resource + Clone + serde::de::DeserializeOwned + std::fmt::Debug,
    {
        let what = match access.namespace {
            Some(ns) => format!("{} {ns}/{name}", access.resource),
            None => format!("{} {name}", access.resource),
        };
        match tokio::time::timeout(self.timeout, api.get(name)).await {
            Ok(Ok(o)) => Some(o),
            Ok(Err(kube::Error::Api(s))) if s.code == 403 => {
                unavailable.push(refused(&what, access, "get", READER));
                None
            }
            Ok(Err(kube::Error::Api(s))) if s.code == 404 => {
                unavailable.push(format!(
                    "{what}: not found (the pod's owner reference names it)"
                ));
                None
            }
            Ok(Err(e)) => {
                unavailable.push(format!("{what}: {}", short_error(&e)));
                None
            }
            Err(_) => {
                unavailable.push(format!("{what}: no answer within {:?}", self.timeout));
                None
            }
        }
    }

    /// A paginated LIST, filtered page by page, whose refusal is evidence missing.
    async fn evidence_list<K>(
        &self,
        api: Api<K>,
        params: ListParams,
        access: Access<'_>,
        what: &str,
        keep: impl FnMut(&K) -> bool,
        unavailable: &mut Vec<String>,
    ) -> Option<Vec<K>>
    where
        K: kube::Resource + Clone + serde::de::DeserializeOwned + std::fmt::Debug,
    {
        // Not `list`: that records a 403 as a refused read, a partial result.
        match self.list_quiet(api, params, keep).await {
            Ok(v) => Some(v),
            Err(ListFailure::Forbidden) => {
                unavailable.push(refused(what, access, "list", READER));
                None
            }
            Err(ListFailure::Other(m)) => {
                unavailable.push(format!("{what}: {m}"));
                None
            }
        }
    }

    async fn list_quiet<K>(
        &self,
        api: Api<K>,
        params: ListParams,
        mut keep: impl FnMut(&K) -> bool,
    ) -> Result<Vec<K>, ListFailure>
    where
        K: kube::Resource + Clone + serde::de::DeserializeOwned + std::fmt::Debug,
    {
        let mut out = Vec::new();
        let mut params = params.limit(super::reads::PAGE);
        loop {
            let page = match tokio::time::timeout(self.timeout, api.list(&params)).await {
                Ok(Ok(p)) => p,
                Ok(Err(kube::Error::Api(s))) if s.code == 403 => {
                    return Err(ListFailure::Forbidden)
                }
                Ok(Err(e)) => return Err(ListFailure::Other(short_error(&e))),
                Err(_) => {
                    return Err(ListFailure::Other(format!(
                        "no answer within {:?}",
                        self.timeout
                    )))
                }
            };
            out.extend(page.items.into_iter().filter(|o| keep(o)));
            match page.metadata.continue_.filter(|c| !c.is_empty()) {
                Some(t) => params = params.continue_token(&t),
                None => return Ok(out),
            }
        }
    }

    /// The pod's owners up the chain, as far as their rollout matters: the controller
    /// reference, read (ReplicaSet, then its Deployment; StatefulSet; DaemonSet), or as the
    /// reference names it (a Job, a custom controller).
    async fn owners(&self, pod: &Pod, unavailable: &mut Vec<String>) -> Vec<Workload> {
        let ns = pod.metadata.namespace.clone().unwrap_or_default();
        let Some(owner) = pod
            .metadata
            .owner_references
            .iter()
            .flatten()
            .find(|r| r.controller == Some(true))
            .or_else(|| pod.metadata.owner_references.iter().flatten().next())
            .cloned()
        else {
            return Vec::new();
        };
        let c = self.client.clone();
        let base = Workload {
            kind: owner.kind.clone(),
            namespace: Some(ns.clone()),
            name: owner.name.clone(),
            ..Workload::default()
        };
        match owner.kind.as_str() {
            "ReplicaSet" => {
                let Some(rs) = self
                    .evidence_get(
                        Api::<ReplicaSet>::namespaced(c.clone(), &ns),
                        &owner.name,
                        Access::group_ns("replicasets", "apps", &ns),
                        unavailable,
                    )
                    .await
                else {
                    return vec![base];
                };
                let mut out = vec![Workload {
                    replicas: rs.spec.as_ref().and_then(|s| s.replicas),
                    ..base
                }];
                let dep = rs
                    .metadata
                    .owner_references
                    .iter()
                    .flatten()
                    .find(|r| r.kind == "Deployment")
                    .map(|r| r.name.clone());
                if let Some(dep) = dep {
                    let got = self
                        .evidence_get(
                            Api::<Deployment>::namespaced(c, &ns),
                            &dep,
                            Access::group_ns("deployments", "apps", &ns),
                            unavailable,
                        )
                        .await;
                    let spec = got.as_ref().and_then(|d| d.spec.as_ref());
                    let strategy = spec.and_then(|s| s.strategy.as_ref());
                    out.push(Workload {
                        kind: "Deployment".into(),
                        namespace: Some(ns.clone()),
                        name: dep,
                        // The API defaults the strategy to RollingUpdate with maxSurge 25%.
                        strategy: strategy.and_then(|s| s.type_.clone()),
                        replicas: spec.and_then(|s| s.replicas),
                        max_surge: strategy
                            .and_then(|s| s.rolling_update.as_ref())
                            .and_then(|r| r.max_surge.as_ref())
                            .map(int_or_string),
                    });
                }
                out
            }
            "StatefulSet" => {
                let got = self
                    .evidence_get(
                        Api::<StatefulSet>::namespaced(c, &ns),
                        &owner.name,
                        Access::group_ns("statefulsets", "apps", &ns),
                        unavailable,
                    )
                    .await;
                let spec = got.as_ref().and_then(|s| s.spec.as_ref());
                vec![Workload {
                    strategy: spec
                        .and_then(|s| s.update_strategy.as_ref())
                        .and_then(|u| u.type_.clone()),
                    replicas: spec.and_then(|s| s.replicas),
                    ..base
                }]
            }
            "DaemonSet" => {
                let got = self
                    .evidence_get(
                        Api::<DaemonSet>::namespaced(c, &ns),
                        &owner.name,
                        Access::group_ns("daemonsets", "apps", &ns),
                        unavailable,
                    )
                    .await;
                let u = got
                    .as_ref()
                    .and_then(|d| d.spec.as_ref())
                    .and_then(|s| s.update_strategy.as_ref());
                vec![Workload {
                    strategy: u.and_then(|u| u.type_.clone()),
                    max_surge: u
                        .and_then(|u| u.rolling_update.as_ref())
                        .and_then(|r| r.max_surge.as_ref())
                        .map(int_or_string),
                    ..base
                }]
            }
            _ => vec![base],
        }
    }

    /// Reads that need only the pod, run beside fill_from_pod's chains: the DaemonSets that
    /// may run CSI node plugins, the daemon pods on the pod's node, the pod's owners, and
    /// whether the user may read pods' logs and the node's log query.
    pub(super) async fn evidence_around(&self, pod: &Pod) -> Around {
        let c = self.client.clone();
        let node = pod.spec.as_ref().and_then(|s| s.node_name.clone());
        let mut un_ds = Vec::new();
        let mut un_pods = Vec::new();
        let mut un_owner = Vec::new();
        let daemonsets = self.evidence_list(
            Api::<DaemonSet>::all(c.clone()),
            ListParams::default(),
            Access::group_cluster("daemonsets", "apps"),
            "CSI node plugin DaemonSets",
            could_be_node_plugin,
            &mut un_ds,
        );
        let node_pods = async {
            match &node {
                Some(n) => {
                    self.evidence_list(
                        Api::<Pod>::all(c.clone()),
                        ListParams::default().fields(&format!("spec.nodeName={n}")),
                        Access::cluster("pods"),
                        &format!("daemon pods on node {n}"),
                        owned_by_daemonset,
                        &mut un_pods,
                    )
                    .await
                }
                None => None,
            }
        };
        let owners = self.owners(pod, &mut un_owner);
        // Without a node there is no node plugin pod whose log to read.
        let logs_any = async {
            match &node {
                Some(_) => {
                    self.may(ResourceAttributes {
                        verb: Some("get".into()),
                        resource: Some("pods".into()),
                        subresource: Some("log".into()),
                        ..Default::default()
                    })
                    .await
                }
                None => May::Unknown("the pod is on no node".into()),
            }
        };
        let node_proxy = async {
            match &node {
                Some(n) => Some(
                    self.may(ResourceAttributes {
                        verb: Some("get".into()),
                        resource: Some("nodes".into()),
                        subresource: Some("proxy".into()),
                        name: Some(n.clone()),
                        ..Default::default()
                    })
                    .await,
                ),
                None => None,
            }
        };
        let (daemonsets, node_pods, workloads, logs_any, node_proxy_may) =
            futures::join!(daemonsets, node_pods, owners, logs_any, node_proxy);
        let read_ds = daemonsets.is_some();
        let daemonsets = daemonsets.unwrap_or_default();
        let mut logs_may = BTreeMap::from([(String::new(), logs_any.clone())]);
        // Not allowed everywhere: perhaps in the plugins' own namespaces (a RoleBinding there).
        if matches!(logs_any, May::No(_)) {
            let namespaces: BTreeSet<String> = daemonsets
                .iter()
                .filter_map(|d| d.metadata.namespace.clone())
                .collect();
            let answers = join_all(namespaces.iter().map(|ns| async move {
                let m = self
                    .may(ResourceAttributes {
                        verb: Some("get".into()),
                        resource: Some("pods".into()),
                        subresource: Some("log".into()),
                        namespace: Some(ns.clone()),
                        ..Default::default()
                    })
                    .await;
                (ns.clone(), m)
            }))
            .await;
            logs_may.extend(answers);
        }
        let mut unavailable = un_ds;
        unavailable.extend(un_pods);
        unavailable.extend(un_owner);
        let mut inputs = Vec::new();
        if read_ds {
            inputs.push(format!(
                "live: {} DaemonSet(s) that may run CSI node plugins{}",
                daemonsets.len(),
                node_pods
                    .as_ref()
                    .zip(node.as_ref())
                    .map(|(p, n)| format!(", {} daemon pod(s) on node {n}", p.len()))
                    .unwrap_or_default()
            ));
        }
        if !workloads.is_empty() {
            let chain: Vec<String> = workloads
                .iter()
                .map(|w| {
                    let mut facts = Vec::new();
                    facts.extend(w.strategy.clone());
                    facts.extend(w.max_surge.as_ref().map(|m| format!("maxSurge {m}")));
                    facts.extend(w.replicas.map(|r| format!("{r} replica(s)")));
                    match facts.is_empty() {
                        true => format!("{} {}", w.kind, w.name),
                        false => format!("{} {} ({})", w.kind, w.name, facts.join(", ")),
                    }
                })
                .collect();
            inputs.push(format!(
                "live: the pod's owners: {}",
                chain.join(", owned by ")
            ));
        }
        Around {
            daemonsets,
            node_pods: node_pods.unwrap_or_default(),
            workloads,
            logs_may,
            node_proxy_may,
            unavailable,
            inputs,
        }
    }

    /// The last wave, with the case assembled (its claims and PVs known): keep the node
    /// plugins of the pod's drivers, read their containers' recent lines about the pod's
    /// volumes, and the kubelet's own lines about the pod through the node log query.
    pub(super) async fn evidence_logs(&self, case: &mut Case, around: Around) {
        let Around {
            daemonsets,
            node_pods,
            workloads,
            logs_may,
            node_proxy_may,
            unavailable,
            inputs,
        } = around;
        case.workloads = workloads;
        case.daemonsets = daemonsets;
        case.inputs.extend(inputs);
        // The daemon pods of the plugins' DaemonSets join the other pods; the rest (kube-proxy,
        // CNI) are not kept.
        let mut plugin_pods: Vec<Pod> = node_pods
            .into_iter()
            .filter(|p| {
                case.daemonsets
                    .iter()
                    .any(|d| crate::model::cluster::owned_by(p, d))
            })
            .collect();
        plugin_pods.retain(|p| {
            !case
                .other_pods
                .iter()
                .any(|o| o.metadata.uid.is_some() && o.metadata.uid == p.metadata.uid)
        });
        case.other_pods.extend(plugin_pods);
        for u in unavailable {
            case.note_unavailable(u);
        }
        let plugins = node_plugins(case);
        let uses = pod_csi_drivers(case);
        // What the plugins' and kubelet's lines about this pod's volumes name.
        let mut terms: BTreeSet<String> = BTreeSet::new();
        for u in &uses {
            terms.extend(u.volume_handle.clone());
            terms.extend(u.pv.clone());
        }
        terms.extend(case.pvs.iter().filter_map(|p| p.metadata.name.clone()));
        if let Some(uid) = case.pod.as_ref().and_then(|p| p.metadata.uid.clone()) {
            terms.insert(uid);
        }
        terms.retain(|t| t.len() >= 4);
        let terms: Vec<String> = terms.into_iter().collect();

        // (namespace, pod, container, previous)
        let mut reads: Vec<(String, String, String, bool)> = Vec::new();
        for p in &plugins {
            for h in &p.pods {
                let ns = h.namespace.clone().unwrap_or_default();
                let may = logs_may
                    .get(&ns)
                    .filter(|m| !matches!(m, May::Unknown(_)))
                    .or_else(|| logs_may.get(""))
                    .cloned()
                    .unwrap_or(May::Unknown("not asked".into()));
                if let May::No(reason) = &may {
                    case.note_unavailable(format!(
                            "node plugin logs of {ns}/{}: not allowed (get pods/log in namespace {ns}){}; the ClusterRole volmnt-reader in deploy/rbac.yaml grants it",
                            h.name,
                            reason.as_deref().map(|r| format!(": {r}")).unwrap_or_default()
                        ),
                    );
                    continue;
                }
                let Some(pod) = case.other_pods.iter().find(|o| {
                    o.metadata.name.as_deref() == Some(h.name.as_str())
                        && o.metadata.namespace.as_deref() == Some(ns.as_str())
                }) else {
                    continue;
                };
                let statuses = pod
                    .status
                    .as_ref()
                    .and_then(|s| s.container_statuses.clone());
                for ctr in pod.spec.iter().flat_map(|s| s.containers.iter()) {
                    let st = statuses.iter().flatten().find(|s| s.name == ctr.name);
                    let started = st.is_some_and(|s| {
                        s.state
                            .as_ref()
                            .is_some_and(|x| x.running.is_some() || x.terminated.is_some())
                    });
                    if started {
                        reads.push((ns.clone(), h.name.clone(), ctr.name.clone(), false));
                    }
                    if st.is_some_and(|s| s.restart_count > 0 && !s.ready) {
                        reads.push((ns.clone(), h.name.clone(), ctr.name.clone(), true));
                    }
                }
            }
        }
        let plugin_reads = join_all(reads.iter().map(|(ns, pod, ctr, previous)| {
            let terms = &terms;
            async move {
                (
                    format!(
                        "{ns}/{pod}/{ctr}{}",
                        if *previous { " (previous)" } else { "" }
                    ),
                    self.plugin_lines(ns, pod, ctr, *previous, terms).await,
                )
            }
        }));
        let node = case.node_name().map(str::to_string);
        let kubelet = async {
            match (&node, &node_proxy_may) {
                (Some(n), Some(may)) => Some(self.kubelet_lines(n, may, &terms).await),
                _ => None,
            }
        };
        let (plugin_reads, kubelet) = futures::join!(plugin_reads, kubelet);
        for (source, got) in plugin_reads {
            match got {
                Ok(lines) => {
                    case.inputs.push(format!(
                        "live: node plugin log {source}: {} line(s) about the pod's volumes (last {PLUGIN_TAIL_LINES} lines, {} h at most)",
                        lines.len(),
                        LOG_SINCE_SECONDS / 3600
                    ));
                    case.plugin_logs
                        .extend(lines.into_iter().map(|line| PluginLogLine {
                            source: source.clone(),
                            line,
                        }));
                }
                Err(why) => case.note_unavailable(format!("node plugin log {source}: {why}")),
            }
        }
        match kubelet {
            Some(Ok((lines, url))) => {
                case.inputs.push(format!(
                    "live: kubelet log query of node {}: {} line(s) about the pod ({url})",
                    node.as_deref().unwrap_or("?"),
                    lines.len()
                ));
                case.logs.extend(lines);
            }
            Some(Err(why)) => case.note_unavailable(format!(
                "kubelet log query of node {}: {why}",
                node.as_deref().unwrap_or("?")
            )),
            None => {}
        }
    }

    /// One container's recent lines about the pod's volumes (`previous`: the container
    /// instance before its last restart, whose failures explain the restart).
    async fn plugin_lines(
        &self,
        ns: &str,
        pod: &str,
        container: &str,
        previous: bool,
        terms: &[String],
    ) -> Result<Vec<crate::model::LogLine>, String> {
        let api: Api<Pod> = Api::namespaced(self.client.clone(), ns);
        let lp = LogParams {
            container: Some(container.to_string()),
            tail_lines: Some(if previous {
                PREVIOUS_TAIL_LINES
            } else {
                PLUGIN_TAIL_LINES
            }),
            limit_bytes: Some(PLUGIN_LIMIT_BYTES),
            since_seconds: (!previous).then_some(LOG_SINCE_SECONDS),
            previous,
            ..LogParams::default()
        };
        let text = match tokio::time::timeout(self.timeout, api.logs(pod, &lp)).await {
            Ok(Ok(t)) => t,
            Ok(Err(kube::Error::Api(s))) if s.code == 403 => {
                return Err(format!(
                    "not allowed (get pods/log in namespace {ns}); the ClusterRole volmnt-reader in deploy/rbac.yaml grants it"
                ))
            }
            Ok(Err(kube::Error::Api(s))) => {
                return Err(format!("the API server answered {}: {}", s.code, s.message))
            }
            Ok(Err(e)) => return Err(short_error(&e)),
            Err(_) => return Err(format!("no answer within {:?}", self.timeout)),
        };
        // The kubelet writes a failure to read the log into the answer itself (200), as
        // realnode's did for a restarted container's previous instance.
        if let Some(first) = text
            .lines()
            .next()
            .filter(|l| l.starts_with("unable to retrieve container logs for"))
        {
            return Err(format!("the kubelet could not read it: {first}"));
        }
        let registrar = container.contains("registrar");
        let mut kept: Vec<crate::model::LogLine> = crate::parse::plugin_log::parse(&text, 1)
            .into_iter()
            .filter(|l| {
                let about = terms.iter().any(|t| l.message.contains(t.as_str()));
                let failing = matches!(l.severity, Some('E' | 'F' | 'W'));
                // A registrar's failures are about the plugin (its socket, its registration);
                // a crashed instance's failures say why it stopped.
                about || (failing && (registrar || previous))
            })
            .collect();
        if kept.len() > PLUGIN_LINES_KEPT {
            kept.drain(..kept.len() - PLUGIN_LINES_KEPT);
        }
        for l in &mut kept {
            if let std::borrow::Cow::Owned(r) = crate::redact::redact(&l.message) {
                l.message = r;
            }
        }
        Ok(kept)
    }

    /// The kubelet's journal lines about the pod through the node log query (GA in 1.36):
    /// `GET /api/v1/nodes/NODE/proxy/logs/?query=kubelet&pattern=...`, which needs get on
    /// nodes/proxy and `enableSystemLogQuery: true` in the kubelet's configuration.
    async fn kubelet_lines(
        &self,
        node: &str,
        may: &May,
        terms: &[String],
    ) -> Result<(Vec<crate::model::LogLine>, String), String> {
        if let May::No(reason) = may {
            return Err(format!(
                "not allowed (get nodes/proxy on node {node}){}; the ClusterRole volmnt-node-logs in deploy/rbac-optional.yaml grants it (it also lets its holder reach the kubelet's whole API)",
                reason.as_deref().map(|r| format!(": {r}")).unwrap_or_default()
            ));
        }
        if terms.is_empty() {
            return Err("nothing names the pod to look for (no UID, no PV)".into());
        }
        // A PCRE2 alternation for journalctl --grep (names are UIDs, PV names, volume handles:
        // their regex metacharacters escaped, `-` left as is).
        let pattern = terms
            .iter()
            .map(|t| {
                t.chars().fold(String::new(), |mut s, c| {
                    if r"\.+*?()|[]{}^$".contains(c) {
                        s.push('\\');
                    }
                    s.push(c);
                    s
                })
            })
            .collect::<Vec<_>>()
            .join("|");
        use k8s_openapi::jiff;
        let now = jiff::Timestamp::now();
        let since = now
            .checked_sub(jiff::SignedDuration::from_secs(LOG_SINCE_SECONDS))
            .unwrap_or(now)
            .strftime("%Y-%m-%dT%H:%M:%SZ")
            .to_string();
        let path = format!(
            "/api/v1/nodes/{}/proxy/logs/?query=kubelet&pattern={}&tailLines={KUBELET_TAIL_LINES}&sinceTime={}",
            percent_encode(node),
            percent_encode(&pattern),
            percent_encode(&since)
        );
        let shown = format!("GET /api/v1/nodes/{node}/proxy/logs/?query=kubelet&pattern=...");
        let req = http::Request::get(&path)
            .body(Vec::new())
            .map_err(|e| format!("building the request: {e}"))?;
        let read = async {
            let mut stream = self.client.request_stream(req).await?;
            let mut buf = Vec::new();
            (&mut stream)
                .take(KUBELET_MAX_BYTES)
                .read_to_end(&mut buf)
                .await
                .map_err(kube::Error::ReadEvents)?;
            Ok::<_, kube::Error>(buf)
        };
        let body = match tokio::time::timeout(self.timeout, read).await {
            Ok(Ok(b)) => b,
            Ok(Err(kube::Error::Api(s))) => {
                return Err(node_proxy_refusal(node, s.code, &s.message))
            }
            Ok(Err(e)) => return Err(short_error(&e)),
            Err(_) => return Err(format!("no answer within {:?}", self.timeout)),
        };
        let text = String::from_utf8_lossy(&body);
        if let Some(why) = query_not_served(&text) {
            return Err(why);
        }
        let node_label = format!("node {node} (log query)");
        let mut lines =
            crate::parse::klog::parse_klog_with(&text, crate::collect::offline::is_volume_log_line);
        for l in &mut lines {
            l.location = Some(match &l.location {
                Some(loc) => format!("{node_label}, {loc}"),
                None => node_label.clone(),
            });
            if let std::borrow::Cow::Owned(r) = crate::redact::redact(&l.message) {
                l.message = r;
            }
        }
        Ok((lines, shown))
    }
}

/// Why the node log query gave no journal: the kubelet answers a query it does not run with
/// something else (k8s pkg/kubelet/kubelet.go and kubelet_server_journal.go).
pub fn query_not_served(text: &str) -> Option<String> {
    let t = text.trim_start();
    if t.to_ascii_lowercase().starts_with("<!doctype html") || t.starts_with("<pre>") {
        // Without enableSystemLogQuery, /logs/ is a plain file server of /var/log: the query is
        // ignored and the directory is listed.
        return Some(
            "the kubelet has enableSystemLogQuery off (its /logs/ endpoint listed /var/log instead of answering the query); set enableSystemLogQuery: true in its KubeletConfiguration, or read its journal on the node (`volmnt doctor pod NAME -n NS --probe-node` does)".into(),
        );
    }
    if t.starts_with("options present and query resolved to log files") {
        return Some(
            "the kubelet does not log to journald on that node (the query resolved to a log file, which the log query serves only whole); read it on the node (`volmnt doctor pod NAME -n NS --probe-node` does)".into(),
        );
    }
    if t.starts_with("error: journal output not available") {
        return Some("the node's journal could not be read (journalctl failed there)".into());
    }
    if t.starts_with("log not found for kubelet") {
        return Some("the node has no journal unit nor log file named kubelet".into());
    }
    if t.starts_with("failed to get logging cmd") {
        return Some(t.lines().next().unwrap_or(t).to_string());
    }
    None
}

/// A refusal of the node log query said plainly: by the API server (RBAC, the node's address)
/// or by the kubelet (the endpoint disabled, a query it rejects).
pub fn node_proxy_refusal(node: &str, code: u16, message: &str) -> String {
    let m = message.trim();
    match code {
        403 => format!(
            "not allowed (get nodes/proxy on node {node}); the ClusterRole volmnt-node-logs in deploy/rbac-optional.yaml grants it"
        ),
        400 if m.contains("address not allowed") => format!(
            "the API server will not proxy to node {node}'s address (a loopback or link-local InternalIP: \"{m}\")"
        ),
        405 if m.contains("logs endpoint is disabled") => {
            "the kubelet has enableSystemLogHandler off (\"logs endpoint is disabled\")".into()
        }
        404 => format!("not found: {m}"),
        502..=504 => format!("the API server could not reach the kubelet ({code}): {m}"),
        _ => format!("the kubelet or API server refused the query ({code}): {m}"),
    }
}

/// RFC 3986 percent-encoding of everything but the unreserved characters (a query value or a
/// path segment).
fn percent_encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

enum ListFailure {
    Forbidden,
    Other(String),
}

fn short_error(e: &kube::Error) -> String {
    match e {
        kube::Error::Api(s) => format!("{} ({})", s.message, s.code),
        other => super::errors::network_cause(other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_kubelet_answers_a_query_it_does_not_run_with_a_listing() {
        // What realnode's kubelet (v1.36.2, enableSystemLogQuery unset) served for
        // /logs/?query=kubelet&tailLines=3, first lines.
        let listing = "<!doctype html>\n<meta name=\"viewport\" content=\"width=device-width\">\n<pre>\n<a href=\"README\">README</a>\n";
        assert!(query_not_served(listing)
            .unwrap()
            .contains("enableSystemLogQuery off"));
        assert!(query_not_served(
            "options present and query resolved to log files for [kubelet]\ntry without specifying options\n"
        )
        .unwrap()
        .contains("does not log to journald"));
        assert_eq!(
            query_not_served(
                "Nov 26 21:51:26.123456 n1 kubelet[9]: E1126 21:51:26.123456 9 x.go:1] m"
            ),
            None
        );
    }

    #[test]
    fn refusals_name_who_refused() {
        // The real apiserver's answer for a node whose InternalIP is 127.0.0.1.
        assert!(node_proxy_refusal("realnode", 400, "address not allowed")
            .contains("will not proxy to node realnode's address"));
        assert!(
            node_proxy_refusal("n", 403, "nodes \"n\" is forbidden").contains("volmnt-node-logs")
        );
        assert!(node_proxy_refusal("n", 405, "logs endpoint is disabled.")
            .contains("enableSystemLogHandler off"));
    }
}
