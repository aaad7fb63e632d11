#!/usr/bin/env bash
# Builds the volmnt container image from the Dockerfile with the first container builder that
# works here: docker (with a running engine), podman, buildah, nerdctl. Fails with a clear
# message when there is none (a docker CLI without an engine does not count).
#
#   scripts/build-image.sh                       # volmnt:<version of Cargo.toml>
#   IMAGE=registry.example.com/ops/volmnt:0.1.0 scripts/build-image.sh --push
#   PLATFORM=linux/arm64 scripts/build-image.sh
#
# Then set that image in deploy/watch.yaml (or `--set image.repository=...,image.tag=...`).
set -euo pipefail
cd "$(dirname "$0")/.."

version=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)
image=${IMAGE:-volmnt:$version}
push=no
for a in "$@"; do
  case "$a" in
    --push) push=yes ;;
    -h|--help) sed -n '2,11p' "$0"; exit 0 ;;
    *) echo "build-image.sh: unknown argument $a (--push, or IMAGE=... PLATFORM=...)" >&2; exit 2 ;;
  esac
done
platform_args=()
if [ -n "${PLATFORM:-}" ]; then platform_args=(--platform "$PLATFORM"); fi

tried=()
builder=
if command -v docker >/dev/null 2>&1; then
  if err=$(docker info --format '{{.ServerVersion}}' 2>&1); then
    builder=docker
  else
    tried+=("docker: the CLI is installed but no Docker engine answers ($(echo "$err" | tail -1))")
  fi
fi
if [ -z "$builder" ] && command -v podman >/dev/null 2>&1; then
  if err=$(podman info >/dev/null 2>&1); then builder=podman; else tried+=("podman: podman info failed"); fi
fi
if [ -z "$builder" ] && command -v buildah >/dev/null 2>&1; then
  builder=buildah
fi
if [ -z "$builder" ] && command -v nerdctl >/dev/null 2>&1; then
  if nerdctl info >/dev/null 2>&1; then builder=nerdctl; else tried+=("nerdctl: no containerd answers"); fi
fi
if [ -z "$builder" ]; then
  {
    echo "build-image.sh: no container builder works on this machine, so the image cannot be built here."
    for t in "${tried[@]}"; do echo "  - $t"; done
    [ ${#tried[@]} -eq 0 ] && echo "  - none of docker, podman, buildah, nerdctl is installed"
    echo "Run it where a container engine runs (a workstation with Docker or Podman, a CI runner with"
    echo "docker-in-docker, buildah or kaniko), or: apt-get install podman (or buildah)."
  } >&2
  exit 1
fi

echo "build-image.sh: building $image with $builder" >&2
case "$builder" in
  buildah) buildah bud "${platform_args[@]}" -t "$image" -f Dockerfile . ;;
  *) "$builder" build "${platform_args[@]}" -t "$image" -f Dockerfile . ;;
esac
# The image runs: its entrypoint is the static binary.
case "$builder" in
  buildah) ;;
  *) "$builder" run --rm "$image" --version ;;
esac
if [ "$push" = yes ]; then
  case "$builder" in
    buildah) buildah push "$image" ;;
    *) "$builder" push "$image" ;;
  esac
fi
echo "build-image.sh: built $image" >&2
