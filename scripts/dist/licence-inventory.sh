#!/usr/bin/env bash
# Prints share/doc/mien/LICENSES.md for a bundle and copies every licence text it names into
# share/doc/mien/licenses/: Mien, the statically linked Swift runtime and packages, each library under
# lib/mien (with the Debian package or wheel it came from), and each model.
# Usage: licence-inventory.sh BUNDLE_ROOT IO_LIBS_PREFIX >BUNDLE_ROOT/share/doc/mien/LICENSES.md
set -euo pipefail
ROOT=$1
IO_LIBS=$2
TEXTS=$ROOT/share/doc/mien/licenses
mkdir -p "$TEXTS/swift-packages" "$TEXTS/debian" "$TEXTS/openvino" "$TEXTS/models"
OPENVINO_PREFIX=$(pkg-config --variable=prefix openvino)

cat <<'EOF'
# Licences of everything in this bundle

Mien's own code is under the MIT licence (`LICENSE`). The bundle also carries other people's work, each under
its own licence, listed here with where it came from; the full texts are in `licenses/`.

No part of this bundle is under the GNU GPL. FFmpeg's libraries (`lib/mien/libav*`, `libswscale*`) are built
with neither FFmpeg's GPL nor its non-free configure option, so they are under the **GNU LGPL, version 2.1 or later**:
they are separate shared libraries that you may replace with your own build of the same FFmpeg (the program loads
them from `lib/mien/` by their sonames). Their complete source is Debian bookworm's source package named below
(`apt-get source ffmpeg=<version>` from Debian's archive) with the configuration in
`licenses/ffmpeg-configure.txt`; `scripts/dist/build-io-libs.sh` in Mien's repository is the recipe. H.264 video
is encoded by Cisco's OpenH264 (`libopenh264`, BSD-2-Clause). The Debian package (`mien_*.deb`) carries none of
these: it depends on Debian's own libraries, installed and licensed by the user's system.

## The program: `bin/mien`

| part | licence | origin |
|---|---|---|
| Mien | MIT | this repository (`LICENSE`) |
| Swift standard library, runtime, Dispatch, Foundation (linked in with `--static-swift-stdlib`) | Apache-2.0 with the Runtime Library Exception | the Swift toolchain (`licenses/swift-LICENSE.txt`) |
| ICU data and code inside Foundation (`_FoundationICU`) | Unicode License v3 | swift-foundation-icu, part of the Swift toolchain |
EOF
cp /opt/swift/usr/share/swift/LICENSE.txt "$TEXTS/swift-LICENSE.txt" 2>/dev/null ||
    cp "$(dirname "$(dirname "$(command -v swift)")")/share/swift/LICENSE.txt" "$TEXTS/swift-LICENSE.txt"

# Swift packages linked into the binary: those with a module among the objects SwiftPM linked (the release
# link list names each object's module folder).
LINKED_MODULES=$(sed 's#.*/\([^/]*\)\.build/.*#\1#' .build/release/mien.product/Objects.LinkFileList | sort -u)
if [ -d .build/checkouts ]; then
    for dir in .build/checkouts/*/; do
        name=$(basename "$dir")
        linked=no
        for module in "$dir"Sources/*/; do
            grep -qx "$(basename "$module")" <<<"$LINKED_MODULES" && linked=yes && break
        done
        [ "$linked" = yes ] || continue
        licence_file=$(ls "$dir" | grep -i -E '^(licen[cs]e|copying)' | head -1 || true)
        [ -n "$licence_file" ] || continue
        mkdir -p "$TEXTS/swift-packages/$name"
        cp "$dir/$licence_file" "$TEXTS/swift-packages/$name/"
        notice=$(ls "$dir" | grep -i -E '^notice' | head -1 || true)
        [ -n "$notice" ] && cp "$dir/$notice" "$TEXTS/swift-packages/$name/"
        # Vendored code keeps its own licence beside it (swift-crypto's BoringSSL, for one).
        find "$dir/Sources" -mindepth 2 -maxdepth 2 -iname 'LICENSE*' 2>/dev/null | while read -r vendored; do
            cp "$vendored" "$TEXTS/swift-packages/$name/$(basename "$(dirname "$vendored")")-$(basename "$vendored")"
        done
        kind=$(grep -m1 -o -E 'Apache License|MIT License|Permission is hereby granted|BSD' "$dir/$licence_file" || true)
        case "$kind" in
            "Apache License") kind=Apache-2.0 ;; "MIT License" | "Permission is hereby granted") kind=MIT ;; BSD) kind=BSD ;;
            *) kind="see licenses/swift-packages/$name" ;;
        esac
        version=$(git -C "$dir" describe --tags --always 2>/dev/null || echo "?")
        echo "| Swift package \`$name\` $version | $kind | statically linked |"
    done
fi

cat <<'EOF'

## Libraries: `lib/mien/`

| file | licence | origin |
|---|---|---|
EOF
tail -n +2 "$ROOT/lib/mien/BUNDLED.tsv" | while IFS=$'\t' read -r file role origin; do
    case "$file" in
        libopenvino*) echo "| \`$file\` | Apache-2.0 | $origin |" ;;
        libwebp*) # Debian's copyright file for libwebp7 is not machine-readable; libwebp's COPYING is BSD-3-Clause.
            echo "| \`$file\` | BSD-3-Clause | $origin |"
            cp /usr/share/doc/libwebp7/copyright "$TEXTS/debian/libwebp7.copyright"
            ;;
        libtiff*) echo "| \`$file\` | libtiff (BSD-style) | $origin (tiff 4.5.0-6+deb12u4, without JBIG-KIT) |" ;;
        libopencv*) echo "| \`$file\` | Apache-2.0 | $origin (OpenCV 4.6.0+dfsg-12) |" ;;
        libav* | libsw*) echo "| \`$file\` | LGPL-2.1-or-later (configured with its LGPL parts only) | $origin (FFmpeg 5.1.9-0+deb12u1) |" ;;
        *)
            package=$(echo "$origin" | awk '{print $4}')
            licence=$(grep -m1 -E '^License: ' "/usr/share/doc/$package/copyright" 2>/dev/null | sed 's/^License: //' || true)
            echo "| \`$file\` | ${licence:-see licenses/debian/$package.copyright} | $origin |"
            cp "/usr/share/doc/$package/copyright" "$TEXTS/debian/$package.copyright"
            ;;
    esac
done
cp -r "$OPENVINO_PREFIX/share/licenses/openvino/." "$TEXTS/openvino/"
cp "$IO_LIBS"/licenses/* "$TEXTS/"

cat <<'EOF'

OpenVINO's third-party notices are in `licenses/openvino/`; the Debian packages' copyright files in
`licenses/debian/`; OpenCV's and FFmpeg's licences and Debian copyright files in `licenses/`.

## Models: `share/mien/Models/`

Each model is a file inside a pinned PyPI package, or converted from one (`Models/MANIFEST.json` has every
package, version and SHA-256; `Models/NOTICE.md` the originals and their licences).

| file | licence | origin |
|---|---|---|
EOF
python3 - "$ROOT/share/mien/Models/MANIFEST.json" <<'PY'
import json, sys
for m in json.load(open(sys.argv[1]))["models"]:
    s = m["source"]
    print(f"| `{m['file']}` | {m['licence'].split(';')[0]} | PyPI `{s['package']}` {s['version']}, `{s['path']}` |")
PY
cp "$ROOT/share/mien/Models/NOTICE.md" "$ROOT/share/mien/Models/LICENSE-Apache-2.0.txt" "$TEXTS/models/"
