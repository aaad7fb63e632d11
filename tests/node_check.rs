//! `volmnt node check` / `node gc` end to end: the real binary against a real OpenSSH server on
//! 127.0.0.1 (`--ssh`), and against the fake API server with its fake kubelet (`--exec`): the
//! probe pod's spec, its deletion on success, on error and on Ctrl-C, nodes in parallel with one
//! unreachable node not spoiling the rest, `--require` exit codes, `-o junit`, `--label`, and
//! names that try to inject shell on every transport.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::support::fake_api::{
    start_in_background, Deny, ExecNode, FakeApi, FakeCluster, FakeKubelet, Options,
};
use crate::support::sshd::{Port, Sshd};
use crate::util::{cmd, run_cmd, Out, TempDir};

/// `fixtures/hosts/<name>`: a node's root file system.
fn host(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/hosts")
        .join(name)
}

/// A unique marker path that an injected command would create.
fn pwned_path(tag: &str) -> PathBuf {
    let p = std::env::temp_dir().join(format!("volmnt-pwned-{}-{tag}", std::process::id()));
    let _ = std::fs::remove_file(&p);
    p
}

// ---------------------------------------------------------------------------------------------
// --exec against the fake API server
// ---------------------------------------------------------------------------------------------

pub struct ExecCluster {
    pub api: FakeApi,
    _thread: std::thread::JoinHandle<()>,
    _dir: TempDir,
    pub kubeconfig: PathBuf,
}

fn node_object(name: &str, ip: &str) -> Value {
    json!({
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
        "status": {
            "addresses": [{"type": "InternalIP", "address": ip}, {"type": "Hostname", "address": name}],
            "nodeInfo": {"osImage": "Debian GNU/Linux 12 (bookworm)"},
            "conditions": [{"type": "Ready", "status": "True"}],
        },
    })
}

impl ExecCluster {
    /// A cluster whose Node objects and fake kubelet are `nodes`.
    pub fn start(nodes: Vec<(&str, ExecNode)>, kubelet: FakeKubelet) -> ExecCluster {
        ExecCluster::start_with(nodes, kubelet, Options::new())
    }

    pub fn start_with(
        nodes: Vec<(&str, ExecNode)>,
        mut kubelet: FakeKubelet,
        mut opts: Options,
    ) -> ExecCluster {
        let mut cluster = FakeCluster::new().with_probe_namespace();
        for (i, (name, n)) in nodes.into_iter().enumerate() {
            cluster.push(node_object(name, &format!("10.0.0.{}", i + 1)));
            kubelet = kubelet.with(name, n);
        }
        opts.kubelet = Some(kubelet);
        let (api, thread) = start_in_background(cluster, opts);
        let dir = TempDir::new("node-exec");
        let kubeconfig = api.write_kubeconfig(dir.path(), "volmnt");
        ExecCluster {
            api,
            _thread: thread,
            _dir: dir,
            kubeconfig,
        }
    }

    pub fn command(&self, args: &[&str]) -> std::process::Command {
        let mut c = cmd();
        c.args(args)
            .arg("--kubeconfig")
            .arg(&self.kubeconfig)
            .env_remove("KUBECONFIG");
        c
    }

    pub fn run(&self, args: &[&str]) -> Out {
        let out = run_cmd(&mut self.command(args), None);
        out.assert_no_panic();
        out
    }

    /// Probe pods still in the cluster.
    pub fn probe_pods(&self) -> Vec<Value> {
        self.api
            .objects()
            .into_iter()
            .filter(|o| o["kind"] == "Pod" && o["metadata"]["labels"]["volmnt.io/probe"] == "true")
            .collect()
    }

    /// Names of the pods created, and of those deleted, as the API server saw the requests.
    pub fn creates_and_deletes(&self) -> (Vec<String>, Vec<String>) {
        let mut created = Vec::new();
        let mut deleted = Vec::new();
        for r in self.api.requests() {
            if r.resource != "pods" || r.subresource.is_some() {
                continue;
            }
            if r.verb == "create" && r.status == 201 {
                let body: Value = serde_json::from_str(&r.body).unwrap_or(Value::Null);
                created.push(body["metadata"]["name"].as_str().unwrap_or("").to_string());
            }
            if r.verb == "delete" && r.status == 200 {
                deleted.push(r.name.clone().unwrap_or_default());
            }
        }
        (created, deleted)
    }

