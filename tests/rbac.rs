//! deploy/rbac.yaml must allow every API call volmnt makes: checked two ways.
//! - dynamically: every request the real binary sends to the fake API server, over every
//!   fixture cluster, for `doctor pod` on each pod and `doctor namespace -A`, and over a cluster
//!   with a fake kubelet for `node check` (exec, --all, --label) and `node gc`;
//! - statically: every resource the collector's source names in an `Access`.

use std::collections::BTreeSet;

use crate::support::fake_api::{start_in_background, FakeCluster, Options};
use crate::util::{cmd, run_cmd, TempDir};

/// (api group, resource[/subresource], verb) triples the roles grant.
/// The manifests that hold roles: the per-command roles, and volmnt watch's own.
const ROLE_FILES: &[&str] = &[
    "deploy/rbac.yaml",
    "deploy/rbac-optional.yaml",
    "deploy/watch.yaml",
    "deploy/node-check.yaml",
];

fn granted() -> BTreeSet<(String, String, String)> {
    let text: String = ROLE_FILES
        .iter()
        .map(|f| {
            std::fs::read_to_string(format!("{}/{f}", env!("CARGO_MANIFEST_DIR")))
                .unwrap_or_else(|e| panic!("{f}: {e}"))
        })
        .collect::<Vec<_>>()
        .join("\n---\n");
    let mut out = BTreeSet::new();
    for doc in serde_yaml::Deserializer::from_str(&text) {
        let v: serde_yaml::Value = serde::Deserialize::deserialize(doc).expect("rbac.yaml parses");
        if !matches!(v["kind"].as_str(), Some("ClusterRole" | "Role")) {
            continue;
        }
        for rule in v["rules"].as_sequence().into_iter().flatten() {
            let list = |k: &str| -> Vec<String> {
                rule[k]
                    .as_sequence()
                    .into_iter()
                    .flatten()
                    .filter_map(|x| x.as_str().map(str::to_string))
                    .collect()
            };
            for g in list("apiGroups") {
                for r in list("resources") {
                    for verb in list("verbs") {
                        out.insert((g.clone(), r.clone(), verb));
                    }
                }
            }
        }
    }
    out
}

fn fixture_clusters() -> Vec<String> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/clusters");
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok())
                .filter(|e| e.path().is_dir())
                .filter_map(|e| e.file_name().into_string().ok())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

