#!/usr/bin/env python3
"""Speed of volmnt against the REAL apiserver of scripts/real-cluster.sh (loopback only):
whole processes timed in pairs (A B A B ..., each run its own process), medians and max RSS.

  bench-real.py pod NAMESPACE POD [-n RUNS]
      volmnt doctor pod  vs  kubectl describe pod  vs  one raw GET of the pod (curl)
  bench-real.py populate [--pods 5000] [--events 20000] [--stuck 200] [--nodes 50]
      namespace volmnt-bench: pods bound to API-only nodes (no kubelet runs them), the stuck
      ones Pending/ContainerCreating with inline NFS volumes and kubelet-worded FailedMount
      events, the rest Running; plus unrelated events, up to --events in all
  bench-real.py namespace [-n RUNS]
      volmnt doctor namespace -A  vs  kubectl get pods,events -A -o json
  bench-real.py watch [-n RUNS]
      volmnt watch -A: from start to the cache synced and to every stuck pod's Event written
  bench-real.py clean
      delete what populate made (pods, events, nodes; the namespace stays: without the
      controllers a deleted namespace never goes)

KUBECONFIG (default $K8S_ROOT/kubeconfig), VOLMNT (default target/release/volmnt). The
apiserver must be on 127.0.0.1.
"""
import argparse
import concurrent.futures
import http.client
import json
import os
import re
import ssl
import statistics
import subprocess
import sys
import tempfile
import threading
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
K8S_ROOT = os.environ.get("K8S_ROOT", os.path.join(os.path.dirname(REPO), "k8s-env"))
KUBECONFIG = os.environ.get("KUBECONFIG") or os.path.join(K8S_ROOT, "kubeconfig")
VOLMNT = os.environ.get("VOLMNT") or os.path.join(REPO, "target/release/volmnt")
NS = "volmnt-bench"
BENCH = "volmnt.io/bench"


def cluster():
    """(host, port, ca file, token) of the kubeconfig's current context (kubectl reads it)."""
    import base64

    out = subprocess.run(["kubectl", "config", "view", "--raw", "--minify", "-o", "json",
                          "--kubeconfig", KUBECONFIG], capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit("bench-real.py: cannot read " + KUBECONFIG + ": " + out.stderr.strip())
    kc = json.loads(out.stdout)
    cl = kc["clusters"][0]["cluster"]
    user = kc["users"][0]["user"]
    m = re.match(r"https://([^:/]+):(\d+)", cl["server"])
    host, port = m.group(1), int(m.group(2))
    if host not in ("127.0.0.1", "localhost"):
        sys.exit(f"bench-real.py: {cl['server']} is not on loopback")
    ca = tempfile.NamedTemporaryFile("wb", delete=False, suffix=".crt")
    ca.write(base64.b64decode(cl["certificate-authority-data"]))
    ca.close()
    return host, port, ca.name, user["token"]


HOST, PORT, CA, TOKEN = cluster()
_local = threading.local()


def api(method, path, body=None, ok=(200, 201, 404, 409), accept="application/json"):
    """One request on this thread's keep-alive connection: (status, decoded body)."""
    c = getattr(_local, "conn", None)
    if c is None:
        ctx = ssl.create_default_context(cafile=CA)
        c = _local.conn = http.client.HTTPSConnection(HOST, PORT, context=ctx, timeout=60)
    data = json.dumps(body).encode() if body is not None else None
    headers = {"Authorization": "Bearer " + TOKEN, "Accept": accept}
    if data is not None:
        headers["Content-Type"] = (
            "application/merge-patch+json" if method == "PATCH" else "application/json"
        )
    for attempt in range(3):
        try:
            c.request(method, path, body=data, headers=headers)
            r = c.getresponse()
            out = r.read()
            break
        except (http.client.HTTPException, OSError):
            c.close()
            ctx = ssl.create_default_context(cafile=CA)
            c = _local.conn = http.client.HTTPSConnection(HOST, PORT, context=ctx, timeout=60)
            if attempt == 2:
                raise
    if r.status not in ok:
        raise RuntimeError(f"{method} {path}: {r.status} {out[:300]!r}")
    return r.status, (json.loads(out) if out else None)


def parallel(fn, items, workers=8):
    with concurrent.futures.ThreadPoolExecutor(workers) as ex:
        for _ in ex.map(fn, items):
            pass


def ts(t):
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))


