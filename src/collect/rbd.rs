//! Who holds an RBD image, and releasing it only when the holder is provably gone.
//!
//! Four parts, kept apart so that the dangerous one is small:
//! 1. reaching Ceph: the local `rbd`/`ceph` CLIs (found on the PATH) or the same CLIs inside a
//!    Rook toolbox pod (the exec API); every call is an argument vector (never a shell string)
//!    bounded by a timeout, and the CLIs' exit codes become clear errors;
//! 2. judging each holder (a lock or a watcher): its address → a Kubernetes node (InternalIP /
//!    ExternalIP) → the pods on that node that use the image (PV → PVC → pod), giving a
//!    verdict `live`, `stale` or `unknown` with the reason ([`judge`], pure);
//! 3. the plan: what would be run for which holder and why ([`plan()`], pure);
//! 4. [`execute()`]: the only function that runs `rbd lock rm` or `ceph osd blocklist add`. It
//!    takes a [`Confirmation`], which only `--yes` or a "yes" typed on a terminal can make, and
//!    which is bound to the plan it confirmed.
//!
//! The files, bottom up: `image` (the image spec, and the image a PV stands for), `fence`
//! (Ceph's word for fencing, by release), `run` (one CLI call, locally or in a toolbox pod, and
//! its exit read into an error), `ceph` (where and how to reach Ceph; the read-only calls),
//! `holders` (part 2, pure), `view` (what part 2 reads from the Kubernetes API), `plan`
//! (part 3), `execute` (part 4), and `doctor` (the hook `doctor pod` calls). Each file imports
//! from its siblings, never from this one, which only re-exports.

mod ceph;
mod doctor;
mod execute;
mod fence;
mod holders;
mod image;
mod plan;
mod run;
mod view;

pub use ceph::{Ceph, Tool, Where};
pub use doctor::{enrich_case, holders_for_case, DOCTOR_CEPH_TIMEOUT};
pub use execute::{execute, Confirmation, Outcome};
pub use fence::Fence;
pub use holders::{
    holders, host_of, judge, Holder, HolderKind, KubeView, NodeFacts, PodUse, Verdict,
    NOT_READY_STALE,
};
pub use image::{image_of_pv, ImageSpec};
pub use plan::{plan, Action, Flags, Plan, Refusal, Step};
pub use run::{cli_error, shell_join, shell_quote, which, Output};
pub use view::{image_of_claim_or_pod, kube_view};
