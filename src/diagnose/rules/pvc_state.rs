//! A claim that is Pending or Lost (or that the pod names but is absent from a full dump) means
//! there is nothing to mount yet, whatever the mount messages say. Why it does not bind is read
//! off the claim, its StorageClass and its own events, as the PV controller leaves them
//! (kubernetes pkg/controller/volume/persistentvolume/pv_controller.go, v1.36):
//!
//! - the class it names does not exist: `ProvisioningFailed` "storageclass.storage.k8s.io "X"
//!   not found" (provisionClaim → findProvisionablePlugin), and the StorageClasses listed do not
//!   have it: the classes that exist are named, the default marked;
//! - no class and no default: `FailedBinding` "no persistent volumes available for this claim
//!   and no storage class is set" (syncUnboundClaim);
//! - `volumeBindingMode: WaitForFirstConsumer`: nothing binds before the pod is scheduled
//!   (emitEventForUnboundDelayBindingClaim), so a pod the scheduler cannot place keeps it
//!   Pending: the scheduler's FailedScheduling says why;
//! - `kubernetes.io/no-provisioner`: only a PersistentVolume made by hand can bind it;
//! - an external provisioner (the claim's `volume.kubernetes.io/storage-provisioner`
//!   annotation, and the `ExternalProvisioning` event "Waiting for a volume to be created
//!   either by the external provisioner '%s' ...", provisionClaimOperationExternal): whether a
//!   CSIDriver of that name is registered says whether anything is there to answer;
//! - `ProvisioningFailed` from the provisioner itself: its message (a quota, no capacity).

use crate::diagnose::context::Hints;
use crate::diagnose::findings::Accs;
use crate::model::{Case, Event};
use k8s_openapi::api::core::v1::PersistentVolumeClaim;
use k8s_openapi::api::storage::v1::StorageClass;

/// The annotations that mark the default StorageClass (the beta one is still honoured).
const DEFAULT_CLASS: [&str; 2] = [
    "storageclass.kubernetes.io/is-default-class",
    "storageclass.beta.kubernetes.io/is-default-class",
];

/// The annotation the PV controller puts on a claim it hands to an external provisioner.
const STORAGE_PROVISIONER: [&str; 2] = [
    "volume.kubernetes.io/storage-provisioner",
    "volume.beta.kubernetes.io/storage-provisioner",
];

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
    let classes_read = !case.storage_classes.is_empty()
        && !case
            .denied
            .iter()
            .any(|d| d.plain_resource() == "storageclasses");
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
        if phase != "Pending" && phase != "Lost" {
            continue;
        }
        let why = why_unbound(case, pvc, phase, classes_read);
        let a = accs.entry("pvc_unbound_or_missing", 0.9);
        a.origins.insert("objects");
        a.fact(format!("PersistentVolumeClaim {claim} is {phase}"));
        for f in &why.facts {
            a.fact(f.clone());
        }
        // The first claim that says why is the one the verdict names.
        if a.headline.is_none() || (why.settled && !a.vars.contains_key("storage_class")) {
            a.headline = Some(why.headline.clone());
            a.vars.insert("pvc", claim.to_string());
            for (k, v) in &why.vars {
                a.vars.insert(k, v.clone());
            }
        }
        if why.settled {
            a.confidence = a.confidence.max(0.95);
        }
    }
}

