#!/usr/bin/env bash
# micro-ceph.sh - throwaway single-node Ceph cluster (1 mon, 1 osd, optional mgr)
# living entirely under one data directory, bound to 127.0.0.1 only. The rbd tests start one
# through tests/support/ceph.rs (scripts/deps/ceph.sh installs what it needs); it also works by
# hand for trying `volmnt rbd` out:
#   scripts/micro-ceph.sh start /tmp/c && . /tmp/c/env && rbd create kube/img --size 16
#
# Usage:
#   micro-ceph.sh start  DIR   start a cluster in DIR (DIR must not exist or be empty)
#   micro-ceph.sh stop   DIR   stop the daemons listed in DIR/pids (by PID) and rm -rf DIR
#   micro-ceph.sh status DIR   print daemon PIDs and `ceph -s`
#
# After `start`, `source DIR/env` exports CEPH_CONF so that `ceph` and `rbd`
# talk to this cluster; nothing under /etc/ceph or /var/lib/ceph is used.
# DIR should be an absolute path without spaces. Needs: ceph-mon ceph-osd
# ceph-common (+ ceph-mgr when MICRO_CEPH_MGR=1), uuidgen, python3, timeout.
#
# Knobs (environment):
#   MICRO_CEPH_MGR=1|0                 start a ceph-mgr (default 0: rbd and the osd blocklist
#                                      need none, and the tests do not install ceph-mgr)
#   MICRO_CEPH_OBJECTSTORE=memstore|bluestore   (default memstore)
#   MICRO_CEPH_POOLS="kube"            pools to create and `rbd pool init` (default kube)
#   MICRO_CEPH_PG_NUM=8                pg_num of each pool
#   MICRO_CEPH_MON_V2_PORT / MICRO_CEPH_MON_V1_PORT   (default: pick free ports)
#   MICRO_CEPH_TIMEOUT=120             seconds to wait for each readiness step
#   MICRO_CEPH_EXTRA_CONF="k = v"      extra lines appended to [global]
set -euo pipefail

die() { echo "micro-ceph: $*" >&2; exit 1; }
log() { echo "micro-ceph: [$(date +%T.%3N)] $*" >&2; }

