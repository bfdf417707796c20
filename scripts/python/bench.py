"""`make bench-python`: the command line against mien.analyze on the same 720p clip, in one run, alternating.

Each round runs `mien analyze CLIP --output DIR --format csv` (what the CLI user gets: the CSV) and then
`mien.analyze(CLIP)` (the same engine, its CSV read back into a DataFrame), every metric on. Prints each
round's wall time, the best and median of each, frames/s, the ratio analyze / CLI, and a JSON line last.
(`Detector.process` fed from Python is not measured yet: the package has no live Detector.)

Usage: python bench.py MIEN CLIP [ROUNDS]
"""

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import mien


def main() -> None:
    engine, clip = sys.argv[1], sys.argv[2]
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 5
    os.environ["MIEN_EXECUTABLE"] = engine
    mien.engine_version(), mien.model_checksums()  # asked once per process, outside the timing
    cli, python = [], []
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
        print(f"round {round_index + 1}: CLI {cli[-1]:.3f} s, mien.analyze {python[-1]:.3f} s", flush=True)
    best_cli, best_python = min(cli), min(python)
    result = {
        "clip": os.path.basename(clip), "frames": frames, "rounds": rounds,
        "cli_best_s": round(best_cli, 3), "cli_median_s": round(statistics.median(cli), 3),
        "analyze_best_s": round(best_python, 3), "analyze_median_s": round(statistics.median(python), 3),
        "cli_fps": round(frames / best_cli, 1), "analyze_fps": round(frames / best_python, 1),
        "analyze_over_cli_best": round(best_python / best_cli, 3),
        "analyze_over_cli_median": round(statistics.median(python) / statistics.median(cli), 3),
    }
    print(f"CLI {result['cli_fps']} frames/s, mien.analyze {result['analyze_fps']} frames/s; "
          f"mien.analyze / CLI wall time: best {result['analyze_over_cli_best']}, "
          f"median {result['analyze_over_cli_median']}")
    print(json.dumps(result))


if __name__ == "__main__":
    main()
