# merels: one binary, a /data volume for the default SQLite file, a non-root user.
# Build: docker build --build-arg MERELS_COMMIT=$(git rev-parse --short HEAD) -t merels .

FROM rust:1.95-slim-bookworm AS build
WORKDIR /src
COPY Cargo.toml Cargo.lock build.rs askama.toml ./
COPY src src
COPY benches benches
# The workspace's other member (the benchmark): not built, but the workspace names it.
COPY bench bench
COPY migrations migrations
COPY variants variants
COPY static static
COPY fonts fonts
ARG MERELS_COMMIT=unknown
ENV MERELS_COMMIT=${MERELS_COMMIT}
RUN cargo build --release --locked --bin merels \
    && strip target/release/merels

FROM debian:bookworm-slim
RUN groupadd --system --gid 10001 merels \
    && useradd --system --uid 10001 --gid 10001 --home-dir /data --no-create-home merels \
    && mkdir -p /data \
    && chown 10001:10001 /data
COPY --from=build /src/target/release/merels /usr/local/bin/merels
ENV MERELS_BIND=0.0.0.0:8080 \
    DATABASE_URL=sqlite:/data/merels.db \
    MERELS_TABLES=/data/tables \
    MERELS_LOG_FORMAT=json
VOLUME ["/data"]
WORKDIR /data
EXPOSE 8080
USER 10001:10001
HEALTHCHECK --interval=30s --timeout=5s --start-period=10s --retries=3 \
    CMD ["/usr/local/bin/merels", "health"]
STOPSIGNAL SIGTERM
ENTRYPOINT ["/usr/local/bin/merels"]
CMD ["serve"]