    /// The bodies of the pod create requests.
    pub fn created_pods(&self) -> Vec<Value> {
        self.api
            .requests()
            .iter()
            .filter(|r| r.resource == "pods" && r.verb == "create" && r.subresource.is_none())
            .map(|r| serde_json::from_str(&r.body).expect("pod create body is JSON"))
            .collect()
    }

    /// Every probe pod created was deleted, and none is left.
    pub fn assert_all_deleted(&self) {
        let (created, deleted) = self.creates_and_deletes();
        assert!(!created.is_empty(), "no probe pod was created");
        for c in &created {
            assert!(
                deleted.contains(c),
                "probe pod {c} was created but never deleted (deleted: {deleted:?})"
            );
        }
        assert!(self.probe_pods().is_empty(), "{:#?}", self.probe_pods());
    }
}

fn node<'a>(doc: &'a Value, name: &str) -> &'a Value {
    doc["nodes"]
        .as_array()
        .and_then(|a| a.iter().find(|n| n["node"] == name || n["target"] == name))
        .unwrap_or_else(|| panic!("no node {name} in:\n{doc:#}"))
}

#[test]
fn exec_creates_the_probe_pod_as_the_issue_says_and_deletes_it_after_the_probe() {
    let c = ExecCluster::start(
        vec![
            ("node-a", ExecNode::new(&host("rocky-9"))),
            ("node-b", ExecNode::new(&host("debian-12-no-nfs"))),
        ],
        FakeKubelet::default(),
    );
    let out = c.run(&[
        "node",
        "check",
        "node-a",
        "node-b",
        "--require",
        "nfs",
        "-o",
        "json",
    ]);
    assert_eq!(out.code, 1, "node-b lacks nfs: exit 1\n{out:#?}");
    let doc = out.json();
    assert_eq!(doc["transport"], "exec");
    assert_eq!(node(&doc, "node-a")["status"], "pass", "{doc:#}");
    assert_eq!(node(&doc, "node-b")["status"], "fail");
    let req = &node(&doc, "node-b")["report"]["requirements"][0];
    assert_eq!(req["ok"], false);
    assert!(
        req["install"]["command"]
            .as_str()
            .unwrap_or("")
            .contains("nfs-common"),
        "{req:#}"
    );

    // Said before it was done: what, where, with which privileges, and that it is deleted.
    assert!(
        out.stderr
            .contains("creating 2 probe pods in namespace volmnt"),
        "{}",
        out.stderr
    );
    assert!(out.stderr.contains("hostPID") && out.stderr.contains("read-only"));
    assert!(out.stderr.contains("deleted"));

    // The spec, as the issue asks.
    let pods = c.created_pods();
    assert_eq!(pods.len(), 2);
    for p in &pods {
        let name = p["metadata"]["name"].as_str().unwrap();
        assert!(name.starts_with("volmnt-probe-"), "{name}");
        assert_eq!(p["metadata"]["labels"]["app.kubernetes.io/name"], "volmnt");
        assert_eq!(p["metadata"]["labels"]["volmnt.io/probe"], "true");
        let s = &p["spec"];
        assert!(s["nodeName"] == "node-a" || s["nodeName"] == "node-b");
        assert_eq!(s["hostPID"], true);
        assert_eq!(s["restartPolicy"], "Never");
        assert_eq!(s["tolerations"], json!([{"operator": "Exists"}]));
        assert!(s["activeDeadlineSeconds"].as_u64().unwrap() > 0);
        assert_eq!(s["volumes"][0]["hostPath"]["path"], "/");
        let ct = &s["containers"][0];
        assert_eq!(ct["image"], "busybox:1.36");
        assert_eq!(ct["volumeMounts"][0]["mountPath"], "/host");
        assert_eq!(ct["volumeMounts"][0]["readOnly"], true);
        assert_eq!(ct["securityContext"]["privileged"], false);
        assert_eq!(ct["command"][0], "sleep");
    }
    // The script went through the exec API to `sh -s`, once per node.
    let sessions = c.api.exec_sessions();
    assert_eq!(sessions.len(), 2, "{sessions:#?}");
    for s in &sessions {
        assert_eq!(s.command, ["sh", "-s"]);
        assert_eq!(s.container.as_deref(), Some("probe"));
        assert_eq!(s.protocol, "v5.channel.k8s.io");
        assert!(s.stdin_bytes > 1000, "{s:#?}");
        assert_eq!(s.exit_code, Some(0));
    }
    c.assert_all_deleted();
}

