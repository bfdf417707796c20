#!/usr/bin/env bash
# Assembles the relocatable release bundle every artifact is made from (`make dist`), and its tarball:
#
#   mien-<version>-linux-x86_64/
#     bin/mien                        release build, Swift runtime linked in, RUNPATH $ORIGIN/../lib/mien
#     lib/mien/                       OpenVINO's runtime and CPU plugin (from the pinned wheel), and the
#                                     picture/video libraries with everything they load but glibc and
#                                     the C++ runtime (RUNPATH $ORIGIN)
#     share/mien/Models/              the models and their manifest (checked by `mien models`)
#     share/doc/mien/                 LICENSE, CHANGELOG.md, LICENSES.md (inventory), licenses/ (full texts)
#     share/man/man1/                 mien.1 and one page per subcommand
#     share/bash-completion/…, share/zsh/…, share/fish/…   completions
#
# The libraries under lib/mien are listed in share/doc/mien/LICENSES.md with their origin and licence, and in
# lib/mien/BUNDLED.tsv with their role: `inference` (OpenVINO, in every artifact) or `io` (OpenCV, FFmpeg
# and what they load: only in the tarball, the image and the wheel; the .deb depends on Debian's instead).
#
# Usage: make-dist.sh BINARY IO_LIBS_PREFIX MANPAGES_DIR OUT_DIR
#   BINARY          the release `mien`, built with --static-swift-stdlib
#   IO_LIBS_PREFIX  what scripts/dist/build-io-libs.sh built
#   MANPAGES_DIR    the pages swift-argument-parser's generate-manual plugin wrote
#   OUT_DIR         where the bundle folder and the tarball go (dist/)
set -euo pipefail

BINARY=$(realpath "${1:?usage: make-dist.sh BINARY IO_LIBS_PREFIX MANPAGES_DIR OUT_DIR}")
IO_LIBS=$(realpath "$2")
MANPAGES=$(realpath "$3")
OUT=$(realpath -m "$4")
TOP=$(cd "$(dirname "$0")/../.." && pwd)
cd "$TOP"

VERSION=$(sed -n 's/^ *static let number = "\(.*\)"$/\1/p' Sources/MienCLI/MienVersion.swift)
[ -n "$VERSION" ] || { echo "make-dist: no version in Sources/MienCLI/MienVersion.swift" >&2; exit 1; }
ARCH=$(uname -m)
NAME=mien-$VERSION-linux-$ARCH
ROOT=$OUT/$NAME
OPENVINO_LIB=$(pkg-config --variable=libdir openvino)
command -v patchelf >/dev/null || { echo "make-dist: patchelf is missing (make dist installs it)" >&2; exit 1; }

rm -rf "$ROOT" "$OUT/$NAME.tar.gz"
mkdir -p "$ROOT/bin" "$ROOT/lib/mien" "$ROOT/share/mien" "$ROOT/share/doc/mien/licenses" "$ROOT/share/man/man1" \
    "$ROOT/share/bash-completion/completions" "$ROOT/share/zsh/site-functions" "$ROOT/share/fish/vendor_completions.d"

# --- the program
strip -o "$ROOT/bin/mien" "$BINARY"
patchelf --set-rpath '$ORIGIN/../lib/mien' "$ROOT/bin/mien"
chmod 755 "$ROOT/bin/mien"

# --- libraries: OpenVINO (inference), the I/O builds, and whatever those load that is not glibc or the C++
# runtime (which every Linux that runs the binary has: glibc >= 2.35, libstdc++ of GCC >= 12)
BUNDLED=$ROOT/lib/mien/BUNDLED.tsv
printf 'file\trole\torigin\n' >"$BUNDLED"
for lib in libopenvino.so.2641 libopenvino_c.so.2641 libopenvino_intel_cpu_plugin.so libopenvino_onnx_frontend.so.2641 \
    libopenvino_tensorflow_lite_frontend.so.2641; do
    cp "$OPENVINO_LIB/$lib" "$ROOT/lib/mien/"
    printf '%s\tinference\tPyPI openvino wheel (pinned in scripts/install-openvino.sh)\n' "$lib" >>"$BUNDLED"
