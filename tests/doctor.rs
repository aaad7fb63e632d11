//! `volmnt doctor pod` on the two real incidents: what an operator saved, in; the finding and the
//! commands that fixed it, out.
//!
//! 2020, NFS: a Deployment pinned to node1 (CentOS 7) stays in ContainerCreating; `mount -t nfs
//! 10.20.172.211:/nfs` exits 32 because node1 has no nfs-utils. Fixed by `yum install nfs-utils`
//! and deleting the pod.
//!
//! 2017, Ceph RBD: the pod moved to 10.46.181.146, but the old node 10.47.136.60 still holds the
//! image's exclusive lock. Fixed by `rbd lock remove mioss/index-api-image
//! kubelet_lock_magic_node1 client.24128`.

use serde_json::Value;

use crate::util::{remediation_commands, run, run_stdin, steps, top};

const NFS_DESCRIBE: &str = fixture!("seed/nfs-describe-pod.txt");
const NFS_DESCRIBE_FLAT: &str = fixture!("seed/nfs-describe-pod-flattened.txt");
const NFS_OBJECTS: &str = fixture!("synthetic/objects/nfs-incident.yaml");
const NFS_EVENTS_V1_JSON: &str = fixture!("synthetic/objects/nfs-events-core-v1.json");
const NFS_EVENTS_K8S_IO_YAML: &str = fixture!("synthetic/objects/nfs-events-events-v1.yaml");
const RBD_EVENTS: &str = fixture!("seed/rbd-describe-events-k8s15.txt");
const RBD_KUBELET_LOG: &str = fixture!("seed/rbd-kubelet.log");
const RBD_LOCKS: &str = fixture!("seed/rbd-lock-list.txt");

const NFS_POD: &str = "node1-nfs-test-547c4d7678-j6kwv";
const NFS_DELETE: &str = "kubectl delete pod node1-nfs-test-547c4d7678-j6kwv -n ops-test";
const RBD_UNLOCK: &str =
    "rbd lock remove mioss/index-api-image kubelet_lock_magic_node1 client.24128";

/// `volmnt doctor pod ARGS -o json`, expecting "a problem was found" (exit 1).
fn doctor_json(args: &[&str]) -> Value {
    let mut all = vec!["doctor", "pod"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["-o", "json"]);
    let out = run(&all);
    out.assert_no_panic();
    assert_eq!(out.code, 1, "a stuck pod is a problem (exit 1):\n{out:#?}");
    out.json()
}

/// What every input of the NFS incident must lead to.
fn assert_nfs_client_missing(report: &Value) {
    let f = top(report);
    assert_eq!(f["cause"], "nfs_client_missing", "{report:#}");
    let confidence = f["confidence"].as_f64().expect("confidence is a number");
    assert!(confidence >= 0.85, "confidence {confidence} < 0.85");
    let evidence = f["evidence"].to_string();
    assert!(
        evidence.contains("mount -t nfs 10.20.172.211:/nfs"),
        "the evidence should quote kubelet's mount command: {evidence}"
    );
    assert_eq!(report["status"], "stuck");
}

/// The last fix is to delete the stuck pod, named exactly.
fn assert_last_step_deletes_the_pod(report: &Value) {
    let cmds = remediation_commands(top(report));
    assert_eq!(
        cmds.last().map(String::as_str),
        Some(NFS_DELETE),
        "{cmds:#?}"
    );
}

/// The install commands among a finding's fixes.
fn install_commands(f: &Value) -> Vec<String> {
    remediation_commands(f)
        .into_iter()
        .filter(|c| c.contains(" install "))
        .collect()
}

// ---------------------------------------------------------------------------------------------
// NFS, 2020

#[test]
fn nfs_describe_names_the_missing_nfs_client_and_deletes_the_pod_last() {
    let r = doctor_json(&["-f", NFS_DESCRIBE]);
    assert_nfs_client_missing(&r);
    assert_last_step_deletes_the_pod(&r);
    assert_eq!(r["subject"]["name"], NFS_POD);
    assert_eq!(r["subject"]["namespace"], "ops-test");
    assert_eq!(r["subject"]["node"], "node1");
}

#[test]
fn nfs_example_gives_the_fix_that_worked_in_2020() {
    // The bundled case holds node1's Node object (CentOS 7): yum, then delete the pod.
    let r = doctor_json(&["--example", "nfs"]);
    assert_nfs_client_missing(&r);
    assert_eq!(
        remediation_commands(top(&r)),
        ["sudo yum install -y nfs-utils", NFS_DELETE]
    );
}

#[test]
fn nfs_describe_flattened_onto_one_line_gives_the_same_finding() {
    let r = doctor_json(&["-f", NFS_DESCRIBE_FLAT]);
    assert_nfs_client_missing(&r);
    assert_last_step_deletes_the_pod(&r);
}

