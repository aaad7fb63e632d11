//! Live-cluster figures for volmnt (`cargo bench --bench live`; `scripts/bench.sh` runs it and
//! adds its figures to the summary table): the release binary, as a subprocess, against the
//! in-process fake API server (tests/support/fake_api.rs) with an injected latency per request.
//!
//! 1. `doctor pod db-0 -n bench` on a Pending pod with 5 PVC volumes (CSI PVs of
//!    ebs.csi.aws.com), a ConfigMap and a Secret volume, FailedMount/FailedAttachVolume events,
//!    and noise (200 other pods, 500 other events): median wall time, the request count (the
//!    server's log and volmnt's `-v` line must agree) and the request waves (a new wave starts
//!    when a request arrives more than 40 ms after the previous one; each wave is printed).
//!    The same at latency 0, and once with 2,000 other pods in the namespace.
//! 2. `doctor namespace -A` over generated clusters (8 namespaces, 50 nodes, 4 events per pod,
//!    one pod in five stuck with FailedMount/FailedAttachVolume events, 3 pods in 5 with a
//!    claim): wall time, requests, list pages per resource, round trips in sequence, peak RSS
//!    and CPU time of volmnt, the JSON the server served, the stuck pods found; then `doctor pod`
//!    on one stuck pod of that cluster. The fake server's own time is reported apart (its CPU
//!    time, and its answers replayed one by one at latency 0): it lists in O(objects) per page.
//!
//! Every generated object is checked to deserialize with k8s-openapi. Deterministic (seeded);
//! timestamps are relative to now (created an hour ago, so `--min-age 2m` passes). It prints
//! figures and asserts only that volmnt's answers are consistent (exit code, request counts).
//!
//! Environment: `VOLMNT_BENCH_RUNS` (runs of `doctor pod` per latency, default 5),
//! `VOLMNT_BENCH_LATENCY_MS` (default 50), `VOLMNT_BENCH_LIVE_SIZES` (clusters of 2, default
//! `1000,5000,10000,10000:200`: `PODS` or `PODS:STUCK`, else one pod in five stuck),
//! `VOLMNT_BENCH_LIVE_PARTS` (`1,2`: which figures), `VOLMNT_BENCH_BIN` (the binary; default
//! the release `volmnt` that cargo builds for this bench), `BENCH_NO_GNU_TIME=1` (sample VmHWM
//! from /proc instead of `/usr/bin/time -v`), `VOLMNT_BENCH_SUMMARY=FILE` (append the headline
//! figures as TSV).
//!
//! `cargo bench --bench live -- --serve 5000:200` only serves one cluster of figure 2 and prints
//! its kubeconfig, to profile volmnt by hand (e.g. under heaptrack); Enter stops it.

#[path = "../tests/support/fake_api.rs"]
mod fake_api;

use std::collections::BTreeMap;
use std::io::{Read as _, Write as _};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use fake_api::{start_in_background, FakeApi, FakeCluster, Options, Request};
use serde_json::{json, Value};

const MIB: f64 = 1024.0 * 1024.0;
/// Clusters of figure 2: `PODS` or `PODS:STUCK`. The last one has as many stuck pods as the
/// first but 10 times the pods: what memory does the cluster's size alone cost?
const DEFAULT_SIZES: &str = "1000,5000,10000,10000:200";
/// A request arriving more than this after the previous one starts a new wave.
const WAVE_GAP: Duration = Duration::from_millis(40);
const DRIVER: &str = "ebs.csi.aws.com";

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// With `VOLMNT_BENCH_SUMMARY=FILE`, appends `key<TAB>value<TAB>unit` lines for scripts/bench.sh.
fn summary(key: &str, value: &str, unit: &str) {
    if let Ok(path) = std::env::var("VOLMNT_BENCH_SUMMARY") {
        if let Ok(mut f) = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
        {
            let _ = writeln!(f, "{key}\t{value}\t{unit}");
        }
    }
}

fn main() {
    let runs = env_usize("VOLMNT_BENCH_RUNS", 5).max(1);
    let latency = Duration::from_millis(env_usize("VOLMNT_BENCH_LATENCY_MS", 50) as u64);
    // `PODS` or `PODS:STUCK` (default: one pod in five stuck).
    let sizes: Vec<(usize, usize)> = std::env::var("VOLMNT_BENCH_LIVE_SIZES")
        .unwrap_or_else(|_| DEFAULT_SIZES.into())
        .split(',')
        .filter_map(|s| {
            let (p, st) = s.trim().split_once(':').unwrap_or((s.trim(), ""));
            let p: usize = p.parse().ok()?;
            let st = st.parse().unwrap_or(p / 5);
            Some((p, st.clamp(1, p)))
        })
        .filter(|(p, _)| *p >= 10)
        .collect();
    let bin = std::env::var_os("VOLMNT_BENCH_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_volmnt")));
    assert!(
        bin.is_file(),
        "{} not found: run `cargo build --release --bin volmnt` or set VOLMNT_BENCH_BIN",
        bin.display()
    );
    let tmp = std::env::temp_dir().join(format!("volmnt-live-bench-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).expect("temp dir");
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let Some(i) = args.iter().position(|a| a == "--serve") {
        serve_only(
            args.get(i + 1).map_or("5000", String::as_str),
            latency,
            &tmp,
        );
        return;
    }

    println!("volmnt live benchmark (fake API server in this process, volmnt as a subprocess)");
    println!(
        "machine: {} CPU(s) available; binary: {}",
        std::thread::available_parallelism().map_or(0, |n| n.get()),
        bin.display()
    );
    println!(
        "peak RSS: {}",
        if gnu_time().is_some() {
            "/usr/bin/time -v (Maximum resident set size)"
        } else {
            "VmHWM of /proc/<pid>/status, sampled every 5 ms"
        }
    );

    let parts = std::env::var("VOLMNT_BENCH_LIVE_PARTS").unwrap_or_else(|_| "1,2".into());
    if parts.split(',').any(|p| p.trim() == "1") {
        bench_pod(&bin, &tmp, runs, latency);
    }
    if parts.split(',').any(|p| p.trim() == "2") {
        bench_namespace(&bin, &tmp, &sizes, latency);
    }
    let _ = std::fs::remove_dir_all(&tmp);
}

/// `--serve PODS[:STUCK]`: serve one generated cluster of figure 2 until stdin closes or says
/// anything, for profiling volmnt by hand (`heaptrack volmnt doctor namespace -A --kubeconfig
/// PATH`).
fn serve_only(spec: &str, latency: Duration, tmp: &Path) {
    let (p, st) = spec.split_once(':').unwrap_or((spec, ""));
    let pods: usize = p.parse().expect("--serve PODS[:STUCK]");
    let stuck = st.parse().unwrap_or(pods / 5);
    let (cluster, stats) = big_cluster(pods, stuck, 0x5eed_1000);
    let (api, thread) = start_in_background(
        cluster,
        Options {
            latency,
            // As a kube-apiserver serves: TLS with ALPN h2, so kubectl and volmnt can be
            // compared on the same footing.
            tls: std::env::var("VOLMNT_BENCH_PLAIN").is_err(),
            ..Options::default()
        },
    );
    let kubeconfig = api.write_kubeconfig(tmp, "default");
    println!(
        "serving {} pods ({} stuck), {} events at {} (latency {} ms); kubeconfig: {}",
        stats.pods,
        stats.stuck,
        stats.events,
        api.url(),
        latency.as_millis(),
        kubeconfig.display()
    );
    println!("press Enter (or close stdin) to stop");
    let _ = std::io::stdout().flush();
    let mut line = String::new();
    let _ = std::io::stdin().read_line(&mut line);
    drop(api);
    let _ = thread.join();
    let _ = std::fs::remove_dir_all(tmp);
}

// ---------------------------------------------------------------------------------------------
// Deterministic generation helpers

/// splitmix64.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    fn hex(&mut self, len: usize) -> String {
        let mut s = String::with_capacity(len + 16);
        while s.len() < len {
            s.push_str(&format!("{:016x}", self.next()));
        }
        s.truncate(len);
        s
    }

    /// The apiserver's generateName alphabet (no vowels, no confusables).
    fn suffix(&mut self, len: usize) -> String {
        const A: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";
        (0..len)
            .map(|_| A[self.below(A.len() as u64) as usize] as char)
            .collect()
    }

    fn uid(&mut self) -> String {
        let h = self.hex(32);
        format!(
            "{}-{}-4{}-a{}-{}",
            &h[0..8],
            &h[8..12],
            &h[13..16],
            &h[17..20],
            &h[20..32]
        )
    }
}

fn now_secs() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}

/// RFC 3339 in UTC, seconds precision (metav1.Time), as the fake server writes it.
fn ts(secs: i64) -> String {
    fake_api::rfc3339_secs(secs)
}

// ---------------------------------------------------------------------------------------------
// Object shapes (as a 1.30-era EKS cluster serves them)

const IMAGES: &[&str] = &[
    "postgres:16.2",
    "redis:7.2.4",
    "nginx:1.25.4",
    "registry.k8s.io/pause:3.9",
    "docker.io/bitnami/kafka:3.7.0",
    "quay.io/prometheus/prometheus:v2.51.0",
    "ghcr.io/example/api:2024.03.1",
    "public.ecr.aws/eks-distro/kubernetes/pause:3.9",
];

fn zone(node_idx: usize) -> &'static str {
    ["us-east-1a", "us-east-1b", "us-east-1c"][node_idx % 3]
}

