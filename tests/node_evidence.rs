//! The node's facts from every source into the same `NodeFacts` (issue 18): the transcripts
//! operators paste (the tune cases' own files, and this project's captures in fixtures/node),
//! the probe through a pod (with and without `--probe-kernel-log`), and a saved case replayed.

use std::path::{Path, PathBuf};

use volmnt::collect::offline;
use volmnt::model::{Case, ModuleState, NodeFacts};

use crate::support::fake_api::{start_in_background, ExecNode, FakeCluster, FakeKubelet, Options};
use crate::util::{cmd, run, run_cmd, TempDir};

fn case_dir(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/cases")
        .join(name)
}

/// What `doctor pod --from-file` makes of these files, before any diagnosis.
fn read_files(files: &[PathBuf]) -> Case {
    let mut case = Case::default();
    for f in files {
        let (sources, skipped) =
            offline::read_inputs_lenient(&f.to_string_lossy(), 64 << 20, &mut std::io::empty())
                .unwrap();
        assert!(skipped.is_empty(), "{skipped:?}");
        for s in &sources {
            let _ = offline::add_source(&mut case, s);
        }
    }
    case
}

fn facts_of(case: &str, file: &str) -> NodeFacts {
    read_files(&[case_dir(case).join(file)])
        .node_facts
        .unwrap_or_else(|| panic!("{case}/{file}: no node facts"))
}

/// Every node transcript the tune cases hold is read into the facts it states, and says where
/// it came from (`file NAME: COMMAND`).
#[test]
fn the_tune_cases_node_transcripts_become_facts() {
    let f = facts_of("ceph-csi-966", "uname.txt");
    assert_eq!(f.kernel.as_deref(), Some("3.10.0-957.el7.x86_64"));
    assert!(
        f.provenance["kernel"].ends_with("uname.txt: uname -r"),
        "{:?}",
        f.provenance
    );
    let f = facts_of("ceph-csi-966", "dmesg.txt");
    assert_eq!(f.kernel_log.len(), 4);
    assert!(f.kernel_log[0]
        .contains("XFS (rbd11): Superblock has unknown read-only compatible features"));
    let f = facts_of("flatcar-1226", "os-release.txt");
    assert_eq!(f.os.id.as_deref(), Some("flatcar"));
    let f = facts_of("proxmox-csi-plugin-350", "os-release.txt");
    assert_eq!(f.os.pretty_name.as_deref(), Some("Ubuntu 24.04.2 LTS"));
    let f = facts_of("juicefs-csi-driver-1444", "os.txt");
    assert_eq!(f.os.pretty_name.as_deref(), Some("Talos (v1.10.5)"));
    let f = facts_of("rook-1677", "modprobe.txt");
    assert_eq!(f.modules.get("rbd"), Some(&ModuleState::Missing));
    assert_eq!(f.kernel.as_deref(), Some("3.10.107-pine64"));
    let f = facts_of("rook-13739", "lsmod.txt");
    assert_eq!(f.modules.get("rbd"), Some(&ModuleState::Loaded));
    assert_eq!(f.modules.get("nbd"), Some(&ModuleState::Loaded));
    let f = facts_of("openebs-1121", "modprobe.txt");
    assert_eq!(f.modules.get("iscsi_tcp"), Some(&ModuleState::Missing));
    assert_eq!(
        f.modules.get("scsi_transport_iscsi"),
        Some(&ModuleState::Loaded)
    );
    assert_eq!(f.modules_loadable, Some(false));
    let f = facts_of("datashim-130", "kubelet-args.txt");
    let k = f.kubelet.unwrap();
    assert_eq!(k.flavour.as_deref(), Some("microk8s"));
    assert_eq!(
        f.kubelet_root.as_deref(),
        Some("/var/snap/microk8s/common/var/lib/kubelet")
    );
    let f = facts_of(
        "secrets-store-csi-driver-provider-azure-101",
        "kubelet-args.txt",
    );
    let k = f.kubelet.unwrap();
    assert_eq!(
        (k.flavour.as_deref(), k.containerized),
        (Some("rke"), Some(true))
    );
    assert_eq!(k.root_dir.as_deref(), Some("/opt/rke/var/lib/kubelet"));
    let f = facts_of("democratic-csi-charts-1", "docker-inspect-kubelet.txt");
    let k = f.kubelet.unwrap();
    assert_eq!(k.containerized, Some(true));
    assert!(k.container_binds.contains(
        &"/var/lib/kubelet/volumeplugins -> /var/lib/kubelet/volumeplugins (shared)".to_string()
    ));
    let f = facts_of("kubevirt-8582", "kubelet-root-dir.txt");
    assert_eq!(f.kubelet_root.as_deref(), Some("/data/kubelet/pods"));
    let f = facts_of("kubernetes-33447", "ls-mount-nfs.txt");
    assert_eq!(f.helper_state("mount.nfs"), Some(false));
    let f = facts_of("glusterfs-kubernetes-4", "mount-glusterfs.txt");
    assert_eq!(f.helper_state("mount.glusterfs"), Some(false));
    let f = facts_of("aks-5772", "ls-helper.txt");
    assert_eq!(f.helper_state("mount.aznfs"), Some(false));
    let f = facts_of("kubernetes-volume-drivers-14", "which-jq.txt");
    assert_eq!(f.helper_state("jq"), Some(false));
    let f = facts_of("longhorn-2319", "initiatorname.txt");
    assert_eq!(f.iscsi.unwrap().initiator_file_present, Some(false));
    let f = facts_of("k3s-selinux-9", "rpm-selinux.txt");
    assert_eq!(
        f.packages
            .get("libselinux-utils")
            .cloned()
            .flatten()
            .as_deref(),
        Some("2.9-2.1.el8")
    );
    let f = facts_of("k3s-selinux-9", "audit.log");
    assert!(f.kernel_log[0].contains("avc:  denied"));
    let f = facts_of("okd-30", "device-names.txt");
    assert!(f.blkid.iter().any(|b| b.device == "/dev/vdb"));
}