/// What the claim, its class and its events say about why it is not Bound.
struct Why {
    /// The verdict's clause: the claim, what is wrong, and (after `; `) what to do.
    headline: String,
    facts: Vec<String>,
    /// Names for the steps (`storage_class`, `class_suggested`, `provisioner`).
    vars: Vec<(&'static str, String)>,
    /// An object fact says it for sure (a class that does not exist).
    settled: bool,
}

fn why_unbound(case: &Case, pvc: &PersistentVolumeClaim, phase: &str, classes_read: bool) -> Why {
    let name = pvc.metadata.name.clone().unwrap_or_default();
    let ns = pvc
        .metadata
        .namespace
        .clone()
        .or_else(|| case.pod_namespace().map(str::to_string));
    let who = match &ns {
        Some(ns) => format!("PersistentVolumeClaim {ns}/{name}"),
        None => format!("PersistentVolumeClaim {name}"),
    };
    let mut why = Why {
        headline: format!("{who} is {phase}"),
        facts: Vec::new(),
        vars: Vec::new(),
        settled: false,
    };
    let spec = pvc.spec.as_ref();
    if phase == "Lost" {
        let pv = spec.and_then(|s| s.volume_name.clone()).unwrap_or_default();
        why.headline = format!("{who} lost its PersistentVolume {pv} (phase Lost): the volume is gone or was bound to another claim");
        return why;
    }
    let events = claim_events(case, pvc);
    let class = spec.and_then(|s| s.storage_class_name.clone());
    let existing = existing_classes(&case.storage_classes);
    let not_found_event = events.iter().find(|e| {
        e.message.contains("storageclass.storage.k8s.io") && e.message.contains("not found")
    });
    match class.as_deref() {
        Some(c) if !c.is_empty() => {
            let found = case
                .storage_classes
                .iter()
                .find(|s| s.metadata.name.as_deref() == Some(c));
            match found {
                None if classes_read || not_found_event.is_some() => {
                    why.settled = true;
                    why.facts.push(format!(
                        "its StorageClass {c} does not exist (classes in the cluster: {})",
                        if existing.is_empty() {
                            "none".to_string()
                        } else {
                            existing.join(", ")
                        }
                    ));
                    why.headline = format!(
                        "{who} cannot bind because StorageClass {c} does not exist; {}",
                        classes_clause(&existing)
                    );
                    why.vars.push(("storage_class", c.to_string()));
                    if let Some(s) = suggested_class(&case.storage_classes) {
                        why.vars.push(("class_suggested", s));
                    }
                    return why;
                }
                None => {}
                Some(sc) => return with_class(case, pvc, &who, sc, &events, why),
            }
        }
        Some(_) => {
            why.headline = format!(
                "{who} asks for no StorageClass (storageClassName: \"\"), so only a PersistentVolume without a class can bind it{}",
                binding_failure(&events)
                    .map(|m| format!(", and none does: \"{m}\""))
                    .unwrap_or_default()
            );
            return why;
        }
        None => {
            let default = case.storage_classes.iter().find(|s| is_default(s));
            match default {
                Some(sc) => return with_class(case, pvc, &who, sc, &events, why),
                None if classes_read
                    || binding_failure(&events)
                        .is_some_and(|m| m.contains("no storage class is set")) =>
                {
                    why.settled = true;
                    why.facts.push(
                        "it names no StorageClass and the cluster has no default StorageClass"
                            .into(),
                    );
                    why.headline = format!(
                        "{who} names no StorageClass and the cluster has no default one, so nothing provisions it; {}",
                        classes_clause(&existing)
                    );
                    if let Some(s) = suggested_class(&case.storage_classes) {
                        why.vars.push(("class_suggested", s));
                    }
                    return why;
                }
                None => {}
            }
        }
    }
    if let Some(e) = failures(&events).last() {
        why.headline = format!("{who} does not bind: {} \"{}\"", e.reason, e.message);
    }
    why
}

/// The claim names a class that exists: its binding mode, its provisioner and the claim's
/// events say what it waits for.
fn with_class(
    case: &Case,
    pvc: &PersistentVolumeClaim,
    who: &str,
    sc: &StorageClass,
    events: &[&Event],
    mut why: Why,
) -> Why {
    let class = sc.metadata.name.clone().unwrap_or_default();
    let provisioner = sc.provisioner.clone();
    why.vars.push(("provisioner", provisioner.clone()));
    let wffc = sc.volume_binding_mode.as_deref() == Some("WaitForFirstConsumer");
    let selected = pvc
        .metadata
        .annotations
        .as_ref()
        .is_some_and(|a| a.contains_key("volume.kubernetes.io/selected-node"));
    let scheduled = case.node_name().is_some();
    // The provisioner itself said why (a quota, no capacity, a bad parameter).
    if let Some(e) = failures(events).last() {
        let kind = failure_kind(&e.message);
        why.headline = format!(
            "{who} cannot be provisioned by {provisioner} (StorageClass {class}){kind}: \"{}\"",
            crate::diagnose::text::clip(&e.message, 200)
        );
        why.facts
            .push(format!("its events: {} \"{}\"", e.reason, e.message));
        return why;
    }
    if provisioner == "kubernetes.io/no-provisioner" {
        why.headline = format!(
            "{who} can only bind to a PersistentVolume made by hand (StorageClass {class} has no provisioner: kubernetes.io/no-provisioner), and none matches it{}",
            if wffc && !scheduled { " for the nodes the pod can go to" } else { "" }
        );
        why.facts.push(format!(
            "StorageClass {class} has no provisioner (kubernetes.io/no-provisioner)"
        ));
        return why;
    }
    if wffc && !scheduled && !selected {
        let sched = scheduling_failure(case);
        why.headline = match sched {
            Some(m) => format!(
                "{who} waits for the pod to be scheduled (StorageClass {class} binds WaitForFirstConsumer), and the scheduler cannot place it: \"{}\"",
                crate::diagnose::text::clip(m, 200)
            ),
            None => format!(
                "{who} waits for the pod to be scheduled (StorageClass {class} binds WaitForFirstConsumer)"
            ),
        };
        why.facts.push(format!(
            "StorageClass {class} binds WaitForFirstConsumer and the pod is not scheduled"
        ));
        return why;
    }
    let external = pvc
        .metadata
        .annotations
        .as_ref()
        .and_then(|a| STORAGE_PROVISIONER.iter().find_map(|k| a.get(*k)))
        .cloned()
        .or_else(|| {
            events.iter().find_map(|e| {
                let m = &e.message;
                let i = m.find("by the external provisioner '")?;
                let rest = &m[i + "by the external provisioner '".len()..];
                rest.split_once('\'').map(|(p, _)| p.to_string())
            })
        });
    if let Some(p) = external {
        let registered = case
            .csi_drivers
            .iter()
            .any(|d| d.metadata.name.as_deref() == Some(p.as_str()));
        let driver = if case.csi_drivers.is_empty() {
            String::new()
        } else if registered {
            format!("; CSIDriver {p} is registered: its controller (external-provisioner) may not be running or may fail; its logs say which")
        } else {
            format!("; no CSIDriver named {p} is registered in the cluster: is its driver installed and its controller running?")
        };
        why.headline = format!(
            "{who} waits for provisioner {p} to create its volume (StorageClass {class}), and none was created{driver}"
        );
        why.facts
            .push(format!("waiting for the external provisioner {p}"));
        return why;
    }
    why.headline = format!("{who} is Pending (StorageClass {class}, provisioner {provisioner})");
    why
}

/// The claim's own events (those read with it, or saved with `describe pvc`); not those of
/// an earlier claim of the same name (another uid), whose events outlive it.
fn claim_events<'a>(case: &'a Case, pvc: &PersistentVolumeClaim) -> Vec<&'a Event> {
    let claim = pvc.metadata.name.as_deref();
    let uid = pvc.metadata.uid.as_deref();
    case.events
        .iter()
        .filter(|e| {
            e.object.as_ref().is_some_and(|o| {
                o.kind.as_deref() == Some("PersistentVolumeClaim")
                    && o.name.as_deref() == claim
                    && (uid.is_none() || o.uid.is_none() || o.uid.as_deref() == uid)
            })
        })
        .collect()
}

