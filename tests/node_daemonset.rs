//! `node check --all --via daemonset`: one DaemonSet, every node's probe pod started at once by
//! the fake API server's DaemonSet controller and run by its fake kubelet, the probe exec'd into
//! each; nothing left behind after success, an error, or Ctrl-C. The 200-node timing is an
//! ignored test run by scripts/bench.sh.

use std::process::Stdio;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::node_check::ExecCluster;
use crate::support::fake_api::{Deny, ExecNode, FakeKubelet, Options};

fn host(name: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/hosts")
        .join(name)
}

fn node<'a>(doc: &'a Value, name: &str) -> &'a Value {
    doc["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["node"] == name)
        .unwrap_or_else(|| panic!("no node {name} in {doc:#}"))
}

impl ExecCluster {
    /// Probe DaemonSets and probe pods still in the cluster.
    fn leftovers(&self) -> Vec<String> {
        self.api
            .objects()
            .into_iter()
            .filter(|o| {
                matches!(o["kind"].as_str(), Some("Pod" | "DaemonSet"))
                    && o["metadata"]["labels"]["volmnt.io/probe"] == "true"
            })
            .map(|o| format!("{} {}", o["kind"], o["metadata"]["name"]))
            .collect()
    }

    fn assert_nothing_left(&self) {
        let left = self.leftovers();
        assert!(left.is_empty(), "left behind: {left:?}");
        let ds_creates = self
            .api
            .requests()
            .iter()
            .filter(|r| r.resource == "daemonsets" && r.verb == "create")
            .count();
        let ds_deletes = self
            .api
            .requests()
            .iter()
            .filter(|r| r.resource == "daemonsets" && r.verb == "delete" && r.status == 200)
            .count();
        assert_eq!(
            ds_creates, ds_deletes,
            "every DaemonSet created was deleted"
        );
    }
}

fn fleet(n: usize, dead: &[usize]) -> Vec<(String, ExecNode)> {
    (0..n)
        .map(|i| {
            let mut e = ExecNode::new(&host(if i % 4 == 0 {
                "debian-12-no-nfs"
            } else {
                "rocky-9"
            }));
            if dead.contains(&i) {
                e = e.dead();
            }
            (format!("node-{i:03}"), e)
        })
        .collect()
}

fn start(nodes: &[(String, ExecNode)], opts: Options) -> ExecCluster {
    ExecCluster::start_with(
        nodes.iter().map(|(n, e)| (n.as_str(), e.clone())).collect(),
        FakeKubelet::default(),
        opts,
    )
}

#[test]
fn one_daemonset_probes_every_node_and_nothing_is_left_behind() {
    let nodes = fleet(12, &[3, 7]);
    let c = start(&nodes, Options::new());
    let out = c.run(&[
        "node",
        "check",
        "--all",
        "--via",
        "daemonset",
        "--require",
        "nfs",
        "--timeout",
        "3s",
        "-o",
        "json",
    ]);
    // Two nodes never start their pod (exit 3 outranks nothing: a FAIL node makes it 1).
    assert_eq!(out.code, 1, "{out:#?}");
    assert!(
        out.stderr
            .contains("creating DaemonSet volmnt/volmnt-probe-ds-"),
        "{}",
        out.stderr
    );
    let doc = out.json();
    assert_eq!(doc["summary"]["checked"], 12);
    assert_eq!(doc["summary"]["unreachable"], 2, "{doc:#}");
    for dead in ["node-003", "node-007"] {
        let n = node(&doc, dead);
        assert_eq!(n["status"], "unreachable");
        let err = n["error"].as_str().unwrap();
        assert!(
            err.contains("did not start within the --timeout")
                && err.contains("not reported by the kubelet yet"),
            "the reason is said: {err}"
        );
    }
    assert_eq!(node(&doc, "node-001")["status"], "pass");
    assert_eq!(
        node(&doc, "node-004")["status"],
        "fail",
        "debian-12-no-nfs lacks mount.nfs"
    );
    // One create for the fleet, no pod created by volmnt itself; one exec per live node.
    let reqs = c.api.requests();
    assert_eq!(
        reqs.iter()
            .filter(|r| r.resource == "daemonsets" && r.verb == "create")
            .count(),
        1
    );
    assert_eq!(
        reqs.iter()
            .filter(|r| r.resource == "pods" && r.verb == "create" && r.subresource.is_none())
            .count(),
        0
    );
    assert_eq!(c.api.exec_sessions().len(), 10);
    // The DaemonSet as it was sent: the probe pod's safety, no deadline field a DaemonSet refuses.
    let ds: Value = serde_json::from_str(
        &reqs
            .iter()
            .find(|r| r.resource == "daemonsets" && r.verb == "create")
            .unwrap()
            .body,
    )
    .unwrap();
    let spec = &ds["spec"]["template"]["spec"];
    assert_eq!(spec["restartPolicy"], "Always");
    assert!(spec.get("activeDeadlineSeconds").is_none());
    assert_eq!(
        spec["containers"][0]["securityContext"]["privileged"],
        false
    );
    assert_eq!(spec["volumes"][0]["hostPath"]["path"], "/");
    c.assert_nothing_left();
}

