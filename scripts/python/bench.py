"""`make bench-python`: the command line against the Python package on the same 720p clip, in one run, alternating.

Each round runs `mien analyze CLIP --output DIR --format csv` (what the CLI user gets: the CSV), then
`mien.analyze(CLIP)` (the same engine, its CSV read back into a DataFrame), then `mien.Detector.process` fed
frame by frame from `cv2.VideoCapture` (OpenCV from PyPI), then `mien.Detector.stream` over the same frames
(a few frames ahead of their results), every metric on. Prints each round's wall times, the best and median of
each, frames/s, the ratios to the CLI, and a JSON line last.

Usage: python bench.py MIEN CLIP [ROUNDS]
"""

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import cv2

import mien


def opencv_frames(clip):
    """The clip's frames as OpenCV reads them, with their timestamps in seconds, decoded as they are used."""
    capture = cv2.VideoCapture(clip)
    while True:
        ok, frame = capture.read()
        if not ok:
            return
        yield frame, capture.get(cv2.CAP_PROP_POS_MSEC) / 1000


def main() -> None:
    engine, clip = sys.argv[1], sys.argv[2]
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 5
    os.environ["MIEN_EXECUTABLE"] = engine
    mien.engine_version(), mien.model_checksums()  # asked once per process, outside the timing
    cli, python, process, stream = [], [], [], []
    frames = 0
    for round_index in range(rounds):
        with tempfile.TemporaryDirectory() as out:
            start = time.perf_counter()
            subprocess.run([engine, "analyze", clip, "--output", out, "--format", "csv"], check=True,
                           capture_output=True)
            cli.append(time.perf_counter() - start)
        start = time.perf_counter()
        frame = mien.analyze(clip, progress=False)
        python.append(time.perf_counter() - start)
        frames = int(frame["frame"].nunique())
        with mien.Detector(metrics="all") as detector:
            start = time.perf_counter()
            count = sum(1 for picture, timestamp in opencv_frames(clip) if detector.process(picture, timestamp))
            process.append(time.perf_counter() - start)
        with mien.Detector(metrics="all") as detector:
            start = time.perf_counter()
            streamed = sum(1 for _ in detector.stream(opencv_frames(clip)))
            stream.append(time.perf_counter() - start)
        assert count == streamed == frames, (count, streamed, frames)
        print(f"round {round_index + 1}: CLI {cli[-1]:.3f} s, mien.analyze {python[-1]:.3f} s, "
              f"Detector.process {process[-1]:.3f} s, Detector.stream {stream[-1]:.3f} s", flush=True)
    best_cli, best_python = min(cli), min(python)
    result = {
        "clip": os.path.basename(clip), "frames": frames, "rounds": rounds,
        "cli_best_s": round(best_cli, 3), "cli_median_s": round(statistics.median(cli), 3),
        "analyze_best_s": round(best_python, 3), "analyze_median_s": round(statistics.median(python), 3),
        "cli_fps": round(frames / best_cli, 1), "analyze_fps": round(frames / best_python, 1),
        "analyze_over_cli_best": round(best_python / best_cli, 3),
        "analyze_over_cli_median": round(statistics.median(python) / statistics.median(cli), 3),
        "process_fps": round(frames / min(process), 1), "stream_fps": round(frames / min(stream), 1),
        "process_fps_over_cli_best": round(best_cli / min(process), 3),
        "stream_fps_over_cli_best": round(best_cli / min(stream), 3),
        "process_fps_over_cli_median": round(statistics.median(cli) / statistics.median(process), 3),
        "stream_fps_over_cli_median": round(statistics.median(cli) / statistics.median(stream), 3),
    }
    print(f"CLI {result['cli_fps']} frames/s, mien.analyze {result['analyze_fps']} frames/s; "
          f"mien.analyze / CLI wall time: best {result['analyze_over_cli_best']}, "
          f"median {result['analyze_over_cli_median']}; Detector.process {result['process_fps']} frames/s "
          f"({result['process_fps_over_cli_best']} x the CLI's), Detector.stream {result['stream_fps']} frames/s "
          f"({result['stream_fps_over_cli_best']} x)")
    print(json.dumps(result))


if __name__ == "__main__":
    main()
