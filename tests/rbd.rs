//! `volmnt rbd status|unlock` against a REAL Ceph (tests/support/ceph.rs starts a throwaway
//! single-node cluster once per run) and the fake Kubernetes API server with objects made here:
//! a Node whose InternalIP is 127.0.0.1 stands for "the node that holds it", because every
//! client these tests start (`rbd lock add`, `rbd watch`) talks from 127.0.0.1:0/nonce.
//!
//! That `rbd lock ls` text (the 2017 incident) and today's JSON parse to the same model is
//! covered by src/parse/rbd.rs (`seed_text_and_equivalent_json_agree`,
//! `capture_11_text_and_12_13_json_agree`).

use std::path::PathBuf;

use serde_json::{json, Value};

use crate::support::ceph::{self, MicroCeph};
use crate::support::fake_api::{
    start_in_background, ExecNode, FakeApi, FakeCluster, FakeKubelet, Options,
};
use crate::util::{cmd, run_cmd, Out, TempDir};

const NODE: &str = "node-a";

/// What the fake cluster holds around the image.
#[derive(Clone, Copy, PartialEq)]
enum PodThere {
    /// A Running pod on node-a uses the image's claim.
    Running,
    /// The pod that used it is gone.
    None,
}

fn node() -> Value {
    json!({
        "apiVersion": "v1", "kind": "Node",
        "metadata": {"name": NODE},
        "status": {
            "addresses": [
                {"type": "InternalIP", "address": "127.0.0.1"},
                {"type": "Hostname", "address": NODE}
            ],
            "conditions": [{"type": "Ready", "status": "True", "lastTransitionTime": "2024-01-01T00:00:00Z"}]
        }
    })
}

/// An in-tree rbd PV for `spec` (pool/image), bound to claim default/data.
fn intree_pv(spec: &str) -> Value {
    let (pool, image) = spec.split_once('/').unwrap();
    json!({
        "apiVersion": "v1", "kind": "PersistentVolume",
        "metadata": {"name": format!("pv-{image}")},
        "spec": {
            "capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"],
            "rbd": {"monitors": ["127.0.0.1:6789"], "pool": pool, "image": image, "user": "admin"},
            "claimRef": {"namespace": "default", "name": "data"}
        },
        "status": {"phase": "Bound"}
    })
}

/// A ceph-csi PV for `spec`, bound to claim default/data.
fn csi_pv(spec: &str) -> Value {
    let (pool, image) = spec.split_once('/').unwrap();
    json!({
        "apiVersion": "v1", "kind": "PersistentVolume",
        "metadata": {"name": format!("pvc-{image}")},
        "spec": {
            "capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"],
            "csi": {
                "driver": "rbd.csi.ceph.com",
                "volumeHandle": format!("0001-0009-rook-ceph-0000000000000002-{image}"),
                "volumeAttributes": {"clusterID": "rook-ceph", "pool": pool, "imageName": image}
            },
            "claimRef": {"namespace": "default", "name": "data"}
        },
        "status": {"phase": "Bound"}
    })
}

fn pvc(pv: &str) -> Value {
    json!({
        "apiVersion": "v1", "kind": "PersistentVolumeClaim",
        "metadata": {"name": "data", "namespace": "default"},
        "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}, "volumeName": pv},
        "status": {"phase": "Bound"}
    })
}

fn pod(phase: &str) -> Value {
    json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "web-0", "namespace": "default"},
        "spec": {
            "nodeName": NODE,
            "containers": [{"name": "c", "image": "nginx:1.27"}],
            "volumes": [{"name": "data", "persistentVolumeClaim": {"claimName": "data"}}]
        },
        "status": {"phase": phase}
    })
}

/// The fake cluster and a kubeconfig for it.
struct Kube {
    api: FakeApi,
    _thread: std::thread::JoinHandle<()>,
    _dir: TempDir,
    kubeconfig: PathBuf,
}

fn kube(objects: Vec<Value>) -> Kube {
    let mut c = FakeCluster::new();
    objects.into_iter().for_each(|o| c.push(o));
    let (api, thread) = start_in_background(c, Options::new());
    let dir = TempDir::new("rbd-kube");
    let kubeconfig = api.write_kubeconfig(dir.path(), "default");
    Kube {
        api,
        _thread: thread,
        _dir: dir,
        kubeconfig,
    }
}

