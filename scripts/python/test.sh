#!/usr/bin/env bash
# `make python-test`: the Python package's pytest suite, in a venv under .build (pinned numpy, pandas, pytest from
# PyPI), against a given engine: the package's source (python/) with MIEN_EXECUTABLE naming the build to test.
# Usage: scripts/python/test.sh path/to/mien path/to/MienDev | scripts/python/test.sh --venv-only
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
VENV=$ROOT/.build/python-venv
REQUIREMENTS=$ROOT/python/requirements-test.txt
"$ROOT/scripts/python/venv.sh" "$VENV" "$REQUIREMENTS"
[ "${1:-}" = --venv-only ] && exit 0
ENGINE=$(realpath "${1:?usage: test.sh MIEN MIENDEV}")
MIENDEV=$(realpath "${2:?usage: test.sh MIEN MIENDEV}")
CLIP=$ROOT/.build/python-test/clip.mp4
if [ ! -f "$CLIP" ]; then
    mkdir -p "$(dirname "$CLIP")"
    "$MIENDEV" make-clip --width 320 --height 240 --frames 20 --fps 10 "$CLIP" >/dev/null
fi
cd "$ROOT/python"
MIEN_EXECUTABLE=$ENGINE MIEN_TEST_CLIP=$CLIP PYTHONPATH=$ROOT/python \
    "$VENV/bin/python" -m pytest -q -p no:cacheprovider tests
