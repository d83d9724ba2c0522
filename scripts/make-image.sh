#!/usr/bin/env bash
# Builds the linkd container image (`make image`): the release binary (debug information stripped), templates and
# demo manifests staged in the install layout under usr/local (scripts/install.sh --strip --destdir), then
# `podman build --format docker` of the Containerfile with that stage as the context (docker build when podman is
# absent and a Docker engine answers).
# The base image localhost/debian:bookworm-slim is made from Debian's packages with mmdebstrap when missing, so the
# build needs no image registry (packaging/container-engine.sh). The image is tagged IMAGE and IMAGE's name with the
# version (packaging/version.sh --tag).
# Usage: scripts/make-image.sh [IMAGE]   (default localhost/linkd:latest; LINKD_BIN: another binary)
set -euo pipefail
cd "$(dirname "$0")/.."
image=${1:-localhost/linkd:latest}
binary=${LINKD_BIN:-.build/release/linkd}
[ -x "$binary" ] || { echo "make-image: no release binary at $binary; run 'make build' first" >&2; exit 1; }
# shellcheck source=packaging/container-engine.sh
source packaging/container-engine.sh
engine_setup
engine_ensure_base

stage=$(mktemp -d /tmp/linkd-image-stage.XXXXXX)
trap 'rm -rf "$stage"' EXIT
scripts/install.sh --prefix /usr/local --destdir "$stage" --binary "$binary" --strip >/dev/null
version=$(packaging/version.sh)
tag=$(packaging/version.sh --tag)

args=(build -f Containerfile -t "$image" -t "${image%:*}:$tag" --build-arg "BASE=$LINKD_BASE_IMAGE"
      --label "org.opencontainers.image.version=$version")
if [ "$ENGINE_NAME" = podman ]; then
  # docker format: HEALTHCHECK and STOPSIGNAL are kept; never pull: the base is local.
  args+=(--format docker --pull=never)
fi
started=$SECONDS
echo "make-image: building $image ($version) with ${ENGINE[*]}" >&2
"${ENGINE[@]}" "${args[@]}" "$stage"
echo "make-image: $image built in $((SECONDS - started)) s" >&2