/// The usual world: node-a (127.0.0.1), the image's PV and claim, and the pod or not.
fn world(image: &str, there: PodThere) -> Kube {
    let pv = intree_pv(image);
    let pv_name = pv["metadata"]["name"].as_str().unwrap().to_string();
    let mut objs = vec![node(), pv, pvc(&pv_name)];
    if there == PodThere::Running {
        objs.push(pod("Running"));
    }
    kube(objs)
}

/// `volmnt ARGS --ceph-conf CONF --kubeconfig K`, with nothing from the environment.
fn volmnt(c: &MicroCeph, kubeconfig: Option<&PathBuf>, args: &[&str]) -> Out {
    let mut command = cmd();
    command
        .args(args)
        .arg("--ceph-conf")
        .arg(&c.conf)
        .env_remove("KUBECONFIG")
        .env_remove("CEPH_CONF");
    match kubeconfig {
        Some(k) => {
            command.arg("--kubeconfig").arg(k);
        }
        // No kubeconfig anywhere: HOME without .kube.
        None => {
            command.env("HOME", c.dir());
        }
    }
    let out = run_cmd(&mut command, None);
    out.assert_no_panic();
    out
}

fn holders(json: &Value) -> &Vec<Value> {
    json["holders"].as_array().expect("holders")
}

#[test]
fn the_cluster_starts_in_seconds() {
    let c = ceph::shared();
    eprintln!("micro-ceph started in {:?}", c.started_in);
    assert!(c.started_in.as_secs() < 60, "{:?}", c.started_in);
    assert!(c.ceph(&["health"]).contains("HEALTH_"));
}

#[test]
fn a_lock_whose_nodes_pods_are_gone_is_stale_and_removed_only_after_confirmation() {
    let c = ceph::shared();
    let image = c.image("stale-lock");
    c.lock_add(&image, "kubelet_lock_magic_node1");
    let locks = c.locks(&image);
    let (_, locker, addr) = locks[0].clone();
    let k = world(&image, PodThere::None);
    let kc = Some(&k.kubeconfig);

    // status: stale, on node-a, no pod.
    let out = volmnt(c, kc, &["rbd", "status", &image, "-o", "json"]);
    assert_eq!(out.code, 1, "{out:#?}");
    let j = out.json();
    let h = &holders(&j)[0];
    assert_eq!(h["type"], "lock");
    assert_eq!(h["verdict"], "stale", "{j:#}");
    assert_eq!(h["node"], NODE);
    assert!(
        h["reason"]
            .as_str()
            .unwrap()
            .contains("no pod there uses the image"),
        "{h:#}"
    );
    // The alias reads the same.
    let text = volmnt(c, kc, &["rbd", "locks", &image]);
    assert!(text.stdout.contains("[STALE]"), "{}", text.stdout);
    assert!(text
        .stdout
        .contains(&format!("NEXT  volmnt rbd unlock {image} --dry-run")));

    // --dry-run: the exact command, the blocklisting said, and nothing changed.
    let blocklist_before = c.blocklist();
    let dry = volmnt(c, kc, &["rbd", "unlock", &image, "--dry-run"]);
    assert_eq!(dry.code, 0, "{dry:#?}");
    let want = format!(
        "$ rbd lock rm {image} kubelet_lock_magic_node1 {locker} -c {}",
        c.conf_str()
    );
    assert!(dry.stdout.contains(&want), "{want}\n{}", dry.stdout);
    assert!(
        dry.stdout.contains("also blocklists the locker"),
        "{}",
        dry.stdout
    );
    assert!(dry.stdout.contains("nothing was changed"), "{}", dry.stdout);
    assert_eq!(c.locks(&image), locks, "--dry-run changed the locks");
    assert_eq!(c.blocklist(), blocklist_before, "--dry-run blocklisted");

    // No terminal and no --yes: refused, nothing run.
    let out = volmnt(c, kc, &["rbd", "unlock", &image]);
    assert_eq!(out.code, 2, "{out:#?}");
    assert!(out.stderr.contains("--yes"), "{}", out.stderr);
    assert_eq!(c.locks(&image), locks);

    // Confirmed with --yes: removed, verified, and the locker blocklisted (Ceph's default).
    let out = volmnt(c, kc, &["rbd", "unlock", &image, "--yes", "-o", "json"]);
    assert_eq!(out.code, 0, "{out:#?}");
    let j = out.json();
    assert_eq!(j["result"], "executed");
    assert_eq!(j["outcomes"][0]["verified"], true, "{j:#}");
    assert!(c.locks(&image).is_empty(), "the lock is still there");
    assert!(
        c.blocklist().contains(&addr),
        "rbd lock rm blocklists the locker"
    );
}

