#!/usr/bin/env bash
# Fails when a shipped artifact carries a GPL part. Mien is MIT so that product teams can ship it inside their
# own software; one GPL library in the tarball, image or wheel would make that artifact GPL as a whole.
#
# Reads what is really there, not what the recipe meant to build:
# - every FFmpeg library's own configuration string (FFmpeg embeds its ./configure line in libavcodec,
#   libavformat and libavutil) must enable none of FFmpeg's GPL or non-free options, x264 or x265, and libavutil's
#   licence string must be LGPL's;
# - no library known to be GPL-only is present (x264, x265, JBIG-KIT, libpostproc, Xvid, FDK AAC);
# - every row of LICENSES.md's library table names a licence with no GPL in it, or offers a non-GPL
#   alternative ("BSD-3-clause or GPL-2" is zstd's dual licence). LGPL is fine: FFmpeg's libraries stay
#   separate, replaceable shared libraries.
#
# Usage: gpl-check.sh WHAT DIR   (DIR holds the unpacked artifact; WHAT names it in messages)
# Prints one line; exits 1 naming every offending file.
set -euo pipefail
WHAT=${1:?usage: gpl-check.sh WHAT DIR}
DIR=${2:?usage: gpl-check.sh WHAT DIR}
problems=()

ffmpeg_libs=0
while IFS= read -r -d '' lib; do
    ffmpeg_libs=$((ffmpeg_libs + 1))
    configuration=$(strings -a "$lib" | grep -e '--prefix=' | head -1 || true)
    [ -n "$configuration" ] || { problems+=("$(basename "$lib"): no configuration string to read"); continue; }
    for option in gpl nonfree libx264 libx265; do
        [[ " $configuration " == *" --enable-$option "* ]] && problems+=("$(basename "$lib"): configured with --enable-$option")
    done
    case "$(basename "$lib")" in
        libavutil.so*)
            # FFmpeg's FFMPEG_LICENSE, embedded as "libavutil license: LGPL version 2.1 or later".
            # (grep reads all of strings' output: with -q it would stop early, and pipefail would count the
            # SIGPIPE that ends strings as a failure.)
            [ "$(strings -a "$lib" | grep -c -x 'libavutil license: LGPL version 2.1 or later')" -gt 0 ] ||
                problems+=("$(basename "$lib"): its licence string is not 'LGPL version 2.1 or later'")
            ;;
    esac
done < <(find "$DIR" -type f \( -name 'libavcodec.so*' -o -name 'libavformat.so*' -o -name 'libavutil.so*' \) -print0)
[ "$ffmpeg_libs" -gt 0 ] || problems+=("no FFmpeg library found under $DIR (is this the unpacked $WHAT?)")

while IFS= read -r -d '' lib; do
    problems+=("${lib#"$DIR"/}: a GPL-only library")
done < <(find "$DIR" \( -name 'libx264*.so*' -o -name 'libx265*.so*' -o -name 'libjbig*.so*' -o -name 'libpostproc*.so*' \
    -o -name 'libxvidcore*.so*' -o -name 'libfdk-aac*.so*' \) -print0)

licences=$(find "$DIR" -path '*share/doc/mien/LICENSES.md' | head -1)
rows=0
if [ -z "$licences" ]; then
    problems+=("no share/doc/mien/LICENSES.md under $DIR")
else
    while IFS='|' read -r _ file licence _; do
        rows=$((rows + 1))
        permissive=no
        # Each alternative of a dual licence on its own: one without GPL (LGPL allowed) is enough.
        while IFS= read -r alternative; do
            # (Case-sensitive: a note naming FFmpeg's lower-case configure option names no GPL licence.)
            if ! sed 's/LGPL//g' <<<"$alternative" | grep -q 'GPL'; then permissive=yes; fi
        done < <(sed 's/ or /\n/g' <<<"$licence")
        [ "$permissive" = yes ] || problems+=("LICENSES.md: $(echo "$file" | tr -d '`' | xargs) is under$licence")
    done < <(grep -E '^\| ' "$licences" | grep -v -E '^\| (part|file) \| licence|^\|---')
fi

if [ ${#problems[@]} -gt 0 ]; then
    echo "gpl-check: $WHAT carries GPL parts:" >&2
    printf '  %s\n' "${problems[@]}" >&2
    exit 1
fi
echo "gpl-check: $WHAT: no GPL part ($ffmpeg_libs FFmpeg libraries configured LGPL, $rows licence rows read)"
