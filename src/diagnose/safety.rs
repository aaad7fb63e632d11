//! The one gate every step passes before it reaches a report. A step is withheld (and the
//! report says why) when:
//! - what it acts on is used by a live workload: a running pod, a VolumeAttachment of a volume a
//!   running pod on that node uses, an RBD lock or watch held by a node where a running pod
//!   uses the image, a device of a volume a running pod has mounted;
//! - its command reads something the current credentials were just refused;
//! - it is destructive and no read-only check and no backup step stand before it;
//! - it weakens the node's or the storage's security to get a volume mounted (root squashing
//!   off, SELinux or AppArmor off or permissive, a mode for everyone, a privileged pod);
//! - it unmounts or re-binds a pod's volume path and no read-only step before it shows that pod
//!   gone from the node (`crictl pods`): a lazy unmount under a running pod leaves the container
//!   writing into the node's own disk, and kubelet does not mount a running pod's volume again;
//! - it repairs or rewrites a disk multipathd holds as a path of one of its maps.
//!
//! Nothing else builds report steps: `steps::render_steps` produces them and `vet` filters
//! them, for every finding, in `diagnose::finish`.

use std::collections::BTreeSet;
use std::sync::LazyLock;

use k8s_openapi::api::core::v1::Pod;
use regex::Regex;

use crate::model::report::{Step, StepKind, Target, Withheld};
use crate::model::{Case, Denied};

/// A pod that is running (or has started a container): its volumes are mounted and in use.
#[derive(Debug, Clone)]
pub struct LivePod {
    pub namespace: String,
    pub name: String,
    pub uid: Option<String>,
    pub node: Option<String>,
    /// `Running`, `Terminating (still running)`, ...
    pub state: String,
    pub claims: BTreeSet<String>,
    /// PVs behind the claims, where the case says.
    pub pvs: BTreeSet<String>,
    /// `pool/image` of the RBD images it uses.
    pub images: BTreeSet<String>,
}

impl LivePod {
    pub fn label(&self) -> String {
        match &self.node {
            Some(n) => format!(
                "pod {}/{} ({}) on node {n}",
                self.namespace, self.name, self.state
            ),
            None => format!("pod {}/{} ({})", self.namespace, self.name, self.state),
        }
    }
}

pub use crate::model::{containers_started, is_live};

/// What a case says is in use by live workloads.
#[derive(Debug, Clone, Default)]
pub struct Live {
    pub pods: Vec<LivePod>,
    /// (node name, addresses) of the nodes in the case, to map RBD holders to nodes.
    nodes: Vec<(String, Vec<String>)>,
    /// RBD holders judged live (`what` as `rbd status` says it).
    live_holders: Vec<String>,
    /// (map, path device) of the node's multipath maps (`sdb` under `mpatha`).
    multipath_paths: Vec<(String, String)>,
}

fn state_of(pod: &Pod) -> String {
    let phase = pod
        .status
        .as_ref()
        .and_then(|s| s.phase.clone())
        .unwrap_or_else(|| "containers started".into());
    if pod.metadata.deletion_timestamp.is_some() {
        format!("Terminating, still {phase}")
    } else {
        phase
    }
}

