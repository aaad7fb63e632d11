//! `volmnt watch` at scale (`cargo bench --bench watch`; scripts/bench.sh runs it): the release
//! binary against the in-process fake API server (tests/support/fake_api.rs) holding a generated
//! cluster of 50,000 pods over 2,000 nodes in 20 namespaces, 500 of them stuck on NFS volumes
//! (Pending in ContainerCreating, a FailedMount "exit status 32 ... mount.<type> helper" event
//! each, their nodes without an NFS client), 5,000 running pods with claims (bound NFS PVs), the
//! rest running with a ConfigMap, and 2,000 other Warning events.
//!
//! Figures:
//! 1. start-up: time to the synced cache, and to the 500th VolumeDiagnosis Event created;
//! 2. steady-state memory of volmnt (VmRSS once everything is written and a few seconds have
//!    passed; VmHWM, the peak, which the initial lists set);
//! 3. event-to-diagnosis latency: kubelet repeats a FailedMount (the same Event, count + 1, as
//!    its recorder does) on one stuck pod at a time; the time from that write to volmnt's
//!    patch of the pod's VolumeDiagnosis Event arriving at the server (`--event-refresh 1ms`, so
//!    every re-diagnosis is written): median, p90, max over the samples;
//!    Then pods that become stuck now (the pod appears, then its first FailedMount): the time
//!    from that event to the create of the pod's VolumeDiagnosis Event (up to 20 pods);
//! 4. API requests per minute once synced: every request volmnt sends during a quiet minute, by
//!    verb and resource (no relisting: lists must be 0), the Lease renewals among them.
//!
//! Environment: `VOLMNT_BENCH_WATCH` (`PODS:STUCK:NODES`, default `50000:500:2000`),
//! `VOLMNT_BENCH_WATCH_SAMPLES` (latency samples, default 50), `VOLMNT_BENCH_WATCH_STEADY_SECS`
//! (the quiet period, default 60), `VOLMNT_BENCH_SUMMARY=FILE` (append headline figures as TSV).

#[path = "../tests/support/fake_api.rs"]
mod fake_api;

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use fake_api::{rfc3339_secs, start_in_background, FakeApi, FakeCluster, Options};
use serde_json::json;

const NAMESPACES: usize = 20;

fn env_or(name: &str, default: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| default.to_string())
}

fn summary(key: &str, value: &str, unit: &str) {
    if let Ok(path) = std::env::var("VOLMNT_BENCH_SUMMARY") {
        if let Ok(mut f) = std::fs::OpenOptions::new()
            .append(true)
            .create(true)
            .open(path)
        {
            let _ = writeln!(f, "{key}\t{value}\t{unit}");
        }
    }
}

fn now_secs() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64
}

const NFS_MSG: &str = "MountVolume.SetUp failed for volume \"{pv}\" : mount failed: exit status 32\nMounting command: systemd-run\nMounting arguments: --description=Kubernetes transient mount for /var/lib/kubelet/pods/{uid}/volumes/kubernetes.io~nfs/{pv} --scope -- mount -t nfs {server}:/export/{pv} /var/lib/kubelet/pods/{uid}/volumes/kubernetes.io~nfs/{pv}\nOutput: Running scope as unit: run-r1.scope\nmount: wrong fs type, bad option, bad superblock on {server}:/export/{pv}, missing codepage or helper program, or other error\n(for several filesystems (e.g. nfs, cifs) you might need a /sbin/mount.<type> helper program)";

fn uid(i: usize, kind: u8) -> String {
    format!("{kind:02x}{i:06x}-0000-4000-8000-{i:012x}")
}

