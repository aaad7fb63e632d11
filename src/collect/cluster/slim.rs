//! A pod as a namespace-wide read (and `volmnt watch`) needs it when it cannot be stuck (it is
//! not Pending): who it is, where it runs, its phase and the claims it uses. Decoded straight
//! from the API's JSON into these few fields, so the rest of a pod (containers, managedFields,
//! status, every volume source inline: kilobytes each, 50,000 times over) is skipped by the
//! parser instead of being built and dropped.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ObjectMeta, Time};
use serde::de::IgnoredAny;
use serde::{Deserialize, Deserializer};

use super::refs::ClaimUser;

/// A pod cut at decoding to what a claim user is ([`ClaimUser`]); an API resource of its own
/// (kind Pod, core/v1), so lists and watches decode into it directly.
#[derive(Clone, Debug, Deserialize)]
pub struct ClaimPod {
    #[serde(deserialize_with = "slim_meta")]
    pub metadata: ObjectMeta,
    #[serde(default)]
    spec: Option<SlimSpec>,
    #[serde(default)]
    status: Option<SlimStatus>,
}

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct SlimSpec {
    #[serde(default)]
    node_name: Option<String>,
    #[serde(default)]
    volumes: Option<Vec<SlimVolume>>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct SlimVolume {
    #[serde(default)]
    name: String,
    #[serde(default)]
    persistent_volume_claim: Option<SlimClaim>,
    #[serde(default)]
    ephemeral: Option<IgnoredAny>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct SlimClaim {
    claim_name: String,
}

#[derive(Clone, Debug, Default, Deserialize)]
struct SlimStatus {
    #[serde(default)]
    phase: Option<String>,
}

/// The metadata fields a list, a watch and a claim user need; the rest (labels, annotations,
/// owner references, managedFields) skipped.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct SlimMeta {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    generate_name: Option<String>,
    #[serde(default)]
    namespace: Option<String>,
    #[serde(default)]
    uid: Option<String>,
    #[serde(default)]
    resource_version: Option<String>,
    #[serde(default)]
    creation_timestamp: Option<Time>,
    #[serde(default)]
    deletion_timestamp: Option<Time>,
}

fn slim_meta<'de, D: Deserializer<'de>>(d: D) -> Result<ObjectMeta, D::Error> {
    let m = SlimMeta::deserialize(d)?;
    Ok(ObjectMeta {
        name: m.name,
        generate_name: m.generate_name,
        namespace: m.namespace,
        uid: m.uid,
        resource_version: m.resource_version,
        creation_timestamp: m.creation_timestamp,
        deletion_timestamp: m.deletion_timestamp,
        ..ObjectMeta::default()
    })
}

impl ClaimPod {
    /// The claims it uses (a generic ephemeral volume's claim is `POD-VOLUME`), sorted.
    pub fn claims(&self) -> Vec<String> {
        let pod = self.metadata.name.as_deref().unwrap_or("");
        let mut v: Vec<String> = self
            .spec
            .iter()
            .flat_map(|s| s.volumes.iter().flatten())
            .filter_map(|v| match (&v.persistent_volume_claim, &v.ephemeral) {
                (Some(c), _) => Some(c.claim_name.clone()),
                (None, Some(_)) => Some(format!("{pod}-{}", v.name)),
                _ => None,
            })
            .collect();
        v.sort();
        v.dedup();
        v
    }

    pub fn phase(&self) -> Option<&str> {
        self.status.as_ref()?.phase.as_deref()
    }

    /// As a claim user, when it uses a claim.
    pub fn claim_user(&self) -> Option<ClaimUser> {
        let claims = self.claims();
        if claims.is_empty() {
            return None;
        }
        Some(ClaimUser {
            namespace: self.metadata.namespace.clone().unwrap_or_default(),
            name: self.metadata.name.clone().unwrap_or_default(),
            node: self.spec.as_ref().and_then(|s| s.node_name.clone()),
            phase: self.status.as_ref().and_then(|s| s.phase.clone()),
            deleting: self.metadata.deletion_timestamp.is_some(),
            claims,
        })
    }
}

impl kube::Resource for ClaimPod {
    type DynamicType = ();
    type Scope = k8s_openapi::NamespaceResourceScope;

    fn kind(_: &()) -> std::borrow::Cow<'_, str> {
        "Pod".into()
    }
    fn group(_: &()) -> std::borrow::Cow<'_, str> {
        "".into()
    }
    fn version(_: &()) -> std::borrow::Cow<'_, str> {
        "v1".into()
    }
    fn plural(_: &()) -> std::borrow::Cow<'_, str> {
        "pods".into()
    }
    fn meta(&self) -> &ObjectMeta {
        &self.metadata
    }
    fn meta_mut(&mut self) -> &mut ObjectMeta {
        &mut self.metadata
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_claim_pod_keeps_who_where_phase_and_claims_only() {
        let json = serde_json::json!({
            "metadata": {"name": "web-1", "namespace": "shop", "uid": "u1", "resourceVersion": "7",
                         "labels": {"app": "web"}, "managedFields": [{"manager": "kubelet"}],
                         "deletionTimestamp": "2026-11-29T03:00:00Z"},
            "spec": {"nodeName": "n1", "containers": [{"name": "c", "image": "i"}],
                     "volumes": [{"name": "data", "persistentVolumeClaim": {"claimName": "data-web-1"}},
                                 {"name": "scratch", "ephemeral": {"volumeClaimTemplate": {"spec": {}}}},
                                 {"name": "cfg", "configMap": {"name": "cfg"}}]},
            "status": {"phase": "Running", "containerStatuses": []}
        });
        let p: ClaimPod = serde_json::from_value(json).unwrap();
        assert_eq!(p.metadata.labels, None);
        assert_eq!(p.metadata.managed_fields, None);
        let u = p.claim_user().unwrap();
        assert_eq!(u.claims, ["data-web-1", "web-1-scratch"]);
        assert_eq!(
            (u.namespace.as_str(), u.name.as_str(), u.node.as_deref()),
            ("shop", "web-1", Some("n1"))
        );
        assert_eq!(u.phase.as_deref(), Some("Running"));
        assert!(u.deleting);
        let none: ClaimPod =
            serde_json::from_value(serde_json::json!({"metadata": {"name": "x"}})).unwrap();
        assert!(none.claim_user().is_none());
    }
}
