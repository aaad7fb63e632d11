//! What a pod names (claims, ConfigMaps, Secrets), what a namespace-wide run keeps of a pod that
//! uses claims, and events in the model.

use std::collections::{BTreeSet, HashSet};

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

/// The users of a stuck pod's claims that its case keeps: per claim, the first by name on each
/// node in each state (phase, being deleted), and the number left out. What the rules read of
/// another user (`ClaimUser::to_pod` keeps nothing else) is where it is, whether it runs and
/// which claims it uses: a Deployment's 600 replicas sharing one ReadWriteMany claim on 50
/// nodes are 600 copies of 50 facts. Kept whole, they were 3.7 MB of Pods per case (a
/// k8s-openapi `Volume` is over 3 KB), 11 GB for the 3,000 stuck pods of 50,000 diagnosed
/// after the watch's first sync.
pub fn distinct_users<'a>(
    mut users: Vec<&'a ClaimUser>,
    claims: &BTreeSet<String>,
) -> (Vec<&'a ClaimUser>, usize) {
    users.sort_by(|a, b| (&a.namespace, &a.name).cmp(&(&b.namespace, &b.name)));
    users.dedup_by(|a, b| a.namespace == b.namespace && a.name == b.name);
    let total = users.len();
    let mut seen: HashSet<(&str, Option<&str>, Option<&str>, bool)> = HashSet::new();
    let kept: Vec<&ClaimUser> = users
        .into_iter()
        .filter(|u| {
            let mut new = false;
            for c in u.claims.iter().filter(|c| claims.contains(*c)) {
                new |= seen.insert((c, u.node.as_deref(), u.phase.as_deref(), u.deleting));
            }
            new
        })
        .collect();
    let left = total - kept.len();
    (kept, left)
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

#[cfg(test)]
mod tests {
    use super::*;

    fn user(name: &str, node: Option<&str>, phase: &str, claims: &[&str]) -> ClaimUser {
        ClaimUser {
            namespace: "shop".into(),
            name: name.into(),
            node: node.map(String::from),
            phase: Some(phase.into()),
            deleting: false,
            claims: claims.iter().map(|c| c.to_string()).collect(),
        }
    }

    #[test]
    fn a_claims_users_are_kept_once_per_node_and_state_and_the_rest_counted() {
        let mut users = vec![
            // 600 replicas of one Deployment on 3 nodes share claim data.
            user("web-b", Some("n1"), "Running", &["data"]),
            user("web-a", Some("n1"), "Running", &["data"]),
            user("web-c", Some("n2"), "Running", &["data"]),
            user("web-d", Some("n2"), "Pending", &["data"]),
            user("web-e", None, "Pending", &["data"]),
            user("web-f", None, "Pending", &["data"]),
            // Same node and state as web-a, but also the only user of claim logs there.
            user("web-g", Some("n1"), "Running", &["data", "logs"]),
            // Not one of the stuck pod's claims: does not make web-h distinct.
            user("web-h", Some("n1"), "Running", &["data", "other"]),
        ];
        for i in 0..600 {
            users.push(user(
                &format!("zz-rep-{i:03}"),
                Some(["n1", "n2", "n3"][i % 3]),
                "Running",
                &["data"],
            ));
        }
        let claims: BTreeSet<String> = ["data", "logs"].iter().map(|c| c.to_string()).collect();
        let (kept, left) = distinct_users(users.iter().collect(), &claims);
        let names: Vec<&str> = kept.iter().map(|u| u.name.as_str()).collect();
        // The first by name of each (claim, node, phase): zz-rep-002 is the first on n3.
        assert_eq!(
            names,
            ["web-a", "web-c", "web-d", "web-e", "web-g", "zz-rep-002"]
        );
        assert_eq!(left, users.len() - 6);
        // Listed twice (two claims matched in the caller), kept once.
        let twice = vec![&users[0], &users[0]];
        let (kept, left) = distinct_users(twice, &claims);
        assert_eq!((kept.len(), left), (1, 0));
    }
}