/// The probe through a pod: without the opt-in the ring buffer is not read and the report says
/// so; with `--probe-kernel-log` the pod gets CAP_SYSLOG (and only it), and both the
/// announcement and the report name it. The node's facts go into `--save`, and the saved case
/// replays to the same verdict.
#[test]
fn probe_kernel_log_opt_in_and_save_replays_the_node_facts() {
    let host = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/hosts/centos-7-no-nfs");
    let dir = TempDir::new("node-evidence-live");
    for opt_in in [false, true] {
        let opts = Options {
            kubelet: Some(FakeKubelet::default().with("node1", ExecNode::new(&host))),
            ..Options::new()
        };
        let (api, _thread) = start_in_background(
            FakeCluster::fixture("nfs-client-missing").with_probe_namespace(),
            opts,
        );
        let kc = api.write_kubeconfig(dir.path(), "ops-test");
        let save = dir.path().join(format!("saved-{opt_in}"));
        let mut args = vec![
            "doctor",
            "pod",
            "node1-nfs-test-547c4d7678-j6kwv",
            "-n",
            "ops-test",
            "--probe-node",
            "--probe-timeout",
            "30s",
            "-o",
            "json",
        ];
        if opt_in {
            args.push("--probe-kernel-log");
        }
        let save_s = save.to_string_lossy().to_string();
        args.extend(["--save", &save_s]);
        let out = run_cmd(
            cmd()
                .args(&args)
                .arg("--kubeconfig")
                .arg(&kc)
                .env_remove("KUBECONFIG"),
            None,
        );
        out.assert_no_panic();
        assert_eq!(out.code, 1, "{out:#?}");
        let live = out.json();
        let announced = out
            .stderr
            .lines()
            .find(|l| l.contains("creating 1 probe pod"))
            .unwrap();
        assert_eq!(announced.contains("CAP_SYSLOG"), opt_in, "{announced}");
        let inputs = live["inputs"].to_string();
        assert!(
            inputs.contains(if opt_in {
                "with CAP_SYSLOG"
            } else {
                "without CAP_SYSLOG"
            }),
            "{inputs}"
        );
        // What the probe could not read is said (the fake kubelet runs it on a file tree, so
        // there is no live kernel log to read at all).
        assert!(
            live["unavailable"].to_string().contains("kernel_log:"),
            "{}",
            live["unavailable"]
        );
        // The pod asked for: every capability dropped, SYSLOG alone added back on request.
        let pod = api
            .requests()
            .into_iter()
            .find(|q| q.verb == "create" && q.resource == "pods")
            .expect("the probe pod was created");
        let body: serde_json::Value = serde_json::from_str(&pod.body).expect("a JSON pod");
        let caps = body["spec"]["containers"][0]["securityContext"]["capabilities"].clone();
        assert_eq!(caps["drop"], serde_json::json!(["ALL"]));
        if opt_in {
            assert_eq!(caps["add"], serde_json::json!(["SYSLOG"]));
        } else {
            assert!(caps.get("add").is_none(), "{caps}");
        }
        // Replayed, the saved case gives the same verdict and the same node facts.
        let case_yaml = std::fs::read_to_string(save.join("case.yaml")).unwrap();
        assert!(case_yaml.contains("nodeFacts:"), "{case_yaml}");
        let replay = run(&[
            "doctor",
            "pod",
            "node1-nfs-test-547c4d7678-j6kwv",
            "-n",
            "ops-test",
            "--offline",
            "-f",
            &save_s,
            "-o",
            "json",
        ]);
        assert_eq!(replay.code, 1, "{replay:#?}");
        let again = replay.json();
        assert_eq!(again["verdict"], live["verdict"]);
        assert_eq!(again["findings"][0]["cause"], live["findings"][0]["cause"]);
        assert_eq!(
            again["findings"][0]["confidence"],
            live["findings"][0]["confidence"]
        );
    }
}

