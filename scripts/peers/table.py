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


header = ["clip", "decode", "FaceMesh", "Landmarker+bs", "Landmarker", "Mien all", "Mien mesh", "all/FaceMesh",
          "all/Landmarker+bs", "mesh/FaceMesh", "all/decode", "RSS Landmarker+bs", "RSS Mien all"]
print("| " + " | ".join(header) + " |")
print("|" + "---|" * len(header))
summary = []
for label in order:
    row = rows[label]
    decode = fps(row, "mien-decode")
    mp = fps(row, "mediapipe-facemesh")
    everything = fps(row, "mien-all")
    mesh = fps(row, "mien-mesh")
    landmarker = fps(row, "mediapipe-landmarker+blendshapes")
    plain_landmarker = fps(row, "mediapipe-landmarker")
    entry = {
        "clip": label, "decode_fps": decode, "decode_opencv_python_fps": fps(row, "decode-opencv"),
        "mediapipe_fps": mp, "mien_all_fps": everything, "mien_mesh_fps": mesh,
        "mien_all_over_mediapipe": ratio(everything, mp), "mien_mesh_over_mediapipe": ratio(mesh, mp),
        "mien_all_over_decode": ratio(everything, decode),
        "landmarker_blendshapes_fps": landmarker, "landmarker_fps": plain_landmarker,
        "mien_all_over_landmarker": ratio(everything, landmarker),
        "mien_mesh_over_landmarker_without_blendshapes": ratio(mesh, plain_landmarker),
        "peak_rss_mb": {k: v.get("peak_rss_mb") for k, v in row.items()},
        "faces_per_frame": {k: v.get("faces_per_frame") for k, v in row.items() if "decode" not in k},
        "mien_mesh_stages": row.get("mien-mesh", {}).get("stages"),
    }
    summary.append(entry)
    cells = [label, decode, mp, landmarker, plain_landmarker, everything, mesh, entry["mien_all_over_mediapipe"],
             entry["mien_all_over_landmarker"], entry["mien_mesh_over_mediapipe"], entry["mien_all_over_decode"],
             row.get("mediapipe-landmarker+blendshapes", {}).get("peak_rss_mb"), row.get("mien-all", {}).get("peak_rss_mb")]
    print("| " + " | ".join("" if c is None else str(c) for c in cells) + " |")
# What four faces cost against one: the 2 x 2 mosaic holds four copies of the 512 x 512 talking head, so the
# per-frame time ratio compares the same faces (decoding 4 x the pixels included).
one = rows.get("talking head 512x512", {})
four = rows.get("2x2 mosaic 1024x1024", {})
four_faces = {}
for mode in ["mien-all", "mien-mesh", "mediapipe-facemesh", "mediapipe-landmarker+blendshapes"]:
    a, b = fps(one, mode), fps(four, mode)
    if a and b:
        four_faces[mode] = round(a / b, 2)
if four_faces:
    print("four faces cost (x one face, per frame): " + ", ".join(f"{k} {v}" for k, v in four_faces.items()))
print(json.dumps({"bench_peers": summary, "four_faces_over_one_face": four_faces}, sort_keys=True))
