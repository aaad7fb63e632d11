//! The operator's path on the real cluster (issue 29): what an on-call SRE meets first. A claim
//! whose StorageClass does not exist (the class and the classes that exist named on the first
//! line), a Deployment whose replicas fail on a missing Secret for 30 s (reported, never OK),
//! the CI preflight under a context without rights (exit 3, a JUnit naming each node, the
//! shipped job red), and kubectl's habits on the command line.

use std::path::Path;
use std::time::Duration;

use super::{real_or_skip, wait_for, Real};
use crate::util::{cmd, run_cmd, Out, TempDir, BIN};

/// Cleans up the run's namespace and cluster objects however the test ends.
struct Cleanup<'a>(&'a Real);
impl Drop for Cleanup<'_> {
    fn drop(&mut self) {
        self.0.cleanup();
    }
}

/// Whether a Warning event with this reason is recorded about `name` in the run's namespace.
fn has_event(r: &Real, name: &str, reason: &str) -> bool {
    r.events_of(name).iter().any(|(re, _)| re == reason)
}

#[test]
fn real_a_claim_whose_storage_class_does_not_exist_names_it_and_the_classes_that_do() {
    let r = real_or_skip!();
    let _cleanup = Cleanup(&r);
    let ns = r.ns.clone();
    // A class that exists (not the default: other users' claims must not change class).
    let class = format!("{ns}-standard");
    r.apply(&format!(
        "apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata: {{name: {class}}}\nprovisioner: kubernetes.io/no-provisioner\nvolumeBindingMode: Immediate\n"
    ));
    r.owns(&format!("storageclass/{class}"));
    r.apply(&format!(
        r#"apiVersion: v1
kind: PersistentVolumeClaim
metadata: {{name: data, namespace: {ns}}}
spec:
  accessModes: [ReadWriteOnce]
  storageClassName: standard-v2
  resources: {{requests: {{storage: 1Gi}}}}
"#
    ));
    // Not placed on a node: the scheduler keeps it out until the claim binds.
    r.apply(&format!(
        r#"apiVersion: v1
kind: Pod
metadata: {{name: db-0, namespace: {ns}}}
spec:
  automountServiceAccountToken: false
  terminationGracePeriodSeconds: 0
  containers:
  - {{name: app, image: busybox:1.36, imagePullPolicy: IfNotPresent, command: [sleep, "3600"], volumeMounts: [{{name: data, mountPath: /data}}]}}
  volumes:
  - {{name: data, persistentVolumeClaim: {{claimName: data}}}}
"#
    ));
    if r.controllers {
        // The PV controller's own words about the claim: ProvisioningFailed "storageclass ...
        // not found" (pkg/controller/volume/persistentvolume/pv_controller.go).
        assert!(
            wait_for(Duration::from_secs(60), || has_event(
                &r,
                "data",
                "ProvisioningFailed"
            )),
            "no ProvisioningFailed event on the claim: {:?}",
            r.events_of("data")
        );
    }
    let out = r.volmnt(&["doctor", "pod", "db-0", "-n", &ns]);
    out.assert_no_panic();
    assert_eq!(out.code, 1, "{out:#?}");
    let first = out.stdout.lines().next().unwrap_or_default();
    assert!(
        first.contains(&format!(
            "PersistentVolumeClaim {ns}/data cannot bind because StorageClass standard-v2 does not exist"
        )) && first.contains(&class)
            && first.contains("spec.storageClassName"),
        "{}",
        out.stdout
    );
    // The fix recreates the claim with a class that exists; no "delete the pod" for a pod
    // the scheduler has not placed.
    assert!(
        out.stdout
            .contains(&format!("set spec.storageClassName to {class}")),
        "{}",
        out.stdout
    );
    assert!(
        !out.stdout.contains("kubectl delete pod db-0"),
        "{}",
        out.stdout
    );
    // The fleet view says the same of the claim.
    let fleet = r.volmnt(&["doctor", "namespace", "-n", &ns]);
    assert_eq!(fleet.code, 1, "{fleet:#?}");
    assert!(
        fleet.stdout.contains(&format!(
            "PersistentVolumeClaim {ns}/data: The PersistentVolumeClaim is missing or not bound (cannot bind because StorageClass standard-v2 does not exist"
        )),
        "{}",
        fleet.stdout
    );
}

