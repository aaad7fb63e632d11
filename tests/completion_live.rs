//! Completion that knows the cluster: pods, namespaces, nodes, claims and contexts come from the
//! fake API server named on the line being completed, through both protocols (clap's
//! `COMPLETE=bash`, and kubectl's plugin completion `__complete`).

use crate::support::fake_api::{start_in_background, FakeCluster, Options};
use crate::util::{cmd, run_cmd, TempDir};

fn words(out: &str) -> Vec<String> {
    out.lines()
        .filter(|l| !l.starts_with(':'))
        .map(|l| l.split('\t').next().unwrap_or("").to_string())
        .collect()
}

#[test]
fn pods_namespaces_nodes_and_contexts_come_from_the_cluster_on_the_line() {
    let (api, _thread) =
        start_in_background(FakeCluster::fixture("nfs-client-missing"), Options::new());
    let dir = TempDir::new("complete");
    let kc = api.write_kubeconfig(dir.path(), "default");
    let kc = kc.to_str().unwrap();
    let complete = |args: &[&str]| {
        let out = run_cmd(
            cmd().arg("__complete").args(args).env_remove("KUBECONFIG"),
            None,
        );
        out.assert_no_panic();
        assert_eq!(out.code, 0, "{out:#?}");
        assert!(out.stdout.ends_with(":4\n"), "{}", out.stdout);
        words(&out.stdout)
    };
    // Pods of the namespace given with -n (not the context's), filtered by what is typed.
    let pods = complete(&[
        "doctor",
        "pod",
        "--kubeconfig",
        kc,
        "-n",
        "ops-test",
        "node1",
    ]);
    assert!(
        !pods.is_empty() && pods.iter().all(|p| p.starts_with("node1")),
        "{pods:?}"
    );
    // kubectl's spelling works too.
    assert_eq!(
        complete(&[
            "doctor",
            "po",
            "--kubeconfig",
            kc,
            "-n",
            "ops-test",
            "node1"
        ]),
        pods
    );
    let ns = complete(&["doctor", "namespace", "--kubeconfig", kc, "-n", ""]);
    assert!(
        ns.contains(&"ops-test".to_string()) && ns.contains(&"default".to_string()),
        "{ns:?}"
    );
    let nodes = complete(&["node", "check", "--kubeconfig", kc, ""]);
    let api_nodes: Vec<String> = api
        .objects()
        .iter()
        .filter(|o| o["kind"] == "Node")
        .map(|o| o["metadata"]["name"].as_str().unwrap().to_string())
        .collect();
    assert!(!api_nodes.is_empty());
    for n in &api_nodes {
        assert!(nodes.contains(n), "{n} not in {nodes:?}");
    }
    assert_eq!(
        complete(&["--kubeconfig", kc, "--context", ""]),
        vec!["fake".to_string()]
    );
    // No cluster: nothing offered, quickly, no error in the shell.
    // (clap then offers the flags alone).
    let none = complete(&["doctor", "pod", "--kubeconfig", "/nonexistent", ""]);
    assert!(none.iter().all(|w| w.starts_with('-')), "{none:?}");

    // clap's own protocol, as the script `COMPLETE=bash volmnt` registers calls it.
    let line = [
        "volmnt",
        "doctor",
        "pod",
        "--kubeconfig",
        kc,
        "-n",
        "ops-test",
        "node1",
    ];
    let out = run_cmd(
        cmd()
            .env("COMPLETE", "bash")
            .env("_CLAP_COMPLETE_INDEX", (line.len() - 1).to_string())
            .env("_CLAP_COMPLETE_COMP_TYPE", "9")
            .env_remove("KUBECONFIG")
            .arg("--")
            .args(line),
        None,
    );
    assert_eq!(out.code, 0, "{out:#?}");
    let bash: Vec<String> = out
        .stdout
        .split(['\u{b}', '\n'])
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .collect();
    assert_eq!(bash, pods);
}

#[test]
fn the_registration_script_and_the_kubectl_helper_are_there() {
    let out = run_cmd(cmd().env("COMPLETE", "bash"), None);
    assert_eq!(out.code, 0, "{out:#?}");
    assert!(
        out.stdout.contains("complete ") && out.stdout.contains("volmnt"),
        "{}",
        out.stdout
    );
    let helper = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/completions/kubectl_complete-volmnt"
    ))
    .unwrap();
    assert!(helper.contains("kubectl-volmnt __complete \"$@\""));
}
