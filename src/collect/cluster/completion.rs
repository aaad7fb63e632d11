//! Names for shell completion, from the cluster.

use k8s_openapi::api::core::v1::{Namespace as NamespaceObj, Node, PersistentVolumeClaim, Pod};
use kube::api::ListParams;
use kube::Api;

use super::client::{Cluster, ConnectOptions};

/// What shell completion asks the cluster for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Names {
    Pods,
    Namespaces,
    Nodes,
    Claims,
}

/// Names for shell completion: best effort and bounded (`o.request_timeout`, one connection,
/// metadata only), never an error: a shell waiting on a completion must not hang or print one.
/// Pods and claims are those of `o.namespace` (or the context's).
pub fn names_for_completion(o: &ConnectOptions, what: Names) -> Vec<String> {
    let Ok(rt) = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    else {
        return Vec::new();
    };
    let budget = o.request_timeout;
    rt.block_on(async {
        let work = async {
            let cluster = Cluster::connect(o).await.ok()?;
            let c = cluster.client();
            let ns = cluster.namespace.clone();
            let names = match what {
                Names::Pods => {
                    cluster
                        .names_matching(Api::<Pod>::namespaced(c, &ns), ListParams::default())
                        .await
                }
                Names::Claims => {
                    cluster
                        .names_matching(
                            Api::<PersistentVolumeClaim>::namespaced(c, &ns),
                            ListParams::default(),
                        )
                        .await
                }
                Names::Namespaces => {
                    cluster
                        .names_matching(Api::<NamespaceObj>::all(c), ListParams::default())
                        .await
                }
                Names::Nodes => {
                    cluster
                        .names_matching(Api::<Node>::all(c), ListParams::default())
                        .await
                }
            }?;
            Some(names.into_iter().map(|(_, n)| n).collect::<Vec<_>>())
        };
        tokio::time::timeout(budget, work)
            .await
            .ok()
            .flatten()
            .unwrap_or_default()
    })
}
