# The function as a container image: FROM scratch, one statically linked binary, the passwd
# entries function runners need (image/), a non-root user, the function as entrypoint.
# Build: docker build -t render-inference-identity .
#
# The `build` stage compiles the binary against glibc, linked statically (+crt-static), so
# the final stage needs no libc. The final stage takes only /render-inference-identity from
# it: `podman build --build-context build=<folder>` replaces the stage with a folder holding
# a binary built the same way (tests/integration/image.rs does). The binary brings its own
# allocator (mimalloc, built from C sources by cargo with the options in .cargo/config.toml,
# which COPY brings along).
FROM rust:1.95-bookworm AS build
WORKDIR /src
COPY . .
RUN RUSTFLAGS="-C target-feature=+crt-static" cargo build --release --locked \
        --target "$(uname -m)-unknown-linux-gnu" --bin render-inference-identity \
    && cp "target/$(uname -m)-unknown-linux-gnu/release/render-inference-identity" /render-inference-identity

FROM scratch
COPY image/passwd /etc/passwd
COPY image/group /etc/group
COPY --from=build /render-inference-identity /usr/local/bin/render-inference-identity
# A scratch image sets no PATH: Argo CD's plugin sidecar finds the function by name on it.
ENV PATH=/usr/local/bin
USER 65532:65532
ENTRYPOINT ["/usr/local/bin/render-inference-identity"]
