//! Inputs an operator gets wrong (or that are simply wrong): each must end in exit 2 with one
//! clear line on stderr starting with `volmnt:` (a `hint:` line may follow), nothing on stdout,
//! and never a panic.

use crate::util::{cmd, pseudo_random, read, run, run_cmd, run_stdin, TempDir};

const NFS_DESCRIBE: &str = fixture!("seed/nfs-describe-pod.txt");

/// `volmnt doctor pod -f PATH`.
fn doctor_file(path: &str) -> crate::util::Out {
    run(&["doctor", "pod", "-f", path])
}

#[test]
fn empty_file() {
    let dir = TempDir::new("empty");
    let f = dir.write("describe.txt", b"");
    doctor_file(&f).assert_input_error("empty");
}

#[test]
fn whitespace_only_file() {
    let dir = TempDir::new("whitespace");
    let f = dir.write("describe.txt", b"  \n\t\n\r\n   \n");
    doctor_file(&f).assert_input_error("empty");
}

#[test]
fn binary_garbage_with_nul_bytes() {
    let dir = TempDir::new("binary");
    let mut bytes = pseudo_random(0x5eed, 64 * 1024);
    for i in (0..bytes.len()).step_by(97) {
        bytes[i] = 0;
    }
    let f = dir.write("core.dump", &bytes);
    doctor_file(&f).assert_input_error("binary");
}

#[test]
fn binary_garbage_without_nul_bytes() {
    let dir = TempDir::new("binary-nonul");
    let bytes: Vec<u8> = pseudo_random(0xbad, 16 * 1024)
        .into_iter()
        .map(|b| b | 0x80)
        .collect();
    let f = dir.write("random.bin", &bytes);
    doctor_file(&f).assert_input_error("not UTF-8");
}

#[test]
fn latin1_text_is_refused_with_how_to_convert_it() {
    // A German kubelet's "mount failed" saved by an editor in Latin-1 (ä = 0xE4, ü = 0xFC).
    let dir = TempDir::new("latin1");
    let f = dir.write(
        "events-latin1.txt",
        b"Warning  FailedMount  1m  kubelet  Einh\xe4ngen fehlgeschlagen: Zugriff verweigert f\xfcr Volume \"data\"\n",
    );
    let out = doctor_file(&f);
    out.assert_input_error("not UTF-8");
    assert!(out.stderr.contains("iconv"), "{}", out.stderr);
}

#[test]
fn a_200_mb_file_is_refused_before_it_is_read() {
    let dir = TempDir::new("huge");
    let path = dir.path().join("kubelet.log");
    let f = std::fs::File::create(&path).unwrap();
    // Sparse: no 200 MB are written, but its size says 200 MB (the limit is 128 MiB).
    f.set_len(200 << 20).unwrap();
    drop(f);
    let out = doctor_file(path.to_str().unwrap());
    out.assert_input_error("limit");
    assert!(out.stderr.contains("200 MiB"), "{}", out.stderr);
    assert!(out.stderr.contains("--max-input-mib"), "{}", out.stderr);
}

#[test]
fn stdin_larger_than_the_limit_is_refused() {
    let mut log = Vec::with_capacity(3 << 20);
    let line = b"E0216 13:59:27.393946 1159 disk_manager.go:56] failed to attach disk\n";
    while log.len() < (3 << 20) {
        log.extend_from_slice(line);
    }
    let out = run_stdin(&["doctor", "pod", "-f", "-", "--max-input-mib", "2"], &log);
    out.assert_input_error("limit");
}

#[test]
fn describe_without_events_says_there_are_no_events() {
    // The describe of the NFS pod, cut at `Events:` (events expire after an hour).
    let describe = read(NFS_DESCRIBE);
    let cut = &describe[..describe.find("\nEvents:").expect("has an Events section")];
    let dir = TempDir::new("no-events");
    let f = dir.write("describe.txt", cut);
    doctor_file(&f).assert_input_error("events");

    let f = dir.write(
        "describe-none.txt",
        format!("{cut}\nEvents:          <none>\n"),
    );
    doctor_file(&f).assert_input_error("events");
}

#[test]
fn json_that_is_not_a_kubernetes_object() {
    // The PVC as Rancher's API shows it: no apiVersion/kind.
    doctor_file(fixture!("seed/nfs-pvc-rancher.json"))
        .assert_input_error("not a Kubernetes object");
}

