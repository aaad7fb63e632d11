//! A CSI volume whose driver has no CSIDriver object, or is not in the node's CSINode: the node
//! plugin never registered there.

use crate::diagnose::context::Hints;
use crate::diagnose::findings::Accs;
use crate::model::Case;

pub fn apply(case: &Case, hints: &Hints, accs: &mut Accs) {
    let node = case.node_name().unwrap_or("the node").to_string();
    let drivers_read = !case
        .denied
        .iter()
        .any(|d| d.plain_resource() == "csidrivers");
    for driver in hints.all().filter_map(|h| h.driver.clone()) {
        let mut lines = Vec::new();
        let mut strong = false;
        if let Some(cn) = case.csi_nodes.first() {
            let registered = cn.spec.drivers.iter().any(|d| d.name == driver);
            if !registered {
                let have: Vec<&str> = cn.spec.drivers.iter().map(|d| d.name.as_str()).collect();
                lines.push(format!(
                    "CSINode {node} lists no driver {driver} (registered there: {})",
                    if have.is_empty() {
                        "none".into()
                    } else {
                        have.join(", ")
                    }
                ));
                strong = true;
            }
        }
        // CSIDriver objects are optional for some drivers, so their absence alone is weak.
        if drivers_read
            && !case.csi_drivers.is_empty()
            && !case
                .csi_drivers
                .iter()
                .any(|d| d.metadata.name.as_deref() == Some(driver.as_str()))
        {
            lines.push(format!(
                "no CSIDriver object named {driver} exists in the cluster"
            ));
        }
        if lines.is_empty() {
            continue;
        }
        let base = match (accs.has("csi_driver_not_registered"), strong) {
            (true, _) => 0.9,
            (false, true) => 0.8,
            (false, false) => 0.4,
        };
        let a = accs.entry("csi_driver_not_registered", base);
        a.origins.insert("objects");
        for l in lines {
            a.fact(l);
        }
        a.vars.insert("driver", driver);
    }
}
