#!/usr/bin/env bash
# The live page in a real browser (`make live-check`, run by `make test`): `mien serve` on a free loopback
# port, headless Chromium (from Debian, installed when missing) whose fake camera plays a clip made from the
# bundled sample, the page opened with ?autostart=1&selfcheck=SECONDS. The page streams frames to /v1/live,
# draws the results, then posts its own self-check (results received, face IDs, boxes, a PNG of what it
# shows) to /v1/selfcheck, which this script reads back and checks. Then SIGTERM must stop the service
# cleanly while the page is still connected. Every process started here is stopped by its PID.
#
# usage: scripts/check-live-page.sh [MIEN_BINARY]
set -euo pipefail
cd "$(dirname "$0")/.."
mien=${1:-.build/debug/mien}
out=.build/live-check
seconds=${SELFCHECK_SECONDS:-6}
mkdir -p "$out"
fail() { echo "check-live-page: $*" >&2; exit 1; }
. scripts/lib/serve-port.sh

if ! command -v chromium >/dev/null; then
    echo "== installing Chromium from Debian (the live page's browser test)"
    sudo=""; [ "$(id -u)" = 0 ] || sudo=sudo
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends chromium >/dev/null
fi
[ -x "$mien" ] || fail "no $mien (build it first)"
# Chromium's fake camera plays raw YUV4MPEG2; 60 frames of the sample panning and zooming, looped.
[ -s "$out/clip.y4m" ] || swift run -c debug MienDev make-clip --width 640 --height 360 --frames 60 --fps 15 \
    "$out/clip.y4m" >/dev/null

serve_pid="" chrome_pid="" profile=$(mktemp -d)
cleanup() {
    for pid in $chrome_pid $serve_pid; do
        kill "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
    rm -rf "$profile" 2>/dev/null || true
}
trap cleanup EXIT

"$mien" serve --port 0 2>"$out/serve.log" &
serve_pid=$!
port=$(serve_port "$out/serve.log" "$serve_pid") || fail "see above"
base="http://127.0.0.1:$port"

chromium --headless=new --no-sandbox --disable-gpu --user-data-dir="$profile" \
    --use-fake-ui-for-media-stream --use-fake-device-for-media-stream \
    --use-file-for-fake-video-capture="$(realpath "$out/clip.y4m")" \
    "$base/?autostart=1&selfcheck=$seconds" >"$out/chromium.log" 2>&1 &
chrome_pid=$!

report="$out/selfcheck.json"
rm -f "$report"
for _ in $(seq 1 120); do
    if curl -sf "$base/v1/selfcheck" -o "$report"; then break; fi
    kill -0 "$chrome_pid" 2>/dev/null || fail "Chromium exited before the page reported (see $out/chromium.log)"
    sleep 0.5
done
[ -s "$report" ] || fail "the page sent no self-check within 60 s (see $out/chromium.log, $out/serve.log)"

# The service must stop on SIGTERM while the page is connected: close frame sent, exit status 0.
started=$(date +%s.%N)
kill -TERM "$serve_pid"
status=0
wait "$serve_pid" || status=$?
serve_pid=""
stopped=$(python3 -c "print(f'{$(date +%s.%N) - $started:.2f}')")
[ "$status" = 0 ] || fail "mien serve exited with status $status on SIGTERM (see $out/serve.log)"
# Every connection, the browser's unused ones included, must be closed by the shutdown, not by its deadline.
! grep -q "after the shutdown deadline" "$out/serve.log" || fail "SIGTERM left connections open until the deadline"
! grep -q "error" "$out/serve.log" || fail "mien serve logged errors (see $out/serve.log)"

python3 - "$report" "$out/page.png" "$stopped" <<'PY'
import base64, json, sys
report, picture_path, stopped = json.load(open(sys.argv[1])), sys.argv[2], sys.argv[3]
picture = report.pop("picture", "")
problems = []
if report["processed"] < 10: problems.append(f"only {report['processed']} frames analysed")
if report["faceIds"] != [0]: problems.append(f"face IDs {report['faceIds']}, expected one stable ID 0")
if report["boxes"] < report["processed"]: problems.append(f"{report['boxes']} boxes for {report['processed']} frames")
box, frame = report.get("lastBox") or {}, report.get("frame") or {}
if not box or not (0.1 * frame["width"] < box["width"] < frame["width"]): problems.append(f"implausible box {box}")
if report["errors"]: problems.append(f"errors on the socket: {report['errors']}")
# She smiles throughout the clip: the smile episode's start reaches the page as an "event" message.
if "expressions.smile:started" not in report.get("episodes", []):
    problems.append(f"no smile episode reached the page (episodes: {report.get('episodes', [])[:10]})")
if not picture.startswith("data:image/png;base64,"): problems.append("no picture of the page")
else:
    data = base64.b64decode(picture.split(",", 1)[1])
    open(picture_path, "wb").write(data)
    if len(data) < 20000: problems.append(f"the page's picture is nearly blank ({len(data)} bytes)")
if problems: sys.exit("check-live-page: " + "; ".join(problems))
print(f"check-live-page: {report['userAgent'].split(')')[-1].strip()}: {report['results']} results, "
      f"{report['processed']} analysed, one face ID, a box on every analysed frame, picture {picture_path}; "
      f"SIGTERM stopped the service in {stopped} s")
PY