#[test]
fn every_request_volmnt_sends_is_allowed_by_deploy_rbac() {
    let granted = granted();
    let mut seen: BTreeSet<(String, String, String)> = BTreeSet::new();
    let clusters = fixture_clusters();
    assert!(!clusters.is_empty(), "no fixture clusters found");
    for name in &clusters {
        let (api, _thread) = start_in_background(
            FakeCluster::fixture(name).with_probe_namespace(),
            Options::new(),
        );
        let dir = TempDir::new(&format!("rbac-{name}"));
        let kubeconfig = api.write_kubeconfig(dir.path(), "default");
        let pods: Vec<(String, String)> = api
            .objects()
            .iter()
            .filter(|o| o["kind"] == "Pod")
            .map(|o| {
                (
                    o["metadata"]["name"].as_str().unwrap_or("").to_string(),
                    o["metadata"]["namespace"]
                        .as_str()
                        .unwrap_or("default")
                        .to_string(),
                )
            })
            .collect();
        let mut runs: Vec<Vec<String>> = pods
            .iter()
            .map(|(p, ns)| {
                ["doctor", "pod", p, "-n", ns, "-o", "json"]
                    .iter()
                    .map(|s| s.to_string())
                    .collect()
            })
            .collect();
        // Typos: a pod and a namespace that are not there (volmnt looks for the closest names).
        runs.push(
            ["doctor", "pod", "no-such-pod", "-n", "default"]
                .iter()
                .map(|s| s.to_string())
                .collect(),
        );
        runs.push(
            ["doctor", "namespace", "-n", "no-such-namespace"]
                .iter()
                .map(|s| s.to_string())
                .collect(),
        );
        runs.push(
            ["doctor", "namespace", "-A", "--min-age", "1s", "-o", "json"]
                .iter()
                .map(|s| s.to_string())
                .collect(),
        );
        for args in runs {
            let out = run_cmd(cmd().args(&args).arg("--kubeconfig").arg(&kubeconfig), None);
            out.assert_no_panic();
            // The typo runs end in a usage error (2); every other run in a report.
            let typo = args.iter().any(|a| a.starts_with("no-such-"));
            assert!(
                if typo { out.code == 2 } else { out.code <= 1 },
                "{name}: volmnt {args:?} failed ({}): {}",
                out.code,
                out.stderr
            );
        }
        for r in api.requests() {
            if r.resource.is_empty() {
                continue; // discovery (/api, /apis, /version): allowed to every user
            }
            if r.resource == "selfsubjectaccessreviews" {
                // Asking what one may do: allowed to every authenticated user (the built-in
                // ClusterRole system:basic-user), so no role of volmnt's grants it.
                continue;
            }
            let res = match &r.subresource {
                Some(s) => format!("{}/{s}", r.resource),
                None => r.resource.clone(),
            };
            seen.insert((r.group.clone(), res, r.verb.clone()));
        }
    }
    // `rbd status|unlock`: the image from a pod and a claim (pods, claims, PVs), and the CLIs
    // run in a toolbox pod (pods/exec). The fake server has no exec, so these runs end with
    // exit 3; only their requests matter here. (Listing nodes and pods to judge the holders
    // needs a reachable Ceph: tests/rbd.rs covers it, with the reader role's list verbs.)
    {
        let (api, _thread) = start_in_background(
            FakeCluster::fixture("rbd-lock-old-node").with_probe_namespace(),
            Options::new(),
        );
        let dir = TempDir::new("rbac-rbd");
        let kubeconfig = api.write_kubeconfig(dir.path(), "default");
        for args in [
            vec![
                "rbd",
                "status",
                "--pod",
                "index-api-3362878852-9tm9j",
                "--toolbox",
                "rook-ceph/tools",
            ],
            vec![
                "rbd",
                "unlock",
                "--pvc",
                "index-api-pvc",
                "--dry-run",
                "--toolbox",
                "rook-ceph/tools",
            ],
        ] {
            let out = run_cmd(cmd().args(&args).arg("--kubeconfig").arg(&kubeconfig), None);
            out.assert_no_panic();
            assert_eq!(out.code, 3, "volmnt {args:?}: {}", out.stderr);
        }
        for r in api.requests() {
            if r.resource.is_empty() {
                continue;
            }
            let res = match &r.subresource {
                Some(s) => format!("{}/{s}", r.resource),
                None => r.resource.clone(),
            };
            seen.insert((r.group.clone(), res, r.verb.clone()));
        }
        assert!(
            seen.iter().any(|(_, r, _)| r == "pods/exec"),
            "--toolbox made no exec request: {seen:?}"
        );
    }
    // node check and node gc, through probe pods on a fake kubelet.
    {
        use crate::support::fake_api::{ExecNode, FakeKubelet};
        let host = |n: &str| {
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("fixtures/hosts")
                .join(n)
        };
        let debian_root = host("debian-12").to_string_lossy().into_owned();
        let c = crate::node_check::ExecCluster::start(
            vec![
                ("node-a", ExecNode::new(&host("debian-12"))),
                ("node-b", ExecNode::new(&host("debian-12-no-nfs"))),
            ],
            FakeKubelet::default(),
        );
        for args in [
            vec!["node", "check", "node-a", "-o", "json"],
            vec![
                "node",
                "check",
                "--all",
                "--label",
                "--require",
                "nfs",
                "-o",
                "json",
            ],
            vec![
                "node",
                "check",
                "--all",
                "--via",
                "daemonset",
                "--timeout",
                "5s",
                "-o",
                "json",
            ],
            vec!["node", "gc"],
            // One round of deploy/node-check.yaml's DaemonSet pod.
            vec![
                "node",
                "check",
                "--local",
                "--root",
                debian_root.as_str(),
                "--node-name",
                "node-a",
                "--label",
                "-o",
                "json",
            ],
        ] {
            let out = c.run(&args);
            assert!(
                out.code <= 1,
                "volmnt {args:?} failed ({}): {}",
                out.code,
                out.stderr
            );
        }
        for r in c.api.requests() {
            if r.resource.is_empty() {
                continue;
            }
            let res = match &r.subresource {
                Some(s) => format!("{}/{s}", r.resource),
                None => r.resource.clone(),
            };
            seen.insert((r.group.clone(), res, r.verb.clone()));
        }
        for needed in [
            ("pods", "create"),
            ("pods", "delete"),
            ("pods/exec", "get"),
            ("nodes", "patch"),
        ] {
            assert!(
                seen.contains(&(String::new(), needed.0.to_string(), needed.1.to_string())),
                "node check no longer sends {needed:?}? {seen:?}"
            );
        }
    }
    // volmnt watch: lists and watches, Event create/patch/get, the Lease; on a fixture cluster
    // with stuck pods, and again so that a second run finds (and patches) the Events written.
    {
        let (api, _thread) = start_in_background(
            FakeCluster::fixture("nfs-client-missing").with_probe_namespace(),
            Options::new(),
        );
        let dir = TempDir::new("rbac-watch");
        let kubeconfig = api.write_kubeconfig(dir.path(), "ops-test");
        for round in 0..2u64 {
            // Event times have whole seconds: let the first run's Event be older than
            // --event-refresh, so the second run updates it.
            std::thread::sleep(std::time::Duration::from_millis(1100 * round));
            /// Stops the controller on every path, a failed assertion included.
            struct Stop(std::process::Child);
            impl Drop for Stop {
                fn drop(&mut self) {
                    let _ = std::process::Command::new("kill")
                        .args(["-TERM", &self.0.id().to_string()])
                        .status();
                    // Bounded: a watch that ignores SIGTERM fails this test, it does not
                    // hold the whole run.
                    let t = std::time::Instant::now();
                    while self.0.try_wait().ok().flatten().is_none() {
                        if t.elapsed() > std::time::Duration::from_secs(20) {
                            let _ = self.0.kill();
                            let _ = self.0.wait();
                            if !std::thread::panicking() {
                                panic!("volmnt watch did not stop within 20 s of SIGTERM");
                            }
                            return;
                        }
                        std::thread::sleep(std::time::Duration::from_millis(20));
                    }
                }
            }
            let _child = Stop(
                cmd()
                    .args([
                        "watch",
                        "-A",
                        "--min-age",
                        "1s",
                        "--listen",
                        "127.0.0.1:0",
                        "--event-refresh",
                        "100ms",
                    ])
                    .arg("--kubeconfig")
                    .arg(&kubeconfig)
                    .stdout(std::process::Stdio::null())
                    .stderr(std::process::Stdio::null())
                    .spawn()
                    .expect("start volmnt watch"),
            );
            let start = std::time::Instant::now();
            let want = if round == 0 { "create" } else { "patch" };
            while !api
                .requests()
                .iter()
                .any(|r| r.resource == "events" && r.verb == want)
            {
                assert!(
                    start.elapsed() < std::time::Duration::from_secs(20),
                    "volmnt watch did not {want} an Event"
                );
                std::thread::sleep(std::time::Duration::from_millis(50));
            }
        }
        for r in api.requests() {
            if r.resource.is_empty() {
                continue;
            }
            let res = match &r.subresource {
                Some(s) => format!("{}/{s}", r.resource),
                None => r.resource.clone(),
            };
            seen.insert((r.group.clone(), res, r.verb.clone()));
        }
        for needed in [
            ("", "pods", "watch"),
            ("", "events", "create"),
            ("", "events", "patch"),
            ("coordination.k8s.io", "leases", "update"),
            ("storage.k8s.io", "volumeattachments", "watch"),
        ] {
            assert!(
                seen.contains(&(
                    needed.0.to_string(),
                    needed.1.to_string(),
                    needed.2.to_string()
                )),
                "volmnt watch no longer sends {needed:?}? {seen:?}"
            );
        }
    }
    for verb in ["create", "delete", "list"] {
        assert!(
            seen.contains(&("apps".into(), "daemonsets".into(), verb.into())),
            "node check --via daemonset / node gc no longer sends {verb} daemonsets? {seen:?}"
        );
    }
    let missing: Vec<_> = seen.iter().filter(|t| !granted.contains(*t)).collect();
    assert!(
        missing.is_empty(),
        "requests not allowed by deploy/rbac.yaml (group, resource, verb): {missing:?}"
    );
    // And the role grants nothing volmnt never asks for (least privilege), apart from the
    // verbs kept in pairs (get with list) for kubectl-like use.
    let used_resources: BTreeSet<(String, String)> = seen
        .iter()
        .map(|(g, r, _)| (g.clone(), r.clone()))
        .collect();
    let unused: Vec<_> = granted
        .iter()
        .filter(|(g, r, _)| !used_resources.contains(&(g.clone(), r.clone())))
        .collect();
    assert!(
        unused.is_empty(),
        "deploy/rbac.yaml grants resources no command used: {unused:?}"
    );
}

