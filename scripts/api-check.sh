#!/usr/bin/env bash
# `make api-check`: schemathesis (pinned, venv under .build) against `mien serve` on a loopback port, with every
# check and phase, bounded in examples and time; the service is stopped by its PID. Exit status: schemathesis's.
# Usage: scripts/api-check.sh path/to/mien
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
MIEN=$(realpath "${1:?usage: api-check.sh MIEN}")
VENV=$ROOT/.build/api-check-venv
REQUIREMENTS=$ROOT/scripts/api-check/requirements.txt
. "$ROOT/scripts/lib/serve-port.sh"
"$ROOT/scripts/python/venv.sh" "$VENV" "$REQUIREMENTS"

WORK=$(mktemp -d)
SERVER=
cleanup() {
    [ -n "$SERVER" ] && kill "$SERVER" 2>/dev/null && wait "$SERVER" 2>/dev/null
    rm -rf "$WORK"
}
trap cleanup EXIT
# A collected study too (recording on, so every study route answers), as a study's fieldwork serves it.
"$MIEN" study init "$WORK/studies/ad" --stimulus "$ROOT/Samples/astronaut-pan-zoom.mp4" --groups A,B --record \
    --contact api-check@example.org >/dev/null 2>&1
"$MIEN" serve --port 0 --jobs-dir "$WORK/jobs" --studies "$WORK/studies" 2>"$WORK/serve.log" &
SERVER=$!
PORT=$(serve_port "$WORK/serve.log" "$SERVER")
BASE=http://127.0.0.1:$PORT
cd "$WORK"  # schemathesis writes its report folder here
# A fixed seed: the same requests every run, so a failure is reproducible (the seed is printed to vary it).
timeout "${API_CHECK_SECONDS:-300}" "$VENV/bin/st" --config-file "$ROOT/scripts/api-check/schemathesis.toml" run "$BASE/openapi.yaml" --url "$BASE" \
    --checks all --max-examples "${API_CHECK_EXAMPLES:-25}" --workers 1 \
    --seed "${API_CHECK_SEED:-20261126}" --request-timeout 30 --no-color