impl Live {
    pub fn of(case: &Case) -> Live {
        let mut live = Live::default();
        let pods = case.pod.iter().chain(&case.other_pods);
        for p in pods.filter(|p| is_live(p)) {
            let spec = p.spec.as_ref();
            let mut lp = LivePod {
                namespace: p.metadata.namespace.clone().unwrap_or_default(),
                name: p.metadata.name.clone().unwrap_or_default(),
                uid: p.metadata.uid.clone(),
                node: spec.and_then(|s| s.node_name.clone()),
                state: state_of(p),
                claims: BTreeSet::new(),
                pvs: BTreeSet::new(),
                images: BTreeSet::new(),
            };
            for v in spec.iter().flat_map(|s| s.volumes.iter().flatten()) {
                if let Some(c) = &v.persistent_volume_claim {
                    lp.claims.insert(c.claim_name.clone());
                }
                if v.ephemeral.is_some() {
                    lp.claims.insert(format!("{}-{}", lp.name, v.name));
                }
                if let Some(r) = &v.rbd {
                    lp.images.insert(format!(
                        "{}/{}",
                        r.pool.as_deref().unwrap_or("rbd"),
                        r.image
                    ));
                }
            }
            for claim in &lp.claims {
                let pv = case
                    .pvcs
                    .iter()
                    .filter(|c| {
                        c.metadata
                            .namespace
                            .as_deref()
                            .is_none_or(|ns| ns == lp.namespace)
                    })
                    .find(|c| c.metadata.name.as_deref() == Some(claim.as_str()))
                    .and_then(|c| c.spec.as_ref()?.volume_name.clone());
                if let Some(pv) = pv {
                    lp.pvs.insert(pv);
                }
            }
            for pv in case.pvs.iter().filter(|pv| {
                pv.metadata
                    .name
                    .as_ref()
                    .is_some_and(|n| lp.pvs.contains(n))
            }) {
                if let Some(img) = rbd_image_of_pv(pv) {
                    lp.images.insert(img);
                }
            }
            live.pods.push(lp);
        }
        for n in &case.nodes {
            let name = n.metadata.name.clone().unwrap_or_default();
            let addrs = n
                .status
                .iter()
                .flat_map(|s| s.addresses.iter().flatten())
                .map(|a| a.address.clone())
                .collect();
            live.nodes.push((name, addrs));
        }
        for st in &case.rbd {
            for j in st.judged.iter().filter(|j| j.verdict == "live") {
                live.live_holders.push(j.what.clone());
            }
        }
        if let Some(mp) = case.node_facts.as_ref().and_then(|f| f.multipath.as_ref()) {
            for m in &mp.maps {
                for p in &m.paths {
                    live.multipath_paths.push((m.name.clone(), p.clone()));
                }
            }
        }
        live
    }

    /// The multipath map a command would act under: it names one of the map's path devices.
    fn multipath_map_of(&self, command: &str) -> Option<String> {
        self.multipath_paths.iter().find_map(|(map, path)| {
            let dev = format!("/dev/{path}");
            command
                .split(|c: char| c.is_whitespace() || c == ';' || c == '\'' || c == '"')
                .any(|w| w == dev)
                .then(|| format!("multipathd holds /dev/{path} as a path of its map {map}: a repair or rewrite of one path writes under the map"))
        })
    }

    /// The node whose address is `host` (an RBD client address's host part), or the name itself.
    fn node_of_host(&self, host: &str) -> Option<&str> {
        self.nodes
            .iter()
            .find(|(name, addrs)| name == host || addrs.iter().any(|a| a == host))
            .map(|(n, _)| n.as_str())
    }

