#!/usr/bin/env bash
# Builds the picture and video libraries the release tarball carries: OpenCV 4.6 (core, imgproc, imgcodecs,
# videoio), FFmpeg 5.1 (avformat, avcodec, swscale, avutil) and libtiff 4.5, from Debian bookworm's own source packages
# (the versions Mien is built and tested against, with Debian's patches), configured with only what Mien
# calls.
#
# Why: the tarball must run on a system that has none of them, and Debian's builds pull in everything they
# can: libopencv-imgcodecs406 links GDAL, GDCM and OpenEXR (139 libraries), libopencv-videoio406 GStreamer,
# gphoto2 and dc1394, libavcodec59 every codec Debian enables (x265, codec2, SVT-AV1, rav1e, aom, ...).
# Their closure is 245 libraries, 108 MB gzipped, against a 150 MB budget for the whole tarball. The same
# sources, the same compiler and Debian's compiler flags and CPU baseline give the same pixels, and the
# sonames are Debian's (libopencv_core.so.406, libavcodec.so.59), so one `mien` binary runs on Debian's
# libraries (the .deb) and on these (the tarball). `make package-check` proves the outputs identical.
#
# What is left out (so the tarball reads fewer formats than the .deb): GDAL rasters, DICOM, OpenEXR and
# JPEG XL pictures, TIFFs compressed with JBIG, LZMA, ZSTD, WebP or LERC; GStreamer, FireWire and gphoto2 cameras (V4L2 stays); FFmpeg's network protocols,
# filters, devices and audio. Video: MP4/MOV, Matroska/WebM, AVI, MPEG-TS/PS, FLV, Ogg, ASF/WMV, Y4M, raw
# H.264/HEVC; H.264, HEVC, AV1 (dav1d), VP8, VP9, MPEG-1/2/4, H.263, Theora, ProRes, WMV, VC-1, MJPEG, DNxHD,
# FFV1, HuffYUV and raw video; encoders OpenH264, MPEG-4 and MJPEG (annotated videos).
#
# Licence: FFmpeg is configured with neither its GPL nor its non-free option, so it is LGPL-2.1-or-later;
# H.264 is encoded by Cisco's OpenH264 (BSD-2-Clause, Debian's libopenh264-7) instead of x264 (GPL-2.0+).
# `scripts/dist/gpl-check.sh` refuses a bundle whose FFmpeg says otherwise.
#
# Usage: build-io-libs.sh PREFIX   (does nothing when PREFIX holds a build made by this same script)
#        build-io-libs.sh --deps-only (installs the Debian packages the build needs, and stops)
# `.ci/run` installs the packages first (apt's lock is not shared with the tests' own installs), then builds in
# the background at the lowest priority while the tests run; `make dist`'s own call waits for that build (a
# lock beside PREFIX) and finds it done.
set -euo pipefail

