#!/usr/bin/env bash
# libFuzzer over what participants send (issue 94): consent, answers, viewing messages, declines, screen-outs and a
# recording's onsets, through Mien's ParticipantMessageFuzz (each decoder and what the server does next: the
# session's coding, its manifest row read back, the viewing rules' words, answers.csv). Built by SwiftPM with
# -sanitize=fuzzer from Fuzz/swift (a package of its own: the main build has no executable that needs libFuzzer)
# into .build/fuzz-swift, about 80 s the first time. Runs SECONDS (default 600) from the committed inputs in
# Fuzz/regressions/participant_messages/; a crash leaves its input in .build/fuzz-swift/crashes/ and fails the run.
#
# usage: scripts/fuzz-messages.sh [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-600}
seed=${FUZZ_SEED:-0}
build=.build/fuzz-swift
(cd Fuzz/swift && swift build --scratch-path "../../$build" -Xswiftc -sanitize=fuzzer --product MienFuzz 2>&1 |
    grep -E "error|warning: .*Mien|Build of product" || true)
binary="$build/debug/MienFuzz"
[ -x "$binary" ] || { echo "fuzz-messages: $binary was not built" >&2; exit 1; }
mkdir -p "$build/corpus" "$build/crashes"
echo "== participant_messages for $seconds s"
set +e
# Swift's own crash reporter would take the trap before libFuzzer saves the input that caused it.
SWIFT_BACKTRACE=enable=no "$binary" "$build/corpus" Fuzz/regressions/participant_messages -max_total_time="$seconds" \
    -seed="$seed" -max_len=4096 -timeout=20 -rss_limit_mb=2048 -artifact_prefix="$build/crashes/" \
    -print_final_stats=1 >"$build/run.log" 2>&1
rc=$?
set -e
runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$build/run.log" | tail -1)
if [ $rc -ne 0 ]; then
    grep -E "Fatal error|ERROR|SUMMARY|Test unit written" "$build/run.log" | head -8
    echo "fuzz-messages: a crash after ${runs:-?} inputs; its input is in $build/crashes/ (copy it to" \
        "Fuzz/regressions/participant_messages/ once fixed)" >&2
    exit 1
fi
echo "fuzz-messages: ${runs:-?} inputs in $seconds s, no crash"
