#!/usr/bin/env bash
# A real Helm template engine for tests/chart.rs (the chart's default output must equal
# deploy/watch.yaml). A `helm` binary on the PATH is used as it is. Otherwise this installs the
# PyPI package helm-python-sdk (Helm v4's own Go SDK built as a C library, called through ctypes:
# the same engine as `helm template`, not a re-implementation) into
# ~/.cache/volmnt/helm-sdk, where scripts/helm-template.py finds it. A no-op once installed.
set -euo pipefail

version=0.2.2
dir="${VOLMNT_HELM_SDK_DIR:-$HOME/.cache/volmnt/helm-sdk}"

if command -v helm >/dev/null 2>&1; then
  exit 0
fi
if [ -f "$dir/.installed-$version" ]; then
  exit 0
fi
if ! command -v python3 >/dev/null 2>&1; then
  echo "scripts/deps/helm.sh: needs python3 (or a helm binary on the PATH)," \
    "or set VOLMNT_SKIP_HELM=1 to skip the chart test" >&2
  exit 1
fi
echo "scripts/deps/helm.sh: installing helm-python-sdk==$version into $dir" >&2
rm -rf "$dir"
mkdir -p "$dir"
python3 -m pip install --quiet --disable-pip-version-check --no-deps \
  --target "$dir" "helm-python-sdk==$version"
PYTHONPATH="$dir" python3 -c 'import helm_python as h; print("helm SDK", h.helm_sdk_version())' >&2
touch "$dir/.installed-$version"