cmd=${1:-}; DIR=${2:-}
if [ -z "$cmd" ] || [ -z "$DIR" ]; then die "usage: $0 start|stop|status DIR"; fi
case "$DIR" in /*) ;; *) DIR="$PWD/$DIR" ;; esac
DIR=${DIR%/}
if [ -z "$DIR" ] || [ "$DIR" = "/" ]; then die "refusing DIR=/"; fi

CONF="$DIR/ceph.conf"
TIMEOUT=${MICRO_CEPH_TIMEOUT:-120}

free_port() {
  python3 - <<'EOF'
import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])
s.close()
EOF
}

# `ceph` CLI with our conf, bounded in time.
c() { timeout "$TIMEOUT" ceph -c "$CONF" --connect-timeout 30 "$@"; }

wait_for() { # wait_for DESCRIPTION COMMAND...
  local what=$1; shift
  local deadline=$((SECONDS + TIMEOUT))
  until "$@" >/dev/null 2>&1; do
    [ $SECONDS -lt $deadline ] || die "timed out waiting for $what"
    sleep 0.2
  done
}

# true if PID is alive (not a zombie) and is one of *our* daemons, i.e. its
# command line carries "-c $CONF" (guards against PID reuse)
is_ours() {
  local pid=$1
  kill -0 "$pid" 2>/dev/null || return 1
  tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "-c $CONF "
}

stop_pid() { # stop_pid NAME PID: SIGTERM, wait up to 10 s, then SIGKILL
  local name=$1 pid=$2 ts
  is_ours "$pid" || return 0
  ts=$(date +%s%N)
  kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 1 100); do is_ours "$pid" || break; sleep 0.1; done
  if is_ours "$pid"; then
    log "$name (pid $pid) ignored SIGTERM for 10s, sending SIGKILL"
    kill -KILL "$pid" 2>/dev/null || true
    for _ in $(seq 1 50); do is_ours "$pid" || break; sleep 0.1; done
  else
    log "$name (pid $pid) exited $(( ($(date +%s%N) - ts) / 1000000 ))ms after SIGTERM"
  fi
}

stop_daemons() {
  local f i
  local files=("$DIR"/pids/*.pid)
  # reverse start order: 30-osd.0, 20-mgr.x, 10-mon.a
  for ((i = ${#files[@]} - 1; i >= 0; i--)); do
    f=${files[$i]}; [ -e "$f" ] || continue
    stop_pid "$(basename "$f" .pid)" "$(cat "$f")"
    rm -f "$f"
  done
  # daemons whose pid file exists but was never recorded (start aborted midway)
  for f in "$DIR"/run/*.pid; do
    [ -e "$f" ] || continue
    stop_pid "$(basename "$f" .pid)" "$(cat "$f" 2>/dev/null || echo 0)"
  done
}

# The daemons write their own pid files (pid file = ...) after forking;
# we copy them into $DIR/pids/NN-name.pid so stop order is deterministic.
record_pid() { # record_pid ORDER NAME
  local src="$DIR/run/$2.pid"
  wait_for "$2 pid file" test -s "$src"
  cp "$src" "$DIR/pids/$1-$2.pid"
  log "$2 started, pid $(cat "$src")"
}

on_start_exit() {
  local rc=$?
  if [ $rc -ne 0 ]; then
    log "start failed (rc=$rc); stopping daemons, logs kept in $DIR/log"
    stop_daemons
  fi
}

start() {
  if [ -e "$DIR" ] && [ -n "$(ls -A "$DIR" 2>/dev/null)" ]; then
    die "$DIR exists and is not empty"
  fi
  local t0=$SECONDS
  local OBJECTSTORE=${MICRO_CEPH_OBJECTSTORE:-memstore}
  # (an unknown value would silently fall back to bluestore, so check it)
  case "$OBJECTSTORE" in memstore|bluestore) ;; *) die "unsupported objectstore $OBJECTSTORE";; esac
  local WITH_MGR=${MICRO_CEPH_MGR:-0}
  local POOLS=${MICRO_CEPH_POOLS:-kube}
  local PG_NUM=${MICRO_CEPH_PG_NUM:-8}
  local V2=${MICRO_CEPH_MON_V2_PORT:-$(free_port)}
  local V1=${MICRO_CEPH_MON_V1_PORT:-$(free_port)}
  while [ "$V1" = "$V2" ]; do V1=$(free_port); done
  local FSID OSD_UUID
  FSID=$(uuidgen)
  OSD_UUID=$(uuidgen)

  mkdir -p "$DIR"/{run,log,pids,crash,mon.a,osd.0,mgr.x}
  touch "$DIR/.micro-ceph"
  trap on_start_exit EXIT

  cat > "$CONF" <<EOF
[global]
fsid = $FSID
mon host = [v2:127.0.0.1:$V2,v1:127.0.0.1:$V1]
mon initial members = a
public addr = 127.0.0.1
cluster addr = 127.0.0.1
ms bind ipv6 = false
run dir = $DIR/run
crash dir = $DIR/crash
auth cluster required = cephx
auth service required = cephx
auth client required = cephx
auth allow insecure global id reclaim = false
osd pool default size = 1
osd pool default min size = 1
osd pool default pg num = $PG_NUM
osd pool default pgp num = $PG_NUM
osd pool default pg autoscale mode = off
osd crush chooseleaf type = 0
mon allow pool size one = true
mon warn on pool no redundancy = false
mon warn on insecure global id reclaim = false
mon warn on insecure global id reclaim allowed = false
mon allow pool delete = true
mon data avail warn = 1
mon data avail crit = 0
mgr initial modules = iostat
# commit mon map changes every 100 ms instead of every 1 s: start-up 8.6 s -> 2-3 s
paxos propose interval = 0.1
# without a mgr, avoid HEALTH_WARN "no active mgr" (MGR_DOWN) after 120 s
mon mgr mkfs grace = $([ "$WITH_MGR" = 1 ] && echo 120 || echo 31536000)
${MICRO_CEPH_EXTRA_CONF:-}

[mon]
mon data = $DIR/mon.\$id
log file = $DIR/log/\$name.log
pid file = $DIR/run/\$name.pid
admin socket = $DIR/run/\$name.asok
mon cluster log file = $DIR/log/cluster.log

[osd]
osd data = $DIR/osd.\$id
keyring = $DIR/osd.\$id/keyring
log file = $DIR/log/\$name.log
pid file = $DIR/run/\$name.pid
admin socket = $DIR/run/\$name.asok
osd objectstore = $OBJECTSTORE
memstore device bytes = 1073741824
bluestore block path = $DIR/osd.\$id/block.img
bluestore block create = true
bluestore block size = 2147483648
bluestore cache autotune = false
bluestore cache size = 134217728
osd memory target = 939524096
osd op num shards = 2
osd op num threads per shard = 1

[mgr]
mgr data = $DIR/mgr.\$id
keyring = $DIR/mgr.\$id/keyring
log file = $DIR/log/\$name.log
pid file = $DIR/run/\$name.pid
admin socket = $DIR/run/\$name.asok

[client]
keyring = $DIR/client.admin.keyring
client mount timeout = 30
rados mon op timeout = 60
rados osd op timeout = 60
EOF

  # --- keys -------------------------------------------------------------
  log "generating keys and monmap (fsid $FSID, mon v2:$V2 v1:$V1)"
  ceph-authtool --create-keyring "$DIR/mon.keyring" --gen-key -n mon. --cap mon 'allow *' >/dev/null
  ceph-authtool --create-keyring "$DIR/client.admin.keyring" --gen-key -n client.admin \
    --cap mon 'allow *' --cap osd 'allow *' --cap mgr 'allow *' --cap mds 'allow *' >/dev/null
  ceph-authtool --create-keyring "$DIR/osd.0/keyring" --gen-key -n osd.0 \
    --cap mon 'allow profile osd' --cap mgr 'allow profile osd' --cap osd 'allow *' >/dev/null
  ceph-authtool --create-keyring "$DIR/mgr.x/keyring" --gen-key -n mgr.x \
    --cap mon 'allow profile mgr' --cap osd 'allow *' --cap mds 'allow *' >/dev/null
  # everything the mon must know at birth goes into its mkfs keyring
  for k in client.admin.keyring osd.0/keyring mgr.x/keyring; do
    ceph-authtool "$DIR/mon.keyring" --import-keyring "$DIR/$k" >/dev/null
  done

  # --- mon --------------------------------------------------------------
  monmaptool --create --fsid "$FSID" --addv a "[v2:127.0.0.1:$V2,v1:127.0.0.1:$V1]" \
    "$DIR/monmap" >/dev/null
  ceph-mon -c "$CONF" -i a --mkfs --monmap "$DIR/monmap" --keyring "$DIR/mon.keyring"
  ceph-mon -c "$CONF" -i a
  record_pid 10 mon.a
  wait_for "mon quorum" c quorum_status

  # --- mgr (optional) ---------------------------------------------------
  if [ "$WITH_MGR" = 1 ]; then
    ceph-mgr -c "$CONF" -i x
    record_pid 20 mgr.x
  fi

  # --- osd --------------------------------------------------------------
  local id
  id=$(c osd create "$OSD_UUID")
  [ "$id" = 0 ] || die "expected osd id 0, got '$id'"
  ceph-osd -c "$CONF" -i 0 --mkfs --osd-uuid "$OSD_UUID" >"$DIR/log/osd.0.mkfs.log" 2>&1 \
    || { cat "$DIR/log/osd.0.mkfs.log" >&2; die "ceph-osd --mkfs failed"; }
  log "osd.0 mkfs done ($OBJECTSTORE)"
  ceph-osd -c "$CONF" -i 0
  record_pid 30 osd.0
  wait_for "osd.0 up" sh -c "ceph -c '$CONF' osd dump --format json | grep -q '\"up\":1'"
  log "osd.0 up after $((SECONDS - t0))s"

  # --- pools ------------------------------------------------------------
  local p
  for p in $POOLS; do
    c osd pool create "$p" "$PG_NUM" "$PG_NUM" replicated >>"$DIR/log/setup.log" 2>&1 \
      || die "pool create $p failed: $(tail -3 "$DIR/log/setup.log")"
    log "pool $p created"
    # blocks until the pool's PGs are active (it writes to the pool)
    timeout "$TIMEOUT" rbd -c "$CONF" pool init "$p"
    timeout "$TIMEOUT" rbd -c "$CONF" ls "$p" >/dev/null
    log "pool $p initialised for rbd"
  done

  cat > "$DIR/env" <<EOF
export CEPH_CONF=$CONF
export MICRO_CEPH_DIR=$DIR
export MICRO_CEPH_FSID=$FSID
export MICRO_CEPH_MON_ADDR=127.0.0.1:$V2
EOF
  touch "$DIR/.ready"
  trap - EXIT
  log "ready after $((SECONDS - t0))s: pools [$POOLS]; source $DIR/env"
}

stop() {
  [ -d "$DIR" ] || { log "$DIR does not exist"; return 0; }
  [ -e "$DIR/.micro-ceph" ] || die "$DIR is not a micro-ceph dir (no .micro-ceph marker); not touching it"
  stop_daemons
  rm -rf "$DIR"
  log "stopped and removed $DIR"
}

status() {
  local f
  for f in "$DIR"/pids/*.pid; do
    [ -e "$f" ] || continue
    local pid; pid=$(cat "$f")
    if is_ours "$pid"; then echo "$(basename "$f" .pid) pid=$pid running"
    else echo "$(basename "$f" .pid) pid=$pid DEAD"; fi
  done
  c -s
}

case "$cmd" in
  start) start ;;
  stop) stop ;;
  status) status ;;
  *) die "unknown command $cmd" ;;
esac