#[test]
fn named_nodes_get_a_daemonset_limited_to_them_and_labels_are_written() {
    let nodes = fleet(6, &[]);
    let c = start(&nodes, Options::new());
    let out = c.run(&[
        "node",
        "check",
        "node-001",
        "node-004",
        "--via",
        "daemonset",
        "--label",
        "--timeout",
        "5s",
        "-o",
        "json",
    ]);
    assert!(out.code <= 1, "{out:#?}");
    let doc = out.json();
    assert_eq!(doc["summary"]["checked"], 2);
    assert_eq!(
        c.api.exec_sessions().len(),
        2,
        "pods on the named nodes only"
    );
    let n4 = c.api.object("Node", None, "node-004").unwrap();
    assert_eq!(n4["metadata"]["labels"]["volmnt.io/mount.nfs"], "false");
    let n1 = c.api.object("Node", None, "node-001").unwrap();
    assert_eq!(n1["metadata"]["labels"]["volmnt.io/mount.nfs"], "true");
    c.assert_nothing_left();
}

#[test]
fn an_error_deletes_the_daemonset_too() {
    let nodes = fleet(4, &[]);
    let opts = Options {
        deny: vec![Deny::new("*", "pods/exec", None)],
        ..Options::new()
    };
    let c = start(&nodes, opts);
    let out = c.run(&[
        "node",
        "check",
        "--all",
        "--via",
        "daemonset",
        "--timeout",
        "5s",
        "-o",
        "json",
    ]);
    assert_eq!(out.code, 3, "{out:#?}");
    let doc = out.json();
    let err = node(&doc, "node-000")["error"].as_str().unwrap();
    assert!(err.contains("pods/exec"), "{err}");
    c.assert_nothing_left();
}

