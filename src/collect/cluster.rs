//! The live cluster → `Case`. Connection like kubectl (KUBECONFIG with several files merged,
//! `--kubeconfig`, `--context`, in-cluster config, exec and token auth through kube-rs), every
//! request bounded by `--request-timeout`, and reads issued in waves whose number does not grow
//! with the number of volumes: (1) the pod; (2) everything that only needs the pod, at once;
//! (3) the PVs and the other pods' nodes, which need the claims and pods of wave 2.
//!
//! A forbidden read does not stop the diagnosis: it is recorded (verb, resource, scope) and the
//! report says what was missing. Secrets are only ever read as metadata.
//!
//! The modules, bottom up: `errors` (refusals and failures in volmnt's words), `kubeconfig`,
//! `client` (the connection and what is counted about its use), `reads` (GET and paginated
//! LIST), `not_found` (errors for a namespace or pod that is not there), `refs` and `nodes`
//! (what a pod names; nodes cut to what the rules read), `assemble` and `stuck` (a case from
//! objects already read; which pods are stuck), then the two collectors: `pod` (`doctor pod`'s
//! waves) and `namespace` (`doctor namespace`'s rounds), with `evidence` (the node plugins, the
//! kubelet and the owners around a pod) and `completion` (names for shell completion).
//! Children import from their siblings, never from this file, which only re-exports.

mod assemble;
mod client;
mod completion;
mod errors;
mod evidence;
mod kubeconfig;
mod namespace;
mod nodes;
mod not_found;
mod pod;
mod reads;
mod refs;
mod slim;
mod stuck;

pub use assemble::{assemble, CaseObjects, Shared};
pub use client::{Cluster, ConnectOptions, ReadTime};
pub use completion::{names_for_completion, Names};
pub(crate) use errors::network_cause;
pub use errors::Access;
pub use kubeconfig::{context_names, Overrides};
pub use namespace::Fleet;
pub use nodes::nodes_listing;
pub use reads::{Fetch, PAGE};
pub use refs::{event_from_core, event_from_v1, ClaimUser, PodRefs};
pub use slim::ClaimPod;
pub use stuck::{has_volume_failure, is_stuck};