#[test]
fn real_a_deployment_failing_on_a_missing_secret_for_30s_is_reported_not_ok() {
    let r = real_or_skip!();
    let _cleanup = Cleanup(&r);
    let ns = r.ns.clone();
    // The replicas' pod spec, at the indent asked for.
    let spec = |indent: &str| -> String {
        [
            "automountServiceAccountToken: false",
            "terminationGracePeriodSeconds: 0",
            "containers:",
            "- {name: app, image: busybox:1.36, imagePullPolicy: IfNotPresent, command: [sleep, \"3600\"], volumeMounts: [{name: creds, mountPath: /creds}]}",
            "volumes:",
            "- {name: creds, secret: {secretName: db-creds}}",
        ]
        .iter()
        .map(|l| format!("{indent}{l}\n"))
        .collect()
    };
    if r.controllers {
        r.apply(&format!(
            "apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: web, namespace: {ns}}}\nspec:\n  replicas: 3\n  selector: {{matchLabels: {{app: web}}}}\n  template:\n    metadata: {{labels: {{app: web}}}}\n    spec:\n      nodeSelector: {{kubernetes.io/hostname: realnode}}\n{}",
            spec("      ")
        ));
    } else {
        // Without the controllers nothing makes the replicas: three pods as it would.
        for i in 0..3 {
            r.apply(&format!(
                "apiVersion: v1\nkind: Pod\nmetadata: {{name: web-{i}, namespace: {ns}, labels: {{app: web}}}}\nspec:\n  nodeName: realnode\n{}",
                spec("  ")
            ));
        }
    }
    let pods = || -> Vec<String> {
        r.get_json(&["pods", "-n", &ns, "-l", "app=web"])["items"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|p| p["metadata"]["name"].as_str().map(str::to_string))
            .collect()
    };
    // Each replica has kubelet's FailedMount (secret "db-creds" not found).
    assert!(
        wait_for(Duration::from_secs(90), || {
            let p = pods();
            p.len() == 3 && p.iter().all(|p| has_event(&r, p, "FailedMount"))
        }),
        "the replicas did not fail their mount: {:?}",
        pods()
    );
    std::thread::sleep(Duration::from_secs(30));
    // The default --min-age (2m) is longer than the rollout has failed: reported all the same.
    let out = r.volmnt(&["doctor", "namespace", "-n", &ns, "-o", "json"]);
    out.assert_no_panic();
    assert_eq!(out.code, 1, "{out:#?}");
    let doc = out.json();
    assert_eq!(doc["status"], "stuck", "{doc:#}");
    assert_eq!(doc["stuck_pods"], 3, "{doc:#}");
    assert_eq!(doc["groups"][0]["cause"], "configmap_or_secret_missing");
    assert_eq!(doc["groups"][0]["root"], format!("Secret {ns}/db-creds"));
    let text = r.volmnt(&["doctor", "namespace", "-n", &ns]);
    assert!(
        text.stdout
            .starts_with(&format!("STUCK 3 pod(s) in namespace {ns}")),
        "{}",
        text.stdout
    );
    assert!(!text.stdout.contains("OK no pod"), "{}", text.stdout);
    // And the pod view names the Secret on its first line.
    let one = pods()[0].clone();
    let pod = r.volmnt(&["doctor", "pod", &one, "-n", &ns]);
    assert!(
        pod.stdout
            .lines()
            .next()
            .unwrap_or_default()
            .contains(&format!("Secret {ns}/db-creds does not exist")),
        "{}",
        pod.stdout
    );
}

/// The kubeconfig of the real cluster with its context switched to `context`, written to `dir`.
fn kubeconfig_with_context(r: &Real, dir: &Path, context: &str) -> std::path::PathBuf {
    let text = std::fs::read_to_string(&r.kubeconfig).unwrap();
    let mut doc: serde_yaml::Value = serde_yaml::from_str(&text).unwrap();
    doc["current-context"] = serde_yaml::Value::from(context);
    let p = dir.join("kubeconfig");
    std::fs::write(&p, serde_yaml::to_string(&doc).unwrap()).unwrap();
    p
}

/// A context of the real cluster that may not read nodes (the cluster's `lowpriv`), or None.
fn context_without_rights(r: &Real) -> Option<String> {
    let o = r.kubectl(&["--context", "lowpriv", "auth", "can-i", "list", "nodes"]);
    (String::from_utf8_lossy(&o.stdout).trim() == "no").then(|| "lowpriv".to_string())
}