#[test]
fn ctrl_c_deletes_the_daemonset_and_its_pods_first() {
    let nodes = vec![(
        "node-slow".to_string(),
        ExecNode::new(&host("rocky-9")).slow(Duration::from_secs(60)),
    )];
    let c = start(&nodes, Options::new());
    let mut child = c
        .command(&[
            "node",
            "check",
            "--all",
            "--via",
            "daemonset",
            "--timeout",
            "90s",
        ])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start volmnt");
    let t0 = Instant::now();
    while !c
        .api
        .requests()
        .iter()
        .any(|r| r.subresource.as_deref() == Some("exec"))
    {
        assert!(
            t0.elapsed() < Duration::from_secs(20),
            "the probe never started"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(!c.leftovers().is_empty());
    let ok = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .is_ok_and(|s| s.success());
    assert!(ok);
    let t1 = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        assert!(
            t1.elapsed() < Duration::from_secs(20),
            "volmnt did not stop on SIGINT"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    let out = child.wait_with_output().unwrap();
    assert_eq!(
        status.code(),
        Some(130),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    c.assert_nothing_left();
}

#[test]
fn node_gc_deletes_a_leftover_probe_daemonset_with_its_pods() {
    let nodes = fleet(3, &[]);
    let c = start(&nodes, Options::new());
    // What a volmnt killed with SIGKILL leaves: its DaemonSet, and the pods the controller made.
    let ds = serde_json::json!({
        "apiVersion": "apps/v1", "kind": "DaemonSet",
        "metadata": { "name": "volmnt-probe-ds-zzzzz", "namespace": "volmnt",
            "labels": { "app.kubernetes.io/name": "volmnt", "volmnt.io/probe": "true", "volmnt.io/probe-run": "zzzzz" } },
        "spec": { "selector": { "matchLabels": { "volmnt.io/probe-run": "zzzzz" } },
            "template": { "metadata": { "labels": { "volmnt.io/probe": "true", "volmnt.io/probe-run": "zzzzz" } },
                "spec": { "tolerations": [{ "operator": "Exists" }], "containers": [{ "name": "probe", "image": "busybox:1.36" }] } } },
    });
    c.api.apply(ds);
    let uid = c
        .api
        .object("DaemonSet", Some("volmnt"), "volmnt-probe-ds-zzzzz")
        .unwrap()["metadata"]["uid"]
        .clone();
    for n in ["node-000", "node-001"] {
        c.api.apply(serde_json::json!({
            "apiVersion": "v1", "kind": "Pod",
            "metadata": { "name": format!("volmnt-probe-ds-zzzzz-{n}"), "namespace": "volmnt",
                "labels": { "volmnt.io/probe": "true", "volmnt.io/probe-run": "zzzzz" },
                "ownerReferences": [{ "apiVersion": "apps/v1", "kind": "DaemonSet", "name": "volmnt-probe-ds-zzzzz", "uid": uid, "controller": true }] },
            "spec": { "nodeName": n, "containers": [{ "name": "probe", "image": "busybox:1.36" }] },
        }));
    }
    assert!(!c.leftovers().is_empty());
    let out = c.run(&["node", "gc", "-o", "json"]);
    assert_eq!(out.code, 0, "{out:#?}");
    let doc = out.json();
    assert_eq!(doc["deleted_daemonsets"][0], "volmnt/volmnt-probe-ds-zzzzz");
    assert!(c.leftovers().is_empty(), "{:?}", c.leftovers());
}

#[test]
#[ignore = "timing figures; run by scripts/bench.sh"]
fn node_check_via_daemonset_timing_200_nodes() {
    // 200 fake nodes, 10 of them dead (their pod never starts: --timeout 5s).
    let dead: Vec<usize> = (0..10).map(|k| k * 20 + 7).collect();
    let nodes = fleet(200, &dead);
    let c = start(&nodes, Options::new());
    let t0 = Instant::now();
    let out = c.run(&[
        "node",
        "check",
        "--all",
        "--via",
        "daemonset",
        "--timeout",
        "5s",
        "--concurrency",
        "20",
        "-o",
        "json",
    ]);
    let wall = t0.elapsed();
    let doc = out.json();
    assert_eq!(doc["summary"]["checked"], 200, "{}", out.stderr);
    assert_eq!(doc["summary"]["unreachable"], 10);
    let per_node: Vec<u64> = doc["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["elapsed_ms"].as_u64().unwrap())
        .collect();
    let max = per_node.iter().max().copied().unwrap_or(0);
    let max_live = doc["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|n| n["status"] != "unreachable")
        .map(|n| n["elapsed_ms"].as_u64().unwrap())
        .max()
        .unwrap_or(0);
    c.assert_nothing_left();
    let line = format!(
        "node check --all --via daemonset, 200 fake nodes (10 dead, --timeout 5s, --concurrency 20): \
         wall {} ms; slowest node {max} ms (the dead ones: the timeout), slowest live node {max_live} ms; \
         {} exec sessions; nothing left behind",
        wall.as_millis(),
        c.api.exec_sessions().len()
    );
    println!("{line}");
    if let Ok(p) = std::env::var("VOLMNT_BENCH_SUMMARY") {
        use std::io::Write;
        if let Ok(mut f) = std::fs::OpenOptions::new().append(true).open(p) {
            let _ = writeln!(f, "node_check_ds_200_wall_ms\t{}", wall.as_millis());
            let _ = writeln!(f, "node_check_ds_200_max_ms\t{max}");
            let _ = writeln!(f, "node_check_ds_200_max_live_ms\t{max_live}");
        }
    }
}

#[test]
fn the_long_running_check_relabels_its_node_every_round_and_stops_on_sigterm() {
    // What deploy/node-check.yaml's pod runs, on a node tree without the NFS client.
    let nodes = fleet(2, &[]);
    let c = start(&nodes, Options::new());
    let root = host("debian-12-no-nfs");
    let mut child = c
        .command(&[
            "node",
            "check",
            "--local",
            "--root",
            root.to_str().unwrap(),
            "--label",
            "--every",
            "300ms",
        ])
        .env("NODE_NAME", "node-001")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start volmnt");
    let patches = || {
        c.api
            .requests()
            .iter()
            .filter(|r| {
                r.resource == "nodes" && r.verb == "patch" && r.name.as_deref() == Some("node-001")
            })
            .count()
    };
    let t0 = Instant::now();
    while patches() < 2 {
        assert!(
            t0.elapsed() < Duration::from_secs(30),
            "no second round of labels"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let n = c.api.object("Node", None, "node-001").unwrap();
    assert_eq!(n["metadata"]["labels"]["volmnt.io/mount.nfs"], "false");
    // The pods on the node were read, to tell leftover mounts from live ones.
    assert!(c.api.requests().iter().any(|r| r.resource == "pods"
        && r.verb == "list"
        && r.query.contains("spec.nodeName%3Dnode-001")));
    std::thread::sleep(Duration::from_millis(100));
    let ok = std::process::Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .is_ok_and(|s| s.success());
    assert!(ok);
    let t1 = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        assert!(
            t1.elapsed() < Duration::from_secs(20),
            "volmnt did not stop on SIGTERM"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        matches!(status.code(), Some(0) | Some(143)),
        "{status:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("node-001"),
        "the report names the node: {stdout}"
    );
}

#[test]
fn label_with_local_needs_the_node_name() {
    let out = crate::util::run(&["node", "check", "--local", "--label"]);
    out.assert_input_error("--node-name");
}

/// Issue 19: a named node that cannot take the probe pod (on the real cluster, an API-only Node:
/// no kubelet, no allocatable pods). The real DaemonSet controller still makes its pod, naming
/// the node in the pod's affinity, and the scheduler leaves it Pending, unbound; volmnt looked
/// only at spec.nodeName and said "the DaemonSet placed no probe pod on it". The fake bound every
/// pod itself; now it leaves such a pod unbound with the scheduler's reason, as the real one does.
#[test]
fn issue_19_a_probe_pod_the_scheduler_cannot_place_is_reported_with_its_reason() {
    let nodes = fleet(2, &[]);
    let c = start(&nodes, Options::new());
    c.api.apply(serde_json::json!({
        "apiVersion": "v1", "kind": "Node",
        "metadata": {"name": "api-only", "labels": {"kubernetes.io/hostname": "api-only"}},
        "status": {"allocatable": {"pods": "0"}},
    }));
    let out = c.run(&[
        "node",
        "check",
        "node-000",
        "api-only",
        "--via",
        "daemonset",
        "--timeout",
        "3s",
        "-o",
        "json",
    ]);
    assert_eq!(out.code, 3, "{out:#?}");
    let doc = out.json();
    assert_eq!(node(&doc, "node-000")["status"], "pass", "{doc:#}");
    let n = node(&doc, "api-only");
    assert_eq!(n["status"], "unreachable", "{doc:#}");
    let why = n["error"].as_str().unwrap_or("");
    assert!(
        why.contains("not scheduled (Unschedulable: 0/3 nodes are available: 1 Too many pods"),
        "{why}"
    );
    assert!(!why.contains("placed no probe pod"), "{why}");
    c.assert_nothing_left();
}

/// Issue 29: on a cluster without a DaemonSet controller (an apiserver without
/// kube-controller-manager) no node gets a pod; that is said once per node as what it is (the
/// DaemonSet's status was never written), never blamed on taints; and with a controller, a node
/// whose taint keeps the pod off is still told apart.
#[test]
fn a_missing_daemonset_controller_is_not_blamed_on_taints() {
    let nodes = fleet(3, &[]);
    let opts = Options {
        daemonset_controller: false,
        ..Options::new()
    };
    let c = start(&nodes, opts);
    let out = c.run(&[
        "node",
        "check",
        "--all",
        "--via",
        "daemonset",
        "--require",
        "nfs",
        "--timeout",
        "2s",
        "-o",
        "json",
    ]);
    assert_eq!(out.code, 3, "{out:#?}");
    let doc = out.json();
    for n in ["node-000", "node-001", "node-002"] {
        let err = node(&doc, n)["error"].as_str().unwrap();
        assert!(
            err.contains("no DaemonSet controller acted on"),
            "{n}: {err}"
        );
        assert!(!err.contains("taint"), "{n}: {err}");
    }
    c.assert_nothing_left();
}