def pod_name(i):
    """One pod in 4 (app-NNNNN) also mounts one of the SHARED ReadWriteMany claims, as the
    replicas of a big Deployment share an NFS claim; the others are web-NNNNN."""
    return f"app-{i:05d}" if i % 4 == 0 else f"web-{i:05d}"


SHARED = 20  # shared claims data-00 .. data-19, each bound to an NFS PV


def stuck_index(i):
    """Pod web-i is stuck (Pending/ContainerCreating, inline NFS, FailedMount events) when this
    holds: one pod in 16, whatever --pods is, so growing 5,000 to 50,000 keeps the first ones."""
    return i % 16 == 0


def list_names(path):
    """Names of every object at PATH (metadata-only pages of 5,000)."""
    names, cont = [], ""
    while True:
        sep = "&" if "?" in path else "?"
        _, l = api("GET", f"{path}{sep}limit=5000" + (f"&continue={cont}" if cont else ""),
                   accept="application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1")
        names += [o["metadata"]["name"] for o in ((l or {}).get("items") or [])]
        cont = ((l or {}).get("metadata") or {}).get("continue")
        if not cont:
            return names


def populate(a):
    """Reconcile namespace volmnt-bench to --pods pods (the extra ones deleted, the missing ones
    made), --events events, --nodes API-only nodes; then the pods `pod` measures (kinds)."""
    now = time.time()
    subprocess.run([os.path.join(REPO, "..", "shared", "real-cluster", "ns-prep.sh"), NS],
                   env=dict(os.environ, KUBECONFIG=KUBECONFIG), stdout=subprocess.DEVNULL)
    api("POST", "/api/v1/namespaces", {"metadata": {"name": NS}})
    api("POST", f"/api/v1/namespaces/{NS}/serviceaccounts", {"metadata": {"name": "default"}})
    nodes = [f"bench-node-{i:03d}" for i in range(a.nodes)]
    parallel(lambda n: api("POST", "/api/v1/nodes", {
        "metadata": {"name": n, "labels": {"kubernetes.io/hostname": n, BENCH: "true"}},
        "status": {"nodeInfo": {"osImage": "Ubuntu 22.04.4 LTS", "kubeletVersion": "v1.36.2"}},
    }), nodes)
    # The shared claims, bound ahead to NFS PVs (the PV controller completes the binding).
    def shared(k):
        api("POST", "/api/v1/persistentvolumes", {
            "metadata": {"name": f"bench-data-{k:02d}", "labels": {BENCH: "true"}},
            "spec": {"capacity": {"storage": "10Gi"}, "accessModes": ["ReadWriteMany"],
                     "persistentVolumeReclaimPolicy": "Retain", "storageClassName": "",
                     "claimRef": {"namespace": NS, "name": f"data-{k:02d}"},
                     "nfs": {"server": "10.20.0.6", "path": f"/exports/data-{k:02d}"}}})
        api("POST", f"/api/v1/namespaces/{NS}/persistentvolumeclaims", {
            "metadata": {"name": f"data-{k:02d}", "labels": {BENCH: "true"}},
            "spec": {"accessModes": ["ReadWriteMany"], "storageClassName": "", "volumeName": f"bench-data-{k:02d}",
                     "resources": {"requests": {"storage": "10Gi"}}}})

    parallel(shared, range(SHARED))
    have = set(n for n in list_names(f"/api/v1/namespaces/{NS}/pods") if n[:4] in ("web-", "app-"))
    want = {pod_name(i) for i in range(a.pods)}
    extra = sorted(have - want)
    parallel(lambda n: api("DELETE", f"/api/v1/namespaces/{NS}/pods/{n}?gracePeriodSeconds=0"), extra,
             workers=a.workers)

    def pod(i):
        name = pod_name(i)
        if name in have:
            return
        node = nodes[i % len(nodes)]
        stuck = stuck_index(i)
        vol = ({"name": "share", "nfs": {"server": "10.20.0.5", "path": f"/exports/{i % 20}"}}
               if stuck else {"name": "cache", "emptyDir": {}})
        volumes = [vol]
        mounts = [{"name": vol["name"], "mountPath": "/data"}]
        if i % 4 == 0:
            volumes.append({"name": "shared", "persistentVolumeClaim": {"claimName": f"data-{i // 4 % SHARED:02d}"}})
            mounts.append({"name": "shared", "mountPath": "/shared"})
        spec = {
            "nodeName": node,
            "automountServiceAccountToken": False,
            "containers": [{"name": "web", "image": "busybox:1.36", "imagePullPolicy": "IfNotPresent",
                            "volumeMounts": mounts}],
            "volumes": volumes,
        }
        code, _ = api("POST", f"/api/v1/namespaces/{NS}/pods",
                      {"metadata": {"name": name, "labels": {"app": "web", BENCH: "true"}}, "spec": spec})
        if code == 409:
            return
        started = ts(now - 3600)
        if stuck:
            status = {"phase": "Pending", "conditions": [{"type": "PodScheduled", "status": "True"}],
                      "containerStatuses": [{"name": "web", "image": "busybox:1.36", "imageID": "", "ready": False,
                                             "restartCount": 0, "state": {"waiting": {"reason": "ContainerCreating"}}}]}
        else:
            status = {"phase": "Running", "podIP": f"10.88.{i // 250 % 250}.{i % 250 + 2}",
                      "conditions": [{"type": "Ready", "status": "True"}],
                      "containerStatuses": [{"name": "web", "image": "busybox:1.36", "imageID": "", "ready": True,
                                             "restartCount": 0, "started": True,
                                             "state": {"running": {"startedAt": started}}}]}
        api("PATCH", f"/api/v1/namespaces/{NS}/pods/{name}/status", {"status": status})

    t = time.time()
    parallel(pod, range(a.pods), workers=a.workers)
    stuck = [i for i in range(a.pods) if stuck_index(i)]
    print(f"{a.pods} pods ({len(stuck)} stuck; {len(want - have)} made, {len(extra)} deleted) "
          f"in {time.time() - t:.0f}s", file=sys.stderr)

    # Events: every stuck pod's FailedMount (as the kubelet words it, several per pod: one per
    # retry name), the rest spread over the other pods (probe failures, pulls, restarts), named
    # by pod and round so that a second populate makes only what is missing.
    per_stuck = 5
    events = {}
    for i in stuck:
        obj = {"kind": "Pod", "namespace": NS, "name": pod_name(i), "apiVersion": "v1"}
        for k in range(per_stuck):
            events[f"{pod_name(i)}.f{k}"] = (obj, "Warning", "FailedMount",
                f'MountVolume.SetUp failed for volume "share" : mount failed: exit status 32\n'
                f'Mounting command: mount\nMounting arguments: -t nfs 10.20.0.5:/exports/{i % 20} '
                f'/var/lib/kubelet/pods/{i:08d}-0000-4000-8000-000000000000/volumes/kubernetes.io~nfs/share\n'
                f"Output: mount: /var/lib/kubelet/pods/{i:08d}-0000-4000-8000-000000000000/volumes/kubernetes.io~nfs/share: "
                f"unknown filesystem type 'nfs'.\n       dmesg(1) may have more information after failed mount system call.\n")
    others = [i for i in range(a.pods) if not stuck_index(i)]
    k = 0
    while len(events) < a.events and others:
        i = others[k % len(others)]
        r = k // len(others)
        reason, typ, msg = [
            ("Unhealthy", "Warning", "Readiness probe failed: HTTP probe failed with statuscode: 503"),
            ("Pulled", "Normal", 'Container image "busybox:1.36" already present on machine'),
            ("Started", "Normal", "Started container web"),
            ("BackOff", "Warning", "Back-off restarting failed container web in pod web"),
        ][(i + r) % 4]
        events[f"{pod_name(i)}.n{r}"] = ({"kind": "Pod", "namespace": NS, "name": pod_name(i), "apiVersion": "v1"},
                                         typ, reason, msg)
        k += 1
    have = set(n for n in list_names(f"/api/v1/namespaces/{NS}/events") if n[:4] in ("web-", "app-"))
    extra = sorted(have - set(events))
    parallel(lambda n: api("DELETE", f"/api/v1/namespaces/{NS}/events/{n}"), extra, workers=a.workers)

    def event(name):
        obj, typ, reason, msg = events[name]
        api("POST", f"/api/v1/namespaces/{NS}/events", {
            "metadata": {"name": name}, "involvedObject": obj, "type": typ, "reason": reason,
            "message": msg, "source": {"component": "kubelet", "host": obj["name"]},
            "firstTimestamp": ts(now - 3000), "lastTimestamp": ts(now - 60), "count": 3,
        })

    t = time.time()
    missing = sorted(set(events) - have)
    parallel(event, missing, workers=a.workers)
    print(f"{len(events)} events ({len(missing)} made, {len(extra)} deleted) in {time.time() - t:.0f}s",
          file=sys.stderr)
    kinds(a)


