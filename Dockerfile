# The function on a distroless base, running as non-root, the function as entrypoint.
# Build: docker build -t render-inference-identity .
#
# Built against glibc (Debian 12) and run on distroless/cc, which ships the same glibc. The
# binary brings its own allocator (mimalloc, built from C sources by cargo: the build image's
# gcc compiles it, with the options in .cargo/config.toml, which COPY brings along).
FROM rust:1.95-bookworm AS build
WORKDIR /src
COPY . .
RUN cargo build --release --locked --bin render-inference-identity

FROM gcr.io/distroless/cc-debian12:nonroot
COPY --from=build /src/target/release/render-inference-identity /usr/local/bin/render-inference-identity
USER nonroot:nonroot
ENTRYPOINT ["/usr/local/bin/render-inference-identity"]
