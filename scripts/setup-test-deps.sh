#!/usr/bin/env bash
# Installs what the tests need beyond the Rust toolchain, on a fresh Debian machine: each
# scripts/deps/*.sh installs one thing (openssh-server for the SSH transport tests, Ceph for the
# rbd tests) when it is missing, and is a no-op when it is there. Safe to run repeatedly.
set -euo pipefail
cd "$(dirname "$0")/.."
for f in scripts/deps/*.sh; do
  [ -e "$f" ] || continue
  bash "$f"
done
