//! A CSI NFS driver's node plugin brings its own `mount.nfs`: when the volume is CSI, a
//! "missing helper" message is about the plugin image, not the host, and installing the host's
//! NFS client would not help.

use crate::diagnose::context::Hints;
use crate::diagnose::findings::Accs;
use crate::model::Case;

pub fn apply(_case: &Case, _hints: &Hints, accs: &mut Accs) {
    let Some(a) = accs.get("nfs_client_missing") else {
        return;
    };
    let csi = a.ctx.as_ref().and_then(|c| {
        c.volume
            .as_ref()
            .filter(|v| !v.in_tree)
            .and_then(|v| v.driver.clone())
            .or_else(|| c.error.driver.clone())
    });
    if let Some(driver) = csi {
        let original = a.confidence;
        let why = format!(
            "the volume is mounted by the CSI driver {driver}, whose node plugin image carries its own NFS client: the host's nfs-utils/nfs-common does not apply; check the plugin image and its logs"
        );
        a.confidence = (original - 0.5).max(0.3);
        a.fact(why.clone());
        let (evidence, ctx) = (a.evidence.clone(), a.ctx.clone());
        // The same messages now point at the plugin image lacking the helper.
        let a2 = accs.entry("fs_helper_missing", original - 0.1);
        a2.origins.insert("objects");
        for e in evidence {
            if !a2.has_evidence(&e.text) {
                a2.evidence.push(e);
            }
        }
        if a2.ctx.is_none() {
            a2.ctx = ctx;
        }
        a2.vars.insert("driver", driver);
        // No host package fixes this; the install step says so instead of naming one.
        a2.vars.insert("client", "the CSI node plugin image".into());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnose::catalogue::FsFamily;
    use crate::diagnose::context::{MsgContext, VolumeHint};

    #[test]
    fn csi_nfs_volume_demotes_the_host_client() {
        let mut accs = Accs::default();
        let a = accs.entry("nfs_client_missing", 0.92);
        a.ctx = Some(MsgContext {
            fs: FsFamily::Nfs,
            volume: Some(VolumeHint {
                fs: FsFamily::Nfs,
                driver: Some("nfs.csi.k8s.io".into()),
                in_tree: false,
                ..VolumeHint::default()
            }),
            ..MsgContext::default()
        });
        apply(&Case::default(), &Hints::default(), &mut accs);
        assert!(accs.get("nfs_client_missing").unwrap().confidence < 0.7);
        assert!(accs.has("fs_helper_missing"));
    }

    #[test]
    fn in_tree_nfs_is_left_alone() {
        let mut accs = Accs::default();
        let a = accs.entry("nfs_client_missing", 0.92);
        a.ctx = Some(MsgContext {
            fs: FsFamily::Nfs,
            volume: Some(VolumeHint {
                fs: FsFamily::Nfs,
                in_tree: true,
                ..VolumeHint::default()
            }),
            ..MsgContext::default()
        });
        apply(&Case::default(), &Hints::default(), &mut accs);
        assert_eq!(accs.get("nfs_client_missing").unwrap().confidence, 0.92);
    }
}
