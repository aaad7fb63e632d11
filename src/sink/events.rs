//! The diagnosis written onto the pod as a core/v1 Event, so `kubectl describe pod` and every
//! event-based tool shows it: type Warning, reason `VolumeDiagnosis`, message = cause id, the
//! one-line verdict and the first fix.
//!
//! One Event per pod and cause. Its name is derived from the pod's uid and the cause, so a new
//! leader (or a restarted volmnt) finds the Event its predecessor wrote (409 AlreadyExists on
//! create) and updates it instead of adding a second one. An update is a strategic-merge patch
//! of `count`, `lastTimestamp` and `message`, as client-go's event recorder does
//! (k8s.io/client-go/tools/record/event.go, recordToSink → patch); an unchanged diagnosis is
//! patched at most once per `refresh`, so the API sees few writes however often a pod changes.
//!
//! The fields are those of core/v1 Event (k8s.io/api/core/v1/types.go): involvedObject,
//! reason, message, type, count, firstTimestamp, lastTimestamp, source.component,
//! reportingComponent, reportingInstance. No `eventTime`: with it set, the apiserver requires
//! the events.k8s.io fields (action, series) instead (pkg/apis/core/validation/events.go).

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use k8s_openapi::api::core::v1::{Event, EventSource, ObjectReference};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ObjectMeta, Time};
use kube::api::{Patch, PatchParams, PostParams};
use kube::{Api, Client};

use crate::model::report::{Report, Status, StepKind};

/// The Event's reason, as `kubectl describe pod` shows it.
pub const REASON: &str = "VolumeDiagnosis";
/// source.component and reportingComponent.
pub const COMPONENT: &str = "volmnt";
/// The apiserver's limit on an Event's message with eventTime set, and client-go's truncation
/// length; kept for every Event so any consumer can show the whole message.
pub const MAX_MESSAGE: usize = 1024;

/// The pod an Event is about.
#[derive(Debug, Clone)]
pub struct PodRef {
    pub namespace: String,
    pub name: String,
    pub uid: String,
}

/// What one call did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    Created {
        name: String,
    },
    Updated {
        name: String,
        count: i32,
    },
    /// Same diagnosis, written less than `refresh` ago.
    Unchanged,
    /// Nothing to write: the report found no cause.
    NoFinding,
    /// Not the leader: only the leader writes.
    NotLeader,
    /// Dry run: what would have been written.
    DryRun {
        action: &'static str,
        name: String,
    },
    Failed(String),
}

#[derive(Debug, Clone)]
struct Written {
    count: i32,
    message: String,
    at: Instant,
}

/// Writes VolumeDiagnosis Events; remembers what it wrote per (pod uid, cause).
pub struct EventSink {
    client: Client,
    instance: String,
    refresh: Duration,
    dry_run: bool,
    written: Mutex<HashMap<(String, String), Written>>,
}

/// The Event's message: `cause: verdict. Fix: first step`, redacted, at most 1024 bytes. The
/// first step that changes something (installing a package, recreating a pod) is quoted; a fix
/// that can destroy data is never put in an Event without its checks: the message points to
/// the full report instead.
pub fn message(report: &Report) -> Option<(String, String)> {
    if report.status == Status::Ok {
        return None;
    }
    let top = report.top()?;
    let step = |s: &crate::model::report::Step| match &s.command {
        Some(c) => format!("{}: {c}", s.text.trim_end_matches('.')),
        None => s.text.clone(),
    };
    let full_report = match (&report.subject.name, &report.subject.namespace) {
        (Some(n), Some(ns)) => format!("volmnt doctor pod {n} -n {ns}"),
        _ => "volmnt doctor pod".to_string(),
    };
    // The first step shown anywhere but the full report is the cause's first read-only check;
    // the fixes (and a fix that can lose data) stay in the full report with their checks.
    let destructive = top
        .remediation
        .iter()
        .any(|s| s.kind == StepKind::Destructive);
    let fix = match top.first_step() {
        Some(s) => Some(format!("First check: {}. Fix: see `{full_report}`", step(s))),
        None if destructive => Some(format!(
            "The fix can lose data or cut a live client off: read `{full_report}` for its checks and backup first"
        )),
        None => Some(format!("See `{full_report}`")),
    };
    let mut m = format!("{}: {}", top.cause, report.verdict);
    if let Some(f) = fix {
        m.push_str(". ");
        m.push_str(&f);
    }
    let m = crate::redact::redact(&m).into_owned();
    Some((top.cause.clone(), truncate(m, MAX_MESSAGE)))
}

fn truncate(mut s: String, max: usize) -> String {
    if s.len() <= max {
        return s;
    }
    let mut cut = max - "…".len();
    while !s.is_char_boundary(cut) {
        cut -= 1;
    }
    s.truncate(cut);
    s.push('…');
    s
}