/// The generated cluster, and the stuck pods' (namespace, name, FailedMount event name).
fn generate(
    pods: usize,
    stuck: usize,
    nodes: usize,
) -> (FakeCluster, Vec<(String, String, String)>) {
    let mut c = FakeCluster::new();
    let now = now_secs();
    let created = rfc3339_secs(now - 3600);
    for n in 0..nodes {
        let os = if n % 2 == 0 {
            "Ubuntu 22.04.4 LTS"
        } else {
            "Rocky Linux 9.3 (Blue Onyx)"
        };
        c.push(json!({
            "apiVersion": "v1", "kind": "Node",
            "metadata": { "name": format!("node-{n:04}"), "creationTimestamp": created,
                "labels": { "kubernetes.io/hostname": format!("node-{n:04}"), "kubernetes.io/os": "linux",
                    "topology.kubernetes.io/zone": format!("zone-{}", n % 3) } },
            "spec": { "podCIDR": format!("10.{}.{}.0/24", 100 + n / 256, n % 256) },
            "status": {
                "addresses": [{ "type": "InternalIP", "address": format!("10.0.{}.{}", n / 256, n % 256) },
                              { "type": "Hostname", "address": format!("node-{n:04}") }],
                "conditions": [{ "type": "Ready", "status": "True", "reason": "KubeletReady",
                    "lastHeartbeatTime": created, "lastTransitionTime": created }],
                "nodeInfo": { "osImage": os, "kernelVersion": "5.15.0-105-generic",
                    "kubeletVersion": "v1.33.1", "containerRuntimeVersion": "containerd://1.7.13",
                    "architecture": "amd64", "operatingSystem": "linux" },
                "images": (0..30).map(|k| json!({ "names": [format!("registry.example.com/app/image-{k}@sha256:{:064x}", k)], "sizeBytes": 50_000_000 + k })).collect::<Vec<_>>(),
            },
        }));
    }
    c.push(json!({
        "apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
        "metadata": { "name": "nfs", "creationTimestamp": created },
        "provisioner": "example.com/nfs", "reclaimPolicy": "Retain", "volumeBindingMode": "Immediate",
    }));
    for ns in 0..NAMESPACES {
        c.push(json!({
            "apiVersion": "v1", "kind": "ConfigMap",
            "metadata": { "name": "app-config", "namespace": format!("ns-{ns:02}"), "creationTimestamp": created },
            "data": { "app.yaml": "level: info\n" },
        }));
    }
    let with_claims = stuck + (pods / 10).min(pods.saturating_sub(stuck));
    let mut stuck_list = Vec::new();
    for i in 0..pods {
        let ns = format!("ns-{:02}", i % NAMESPACES);
        let node = format!("node-{:04}", (i * 7) % nodes);
        let name = format!("app-{i:05}-{}", &uid(i, 1)[..5]);
        let pod_uid = uid(i, 1);
        let is_stuck = i < stuck;
        let claim = (i < with_claims).then(|| format!("data-{i:05}"));
        let pv = format!("pv-{i:05}");
        let server = format!("10.20.{}.{}", (i / 250) % 250, i % 250 + 1);
        if let Some(cl) = &claim {
            c.push(json!({
                "apiVersion": "v1", "kind": "PersistentVolumeClaim",
                "metadata": { "name": cl, "namespace": ns, "uid": uid(i, 2), "creationTimestamp": created },
                "spec": { "accessModes": ["ReadWriteMany"], "storageClassName": "nfs", "volumeName": pv,
                    "resources": { "requests": { "storage": "10Gi" } } },
                "status": { "phase": "Bound", "accessModes": ["ReadWriteMany"], "capacity": { "storage": "10Gi" } },
            }));
            c.push(json!({
                "apiVersion": "v1", "kind": "PersistentVolume",
                "metadata": { "name": pv, "uid": uid(i, 3), "creationTimestamp": created },
                "spec": { "accessModes": ["ReadWriteMany"], "capacity": { "storage": "10Gi" },
                    "nfs": { "server": server, "path": format!("/export/{pv}") },
                    "persistentVolumeReclaimPolicy": "Retain", "storageClassName": "nfs",
                    "claimRef": { "kind": "PersistentVolumeClaim", "namespace": ns, "name": cl, "uid": uid(i, 2) } },
                "status": { "phase": "Bound" },
            }));
        }
        let mut volumes = vec![
            json!({ "name": "config", "configMap": { "name": "app-config" } }),
            json!({ "name": "kube-api-access", "projected": { "sources": [
                { "serviceAccountToken": { "path": "token", "expirationSeconds": 3607 } },
                { "configMap": { "name": "kube-root-ca.crt", "items": [{ "key": "ca.crt", "path": "ca.crt" }], "optional": true } },
            ] } }),
        ];
        if let Some(cl) = &claim {
            volumes.push(json!({ "name": "data", "persistentVolumeClaim": { "claimName": cl } }));
        }
        let status = if is_stuck {
            json!({ "phase": "Pending", "hostIP": format!("10.0.{}.{}", ((i * 7) % nodes) / 256, ((i * 7) % nodes) % 256),
                "conditions": [{ "type": "PodScheduled", "status": "True", "lastTransitionTime": created }],
                "containerStatuses": [{ "name": "app", "image": "registry.example.com/app:1.4", "imageID": "",
                    "ready": false, "restartCount": 0, "started": false,
                    "state": { "waiting": { "reason": "ContainerCreating" } } }] })
        } else {
            json!({ "phase": "Running", "hostIP": "10.0.0.1", "podIP": format!("10.{}.{}.{}", 100 + i / 65536, (i / 256) % 256, i % 256),
                "conditions": [{ "type": "Ready", "status": "True", "lastTransitionTime": created }],
                "containerStatuses": [{ "name": "app", "image": "registry.example.com/app:1.4", "imageID": "registry.example.com/app@sha256:00",
                    "ready": true, "restartCount": 0, "started": true,
                    "state": { "running": { "startedAt": created } } }] })
        };
        c.push(json!({
            "apiVersion": "v1", "kind": "Pod",
            "metadata": { "name": name, "namespace": ns, "uid": pod_uid, "creationTimestamp": created,
                "labels": { "app": format!("app-{}", i % 200), "pod-template-hash": "5d8f7c9b6d" },
                "ownerReferences": [{ "apiVersion": "apps/v1", "kind": "ReplicaSet", "name": format!("app-{}-5d8f7c9b6d", i % 200),
                    "uid": uid(i % 200, 4), "controller": true, "blockOwnerDeletion": true }] },
            "spec": { "nodeName": node, "volumes": volumes, "serviceAccountName": "default",
                "containers": [{ "name": "app", "image": "registry.example.com/app:1.4",
                    "env": [{ "name": "LOG_LEVEL", "value": "info" }],
                    "resources": { "requests": { "cpu": "100m", "memory": "128Mi" } },
                    "volumeMounts": [{ "name": "config", "mountPath": "/etc/app" }, { "name": "kube-api-access", "mountPath": "/var/run/secrets/kubernetes.io/serviceaccount", "readOnly": true }] }] },
            "status": status,
        }));
        if is_stuck {
            let ev_name = format!("{name}.{:016x}", i as u64 * 7919 + 17);
            let msg = NFS_MSG
                .replace("{pv}", &pv)
                .replace("{uid}", &pod_uid)
                .replace("{server}", &server);
            c.push(json!({
                "apiVersion": "v1", "kind": "Event",
                "metadata": { "name": ev_name, "namespace": ns, "creationTimestamp": rfc3339_secs(now - 3500) },
                "involvedObject": { "apiVersion": "v1", "kind": "Pod", "name": name, "namespace": ns, "uid": pod_uid },
                "reason": "FailedMount", "type": "Warning", "message": msg, "count": 5,
                "firstTimestamp": rfc3339_secs(now - 3500), "lastTimestamp": rfc3339_secs(now - 60),
                "source": { "component": "kubelet", "host": node },
                "reportingComponent": "kubelet", "reportingInstance": node,
            }));
            stuck_list.push((ns.clone(), name.clone(), ev_name));
        }
    }
    for k in 0..2000usize {
        let i = stuck + (k * 23) % pods.saturating_sub(stuck).max(1);
        let ns = format!("ns-{:02}", i % NAMESPACES);
        let name = format!("app-{i:05}-{}", &uid(i, 1)[..5]);
        c.push(json!({
            "apiVersion": "v1", "kind": "Event",
            "metadata": { "name": format!("{name}.{k:016x}"), "namespace": ns, "creationTimestamp": created },
            "involvedObject": { "apiVersion": "v1", "kind": "Pod", "name": name, "namespace": ns, "uid": uid(i, 1) },
            "reason": "BackOff", "type": "Warning", "message": "Back-off restarting failed container app in pod",
            "count": 3, "firstTimestamp": created, "lastTimestamp": created,
            "source": { "component": "kubelet", "host": "node-0000" },
        }));
    }
    (c, stuck_list)
}

