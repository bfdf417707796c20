#!/usr/bin/env bash
# `make release-check`: the release workflow's build job, run here with no publishing.
#
#   release-check.sh version TAG VERSION   stops unless the tag (v0.1.0) names MienVersion.swift's version; run
#                                          first, before anything is built
#   release-check.sh finish VERSION BUNDLE BASE
#                                          after `make package-check` built and checked the tarball, .deb and
#                                          wheel: the bundle's own `mien --version` against the version; the
#                                          container image on BASE (or, when BASE cannot be pulled, on the
#                                          bookworm root package-check made), saved as an OCI archive and read
#                                          for GPL parts; the SBOM (CycloneDX JSON, scripts/dist/sbom.py); and
#                                          SHA256SUMS over every file in dist/release/.
# dist/release/ then holds exactly what the workflow publishes. Sizes and a JSON line last.
set -euo pipefail
TOP=$(cd "$(dirname "$0")/../.." && pwd)
cd "$TOP"
fail() { echo "release-check: FAILED: $*" >&2; exit 1; }

case "${1:-}" in
version)
    TAG=${2:-}
    VERSION=${3:?usage: release-check.sh version TAG VERSION}
    if [ -z "$TAG" ]; then
        TAG=v$VERSION
        echo "release-check: no TAG given; checking as if tagged $TAG"
    fi
    [ "${TAG#v}" = "$VERSION" ] ||
        fail "the tag $TAG is not v$VERSION, the version in Sources/MienCLI/MienVersion.swift: no release from it"
    echo "release-check: tag $TAG = version $VERSION"
    ;;
finish)
    VERSION=${2:?usage: release-check.sh finish VERSION BUNDLE BASE}
    BUNDLE=${3:?}
    BASE=${4:?}
    started=$(date +%s)
    OUT=dist/release
    ARCH=$(dpkg --print-architecture)
    rm -rf "$OUT"
    mkdir -p "$OUT"
    printed=$("dist/$BUNDLE/bin/mien" --version) # "mien 0.1.0 (commit ...; OpenCV ..., OpenVINO ...)"
    read -r _ printed_version _ <<<"$printed"
    [ "$printed_version" = "$VERSION" ] || fail "the bundle's mien --version prints '$printed', not $VERSION"
    echo "release-check: the bundle's mien --version: $printed"

    # The image, from the tarball that package-check proved.
    printf '[containers]\ndefault_ulimits = []\n[engine]\nruntime = "runc"\n' >.build/release-containers.conf
    export CONTAINERS_CONF=$TOP/.build/release-containers.conf
    image=localhost/mien:$VERSION
    if ! podman image exists "$BASE" && ! podman pull --quiet "$BASE" >/dev/null 2>&1; then
        [ -f .build/package-check/bookworm.tar ] || fail "cannot pull $BASE and package-check left no bookworm root"
        echo "release-check: $BASE cannot be pulled here; the image's base is the minbase bookworm root package-check made"
        BASE=localhost/mien-release-base:bookworm
        podman import --quiet .build/package-check/bookworm.tar "$BASE" >/dev/null
    fi
    scripts/dist/make-image.sh "$image" "$BASE" "$VERSION" "${SOURCE_URL:-}"
    podman save --quiet --format oci-archive -o "$OUT/mien-$VERSION-image.oci.tar" "$image"
    check=$(mktemp -d "${TMPDIR:-/tmp}/mien-release-image.XXXXXX")
    trap 'rm -rf "$check"' EXIT
    container=$(podman create "$image")
    podman export "$container" | tar -C "$check" -x opt
    podman rm "$container" >/dev/null
    scripts/dist/gpl-check.sh "the image $image" "$check/opt"

    cp "dist/$BUNDLE.tar.gz" "dist/mien_${VERSION}_$ARCH.deb" dist/mien-"$VERSION"-py3-none-*.whl "$OUT/"
    scripts/python/venv.sh .build/release-venv scripts/python/release-tools.txt
    scripts/python/test.sh --venv-only # the Python dependencies' licences are read from the tested versions
    .build/release-venv/bin/python scripts/dist/sbom.py "dist/$BUNDLE" "$(ls dist/mien-"$VERSION"-py3-none-*.whl)" \
        .build/python-venv "$OUT/mien-$VERSION.cdx.json"
    (cd "$OUT" && sha256sum -- * >SHA256SUMS && sha256sum --quiet -c SHA256SUMS)
    echo "release-check: dist/release/ (what the release workflow publishes):"
    (cd "$OUT" && for f in *; do printf '  %-48s %8.1f MB\n' "$f" "$(stat -c %s "$f" | awk '{print $1 / 1e6}')"; done)
    components=$(python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))['components']))" "$OUT/mien-$VERSION.cdx.json")
    printf '{"release_check":"passed","version":"%s","files":%d,"sbom_components":%d,"image_base":"%s","finish_s":%d}\n' \
        "$VERSION" "$(ls "$OUT" | wc -l)" "$components" "$BASE" $(($(date +%s) - started))
    ;;
*)
    echo "usage: release-check.sh version TAG VERSION | finish VERSION BUNDLE BASE" >&2
    exit 2
    ;;
esac
