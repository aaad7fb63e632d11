//! What reaches the operator's terminal or script: one clean document for `-o json|yaml`, colour
//! only when wanted, no secrets ever, help that documents the exit codes, and the
//! `kubectl volmnt` plugin name.

use serde_json::Value;

use crate::util::{cmd, read, run, run_cmd, top, TempDir, BIN};

const NFS_DESCRIBE: &str = fixture!("seed/nfs-describe-pod.txt");

/// Exactly one JSON document in `s`, and nothing after it but whitespace.
fn one_json_document(s: &str) -> Value {
    let mut docs = serde_json::Deserializer::from_str(s).into_iter::<Value>();
    let first = docs
        .next()
        .unwrap_or_else(|| panic!("no JSON document on stdout:\n{s}"))
        .unwrap_or_else(|e| panic!("stdout is not JSON ({e}):\n{s}"));
    assert!(
        docs.next().is_none(),
        "more than one document on stdout:\n{s}"
    );
    assert!(first.is_object(), "the document is an object:\n{s}");
    first
}

#[test]
fn json_is_one_document_on_stdout_and_nothing_else() {
    for args in [
        &["doctor", "pod", "-f", NFS_DESCRIBE, "-o", "json"][..],
        &["doctor", "pod", "--example", "rbd", "-o", "json"][..],
        &[
            "explain",
            "-o",
            "json",
            "mount failed: exit status 32",
            "rbd: image p/i is locked by other nodes",
        ][..],
    ] {
        let out = run(args);
        out.assert_no_panic();
        assert_eq!(out.code, 1, "{args:?}");
        assert!(
            out.stdout.starts_with('{'),
            "{args:?}: stdout starts with the document:\n{}",
            out.stdout
        );
        one_json_document(&out.stdout);
        assert_eq!(out.stderr, "", "{args:?}: nothing on stderr either");
    }
}

#[test]
fn verbose_talks_on_stderr_and_leaves_the_json_alone() {
    let out = run(&["doctor", "pod", "-v", "-f", NFS_DESCRIBE, "-o", "json"]);
    out.assert_no_panic();
    assert_eq!(out.code, 1);
    let doc = one_json_document(&out.stdout);
    assert_eq!(top(&doc)["cause"], "nfs_client_missing");
    assert!(
        out.stderr.contains("volmnt: read"),
        "-v says what was read, on stderr:\n{}",
        out.stderr
    );
}

#[test]
fn errors_leave_stdout_empty_even_with_json() {
    let out = run(&[
        "doctor",
        "pod",
        "-f",
        fixture!("seed/nfs-pvc-rancher.json"),
        "-o",
        "json",
    ]);
    out.assert_input_error("not a Kubernetes object");
}

#[test]
fn yaml_is_the_same_document_as_json() {
    for args in [
        &["doctor", "pod", "-f", NFS_DESCRIBE][..],
        &["doctor", "pod", "--example", "rbd"][..],
        &["explain", "mount failed: exit status 32"][..],
    ] {
        let json = run(&[args, &["-o", "json"]].concat());
        let yaml = run(&[args, &["-o", "yaml"]].concat());
        yaml.assert_no_panic();
        assert_eq!(yaml.code, json.code, "{args:?}");
        let y: serde_yaml::Value = serde_yaml::from_str(&yaml.stdout)
            .unwrap_or_else(|e| panic!("{args:?}: not YAML ({e}):\n{}", yaml.stdout));
        let y = serde_json::to_value(y).expect("YAML as JSON");
        let j = json.json();
        let findings = |d: &Value| {
            if d["messages"].is_array() {
                d["messages"][0]["findings"][0]["cause"].clone()
            } else {
                d["findings"][0]["cause"].clone()
            }
        };
        assert!(findings(&y).is_string(), "{args:?}: {y:#}");
        assert_eq!(findings(&y), findings(&j), "{args:?}");
        assert_eq!(
            y, j,
            "{args:?}: -o yaml and -o json carry the same document"
        );
    }
}

fn has_ansi(s: &str) -> bool {
    s.contains('\u{1b}')
}

#[test]
fn no_color_means_no_escapes() {
    // The harness sets NO_COLOR=1; ask for colour only the automatic way.
    let out = run(&["doctor", "pod", "--example", "rbd"]);
    assert_eq!(out.code, 1);
    assert!(out.stdout.starts_with("STUCK"), "{}", out.stdout);
    assert!(!has_ansi(&out.stdout), "{:?}", out.stdout);
    assert!(!has_ansi(&out.stderr));
}