fn proc_status(pid: u32, field: &str) -> Option<f64> {
    let s = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = s.lines().find(|l| l.starts_with(field))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024.0)
}

fn main() {
    let spec = env_or("VOLMNT_BENCH_WATCH", "50000:500:2000");
    let parts: Vec<usize> = spec.split(':').filter_map(|p| p.parse().ok()).collect();
    let (pods, stuck, nodes) = match parts.as_slice() {
        [p, s, n] => (*p, *s, *n),
        _ => panic!("VOLMNT_BENCH_WATCH must be PODS:STUCK:NODES, got {spec}"),
    };
    let samples: usize = env_or("VOLMNT_BENCH_WATCH_SAMPLES", "50").parse().unwrap();
    let steady: u64 = env_or("VOLMNT_BENCH_WATCH_STEADY_SECS", "60")
        .parse()
        .unwrap();

    let t = Instant::now();
    let (cluster, stuck_pods) = generate(pods, stuck, nodes);
    let objects = cluster.objects.len();
    let (api, _thread) = start_in_background(cluster, Options::default());
    eprintln!(
        "cluster: {pods} pods ({stuck} stuck), {nodes} nodes, {objects} objects in all; generated and loaded in {:.1} s",
        t.elapsed().as_secs_f64()
    );
    let dir = std::env::temp_dir().join(format!("volmnt-bench-watch-{}", std::process::id()));
    let kubeconfig = api.write_kubeconfig(&dir, "ns-00");

    let start = Instant::now();
    let mut child = Command::new(env!("CARGO_BIN_EXE_volmnt"))
        .args([
            "watch",
            "-A",
            "--min-age",
            "1m",
            "--listen",
            "127.0.0.1:0",
            "--event-refresh",
            "1ms",
            "--lease-namespace",
            "ns-00",
        ])
        .arg("--kubeconfig")
        .arg(&kubeconfig)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start volmnt watch");
    let pid = child.id();
    let synced_at: Arc<Mutex<Option<Duration>>> = Arc::new(Mutex::new(None));
    let log_tail: Arc<Mutex<Vec<String>>> = Arc::new(Mutex::new(Vec::new()));
    {
        let stderr = child.stderr.take().unwrap();
        let synced_at = synced_at.clone();
        let tail = log_tail.clone();
        std::thread::spawn(move || {
            for l in BufReader::new(stderr).lines().map_while(Result::ok) {
                if l.contains("watch cache synced") {
                    *synced_at.lock().unwrap() = Some(start.elapsed());
                }
                let mut t = tail.lock().unwrap();
                if !l.contains(": Event ") && t.len() < 50 {
                    t.push(l);
                }
            }
        });
    }
    let created = |api: &FakeApi| {
        api.requests()
            .iter()
            .filter(|r| r.resource == "events" && r.verb == "create" && r.status == 201)
            .count()
    };
    let mut peak_during_start = 0.0f64;
    loop {
        peak_during_start = peak_during_start.max(proc_status(pid, "VmRSS:").unwrap_or(0.0));
        if created(&api) >= stuck {
            break;
        }
        if start.elapsed() > Duration::from_secs(600) {
            let _ = child.kill();
            panic!(
                "no {stuck} Events within 10 minutes ({} written); log:\n{}",
                created(&api),
                log_tail.lock().unwrap().join("\n")
            );
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let all_written = start.elapsed();
    let synced = synced_at.lock().unwrap().unwrap_or_default();
    println!(
        "start-up: cache synced in {:.1} s; {stuck} VolumeDiagnosis Events created after {:.1} s",
        synced.as_secs_f64(),
        all_written.as_secs_f64()
    );
    std::thread::sleep(Duration::from_secs(5));
    let rss = proc_status(pid, "VmRSS:").unwrap_or(0.0);
    let hwm = proc_status(pid, "VmHWM:").unwrap_or(0.0);
    println!("memory: steady VmRSS {rss:.1} MiB (goal <= 200 MiB); peak VmHWM {hwm:.1} MiB");
    summary(
        "watch_synced_s",
        &format!("{:.1}", synced.as_secs_f64()),
        "s",
    );
    summary("watch_rss_mib", &format!("{rss:.1}"), "MiB");
    summary("watch_hwm_mib", &format!("{hwm:.1}"), "MiB");

    // Event-to-diagnosis latency.
    let mut lat: Vec<Duration> = Vec::new();
    for (k, (ns, pod, ev_name)) in stuck_pods.iter().cycle().take(samples).enumerate() {
        let mut ev = api
            .object("Event", Some(ns), ev_name)
            .expect("the FailedMount event");
        let count = ev["count"].as_i64().unwrap_or(1);
        ev["count"] = json!(count + 1);
        ev["lastTimestamp"] = json!(rfc3339_secs(now_secs()));
        let before = api.requests().len();
        let t0 = Instant::now();
        api.apply(ev);
        let prefix = format!("{pod}.");
        let got = loop {
            let reqs = api.requests();
            if let Some(r) = reqs[before.min(reqs.len())..].iter().find(|r| {
                r.resource == "events"
                    && r.verb == "patch"
                    && r.namespace.as_deref() == Some(ns.as_str())
                    && r.name.as_deref().is_some_and(|n| n.starts_with(&prefix))
            }) {
                break Some(r.at.saturating_duration_since(t0));
            }
            if t0.elapsed() > Duration::from_secs(30) {
                break None;
            }
            std::thread::sleep(Duration::from_millis(2));
        };
        match got {
            Some(d) => lat.push(d),
            None => eprintln!("sample {k}: no Event update within 30 s"),
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    lat.sort();
    if !lat.is_empty() {
        let pct = |p: f64| lat[((lat.len() - 1) as f64 * p).round() as usize];
        println!(
            "latency FailedMount -> VolumeDiagnosis update: median {:.0} ms, p90 {:.0} ms, max {:.0} ms over {} samples (goal: median <= 2 s)",
            pct(0.5).as_secs_f64() * 1000.0,
            pct(0.9).as_secs_f64() * 1000.0,
            lat.last().unwrap().as_secs_f64() * 1000.0,
            lat.len()
        );
        summary(
            "watch_latency_median_ms",
            &format!("{:.0}", pct(0.5).as_secs_f64() * 1000.0),
            "ms",
        );
    }

    // A pod that becomes stuck now: the pod appears (Pending, past --min-age), then kubelet's
    // first FailedMount; the time from that event's write to the create of the pod's
    // VolumeDiagnosis Event naming the cause.
    let mut first: Vec<Duration> = Vec::new();
    for (k, (ns, pod, ev_name)) in stuck_pods.iter().take(samples.min(20)).enumerate() {
        let mut p = api.object("Pod", Some(ns), pod).expect("a stuck pod");
        let mut ev = api
            .object("Event", Some(ns), ev_name)
            .expect("its FailedMount event");
        let name = format!("{pod}-late{k}");
        let new_uid = format!("0000beef-0000-4000-8000-{:012x}", k);
        p["metadata"]["name"] = json!(name);
        p["metadata"]["uid"] = json!(new_uid);
        p["metadata"]
            .as_object_mut()
            .unwrap()
            .remove("resourceVersion");
        api.apply(p);
        std::thread::sleep(Duration::from_millis(300));
        ev["metadata"]["name"] = json!(format!("{name}.late"));
        ev["metadata"]
            .as_object_mut()
            .unwrap()
            .remove("resourceVersion");
        ev["involvedObject"]["name"] = json!(name);
        ev["involvedObject"]["uid"] = json!(new_uid);
        ev["count"] = json!(1);
        ev["firstTimestamp"] = json!(rfc3339_secs(now_secs()));
        ev["lastTimestamp"] = json!(rfc3339_secs(now_secs()));
        let before = api.requests().len();
        let t0 = Instant::now();
        api.apply(ev);
        let prefix = format!("{name}.");
        let got = loop {
            let reqs = api.requests();
            if let Some(r) = reqs[before.min(reqs.len())..].iter().find(|r| {
                r.resource == "events"
                    && r.verb == "create"
                    && r.namespace.as_deref() == Some(ns.as_str())
                    && r.body.contains(&prefix)
                    && r.body.contains("nfs_client_missing")
            }) {
                break Some(r.at.saturating_duration_since(t0));
            }
            if t0.elapsed() > Duration::from_secs(30) {
                break None;
            }
            std::thread::sleep(Duration::from_millis(2));
        };
        match got {
            Some(d) => first.push(d),
            None => eprintln!("new pod {k}: no VolumeDiagnosis Event within 30 s"),
        }
    }
    first.sort();
    if !first.is_empty() {
        let pct = |p: f64| first[((first.len() - 1) as f64 * p).round() as usize];
        println!(
            "latency first FailedMount of a newly stuck pod -> its VolumeDiagnosis Event created: median {:.0} ms, p90 {:.0} ms, max {:.0} ms over {} pods (goal: median <= 2 s)",
            pct(0.5).as_secs_f64() * 1000.0,
            pct(0.9).as_secs_f64() * 1000.0,
            first.last().unwrap().as_secs_f64() * 1000.0,
            first.len()
        );
        summary(
            "watch_first_event_median_ms",
            &format!("{:.0}", pct(0.5).as_secs_f64() * 1000.0),
            "ms",
        );
    }

    // Requests once synced.
    api.reset_requests();
    std::thread::sleep(Duration::from_secs(steady));
    let reqs = api.requests();
    let mut by: BTreeMap<String, usize> = BTreeMap::new();
    for r in &reqs {
        *by.entry(format!("{} {}", r.verb, r.resource)).or_default() += 1;
    }
    let per_min = reqs.len() as f64 * 60.0 / steady as f64;
    let lists = reqs.iter().filter(|r| r.verb == "list").count();
    let leases = reqs.iter().filter(|r| r.resource == "leases").count();
    println!(
        "requests once synced: {per_min:.1}/min over {steady} s ({lists} lists; {:.1}/min are the Lease renewals): {by:?}",
        leases as f64 * 60.0 / steady as f64
    );
    let rss2 = proc_status(pid, "VmRSS:").unwrap_or(0.0);
    println!("memory after the quiet period: VmRSS {rss2:.1} MiB");
    summary(
        "watch_requests_per_min",
        &format!("{per_min:.1}"),
        "req/min",
    );

    let _ = Command::new("kill")
        .args(["-TERM", &pid.to_string()])
        .status();
    let _ = child.wait();
    let _ = std::fs::remove_dir_all(&dir);
    eprintln!(
        "volmnt watch log (first lines):\n{}",
        log_tail.lock().unwrap().join("\n")
    );
}
