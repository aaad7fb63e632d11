//! Judging each holder (a lock or a watcher): its address → a Kubernetes node (InternalIP /
//! ExternalIP) → the pods on that node that use the image, giving a verdict `live`, `stale` or
//! `unknown` with the reason. Pure: what the API said comes in as a [`KubeView`].

use std::collections::BTreeMap;
use std::time::{Duration, SystemTime};

use k8s_openapi::api::core::v1::Node;
use serde::Serialize;

use super::run::shell_quote;
use crate::model::{RbdLock, RbdWatcher};

/// `127.0.0.1:0/3911761368` → `127.0.0.1`; handles `v2:`/`v1:` prefixes, address vectors
/// (`[v2:10.0.0.1:3300/1,v1:10.0.0.1:6789/1]`) and IPv6 brackets (`[::1]:0/42`).
pub fn host_of(addr: &str) -> Option<String> {
    let mut a = addr.trim();
    // An address vector: the first entry.
    if a.starts_with("[v") || a.starts_with("[any:") {
        a = a.trim_start_matches('[');
        a = a.split(',').next()?.trim_end_matches(']');
    }
    for p in ["v2:", "v1:", "any:"] {
        if let Some(rest) = a.strip_prefix(p) {
            a = rest;
        }
    }
    let a = a.split('/').next()?;
    let host = if let Some(rest) = a.strip_prefix('[') {
        rest.split(']').next()?
    } else {
        a.rsplit_once(':').map_or(a, |(h, _)| h)
    };
    (!host.is_empty() && host.parse::<std::net::IpAddr>().is_ok()).then(|| host.to_string())
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// A running pod on the holder's node uses the image.
    Live,
    /// Provably not in use: node gone, NotReady for long, or no pod there uses the image.
    Stale,
    /// Could not be judged (no cluster access, a pod there still starting, ...).
    Unknown,
}

impl Verdict {
    pub fn word(self) -> &'static str {
        match self {
            Verdict::Live => "live",
            Verdict::Stale => "stale",
            Verdict::Unknown => "unknown",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum HolderKind {
    Lock {
        id: String,
        locker: String,
    },
    Watcher {
        #[serde(skip_serializing_if = "Option::is_none")]
        client: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        cookie: Option<u64>,
    },
}

/// A pod on the holder's node that uses the image.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PodUse {
    pub namespace: String,
    pub name: String,
    pub phase: String,
    /// `claim data (PV pv-1)` or `inline rbd volume v`.
    pub via: String,
    pub terminating: bool,
}

impl PodUse {
    pub fn label(&self) -> String {
        format!(
            "{}/{} ({}{})",
            self.namespace,
            self.name,
            self.phase,
            if self.terminating {
                ", terminating"
            } else {
                ""
            }
        )
    }
}

/// One lock or watcher, mapped to a node and pods, with the verdict and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Holder {
    #[serde(flatten)]
    pub kind: HolderKind,
    pub address: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub pods: Vec<PodUse>,
    pub verdict: Verdict,
    pub reason: String,
}

impl Holder {
    /// The judgement as the diagnosis model carries it.
    pub fn judgement(&self) -> crate::model::HolderJudgement {
        crate::model::HolderJudgement {
            what: self.describe(),
            node: self.node.clone(),
            pods: self.pods.iter().map(PodUse::label).collect(),
            verdict: self.verdict.word().to_string(),
            reason: self.reason.clone(),
        }
    }

    pub fn describe(&self) -> String {
        match &self.kind {
            HolderKind::Lock { id, locker } => {
                format!(
                    "lock {} held by {locker} at {}",
                    shell_quote(id),
                    self.address
                )
            }
            HolderKind::Watcher { client, .. } => format!(
                "watcher {}{}",
                self.address,
                client
                    .as_deref()
                    .map(|c| format!(" ({c})"))
                    .unwrap_or_default()
            ),
        }
    }
}

/// A node as far as judging needs it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NodeFacts {
    pub name: String,
    /// InternalIP and ExternalIP addresses.
    pub addresses: Vec<String>,
    /// The Ready condition: Some(true) Ready, Some(false) NotReady/Unknown, None not reported.
    pub ready: Option<bool>,
    /// When the Ready condition last changed (Unix seconds).
    pub ready_since: Option<i64>,
}

