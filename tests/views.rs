//! One pod, one verdict, whichever view asks: `doctor pod`, `doctor namespace`, the Event
//! `volmnt watch` writes, and a case saved with `--save` then replayed with `--from-file`
//! build the same Case from the same facts and run the same engine. Every fixture cluster goes
//! through all four views; the top cause and its confidence must agree. Its text report, when
//! it names a single cause, fits 40 lines at 100 columns; and nothing the fleet summary or an
//! Event shows first changes anything.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::support::fake_api::{start_in_background, FakeApi, FakeCluster, Options};
use crate::util::{cmd, run_cmd, Out, TempDir};

/// Every fixture cluster with the pod it is about.
const CLUSTERS: &[(&str, &str, &str)] = &[
    (
        "nfs-client-missing",
        "ops-test",
        "node1-nfs-test-547c4d7678-j6kwv",
    ),
    ("rbd-lock-old-node", "default", "index-api-3362878852-9tm9j"),
    (
        "rbd-volumes-in-use",
        "default",
        "index-api-3362878852-9tm9j",
    ),
    ("multi-attach", "observability", "grafana-nf429wl859-pjhzd"),
    (
        "multi-attach-stale",
        "observability",
        "grafana-nvhwslnz8m-v2smp",
    ),
    (
        "multi-attach-node-status",
        "observability",
        "grafana-nvhwslnz8m-v2smp",
    ),
    ("pvc-pending", "shop", "db-0"),
    (
        "configmap-missing",
        "monitoring",
        "loki-stack-promtail-2k9jj",
    ),
    ("csi-driver-not-registered", "default", "my-csi-app"),
    (
        "nfs-csi-driver",
        "ops-test",
        "nfs-csi-test-cm6wtn484f-88zwj",
    ),
    ("volume-not-attached", "minio", "minio-0"),
    (
        "ephemeral-volume",
        "reports",
        "report-builder-rhk8hr6n62-d2kvh",
    ),
    ("forbidden", "ops-test", "node1-nfs-test-547c4d7678-j6kwv"),
    ("healthy", "default", "nfs-busybox-rbzb24tz6g-scfkt"),
];

struct Live {
    _api: FakeApi,
    _thread: std::thread::JoinHandle<()>,
    dir: TempDir,
    kubeconfig: PathBuf,
}

impl Live {
    fn start(case: &str, ns: &str) -> Live {
        let (api, thread) = start_in_background(
            FakeCluster::fixture(case).with_probe_namespace(),
            Options::new(),
        );
        let dir = TempDir::new(&format!("views-{case}"));
        let kubeconfig = api.write_kubeconfig(dir.path(), ns);
        Live {
            _api: api,
            _thread: thread,
            dir,
            kubeconfig,
        }
    }

    fn command(&self) -> Command {
        let mut c = cmd();
        c.arg("--kubeconfig")
            .arg(&self.kubeconfig)
            .env_remove("KUBECONFIG");
        c
    }

    fn run(&self, args: &[&str]) -> Out {
        let out = run_cmd(self.command().args(args), None);
        out.assert_no_panic();
        out
    }
}

/// (top cause, confidence) of a report; ("ok", 0) when it names none.
fn verdict(report: &Value) -> (String, f64) {
    match report["findings"].as_array().and_then(|f| f.first()) {
        Some(f) => (
            f["cause"].as_str().unwrap_or("?").to_string(),
            f["confidence"].as_f64().unwrap_or(-1.0),
        ),
        None => ("ok".into(), 0.0),
    }
}

