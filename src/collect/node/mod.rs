//! Running volmnt's read-only probe script on a node, by one of three transports (local, ssh,
//! exec through a short-lived pod). Every transport sends the same embedded script on stdin and
//! returns its raw output; `parse::probe` reads it and `diagnose::node_check` judges it.

pub mod daemonset;
pub mod exec;
pub mod local;
pub mod ssh;

use std::time::Duration;

/// The probe script (POSIX sh, read-only), embedded in the binary and sent on stdin.
pub const PROBE_SCRIPT: &str = include_str!("probe.sh");

/// What one run of the probe gave back.
#[derive(Debug, Clone)]
pub struct ProbeRun {
    /// The node name, or the host for --ssh, or `local`.
    pub target: String,
    pub stdout: Vec<u8>,
    pub stderr: String,
    /// `None` when the process was killed (timeout).
    pub exit_code: Option<i32>,
    pub elapsed: Duration,
}