# The pods `pod` measures, beside the population:
#   real-nfs   on realnode (its real kubelet): an inline NFS volume the node cannot mount (no nfs
#              in its kernel); the kubelet's own FailedMount events
#   down-nfs   on bench-down, an API-only node that is NotReady (its kubelet stopped posting) and
#              whose InternalIP is on this machine's LAN with no host there: a dial to it fails
#              only after ARP gives up (~3 s); FailedMount events from before it went down
#   vol20      on realnode: 20 claims bound to 20 CSI PVs of a driver whose node plugin never
#              registers (DaemonSet bench-csi-node runs there and logs about the volumes);
#              attach required, so the attach/detach controller makes 20 VolumeAttachments
#              that nothing attaches
DRIVER = "bench.csi.volmnt.io"
DOWN_NODE = "bench-down"
DOWN_IP = "192.0.2.99"
KINDS = {"real-nfs": "a pod of the real node", "down-nfs": "a pod whose node is NotReady and does not answer",
         "vol20": "a pod with 20 volumes"}


def kinds(_a):
    now = time.time()
    api("POST", "/api/v1/nodes", {
        "metadata": {"name": DOWN_NODE, "labels": {"kubernetes.io/hostname": DOWN_NODE, BENCH: "true"}},
        "spec": {"taints": [{"key": "node.kubernetes.io/unreachable", "effect": "NoSchedule",
                             "timeAdded": ts(now - 600)},
                            {"key": "node.kubernetes.io/unreachable", "effect": "NoExecute",
                             "timeAdded": ts(now - 600)}]},
    })
    api("PATCH", f"/api/v1/nodes/{DOWN_NODE}/status", {"status": {
        "addresses": [{"type": "InternalIP", "address": DOWN_IP}, {"type": "Hostname", "address": DOWN_NODE}],
        "daemonEndpoints": {"kubeletEndpoint": {"Port": 10250}},
        "nodeInfo": {"osImage": "Ubuntu 22.04.4 LTS", "kubeletVersion": "v1.36.2", "kernelVersion": "6.8.0-45-generic",
                     "operatingSystem": "linux", "architecture": "amd64", "containerRuntimeVersion": "containerd://1.7.20",
                     "machineID": "", "systemUUID": "", "bootID": "", "kubeProxyVersion": ""},
        "conditions": [{"type": "Ready", "status": "Unknown", "reason": "NodeStatusUnknown",
                        "message": "Kubelet stopped posting node status.",
                        "lastHeartbeatTime": ts(now - 700), "lastTransitionTime": ts(now - 600)}]}})
    nfs = lambda name: {"name": "share", "nfs": {"server": "10.20.0.5", "path": f"/exports/{name}"}}
    tolerate = [{"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute"},
                {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute"}]

    def mkpod(name, node, volumes, mounts):
        api("POST", f"/api/v1/namespaces/{NS}/pods", {
            "metadata": {"name": name, "labels": {"app": name, BENCH: "true"}},
            "spec": {"nodeName": node, "automountServiceAccountToken": False, "tolerations": tolerate,
                     "terminationGracePeriodSeconds": 0,
                     "containers": [{"name": "app", "image": "busybox:1.36", "imagePullPolicy": "IfNotPresent",
                                     "command": ["sleep", "3600000"], "volumeMounts": mounts}],
                     "volumes": volumes}})

    mkpod("real-nfs", "realnode", [nfs("real")], [{"name": "share", "mountPath": "/data"}])
    mkpod("down-nfs", DOWN_NODE, [nfs("down")], [{"name": "share", "mountPath": "/data"}])
    # The kubelet of bench-down wrote these before it stopped answering.
    api("PATCH", f"/api/v1/namespaces/{NS}/pods/down-nfs/status", {"status": {
        "phase": "Pending", "conditions": [{"type": "PodScheduled", "status": "True"}],
        "containerStatuses": [{"name": "app", "image": "busybox:1.36", "imageID": "", "ready": False,
                               "restartCount": 0, "state": {"waiting": {"reason": "ContainerCreating"}}}]}})
    uid = api("GET", f"/api/v1/namespaces/{NS}/pods/down-nfs")[1]["metadata"]["uid"]
    for k in range(3):
        api("POST", f"/api/v1/namespaces/{NS}/events", {
            "metadata": {"name": f"down-nfs.f{k}"},
            "involvedObject": {"kind": "Pod", "namespace": NS, "name": "down-nfs", "uid": uid, "apiVersion": "v1"},
            "type": "Warning", "reason": "FailedMount", "source": {"component": "kubelet", "host": DOWN_NODE},
            "message": f'MountVolume.SetUp failed for volume "share" : mount failed: exit status 32\n'
                       f'Mounting command: mount\nMounting arguments: -t nfs 10.20.0.5:/exports/down '
                       f'/var/lib/kubelet/pods/{uid}/volumes/kubernetes.io~nfs/share\n'
                       f"Output: mount.nfs: Connection timed out\n",
            "firstTimestamp": ts(now - 1200), "lastTimestamp": ts(now - 700), "count": 4})

    # vol20: 20 claims bound ahead to 20 PVs (the PV controller completes the binding).
    def pv(k):
        api("POST", "/api/v1/persistentvolumes", {
            "metadata": {"name": f"bench-vol20-{k:02d}", "labels": {BENCH: "true"}},
            "spec": {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"],
                     "persistentVolumeReclaimPolicy": "Retain", "storageClassName": "",
                     "claimRef": {"namespace": NS, "name": f"vol20-{k:02d}"},
                     "csi": {"driver": DRIVER, "volumeHandle": f"vol-bench-{k:02d}", "fsType": "ext4"}}})
        api("POST", f"/api/v1/namespaces/{NS}/persistentvolumeclaims", {
            "metadata": {"name": f"vol20-{k:02d}", "labels": {BENCH: "true"}},
            "spec": {"accessModes": ["ReadWriteOnce"], "storageClassName": "", "volumeName": f"bench-vol20-{k:02d}",
                     "resources": {"requests": {"storage": "1Gi"}}}})

    parallel(pv, range(20))
    mkpod("vol20", "realnode",
          [{"name": f"v{k:02d}", "persistentVolumeClaim": {"claimName": f"vol20-{k:02d}"}} for k in range(20)],
          [{"name": f"v{k:02d}", "mountPath": f"/data/{k:02d}"} for k in range(20)])
    # A node plugin DaemonSet for the driver on realnode that never registers (no socket): its
    # log lines name the volumes, so the node-side log reads have something to read.
    lines = "; ".join(
        f"echo 'E1129 03:00:{k:02d}.000000       1 nodeserver.go:120] NodeStageVolume: volume vol-bench-{k:02d}: "
        f"waiting for the device of vol-bench-{k:02d}'" for k in range(20))
    api("POST", f"/apis/apps/v1/namespaces/{NS}/daemonsets", {
        "metadata": {"name": "bench-csi-node", "labels": {BENCH: "true"}},
        "spec": {"selector": {"matchLabels": {"app": "bench-csi-node"}},
                 "template": {"metadata": {"labels": {"app": "bench-csi-node", BENCH: "true"}},
                              "spec": {"nodeSelector": {"kubernetes.io/hostname": "realnode"},
                                       "automountServiceAccountToken": False, "terminationGracePeriodSeconds": 0,
                                       "containers": [{"name": "csi-plugin", "image": "busybox:1.36",
                                                       "imagePullPolicy": "IfNotPresent",
                                                       "command": ["sh", "-c", lines + "; exec sleep 3600000", "sh",
                                                                   f"--drivername={DRIVER}"]}]}}}})
    print(f"kinds: {', '.join(f'{NS}/{k} ({v})' for k, v in KINDS.items())}", file=sys.stderr)


def clean(a):
    """Delete what populate made, in volmnt-bench and the bench's cluster-scoped objects
    (labelled volmnt.io/bench): nodes, PVs. --keep-pods keeps the population (pods, events,
    nodes) and removes only the kinds."""
    sel = "labelSelector=" + BENCH.replace("/", "%2F") + "%3Dtrue"
    kinds_only = a.keep_pods
    for k in KINDS:
        api("DELETE", f"/api/v1/namespaces/{NS}/pods/{k}?gracePeriodSeconds=0")
    api("DELETE", f"/apis/apps/v1/namespaces/{NS}/daemonsets/bench-csi-node", ok=(200, 202, 404))
    parallel(lambda k: api("DELETE", f"/api/v1/namespaces/{NS}/persistentvolumeclaims/vol20-{k:02d}"), range(20))
    parallel(lambda k: api("DELETE", f"/api/v1/persistentvolumes/bench-vol20-{k:02d}"), range(20))
    if not kinds_only:
        parallel(lambda k: api("DELETE", f"/api/v1/namespaces/{NS}/persistentvolumeclaims/data-{k:02d}"),
                 range(SHARED))
        parallel(lambda k: api("DELETE", f"/api/v1/persistentvolumes/bench-data-{k:02d}"), range(SHARED))
    for n in ("down-nfs.f0", "down-nfs.f1", "down-nfs.f2"):
        api("DELETE", f"/api/v1/namespaces/{NS}/events/{n}")
    api("DELETE", f"/api/v1/nodes/{DOWN_NODE}")
    if kinds_only:
        return
    names = list_names(f"/api/v1/namespaces/{NS}/pods")
    parallel(lambda n: api("DELETE", f"/api/v1/namespaces/{NS}/pods/{n}?gracePeriodSeconds=0"), names,
             workers=a.workers)
    api("DELETE", f"/api/v1/namespaces/{NS}/events", ok=(200, 404))
    api("DELETE", f"/apis/coordination.k8s.io/v1/namespaces/{NS}/leases/volmnt-watch", ok=(200, 404))
    nodes = [n for n in list_names("/api/v1/nodes?" + sel)]
    parallel(lambda n: api("DELETE", f"/api/v1/nodes/{n}"), nodes)


def run(cmd, env=None):
    """One whole process: (seconds, max RSS MiB, exit code). stdout goes to a file, not a pipe
    someone must drain: nothing of the harness runs while the command does."""
    with tempfile.TemporaryFile() as out:
        t = time.perf_counter()
        p = subprocess.Popen(cmd, stdout=out, stderr=subprocess.DEVNULL, env=env)
        _, status, ru = os.wait4(p.pid, 0)
        wall = time.perf_counter() - t
        p.returncode = os.waitstatus_to_exitcode(status)
    return wall, ru.ru_maxrss / 1024, p.returncode


def paired(cmds, runs):
    """Run each command in turn, `runs` rounds (A B C A B C ...); per command: walls, RSS, codes."""
    env = dict(os.environ, KUBECONFIG=KUBECONFIG)
    walls = {k: [] for k in cmds}
    rss = {k: [] for k in cmds}
    codes = {k: set() for k in cmds}
    for k, c in cmds.items():  # one warm-up each (page cache, TLS session of nothing: each is a new process)
        run(c, env)
    for _ in range(runs):
        for k, c in cmds.items():
            w, m, code = run(c, env)
            walls[k].append(w)
            rss[k].append(m)
            codes[k].add(code)
    return walls, rss, codes


def report(walls, rss, base, codes=None, keys=None):
    b = statistics.median(walls[base])
    for k in keys or walls:
        med = statistics.median(walls[k])
        code = f"  exit {','.join(map(str, sorted(codes[k])))}" if codes else ""
        print(f"  {k:<48} median {med * 1000:8.1f} ms  (min {min(walls[k]) * 1000:.1f}, max {max(walls[k]) * 1000:.1f})"
              f"  max RSS {max(rss[k]):6.1f} MiB  ratio to {base}: {med / b:.3f}{code}")


def setting():
    """What the run was measured on: the cluster's size and the machine's load."""
    _, l = api("GET", "/api/v1/pods?limit=1", accept="application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1")
    pods = 1 + int((l.get("metadata") or {}).get("remainingItemCount") or 0) if l.get("items") else 0
    _, l = api("GET", "/api/v1/events?limit=1", accept="application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1")
    events = 1 + int((l.get("metadata") or {}).get("remainingItemCount") or 0) if l.get("items") else 0
    load = open("/proc/loadavg").read().split()[:3]
    return f"{pods} pods, {events} events in the cluster; load average {' '.join(load)}"


def bench_pod(a):
    """Each pod kind (or the pod named): volmnt doctor pod (and --base, the build compared
    with) vs kubectl describe pod, all in the same rounds."""
    targets = [(a.namespace, a.pod)] if a.pod else [(NS, k) for k in a.kinds.split(",")]
    cmds = {}
    for ns, p in targets:
        if a.base:
            cmds[f"{p}: volmnt doctor pod (base)"] = [a.base, "doctor", "pod", p, "-n", ns]
        cmds[f"{p}: volmnt doctor pod"] = [VOLMNT, "doctor", "pod", p, "-n", ns]
        cmds[f"{p}: kubectl describe pod"] = ["kubectl", "describe", "pod", p, "-n", ns]
    print(f"doctor pod, {a.runs} paired rounds; {setting()}")
    walls, rss, codes = paired(cmds, a.runs)
    for ns, p in targets:
        print(f"{ns}/{p} ({KINDS.get(p, 'named') if ns == NS else 'named'}):")
        report(walls, rss, f"{p}: kubectl describe pod", codes, [k for k in cmds if k.startswith(p + ":")])


def bench_namespace(a):
    cmds = {
        "volmnt doctor namespace -A": [VOLMNT, "doctor", "namespace", "-A", "-o", "json"],
        "kubectl get pods,events -A -o json": ["kubectl", "get", "pods,events", "-A", "-o", "json"],
    }
    if a.base:
        cmds = {"volmnt doctor namespace -A (base)": [a.base, "doctor", "namespace", "-A", "-o", "json"], **cmds}
    print(f"doctor namespace -A, {a.runs} paired rounds; {setting()}")
    walls, rss, codes = paired(cmds, a.runs)
    report(walls, rss, "kubectl get pods,events -A -o json", codes)


def watch_once(binary, stuck, timeout):
    """One volmnt watch -A from start: (seconds to the cache synced, seconds to every stuck
    pod's Event written, peak RSS MiB, RSS MiB at that moment)."""
    # A clean slate: no VolumeDiagnosis Event, no Lease.
    names = [n for n in list_names(f"/api/v1/namespaces/{NS}/events?fieldSelector=reason%3DVolumeDiagnosis")]
    parallel(lambda n: api("DELETE", f"/api/v1/namespaces/{NS}/events/{n}"), names, workers=16)
    api("DELETE", f"/apis/coordination.k8s.io/v1/namespaces/{NS}/leases/volmnt-watch", ok=(200, 404))
    env = dict(os.environ, KUBECONFIG=KUBECONFIG)
    t0 = time.perf_counter()
    # -l: the pods of the population only, so that no Event is written into the other
    # namespaces of this shared cluster (every pod of volmnt-bench carries the label; the other
    # resources are watched cluster-wide as -A alone watches them).
    p = subprocess.Popen([binary, "watch", "-A", "-l", f"{BENCH}=true", "--min-age", "1m",
                          "--listen", "127.0.0.1:0", "--lease-namespace", NS, "-o", "json"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, text=True)
    synced = created = None
    seen = set()
    hwm = rss = 0.0

    def mem():
        nonlocal hwm, rss
        try:
            for l2 in open(f"/proc/{p.pid}/status"):
                if l2.startswith("VmHWM:"):
                    hwm = int(l2.split()[1]) / 1024
                if l2.startswith("VmRSS:"):
                    rss = int(l2.split()[1]) / 1024
        except OSError:
            pass

    # The pipe is read on a thread so that the time limit holds even when nothing is logged.
    lines = []
    done = threading.Event()

    def reader():
        for line in p.stderr:
            lines.append((time.perf_counter() - t0, line))
        done.set()

    threading.Thread(target=reader, daemon=True).start()
    i = 0
    while time.perf_counter() - t0 < timeout and created is None:
        time.sleep(0.05)
        mem()
        while i < len(lines):
            now, line = lines[i]
            i += 1
            msg = json.loads(line).get("msg", "") if line.startswith("{") else line
            if synced is None and "watch cache synced" in msg:
                synced = now
            m = re.match(rf"{NS}/(\S+): \S+: Event \S+ created", msg)
            if m:
                seen.add(m.group(1))
                if stuck <= seen:
                    created = now
                    break
        if done.is_set() and i >= len(lines):
            break
    mem()
    p.terminate()
    p.wait()
    return synced, created, hwm, rss, len(seen)


def bench_watch(a):
    """Start volmnt watch -A (and --base, in turn); time the 'synced' log line and every stuck
    pod's Event; peak RSS, and RSS once every Event is written."""
    stuck = {n for n in list_names(f"/api/v1/namespaces/{NS}/pods?fieldSelector=status.phase%3DPending"
                                   f"&labelSelector={BENCH.replace('/', '%2F')}%3Dtrue")}
    bins = {"volmnt watch -A": VOLMNT}
    if a.base:
        bins = {"volmnt watch -A (base)": a.base, **bins}
    print(f"watch -A, {a.runs} paired rounds, {len(stuck)} stuck pods in {NS}; {setting()}")
    results = {k: [] for k in bins}
    for r in range(a.runs):
        for k, b in bins.items():
            synced, created, hwm, rss, seen = watch_once(b, stuck, a.timeout)
            results[k].append((synced, created, hwm, rss))
            fmt = lambda x: "never" if x is None else f"{x:.2f} s"
            print(f"  run {r + 1} {k}: cache synced {fmt(synced)}, every stuck pod's Event written {fmt(created)} "
                  f"({seen} of {len(stuck)}), peak RSS {hwm:.1f} MiB, RSS then {rss:.1f} MiB", flush=True)
    for k, rs in results.items():
        med = lambda xs: statistics.median(xs) if xs else float("nan")
        s = med([x[0] for x in rs if x[0] is not None])
        c = med([x[1] for x in rs if x[1] is not None])
        print(f"{k}: median synced {s:.2f} s, every Event written {c:.2f} s "
              f"({sum(1 for x in rs if x[1] is None)} run(s) not done within {a.timeout:.0f} s), "
              f"peak RSS max {max(x[2] for x in rs):.1f} MiB, RSS then median {med([x[3] for x in rs]):.1f} MiB")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("pod"); p.add_argument("namespace", nargs="?"); p.add_argument("pod", nargs="?")
    p.add_argument("-n", "--runs", type=int, default=21)
    p.add_argument("--kinds", default=",".join(KINDS)); p.add_argument("--base")
    p = sub.add_parser("populate")
    p.add_argument("--pods", type=int, default=5000); p.add_argument("--events", type=int, default=20000)
    p.add_argument("--nodes", type=int, default=50); p.add_argument("--workers", type=int, default=16)
    p = sub.add_parser("kinds")
    p = sub.add_parser("namespace"); p.add_argument("-n", "--runs", type=int, default=7); p.add_argument("--base")
    p = sub.add_parser("watch"); p.add_argument("-n", "--runs", type=int, default=3); p.add_argument("--base")
    p.add_argument("--timeout", type=float, default=180)
    p = sub.add_parser("clean"); p.add_argument("--keep-pods", action="store_true")
    p.add_argument("--workers", type=int, default=16)
    a = ap.parse_args()
    {"pod": bench_pod, "populate": populate, "kinds": kinds, "namespace": bench_namespace, "watch": bench_watch,
     "clean": clean}[a.cmd](a)


if __name__ == "__main__":
    main()
