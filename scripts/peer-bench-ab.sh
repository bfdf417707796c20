#!/usr/bin/env bash
# scripts/peer-bench-ab.sh BEFORE AFTER: make bench-peers' Mien side for two MienDev builds (release), alternating
# on each of its clips (modes all and mesh, ROUNDS rounds, median of 3 runs each), then the after/before ratio
# per clip and mode and their geometric mean: a change's speed compared in one run on one quiet machine.
#   git stash; swift build -c release --product MienDev; cp .build/release/MienDev /tmp/MienDev.before; git stash pop
#   swift build -c release --product MienDev; scripts/peer-bench-ab.sh /tmp/MienDev.before .build/release/MienDev
set -euo pipefail
cd "$(dirname "$0")/.."
before=$1 after=$2 rounds=${ROUNDS:-2}
out=.build/peers
mkdir -p "$out"
results="$out/ab.jsonl"
: >"$results"
while IFS=$'\t' read -r label faces clip; do
    [ -n "${clip:-}" ] || continue
    for round in $(seq "$rounds"); do
        for mode in all mesh; do
            for side in before after; do
                bin=$before
                [ "$side" = after ] && bin=$after
                line=$("$bin" peer-bench --clip "$clip" --mode "$mode" --runs 3 --faces "$faces" 2>/dev/null)
                echo "{\"label\":\"$label\",\"round\":$round,\"side\":\"$side\",${line#\{}" | tee -a "$results"
            done
        done
    done
done < <("$after" peer-clips --out "$out" | grep $'\t')
python3 - "$results" <<'PY'
import collections, json, statistics, sys
rows = [json.loads(line) for line in open(sys.argv[1])]
fps = collections.defaultdict(list)
for row in rows:
    fps[(row["label"], row["mode"], row["side"])].append(row["fps"])
labels = list(dict.fromkeys(row["label"] for row in rows))
ratios = collections.defaultdict(list)
print(f"{'clip':26} {'mode':10} {'before fps':>16} {'after fps':>16} {'after/before':>12}")
for label in labels:
    for mode in ("mien-all", "mien-mesh"):
        b, a = fps[(label, mode, "before")], fps[(label, mode, "after")]
        if not b or not a:
            continue
        ratio = statistics.mean(a) / statistics.mean(b)
        ratios[mode].append(ratio)
        print(f"{label:26} {mode:10} {' / '.join(map(str, b)):>16} {' / '.join(map(str, a)):>16} {ratio:12.3f}")
summary = {mode: round(statistics.geometric_mean(values), 3) for mode, values in ratios.items()}
print(json.dumps({"after_over_before_geometric_mean": summary}))
PY