fn node_obj(name: &str, idx: usize, rng: &mut Rng, now: i64, attached: &[String]) -> Value {
    let instance = format!("i-0{}", rng.hex(16));
    let ip = format!("10.0.{}.{}", 16 + idx / 200, 10 + idx % 200);
    let images: Vec<Value> = IMAGES
        .iter()
        .map(|i| json!({"names": [format!("{i}"), format!("{}@sha256:{}", i.split(':').next().unwrap_or(i), rng.hex(64))], "sizeBytes": 20_000_000 + rng.below(400_000_000)}))
        .collect();
    let conds: Vec<Value> = [
        ("MemoryPressure", "False", "KubeletHasSufficientMemory", "kubelet has sufficient memory available"),
        ("DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
        ("PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
        ("Ready", "True", "KubeletReady", "kubelet is posting ready status"),
    ]
    .iter()
    .map(|(t, s, r, m)| json!({"type": t, "status": s, "reason": r, "message": m, "lastHeartbeatTime": ts(now - 20), "lastTransitionTime": ts(now - 86_400 * 3)}))
    .collect();
    json!({
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "name": name,
            "uid": rng.uid(),
            "creationTimestamp": ts(now - 86_400 * 3),
            "labels": {
                "beta.kubernetes.io/arch": "amd64",
                "beta.kubernetes.io/instance-type": "m5.xlarge",
                "beta.kubernetes.io/os": "linux",
                "eks.amazonaws.com/nodegroup": "general",
                "kubernetes.io/arch": "amd64",
                "kubernetes.io/hostname": name,
                "kubernetes.io/os": "linux",
                "node.kubernetes.io/instance-type": "m5.xlarge",
                "topology.ebs.csi.aws.com/zone": zone(idx),
                "topology.kubernetes.io/region": "us-east-1",
                "topology.kubernetes.io/zone": zone(idx),
            },
            "annotations": {
                "alpha.kubernetes.io/provided-node-ip": ip,
                "csi.volume.kubernetes.io/nodeid": format!("{{\"{DRIVER}\":\"{instance}\"}}"),
                "node.alpha.kubernetes.io/ttl": "0",
                "volumes.kubernetes.io/controller-managed-attach-detach": "true",
            },
        },
        "spec": { "providerID": format!("aws:///{}/{instance}", zone(idx)) },
        "status": {
            "addresses": [
                {"type": "InternalIP", "address": ip},
                {"type": "InternalDNS", "address": format!("ip-{}.ec2.internal", ip.replace('.', "-"))},
                {"type": "Hostname", "address": name},
            ],
            "allocatable": {"cpu": "3920m", "ephemeral-storage": "95551679124", "hugepages-1Gi": "0", "hugepages-2Mi": "0", "memory": "15147832Ki", "pods": "58"},
            "capacity": {"cpu": "4", "ephemeral-storage": "104845292Ki", "hugepages-1Gi": "0", "hugepages-2Mi": "0", "memory": "16098104Ki", "pods": "58"},
            "conditions": conds,
            "daemonEndpoints": {"kubeletEndpoint": {"Port": 10250}},
            "images": images,
            "nodeInfo": {
                "architecture": "amd64",
                "bootID": rng.uid(),
                "containerRuntimeVersion": "containerd://1.7.11",
                "kernelVersion": "5.15.0-1056-aws",
                "kubeProxyVersion": "v1.30.2",
                "kubeletVersion": "v1.30.2",
                "machineID": rng.hex(32),
                "operatingSystem": "linux",
                "osImage": "Ubuntu 22.04.4 LTS",
                "systemUUID": rng.uid(),
            },
            "volumesAttached": attached.iter().map(|h| json!({"name": format!("kubernetes.io/csi/{DRIVER}^{h}"), "devicePath": ""})).collect::<Vec<_>>(),
            "volumesInUse": attached.iter().map(|h| format!("kubernetes.io/csi/{DRIVER}^{h}")).collect::<Vec<_>>(),
        },
    })
}

fn csinode_obj(name: &str, idx: usize, registered: bool, rng: &mut Rng, now: i64) -> Value {
    let drivers: Vec<Value> = if registered {
        vec![json!({
            "name": DRIVER,
            "nodeID": format!("i-0{}", rng.hex(16)),
            "topologyKeys": ["topology.ebs.csi.aws.com/zone", "topology.kubernetes.io/zone"],
            "allocatable": {"count": 25},
        })]
    } else {
        Vec::new()
    };
    json!({
        "apiVersion": "storage.k8s.io/v1",
        "kind": "CSINode",
        "metadata": {
            "name": name,
            "uid": rng.uid(),
            "creationTimestamp": ts(now - 86_400 * 3 + idx as i64),
            "annotations": {"storage.alpha.kubernetes.io/migrated-plugins": "kubernetes.io/aws-ebs,kubernetes.io/azure-disk,kubernetes.io/azure-file,kubernetes.io/cinder,kubernetes.io/gce-pd,kubernetes.io/portworx-volume,kubernetes.io/vsphere-volume"},
            "ownerReferences": [{"apiVersion": "v1", "kind": "Node", "name": name, "uid": rng.uid()}],
        },
        "spec": {"drivers": drivers},
    })
}

fn csidriver_obj(now: i64) -> Value {
    json!({
        "apiVersion": "storage.k8s.io/v1",
        "kind": "CSIDriver",
        "metadata": {
            "name": DRIVER,
            "creationTimestamp": ts(now - 86_400 * 30),
            "labels": {"app.kubernetes.io/component": "csi-driver", "app.kubernetes.io/managed-by": "EKS", "app.kubernetes.io/name": "aws-ebs-csi-driver"},
        },
        "spec": {
            "attachRequired": true,
            "fsGroupPolicy": "ReadWriteOnceWithFSType",
            "podInfoOnMount": false,
            "requiresRepublish": false,
            "seLinuxMount": false,
            "storageCapacity": false,
            "volumeLifecycleModes": ["Persistent"],
        },
    })
}

fn storage_class_obj(name: &str, fs: &str, mount_options: &[&str], now: i64) -> Value {
    let mut sc = json!({
        "apiVersion": "storage.k8s.io/v1",
        "kind": "StorageClass",
        "metadata": {
            "name": name,
            "creationTimestamp": ts(now - 86_400 * 30),
            "annotations": {"storageclass.kubernetes.io/is-default-class": if name == "gp3" { "true" } else { "false" }},
        },
        "provisioner": DRIVER,
        "parameters": {"type": "gp3", "csi.storage.k8s.io/fstype": fs, "encrypted": "true"},
        "reclaimPolicy": "Delete",
        "volumeBindingMode": "WaitForFirstConsumer",
        "allowVolumeExpansion": true,
    });
    if !mount_options.is_empty() {
        sc["mountOptions"] = json!(mount_options);
    }
    sc
}

/// A bound claim and its CSI volume (dynamically provisioned: the PV is `pvc-<claim uid>` unless
/// a name is given).
struct Volume {
    ns: String,
    claim: String,
    claim_uid: String,
    pv: String,
    handle: String,
    class: &'static str,
    zone: &'static str,
}

impl Volume {
    fn new(
        ns: &str,
        claim: &str,
        pv: Option<&str>,
        class: &'static str,
        zone: &'static str,
        rng: &mut Rng,
    ) -> Volume {
        let claim_uid = rng.uid();
        Volume {
            ns: ns.into(),
            claim: claim.into(),
            pv: pv.map_or_else(|| format!("pvc-{claim_uid}"), String::from),
            claim_uid,
            handle: format!("vol-0{}", rng.hex(16)),
            class,
            zone,
        }
    }

    fn pvc(&self, now: i64) -> Value {
        json!({
            "apiVersion": "v1",
            "kind": "PersistentVolumeClaim",
            "metadata": {
                "name": self.claim,
                "namespace": self.ns,
                "uid": self.claim_uid,
                "creationTimestamp": ts(now - 3_600 * 5),
                "annotations": {
                    "pv.kubernetes.io/bind-completed": "yes",
                    "pv.kubernetes.io/bound-by-controller": "yes",
                    "volume.beta.kubernetes.io/storage-provisioner": DRIVER,
                    "volume.kubernetes.io/selected-node": "",
                    "volume.kubernetes.io/storage-provisioner": DRIVER,
                },
                "finalizers": ["kubernetes.io/pvc-protection"],
            },
            "spec": {
                "accessModes": ["ReadWriteOnce"],
                "resources": {"requests": {"storage": "20Gi"}},
                "storageClassName": self.class,
                "volumeMode": "Filesystem",
                "volumeName": self.pv,
            },
            "status": {"phase": "Bound", "accessModes": ["ReadWriteOnce"], "capacity": {"storage": "20Gi"}},
        })
    }

    fn pv(&self, fs: &str, mount_options: &[&str], now: i64) -> Value {
        let mut pv = json!({
            "apiVersion": "v1",
            "kind": "PersistentVolume",
            "metadata": {
                "name": self.pv,
                "creationTimestamp": ts(now - 3_600 * 5 + 4),
                "annotations": {
                    "pv.kubernetes.io/provisioned-by": DRIVER,
                    "volume.kubernetes.io/provisioner-deletion-secret-name": "",
                    "volume.kubernetes.io/provisioner-deletion-secret-namespace": "",
                },
                "finalizers": ["external-provisioner.volume.kubernetes.io/finalizer", "kubernetes.io/pv-protection", "external-attacher/ebs-csi-aws-com"],
            },
            "spec": {
                "accessModes": ["ReadWriteOnce"],
                "capacity": {"storage": "20Gi"},
                "claimRef": {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "name": self.claim, "namespace": self.ns, "uid": self.claim_uid},
                "csi": {
                    "driver": DRIVER,
                    "fsType": fs,
                    "volumeAttributes": {"storage.kubernetes.io/csiProvisionerIdentity": "1710000000000-8081-ebs.csi.aws.com"},
                    "volumeHandle": self.handle,
                },
                "nodeAffinity": {"required": {"nodeSelectorTerms": [{"matchExpressions": [{"key": "topology.kubernetes.io/zone", "operator": "In", "values": [self.zone]}]}]}},
                "persistentVolumeReclaimPolicy": "Delete",
                "storageClassName": self.class,
                "volumeMode": "Filesystem",
            },
            "status": {"phase": "Bound", "lastPhaseTransitionTime": ts(now - 3_600 * 5 + 4)},
        });
        if !mount_options.is_empty() {
            pv["spec"]["mountOptions"] = json!(mount_options);
        }
        pv
    }

    fn attachment(&self, node: &str, attached: bool, rng: &mut Rng, now: i64) -> Value {
        let mut status = json!({"attached": attached});
        if attached {
            status["attachmentMetadata"] =
                json!({"devicePath": format!("/dev/xvda{}", (b'a' + rng.below(26) as u8) as char)});
        }
        json!({
            "apiVersion": "storage.k8s.io/v1",
            "kind": "VolumeAttachment",
            "metadata": {
                "name": format!("csi-{}", rng.hex(64)),
                "creationTimestamp": ts(now - 3_000),
                "annotations": {"csi.alpha.kubernetes.io/node-id": format!("i-0{}", rng.hex(16))},
                "finalizers": ["external-attacher/ebs-csi-aws-com"],
            },
            "spec": {"attacher": DRIVER, "nodeName": node, "source": {"persistentVolumeName": self.pv}},
            "status": status,
        })
    }
}

/// What a generated pod mounts and where it runs.
struct PodDef<'a> {
    ns: &'a str,
    name: String,
    uid: String,
    node: String,
    app: String,
    /// `StatefulSet` or `ReplicaSet`.
    owner_kind: &'a str,
    owner: String,
    claims: Vec<String>,
    configmap: Option<String>,
    secret: Option<String>,
    image: &'a str,
    stuck: bool,
    created: i64,
}