impl NodeFacts {
    pub fn of(n: &Node) -> NodeFacts {
        let status = n.status.as_ref();
        let addresses = status
            .and_then(|s| s.addresses.as_ref())
            .into_iter()
            .flatten()
            .filter(|a| a.type_ == "InternalIP" || a.type_ == "ExternalIP")
            .map(|a| a.address.clone())
            .collect();
        let ready = status
            .and_then(|s| s.conditions.as_ref())
            .into_iter()
            .flatten()
            .find(|c| c.type_ == "Ready");
        NodeFacts {
            name: n.metadata.name.clone().unwrap_or_default(),
            addresses,
            ready: ready.map(|c| c.status == "True"),
            ready_since: ready
                .and_then(|c| c.last_transition_time.as_ref())
                .map(|t| t.0.as_second()),
        }
    }
}

/// What the Kubernetes API told about the holders' nodes and the image's users.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KubeView {
    /// No cluster access: every holder is `unknown` for this reason.
    Unavailable(String),
    Known {
        nodes: Vec<NodeFacts>,
        /// Per node name: the pods there using the image, or why they could not be listed.
        pods: BTreeMap<String, std::result::Result<Vec<PodUse>, String>>,
        /// The PVs of the image (names), for the reasons.
        pvs: Vec<String>,
    },
}

/// A node NotReady for longer than this no longer runs its pods (the node controller's
/// default eviction timeout is 5 minutes).
pub const NOT_READY_STALE: Duration = Duration::from_secs(5 * 60);

/// The verdict for one holder address: pure, from what the API said.
pub fn judge(
    address: &str,
    view: &KubeView,
    now: SystemTime,
) -> (Option<String>, Vec<PodUse>, Verdict, String) {
    let Some(host) = host_of(address) else {
        return (
            None,
            vec![],
            Verdict::Unknown,
            format!("cannot read a host address from {address:?}"),
        );
    };
    let (nodes, pods, pvs) = match view {
        KubeView::Unavailable(why) => {
            return (
                None,
                vec![],
                Verdict::Unknown,
                format!("the Kubernetes API could not be read: {why}"),
            )
        }
        KubeView::Known { nodes, pods, pvs } => (nodes, pods, pvs),
    };
    let Some(node) = nodes
        .iter()
        .find(|n| n.addresses.contains(&host) || n.name == host)
    else {
        return (
            None,
            vec![],
            Verdict::Stale,
            format!(
                "no Kubernetes node has the address {host} (InternalIP/ExternalIP): the node is gone; \
                 if a machine outside Kubernetes uses the image, do not remove this"
            ),
        );
    };
    let now_s = now
        .duration_since(SystemTime::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0);
    let not_ready_for = match (node.ready, node.ready_since) {
        (Some(false), Some(since)) => Some(Duration::from_secs((now_s - since).max(0) as u64)),
        _ => None,
    };
    if let Some(d) = not_ready_for.filter(|d| *d >= NOT_READY_STALE) {
        return (
            Some(node.name.clone()),
            vec![],
            Verdict::Stale,
            format!(
                "node {} ({host}) has been NotReady for {}: its pods no longer run there \
                 (blocklisting fences the node off should it come back)",
                node.name,
                human(d)
            ),
        );
    }
    let users = match pods.get(&node.name) {
        Some(Ok(u)) => u.clone(),
        Some(Err(why)) => {
            return (
                Some(node.name.clone()),
                vec![],
                Verdict::Unknown,
                format!(
                    "node {} ({host}), but its pods could not be listed: {why}",
                    node.name
                ),
            )
        }
        None => {
            return (
                Some(node.name.clone()),
                vec![],
                Verdict::Unknown,
                format!("node {} ({host}), but its pods were not listed", node.name),
            )
        }
    };
    let running: Vec<&PodUse> = users.iter().filter(|p| p.phase == "Running").collect();
    let starting: Vec<&PodUse> = users
        .iter()
        .filter(|p| p.phase == "Pending" || p.phase == "Unknown")
        .collect();
    let (verdict, reason) = if !running.is_empty() {
        (
            Verdict::Live,
            format!(
                "pod {} on node {} ({host}) uses the image",
                running
                    .iter()
                    .map(|p| p.label())
                    .collect::<Vec<_>>()
                    .join(", "),
                node.name
            ),
        )
    } else if !starting.is_empty() {
        (
            Verdict::Unknown,
            format!(
                "pod {} on node {} ({host}) uses the image and is not running yet: it may be mapping it right now",
                starting.iter().map(|p| p.label()).collect::<Vec<_>>().join(", "),
                node.name
            ),
        )
    } else {
        let which = if pvs.is_empty() {
            "no PV of the image was found either".to_string()
        } else {
            format!("PV {}", pvs.join(", "))
        };
        (
            Verdict::Stale,
            format!(
                "node {} ({host}) exists but no pod there uses the image ({which}){}",
                node.name,
                if not_ready_for.is_some() {
                    ", and the node is NotReady"
                } else {
                    ""
                }
            ),
        )
    };
    (Some(node.name.clone()), users, verdict, reason)
}

