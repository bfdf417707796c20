#!/usr/bin/env bash
# `make api-check`: schemathesis (pinned, venv under .build) against `mien serve` on a loopback port, with every
# check and phase, bounded in examples and time; the service is stopped by its PID. Exit status: schemathesis's.
# Usage: scripts/api-check.sh path/to/mien
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
MIEN=$(realpath "${1:?usage: api-check.sh MIEN}")
VENV=$ROOT/.build/api-check-venv
REQUIREMENTS=$ROOT/scripts/api-check/requirements.txt
"$ROOT/scripts/python/venv.sh" "$VENV" "$REQUIREMENTS"

WORK=$(mktemp -d)
SERVER=
cleanup() {
    [ -n "$SERVER" ] && kill "$SERVER" 2>/dev/null && wait "$SERVER" 2>/dev/null
    rm -rf "$WORK"
}
trap cleanup EXIT
"$MIEN" serve --port 0 --jobs-dir "$WORK/jobs" 2>"$WORK/serve.log" &
SERVER=$!
PORT=
for _ in $(seq 100); do
    PORT=$(sed -n 's|.*listening on http://127.0.0.1:\([0-9]*\)/.*|\1|p' "$WORK/serve.log")
    [ -n "$PORT" ] && break
    kill -0 "$SERVER" 2>/dev/null || { cat "$WORK/serve.log" >&2; exit 1; }
    sleep 0.1
done
[ -n "$PORT" ] || { echo "api-check: mien serve did not start" >&2; cat "$WORK/serve.log" >&2; exit 1; }
BASE=http://127.0.0.1:$PORT
cd "$WORK"  # schemathesis writes its report folder here
# A fixed seed: the same requests every run, so a failure is reproducible (the seed is printed to vary it).
timeout "${API_CHECK_SECONDS:-300}" "$VENV/bin/st" --config-file "$ROOT/scripts/api-check/schemathesis.toml" run "$BASE/openapi.yaml" --url "$BASE" \
    --checks all --max-examples "${API_CHECK_EXAMPLES:-25}" --workers 1 \
    --seed "${API_CHECK_SEED:-20261126}" --request-timeout 30 --no-color
