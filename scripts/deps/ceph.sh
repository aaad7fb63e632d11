#!/usr/bin/env bash
# Ceph (mon, osd, and the rbd/ceph CLIs) for the `rbd status|unlock` tests: tests/support/ceph.rs
# starts a throwaway single-node cluster on 127.0.0.1 with scripts/micro-ceph.sh. A no-op when
# everything is installed. Debian/Ubuntu only (apt-get, about 60 MB); elsewhere it says what to
# install and fails. VOLMNT_SKIP_CEPH=1 skips it (the rbd tests then fail, saying why).
set -euo pipefail

[ "${VOLMNT_SKIP_CEPH:-0}" = 1 ] && exit 0

need=(ceph-mon ceph-osd ceph-authtool monmaptool ceph rbd uuidgen timeout python3)
missing() {
  local c
  for c in "${need[@]}"; do
    command -v "$c" >/dev/null 2>&1 || { echo "$c"; return 0; }
  done
  return 1
}

if ! missing >/dev/null; then
  exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
  echo "scripts/deps/ceph.sh: install Ceph's ceph-mon, ceph-osd and ceph-common (rbd, ceph)," \
    "uuidgen and python3 (missing: $(missing))" >&2
  exit 1
fi

sudo=
if [ "$(id -u)" -ne 0 ]; then sudo=sudo; fi

export DEBIAN_FRONTEND=noninteractive
echo "scripts/deps/ceph.sh: installing ceph-mon ceph-osd ceph-common uuid-runtime (about 60 MB)" >&2
$sudo apt-get update -qq
# This image's apt cleans its package cache between dpkg batches, so give each try its own
# archive directory; one retry covers that and a transient mirror error.
install() {
  local cache rc=0
  cache=$(mktemp -d)
  $sudo apt-get install -y -qq --no-install-recommends \
    -o Dir::Cache::archives="$cache" ceph-mon ceph-osd ceph-common uuid-runtime python3 || rc=$?
  rm -rf "$cache"
  return $rc
}
install || install

if m=$(missing); then
  echo "scripts/deps/ceph.sh: still missing after install: $m" >&2
  exit 1
fi