#[test]
fn nfs_on_centos7_gives_exactly_the_yum_command() {
    let r = doctor_json(&["-f", NFS_DESCRIBE, "--node-os", "CentOS Linux 7 (Core)"]);
    assert_nfs_client_missing(&r);
    assert_eq!(r["node_os"]["family"], "rhel");
    assert_eq!(
        install_commands(top(&r)),
        ["sudo yum install -y nfs-utils"],
        "CentOS 7 has yum, not dnf, and only one install command applies"
    );
    assert_last_step_deletes_the_pod(&r);
}

#[test]
fn nfs_on_ubuntu_gives_apt_get_nfs_common() {
    let r = doctor_json(&["-f", NFS_DESCRIBE, "--node-os", "Ubuntu 22.04.4 LTS"]);
    assert_nfs_client_missing(&r);
    let installs = install_commands(top(&r));
    assert_eq!(installs.len(), 1, "{installs:#?}");
    assert!(
        installs[0].contains("apt-get install -y nfs-common"),
        "{installs:#?}"
    );
}

#[test]
fn nfs_on_talos_says_the_client_ships_in_its_image_and_bottlerocket_that_nothing_installs() {
    // Talos ships the NFS client (in its kubelet image): nothing to install, look elsewhere.
    let r = doctor_json(&["-f", NFS_DESCRIBE, "--node-os", "Talos (v1.7.5)"]);
    assert_nfs_client_missing(&r);
    let f = top(&r);
    assert_eq!(
        install_commands(f),
        Vec::<String>::new(),
        "nothing is installed on an image-based OS"
    );
    assert!(
        steps(f, "remediation").iter().any(|s| s["text"]
            .as_str()
            .unwrap_or("")
            .contains("ships the NFS client")),
        "a step should say Talos ships the client:\n{f:#}"
    );
    // Bottlerocket has no NFS client on the host and no package manager.
    let r = doctor_json(&[
        "-f",
        NFS_DESCRIBE,
        "--node-os",
        "Bottlerocket OS 1.20.3 (aws-k8s-1.29)",
    ]);
    let f = top(&r);
    assert_eq!(install_commands(f), Vec::<String>::new());
    assert!(
        steps(f, "remediation").iter().any(|s| s["text"]
            .as_str()
            .unwrap_or("")
            .contains("cannot be installed on it by hand")),
        "a step should say the client cannot be installed by hand:\n{f:#}"
    );
    assert_last_step_deletes_the_pod(&r);
}

#[test]
fn nfs_node_object_in_the_dump_decides_the_install_command_without_node_os() {
    // The dump holds Node node1 with osImage "CentOS Linux 7 (Core)".
    let r = doctor_json(&["-f", NFS_DESCRIBE, "-f", NFS_OBJECTS]);
    assert_nfs_client_missing(&r);
    assert_eq!(r["node_os"]["os_image"], "CentOS Linux 7 (Core)");
    assert!(
        r["node_os"]["source"]
            .as_str()
            .is_some_and(|s| s.contains("Node node1")),
        "the OS should be credited to the Node object: {:#}",
        r["node_os"]
    );
    assert_eq!(install_commands(top(&r)), ["sudo yum install -y nfs-utils"]);
    assert!(
        !r["notes"].to_string().contains("OS is not known"),
        "the OS is known from the Node: {:#}",
        r["notes"]
    );
    assert_last_step_deletes_the_pod(&r);
}

#[test]
fn nfs_without_the_node_os_offers_every_family_and_says_how_to_find_it() {
    let r = doctor_json(&["-f", NFS_DESCRIBE]);
    let cmds = remediation_commands(top(&r));
    for want in [
        "kubectl get node node1 -o jsonpath='{.status.nodeInfo.osImage}'",
        "sudo yum install -y nfs-utils",
        "sudo dnf install -y nfs-utils",
    ] {
        assert!(
            cmds.iter().any(|c| c == want),
            "missing {want:?} in {cmds:#?}"
        );
    }
    assert!(cmds
        .iter()
        .any(|c| c.contains("apt-get install -y nfs-common")));
}

#[test]
fn nfs_events_saved_as_core_v1_json_give_the_same_cause() {
    let r = doctor_json(&["-f", NFS_EVENTS_V1_JSON]);
    assert_nfs_client_missing(&r);
    assert_eq!(r["subject"]["node"], "node1");
}

#[test]
fn nfs_events_saved_as_events_k8s_io_v1_yaml_give_the_same_cause() {
    let r = doctor_json(&["-f", NFS_EVENTS_K8S_IO_YAML]);
    assert_nfs_client_missing(&r);
    assert_eq!(r["subject"]["node"], "node1");
}

#[test]
fn nfs_describe_piped_on_stdin() {
    let describe = std::fs::read(NFS_DESCRIBE).unwrap();
    let out = run_stdin(
        &["doctor", "pod", "--from-file", "-", "-o", "json"],
        &describe,
    );
    out.assert_no_panic();
    assert_eq!(out.code, 1, "{out:#?}");
    let r = out.json();
    assert_nfs_client_missing(&r);
    assert_last_step_deletes_the_pod(&r);
    assert!(
        r["inputs"][0]
            .as_str()
            .is_some_and(|i| i.starts_with("stdin:")),
        "{:#}",
        r["inputs"]
    );
}

