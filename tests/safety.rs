//! Advice an operator can follow without a second read, checked over every fixture cluster
//! (each of its pods, stuck or running) and every corpus message:
//! - every `$` line can be pasted: no `<placeholder>`, no `>`, never "the node";
//! - no step acts on what a running pod uses: the running pod itself, the VolumeAttachment of
//!   its volume on its node, the RBD lock or watch its node holds;
//! - every destructive step is marked, says what it destroys, and comes after a read-only check
//!   and a backup step.
//!
//! The checks below read the fixture objects themselves (not volmnt's own safety module), so a
//! bug there cannot hide here.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;
use volmnt::diagnose::{explain, Options};

use crate::util::{read, run, top};

/// Objects of a fixture cluster.
fn objects(case: &str) -> Vec<Value> {
    let path = format!(
        "{}/fixtures/clusters/{case}/cluster.yaml",
        env!("CARGO_MANIFEST_DIR")
    );
    serde_yaml::Deserializer::from_str(&read(&path))
        .filter_map(|d| {
            let v: serde_yaml::Value = serde::Deserialize::deserialize(d).ok()?;
            serde_json::to_value(v).ok()
        })
        .filter(|v| v.is_object())
        .collect()
}

fn clusters() -> Vec<String> {
    let mut out: Vec<String> =
        std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/clusters"))
            .expect("fixtures/clusters")
            .filter_map(|e| e.ok())
            .filter(|e| e.path().is_dir())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
    out.sort();
    out
}

/// What the fixture says is in use by running pods.
#[derive(Default, Debug)]
struct InUse {
    /// (namespace, name)
    pods: BTreeSet<(String, String)>,
    /// VolumeAttachments attaching a PV to a node where a running pod uses it.
    attachments: BTreeSet<String>,
    /// Node addresses (and names) where a running pod uses an RBD image.
    rbd_hosts: BTreeSet<String>,
}

fn running(p: &Value) -> bool {
    p["status"]["phase"] == "Running"
}