    /// The live pod that makes acting on `t` harmful, said as a reason; `None` when nothing
    /// known uses it.
    pub fn user_of(&self, t: &Target, case: &Case) -> Option<String> {
        match t {
            Target::Pod { namespace, name } => self
                .pods
                .iter()
                .find(|p| &p.namespace == namespace && &p.name == name)
                .map(|p| {
                    format!(
                        "{} is running: deleting it stops a live workload",
                        p.label()
                    )
                }),
            Target::VolumeAttachment { name } => {
                let va = case
                    .volume_attachments
                    .iter()
                    .find(|v| v.metadata.name.as_deref() == Some(name.as_str()))?;
                let pv = va.spec.source.persistent_volume_name.as_deref()?;
                let node = &va.spec.node_name;
                self.pods
                    .iter()
                    .find(|p| p.node.as_deref() == Some(node) && p.pvs.contains(pv))
                    .map(|p| {
                        format!(
                            "VolumeAttachment {name} attaches PV {pv} to node {node}, where {} uses it: deleting it detaches the disk under a live writer",
                            p.label()
                        )
                    })
            }
            Target::RbdLock {
                image,
                lock_id,
                locker,
            } => {
                if let Some(h) = self
                    .live_holders
                    .iter()
                    .find(|h| h.contains(lock_id.as_str()) || h.contains(locker.as_str()))
                {
                    return Some(format!(
                        "the holder of {image} was judged live ({h}): removing its lock lets two nodes write one filesystem"
                    ));
                }
                let addr = lock_address(case, image, lock_id)?;
                self.user_on_host(&addr, image)
            }
            Target::CephClient { address } => {
                if let Some(h) = self
                    .live_holders
                    .iter()
                    .find(|h| h.contains(address.as_str()))
                {
                    return Some(format!(
                        "client {address} was judged live ({h}): blocklisting it cuts a live writer off"
                    ));
                }
                let images: BTreeSet<String> =
                    case.rbd.iter().filter_map(|s| s.image.clone()).collect();
                images
                    .iter()
                    .find_map(|img| self.user_on_host(address, img))
                    .or_else(|| {
                        // No image known: any live pod on that host using an RBD image.
                        let host = host_of(address)?;
                        let node = self.node_of_host(&host)?;
                        self.pods
                            .iter()
                            .find(|p| p.node.as_deref() == Some(node) && !p.images.is_empty())
                            .map(|p| {
                                format!(
                                    "client {address} is node {node}, where {} uses an RBD image",
                                    p.label()
                                )
                            })
                    })
            }
            Target::Node { name } => {
                // A node that is Ready runs what it runs: force-detaching its volumes would cut
                // its live pods off. A NotReady node's pods are only as live as its last report;
                // the step's own check (is it really down?) stands before it.
                let ready = case
                    .node_named(name)
                    .and_then(crate::model::ready_status)
                    .is_none_or(|s| s == "True");
                if !ready {
                    return None;
                }
                self.pods
                    .iter()
                    .find(|p| p.node.as_deref() == Some(name.as_str()))
                    .map(|p| format!("node {name} is Ready and runs {}", p.label()))
            }
            Target::Device { node, volume, path } => {
                // A pod's own volume directory belongs to that pod alone.
                if let Some(uid) = pod_uid_in(path) {
                    return self
                        .pods
                        .iter()
                        .find(|p| p.uid.as_deref() == Some(uid))
                        .map(|p| format!("{path} is a volume of {}", p.label()));
                }
                let pv = volume.as_deref()?;
                self.pods
                    .iter()
                    .find(|p| p.pvs.contains(pv))
                    .map(|p| {
                        let here = match (node, &p.node) {
                            (Some(a), Some(b)) if a == b => " on the same node",
                            _ => "",
                        };
                        format!(
                            "PV {pv} is in use by {}{here}: repairing or unmounting it under a live workload destroys data",
                            p.label()
                        )
                    })
            }
        }
    }

    /// A live pod on the node with address `addr` that uses RBD image `image`.
    fn user_on_host(&self, addr: &str, image: &str) -> Option<String> {
        let host = host_of(addr)?;
        let node = self.node_of_host(&host)?;
        self.pods
            .iter()
            .find(|p| p.node.as_deref() == Some(node) && p.images.contains(image))
            .map(|p| {
                format!(
                    "{addr} is node {node}, where {} still uses {image}: a live writer must keep its lock and watch",
                    p.label()
                )
            })
    }
}

/// `/var/lib/kubelet/pods/<uid>/volumes/...` → the pod UID.
fn pod_uid_in(path: &str) -> Option<&str> {
    let rest = &path[path.find("/pods/")? + "/pods/".len()..];
    let uid = rest.split('/').next()?;
    (uid.len() >= 32 && uid.chars().all(|c| c.is_ascii_hexdigit() || c == '-')).then_some(uid)
}

/// The address of lock `lock_id` on `image`, from the case's `rbd lock ls`.
fn lock_address(case: &Case, image: &str, lock_id: &str) -> Option<String> {
    case.rbd
        .iter()
        .filter(|s| s.image.as_deref().is_none_or(|i| i == image))
        .flat_map(|s| &s.locks)
        .find(|l| l.id == lock_id)
        .map(|l| l.address.clone())
}

/// `10.0.0.5:0/1864102866`, `v2:10.0.0.5:6800/123`, `[fd00::1]:0/5` → the host part.
fn host_of(addr: &str) -> Option<String> {
    let a = addr
        .trim()
        .trim_start_matches('[')
        .trim_start_matches("v2:")
        .trim_start_matches("v1:")
        .trim_start_matches("any:");
    if let Some(rest) = a.strip_prefix('[') {
        return rest.split(']').next().map(str::to_string);
    }
    if let Some((host, _)) = a.split_once(']') {
        return Some(host.to_string());
    }
    let host = a.split('/').next()?;
    // host:port (IPv4 or a name); an IPv6 address without brackets has several colons.
    if host.matches(':').count() == 1 {
        host.split(':').next().map(str::to_string)
    } else {
        Some(host.to_string())
    }
}