/// ProvisioningFailed and FailedBinding warnings, oldest first.
fn failures<'a>(events: &[&'a Event]) -> Vec<&'a Event> {
    events
        .iter()
        .filter(|e| e.reason == "ProvisioningFailed")
        .copied()
        .collect()
}

fn binding_failure<'a>(events: &[&'a Event]) -> Option<&'a str> {
    events
        .iter()
        .find(|e| e.reason == "FailedBinding")
        .map(|e| e.message.as_str())
}

/// " (a quota)" / " (no capacity)" when the provisioner's message says so.
fn failure_kind(m: &str) -> &'static str {
    let l = m.to_ascii_lowercase();
    if l.contains("quota") {
        " (a quota is exhausted)"
    } else if [
        "insufficient",
        "capacity",
        "no space",
        "not enough",
        "out of space",
    ]
    .iter()
    .any(|w| l.contains(w))
    {
        " (no capacity)"
    } else {
        ""
    }
}

/// The scheduler's latest FailedScheduling message about the pod.
fn scheduling_failure(case: &Case) -> Option<&str> {
    case.events
        .iter()
        .filter(|e| e.reason == "FailedScheduling")
        .filter(|e| {
            e.object
                .as_ref()
                .is_none_or(|o| o.kind.as_deref().is_none_or(|k| k == "Pod"))
        })
        .map(|e| e.message.as_str())
        .next_back()
}

