# A small static image of volmnt (musl, no libc needed at run time) on distroless/static:
# CA certificates, /etc/passwd with the nonroot user 65532, nothing else (no shell).
# Build: scripts/build-image.sh (docker, podman or buildah), or `docker build -t volmnt:0.1.0 .`
#
# The binary is the whole CLI; in a cluster it runs `volmnt watch` (deploy/watch.yaml) or the
# node-check DaemonSet's `volmnt node check --local --root /host` (deploy/node-check.yaml).

# Rust 1.89: kube 5 needs it (Cargo.toml still says 1.85). Alpine's Rust target is x86_64/aarch64-unknown-linux-musl, which
# links statically by default (ring's C and assembly build with Alpine's gcc + musl-dev).
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

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /src/target/release/volmnt /usr/local/bin/volmnt
USER 65532:65532
ENTRYPOINT ["/usr/local/bin/volmnt"]
CMD ["--help"]