#[test]
fn piped_output_has_no_escapes_without_no_color() {
    let mut c = cmd();
    c.env_remove("NO_COLOR")
        .env("TERM", "xterm-256color")
        .args(["doctor", "pod", "--example", "nfs"]);
    let out = run_cmd(&mut c, None);
    assert_eq!(out.code, 1);
    assert!(
        !has_ansi(&out.stdout),
        "stdout is a pipe here, so `--color auto` must not colour:\n{:?}",
        out.stdout
    );
}

#[test]
fn color_always_colours_and_never_does_not() {
    let mut c = cmd();
    c.env_remove("NO_COLOR")
        .args(["doctor", "pod", "--example", "nfs", "--color", "always"]);
    let out = run_cmd(&mut c, None);
    assert_eq!(out.code, 1);
    assert!(has_ansi(&out.stdout), "--color always: {:?}", out.stdout);
    assert!(
        out.stdout.starts_with("\u{1b}["),
        "the STUCK mark is coloured"
    );

    let mut c = cmd();
    c.env_remove("NO_COLOR")
        .args(["doctor", "pod", "--example", "nfs", "--color", "never"]);
    assert!(!has_ansi(&run_cmd(&mut c, None).stdout));
}

#[test]
fn json_never_has_escapes_even_with_color_always() {
    let out = run(&[
        "doctor",
        "pod",
        "--example",
        "nfs",
        "--color",
        "always",
        "-o",
        "json",
    ]);
    assert!(!has_ansi(&out.stdout));
    one_json_document(&out.stdout);
}

// ---------------------------------------------------------------------------------------------
// Secrets

const PASSWORD: &str = "hunter2";
const CEPH_KEY: &str = "AQBZ7YhcAAAAABAAx0sCjz2Trl2VELCMsxC5Hg==";

/// A CIFS mount refused with the password in its options (in-tree flexvolume/smb style).
fn cifs_failure() -> String {
    format!(
        "MountVolume.SetUp failed for volume \"share\" : mount failed: exit status 13\n\
         Mounting command: mount\n\
         Mounting arguments: -t cifs -o username=svc-k8s,password={PASSWORD},vers=3.0 //10.0.0.5/share /var/lib/kubelet/pods/6f1c/volumes/kubernetes.io~csi/share/mount\n\
         Output: mount error(13): Permission denied\n\
         Refer to the mount.cifs(8) manual page (e.g. man mount.cifs)"
    )
}

/// A CephFS mount refused, with the cephx key in its options (in-tree cephfs).
fn ceph_failure() -> String {
    format!(
        "MountVolume.SetUp failed for volume \"data\" : CephFS: mount failed: mount failed: exit status 13\n\
         Mounting command: mount\n\
         Mounting arguments: -t ceph -o name=admin,secret={CEPH_KEY} 10.0.0.1:6789:/ /var/lib/kubelet/pods/6f1c/volumes/kubernetes.io~cephfs/data\n\
         Output: mount error 13 = Permission denied"
    )
}

/// Fails when `out` holds the password, the key, or any 8-character piece of the key.
fn assert_no_secret(what: &str, out: &str) {
    assert!(
        !out.contains(PASSWORD),
        "{what}: the CIFS password leaked:\n{out}"
    );
    for i in 0..=CEPH_KEY.len() - 8 {
        let piece = &CEPH_KEY[i..i + 8];
        assert!(
            !out.contains(piece),
            "{what}: part of the ceph key ({piece}) leaked:\n{out}"
        );
    }
}

/// The NFS describe with its events replaced by the two failures above.
fn describe_with_secret_events() -> String {
    let describe = read(NFS_DESCRIBE);
    let head = &describe[..describe.find("\nEvents:").unwrap()];
    format!(
        "{head}\nEvents:\n  Type     Reason       Age   From            Message\n  ----     ------       ----  ----            -------\n  Warning  FailedMount  2m    kubelet, node1  {}\n  Warning  FailedMount  1m    kubelet, node1  {}\n",
        cifs_failure(),
        ceph_failure()
    )
}