#[test]
fn a_yes_typed_on_a_terminal_confirms_and_anything_else_does_not() {
    let c = ceph::shared();
    let image = c.image("tty");
    c.lock_add(&image, "kubelet_lock_magic_node1");
    let k = world(&image, PodThere::None);
    // script(1) gives volmnt a pseudo-terminal; what is written to its stdin is "typed".
    let typed = |answer: &str| {
        let line = format!(
            "{} rbd unlock {image} --ceph-conf {} --kubeconfig {}",
            crate::util::BIN,
            c.conf_str(),
            k.kubeconfig.display()
        );
        let mut command = std::process::Command::new("script");
        command
            .args(["-qec", &line, "/dev/null"])
            .env("NO_COLOR", "1")
            .env_remove("KUBECONFIG")
            .env_remove("CEPH_CONF");
        run_cmd(&mut command, Some(format!("{answer}\n").as_bytes()))
    };
    let out = typed("y");
    assert_eq!(out.code, 1, "{out:#?}");
    assert!(out.stdout.contains("Type yes to go on"), "{}", out.stdout);
    assert!(
        out.stdout.contains("Not confirmed: nothing was run"),
        "{}",
        out.stdout
    );
    assert_eq!(c.locks(&image).len(), 1);
    let out = typed("yes");
    assert_eq!(out.code, 0, "{out:#?}");
    assert!(out.stdout.contains("lock removed"), "{}", out.stdout);
    assert!(c.locks(&image).is_empty());
}

#[test]
fn a_lock_whose_node_runs_a_pod_using_the_image_is_refused_without_force() {
    let c = ceph::shared();
    let image = c.image("live-lock");
    c.lock_add(&image, "kubelet_lock_magic_node1");
    let locks = c.locks(&image);
    let k = world(&image, PodThere::Running);
    let kc = Some(&k.kubeconfig);

    let out = volmnt(c, kc, &["rbd", "status", &image, "-o", "json"]);
    assert_eq!(out.code, 0, "{out:#?}");
    let j = out.json();
    let h = &holders(&j)[0];
    assert_eq!(h["verdict"], "live", "{j:#}");
    assert_eq!(h["pods"][0]["name"], "web-0");
    assert_eq!(h["pods"][0]["phase"], "Running");

    let out = volmnt(c, kc, &["rbd", "unlock", &image, "--yes"]);
    assert_eq!(out.code, 1, "{out:#?}");
    assert!(out.stdout.contains("REFUSED"), "{}", out.stdout);
    assert!(
        out.stdout.contains("default/web-0 (Running)"),
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains("mounted twice"), "{}", out.stdout);
    assert_eq!(c.locks(&image), locks, "a live lock was touched");

    // --force is the only way, and the plan says so.
    let out = volmnt(c, kc, &["rbd", "unlock", &image, "--force", "--dry-run"]);
    assert!(
        out.stdout.contains("FORCED (--force) although live"),
        "{}",
        out.stdout
    );
    assert_eq!(c.locks(&image), locks);
    let out = volmnt(
        c,
        kc,
        &[
            "rbd",
            "unlock",
            &image,
            "--force",
            "--yes",
            "--no-blocklist",
        ],
    );
    assert_eq!(out.code, 0, "{out:#?}");
    assert!(
        out.stdout.contains("--rbd_blocklist_on_break_lock=false"),
        "{}",
        out.stdout
    );
    assert!(c.locks(&image).is_empty());
    assert!(
        !c.blocklist().contains(&locks[0].2),
        "--no-blocklist still blocklisted the locker"
    );
}

