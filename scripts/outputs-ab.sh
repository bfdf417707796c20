#!/usr/bin/env bash
# scripts/outputs-ab.sh BEFORE AFTER: every output of two `mien` builds compared byte for byte on the bundled
# samples: `mien detect` (JSON lines), `mien analyze` of the demo clip and the picture with every format, a
# report and an annotated video, a folder of pictures, --max-frames, and a run killed (kill -9) mid-video then
# resumed (--resume). Only the report's "Made by" line (commit and time) may differ. Exit 1 on any difference.
#   git worktree add ../mien-before REV && (cd ../mien-before && swift build --product mien)
#   scripts/outputs-ab.sh ../mien-before/.build/debug/mien .build/debug/mien
set -euo pipefail
cd "$(dirname "$0")/.."
before=$(realpath "$1") after=$(realpath "$2")
out=$(mktemp -d -t mien-ab.XXXXXX)
trap 'rm -rf "$out"' EXIT
clip=Samples/astronaut-pan-zoom.mp4 picture=Samples/astronaut.jpg
mkdir -p "$out/folder"
for n in 1 2 3; do cp "$picture" "$out/folder/face$n.jpg"; done
printf 'not a picture' >"$out/folder/broken.jpg"
run() { # run SIDE BIN: every case into $out/SIDE
    local side=$1 bin=$2 dir=$out/$1
    mkdir -p "$dir"
    "$bin" detect --expressions "$picture" >"$dir/detect.jsonl"
    "$bin" detect --detector-only "$clip" >"$dir/detect-only.jsonl"
    "$bin" analyze "$clip" "$picture" --output "$dir/analyze" --annotate "$dir/analyze" \
        --report "$dir/analyze/report.html" --format jsonl,csv,openface 2>/dev/null
    "$bin" analyze "$out/folder" --output "$dir/folder" 2>/dev/null || true
    "$bin" analyze "$clip" --max-frames 12 --output "$dir/max-frames" 2>/dev/null
    "$bin" analyze "$clip" --output "$dir/plain" 2>/dev/null
    # Killed once it has written 15 frames, then resumed: the outputs must equal an uninterrupted run's.
    "$bin" analyze "$clip" --output "$dir/resumed" 2>/dev/null &
    local pid=$!
    for _ in $(seq 600); do
        partial=$(ls "$dir"/resumed/.astronaut-pan-zoom.mp4.jsonl.partial-* 2>/dev/null | head -1 || true)
        [ -n "$partial" ] && [ "$(wc -l <"$partial")" -ge 15 ] && break
        sleep 0.05
    done
    kill -9 "$pid" 2>/dev/null && echo "$side: killed after $(wc -l <"$partial") frames" || echo "$side: ended before the kill"
    wait "$pid" 2>/dev/null || true
    "$bin" analyze "$clip" --output "$dir/resumed" --resume 2>/dev/null
    # The report names the program and the time it was made: the one line allowed to differ.
    find "$dir" -name '*.html' -exec sed -i 's/Made by mien [^<]*</Made by mien</' {} +
}
run before "$before"
run after "$after"
status=0
while IFS= read -r file; do
    if cmp -s "$out/before/$file" "$out/after/$file"; then
        echo "identical  $file ($(wc -c <"$out/before/$file") bytes)"
    else
        echo "DIFFERENT  $file"
        status=1
    fi
done < <(cd "$out/before" && find . -type f | sort)
[ "$(cd "$out/before" && find . -type f | sort)" = "$(cd "$out/after" && find . -type f | sort)" ] || {
    echo "the two builds wrote different files"
    status=1
}
if cmp -s "$out/after/resumed/astronaut-pan-zoom.mp4.jsonl" "$out/after/plain/astronaut-pan-zoom.mp4.jsonl"; then
    echo "the resumed run's results equal the uninterrupted run's"
else
    echo "the resumed run's results differ from the uninterrupted run's"
    status=1
fi
exit $status