fn pod_obj(d: &PodDef, rng: &mut Rng) -> Value {
    let api_access = format!("kube-api-access-{}", rng.suffix(5));
    let mut volumes: Vec<Value> = d
        .claims
        .iter()
        .map(|c| json!({"name": c, "persistentVolumeClaim": {"claimName": c}}))
        .collect();
    let mut mounts: Vec<Value> = d
        .claims
        .iter()
        .map(|c| json!({"name": c, "mountPath": format!("/var/lib/{}/{c}", d.app)}))
        .collect();
    if let Some(cm) = &d.configmap {
        volumes.push(json!({"name": "config", "configMap": {"name": cm, "defaultMode": 420}}));
        mounts.push(json!({"name": "config", "mountPath": "/etc/app", "readOnly": true}));
    }
    if let Some(s) = &d.secret {
        volumes
            .push(json!({"name": "credentials", "secret": {"secretName": s, "defaultMode": 420}}));
        mounts.push(
            json!({"name": "credentials", "mountPath": "/etc/credentials", "readOnly": true}),
        );
    }
    volumes.push(json!({"name": api_access, "projected": {"defaultMode": 420, "sources": [
        {"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}},
        {"configMap": {"name": "kube-root-ca.crt", "items": [{"key": "ca.crt", "path": "ca.crt"}]}},
        {"downwardAPI": {"items": [{"path": "namespace", "fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.namespace"}}]}},
    ]}}));
    mounts.push(json!({"name": api_access, "mountPath": "/var/run/secrets/kubernetes.io/serviceaccount", "readOnly": true}));
    let owner_uid = rng.uid();
    let hash_label = if d.owner_kind == "StatefulSet" {
        (
            "controller-revision-hash",
            format!("{}-{}", d.owner, rng.hex(10)),
        )
    } else {
        (
            "pod-template-hash",
            d.owner.rsplit('-').next().unwrap_or("").to_string(),
        )
    };
    let started = d.created + 4;
    let cond = |t: &str, s: &str| json!({"type": t, "status": s, "lastProbeTime": null, "lastTransitionTime": ts(started)});
    let host_ip = format!("10.0.16.{}", 10 + rng.below(200));
    let status = if d.stuck {
        json!({
            "phase": "Pending",
            "conditions": [cond("PodReadyToStartContainers", "False"), cond("Initialized", "True"),
                {"type": "Ready", "status": "False", "lastProbeTime": null, "lastTransitionTime": ts(started), "reason": "ContainersNotReady", "message": "containers with unready status: [app]"},
                {"type": "ContainersReady", "status": "False", "lastProbeTime": null, "lastTransitionTime": ts(started), "reason": "ContainersNotReady", "message": "containers with unready status: [app]"},
                cond("PodScheduled", "True")],
            "hostIP": host_ip,
            "hostIPs": [{"ip": host_ip}],
            "startTime": ts(started),
            "qosClass": "Burstable",
            "containerStatuses": [{
                "name": "app", "image": d.image, "imageID": "", "ready": false, "restartCount": 0, "started": false,
                "state": {"waiting": {"reason": "ContainerCreating"}}, "lastState": {},
            }],
        })
    } else {
        let pod_ip = format!("10.0.{}.{}", 64 + rng.below(64), rng.below(250) + 2);
        json!({
            "phase": "Running",
            "conditions": [cond("PodReadyToStartContainers", "True"), cond("Initialized", "True"), cond("Ready", "True"), cond("ContainersReady", "True"), cond("PodScheduled", "True")],
            "hostIP": host_ip,
            "hostIPs": [{"ip": host_ip}],
            "podIP": pod_ip,
            "podIPs": [{"ip": pod_ip}],
            "startTime": ts(started),
            "qosClass": "Burstable",
            "containerStatuses": [{
                "name": "app", "image": d.image, "imageID": format!("{}@sha256:{}", d.image.split(':').next().unwrap_or(d.image), rng.hex(64)),
                "containerID": format!("containerd://{}", rng.hex(64)),
                "ready": true, "restartCount": 0, "started": true,
                "state": {"running": {"startedAt": ts(started + 6)}}, "lastState": {},
            }],
        })
    };
    json!({
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": d.name,
            "generateName": format!("{}-", d.owner),
            "namespace": d.ns,
            "uid": d.uid,
            "creationTimestamp": ts(d.created),
            "labels": {"app.kubernetes.io/name": d.app, "app.kubernetes.io/part-of": d.ns, hash_label.0: hash_label.1},
            "ownerReferences": [{"apiVersion": "apps/v1", "kind": d.owner_kind, "name": d.owner, "uid": owner_uid, "controller": true, "blockOwnerDeletion": true}],
            "managedFields": [
                {"manager": "kube-controller-manager", "operation": "Update", "apiVersion": "v1", "time": ts(d.created), "fieldsType": "FieldsV1", "fieldsV1": {
                    "f:metadata": {"f:generateName": {}, "f:labels": {".": {}, "f:app.kubernetes.io/name": {}, "f:app.kubernetes.io/part-of": {}}, "f:ownerReferences": {".": {}, format!("k:{{\"uid\":\"{owner_uid}\"}}"): {}}},
                    "f:spec": {"f:containers": {"k:{\"name\":\"app\"}": {".": {}, "f:image": {}, "f:imagePullPolicy": {}, "f:name": {}, "f:ports": {}, "f:resources": {".": {}, "f:limits": {}, "f:requests": {}}, "f:terminationMessagePath": {}, "f:terminationMessagePolicy": {}, "f:volumeMounts": {}}},
                        "f:dnsPolicy": {}, "f:enableServiceLinks": {}, "f:restartPolicy": {}, "f:schedulerName": {}, "f:securityContext": {}, "f:terminationGracePeriodSeconds": {}, "f:volumes": {}}}},
                {"manager": "kubelet", "operation": "Update", "apiVersion": "v1", "time": ts(started), "fieldsType": "FieldsV1", "subresource": "status", "fieldsV1": {
                    "f:status": {"f:conditions": {}, "f:containerStatuses": {}, "f:hostIP": {}, "f:hostIPs": {}, "f:phase": {}, "f:startTime": {}}}},
            ],
        },
        "spec": {
            "containers": [{
                "name": "app",
                "image": d.image,
                "imagePullPolicy": "IfNotPresent",
                "env": [{"name": "POD_NAME", "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.name"}}}],
                "ports": [{"containerPort": 8080, "name": "http", "protocol": "TCP"}],
                "resources": {"limits": {"memory": "1Gi"}, "requests": {"cpu": "250m", "memory": "512Mi"}},
                "terminationMessagePath": "/dev/termination-log",
                "terminationMessagePolicy": "File",
                "volumeMounts": mounts,
            }],
            "dnsPolicy": "ClusterFirst",
            "enableServiceLinks": true,
            "nodeName": d.node,
            "preemptionPolicy": "PreemptLowerPriority",
            "priority": 0,
            "restartPolicy": "Always",
            "schedulerName": "default-scheduler",
            "securityContext": {"fsGroup": 999},
            "serviceAccount": "default",
            "serviceAccountName": "default",
            "terminationGracePeriodSeconds": 30,
            "tolerations": [
                {"effect": "NoExecute", "key": "node.kubernetes.io/not-ready", "operator": "Exists", "tolerationSeconds": 300},
                {"effect": "NoExecute", "key": "node.kubernetes.io/unreachable", "operator": "Exists", "tolerationSeconds": 300},
            ],
            "volumes": volumes,
        },
        "status": status,
    })
}

/// One core/v1 Event about an object, as kubelet, the scheduler or a controller records it.
struct Ev<'a> {
    ns: &'a str,
    kind: &'a str,
    name: &'a str,
    uid: &'a str,
    reason: &'a str,
    type_: &'a str,
    component: &'a str,
    host: Option<&'a str>,
    message: String,
    count: u32,
    first: i64,
    last: i64,
}

fn event_obj(e: &Ev, rng: &mut Rng) -> Value {
    let mut source = json!({"component": e.component});
    if let Some(h) = e.host {
        source["host"] = json!(h);
    }
    let api_version = if e.kind == "Pod" || e.kind == "PersistentVolumeClaim" {
        "v1"
    } else {
        "apps/v1"
    };
    json!({
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {
            "name": format!("{}.{}", e.name, rng.hex(16)),
            "namespace": e.ns,
            "uid": rng.uid(),
            "creationTimestamp": ts(e.first),
        },
        "involvedObject": {"apiVersion": api_version, "kind": e.kind, "name": e.name, "namespace": e.ns, "uid": e.uid, "resourceVersion": format!("{}", 100_000 + rng.below(900_000))},
        "reason": e.reason,
        "message": e.message,
        "source": source,
        "firstTimestamp": ts(e.first),
        "lastTimestamp": ts(e.last),
        "count": e.count,
        "type": e.type_,
        "eventTime": null,
        "reportingComponent": e.component,
        "reportingInstance": e.host.unwrap_or(""),
    })
}

fn configmap_obj(ns: &str, name: &str, rng: &mut Rng, now: i64) -> Value {
    json!({
        "apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": name, "namespace": ns, "uid": rng.uid(), "creationTimestamp": ts(now - 86_400)},
        "data": {"app.conf": format!("listen 8080\nworkers 4\ntoken {}\n", rng.hex(24))},
    })
}

fn secret_obj(ns: &str, name: &str, rng: &mut Rng, now: i64) -> Value {
    json!({
        "apiVersion": "v1", "kind": "Secret", "type": "Opaque",
        "metadata": {"name": name, "namespace": ns, "uid": rng.uid(), "creationTimestamp": ts(now - 86_400)},
        "data": {"password": "c2VjcmV0LXBhc3N3b3Jk", "username": "YXBw"},
    })
}