/// `volmnt watch --dry-run`: the Event it would write for `pod`, as its log line says it.
fn watch_event(live: &Live, ns: &str, pod: &str) -> Option<String> {
    let mut child: Child = live
        .command()
        .args([
            "watch",
            "-n",
            ns,
            "--min-age",
            "1s",
            "--listen",
            "127.0.0.1:0",
            "--dry-run",
        ])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start volmnt watch");
    let lines = Arc::new(Mutex::new(Vec::<String>::new()));
    let stderr = child.stderr.take().expect("stderr");
    let sink = lines.clone();
    std::thread::spawn(move || {
        for l in BufReader::new(stderr).lines().map_while(Result::ok) {
            sink.lock().unwrap().push(l);
        }
    });
    let needle = format!("{ns}/{pod}: ");
    let start = Instant::now();
    let found = loop {
        let hit = lines
            .lock()
            .unwrap()
            .iter()
            .find(|l| l.contains(&needle) && l.contains("would "))
            .cloned();
        if hit.is_some() || start.elapsed() > Duration::from_secs(15) {
            break hit;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let _ = child.kill();
    let _ = child.wait();
    found
}

/// `cause: ... (cause, confidence 0.92) ...` in an Event message → (cause, confidence).
fn from_event(line: &str) -> (String, f64) {
    let re = regex::Regex::new(r"\(([a-z_]+), confidence ([0-9.]+)\)").unwrap();
    let c = re
        .captures(line)
        .unwrap_or_else(|| panic!("no verdict in {line}"));
    (c[1].to_string(), c[2].parse().unwrap())
}

#[test]
fn every_view_gives_one_pod_one_verdict() {
    let mut disagreements = Vec::new();
    for (case, ns, pod) in CLUSTERS {
        let live = Live::start(case, ns);
        // 1. doctor pod (and --save for the replay).
        let saved = live.dir.path().join("saved");
        let out = live.run(&[
            "doctor",
            "pod",
            pod,
            "-n",
            ns,
            "-o",
            "json",
            "--save",
            saved.to_str().unwrap(),
        ]);
        let pod_view = verdict(&out.json());
        // 2. doctor namespace.
        let out = live.run(&[
            "doctor",
            "namespace",
            "-n",
            ns,
            "--min-age",
            "1s",
            "-o",
            "json",
        ]);
        let doc = out.json();
        let fleet = doc["reports"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|r| r["subject"]["name"] == *pod)
            .map(verdict)
            .unwrap_or(("ok".into(), 0.0));
        // 3. replay of the saved case, with no cluster.
        let out = run_cmd(
            cmd().args([
                "doctor",
                "pod",
                "--from-file",
                saved.to_str().unwrap(),
                "-o",
                "json",
            ]),
            None,
        );
        out.assert_no_panic();
        let replay = verdict(&out.json());
        // 4. the watch's Event (none for a pod that is not stuck).
        let watch = match watch_event(&live, ns, pod) {
            Some(line) => from_event(&line),
            None => ("ok".into(), 0.0),
        };
        for (view, v) in [
            ("namespace", &fleet),
            ("replay", &replay),
            ("watch", &watch),
        ] {
            if v != &pod_view {
                disagreements.push(format!(
                    "{case}: doctor pod says {pod_view:?}, {view} says {v:?}"
                ));
            }
        }
    }
    assert!(
        disagreements.is_empty(),
        "the views disagree:\n{}",
        disagreements.join("\n")
    );
}

#[test]
fn a_single_cause_report_fits_forty_lines_at_a_hundred_columns() {
    let mut long = Vec::new();
    let mut seen = Vec::new();
    for (case, ns, pod) in CLUSTERS {
        let live = Live::start(case, ns);
        let json = live
            .run(&["doctor", "pod", pod, "-n", ns, "-o", "json"])
            .json();
        let findings = json["findings"].as_array().map_or(0, Vec::len);
        let out = live.run(&["doctor", "pod", pod, "-n", ns, "--color", "never"]);
        // As a terminal 100 columns wide shows it: a longer line (the verdict, a command,
        // which are never wrapped) takes more than one.
        let lines: usize = out
            .stdout
            .lines()
            .map(|l| l.chars().count().div_ceil(100).max(1))
            .sum();
        seen.push(format!("{case}: {lines} lines, {findings} finding(s)"));
        // VIEWS_SHOW=<cluster> prints that report, to read it as an operator would.
        if std::env::var("VIEWS_SHOW").as_deref() == Ok(*case) {
            eprintln!("{}", out.stdout);
        }
        if findings == 1 && lines > 40 {
            long.push(format!("{case}: {lines} lines\n{}", out.stdout));
        }
    }
    eprintln!("report lengths:\n  {}", seen.join("\n  "));
    assert!(
        long.is_empty(),
        "single-cause reports over 40 lines:\n{}",
        long.join("\n\n")
    );
}

// --- The smaller defects of the on-call review, each held by a test -------------------------

fn explain_one(msg: &str) -> Value {
    let out = crate::util::run_stdin(&["explain", "-o", "json", "-"], msg.as_bytes());
    out.assert_no_panic();
    out.json()["messages"][0].clone()
}

fn commands_of(f: &Value) -> Vec<String> {
    ["confirm", "remediation"]
        .iter()
        .flat_map(|k| f[*k].as_array().cloned().unwrap_or_default())
        .filter_map(|s| s["command"].as_str().map(str::to_string))
        .collect()
}

#[test]
fn a_secret_that_lacks_the_key_is_named_with_the_key_and_described_not_called_missing() {
    let r = explain_one(
        r#"MountVolume.SetUp failed for volume "creds" : couldn't find key password in Secret shop/db-creds"#,
    );
    let f = &r["findings"][0];
    assert_eq!(f["cause"], "configmap_or_secret_missing");
    let summary = f["summary"].as_str().unwrap();
    assert!(
        summary.contains("Secret db-creds exists, but has no key password"),
        "{summary}"
    );
    assert!(
        !r.to_string().contains("<redacted>"),
        "a key's name is not a secret: {r}"
    );
    let cmds = commands_of(f);
    assert!(
        cmds.contains(&"kubectl describe secret db-creds -n shop".to_string()),
        "{cmds:?}"
    );
    // The projected form names only the key: its name stays, unredacted.
    let r = explain_one(
        r#"MountVolume.SetUp failed for volume "cfg" : configmap references non-existent config key: app.properties"#,
    );
    assert!(r.to_string().contains("app.properties"), "{r}");
    assert!(!r.to_string().contains("<redacted>"), "{r}");
}

#[test]
fn a_hostpath_hint_fits_the_type_the_pod_asked_for() {
    let dir = explain_one(
        r#"MountVolume.SetUp failed for volume "data" : hostPath type check failed: /srv/data is not a directory"#,
    );
    let text = dir["findings"][0]["remediation"].to_string();
    assert!(text.contains("DirectoryOrCreate"), "{text}");
    let file = explain_one(
        r#"MountVolume.SetUp failed for volume "cfg" : hostPath type check failed: /etc/app.conf is not a file"#,
    );
    let text = file["findings"][0]["remediation"].to_string();
    assert!(
        text.contains("FileOrCreate") && !text.contains("DirectoryOrCreate"),
        "{text}"
    );
    let sock = explain_one(
        r#"MountVolume.SetUp failed for volume "sock" : hostPath type check failed: /run/containerd/containerd.sock is not a socket"#,
    );
    let text = sock["findings"][0]["remediation"].to_string();
    assert!(!text.contains("OrCreate`"), "{text}");
    assert!(text.contains("daemon that listens on it"), "{text}");
}

#[test]
fn node_check_says_why_each_type_cannot_be_mounted() {
    let out = crate::util::run(&[
        "node",
        "check",
        "--local",
        "--root",
        fixture!("hosts/centos-7-no-nfs"),
    ]);
    out.assert_no_panic();
    assert!(
        out.stdout
            .contains("cannot mount nfs: helper missing: mount.nfs"),
        "{}",
        out.stdout
    );
    let json = crate::util::run(&[
        "node",
        "check",
        "--local",
        "--root",
        fixture!("hosts/centos-7-no-nfs"),
        "-o",
        "json",
    ])
    .json();
    let caps = json.to_string();
    assert!(
        caps.contains("\"why_not\":[\"helper missing: mount.nfs\"]"),
        "{caps}"
    );
}

#[test]
fn help_names_only_files_that_ship() {
    // What the release archive holds (scripts/release-archives.sh) besides the binaries.
    let script = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/scripts/release-archives.sh"
    ))
    .unwrap();
    let re = regex::Regex::new(
        r"\b((?:deploy|schema|charts|man|completions)/[\w.-]+(?:/[\w.-]+)*|[\w.-]+\.md)\b",
    )
    .unwrap();
    for cmd in [
        vec!["--help"],
        vec!["doctor", "pod", "--help"],
        vec!["doctor", "namespace", "--help"],
        vec!["node", "check", "--help"],
        vec!["node", "gc", "--help"],
        vec!["rbd", "status", "--help"],
        vec!["rbd", "unlock", "--help"],
        vec!["watch", "--help"],
        vec!["explain", "--help"],
    ] {
        let out = crate::util::run(&cmd);
        for m in re.find_iter(&out.stdout) {
            let path = m.as_str();
            let dir = path.split('/').next().unwrap();
            let ships = match dir {
                "README.md" => true,
                "deploy" | "man" | "completions" | "schema" | "charts" => {
                    script.lines().any(|l| l.contains("cp ") && l.contains(dir))
                }
                _ => false,
            };
            assert!(
                ships
                    && (path.ends_with('/')
                        || std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/"))
                            .join(path.trim_end_matches('/'))
                            .exists()
                        || path == "deploy/"),
                "`volmnt {}` names {path}, which the release archive does not ship",
                cmd.join(" ")
            );
        }
    }
}

