//! doctor's hook: the holders of a stuck pod's RBD images, read with the local CLIs and judged
//! against the cluster, added to its case. Read-only.

use std::collections::BTreeSet;
use std::time::{Duration, SystemTime};

use k8s_openapi::api::core::v1::Node;
use kube::Api;

use super::ceph::{Ceph, Where};
use super::fence::Fence;
use super::holders::{holders, host_of, Holder};
use super::image::{image_of_pv, ImageSpec};
use super::run::which;
use super::view::kube_view;
use crate::collect::cluster::{Access, Cluster, Fetch};
use crate::model::{Case, RbdImageState};

/// For `doctor pod`: the holders of every RBD image the case's PVs (or inline volumes) name,
/// judged. Images whose holders Ceph could not give are skipped with a note.
pub async fn holders_for_case(
    case: &Case,
    cluster: &Cluster,
    ceph: &Ceph,
) -> (Vec<(ImageSpec, RbdImageState, Vec<Holder>)>, Vec<String>) {
    let mut images: BTreeSet<ImageSpec> = case
        .pvs
        .iter()
        .filter_map(|pv| image_of_pv(pv).map(|i| i.0))
        .collect();
    for v in case
        .pod
        .iter()
        .flat_map(|p| p.spec.iter())
        .flat_map(|s| s.volumes.iter().flatten())
    {
        if let Some(r) = &v.rbd {
            images.extend(ImageSpec::of_parts(
                r.pool.as_deref().unwrap_or("rbd"),
                None,
                &r.image,
            ));
        }
    }
    let mut out = Vec::new();
    let mut notes = Vec::new();
    for image in images {
        let (locks, watchers) = match ceph.holders_of(&image).await {
            Ok(x) => x,
            Err(e) => {
                // The command line is in -v's log; the report keeps the reason and the way out.
                static CMD: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
                    regex::Regex::new(r"(?:cannot reach Ceph: )?`[^`]*` failed \(exit \d+\): ")
                        .expect("static regex")
                });
                // The way out `rbd status` gives names its own flags (--ceph-conf, --toolbox,
                // ...): from `doctor pod`, which takes none of them, it is named as that command
                // (issue 29: hints name only flags the command takes).
                let why = CMD.replace(&e.to_string(), "").into_owned();
                let why = why
                    .split_once("; check --ceph-conf")
                    .or_else(|| why.split_once(", or run it inside a Rook toolbox"))
                    .map_or(why.as_str(), |(w, _)| w)
                    .to_string();
                notes.push(format!(
                    "the holders of {image} were not read from Ceph: {why}; `volmnt rbd status {image}` reads them with --ceph-conf, --id and --keyring, or through a Rook toolbox with --toolbox NAMESPACE/POD"
                ));
                continue;
            }
        };
        let hosts = locks
            .iter()
            .map(|l| &l.address)
            .chain(watchers.iter().map(|w| &w.address))
            .filter_map(|a| host_of(a))
            .collect();
        let view = kube_view(cluster, &image, &hosts).await;
        let judged = holders(&locks, &watchers, &view, SystemTime::now());
        let state = RbdImageState {
            image: Some(image.to_string()),
            locks,
            watchers: Some(watchers),
            lock_kind: None,
            judged: judged.iter().map(Holder::judgement).collect(),
        };
        out.push((image, state, judged));
    }
    (out, notes)
}

/// How long `doctor` waits for each rbd call: it is a side read, not the point of the command.
pub const DOCTOR_CEPH_TIMEOUT: Duration = Duration::from_secs(10);

/// The hook `doctor pod` calls when a finding is `rbd_lock_held` or `rbd_watcher_stale`: read
/// the holders of the case's RBD images with the local CLIs (CEPH_CONF or /etc/ceph), judge
/// them against the cluster, and add to the case the listing (`case.rbd`), the holders' Node
/// objects (so the report names the holder node) and one note per holder naming its node, the
/// pods there and the verdict, with the `volmnt rbd unlock ... --dry-run` to run next.
/// Read-only. Returns false (and changes nothing but a note) when Ceph cannot be read.
pub async fn enrich_case(case: &mut Case, cluster: &Cluster) -> bool {
    if which("rbd").is_none() {
        case.notes.push(
            "the rbd CLI is not on this machine, so the image's holders were not read; \
             `volmnt rbd status POOL/IMAGE --toolbox NAMESPACE/POD` reads them through a Rook toolbox"
                .into(),
        );
        return false;
    }
    let ceph = Ceph {
        place: Where::Local,
        conf: None,
        id: None,
        keyring: None,
        timeout: DOCTOR_CEPH_TIMEOUT,
        fence: Fence::default(),
    };
    let (found, notes) = holders_for_case(case, cluster, &ceph).await;
    case.notes.extend(notes);
    if found.is_empty() {
        return false;
    }
    for (image, state, judged) in found {
        for h in &judged {
            if let Some(n) = &h.node {
                if !case
                    .nodes
                    .iter()
                    .any(|x| x.metadata.name.as_deref() == Some(n))
                {
                    let api = Api::<Node>::all(cluster.client());
                    if let Ok(Fetch::Got(node)) =
                        cluster.get(api, n, Access::cluster("nodes")).await
                    {
                        case.nodes.push(node);
                    }
                }
            }
        }
        case.rbd
            .retain(|s| s.image.as_deref() != Some(&image.to_string()));
        case.rbd.push(state);
    }
    true
}
