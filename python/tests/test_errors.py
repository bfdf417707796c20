"""Bad inputs, bad options, altered models and a killed engine: Python exceptions naming the input, and the
other inputs' results kept."""

from __future__ import annotations

import os
import shutil
import stat
import warnings
from pathlib import Path

import pytest

import mien
from conftest import ROOT, SAMPLE


def test_a_missing_input_raises_an_input_error_naming_it(tmp_path: Path) -> None:
    missing = tmp_path / "missing.mp4"
    with pytest.raises(mien.InputError) as raised:
        mien.analyze(missing, progress=False)
    assert raised.value.input == str(missing) and "no such file" in raised.value.message


@pytest.mark.parametrize("content,name", [(b"not a picture at all", "corrupt.jpg"), (b"", "empty.png"),
                                          (b"plain text\n", "notes.txt")])
def test_a_bad_input_among_good_ones_warns_and_keeps_the_others_rows(tmp_path: Path, content: bytes,
                                                                     name: str) -> None:
    bad = tmp_path / name
    bad.write_bytes(content)
    with pytest.warns(mien.MienWarning, match=name):
        frame = mien.analyze([SAMPLE, bad], progress=False)
    assert list(frame["input"]) == [str(SAMPLE)]
    assert [error["input"] for error in frame.attrs["errors"]] == [str(bad)]
    with pytest.raises(mien.InputError) as raised:
        mien.analyze([SAMPLE, bad], progress=False, errors="raise")
    assert raised.value.input == str(bad)


@pytest.mark.parametrize("options", [{"max_faces": 0}, {"max_faces": 65}, {"face_mode": "tiny"},
                                     {"metrics": "smiles"}, {"metrics": []}, {"rate": -1.0}, {"jobs": 0},
                                     {"errors": "ignore"}])
def test_bad_options_are_value_errors_before_anything_runs(monkeypatch: pytest.MonkeyPatch,
                                                          options: dict) -> None:
    monkeypatch.setenv("MIEN_EXECUTABLE", "/nonexistent/mien")
    with pytest.raises(ValueError):
        mien.analyze(SAMPLE, progress=False, **options)
    with pytest.raises(mien.OptionsError):
        mien.analyze(SAMPLE, progress=False, **options)


def test_altered_models_raise_a_model_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    models = tmp_path / "Models"
    shutil.copytree(ROOT / "Models", models)
    target = models / "face_detection_short_range.tflite"
    data = bytearray(target.read_bytes())
    data[len(data) // 2] ^= 0xFF
    target.write_bytes(bytes(data))
    monkeypatch.setenv("MIEN_MODELS", str(models))
    with pytest.raises(mien.ModelError) as raised:
        mien.analyze(SAMPLE, progress=False)
    assert "face_detection_short_range.tflite" in str(raised.value)


def test_a_killed_engine_raises_and_the_interpreter_goes_on(tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    engine = os.environ["MIEN_EXECUTABLE"]
    killer = tmp_path / "mien"
    killer.write_text("#!/bin/sh\nkill -KILL $$\n")
    killer.chmod(killer.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("MIEN_EXECUTABLE", str(killer))
    with pytest.raises(mien.EngineError, match="SIGKILL"):
        mien.analyze(SAMPLE, progress=False)
    monkeypatch.setenv("MIEN_EXECUTABLE", engine)
    # The same interpreter still analyses.
    assert len(mien.analyze(SAMPLE, progress=False)) == 1


def test_read_refuses_what_mien_did_not_write(tmp_path: Path) -> None:
    with pytest.raises(mien.InputError):
        mien.read(tmp_path / "nothing-here")
    with pytest.raises(mien.InputError):
        mien.read(tmp_path)
    with pytest.raises(mien.InputError):
        mien.read(SAMPLE)


def test_no_warning_when_every_input_is_read() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        mien.analyze(SAMPLE, progress=False)
