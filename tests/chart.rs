//! charts/volmnt rendered by a real Helm engine (a `helm` binary, else Helm's Go SDK through
//! helm-python-sdk: scripts/helm-template.py, installed by scripts/deps/helm.sh) must give,
//! with default values, exactly the objects of the plain manifests in deploy/watch.yaml; and
//! its values must do what they say.

use std::process::Command;

use serde_yaml::Value;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// `helm template volmnt charts/volmnt -n volmnt ARGS`, as parsed documents (None: no Helm
/// engine here and VOLMNT_SKIP_HELM=1).
fn render(sets: &[&str]) -> Option<Vec<Value>> {
    let mut c = Command::new("python3");
    c.arg(format!("{ROOT}/scripts/helm-template.py")).args([
        "volmnt",
        &format!("{ROOT}/charts/volmnt"),
        "-n",
        "volmnt",
    ]);
    for s in sets {
        c.args(["--set", s]);
    }
    let out = c.output().expect("run python3 scripts/helm-template.py");
    if out.status.code() == Some(3) && std::env::var_os("VOLMNT_SKIP_HELM").is_some() {
        eprintln!("chart: no Helm engine, skipped (VOLMNT_SKIP_HELM)");
        return None;
    }
    assert!(
        out.status.success(),
        "rendering the chart failed (scripts/deps/helm.sh installs the engine):\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(docs(&String::from_utf8(out.stdout).expect("UTF-8")))
}

fn docs(text: &str) -> Vec<Value> {
    let mut v: Vec<Value> = serde_yaml::Deserializer::from_str(text)
        .map(|d| serde::Deserialize::deserialize(d).expect("valid YAML"))
        .filter(|d: &Value| !d.is_null())
        .collect();
    v.sort_by_key(key);
    v
}

fn key(d: &Value) -> String {
    format!(
        "{}/{}/{}",
        d["kind"].as_str().unwrap_or(""),
        d["metadata"]["namespace"].as_str().unwrap_or(""),
        d["metadata"]["name"].as_str().unwrap_or("")
    )
}

fn plain() -> Vec<Value> {
    docs(&std::fs::read_to_string(format!("{ROOT}/deploy/watch.yaml")).unwrap())
}

fn plain_with_node_check() -> Vec<Value> {
    let text = ["watch.yaml", "node-check.yaml"]
        .iter()
        .map(|f| std::fs::read_to_string(format!("{ROOT}/deploy/{f}")).unwrap())
        .collect::<Vec<_>>()
        .join("\n---\n");
    docs(&text)
}

fn assert_same(chart: &[Value], plain: &[Value]) {
    let keys = |v: &[Value]| v.iter().map(key).collect::<Vec<_>>();
    assert_eq!(keys(chart), keys(plain));
    for (c, p) in chart.iter().zip(plain) {
        assert_eq!(
            c,
            p,
            "{} differs between charts/volmnt and deploy/:\nchart:\n{}\nplain:\n{}",
            key(c),
            serde_yaml::to_string(c).unwrap(),
            serde_yaml::to_string(p).unwrap()
        );
    }
}

fn find<'a>(docs: &'a [Value], kind: &str) -> &'a Value {
    docs.iter()
        .find(|d| d["kind"] == kind)
        .unwrap_or_else(|| panic!("no {kind} rendered"))
}

#[test]
fn the_charts_default_output_is_deploy_watch_yaml() {
    let Some(chart) = render(&[]) else { return };
    assert_same(&chart, &plain());
}

#[test]
fn with_the_node_check_on_the_chart_adds_deploy_node_check_yaml() {
    let Some(chart) = render(&["nodeCheck.enabled=true"]) else {
        return;
    };
    assert_same(&chart, &plain_with_node_check());
}

#[test]
fn chart_values_change_what_they_say() {
    let Some(out) = render(&[
        "watch.allNamespaces=false",
        "watch.namespaces={shop,billing}",
        "watch.selector=tier=db",
        "watch.readSecrets=true",
        "watch.dryRun=true",
        "image.repository=registry.example.com/ops/volmnt",
        "replicas=3",
    ]) else {
        return;
    };
    let dep = find(&out, "Deployment");
    assert_eq!(dep["spec"]["replicas"], 3);
    let c = &dep["spec"]["template"]["spec"]["containers"][0];
    assert_eq!(c["image"], "registry.example.com/ops/volmnt:0.1.0");
    let args: Vec<&str> = c["args"]
        .as_sequence()
        .unwrap()
        .iter()
        .filter_map(|a| a.as_str())
        .collect();
    assert_eq!(
        args,
        [
            "watch",
            "--namespace=shop",
            "--namespace=billing",
            "--selector=tier=db",
            "--min-age=2m",
            "--listen=0.0.0.0:8080",
            "--dry-run",
            "--read-secrets"
        ]
    );
    // The arguments are ones volmnt accepts.
    let mut parse = vec!["volmnt"];
    parse.extend(args.iter().copied());
    parse.push("--help");
    let help = Command::new(env!("CARGO_BIN_EXE_volmnt"))
        .args(&parse[1..])
        .output()
        .unwrap();
    assert!(
        help.status.success(),
        "{}",
        String::from_utf8_lossy(&help.stderr)
    );
    // Secrets only when asked for: the rule and the flag together.
    let role = find(&out, "ClusterRole");
    assert!(serde_yaml::to_string(role).unwrap().contains("secrets"));
    let default = render(&[]).expect("rendered above");
    let role = find(&default, "ClusterRole");
    assert!(!serde_yaml::to_string(role).unwrap().contains("secrets"));
}