#[test]
fn exec_works_with_a_v4_only_api_server_where_stdin_cannot_be_closed() {
    let c = ExecCluster::start(
        vec![("old-node", ExecNode::new(&host("rocky-9")))],
        FakeKubelet {
            protocols: vec!["v4.channel.k8s.io".into()],
            ..FakeKubelet::default()
        },
    );
    let out = c.run(&[
        "node",
        "check",
        "old-node",
        "--require",
        "nfs",
        "-o",
        "json",
    ]);
    assert_eq!(out.code, 0, "{out:#?}");
    assert_eq!(c.api.exec_sessions()[0].protocol, "v4.channel.k8s.io");
    let doc = out.json();
    assert_eq!(node(&doc, "old-node")["report"]["os_family"], "rhel");
    c.assert_all_deleted();
}

#[test]
fn exec_deletes_the_pod_when_exec_is_refused_and_reports_the_rbac_fix() {
    let opts = Options {
        deny: vec![Deny::new("*", "pods/exec", None)],
        ..Options::new()
    };
    let c = ExecCluster::start_with(
        vec![("node-a", ExecNode::new(&host("rocky-9")))],
        FakeKubelet::default(),
        opts,
    );
    let out = c.run(&["node", "check", "node-a", "-o", "json"]);
    assert_eq!(out.code, 3, "{out:#?}");
    let doc = out.json();
    let err = node(&doc, "node-a")["error"].as_str().unwrap_or("");
    assert!(
        err.contains("not allowed") && err.contains("pods/exec"),
        "{err}"
    );
    assert!(err.contains("deploy/rbac.yaml"), "{err}");
    // The hint names the real Role and the namespace it lives in.
    assert!(
        err.contains("not allowed by RBAC")
            && err.contains("Role volmnt-node-probe in namespace volmnt"),
        "{err}"
    );
    c.assert_all_deleted();
}

