//! Reading from the Kubernetes API what judging needs (the nodes, the image's PVs and claims,
//! the pods on the holders' nodes), and the image a pod or a claim uses.

use std::collections::{BTreeMap, BTreeSet};

use k8s_openapi::api::core::v1::{Node, PersistentVolume, PersistentVolumeClaim, Pod};
use kube::api::ListParams;
use kube::Api;

use super::holders::{KubeView, NodeFacts, PodUse};
use super::image::{image_of_pv, ImageSpec};
use crate::collect::cluster::{Access, Cluster, Fetch};
use crate::error::{Error, Result};

/// Does this pod use the image: through one of `claims` (namespace, name), or an inline
/// in-tree rbd volume?
fn pod_use(
    pod: &Pod,
    claims: &BTreeMap<(String, String), String>,
    image: &ImageSpec,
) -> Option<PodUse> {
    let ns = pod.metadata.namespace.clone().unwrap_or_default();
    let name = pod.metadata.name.clone().unwrap_or_default();
    let spec = pod.spec.as_ref()?;
    let via = spec.volumes.iter().flatten().find_map(|v| {
        let claim = v
            .persistent_volume_claim
            .as_ref()
            .map(|c| c.claim_name.clone())
            .or_else(|| v.ephemeral.as_ref().map(|_| format!("{name}-{}", v.name)));
        if let Some(c) = claim {
            if let Some(pv) = claims.get(&(ns.clone(), c.clone())) {
                return Some(format!("claim {c} (PV {pv})"));
            }
        }
        let r = v.rbd.as_ref()?;
        let inline = ImageSpec::of_parts(r.pool.as_deref().unwrap_or("rbd"), None, &r.image)?;
        (inline == *image).then(|| format!("inline rbd volume {}", v.name))
    })?;
    let phase = pod
        .status
        .as_ref()
        .and_then(|s| s.phase.clone())
        .unwrap_or_else(|| "Unknown".into());
    Some(PodUse {
        namespace: ns,
        name,
        phase,
        via,
        terminating: pod.metadata.deletion_timestamp.is_some(),
    })
}

/// Read what judging needs: the nodes, the image's PVs and claims, and the pods on the nodes
/// whose addresses are `hosts`. Any failure makes the view `Unavailable` with the reason.
pub async fn kube_view(cluster: &Cluster, image: &ImageSpec, hosts: &BTreeSet<String>) -> KubeView {
    match read_view(cluster, image, hosts).await {
        Ok(v) => v,
        Err(e) => KubeView::Unavailable(e.to_string()),
    }
}

async fn read_view(
    cluster: &Cluster,
    image: &ImageSpec,
    hosts: &BTreeSet<String>,
) -> Result<KubeView> {
    let c = cluster.client();
    let denied = |what: &str| Error::Unreachable(format!("not allowed to {what}"));
    let nodes_f = cluster.list(
        Api::<Node>::all(c.clone()),
        ListParams::default(),
        Access::cluster("nodes"),
        |_| true,
    );
    let pvs_f = cluster.list(
        Api::<PersistentVolume>::all(c.clone()),
        ListParams::default(),
        Access::cluster("persistentvolumes"),
        |pv: &PersistentVolume| image_of_pv(pv).is_some_and(|(i, _)| i == *image),
    );
    let (nodes, pvs) = futures::join!(nodes_f, pvs_f);
    let nodes: Vec<NodeFacts> = match nodes? {
        Fetch::Got(n) => n.iter().map(NodeFacts::of).collect(),
        _ => return Err(denied("list nodes (cluster scope)")),
    };
    let pvs = match pvs? {
        Fetch::Got(p) => p,
        _ => return Err(denied("list persistentvolumes (cluster scope)")),
    };
    let mut claims = BTreeMap::new();
    for pv in &pvs {
        let pv_name = pv.metadata.name.clone().unwrap_or_default();
        if let Some(r) = pv.spec.as_ref().and_then(|s| s.claim_ref.as_ref()) {
            claims.insert(
                (
                    r.namespace.clone().unwrap_or_default(),
                    r.name.clone().unwrap_or_default(),
                ),
                pv_name,
            );
        }
    }
    let wanted: BTreeSet<String> = nodes
        .iter()
        .filter(|n| hosts.contains(&n.name) || n.addresses.iter().any(|a| hosts.contains(a)))
        .map(|n| n.name.clone())
        .collect();
    let lists = futures::future::join_all(wanted.iter().map(|node| {
        let api = Api::<Pod>::all(c.clone());
        let claims = &claims;
        async move {
            let lp = ListParams::default().fields(&format!("spec.nodeName={node}"));
            let mut users = Vec::new();
            let r = cluster
                .list(api, lp, Access::cluster("pods"), |p: &Pod| {
                    if let Some(u) = pod_use(p, claims, image) {
                        users.push(u);
                    }
                    false
                })
                .await;
            let r = match r {
                Ok(Fetch::Got(_)) => Ok(users),
                Ok(_) => Err("not allowed to list pods (cluster scope)".to_string()),
                Err(e) => Err(e.to_string()),
            };
            (node.clone(), r)
        }
    }))
    .await;
    Ok(KubeView::Known {
        nodes,
        pods: lists.into_iter().collect(),
        pvs: pvs.iter().filter_map(|p| p.metadata.name.clone()).collect(),
    })
}

