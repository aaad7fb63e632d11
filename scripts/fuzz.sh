#!/usr/bin/env bash
# Runs every cargo-fuzz target (fuzz/fuzz_targets/) for SECONDS each (default 60), seeded from
# fixtures/ (and the corpus a previous run left in fuzz/corpus/<target>), and prints executions
# and executions per second per target. A crash, timeout or out-of-memory input is minimized
# into fixtures/fuzz/<target>/ , where tests/bounds.rs (fuzz_findings_stay_fixed) replays it on
# every `cargo test`.
#   scripts/fuzz.sh            # 60 s per target
#   scripts/fuzz.sh 300 klog   # 300 s, one target
# Needs the nightly toolchain (on the machines) and cargo-fuzz (installed from crates.io here).
set -euo pipefail
cd "$(dirname "$0")/.."
secs="${1:-60}"; shift || true
if ! command -v cargo-fuzz >/dev/null 2>&1; then
  cargo install cargo-fuzz --locked
fi
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  mapfile -t targets < <(ls fuzz/fuzz_targets | sed 's/\.rs$//')
fi

seed() { # seed <target>: copy the fixtures that fit the target into its corpus
  local t="$1" dir="fuzz/corpus/$1"
  mkdir -p "$dir"
  local globs=()
  case "$t" in
    describe_pod) globs=(fixtures/seed/*describe* fixtures/synthetic/*describe*) ;;
    describe_pv|describe_pvc) globs=(fixtures/synthetic/*describe-pv* fixtures/synthetic/*pvc*) ;;
    event_table) globs=(fixtures/seed/*event* fixtures/synthetic/*event*) ;;
    objects) globs=(fixtures/clusters/*/*.yaml fixtures/synthetic/*.yaml) ;;
    klog) globs=(fixtures/seed/*kubelet* fixtures/synthetic/*kubelet* fixtures/synthetic/*journal*) ;;
    rbd) globs=(fixtures/ceph/*.out fixtures/seed/rbd-*) ;;
    mountinfo) globs=(fixtures/hosts/*/proc/1/mountinfo) ;;
    probe) globs=(fixtures/synthetic/*probe*) ;;
    transcripts) globs=(fixtures/node/*.txt) ;;
    tables) globs=(fixtures/tables/*.txt fixtures/clusters/*/logs/*/*/*.log) ;;
    list_items) globs=(fixtures/synthetic/objects/*.json) ;;
    *) globs=(fixtures/seed/* fixtures/synthetic/*) ;;
  esac
  for f in "${globs[@]}"; do
    [ -f "$f" ] || continue
    # inputs over 64 KiB are cut: the fuzzer's max_len
    head -c 65536 "$f" > "$dir/seed-$(echo "$f" | tr '/' '_')"
  done
  if [ "$t" = mount_error ] || [ "$t" = explain ]; then
    python3 - "$dir" <<'PY'
import sys, yaml, hashlib, os
d = sys.argv[1]
for f in ("fixtures/corpus/real-mount-failures.yaml", "fixtures/corpus/world.yaml"):
    for r in yaml.safe_load(open(f)) or []:
        t = r["text"].encode()
        open(os.path.join(d, "corpus-" + hashlib.sha1(t).hexdigest()[:12]), "wb").write(t)
PY
  fi
}

printf '%-16s %12s %10s  %s\n' target executions exec/s result
for t in "${targets[@]}"; do
  seed "$t"
  log="fuzz/last-$t.log"
  set +e
  (cd fuzz && cargo +nightly fuzz run "$t" "corpus/$t" -- \
      -max_total_time="$secs" -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
      -print_final_stats=1 ) > "$log" 2>&1
  code=$?
  set -e
  execs=$(grep -m1 'stat::number_of_executed_units' "$log" | awk '{print $2}')
  rate=$(grep -m1 'stat::average_exec_per_sec' "$log" | awk '{print $2}')
  result=ok
  if [ "$code" -ne 0 ]; then
    art=$(grep -oE 'fuzz/artifacts/[^ ]+|artifacts/[^ ]+' "$log" | tail -1)
    result="FOUND (exit $code): $art"
    if [ -n "$art" ] && [ -f "fuzz/$art" ]; then
      mkdir -p "fixtures/fuzz/$t"
      (cd fuzz && cargo +nightly fuzz tmin "$t" "$art" -- -runs=2000 >/dev/null 2>&1 || true)
      min=$(ls -t fuzz/artifacts/"$t"/minimized-from-* 2>/dev/null | head -1)
      cp "${min:-fuzz/$art}" "fixtures/fuzz/$t/$(basename "${min:-$art}")"
      result="$result -> fixtures/fuzz/$t/"
    fi
  fi
  printf '%-16s %12s %10s  %s\n' "$t" "${execs:-?}" "${rate:-?}" "$result"
done
