#!/usr/bin/env bash
# Installs the OpenVINO runtime Mien infers with, from the pinned PyPI wheel, idempotently.
#
# The wheel is only downloaded (pip download, no install into any Python), its SHA-256 checked, and the few
# files Mien needs unpacked into a prefix: the core, the C API, the CPU plugin, the ONNX and TensorFlow Lite
# front ends, the C headers and the licences. A pkg-config file (`openvino.pc`, the name OpenVINO's own
# archives use) lets SwiftPM link it as it links OpenCV (`.systemLibrary`, no unsafe flags), and an
# ld.so.conf.d entry lets the dynamic linker find it.
#
# oneTBB: Debian's OpenCV links Debian's libtbb.so.12 and the wheel brings its own copy. Two copies in one
# process would each start their own worker threads and scheduler state, so the wheel's copy is NOT
# installed: OpenVINO loads Debian's libtbb12 (a dependency of libopencv-dev) and one TBB serves both.
# `OpenVINORuntimeTests` checks that exactly one libtbb.so.12 is mapped.
#
# Environment: OPENVINO_PREFIX (default /opt/mien/openvino-$VERSION), PYTHON (default python3).
# To use an OpenVINO you already have instead, see docs/developing.md, "Using an OpenVINO you already have".
set -euo pipefail

VERSION=2026.4.1
BUILD=22982
PREFIX=${OPENVINO_PREFIX:-/opt/mien/openvino-$VERSION}
PYTHON=${PYTHON:-python3}
SUDO=$([ "$(id -u)" = 0 ] || echo sudo)

case "$(uname -m)" in
    x86_64)
        PLATFORM=manylinux_2_28_x86_64
        SHA256=2d22b1da03f7caf74df30e9f6417d0ab2f637e4a38e08e1dcd294d2c37407aaf ;;
    aarch64)
        PLATFORM=manylinux_2_35_aarch64
        SHA256=bea1eb3733c34ef331adc945da0ccda5937865031139073663be84c517ffda22 ;;
    *) echo "install-openvino: no pinned OpenVINO wheel for $(uname -m)" >&2; exit 1 ;;
esac
WHEEL=openvino-$VERSION-$BUILD-cp311-cp311-$PLATFORM.whl
STAMP=$PREFIX/share/mien-openvino.stamp

if [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$SHA256" ] && pkg-config --exists openvino; then
    exit 0
fi
echo "== installing OpenVINO $VERSION (C API, CPU plugin, ONNX and TFLite front ends) into $PREFIX"

# Debian's oneTBB runtime (shared with OpenCV) and unzip; pip for the download.
if ! dpkg -s libtbb12 >/dev/null 2>&1 || ! command -v unzip >/dev/null; then
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends libtbb12 unzip >/dev/null
fi
if ! "$PYTHON" -m pip --version >/dev/null 2>&1; then
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends python3-pip >/dev/null
fi

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
# --platform/--python-version make pip fetch this exact file whatever Python runs it.
"$PYTHON" -m pip download --quiet --no-deps --only-binary=:all: --platform "$PLATFORM" --python-version 3.11 \
    --implementation cp -d "$WORK" "openvino==$VERSION"
[ -f "$WORK/$WHEEL" ] || { echo "install-openvino: pip did not fetch $WHEEL" >&2; exit 1; }
echo "$SHA256  $WORK/$WHEEL" | sha256sum --check --quiet - || {
    echo "install-openvino: $WHEEL does not have the pinned SHA-256 $SHA256" >&2
    exit 1
}

LIBS=(libopenvino.so.2641 libopenvino_c.so.2641 libopenvino_intel_cpu_plugin.so
    libopenvino_onnx_frontend.so.2641 libopenvino_tensorflow_lite_frontend.so.2641)
unzip -q "$WORK/$WHEEL" "${LIBS[@]/#/openvino/libs/}" 'openvino/include/openvino/c/*' \
    'openvino-*.dist-info/licenses/*' -d "$WORK/x"

STAGE=$WORK/prefix
mkdir -p "$STAGE/lib/pkgconfig" "$STAGE/include" "$STAGE/share/licenses/openvino"
cp "${LIBS[@]/#/$WORK/x/openvino/libs/}" "$STAGE/lib/"
ln -s libopenvino.so.2641 "$STAGE/lib/libopenvino.so"
ln -s libopenvino_c.so.2641 "$STAGE/lib/libopenvino_c.so"
cp -r "$WORK/x/openvino/include/openvino" "$STAGE/include/"
cp -r "$WORK"/x/openvino-*.dist-info/licenses/. "$STAGE/share/licenses/openvino/"
cat >"$STAGE/lib/pkgconfig/openvino.pc" <<EOF
prefix=$PREFIX
libdir=\${prefix}/lib
includedir=\${prefix}/include

Name: OpenVINO
Description: OpenVINO $VERSION runtime from the PyPI wheel $WHEEL (C API, CPU plugin), installed for Mien
Version: $VERSION
Libs: -L\${libdir} -lopenvino_c -lopenvino
Cflags: -I\${includedir}
EOF
echo "$SHA256" >"$STAGE/share/mien-openvino.stamp"

$SUDO rm -rf "$PREFIX"
$SUDO mkdir -p "$(dirname "$PREFIX")"
$SUDO cp -a "$STAGE" "$PREFIX"
# The default pkg-config path and the dynamic linker's path both look here, so nothing needs setting.
$SUDO mkdir -p /usr/local/lib/pkgconfig
$SUDO ln -sf "$PREFIX/lib/pkgconfig/openvino.pc" /usr/local/lib/pkgconfig/openvino.pc
echo "$PREFIX/lib" | $SUDO tee /etc/ld.so.conf.d/mien-openvino.conf >/dev/null
$SUDO ldconfig
echo "== OpenVINO $VERSION installed: $(pkg-config --modversion openvino) ($PREFIX)"
