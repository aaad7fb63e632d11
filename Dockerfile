# A small static image of volmnt (musl, no libc needed at run time) on busybox's musl build:
# the node probe is a POSIX sh script, and deploy/node-check.yaml runs it inside this image
# (`volmnt node check --local --root /host`), so the image carries sh and the few tools the
# probe uses, about 1.5 MB; nothing else (no package manager, no libc).
# Build: scripts/build-image.sh (docker, podman or buildah), or `docker build -t volmnt:0.1.0 .`
#
# The binary is the whole CLI; in a cluster it runs `volmnt watch` (deploy/watch.yaml) or the
# node-check DaemonSet's `volmnt node check --local --root /host` (deploy/node-check.yaml).

# Rust 1.89: kube 5 needs it (Cargo.toml's rust-version says so too). Alpine's Rust target is
# x86_64/aarch64-unknown-linux-musl, which links statically by default (ring's C and assembly
# build with Alpine's gcc + musl-dev).
FROM docker.io/library/rust:1.89-alpine AS build
RUN apk add --no-cache musl-dev
WORKDIR /src
COPY . .
ENV CARGO_PROFILE_RELEASE_DEBUG=0 \
    CARGO_PROFILE_RELEASE_STRIP=true \
    CARGO_PROFILE_RELEASE_LTO=thin \
    CARGO_PROFILE_RELEASE_CODEGEN_UNITS=4
RUN cargo build --release --locked --bin volmnt \
 && ./target/release/volmnt --version \
 && ldd ./target/release/volmnt 2>&1 | grep -qE 'not a dynamic executable|statically linked'

FROM docker.io/library/busybox:1.36-musl
COPY --from=build /src/target/release/volmnt /usr/local/bin/volmnt
# Non-root by default (deploy/watch.yaml); the node-check DaemonSet runs as uid 0 to read
# root-owned files of the host, with every capability dropped.
USER 65532:65532
ENTRYPOINT ["/usr/local/bin/volmnt"]
CMD ["--help"]