/// `--save` keeps NodeFacts exactly: what a probe and pasted transcripts gave comes back equal
/// from the saved files.
#[test]
fn saved_node_facts_read_back_equal() {
    let run = volmnt::collect::node::local::run(
        Some(&Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/hosts/ubuntu-22.04")),
        std::time::Duration::from_secs(30),
    )
    .unwrap();
    let mut facts = volmnt::parse::probe::parse_from(
        &String::from_utf8_lossy(&run.stdout),
        "node probe (local)",
    )
    .unwrap();
    let pasted = read_files(&[
        case_dir("ceph-csi-966").join("dmesg.txt"),
        case_dir("rook-13739").join("lsmod.txt"),
        case_dir("datashim-130").join("kubelet-args.txt"),
        Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/node/blkid.txt"),
        Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/node/multipath-ll-rhel6.txt"),
        Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/node/df-h.txt"),
        Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/node/rpcinfo-p-ltp.txt"),
    ]);
    volmnt::parse::transcripts::merge(&mut facts, pasted.node_facts.unwrap());
    assert!(!facts.kernel_log.is_empty() && !facts.blkid.is_empty() && facts.multipath.is_some());
    let case = Case {
        pod_name: Some("web-0".into()),
        namespace: Some("shop".into()),
        node_facts: Some(facts.clone()),
        ..Case::default()
    };
    let dir = TempDir::new("saved-node-facts");
    volmnt::collect::save::write(dir.path(), &case).unwrap();
    let back = read_files(&[dir.path().join("case.yaml")]);
    assert_eq!(back.node_facts.as_ref(), Some(&facts));
}

/// In a probe pod (root not `/`, live /proc) the kernel ring buffer is read only when asked
/// (`--probe-kernel-log` sets VOLMNT_DMESG=1); not asked, the facts say so before anything else
/// is read. Asked, it is read (or said unreadable: no CAP_SYSLOG under dmesg_restrict=1).
#[test]
fn the_ring_buffer_is_read_in_a_pod_only_when_asked() {
    let tree = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/hosts/debian-12");
    let probe = |dmesg: bool| {
        let mut c = std::process::Command::new("sh");
        c.arg("-s")
            .env("VOLMNT_ROOT", &tree)
            .env("VOLMNT_LIVE", "1")
            .env("VOLMNT_KERNEL_LOG", "1")
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped());
        if dmesg {
            c.env("VOLMNT_DMESG", "1");
        }
        let mut child = c.spawn().unwrap();
        use std::io::Write;
        child
            .stdin
            .take()
            .unwrap()
            .write_all(volmnt::collect::node::PROBE_SCRIPT.as_bytes())
            .unwrap();
        let out = child.wait_with_output().unwrap();
        volmnt::parse::probe::parse(&String::from_utf8_lossy(&out.stdout)).unwrap()
    };
    let f = probe(false);
    assert!(
        f.unavailable
            .iter()
            .any(|u| u.starts_with("kernel_log: the kernel ring buffer (dmesg): not asked for")),
        "{:?}",
        f.unavailable
    );
    assert!(f.dmesg_restrict.is_some());
    let f = probe(true);
    let read = f.log_sources.iter().any(|s| s == "kernel: dmesg");
    let refused = f.unavailable.iter().any(|u| {
        u.contains("no CAP_SYSLOG") || u.contains("could not read the kernel ring buffer")
    });
    assert!(read || refused, "{:?} {:?}", f.log_sources, f.unavailable);
    assert!(f
        .kernel_log
        .iter()
        .all(|l| volmnt::parse::transcripts::is_storage_kernel_line(l)));
}