/// `pool/image` of an RBD PV (in-tree `rbd` or ceph-csi `volumeAttributes`).
fn rbd_image_of_pv(pv: &k8s_openapi::api::core::v1::PersistentVolume) -> Option<String> {
    let spec = pv.spec.as_ref()?;
    if let Some(r) = &spec.rbd {
        return Some(format!(
            "{}/{}",
            r.pool.as_deref().unwrap_or("rbd"),
            r.image
        ));
    }
    let attrs = spec.csi.as_ref()?.volume_attributes.as_ref()?;
    let (pool, image) = (attrs.get("pool")?, attrs.get("imageName")?);
    Some(
        match attrs.get("radosNamespace").filter(|n| !n.is_empty()) {
            Some(ns) => format!("{pool}/{ns}/{image}"),
            None => format!("{pool}/{image}"),
        },
    )
}

/// kubectl's short names and singulars → the resource an RBAC rule names.
fn resource_of(word: &str) -> Option<&'static str> {
    let w = word.split('/').next().unwrap_or(word).to_ascii_lowercase();
    let w = w.split('.').next().unwrap_or(&w).to_string();
    Some(match w.as_str() {
        "po" | "pod" | "pods" => "pods",
        "pvc" | "persistentvolumeclaim" | "persistentvolumeclaims" => "persistentvolumeclaims",
        "pv" | "persistentvolume" | "persistentvolumes" => "persistentvolumes",
        "no" | "node" | "nodes" => "nodes",
        "ev" | "event" | "events" => "events",
        "volumeattachment" | "volumeattachments" => "volumeattachments",
        "csinode" | "csinodes" => "csinodes",
        "csidriver" | "csidrivers" => "csidrivers",
        "sc" | "storageclass" | "storageclasses" => "storageclasses",
        "cm" | "configmap" | "configmaps" => "configmaps",
        "secret" | "secrets" => "secrets",
        "ep" | "endpoints" => "endpoints",
        "ds" | "daemonset" | "daemonsets" => "daemonsets",
        "deploy" | "deployment" | "deployments" => "deployments",
        _ => return None,
    })
}

/// The reads (`kubectl get|describe RESOURCE`) in a command line, with the namespace it names
/// (`None` for `-A` or none given: the context's, which is what was refused if anything was).
fn reads_of(command: &str) -> Vec<(&'static str, Option<String>)> {
    let mut out = Vec::new();
    for part in command.split([';', '|', '&']) {
        let words: Vec<&str> = part.split_whitespace().collect();
        let Some(k) = words.iter().position(|w| *w == "kubectl") else {
            continue;
        };
        let rest = &words[k + 1..];
        let Some(v) = rest.iter().position(|w| matches!(*w, "get" | "describe")) else {
            continue;
        };
        let Some(res) = rest[v + 1..].iter().find(|w| !w.starts_with('-')) else {
            continue;
        };
        let ns = rest
            .windows(2)
            .find(|w| w[0] == "-n" || w[0] == "--namespace")
            .map(|w| w[1].to_string());
        for r in res.split(',') {
            if let Some(r) = resource_of(r) {
                out.push((r, ns.clone()));
            }
        }
        // `kubectl describe` also lists the object's events.
        if rest[v] == "describe" {
            out.push(("events", ns.clone()));
        }
    }
    out
}

/// The refused read a command would repeat, if any.
fn refused_read<'a>(command: &str, denied: &'a [Denied]) -> Option<&'a Denied> {
    let reads = reads_of(command);
    denied.iter().find(|d| {
        reads.iter().any(|(r, ns)| {
            *r == d.plain_resource()
                && match (&d.namespace, ns) {
                    (Some(dn), Some(n)) => dn == n,
                    // A cluster-wide refusal covers every namespace; a namespaced one the
                    // context's own (no -n).
                    _ => true,
                }
        })
    })
}

/// Advice that weakens security to get a volume mounted, in a step's command or its text: no
/// fix may give it (the advice matrix checks the knowledge never does; this gate holds it for
/// whatever a name read from a message could add).
static WEAKENS_SECURITY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"(?i)\bno_root_squash\b|\bno_all_squash\b|\bsetenforce\s+(0|permissive)\b|",
        r"\bSELINUX=(disabled|permissive)\b|\bselinux=0\b|\benforcing=0\b|\bapparmor=0\b|",
        r"\baa-(teardown|disable|complain)\b|\bsystemctl\s+(stop|disable|mask)\s+apparmor\b|",
        r"\b(disable|turn\s+off|switch\s+off)\s+(selinux|apparmor)\b|\b(selinux|apparmor)\s+off\b|",
        r"\bchmod\s+(-R\s+)?(0?777|a\+rwx|ugo\+rwx|o\+w)\b|",
        r"\bprivileged:\s*true\b|--privileged\b|\b(run|runs|running|make|set|give)\b[^.;:]{0,40}\bprivileged\b"
    ))
    .expect("static regex")
});