#[test]
fn a_holder_that_cannot_be_judged_is_refused_without_force() {
    let c = ceph::shared();
    let image = c.image("unknown");
    c.lock_add(&image, "kubelet_lock_magic_node1");
    let locks = c.locks(&image);

    // No kubeconfig at all.
    let out = volmnt(c, None, &["rbd", "status", &image, "-o", "json"]);
    assert_eq!(out.code, 3, "{out:#?}");
    let j = out.json();
    assert_eq!(holders(&j)[0]["verdict"], "unknown");
    assert!(
        holders(&j)[0]["reason"]
            .as_str()
            .unwrap()
            .contains("no kubeconfig"),
        "{j:#}"
    );
    let out = volmnt(c, None, &["rbd", "unlock", &image, "--yes"]);
    assert_eq!(out.code, 1, "{out:#?}");
    assert!(out.stdout.contains("not proven stale"), "{}", out.stdout);
    assert_eq!(c.locks(&image), locks);

    // An API server that has gone away.
    let k = world(&image, PodThere::None);
    k.api.shutdown();
    let out = volmnt(
        c,
        Some(&k.kubeconfig),
        &["rbd", "unlock", &image, "--yes", "--request-timeout", "2s"],
    );
    assert_eq!(out.code, 1, "{out:#?}");
    assert!(out.stdout.contains("REFUSED"), "{}", out.stdout);
    assert_eq!(c.locks(&image), locks);
}

#[test]
fn a_stale_watcher_is_blocklisted_and_disappears_from_rbd_status() {
    let c = ceph::shared();
    let image = c.image("watch");
    let k = world(&image, PodThere::None);
    let kc = Some(&k.kubeconfig);
    let mut w = c.watch(&image);
    // SIGKILL: the client is gone but its watch stays for osd_client_watch_timeout (30 s).
    w.kill9();
    assert_eq!(c.watchers(&image), vec![w.address.clone()]);

    let out = volmnt(c, kc, &["rbd", "status", &image, "-o", "json"]);
    let j = out.json();
    assert_eq!(holders(&j)[0]["type"], "watcher");
    assert_eq!(holders(&j)[0]["verdict"], "stale", "{j:#}");

    let dry = volmnt(c, kc, &["rbd", "unlock", &image, "--dry-run"]);
    let want = format!("$ ceph osd blocklist add {} -c {}", w.address, c.conf_str());
    assert!(dry.stdout.contains(&want), "{want}\n{}", dry.stdout);
    assert!(
        dry.stdout.contains("expires after an hour"),
        "{}",
        dry.stdout
    );
    assert_eq!(
        c.watchers(&image),
        vec![w.address.clone()],
        "--dry-run changed it"
    );
    assert!(!c.blocklist().contains(&w.address), "--dry-run blocklisted");

    let t0 = std::time::Instant::now();
    let out = volmnt(c, kc, &["rbd", "unlock", &image, "--yes"]);
    assert_eq!(out.code, 0, "{out:#?}");
    assert!(out.stdout.contains("watcher gone"), "{}", out.stdout);
    assert!(c.watchers(&image).is_empty(), "the watcher is still listed");
    assert!(c.blocklist().contains(&w.address));
    // Well within the 30 s the watch would otherwise have lingered.
    assert!(t0.elapsed().as_secs() < 20, "{:?}", t0.elapsed());
}

#[test]
fn a_live_watcher_is_refused() {
    let c = ceph::shared();
    let image = c.image("live-watch");
    let k = world(&image, PodThere::Running);
    let w = c.watch(&image);
    let out = volmnt(c, Some(&k.kubeconfig), &["rbd", "unlock", &image, "--yes"]);
    assert_eq!(out.code, 1, "{out:#?}");
    assert!(out.stdout.contains("REFUSED"), "{}", out.stdout);
    assert_eq!(c.watchers(&image), vec![w.address.clone()]);
    assert!(!c.blocklist().contains(&w.address));
}

#[test]
fn pvc_and_pod_name_the_image_through_the_pv() {
    let c = ceph::shared();
    let image = c.image("csi");
    c.lock_add(&image, "csi-lock");
    let pv = csi_pv(&image);
    let pv_name = pv["metadata"]["name"].as_str().unwrap().to_string();
    let k = kube(vec![node(), pv, pvc(&pv_name), pod("Running")]);
    for args in [["--pvc", "data"], ["--pod", "web-0"]] {
        let mut a = vec!["rbd", "status", "-n", "default", "-o", "json"];
        a.extend(args);
        let out = volmnt(c, Some(&k.kubeconfig), &a);
        assert_eq!(out.code, 0, "{out:#?}");
        let j = out.json();
        let (pool, name) = image.split_once('/').unwrap();
        assert_eq!(j["image"]["pool"], pool);
        assert_eq!(j["image"]["image"], name);
        assert_eq!(j["cluster_id"], "rook-ceph");
        assert!(
            j["found_from"].as_str().unwrap().contains(&pv_name),
            "{j:#}"
        );
        assert_eq!(holders(&j)[0]["verdict"], "live", "{j:#}");
    }
    let out = volmnt(
        c,
        Some(&k.kubeconfig),
        &["rbd", "status", "--pvc", "nosuch", "-n", "default"],
    );
    out.assert_input_error("claim default/nosuch not found");
}

