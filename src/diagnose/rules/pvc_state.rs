//! A claim that is Pending or Lost (or that the pod names but is absent from a full dump) means
//! there is nothing to mount yet, whatever the mount messages say.

use crate::diagnose::context::Hints;
use crate::diagnose::findings::Accs;
use crate::model::Case;

pub fn apply(case: &Case, _hints: &Hints, accs: &mut Accs) {
    let Some(pod) = &case.pod else { return };
    let pod_name = pod.metadata.name.clone().unwrap_or_default();
    let claims: Vec<String> = pod
        .spec
        .iter()
        .flat_map(|s| s.volumes.iter().flatten())
        .filter_map(|v| match (&v.persistent_volume_claim, &v.ephemeral) {
            (Some(c), _) => Some(c.claim_name.clone()),
            // Generic ephemeral volumes get a claim named <pod>-<volume>.
            (None, Some(_)) => Some(format!("{pod_name}-{}", v.name)),
            _ => None,
        })
        .collect();
    for claim in &claims {
        let claim = claim.as_str();
        let Some(pvc) = case
            .pvcs
            .iter()
            .find(|c| c.metadata.name.as_deref() == Some(claim))
        else {
            continue;
        };
        let phase = pvc
            .status
            .as_ref()
            .and_then(|s| s.phase.as_deref())
            .unwrap_or("");
        if phase == "Pending" || phase == "Lost" {
            let a = accs.entry("pvc_unbound_or_missing", 0.9);
            a.origins.insert("objects");
            a.fact(format!("PersistentVolumeClaim {claim} is {phase}"));
            a.vars.insert("pvc", claim.to_string());
            // A class that does not exist is the commonest reason a claim never binds.
            let class = pvc.spec.as_ref().and_then(|s| s.storage_class_name.clone());
            let classes_read = !case.storage_classes.is_empty()
                && !case
                    .denied
                    .iter()
                    .any(|d| d.plain_resource() == "storageclasses");
            if let Some(class) = class.filter(|c| !c.is_empty()) {
                if classes_read
                    && !case
                        .storage_classes
                        .iter()
                        .any(|s| s.metadata.name.as_deref() == Some(class.as_str()))
                {
                    a.fact(format!(
                        "its StorageClass {class} does not exist (classes in the cluster: {})",
                        case.storage_classes
                            .iter()
                            .filter_map(|s| s.metadata.name.as_deref())
                            .collect::<Vec<_>>()
                            .join(", ")
                    ));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::api::core::v1::{
        PersistentVolumeClaim, PersistentVolumeClaimStatus, PersistentVolumeClaimVolumeSource, Pod,
        PodSpec, Volume,
    };

    #[test]
    fn a_pending_claim_becomes_a_finding() {
        let pod = Pod {
            spec: Some(PodSpec {
                volumes: Some(vec![Volume {
                    name: "data".into(),
                    persistent_volume_claim: Some(PersistentVolumeClaimVolumeSource {
                        claim_name: "data-0".into(),
                        read_only: None,
                    }),
                    ..Volume::default()
                }]),
                ..PodSpec::default()
            }),
            ..Pod::default()
        };
        let mut pvc = PersistentVolumeClaim::default();
        pvc.metadata.name = Some("data-0".into());
        pvc.status = Some(PersistentVolumeClaimStatus {
            phase: Some("Pending".into()),
            ..Default::default()
        });
        let case = Case {
            pod: Some(pod),
            pvcs: vec![pvc],
            ..Case::default()
        };
        let mut accs = Accs::default();
        apply(&case, &Hints::default(), &mut accs);
        let a = accs.get("pvc_unbound_or_missing").unwrap();
        assert_eq!(
            a.evidence[0].text,
            "PersistentVolumeClaim data-0 is Pending"
        );
        assert_eq!(a.evidence.len(), 1);
    }
}