done
for lib in "$IO_LIBS"/lib/*.so*; do
    strip --strip-unneeded -o "$ROOT/lib/mien/$(basename "$lib")" "$lib"
    printf '%s\tio\tbuilt by scripts/dist/build-io-libs.sh from Debian bookworm sources\n' "$(basename "$lib")" >>"$BUNDLED"
done
# The system's base: never bundled (the C library and the compiler's runtime must match the kernel and each
# other, and every system that can run this binary has them).
is_base() { case "$1" in libc.so.*|libm.so.*|libdl.so.*|libpthread.so.*|librt.so.*|ld-linux*|libstdc++.so.*|libgcc_s.so.*|linux-vdso*) return 0 ;; *) return 1 ;; esac; }
# Walk NEEDED entries until every library resolves inside lib/mien (ldd with the bundle's own path first).
for _ in 1 2 3 4 5 6; do
    added=0
    for elf in "$ROOT/bin/mien" "$ROOT"/lib/mien/*.so*; do
        while read -r soname _ path _; do
            is_base "$soname" && continue
            [ -e "$ROOT/lib/mien/$soname" ] && continue
            [ -f "$path" ] || { echo "make-dist: $soname (needed by $(basename "$elf")) not found on this machine" >&2; exit 1; }
            cp -L "$path" "$ROOT/lib/mien/$soname"
            package=$(dpkg -S "$(realpath "$path")" 2>/dev/null | head -1 | cut -d: -f1 || true)
            [ -n "$package" ] || package=$(dpkg -S "$path" 2>/dev/null | head -1 | cut -d: -f1 || true)
            [ -n "$package" ] || { echo "make-dist: no Debian package owns $path" >&2; exit 1; }
            printf '%s\tio\tDebian bookworm package %s %s\n' "$soname" "$package" \
                "$(dpkg-query -W -f='${Version}' "$package")" >>"$BUNDLED"
            added=1
        done < <(LD_LIBRARY_PATH=$ROOT/lib/mien ldd "$elf" | awk '/=>/ {print $1, "=>", $3, "x"}')
    done
    [ "$added" = 0 ] && break
done
for lib in "$ROOT"/lib/mien/*.so*; do
    chmod 644 "$lib"
    # OpenVINO's libraries already look beside themselves; the others are told to.
    case "$(basename "$lib")" in libopenvino*) ;; *) patchelf --set-rpath '$ORIGIN' "$lib" ;; esac
done

# --- models, checked against the manifest the binary was built for when the bundle is verified below
cp -r Models "$ROOT/share/mien/Models"

# --- documentation, licences, man pages, completions
cp LICENSE "$ROOT/share/doc/mien/LICENSE"
cp CHANGELOG.md "$ROOT/share/doc/mien/CHANGELOG.md"
scripts/dist/licence-inventory.sh "$ROOT" "$IO_LIBS" >"$ROOT/share/doc/mien/LICENSES.md"
cp "$MANPAGES"/*.1 "$ROOT/share/man/man1/"
gzip -9n "$ROOT"/share/man/man1/*.1
# (bash completions are sourced, not run: no #! line, as lintian asks)
"$ROOT/bin/mien" --generate-completion-script bash | sed "1{/^#!/d}" >"$ROOT/share/bash-completion/completions/mien"
"$ROOT/bin/mien" --generate-completion-script zsh >"$ROOT/share/zsh/site-functions/_mien"
"$ROOT/bin/mien" --generate-completion-script fish >"$ROOT/share/fish/vendor_completions.d/mien.fish"

# --- the bundle runs on its own: no library from outside it but the base, the models verified
outside=$(env -i "$ROOT/bin/mien" --version >/dev/null && ldd "$ROOT/bin/mien" "$ROOT"/lib/mien/*.so* |
    awk '/=>/ {print $1, $3}' | while read -r soname path; do
        is_base "$soname" || case "$(realpath -m "$path")" in "$ROOT"/lib/mien/*) ;; *) echo "$soname=$path" ;; esac
    done | sort -u)
[ -z "$outside" ] || { echo "make-dist: the bundle still loads from outside itself: $outside" >&2; exit 1; }
env -i "$ROOT/bin/mien" models >/dev/null || { echo "make-dist: mien models fails in the bundle" >&2; exit 1; }
# No GPL part (package-check reads the tarball, the wheel and the image again).
scripts/dist/gpl-check.sh "the bundle" "$ROOT"

# --- the tarball (files in name order, owner root, mtime of the commit: the same bundle gives the same bytes)
mtime=$(git log -1 --format=%cI 2>/dev/null || date -u +%FT%TZ)
tar -C "$OUT" --sort=name --owner=0 --group=0 --numeric-owner --mtime="$mtime" -cf - "$NAME" | gzip -9n >"$OUT/$NAME.tar.gz"
# What the bundle asks of the system: the newest glibc and libstdc++ symbol versions any of its files uses.
needs() { for f in "$ROOT/bin/mien" "$ROOT"/lib/mien/*.so*; do objdump -T "$f" | grep -o "$1[0-9.]*"; done | sort -Vu | tail -1; }
echo "$(needs GLIBC_) $(needs GLIBCXX_)" >"$ROOT/share/doc/mien/SYSTEM-REQUIREMENTS"
echo "make-dist: $OUT/$NAME.tar.gz ($(stat -c %s "$OUT/$NAME.tar.gz" | awk '{printf "%.1f", $1 / 1e6}') MB;" \
    "unpacked $(du -sb "$ROOT" | awk '{printf "%.1f", $1 / 1e6}') MB;" \
    "needs $(cat "$ROOT/share/doc/mien/SYSTEM-REQUIREMENTS"))"