#[test]
fn pod_security_admission_and_rbac_and_a_missing_namespace_get_their_own_hints() {
    // The probe namespace enforces baseline: the probe pod (hostPID, hostPath) is refused by
    // admission, which no Role fixes.
    let c = ExecCluster::start(
        vec![("node-a", ExecNode::new(&host("rocky-9")))],
        FakeKubelet::default(),
    );
    c.api.apply(json!({
        "apiVersion": "v1",
        "kind": "Namespace",
        "metadata": {"name": "volmnt", "labels": {"pod-security.kubernetes.io/enforce": "baseline"}},
    }));
    let out = c.run(&["node", "check", "node-a", "-o", "json"]);
    assert_eq!(out.code, 3, "{out:#?}");
    let err = node(&out.json(), "node-a")["error"]
        .as_str()
        .unwrap_or("")
        .to_string();
    assert!(
        err.contains("refused by Pod Security admission in namespace volmnt"),
        "{err}"
    );
    assert!(
        err.contains(r#"violates PodSecurity "baseline:latest""#),
        "{err}"
    );
    assert!(
        err.contains(
            "kubectl label namespace volmnt pod-security.kubernetes.io/enforce=privileged"
        ),
        "{err}"
    );
    assert!(!err.contains("not allowed by RBAC"), "{err}");

    // A probe namespace that does not exist: say so, and how it is made.
    let out = c.run(&["node", "check", "node-a", "-n", "probes", "-o", "json"]);
    assert_eq!(out.code, 3, "{out:#?}");
    let err = node(&out.json(), "node-a")["error"]
        .as_str()
        .unwrap_or("")
        .to_string();
    assert!(err.contains("namespace probes does not exist"), "{err}");
    assert!(err.contains("kubectl apply -f deploy/rbac.yaml"), "{err}");
}

/// Issue 29: a CI preflight over `--all` with a probe namespace that does not exist names every
/// node it could not check, and why, in its JUnit (not one case for "every node"); exit 3; the
/// misspelt namespace is said once on stderr with the closest one; no probe pod is created.
#[test]
fn a_missing_probe_namespace_names_every_node_not_checked_in_the_junit() {
    let c = ExecCluster::start(
        vec![
            ("node-a", ExecNode::new(&host("rocky-9"))),
            ("node-b", ExecNode::new(&host("debian-12"))),
        ],
        FakeKubelet::default(),
    );
    let out = c.run(&[
        "node",
        "check",
        "--all",
        "--require",
        "nfs",
        "-n",
        "volmnt-probez",
        "-o",
        "junit",
    ]);
    assert_eq!(out.code, 3, "{out:#?}");
    let x = &out.stdout;
    assert!(
        x.contains(
            "<testsuites name=\"volmnt node check\" tests=\"2\" failures=\"0\" errors=\"2\""
        ),
        "{x}"
    );
    for n in ["node-a", "node-b"] {
        assert!(
            x.contains(&format!("message=\"{n} was not checked\"")),
            "{n}: {x}"
        );
    }
    assert_eq!(
        x.matches("namespace volmnt-probez does not exist").count(),
        2,
        "{x}"
    );
    assert!(
        out.stderr.contains(r#"did you mean "volmnt"?"#),
        "{}",
        out.stderr
    );
    assert!(c.created_pods().is_empty());
}

#[test]
fn one_dead_node_does_not_spoil_the_others_and_its_pod_is_deleted_after_the_timeout() {
    let c = ExecCluster::start(
        vec![
            ("node-a", ExecNode::new(&host("rocky-9"))),
            ("node-dead", ExecNode::new(&host("rocky-9")).dead()),
            (
                "node-slow",
                ExecNode::new(&host("alpine-3.19")).slow(Duration::from_secs(1)),
            ),
        ],
        FakeKubelet::default(),
    );
    let t0 = Instant::now();
    let out = c.run(&["node", "check", "--all", "--timeout", "3s", "-o", "json"]);
    let took = t0.elapsed();
    assert_eq!(
        out.code, 3,
        "one node could not be reached: exit 3\n{out:#?}"
    );
    let doc = out.json();
    assert_eq!(doc["summary"]["checked"], 3);
    assert_eq!(node(&doc, "node-a")["status"], "pass");
    assert_eq!(node(&doc, "node-slow")["status"], "pass", "{doc:#}");
    let dead = node(&doc, "node-dead");
    assert_eq!(dead["status"], "unreachable");
    let err = dead["error"].as_str().unwrap();
    assert!(err.contains("did not start in time"), "{err}");
    // In parallel: the dead node's 3 s, not 3 s + 1 s + the others (generous bound for CI).
    assert!(took < Duration::from_secs(15), "took {took:?}");
    c.assert_all_deleted();
}

#[test]
fn exec_junit_has_a_case_per_node_and_requirement() {
    let c = ExecCluster::start(
        vec![
            // Has both nfs and ext4 (its orphaned mount is not a requirement case).
            ("node-a", ExecNode::new(&host("debian-12"))),
            ("node-b", ExecNode::new(&host("debian-12-no-nfs"))),
            ("node-dead", ExecNode::new(&host("rocky-9")).dead()),
        ],
        FakeKubelet::default(),
    );
    let out = c.run(&[
        "node",
        "check",
        "--all",
        "--timeout",
        "2s",
        "--require",
        "nfs,ext4",
        "-o",
        "junit",
    ]);
    assert_eq!(out.code, 1, "{out:#?}");
    let x = &out.stdout;
    assert!(x.starts_with("<?xml"), "{x}");
    assert!(
        x.contains(
            "<testsuites name=\"volmnt node check\" tests=\"6\" failures=\"1\" errors=\"2\""
        ),
        "{x}"
    );
    assert!(x.contains("<testcase classname=\"volmnt.node-check.node-a\" name=\"nfs\""));
    assert!(x.contains("message=\"node-b cannot mount nfs\""), "{x}");
    assert!(x.contains("apt-get install -y nfs-common"), "{x}");
    assert!(
        x.contains("message=\"node-dead could not be probed\""),
        "{x}"
    );
    c.assert_all_deleted();
}

#[test]
fn label_writes_what_each_node_can_mount() {
    let c = ExecCluster::start(
        vec![
            ("node-a", ExecNode::new(&host("rocky-9"))),
            ("node-b", ExecNode::new(&host("debian-12-no-nfs"))),
        ],
        FakeKubelet::default(),
    );
    let out = c.run(&["node", "check", "--all", "--label", "-o", "json"]);
    assert_eq!(out.code, 0, "{out:#?}");
    let a = c.api.object("Node", None, "node-a").unwrap();
    let b = c.api.object("Node", None, "node-b").unwrap();
    assert_eq!(
        a["metadata"]["labels"]["volmnt.io/mount.nfs"], "true",
        "{a:#}"
    );
    assert_eq!(
        b["metadata"]["labels"]["volmnt.io/mount.nfs"], "false",
        "{b:#}"
    );
    assert_eq!(b["metadata"]["labels"]["kubernetes.io/hostname"], "node-b");
    assert_eq!(node(&out.json(), "node-b")["labelled"], true);
}

#[test]
fn ctrl_c_deletes_the_probe_pod_and_exits_130() {
    let c = ExecCluster::start(
        vec![(
            "node-slow",
            ExecNode::new(&host("rocky-9")).slow(Duration::from_secs(60)),
        )],
        FakeKubelet::default(),
    );
    let mut child = c
        .command(&["node", "check", "node-slow", "--timeout", "90s"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start volmnt");
    // Wait until the probe is under way: the pod exists and the exec session started.
    let t0 = Instant::now();
    while c.probe_pods().is_empty()
        || !c
            .api
            .requests()
            .iter()
            .any(|r| r.subresource.as_deref() == Some("exec"))
    {
        assert!(
            t0.elapsed() < Duration::from_secs(20),
            "the probe pod never appeared"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let pid = child.id().to_string();
    let ok = std::process::Command::new("kill")
        .args(["-INT", &pid])
        .status()
        .is_ok_and(|s| s.success());
    assert!(ok, "kill -INT {pid}");
    let t1 = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().expect("wait") {
            break s;
        }
        assert!(
            t1.elapsed() < Duration::from_secs(20),
            "volmnt did not stop on SIGINT"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    let out = child.wait_with_output().expect("output");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(status.code(), Some(130), "{stderr}");
    assert!(stderr.contains("deleting the probe pods"), "{stderr}");
    c.assert_all_deleted();
}

#[test]
fn node_names_that_inject_shell_are_passed_safely_through_exec() {
    let p1 = pwned_path("exec-1");
    let p2 = pwned_path("exec-2");
    let n1 = format!("node1; touch {}", p1.display());
    let n2 = format!("$(touch {})", p2.display());
    let c = ExecCluster::start(
        vec![
            (n1.as_str(), ExecNode::new(&host("rocky-9"))),
            (n2.as_str(), ExecNode::new(&host("rocky-9"))),
        ],
        FakeKubelet::default(),
    );
    // Named on the command line: refused before any request, as no node can be named so.
    for n in [&n1, &n2] {
        let out = c.run(&["node", "check", n, "-o", "json"]);
        out.assert_input_error("not a node name");
    }
    assert!(c.api.requests().is_empty());
    // Through --all, from the API (which holds Nodes of these names: a real one would refuse
    // them, the fake does not): the name travels as JSON and as an annotation, never as shell.
    let out = c.run(&["node", "check", "--all", "-o", "json"]);
    assert!(out.code <= 1, "{out:#?}");
    assert!(!p1.exists() && !p2.exists(), "a node name ran as a command");
    // Each pod name is a DNS label derived from a hash, whatever the node's name.
    for p in c.created_pods() {
        let name = p["metadata"]["name"].as_str().unwrap();
        assert!(
            name.chars()
                .all(|ch| ch.is_ascii_lowercase() || ch.is_ascii_digit() || ch == '-'),
            "{name}"
        );
    }
    c.assert_all_deleted();
}

#[test]
fn an_unknown_node_name_creates_no_pod() {
    let c = ExecCluster::start(
        vec![("node-a", ExecNode::new(&host("rocky-9")))],
        FakeKubelet::default(),
    );
    // A typo is a usage error (exit 2), not an unreachable node a preflight might tolerate,
    // and it is caught before any probe pod is created.
    let out = c.run(&["node", "check", "node-a", "nod-a", "-o", "json"]);
    assert_eq!(out.code, 2, "{out:#?}");
    assert!(out.stdout.is_empty(), "{out:#?}");
    assert!(
        out.stderr
            .contains(r#"node "nod-a" does not exist (did you mean "node-a"?)"#),
        "{out:#?}"
    );
    assert!(c.created_pods().is_empty());
}

#[test]
fn gc_deletes_only_probe_pods() {
    let c = ExecCluster::start(vec![], FakeKubelet::default());
    for (name, probe) in [("volmnt-probe-0-aaaaa", true), ("web-0", false)] {
        let mut labels = json!({"app": "x"});
        if probe {
            labels = json!({"app.kubernetes.io/name": "volmnt", "volmnt.io/probe": "true"});
        }
        c.api.apply(json!({
            "apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": "volmnt", "labels": labels},
            "spec": {"containers": [{"name": "c", "image": "busybox"}]},
        }));
    }
    let out = c.run(&["node", "gc"]);
    assert_eq!(out.code, 0, "{out:#?}");
    assert_eq!(out.stdout, "deleted pod volmnt/volmnt-probe-0-aaaaa\n");
    assert!(c.api.object("Pod", Some("volmnt"), "web-0").is_some());
    assert!(c.probe_pods().is_empty());
    let out = c.run(&["node", "gc"]);
    assert_eq!(out.stdout, "no probe pods or DaemonSets to delete\n");
}

#[test]
fn without_a_cluster_a_named_node_points_to_ssh_and_local() {
    let dir = TempDir::new("no-cluster");
    let out = run_cmd(
        cmd()
            .args(["node", "check", "node1", "--kubeconfig"])
            .arg(dir.path().join("missing-kubeconfig"))
            .env_remove("KUBECONFIG")
            .env_remove("KUBERNETES_SERVICE_HOST"),
        None,
    );
    out.assert_no_panic();
    assert_eq!(out.code, 3, "{out:#?}");
    assert!(out.stderr.contains("--ssh"), "{}", out.stderr);
    let out = crate::util::run(&["node", "check"]);
    assert_eq!(out.code, 2, "{out:#?}");
    assert!(out.stderr.contains("--all"), "{}", out.stderr);
}

// ---------------------------------------------------------------------------------------------
// --ssh against a real sshd on 127.0.0.1
// ---------------------------------------------------------------------------------------------

fn ssh_run(sshd: &Sshd, args: &[&str]) -> Out {
    let mut c = cmd();
    c.args(["node", "check", "--ssh"])
        .args(args)
        .args(sshd.ssh_args());
    let out = run_cmd(&mut c, None);
    out.assert_no_panic();
    out
}

#[test]
fn ssh_probes_nodes_through_a_real_sshd() {
    let Some(sshd) = Sshd::start(&[
        Port::root(&host("rocky-9")),
        Port::root(&host("debian-12-no-nfs")),
    ]) else {
        return;
    };
    let (a, b) = (sshd.dest(0), sshd.dest(1));
    let out = ssh_run(&sshd, &[&a, &b, "--require", "nfs", "-o", "json"]);
    assert_eq!(out.code, 1, "{out:#?}\nsshd log:\n{}", sshd.log());
    let doc = out.json();
    assert_eq!(doc["transport"], "ssh");
    assert_eq!(node(&doc, &a)["status"], "pass", "{doc:#}");
    let b_node = node(&doc, &b);
    assert_eq!(b_node["status"], "fail");
    assert_eq!(
        b_node["report"]["os"], "Debian GNU/Linux 12 (bookworm)",
        "the tree's os-release, read over ssh"
    );
}

#[test]
fn ssh_reads_the_real_machine_when_no_root_is_set() {
    let Some(sshd) = Sshd::start(&[Port::default()]) else {
        return;
    };
    let out = ssh_run(&sshd, &[&sshd.dest(0), "-o", "json"]);
    // This machine is no Kubernetes node: its mount table may well have problems (exit 1),
    // but it must be probed (not 3) and nothing is required (not a failure).
    assert!(out.code <= 1, "{out:#?}\nsshd log:\n{}", sshd.log());
    assert!(
        ["pass", "problem"].contains(&out.json()["nodes"][0]["status"].as_str().unwrap_or("")),
        "{}",
        out.stdout
    );
    let doc = out.json();
    let r = &doc["nodes"][0]["report"];
    assert_eq!(r["live"], true, "{r:#}");
    assert!(r["kernel"].as_str().is_some_and(|k| !k.is_empty()));
}

#[test]
fn ssh_all_reaches_each_node_at_its_internal_ip_and_labels_it_by_name() {
    let Some(sshd) = Sshd::start(&[Port::root(&host("debian-12-no-nfs"))]) else {
        return;
    };
    // Two Node objects whose InternalIP is this machine (10.0.0.x in ExecCluster's default).
    let mut cluster = FakeCluster::new().with_probe_namespace();
    for n in ["worker-1", "worker-2"] {
        cluster.push(node_object(n, "127.0.0.1"));
    }
    let (api, _thread) = start_in_background(cluster, Options::new());
    let dir = TempDir::new("ssh-all");
    let kubeconfig = api.write_kubeconfig(dir.path(), "volmnt");
    let port = format!("Port={}", sshd.ports[0]);
    let mut c = cmd();
    c.args([
        "node",
        "check",
        "--ssh",
        "--all",
        "--label",
        "--require",
        "nfs",
        "-o",
        "json",
    ])
    .args(["--ssh-user", &sshd.user, "--ssh-option", &port])
    .args(sshd.ssh_args())
    .arg("--kubeconfig")
    .arg(&kubeconfig)
    .env_remove("KUBECONFIG");
    let out = run_cmd(&mut c, None);
    out.assert_no_panic();
    assert_eq!(out.code, 1, "{out:#?}\nsshd log:\n{}", sshd.log());
    let doc = out.json();
    let w1 = node(&doc, "worker-1");
    assert_eq!(w1["target"], "127.0.0.1");
    assert_eq!(w1["status"], "fail");
    assert_eq!(w1["labelled"], true);
    let n = api.object("Node", None, "worker-2").unwrap();
    assert_eq!(
        n["metadata"]["labels"]["volmnt.io/mount.nfs"], "false",
        "{n:#}"
    );
    // No pod was created: --ssh needs only to list the nodes and to label them.
    assert!(api
        .requests()
        .iter()
        .all(|r| r.resource != "pods" || r.verb != "create"));
}

#[test]
fn ssh_unreachable_nodes_do_not_spoil_the_rest() {
    let Some(mut sshd) = Sshd::start(&[
        Port::root(&host("rocky-9")),
        Port::root(&host("rocky-9")).slow(1),
    ]) else {
        return;
    };
    let dead_port = sshd.dead_port();
    let dead = format!("ssh://{}@127.0.0.1:{dead_port}", sshd.user);
    let refused_port = std::net::TcpListener::bind(("127.0.0.1", 0))
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let refused = format!("ssh://127.0.0.1:{refused_port}");
    let (a, slow) = (sshd.dest(0), sshd.dest(1));
    let t0 = Instant::now();
    let out = ssh_run(
        &sshd,
        &[&a, &slow, &dead, &refused, "--timeout", "3s", "-o", "json"],
    );
    let took = t0.elapsed();
    assert_eq!(out.code, 3, "{out:#?}");
    let doc = out.json();
    assert_eq!(node(&doc, &a)["status"], "pass", "{doc:#}");
    assert_eq!(node(&doc, &slow)["status"], "pass");
    assert_eq!(node(&doc, &dead)["status"], "unreachable");
    let refused_err = node(&doc, &refused)["error"].as_str().unwrap().to_string();
    assert!(refused_err.contains("refused"), "{refused_err}");
    assert!(took < Duration::from_secs(15), "took {took:?}");
}

#[test]
fn ssh_destinations_and_options_that_inject_shell_never_run() {
    let p1 = pwned_path("ssh-1");
    let p2 = pwned_path("ssh-2");
    let p3 = pwned_path("ssh-3");
    for bad in [
        format!("node1; touch {}", p1.display()),
        format!("$(touch {})", p2.display()),
        format!("-oProxyCommand=touch {}", p3.display()),
    ] {
        let out = run_cmd(cmd().args(["node", "check", "--ssh", "--", &bad]), None);
        out.assert_input_error("destination");
    }
    let out = run_cmd(
        cmd().args([
            "node",
            "check",
            "--ssh",
            "127.0.0.1",
            "--ssh-user",
            &format!("$(touch {})", p1.display()),
        ]),
        None,
    );
    out.assert_input_error("--ssh-user");
    // An option value is one argument of ssh's `-o`, never shell text on this machine.
    let out = run_cmd(
        cmd().args([
            "node",
            "check",
            "--ssh",
            "127.0.0.1",
            "--ssh-option",
            &format!("Port=22; touch {}", p2.display()),
            "--timeout",
            "5s",
        ]),
        None,
    );
    out.assert_no_panic();
    assert!(!p1.exists() && !p2.exists() && !p3.exists());
}

#[test]
fn local_root_with_shell_in_its_name_is_only_a_path() {
    let p = pwned_path("local");
    let dir = TempDir::new("inject");
    let weird = dir.path().join(format!("$(touch {})", p.display()));
    std::fs::create_dir_all(&weird).unwrap();
    let out = run_cmd(
        cmd()
            .args(["node", "check", "--local", "--root"])
            .arg(&weird),
        None,
    );
    out.assert_no_panic();
    assert!(out.code <= 1, "{out:#?}");
    let out = run_cmd(
        cmd().args([
            "node",
            "check",
            "--local",
            "--root",
            &format!("/nonexistent; touch {}", p.display()),
        ]),
        None,
    );
    assert_eq!(out.code, 2, "{out:#?}");
    assert!(!p.exists());
}

// ---------------------------------------------------------------------------------------------
// Timing: 20 nodes (run by scripts/bench.sh; prints figures, asserts only correctness)
// ---------------------------------------------------------------------------------------------

#[test]
#[ignore = "timing figures; run by scripts/bench.sh"]
fn node_check_timing_20_nodes() {
    // 20 fake-exec nodes: 4 slow (1 s before the probe starts), 1 dead (never starts: 3 s
    // timeout), 15 normal.
    let mut nodes = Vec::new();
    let names: Vec<String> = (1..=20).map(|i| format!("node-{i:02}")).collect();
    for (i, n) in names.iter().enumerate() {
        let mut e = ExecNode::new(&host(if i % 3 == 0 {
            "debian-12-no-nfs"
        } else {
            "rocky-9"
        }));
        if i == 7 {
            e = e.dead();
        } else if i % 5 == 1 {
            e = e.slow(Duration::from_secs(1));
        }
        nodes.push((n.as_str(), e));
    }
    let c = ExecCluster::start(nodes, FakeKubelet::default());
    let t0 = Instant::now();
    let out = c.run(&[
        "node",
        "check",
        "--all",
        "--timeout",
        "3s",
        "--concurrency",
        "20",
        "-o",
        "json",
    ]);
    let wall = t0.elapsed();
    let doc = out.json();
    assert_eq!(out.code, 3, "{out:#?}");
    assert_eq!(doc["summary"]["checked"], 20);
    assert_eq!(doc["summary"]["unreachable"], 1);
    let per_node: Vec<u64> = doc["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["elapsed_ms"].as_u64().unwrap())
        .collect();
    let sum: u64 = per_node.iter().sum();
    let max = per_node.iter().max().copied().unwrap_or(0);
    c.assert_all_deleted();
    let line = format!(
        "node check --all, 20 fake-exec nodes (4 slow 1 s, 1 dead, --timeout 3s): wall {} ms, \
         slowest node {max} ms, sum of nodes {sum} ms",
        wall.as_millis()
    );
    println!("{line}");
    if let Ok(p) = std::env::var("VOLMNT_BENCH_SUMMARY") {
        use std::io::Write;
        if let Ok(mut f) = std::fs::OpenOptions::new().append(true).open(p) {
            let _ = writeln!(f, "node_check_20_wall_ms\t{}", wall.as_millis());
            let _ = writeln!(f, "node_check_20_max_ms\t{max}");
            let _ = writeln!(f, "node_check_20_sum_ms\t{sum}");
        }
    }
}
