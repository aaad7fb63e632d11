#!/usr/bin/env bash
# Throughput figures for volmnt: `cargo bench --bench throughput` (classification msgs/s,
# parsing and diagnosing a generated 100 MiB kubelet log), then the release binary end to end
# on that log written to a temp file: `volmnt doctor pod -f LOG -o json`, wall time and peak
# RSS; then `node check --all` over 20 simulated nodes (wall time vs the sum of the nodes').
# Ends with a short summary table. Needs only the Rust toolchain (bash, coreutils);
# uses GNU /usr/bin/time when present, else samples VmHWM from /proc.
#
# Environment: VOLMNT_BENCH_LOG_MIB (log size, default 100), VOLMNT_BENCH_RUNS (runs per bench
# figure, default 5), BENCH_E2E_RUNS (runs of the binary, default 3), BENCH_NO_GNU_TIME=1 (use
# the /proc sampling even when GNU time is installed).
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n== %s\n' "$*" >&2; }

E2E_RUNS=${BENCH_E2E_RUNS:-5}
TARGET_DIR=${CARGO_TARGET_DIR:-target}
BIN="$TARGET_DIR/release/volmnt"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/volmnt-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
export VOLMNT_BENCH_SUMMARY="$tmp/summary.tsv"
: >"$VOLMNT_BENCH_SUMMARY"

