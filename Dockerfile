# syntax=docker/dockerfile:1
# The zkraft container image: a static zkserver (and zkcli) on a distroless,
# non-root base, taking the official `zookeeper` image's environment
# variables (docs/deploy.md). Build it with
#   docker build -t ghcr.io/zkraft/zkraft .
# Both bases are build arguments, so that the image builds where the
# registries cannot be reached (docs/deploy.md, "Building without the
# registries"): BUILDER is any image with a shell and Go on PATH (at least
# go.mod's version), BASE any image with distroless's /etc/passwd, CA
# certificates and /tmp.
ARG GO_VERSION=1.26.8
ARG BUILDER=golang:${GO_VERSION}
ARG BASE=gcr.io/distroless/static-debian12:nonroot

FROM ${BUILDER} AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
# BUILD_TIME is what srvr's "built on" and `zkserver -version` print, as
# `make build` stamps it (default: now).
ARG BUILD_TIME
RUN BUILD_TIME="${BUILD_TIME:-$(date -u +%Y-%m-%dT%H:%M:%SZ)}" && \
    CGO_ENABLED=0 go build -trimpath -buildvcs=false \
      -ldflags "-s -w -X github.com/zkraft/zkraft/internal/buildinfo.buildTime=${BUILD_TIME}" \
      -o /out/bin/ ./cmd/zkserver ./cmd/zkcli && \
    mkdir -p /out/root/conf /out/root/data /out/root/datalog

FROM ${BASE}
COPY --from=build /out/bin/ /usr/local/bin/
# The directories the entrypoint writes, owned by the image's user
# (distroless "nonroot", 65532), as the official image's are by zookeeper.
COPY --from=build --chown=65532:65532 /out/root/ /
ENV PATH=/usr/local/bin:/usr/bin:/bin \
    ZOO_CONF_DIR=/conf \
    ZOO_DATA_DIR=/data \
    ZOO_DATA_LOG_DIR=/datalog \
    ZOO_LOG_DIR=/logs \
    ZOO_TICK_TIME=2000 \
    ZOO_INIT_LIMIT=5 \
    ZOO_SYNC_LIMIT=2 \
    ZOO_AUTOPURGE_PURGEINTERVAL=0 \
    ZOO_AUTOPURGE_SNAPRETAINCOUNT=3 \
    ZOO_MAX_CLIENT_CNXNS=60 \
    ZOO_STANDALONE_ENABLED=true \
    ZOO_ADMINSERVER_ENABLED=true
USER 65532:65532
VOLUME ["/data", "/datalog"]
# client, peer (Raft), election (forwarding), AdminServer, Prometheus
EXPOSE 2181 2888 3888 8080 7000
# No shell: the check is zkserver's own (AdminServer /ready, or srvr).
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 \
    CMD ["zkserver", "healthcheck"]
# Writes /conf/zoo.cfg and /data/myid from the ZOO_* variables unless they
# exist, then runs CMD: the server, or another command such as
#   docker run --rm -it ghcr.io/zkraft/zkraft zkcli -server zoo1:2181
ENTRYPOINT ["zkserver", "container"]
CMD ["zkserver"]
