//! What `volmnt watch` exports on `/metrics`, in the Prometheus text exposition format 0.0.4
//! (https://prometheus.io/docs/instrumenting/exposition_formats/): `# HELP`, `# TYPE`, one
//! sample per line, label values escaped (`\\`, `\"`, `\n`), histograms as cumulative `_bucket`
//! lines with `le` plus `_sum` and `_count`.
//!
//! The numbers are set by the watch loop; rendering is a pure function of them.

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write;
use std::sync::Mutex;

/// (namespace, pod name)
pub type PodKey = (String, String);

/// Where a stuck pod is counted: namespace, node, cause.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct StuckLabels {
    pub namespace: String,
    pub node: String,
    pub cause: String,
}

/// Upper bounds of the diagnosis latency histogram, in seconds.
const BUCKETS: &[f64] = &[0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0];

#[derive(Debug, Default)]
struct Histogram {
    counts: Vec<u64>,
    sum: f64,
    count: u64,
}

impl Histogram {
    fn observe(&mut self, v: f64) {
        if self.counts.is_empty() {
            self.counts = vec![0; BUCKETS.len()];
        }
        for (i, b) in BUCKETS.iter().enumerate() {
            if v <= *b {
                self.counts[i] += 1;
            }
        }
        self.sum += v;
        self.count += 1;
    }
}

#[derive(Debug, Default)]
struct Inner {
    stuck: HashMap<PodKey, StuckLabels>,
    latency: Histogram,
    diagnoses: u64,
    api_requests: BTreeMap<String, u64>,
    watch_restarts: BTreeMap<String, u64>,
    watch_errors: BTreeMap<String, u64>,
    watch_failing: BTreeMap<String, u64>,
    cached: BTreeMap<String, u64>,
    events: BTreeMap<String, u64>,
    leader: bool,
    synced: bool,
    young: u64,
}

/// The controller's numbers, shared between the watch loop and the HTTP server.
#[derive(Debug, Default)]
pub struct Metrics {
    inner: Mutex<Inner>,
}

impl Metrics {
    pub fn new() -> Metrics {
        Metrics::default()
    }

    fn with<T>(&self, f: impl FnOnce(&mut Inner) -> T) -> T {
        let mut g = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        f(&mut g)
    }

    /// A pod is stuck for this cause (replaces what was known about it).
    pub fn set_stuck(&self, pod: PodKey, labels: StuckLabels) {
        self.with(|m| {
            m.stuck.insert(pod, labels);
        });
    }

    /// The pod is no longer stuck (running, deleted).
    pub fn clear_stuck(&self, pod: &PodKey) {
        self.with(|m| {
            m.stuck.remove(pod);
        });
    }

    /// Seconds from the change that made a pod's case differ to its diagnosis being written.
    pub fn observe_latency(&self, secs: f64) {
        self.with(|m| {
            m.latency.observe(secs);
            m.diagnoses += 1;
        });
    }

    pub fn set_api_requests(&self, by_verb: Vec<(String, u64)>) {
        self.with(|m| m.api_requests = by_verb.into_iter().collect());
    }

    /// Per resource: watch restarts (relists after the first list) and errors.
    pub fn set_watch_stats(&self, restarts: Vec<(String, u64)>, errors: Vec<(String, u64)>) {
        self.with(|m| {
            m.watch_restarts = restarts.into_iter().collect();
            m.watch_errors = errors.into_iter().collect();
        });
    }

    /// Per resource: its watches failing now (0 for every resource listed in `all`).
    pub fn set_watch_failing(&self, all: &[(String, u64)], failing: Vec<(String, u64)>) {
        self.with(|m| {
            m.watch_failing = all.iter().map(|(r, _)| (r.clone(), 0)).collect();
            m.watch_failing.extend(failing);
        });
    }

    pub fn set_cached(&self, by_resource: Vec<(String, u64)>) {
        self.with(|m| m.cached = by_resource.into_iter().collect());
    }

    /// One Event write: `created`, `updated`, `failed`, or `skipped` (dry run).
    pub fn count_event(&self, action: &str) {
        self.with(|m| *m.events.entry(action.to_string()).or_default() += 1);
    }

    /// Pods that would be stuck but are younger than --min-age with no volume failure event.
    pub fn set_young(&self, n: u64) {
        self.with(|m| m.young = n);
    }

