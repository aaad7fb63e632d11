//! `volmnt explain`: real messages from public issue threads (fixtures/corpus), given the way an
//! operator would: pasted as an argument, or piped in with their line breaks.

use serde_json::Value;

use crate::util::{corpus_text, remediation_commands, run, run_stdin, top};

/// `volmnt explain ARGS -o json`; returns the exit code and the document.
fn explain_json(args: &[&str]) -> (i32, Value) {
    let mut all = vec!["explain"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["-o", "json"]);
    let out = run(&all);
    out.assert_no_panic();
    (out.code, out.json())
}

#[test]
fn real_messages_as_arguments_are_classified() {
    let cases = [
        // `Warning FailedAttachVolume 71s attachdetach-controller Multi-Attach error ...`, a
        // whole describe row.
        ("k8s-96142-multiattach-reschedule", "multi_attach"),
        ("longhorn-5345-multiattach-stale-va", "multi_attach"),
        (
            "grafana-helm-2216-configmap-missing",
            "configmap_or_secret_missing",
        ),
        ("rook-964-rbd-locked-other-nodes", "rbd_lock_held"),
        (
            "hf-dataset-viewer-270-nfs-timeout",
            "nfs_server_unreachable",
        ),
        ("nacos-5400-nfs-no-such-dir", "nfs_export_missing"),
    ];
    let mut wrong = Vec::new();
    for (id, want) in cases {
        let text = corpus_text(id);
        let (code, doc) = explain_json(&[&text]);
        let got = top(&doc["messages"][0])["cause"].clone();
        if code != 1 || got != want {
            wrong.push(format!(
                "{id}: want {want} (exit 1), got {got} (exit {code})"
            ));
        }
    }
    assert!(wrong.is_empty(), "misclassified:\n{}", wrong.join("\n"));
}

#[test]
fn configmap_not_found_names_the_configmap() {
    let (code, doc) = explain_json(&[
        r#"MountVolume.SetUp failed for volume "config" : configmap "loki-stack-promtail" not found"#,
    ]);
    assert_eq!(code, 1);
    let m = &doc["messages"][0];
    assert_eq!(top(m)["cause"], "configmap_or_secret_missing");
    assert!(
        top(m).to_string().contains("loki-stack-promtail"),
        "the report should name the missing configmap:\n{m:#}"
    );
}

#[test]
fn dash_reads_one_multi_line_message_from_stdin() {
    // kubeadm-dind-cluster#242: mount output over nine lines; the mount command is on line 3,
    // the failure from line 5 on. Read as one message, they make one finding.
    let text = corpus_text("dind-242-mount-nfs-missing-kubelet");
    assert!(
        text.lines().count() > 5,
        "the corpus text keeps its line breaks"
    );
    let out = run_stdin(&["explain", "-", "-o", "json"], text.as_bytes());
    out.assert_no_panic();
    assert_eq!(out.code, 1, "{out:#?}");
    let doc = out.json();
    let messages = doc["messages"].as_array().expect("messages");
    assert_eq!(messages.len(), 1, "stdin is ONE message, not one per line");
    let f = top(&messages[0]);
    assert_eq!(f["cause"], "nfs_client_missing");
    assert!(
        f["evidence"]
            .to_string()
            .contains("mount -t nfs fileserver:/documents"),
        "the mount command (line 3) and the failure (line 5) belong to one message:\n{f:#}"
    );
}

#[test]
fn node_os_picks_the_install_command_for_a_message_too() {
    let text = corpus_text("dind-242-mount-nfs-missing-kubelet");
    let (code, doc) = explain_json(&[&text, "--node-os", "CentOS Linux 7 (Core)"]);
    assert_eq!(code, 1);
    let cmds = remediation_commands(top(&doc["messages"][0]));
    assert!(
        cmds.iter().any(|c| c == "sudo yum install -y nfs-utils"),
        "{cmds:#?}"
    );
    assert!(!cmds.iter().any(|c| c.contains("apt-get")), "{cmds:#?}");
}

#[test]
fn two_messages_give_two_reports_in_argument_order() {
    let (code, doc) = explain_json(&[
        &corpus_text("grafana-helm-2216-configmap-missing"),
        &corpus_text("ocsci-1149-multiattach-rwo-two-nodes"),
    ]);
    assert_eq!(code, 1);
    let messages = doc["messages"].as_array().expect("messages array");
    assert_eq!(messages.len(), 2, "{doc:#}");
    assert_eq!(top(&messages[0])["cause"], "configmap_or_secret_missing");
    assert_eq!(top(&messages[1])["cause"], "multi_attach");
    for (i, m) in messages.iter().enumerate() {
        assert_eq!(m["subject"]["kind"], "message");
        let label = format!("message {}", i + 1);
        assert!(
            m["verdict"].as_str().unwrap_or("").starts_with(&label),
            "verdict should start with {label:?}: {}",
            m["verdict"]
        );
    }
}

#[test]
fn text_report_for_a_recognised_message_leads_with_stuck() {
    let out = run(&["explain", &corpus_text("rook-964-rbd-locked-other-nodes")]);
    out.assert_no_panic();
    assert_eq!(out.code, 1);
    let first = out.stdout.lines().next().unwrap_or("");
    assert!(
        first.starts_with("STUCK message 1:") && first.contains("rbd_lock_held"),
        "{first:?}"
    );
}

