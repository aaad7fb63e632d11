//! Correlation rules: small units over the collected `Case` that add what object state says
//! (a lock listed by `rbd lock ls`, a PVC that is Pending, a CSI driver that brings its own NFS
//! client). Rules never do I/O. Each lives in its own file with its tests; register it below.

mod nfs_csi;
mod pvc_state;
mod rbd_holders;

use super::context::Hints;
use super::Accs;
use crate::model::Case;

/// A rule reads the case and adjusts the findings under construction.
pub type Rule = fn(&Case, &Hints, &mut Accs);

/// Every rule, in the order they run.
pub const RULES: &[(&str, Rule)] = &[
    ("rbd_holders", rbd_holders::apply),
    ("pvc_state", pvc_state::apply),
    ("nfs_csi", nfs_csi::apply),
];

pub fn apply_all(case: &Case, hints: &Hints, accs: &mut Accs) {
    for (_, rule) in RULES {
        rule(case, hints, accs);
    }
}