#[test]
fn every_resource_the_collector_names_is_in_deploy_rbac() {
    let granted = granted();
    // The live collector, and `rbd status|unlock`'s reads (nodes, PVs, claims, pods): each
    // module file and every file of its directory, so a split into more files is still read.
    let root = format!("{}/src/collect", env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for module in ["cluster", "rbd"] {
        files.push(std::path::PathBuf::from(format!("{root}/{module}.rs")));
        let mut children: Vec<_> = std::fs::read_dir(format!("{root}/{module}"))
            .map(|d| d.map(|e| e.unwrap().path()).collect())
            .unwrap_or_default();
        children.retain(|p: &std::path::PathBuf| p.extension().is_some_and(|x| x == "rs"));
        children.sort();
        files.extend(children);
    }
    let src = files
        .iter()
        .map(|f| std::fs::read_to_string(f).unwrap())
        .collect::<Vec<_>>()
        .join("\n");
    let re = regex::Regex::new(
        r#"Access::(ns|cluster|group_ns|group_cluster)\(\s*"([a-z/]+)"(?:\s*,\s*"([a-z0-9.]+)")?"#,
    )
    .unwrap();
    let mut named = 0;
    for c in re.captures_iter(&src) {
        named += 1;
        let resource = c[2].to_string();
        let group = match &c[1] {
            "group_ns" | "group_cluster" => c.get(3).map(|m| m.as_str()).unwrap_or("").to_string(),
            _ => String::new(),
        };
        for verb in ["get", "list"] {
            assert!(
                granted.contains(&(group.clone(), resource.clone(), verb.to_string())),
                "deploy/rbac.yaml lacks {verb} on {resource} (group {group:?})"
            );
        }
    }
    assert!(
        named >= 10,
        "the pattern found only {named} Access uses; did the code change?"
    );
}

/// `kubectl apply -f` creates a file's objects in order: every namespaced object must be in a
/// namespace that exists on a fresh cluster or that the file creates before it, and every
/// binding must name a role and a ServiceAccount created by then (or by deploy/rbac.yaml, for
/// the optional file). The Rook toolbox binding is the one exception, and says so.
#[test]
fn deploy_rbac_applies_in_order_on_a_fresh_cluster() {
    let read =
        |f: &str| std::fs::read_to_string(format!("{}/{f}", env!("CARGO_MANIFEST_DIR"))).unwrap();
    let mut namespaces: BTreeSet<String> =
        ["default", "kube-system", "kube-public", "kube-node-lease"]
            .iter()
            .map(|s| s.to_string())
            .collect();
    let mut roles: BTreeSet<(String, String)> = BTreeSet::new();
    let mut accounts: BTreeSet<(String, String)> = BTreeSet::new();
    let mut optional_outside = Vec::new();
    for (file, fresh) in [
        ("deploy/rbac.yaml", true),
        ("deploy/rbac-optional.yaml", false),
    ] {
        for doc in serde_yaml::Deserializer::from_str(&read(file)) {
            let v: serde_yaml::Value = serde::Deserialize::deserialize(doc).expect("parses");
            if v.is_null() {
                continue;
            }
            let kind = v["kind"].as_str().expect("kind").to_string();
            let name = v["metadata"]["name"].as_str().expect("name").to_string();
            let ns = v["metadata"]["namespace"].as_str().map(str::to_string);
            if let Some(ns) = &ns {
                if !namespaces.contains(ns) {
                    assert!(
                        !fresh,
                        "{file}: {kind} {name} is in namespace {ns}, which does not exist yet when it is applied"
                    );
                    optional_outside.push(format!("{kind} {ns}/{name}"));
                    assert!(
                        read(file).contains(&format!("namespaces \"{ns}\" not found")),
                        "{file}: {kind} {name} needs namespace {ns}; the file must say so"
                    );
                }
            }
            match kind.as_str() {
                "Namespace" => {
                    namespaces.insert(name.clone());
                }
                "ClusterRole" => {
                    roles.insert(("ClusterRole".into(), name.clone()));
                }
                "Role" => {
                    roles.insert((
                        "Role".into(),
                        format!("{}/{name}", ns.clone().unwrap_or_default()),
                    ));
                }
                "ServiceAccount" => {
                    accounts.insert((ns.clone().unwrap_or_default(), name.clone()));
                }
                "RoleBinding" | "ClusterRoleBinding" => {
                    let rk = v["roleRef"]["kind"].as_str().unwrap().to_string();
                    let rn = v["roleRef"]["name"].as_str().unwrap().to_string();
                    let key = if rk == "Role" {
                        format!("{}/{rn}", ns.clone().unwrap_or_default())
                    } else {
                        rn
                    };
                    assert!(
                        roles.contains(&(rk.clone(), key.clone())),
                        "{file}: {kind} {name} binds {rk} {key}, not created before it"
                    );
                    for s in v["subjects"].as_sequence().into_iter().flatten() {
                        if s["kind"].as_str() == Some("ServiceAccount") {
                            let sa = (
                                s["namespace"].as_str().unwrap().to_string(),
                                s["name"].as_str().unwrap().to_string(),
                            );
                            assert!(accounts.contains(&sa), "{file}: {kind} {name} binds ServiceAccount {sa:?}, not created before it");
                        }
                    }
                }
                _ => {}
            }
        }
    }
    // The probe namespace is created, and labelled for the probe's hostPID and hostPath.
    assert!(namespaces.contains("volmnt"));
    assert!(read("deploy/rbac.yaml").contains("pod-security.kubernetes.io/enforce: privileged"));
    assert_eq!(
        optional_outside,
        vec!["RoleBinding rook-ceph/volmnt-rbd-toolbox".to_string()]
    );
}
