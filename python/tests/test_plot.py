"""``mien.plot`` (the [plot] extra) draws what the results hold."""

from __future__ import annotations

from pathlib import Path

import cv2
import matplotlib
import pytest

import mien
import mien.plot
from conftest import SAMPLE

matplotlib.use("Agg")


def test_timeline_draws_one_line_per_face_and_metric(clip: Path) -> None:
    df = mien.analyze(clip, metrics="emotions", progress=False)
    ax = mien.plot.timeline(df, ["joy", "valence"])
    faces = df["faceId"].nunique()
    assert len(ax.get_lines()) == 2 * faces
    line = ax.get_lines()[0]
    assert list(line.get_xdata()) == sorted(df[df["faceId"] == 0]["TimeStamp"])
    with pytest.raises(ValueError, match="no column"):
        mien.plot.timeline(df, ["happiness"])


def test_faces_draws_a_box_per_face_where_the_face_is() -> None:
    picture = cv2.imread(str(SAMPLE))
    with mien.Detector(metrics="expressions", mode="images") as detector:
        result = detector.process(picture)
    ax = mien.plot.faces(picture, result)
    boxes = ax.patches
    assert len(boxes) == len(result.faces) == 1
    assert boxes[0].get_xy() == pytest.approx(result.faces[0].bounds[:2])
    assert boxes[0].get_width() == pytest.approx(result.faces[0].bounds[2])
