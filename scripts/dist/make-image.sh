#!/usr/bin/env bash
# `make image`: builds the container image from the release tarball with podman (Containerfile). The Docker
# image format keeps the HEALTHCHECK (the OCI format has no field for it).
# Usage: make-image.sh IMAGE BASE VERSION [SOURCE_URL]
set -euo pipefail
IMAGE=${1:?usage: make-image.sh IMAGE BASE VERSION [SOURCE_URL]}
BASE=$2
VERSION=$3
SOURCE_URL=${4:-}
TOP=$(cd "$(dirname "$0")/../.." && pwd)
cd "$TOP"
SUDO=$([ "$(id -u)" = 0 ] || echo sudo)
if ! command -v podman >/dev/null || ! command -v runc >/dev/null; then
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends podman runc >/dev/null
fi
# On machines whose default ulimits exceed the hard limits, or whose cgroups crun refuses, CONTAINERS_CONF
# may point at a file with `default_ulimits = []` and `runtime = "runc"` (package-check writes one).
tarball=dist/mien-$VERSION-linux-$(uname -m).tar.gz
[ -f "$tarball" ] || { echo "make-image: $tarball is missing (make dist)" >&2; exit 1; }
podman build --quiet --format docker -f Containerfile -t "$IMAGE" \
    --build-arg BASE="$BASE" --build-arg VERSION="$VERSION" \
    --build-arg REVISION="$(git rev-parse HEAD 2>/dev/null || echo unknown)" \
    --build-arg CREATED="$(git log -1 --format=%cI 2>/dev/null || date -u +%FT%TZ)" \
    --build-arg SOURCE_URL="$SOURCE_URL" . >/dev/null
echo "make-image: $IMAGE ($(podman image inspect --format '{{.Size}}' "$IMAGE" | awk '{printf "%.0f MB", $1 / 1e6}'))"