// Event wordings from fixtures/corpus/real-mount-failures.yaml (volume names adapted), and
// kubelet's own symptom line.
fn msg_attach_timeout(pv: &str, handle: &str) -> String {
    // minio/directpv#701, with this cluster's driver
    format!("AttachVolume.Attach failed for volume \"{pv}\" : timed out waiting for external-attacher of {DRIVER} CSI driver to attach volume {handle}")
}
fn msg_multi_attach(pv: &str) -> String {
    // kubernetes/kubernetes (corpus: Multi-Attach error)
    format!("Multi-Attach error for volume \"{pv}\" Volume is already exclusively attached to one node and can't be attached to another")
}
fn msg_xfs_debug(pv: &str, handle: &str) -> String {
    // kubernetes/kubernetes#101444, CSI staging path
    format!("MountVolume.MountDevice failed for volume \"{pv}\" : rpc error: code = Internal desc = could not format \"/dev/nvme1n1\" and mount it at \"/var/lib/kubelet/plugins/kubernetes.io/csi/{DRIVER}/{}/globalmount\": mount failed: exit status 32\nMounting command: mount\nMounting arguments: -t xfs -o debug,defaults /dev/nvme1n1 /var/lib/kubelet/plugins/kubernetes.io/csi/{DRIVER}/{}/globalmount\nOutput: mount: /var/lib/kubelet/plugins/kubernetes.io/csi/{DRIVER}/{}/globalmount: wrong fs type, bad option, bad superblock on /dev/nvme1n1, missing codepage or helper program, or other error.", handle, handle, handle)
}
fn msg_driver_missing(pv: &str) -> String {
    // kubernetes-csi/csi-driver-host-path (corpus), with this cluster's driver
    format!("MountVolume.MountDevice failed for volume \"{pv}\" : driver name {DRIVER} not found in the list of registered CSI drivers")
}
fn msg_deadline(pv: &str) -> String {
    // seaweedfs/seaweedfs-csi-driver#3
    format!("MountVolume.SetUp failed for volume \"{pv}\" : rpc error: code = DeadlineExceeded desc = context deadline exceeded")
}
fn msg_unable(unmounted: &[&str], unattached: &[&str]) -> String {
    format!(
        "Unable to attach or mount volumes: unmounted volumes=[{}], unattached volumes=[{}]: timed out waiting for the condition",
        unmounted.join(" "),
        unattached.join(" ")
    )
}

// ---------------------------------------------------------------------------------------------
// Checks and sizes of generated clusters

/// Every object must deserialize as k8s-openapi 0.29 types (what volmnt reads them with);
/// at most `per_kind` of each kind are checked.
fn check_deserializes(objects: &[Value], per_kind: usize) -> usize {
    use k8s_openapi::api::core::v1::{
        ConfigMap, Event, Node, PersistentVolume, PersistentVolumeClaim, Pod, Secret,
    };
    use k8s_openapi::api::storage::v1::{CSIDriver, CSINode, StorageClass, VolumeAttachment};
    fn de<T: serde::de::DeserializeOwned>(v: &Value) -> Result<(), String> {
        serde_json::from_value::<T>(v.clone())
            .map(|_| ())
            .map_err(|e| e.to_string())
    }
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let mut checked = 0;
    for o in objects {
        let kind = o["kind"].as_str().unwrap_or("").to_string();
        let n = seen.entry(kind.clone()).or_default();
        if *n >= per_kind {
            continue;
        }
        *n += 1;
        let r = match kind.as_str() {
            "Pod" => de::<Pod>(o),
            "Event" => de::<Event>(o),
            "Node" => de::<Node>(o),
            "PersistentVolume" => de::<PersistentVolume>(o),
            "PersistentVolumeClaim" => de::<PersistentVolumeClaim>(o),
            "ConfigMap" => de::<ConfigMap>(o),
            "Secret" => de::<Secret>(o),
            "CSINode" => de::<CSINode>(o),
            "CSIDriver" => de::<CSIDriver>(o),
            "StorageClass" => de::<StorageClass>(o),
            "VolumeAttachment" => de::<VolumeAttachment>(o),
            other => Err(format!("unexpected kind {other}")),
        };
        if let Err(e) = r {
            panic!(
                "generated {kind} {} does not deserialize: {e}",
                o["metadata"]["name"]
            );
        }
        checked += 1;
    }
    checked
}

/// Objects per kind and their serialized size.
fn census(objects: &[Value]) -> (BTreeMap<String, (usize, usize)>, usize) {
    let mut by_kind: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let mut total = 0;
    for o in objects {
        let len = serde_json::to_vec(o).map_or(0, |v| v.len());
        let e = by_kind
            .entry(o["kind"].as_str().unwrap_or("?").to_string())
            .or_default();
        e.0 += 1;
        e.1 += len;
        total += len;
    }
    (by_kind, total)
}

fn census_line(by_kind: &BTreeMap<String, (usize, usize)>) -> String {
    by_kind
        .iter()
        .map(|(k, (n, b))| format!("{k} {n} ({:.1} MiB)", *b as f64 / MIB))
        .collect::<Vec<_>>()
        .join(", ")
}

// ---------------------------------------------------------------------------------------------
// 1. doctor pod

/// The cluster of figure 1: namespace `bench`, pod `db-0` and `noise_pods` other pods.
fn pod_cluster(noise_pods: usize, noise_events: usize) -> FakeCluster {
    let mut rng = Rng(0x5eed_0001);
    let now = now_secs();
    let ns = "bench";
    let mut c = FakeCluster::new();
    let vols: Vec<Volume> = (0..5)
        .map(|i| {
            Volume::new(
                ns,
                &format!("data-{i}"),
                Some(&format!("pv-{i}")),
                "gp3",
                "us-east-1a",
                &mut rng,
            )
        })
        .collect();
    let attached: Vec<String> = vols
        .iter()
        .filter(|v| v.pv != "pv-3")
        .map(|v| v.handle.clone())
        .collect();
    c.push(node_obj("node-1", 0, &mut rng, now, &attached));
    c.push(csinode_obj("node-1", 0, true, &mut rng, now));
    c.push(csidriver_obj(now));
    c.push(storage_class_obj("gp3", "ext4", &[], now));
    for v in &vols {
        c.push(v.pvc(now));
        c.push(v.pv("ext4", &[], now));
        // pv-3 is the one still waiting for the external attacher.
        c.push(v.attachment("node-1", v.pv != "pv-3", &mut rng, now));
    }
    c.push(configmap_obj(ns, "db-config", &mut rng, now));
    c.push(configmap_obj(ns, "kube-root-ca.crt", &mut rng, now));
    c.push(secret_obj(ns, "db-credentials", &mut rng, now));
    let pod_uid = rng.uid();
    let created = now - 3_600;
    c.push(pod_obj(
        &PodDef {
            ns,
            name: "db-0".into(),
            uid: pod_uid.clone(),
            node: "node-1".into(),
            app: "db".into(),
            owner_kind: "StatefulSet",
            owner: "db".into(),
            claims: vols.iter().map(|v| v.claim.clone()).collect(),
            configmap: Some("db-config".into()),
            secret: Some("db-credentials".into()),
            image: IMAGES[0],
            stuck: true,
            created,
        },
        &mut rng,
    ));
    // (reason, type, component, host, message, count)
    type PodEvent<'a> = (&'a str, &'a str, &'a str, Option<&'a str>, String, u32);
    let pod_events: [PodEvent; 4] = [
        (
            "Scheduled",
            "Normal",
            "default-scheduler",
            None,
            "Successfully assigned bench/db-0 to node-1".into(),
            1,
        ),
        (
            "FailedAttachVolume",
            "Warning",
            "attachdetach-controller",
            None,
            msg_attach_timeout("pv-3", &vols[3].handle),
            14,
        ),
        (
            "FailedMount",
            "Warning",
            "kubelet",
            Some("node-1"),
            msg_deadline("pv-1"),
            9,
        ),
        (
            "FailedMount",
            "Warning",
            "kubelet",
            Some("node-1"),
            msg_unable(&["data-1", "data-3"], &["data-3"]),
            25,
        ),
    ];
    for (reason, type_, component, host, message, count) in pod_events {
        c.push(event_obj(
            &Ev {
                ns,
                kind: "Pod",
                name: "db-0",
                uid: &pod_uid,
                reason,
                type_,
                component,
                host,
                message,
                count,
                first: created + 5,
                last: now - 30,
            },
            &mut rng,
        ));
    }
    // Noise: other (running) pods of a Deployment, and their lifecycle events.
    let mut noise = Vec::new();
    for i in 0..noise_pods {
        let owner = format!("web-{}", rng.hex(10));
        let name = format!("{owner}-{}", rng.suffix(5));
        let uid = rng.uid();
        c.push(pod_obj(
            &PodDef {
                ns,
                name: name.clone(),
                uid: uid.clone(),
                node: "node-1".into(),
                app: format!("web-{}", i % 20),
                owner_kind: "ReplicaSet",
                owner,
                claims: Vec::new(),
                configmap: Some("db-config".into()),
                secret: None,
                image: IMAGES[2],
                stuck: false,
                created: now - 7_200,
            },
            &mut rng,
        ));
        noise.push((name, uid));
    }
    let lifecycle = ["Scheduled", "Pulled", "Created", "Started"];
    for i in 0..noise_events {
        let (name, uid) = &noise[i % noise.len().max(1)];
        let reason = lifecycle[(i / noise.len().max(1)) % lifecycle.len()];
        c.push(event_obj(
            &lifecycle_event(ns, name, uid, reason, "node-1", IMAGES[2], now),
            &mut rng,
        ));
    }
    c
}

fn lifecycle_event<'a>(
    ns: &'a str,
    name: &'a str,
    uid: &'a str,
    reason: &'a str,
    node: &'a str,
    image: &str,
    now: i64,
) -> Ev<'a> {
    let (component, host, message) = match reason {
        "Scheduled" => (
            "default-scheduler",
            None,
            format!("Successfully assigned {ns}/{name} to {node}"),
        ),
        "Pulled" => (
            "kubelet",
            Some(node),
            format!("Container image \"{image}\" already present on machine"),
        ),
        "Created" => ("kubelet", Some(node), "Created container app".to_string()),
        _ => ("kubelet", Some(node), "Started container app".to_string()),
    };
    Ev {
        ns,
        kind: "Pod",
        name,
        uid,
        reason,
        type_: "Normal",
        component,
        host,
        message,
        count: 1,
        first: now - 3_000,
        last: now - 3_000,
    }
}

/// One run of the binary.
struct Run {
    wall: Duration,
    code: i32,
    rss_kib: Option<u64>,
    stdout: PathBuf,
    stderr: String,
    /// `volmnt: N API requests` from `-v`.
    reported: Option<usize>,
    /// User + system CPU time of volmnt (from /usr/bin/time).
    cpu: Option<Duration>,
    /// When the process was spawned.
    started: Instant,
}