fn human(d: Duration) -> String {
    let s = d.as_secs();
    if s >= 3600 {
        format!("{}h{}m", s / 3600, (s % 3600) / 60)
    } else if s >= 60 {
        format!("{}m", s / 60)
    } else {
        format!("{s}s")
    }
}

/// Every lock and watcher as a judged holder.
pub fn holders(
    locks: &[RbdLock],
    watchers: &[RbdWatcher],
    view: &KubeView,
    now: SystemTime,
) -> Vec<Holder> {
    let mut out = Vec::new();
    let mut add = |kind: HolderKind, address: &str| {
        let (node, pods, verdict, reason) = judge(address, view, now);
        out.push(Holder {
            kind,
            address: address.to_string(),
            host: host_of(address),
            node,
            pods,
            verdict,
            reason,
        });
    };
    for l in locks {
        add(
            HolderKind::Lock {
                id: l.id.clone(),
                locker: l.locker.clone(),
            },
            &l.address,
        );
    }
    for w in watchers {
        add(
            HolderKind::Watcher {
                client: w.client.clone(),
                cookie: w.cookie,
            },
            &w.address,
        );
    }
    out
}

#[cfg(test)]
pub mod tests {
    use super::*;
    use crate::collect::rbd::image::ImageSpec;

    pub fn lock_holder(verdict: Verdict, addr: &str) -> Holder {
        Holder {
            kind: HolderKind::Lock {
                id: "kubelet_lock_magic_node1".into(),
                locker: "client.4174".into(),
            },
            address: addr.into(),
            host: host_of(addr),
            node: Some("n1".into()),
            pods: vec![],
            verdict,
            reason: format!("because {}", verdict.word()),
        }
    }

    pub fn watch_holder(verdict: Verdict, addr: &str) -> Holder {
        Holder {
            kind: HolderKind::Watcher {
                client: Some("client.7".into()),
                cookie: Some(1),
            },
            ..lock_holder(verdict, addr)
        }
    }

    pub fn img() -> ImageSpec {
        ImageSpec::parse("kube/img").unwrap()
    }

    #[test]
    fn hosts_of_addresses() {
        for (a, h) in [
            ("127.0.0.1:0/3911761368", Some("127.0.0.1")),
            ("10.47.136.60:0/1864102866", Some("10.47.136.60")),
            ("v1:10.0.0.5:0/77", Some("10.0.0.5")),
            ("v2:10.0.0.5:0/77", Some("10.0.0.5")),
            ("[v2:10.0.0.2:3300/2,v1:10.0.0.2:6789/2]", Some("10.0.0.2")),
            ("[::1]:0/42", Some("::1")),
            ("v2:[fd00::12]:0/42", Some("fd00::12")),
            (
                "[v2:[fd00::12]:3300/1,v1:[fd00::12]:6789/1]",
                Some("fd00::12"),
            ),
            ("not-an-address", None),
            ("", None),
        ] {
            assert_eq!(host_of(a).as_deref(), h, "{a}");
        }
    }

