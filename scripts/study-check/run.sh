#!/usr/bin/env bash
# `make study-check`: a panel collected from a link, in a real browser. Two study folders (mien study init), one
# with --record; `mien serve --studies` on a loopback port with a token; headless Chromium (Debian's, installed
# when missing) driven by Playwright (pinned, throwaway venv under .build) through the participant page by its
# accessible names, its fake camera playing a clip of the bundled sample. check.py then checks what was stored,
# the aggregation, the live series against the recorded one, and every refusal. The service is stopped by its PID.
# Usage: scripts/study-check/run.sh MIEN MIENDEV
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
MIEN=$(realpath "${1:?usage: run.sh MIEN MIENDEV}")
MIENDEV=$(realpath "${2:?usage: run.sh MIEN MIENDEV}")
VENV=$ROOT/.build/study-check-venv
. "$ROOT/scripts/lib/serve-port.sh"
OUT=$ROOT/.build/study-check
"$ROOT/scripts/python/venv.sh" "$VENV" "$ROOT/scripts/study-check/requirements.txt"
if ! command -v chromium >/dev/null; then
    echo "== installing Chromium from Debian (the participant page's browser test)"
    SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends chromium >/dev/null
fi
mkdir -p "$OUT"
# Chromium's fake camera plays raw YUV4MPEG2: the sample panning and zooming, 60 frames at 15 fps, looped.
[ -s "$OUT/clip.y4m" ] || "$MIENDEV" make-clip --width 640 --height 360 --frames 60 --fps 15 "$OUT/clip.y4m" >/dev/null
rm -rf "$OUT/studies" "$OUT/results"
mkdir -p "$OUT/studies"
"$MIEN" study init "$OUT/studies/ad" --stimulus "$ROOT/Samples/astronaut-pan-zoom.mp4" --groups A,B \
    --completion-url "https://panel.example.org/done" >/dev/null
"$MIEN" study init "$OUT/studies/adrec" --stimulus "$ROOT/Samples/astronaut-pan-zoom.mp4" --record >/dev/null

TOKEN=study-check-$$-$RANDOM
SERVER=
cleanup() { [ -n "$SERVER" ] && kill "$SERVER" 2>/dev/null && wait "$SERVER" 2>/dev/null; true; }
trap cleanup EXIT
"$MIEN" serve --port 0 --token "$TOKEN" --studies "$OUT/studies" 2>"$OUT/serve.log" &
SERVER=$!
PORT=$(serve_port "$OUT/serve.log" "$SERVER")
timeout 600 "$VENV/bin/python" "$ROOT/scripts/study-check/check.py" --base "http://127.0.0.1:$PORT" --token "$TOKEN" \
    --studies "$OUT/studies" --out "$OUT" --mien "$MIEN" --camera "$OUT/clip.y4m" --server-pid "$SERVER"