#[test]
fn secrets_in_mount_options_never_reach_the_output() {
    let dir = TempDir::new("secrets");
    let f = dir.write("describe.txt", describe_with_secret_events());
    for fmt in ["text", "json", "yaml"] {
        let out = run(&["doctor", "pod", "-f", &f, "-o", fmt, "-v"]);
        out.assert_no_panic();
        assert_eq!(out.code, 1, "{out:#?}");
        assert_no_secret(&format!("doctor -o {fmt} stdout"), &out.stdout);
        assert_no_secret(&format!("doctor -o {fmt} stderr"), &out.stderr);
        assert!(
            out.stdout.contains("<redacted>"),
            "the report shows where a secret was removed:\n{}",
            out.stdout
        );

        let out = run(&["explain", &cifs_failure(), &ceph_failure(), "-o", fmt]);
        out.assert_no_panic();
        assert_eq!(out.code, 1);
        assert_no_secret(&format!("explain -o {fmt}"), &out.stdout);
        assert_no_secret(&format!("explain -o {fmt} stderr"), &out.stderr);
    }
}

#[test]
fn the_secret_failures_are_still_diagnosed() {
    // Redaction must not cost the diagnosis: the CIFS one is an SMB access problem.
    let out = run(&["explain", &cifs_failure(), "-o", "json"]);
    assert_eq!(
        top(&out.json()["messages"][0])["cause"],
        "smb_access_denied"
    );
}

#[test]

fn regression_a_quote_cut_inside_a_key_does_not_leak_its_tail() {
    // ceph-csi's message has no "Mounting command:"/"Output:" markers, so the evidence quote is
    // a 100-byte window before the match ("Permission denied"). With 20 bytes between the key
    // and the match, the window starts inside the key: neither `secret=` nor the `AQ` prefix
    // is left for the redactor to see, and ~20 characters of the key are printed.
    let msg = format!(
        "MountVolume.MountDevice failed for volume \"pvc-0fa5e0ac-e4ee-4ffd-a283-7199e75b3a4d\" : rpc error: code = Internal desc = an error (exit status 13) occurred while running mount args: [-t ceph 10.0.0.1:6789,10.0.0.2:6789:/volumes/csi/csi-vol-1 /var/lib/kubelet/plugins/kubernetes.io/csi/pv/pvc-1/globalmount -o name=admin,secret={CEPH_KEY},mds_namespace=cephfs,_netdev,{}a] stderr: mount error 13 = Permission denied",
        "x".repeat(20)
    );
    for fmt in ["text", "json", "yaml"] {
        let out = run(&["explain", &msg, "-o", fmt]);
        out.assert_no_panic();
        assert_no_secret(&format!("explain -o {fmt}"), &out.stdout);
    }
}

// ---------------------------------------------------------------------------------------------
// Help and the plugin name

#[test]
fn help_documents_the_exit_codes() {
    for args in [
        &["--help"][..],
        &["doctor", "pod", "--help"][..],
        &["explain", "--help"][..],
        &["-h"][..],
    ] {
        let out = run(args);
        assert_eq!(out.code, 0, "{args:?}");
        assert!(
            out.stdout.contains("Exit codes"),
            "{args:?}:\n{}",
            out.stdout
        );
        for code in ["0  ", "1  ", "2  "] {
            assert!(out.stdout.contains(code), "{args:?} documents exit {code}");
        }
    }
}

#[test]
fn installed_as_kubectl_volmnt_help_says_kubectl_volmnt() {
    let dir = TempDir::new("plugin");
    let plugin = dir.path().join(if cfg!(windows) {
        "kubectl-volmnt.exe"
    } else {
        "kubectl-volmnt"
    });
    #[cfg(unix)]
    std::os::unix::fs::symlink(BIN, &plugin).expect("symlink the binary");
    #[cfg(not(unix))]
    std::fs::copy(BIN, &plugin).expect("copy the binary");

    let mut c = std::process::Command::new(&plugin);
    c.env("NO_COLOR", "1").arg("--help");
    let out = run_cmd(&mut c, None);
    assert_eq!(out.code, 0, "{out:#?}");
    assert!(
        out.stdout.contains("Usage: kubectl volmnt "),
        "{}",
        out.stdout
    );
    assert!(!out.stdout.contains("Usage: volmnt"), "{}", out.stdout);

    let mut c = std::process::Command::new(&plugin);
    c.env("NO_COLOR", "1").args(["doctor", "pod", "--help"]);
    let out = run_cmd(&mut c, None);
    assert!(
        out.stdout.contains("Usage: kubectl volmnt doctor pod"),
        "{}",
        out.stdout
    );

    // And it works as the plugin, not just its help.
    let mut c = std::process::Command::new(&plugin);
    c.env("NO_COLOR", "1")
        .args(["doctor", "pod", "--example", "rbd", "-o", "json"]);
    let out = run_cmd(&mut c, None);
    assert_eq!(out.code, 1);
    assert_eq!(top(&out.json())["cause"], "rbd_lock_held");
}