#[test]
fn real_the_ci_preflight_under_a_context_without_rights_fails_closed() {
    let r = real_or_skip!();
    let _cleanup = Cleanup(&r);
    let Some(context) = context_without_rights(&r) else {
        eprintln!("skipped: the real cluster's kubeconfig has no context `lowpriv` without rights");
        return;
    };
    let dir = TempDir::new("real-preflight");
    let kubeconfig = kubeconfig_with_context(&r, dir.path(), &context);
    let run = |args: &[&str]| -> Out {
        let out = run_cmd(cmd().args(args).env("KUBECONFIG", &kubeconfig), None);
        out.assert_no_panic();
        out
    };
    // Named nodes: each named in the JUnit with why it was not checked.
    let out = run(&[
        "node",
        "check",
        "realnode",
        "--require",
        "nfs",
        "-o",
        "junit",
    ]);
    assert_eq!(out.code, 3, "{out:#?}");
    assert!(
        out.stdout
            .contains("<testcase classname=\"volmnt.node-check.realnode\" name=\"nfs\"")
            && out.stdout.contains("message=\"realnode was not checked\"")
            && out.stdout.contains("not allowed by RBAC"),
        "{}",
        out.stdout
    );
    // --all: the nodes cannot even be listed; the JUnit is not empty and says why.
    let all = run(&["node", "check", "--all", "--require", "nfs", "-o", "junit"]);
    assert_eq!(all.code, 3, "{all:#?}");
    assert!(
        all.stdout.contains("errors=\"1\"") && all.stdout.contains("not allowed to list nodes"),
        "{}",
        all.stdout
    );
    // The shipped GitHub and GitLab jobs, with this volmnt on the PATH: red.
    std::os::unix::fs::symlink(BIN, dir.path().join("volmnt")).unwrap();
    for (job, script) in [
        ("github", crate::install::github_check_script()),
        ("gitlab", crate::install::gitlab_check_script()),
    ] {
        let code = crate::install::run_job(
            &script,
            dir.path(),
            "false",
            &[("KUBECONFIG", kubeconfig.to_str().unwrap())],
        );
        assert_ne!(code, 0, "{job}: the job passed on nodes nobody checked");
        let xml = std::fs::read_to_string(dir.path().join("node-check.xml")).unwrap();
        assert!(xml.contains("not allowed to list nodes"), "{job}: {xml}");
    }
}

#[test]
fn real_kubectl_habits() {
    let r = real_or_skip!();
    let _cleanup = Cleanup(&r);
    let ns = r.ns.clone();
    r.apply(&super::cases::pod_yaml(
        &ns,
        "cm",
        "configMap: {name: absent}",
    ));
    assert!(
        wait_for(Duration::from_secs(60), || has_event(
            &r,
            "cm",
            "FailedMount"
        )),
        "{:?}",
        r.events_of("cm")
    );
    let want = format!("ConfigMap {ns}/absent does not exist");
    let verdict = |out: &Out| out.stdout.lines().next().unwrap_or_default().to_string();
    for args in [
        vec!["-n", ns.as_str(), "doctor", "pod", "pod/cm"],
        vec!["doctor", "pod", "po/cm", "-n", ns.as_str()],
        vec!["doctor", "pods", "cm", "-n", ns.as_str()],
        vec!["--namespace", ns.as_str(), "doctor", "pod", "cm"],
    ] {
        let out = r.volmnt(&args);
        out.assert_no_panic();
        assert_eq!(out.code, 1, "{args:?}: {out:#?}");
        assert!(verdict(&out).contains(&want), "{args:?}: {}", out.stdout);
    }
    // kubectl's connection flags, with no kubeconfig at all: the server and the token of the
    // kubeconfig's current user, as `kubectl --server S --token T` takes them.
    let kc: serde_yaml::Value =
        serde_yaml::from_str(&std::fs::read_to_string(&r.kubeconfig).unwrap()).unwrap();
    let server = kc["clusters"][0]["cluster"]["server"]
        .as_str()
        .unwrap()
        .to_string();
    let current = kc["current-context"].as_str().unwrap_or_default();
    let user = kc["contexts"]
        .as_sequence()
        .into_iter()
        .flatten()
        .find(|c| c["name"].as_str() == Some(current))
        .and_then(|c| c["context"]["user"].as_str())
        .unwrap_or_default()
        .to_string();
    let token = kc["users"]
        .as_sequence()
        .into_iter()
        .flatten()
        .find(|u| u["name"].as_str() == Some(user.as_str()))
        .and_then(|u| u["user"]["token"].as_str())
        .map(str::to_string);
    if let Some(token) = token {
        let out = run_cmd(
            cmd()
                .args(["doctor", "pod", "cm", "-n", &ns, "--server", &server])
                .args(["--token", &token, "--insecure-skip-tls-verify"])
                .env("KUBECONFIG", "/nonexistent/kubeconfig"),
            None,
        );
        out.assert_no_panic();
        assert_eq!(out.code, 1, "{out:#?}");
        assert!(verdict(&out).contains(&want), "{}", out.stdout);
        assert!(!out.stdout.contains(&token) && !out.stderr.contains(&token));
    }
    // A misspelt namespace is an error naming the closest one, in every command, watch too.
    let typo = format!("{}x", ns);
    for args in [
        vec!["watch", "-n", typo.as_str()],
        vec!["doctor", "namespace", "-n", typo.as_str()],
        vec!["doctor", "pod", "cm", "-n", typo.as_str()],
    ] {
        let out = r.volmnt(&args);
        assert_eq!(out.code, 2, "{args:?}: {out:#?}");
        assert!(
            out.stderr.contains(&format!("did you mean \"{ns}\"?")),
            "{args:?}: {}",
            out.stderr
        );
    }
}
