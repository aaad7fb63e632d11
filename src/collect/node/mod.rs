//! Running volmnt's read-only probe script on a node, by one of three transports (local, ssh,
//! exec through a short-lived pod). Every transport sends the same embedded script on stdin and
//! returns its raw output; `parse::probe` reads it and `diagnose::node_check` judges it.

pub mod daemonset;
pub mod exec;
pub mod fleet;
pub mod local;
pub mod ssh;

/// The probe script (POSIX sh, read-only), embedded in the binary and sent on stdin.
pub const PROBE_SCRIPT: &str = include_str!("probe.sh");

pub use crate::model::node::ProbeRun;
