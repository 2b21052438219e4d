# A static binary on a distroless base, running as non-root, the function as entrypoint.
# Build: docker build -t render-inference-identity .
FROM rust:1.95-alpine AS build
RUN apk add --no-cache musl-dev
WORKDIR /src
COPY . .
# On musl the release binary is statically linked.
RUN cargo build --release --locked --bin render-inference-identity

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /src/target/release/render-inference-identity /usr/local/bin/render-inference-identity
USER nonroot:nonroot
ENTRYPOINT ["/usr/local/bin/render-inference-identity"]