fn is_default(sc: &StorageClass) -> bool {
    sc.metadata.annotations.as_ref().is_some_and(|a| {
        DEFAULT_CLASS
            .iter()
            .any(|k| a.get(*k).is_some_and(|v| v == "true"))
    })
}

/// The classes that exist, the default marked: `fast, standard (default)`.
fn existing_classes(classes: &[StorageClass]) -> Vec<String> {
    let mut v: Vec<String> = classes
        .iter()
        .filter_map(|s| {
            let n = s.metadata.name.clone()?;
            Some(if is_default(s) {
                format!("{n} (default)")
            } else {
                n
            })
        })
        .collect();
    v.sort();
    v
}

/// "classes that exist: a, b (default); the claim's spec.storageClassName must name one".
fn classes_clause(existing: &[String]) -> String {
    if existing.is_empty() {
        "no StorageClass exists in the cluster: create one, or a PersistentVolume for the claim"
            .into()
    } else {
        format!(
            "classes that exist: {}; the claim's spec.storageClassName must name one",
            existing.join(", ")
        )
    }
}

/// The class a fix can point the claim at: the default, else the only one.
fn suggested_class(classes: &[StorageClass]) -> Option<String> {
    classes
        .iter()
        .find(|s| is_default(s))
        .or(match classes {
            [one] => Some(one),
            _ => None,
        })
        .and_then(|s| s.metadata.name.clone())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ObjectRef;
    use serde_json::json;

    fn pod_with_claim(claim: &str) -> k8s_openapi::api::core::v1::Pod {
        serde_json::from_value(json!({
            "metadata": {"name": "web-0", "namespace": "shop"},
            "spec": {"containers": [{"name": "c"}],
                     "volumes": [{"name": "data", "persistentVolumeClaim": {"claimName": claim}}]},
            "status": {"phase": "Pending", "conditions": [{"type": "PodScheduled", "status": "False", "reason": "Unschedulable"}]},
        }))
        .unwrap()
    }

    fn pending(claim: &str, class: Option<&str>) -> PersistentVolumeClaim {
        let mut spec = json!({"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}});
        if let Some(c) = class {
            spec["storageClassName"] = json!(c);
        }
        serde_json::from_value(json!({
            "metadata": {"name": claim, "namespace": "shop"},
            "spec": spec,
            "status": {"phase": "Pending"},
        }))
        .unwrap()
    }

    fn class(name: &str, default: bool, provisioner: &str, mode: &str) -> StorageClass {
        let mut v = json!({"metadata": {"name": name}, "provisioner": provisioner, "volumeBindingMode": mode});
        if default {
            v["metadata"]["annotations"] =
                json!({"storageclass.kubernetes.io/is-default-class": "true"});
        }
        serde_json::from_value(v).unwrap()
    }

    fn claim_event(claim: &str, reason: &str, msg: &str) -> Event {
        Event {
            kind: Some("Warning".into()),
            reason: reason.into(),
            message: msg.into(),
            object: Some(ObjectRef {
                kind: Some("PersistentVolumeClaim".into()),
                namespace: Some("shop".into()),
                name: Some(claim.into()),
                uid: None,
            }),
            ..Event::default()
        }
    }

    fn run(case: &Case) -> crate::diagnose::findings::Acc {
        let mut accs = Accs::default();
        apply(case, &Hints::default(), &mut accs);
        accs.get("pvc_unbound_or_missing").unwrap().clone()
    }

    #[test]
    fn a_pending_claim_becomes_a_finding() {
        let case = Case {
            pod: Some(pod_with_claim("data-0")),
            pvcs: vec![pending("data-0", None)],
            ..Case::default()
        };
        let a = run(&case);
        assert_eq!(
            a.evidence[0].text,
            "PersistentVolumeClaim data-0 is Pending"
        );
        assert_eq!(a.evidence.len(), 1);
    }

    /// Issue 29: the class that does not exist and the classes that do, the default marked, in
    /// the verdict's clause; the names the fix needs.
    #[test]
    fn a_class_that_does_not_exist_is_named_with_those_that_do() {
        let case = Case {
            pod: Some(pod_with_claim("data")),
            pvcs: vec![pending("data", Some("standard-v2"))],
            storage_classes: vec![
                class("standard", true, "ebs.csi.aws.com", "WaitForFirstConsumer"),
                class("fast", false, "ebs.csi.aws.com", "Immediate"),
            ],
            events: vec![claim_event(
                "data",
                "ProvisioningFailed",
                "storageclass.storage.k8s.io \"standard-v2\" not found",
            )],
            ..Case::default()
        };
        let a = run(&case);
        assert_eq!(
            a.headline.as_deref(),
            Some("PersistentVolumeClaim shop/data cannot bind because StorageClass standard-v2 does not exist; classes that exist: fast, standard (default); the claim's spec.storageClassName must name one")
        );
        assert_eq!(a.vars["storage_class"], "standard-v2");
        assert_eq!(a.vars["class_suggested"], "standard");
        assert!(a.confidence >= 0.95);
    }

    #[test]
    fn the_event_alone_says_the_class_is_missing_when_classes_were_not_read() {
        let case = Case {
            pod: Some(pod_with_claim("data")),
            pvcs: vec![pending("data", Some("gold"))],
            events: vec![claim_event(
                "data",
                "ProvisioningFailed",
                "storageclass.storage.k8s.io \"gold\" not found",
            )],
            ..Case::default()
        };
        let h = run(&case).headline.unwrap();
        assert!(
            h.contains("StorageClass gold does not exist; no StorageClass exists"),
            "{h}"
        );
    }

    #[test]
    fn waiting_for_first_consumer_names_what_keeps_the_pod_unscheduled() {
        let mut sched = claim_event(
            "web-0",
            "FailedScheduling",
            "0/3 nodes are available: 3 Insufficient cpu.",
        );
        sched.object.as_mut().unwrap().kind = Some("Pod".into());
        let case = Case {
            pod: Some(pod_with_claim("data")),
            pvcs: vec![pending("data", Some("local"))],
            storage_classes: vec![class(
                "local",
                false,
                "rancher.io/local-path",
                "WaitForFirstConsumer",
            )],
            events: vec![sched],
            ..Case::default()
        };
        let h = run(&case).headline.unwrap();
        assert!(h.contains("waits for the pod to be scheduled (StorageClass local binds WaitForFirstConsumer), and the scheduler cannot place it: \"0/3 nodes are available: 3 Insufficient cpu.\""), "{h}");
    }

    #[test]
    fn an_external_provisioner_that_never_answers_is_named_and_whether_it_is_registered() {
        let mut pvc = pending("data", Some("fast"));
        pvc.metadata.annotations = Some(
            [(
                "volume.kubernetes.io/storage-provisioner".to_string(),
                "ebs.csi.aws.com".to_string(),
            )]
            .into(),
        );
        let case = Case {
            pod: Some(pod_with_claim("data")),
            pvcs: vec![pvc],
            storage_classes: vec![class("fast", false, "ebs.csi.aws.com", "Immediate")],
            csi_drivers: vec![serde_json::from_value(
                json!({"metadata": {"name": "efs.csi.aws.com"}, "spec": {}}),
            )
            .unwrap()],
            ..Case::default()
        };
        let h = run(&case).headline.unwrap();
        assert!(h.contains("waits for provisioner ebs.csi.aws.com"), "{h}");
        assert!(
            h.contains("no CSIDriver named ebs.csi.aws.com is registered"),
            "{h}"
        );
    }

    #[test]
    fn a_provisioner_failure_says_quota_or_capacity() {
        let case = Case {
            pod: Some(pod_with_claim("data")),
            pvcs: vec![pending("data", Some("fast"))],
            storage_classes: vec![class("fast", false, "ebs.csi.aws.com", "Immediate")],
            events: vec![claim_event(
                "data",
                "ProvisioningFailed",
                "failed to provision volume with StorageClass \"fast\": rpc error: code = ResourceExhausted desc = insufficient capacity",
            )],
            ..Case::default()
        };
        let h = run(&case).headline.unwrap();
        assert!(
            h.contains(
                "cannot be provisioned by ebs.csi.aws.com (StorageClass fast) (no capacity)"
            ),
            "{h}"
        );
    }

    #[test]
    fn no_class_and_no_default() {
        let case = Case {
            pod: Some(pod_with_claim("data")),
            pvcs: vec![pending("data", None)],
            storage_classes: vec![class("slow", false, "x.example.com", "Immediate")],
            ..Case::default()
        };
        let a = run(&case);
        let h = a.headline.unwrap();
        assert!(
            h.contains("names no StorageClass and the cluster has no default one"),
            "{h}"
        );
        assert_eq!(a.vars["class_suggested"], "slow");
    }
}