// ---------------------------------------------------------------------------------------------
// Commands the report tells the operator to run

/// Every step command in a document (doctor report or explain's messages).
fn all_commands(doc: &Value, out: &mut Vec<String>) {
    match doc {
        Value::Object(m) => {
            if let Some(Value::String(c)) = m.get("command") {
                out.push(c.clone());
            }
            m.values().for_each(|v| all_commands(v, out));
        }
        Value::Array(a) => a.iter().for_each(|v| all_commands(v, out)),
        _ => {}
    }
}

#[test]
fn reports_only_suggest_volmnt_commands_this_build_has() {
    // An operator copies the `$ ...` lines: a `volmnt node check` or `volmnt rbd unlock` that
    // does not exist yet ends in "unrecognized subcommand" mid-incident.
    let records: Vec<serde_yaml::Value> =
        serde_yaml::from_str(&read(fixture!("corpus/real-mount-failures.yaml"))).unwrap();
    let texts: Vec<&str> = records.iter().filter_map(|r| r["text"].as_str()).collect();
    let mut docs = vec![
        run(&["doctor", "pod", "--example", "nfs", "-o", "json"]).json(),
        run(&["doctor", "pod", "--example", "rbd", "-o", "json"]).json(),
        run(&[
            "doctor",
            "pod",
            "-f",
            fixture!("synthetic/objects/nfs-incident.yaml"),
            "-o",
            "json",
        ])
        .json(),
    ];
    let mut explain = vec!["explain", "-o", "json"];
    explain.extend(texts.iter().copied());
    docs.push(run(&explain).json());

    let mut cmds = Vec::new();
    docs.iter().for_each(|d| all_commands(d, &mut cmds));
    assert!(
        cmds.len() > 50,
        "the reports carry commands: {}",
        cmds.len()
    );
    for c in cmds.iter().filter(|c| c.contains("volmnt ")) {
        let words: Vec<&str> = c
            .split_whitespace()
            .skip_while(|w| *w != "volmnt")
            .skip(1)
            .take_while(|w| !w.starts_with('-'))
            .collect();
        let out = run(&[&words[..], &["--help"]].concat());
        assert_eq!(
            out.code,
            0,
            "the report suggests `{c}`, but `volmnt {}` does not exist:\n{}",
            words.join(" "),
            out.stderr
        );
    }
}

#[test]
fn junit_is_refused_up_front_where_it_means_nothing() {
    for args in [
        &["doctor", "pod", "-f", NFS_DESCRIBE][..],
        &["explain", "mount failed: exit status 32"][..],
        &[
            "doctor",
            "namespace",
            "-A",
            "--kubeconfig",
            "/nonexistent/kubeconfig",
        ][..],
        &["rbd", "status", "kube/img"][..],
    ] {
        let out = run(&[args, &["-o", "junit"]].concat());
        out.assert_no_panic();
        assert_eq!(out.code, 2, "{args:?}: {out:#?}");
        assert!(out.stdout.is_empty(), "{args:?}: {out:#?}");
        assert!(
            out.stderr
                .contains("-o junit is only for `volmnt node check`"),
            "{args:?}: {}",
            out.stderr
        );
        // Refused before any work: no kubeconfig was looked for, nothing was read.
        assert!(
            !out.stderr.contains("kubeconfig"),
            "{args:?}: {}",
            out.stderr
        );
    }
}

/// Issue 10, evidence worth reading: the text follows the terminal's width (COLUMNS), except
/// `$` lines, which stay whole so they can be pasted.
#[test]
fn text_is_wrapped_to_the_width_and_commands_stay_whole() {
    let narrow = run_cmd(
        cmd()
            .args(["doctor", "pod", "--example", "nfs"])
            .env("COLUMNS", "60"),
        None,
    );
    assert_eq!(narrow.code, 1, "{}", narrow.stderr);
    let long: Vec<&str> = narrow
        .stdout
        .lines()
        .filter(|l| !l.trim_start().starts_with("$ ") && l.chars().count() > 60)
        // A single word wider than the terminal (a path) stays whole.
        .filter(|l| l.split_whitespace().nth(1).is_some() || !l.starts_with(' '))
        .collect();
    // The verdict line is one line by design (`head -1` is the verdict): everything else wraps.
    assert!(
        long.iter().all(|l| l.starts_with("STUCK ")),
        "lines wider than 60: {long:#?}"
    );
    let pasted: Vec<&str> = narrow
        .stdout
        .lines()
        .map(str::trim_start)
        .filter(|l| l.starts_with("$ "))
        .collect();
    assert!(
        pasted.contains(&"$ sudo yum install -y nfs-utils"),
        "{pasted:?}"
    );
    let wide = run_cmd(
        cmd()
            .args(["doctor", "pod", "--example", "nfs"])
            .env("COLUMNS", "140"),
        None,
    );
    assert!(
        wide.stdout.lines().count() < narrow.stdout.lines().count(),
        "a wider terminal gives fewer lines"
    );
}