/// The image a pod (through its claims or an inline rbd volume) or a claim uses, from the API.
/// Errors when there is none, or several (the user then names one).
pub async fn image_of_claim_or_pod(
    cluster: &Cluster,
    namespace: &str,
    pod: Option<&str>,
    pvc: Option<&str>,
) -> Result<(ImageSpec, Option<String>, String)> {
    let c = cluster.client();
    let mut found: Vec<(ImageSpec, Option<String>, String)> = Vec::new();
    let mut claims: Vec<String> = Vec::new();
    let what = match (pod, pvc) {
        (Some(p), _) => {
            let got = cluster
                .get(
                    Api::<Pod>::namespaced(c.clone(), namespace),
                    p,
                    Access::ns("pods", namespace),
                )
                .await?;
            let pod = match got {
                Fetch::Got(p) => p,
                Fetch::Missing => {
                    return Err(Error::Usage(format!("pod {namespace}/{p} not found ({})", cluster.target)))
                }
                Fetch::Denied => {
                    return Err(Error::Unreachable(format!(
                        "not allowed to read pod {namespace}/{p} (needs get on pods in namespace {namespace})"
                    )))
                }
            };
            for v in pod.spec.iter().flat_map(|s| s.volumes.iter().flatten()) {
                if let Some(c) = &v.persistent_volume_claim {
                    claims.push(c.claim_name.clone());
                } else if v.ephemeral.is_some() {
                    claims.push(format!("{p}-{}", v.name));
                } else if let Some(r) = &v.rbd {
                    if let Some(i) =
                        ImageSpec::of_parts(r.pool.as_deref().unwrap_or("rbd"), None, &r.image)
                    {
                        found.push((i, None, format!("pod {namespace}/{p} volume {}", v.name)));
                    }
                }
            }
            format!("pod {namespace}/{p}")
        }
        (None, Some(c)) => {
            claims.push(c.to_string());
            format!("claim {namespace}/{c}")
        }
        (None, None) => {
            return Err(Error::Usage(
                "name the image (pool/image), or --pod or --pvc".into(),
            ))
        }
    };
    for claim in &claims {
        let got = cluster
            .get(
                Api::<PersistentVolumeClaim>::namespaced(c.clone(), namespace),
                claim,
                Access::ns("persistentvolumeclaims", namespace),
            )
            .await?;
        let pvc = match got {
            Fetch::Got(p) => p,
            Fetch::Missing if pvc.is_some() => {
                return Err(Error::Usage(format!("claim {namespace}/{claim} not found ({})", cluster.target)))
            }
            Fetch::Missing => continue,
            Fetch::Denied => {
                return Err(Error::Unreachable(format!(
                    "not allowed to read claim {namespace}/{claim} (needs get on persistentvolumeclaims in namespace {namespace})"
                )))
            }
        };
        let Some(pv_name) = pvc.spec.as_ref().and_then(|s| s.volume_name.clone()) else {
            continue;
        };
        let pv = match cluster
            .get(
                Api::<PersistentVolume>::all(c.clone()),
                &pv_name,
                Access::cluster("persistentvolumes"),
            )
            .await?
        {
            Fetch::Got(pv) => pv,
            Fetch::Missing => continue,
            Fetch::Denied => {
                return Err(Error::Unreachable(format!(
                    "not allowed to read PV {pv_name} (needs get on persistentvolumes)"
                )))
            }
        };
        if let Some((i, cluster_id)) = image_of_pv(&pv) {
            found.push((i, cluster_id, format!("claim {claim} → PV {pv_name}")));
        }
    }
    found.dedup_by(|a, b| a.0 == b.0);
    match found.len() {
        0 => Err(Error::Usage(format!(
            "{what} uses no RBD image (no in-tree rbd volume and no ceph-csi PV with pool and imageName)"
        ))),
        1 => Ok(found.remove(0)),
        _ => Err(Error::Usage(format!(
            "{what} uses several RBD images ({}); name one as pool/image",
            found.iter().map(|f| f.0.to_string()).collect::<Vec<_>>().join(", ")
        ))),
    }
}