    fn node(name: &str, ip: &str, ready: Option<bool>, since: i64) -> NodeFacts {
        NodeFacts {
            name: name.into(),
            addresses: vec![ip.into()],
            ready,
            ready_since: Some(since),
        }
    }

    fn pod(phase: &str) -> PodUse {
        PodUse {
            namespace: "default".into(),
            name: "web-0".into(),
            phase: phase.into(),
            via: "claim data (PV pv-1)".into(),
            terminating: false,
        }
    }

    fn view(n: NodeFacts, pods: std::result::Result<Vec<PodUse>, String>) -> KubeView {
        KubeView::Known {
            pods: [(n.name.clone(), pods)].into_iter().collect(),
            nodes: vec![n],
            pvs: vec!["pv-1".into()],
        }
    }

    #[test]
    fn verdicts() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000);
        let t = 1_000_000;
        let addr = "10.0.0.1:0/5";
        let j = |v: &KubeView| judge(addr, v, now);
        // Live: a running pod there uses the image.
        let (n, pods, v, r) = j(&view(
            node("n1", "10.0.0.1", Some(true), t - 10),
            Ok(vec![pod("Running")]),
        ));
        assert_eq!((n.as_deref(), v), (Some("n1"), Verdict::Live));
        assert_eq!(pods.len(), 1);
        assert!(r.contains("default/web-0 (Running)"), "{r}");
        // Stale: no pod there uses it.
        let (_, _, v, r) = j(&view(
            node("n1", "10.0.0.1", Some(true), t - 10),
            Ok(vec![]),
        ));
        assert_eq!(v, Verdict::Stale);
        assert!(r.contains("no pod there uses the image"), "{r}");
        // Finished pods do not use it.
        let (_, _, v, _) = j(&view(
            node("n1", "10.0.0.1", Some(true), t),
            Ok(vec![pod("Succeeded")]),
        ));
        assert_eq!(v, Verdict::Stale);
        // Stale: the node is gone.
        let (n, _, v, r) = j(&view(node("n2", "10.0.0.2", Some(true), t), Ok(vec![])));
        assert_eq!((n, v), (None, Verdict::Stale));
        assert!(
            r.contains("no Kubernetes node has the address 10.0.0.1"),
            "{r}"
        );
        // Stale: NotReady for long, even if the API still shows the pod Running.
        let (_, _, v, r) = j(&view(
            node("n1", "10.0.0.1", Some(false), t - 3600),
            Ok(vec![pod("Running")]),
        ));
        assert_eq!(v, Verdict::Stale);
        assert!(r.contains("NotReady for 1h0m"), "{r}");
        // NotReady only briefly: the running pod still counts.
        let (_, _, v, _) = j(&view(
            node("n1", "10.0.0.1", Some(false), t - 60),
            Ok(vec![pod("Running")]),
        ));
        assert_eq!(v, Verdict::Live);
        // Unknown: a pod there is still starting; pods unlistable; no API at all.
        let (_, _, v, _) = j(&view(
            node("n1", "10.0.0.1", Some(true), t),
            Ok(vec![pod("Pending")]),
        ));
        assert_eq!(v, Verdict::Unknown);
        let (_, _, v, r) = j(&view(
            node("n1", "10.0.0.1", Some(true), t),
            Err("forbidden".into()),
        ));
        assert_eq!(v, Verdict::Unknown);
        assert!(r.contains("forbidden"), "{r}");
        let (_, _, v, r) = j(&KubeView::Unavailable("no kubeconfig found".into()));
        assert_eq!(v, Verdict::Unknown);
        assert!(r.contains("no kubeconfig found"), "{r}");
        // A node named by its address (the 2017 cluster) is found too.
        let named = NodeFacts {
            name: "10.0.0.1".into(),
            ..NodeFacts::default()
        };
        let (n, _, _, _) = j(&view(named, Ok(vec![])));
        assert_eq!(n.as_deref(), Some("10.0.0.1"));
    }
}