#[test]
fn the_release_profile_ships_without_debug_info_and_profiling_keeps_it() {
    let cargo: toml_like::Doc = toml_like::parse(include_str!("../Cargo.toml"));
    assert_eq!(cargo.get("profile.release", "debug"), Some("false"));
    assert_eq!(cargo.get("profile.release", "strip"), Some("true"));
    assert_eq!(
        cargo.get("profile.profiling", "inherits"),
        Some("\"release\"")
    );
    assert_eq!(cargo.get("profile.profiling", "debug"), Some("1"));
}

/// Just enough of TOML to read `[section] key = value` lines.
mod toml_like {
    pub struct Doc(Vec<(String, String, String)>);
    pub fn parse(text: &str) -> Doc {
        let mut section = String::new();
        let mut out = Vec::new();
        for l in text.lines().map(str::trim) {
            if l.starts_with('#') || l.is_empty() {
                continue;
            }
            if let Some(s) = l.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
                section = s.to_string();
            } else if let Some((k, v)) = l.split_once('=') {
                out.push((section.clone(), k.trim().to_string(), v.trim().to_string()));
            }
        }
        Doc(out)
    }
    impl Doc {
        pub fn get(&self, section: &str, key: &str) -> Option<&str> {
            self.0
                .iter()
                .find(|(s, k, _)| s == section && k == key)
                .map(|(_, _, v)| v.as_str())
        }
    }
}