DEPS_ONLY=false
[ "${1:-}" = --deps-only ] && DEPS_ONLY=true
HERE=$(cd "$(dirname "$0")" && pwd)
if ! $DEPS_ONLY; then
    PREFIX=$(realpath -m "${1:?usage: build-io-libs.sh PREFIX | --deps-only}")
    STAMP=$PREFIX/.stamp
    SCRIPT_HASH=$(sha256sum "$HERE/build-io-libs.sh" | cut -d' ' -f1)
    mkdir -p "$(dirname "$PREFIX")"
    exec 9>"$PREFIX.lock"
    flock 9 # one build at a time: a second call waits here, then finds the first one's stamp
    [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$SCRIPT_HASH" ] && exit 0
fi

SUDO=$([ "$(id -u)" = 0 ] || echo sudo)
OPENCV_VERSION=4.6.0+dfsg-12
FFMPEG_VERSION=7:5.1.9-0+deb12u1
TIFF_VERSION=4.5.0-6+deb12u4
JOBS=$(nproc)

# Build tools and the -dev packages of the libraries these builds link (all from Debian; idempotent).
NEED=(cmake ninja-build nasm pkg-config dpkg-dev xz-utils libopenh264-dev libdav1d-dev libjpeg62-turbo-dev libpng-dev
    libtiff-dev libwebp-dev libopenjp2-7-dev libtbb-dev zlib1g-dev)
missing=()
for p in "${NEED[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
    echo "== installing ${missing[*]}"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
$DEPS_ONLY && exit 0

WORK=$(mktemp -d "${TMPDIR:-/tmp}/mien-io-libs.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"

# Debian's source packages, fetched and checked (SHA-256 from the signed index) by apt itself, from a
# private list so the machine's apt configuration is left as it is.
mkdir -p lists/partial
cat >sources.list <<'LIST'
deb-src http://deb.debian.org/debian bookworm main
deb-src http://deb.debian.org/debian-security bookworm-security main
deb-src http://deb.debian.org/debian bookworm-updates main
LIST
APT=(apt-get -q -o "Dir::Etc::SourceList=$WORK/sources.list" -o Dir::Etc::SourceParts=- -o "Dir::State::Lists=$WORK/lists"
    -o APT::Sandbox::User=root)
"${APT[@]}" update >/dev/null
echo "== fetching Debian's sources: opencv $OPENCV_VERSION, ffmpeg $FFMPEG_VERSION, tiff $TIFF_VERSION"
"${APT[@]}" source --download-only "opencv=$OPENCV_VERSION" "ffmpeg=$FFMPEG_VERSION" "tiff=$TIFF_VERSION" >/dev/null

unpack() { # orig tarball, debian tarball, folder[, component tarball, its folder]: the source with Debian's patches
    mkdir -p "$3"
    tar -C "$3" --strip-components=1 -xf "$1"
    tar -C "$3" -xf "$2"
    if [ $# -gt 3 ]; then mkdir -p "$3/$5" && tar -C "$3/$5" --strip-components=1 -xf "$4"; fi
    if [ -f "$3/debian/patches/series" ]; then
        grep -v '^\s*#' "$3/debian/patches/series" | while read -r patch _; do
            [ -n "$patch" ] && patch -d "$3" -p1 --quiet --batch <"$3/debian/patches/$patch"
        done
    fi
}
unpack ffmpeg_5.1.9.orig.tar.xz ffmpeg_*.debian.tar.xz ffmpeg
unpack tiff_4.5.0.orig.tar.* tiff_*.debian.tar.xz tiff
# opencv's contrib component is unpacked only because some of Debian's patches touch it; it is not built.
unpack opencv_4.6.0+dfsg.orig.tar.xz opencv_*.debian.tar.xz opencv opencv_4.6.0+dfsg.orig-contrib.tar.xz contrib

# Debian's compiler and linker flags (what debian/rules gets from dpkg-buildflags with hardening=+all).
export DEB_BUILD_MAINT_OPTIONS=hardening=+all
CFLAGS=$(cd "$WORK" && dpkg-buildflags --get CFLAGS)
CXXFLAGS=$(cd "$WORK" && dpkg-buildflags --get CXXFLAGS)
LDFLAGS=$(cd "$WORK" && dpkg-buildflags --get LDFLAGS)
STAGE=$WORK/prefix
mkdir -p "$STAGE"

echo "== building FFmpeg 5.1 (the parts Mien uses)"
(
    cd ffmpeg
    ./configure --prefix="$STAGE" --libdir="$STAGE/lib" --shlibdir="$STAGE/lib" --toolchain=hardened \
        --extra-cflags="$CFLAGS" --extra-ldflags="$LDFLAGS" \
        --enable-shared --disable-static --disable-programs --disable-doc --disable-debug \
        --disable-avdevice --disable-avfilter --disable-postproc --disable-swresample --disable-network \
        --disable-autodetect --enable-pthreads --enable-zlib --enable-libopenh264 --enable-libdav1d \
        --disable-everything \
        --enable-protocol=file,pipe \
        --enable-demuxer=mov,matroska,avi,mpegts,mpegps,flv,ogg,asf,yuv4mpegpipe,h264,hevc,m4v,mjpeg,rawvideo,mpegvideo,ivf \
        --enable-decoder=h264,hevc,libdav1d,vp8,vp9,mpeg4,mpeg1video,mpeg2video,h263,theora,prores,wmv1,wmv2,wmv3,vc1,msmpeg4v1,msmpeg4v2,msmpeg4v3,flv,mjpeg,dnxhd,ffv1,huffyuv,rawvideo,png \
        --enable-parser=h264,hevc,av1,vp8,vp9,mpeg4video,mpegvideo,h263,vc1,mjpeg,dnxhd,png \
        --enable-encoder=libopenh264,mpeg4,mjpeg,rawvideo \
        --enable-muxer=mp4,mov,matroska,avi >"$WORK/ffmpeg-configure.log" ||
        { tail -20 "$WORK/ffmpeg-configure.log"; exit 1; }
    make -j"$JOBS" >"$WORK/ffmpeg-build.log" 2>&1 || { tail -30 "$WORK/ffmpeg-build.log"; exit 1; }
    make install >/dev/null
)

echo "== building libtiff 4.5 (without JBIG-KIT)"
# Debian's libtiff6 links JBIG-KIT (libjbig0), which is GPL-2.0+: the same source and soname, built with zlib,
# JPEG and deflate only (LZMA, ZSTD, WebP, LERC and JBIG compressed TIFFs are not read by the tarball).
cmake -G Ninja -S tiff -B tiff/build -Wno-dev -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$STAGE" \
    -DCMAKE_INSTALL_LIBDIR=lib -DCMAKE_C_FLAGS_RELEASE="$CFLAGS" -DCMAKE_SHARED_LINKER_FLAGS_RELEASE="$LDFLAGS" \
    -DBUILD_SHARED_LIBS=ON -Djbig=OFF -Dlerc=OFF -Dlzma=OFF -Dzstd=OFF -Dwebp=OFF -Dlibdeflate=OFF -Djpeg=ON \
    -Dzlib=ON -Dpixarlog=ON -Dold-jpeg=ON -Djpeg12=OFF -Dcxx=OFF -Dtiff-tools=OFF -Dtiff-tests=OFF \
    -Dtiff-contrib=OFF -Dtiff-docs=OFF >"$WORK/tiff-configure.log" 2>&1 || { tail -30 "$WORK/tiff-configure.log"; exit 1; }
ninja -C tiff/build -j"$JOBS" >"$WORK/tiff-build.log" 2>&1 || { tail -30 "$WORK/tiff-build.log"; exit 1; }
ninja -C tiff/build install >/dev/null

echo "== building OpenCV 4.6 (core, imgproc, imgcodecs, videoio)"
# The CPU baseline is Debian's (SSE2, runtime dispatch above it) so the same code paths run.
PKG_CONFIG_PATH=$STAGE/lib/pkgconfig cmake -G Ninja -S opencv -B opencv/build -Wno-dev \
    -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$STAGE" -DCMAKE_INSTALL_LIBDIR=lib \
    -DCMAKE_C_FLAGS_RELEASE="$CFLAGS" -DCMAKE_CXX_FLAGS_RELEASE="$CXXFLAGS" \
    -DCMAKE_SHARED_LINKER_FLAGS_RELEASE="$LDFLAGS" -DCMAKE_SKIP_RPATH=ON \
    -DBUILD_LIST=core,imgproc,imgcodecs,videoio -DBUILD_SHARED_LIBS=ON -DBUILD_TESTS=OFF -DBUILD_PERF_TESTS=OFF \
    -DBUILD_EXAMPLES=OFF -DBUILD_DOCS=OFF -DBUILD_JAVA=OFF -DBUILD_opencv_python3=OFF -DBUILD_opencv_apps=OFF \
    -DBUILD_INFO_SKIP_TIMESTAMP=ON -DENABLE_PRECOMPILED_HEADERS=OFF -DOPENCV_GENERATE_PKGCONFIG=OFF \
    -DCPU_BASELINE=SSE2 -DCPU_BASELINE_DISABLE=SSE3 \
    -DWITH_TBB=ON -DWITH_V4L=ON -DWITH_FFMPEG=ON -DWITH_GSTREAMER=OFF -DWITH_1394=OFF -DWITH_GPHOTO2=OFF \
    -DWITH_JPEG=ON -DWITH_PNG=ON -DWITH_TIFF=ON -DWITH_WEBP=ON -DWITH_OPENJPEG=ON -DWITH_JASPER=OFF \
    -DTIFF_INCLUDE_DIR="$STAGE/include" -DTIFF_LIBRARY="$STAGE/lib/libtiff.so" -DWITH_OPENEXR=OFF -DWITH_GDAL=OFF -DWITH_GDCM=OFF -DBUILD_JPEG=OFF -DBUILD_PNG=OFF -DBUILD_TIFF=OFF \
    -DBUILD_WEBP=OFF -DBUILD_OPENJPEG=OFF -DBUILD_ZLIB=OFF \
    -DWITH_LAPACK=OFF -DWITH_EIGEN=OFF -DWITH_OPENCL=OFF -DWITH_OPENGL=OFF -DWITH_QT=OFF -DWITH_GTK=OFF \
    -DWITH_VTK=OFF -DWITH_IPP=OFF -DWITH_ITT=OFF -DWITH_CAROTENE=OFF -DWITH_ADE=OFF -DWITH_PROTOBUF=OFF \
    -DWITH_QUIRC=OFF -DWITH_VA=OFF -DWITH_VA_INTEL=OFF -DWITH_OPENVX=OFF -DWITH_OPENCLAMDFFT=OFF \
    -DWITH_OPENCLAMDBLAS=OFF -DOPENCV_PYTHON_SKIP_DETECTION=ON >"$WORK/opencv-configure.log" 2>&1 || { tail -30 "$WORK/opencv-configure.log"; exit 1; }
ninja -C opencv/build -j"$JOBS" >"$WORK/opencv-build.log" 2>&1 || { tail -30 "$WORK/opencv-build.log"; exit 1; }
ninja -C opencv/build install >/dev/null

rm -rf "$PREFIX"
mkdir -p "$PREFIX/lib" "$PREFIX/licenses"
# Only the runtime libraries under their sonames, stripped (no headers, pkg-config, CMake files, static archives
# or debugging symbols: OpenCV's core and imgproc are 38 and 61 MB with them, 2.9 and 4.4 MB without).
for lib in "$STAGE"/lib/lib{opencv_core,opencv_imgproc,opencv_imgcodecs,opencv_videoio,avformat,avcodec,swscale,avutil,tiff}.so.*; do
    [ -L "$lib" ] && continue
    soname=$(objdump -p "$lib" | awk '/SONAME/{print $2}')
    strip --strip-unneeded -o "$PREFIX/lib/$soname" "$lib"
done
cp opencv/LICENSE "$PREFIX/licenses/opencv-LICENSE"
cp ffmpeg/COPYING.LGPLv2.1 "$PREFIX/licenses/ffmpeg-COPYING.LGPLv2.1"
cp ffmpeg/LICENSE.md "$PREFIX/licenses/ffmpeg-LICENSE.md"
cp opencv/debian/copyright "$PREFIX/licenses/opencv-debian-copyright"
cp tiff/LICENSE.md "$PREFIX/licenses/libtiff-LICENSE.md"
cp tiff/debian/copyright "$PREFIX/licenses/libtiff-debian-copyright"
cp ffmpeg/debian/copyright "$PREFIX/licenses/ffmpeg-debian-copyright"
cp "$WORK/ffmpeg-configure.log" "$PREFIX/licenses/ffmpeg-configure.txt"
echo "$SCRIPT_HASH" >"$STAMP"
echo "== built into $PREFIX: $(ls "$PREFIX/lib" | tr '\n' ' ')"
