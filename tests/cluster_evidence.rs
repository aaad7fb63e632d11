//! The cluster's evidence around a stuck pod (issue 18), read live by the real binary from the
//! fake API server: the CSI node plugin's DaemonSet and its pod on the pod's node (or why there
//! is none), that pod's log lines about the volume, the kubelet's own through the node log
//! query, the pod's owners; what may not be read is said with the right it needs; `--save`
//! keeps it all and a replay reads the same facts.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::Value;

use crate::live::Live;
use crate::support::fake_api::{Deny, FakeCluster, NodeLogs, Options, Request};
use crate::util::{cmd, run_cmd, top, Out, TempDir};

const OFF: &str = "csi-node-plugin-off-node";
const OFF_POD: &str = "web-7c6d9f8b5d-q2xkz";
const LOGS: &str = "csi-node-plugin-logs";
const GPU_NODE: &str = "ip-10-0-7-217.ec2.internal";
const EBS_NODE: &str = "ip-192-168-41-7.ec2.internal";

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .into_iter()
        .flatten()
        .filter_map(|s| s.as_str().map(str::to_string))
        .collect()
}

fn has(list: &[String], part: &str) -> bool {
    list.iter().any(|l| l.contains(part))
}

fn requests_of(live: &Live, f: impl Fn(&Request) -> bool) -> Vec<Request> {
    live.api.requests().into_iter().filter(|r| f(r)).collect()
}

/// `doctor pod POD -n NS -o json --save DIR` against the fake API: the temporary directory
/// (kept while the test runs), the saved case's path, and the run.
fn doctor_saved(live: &Live, pod: &str, ns: &str, tag: &str) -> (TempDir, PathBuf, Out) {
    let dir = TempDir::new(tag);
    let saved = dir.path().join("case");
    let out = live.run(&[
        "doctor",
        "pod",
        pod,
        "-n",
        ns,
        "-o",
        "json",
        "--save",
        saved.to_str().unwrap(),
    ]);
    (dir, saved, out)
}

/// The case a saved directory replays to, read as `--from-file` reads it.
fn replayed(dir: &Path) -> volmnt::model::Case {
    use volmnt::collect::offline;
    let mut case = volmnt::model::Case::default();
    for s in offline::read_inputs(&dir.to_string_lossy(), 64 << 20, &mut std::io::empty())
        .expect("saved case reads")
    {
        offline::add_source(&mut case, &s).expect("saved file is recognised");
    }
    case
}

#[test]
fn a_node_plugin_kept_off_the_node_by_a_taint_is_named_with_the_taint() {
    let live = Live::start(OFF, "apps", Options::new());
    let (_dir, saved, out) = doctor_saved(&live, OFF_POD, "apps", "evidence-off-node");
    assert_eq!(out.code, 1, "{}", out.stderr);
    let r = out.json();
    assert_eq!(
        top(&r)["cause"],
        "csi_driver_not_registered",
        "{}",
        out.stdout
    );
    let inputs = strings(&r["inputs"]);
    assert!(
        has(
            &inputs,
            &format!(
                "1 DaemonSet(s) that may run CSI node plugins, 0 daemon pod(s) on node {GPU_NODE}"
            )
        ),
        "{inputs:#?}"
    );
    assert!(
        has(
            &inputs,
            "the pod's owners: ReplicaSet web-7c6d9f8b5d (1 replica(s)), owned by Deployment web (RollingUpdate, maxSurge 25%, 1 replica(s))"
        ),
        "{inputs:#?}"
    );
    // One list of DaemonSets and one of the node's pods, across namespaces; the owners read by
    // name; the default kubelet answered the node log query with its /var/log listing.
    let ds = requests_of(&live, |r| r.resource == "daemonsets");
    assert_eq!(ds.len(), 1, "{ds:#?}");
    assert_eq!(
        (ds[0].verb.as_str(), ds[0].namespace.as_deref()),
        ("list", None)
    );
    let node_pods = requests_of(&live, |r| {
        r.resource == "pods" && r.namespace.is_none() && r.verb == "list"
    });
    assert_eq!(node_pods.len(), 1);
    assert!(
        node_pods[0]
            .query
            .contains("fieldSelector=spec.nodeName%3D"),
        "{}",
        node_pods[0].query
    );
    assert_eq!(requests_of(&live, |r| r.resource == "replicasets").len(), 1);
    assert_eq!(requests_of(&live, |r| r.resource == "deployments").len(), 1);
    assert!(requests_of(&live, |r| r.subresource.as_deref() == Some("log")).is_empty());
    assert!(
        has(
            &strings(&r["unavailable"]),
            &format!(
                "kubelet log query of node {GPU_NODE}: the kubelet has enableSystemLogQuery off"
            )
        ),
        "{:#?}",
        r["unavailable"]
    );
    // What was saved replays to the same facts: the DaemonSet, its pod elsewhere, no pod on
    // the GPU node and why, the owners.
    let case = replayed(&saved);
    let plugins = volmnt::model::cluster::node_plugins(&case);
    assert_eq!(plugins.len(), 1, "{plugins:#?}");
    let p = &plugins[0];
    assert_eq!(p.driver, "efs.csi.aws.com");
    assert_eq!(p.daemonset.as_deref(), Some("kube-system/efs-csi-node"));
    assert_eq!(
        p.matched_by,
        Some(volmnt::model::cluster::MatchedBy::RegistrationPath)
    );
    assert_eq!((p.desired, p.ready), (Some(1), Some(1)));
    assert!(p.pods.is_empty());
    assert_eq!(
        p.off_node_because,
        ["taint dedicated=gpu:NoSchedule not tolerated"]
    );
    assert_eq!(p.registered, Some(false));
    let w: Vec<(&str, Option<&str>, Option<&str>)> = case
        .workloads
        .iter()
        .map(|w| {
            (
                w.kind.as_str(),
                w.strategy.as_deref(),
                w.max_surge.as_deref(),
            )
        })
        .collect();
    assert_eq!(
        w,
        [
            ("ReplicaSet", None, None),
            ("Deployment", Some("RollingUpdate"), Some("25%"))
        ]
    );
    let replay = run_cmd(
        cmd().args([
            "doctor",
            "pod",
            OFF_POD,
            "-n",
            "apps",
            "-o",
            "json",
            "--from-file",
            saved.to_str().unwrap(),
        ]),
        None,
    );
    assert_eq!(replay.code, 1, "{}", replay.stderr);
    assert_eq!(top(&replay.json())["cause"], "csi_driver_not_registered");
    assert!(has(
        &strings(&replay.json()["unavailable"]),
        "kubelet log query of node"
    ));
}

