# The function on a distroless base, running as non-root, the function as entrypoint.
# Build: docker build -t render-inference-identity .
#
# Built against glibc (Debian 12) and run on distroless/cc, which ships the same glibc: the
# reader builds many small values, glibc's allocator is the one the README's benchmarks
# measure, and musl's (a static build) is known to be much slower at many small allocations.
FROM rust:1.95-bookworm AS build
WORKDIR /src
COPY . .
RUN cargo build --release --locked --bin render-inference-identity

FROM gcr.io/distroless/cc-debian12:nonroot
COPY --from=build /src/target/release/render-inference-identity /usr/local/bin/render-inference-identity
USER nonroot:nonroot
ENTRYPOINT ["/usr/local/bin/render-inference-identity"]
