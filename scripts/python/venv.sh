#!/usr/bin/env bash
# A pinned Python venv under .build, made or remade only when its requirements file changed (the copy kept in
# the venv is the stamp). python3-venv is installed with apt-get when missing (as root, or through sudo).
# Usage: scripts/python/venv.sh VENV REQUIREMENTS
set -euo pipefail
VENV=${1:?usage: venv.sh VENV REQUIREMENTS}
REQUIREMENTS=${2:?usage: venv.sh VENV REQUIREMENTS}
PYTHON=${PYTHON:-python3}

if [ -x "$VENV/bin/python" ] && cmp -s "$REQUIREMENTS" "$VENV/requirements.stamp"; then
    exit 0
fi
if ! "$PYTHON" -m venv --help >/dev/null 2>&1; then
    SUDO=$([ "$(id -u)" = 0 ] || echo sudo)
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends python3-venv >/dev/null
fi
rm -rf "$VENV"
"$PYTHON" -m venv "$VENV"
"$VENV/bin/pip" install --quiet $(grep -q -e "--hash=" "$REQUIREMENTS" && echo --require-hashes) -r "$REQUIREMENTS"
cp "$REQUIREMENTS" "$VENV/requirements.stamp"
