//! `node check` and `volmnt watch` against the real apiserver and kubelet: the probe pod and the
//! probe DaemonSet really scheduled, started and exec'd into; the watch's Events on real stuck
//! pods, its Lease and /metrics.

use std::io::{BufRead, BufReader, Read, Write};
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;

use super::{real_or_skip, wait_for, Real};
use crate::util::cmd;

/// The probe namespace of deploy/rbac.yaml (labelled for Pod Security's privileged level).
fn probe_namespace(r: &Real) {
    r.kubectl_ok(&[
        "apply",
        "-f",
        concat!(env!("CARGO_MANIFEST_DIR"), "/deploy/rbac.yaml"),
    ]);
    let _ = r.kubectl(&["-n", "volmnt", "create", "serviceaccount", "default"]);
}

fn leftovers(r: &Real) -> String {
    r.kubectl_ok(&[
        "-n",
        "volmnt",
        "get",
        "pods,daemonsets",
        "-l",
        "volmnt.io/probe=true",
        "-o",
        "name",
    ])
}

/// The node probe through one pod and through a DaemonSet, on the real node. Issue 19: the
/// DaemonSet for named nodes was refused with 422 by the real apiserver (a `matchFields` `In`
/// with two values); the fake accepted it. A second, API-only node (no kubelet) is named so the
/// affinity holds two names.
#[test]
fn real_node_check_through_a_pod_and_a_daemonset() {
    let r = real_or_skip!();
    probe_namespace(&r);
    let out = r.volmnt(&[
        "node",
        "check",
        "realnode",
        "-o",
        "json",
        "--timeout",
        "60s",
    ]);
    out.assert_no_panic();
    let doc = out.json();
    assert!(out.code <= 1, "{out:#?}");
    assert_eq!(doc["transport"], "exec", "{doc:#}");
    assert_eq!(doc["summary"]["checked"], 1, "{doc:#}");
    let os = doc["nodes"][0]["report"].to_string();
    assert_eq!(doc["nodes"][0]["node"], "realnode", "{doc:#}");
    assert!(os.contains("Debian GNU/Linux 12"), "{doc:#}");
    assert!(wait_for(Duration::from_secs(30), || leftovers(&r).is_empty()));

    if !r.controllers {
        eprintln!("real: --via daemonset skipped: no kube-controller-manager (nothing runs a DaemonSet's pods)");
        r.cleanup();
        return;
    }
    let fake = format!("{}-api-only", r.ns);
    r.apply(&format!(
        "apiVersion: v1\nkind: Node\nmetadata: {{name: {fake}, labels: {{kubernetes.io/hostname: {fake}}}}}\n"
    ));
    r.owns(&format!("node/{fake}"));
    let out = r.volmnt(&[
        "node",
        "check",
        "realnode",
        &fake,
        "--via",
        "daemonset",
        "-o",
        "json",
        "--timeout",
        "40s",
    ]);
    out.assert_no_panic();
    assert!(
        !out.stderr.contains("422") && !out.stderr.contains("Invalid"),
        "{out:#?}"
    );
    let doc = out.json();
    let node = |n: &str| {
        doc["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["node"] == n)
            .cloned()
            .unwrap_or_else(|| panic!("no {n} in {doc:#}"))
    };
    assert_eq!(
        doc["transport"], "exec",
        "the DaemonSet's pods are exec'd into: {doc:#}"
    );
    assert!(
        matches!(
            node("realnode")["status"].as_str(),
            Some("pass" | "fail" | "problem")
        ),
        "realnode was probed: {doc:#}"
    );
    assert_eq!(node(&fake)["status"], "unreachable", "{doc:#}");
    // Its pod exists, unbound: the scheduler's reason is the report's (issue 19).
    let why = node(&fake)["error"].as_str().unwrap_or("").to_string();
    assert!(why.contains("not scheduled (Unschedulable"), "{why}");
    // One node probed, one not: exit 3 only when nothing else was found, else 1 or 0.
    assert!(matches!(out.code, 0 | 1 | 3), "{out:#?}");
    assert!(
        wait_for(Duration::from_secs(60), || leftovers(&r).is_empty()),
        "left behind: {}",
        leftovers(&r)
    );
    r.cleanup();
}

fn http_get(addr: &str, path: &str) -> (u16, String) {
    let Ok(mut s) = std::net::TcpStream::connect(addr) else {
        return (0, String::new());
    };
    s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    let _ = write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
    );
    let mut buf = String::new();
    let _ = s.read_to_string(&mut buf);
    let code = buf
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    let body = buf.split("\r\n\r\n").nth(1).unwrap_or("").to_string();
    (code, body)
}