/// Events alone do not say whether a controller recreates the pod: the last step checks its
/// owner (pod and namespace named exactly), and no delete command is given.
fn assert_last_step_checks_the_owner(report: &Value) {
    let cmds = remediation_commands(top(report));
    assert_eq!(
        cmds.last().map(String::as_str),
        Some(
            "kubectl get pod node1-nfs-test-547c4d7678-j6kwv -n ops-test -o jsonpath='{.metadata.ownerReferences[*].kind}'"
        ),
        "{cmds:#?}"
    );
    assert!(
        !cmds.iter().any(|c| c.contains("delete pod")),
        "a pod whose owner is not known is never deleted: {cmds:#?}"
    );
}

#[test]
fn nfs_events_with_pod_and_namespace_on_the_command_line_check_the_owner_before_any_delete() {
    let r = doctor_json(&[NFS_POD, "-n", "ops-test", "-f", NFS_EVENTS_V1_JSON]);
    assert_nfs_client_missing(&r);
    assert_last_step_checks_the_owner(&r);
}

#[test]
fn nfs_events_alone_name_the_pod_and_namespace_of_the_owner_check() {
    // Both events have involvedObject {kind: Pod, name: node1-nfs-test-..., namespace: ops-test}:
    // no placeholder, and never a guessed `-n default` the events contradict.
    for f in [NFS_EVENTS_V1_JSON, NFS_EVENTS_K8S_IO_YAML] {
        let r = doctor_json(&["-f", f]);
        let cmds = remediation_commands(top(&r));
        assert!(
            !cmds.iter().any(|c| c.contains("-n default")),
            "{f}: the events are in ops-test: {cmds:#?}"
        );
        assert_last_step_checks_the_owner(&r);
    }
}

// ---------------------------------------------------------------------------------------------
// Ceph RBD, 2017

fn assert_rbd_lock_held(r: &Value) {
    let f = top(r);
    assert_eq!(f["cause"], "rbd_lock_held", "{r:#}");
    assert!(
        f["evidence"].to_string().contains("10.47.136.60"),
        "the evidence should name the old node holding the lock: {:#}",
        f["evidence"]
    );
    let unlock: Vec<&Value> = steps(f, "remediation")
        .iter()
        .filter(|s| s["command"] == RBD_UNLOCK)
        .collect();
    assert_eq!(unlock.len(), 1, "exactly one `{RBD_UNLOCK}` step:\n{f:#}");
    assert_eq!(
        unlock[0]["needs_confirmation"], true,
        "removing a lock can corrupt the filesystem if the holder is alive: {:#}",
        unlock[0]
    );
    assert!(
        steps(f, "confirm")
            .iter()
            .any(|s| s["command"] == "rbd lock ls mioss/index-api-image"),
        "confirm with `rbd lock ls` first:\n{f:#}"
    );
}

#[test]
fn rbd_events_kubelet_log_and_lock_list_name_the_held_lock() {
    let r = doctor_json(&["-f", RBD_EVENTS, "-f", RBD_KUBELET_LOG, "-f", RBD_LOCKS]);
    assert_rbd_lock_held(&r);
    assert_eq!(r["subject"]["node"], "10.46.181.146");
}

#[test]
fn rbd_example_is_the_same_case_as_the_saved_files() {
    let example = doctor_json(&["--example", "rbd"]);
    assert_rbd_lock_held(&example);
    let files = doctor_json(&["-f", RBD_EVENTS, "-f", RBD_KUBELET_LOG, "-f", RBD_LOCKS]);
    assert_eq!(
        example["findings"], files["findings"],
        "--example rbd should diagnose exactly what the files give"
    );
}

#[test]
fn rbd_text_report_leads_with_stuck_and_the_cause() {
    let out = run(&[
        "doctor",
        "pod",
        "-f",
        RBD_EVENTS,
        "-f",
        RBD_KUBELET_LOG,
        "-f",
        RBD_LOCKS,
    ]);
    out.assert_no_panic();
    assert_eq!(out.code, 1);
    let first = out.stdout.lines().next().unwrap_or("");
    assert!(first.starts_with("STUCK"), "first line: {first:?}");
    assert!(first.contains("rbd_lock_held"), "first line: {first:?}");
    assert!(
        out.stdout.contains(&format!("$ {RBD_UNLOCK}")),
        "the text report shows the command to run:\n{}",
        out.stdout
    );
}

#[test]
fn rbd_lock_list_alone_is_less_certain_than_lock_list_events_and_log_together() {
    // A lock is normal while its pod runs; the failure messages are what make it the cause.
    let alone = doctor_json(&["-f", RBD_LOCKS]);
    let all = doctor_json(&["-f", RBD_EVENTS, "-f", RBD_KUBELET_LOG, "-f", RBD_LOCKS]);
    assert_eq!(top(&alone)["cause"], "rbd_lock_held");
    let (a, b) = (
        top(&alone)["confidence"].as_f64().unwrap(),
        top(&all)["confidence"].as_f64().unwrap(),
    );
    assert!(
        a < b,
        "lock list alone {a} should be less certain than all three inputs {b}"
    );
}
