#!/usr/bin/env bash
# Builds the volmnt container image with no container engine and no registry: a static binary
# (the gnu target with crt-static: no musl toolchain needed, no libc needed at run time) and an
# OCI image archive written from scratch by scripts/oci-image.py (one layer: the binary, a static
# busybox for the `sh` the node-check probe needs, /etc/passwd; config, manifest, index, sha256
# digests). `ctr images import`, `podman load`, `skopeo copy oci-archive:...`, `docker load` read it.
#
#   scripts/build-image.sh                   # target/image/volmnt-<version>.oci.tar, image volmnt:<version>
#   scripts/build-image.sh --import          # ... and `ctr -n k8s.io images import` it (a node's containerd)
#   IMAGE=registry.example.com/ops/volmnt:0.1.0 scripts/build-image.sh --out volmnt.oci.tar
#   scripts/build-image.sh --dockerfile [--push]   # the Dockerfile instead, with docker/podman/buildah/nerdctl
#
# BUSYBOX: the static busybox to put in (default /bin/busybox: Debian's busybox-static); with
# --no-shell the image holds volmnt alone (enough for `volmnt watch`, not for `node check`'s probe).
# CARGO_TARGET_DIR is honoured. Push the archive with: skopeo copy oci-archive:FILE docker://REGISTRY/volmnt:TAG
set -euo pipefail
cd "$(dirname "$0")/.."

version=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)
image=${IMAGE:-volmnt:$version}
out=
import=no
shell=yes
dockerfile=no
push=no
while [ $# -gt 0 ]; do
  case "$1" in
    --out) [ $# -ge 2 ] || { echo "build-image.sh: --out needs a file" >&2; exit 2; }; out=$2; shift 2 ;;
    --out=*) out=${1#--out=}; shift ;;
    --import) import=yes; shift ;;
    --no-shell) shell=no; shift ;;
    --dockerfile) dockerfile=yes; shift ;;
    --push) push=yes; shift ;;
    -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
    *) echo "build-image.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done

# A name as containerd stores it: docker.io/library/volmnt:0.1.0 for volmnt:0.1.0.
full_name() {
  local n=$1 first=${1%%/*}
  case $n in
    */*) case $first in *.*|*:*|localhost) echo "$n" ;; *) echo "docker.io/$n" ;; esac ;;
    *) echo "docker.io/library/$n" ;;
  esac
}

if [ "$dockerfile" = yes ]; then
  # The Dockerfile (a static musl binary on busybox's musl image) with the first builder that works.
  tried=()
  builder=
  if command -v docker >/dev/null 2>&1; then
    if err=$(docker info --format '{{.ServerVersion}}' 2>&1); then builder=docker
    else tried+=("docker: the CLI is installed but no Docker engine answers ($(echo "$err" | tail -1))"); fi
  fi
  if [ -z "$builder" ] && command -v podman >/dev/null 2>&1; then
    if podman info >/dev/null 2>&1; then builder=podman; else tried+=("podman: podman info failed"); fi
  fi
  if [ -z "$builder" ] && command -v buildah >/dev/null 2>&1; then builder=buildah; fi
  if [ -z "$builder" ] && command -v nerdctl >/dev/null 2>&1; then
    if nerdctl info >/dev/null 2>&1; then builder=nerdctl; else tried+=("nerdctl: no containerd answers"); fi
  fi
  if [ -z "$builder" ]; then
    {
      echo "build-image.sh --dockerfile: no container builder works on this machine."
      for t in "${tried[@]}"; do echo "  - $t"; done
      [ ${#tried[@]} -eq 0 ] && echo "  - none of docker, podman, buildah, nerdctl is installed"
      echo "Without --dockerfile this script builds the image by itself (no engine needed)."
    } >&2
    exit 1
  fi
  echo "build-image.sh: building $image from the Dockerfile with $builder" >&2
  case "$builder" in
    buildah) buildah bud -t "$image" -f Dockerfile . ;;
    *) "$builder" build -t "$image" -f Dockerfile . && "$builder" run --rm "$image" --version ;;
  esac
  if [ "$push" = yes ]; then
    case "$builder" in buildah) buildah push "$image" ;; *) "$builder" push "$image" ;; esac
  fi
  exit 0
fi
[ "$push" = no ] || { echo "build-image.sh: --push goes with --dockerfile; push the archive with skopeo copy oci-archive:FILE docker://..." >&2; exit 2; }

arch=$(uname -m)
case $arch in
  x86_64) oci_arch=amd64 ;;
  aarch64) oci_arch=arm64 ;;
  *) echo "build-image.sh: unsupported machine $arch" >&2; exit 2 ;;
esac
target=$arch-unknown-linux-gnu
target_dir=${CARGO_TARGET_DIR:-target}
bin=$target_dir/$target/release/volmnt
out=${out:-$target_dir/image/volmnt-$version.oci.tar}
mkdir -p "$(dirname "$out")"

# Static glibc: crt-static on the gnu target (only for the target: build scripts stay dynamic).
# No debug info in the image's binary (the release profile keeps some for profiling).
echo "build-image.sh: cargo build --release --target $target (crt-static)" >&2
env_var=CARGO_TARGET_$(echo "$target" | tr 'a-z-' 'A-Z_')_RUSTFLAGS
env "$env_var=-C target-feature=+crt-static" \
  CARGO_PROFILE_RELEASE_DEBUG=0 CARGO_PROFILE_RELEASE_STRIP=true \
  cargo build --release --locked --target "$target" --bin volmnt
ldd_out=$(ldd "$bin" 2>&1 || true)
case $ldd_out in
  *"not a dynamic executable"*|*"statically linked"*) echo "build-image.sh: $bin: $ldd_out" >&2 ;;
  *) echo "build-image.sh: $bin is linked dynamically:" >&2; echo "$ldd_out" >&2; exit 1 ;;
esac
"$bin" --version >&2

args=(--out "$out" --name "$(full_name "$image")" --entrypoint /usr/local/bin/volmnt --cmd=--help
      --user 65532:65532 --file "$bin:/usr/local/bin/volmnt:0755" --arch "$oci_arch")
if [ "$shell" = yes ]; then
  busybox=${BUSYBOX:-/bin/busybox}
  if [ ! -x "$busybox" ]; then
    echo "build-image.sh: no static busybox at $busybox (apt-get install busybox-static, or BUSYBOX=PATH); --no-shell builds without it" >&2
    exit 1
  fi
  bb=$(ldd "$busybox" 2>&1 || true)
  case $bb in
    *"not a dynamic executable"*|*"statically linked"*) ;;
    *) echo "build-image.sh: $busybox is not static; the image has no libc for it" >&2; exit 1 ;;
  esac
  args+=(--busybox "$busybox")
fi
python3 scripts/oci-image.py "${args[@]}"

if [ "$import" = yes ]; then
  command -v ctr >/dev/null 2>&1 || { echo "build-image.sh: --import needs ctr (containerd)" >&2; exit 1; }
  ctr -n k8s.io images import "$out"
  ctr -n k8s.io images ls -q | grep -Fx "$(full_name "$image")"
fi
echo "build-image.sh: built $(full_name "$image") in $out" >&2