/// `volmnt watch` as a process against the real apiserver: an Event per real stuck pod with
/// its cause, written once, the Lease held, /metrics and /readyz.
#[test]
fn real_watch_writes_one_event_per_stuck_pod() {
    let r = real_or_skip!();
    let ns = r.ns.clone();
    for (name, vol) in [
        ("cm", "configMap: {name: absent}"),
        ("claim", "persistentVolumeClaim: {claimName: absent}"),
    ] {
        r.apply(&super::cases::pod_yaml(&ns, name, vol));
    }
    let mut child = cmd()
        .args([
            "watch",
            "-n",
            &ns,
            "--min-age",
            "1s",
            "--listen",
            "127.0.0.1:0",
            "--lease-namespace",
            &ns,
            "--kubeconfig",
        ])
        .arg(&r.kubeconfig)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start volmnt watch");
    let lines = Arc::new(Mutex::new(Vec::<String>::new()));
    let sink = lines.clone();
    let stderr = child.stderr.take().unwrap();
    std::thread::spawn(move || {
        for l in BufReader::new(stderr).lines().map_while(Result::ok) {
            sink.lock().unwrap().push(l);
        }
    });
    let log = || lines.lock().unwrap().join("\n");
    let diagnoses = || -> Vec<Value> {
        let v = r.get_json(&[
            "events",
            "-n",
            &ns,
            "--field-selector",
            "reason=VolumeDiagnosis",
        ]);
        v["items"].as_array().cloned().unwrap_or_default()
    };
    let ok = wait_for(Duration::from_secs(60), || diagnoses().len() == 2);
    let addr = log()
        .lines()
        .find_map(|l| l.split("on http://").nth(1))
        .map(|s| s.split(';').next().unwrap_or(s).trim().to_string())
        .unwrap_or_default();
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        assert!(
            ok,
            "two VolumeDiagnosis Events: {:#?}\n{}",
            diagnoses(),
            log()
        );
        let mut causes: Vec<String> = diagnoses()
            .iter()
            .map(|e| {
                format!(
                    "{} {}",
                    e["involvedObject"]["name"].as_str().unwrap_or(""),
                    e["message"]
                        .as_str()
                        .unwrap_or("")
                        .split(':')
                        .next()
                        .unwrap_or("")
                )
            })
            .collect();
        causes.sort();
        assert_eq!(
            causes,
            [
                "claim pvc_unbound_or_missing",
                "cm configmap_or_secret_missing"
            ],
            "{}",
            log()
        );
        let lease = r.get_json(&["lease", "-n", &ns, "volmnt-watch"]);
        assert!(
            lease["spec"]["holderIdentity"]
                .as_str()
                .is_some_and(|h| !h.is_empty()),
            "{lease:#}"
        );
        let (code, _) = http_get(&addr, "/readyz");
        assert_eq!(code, 200, "{}", log());
        let (_, metrics) = http_get(&addr, "/metrics");
        assert!(metrics.contains("volmnt_leader 1\n"), "{metrics}");
        assert!(
            metrics.contains(&format!(
                "volmnt_stuck_pods{{namespace=\"{ns}\",node=\"realnode\",cause=\"configmap_or_secret_missing\"}} 1"
            )),
            "{metrics}"
        );
        // The kubelet repeats its FailedMount; the diagnosis is updated, never written twice.
        std::thread::sleep(Duration::from_secs(5));
        assert_eq!(diagnoses().len(), 2, "{:#?}", diagnoses());
    }));
    unsafe {
        kill(child.id() as i32, 15);
    }
    let _ = child.wait();
    r.cleanup();
    if let Err(e) = result {
        std::panic::resume_unwind(e);
    }
}

extern "C" {
    fn kill(pid: i32, sig: i32) -> i32;
}
