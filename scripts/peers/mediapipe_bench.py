"""MediaPipe's legacy FaceMesh (refine_landmarks=True) and OpenCV decode-only on one clip.

Prints one JSON line: frames/s (median of --runs), faces per frame, peak RSS of this process (MB).
Run by scripts/bench-peers.sh inside its throwaway venv (mediapipe==0.10.21, which bundles its models).
"""
import argparse
import time

import cv2

from peer_runs import report


def decode(path):
    capture = cv2.VideoCapture(path)
    start = time.perf_counter()
    frames = 0
    while True:
        ok, _ = capture.read()
        if not ok:
            break
        frames += 1
    return frames, 0, time.perf_counter() - start


def facemesh(path, faces):
    import mediapipe as mp

    capture = cv2.VideoCapture(path)
    found = 0
    frames = 0
    with mp.solutions.face_mesh.FaceMesh(
        static_image_mode=False, max_num_faces=faces, refine_landmarks=True,
        min_detection_confidence=0.5, min_tracking_confidence=0.5,
    ) as mesh:
        # Timed from here: the graph is built, as Mien's timing starts after its models are loaded.
        start = time.perf_counter()
        while True:
            ok, frame = capture.read()
            if not ok:
                break
            result = mesh.process(cv2.cvtColor(frame, cv2.COLOR_BGR2RGB))
            found += len(result.multi_face_landmarks or [])
            frames += 1
        seconds = time.perf_counter() - start
    return frames, found, seconds


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--clip", required=True)
    parser.add_argument("--mode", choices=["decode", "facemesh"], required=True)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--faces", type=int, default=1)
    args = parser.parse_args()
    cv2.setNumThreads(2)
    report(args.clip, "mediapipe-facemesh" if args.mode == "facemesh" else "decode-opencv", args.runs,
           lambda: decode(args.clip) if args.mode == "decode" else facemesh(args.clip, args.faces))


if __name__ == "__main__":
    main()