fn in_use(objs: &[Value]) -> InUse {
    let mut u = InUse::default();
    fn of_kind<'a>(objs: &'a [Value], k: &'static str) -> impl Iterator<Item = &'a Value> {
        objs.iter().filter(move |o| o["kind"] == k)
    }
    let by_kind = |k: &'static str| of_kind(objs, k);
    // claim (ns/name) → PV
    let pv_of: BTreeMap<(String, String), String> = by_kind("PersistentVolumeClaim")
        .filter_map(|c| {
            Some((
                (
                    c["metadata"]["namespace"].as_str()?.to_string(),
                    c["metadata"]["name"].as_str()?.to_string(),
                ),
                c["spec"]["volumeName"].as_str()?.to_string(),
            ))
        })
        .collect();
    let rbd_pvs: BTreeSet<String> = by_kind("PersistentVolume")
        .filter(|p| {
            p["spec"]["rbd"].is_object()
                || p["spec"]["csi"]["volumeAttributes"]["imageName"].is_string()
        })
        .filter_map(|p| p["metadata"]["name"].as_str().map(str::to_string))
        .collect();
    let mut pv_on_node: BTreeSet<(String, String)> = BTreeSet::new();
    for p in by_kind("Pod").filter(|p| running(p)) {
        let ns = p["metadata"]["namespace"]
            .as_str()
            .unwrap_or("default")
            .to_string();
        let name = p["metadata"]["name"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        let node = p["spec"]["nodeName"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        u.pods.insert((ns.clone(), name));
        for v in p["spec"]["volumes"].as_array().into_iter().flatten() {
            if v["rbd"].is_object() {
                u.rbd_hosts.insert(node.clone());
            }
            let Some(claim) = v["persistentVolumeClaim"]["claimName"].as_str() else {
                continue;
            };
            if let Some(pv) = pv_of.get(&(ns.clone(), claim.to_string())) {
                pv_on_node.insert((pv.clone(), node.clone()));
                if rbd_pvs.contains(pv) {
                    u.rbd_hosts.insert(node.clone());
                }
            }
        }
    }
    // A node's addresses stand for it too (RBD clients are known by address).
    for n in by_kind("Node") {
        let name = n["metadata"]["name"].as_str().unwrap_or_default();
        if u.rbd_hosts.contains(name) {
            for a in n["status"]["addresses"].as_array().into_iter().flatten() {
                if let Some(addr) = a["address"].as_str() {
                    u.rbd_hosts.insert(addr.to_string());
                }
            }
        }
    }
    for va in by_kind("VolumeAttachment") {
        let pv = va["spec"]["source"]["persistentVolumeName"]
            .as_str()
            .unwrap_or_default();
        let node = va["spec"]["nodeName"].as_str().unwrap_or_default();
        if pv_on_node.contains(&(pv.to_string(), node.to_string())) {
            u.attachments.insert(
                va["metadata"]["name"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string(),
            );
        }
    }
    u
}

/// `10.47.136.60:0/1864102866` → `10.47.136.60`.
fn host(addr: &str) -> String {
    let a = addr.trim_start_matches("v2:").trim_start_matches("v1:");
    a.split('/')
        .next()
        .and_then(|h| {
            h.rsplit_once(':')
                .map(|(h, _)| h.to_string())
                .or(Some(h.to_string()))
        })
        .unwrap_or_default()
}

/// Check one report (a doctor report or one explain message) against the rules above.
fn check(report: &Value, use_: &InUse, label: &str) {
    for f in report["findings"].as_array().into_iter().flatten() {
        let cause = f["cause"].as_str().unwrap_or("?");
        let mut checked = false;
        let mut backed_up = false;
        for list in ["confirm", "remediation"] {
            for s in f[list].as_array().into_iter().flatten() {
                let kind = s["kind"].as_str().unwrap_or("?");
                let cmd = s["command"].as_str();
                if let Some(c) = cmd {
                    // No `<placeholder>`, and no redirection that writes a file: only stderr
                    // to /dev/null and bash's /dev/tcp connect (a port check) are allowed.
                    let rest = c
                        .replace("2>/dev/null", "")
                        .replace("> /dev/tcp/", "")
                        .replace("</dev/null", "");
                    assert!(
                        !rest.contains('<') && !rest.contains('>'),
                        "{label} {cause}: a placeholder or redirection in a $ line: {c}"
                    );
                    assert!(
                        !c.contains("the node"),
                        "{label} {cause}: \"the node\" in a $ line: {c}"
                    );
                    // Whatever a step says it targets: never delete a running pod.
                    let words: Vec<&str> = c.split_whitespace().collect();
                    if let Some(i) = words
                        .windows(3)
                        .position(|w| w[0] == "delete" && w[1] == "pod")
                    {
                        let name = words[i + 2];
                        let ns = words
                            .windows(2)
                            .find(|w| w[0] == "-n")
                            .map(|w| w[1])
                            .unwrap_or("default");
                        assert!(
                            !use_.pods.contains(&(ns.to_string(), name.to_string())),
                            "{label} {cause}: deletes running pod {ns}/{name}: {c}"
                        );
                    }
                    if let Some(i) = words.iter().position(|w| *w == "volumeattachment") {
                        if words.get(i.wrapping_sub(1)) == Some(&"delete") {
                            let va = words.get(i + 1).copied().unwrap_or_default();
                            assert!(
                                !use_.attachments.contains(va),
                                "{label} {cause}: deletes VolumeAttachment {va} under a running pod"
                            );
                        }
                    }
                }
                for t in s["targets"].as_array().into_iter().flatten() {
                    match t["kind"].as_str() {
                        Some("pod") => assert!(
                            !use_.pods.contains(&(
                                t["namespace"].as_str().unwrap_or_default().to_string(),
                                t["name"].as_str().unwrap_or_default().to_string()
                            )),
                            "{label} {cause}: targets a running pod: {t}"
                        ),
                        Some("volume_attachment") => assert!(
                            !use_.attachments.contains(t["name"].as_str().unwrap_or_default()),
                            "{label} {cause}: targets a VolumeAttachment a running pod needs: {t}"
                        ),
                        Some("ceph_client") => assert!(
                            !use_.rbd_hosts.contains(&host(t["address"].as_str().unwrap_or_default())),
                            "{label} {cause}: blocklists the client of a node with a running user: {t}"
                        ),
                        _ => {}
                    }
                }
                match kind {
                    "check" if cmd.is_some() => checked = true,
                    "backup" if cmd.is_some() => backed_up = true,
                    "destructive" => {
                        assert_eq!(s["destructive"], true, "{label} {cause}: {s}");
                        assert!(
                            s["destroys"].as_str().is_some_and(|d| d.len() > 10),
                            "{label} {cause}: a destructive step must say what it destroys: {s}"
                        );
                        assert!(
                            checked,
                            "{label} {cause}: destructive step before any read-only check: {s}"
                        );
                        assert!(
                            backed_up,
                            "{label} {cause}: destructive step before any backup: {s}"
                        );
                        assert!(
                            cmd.is_none() || !s["targets"].as_array().is_none_or(|t| t.is_empty()),
                            "{label} {cause}: a destructive command names what it acts on: {s}"
                        );
                    }
                    _ => {}
                }
                // Independently of volmnt's own label: a command that can destroy data or cut a
                // client off is marked destructive, whatever the step says it is.
                if let Some(c) = cmd {
                    if let Some(m) = destructive_command(c) {
                        assert!(
                            kind == "destructive",
                            "{label} {cause}: `{m}` can destroy data or cut a client off, but the step is `{kind}`: {c}"
                        );
                    }
                }
                // The flag and the kind agree.
                assert_eq!(
                    s["destructive"] == true,
                    kind == "destructive",
                    "{label} {cause}: {s}"
                );
            }
        }
    }
}

/// The part of a command that can destroy data or cut a client off (issue 10's list: a fsck
/// that repairs, mkfs, wipefs, lock removal, blocklisting, deleting a VolumeAttachment,
/// force-detach; and their relatives), judged from the command alone.
fn destructive_command(c: &str) -> Option<String> {
    static RE: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(concat!(
            r"\bmkfs(\.\w+)?\b|\bmke2fs\b|\bwipefs\b|\bdd\s+if=|",
            // e2fsck/fsck repair with -y, -p or -a; -f only forces a check and -n never writes.
            r"\b(e2)?fsck(\.\w+)?\s+(-\w*[ypa]\w*)|",
            r"\brbd\s+lock\s+(rm|remove)\b|\brbd\s+(rm|remove)\b|\brbd\s+unmap\s+.*-o\s+force|",
            r"\bosd\s+(blocklist|blacklist)\s+add\b|",
            r"\bkubectl\s+delete\s+(volumeattachments?|va|pv|persistentvolumes?|pvc|persistentvolumeclaims?)\b|",
            r"\bdetach-volume\b.*--force|--force-detach"
        ))
        .expect("the destructive-command regex compiles")
    });
    if let Some(m) = RE.find(c) {
        return Some(m.as_str().to_string());
    }
    // Without their read-only flag these repair or act: xfs_repair (-n: no modify) and
    // `volmnt rbd unlock` (--dry-run: plan only).
    for part in c.split([';', '|', '&']) {
        let words: Vec<&str> = part.split_whitespace().collect();
        if words.contains(&"xfs_repair") && !words.contains(&"-n") {
            return Some(part.trim().to_string());
        }
        if words.windows(3).any(|w| w == ["volmnt", "rbd", "unlock"])
            && !words.contains(&"--dry-run")
        {
            return Some(part.trim().to_string());
        }
    }
    None
}

#[test]
fn the_destructive_command_check_knows_what_it_checks() {
    for c in [
        "sudo mkfs.ext4 /dev/disk/by-id/x",
        "sudo fsck -y /dev/rbd/kube/img",
        "sudo e2fsck -fy /dev/sdb",
        "sudo xfs_repair /dev/sdb",
        "rbd lock remove kube/img id client.1",
        "ceph osd blocklist add 10.0.0.1:0/1",
        "ceph osd blacklist add 10.0.0.1:0/1",
        "kubectl delete volumeattachment csi-123",
        "sudo wipefs -a /dev/sdb",
        "volmnt rbd unlock kube/img --yes",
    ] {
        assert!(destructive_command(c).is_some(), "not caught: {c}");
    }
    for c in [
        "sudo fsck -n /dev/sdb",
        "sudo xfs_repair -n /dev/sdb",
        "sudo blkid -p /dev/sdb",
        "rbd lock ls kube/img",
        "ceph osd blocklist ls",
        "volmnt rbd unlock kube/img --dry-run",
        "kubectl get volumeattachment",
        "sudo dumpe2fs -h /dev/sdb",
    ] {
        assert!(
            destructive_command(c).is_none(),
            "caught a read-only command: {c}"
        );
    }
}

/// The `$` lines of a text report.
fn dollar_lines(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|l| l.trim_start().strip_prefix("$ ").map(str::to_string))
        .collect()
}