#[test]
fn ceph_errors_become_clear_messages_and_exit_codes() {
    let c = ceph::shared();
    let out = volmnt(c, None, &["rbd", "status", "kube/no-such-image"]);
    out.assert_input_error("image kube/no-such-image not found");
    let out = volmnt(c, None, &["rbd", "status", "nopool/img"]);
    out.assert_input_error("pool does not exist");
    let out = volmnt(c, None, &["rbd", "status", "kube/img;rm"]);
    out.assert_input_error("not an image spec");
    // Ceph unreachable: a config naming a monitor nobody listens on.
    let dir = TempDir::new("rbd-unreachable");
    let conf = dir.write(
        "ceph.conf",
        "[global]\nmon host = 127.0.0.1:1\nauth client required = none\nclient mount timeout = 2\n",
    );
    let out = run_cmd(
        cmd().args([
            "rbd",
            "status",
            "kube/x",
            "--ceph-conf",
            &conf,
            "--ceph-timeout",
            "20s",
        ]),
        None,
    );
    assert_eq!(out.code, 3, "{out:#?}");
    assert!(out.stderr.contains("cannot reach Ceph"), "{}", out.stderr);
    // The timeout bounds a call that hangs.
    let t0 = std::time::Instant::now();
    let conf = dir.write(
        "slow.conf",
        "[global]\nmon host = 127.0.0.1:1\nauth client required = none\n",
    );
    let out = run_cmd(
        cmd().args([
            "rbd",
            "status",
            "kube/x",
            "--ceph-conf",
            &conf,
            "--ceph-timeout",
            "1s",
        ]),
        None,
    );
    assert_eq!(out.code, 3, "{out:#?}");
    assert!(out.stderr.contains("--ceph-timeout"), "{}", out.stderr);
    assert!(t0.elapsed().as_secs() < 10, "{:?}", t0.elapsed());
}

/// `--toolbox NS/POD` end to end: a Rook-like toolbox pod whose environment points at the real
/// micro-ceph (CEPH_CONF), exec'd through the fake kubelet, which runs `rbd` on this machine as
/// the toolbox would in its container. The lock read through the exec API is the real one.
#[test]
fn toolbox_reads_the_real_cluster_through_the_exec_api() {
    let c = ceph::shared();
    let image = c.image("toolbox");
    c.lock_add(&image, "kubelet_lock_magic_node1");
    let mut cluster = FakeCluster::new();
    cluster.push(node());
    cluster.push(json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "rook-ceph-tools-1", "namespace": "rook-ceph",
                     "labels": {"app": "rook-ceph-tools"},
                     "creationTimestamp": "2026-11-21T09:00:00Z"},
        "spec": {"nodeName": "tools-node", "containers": [{
            "name": "rook-ceph-tools", "image": "quay.io/ceph/ceph:v16.2.15",
            "command": ["sleep", "infinity"],
            "env": [{"name": "CEPH_CONF", "value": c.conf.to_str().unwrap()}]
        }]},
        "status": {"phase": "Running"}
    }));
    let root = TempDir::new("toolbox-root");
    let opts = Options {
        kubelet: Some(FakeKubelet::default().with("tools-node", ExecNode::new(root.path()))),
        ..Options::new()
    };
    let (api, _thread) = start_in_background(cluster, opts);
    let dir = TempDir::new("toolbox-kube");
    let kubeconfig = api.write_kubeconfig(dir.path(), "default");
    let out = run_cmd(
        cmd()
            .args([
                "rbd",
                "status",
                &image,
                "--toolbox",
                "rook-ceph/rook-ceph-tools-1",
                "-o",
                "json",
            ])
            .arg("--kubeconfig")
            .arg(&kubeconfig)
            .env_remove("CEPH_CONF"),
        None,
    );
    assert!(out.code <= 1, "{out:#?}");
    let text = out.stdout.clone();
    assert!(text.contains("kubelet_lock_magic_node1"), "{text}");
    assert!(
        text.contains("127.0.0.1:0/"),
        "the locker's real address: {text}"
    );
    let r = api.requests();
    assert!(
        r.iter()
            .any(|r| r.subresource.as_deref() == Some("exec") && r.query.contains("command=rbd")),
        "{r:#?}"
    );
}