/// Issue 10: how volmnt got there (the filesystem family, from where) is shown under -v only.
#[test]
fn reasoning_lines_only_under_verbose() {
    let plain = run(&["doctor", "pod", "--example", "nfs"]);
    assert!(!plain.stdout.contains("Reasoning"), "{}", plain.stdout);
    let verbose = run(&["doctor", "pod", "--example", "nfs", "-v"]);
    assert!(verbose.stdout.contains("Reasoning"), "{}", verbose.stdout);
    assert!(
        verbose.stdout.contains("filesystem family"),
        "{}",
        verbose.stdout
    );
}

/// Issue 10: alternatives fit the volume type: nothing about iSCSI or LUNs for an NFS or an
/// RBD volume.
#[test]
fn alternatives_fit_the_volume_type() {
    for example in ["nfs", "rbd"] {
        let out = run(&["doctor", "pod", "--example", example, "-o", "json"]);
        let r: Value = out.json();
        for f in r["findings"].as_array().unwrap() {
            let text = f.to_string().to_lowercase();
            for word in ["iscsi", " lun", "iqn."] {
                assert!(
                    !text.contains(word),
                    "{example}: finding {} mentions {word:?}",
                    f["cause"]
                );
            }
        }
    }
}

/// Issue 10: an attach timeout caused by a Multi-Attach is folded under it, not ranked as a
/// rival cause.
#[test]
fn consequences_are_folded_under_their_cause() {
    let dir = TempDir::new("fold");
    let events = dir.path().join("events.json");
    let ev = |name: &str, reason: &str, message: &str| {
        serde_json::json!({
            "apiVersion": "v1", "kind": "Event",
            "metadata": {"name": name, "namespace": "shop"},
            "involvedObject": {"kind": "Pod", "name": "web-1", "namespace": "shop"},
            "reason": reason, "message": message, "type": "Warning", "count": 4,
            "firstTimestamp": "2026-11-21T10:00:00Z", "lastTimestamp": "2026-11-21T10:08:00Z",
            "source": {"component": "attachdetach-controller"},
        })
    };
    let list = serde_json::json!({"apiVersion": "v1", "kind": "EventList", "items": [
        ev("a", "FailedAttachVolume", "Multi-Attach error for volume \"pvc-1\" Volume is already exclusively attached to one node and can't be attached to another"),
        ev("b", "FailedMount", "Unable to attach or mount volumes: unmounted volumes=[data], unattached volumes=[data]: timed out waiting for the condition"),
        ev("c", "FailedAttachVolume", "AttachVolume.Attach failed for volume \"pvc-1\" : rpc error: code = DeadlineExceeded desc = context deadline exceeded, timed out"),
    ]});
    std::fs::write(&events, list.to_string()).unwrap();
    let out = run(&[
        "doctor",
        "pod",
        "--from-file",
        events.to_str().unwrap(),
        "-o",
        "json",
    ]);
    let r: Value = out.json();
    let findings = r["findings"].as_array().unwrap();
    assert_eq!(findings[0]["cause"], "multi_attach", "{}", out.stdout);
    assert!(
        findings
            .iter()
            .all(|f| f["cause"] != "mount_timeout" && f["cause"] != "attach_timeout"),
        "the timeout is not a rival: {}",
        out.stdout
    );
    // The attach timeout is a consequence, named under the Multi-Attach; kubelet's generic
    // timeout is a symptom, kept as its evidence.
    let folded = findings[0]["consequences"].to_string();
    assert!(folded.contains("attach_timeout"), "{}", out.stdout);
    assert!(
        findings[0]["evidence"]
            .to_string()
            .contains("symptom, event FailedMount"),
        "{}",
        out.stdout
    );
}