fn gnu_time() -> Option<&'static str> {
    if std::env::var_os("BENCH_NO_GNU_TIME").is_some() {
        return None;
    }
    let ok = Command::new("/usr/bin/time")
        .args(["-v", "true"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    ok.then_some("/usr/bin/time")
}

fn vmhwm_kib(pid: u32) -> Option<u64> {
    let s = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = s.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn run_volmnt(bin: &Path, args: &[&str], kubeconfig: &Path, dir: &Path, tag: &str) -> Run {
    let stdout = dir.join(format!("{tag}.out.json"));
    let stderr_path = dir.join(format!("{tag}.err"));
    let time_path = dir.join(format!("{tag}.time"));
    let gnu = gnu_time();
    let mut cmd = match gnu {
        Some(t) => {
            let mut c = Command::new(t);
            c.arg("-v").arg("-o").arg(&time_path).arg(bin);
            c
        }
        None => Command::new(bin),
    };
    cmd.args(args)
        .arg("--kubeconfig")
        .arg(kubeconfig)
        .args(["-v", "-o", "json"])
        .env_remove("KUBECONFIG")
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&stdout).expect("stdout file"))
        .stderr(std::fs::File::create(&stderr_path).expect("stderr file"));
    let t = Instant::now();
    let started = t;
    let mut child = cmd.spawn().expect("spawn volmnt");
    let mut rss = None;
    let status = if gnu.is_some() {
        child.wait().expect("wait")
    } else {
        let pid = child.id();
        loop {
            if let Some(h) = vmhwm_kib(pid) {
                rss = Some(rss.map_or(h, |r: u64| r.max(h)));
            }
            if let Some(s) = child.try_wait().expect("try_wait") {
                break s;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    };
    let wall = t.elapsed();
    let mut cpu = None;
    if gnu.is_some() {
        let text = std::fs::read_to_string(&time_path).unwrap_or_default();
        let field = |name: &str| {
            text.lines()
                .find(|l| l.trim_start().starts_with(name))
                .and_then(|l| l.rsplit(": ").next())
                .map(|v| v.trim().to_string())
        };
        rss = field("Maximum resident set size").and_then(|v| v.parse().ok());
        let secs = |name: &str| field(name).and_then(|v| v.parse::<f64>().ok());
        cpu = match (secs("User time (seconds)"), secs("System time (seconds)")) {
            (Some(u), Some(s)) => Some(Duration::from_secs_f64(u + s)),
            _ => None,
        };
    }
    let stderr = std::fs::read_to_string(&stderr_path).unwrap_or_default();
    let reported = stderr.lines().find_map(|l| {
        l.strip_prefix("volmnt: ")?
            .strip_suffix(" API requests")?
            .parse()
            .ok()
    });
    Run {
        wall,
        code: status.code().unwrap_or(-1),
        rss_kib: rss,
        stdout,
        stderr,
        reported,
        cpu,
        started,
    }
}

/// CPU time (ns) of this process's threads other than the main one: the fake server's runtime
/// (the main thread only waits for volmnt).
fn server_cpu_ns() -> u64 {
    let main = std::process::id().to_string();
    let Ok(dir) = std::fs::read_dir("/proc/self/task") else {
        return 0;
    };
    dir.filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy() != main)
        .filter_map(|e| std::fs::read_to_string(e.path().join("schedstat")).ok())
        .filter_map(|s| s.split_whitespace().next()?.parse::<u64>().ok())
        .sum()
}

fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' && i + 2 < b.len() {
            if let Ok(v) = u8::from_str_radix(&s[i + 1..i + 3], 16) {
                out.push(v);
                i += 3;
                continue;
            }
        }
        out.push(if b[i] == b'+' { b' ' } else { b[i] });
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn describe(r: &Request) -> String {
    let res = if r.group.is_empty() {
        r.resource.clone()
    } else {
        format!("{}.{}", r.resource, r.group)
    };
    let target = match (&r.namespace, &r.name) {
        (Some(ns), Some(n)) => format!("{ns}/{n}"),
        (Some(ns), None) => format!("in {ns}"),
        (None, Some(n)) => n.clone(),
        (None, None) => "(cluster)".into(),
    };
    let mut q: Vec<String> = Vec::new();
    for p in r.query.split('&').filter(|p| !p.is_empty()) {
        let (k, v) = p.split_once('=').unwrap_or((p, ""));
        match k {
            "fieldSelector" | "labelSelector" | "limit" => {
                q.push(format!("{k}={}", percent_decode(v)))
            }
            "continue" => q.push("continue=…".into()),
            _ => {}
        }
    }
    format!("{} {res} {target} {} → {}", r.verb, q.join(" "), r.status)
}

/// Requests grouped into waves by arrival (indices into `reqs`): a new wave when one arrives
/// more than `WAVE_GAP` after the previous one.
fn waves(reqs: &[Request]) -> Vec<Vec<usize>> {
    let mut sorted: Vec<usize> = (0..reqs.len()).collect();
    sorted.sort_by_key(|&i| reqs[i].at);
    let mut out: Vec<Vec<usize>> = Vec::new();
    let mut prev: Option<Instant> = None;
    for i in sorted {
        let at = reqs[i].at;
        if prev.is_none_or(|p| at.duration_since(p) > WAVE_GAP) {
            out.push(Vec::new());
        }
        out.last_mut().expect("a wave").push(i);
        prev = Some(at);
    }
    out
}

/// The recorded requests asked again, one at a time at latency 0.
struct Replay {
    /// Response body bytes in all.
    bytes: u64,
    /// Time to the full answer of each request (aligned with the requests).
    took: Vec<Duration>,
}

impl Replay {
    fn total(&self) -> Duration {
        self.took.iter().sum()
    }

    fn slowest(&self) -> Duration {
        self.took.iter().max().copied().unwrap_or_default()
    }

    /// The fake server's share of the critical path: per wave, its slowest answer.
    fn critical(&self, waves: &[Vec<usize>]) -> Duration {
        waves
            .iter()
            .map(|w| w.iter().map(|&i| self.took[i]).max().unwrap_or_default())
            .sum()
    }
}

/// Asks the server for every recorded request again (set latency 0 first) to count the bytes
/// it served and time its answers without the client's work in between.
fn replay(api: &FakeApi, reqs: &[Request]) -> Replay {
    let addr: SocketAddr = api.addr();
    let mut bytes = 0u64;
    let mut took = Vec::with_capacity(reqs.len());
    for r in reqs {
        if r.method != "GET" {
            took.push(Duration::ZERO);
            continue;
        }
        let target = if r.query.is_empty() {
            r.path.clone()
        } else {
            format!("{}?{}", r.path, r.query)
        };
        let t = Instant::now();
        let mut s = TcpStream::connect(addr).expect("connect to the fake server");
        write!(
            s,
            "GET {target} HTTP/1.1\r\nHost: {addr}\r\nAccept: application/json\r\nConnection: close\r\n\r\n"
        )
        .expect("send");
        let mut buf = Vec::new();
        s.read_to_end(&mut buf).expect("read");
        took.push(t.elapsed());
        let head = buf
            .windows(4)
            .position(|w| w == b"\r\n\r\n")
            .map_or(buf.len(), |p| p + 4);
        bytes += (buf.len() - head) as u64;
    }
    Replay { bytes, took }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn median(v: &mut [Duration]) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn fmt_rss(kib: Option<u64>) -> String {
    kib.map_or("n/a".into(), |k| format!("{:.1} MiB", k as f64 / 1024.0))
}

fn read_json(path: &Path) -> Value {
    let bytes = std::fs::read(path).unwrap_or_default();
    serde_json::from_slice(&bytes).unwrap_or(Value::Null)
}

/// Figures of one configuration of `doctor pod`.
struct PodFigures {
    median: Duration,
    requests: usize,
    waves: usize,
    /// TCP connections and TLS handshakes of one run (the last), and how long after the
    /// process started its first request reached the server (median).
    connections: usize,
    handshakes: usize,
    first_request: Duration,
}

fn bench_pod(bin: &Path, tmp: &Path, runs: usize, latency: Duration) {
    println!();
    println!("== 1. doctor pod db-0 -n bench: 5 PVC volumes (CSI {DRIVER}), fake API server ==");
    let t = Instant::now();
    let cluster = pod_cluster(200, 500);
    let checked = check_deserializes(&cluster.objects, usize::MAX);
    let (by_kind, bytes) = census(&cluster.objects);
    println!(
        "cluster: {} objects, {:.2} MiB as JSON, generated and checked with k8s-openapi ({checked} objects) in {:.0} ms: {}",
        cluster.objects.len(),
        bytes as f64 / MIB,
        ms(t.elapsed()),
        census_line(&by_kind)
    );
    let dir = tmp.join("pod");
    // HTTPS with ALPN h2 and http/1.1, as a kube-apiserver serves.
    let (api, thread) = start_in_background(
        cluster,
        Options {
            latency,
            tls: true,
            ..Options::default()
        },
    );
    let kubeconfig = api.write_kubeconfig(&dir, "bench");

    let target = PodTarget {
        api: &api,
        kubeconfig: &kubeconfig,
        dir: &dir,
        namespace: "bench",
        pod: "db-0",
    };
    let f = pod_runs(bin, &target, runs, latency, "a");
    summary("live_pod_ms", &format!("{:.0}", ms(f.median)), "ms");
    summary("live_pod_requests", &f.requests.to_string(), "requests");
    summary("live_pod_waves", &f.waves.to_string(), "waves");
    summary(
        "live_pod_connections",
        &f.connections.to_string(),
        "connections",
    );
    summary(
        "live_pod_tls_handshakes",
        &f.handshakes.to_string(),
        "handshakes",
    );
    summary(
        "live_pod_first_request_ms",
        &format!("{:.1}", ms(f.first_request)),
        "ms",
    );
    summary(
        "live_pod_latency_ms",
        &format!("{}", latency.as_millis()),
        "ms",
    );
    api.set_latency(Duration::ZERO);
    let f0 = pod_runs(bin, &target, runs, Duration::ZERO, "b");
    summary("live_pod_ms_0", &format!("{:.0}", ms(f0.median)), "ms");
    paired_with_kubectl(bin, &api, &kubeconfig, &dir, runs.max(5) * 2);
    drop(api);
    let _ = thread.join();

    // The same pod in a namespace of 2,000 pods: the claim-user list has 5 pages.
    let cluster = pod_cluster(2_000, 500);
    println!();
    println!(
        "-- (c) the same pod with 2,000 other pods in its namespace ({} objects), latency {} ms",
        cluster.objects.len(),
        latency.as_millis()
    );
    let (api, thread) = start_in_background(
        cluster,
        Options {
            latency,
            tls: true,
            ..Options::default()
        },
    );
    let kubeconfig = api.write_kubeconfig(&dir, "bench");
    let target = PodTarget {
        api: &api,
        kubeconfig: &kubeconfig,
        dir: &dir,
        namespace: "bench",
        pod: "db-0",
    };
    let fc = pod_runs(bin, &target, runs.min(3), latency, "c");
    summary("live_pod_bigns_ms", &format!("{:.0}", ms(fc.median)), "ms");
    summary("live_pod_bigns_waves", &fc.waves.to_string(), "waves");
    summary(
        "live_pod_bigns_requests",
        &fc.requests.to_string(),
        "requests",
    );
    drop(api);
    let _ = thread.join();
}

/// Wall time of one command run to its end, its output thrown away.
fn wall(cmd: &mut Command) -> Option<Duration> {
    let t = Instant::now();
    let st = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .ok()?;
    // `doctor pod` exits 1 when it finds the pod stuck: that is its answer, not a failure.
    (st.code().is_some_and(|c| c <= 1)).then(|| t.elapsed())
}

/// (d) Paired runs on the same pod at latency 0, alternating, so load hits both alike:
/// `volmnt doctor pod`, `kubectl describe pod` (when kubectl is on the PATH), one raw GET of the
/// pod with curl over HTTP/2 (when curl is), and `volmnt --version` (process start alone).
fn paired_with_kubectl(bin: &Path, api: &FakeApi, kubeconfig: &Path, dir: &Path, runs: usize) {
    let have = |p: &str| {
        Command::new(p)
            .arg("--help")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok()
    };
    let kubectl = have("kubectl");
    let curl = have("curl");
    let ca = dir.join("ca.pem");
    let kc: serde_yaml::Value =
        serde_yaml::from_str(&std::fs::read_to_string(kubeconfig).unwrap_or_default())
            .unwrap_or_default();
    if let Some(b64) = kc["clusters"][0]["cluster"]["certificate-authority-data"].as_str() {
        if let Ok(pem) = base64::Engine::decode(&base64::engine::general_purpose::STANDARD, b64) {
            let _ = std::fs::write(&ca, pem);
        }
    }
    let url = format!("{}/api/v1/namespaces/bench/pods/db-0", api.url());
    let (mut v, mut k, mut c, mut ver) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for _ in 0..runs {
        if let Some(d) = wall(
            Command::new(bin)
                .args([
                    "doctor",
                    "pod",
                    "db-0",
                    "-n",
                    "bench",
                    "-o",
                    "json",
                    "--kubeconfig",
                ])
                .arg(kubeconfig),
        ) {
            v.push(d);
        }
        if kubectl {
            // An empty user would make kubectl ask for one: any token does (the server checks none).
            if let Some(d) = wall(
                Command::new("kubectl")
                    .args([
                        "describe",
                        "pod",
                        "db-0",
                        "-n",
                        "bench",
                        "--token",
                        "bench",
                        "--kubeconfig",
                    ])
                    .arg(kubeconfig),
            ) {
                k.push(d);
            }
        }
        if curl && ca.is_file() {
            if let Some(d) = wall(
                Command::new("curl")
                    .args(["-sf", "--http2", "-o", "/dev/null", "--cacert"])
                    .arg(&ca)
                    .arg(&url),
            ) {
                c.push(d);
            }
        }
        if let Some(d) = wall(Command::new(bin).arg("--version")) {
            ver.push(d);
        }
    }
    let med = |v: &mut Vec<Duration>| (!v.is_empty()).then(|| ms(median(v)));
    let (mv, mk, mc, mver) = (med(&mut v), med(&mut k), med(&mut c), med(&mut ver));
    println!();
    println!("-- (d) paired runs at latency 0 ({runs} each, alternating)");
    if let Some(mv) = mv {
        println!("    volmnt doctor pod db-0: median {mv:.1} ms");
        summary("live_pair_volmnt_ms", &format!("{mv:.1}"), "ms");
    }
    match mk {
        Some(mk) => {
            println!("    kubectl describe pod db-0: median {mk:.1} ms");
            if let Some(mv) = mv {
                println!(
                    "    volmnt / kubectl = {:.2} (the goal, on a real apiserver: <= 0.35)",
                    mv / mk
                );
                summary("live_pair_ratio", &format!("{:.2}", mv / mk), "x");
            }
            summary("live_pair_kubectl_ms", &format!("{mk:.1}"), "ms");
        }
        None => println!("    kubectl describe pod: kubectl is not on the PATH"),
    }
    match mc {
        Some(mc) => {
            println!(
                "    one raw GET of the pod (curl --http2, new process, TLS): median {mc:.1} ms"
            );
            summary("live_pair_curl_ms", &format!("{mc:.1}"), "ms");
        }
        None => println!("    one raw GET: curl is not on the PATH"),
    }
    if let Some(mver) = mver {
        println!("    volmnt --version (process start and exit alone): median {mver:.1} ms");
    }
}

/// Where and how `pod_runs` runs.
struct PodTarget<'a> {
    api: &'a FakeApi,
    kubeconfig: &'a Path,
    dir: &'a Path,
    namespace: &'a str,
    pod: &'a str,
}

