#!/usr/bin/env bash
# Builds volmnt's release archives, their sha256, and the krew plugin manifest that installs
# them (plugins/volmnt.yaml), for every target given (default: this machine's), e.g.
#   scripts/release-archives.sh                      # x86_64-unknown-linux-gnu here
#   scripts/release-archives.sh aarch64-unknown-linux-gnu   # where that target is installed
# Each archive holds the kubectl plugin binary (kubectl-volmnt), its completion helper
# (kubectl_complete-volmnt), the completion scripts, the man pages, the deploy/ manifests and the
# README. Archives are byte-for-byte reproducible from the same binary (sorted, fixed mtime and
# owner, gzip -n). VOLMNT_RELEASE_BASE_URL is where the release's files will be served from.
# The manifest's format is krew's (krew.sigs.k8s.io/docs/developer-guide/plugin-manifest);
# tests/install.rs validates it.
set -euo pipefail
cd "$(dirname "$0")/.."

version="v$(grep -m1 '^version' Cargo.toml | cut -d'"' -f2)"
base="${VOLMNT_RELEASE_BASE_URL:-https://github.com/volmnt/volmnt/releases/download/$version}"
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  targets=("$(rustc -vV | sed -n 's/^host: //p')")
fi

mkdir -p dist
platforms=""
for t in "${targets[@]}"; do
  case "$t" in
    x86_64-unknown-linux-*) os=linux; arch=amd64; exe="" ;;
    aarch64-unknown-linux-*) os=linux; arch=arm64; exe="" ;;
    x86_64-apple-darwin) os=darwin; arch=amd64; exe="" ;;
    aarch64-apple-darwin) os=darwin; arch=arm64; exe="" ;;
    x86_64-pc-windows-*) os=windows; arch=amd64; exe=".exe" ;;
    *) echo "release-archives: no krew platform for target $t" >&2; exit 2 ;;
  esac
  cargo build --release --locked --target "$t" >&2
  stage="$(mktemp -d)"
  trap 'rm -rf "$stage"' EXIT
  cp "target/$t/release/volmnt$exe" "$stage/kubectl-volmnt$exe"
  cp completions/kubectl_complete-volmnt "$stage/"
  mkdir -p "$stage/completions" "$stage/man" "$stage/deploy"
  cp completions/_volmnt completions/volmnt.bash completions/volmnt.fish completions/volmnt.elv completions/_volmnt.ps1 "$stage/completions/"
  cp man/*.1 "$stage/man/"
  cp deploy/*.yaml "$stage/deploy/"
  cp README.md "$stage/"
  # The README links into docs/ (the guide, the reference): the archive carries them.
  cp -R docs "$stage/"
  mkdir -p "$stage/schema" && cp schema/volmnt.schema.json "$stage/schema/"
  cp -R charts "$stage/"
  archive="volmnt-$version-$t.tar.gz"
  tar --sort=name --mtime='2000-01-01 00:00:00Z' --owner=0 --group=0 --numeric-owner \
      -C "$stage" -cf - . | gzip -n -9 > "dist/$archive"
  rm -rf "$stage"; trap - EXIT
  sum="$(sha256sum "dist/$archive" | cut -d' ' -f1)"
  echo "$sum  $archive" > "dist/$archive.sha256"
  echo "dist/$archive $sum" >&2
  platforms+="  - selector:
      matchLabels:
        os: $os
        arch: $arch
    uri: $base/$archive
    sha256: $sum
    bin: kubectl-volmnt$exe
    files:
      - from: ./kubectl-volmnt$exe
        to: .
      - from: ./kubectl_complete-volmnt
        to: .
      - from: ./README.md
        to: .
      - from: ./docs
        to: .
"
done

cat > plugins/volmnt.yaml <<MANIFEST
# krew plugin manifest (krew.sigs.k8s.io/docs/developer-guide/plugin-manifest), written by
# scripts/release-archives.sh for the archives it built; tests/install.rs validates it.
apiVersion: krew.googlecontainertools.github.com/v1alpha2
kind: Plugin
metadata:
  name: volmnt
spec:
  version: $version
  homepage: https://github.com/volmnt/volmnt
  shortDescription: Why a pod is stuck on a volume, and what to run
  description: |
    volmnt tells why a pod is stuck in ContainerCreating because of a volume (NFS, RBD,
    CephFS, iSCSI, SMB, CSI drivers) and what to run to fix it: the likely causes ranked with
    their evidence, and the exact commands for the node's OS. It reads the pod, its events,
    claims, volumes, attachments and nodes (read-only), or saved kubectl output; it checks
    what nodes can mount and who holds an RBD image.
  caveats: |
    Read-only roles for every command: kubectl apply -f deploy/rbac.yaml (in the archive).
    Shell completion for kubectl volmnt: put kubectl_complete-volmnt on your PATH.
  platforms:
$platforms
MANIFEST
echo "wrote plugins/volmnt.yaml for $version" >&2