#[test]
fn yaml_mapping_that_is_not_a_kubernetes_object() {
    let dir = TempDir::new("yaml-map");
    let f = dir.write(
        "values.yaml",
        "persistence:\n  enabled: true\n  storageClass: nfs-client\n  size: 10Gi\nreplicas: 2\n",
    );
    doctor_file(&f).assert_input_error("not a Kubernetes object");
}

#[test]
fn broken_node_yaml_is_refused_as_invalid_yaml() {
    // `kubectl get node -o yaml` pasted with its indentation lost and `....` for the cut part.
    // It is what volmnt reads (apiVersion/kind after a `kubectl get ... -o yaml` prompt), so the
    // operator must learn it is broken YAML, not that volmnt does not read such files.
    let out = doctor_file(fixture!("seed/node-volumes-attached.yaml"));
    out.assert_input_error("node-volumes-attached.yaml");
    assert!(out.stderr.contains("invalid YAML"), "{}", out.stderr);
    assert!(!out.stderr.contains("not recognised"), "{}", out.stderr);
}

#[test]

fn regression_parse_error_lines_count_from_the_file_start() {
    // In node-volumes-attached.yaml the YAML error (the `:` of `volumesAttached:`) is on line 5
    // of the file; volmnt says "line 4", the line after the `kubectl get nodes` prompt. In a
    // transcript with an `rbd lock list` before it, the same line is line 9 and volmnt still
    // says "line 4".
    let node = read(fixture!("seed/node-volumes-attached.yaml"));
    assert_eq!(node.lines().nth(4), Some("volumesAttached:"));
    let out = doctor_file(fixture!("seed/node-volumes-attached.yaml"));
    out.assert_input_error("line 5");

    // In a transcript whose `rbd lock list` part is read, the broken part is named and skipped
    // (issue 18), with the line counted from the file's start.
    let dir = TempDir::new("transcript-line");
    let transcript = format!("{}{node}", read(fixture!("seed/rbd-lock-list.txt")));
    assert_eq!(transcript.lines().nth(8), Some("volumesAttached:"));
    let f = dir.write("transcript.txt", transcript);
    let out = run(&["doctor", "pod", "-f", &f, "-o", "json"]);
    assert_eq!(out.code, 1, "{out:#?}");
    let notes = out.json()["notes"].to_string();
    assert!(
        notes.contains("line 9") && notes.contains("invalid YAML"),
        "{notes}"
    );
}

#[test]
fn a_directory_as_input() {
    let dir = TempDir::new("dir");
    doctor_file(dir.path().to_str().unwrap()).assert_input_error("directory");
}

#[test]
fn a_missing_file() {
    let dir = TempDir::new("missing");
    let f = dir.path().join("describe.txt");
    let f = f.to_str().unwrap();
    let out = doctor_file(f);
    out.assert_input_error("no such file");
    assert!(
        out.stderr.contains(f),
        "the error names the file:\n{}",
        out.stderr
    );
}

#[test]
fn stdin_given_twice() {
    run(&["doctor", "pod", "--from-file", "-", "--from-file", "-"]).assert_input_error("only once");
    run(&["explain", "-", "-"]).assert_input_error("only once");
}

#[test]
fn doctor_pod_with_no_input() {
    // No name and no saved output: a usage error saying what to give.
    run(&["doctor", "pod"]).assert_input_error("name the pod");
    // A name means the live cluster; with no kubeconfig anywhere that is exit 3, one line.
    let home = TempDir::new("no-kubeconfig");
    let out = run_cmd(
        cmd()
            .args(["doctor", "pod", "web-0", "-n", "shop"])
            .env("HOME", home.path())
            .env_remove("KUBECONFIG")
            .env_remove("KUBERNETES_SERVICE_HOST"),
        None,
    );
    out.assert_no_panic();
    assert_eq!(out.code, 3, "{}", out.stderr);
    assert!(out.stderr.contains("no kubeconfig found"), "{}", out.stderr);
    assert_eq!(
        out.stderr
            .lines()
            .filter(|l| l.starts_with("volmnt:"))
            .count(),
        1
    );
}

#[test]
fn stdin_that_is_empty() {
    run_stdin(&["doctor", "pod", "-f", "-"], b"").assert_input_error("empty");
    run_stdin(&["explain", "-"], b"\n\n").assert_input_error("empty");
}

