# syntax=docker/dockerfile:1
# The service image: the release binary on a minimal runtime (glibc and libgcc only, no
# shell), as a non-root user, serving on 0.0.0.0:8080. Build: docker build -t ghcr.io/extract-between/extract-between:0.1.0 .
# Its /playground page is embedded when js/wasm/ is in the build context (`bash js/build.sh`
# first, as the release workflow does).

FROM rust:1.95-bookworm AS build
WORKDIR /src
COPY . .
RUN cargo build --release --locked --bin extract-between

FROM gcr.io/distroless/cc-debian12:nonroot
COPY --from=build /src/target/release/extract-between /usr/local/bin/extract-between
# distroless's "nonroot" user; numeric, so that runAsNonRoot can verify it.
USER 65532:65532
EXPOSE 8080
ENTRYPOINT ["/usr/local/bin/extract-between"]
CMD ["serve", "--listen", "0.0.0.0:8080"]
