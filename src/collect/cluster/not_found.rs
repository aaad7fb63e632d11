//! What is not there, said so that a typo is never mistaken for an answer: a namespace that does
//! not exist (with the names closest to it), a pod not found (where a pod of that name does
//! exist, and the names closest to it in its namespace).

use k8s_openapi::api::core::v1::{Namespace as NamespaceObj, Pod};
use kube::api::ListParams;
use kube::Api;

use super::client::Cluster;
use super::errors::quoted_list;
use crate::error::Error;

impl Cluster {
    /// Whether a namespace exists: `Some(false)` only on a 404 (a refused or failed read says
    /// nothing).
    pub async fn namespace_exists(&self, ns: &str) -> Option<bool> {
        let api: Api<NamespaceObj> = Api::all(self.client.clone());
        match tokio::time::timeout(self.timeout, api.get_metadata(ns)).await {
            Ok(Ok(_)) => Some(true),
            Ok(Err(kube::Error::Api(s))) if s.code == 404 => Some(false),
            _ => None,
        }
    }

    /// A usage error (with the names closest to it) when the namespace does not exist; a
    /// refused or failed read lets the command go on and say what it meets.
    pub async fn require_namespace(&self, ns: &str) -> Result<(), Error> {
        match self.namespace_exists(ns).await {
            Some(false) => Err(self.namespace_missing(ns).await),
            _ => Ok(()),
        }
    }

    /// The error for a namespace that does not exist, with the names closest to it.
    pub async fn namespace_missing(&self, ns: &str) -> Error {
        let api: Api<NamespaceObj> = Api::all(self.client.clone());
        let names = self
            .names_matching(api, ListParams::default())
            .await
            .unwrap_or_default();
        let near = crate::parse::closest(ns, names.iter().map(|(_, n)| n.as_str()));
        let hint = match near.as_slice() {
            [] => "`kubectl get namespaces` lists them".to_string(),
            n => format!("did you mean {}?", quoted_list(n)),
        };
        Error::Usage(format!(
            "namespace {ns:?} does not exist in {}; {hint}",
            self.target
        ))
    }

    /// The error for a pod that is not there: whether its namespace exists, in which namespaces
    /// a pod of that name does exist, and the names in its namespace closest to it.
    pub(super) async fn pod_not_found(&self, ns: &str, name: &str) -> Error {
        let c = self.client.clone();
        let (ns_exists, elsewhere, here) = futures::join!(
            self.namespace_exists(ns),
            self.names_matching(
                Api::<Pod>::all(c.clone()),
                ListParams::default().fields(&format!("metadata.name={name}")),
            ),
            self.names_matching(Api::<Pod>::namespaced(c.clone(), ns), ListParams::default()),
        );
        let elsewhere: Vec<String> = elsewhere
            .unwrap_or_default()
            .into_iter()
            .filter(|(n, pod)| n != ns && pod == name)
            .map(|(n, _)| n)
            .collect();
        let there = match elsewhere.as_slice() {
            [] => String::new(),
            [one] => format!(
                "; a pod {name:?} exists in namespace {one}: volmnt doctor pod {name} -n {one}"
            ),
            many => format!(
                "; pods named {name:?} exist in namespaces {}",
                many.join(", ")
            ),
        };
        if ns_exists == Some(false) {
            let Error::Usage(m) = self.namespace_missing(ns).await else {
                unreachable!("namespace_missing is a usage error")
            };
            return Error::Usage(format!("pod {ns}/{name}: {m}{there}"));
        }
        let near = here
            .map(|v| {
                crate::parse::closest(name, v.iter().map(|(_, n)| n.as_str()))
                    .into_iter()
                    .map(str::to_string)
                    .collect::<Vec<_>>()
            })
            .unwrap_or_default();
        let similar = if near.is_empty() {
            format!("`kubectl get pods -n {ns}` lists the pods there")
        } else {
            let r: Vec<&str> = near.iter().map(String::as_str).collect();
            format!("did you mean {}?", quoted_list(&r))
        };
        Error::Usage(format!(
            "pod {name:?} not found in namespace {ns} ({}){there}; {similar}",
            self.target
        ))
    }
}
