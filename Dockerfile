# The function as a container image: FROM scratch, one statically linked binary, the passwd
# entries function runners need (image/), Argo CD's plugin definition where its plugin sidecar
# reads it, a non-root user, the function as entrypoint.
#
# One platform, the build machine's:
#   docker build -t render-inference-identity .
# Several, each cross-compiled on the build machine's platform (no emulation):
#   docker buildx build --platform linux/amd64,linux/arm64 -t IMAGE:vX.Y.Z .
#
# The `build` stage runs on $BUILDPLATFORM and compiles for $TARGETPLATFORM against glibc,
# linked statically (+crt-static), so the final stage needs no libc; for another architecture
# it installs Debian's cross compiler and the Rust target. The final stage takes only
# /render-inference-identity from it: `podman build --build-context build=<folder>` replaces
# the stage with a folder holding a binary built the same way (tests/integration/image.rs
# does). The binary brings its own allocator (mimalloc, built from C sources by cargo with the
# options in .cargo/config.toml, which COPY brings along).
FROM --platform=$BUILDPLATFORM rust:1.95-bookworm AS build
ARG TARGETARCH
WORKDIR /src
COPY . .
RUN set -eu; \
    case "${TARGETARCH:-$(dpkg --print-architecture)}" in \
      amd64) arch=amd64 triple=x86_64-unknown-linux-gnu pkg=gcc-x86-64-linux-gnu cc=x86_64-linux-gnu-gcc ;; \
      arm64) arch=arm64 triple=aarch64-unknown-linux-gnu pkg=gcc-aarch64-linux-gnu cc=aarch64-linux-gnu-gcc ;; \
      *) echo "TARGETARCH=$TARGETARCH: the image is built for amd64 and arm64" >&2; exit 1 ;; \
    esac; \
    if [ "$(dpkg --print-architecture)" != "$arch" ]; then \
      apt-get update && apt-get install -y --no-install-recommends "$pkg" "libc6-dev-$arch-cross"; \
      rustup target add "$triple"; \
      export "CARGO_TARGET_$(echo "$triple" | tr a-z- A-Z_)_LINKER=$cc" "CC_$(echo "$triple" | tr - _)=$cc"; \
    fi; \
    RUSTFLAGS="-C target-feature=+crt-static" cargo build --release --locked \
        --target "$triple" --bin render-inference-identity; \
    cp "target/$triple/release/render-inference-identity" /render-inference-identity

FROM scratch
# Set by the release workflow from the tag and commit; the defaults are Cargo.toml's, which a
# test holds them to.
ARG VERSION=0.1.0
ARG REVISION=""
ARG SOURCE=https://github.com/sonda-red/render-inference-identity
LABEL org.opencontainers.image.title="render-inference-identity" \
      org.opencontainers.image.description="KRM function: renders SPIRE ClusterSPIFFEIDs and status for InferenceIdentityBindings at build time" \
      org.opencontainers.image.version="$VERSION" \
      org.opencontainers.image.revision="$REVISION" \
      org.opencontainers.image.source="$SOURCE" \
      org.opencontainers.image.url="$SOURCE" \
      org.opencontainers.image.documentation="$SOURCE/blob/main/docs/clients.md" \
      org.opencontainers.image.licenses="Apache-2.0"
COPY image/passwd /etc/passwd
COPY image/group /etc/group
# Argo CD's plugin sidecar reads its plugin definition here: with it in the image, the sidecar
# needs no ConfigMap (docs/clients.md).
COPY fn-config/argocd/plugin.yaml /home/argocd/cmp-server/config/plugin.yaml
COPY LICENSE /usr/share/doc/render-inference-identity/LICENSE
COPY --from=build /render-inference-identity /usr/local/bin/render-inference-identity
# A scratch image sets no PATH: Argo CD's plugin sidecar finds the function by name on it.
ENV PATH=/usr/local/bin
USER 65532:65532
ENTRYPOINT ["/usr/local/bin/render-inference-identity"]