/// `<pod>.<16 hex digits of FNV-1a(uid/cause)>`: stable for a pod and a cause, a valid DNS
/// subdomain of at most 253 characters (the pod's name is one already).
pub fn event_name(pod: &PodRef, cause: &str) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in pod.uid.bytes().chain(*b"/").chain(cause.bytes()) {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    let mut base: String = pod.name.chars().take(253 - 17).collect();
    while base.ends_with('.') || base.ends_with('-') {
        base.pop();
    }
    format!("{base}.{h:016x}")
}

fn now() -> Time {
    Time(k8s_openapi::jiff::Timestamp::now())
}

/// The Event as first written.
pub fn new_event(pod: &PodRef, cause: &str, message: &str, instance: &str) -> Event {
    let t = now();
    Event {
        metadata: ObjectMeta {
            name: Some(event_name(pod, cause)),
            namespace: Some(pod.namespace.clone()),
            ..ObjectMeta::default()
        },
        involved_object: ObjectReference {
            api_version: Some("v1".into()),
            kind: Some("Pod".into()),
            name: Some(pod.name.clone()),
            namespace: Some(pod.namespace.clone()),
            uid: Some(pod.uid.clone()),
            ..ObjectReference::default()
        },
        reason: Some(REASON.into()),
        message: Some(message.to_string()),
        type_: Some("Warning".into()),
        count: Some(1),
        first_timestamp: Some(t.clone()),
        last_timestamp: Some(t),
        source: Some(EventSource {
            component: Some(COMPONENT.into()),
            host: None,
        }),
        reporting_component: Some(COMPONENT.into()),
        reporting_instance: Some(instance.chars().take(128).collect()),
        ..Event::default()
    }
}

fn api_error(e: &kube::Error) -> String {
    match e {
        kube::Error::Api(s) => format!("{} ({} {})", s.message, s.code, s.reason),
        other => other.to_string(),
    }
}

impl EventSink {
    pub fn new(client: Client, instance: String, refresh: Duration, dry_run: bool) -> EventSink {
        EventSink {
            client,
            instance,
            refresh,
            dry_run,
            written: Mutex::new(HashMap::new()),
        }
    }

    fn remembered(&self, key: &(String, String)) -> Option<Written> {
        self.written
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(key)
            .cloned()
    }

    fn remember(&self, key: (String, String), w: Written) {
        self.written
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(key, w);
    }

    /// Forget a pod (it runs, or is gone): nothing more is written about it.
    pub fn forget(&self, uid: &str) {
        self.written
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .retain(|(u, _), _| u != uid);
    }

