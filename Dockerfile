# sitesvc container image: see docs/deploy.md.
#
#   docker build --build-arg VERSION=$(git describe --always --dirty) \
#                --build-arg COMMIT=$(git rev-parse HEAD) -t sitesvc .
#   docker run -p 8080:8080 -v sitesvc-data:/var/lib/sitesvc/data \
#              -e SITESVC_PUBLIC_URL=https://library.example.org sitesvc
#
# Build stage: the same `make build` as on a developer's machine (and in
# `make test`, whose TestBinaryRunsAnywhere runs that binary alone from an
# empty directory): npm installs the pinned Mirador, Go builds a static
# binary (CGO_ENABLED=0, set by the Makefile) with the HIV-1 data, the MODS
# schema, the sample objects and Mirador built in.
FROM golang:1.26.8-bookworm AS build
RUN apt-get update \
 && apt-get install -y --no-install-recommends nodejs npm \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY impl/embed/viewer/package.json impl/embed/viewer/package-lock.json impl/embed/viewer/
COPY scripts/build-viewer.sh scripts/
RUN bash scripts/build-viewer.sh
COPY . .
ARG VERSION=unknown
ARG COMMIT=unknown
RUN make build VERSION="$VERSION" COMMIT="$COMMIT" \
 && ./bin/sitesvc --version

# Run stage: the binary, as an unprivileged user, with the programs it runs
# (cmd/sitesvc's TestDockerfileRecipe checks the list against the code):
# xmllint (libxml2-utils) checks published MODS records against the built-in
# MODS schema; vips (libvips-tools, JPEG 2000 through libopenjp2) builds the
# IIIF image pyramids and the thumbnails oEmbed links to; curl runs the
# health check.
FROM debian:bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends libxml2-utils libvips-tools curl ca-certificates \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --uid 10001 --user-group --home-dir /var/lib/sitesvc --create-home --shell /usr/sbin/nologin sitesvc \
 && mkdir -p /var/lib/sitesvc/data \
 && chown sitesvc:sitesvc /var/lib/sitesvc/data
COPY --from=build /src/bin/sitesvc /usr/local/bin/sitesvc
USER 10001:10001
WORKDIR /var/lib/sitesvc
# Production settings come from SITESVC_* variables (docs/deploy.md); these
# are the container's own: where it writes and where it listens.
ENV SITESVC_DATA=/var/lib/sitesvc/data \
    SITESVC_ADDR=:8080
VOLUME ["/var/lib/sitesvc/data"]
EXPOSE 8080
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD curl -fsS -o /dev/null http://127.0.0.1:8080/readyz || exit 1
ENTRYPOINT ["/usr/local/bin/sitesvc"]
CMD ["serve"]