/// What in a step weakens security, if anything.
pub fn weakens_security(s: &Step) -> Option<String> {
    [s.command.as_deref(), Some(s.text.as_str())]
        .into_iter()
        .flatten()
        .find_map(|t| WEAKENS_SECURITY.find(t).map(|m| m.as_str().to_string()))
}

/// An unmount, lazy unmount or bind change of a path under a pod's volume directory.
static UNMOUNTS_POD_PATH: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\bumount\b[^;&|]*?/pods/|\bmount\s+(?:--bind|--rbind|--move|--make-\S+|-o\s+\S*\bbind\b)[^;&|]*?/pods/")
        .expect("static regex")
});

/// Whether a command unmounts or re-binds a pod's path.
pub fn unmounts_pod_path(command: &str) -> bool {
    UNMOUNTS_POD_PATH.is_match(command)
}

/// A read-only step that shows a pod gone from the node (no sandbox of it left there).
fn shows_pod_gone(s: &Step) -> bool {
    s.kind == StepKind::Check
        && s.command
            .as_deref()
            .is_some_and(|c| c.contains("crictl pods"))
}

/// Filter one finding's steps. `checked_before`: a read-only check already stands before this
/// list (the finding's confirm steps).
pub fn vet(
    steps: Vec<Step>,
    live: &Live,
    case: &Case,
    denied: &[Denied],
    checked_before: bool,
) -> (Vec<Step>, Vec<Withheld>) {
    let mut kept = Vec::new();
    let mut withheld = Vec::new();
    let mut checked = checked_before;
    let mut backed_up = false;
    let mut pod_gone_shown = false;
    for s in steps {
        let reason = s
            .targets
            .iter()
            .find_map(|t| live.user_of(t, case))
            .or_else(|| {
                let cmd = s.command.as_deref()?;
                refused_read(cmd, denied).map(|d| {
                    format!("your credentials were refused `{d}`, which this command needs")
                })
            })
            .or_else(|| {
                (s.kind == StepKind::Destructive && !(checked && backed_up)).then(|| {
                    "it is destructive, and no read-only check and backup step could be given before it".to_string()
                })
            })
            .or_else(|| {
                (s.kind == StepKind::Destructive && s.command.is_some() && s.targets.is_empty())
                    .then(|| "what it acts on is not known, so its safety cannot be checked".to_string())
            })
            .or_else(|| {
                weakens_security(&s).map(|w| {
                    format!("it weakens the node's or the storage's security (`{w}`), which no fix may do")
                })
            })
            .or_else(|| {
                let cmd = s.command.as_deref()?;
                (unmounts_pod_path(cmd) && !pod_gone_shown).then(|| {
                    "it unmounts a pod's volume path, and no read-only step before it shows the pod gone from the node (under a running pod the container would write into the node's own disk)".to_string()
                })
            })
            .or_else(|| {
                let cmd = s.command.as_deref()?;
                if s.kind == StepKind::Destructive || s.targets.iter().any(|t| matches!(t, Target::Device { .. })) {
                    live.multipath_map_of(cmd)
                } else {
                    None
                }
            });
        match reason {
            Some(reason) => {
                // What only prepared this step goes with it.
                if s.kind == StepKind::Destructive {
                    while kept.last().is_some_and(|k: &Step| k.prepares) {
                        kept.pop();
                    }
                }
                withheld.push(Withheld {
                    text: s.text,
                    reason,
                })
            }
            None => {
                match s.kind {
                    StepKind::Check if s.command.is_some() => checked = true,
                    StepKind::Backup if s.command.is_some() => backed_up = true,
                    _ => {}
                }
                pod_gone_shown |= shows_pod_gone(&s);
                kept.push(s);
            }
        }
    }
    // A preparing step whose destructive step never came (left out by `when`) is noise.
    while kept.last().is_some_and(|k| k.prepares) {
        kept.pop();
    }
    (kept, withheld)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{HolderJudgement, RbdImageState, RbdLock};
    use serde_json::json;

    fn pod(v: serde_json::Value) -> Pod {
        serde_json::from_value(v).unwrap()
    }

    fn running(name: &str, node: &str, claim: &str) -> Pod {
        pod(json!({
            "metadata": {"name": name, "namespace": "web"},
            "spec": {"nodeName": node, "containers": [{"name": "c"}],
                     "volumes": [{"name": "data", "persistentVolumeClaim": {"claimName": claim}}]},
            "status": {"phase": "Running"}
        }))
    }

    fn step(kind: StepKind, cmd: &str, targets: Vec<Target>) -> Step {
        let mut s = Step::new("x", Some(cmd.to_string()), kind);
        s.targets = targets;
        s
    }

    fn case_with_live_writer() -> Case {
        Case {
            pod: Some(pod(json!({
                "metadata": {"name": "web-new", "namespace": "web"},
                "spec": {"nodeName": "node-b", "containers": [{"name": "c"}],
                         "volumes": [{"name": "data", "persistentVolumeClaim": {"claimName": "data-web-0"}}]},
                "status": {"phase": "Pending"}
            }))),
            other_pods: vec![running("web-old", "node-a", "data-web-0")],
            pvcs: vec![serde_json::from_value(json!({
                "metadata": {"name": "data-web-0", "namespace": "web"},
                "spec": {"volumeName": "pvc-1", "accessModes": ["ReadWriteOnce"]}
            }))
            .unwrap()],
            volume_attachments: vec![serde_json::from_value(json!({
                "metadata": {"name": "csi-aaa"},
                "spec": {"attacher": "ebs.csi.aws.com", "nodeName": "node-a",
                         "source": {"persistentVolumeName": "pvc-1"}},
                "status": {"attached": true}
            }))
            .unwrap()],
            ..Case::default()
        }
    }

    #[test]
    fn a_running_pod_and_its_attachment_are_never_targets() {
        let case = case_with_live_writer();
        let live = Live::of(&case);
        let (kept, withheld) = vet(
            vec![
                step(StepKind::Check, "kubectl get volumeattachment", vec![]),
                step(
                    StepKind::Backup,
                    "aws ec2 create-snapshot --volume-id vol-1",
                    vec![],
                ),
                step(
                    StepKind::Destructive,
                    "kubectl delete volumeattachment csi-aaa",
                    vec![Target::VolumeAttachment {
                        name: "csi-aaa".into(),
                    }],
                ),
                step(
                    StepKind::Change,
                    "kubectl delete pod web-old -n web",
                    vec![Target::Pod {
                        namespace: "web".into(),
                        name: "web-old".into(),
                    }],
                ),
                step(
                    StepKind::Change,
                    "kubectl delete pod web-new -n web",
                    vec![Target::Pod {
                        namespace: "web".into(),
                        name: "web-new".into(),
                    }],
                ),
            ],
            &live,
            &case,
            &[],
            false,
        );
        let kept: Vec<_> = kept.iter().filter_map(|s| s.command.as_deref()).collect();
        assert_eq!(
            kept,
            [
                "kubectl get volumeattachment",
                "aws ec2 create-snapshot --volume-id vol-1",
                "kubectl delete pod web-new -n web"
            ]
        );
        assert_eq!(withheld.len(), 2);
        assert!(
            withheld[0]
                .reason
                .contains("web/web-old (Running) on node node-a"),
            "{withheld:?}"
        );
        assert!(withheld[1].reason.contains("is running"));
    }

    #[test]
    fn destructive_steps_need_a_check_and_a_backup_before_them() {
        let case = Case::default();
        let live = Live::of(&case);
        let fsck = || {
            step(
                StepKind::Destructive,
                "sudo fsck -y /dev/rbd/kube/img",
                vec![Target::Device {
                    node: None,
                    path: "/dev/rbd/kube/img".into(),
                    volume: None,
                }],
            )
        };
        let (kept, withheld) = vet(vec![fsck()], &live, &case, &[], true);
        assert!(kept.is_empty());
        assert!(withheld[0].reason.contains("backup"));
        let (kept, _) = vet(
            vec![
                step(
                    StepKind::Backup,
                    "sudo rbd snap create kube/img@before-fsck",
                    vec![],
                ),
                fsck(),
            ],
            &live,
            &case,
            &[],
            true,
        );
        assert_eq!(kept.len(), 2);
    }

    #[test]
    fn a_lock_held_by_a_node_with_a_live_user_is_not_removed() {
        let mut case = Case::default();
        case.other_pods.push(pod(json!({
            "metadata": {"name": "index-api-old", "namespace": "default"},
            "spec": {"nodeName": "node-old", "containers": [{"name": "c"}],
                     "volumes": [{"name": "d", "rbd": {"image": "index-api-image", "pool": "mioss", "monitors": ["m:6789"]}}]},
            "status": {"phase": "Running"}
        })));
        case.nodes.push(
            serde_json::from_value(json!({
                "metadata": {"name": "node-old"},
                "status": {"addresses": [{"type": "InternalIP", "address": "10.47.136.60"}]}
            }))
            .unwrap(),
        );
        case.rbd.push(RbdImageState {
            image: Some("mioss/index-api-image".into()),
            locks: vec![RbdLock {
                id: "kubelet_lock_magic_node1".into(),
                locker: "client.24128".into(),
                address: "10.47.136.60:0/1864102866".into(),
                ..RbdLock::default()
            }],
            ..RbdImageState::default()
        });
        let live = Live::of(&case);
        let lock = Target::RbdLock {
            image: "mioss/index-api-image".into(),
            lock_id: "kubelet_lock_magic_node1".into(),
            locker: "client.24128".into(),
        };
        let why = live.user_of(&lock, &case).expect("refused");
        assert!(why.contains("node node-old"), "{why}");
        let client = Target::CephClient {
            address: "10.47.136.60:0/1864102866".into(),
        };
        assert!(live.user_of(&client, &case).is_some());
        // Judged live by `rbd status` says the same, whatever the objects say.
        let mut case2 = Case::default();
        case2.rbd.push(RbdImageState {
            judged: vec![HolderJudgement {
                what: "lock kubelet_lock_magic_node1 (client.24128) at 10.47.136.60:0/1".into(),
                verdict: "live".into(),
                ..HolderJudgement::default()
            }],
            ..RbdImageState::default()
        });
        assert!(Live::of(&case2).user_of(&lock, &case2).is_some());
    }

    #[test]
    fn a_read_just_refused_is_not_suggested() {
        let case = Case::default();
        let denied = [Denied::new(
            "list",
            "volumeattachments.storage.k8s.io",
            None,
        )];
        let (kept, withheld) = vet(
            vec![
                step(
                    StepKind::Check,
                    "kubectl get volumeattachment -o wide",
                    vec![],
                ),
                step(StepKind::Check, "kubectl get pods -n web -o wide", vec![]),
            ],
            &Live::of(&case),
            &case,
            &denied,
            false,
        );
        assert_eq!(kept.len(), 1);
        assert!(withheld[0]
            .reason
            .contains("list volumeattachments.storage.k8s.io"));
        let ns_denied = [Denied::new("list", "events", Some("web"))];
        assert!(refused_read("kubectl get events -n web --field-selector x", &ns_denied).is_some());
        assert!(refused_read("kubectl get events -n other", &ns_denied).is_none());
    }

    #[test]
    fn liveness_follows_the_containers() {
        let waiting = pod(json!({"status": {"phase": "Pending", "containerStatuses": [
            {"name": "c", "image": "i", "imageID": "", "ready": false, "restartCount": 0,
             "state": {"waiting": {"reason": "ContainerCreating"}}}]}}));
        assert!(!is_live(&waiting));
        let crashing = pod(json!({"status": {"phase": "Pending", "containerStatuses": [
            {"name": "c", "image": "i", "imageID": "", "ready": false, "restartCount": 3,
             "state": {"waiting": {"reason": "CrashLoopBackOff"}},
             "lastState": {"terminated": {"exitCode": 1}}}]}}));
        assert!(
            is_live(&crashing),
            "its volumes were mounted: a container ran"
        );
        let done = pod(json!({"status": {"phase": "Succeeded"}}));
        assert!(!is_live(&done));
    }

    #[test]
    fn client_addresses_give_their_host() {
        assert_eq!(
            host_of("10.47.136.60:0/1864102866").as_deref(),
            Some("10.47.136.60")
        );
        assert_eq!(host_of("v2:10.0.0.5:6800/123").as_deref(), Some("10.0.0.5"));
        assert_eq!(host_of("[fd00::1]:0/5").as_deref(), Some("fd00::1"));
    }
}
