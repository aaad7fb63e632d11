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


def api(method, path, body=None, ok=(200, 201, 404, 409)):
    """One request on this thread's keep-alive connection."""
    c = getattr(_local, "conn", None)
    if c is None:
        ctx = ssl.create_default_context(cafile=CA)
        c = _local.conn = http.client.HTTPSConnection(HOST, PORT, context=ctx, timeout=60)
    data = json.dumps(body).encode() if body is not None else None
    headers = {"Authorization": "Bearer " + TOKEN, "Accept": "application/json"}
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


def populate(a):
    now = time.time()
    api("POST", "/api/v1/namespaces", {"metadata": {"name": NS}})
    api("POST", f"/api/v1/namespaces/{NS}/serviceaccounts", {"metadata": {"name": "default"}})
    nodes = [f"bench-node-{i:03d}" for i in range(a.nodes)]
    parallel(lambda n: api("POST", "/api/v1/nodes", {
        "metadata": {"name": n, "labels": {"kubernetes.io/hostname": n, "volmnt.io/bench": "true"}},
        "status": {"nodeInfo": {"osImage": "Ubuntu 22.04.4 LTS", "kubeletVersion": "v1.36.2"}},
    }), nodes)
    stuck = set(range(0, a.pods, max(1, a.pods // a.stuck)))
    stuck = set(sorted(stuck)[: a.stuck])

    def pod(i):
        name = f"web-{i:05d}"
        node = nodes[i % len(nodes)]
        vol = ({"name": "share", "nfs": {"server": "10.20.0.5", "path": f"/exports/{i % 20}"}}
               if i in stuck else {"name": "cache", "emptyDir": {}})
        spec = {
            "nodeName": node,
            "automountServiceAccountToken": False,
            "containers": [{"name": "web", "image": "busybox:1.36", "imagePullPolicy": "IfNotPresent",
                            "volumeMounts": [{"name": vol["name"], "mountPath": "/data"}]}],
            "volumes": [vol],
        }
        api("POST", f"/api/v1/namespaces/{NS}/pods",
            {"metadata": {"name": name, "labels": {"app": "web", "volmnt.io/bench": "true"}}, "spec": spec})
        started = ts(now - 3600)
        if i in stuck:
            status = {"phase": "Pending", "conditions": [{"type": "PodScheduled", "status": "True"}],
                      "containerStatuses": [{"name": "web", "image": "busybox:1.36", "imageID": "", "ready": False,
                                             "restartCount": 0, "state": {"waiting": {"reason": "ContainerCreating"}}}]}
        else:
            status = {"phase": "Running", "podIP": f"10.88.{i // 250}.{i % 250 + 2}",
                      "conditions": [{"type": "Ready", "status": "True"}],
                      "containerStatuses": [{"name": "web", "image": "busybox:1.36", "imageID": "", "ready": True,
                                             "restartCount": 0, "started": True,
                                             "state": {"running": {"startedAt": started}}}]}
        api("PATCH", f"/api/v1/namespaces/{NS}/pods/{name}/status", {"status": status})

    t = time.time()
    parallel(pod, range(a.pods))
    print(f"{a.pods} pods ({len(stuck)} stuck) in {time.time() - t:.0f}s", file=sys.stderr)

    # Events: every stuck pod's FailedMount (as the kubelet words it, several per pod: one per
    # retry name), the rest spread over the other pods (probe failures, pulls, scheduling).
    per_stuck = 5
    events = []
    for i in sorted(stuck):
        uid_less = {"kind": "Pod", "namespace": NS, "name": f"web-{i:05d}", "apiVersion": "v1"}
        for k in range(per_stuck):
            events.append((f"web-{i:05d}.{k:016x}", uid_less, "Warning", "FailedMount",
                           f'MountVolume.SetUp failed for volume "share" : mount failed: exit status 32\n'
                           f'Mounting command: mount\nMounting arguments: -t nfs 10.20.0.5:/exports/{i % 20} '
                           f'/var/lib/kubelet/pods/{i:08d}-0000-4000-8000-000000000000/volumes/kubernetes.io~nfs/share\n'
                           f"Output: mount: /var/lib/kubelet/pods/{i:08d}-0000-4000-8000-000000000000/volumes/kubernetes.io~nfs/share: "
                           f"unknown filesystem type 'nfs'.\n       dmesg(1) may have more information after failed mount system call.\n"))
    others = [i for i in range(a.pods) if i not in stuck]
    k = 0
    while len(events) < a.events:
        i = others[k % len(others)]
        kind = k % 4
        reason, typ, msg = [
            ("Unhealthy", "Warning", "Readiness probe failed: HTTP probe failed with statuscode: 503"),
            ("Pulled", "Normal", 'Container image "busybox:1.36" already present on machine'),
            ("Started", "Normal", "Started container web"),
            ("BackOff", "Warning", "Back-off restarting failed container web in pod web"),
        ][kind]
        events.append((f"web-{i:05d}.{k:016x}", {"kind": "Pod", "namespace": NS, "name": f"web-{i:05d}", "apiVersion": "v1"},
                       typ, reason, msg))
        k += 1

    def event(e):
        name, obj, typ, reason, msg = e
        api("POST", f"/api/v1/namespaces/{NS}/events", {
            "metadata": {"name": name}, "involvedObject": obj, "type": typ, "reason": reason,
            "message": msg, "source": {"component": "kubelet", "host": obj["name"]},
            "firstTimestamp": ts(now - 3000), "lastTimestamp": ts(now - 60), "count": 3,
        })

    t = time.time()
    parallel(event, events)
    print(f"{len(events)} events in {time.time() - t:.0f}s", file=sys.stderr)


def clean(_a):
    _, l = api("GET", f"/api/v1/namespaces/{NS}/pods?limit=100000")
    parallel(lambda p: api("DELETE", f"/api/v1/namespaces/{NS}/pods/{p['metadata']['name']}?gracePeriodSeconds=0"),
             (l or {}).get("items", []))
    api("DELETE", f"/api/v1/namespaces/{NS}/events", ok=(200, 404))
    _, l = api("GET", "/api/v1/nodes?labelSelector=volmnt.io%2Fbench%3Dtrue")
    parallel(lambda n: api("DELETE", f"/api/v1/nodes/{n['metadata']['name']}"), (l or {}).get("items", []))


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
    """Run each command in turn, `runs` rounds (A B C A B C ...); per command: walls, RSS."""
    env = dict(os.environ, KUBECONFIG=KUBECONFIG)
    walls = {k: [] for k in cmds}
    rss = {k: [] for k in cmds}
    for k, c in cmds.items():  # one warm-up each (page cache, TLS session of nothing: each is a new process)
        run(c, env)
    for _ in range(runs):
        for k, c in cmds.items():
            w, m, code = run(c, env)
            walls[k].append(w)
            rss[k].append(m)
    return walls, rss


def report(walls, rss, base):
    b = statistics.median(walls[base])
    for k in walls:
        med = statistics.median(walls[k])
        print(f"  {k:<48} median {med * 1000:8.1f} ms  (min {min(walls[k]) * 1000:.1f}, max {max(walls[k]) * 1000:.1f})"
              f"  max RSS {max(rss[k]):6.1f} MiB  ratio to {base}: {med / b:.3f}")


def bench_pod(a):
    path = f"https://127.0.0.1:{PORT}/api/v1/namespaces/{a.namespace}/pods/{a.pod}"
    cmds = {
        "volmnt doctor pod": [VOLMNT, "doctor", "pod", a.pod, "-n", a.namespace],
        "kubectl describe pod": ["kubectl", "describe", "pod", a.pod, "-n", a.namespace],
        "curl (one GET of the pod)": ["curl", "-sf", "--cacert", CA, "-H", f"Authorization: Bearer {TOKEN}", path],
    }
    walls, rss = paired(cmds, a.runs)
    print(f"doctor pod {a.namespace}/{a.pod}, {a.runs} paired rounds:")
    report(walls, rss, "kubectl describe pod")


def bench_namespace(a):
    cmds = {
        "volmnt doctor namespace -A": [VOLMNT, "doctor", "namespace", "-A", "-o", "json"],
        "kubectl get pods,events -A -o json": ["kubectl", "get", "pods,events", "-A", "-o", "json"],
    }
    walls, rss = paired(cmds, a.runs)
    print(f"doctor namespace -A, {a.runs} paired rounds:")
    report(walls, rss, "kubectl get pods,events -A -o json")


def bench_watch(a):
    """Start volmnt watch -A; time the 'synced' log line and every stuck pod's Event."""
    _, l = api("GET", f"/api/v1/namespaces/{NS}/pods?fieldSelector=status.phase%3DPending")
    stuck = {p["metadata"]["name"] for p in l["items"]}
    results = []
    for r in range(a.runs):
        # A clean slate: no VolumeDiagnosis Event, no Lease.
        _, ev = api("GET", f"/api/v1/namespaces/{NS}/events?fieldSelector=reason%3DVolumeDiagnosis")
        parallel(lambda e: api("DELETE", f"/api/v1/namespaces/{NS}/events/{e['metadata']['name']}"), ev["items"])
        api("DELETE", f"/api/v1/namespaces/{NS}/leases/volmnt-watch", ok=(200, 404))
        env = dict(os.environ, KUBECONFIG=KUBECONFIG)
        t0 = time.perf_counter()
        p = subprocess.Popen([VOLMNT, "watch", "-A", "--min-age", "1m", "--listen", "127.0.0.1:0",
                              "--lease-namespace", NS, "-o", "json"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, text=True)
        synced = created = None
        seen = set()
        for line in p.stderr:
            now = time.perf_counter() - t0
            msg = json.loads(line).get("msg", "") if line.startswith("{") else line
            if synced is None and "watch cache synced" in msg:
                synced = now
            m = re.match(rf"{NS}/(\S+): \S+: Event \S+ created", msg)
            if m:
                seen.add(m.group(1))
                if stuck <= seen:
                    created = now
                    break
            if now > 120:
                break
        rss = 0
        try:
            for l2 in open(f"/proc/{p.pid}/status"):
                if l2.startswith("VmHWM:"):
                    rss = int(l2.split()[1]) / 1024
        except OSError:
            pass
        p.terminate()
        p.wait()
        results.append((synced, created, rss))
        print(f"  run {r + 1}: cache synced {synced:.2f} s, all {len(stuck)} stuck pods' Events written "
              f"{created if created is None else round(created, 2)} s, peak RSS {rss:.1f} MiB", file=sys.stderr)
    s = statistics.median(x[0] for x in results)
    c = statistics.median(x[1] for x in results if x[1] is not None)
    print(f"watch -A over {NS}: median synced {s:.2f} s, every stuck pod's Event written {c:.2f} s "
          f"({len(stuck)} stuck), peak RSS {max(x[2] for x in results):.1f} MiB")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("pod"); p.add_argument("namespace"); p.add_argument("pod"); p.add_argument("-n", "--runs", type=int, default=21)
    p = sub.add_parser("populate")
    p.add_argument("--pods", type=int, default=5000); p.add_argument("--events", type=int, default=20000)
    p.add_argument("--stuck", type=int, default=200); p.add_argument("--nodes", type=int, default=50)
    p = sub.add_parser("namespace"); p.add_argument("-n", "--runs", type=int, default=7)
    p = sub.add_parser("watch"); p.add_argument("-n", "--runs", type=int, default=3)
    sub.add_parser("clean")
    a = ap.parse_args()
    {"pod": bench_pod, "populate": populate, "namespace": bench_namespace, "watch": bench_watch, "clean": clean}[a.cmd](a)


if __name__ == "__main__":
    main()
