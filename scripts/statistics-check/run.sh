#!/usr/bin/env bash
# make statistics-check: Mien's study statistics against scipy and MNE-Python (check.py) in a pinned throwaway
# venv under .build. When the venv cannot be made (no network to PyPI), the check is reported skipped with the
# reason, and under CI=true (MIEN_SKIPS_FAIL) a skip fails the run, as a skipped Swift test does.
# Usage: scripts/statistics-check/run.sh MIENDEV
set -euo pipefail
MIENDEV=${1:?usage: run.sh MIENDEV}
VENV=.build/statistics-venv
here=$(dirname "$0")
if ! log=$(scripts/python/venv.sh "$VENV" "$here/requirements.txt" 2>&1); then
    echo "$log" | tail -5
    echo "statistics-check: 0 passed, 0 failed, 1 skipped (the reference venv could not be made: scipy and MNE-Python from PyPI)"
    [ "${MIEN_SKIPS_FAIL:-${CI:-}}" = "true" ] && { echo "CI=true: a skipped check fails the run"; exit 1; }
    exit 0
fi
"$VENV/bin/python" "$here/check.py" "$MIENDEV"