#[test]
fn the_plugins_and_the_kubelets_lines_about_the_volume_are_read_bounded_and_saved() {
    let live = Live::start(LOGS, "data", Options::new());
    let (_dir, saved, out) = doctor_saved(&live, "db-0", "data", "evidence-logs");
    assert!(out.code <= 1, "{}", out.stderr);
    let r = out.json();
    let inputs = strings(&r["inputs"]);
    for (container, n) in [
        ("ebs-plugin", 2),
        ("node-driver-registrar", 0),
        ("liveness-probe", 0),
    ] {
        assert!(
            has(
                &inputs,
                &format!("node plugin log kube-system/ebs-csi-node-9fz2w/{container}: {n} line(s) about the pod's volumes")
            ),
            "{container}: {inputs:#?}"
        );
    }
    assert!(
        has(
            &inputs,
            &format!("kubelet log query of node {EBS_NODE}: 2 line(s) about the pod")
        ),
        "{inputs:#?}"
    );
    assert!(has(
        &inputs,
        "the pod's owners: StatefulSet db (RollingUpdate, 1 replica(s))"
    ));
    // Bounded: the newest 2000 lines, 2 MiB, 2 hours; the query names the pod's UID, PV and
    // volume handle, and asks for the newest 2000 lines since two hours ago.
    let logs = requests_of(&live, |r| r.subresource.as_deref() == Some("log"));
    assert_eq!(logs.len(), 3, "{logs:#?}");
    for l in &logs {
        for q in ["tailLines=2000", "limitBytes=2097152", "sinceSeconds=7200"] {
            assert!(l.query.contains(q), "{q} in {}", l.query);
        }
        assert!(!l.query.contains("previous"), "{}", l.query);
    }
    let q = requests_of(&live, |r| r.subresource.as_deref() == Some("proxy"));
    assert_eq!(q.len(), 1);
    assert_eq!(q[0].path, format!("/api/v1/nodes/{EBS_NODE}/proxy/logs/"));
    for part in [
        "query=kubelet",
        "tailLines=2000",
        "sinceTime=",
        "vol-02d38d88d79844a04",
        "8f7e6d5c-4b3a-4291-8f0e-d1c2b3a4f5e6",
    ] {
        assert!(q[0].query.contains(part), "{part} in {}", q[0].query);
    }
    // Asked before being read: may the user read pods' logs, and this node's proxy?
    let reviews = requests_of(&live, |r| r.resource == "selfsubjectaccessreviews");
    assert_eq!(reviews.len(), 2, "{reviews:#?}");
    // Saved: the plugin's lines about this volume only (not vol-0e5a7c1d9b3f24680), the
    // kubelet's lines about this pod only, the owner; a replay reads them back.
    let facts = std::fs::read_to_string(saved.join("case.yaml")).unwrap();
    assert!(facts.contains("pluginLogs:"), "{facts}");
    assert!(!facts.contains("vol-0e5a7c1d9b3f24680"), "{facts}");
    assert!(!facts.contains("aws-node-7xw2q"), "{facts}");
    let case = replayed(&saved);
    let plugin: Vec<(&str, &str)> = case
        .plugin_logs
        .iter()
        .map(|l| (l.source.as_str(), l.line.location.as_deref().unwrap_or("")))
        .collect();
    assert_eq!(
        plugin,
        [
            ("kube-system/ebs-csi-node-9fz2w/ebs-plugin", "node.go:117"),
            ("kube-system/ebs-csi-node-9fz2w/ebs-plugin", "driver.go:107")
        ]
    );
    assert!(case.plugin_logs[1]
        .line
        .message
        .contains(r#"no device path for device \"/dev/xvdac\""#));
    let kubelet: Vec<&str> = case
        .logs
        .iter()
        .filter_map(|l| l.location.as_deref())
        .collect();
    assert_eq!(
        kubelet,
        [
            format!("node {EBS_NODE} (log query), nestedpendingoperations.go:348"),
            format!("node {EBS_NODE} (log query), pod_workers.go:1301")
        ]
    );
    assert_eq!(
        case.workloads[0],
        volmnt::model::Workload {
            kind: "StatefulSet".into(),
            namespace: Some("data".into()),
            name: "db".into(),
            strategy: Some("RollingUpdate".into()),
            replicas: Some(1),
            max_surge: None,
        }
    );
    let plugins = volmnt::model::cluster::node_plugins(&case);
    assert_eq!(plugins[0].pods.len(), 1);
    assert_eq!(
        plugins[0].pods[0].summary(),
        "Running, 3/3 ready, 0 restart(s)"
    );
    let replay = run_cmd(
        cmd().args([
            "doctor",
            "pod",
            "db-0",
            "-n",
            "data",
            "-o",
            "json",
            "--from-file",
            saved.to_str().unwrap(),
        ]),
        None,
    );
    assert_eq!(replay.code, out.code, "{}", replay.stderr);
    assert_eq!(
        top(&replay.json())["cause"],
        top(&r)["cause"],
        "the replay reads the same messages"
    );
}

#[test]
fn a_restarting_plugin_containers_previous_instance_is_read_for_why_it_stopped() {
    let mut cluster = FakeCluster::fixture(LOGS).with_pod_log(
        "kube-system",
        "ebs-csi-node-9fz2w",
        "ebs-plugin",
        true,
        &[
            (Duration::from_secs(400), "I1121 10:03:00.000001       1 driver.go:80] \"Driver Information\" Driver=\"ebs.csi.aws.com\""),
            (Duration::from_secs(300), "F1121 10:04:40.318211       1 driver.go:143] \"Failed to create metadata service\" err=\"could not get EC2 instance identity metadata: context deadline exceeded\""),
        ],
    );
    for o in cluster.objects.iter_mut() {
        if o["metadata"]["name"] == "ebs-csi-node-9fz2w" && o["kind"] == "Pod" {
            let c = &mut o["status"]["containerStatuses"][0];
            assert_eq!(c["name"], "ebs-plugin");
            c["restartCount"] = 4.into();
            c["ready"] = false.into();
        }
    }
    let live = Live::with(cluster, LOGS, "data", Options::new());
    let (_dir, saved, out) = doctor_saved(&live, "db-0", "data", "evidence-previous");
    assert!(out.code <= 1, "{}", out.stderr);
    let prev = requests_of(&live, |r| {
        r.subresource.as_deref() == Some("log") && r.query.contains("previous=true")
    });
    assert_eq!(prev.len(), 1, "{prev:#?}");
    assert!(prev[0].query.contains("container=ebs-plugin"));
    assert!(prev[0].query.contains("tailLines=200"));
    let case = replayed(&saved);
    let failed: Vec<&str> = case
        .plugin_logs
        .iter()
        .filter(|l| l.source.ends_with("(previous)"))
        .map(|l| l.line.location.as_deref().unwrap_or(""))
        .collect();
    // Its failure is kept though it names no volume; its informational line is not.
    assert_eq!(failed, ["driver.go:143"]);
    let plugins = volmnt::model::cluster::node_plugins(&case);
    assert_eq!(plugins[0].pods[0].restarts, Some(4));
}

#[test]
fn evidence_the_user_may_not_read_is_said_with_the_right_it_needs_and_not_tried() {
    let opts = Options {
        deny: vec![
            Deny::new("get", "pods/log", Some("kube-system")),
            Deny::new("get", "nodes/proxy", None),
        ],
        ..Options::new()
    };
    let live = Live::start(LOGS, "data", opts);
    let (out, r) = live.doctor("db-0", "data");
    // Evidence missing is no partial result: the diagnosis read all it needs.
    assert!(out.code <= 1, "{}", out.stderr);
    assert_ne!(r["status"], "partial", "{}", out.stdout);
    let notes = strings(&r["unavailable"]);
    assert!(
        has(
            &notes,
            "node plugin logs of kube-system/ebs-csi-node-9fz2w: not allowed (get pods/log in namespace kube-system)"
        ),
        "{notes:#?}"
    );
    assert!(
        has(
            &notes,
            &format!("kubelet log query of node {EBS_NODE}: not allowed (get nodes/proxy on node {EBS_NODE}); the ClusterRole volmnt-node-logs in deploy/rbac-optional.yaml grants it")
        ),
        "{notes:#?}"
    );
    // Asked, not tried: no refused read in the server's log.
    assert!(requests_of(&live, |r| r.subresource.as_deref() == Some("log")).is_empty());
    assert!(requests_of(&live, |r| r.subresource.as_deref() == Some("proxy")).is_empty());
    // Not allowed everywhere, so asked again in the plugin's namespace.
    let reviews = requests_of(&live, |r| r.resource == "selfsubjectaccessreviews");
    assert!(
        reviews
            .iter()
            .any(|r| r.body.contains(r#""namespace":"kube-system""#)),
        "{reviews:#?}"
    );
}

#[test]
fn when_access_cannot_be_reviewed_the_read_is_tried_and_its_refusal_said() {
    let opts = Options {
        deny: vec![
            Deny::new("create", "selfsubjectaccessreviews", None),
            Deny::new("get", "pods/log", None),
        ],
        ..Options::new()
    };
    let live = Live::start(LOGS, "data", opts);
    let (out, r) = live.doctor("db-0", "data");
    assert!(out.code <= 1, "{}", out.stderr);
    let logs = requests_of(&live, |r| r.subresource.as_deref() == Some("log"));
    assert_eq!(logs.len(), 3);
    assert!(logs.iter().all(|l| l.status == 403));
    assert!(
        has(
            &strings(&r["unavailable"]),
            "node plugin log kube-system/ebs-csi-node-9fz2w/ebs-plugin: not allowed (get pods/log in namespace kube-system)"
        ),
        "{:#?}",
        r["unavailable"]
    );
    // The node log query was tried too, and read.
    assert!(has(&strings(&r["inputs"]), "kubelet log query of node"));
}

#[test]
fn a_refused_list_of_daemonsets_is_evidence_missing_not_a_partial_result() {
    let opts = Options {
        deny: vec![
            Deny::new("list", "daemonsets", None),
            Deny::new("get", "replicasets", None),
        ],
        ..Options::new()
    };
    let live = Live::start(OFF, "apps", opts);
    let (out, r) = live.doctor(OFF_POD, "apps");
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert_eq!(top(&r)["cause"], "csi_driver_not_registered");
    assert_ne!(r["status"], "partial");
    let notes = strings(&r["unavailable"]);
    assert!(
        has(
            &notes,
            "CSI node plugin DaemonSets: not allowed (list daemonsets.apps (cluster scope)); the ClusterRole volmnt-reader in deploy/rbac.yaml grants it"
        ),
        "{notes:#?}"
    );
    assert!(
        has(
            &notes,
            "replicasets apps/web-7c6d9f8b5d: not allowed (get replicasets.apps in namespace apps)"
        ),
        "{notes:#?}"
    );
    // The owner is still named, as its reference names it.
    assert!(has(
        &strings(&r["inputs"]),
        "the pod's owners: ReplicaSet web-7c6d9f8b5d"
    ));
}

#[test]
fn each_way_a_kubelet_answers_the_node_log_query_is_said() {
    for (logs, said) in [
        (
            NodeLogs::HandlerDisabled,
            "the kubelet has enableSystemLogHandler off",
        ),
        (
            NodeLogs::AddressNotAllowed,
            "the API server will not proxy to node ip-192-168-41-7.ec2.internal's address",
        ),
        (
            NodeLogs::NotJournald,
            "the kubelet does not log to journald on that node",
        ),
        (
            NodeLogs::Unreachable,
            "the API server could not reach the kubelet (503)",
        ),
        (
            NodeLogs::QueryDisabled,
            "the kubelet has enableSystemLogQuery off",
        ),
    ] {
        let cluster = FakeCluster::fixture(LOGS).with_node_logs(EBS_NODE, logs.clone());
        let live = Live::with(cluster, LOGS, "data", Options::new());
        let (out, r) = live.doctor("db-0", "data");
        assert!(out.code <= 1, "{logs:?}: {}", out.stderr);
        assert!(
            has(
                &strings(&r["unavailable"]),
                &format!("kubelet log query of node {EBS_NODE}: {said}")
            ),
            "{logs:?}: {:#?}",
            r["unavailable"]
        );
        // The plugin's lines are read all the same.
        assert!(has(&strings(&r["inputs"]), "ebs-plugin: 2 line(s)"));
    }
}

#[test]
fn a_rollout_with_a_readwriteonce_claim_shows_its_strategy() {
    // The Multi-Attach incident: the new ReplicaSet's pod, its Deployment's RollingUpdate.
    let live = Live::start("multi-attach", "observability", Options::new());
    let (out, r) = live.doctor("grafana-nf429wl859-pjhzd", "observability");
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert_eq!(top(&r)["cause"], "multi_attach");
    assert!(
        has(
            &strings(&r["inputs"]),
            "the pod's owners: ReplicaSet grafana-nf429wl859 (1 replica(s)), owned by Deployment grafana (RollingUpdate, maxSurge 25%, 1 replica(s))"
        ),
        "{:#?}",
        r["inputs"]
    );
}

#[test]
fn an_attach_errors_grpc_code_a_deleted_attachment_and_a_dead_nodes_taints_reach_the_case() {
    // v1.34+ VolumeError.errorCode (a gRPC code; kube-apiserver v1.36.2's schema has it), a
    // VolumeAttachment being deleted, and a NotReady node tainted out-of-service that lists no
    // volume any more: each kept as read, and replayed from --save.
    let mut cluster = FakeCluster::fixture(LOGS);
    for o in cluster.objects.iter_mut() {
        if o["kind"] == "VolumeAttachment" {
            o["metadata"]["deletionTimestamp"] = "2026-11-21T10:05:00Z".into();
            o["status"] = serde_json::json!({
                "attached": false,
                "attachError": {
                    "errorCode": 4,
                    "message": "rpc error: code = DeadlineExceeded desc = context deadline exceeded",
                    "time": "2026-11-21T10:06:00Z"
                }
            });
        }
    }
    cluster.push(serde_json::json!({
        "apiVersion": "v1", "kind": "Node",
        "metadata": {"name": "ip-192-168-12-9.ec2.internal", "labels": {"kubernetes.io/os": "linux"}},
        "spec": {"taints": [
            {"key": "node.kubernetes.io/unreachable", "effect": "NoExecute", "timeAdded": "2026-11-21T09:31:00Z"},
            {"key": "node.kubernetes.io/out-of-service", "value": "nodeshutdown", "effect": "NoExecute"}
        ]},
        "status": {"conditions": [{"type": "Ready", "status": "Unknown", "reason": "NodeStatusUnknown",
            "lastHeartbeatTime": "2026-11-21T09:30:00Z", "lastTransitionTime": "2026-11-21T09:31:00Z"}]}
    }));
    let live = Live::with(cluster, LOGS, "data", Options::new());
    let (_dir, saved, out) = doctor_saved(&live, "db-0", "data", "evidence-va");
    assert!(out.code <= 1, "{}", out.stderr);
    let case = replayed(&saved);
    let va = &case.volume_attachments[0];
    assert!(va.metadata.deletion_timestamp.is_some());
    let err = va.status.as_ref().unwrap().attach_error.as_ref().unwrap();
    assert_eq!(err.error_code, Some(4));
    let dead = case
        .nodes
        .iter()
        .find(|n| n.metadata.name.as_deref() == Some("ip-192-168-12-9.ec2.internal"))
        .expect("the NotReady node is kept");
    let taints: Vec<&str> = dead
        .spec
        .as_ref()
        .unwrap()
        .taints
        .iter()
        .flatten()
        .map(|t| t.key.as_str())
        .collect();
    assert_eq!(
        taints,
        [
            "node.kubernetes.io/unreachable",
            "node.kubernetes.io/out-of-service"
        ]
    );
}

#[test]
fn pasted_tables_and_a_plugin_log_give_the_same_facts_offline() {
    // Real kubectl output (fixtures/tables/: kubectl v1.32 against kube-apiserver v1.36.2) with
    // the stuck pod's describe: the tables are read, the plugin log kept as the plugin's.
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/tables");
    let dir = TempDir::new("evidence-offline");
    let describe = dir.path().join("describe.txt");
    std::fs::write(
        &describe,
        "Name:         app-inline-csi\nNamespace:    cev-shapes\nNode:         realnode/127.0.0.1\nStatus:       Pending\nContainers:\n  app:\n    State:          Waiting\n      Reason:       ContainerCreating\nVolumes:\n  data:\n    Type:              CSI (a Container Storage Interface (CSI) volume source)\n    Driver:            fake.csi.example.com\nEvents:\n  Type     Reason       Age               From     Message\n  ----     ------       ----              ----     -------\n  Warning  FailedMount  1s (x5 over 9s)   kubelet  MountVolume.SetUp failed for volume \"data\" : kubernetes.io/csi: mounter.SetUpAt failed to get CSI client: driver name fake.csi.example.com not found in the list of registered CSI drivers\n",
    )
    .unwrap();
    let tables = root.join("real-cluster-v1.36.txt");
    let logs = root.join("plugin-logs.txt");
    let out = run_cmd(
        cmd().args([
            "doctor",
            "pod",
            "-f",
            describe.to_str().unwrap(),
            "-f",
            tables.to_str().unwrap(),
            "-f",
            logs.to_str().unwrap(),
            "-o",
            "json",
        ]),
        None,
    );
    assert_eq!(out.code, 1, "{}", out.stderr);
    let r = out.json();
    assert_eq!(top(&r)["cause"], "csi_driver_not_registered");
    let inputs = strings(&r["inputs"]);
    for part in [
        "kubectl get pods table (4 pod(s))",
        "kubectl get daemonsets table (2)",
        "kubectl get deployments table (1)",
        "kubectl get statefulsets table (1)",
        "kubectl get csinodes table (1)",
        "an empty listing: kubectl get pods -n cev-shapes -l app=nothing-here --field-selector spec.nodeName=realnode (No resources found in cev-shapes namespace.)",
        "`kubectl logs -n cev-shapes fake-csi-node-abcde -c plugin --tail=4` (4 log line(s))",
    ] {
        assert!(has(&inputs, part), "{part}: {inputs:#?}");
    }
    // The same facts through the library: DaemonSets (the -o wide row wins no more than the
    // first), the plugin's pods on the node, the plugin log not taken for kubelet's.
    use volmnt::collect::offline;
    let mut case = volmnt::model::Case::default();
    for f in [&describe, &tables, &logs] {
        for s in offline::read_inputs(&f.to_string_lossy(), 1 << 20, &mut std::io::empty()).unwrap()
        {
            offline::add_source(&mut case, &s).unwrap();
        }
    }
    assert_eq!(case.daemonsets.len(), 2);
    assert!(case.logs.is_empty(), "{:#?}", case.logs);
    assert_eq!(case.plugin_logs.len(), 5);
    assert_eq!(
        case.empty_listings,
        [
            "kubectl get volumeattachment (No resources found)",
            "kubectl get pods -n cev-shapes -l app=nothing-here --field-selector spec.nodeName=realnode (No resources found in cev-shapes namespace.)"
        ]
    );
    assert_eq!(case.csi_nodes[0].spec.drivers.len(), 0);
    let p = volmnt::model::cluster::node_plugins(&case);
    assert_eq!(p.len(), 1, "{p:#?}");
    // A table names no registration path: the DaemonSet is found by its name alone.
    assert_eq!(p[0].daemonset.as_deref(), Some("cev-shapes/fake-csi-node"));
    assert_eq!(
        p[0].matched_by,
        Some(volmnt::model::cluster::MatchedBy::Name)
    );
    let pods: Vec<String> = p[0].pods.iter().map(|h| h.summary()).collect();
    assert_eq!(
        pods,
        [
            "Running, 2/2 ready, 0 restart(s)",
            "Running, 1/1 ready, 0 restart(s)"
        ]
    );
}

/// Issue 18: `kubectl get nodes -o wide` and `kubectl get volumeattachment` tables as pasted:
/// the node row gives its Ready condition, and the VolumeAttachment row shows it holds the PV
/// the Multi-Attach event names, so the report names the NotReady holder and its first check,
/// and withholds the out-of-service taint while no backup step can be given before it.
#[test]
fn issue_18_a_notready_holder_from_pasted_tables() {
    const EVENTS: &str = "Events:
  Type     Reason              Age                From                     Message
  ----     ------              ----               ----                     -------
  Warning  FailedAttachVolume  3m (x20 over 40m)  attachdetach-controller  Multi-Attach error for volume \"pvc-7f5e238b-fe55-4014-840f-ac88498ebe91\" Volume is already exclusively attached to one node and can't be attached to another
";
    const TABLES: &str = "$ kubectl get volumeattachment
NAME                                                                   ATTACHER             PV                                         NODE     ATTACHED   AGE
csi-5f1e2d3c4b5a69788796a5b4c3d2e1f0a9b8c7d6e5f4a3b2c1d0e9f8a7b6c5d4   rbd.csi.ceph.com     pvc-7f5e238b-fe55-4014-840f-ac88498ebe91   node-1   true       3d
$ kubectl get nodes -o wide
NAME     STATUS                     ROLES    AGE   VERSION   INTERNAL-IP   EXTERNAL-IP   OS-IMAGE             KERNEL-VERSION       CONTAINER-RUNTIME
node-1   NotReady                   <none>   90d   v1.29.4   10.0.0.11     <none>        Ubuntu 22.04.4 LTS   5.15.0-105-generic   containerd://1.7.12
node-3   Ready,SchedulingDisabled   <none>   90d   v1.29.4   10.0.0.13     <none>        Ubuntu 22.04.4 LTS   5.15.0-105-generic   containerd://1.7.12
";
    let dir = crate::util::TempDir::new("notready-tables");
    let e = dir.write("events.txt", EVENTS);
    let t = dir.write("tables.txt", TABLES);
    let out = crate::util::run(&[
        "doctor",
        "pod",
        "--from-file",
        &e,
        "--from-file",
        &t,
        "-o",
        "json",
    ]);
    out.assert_no_panic();
    let doc = out.json();
    assert!(
        doc["inputs"]
            .to_string()
            .contains("kubectl get nodes table (2)"),
        "{:#}",
        doc["inputs"]
    );
    let f = crate::util::top(&doc);
    assert_eq!(f["cause"], "multi_attach", "{doc:#}");
    assert!(
        f["evidence"]
            .to_string()
            .contains("Node node-1: is NotReady"),
        "{doc:#}"
    );
    let cmds = crate::util::remediation_commands(f);
    assert!(
        cmds.iter().any(|c| c == "kubectl get node node-1 -o wide"),
        "{cmds:?}"
    );
    assert!(
        !cmds.iter().any(|c| c.contains("out-of-service")),
        "{cmds:?}"
    );
    assert!(
        f["withheld"].to_string().contains("out of service"),
        "{:#}",
        f["withheld"]
    );
}

/// The objects of a pod on node-3 whose CSI volume (ebs.csi.aws.com, vol-0a1) waits to attach,
/// with `extra` objects beside them, and its event.
fn attach_case(extra: &str, event: &str) -> String {
    format!(
        "apiVersion: v1
kind: Pod
metadata: {{name: db-0, namespace: shop, uid: u-db-0}}
spec:
  nodeName: node-3
  containers: [{{name: db, image: postgres:16}}]
  volumes: [{{name: data, persistentVolumeClaim: {{claimName: data-db-0}}}}]
status:
  phase: Pending
  containerStatuses: [{{name: db, ready: false, restartCount: 0, image: postgres:16, imageID: '', state: {{waiting: {{reason: ContainerCreating}}}}}}]
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {{name: data-db-0, namespace: shop}}
spec: {{accessModes: [ReadWriteOnce], volumeName: pv-db-0, resources: {{requests: {{storage: 10Gi}}}}}}
status: {{phase: Bound}}
---
apiVersion: v1
kind: PersistentVolume
metadata: {{name: pv-db-0}}
spec:
  accessModes: [ReadWriteOnce]
  capacity: {{storage: 10Gi}}
  claimRef: {{namespace: shop, name: data-db-0}}
  csi: {{driver: ebs.csi.aws.com, volumeHandle: vol-0a1, fsType: ext4}}
---
apiVersion: v1
kind: Event
metadata: {{name: db-0.1, namespace: shop}}
involvedObject: {{kind: Pod, name: db-0, namespace: shop}}
type: Warning
reason: FailedAttachVolume
count: 9
message: '{event}'
source: {{component: attachdetach-controller}}
{extra}"
    )
}

/// Issue 18, point 2: a VolumeAttachment being deleted on the old node (its finalizer still
/// there, still attached): the detach has not finished, which is why the volume is still
/// attached elsewhere; quoted, with its detachError.
#[test]
fn issue_18_a_volumeattachment_being_deleted_elsewhere_is_the_unfinished_detach() {
    let objects = attach_case(
        "---
apiVersion: storage.k8s.io/v1
kind: VolumeAttachment
metadata:
  name: csi-0123abcd
  deletionTimestamp: '2026-11-20T10:00:00Z'
  finalizers: [external-attacher/ebs-csi-aws-com]
spec:
  attacher: ebs.csi.aws.com
  nodeName: node-1
  source: {persistentVolumeName: pv-db-0}
status:
  attached: true
  detachError: {message: 'rpc error: code = Internal desc = Could not detach volume \"vol-0a1\" from node \"i-0abc\": timed out waiting for detach', time: '2026-11-20T10:05:00Z'}
",
        "Multi-Attach error for volume \"pv-db-0\" Volume is already exclusively attached to one node and can''t be attached to another",
    );
    let dir = TempDir::new("va-deleting");
    let f = dir.write("objects.yaml", objects);
    let out = crate::util::run(&["doctor", "pod", "db-0", "--from-file", &f, "-o", "json"]);
    out.assert_no_panic();
    let doc = out.json();
    let t = top(&doc);
    assert_eq!(t["cause"], "multi_attach", "{doc:#}");
    let ev = t["evidence"].to_string();
    assert!(
        ev.contains("VolumeAttachment csi-0123abcd: on node node-1 is being deleted since 2026-11-20T10:00:00Z and is still attached: its detach has not finished; detachError: rpc error"),
        "{ev}"
    );
}

/// Issue 18, point 2: CSINode's attach limit for the driver reached on the pod's node (its
/// status lists as many of the driver's volumes attached as `allocatable.count`, the pod's not
/// among them): the attach cannot happen there.
#[test]
fn issue_18_the_nodes_attach_limit_reached_is_read_from_csinode_and_its_status() {
    let attached: String = (0..3)
        .map(|i| format!("    - {{name: 'kubernetes.io/csi/ebs.csi.aws.com^vol-other{i}', devicePath: ''}}\n"))
        .collect();
    let node = |count: u32, attached: &str| {
        format!(
            "---
apiVersion: v1
kind: Node
metadata: {{name: node-3}}
status:
  conditions: [{{type: Ready, status: 'True'}}]
  volumesAttached:
{attached}---
apiVersion: storage.k8s.io/v1
kind: CSINode
metadata: {{name: node-3}}
spec:
  drivers: [{{name: ebs.csi.aws.com, nodeID: i-0abc, allocatable: {{count: {count}}}}}]
"
        )
    };
    let event = "AttachVolume.Attach failed for volume \"pv-db-0\" : timed out waiting for external-attacher of ebs.csi.aws.com CSI driver to attach volume vol-0a1";
    let dir = TempDir::new("attach-limit");
    let full = dir.write("full.yaml", attach_case(&node(3, &attached), event));
    let out = crate::util::run(&["doctor", "pod", "db-0", "--from-file", &full, "-o", "json"]);
    let doc = out.json();
    let t = top(&doc);
    assert_eq!(t["cause"], "attach_failed_cloud", "{doc:#}");
    assert!(
        t["evidence"]
            .to_string()
            .contains("3 volume(s) of ebs.csi.aws.com attached to node-3, and CSINode allows 3"),
        "{doc:#}"
    );
    // Room left: no such fact.
    let room = dir.write("room.yaml", attach_case(&node(25, &attached), event));
    let doc =
        crate::util::run(&["doctor", "pod", "db-0", "--from-file", &room, "-o", "json"]).json();
    assert!(!doc.to_string().contains("CSINode allows"), "{doc:#}");
    // The pod's own volume among them: the limit did not stop it.
    let own = format!(
        "{attached}    - {{name: 'kubernetes.io/csi/ebs.csi.aws.com^vol-0a1', devicePath: ''}}\n"
    );
    let mine = dir.write("mine.yaml", attach_case(&node(4, &own), event));
    let doc =
        crate::util::run(&["doctor", "pod", "db-0", "--from-file", &mine, "-o", "json"]).json();
    assert!(!doc.to_string().contains("CSINode allows"), "{doc:#}");
}

/// The fixture with the EBS node's Ready condition set to `status` (the kubelet stopped
/// posting: Unknown; or it says it is not ready: False).
fn with_node_ready(status: &str) -> FakeCluster {
    let mut cluster = FakeCluster::fixture(LOGS);
    for o in cluster.objects.iter_mut() {
        if o["kind"] == "Node" && o["metadata"]["name"] == EBS_NODE {
            for c in o["status"]["conditions"].as_array_mut().unwrap() {
                if c["type"] == "Ready" {
                    c["status"] = status.into();
                    c["reason"] = "NodeStatusUnknown".into();
                    c["message"] = "Kubelet stopped posting node status.".into();
                }
            }
        }
    }
    cluster
}

/// Issue 30: a node that is not Ready is asked nothing through its kubelet (no pods/log of
/// its plugin pods, no node log query): the API server would only wait on its dial. The
/// report says what was not read and why, and the verdict is the same.
#[test]
fn a_node_that_is_not_ready_is_asked_nothing_through_its_kubelet() {
    let live = Live::with(with_node_ready("Unknown"), LOGS, "data", Options::new());
    let (out, r) = live.doctor("db-0", "data");
    assert!(out.code <= 1, "{}", out.stderr);
    let through_kubelet = requests_of(&live, |r| {
        matches!(r.subresource.as_deref(), Some("log" | "proxy"))
    });
    assert!(through_kubelet.is_empty(), "{through_kubelet:#?}");
    let un = strings(&r["unavailable"]);
    assert!(
        has(
            &un,
            &format!(
                "kubelet log query of node {EBS_NODE}: not asked: node {EBS_NODE} is not Ready (Ready=Unknown, NodeStatusUnknown since"
            )
        ),
        "{un:#?}"
    );
    assert!(
        has(
            &un,
            &format!("node plugin logs on node {EBS_NODE}: not read: node {EBS_NODE} is not Ready")
        ),
        "{un:#?}"
    );
    // The same verdict as with the node Ready (from the events and objects).
    let ready = Live::start(LOGS, "data", Options::new());
    let (_, r2) = ready.doctor("db-0", "data");
    assert_eq!(top(&r)["cause"], top(&r2)["cause"]);
}

/// Issue 30: a Ready node whose kubelet does not answer (the API server's proxy waits on it):
/// the reads through it are given about a second, together, and the verdict comes anyway, the
/// report saying which evidence is late and missing. Without that bound they would wait for
/// --request-timeout (15 s by default) or the server's own dial timeout.
#[test]
fn a_kubelet_that_does_not_answer_costs_about_a_second_and_the_report_says_so() {
    let cluster = FakeCluster::fixture(LOGS).with_node_logs(EBS_NODE, NodeLogs::Hung);
    let live = Live::with(cluster, LOGS, "data", Options::new());
    let started = std::time::Instant::now();
    let (out, r) = live.doctor("db-0", "data");
    let took = started.elapsed();
    assert!(out.code <= 1, "{}", out.stderr);
    // Not a speed goal (benches measure those): that the run did not wait for the kubelet.
    assert!(took < Duration::from_secs(10), "{took:?}");
    // The verdict of the events and objects, as when the kubelet answers.
    let answering = Live::start(LOGS, "data", Options::new());
    let (_, r2) = answering.doctor("db-0", "data");
    assert_eq!(top(&r)["cause"], top(&r2)["cause"], "{}", out.stdout);
    let un = strings(&r["unavailable"]);
    assert!(
        has(
            &un,
            &format!("kubelet log query of node {EBS_NODE}: late: no answer within 1s")
        ),
        "{un:#?}"
    );
    assert!(
        has(
            &un,
            "node plugin log kube-system/ebs-csi-node-9fz2w/ebs-plugin: late: no answer within 1s"
        ),
        "{un:#?}"
    );
}