fn check_text(text: &str, label: &str) {
    for c in dollar_lines(text) {
        assert!(
            !c.contains('<') && !c.contains('>') && !c.contains("the node"),
            "{label}: $ line cannot be pasted: {c}"
        );
    }
}

#[test]
fn every_pod_of_every_fixture_cluster_gets_only_safe_pasteable_steps() {
    let mut reports = 0;
    for case in clusters() {
        let objs = objects(&case);
        let use_ = in_use(&objs);
        let file = format!(
            "{}/fixtures/clusters/{case}/cluster.yaml",
            env!("CARGO_MANIFEST_DIR")
        );
        for p in objs.iter().filter(|o| o["kind"] == "Pod") {
            let name = p["metadata"]["name"].as_str().unwrap();
            let ns = p["metadata"]["namespace"].as_str().unwrap_or("default");
            let mut args = vec!["doctor", "pod", name, "-n", ns, "-f", &file];
            // With the lock listing too, the RBD case offers (or withholds) the unlock.
            let locks = crate::util::fixture_path("seed/rbd-lock-list.txt");
            if case == "rbd-lock-old-node" {
                args.extend(["-f", &locks]);
            }
            let out = run(&[args.as_slice(), &["-o", "json"]].concat());
            out.assert_no_panic();
            let label = format!("{case} {ns}/{name}");
            assert!(out.code <= 3, "{label}: {}", out.stderr);
            let r = out.json();
            check(&r, &use_, &label);
            if running(p) {
                assert_eq!(out.code, 0, "{label}: a running pod is OK:\n{}", out.stdout);
                assert_eq!(r["status"], "ok", "{label}");
            }
            let text = run(&args);
            check_text(&text.stdout, &label);
            reports += 1;
        }
    }
    assert!(reports >= 14, "only {reports} pods checked");
}