#[test]
fn probe_node_gives_up_at_once_on_a_node_that_is_not_ready() {
    let live = Live::start("nfs-client-missing", "ops-test");
    let mut node = live
        ._api
        .object("Node", None, "node1")
        .expect("node1 in the fixture");
    for c in node["status"]["conditions"].as_array_mut().unwrap() {
        if c["type"] == "Ready" {
            c["status"] = "Unknown".into();
            c["reason"] = "NodeStatusUnknown".into();
            c["message"] = "Kubelet stopped posting node status.".into();
        }
    }
    live._api.apply(node);
    let start = Instant::now();
    let out = live.run(&[
        "doctor",
        "pod",
        "node1-nfs-test-547c4d7678-j6kwv",
        "-n",
        "ops-test",
        "--probe-node",
        "-o",
        "json",
    ]);
    assert!(
        start.elapsed() < Duration::from_secs(10),
        "{:?}",
        start.elapsed()
    );
    assert!(
        out.stderr
            .contains("node node1 is not Ready (Ready=Unknown: NodeStatusUnknown"),
        "{}",
        out.stderr
    );
    let r = out.json();
    assert!(r["notes"].to_string().contains("is not Ready"), "{r}");
    // No probe pod was created to probe it (a SelfSubjectAccessReview is no pod).
    assert!(live
        ._api
        .requests()
        .iter()
        .all(|q| !(q.verb == "create" && q.path.ends_with("/pods"))));
}

