#!/usr/bin/env bash
# `make study-check`: a panel collected from a link, in three browser engines, and the faults fieldwork meets.
# 1. check.py: headless Chromium (Debian's) driven by Playwright through the participant page by its accessible
#    names, its fake camera playing a clip of the bundled sample: completions, a closed tab that comes back, a
#    reload mid-stimulus, a blocked camera then a reload, two tabs, a decline, a phone viewport, a recorded webcam;
#    then what was stored, the aggregation, the dashboard's counts and exports, every refusal and erasure.
# 1b. trial.py: issue 80's faces against answers, 24 participants over the page's sockets (the Yale faces).
# 2. engines.py: Firefox ESR over WebDriver BiDi and WebKitGTK (Safari's engine) over WebDriver with Selenium,
#    each in a laptop and a phone viewport, the camera an injected getUserMedia stream of the same clip.
# 3. faults.py: servers of its own: a full disk (a small tmpfs), kill -9 and SIGTERM mid-stimulus, a consent
#    burst, idle and squatting sockets, a stimulus ended with no frame or two, ID probing.
# 4. abuse.py: hostile clients against default settings (issue 78's trial): no framing check, trickling sockets,
#    poisoning frames, one token's many sockets, a consent with a watcher's ID, ID probing, forwarded-for floods,
#    oversized bodies, a consent's time at 1,000 sessions (`make study-abuse`: 10,000, and a queue wait past 2 min).
# Browsers and Xvfb come from Debian (installed when missing), Python packages from a pinned venv under .build.
# Every service is stopped by its PID.
# Usage: scripts/study-check/run.sh MIEN MIENDEV
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
MIEN=$(realpath "${1:?usage: run.sh MIEN MIENDEV}")
MIENDEV=$(realpath "${2:?usage: run.sh MIEN MIENDEV}")
VENV=$ROOT/.build/study-check-venv
. "$ROOT/scripts/lib/serve-port.sh"
OUT=$ROOT/.build/study-check
"$ROOT/scripts/python/venv.sh" "$VENV" "$ROOT/scripts/study-check/requirements.txt"
missing=()
for pair in chromium:chromium firefox-esr:firefox-esr WebKitWebDriver:webkit2gtk-driver xvfb-run:xvfb; do
    command -v "${pair%%:*}" >/dev/null || missing+=("${pair##*:}")