#[test]
fn every_corpus_message_gets_only_safe_pasteable_steps() {
    #[derive(serde::Deserialize)]
    struct Rec {
        id: String,
        text: String,
    }
    let mut n = 0;
    for file in ["corpus/real-mount-failures.yaml", "corpus/world.yaml"] {
        let path = crate::util::fixture_path(file);
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let recs: Vec<Rec> = serde_yaml::from_str(&text).expect("corpus parses");
        for r in recs {
            let report = explain(&r.id, &r.text, &Options::default());
            let v = serde_json::to_value(&report).unwrap();
            crate::util::assert_valid(&v);
            check(&v, &InUse::default(), &r.id);
            // explain never assumes a namespace the message does not name.
            for f in &report.findings {
                for s in f.confirm.iter().chain(&f.remediation) {
                    if let Some(c) = &s.command {
                        // Every `-n NS` / `--namespace NS` of kubectl or volmnt names a
                        // namespace the message has.
                        for part in c.split(['|', ';', '&']) {
                            let words: Vec<&str> = part.split_whitespace().collect();
                            if !words.iter().any(|w| *w == "kubectl" || *w == "volmnt") {
                                continue;
                            }
                            for w in words.windows(2) {
                                if w[0] == "-n" || w[0] == "--namespace" {
                                    assert!(
                                        r.text.contains(w[1]),
                                        "{}: a namespace the message does not name ({}): {c}",
                                        r.id,
                                        w[1]
                                    );
                                }
                            }
                        }
                    }
                }
            }
            n += 1;
        }
    }
    assert!(n >= 400, "{n} corpus records");
}

