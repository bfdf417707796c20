#!/usr/bin/env bash
# Renders a `mien analyze --report` page (or a `mien study` folder's study.html) in headless Chromium (from Debian, installed when missing) and
# checks it: nothing is fetched from the network, the page's own self-check (every thumbnail decoded,
# every chart drawn) says "ok", and a full-page screenshot is written for people to look at.
#
# usage: scripts/check-report.sh REPORT.html [SCREENSHOT.png]
set -euo pipefail
report=${1:?usage: check-report.sh REPORT.html [SCREENSHOT.png]}
shot=${2:-${report%.html}.png}
fail() { echo "check-report: $report: $*" >&2; exit 1; }

[ -s "$report" ] || fail "missing or empty"
if ! command -v chromium >/dev/null; then
    echo "== installing Chromium from Debian (headless rendering of the HTML report)"
    sudo=""; [ "$(id -u)" = 0 ] || sudo=sudo
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends chromium >/dev/null
fi

# Self-contained: no script, style, image or link that leaves the file.
if grep -Eq '(src|href)="(https?:)?//' "$report"; then fail "refers to the network"; fi

profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
url="file://$(realpath "$report")"
flags=(--headless --no-sandbox --disable-gpu --hide-scrollbars --user-data-dir="$profile" --virtual-time-budget=5000)
dom=$(chromium "${flags[@]}" --dump-dom "$url" 2>/dev/null) || fail "Chromium could not load it"
status=$(grep -o 'data-rendered="[^"]*"' <<<"$dom" | head -1 || true)
[ "$status" = 'data-rendered="ok"' ] || fail "the page's self-check says ${status:-nothing (did the script run?)}"
charts=$(grep -o '<svg class="chart"' <<<"$dom" | wc -l || true)
faces=$(grep -o '<article class="face"' <<<"$dom" | wc -l || true)
stimuli=$(grep -o '<section class="stimulus"' <<<"$dom" | wc -l || true)

chromium "${flags[@]}" --window-size=1200,2000 --screenshot="$shot" "$url" >/dev/null 2>&1 || fail "no screenshot"
bytes=$(stat -c %s "$shot")
[ "$bytes" -gt 20000 ] || fail "the screenshot is nearly blank ($bytes bytes)"
echo "check-report: $report renders in $(chromium --version 2>/dev/null | tr -d "\n"): self-check ok, $faces face(s), $stimuli stimulus section(s), $charts chart(s), screenshot $shot ($bytes bytes)"
