#!/usr/bin/env bash
# OpenSSH server and client, for the `node check --ssh` tests (tests/support/sshd.rs starts a
# throwaway sshd on 127.0.0.1). A no-op when both are installed. Debian/Ubuntu only (apt-get);
# elsewhere it says what to install and fails.
set -euo pipefail

have_sshd() { [ -x /usr/sbin/sshd ] || command -v sshd >/dev/null 2>&1; }
have_ssh() { command -v ssh >/dev/null 2>&1 && command -v ssh-keygen >/dev/null 2>&1; }

if have_sshd && have_ssh; then
  exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
  echo "scripts/deps/sshd.sh: install openssh-server and openssh-client (sshd, ssh, ssh-keygen)," \
    "or set VOLMNT_SKIP_SSHD=1 to skip the --ssh tests" >&2
  exit 1
fi

sudo=
if [ "$(id -u)" -ne 0 ]; then sudo=sudo; fi

export DEBIAN_FRONTEND=noninteractive
echo "scripts/deps/sshd.sh: installing openssh-server openssh-client" >&2
$sudo apt-get update -qq
# This image's apt cleans its package cache between dpkg batches, so give each try its own
# archive directory; one retry covers a transient mirror error.
install() {
  local cache
  cache=$(mktemp -d)
  $sudo apt-get install -y -qq --no-install-recommends \
    -o Dir::Cache::archives="$cache" openssh-server openssh-client
  local rc=$?
  rm -rf "$cache"
  return $rc
}
install || install

# The tests run their own sshd with a generated config; the packaged service is not needed.
have_sshd && have_ssh