#[test]
fn a_running_pod_that_blocks_another_is_ok_and_names_the_pod_it_blocks() {
    let file = crate::util::fixture_path("clusters/multi-attach/cluster.yaml");
    let out = run(&[
        "doctor",
        "pod",
        "grafana-qkvgh884rw-lwjzz",
        "-n",
        "observability",
        "-f",
        &file,
        "-o",
        "json",
    ]);
    assert_eq!(out.code, 0, "{}", out.stdout);
    let r = out.json();
    assert_eq!(r["status"], "ok");
    assert!(r["findings"].as_array().unwrap().is_empty());
    let blocks = r["blocks"].to_string();
    assert!(
        blocks.contains("grafana-nf429wl859-pjhzd on node-b"),
        "{blocks}"
    );
    assert!(r["verdict"]
        .as_str()
        .unwrap()
        .contains("grafana-nf429wl859-pjhzd"));
}

#[test]
fn the_stuck_pod_of_a_live_writer_is_told_to_stop_the_writer_not_to_detach_it() {
    let file = crate::util::fixture_path("clusters/multi-attach/cluster.yaml");
    let out = run(&[
        "doctor",
        "pod",
        "grafana-nf429wl859-pjhzd",
        "-n",
        "observability",
        "-f",
        &file,
        "-o",
        "json",
    ]);
    assert_eq!(out.code, 1);
    let r = out.json();
    let f = top(&r);
    assert_eq!(f["cause"], "multi_attach");
    let fix = f["remediation"].to_string();
    assert!(
        fix.contains("grafana-qkvgh884rw-lwjzz on node-a still uses the volume"),
        "{fix}"
    );
    assert!(!fix.contains("delete volumeattachment"), "{fix}");
    let withheld = f["withheld"].to_string();
    assert!(
        withheld.contains("detaches the disk under a live writer"),
        "{withheld}"
    );
    // The same fixture without the running pod: the stale attachment may go, marked, after a
    // check and a snapshot with the real EBS id.
    let stale = crate::util::fixture_path("clusters/multi-attach-stale/cluster.yaml");
    let out = run(&[
        "doctor",
        "pod",
        "grafana-nvhwslnz8m-v2smp",
        "-n",
        "observability",
        "-f",
        &stale,
        "-o",
        "json",
    ]);
    let r = out.json();
    let steps = top(&r)["remediation"].as_array().unwrap().clone();
    let kinds: Vec<&str> = steps.iter().map(|s| s["kind"].as_str().unwrap()).collect();
    let d = kinds
        .iter()
        .position(|k| *k == "destructive")
        .expect("the VolumeAttachment deletion");
    let b = kinds.iter().position(|k| *k == "backup").expect("a backup");
    assert!(b < d, "{kinds:?}");
    assert_eq!(
        steps[b]["command"],
        "aws ec2 create-snapshot --volume-id vol-0a56de8f17f470ed4 --description volmnt-before-repair-pvc-5e6fe624-dbc8-414b-bced-2fd46fe885ca"
    );
    assert!(steps[d]["command"]
        .as_str()
        .unwrap()
        .starts_with("kubectl delete volumeattachment csi-61e4c152"));
}