/// Issue 18: a symptom nothing explains ("timed out waiting for the condition", repeated for
/// hours after the message that said why expired) names the usual causes for the kind of storage
/// failing, with the read-only check that settles each, below the symptom, and says so in the
/// verdict; a suspect gets no Fix in the text report before its check.
#[test]
fn issue_18_a_symptom_nothing_explains_names_its_suspects_with_their_checks() {
    const DESCRIBE: &str = "Name:             web-0
Namespace:        shop
Node:             node-3/10.0.0.13
Status:           Pending
Containers:
  app:
    Image:          nginx:1.27
    State:          Waiting
      Reason:       ContainerCreating
Volumes:
  data:
    Type:      NFS (an NFS mount that lasts the lifetime of a pod)
    Server:    10.0.0.50
    Path:      /exports/web
    ReadOnly:  false
Events:
  Type     Reason       Age                  From     Message
  ----     ------       ----                 ----     -------
  Warning  FailedMount  2m (x40 over 3h)     kubelet  Unable to attach or mount volumes: unmounted volumes=[data], unattached volumes=[], failed to process volumes=[]: timed out waiting for the condition
";
    let out = crate::util::run_stdin(
        &["doctor", "pod", "--from-file", "-", "-o", "json"],
        DESCRIBE.as_bytes(),
    );
    out.assert_no_panic();
    let doc = out.json();
    crate::util::assert_valid(&doc);
    assert_eq!(doc["status"], "inconclusive", "{doc:#}");
    let findings = doc["findings"].as_array().unwrap();
    assert_eq!(findings[0]["cause"], "mount_timeout", "{doc:#}");
    assert!(findings[0]["suspect"].is_null());
    let suspects: Vec<&str> = findings
        .iter()
        .filter(|f| !f["suspect"].is_null())
        .map(|f| f["cause"].as_str().unwrap())
        .collect();
    assert_eq!(
        suspects,
        [
            "nfs_server_unreachable",
            "nfs_version_unsupported",
            "nfs_statd_missing"
        ],
        "{doc:#}"
    );
    for f in findings.iter().skip(1) {
        assert!(
            f["confidence"].as_f64().unwrap() < findings[0]["confidence"].as_f64().unwrap(),
            "a suspect stays under the symptom: {f:#}"
        );
        // Each has a read-only check that can be pasted with the names the case gives.
        let check = f["confirm"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["kind"] == "check" && s["command"].is_string())
            .unwrap_or_else(|| panic!("no check for {}", f["cause"]));
        assert_eq!(check["destructive"], false);
        let c = check["command"].as_str().unwrap();
        assert!(!c.contains("SERVER") && !c.contains("<"), "{c}");
    }
    let verdict = doc["verdict"].as_str().unwrap();
    assert!(
        verdict.contains("the usual ones to check: nfs_server_unreachable, nfs_version_unsupported, nfs_statd_missing"),
        "{verdict}"
    );
    // The text report: the checks are listed, the suspects' fixes are not.
    let text = crate::util::run_stdin(&["doctor", "pod", "--from-file", "-"], DESCRIBE.as_bytes());
    let t = &text.stdout;
    assert!(t.contains("To tell them apart (cheapest first)"), "{t}");
    assert!(t.contains("timeout 10 rpcinfo -s 10.0.0.50"), "{t}");
    assert!(!t.contains("Make the server reachable from node-3"), "{t}");
}

/// Issue 18: with no kind of storage known, a bare timeout names no suspects (nothing to say
/// which are usual), and a finding that names a cause leaves no room for suspects.
#[test]
fn issue_18_suspects_only_where_the_kind_is_known_and_nothing_names_a_cause() {
    let out = crate::util::run(&[
        "explain",
        "-o",
        "json",
        "Unable to attach or mount volumes: unmounted volumes=[data], unattached volumes=[], failed to process volumes=[]: timed out waiting for the condition",
    ]);
    let d = out.json();
    let f = d["messages"][0]["findings"].as_array().unwrap();
    assert!(f.iter().all(|f| f["suspect"].is_null()), "{d:#}");
    let out = crate::util::run(&[
        "explain",
        "-o",
        "json",
        "MountVolume.SetUp failed for volume \"data\" : mount failed: exit status 32 Mounting command: mount Mounting arguments: -t nfs 10.0.0.50:/exports/web /var/lib/kubelet/pods/1/volumes/kubernetes.io~nfs/data Output: mount.nfs: access denied by server while mounting 10.0.0.50:/exports/web",
    ]);
    let d = out.json();
    let f = d["messages"][0]["findings"].as_array().unwrap();
    assert_eq!(f[0]["cause"], "nfs_access_denied", "{d:#}");
    assert!(f.iter().all(|f| f["suspect"].is_null()), "{d:#}");
}