    pub fn set_leader(&self, leader: bool) {
        self.with(|m| m.leader = leader);
    }

    pub fn set_synced(&self, synced: bool) {
        self.with(|m| m.synced = synced);
    }

    pub fn synced(&self) -> bool {
        self.with(|m| m.synced)
    }

    /// Stuck pods per cause (for logs and tests).
    pub fn stuck_by_cause(&self) -> BTreeMap<String, usize> {
        self.with(|m| {
            let mut out = BTreeMap::new();
            for l in m.stuck.values() {
                *out.entry(l.cause.clone()).or_default() += 1;
            }
            out
        })
    }

    /// The whole exposition, as `/metrics` serves it.
    pub fn render(&self) -> String {
        self.with(|m| render(m))
    }
}

fn escape(v: &str) -> String {
    v.replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

fn header(out: &mut String, name: &str, kind: &str, help: &str) {
    let _ = writeln!(out, "# HELP {name} {help}");
    let _ = writeln!(out, "# TYPE {name} {kind}");
}

fn per_label(out: &mut String, name: &str, label: &str, values: &BTreeMap<String, u64>) {
    for (k, v) in values {
        let _ = writeln!(out, "{name}{{{label}=\"{}\"}} {v}", escape(k));
    }
}

fn render(m: &Inner) -> String {
    let mut out = String::new();
    let mut stuck: BTreeMap<&StuckLabels, u64> = BTreeMap::new();
    for l in m.stuck.values() {
        *stuck.entry(l).or_default() += 1;
    }
    header(
        &mut out,
        "volmnt_stuck_pods",
        "gauge",
        "Pods stuck on volumes, by namespace, node and most likely cause.",
    );
    for (l, n) in &stuck {
        let _ = writeln!(
            out,
            "volmnt_stuck_pods{{namespace=\"{}\",node=\"{}\",cause=\"{}\"}} {n}",
            escape(&l.namespace),
            escape(&l.node),
            escape(&l.cause)
        );
    }
    header(
        &mut out,
        "volmnt_pods_younger_than_min_age",
        "gauge",
        "Pods Pending or in ContainerCreating younger than --min-age with no volume failure event: not diagnosed yet (a pod with one is diagnosed at any age).",
    );
    let _ = writeln!(out, "volmnt_pods_younger_than_min_age {}", m.young);
    header(
        &mut out,
        "volmnt_diagnosis_latency_seconds",
        "histogram",
        "From a change to a stuck pod's case (its events, its volume objects, its age) to its diagnosis being written.",
    );
    let counts = if m.latency.counts.is_empty() {
        vec![0; BUCKETS.len()]
    } else {
        m.latency.counts.clone()
    };
    for (b, c) in BUCKETS.iter().zip(counts) {
        let _ = writeln!(
            out,
            "volmnt_diagnosis_latency_seconds_bucket{{le=\"{b}\"}} {c}"
        );
    }
    let _ = writeln!(
        out,
        "volmnt_diagnosis_latency_seconds_bucket{{le=\"+Inf\"}} {}",
        m.latency.count
    );
    let _ = writeln!(
        out,
        "volmnt_diagnosis_latency_seconds_sum {}",
        m.latency.sum
    );
    let _ = writeln!(
        out,
        "volmnt_diagnosis_latency_seconds_count {}",
        m.latency.count
    );
    header(
        &mut out,
        "volmnt_diagnoses_total",
        "counter",
        "Diagnoses run (one per changed stuck pod).",
    );
    let _ = writeln!(out, "volmnt_diagnoses_total {}", m.diagnoses);
    header(
        &mut out,
        "volmnt_api_requests_total",
        "counter",
        "Requests sent to the Kubernetes API, by verb.",
    );
    per_label(
        &mut out,
        "volmnt_api_requests_total",
        "verb",
        &m.api_requests,
    );
    header(
        &mut out,
        "volmnt_watch_restarts_total",
        "counter",
        "Full relists of a watched resource after its first list (410 Gone, or a watch that could not resume).",
    );
    per_label(
        &mut out,
        "volmnt_watch_restarts_total",
        "resource",
        &m.watch_restarts,
    );
    header(
        &mut out,
        "volmnt_watch_errors_total",
        "counter",
        "Errors seen by a resource's watcher (each is retried with back-off).",
    );
    per_label(
        &mut out,
        "volmnt_watch_errors_total",
        "resource",
        &m.watch_errors,
    );
    header(
        &mut out,
        "volmnt_watch_failing",
        "gauge",
        "Watches of a resource that fail now (an error and no success since: the API server unreachable, an error answer); /readyz is 503 while any is.",
    );
    per_label(
        &mut out,
        "volmnt_watch_failing",
        "resource",
        &m.watch_failing,
    );
    header(
        &mut out,
        "volmnt_cache_objects",
        "gauge",
        "Objects held in the watch cache, by resource.",
    );
    per_label(&mut out, "volmnt_cache_objects", "resource", &m.cached);
    header(
        &mut out,
        "volmnt_events_total",
        "counter",
        "VolumeDiagnosis Event writes, by outcome (created, updated, failed, dry_run).",
    );
    per_label(&mut out, "volmnt_events_total", "action", &m.events);
    header(
        &mut out,
        "volmnt_leader",
        "gauge",
        "1 while this replica holds the lease (only the leader writes Events).",
    );
    let _ = writeln!(out, "volmnt_leader {}", u8::from(m.leader));
    header(
        &mut out,
        "volmnt_cache_synced",
        "gauge",
        "1 once every watched resource has been listed, and while no watch is failing.",
    );
    let _ = writeln!(out, "volmnt_cache_synced {}", u8::from(m.synced));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(ns: &str, node: &str, cause: &str) -> StuckLabels {
        StuckLabels {
            namespace: ns.into(),
            node: node.into(),
            cause: cause.into(),
        }
    }

    #[test]
    fn stuck_pods_are_counted_by_namespace_node_and_cause() {
        let m = Metrics::new();
        m.set_stuck(
            ("a".into(), "p1".into()),
            labels("a", "n1", "nfs_client_missing"),
        );
        m.set_stuck(
            ("a".into(), "p2".into()),
            labels("a", "n1", "nfs_client_missing"),
        );
        m.set_stuck(("b".into(), "p3".into()), labels("b", "n2", "multi_attach"));
        m.clear_stuck(&("b".into(), "p3".into()));
        m.set_stuck(
            ("b".into(), "p4".into()),
            labels("b", "n\"2", "rbd_lock_held"),
        );
        let text = m.render();
        assert!(text.contains(
            "volmnt_stuck_pods{namespace=\"a\",node=\"n1\",cause=\"nfs_client_missing\"} 2\n"
        ));
        assert!(!text.contains("multi_attach"));
        assert!(text.contains("node=\"n\\\"2\""), "{text}");
        assert_eq!(m.stuck_by_cause()["nfs_client_missing"], 2);
    }

    #[test]
    fn histogram_buckets_are_cumulative() {
        let m = Metrics::new();
        m.observe_latency(0.03);
        m.observe_latency(0.7);
        m.observe_latency(100.0);
        let text = m.render();
        assert!(text.contains("volmnt_diagnosis_latency_seconds_bucket{le=\"0.01\"} 0\n"));
        assert!(text.contains("volmnt_diagnosis_latency_seconds_bucket{le=\"0.05\"} 1\n"));
        assert!(text.contains("volmnt_diagnosis_latency_seconds_bucket{le=\"1\"} 2\n"));
        assert!(text.contains("volmnt_diagnosis_latency_seconds_bucket{le=\"30\"} 2\n"));
        assert!(text.contains("volmnt_diagnosis_latency_seconds_bucket{le=\"+Inf\"} 3\n"));
        assert!(text.contains("volmnt_diagnosis_latency_seconds_count 3\n"));
    }

    #[test]
    fn every_sample_has_help_and_type() {
        let m = Metrics::new();
        m.set_api_requests(vec![("watch".into(), 3), ("list".into(), 12)]);
        m.count_event("created");
        let text = m.render();
        for line in text.lines().filter(|l| !l.starts_with('#')) {
            let name = line.split(['{', ' ']).next().unwrap();
            let base = name
                .trim_end_matches("_bucket")
                .trim_end_matches("_sum")
                .trim_end_matches("_count");
            assert!(
                text.contains(&format!("# TYPE {base} "))
                    || text.contains(&format!("# TYPE {name} ")),
                "{line}"
            );
        }
        assert!(text.contains("volmnt_api_requests_total{verb=\"list\"} 12\n"));
    }
}
