"""One group word, one meaning, in Python too: ``mien.METRIC_GROUPS`` are the catalog's words, each word given to
``mien.Detector`` gives exactly the catalog's fields, and every metric is a typed attribute of ``mien.Face``."""

from __future__ import annotations

import dataclasses

import cv2
import pytest

import mien
from catalog import catalog, groups_of, mismatches
from conftest import SAMPLE


def test_metric_groups_are_the_catalogs_words(engine: str) -> None:
    assert list(mien.METRIC_GROUPS) == catalog(engine)["words"]


@pytest.mark.parametrize("word", mien.METRIC_GROUPS)
def test_each_word_gives_exactly_the_catalogs_fields(engine: str, word: str) -> None:
    known = catalog(engine)
    frame = cv2.imread(str(SAMPLE))
    with mien.Detector(metrics=word, mode="images") as detector:
        face = detector.process(frame, 0.0).faces[0]
    problems = mismatches(face.data, groups_of(word, [g["name"] for g in known["groups"]]), known["metrics"])
    assert problems == [], f"metrics={word}"


def test_every_metric_is_a_typed_attribute_of_face(engine: str) -> None:
    attributes = {field.name for field in dataclasses.fields(mien.Face)}
    # Metrics computed from the others are typed properties written from the catalog (mien._measures).
    attributes |= {name for name in dir(mien.Face) if isinstance(getattr(mien.Face, name), property)}
    frame = cv2.imread(str(SAMPLE))
    with mien.Detector(metrics="all", mode="images") as detector:
        face = detector.process(frame, 0.0).faces[0]
    for entry in catalog(engine)["metrics"]:
        top, _, key = entry["name"].partition(".")
        attribute = "".join("_" + c.lower() if c.isupper() else c for c in top)  # blinkRate -> blink_rate
        assert attribute in attributes, f"{entry['name']}: mien.Face has no {attribute}"
        if entry["onlyInStreams"]:
            continue
        value = getattr(face, attribute)
        assert value is not None, f"{entry['name']}: face.{attribute} is None on the sample"
        if key:
            assert key in value, f"{entry['name']}: face.{attribute} has no {key!r}"
    assert face.points is not None and len(face.points) == 34
    assert face.gaze is not None and isinstance(face.gaze["yaw"], float)
    assert face.age_years is not None and 0 < face.age_years < 100