#[test]
fn a_lock_held_by_a_live_writer_is_never_removed() {
    let file = crate::util::fixture_path("clusters/rbd-lock-old-node/cluster.yaml");
    let locks = crate::util::fixture_path("seed/rbd-lock-list.txt");
    let out = run(&[
        "doctor",
        "pod",
        "index-api-3362878852-9tm9j",
        "-n",
        "default",
        "-f",
        &file,
        "-f",
        &locks,
        "-o",
        "json",
    ]);
    let r = out.json();
    let f = top(&r);
    assert_eq!(f["cause"], "rbd_lock_held");
    let cmds = crate::util::remediation_commands(f);
    assert!(
        !cmds
            .iter()
            .any(|c| c.contains("lock remove") || c.contains("blocklist add")),
        "{cmds:#?}"
    );
    assert!(
        f["remediation"]
            .to_string()
            .contains("index-api-2837157263-x8k2q (Running) on 10.47.136.60"),
        "{f:#}"
    );
    // With only the seed's events, log and lock listing (no objects: the old pod is not known
    // to run), the removal is offered, marked, after the check and a snapshot.
    let out = run(&["doctor", "pod", "--example", "rbd", "-o", "json"]);
    let r = out.json();
    let steps = top(&r)["remediation"].as_array().unwrap().clone();
    let unlock = steps
        .iter()
        .position(|s| {
            s["command"]
                == "rbd lock remove mioss/index-api-image kubelet_lock_magic_node1 client.24128"
        })
        .expect("the seed's fix");
    assert_eq!(steps[unlock]["destructive"], true);
    assert_eq!(
        steps[unlock - 1]["command"],
        "rbd snap create mioss/index-api-image@volmnt-before-unlock"
    );
}

#[test]
fn a_bare_stuck_pod_gets_no_delete_step_but_how_to_recreate_it_safely() {
    // my-csi-app has no ownerReferences: deleting it would lose it.
    let file = crate::util::fixture_path("clusters/csi-driver-not-registered/cluster.yaml");
    let out = run(&[
        "doctor",
        "pod",
        "my-csi-app",
        "-n",
        "default",
        "-f",
        &file,
        "-o",
        "json",
    ]);
    let r = out.json();
    let f = top(&r);
    let cmds = crate::util::remediation_commands(f);
    assert!(
        !cmds.iter().any(|c| c.contains("kubectl delete pod")),
        "{cmds:#?}"
    );
    assert!(
        cmds.contains(
            &"kubectl get pod my-csi-app -n default -o yaml | tee my-csi-app.pod.yaml".to_string()
        ),
        "{cmds:#?}"
    );
    let save = cmds
        .iter()
        .position(|c| c.contains("tee my-csi-app.pod.yaml"))
        .unwrap();
    assert_eq!(
        cmds[save + 1],
        "kubectl replace --force -f my-csi-app.pod.yaml"
    );
    assert!(f["remediation"]
        .to_string()
        .contains("Kubelet retries by itself"));
}

#[test]
fn under_kubectl_the_suggested_volmnt_commands_say_kubectl_volmnt() {
    let dir = crate::util::TempDir::new("plugin-name");
    let link = dir.path().join("kubectl-volmnt");
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_volmnt"), &link).unwrap();
    let out = crate::util::run_cmd(
        std::process::Command::new(&link).args(["doctor", "pod", "--example", "rbd", "-o", "json"]),
        None,
    );
    let r = out.json();
    let all = r.to_string();
    assert!(
        all.contains("kubectl volmnt rbd unlock mioss/index-api-image --dry-run"),
        "{all}"
    );
    assert!(!all.contains("\"volmnt rbd"), "{all}");
}

#[test]
fn names_read_from_a_message_never_bring_shell_syntax_into_a_command() {
    for msg in [
        r#"MountVolume.SetUp failed for volume "cfg" : configmap "x;touch /tmp/pwned" not found"#,
        r#"MountVolume.SetUp failed for volume "cfg" : configmap "$(id)" not found"#,
        "mount.nfs: access denied by server while mounting <<IP>>:/export",
        "rbd: image kube/`reboot` is locked by other nodes",
        r#"MountVolume.SetUp failed for volume "v" : hostPath type check failed: /data|sh is not a directory"#,
    ] {
        let r = explain("m", msg, &Options::default());
        for f in &r.findings {
            for s in f.confirm.iter().chain(&f.remediation) {
                if let Some(c) = &s.command {
                    for bad in ["touch", "$(id)", "<<IP>>", "`", "|sh"] {
                        assert!(!c.contains(bad), "{msg}\n→ {c}");
                    }
                }
            }
        }
    }
}