#[test]
fn an_old_unbound_claim_event_is_history_beside_a_newer_mount_failure() {
    // `kubectl get events -o wide` as pasted: a 12-minute-old FailedScheduling about an unbound
    // claim, and a mount failure seen 13 times since, the last 2 minutes ago.
    let table = "LAST SEEN   TYPE      REASON             OBJECT      SUBOBJECT   SOURCE              MESSAGE                                                                                                   FIRST SEEN   COUNT   NAME\n\
12m         Warning   FailedScheduling   pod/web-0               default-scheduler   0/3 nodes are available: pod has unbound immediate PersistentVolumeClaims. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.   12m   1    web-0.17a1\n\
2m          Warning   FailedMount        pod/web-0               kubelet, node-2     MountVolume.SetUp failed for volume \"pvc-1f\" : mount failed: exit status 32 Mounting command: mount Mounting arguments: -t nfs 10.0.0.5:/exports/web /var/lib/kubelet/pods/1/volumes/kubernetes.io~nfs/pvc-1f Output: mount.nfs: access denied by server while mounting 10.0.0.5:/exports/web   10m   13   web-0.17a2\n";
    let out = crate::util::run_stdin(
        &["doctor", "pod", "--from-file", "-", "-o", "json"],
        table.as_bytes(),
    );
    out.assert_no_panic();
    let r = out.json();
    assert_eq!(r["findings"][0]["cause"], "nfs_access_denied", "{r:#}");
    assert!(
        !r["findings"].to_string().contains("pvc_unbound_or_missing"),
        "{r:#}"
    );
    let history = r["ruled_out"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["cause"] == "pvc_unbound_or_missing")
        .expect("the old event is kept as history");
    assert!(
        history["because"]
            .as_str()
            .unwrap()
            .starts_with("history: 10m later"),
        "{history}"
    );
}

/// The first step shown anywhere but the full report (a fleet group, a watch Event) only reads:
/// for every corpus message and every fixture cluster.
#[test]
fn the_first_step_anywhere_only_reads() {
    let check = |label: &str, r: &Value, problems: &mut Vec<String>| {
        for f in r["findings"].as_array().into_iter().flatten() {
            let first = ["confirm", "remediation"]
                .iter()
                .flat_map(|k| f[*k].as_array().cloned().unwrap_or_default())
                .find(|s| {
                    s["kind"] == "check"
                        && s["command"].is_string()
                        && s["os_family"].is_null()
                        && s["needs_confirmation"] == false
                });
            if let Some(s) = first {
                let c = s["command"].as_str().unwrap();
                if let Some(why) = crate::advice::writes(c) {
                    problems.push(format!("{label} {}: first step {why}: {c}", f["cause"]));
                }
            }
        }
    };
    let mut problems = Vec::new();
    for text in [
        include_str!("../fixtures/corpus/real-mount-failures.yaml"),
        include_str!("../fixtures/corpus/world.yaml"),
    ] {
        let recs: Vec<serde_yaml::Value> = serde_yaml::from_str(text).unwrap();
        for rec in recs {
            let msg = rec["text"].as_str().unwrap_or_default();
            let r = volmnt::diagnose::explain("m", msg, &volmnt::diagnose::Options::default());
            let v = serde_json::to_value(&r).unwrap();
            check(rec["id"].as_str().unwrap_or("?"), &v, &mut problems);
        }
    }
    for (case, ns, _) in CLUSTERS {
        let live = Live::start(case, ns);
        let doc = live
            .run(&[
                "doctor",
                "namespace",
                "-n",
                ns,
                "--min-age",
                "1s",
                "-o",
                "json",
            ])
            .json();
        for r in doc["reports"].as_array().into_iter().flatten() {
            check(case, r, &mut problems);
        }
        // VIEWS_SHOW=<cluster> prints the fleet summary too, to read it as an operator would.
        if std::env::var("VIEWS_SHOW").as_deref() == Ok(*case) {
            let out = live.run(&[
                "doctor",
                "namespace",
                "-n",
                ns,
                "--min-age",
                "1s",
                "--color",
                "never",
            ]);
            eprintln!("{}", out.stdout);
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
