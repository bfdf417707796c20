#!/usr/bin/env bash
# Prints the path of a clean Debian root (mmdebstrap minbase, as a tar) for SUITE, made once a day under
# .build/roots: package-check's clean systems start from it. `.ci/run` makes both in the background while the
# tests run (downloading them is most of the time); a second call waits for the first (a lock) and reuses it.
#
# Usage: debian-root.sh SUITE   (bookworm, trixie)
set -euo pipefail
SUITE=${1:?usage: debian-root.sh SUITE}
TOP=$(cd "$(dirname "$0")/../.." && pwd)
DIR=$TOP/.build/roots
# A day's root: Debian's archive moves on, and a root older than its lists would fail apt-get in the checks.
TAR=$DIR/$SUITE-$(date -u +%F).tar
mkdir -p "$DIR"
exec 9>"$DIR/$SUITE.lock"
flock 9
if [ ! -f "$TAR" ]; then
    command -v mmdebstrap >/dev/null || { echo "debian-root: mmdebstrap is not installed" >&2; exit 1; }
    rm -f "$DIR/$SUITE"-*.tar
    # (mmdebstrap picks the output's format from its name: the partial file must end in .tar too)
    partial=$DIR/partial-$SUITE.tar
    mmdebstrap --variant=minbase --quiet "$SUITE" "$partial" >&2 || { rm -f "$partial"; exit 1; }
    mv "$partial" "$TAR"
fi
echo "$TAR"
