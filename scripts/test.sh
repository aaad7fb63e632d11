#!/usr/bin/env bash
# Every check CI runs, in one command: formatting, lints, unit and integration tests (the
# public corpus accuracy test among them). Works on a fresh machine with only the Rust
# toolchain; anything else a test needs is installed by scripts/setup-test-deps.sh.
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n== %s\n' "$*" >&2; }

if [ -x scripts/setup-test-deps.sh ]; then
  step "test dependencies"
  scripts/setup-test-deps.sh
fi

step "cargo fmt --check"
cargo fmt --all -- --check

step "cargo clippy (warnings are errors)"
cargo clippy --locked --all-targets -- -D warnings

step "cargo test"
# The whole run takes about 10 minutes on 2 cores; each run of the binary inside is bounded by
# the harness (tests/util.rs). This bound is the last line: a hang fails the run here, with the
# test names still running printed by the harness, instead of holding CI until its time is up.
timeout -k 30s 50m cargo test --locked