done
# H.264 for WebKitGTK's GStreamer; the others decode it with FFmpeg's libraries.
dpkg -s gstreamer1.0-libav >/dev/null 2>&1 || missing+=(gstreamer1.0-libav gstreamer1.0-plugins-good)
if [ ${#missing[@]} -gt 0 ]; then
    echo "== installing from Debian for the participant page's browser check: ${missing[*]}"
    SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
mkdir -p "$OUT"
# Chromium's fake camera plays raw YUV4MPEG2: the sample panning and zooming, 60 frames at 15 fps, looped.
[ -s "$OUT/clip.y4m" ] || "$MIENDEV" make-clip --width 640 --height 360 --frames 60 --fps 15 "$OUT/clip.y4m" >/dev/null
rm -rf "$OUT/studies" "$OUT/results"
mkdir -p "$OUT/studies"
PANEL=(--screenout-url "https://panel.example.org/screenout" --screenout-code SCREEN --contact "study@example.org"
    --researcher "The Mien study check")
# Targets shown only: the check sends more participants to each group than its target (closing is unit-tested).
"$MIEN" study init "$OUT/studies/ad" --stimulus "$ROOT/Samples/astronaut-pan-zoom.mp4" --groups A,B \
    --completion-url "https://panel.example.org/done" --target A=4 B=4 --targets display "${PANEL[@]}" >/dev/null
"$MIEN" study init "$OUT/studies/adrec" --stimulus "$ROOT/Samples/astronaut-pan-zoom.mp4" --record "${PANEL[@]}" >/dev/null
"$MIEN" study init "$OUT/studies/engines" --stimulus "$ROOT/Samples/astronaut-pan-zoom.mp4" "${PANEL[@]}" >/dev/null
# Issue 79's viewers: one hides the tab for about a sixth of the 3-s stimulus, which still counts at --min-share 0.3.
"$MIEN" study init "$OUT/studies/viewing" --stimulus "$ROOT/Samples/astronaut-pan-zoom.mp4" --min-share 0.3 \
    "${PANEL[@]}" >/dev/null

# Issue 79's viewer whose face leaves the camera's frame from 0.9 to 2.1 s of the stimulus (away.py).
"$MIEN" study init "$OUT/studies/away" --stimulus "$ROOT/Samples/astronaut-pan-zoom.mp4" "${PANEL[@]}" >/dev/null
# Issue 80's questions after the advert and at the end (the bundled sample file), and a mark at its brand's moment.
# Issue 98: the sample's questions and a recall question after the advert (a single choice with its right option).
{ cat "$ROOT/Samples/advert-questions.txt"; printf '%s\n' '' 'question: brand' 'after: astronaut-pan-zoom' \
    'type: single' 'text: Whose advert was it?' 'options: NASA | ESA | JAXA' 'correct: NASA'; } >"$OUT/recall-questions.txt"
made=$("$MIEN" study init "$OUT/studies/questions" --stimulus "$ROOT/Samples/astronaut-pan-zoom.mp4" \
    --questions "$OUT/recall-questions.txt" --marks brand=1.2 --attribute age=18-24,25-34,35+ \
    --attribute sex=female,male "${PANEL[@]}")
# Issue 96: the example link percent-encodes a value with a + (unencoded, a + reads as a space).
grep -q "age=35%2B" <<<"$made" || { echo "study-check: init's example link does not encode 35+: $made"; exit 1; }
# Issue 80's trial (trial.py): 24 participants over the page's sockets, the Yale faces as cameras, answers set by
# the test; consents from one address, so the burst is the panel's size.
"$MIEN" study init "$OUT/studies/trial" --stimulus "$ROOT/Samples/astronaut-pan-zoom.mp4" \
    --questions "$ROOT/Samples/advert-questions.txt" --min-share 0.3 --consent-burst 100 "${PANEL[@]}" >/dev/null
# Issue 96's participant shown a stimulus again (check.py's r1).
"$MIEN" study init "$OUT/studies/retry" --stimulus "$ROOT/Samples/astronaut-pan-zoom.mp4" "${PANEL[@]}" >/dev/null
# Issue 95's null panel: still faces through the page in Chromium (still.py, called by check.py).
"$MIEN" study init "$OUT/studies/still" --stimulus "$ROOT/Samples/astronaut-pan-zoom.mp4" "${PANEL[@]}" >/dev/null
# Issue 79's skippable stimulus: a Skip button after 1 s of the 3-s stimulus.
"$MIEN" study init "$OUT/studies/skip" --stimulus "$ROOT/Samples/astronaut-pan-zoom.mp4" --skippable-after 1 \
    "${PANEL[@]}" >/dev/null

TOKEN=study-check-$$-$RANDOM
SERVER=
cleanup() { [ -n "$SERVER" ] && kill "$SERVER" 2>/dev/null && wait "$SERVER" 2>/dev/null; true; }
trap cleanup EXIT
"$MIEN" serve --port 0 --token "$TOKEN" --studies "$OUT/studies" 2>"$OUT/serve.log" &
SERVER=$!
PORT=$(serve_port "$OUT/serve.log" "$SERVER")
started=$SECONDS
timeout 600 "$VENV/bin/python" "$ROOT/scripts/study-check/check.py" --base "http://127.0.0.1:$PORT" --token "$TOKEN" \
    --studies "$OUT/studies" --out "$OUT" --mien "$MIEN" --camera "$OUT/clip.y4m" --server-pid "$SERVER" \
    --eval "$(realpath -m "${EVAL_DIR:-$ROOT/../shared/eval}")"
echo "== study-check part 1 (Chromium): $((SECONDS - started)) s"
started=$SECONDS
FACES=$(realpath -m "${EVAL_DIR:-$ROOT/../shared/eval}/yalefaces")
(cd "$ROOT/scripts/study-check" && timeout 300 "$VENV/bin/python" trial.py --base "http://127.0.0.1:$PORT" \
    --token "$TOKEN" --studies "$OUT/studies" --out "$OUT" --mien "$MIEN" --faces "$FACES")
echo "== study-check part 1b (the trial: faces against answers): $((SECONDS - started)) s"
started=$SECONDS
timeout 600 xvfb-run -a "$VENV/bin/python" "$ROOT/scripts/study-check/engines.py" --base "http://127.0.0.1:$PORT" \
    --token "$TOKEN" --study engines
echo "== study-check part 2 (Firefox, WebKitGTK): $((SECONDS - started)) s"
# The server's log holds a line per event and no participant ID.
grep -q "participant #1 agreed" "$OUT/serve.log" || { echo "study-check: the server log has no consent line"; exit 1; }
if grep -E "participant (p[0-9]|r[0-9]|q[0-9])" "$OUT/serve.log"; then
    echo "study-check: the server log names a participant ID"; exit 1
fi
cleanup
SERVER=
started=$SECONDS
timeout 600 "$VENV/bin/python" "$ROOT/scripts/study-check/faults.py" --mien "$MIEN" --sample "$ROOT/Samples" \
    --out "$OUT/faults"
echo "== study-check part 3 (faults): $((SECONDS - started)) s"
started=$SECONDS
timeout 600 "$VENV/bin/python" "$ROOT/scripts/study-check/abuse.py" --mien "$MIEN" --miendev "$MIENDEV" \
    --sample "$ROOT/Samples" --out "$OUT/abuse"
echo "== study-check part 4 (abuse): $((SECONDS - started)) s"