#[test]
fn unknown_flag_is_a_usage_error_from_clap() {
    for args in [
        &["doctor", "pod", "--bogus"][..],
        &["explain", "--from-file", "x", "msg"][..],
        &["doctor", "pod", "--example", "nfs", "-o", "xml"][..],
        &["doctor", "pod", "--example", "nfs", "-f", "x"][..],
    ] {
        let out = run(args);
        out.assert_no_panic();
        assert_eq!(out.code, 2, "{args:?}:\n{out:#?}");
        assert!(out.stdout.is_empty(), "{args:?}:\n{out:#?}");
        assert!(
            out.stderr.starts_with("error: "),
            "{args:?}: clap's message:\n{}",
            out.stderr
        );
        assert!(
            out.stderr.contains("try '--help'"),
            "clap points at --help:\n{}",
            out.stderr
        );
    }
}

#[test]
fn explain_an_empty_message() {
    run(&["explain", ""]).assert_input_error("empty");
    run(&["explain", "   \n\t"]).assert_input_error("empty");
}

#[test]
fn printable_ascii_garbage_is_not_recognised() {
    // Random printable text without vowels, so no failure word ("fail", "error", "denied", ...)
    // can occur by chance, and without YAML/JSON punctuation.
    const ALPHABET: &[u8] = b"BCDFGHJKLMNPQRSTVWXYZbcdfghjklmnpqrstvwxyz0123456789 .,;()+=/_";
    let text: String = pseudo_random(42, 30 * 72)
        .chunks(72)
        .map(|line| {
            let mut l: String = line
                .iter()
                .map(|b| ALPHABET[*b as usize % ALPHABET.len()] as char)
                .collect();
            l.push('\n');
            l
        })
        .collect();
    let dir = TempDir::new("ascii");
    let f = dir.write("notes.txt", &text);
    doctor_file(&f).assert_input_error("not recognised");
}

#[test]
fn issue_18_one_bad_input_among_good_ones_is_named_and_skipped() {
    // The operator passed the describe and, by mistake, the Rancher JSON: the report still says
    // which one was not read and why, and the describe is diagnosed (issue 18: one file volmnt
    // does not read never refuses the rest).
    let out = run(&[
        "doctor",
        "pod",
        "-f",
        NFS_DESCRIBE,
        "-f",
        fixture!("seed/nfs-pvc-rancher.json"),
        "-o",
        "json",
    ]);
    out.assert_no_panic();
    assert_eq!(out.code, 1, "{out:#?}");
    let json = out.json();
    let notes = json["notes"].to_string();
    assert!(
        notes.contains(
            "nfs-pvc-rancher.json: skipped, not read: is JSON/YAML but not a Kubernetes object"
        ),
        "{notes}"
    );
    assert!(json["inputs"].to_string().contains("nfs-describe-pod.txt"));
    assert_eq!(json["findings"][0]["cause"], "nfs_client_missing");
}

#[test]
fn issue_18_nothing_recognised_in_any_input_is_still_an_input_error_naming_each() {
    let dir = TempDir::new("none-recognised");
    let a = dir.write("notes.txt", "BCDFG HJKLM\n");
    let b = dir.write(
        "values.yaml",
        "persistence:\n  enabled: true\nreplicas: 2\n",
    );
    let out = run(&["doctor", "pod", "-f", &a, "-f", &b]);
    out.assert_input_error("nothing in these inputs was recognised");
    assert!(
        out.stderr.contains("notes.txt: not a format volmnt reads"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr
            .contains("values.yaml: is JSON/YAML but not a Kubernetes object"),
        "{}",
        out.stderr
    );
}

#[test]
fn issue_18_an_empty_or_binary_file_among_good_ones_is_named_and_skipped() {
    let dir = TempDir::new("skip-unreadable");
    let empty = dir.write("empty.txt", b"");
    let bin = dir.write("core.dump", [0u8, 1, 2, 0, 4]);
    let out = run(&[
        "doctor",
        "pod",
        "-f",
        NFS_DESCRIBE,
        "-f",
        &empty,
        "-f",
        &bin,
        "-o",
        "json",
    ]);
    assert_eq!(out.code, 1, "{out:#?}");
    let notes = out.json()["notes"].to_string();
    assert!(
        notes.contains("empty.txt: skipped, not read: is empty"),
        "{notes}"
    );
    assert!(
        notes.contains("core.dump: skipped, not read: is binary data"),
        "{notes}"
    );
    // A file that does not exist is the command line's mistake: still an error.
    let missing = dir.path().join("nope.txt");
    run(&[
        "doctor",
        "pod",
        "-f",
        NFS_DESCRIBE,
        "-f",
        missing.to_str().unwrap(),
    ])
    .assert_input_error("no such file");
}
