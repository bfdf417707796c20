#!/usr/bin/env bash
# Writes mien-opencv4.pc: Debian's opencv4 flags narrowed to the four modules the bridge uses (core, imgproc,
# imgcodecs for pictures, videoio for cameras). Debian's opencv4.pc links all 55 of its modules, and each one
# linked is loaded at start even if never called (highgui brings GTK, viz brings VTK, ...). Measured on the 2-core
# workplace VM: 383 -> 261 shared libraries, `mien --version` 0.22 -> 0.11 s, `mien detect Samples/astronaut.jpg`
# 0.44 -> 0.32 s, peak RSS with every metric 322 -> 290 MB. Called by `make deps`; idempotent; the include
# path and library folder come from opencv4.pc, so an OpenCV installed elsewhere works the same way.
set -euo pipefail
SUDO=$([ "$(id -u)" = 0 ] || echo sudo)
dir=${MIEN_PKGCONFIG_DIR:-/usr/local/lib/pkgconfig}
modules="videoio imgcodecs imgproc core"
libdir=$(pkg-config --variable=libdir opencv4)
wanted=$(mktemp)
trap 'rm -f "$wanted"' EXIT
{
    echo "# Written by Mien's scripts/install-opencv-pc.sh from opencv4.pc: the modules Mien's bridge links."
    echo "libdir=$libdir"
    echo
    echo "Name: mien-opencv4"
    echo "Description: OpenCV's $modules modules, as Mien links them"
    echo "Version: $(pkg-config --modversion opencv4)"
    echo "Cflags: $(pkg-config --cflags opencv4)"
    echo "Libs: -L\${libdir}$(for m in $modules; do printf ' -lopencv_%s' "$m"; done)"
} >"$wanted"
if cmp -s "$wanted" "$dir/mien-opencv4.pc"; then exit 0; fi
echo "== writing $dir/mien-opencv4.pc (OpenCV's $modules modules)"
$SUDO mkdir -p "$dir"
$SUDO install -m 644 "$wanted" "$dir/mien-opencv4.pc"
