#!/usr/bin/env bash
# scripts/detector-counts.sh [REV]: the Detector's size and state at a commit (default: the working tree), the
# counts issue 59 asked for before and after the Detector was made of parts: lines and code lines of the
# detector's files, the conditional lines that read a mode or lifecycle flag, and the lines that make a lock.
#   scripts/detector-counts.sh a54d0ea     # before
#   scripts/detector-counts.sh             # now
set -euo pipefail
cd "$(dirname "$0")/.."
pattern='/(Detector(\+[A-Za-z]+)?|DetectorRun(\+[A-Za-z]+)?|FrameFeed|SourceReader|DetectorEngine|FrameInbox|CallbackWriter|DetectorCallbacks|LocatedFrame|StageItem|DetectorSource)\.swift$'
if [ -z "${1:-}" ]; then
    files=$(ls Sources/Mien/Detector/*.swift | grep -E "$pattern")
    all=$(cat $files)
else
    files=$(git ls-tree --name-only -r "$1" Sources/Mien/Detector | grep -E "$pattern")
    all=$(for f in $files; do git show "$1:$f"; done)
fi
code=$(echo "$all" | grep -vE '^\s*//')
echo "${1:-working tree}: $(echo $files | wc -w) files"
echo "  lines: $(echo "$all" | wc -l), code lines (no comments or blanks): $(echo "$all" | grep -vE '^\s*(//|$)' | wc -l)"
flags='readsItself|isLive|isFolder|readsFolder|replayUntil|firstDelivery|feedsStream|feedsResults|running|starting|generation|awaitingEnd|isCurrent|isOpen|goesOn\(|itemsStandAlone|policy ==|timing ==|\.pushed'
echo "  conditional lines reading a mode or lifecycle flag: $(echo "$code" | grep -E '(\bif |guard |while |\? |&&|\|\||where |case \.)' | grep -cE "$flags")"
echo "  lines making a lock (Locked, NSCondition, NSLock; a lock's declaration and its init both count): $(echo "$code" | grep -cE '= Locked|Locked<|NSCondition\(\)|NSLock\(\)')"
