//! What a pod names (claims, ConfigMaps, Secrets), what a namespace-wide run keeps of a pod that
//! uses claims, and events in the model.

use std::collections::BTreeSet;

use k8s_openapi::api::core::v1::{Event as CoreEvent, Pod};
use k8s_openapi::api::events::v1::Event as EventsV1;

use crate::model::Event;

/// What a pod's spec names: claims (incl. generic ephemeral ones), ConfigMaps and Secrets.
pub struct PodRefs {
    pub claims: BTreeSet<String>,
    pub configmaps: Vec<String>,
    pub secrets: Vec<String>,
}

impl PodRefs {
    pub fn of(pod: &Pod) -> PodRefs {
        let mut r = PodRefs {
            claims: BTreeSet::new(),
            configmaps: Vec::new(),
            secrets: Vec::new(),
        };
        let pod_name = pod.metadata.name.clone().unwrap_or_default();
        for v in pod.spec.iter().flat_map(|s| s.volumes.iter().flatten()) {
            if let Some(c) = &v.persistent_volume_claim {
                r.claims.insert(c.claim_name.clone());
            }
            if v.ephemeral.is_some() {
                r.claims.insert(format!("{pod_name}-{}", v.name));
            }
            if let Some(cm) = &v.config_map {
                if cm.optional != Some(true) {
                    r.configmaps.push(cm.name.clone());
                }
            }
            if let Some(s) = &v.secret {
                if s.optional != Some(true) {
                    r.secrets.extend(s.secret_name.clone());
                }
            }
            for src in v.projected.iter().flat_map(|p| p.sources.iter().flatten()) {
                if let Some(cm) = &src.config_map {
                    if cm.optional != Some(true) {
                        r.configmaps.push(cm.name.clone());
                    }
                }
                if let Some(s) = &src.secret {
                    if s.optional != Some(true) {
                        r.secrets.push(s.name.clone());
                    }
                }
            }
        }
        r.configmaps.sort();
        r.configmaps.dedup();
        r.secrets.sort();
        r.secrets.dedup();
        r
    }
}

pub(super) fn ns_of(p: &Pod) -> String {
    ns_of_meta(&p.metadata)
}

pub(super) fn ns_of_meta(m: &k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta) -> String {
    m.namespace.clone().unwrap_or_default()
}

/// What a namespace-wide run keeps of a pod that uses claims: a few strings, not the pod (a
/// k8s-openapi `Volume` alone is over 3 KB, every source type inline).
#[derive(Debug, Clone)]
pub struct ClaimUser {
    pub namespace: String,
    pub name: String,
    pub node: Option<String>,
    pub phase: Option<String>,
    pub deleting: bool,
    pub claims: Vec<String>,
}

impl ClaimUser {
    pub fn of(p: &Pod) -> ClaimUser {
        ClaimUser {
            namespace: ns_of(p),
            name: p.metadata.name.clone().unwrap_or_default(),
            node: p.spec.as_ref().and_then(|s| s.node_name.clone()),
            phase: p.status.as_ref().and_then(|s| s.phase.clone()),
            deleting: p.metadata.deletion_timestamp.is_some(),
            claims: PodRefs::of(p).claims.into_iter().collect(),
        }
    }

    /// Back to a minimal Pod: name, node, phase and its claim volumes (what the rules read).
    pub fn to_pod(&self) -> Pod {
        use k8s_openapi::api::core::v1::{
            PersistentVolumeClaimVolumeSource, PodSpec, PodStatus, Volume,
        };
        let mut p = Pod::default();
        p.metadata.name = Some(self.name.clone());
        p.metadata.namespace = Some(self.namespace.clone());
        if self.deleting {
            // Only presence matters to the rules; the time is not kept.
            p.metadata.deletion_timestamp = Some(
                k8s_openapi::apimachinery::pkg::apis::meta::v1::Time(Default::default()),
            );
        }
        p.spec = Some(PodSpec {
            node_name: self.node.clone(),
            volumes: Some(
                self.claims
                    .iter()
                    .map(|c| Volume {
                        name: c.clone(),
                        persistent_volume_claim: Some(PersistentVolumeClaimVolumeSource {
                            claim_name: c.clone(),
                            read_only: None,
                        }),
                        ..Volume::default()
                    })
                    .collect(),
            ),
            ..PodSpec::default()
        });
        p.status = Some(PodStatus {
            phase: self.phase.clone(),
            ..PodStatus::default()
        });
        p
    }
}

/// A core/v1 Event in the model: the same conversion as saved objects, so both paths diagnose
/// alike.
pub fn event_from_core(e: &CoreEvent) -> Event {
    crate::parse::objects::from_core_event(e)
}

/// An events.k8s.io/v1 Event in the same model.
pub fn event_from_v1(e: &EventsV1) -> Event {
    crate::parse::objects::from_events_v1(e)
}