cpu=$(grep -m1 '^model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2- | sed 's/^ *//' || true)
machine="$(nproc 2>/dev/null || echo '?') CPU(s), ${cpu:-unknown CPU}, $(uname -sr)"

step "cargo bench --bench throughput"
cargo bench --bench throughput

step "release binary"
cargo build --release --bin volmnt

step "end to end: volmnt doctor pod -f <log> -o json"
log="$tmp/kubelet.log"
# The same generated log as the benchmark's (deterministic), from the bench binary.
cargo bench --bench throughput -- --write-log "$log" >&2
log_bytes=$(wc -c <"$log")

gnu_time=
if [ -z "${BENCH_NO_GNU_TIME:-}" ] && [ -x /usr/bin/time ] && /usr/bin/time -v true >/dev/null 2>&1; then
  gnu_time=/usr/bin/time
fi

now_ms() { echo $(($(date +%s%N) / 1000000)); }

# One run: sets run_ms, run_rss_kib, run_rc.
run_once() {
  local out="$tmp/report.json" start end
  start=$(now_ms)
  if [ -n "$gnu_time" ]; then
    set +e
    "$gnu_time" -v -o "$tmp/time.txt" "$BIN" doctor pod -f "$log" -o json >"$out"
    run_rc=$?
    set -e
    end=$(now_ms)
    run_rss_kib=$(grep 'Maximum resident set size' "$tmp/time.txt" | sed 's/.*: *//')
  else
    # No GNU time: sample the process's own peak (VmHWM) until it exits.
    "$BIN" doctor pod -f "$log" -o json >"$out" &
    local pid=$! hwm
    run_rss_kib=0
    while [ -r "/proc/$pid/status" ]; do
      hwm=$(grep '^VmHWM' "/proc/$pid/status" 2>/dev/null | tr -dc 0-9 || true)
      if [ -n "$hwm" ] && [ "$hwm" -gt "$run_rss_kib" ]; then run_rss_kib=$hwm; fi
      sleep 0.02
    done
    set +e
    wait "$pid"
    run_rc=$?
    set -e
    end=$(now_ms)
  fi
  run_ms=$((end - start))
  # 1 = a problem was found (expected: the log holds stuck pods); 0 = nothing found.
  if [ "$run_rc" -gt 1 ]; then
    echo "volmnt exited with $run_rc" >&2
    cat "$out" >&2
    exit 1
  fi
}

# The yardstick: GNU grep counting the lines with the same volume words the scan looks for
# (collect/offline.rs VOLUME_WORDS), case-insensitively, run between volmnt's runs so both see
# the same machine. Its output goes to a file: grep stops at the first match on /dev/null.
GREP_WORDS='volume|mount|attach|rbd|nfs|csi|iscsi|claim|disk|device|subpath|hostpath|configmap|secret'
grep_once() {
  local start end
  start=$(now_ms)
  grep -E -c -i "$GREP_WORDS" "$log" >"$tmp/grep.out" || true
  end=$(now_ms)
  grep_ms=$((end - start))
}

times_ms=()
grep_times_ms=()
max_rss=0
for i in $(seq 1 "$E2E_RUNS"); do
  grep_once
  grep_times_ms+=("$grep_ms")
  run_once
  times_ms+=("$run_ms")
  if [ "${run_rss_kib:-0}" -gt "$max_rss" ]; then max_rss=$run_rss_kib; fi
  printf 'run %d: %d ms wall, max RSS %d KiB, exit %d, report %d bytes\n' \
    "$i" "$run_ms" "${run_rss_kib:-0}" "$run_rc" "$(wc -c <"$tmp/report.json")" >&2
done
rm -f "$log"
median_ms=$(printf '%s\n' "${times_ms[@]}" | sort -n | sed -n "$(((E2E_RUNS + 1) / 2))p")
[ "$median_ms" -gt 0 ] || median_ms=1
grep_median_ms=$(printf '%s\n' "${grep_times_ms[@]}" | sort -n | sed -n "$(((E2E_RUNS + 1) / 2))p")
[ "$grep_median_ms" -gt 0 ] || grep_median_ms=1
if [ -n "$gnu_time" ]; then rss_how="/usr/bin/time -v"; else rss_how="VmHWM sampled every 20 ms"; fi

# --- live: the release binary against the in-process fake API server (benches/live.rs) ---
# Environment: VOLMNT_BENCH_LATENCY_MS (default 50), VOLMNT_BENCH_LIVE_SIZES (default
# 1000,5000,10000,10000:200: pods, or pods:stuck), VOLMNT_BENCH_RUNS (runs of doctor pod).
LIVE_SIZES=${VOLMNT_BENCH_LIVE_SIZES:-1000,5000,10000,10000:200}
step "live: cargo bench --bench live (latency ${VOLMNT_BENCH_LATENCY_MS:-50} ms, clusters $LIVE_SIZES)"
VOLMNT_BENCH_LIVE_SIZES=$LIVE_SIZES cargo bench --bench live

step "watch: cargo bench --bench watch (${VOLMNT_BENCH_WATCH:-50000:500:2000} pods:stuck:nodes)"
cargo bench --bench watch

# x.y from an integer ratio scaled by 10
dec() { printf '%d.%d' $(($1 / 10)) $(($1 % 10)); }
e2e_mibs=$(dec $((log_bytes * 10000 / (median_ms * 1048576))))
e2e_mib=$(dec $((log_bytes * 10 / 1048576)))
rss_mib=$(dec $((max_rss * 10 / 1024)))

step "node check --all over 20 fake-exec nodes (4 slow, 1 dead; --timeout 3s)"
# An ignored test (it prints figures and asserts only correctness): the fake API server's fake
# kubelet runs the probe against fixtures/hosts trees.
cargo test --test tests node_check_timing_20_nodes -- --ignored --nocapture >&2

step "node check --all --via daemonset over 200 fake nodes (10 dead; --timeout 5s)"
cargo test --test tests node_check_via_daemonset_timing_200_nodes -- --ignored --nocapture >&2

get() { grep "^$1"$'\t' "$VOLMNT_BENCH_SUMMARY" | cut -f2 || true; }

step "summary ($machine)"
row() { printf '%-52s %16s  %s\n' "$1" "$2" "$3"; }
row "figure" "value" "unit"
row "classification, raw (normalize+context_for+classify)" "$(get classify_raw)" "msgs/s (57 corpus msgs cycled)"
row "classification, diagnose::explain" "$(get classify_explain)" "msgs/s (57 corpus msgs cycled)"
row "  of which catalogue RegexSet::matches alone" "$(get classify_regexset)" "msgs/s"
row "  explain, each message repeated (median message)" "$(get classify_explain_repeated)" "msgs/s"
row "kubelet log, generated" "$(get log_mib)" "MiB"
row "parse_klog_with + is_volume_log_line" "$(get parse_mibs)" "MiB/s ($(get parse_kept) entries kept)"
row "  same, journalctl form (prefix on every line)" "$(get parse_journal_mibs)" "MiB/s"
row "offline path add_source + diagnose (in process)" "$(get offline_mibs)" "MiB/s"
row "  wall (add_source / diagnose)" "$(get offline_ms)" "ms ($(get offline_add_source_ms) / $(get offline_diagnose_ms))"
row "  peak RSS above RSS before" "$(get offline_peak_extra_mib)" "MiB"
row "binary: doctor pod -f LOG -o json, wall" "$median_ms" "ms (median of $E2E_RUNS, $e2e_mib MiB log)"
row "binary: throughput" "$e2e_mibs" "MiB/s"
row "  grep -E -c -i of the same words, wall" "$grep_median_ms" "ms (median of $E2E_RUNS, between volmnt's runs; volmnt/grep = $(dec $((median_ms * 10 / grep_median_ms))))"
row "binary: max RSS" "$rss_mib" "MiB ($rss_how)"

# live rows (benches/live.rs writes them to the same summary file)
getu() { grep "^$1"$'\t' "$VOLMNT_BENCH_SUMMARY" | cut -f3 || true; }
lat=$(get live_pod_latency_ms)
row "live: doctor pod, 5 PVCs, ${lat} ms/request, wall" "$(get live_pod_ms)" "ms median ($(get live_pod_requests) requests in $(get live_pod_waves) waves)"
row "live: doctor pod, same, latency 0, wall" "$(get live_pod_ms_0)" "ms median"
row "live: doctor pod, 2,000 pods in its namespace" "$(get live_pod_bigns_ms)" "ms ($(get live_pod_bigns_requests) requests in $(get live_pod_bigns_waves) waves)"
for spec in ${LIVE_SIZES//,/ }; do
  pods=${spec%%:*}
  stuck=$((pods / 5))
  [ "$spec" = "$pods" ] || stuck=${spec#*:}
  tag=$pods
  [ "$stuck" -eq $((pods / 5)) ] || tag="${pods}s${stuck}"
  k="live_ns_$tag"
  row "live: doctor namespace -A, $pods pods/$stuck stuck" "$(get "${k}_ms")" "ms wall ($(get "${k}_requests") requests, $(get "${k}_round_trips") round trips; found $(get "${k}_stuck"))"
  row "  peak RSS of volmnt" "$(get "${k}_rss_mib")" "MiB ($(get "${k}_served_mib") MiB JSON served; volmnt CPU $(get "${k}_cpu_ms") ms)"
  row "  fake server CPU (not volmnt)" "$(get "${k}_server_cpu_ms")" "ms (wall minus latency and server: $(get "${k}_own_ms") ms)"
  row "  doctor pod on one of its stuck pods" "$(get "${k}_pod_ms")" "ms ($(get "${k}_pod_requests") requests in $(get "${k}_pod_waves") waves)"
done
row "live: RSS growth, cluster and stuck pods grow" "$(get live_ns_rss_growth | tail -1)" "$(getu live_ns_rss_growth | tail -1)"
row "live: RSS growth, only the cluster grows" "$(get live_ns_rss_growth_fixed_stuck | tail -1)" "$(getu live_ns_rss_growth_fixed_stuck | tail -1)"
row "node check --all, 20 nodes: wall" "$(get node_check_20_wall_ms)" "ms (slowest node $(get node_check_20_max_ms) ms, sum of nodes $(get node_check_20_sum_ms) ms)"
row "watch: 50,000 pods / 500 stuck / 2,000 nodes, cache synced" "$(get watch_synced_s)" "s"
row "  steady-state VmRSS of volmnt watch" "$(get watch_rss_mib)" "MiB (peak $(get watch_hwm_mib) MiB)"
row "  FailedMount -> VolumeDiagnosis Event, median" "$(get watch_latency_median_ms)" "ms"
row "  API requests once synced" "$(get watch_requests_per_min)" "per minute"
row "node check --all --via daemonset, 200 nodes: wall" "$(get node_check_ds_200_wall_ms)" "ms (slowest node $(get node_check_ds_200_max_ms) ms = the dead ones' timeout; slowest live $(get node_check_ds_200_max_live_ms) ms)"
