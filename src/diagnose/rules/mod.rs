//! Correlation rules: small units over the collected `Case` that add what object state says
//! (a lock listed by `rbd lock ls`, a PVC that is Pending, a CSI driver that brings its own NFS
//! client). Rules never do I/O. Each lives in its own file with its tests; register it below.

mod attachments;
mod claim_elsewhere;
mod csi_driver;
mod held_by_node;
mod missing_objects;
mod nfs_csi;
mod node_facts;
mod present_state;
mod pvc_state;
mod rbd_holders;

use super::context::Hints;
use super::findings::Accs;
use crate::model::Case;

/// A rule reads the case and adjusts the findings under construction.
pub type Rule = fn(&Case, &Hints, &mut Accs);

/// Every rule, in the order they run.
pub const RULES: &[(&str, Rule)] = &[
    ("rbd_holders", rbd_holders::apply),
    ("missing_objects", missing_objects::apply),
    ("pvc_state", pvc_state::apply),
    ("csi_driver", csi_driver::apply),
    ("attachments", attachments::apply),
    // After the rules that may create lock/attach findings, so it can name the other node.
    ("claim_elsewhere", claim_elsewhere::apply),
    // Another node's own status: volumesInUse / volumesAttached.
    ("held_by_node", held_by_node::apply),
    ("nfs_csi", nfs_csi::apply),
    // After every rule that adds from the objects: what the objects say now outweighs old
    // messages.
    ("present_state", present_state::apply),
    // What the node itself shows outweighs what messages suggest.
    ("node_facts", node_facts::apply),
    // The candidates behind a symptom nothing explains, for the differential to settle.
    ("suspects", crate::diagnose::evidence::apply_suspects),
    // Last: the differential of knowledge.yaml's `evidence:` (facts that settle, support or
    // rule out the causes a message can mean).
    ("evidence", crate::diagnose::evidence::apply_rule),
];

pub fn apply_all(case: &Case, hints: &Hints, accs: &mut Accs) {
    for (_, rule) in RULES {
        rule(case, hints, accs);
    }
}