/// `doctor pod` `runs` times (after a warm-up run that also checks the answer): the median,
/// the request count (checked against `-v`), the waves of the last run (printed).
fn pod_runs(bin: &Path, t: &PodTarget, runs: usize, latency: Duration, label: &str) -> PodFigures {
    let args = ["doctor", "pod", t.pod, "-n", t.namespace];
    let warm = run_volmnt(bin, &args, t.kubeconfig, t.dir, "pod-warm");
    let report = read_json(&warm.stdout);
    assert_eq!(
        warm.code, 1,
        "doctor pod: expected exit 1 (stuck), got {}: {}",
        warm.code, warm.stderr
    );
    let top: Vec<String> = report["findings"]
        .as_array()
        .map(|a| {
            a.iter()
                .take(3)
                .map(|f| {
                    format!(
                        "{} ({})",
                        f["cause"].as_str().unwrap_or("?"),
                        f["confidence"]
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    let mut walls = Vec::new();
    let mut last_reqs = Vec::new();
    let mut rss = None;
    let mut server_cpu = Duration::ZERO;
    let mut in_flight = 0;
    let mut firsts = Vec::new();
    let (mut connections, mut handshakes) = (0, 0);
    for i in 0..runs {
        t.api.reset_requests();
        let cpu0 = server_cpu_ns();
        let (c0, h0) = (t.api.connections(), t.api.tls_handshakes());
        let r = run_volmnt(bin, &args, t.kubeconfig, t.dir, "pod");
        connections = t.api.connections() - c0;
        handshakes = t.api.tls_handshakes() - h0;
        server_cpu += Duration::from_nanos(server_cpu_ns().saturating_sub(cpu0));
        let reqs = t.api.requests();
        assert_eq!(r.code, 1, "run {i}: exit {}: {}", r.code, r.stderr);
        assert_eq!(
            Some(reqs.len()),
            r.reported,
            "run {i}: the server saw {} requests, volmnt -v says {:?}",
            reqs.len(),
            r.reported
        );
        walls.push(r.wall);
        if let Some(first) = reqs.iter().map(|q| q.at).min() {
            firsts.push(first.saturating_duration_since(r.started));
        }
        rss = rss.max(r.rss_kib);
        in_flight = in_flight.max(t.api.max_in_flight());
        last_reqs = reqs;
    }
    let (min, max) = (
        *walls.iter().min().expect("runs"),
        *walls.iter().max().expect("runs"),
    );
    let med = median(&mut walls);
    let w = waves(&last_reqs);
    t.api.set_latency(Duration::ZERO);
    let rep = replay(t.api, &last_reqs);
    t.api.set_latency(latency);
    println!(
        "({label}) latency {} ms: median {:.0} ms wall (min {:.0}, max {:.0}; {runs} runs); {} requests (server log = volmnt -v), {} wave(s), up to {in_flight} in flight; peak RSS {}; served {:.1} KiB",
        latency.as_millis(),
        ms(med),
        ms(min),
        ms(max),
        last_reqs.len(),
        w.len(),
        fmt_rss(rss),
        rep.bytes as f64 / 1024.0,
    );
    println!(
        "    fake server: {:.1} ms CPU per run; its answers take {:.1} ms in all at latency 0 (slowest {:.1} ms), {:.1} ms on the critical path (slowest of each wave)",
        ms(server_cpu) / runs as f64,
        ms(rep.total()),
        ms(rep.slowest()),
        ms(rep.critical(&w)),
    );
    let first_request = median(&mut firsts);
    println!(
        "    connections {connections}, TLS handshakes {handshakes} (the last run); first request reached the server {:.1} ms after the process started (median)",
        ms(first_request)
    );
    println!("    findings: {}", top.join(", "));
    if !latency.is_zero() {
        print_waves(&last_reqs, &w, &rep, true);
    }
    PodFigures {
        median: med,
        requests: last_reqs.len(),
        waves: w.len(),
        connections,
        handshakes,
        first_request,
    }
}

/// Each wave: its start (from the first request), size and the fake server's slowest answer;
/// with `full` every request, else one line per resource.
fn print_waves(reqs: &[Request], w: &[Vec<usize>], rep: &Replay, full: bool) {
    let start = w.first().and_then(|w| w.first()).map(|&i| reqs[i].at);
    for (k, wave) in w.iter().enumerate() {
        let at = start.map_or(0.0, |s| ms(reqs[wave[0]].at.duration_since(s)));
        let slowest = wave.iter().map(|&i| rep.took[i]).max().unwrap_or_default();
        if full {
            println!(
                "    wave {} (+{at:.0} ms): {} request(s), server's slowest answer {:.1} ms",
                k + 1,
                wave.len(),
                ms(slowest)
            );
            for &i in wave {
                println!("        {}", describe(&reqs[i]));
            }
        } else {
            let mut what: BTreeMap<String, usize> = BTreeMap::new();
            for &i in wave {
                let r = &reqs[i];
                let res = if r.group.is_empty() {
                    r.resource.clone()
                } else {
                    format!("{}.{}", r.resource, r.group)
                };
                let cont = if r.query.contains("continue=") {
                    " (continue)"
                } else {
                    ""
                };
                *what.entry(format!("{} {res}{cont}", r.verb)).or_default() += 1;
            }
            println!(
                "    wave {:>2} (+{at:>5.0} ms, server {:>5.1} ms): {}",
                k + 1,
                ms(slowest),
                what.iter()
                    .map(|(k, n)| if *n > 1 {
                        format!("{k} x{n}")
                    } else {
                        k.clone()
                    })
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
    }
}

// ---------------------------------------------------------------------------------------------
// 2. doctor namespace -A

const NAMESPACES: &[&str] = &[
    "payments",
    "search",
    "checkout",
    "analytics",
    "identity",
    "messaging",
    "catalog",
    "ml-serving",
];
const NODES: usize = 50;
/// Nodes (the last ones) whose CSINode does not list the EBS driver (its node plugin is down).
const NODES_WITHOUT_DRIVER: usize = 5;

/// How a generated stuck pod is stuck.
#[derive(Clone, Copy)]
enum Stuck {
    MultiAttach,
    AttachTimeout,
    XfsDebug,
    DriverMissing,
}

struct BigStats {
    pods: usize,
    stuck: usize,
    events: usize,
    /// The first stuck pod: (namespace, name).
    sample: (String, String),
}

/// `pods` pods (`stuck` of them stuck, spread evenly), `4 * pods` events, their claims, volumes
/// and attachments, 50 nodes, across 8 namespaces.
fn big_cluster(pods: usize, stuck: usize, seed: u64) -> (FakeCluster, BigStats) {
    let stride = (pods / stuck.max(1)).max(1);
    let mut rng = Rng(seed);
    let now = now_secs();
    let mut c = FakeCluster::new();
    let apps_per_ns = 10;
    let node_name = |i: usize| format!("ip-10-0-{}-{}.ec2.internal", 16 + i / 200, 10 + i % 200);
    c.push(csidriver_obj(now));
    c.push(storage_class_obj("gp3", "ext4", &[], now));
    c.push(storage_class_obj("gp3-xfs", "xfs", &["debug"], now));
    for ns in NAMESPACES {
        c.push(configmap_obj(ns, "kube-root-ca.crt", &mut rng, now));
        for a in 0..apps_per_ns {
            c.push(configmap_obj(ns, &format!("app-{a}-config"), &mut rng, now));
            c.push(secret_obj(
                ns,
                &format!("app-{a}-credentials"),
                &mut rng,
                now,
            ));
        }
    }
    let mut attached_on: Vec<Vec<String>> = vec![Vec::new(); NODES];
    let target_events = pods * 4;
    let mut events: Vec<Value> = Vec::new();
    let mut running: Vec<(String, String, String, String)> = Vec::new(); // ns, name, uid, node
    let mut stuck_count = 0;
    let mut sample = (String::new(), String::new());
    for i in 0..pods {
        let ns = NAMESPACES[i % NAMESPACES.len()];
        let app_idx = (i / NAMESPACES.len()) % apps_per_ns;
        let app = format!("app-{app_idx}");
        let stuck = i % stride == 2 % stride;
        let kind = match (i / stride) % 4 {
            0 => Stuck::MultiAttach,
            1 => Stuck::AttachTimeout,
            2 => Stuck::XfsDebug,
            _ => Stuck::DriverMissing,
        };
        // Stuck pods with a missing driver sit on the last nodes (no driver registered there).
        let node_idx = if stuck && matches!(kind, Stuck::DriverMissing) {
            NODES - NODES_WITHOUT_DRIVER + i % NODES_WITHOUT_DRIVER
        } else {
            i % (NODES - NODES_WITHOUT_DRIVER)
        };
        let node = node_name(node_idx);
        // StatefulSet replicas with a claim: 3 pods in 5 (and every stuck pod).
        let stateful = stuck || i % 5 <= 2;
        let (owner_kind, owner, name) = if stateful {
            let owner = format!("{app}-db");
            (
                "StatefulSet",
                owner.clone(),
                format!("{owner}-{}", i / (NAMESPACES.len() * apps_per_ns)),
            )
        } else {
            let owner = format!("{app}-{}", rng.hex(10));
            (
                "ReplicaSet",
                owner.clone(),
                format!("{owner}-{}", rng.suffix(5)),
            )
        };
        let uid = rng.uid();
        let mut claims = Vec::new();
        let mut pv_name = String::new();
        let mut handle = String::new();
        if stateful {
            let claim = format!("data-{name}");
            let xfs = stuck && matches!(kind, Stuck::XfsDebug);
            let v = Volume::new(
                ns,
                &claim,
                None,
                if xfs { "gp3-xfs" } else { "gp3" },
                zone(node_idx),
                &mut rng,
            );
            c.push(v.pvc(now));
            if xfs {
                c.push(v.pv("xfs", &["debug"], now));
            } else {
                c.push(v.pv("ext4", &[], now));
            }
            events.push(event_obj(
                &Ev {
                    ns,
                    kind: "PersistentVolumeClaim",
                    name: &claim,
                    uid: &v.claim_uid,
                    reason: "ProvisioningSucceeded",
                    type_: "Normal",
                    component: "ebs.csi.aws.com_ebs-csi-controller-5d4f8b7c9-x2k8p_1b2c3d4e",
                    host: None,
                    message: format!("Successfully provisioned volume {}", v.pv),
                    count: 1,
                    first: now - 3_600 * 5,
                    last: now - 3_600 * 5,
                },
                &mut rng,
            ));
            // Where the volume is attached.
            let va_node = match (stuck, kind) {
                (true, Stuck::MultiAttach) => {
                    Some(((node_idx + 7) % (NODES - NODES_WITHOUT_DRIVER), true))
                }
                (true, Stuck::AttachTimeout) => Some((node_idx, false)),
                _ => Some((node_idx, true)),
            };
            if let Some((n, attached)) = va_node {
                c.push(v.attachment(&node_name(n), attached, &mut rng, now));
                if attached {
                    attached_on[n].push(v.handle.clone());
                }
            }
            claims.push(claim);
            pv_name = v.pv.clone();
            handle = v.handle.clone();
        }
        let created = if stuck { now - 3_600 } else { now - 3_600 * 4 };
        c.push(pod_obj(
            &PodDef {
                ns,
                name: name.clone(),
                uid: uid.clone(),
                node: node.clone(),
                app: app.clone(),
                owner_kind,
                owner,
                claims,
                configmap: Some(format!("{app}-config")),
                secret: (i % 2 == 0).then(|| format!("{app}-credentials")),
                image: IMAGES[i % IMAGES.len()],
                stuck,
                created,
            },
            &mut rng,
        ));
        if stuck {
            stuck_count += 1;
            if sample.0.is_empty() {
                sample = (ns.to_string(), name.clone());
            }
            let data = format!("data-{name}");
            let (reason, component, host, message) = match kind {
                Stuck::MultiAttach => (
                    "FailedAttachVolume",
                    "attachdetach-controller",
                    None,
                    msg_multi_attach(&pv_name),
                ),
                Stuck::AttachTimeout => (
                    "FailedAttachVolume",
                    "attachdetach-controller",
                    None,
                    msg_attach_timeout(&pv_name, &handle),
                ),
                Stuck::XfsDebug => (
                    "FailedMount",
                    "kubelet",
                    Some(node.as_str()),
                    msg_xfs_debug(&pv_name, &handle),
                ),
                Stuck::DriverMissing => (
                    "FailedMount",
                    "kubelet",
                    Some(node.as_str()),
                    msg_driver_missing(&pv_name),
                ),
            };
            let unattached: Vec<&str> = if matches!(kind, Stuck::MultiAttach | Stuck::AttachTimeout)
            {
                vec![data.as_str()]
            } else {
                Vec::new()
            };
            let evs = [
                Ev {
                    ns,
                    kind: "Pod",
                    name: &name,
                    uid: &uid,
                    reason: "Scheduled",
                    type_: "Normal",
                    component: "default-scheduler",
                    host: None,
                    message: format!("Successfully assigned {ns}/{name} to {node}"),
                    count: 1,
                    first: created + 1,
                    last: created + 1,
                },
                Ev {
                    ns,
                    kind: "Pod",
                    name: &name,
                    uid: &uid,
                    reason,
                    type_: "Warning",
                    component,
                    host,
                    message,
                    count: 12 + (i % 30) as u32,
                    first: created + 5,
                    last: now - 40,
                },
                Ev {
                    ns,
                    kind: "Pod",
                    name: &name,
                    uid: &uid,
                    reason: "FailedMount",
                    type_: "Warning",
                    component: "kubelet",
                    host: Some(node.as_str()),
                    message: msg_unable(&[data.as_str()], &unattached),
                    count: 25,
                    first: created + 125,
                    last: now - 100,
                },
            ];
            for e in &evs {
                events.push(event_obj(e, &mut rng));
            }
        } else {
            running.push((ns.to_string(), name, uid, node));
        }
    }
    // Running pods' lifecycle events, round after round, until 4 events per pod in all.
    let lifecycle = ["Scheduled", "Pulled", "Created", "Started"];
    'fill: for round in 0.. {
        for (j, (ns, name, uid, node)) in running.iter().enumerate() {
            if events.len() >= target_events {
                break 'fill;
            }
            let reason = lifecycle[round % lifecycle.len()];
            events.push(event_obj(
                &lifecycle_event(ns, name, uid, reason, node, IMAGES[j % IMAGES.len()], now),
                &mut rng,
            ));
        }
        if running.is_empty() {
            break;
        }
    }
    for (i, attached) in attached_on.iter().enumerate() {
        c.push(node_obj(&node_name(i), i, &mut rng, now, attached));
        c.push(csinode_obj(
            &node_name(i),
            i,
            i < NODES - NODES_WITHOUT_DRIVER,
            &mut rng,
            now,
        ));
    }
    let n_events = events.len();
    c.objects.extend(events);
    (
        c,
        BigStats {
            pods,
            stuck: stuck_count,
            events: n_events,
            sample,
        },
    )
}

struct NsRow {
    pods: usize,
    events: usize,
    cluster_mib: f64,
    served_mib: f64,
    wall: Duration,
    requests: usize,
    pages: usize,
    round_trips: usize,
    rss_kib: Option<u64>,
    server_cpu: Duration,
    /// Wall time minus the injected latency and the fake server's answers on the critical path.
    own: Duration,
    /// volmnt's user + system CPU time.
    cpu: Option<Duration>,
    stuck: usize,
    found: usize,
}

fn bench_namespace(bin: &Path, tmp: &Path, sizes: &[(usize, usize)], latency: Duration) {
    println!();
    println!(
        "== 2. doctor namespace -A: {} namespaces, {NODES} nodes, 4 events per pod, one pod in five stuck unless said, latency {} ms ==",
        NAMESPACES.len(),
        latency.as_millis()
    );
    let mut rows = Vec::new();
    for &(n, n_stuck) in sizes {
        let t = Instant::now();
        let (cluster, stats) = big_cluster(n, n_stuck, 0x5eed_1000);
        // Summary keys: live_ns_5000_ms, or live_ns_10000s200_ms when not one pod in five.
        let tag = if n_stuck == n / 5 {
            n.to_string()
        } else {
            format!("{n}s{n_stuck}")
        };
        let gen = t.elapsed();
        let checked = check_deserializes(&cluster.objects, 200);
        let (by_kind, bytes) = census(&cluster.objects);
        println!();
        println!(
            "-- {} pods ({} stuck), {} events: {} objects, {:.1} MiB as JSON (generated in {:.0} ms, {checked} checked with k8s-openapi)",
            stats.pods,
            stats.stuck,
            stats.events,
            cluster.objects.len(),
            bytes as f64 / MIB,
            ms(gen)
        );
        println!("   {}", census_line(&by_kind));
        let t = Instant::now();
        let (api, thread) = start_in_background(
            cluster,
            Options {
                latency,
                ..Options::default()
            },
        );
        println!("   fake server loaded in {:.0} ms", ms(t.elapsed()));
        let dir = tmp.join(format!("ns-{tag}"));
        let kubeconfig = api.write_kubeconfig(&dir, "default");
        api.reset_requests();
        let cpu0 = server_cpu_ns();
        let r = run_volmnt(bin, &["doctor", "namespace", "-A"], &kubeconfig, &dir, "ns");
        let server_cpu = Duration::from_nanos(server_cpu_ns().saturating_sub(cpu0));
        let reqs = api.requests();
        let in_flight = api.max_in_flight();
        assert!(
            r.code == 1,
            "doctor namespace: exit {}: {}",
            r.code,
            r.stderr
        );
        assert_eq!(
            Some(reqs.len()),
            r.reported,
            "the server saw {} requests, volmnt -v says {:?}",
            reqs.len(),
            r.reported
        );
        let out_bytes = std::fs::metadata(&r.stdout).map_or(0, |m| m.len());
        let doc = read_json(&r.stdout);
        let found = doc["stuck_pods"].as_u64().unwrap_or(0) as usize;
        let groups: Vec<String> = {
            let mut by_cause: BTreeMap<String, usize> = BTreeMap::new();
            for g in doc["summary"].as_array().into_iter().flatten() {
                *by_cause
                    .entry(g["cause"].as_str().unwrap_or("?").to_string())
                    .or_default() += g["pods"].as_array().map_or(0, Vec::len);
            }
            by_cause.iter().map(|(c, n)| format!("{c} {n}")).collect()
        };
        drop(doc);
        let mut pages: BTreeMap<String, usize> = BTreeMap::new();
        for q in reqs.iter().filter(|q| q.verb == "list") {
            let res = if q.group.is_empty() {
                q.resource.clone()
            } else {
                format!("{}.{}", q.resource, q.group)
            };
            *pages.entry(res).or_default() += 1;
        }
        let n_pages: usize = pages.values().sum();
        let w = waves(&reqs);
        api.set_latency(Duration::ZERO);
        let rep = replay(&api, &reqs);
        let served = rep.bytes;
        let critical = rep.critical(&w);
        let injected = latency * w.len() as u32;
        let own = r.wall.saturating_sub(critical + injected);
        println!(
            "   wall {:.0} ms; {} requests (server log = volmnt -v), {n_pages} list pages, {} round trips in sequence (waves), up to {in_flight} in flight",
            ms(r.wall),
            reqs.len(),
            w.len()
        );
        println!(
            "   pages: {}",
            pages
                .iter()
                .map(|(k, v)| format!("{k} {v}"))
                .collect::<Vec<_>>()
                .join(", ")
        );
        println!(
            "   peak RSS of volmnt {}; served {:.1} MiB of JSON ({:.1} MiB in the cluster); report {:.1} MiB",
            fmt_rss(r.rss_kib),
            served as f64 / MIB,
            bytes as f64 / MIB,
            out_bytes as f64 / MIB
        );
        println!(
            "   fake server: {:.0} ms CPU during the run ({:.0}% of the wall time); the same requests answered again one by one at latency 0 take {:.0} ms in all (slowest {:.1} ms)",
            ms(server_cpu),
            100.0 * server_cpu.as_secs_f64() / r.wall.as_secs_f64(),
            ms(rep.total()),
            ms(rep.slowest()),
        );
        println!(
            "   wall {:.0} ms = injected latency {:.0} ms ({} round trips) + fake server on the critical path ~{:.0} ms (slowest answer of each wave) + the rest ~{:.0} ms (volmnt: start, decode, diagnose, report; transfer); volmnt used {} of CPU",
            ms(r.wall),
            ms(injected),
            w.len(),
            ms(critical),
            ms(own),
            r.cpu.map_or("n/a".into(), |c| format!("{:.0} ms", ms(c)))
        );
        print_waves(&reqs, &w, &rep, false);
        println!(
            "   stuck pods reported: {found} of {} generated; by top cause: {}",
            stats.stuck,
            groups.join(", ")
        );
        // doctor pod on one of the stuck pods of this cluster: its cluster-wide and
        // namespace-wide lists now have several pages.
        api.set_latency(latency);
        let (pod_ns, pod_name) = &stats.sample;
        let target = PodTarget {
            api: &api,
            kubeconfig: &kubeconfig,
            dir: &dir,
            namespace: pod_ns,
            pod: pod_name,
        };
        println!("   doctor pod {pod_name} -n {pod_ns} on this cluster:");
        let fp = pod_runs(bin, &target, 1, latency, "d");
        drop(api);
        let _ = thread.join();
        let key = format!("live_ns_{tag}");
        summary(&format!("{key}_ms"), &format!("{:.0}", ms(r.wall)), "ms");
        summary(
            &format!("{key}_requests"),
            &reqs.len().to_string(),
            "requests",
        );
        summary(&format!("{key}_pages"), &n_pages.to_string(), "pages");
        summary(
            &format!("{key}_round_trips"),
            &w.len().to_string(),
            "round trips",
        );
        summary(
            &format!("{key}_rss_mib"),
            &r.rss_kib
                .map_or("n/a".into(), |k| format!("{:.1}", k as f64 / 1024.0)),
            "MiB",
        );
        summary(
            &format!("{key}_served_mib"),
            &format!("{:.1}", served as f64 / MIB),
            "MiB",
        );
        summary(
            &format!("{key}_cluster_mib"),
            &format!("{:.1}", bytes as f64 / MIB),
            "MiB",
        );
        summary(
            &format!("{key}_server_cpu_ms"),
            &format!("{:.0}", ms(server_cpu)),
            "ms",
        );
        summary(
            &format!("{key}_stuck"),
            &format!("{found}/{}", stats.stuck),
            "pods",
        );
        summary(&format!("{key}_own_ms"), &format!("{:.0}", ms(own)), "ms");
        summary(
            &format!("{key}_pod_ms"),
            &format!("{:.0}", ms(fp.median)),
            "ms",
        );
        summary(&format!("{key}_pod_waves"), &fp.waves.to_string(), "waves");
        summary(
            &format!("{key}_pod_requests"),
            &fp.requests.to_string(),
            "requests",
        );
        rows.push(NsRow {
            pods: n,
            events: stats.events,
            cluster_mib: bytes as f64 / MIB,
            served_mib: served as f64 / MIB,
            wall: r.wall,
            requests: reqs.len(),
            pages: n_pages,
            round_trips: w.len(),
            rss_kib: r.rss_kib,
            server_cpu,
            own,
            cpu: r.cpu,
            stuck: stats.stuck,
            found,
        });
        if let Some(c) = r.cpu {
            summary(&format!("{key}_cpu_ms"), &format!("{:.0}", ms(c)), "ms");
        }
    }
    if rows.is_empty() {
        return;
    }
    println!();
    println!("growth with cluster size:");
    println!(
        "    {:>6} {:>6} {:>6} {:>8} {:>7} {:>8} {:>6} {:>8} {:>5} {:>7} {:>8} {:>9} {:>8} {:>9}",
        "pods",
        "stuck",
        "events",
        "clust.MiB",
        "served",
        "wall ms",
        "reqs",
        "pages",
        "trips",
        "RSS MiB",
        "srv CPU",
        "volmnt ms",
        "vol. CPU",
        "found"
    );
    for r in &rows {
        println!(
            "    {:>6} {:>6} {:>6} {:>9.1} {:>7.1} {:>8.0} {:>6} {:>8} {:>5} {:>7} {:>8.0} {:>9.0} {:>8} {:>9}",
            r.pods,
            r.stuck,
            r.events,
            r.cluster_mib,
            r.served_mib,
            ms(r.wall),
            r.requests,
            r.pages,
            r.round_trips,
            r.rss_kib
                .map_or("n/a".into(), |k| format!("{:.1}", k as f64 / 1024.0)),
            ms(r.server_cpu),
            ms(r.own),
            r.cpu.map_or("n/a".into(), |c| format!("{:.0}", ms(c))),
            format!("{}/{}", r.found, r.stuck)
        );
    }
    println!("    (served: MiB of JSON the server sent; trips: round trips in sequence; srv CPU: the fake server's CPU ms; volmnt ms: wall minus injected latency and the server's answers on the critical path, a rough estimate, near 0 when the fake server dominates; vol. CPU: volmnt's user+system ms, measured)");
    let growth = |a: &NsRow, b: &NsRow, what: &str, key: &str| {
        if let (Some(ra), Some(rb)) = (a.rss_kib, b.rss_kib) {
            let rss_x = rb as f64 / ra as f64;
            let json_x = b.served_mib / a.served_mib.max(1e-9);
            println!(
                "    {what}: {} pods/{} stuck → {} pods/{} stuck: served JSON x{json_x:.1}, peak RSS x{rss_x:.2} ({:+.1} MiB, {:.2} MiB of RSS per MiB served more)",
                a.pods,
                a.stuck,
                b.pods,
                b.stuck,
                (rb as f64 - ra as f64) / 1024.0,
                (rb as f64 - ra as f64) / 1024.0 / (b.served_mib - a.served_mib).max(1e-9)
            );
            summary(
                key,
                &format!("x{rss_x:.2}"),
                &format!(
                    "peak RSS, for x{json_x:.1} JSON served ({}→{} pods, {}→{} stuck)",
                    a.pods, b.pods, a.stuck, b.stuck
                ),
            );
        }
    };
    // One pod in five stuck: smallest vs largest.
    let prop: Vec<&NsRow> = rows.iter().filter(|r| r.stuck == r.pods / 5).collect();
    if let (Some(a), Some(b)) = (prop.first(), prop.last()) {
        if b.pods > a.pods {
            growth(a, b, "cluster and stuck pods grow", "live_ns_rss_growth");
        }
    }
    // The same number of stuck pods, a bigger cluster: what the cluster's size alone costs.
    for b in &rows {
        if let Some(a) = rows.iter().find(|a| a.stuck == b.stuck && a.pods < b.pods) {
            growth(
                a,
                b,
                "only the cluster grows",
                "live_ns_rss_growth_fixed_stuck",
            );
        }
    }
}