#[test]
fn toolbox_runs_the_cli_through_the_exec_api() {
    // A toolbox pod that does not exist: the exec request is made and refused, with a message.
    let k = kube(vec![node()]);
    let out = run_cmd(
        cmd()
            .args([
                "rbd",
                "status",
                "kube/img",
                "--toolbox",
                "rook-ceph/rook-ceph-tools-1",
            ])
            .arg("--kubeconfig")
            .arg(&k.kubeconfig),
        None,
    );
    assert_eq!(out.code, 3, "{out:#?}");
    assert!(
        out.stderr
            .contains("cannot run `rbd` in the toolbox pod rook-ceph/rook-ceph-tools-1"),
        "{}",
        out.stderr
    );
    let r = k.api.requests();
    assert!(
        r.iter().any(|r| r.resource == "pods"
            && r.subresource.as_deref() == Some("exec")
            && r.query.contains("command=rbd")),
        "{r:#?}"
    );
    let out = run_cmd(
        cmd().args(["rbd", "status", "kube/img", "--toolbox", "nopod"]),
        None,
    );
    out.assert_input_error("NAMESPACE/POD");
}

#[test]
fn doctor_names_the_holder_node_and_pod_and_the_unlock_to_run() {
    let c = ceph::shared();
    let image = c.image("doctor");
    let name = image.split_once('/').unwrap().1.to_string();
    c.lock_add(&image, "kubelet_lock_magic_node1");
    let pv = intree_pv(&image);
    let pv_name = pv["metadata"]["name"].as_str().unwrap().to_string();
    // The old pod still runs on node-a (127.0.0.1, the locker's address); the new one waits on
    // node-b.
    let mut new_pod = pod("Pending");
    new_pod["metadata"]["name"] = json!("web-1");
    new_pod["spec"]["nodeName"] = json!("node-b");
    new_pod["status"]["containerStatuses"] = json!([{
        "name": "c", "image": "nginx:1.27", "imageID": "", "ready": false, "restartCount": 0,
        "state": {"waiting": {"reason": "ContainerCreating"}}
    }]);
    let mut node_b = node();
    node_b["metadata"]["name"] = json!("node-b");
    node_b["status"]["addresses"] = json!([{"type": "InternalIP", "address": "127.0.0.2"}]);
    let event = json!({
        "apiVersion": "v1", "kind": "Event",
        "metadata": {"name": "web-1.1", "namespace": "default"},
        "involvedObject": {"kind": "Pod", "name": "web-1", "namespace": "default"},
        "reason": "FailedMount", "type": "Warning", "count": 3,
        "message": format!("MountVolume.SetUp failed for volume \"{pv_name}\" : rbd: image {name} is locked by other nodes"),
        "source": {"component": "kubelet", "host": "node-b"},
        "lastTimestamp": "2026-11-21T10:08:45Z"
    });
    let k = kube(vec![
        node(),
        node_b,
        pv,
        pvc(&pv_name),
        pod("Running"),
        new_pod,
        event,
    ]);
    let out = run_cmd(
        cmd()
            .args(["doctor", "pod", "web-1", "-n", "default", "-o", "json"])
            .arg("--kubeconfig")
            .arg(&k.kubeconfig)
            .env("CEPH_CONF", &c.conf)
            .env_remove("KUBECONFIG"),
        None,
    );
    assert_eq!(out.code, 1, "{out:#?}");
    let r = out.json();
    let f = crate::util::top(&r);
    assert_eq!(f["cause"], "rbd_lock_held", "{r:#}");
    // Each holder read from Ceph is judged in the evidence: its node, the pods there, verdict.
    let ev = f["evidence"].to_string();
    assert!(ev.contains("lock kubelet_lock_magic_node1"), "{ev}");
    assert!(
        ev.contains("is on node node-a, used there by default/web-0 (Running): live"),
        "{ev}"
    );
    let cmds = crate::util::remediation_commands(f);
    // A live holder is never advised away: no `rbd lock remove` step, a step saying why.
    assert!(
        !cmds.iter().any(|c| c.contains("rbd lock remove")),
        "{cmds:?}"
    );
    assert!(
        f["remediation"]
            .to_string()
            .contains("The lock's holder is live"),
        "{f:#}"
    );
    assert!(
        cmds.contains(&format!("volmnt rbd unlock {image} --dry-run")),
        "{cmds:?}"
    );
    // The lock itself, read from Ceph, is in the evidence, and its node is named.
    assert!(ev.contains("held by client."), "{ev}");
    assert!(
        cmds.iter().any(|c| c.contains("spec.nodeName=node-a")),
        "{cmds:?}"
    );
    // doctor only reads.
    assert_eq!(c.locks(&image).len(), 1);
}