    /// Write (or update) the pod's Event for the report's top cause. `leader`: only the
    /// replica holding the lease writes.
    pub async fn record(&self, pod: &PodRef, report: &Report, leader: bool) -> Outcome {
        let Some((cause, msg)) = message(report) else {
            return Outcome::NoFinding;
        };
        if !leader && !self.dry_run {
            return Outcome::NotLeader;
        }
        let key = (pod.uid.clone(), cause.clone());
        let prev = self.remembered(&key);
        if let Some(p) = &prev {
            if p.message == msg && p.at.elapsed() < self.refresh {
                return Outcome::Unchanged;
            }
        }
        let name = event_name(pod, &cause);
        if self.dry_run {
            let action = if prev.is_some() { "update" } else { "create" };
            self.remember(
                key,
                Written {
                    count: prev.map(|p| p.count + 1).unwrap_or(1),
                    message: msg,
                    at: Instant::now(),
                },
            );
            return Outcome::DryRun { action, name };
        }
        let api: Api<Event> = Api::namespaced(self.client.clone(), &pod.namespace);
        let count = match prev {
            Some(p) => p.count,
            None => {
                let ev = new_event(pod, &cause, &msg, &self.instance);
                match api.create(&PostParams::default(), &ev).await {
                    Ok(_) => {
                        self.remember(
                            key,
                            Written {
                                count: 1,
                                message: msg,
                                at: Instant::now(),
                            },
                        );
                        return Outcome::Created { name };
                    }
                    // Written before (an earlier leader, or this process before a restart).
                    Err(kube::Error::Api(s)) if s.code == 409 => match api.get(&name).await {
                        Ok(existing) => {
                            let count = existing.count.unwrap_or(1);
                            let age = existing
                                .last_timestamp
                                .as_ref()
                                .map(|t| {
                                    let secs = k8s_openapi::jiff::Timestamp::now().as_second()
                                        - t.0.as_second();
                                    Duration::from_secs(secs.max(0) as u64)
                                })
                                .unwrap_or(self.refresh);
                            if existing.message.as_deref() == Some(msg.as_str())
                                && age < self.refresh
                            {
                                self.remember(
                                    key,
                                    Written {
                                        count,
                                        message: msg,
                                        at: Instant::now()
                                            .checked_sub(age)
                                            .unwrap_or_else(Instant::now),
                                    },
                                );
                                return Outcome::Unchanged;
                            }
                            count
                        }
                        Err(e) => return Outcome::Failed(api_error(&e)),
                    },
                    Err(e) => return Outcome::Failed(api_error(&e)),
                }
            }
        };
        let patch = serde_json::json!({
            "count": count + 1,
            "lastTimestamp": now(),
            "message": msg,
        });
        match api
            .patch(&name, &PatchParams::default(), &Patch::Strategic(&patch))
            .await
        {
            Ok(_) => {
                self.remember(
                    key,
                    Written {
                        count: count + 1,
                        message: msg,
                        at: Instant::now(),
                    },
                );
                Outcome::Updated {
                    name,
                    count: count + 1,
                }
            }
            // Expired (events live an hour) or deleted: write it anew.
            Err(kube::Error::Api(s)) if s.code == 404 => {
                let ev = new_event(pod, &cause, &msg, &self.instance);
                match api.create(&PostParams::default(), &ev).await {
                    Ok(_) => {
                        self.remember(
                            key,
                            Written {
                                count: 1,
                                message: msg,
                                at: Instant::now(),
                            },
                        );
                        Outcome::Created { name }
                    }
                    Err(e) => Outcome::Failed(api_error(&e)),
                }
            }
            Err(e) => Outcome::Failed(api_error(&e)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pod() -> PodRef {
        PodRef {
            namespace: "shop".into(),
            name: "web-0".into(),
            uid: "0b7c4c6e-1f7a-4d53-9b39-8d6f8a1c2e11".into(),
        }
    }

    #[test]
    fn the_name_is_stable_per_pod_and_cause() {
        let a = event_name(&pod(), "nfs_client_missing");
        assert_eq!(a, event_name(&pod(), "nfs_client_missing"));
        assert_ne!(a, event_name(&pod(), "multi_attach"));
        assert!(a.starts_with("web-0."));
        assert_eq!(a.len(), "web-0.".len() + 16);
        let long = PodRef {
            name: "a".repeat(253),
            ..pod()
        };
        assert!(event_name(&long, "x").len() <= 253);
    }

    #[test]
    fn the_message_names_cause_verdict_and_first_fix_and_is_bounded() {
        // The 2020 NFS incident, as `doctor pod --example nfs` reads it.
        use crate::collect::offline::{add_source, Source};
        let mut case = crate::model::Case::default();
        for (label, text) in [
            (
                "describe",
                include_str!("../../fixtures/seed/nfs-describe-pod.txt"),
            ),
            (
                "objects",
                include_str!("../../fixtures/synthetic/objects/nfs-incident.yaml"),
            ),
        ] {
            let src = Source {
                label: label.into(),
                text: text.into(),
                log: None,
            };
            add_source(&mut case, &src).unwrap();
        }
        let report = crate::diagnose::diagnose(&case, &crate::diagnose::Options::default());
        let (cause, m) = message(&report).expect("a finding");
        assert_eq!(cause, "nfs_client_missing");
        assert!(m.starts_with("nfs_client_missing: Pod ops-test/"), "{m}");
        // The first read-only check, and the full report for the fix.
        assert!(m.contains(". First check: "), "{m}");
        assert!(m.contains("volmnt node check node1"), "{m}");
        assert!(!m.contains("yum install"), "{m}");
        assert!(m.len() <= MAX_MESSAGE);
        let t = truncate("é".repeat(600), MAX_MESSAGE);
        assert!(t.len() <= MAX_MESSAGE && t.ends_with('…'));
    }

    #[test]
    fn the_event_has_the_core_v1_fields() {
        let ev = new_event(&pod(), "multi_attach", "m", "volmnt-7d9f");
        let v = serde_json::to_value(&ev).unwrap();
        assert_eq!(v["involvedObject"]["kind"], "Pod");
        assert_eq!(v["involvedObject"]["uid"], pod().uid);
        assert_eq!(v["metadata"]["namespace"], "shop");
        assert_eq!(v["reason"], "VolumeDiagnosis");
        assert_eq!(v["type"], "Warning");
        assert_eq!(v["count"], 1);
        assert_eq!(v["source"]["component"], "volmnt");
        assert_eq!(v["reportingComponent"], "volmnt");
        assert_eq!(v["reportingInstance"], "volmnt-7d9f");
        assert!(v["firstTimestamp"].is_string() && v["lastTimestamp"].is_string());
        assert!(v.get("eventTime").is_none_or(|t| t.is_null()));
    }
}