#[test]
fn regression_a_normal_message_is_not_a_failure() {
    // `volmnt explain --help`: "0  no message describes a failure". A Normal event's message
    // is reported as an unrecognised failure instead.
    for m in [
        "Successfully assigned default/x to node1",
        r#"MountVolume.SetUp succeeded for volume "nfs211""#,
    ] {
        let out = run(&["explain", m, "-o", "json"]);
        out.assert_no_panic();
        assert_eq!(out.code, 0, "{m:?} is not a failure:\n{}", out.stdout);
        assert_eq!(out.json()["messages"][0]["status"], "ok");
    }
}

#[test]
fn an_unrecognised_failure_still_exits_1_and_quotes_the_message() {
    // Nothing hidden: a failure no rule knows is shown as it was given.
    let msg = "frobnicate failed: the flux capacitor is out of alignment";
    let (code, doc) = explain_json(&[msg]);
    assert_eq!(code, 1);
    let m = &doc["messages"][0];
    assert_eq!(top(m)["cause"], "unknown");
    assert!(
        m["unrecognised"].to_string().contains("flux capacitor"),
        "{m:#}"
    );
}

#[test]
fn exit_status_32_alone_says_what_it_means_and_where_mounts_output_is() {
    let out = run(&[
        "explain",
        "MountVolume.SetUp failed for volume \"data\" : mount failed: exit status 32",
        "-o",
        "json",
    ]);
    assert_eq!(out.code, 1);
    let r = out.json();
    let m = &r["messages"][0];
    assert_eq!(m["status"], "inconclusive", "{m:#}");
    let f = &m["findings"][0];
    assert_eq!(f["cause"], "mount_failed");
    let summary = f["summary"].as_str().unwrap();
    assert!(summary.contains("mount failure"), "{summary}");
    assert!(summary.contains("kubelet logs it"), "{summary}");
    let cmds: Vec<&str> = f["confirm"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|s| s["command"].as_str())
        .collect();
    assert!(
        cmds.iter().any(|c| c.starts_with("journalctl -u kubelet")),
        "{cmds:?}"
    );
}

/// Issue 27: the format strings that printed a message, outermost first, in `-o json`
/// (`printed_by`) and, with `-v`, one line under the quote.
#[test]
fn printed_by_names_the_code_that_printed_each_layer() {
    let msg = "MountVolume.SetUp failed for volume \"pvc-1\" : rpc error: code = Internal desc = mount failed: exit status 32\nMounting command: mount\nMounting arguments: -t nfs 10.0.0.1:/x /var/lib/kubelet/pods/u/volumes/kubernetes.io~csi/pvc-1/mount\nOutput: mount.nfs: access denied by server while mounting 10.0.0.1:/x";
    let (_, doc) = explain_json(&[msg]);
    let json = &doc["messages"][0];
    let finding = &json["findings"][0];
    assert_eq!(finding["cause"], "nfs_access_denied", "{json}");
    let quoted = finding["evidence_detail"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["quoted"] == true)
        .expect("a quoted message");
    let by: Vec<(String, String, u64)> = quoted["printed_by"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["program"].as_str().unwrap().to_string(),
                p["at"].as_str().unwrap().to_string(),
                p["layer_index"].as_u64().unwrap(),
            )
        })
        .collect();
    let programs: Vec<&str> = by.iter().map(|b| b.0.as_str()).collect();
    // Outermost first: the kubelet's operation generator, grpc's status, mount-utils' mount
    // failed, mount.nfs' reason.
    assert_eq!(programs.first(), Some(&"kubelet"), "{by:?}");
    assert!(
        by[0]
            .1
            .starts_with("pkg/volume/util/operationexecutor/operation_generator.go:"),
        "{by:?}"
    );
    let pos = |p: &str| programs.iter().position(|x| *x == p);
    assert!(pos("grpc-go") < pos("mount.nfs"), "{by:?}");
    assert!(pos("grpc-go").is_some(), "{by:?}");
    assert!(
        by.iter()
            .any(|b| b.0 == "mount.nfs" && b.1.starts_with("utils/mount/error.c:")),
        "{by:?}"
    );
    assert!(by.windows(2).all(|w| w[0].2 <= w[1].2), "{by:?}");
    let out = run(&["explain", "-v", msg]);
    out.assert_no_panic();
    // The line as printed, wrapped to the terminal's width: read with its breaks joined.
    let at = out
        .stdout
        .find("printed by:")
        .unwrap_or_else(|| panic!("no printed by line:\n{}", out.stdout));
    let line = out.stdout[at..]
        .split("\n     •")
        .next()
        .unwrap_or_default()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        line.contains("kubelet v1.36.2 pkg/volume/util/operationexecutor/operation_generator.go:"),
        "{line}"
    );
    assert!(line.contains(" → "), "{line}");
    // Without -v, not printed.
    let out = run(&["explain", msg]);
    assert!(!out.stdout.contains("printed by:"), "{}", out.stdout);
}
