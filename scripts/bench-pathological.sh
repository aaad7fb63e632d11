#!/usr/bin/env bash
# The pathological inputs of docs/reference.md's Limits section, each against the release binary
# (`volmnt doctor pod --offline -f FILE -o json`): wall time, peak RSS (GNU time's "Maximum
# resident set size") and the first line of stderr (the refusal, when there is one). The goal
# (issue 11): every one under 5 s and 500 MiB, or refused with a clear message.
#   scripts/bench-pathological.sh [BIN]    (default target/release/volmnt, built if missing)
set -euo pipefail
cd "$(dirname "$0")/.."
bin="${1:-target/release/volmnt}"
[ -x "$bin" ] || cargo build --release --bin volmnt
tmp=$(mktemp -d "${TMPDIR:-/tmp}/volmnt-patho.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

python3 - "$tmp" <<'PY'
import sys, os
d = sys.argv[1]
w = lambda name, data: open(os.path.join(d, name), "w").write(data)
# A 50 MB single line (a log line without a break).
w("single-line-50mb.log", "E1122 10:00:00.000000 1 mount_linux.go:1] Mount failed: " + "x" * 50_000_000 + "\n")
# 100,000 nested flow sequences in a pod YAML, and the same in JSON.
w("nested-100k.yaml", "apiVersion: v1\nkind: Pod\nmetadata: {name: x}\nspec: " + "[" * 100_000 + "]" * 100_000 + "\n")
w("nested-100k.json", '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"x"},"spec":' + "[" * 100_000 + "]" * 100_000 + "}\n")
# A YAML alias bomb (billion laughs).
lines = ["a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]"]
for i, n in enumerate("bcdefghi"):
    prev = "abcdefghi"[i]
    lines.append(f"{n}: &{n} [*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev}]")
w("alias-bomb.yaml", "apiVersion: v1\nkind: Pod\nmetadata: {name: x}\n" + "\n".join(lines) + "\n")
# kubectl describe pod with a million event rows.
rows = "".join(f"  Warning  FailedMount  {i % 59 + 1}m  kubelet  MountVolume.SetUp failed for volume \"v{i}\" : mount failed: exit status 32\n" for i in range(1_000_000))
w("describe-1m-events.txt", "Name:         web-0\nNamespace:    shop\nNode:         node1/10.0.0.5\nStatus:       Pending\nEvents:\n  Type     Reason       Age   From     Message\n  ----     ------       ----  ----     -------\n" + rows)
# kubectl get events with a million rows.
rows = "".join(f"{i % 59 + 1}m  Warning  FailedMount  pod/web-{i % 1000}  MountVolume.SetUp failed for volume \"v{i}\" : mount failed: exit status 32\n" for i in range(1_000_000))
w("get-events-1m.txt", "LAST SEEN   TYPE      REASON        OBJECT        MESSAGE\n" + rows)
# 200,000 YAML documents of one object each.
w("docs-200k.yaml", "".join(f"---\napiVersion: v1\nkind: ConfigMap\nmetadata: {{name: c{i}, namespace: shop}}\n" for i in range(200_000)))
PY

if /usr/bin/time -v true >/dev/null 2>&1; then timer=gnu; else timer=none; fi
printf '%-26s %10s %9s %8s  %s\n' input size wall "max RSS" "exit, first line of stderr"
for f in "$tmp"/*; do
  name=$(basename "$f")
  size=$(du -h "$f" | cut -f1)
  start=$(date +%s%N)
  set +e
  if [ "$timer" = gnu ]; then
    /usr/bin/time -v -o "$tmp/.time" "$bin" doctor pod --offline -f "$f" -o json >/dev/null 2>"$tmp/.err"
    rc=$?
    rss=$(awk -F': ' '/Maximum resident set size/ {printf "%.0f MiB", $2/1024}' "$tmp/.time")
  else
    "$bin" doctor pod --offline -f "$f" -o json >/dev/null 2>"$tmp/.err"
    rc=$?
    rss="?"
  fi
  set -e
  end=$(date +%s%N)
  wall=$(awk -v a="$start" -v b="$end" 'BEGIN {printf "%.2f s", (b - a) / 1e9}')
  printf '%-26s %10s %9s %8s  %s\n' "$name" "$size" "$wall" "$rss" "$rc, $(head -c 120 "$tmp/.err" | head -1)"
done
