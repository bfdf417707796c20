"""mien.analyze and mien.read on real faces: the same numbers as the command line, real dtypes, absent metrics."""

from __future__ import annotations

import csv
import math
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import mien
from conftest import SAMPLE, run_cli


def test_sample_gives_one_typed_row_with_provenance() -> None:
    frame = mien.analyze(SAMPLE, progress=False)
    assert len(frame) == 1
    row = frame.iloc[0]
    assert row["input"] == str(SAMPLE) and row["frame"] == 0 and row["faceId"] == 0
    # The astronaut smiles broadly: the bundled sample's known expression.
    assert row["smile"] > 90 and row["joy"] > 50
    assert frame.columns[0] == "input"
    assert frame["frame"].dtype == np.int64 and frame["faceId"].dtype == np.int64
    assert frame["joy"].dtype == np.float64 and frame["yaw"].dtype == np.float64
    for label in ("input", "gender", "age", "dominantEmoji"):
        assert isinstance(frame[label].dtype, pd.CategoricalDtype), label
    assert re.match(r"mien \d+\.\d+\.\d+ \(commit ", frame.attrs["mien"])
    models = frame.attrs["models"]
    assert len(models) >= 9 and all(re.fullmatch(r"[0-9a-f]{64}", digest) for digest in models.values())
    assert frame.attrs["settings"]["metrics"] == ["all"] and frame.attrs["errors"] == []


def test_clip_equals_the_command_lines_csv(engine: str, clip: Path, tmp_path: Path) -> None:
    frame = mien.analyze(clip, progress=False)
    done = run_cli(engine, "analyze", str(clip), "--output", str(tmp_path), "--format", "csv")
    assert done.returncode == 0, done.stderr
    with open(tmp_path / f"{clip.name}.csv", encoding="utf-8") as file:
        rows = list(csv.DictReader(file))
    assert len(rows) == len(frame) >= 15
    assert list(frame.columns[1:]) == list(rows[0].keys())
    for index, row in enumerate(rows):
        for column, text in row.items():
            value = frame.at[index, column]
            if text == "":
                assert pd.isna(value), (index, column, value)
            elif column in mien._frames.LABEL_COLUMNS:
                assert str(value) == text, (index, column)
            else:
                assert float(value) == float(text), (index, column, value, text)
    # One tracked face across the clip, as `mien detect` reports it.
    assert set(frame["faceId"]) == {0}


def test_read_gives_the_same_frame_from_an_output_folder_and_a_merged_data_set(
    engine: str, clip: Path, tmp_path: Path
) -> None:
    inputs = [str(SAMPLE), str(clip)]
    expected = mien.analyze(inputs, progress=False)
    out = tmp_path / "out"
    done = run_cli(engine, "analyze", *inputs, "--output", str(out), "--shard", "0/1")
    assert done.returncode == 0, done.stderr
    from_folder = mien.read(out)
    pd.testing.assert_frame_equal(from_folder, expected, check_categorical=False)
    merged = run_cli(engine, "merge", str(out), "--output", str(tmp_path / "merged"), "--no-report")
    assert merged.returncode == 0, merged.stderr
    from_merge = mien.read(tmp_path / "merged")
    pd.testing.assert_frame_equal(
        from_merge.sort_values(["input", "frame", "faceId"]).reset_index(drop=True),
        expected.sort_values(["input", "frame", "faceId"]).reset_index(drop=True),
        check_categorical=False,
    )
    assert len(mien.read(tmp_path / "merged" / "results.csv")) == len(expected)


def test_a_metric_that_is_off_is_nan_never_zero() -> None:
    expressions = mien.analyze(SAMPLE, metrics="expressions", progress=False)
    assert expressions["smile"].iloc[0] > 90
    assert expressions[["joy", "valence", "ageYears"]].isna().all().all()
    none = mien.analyze(SAMPLE, metrics=["none"], progress=False)
    assert none[["smile", "joy"]].isna().all().all()
    assert not math.isnan(none["yaw"].iloc[0]) and none["width"].iloc[0] > 50


def test_the_package_version_is_the_engines() -> None:
    assert f"mien {mien.__version__} " in mien.engine_version()


def test_the_mien_command_runs_the_engine() -> None:
    done = subprocess.run([sys.executable, "-m", "mien", "--version"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout.strip() == mien.engine_version()


def test_episodes_of_the_clip_as_a_dataframe(engine: str, clip: Path, tmp_path: Path) -> None:
    results, events = mien.analyze(clip, metrics="expressions", progress=False, events=True)
    assert len(results) >= 15
    # She smiles through the whole clip: one smile episode, from the end of her first second (before it her face is
    # `settling`: her own neutral face learnt, no episode opens) to the last frame, ended by the input.
    smiles = events[events["metric"] == "expressions.smile"]
    assert len(smiles) == 1, events
    smile = smiles.iloc[0]
    assert smile["faceId"] == 0 and 1.0 <= smile["onset"] <= 1.15 and smile["ending"] == "ended", smile
    assert smile["duration"] == pytest.approx(results["TimeStamp"].max() - smile["onset"], abs=1e-3)
    settling = results[results["TimeStamp"] < 0.95]
    assert len(settling) > 0 and settling["flags"].astype(str).str.contains("settling").all()
    assert events["faceId"].dtype == np.int64 and isinstance(events["metric"].dtype, pd.CategoricalDtype)
    # The same table from what the command line wrote.
    done = run_cli(engine, "analyze", str(clip), "--metrics", "expressions", "--output", str(tmp_path))
    assert done.returncode == 0, done.stderr
    assert mien.read_events(tmp_path).drop(columns="input").equals(events.drop(columns="input"))
    with pytest.raises(mien.InputError):
        mien.read_events(tmp_path / "nothing-here")


def test_progress_bar_gives_the_same_rows(capfd: pytest.CaptureFixture[str]) -> None:
    # tqdm is in the test venv (the [progress] extra): the bar path must not change the results.
    quiet = mien.analyze(SAMPLE, progress=False)
    shown = mien.analyze(SAMPLE, progress=True)
    pd.testing.assert_frame_equal(quiet, shown)
    assert "1/1" in capfd.readouterr().err  # tqdm's bar: one input of one done
