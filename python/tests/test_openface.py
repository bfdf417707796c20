"""``mien analyze --format openface`` read the way OpenFace users read OpenFace 2.2's CSV: pandas with py-feat's
``read_openface`` steps (comma-separated, column names stripped of OpenFace's leading spaces), every column one of
OpenFace's documented ones, the sample's smile in AU12 and not in AU10."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from conftest import SAMPLE, run_cli

#: OpenFace 2.2 FeatureExtraction's documented columns (its wiki's "Output Format" page), eye landmarks aside.
OPENFACE_COLUMNS = (
    ["frame", "face_id", "timestamp", "confidence", "success"]
    + [f"gaze_{eye}_{axis}" for eye in (0, 1) for axis in "xyz"] + ["gaze_angle_x", "gaze_angle_y"]
    + [f"pose_{kind}{axis}" for kind in "TR" for axis in "xyz"]
    + [f"{axis}_{index}" for axis in ("x", "y", "X", "Y", "Z") for index in range(68)]
    + ["p_scale", "p_rx", "p_ry", "p_rz", "p_tx", "p_ty"] + [f"p_{index}" for index in range(34)]
    + [f"AU{unit:02d}_r" for unit in (1, 2, 4, 5, 6, 7, 9, 10, 12, 14, 15, 17, 20, 23, 25, 26, 45)]
    + [f"AU{unit:02d}_c" for unit in (1, 2, 4, 5, 6, 7, 9, 10, 12, 14, 15, 17, 20, 23, 25, 26, 28, 45)]
)


def test_openface_csv_reads_as_openface_with_the_smile_in_au12(engine: str, tmp_path: Path) -> None:
    done = run_cli(engine, "analyze", "--format", "openface", "--output", str(tmp_path), str(SAMPLE))
    assert done.returncode == 0, done.stderr
    frame = pd.read_csv(tmp_path / "astronaut.jpg.openface.csv", sep=",")
    frame.columns = frame.columns.str.strip(" ")
    # Every column, in OpenFace's order: what Mien cannot measure (p_*) is there and empty; AU23 is filled from the
    # catalog's entry for it, when there is one.
    assert list(frame.columns) == OPENFACE_COLUMNS, set(OPENFACE_COLUMNS) ^ set(frame.columns)
    row = frame.iloc[0]
    assert row["frame"] == 1 and row["face_id"] == 0 and row["success"] == 1
    assert 4 <= row["AU12_r"] <= 5 and row["AU10_r"] <= 1 and row["AU12_c"] == 1 and row["AU10_c"] == 0
    assert -1.6 < row["pose_Ry"] < 1.6 and 100 < row["x_0"] < 400
    assert 150 < row["pose_Tz"] < 1500 and row["Z_30"] < row["Z_0"], "millimetres; the nose nearer than the jaw"
    metrics = json.loads(run_cli(engine, "metrics", "--json").stdout)["metrics"]
    measures_au23 = any(entry.get("actionUnit") == "AU23" for entry in metrics)
    assert pd.isna(row["AU23_r"]) != measures_au23 and pd.isna(row["p_scale"])