#[test]
fn the_node_check_daemonset_reads_the_host_read_only_and_its_arguments_parse() {
    let plain = plain_with_node_check();
    let ds = find(&plain, "DaemonSet");
    let pod = &ds["spec"]["template"]["spec"];
    assert_eq!(pod["hostPID"], true);
    let c = &pod["containers"][0];
    assert_eq!(c["securityContext"]["privileged"], false);
    assert_eq!(c["securityContext"]["readOnlyRootFilesystem"], true);
    assert_eq!(c["volumeMounts"][0]["readOnly"], true);
    let mut args: Vec<String> = c["args"]
        .as_sequence()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap().to_string())
        .collect();
    args.push("--help".into());
    let out = Command::new(env!("CARGO_BIN_EXE_volmnt"))
        .args(&args)
        .env("NODE_NAME", "node-1")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn the_plain_deployment_runs_non_root_read_only_with_probes() {
    let plain = plain();
    let dep = find(&plain, "Deployment");
    let pod = &dep["spec"]["template"]["spec"];
    assert_eq!(pod["securityContext"]["runAsNonRoot"], true);
    let c = &pod["containers"][0];
    assert_eq!(c["securityContext"]["readOnlyRootFilesystem"], true);
    assert_eq!(c["securityContext"]["allowPrivilegeEscalation"], false);
    assert_eq!(c["livenessProbe"]["httpGet"]["path"], "/healthz");
    assert_eq!(c["readinessProbe"]["httpGet"]["path"], "/readyz");
    assert!(c["resources"]["limits"]["memory"].is_string());
    // Its arguments parse.
    let mut args: Vec<String> = c["args"]
        .as_sequence()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap().to_string())
        .collect();
    args.push("--help".into());
    let out = Command::new(env!("CARGO_BIN_EXE_volmnt"))
        .args(&args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Issue 19: where pods cannot reach the API server through the `kubernetes` Service (no
/// kube-proxy, an API server on the node's loopback: scripts/real-cluster.sh's cluster), the
/// watch runs on the node's network, listens on loopback and is told where the API server is.
/// Values given as numbers become strings, as an env value must be.
#[test]
fn issue_19_host_network_and_extra_env_for_a_loopback_api_server() {
    let Some(out) = render(&[
        "hostNetwork=true",
        "listenHost=127.0.0.1",
        "metricsPort=18080",
        "extraEnv[0].name=KUBERNETES_SERVICE_HOST",
        "extraEnv[0].value=127.0.0.1",
        "extraEnv[1].name=KUBERNETES_SERVICE_PORT",
        "extraEnv[1].value=6443",
    ]) else {
        return;
    };
    let dep = find(&out, "Deployment");
    let pod = &dep["spec"]["template"]["spec"];
    assert_eq!(pod["hostNetwork"], true);
    let c = &pod["containers"][0];
    let env: Vec<(String, String)> = c["env"]
        .as_sequence()
        .unwrap()
        .iter()
        .filter(|e| e["value"].is_string())
        .map(|e| {
            (
                e["name"].as_str().unwrap().to_string(),
                e["value"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        env,
        [
            (
                "KUBERNETES_SERVICE_HOST".to_string(),
                "127.0.0.1".to_string()
            ),
            ("KUBERNETES_SERVICE_PORT".to_string(), "6443".to_string()),
        ]
    );
    assert!(c["args"]
        .as_sequence()
        .unwrap()
        .iter()
        .any(|a| a.as_str() == Some("--listen=127.0.0.1:18080")));
    assert_eq!(c["ports"][0]["containerPort"], 18080);
    // Unset, none of it is there: the defaults still render deploy/watch.yaml (above).
    let default = render(&[]).expect("rendered above");
    let pod = &find(&default, "Deployment")["spec"]["template"]["spec"];
    assert!(pod.get("hostNetwork").is_none());
}
