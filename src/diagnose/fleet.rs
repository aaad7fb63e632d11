//! Many stuck pods at once (`doctor namespace`, `-A`): the pods are grouped by their top cause
//! and the object at its root ("Secret shop/tls missing: 75 pods on 10 nodes"), so a screen
//! shows what to fix rather than 300 copies of the same report. Pure: reports in, groups out.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use crate::model::report::{unsettled_rival, Diagnosis, Report, Step};

/// Stuck pods sharing a cause and the object at its root.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Group {
    pub cause: String,
    /// The object at the root, or the cause id when none is known.
    pub root: String,
    /// The cause's title.
    pub title: String,
    /// What is wrong with the root object, as the sample's verdict says it (`Secret shop/tls
    /// does not exist`); `null` when its case does not name it.
    pub at_fault: Option<String>,
    /// The pod view's caveat, kept: `not settled: nfs_server_unreachable is as likely` when
    /// the sample's evidence does not settle the cause; `null` when it does.
    pub caveat: Option<String>,
    /// `namespace/name` of every pod in the group, sorted.
    pub pods: Vec<String>,
    pub nodes: Vec<String>,
    pub namespaces: Vec<String>,
    /// The pod whose report stands for the group (`namespace/name`).
    pub sample: String,
    /// The sample's first step with a command: what to run first for the whole group.
    #[serde(skip)]
    pub first_step: Option<Step>,
    /// Index of the sample's report in the list given.
    #[serde(skip)]
    pub sample_index: usize,
}

fn pod_id(r: &Report) -> String {
    match (&r.subject.namespace, &r.subject.name) {
        (Some(ns), Some(n)) => format!("{ns}/{n}"),
        (_, Some(n)) => n.clone(),
        _ => "?".into(),
    }
}

/// Group the reports of stuck pods (OK ones are left out), biggest group first.
pub fn group(reports: &[Report]) -> Vec<Group> {
    let mut by_key: BTreeMap<(String, String), Group> = BTreeMap::new();
    for (i, r) in reports.iter().enumerate() {
        if r.diagnosis == Diagnosis::Ok {
            continue;
        }
        let Some(f) = r.top() else { continue };
        let key = (f.cause.clone(), f.root.clone());
        let g = by_key.entry(key).or_insert_with(|| Group {
            cause: f.cause.clone(),
            root: f.root.clone(),
            title: f.title.clone(),
            at_fault: f.at_fault.clone(),
            caveat: unsettled_rival(&r.findings)
                .map(|s| format!("not settled: {} is as likely", s.cause)),
            pods: Vec::new(),
            nodes: Vec::new(),
            namespaces: Vec::new(),
            sample: pod_id(r),
            // The first thing to run for the whole group: the cause's first read-only check,
            // as the pod report shows it first; a change or a destructive step is only shown
            // in the full report, with its checks and backup before it.
            first_step: f.first_step().cloned(),
            sample_index: i,
        });
        g.pods.push(pod_id(r));
        if let Some(n) = &r.subject.node {
            g.nodes.push(n.clone());
        }
        if let Some(ns) = &r.subject.namespace {
            g.namespaces.push(ns.clone());
        }
    }
    let mut groups: Vec<Group> = by_key
        .into_values()
        .map(|mut g| {
            g.pods.sort();
            g.nodes = sorted_unique(g.nodes);
            g.namespaces = sorted_unique(g.namespaces);
            g
        })
        .collect();
    groups.sort_by(|a, b| {
        b.pods
            .len()
            .cmp(&a.pods.len())
            .then_with(|| a.cause.cmp(&b.cause))
            .then_with(|| a.root.cmp(&b.root))
    });
    groups
}

fn sorted_unique(v: Vec<String>) -> Vec<String> {
    v.into_iter().collect::<BTreeSet<_>>().into_iter().collect()
}

/// "on node-08, node-09" or "on 10 nodes"; "" when no node is known.
pub fn nodes_phrase(nodes: &[String]) -> String {
    match nodes.len() {
        0 => String::new(),
        1..=3 => format!(" on {}", nodes.join(", ")),
        n => format!(" on {n} nodes"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnose::{diagnose, Options};
    use crate::model::{Case, RawMessage};

    fn stuck(ns: &str, pod: &str, node: &str, msg: &str) -> Report {
        let case = Case {
            pod_name: Some(pod.into()),
            namespace: Some(ns.into()),
            messages: vec![RawMessage {
                label: "m".into(),
                text: msg.into(),
            }],
            ..Case::default()
        };
        let mut r = diagnose(&case, &Options::default());
        r.subject.node = Some(node.into());
        r
    }

    #[test]
    fn pods_with_the_same_cause_and_root_form_one_group() {
        let reports = vec![
            stuck(
                "a",
                "p1",
                "n1",
                r#"MountVolume.SetUp failed for volume "x" : secret "tls" not found"#,
            ),
            stuck(
                "a",
                "p2",
                "n2",
                r#"MountVolume.SetUp failed for volume "x" : secret "tls" not found"#,
            ),
            stuck(
                "a",
                "p3",
                "n1",
                r#"MountVolume.SetUp failed for volume "x" : secret "other" not found"#,
            ),
        ];
        let g = group(&reports);
        assert_eq!(g.len(), 2, "{g:#?}");
        assert_eq!(g[0].pods, ["a/p1", "a/p2"]);
        assert_eq!(g[0].nodes, ["n1", "n2"]);
        assert_eq!(g[0].root, "Secret a/tls");
        assert_eq!(g[1].root, "Secret a/other");
        assert_eq!(nodes_phrase(&g[0].nodes), " on n1, n2");
        // What is wrong with the root object, as the pod view's verdict says it.
        assert_eq!(
            g[0].at_fault.as_deref(),
            Some("Secret a/tls does not exist"),
            "{g:#?}"
        );
        assert_eq!(g[0].caveat, None);
    }

    /// Issue 29: where the pod view says "not settled yet", the group keeps the caveat.
    #[test]
    fn a_group_keeps_the_pod_views_caveat_when_the_cause_is_not_settled() {
        let mut r = stuck(
            "a",
            "p1",
            "n1",
            r#"MountVolume.SetUp failed for volume "x" : secret "tls" not found"#,
        );
        let mut rival = r.findings[0].clone();
        rival.cause = "nfs_server_unreachable".into();
        r.findings[0].settled_by = None;
        r.findings.push(rival);
        let g = group(&[r]);
        assert_eq!(
            g[0].caveat.as_deref(),
            Some("not settled: nfs_server_unreachable is as likely"),
            "{g:#?}"
        );
    }
}
