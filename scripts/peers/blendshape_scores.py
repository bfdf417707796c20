"""MediaPipe Tasks FaceLandmarker's own 52 blendshapes on still pictures: the peer of Mien's expressions in
`make eval` (the same face_landmarker.task Mien's models come from, IMAGE running mode).

Reads picture paths, one per line, on standard input; prints one JSON line per picture: the path, how many
faces were found, and the blendshapes of the largest face (by the extent of its 478 points), or null.
Run by MienDev eval inside the throwaway venv of scripts/peers/install-tasks.sh (mediapipe==1.2.2).
"""
import argparse
import json
import sys

import cv2
import mediapipe as mp
from mediapipe.tasks.python import BaseOptions, vision


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--task", required=True)
    parser.add_argument("--faces", type=int, default=4)
    args = parser.parse_args()
    options = vision.FaceLandmarkerOptions(
        base_options=BaseOptions(model_asset_path=args.task), running_mode=vision.RunningMode.IMAGE,
        num_faces=args.faces, output_face_blendshapes=True)
    with vision.FaceLandmarker.create_from_options(options) as model:
        for line in sys.stdin:
            path = line.rstrip("\n")
            if not path:
                continue
            picture = cv2.imread(path, cv2.IMREAD_COLOR)
            if picture is None:
                print(json.dumps({"path": path, "faces": 0, "blendshapes": None, "error": "unreadable"}), flush=True)
                continue
            image = mp.Image(image_format=mp.ImageFormat.SRGB, data=cv2.cvtColor(picture, cv2.COLOR_BGR2RGB))
            result = model.detect(image)
            best, best_area = None, -1.0
            for points, shapes in zip(result.face_landmarks, result.face_blendshapes):
                xs = [p.x for p in points]
                ys = [p.y for p in points]
                area = (max(xs) - min(xs)) * (max(ys) - min(ys))
                if area > best_area:
                    best, best_area = {s.category_name: s.score for s in shapes}, area
            print(json.dumps({"path": path, "faces": len(result.face_landmarks), "blendshapes": best}), flush=True)


if __name__ == "__main__":
    main()
