"""Table and JSON summary of make bench-peers from its results.jsonl (one JSON object per measurement)."""
import json
import sys

rows = {}
order = []
for line in open(sys.argv[1]):
    line = line.strip()
    if not line.startswith("{"):
        continue
    item = json.loads(line)
    label = item["label"]
    if label not in rows:
        rows[label] = {}
        order.append(label)
    rows[label][item["mode"]] = item


def fps(row, mode):
    return row.get(mode, {}).get("fps")


def ratio(a, b):
    return round(a / b, 2) if a and b else None


header = ["clip", "decode", "MediaPipe", "Mien all", "Mien mesh", "all/MP", "mesh/MP", "all/decode",
          "RSS MP", "RSS Mien all"]
print("| " + " | ".join(header) + " |")
print("|" + "---|" * len(header))
summary = []
for label in order:
    row = rows[label]
    decode = fps(row, "mien-decode")
    mp = fps(row, "mediapipe-facemesh")
    everything = fps(row, "mien-all")
    mesh = fps(row, "mien-mesh")
    entry = {
        "clip": label, "decode_fps": decode, "decode_opencv_python_fps": fps(row, "decode-opencv"),
        "mediapipe_fps": mp, "mien_all_fps": everything, "mien_mesh_fps": mesh,
        "mien_all_over_mediapipe": ratio(everything, mp), "mien_mesh_over_mediapipe": ratio(mesh, mp),
        "mien_all_over_decode": ratio(everything, decode),
        "peak_rss_mb": {k: v.get("peak_rss_mb") for k, v in row.items()},
        "faces_per_frame": {k: v.get("faces_per_frame") for k, v in row.items() if "decode" not in k},
        "mien_mesh_stages": row.get("mien-mesh", {}).get("stages"),
    }
    summary.append(entry)
    cells = [label, decode, mp, everything, mesh, entry["mien_all_over_mediapipe"], entry["mien_mesh_over_mediapipe"],
             entry["mien_all_over_decode"], row.get("mediapipe-facemesh", {}).get("peak_rss_mb"),
             row.get("mien-all", {}).get("peak_rss_mb")]
    print("| " + " | ".join("" if c is None else str(c) for c in cells) + " |")
print(json.dumps({"bench_peers": summary}, sort_keys=True))