/// A cluster before Pacific says `blacklist`: its monitors refuse `osd blocklist` and librbd
/// knows only `rbd_blacklist_on_break_lock`. No Octopus can run here (Debian ships Ceph 16), so
/// a `ceph` in front of the real one answers `versions` as an Octopus cluster does (the real
/// Pacific document with Octopus's version), refuses `osd blocklist` with the monitors' real
/// refusal, and passes `osd blacklist` on as the real command, logging each call. volmnt must
/// detect the release, plan and run `ceph osd blacklist add`, and the watcher must be gone.
#[test]
fn a_cluster_before_pacific_gets_blacklist_in_the_plan_and_the_run() {
    let c = ceph::shared();
    let image = c.image("octopus-watch");
    let k = world(&image, PodThere::None);
    let kc = Some(&k.kubeconfig);
    let mut w = c.watch(&image);
    w.kill9();

    let shim = crate::util::TempDir::new("octopus-ceph");
    let real = std::process::Command::new("sh")
        .args(["-c", "command -v ceph"])
        .output()
        .expect("which ceph");
    let real = String::from_utf8_lossy(&real.stdout).trim().to_string();
    assert!(!real.is_empty(), "no ceph on PATH");
    let fixtures = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/ceph");
    let log = shim.path().join("calls.log");
    let script = format!(
        r#"#!/bin/sh
echo "$*" >> '{log}'
case "$*" in
  versions*) cat '{fixtures}/release-ceph-versions-json-octopus.out'; exit 0 ;;
  "osd blocklist"*) cat '{fixtures}/release-osd-blocklist-bad-subcommand.err' >&2; exit 22 ;;
  "osd blacklist"*) shift 2; exec '{real}' osd blocklist "$@" ;;
esac
exec '{real}' "$@"
"#,
        log = log.display()
    );
    let path = shim.path().join("ceph");
    std::fs::write(&path, script).unwrap();
    std::fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let with_shim = |args: &[&str]| {
        let mut command = cmd();
        command
            .args(args)
            .arg("--ceph-conf")
            .arg(&c.conf)
            .arg("--kubeconfig")
            .arg(&k.kubeconfig)
            .env_remove("KUBECONFIG")
            .env_remove("CEPH_CONF")
            .env(
                "PATH",
                format!(
                    "{}:{}",
                    shim.path().display(),
                    std::env::var("PATH").unwrap_or_default()
                ),
            );
        let out = run_cmd(&mut command, None);
        out.assert_no_panic();
        out
    };
    let _ = kc;

    let dry = with_shim(&["rbd", "unlock", &image, "--dry-run", "-o", "json"]);
    let j = dry.json();
    assert_eq!(j["plan"]["fence"], "blacklist", "{j:#}");
    let cmds = j["commands"].to_string();
    assert!(cmds.contains("ceph osd blacklist add"), "{cmds}");
    assert!(!cmds.contains("blocklist"), "{cmds}");

    let out = with_shim(&["rbd", "unlock", &image, "--yes"]);
    assert_eq!(out.code, 0, "{out:#?}");
    assert!(c.watchers(&image).is_empty(), "the watcher is still listed");
    assert!(c.blocklist().contains(&w.address));
    let calls = std::fs::read_to_string(&log).unwrap();
    assert!(
        calls.contains(&format!("osd blacklist add {}", w.address)),
        "{calls}"
    );
    assert!(!calls.contains("osd blocklist add"), "{calls}");
}
