#!/usr/bin/env bash
# A real kube-apiserver, kubelet (node "realnode") and, optionally, kube-controller-manager +
# kube-scheduler on this machine, all on 127.0.0.1, for tests/real/ (the real-cluster suite)
# and the speed runs. It only drives the scripts of ../shared/real-cluster (REAL_CLUSTER_DIR),
# which build Kubernetes v1.36.2 from a git snapshot of openshift/microshift; nothing of that
# tree or its binaries comes into this repository.
#
#   scripts/real-cluster.sh up [--snapshot GIT_DIR] [--no-node] [--no-controllers]
#   scripts/real-cluster.sh status
#   scripts/real-cluster.sh down
#
# up      builds what is missing (first time about 10 min: kube-apiserver from a cold Go cache;
#         needs --snapshot or MICROSHIFT_GIT, the snapshot's git dir), then starts what is not
#         running: etcd + kube-apiserver, the node (containerd + kubelet), the controllers.
#         Every step is skipped when already done, so it can be run again at any time.
#         --no-controllers: no kube-controller-manager/kube-scheduler (then nothing attaches
#         attachable volumes, nothing binds claims; tests/real checks what that gives too).
#         CONTROLLERS=... is passed on (kube-controller-manager's --controllers).
# status  what runs, and the node as the apiserver sees it.
# down    stops the controllers, the node and the apiserver (the data is kept), unmounts what
#         the kubelet left under /var/lib/kubelet and what tests/real mounted under
#         $K8S_ROOT/volmnt-real/, and detaches the loop devices tests/real made
#         (their backing files are under $K8S_ROOT/volmnt-real/). CI runs on this machine
#         afterwards, and a mount or loop device left behind would be seen by its tests.
#
# image   scripts/build-image.sh --import: the static image, imported into the node's containerd
#         (no registry: the pods use it with imagePullPolicy IfNotPresent).
# watch-manifests | watch-chart
#         runs `volmnt watch` in the cluster as a Deployment of that image, from deploy/watch.yaml
#         (kubectl apply, then a patch) or from charts/volmnt (rendered by Helm's engine,
#         scripts/helm-template.py, then applied). This cluster has no kube-proxy and its API
#         server listens on 127.0.0.1 only, so the pod runs on the node's network with
#         KUBERNETES_SERVICE_HOST=127.0.0.1:6443, one replica (two would want the same host port),
#         /metrics on 127.0.0.1:18080. unwatch deletes it again.
# outage [SECONDS]
#         stops kube-apiserver alone (etcd keeps running) for SECONDS (default 20) under the
#         running watch and prints, every 2 s, its /readyz and the watch metrics, then starts
#         the API server again and polls until /readyz is 200 (WATCH_URL, default
#         http://127.0.0.1:18080).
#
# K8S_ROOT (default: k8s-env beside this repository's directory; it must be outside any git
# work tree) holds everything: sources, Go cache, binaries, PKI, etcd data, logs, PID files.
# Then:  export VOLMNT_REAL_KUBECONFIG=$K8S_ROOT/kubeconfig; cargo test --test tests real::
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
RC=${REAL_CLUSTER_DIR:-$repo/../shared/real-cluster}
export K8S_ROOT=${K8S_ROOT:-$(dirname "$repo")/k8s-env}
case $K8S_ROOT in
  "$repo"|"$repo"/*) echo "real-cluster.sh: K8S_ROOT=$K8S_ROOT is inside the repository; put it outside" >&2; exit 2 ;;
esac

usage() { sed -n '2,43p' "$0"; }

cmd=${1:-}
[ $# -gt 0 ] && shift
snapshot=${MICROSHIFT_GIT:-}
node=yes
controllers=yes
rest=()
while [ $# -gt 0 ]; do
  case $1 in
    --snapshot) [ $# -ge 2 ] || { echo "real-cluster.sh: --snapshot needs a git dir" >&2; exit 2; }; snapshot=$2; shift 2 ;;
    --snapshot=*) snapshot=${1#--snapshot=}; shift ;;
    --no-node) node=no; controllers=no; shift ;;
    --no-controllers) controllers=no; shift ;;
    -h|--help) usage; exit 0 ;;
    -*) echo "real-cluster.sh: unknown argument $1" >&2; usage >&2; exit 2 ;;
    *) rest+=("$1"); shift ;;
  esac
done
case $cmd:${#rest[@]} in
  outage:0|outage:1) ;;
  *:0) ;;
  *) echo "real-cluster.sh: $cmd takes no argument ${rest[0]}" >&2; exit 2 ;;
esac

need_scripts() {
  [ -x "$RC/setup-apiserver.sh" ] || {
    echo "real-cluster.sh: no real-cluster scripts at $RC (set REAL_CLUSTER_DIR)" >&2; exit 2; }
  [ "$(id -u)" = 0 ] || { echo "real-cluster.sh: run as root (the node needs it)" >&2; exit 2; }
}

# alive PIDFILE: the recorded process still runs.
alive() { [ -f "$1" ] && [ -d "/proc/$(cat "$1")" ]; }

api_ready() {
  curl -sf --max-time 2 --cacert "$K8S_ROOT/pki/ca.crt" -H "Authorization: Bearer admin-token" \
    https://127.0.0.1:6443/readyz >/dev/null 2>&1
}

up() {
  need_scripts
  mkdir -p "$K8S_ROOT"
  if [ ! -f "$K8S_ROOT/env.sh" ]; then
    [ -n "$snapshot" ] || { echo "real-cluster.sh: first run: give --snapshot GIT_DIR (or MICROSHIFT_GIT), the openshift/microshift snapshot" >&2; exit 2; }
    [ -d "$snapshot" ] || { echo "real-cluster.sh: --snapshot $snapshot: no such directory" >&2; exit 2; }
    echo "building and starting the apiserver (first time: about 10 min; log $K8S_ROOT/setup-apiserver.log)"
    MICROSHIFT_GIT=$snapshot "$RC/setup-apiserver.sh" >>"$K8S_ROOT/setup-apiserver.log" 2>&1 || {
      tail -20 "$K8S_ROOT/setup-apiserver.log" >&2; exit 1; }
  else
    "$RC/start.sh"
  fi
  if [ "$node" = yes ]; then
    if [ -f "$K8S_ROOT/kubelet/config.yaml" ]; then "$RC/node-start.sh"; else "$RC/setup-node.sh"; fi
  fi
  if [ "$controllers" = yes ]; then
    if [ ! -x "$K8S_ROOT/bin/kube-controller-manager" ] || [ ! -x "$K8S_ROOT/bin/kube-scheduler" ]; then
      "$RC/build.sh" kube-controller-manager kube-scheduler
    fi
    "$RC/controllers-start.sh"
  fi
  echo "up. export VOLMNT_REAL_KUBECONFIG=$K8S_ROOT/kubeconfig"
}

status() {
  local p
  for p in etcd apiserver containerd kubelet controller-manager scheduler; do
    if alive "$K8S_ROOT/$p.pid"; then echo "$p: running (pid $(cat "$K8S_ROOT/$p.pid"))"; else echo "$p: stopped"; fi
  done
  if api_ready; then
    echo "apiserver: ready at https://127.0.0.1:6443 (kubeconfig $K8S_ROOT/kubeconfig)"
    PATH=$K8S_ROOT/bin:$PATH KUBECONFIG=$K8S_ROOT/kubeconfig kubectl get nodes -o wide
  else
    echo "apiserver: not answering"
  fi
  local m l
  m=$(findmnt -rn -o TARGET | grep -c '^/var/lib/kubelet/' || true)
  echo "mounts under /var/lib/kubelet: $m"
  m=$(findmnt -rn -o TARGET | grep -c "^$K8S_ROOT/volmnt-real/" || true)
  echo "mounts of tests/real under $K8S_ROOT/volmnt-real: $m"
  l=$(losetup -l -n -O NAME,BACK-FILE 2>/dev/null | grep -F "$K8S_ROOT/volmnt-real/" || true)
  echo "loop devices of tests/real: ${l:-none}"
}

down() {
  need_scripts
  [ -x "$RC/controllers-stop.sh" ] && "$RC/controllers-stop.sh" || true
  "$RC/node-stop.sh" || true
  "$RC/stop.sh" || true
  # What the kubelet left mounted, and what tests/real mounted itself under its work dir (the
  # XFS original of the duplicate-UUID case, when a run was killed), deepest first; then the
  # loop devices of tests/real.
  findmnt -rn -o TARGET | grep -e '^/var/lib/kubelet/' -e "^$K8S_ROOT/volmnt-real/" | sort -r |
    while read -r t; do
      umount "$t" 2>/dev/null || umount -l "$t" || echo "could not unmount $t" >&2
    done
  losetup -l -n -O NAME,BACK-FILE 2>/dev/null | awk -v d="$K8S_ROOT/volmnt-real/" 'index($2, d) == 1 { print $1 }' |
    while read -r dev; do losetup -d "$dev" && echo "detached $dev"; done
  echo "down (data kept in $K8S_ROOT)"
}

kc() { PATH=$K8S_ROOT/bin:$PATH KUBECONFIG=$K8S_ROOT/kubeconfig kubectl --context admin "$@"; }

# The namespace of the watch, with what this cluster's projected service account volumes need
# (its ServiceAccount admission adds the openshift-service-ca.crt ConfigMap to every token volume).
watch_namespace() {
  kc apply -f "$repo/deploy/rbac.yaml" >/dev/null
  "$RC/ns-prep.sh" volmnt >/dev/null
}

watch_manifests() {
  watch_namespace
  kc apply -f "$repo/deploy/watch.yaml"
  kc -n volmnt patch deployment volmnt-watch --type=json -p '[
    {"op":"replace","path":"/spec/replicas","value":1},
    {"op":"add","path":"/spec/template/spec/hostNetwork","value":true},
    {"op":"replace","path":"/spec/template/spec/containers/0/args/3","value":"--listen=127.0.0.1:18080"},
    {"op":"replace","path":"/spec/template/spec/containers/0/ports/0/containerPort","value":18080},
    {"op":"add","path":"/spec/template/spec/containers/0/env/-","value":{"name":"KUBERNETES_SERVICE_HOST","value":"127.0.0.1"}},
    {"op":"add","path":"/spec/template/spec/containers/0/env/-","value":{"name":"KUBERNETES_SERVICE_PORT","value":"6443"}}]'
  kc -n volmnt rollout status deployment/volmnt-watch --timeout=120s
}

watch_chart() {
  watch_namespace
  "$repo/scripts/deps/helm.sh"
  python3 "$repo/scripts/helm-template.py" volmnt "$repo/charts/volmnt" -n volmnt \
    --set replicas=1 --set hostNetwork=true --set listenHost=127.0.0.1 --set metricsPort=18080 \
    --set 'extraEnv[0].name=KUBERNETES_SERVICE_HOST' --set 'extraEnv[0].value=127.0.0.1' \
    --set 'extraEnv[1].name=KUBERNETES_SERVICE_PORT' --set 'extraEnv[1].value=6443' |
    kc apply -f -
  kc -n volmnt rollout status deployment/volmnt-watch --timeout=120s
}

outage() {
  local secs=${1:-20} url=${WATCH_URL:-http://127.0.0.1:18080} pf=$K8S_ROOT/apiserver.pid p down up
  m() { curl -s "$url/metrics" | awk -v k="$1" 'index($0,k)==1 {print $2}'; }
  st() {
    printf '%s readyz=%s watch_errors_total{pods}=%s watch_failing{pods}=%s cache_synced=%s leader=%s\n' \
      "$(date -u +%T)" "$(curl -s -o /dev/null -w '%{http_code}' "$url/readyz")" \
      "$(m 'volmnt_watch_errors_total{resource="pods"}')" "$(m 'volmnt_watch_failing{resource="pods"}')" \
      "$(m volmnt_cache_synced)" "$(m volmnt_leader)"
  }
  alive "$pf" || { echo "real-cluster.sh: kube-apiserver is not running" >&2; exit 1; }
  st
  p=$(cat "$pf")
  echo "== $(date -u +%T) stopping kube-apiserver (pid $p; etcd keeps running)"
  kill -TERM "$p"
  for _ in $(seq 30); do [ -d "/proc/$p" ] || break; sleep 1; done
  [ -d "/proc/$p" ] && { echo "== $(date -u +%T) still serving after 30 s: SIGKILL"; kill -KILL "$p"; sleep 1; }
  rm -f "$pf"
  down=$(date +%s)
  while [ $(( $(date +%s) - down )) -lt "$secs" ]; do st; sleep 2; done
  echo "== $(date -u +%T) starting kube-apiserver again after $(( $(date +%s) - down )) s"
  "$RC/start.sh" | tail -1
  up=$(date +%s)
  for _ in $(seq 60); do
    st
    [ "$(curl -s -o /dev/null -w '%{http_code}' "$url/readyz")" = 200 ] && break
    sleep 1
  done
  echo "== /readyz 200 again $(( $(date +%s) - up )) s after the API server answered"
}

unwatch() {
  kc delete -f "$repo/deploy/watch.yaml" --ignore-not-found --wait=false
}

case $cmd in
  up) up ;;
  image) "$repo/scripts/build-image.sh" --import ;;
  watch-manifests) watch_manifests ;;
  watch-chart) watch_chart ;;
  unwatch) unwatch ;;
  outage) need_scripts; outage "${rest[@]}" ;;
  status) status ;;
  down) down ;;
  -h|--help|help) usage ;;
  *) usage >&2; exit 2 ;;
esac