/// Issue 18, point 3: what a ticket pastes, as it pastes it. The describe cut to its head,
/// volumes and events is still the pod's; `kubectl get pods -o wide | grep csi` rows (grep took
/// the header) are read as pods; a MicroK8s kubelet's own root dir says nothing about an in-tree
/// NFS volume, which the kubelet mounts under its root dir wherever that is (only a CSI node
/// plugin can be wrong about it), so it does not become the verdict.
#[test]
fn issue_18_a_ticket_paste_cut_and_grepped_is_read_and_weighed_right() {
    const DESCRIBE: &str = "Name:             web-0
Namespace:        shop
Node:             node-3/10.0.0.13
Status:           Pending
Volumes:
  data:
    Type:      NFS (an NFS mount that lasts the lifetime of a pod)
    Server:    10.0.0.50
    Path:      /exports/web
    ReadOnly:  false
Events:
  Type     Reason       Age                  From     Message
  ----     ------       ----                 ----     -------
  Warning  FailedMount  2m (x40 over 3h)     kubelet  MountVolume.SetUp failed for volume \"data\" : mount failed: exit status 32...
";
    const NODE: &str = "$ ps aux | grep kubelet
root      1234  2.1  1.5 2345678 123456 ?      Ssl  Nov19  55:01 /snap/microk8s/1234/kubelet --kubeconfig=/var/snap/microk8s/1234/credentials/kubelet.config --root-dir=/var/snap/microk8s/common/var/lib/kubelet
$ kubectl get pods -n kube-system -o wide | grep csi
csi-nfs-node-7xk2p   2/3   CrashLoopBackOff   25 (3m ago)   20d   10.0.0.13   node-3   <none>   <none>
csi-nfs-node-abcde   3/3   Running            0             20d   10.0.0.11   node-1   <none>   <none>
";
    let dir = crate::util::TempDir::new("ticket-paste");
    let d = dir.write("describe.txt", DESCRIBE);
    let n = dir.write("node.txt", NODE);
    let out = crate::util::run(&[
        "doctor",
        "pod",
        "--from-file",
        &d,
        "--from-file",
        &n,
        "-o",
        "json",
    ]);
    out.assert_no_panic();
    let doc = out.json();
    let inputs = doc["inputs"].to_string();
    assert!(inputs.contains("kubectl describe pod web-0"), "{inputs}");
    assert!(
        inputs.contains("kubectl get pods table (2 pod(s))"),
        "{inputs}"
    );
    assert_eq!(
        doc["subject"]["volumes"][0], "data (nfs 10.0.0.50:/exports/web)",
        "{doc:#}"
    );
    let causes: Vec<&str> = doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["cause"].as_str().unwrap())
        .collect();
    assert!(!causes.contains(&"kubelet_dir_or_propagation"), "{doc:#}");
    // The cut message says only "exit status 32": the NFS suspects, with their checks.
    assert_eq!(causes[0], "mount_failed", "{doc:#}");
    assert!(causes.contains(&"nfs_client_missing"), "{doc:#}");
}

/// Issue 18, point 3: `kubectl logs --prefix` output pasted without its prompt is a pod's log
/// (a node plugin's), read as such with its continuation lines, not refused and not taken for
/// the kubelet's journal.
#[test]
fn issue_18_a_prefixed_plugin_log_without_its_prompt_is_the_plugins() {
    const LOG: &str = "[pod/csi-nfs-node-7xk2p/nfs] E1120 10:30:00.123456       1 utils.go:111] GRPC error: rpc error: code = Internal desc = mount failed: exit status 32
[pod/csi-nfs-node-7xk2p/nfs] Mounting command: mount
[pod/csi-nfs-node-7xk2p/nfs] Mounting arguments: -t nfs 10.0.0.5:/data /var/lib/kubelet/pods/x/volumes/kubernetes.io~csi/pvc-1/mount
[pod/csi-nfs-node-7xk2p/nfs] Output: mount.nfs: access denied by server while mounting 10.0.0.5:/data
[pod/csi-nfs-node-7xk2p/liveness-probe] I1120 10:30:01.000000       1 main.go:149] calling CSI driver to discover driver name
";
    let dir = crate::util::TempDir::new("prefixed-log");
    let f = dir.write("plugin.log", LOG);
    let out = crate::util::run(&["doctor", "pod", "--from-file", &f, "-o", "json"]);
    out.assert_no_panic();
    let doc = out.json();
    assert!(
        doc["inputs"].to_string().contains("kubectl logs --prefix"),
        "{:#}",
        doc["inputs"]
    );
    let t = crate::util::top(&doc);
    assert_eq!(t["cause"], "nfs_access_denied", "{doc:#}");
    assert!(
        t["evidence"].to_string().contains("node plugin log"),
        "{doc:#}"
    );
}
