"""``mien.Client`` against a ``mien serve`` started on a loopback port for these tests (stopped by its PID): the
same DataFrame as ``mien.analyze``, the same results as ``mien.Detector``."""

from __future__ import annotations

import json
import re
import subprocess
import time
from pathlib import Path
from typing import Iterator

import cv2
import pandas as pd
import pytest

import mien
from catalog import catalog, groups_of, mismatches
from conftest import SAMPLE, run_cli


@pytest.fixture(scope="module")
def service(engine: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    folder = tmp_path_factory.mktemp("service")
    log = open(folder / "serve.log", "w+")
    process = subprocess.Popen([engine, "serve", "--port", "0", "--jobs-dir", str(folder / "jobs")],
                               stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=log)
    try:
        port = None
        for _ in range(300):
            log.seek(0)
            found = re.search(r"listening on http://127\.0\.0\.1:(\d+)/", log.read())
            if found:
                port = int(found.group(1))
                break
            assert process.poll() is None, "mien serve ended before listening"
            time.sleep(0.1)
        assert port is not None, "mien serve did not start within 30 s"
        yield f"http://127.0.0.1:{port}"
    finally:
        process.terminate()
        process.wait(timeout=30)
        log.close()


def test_analyze_on_the_service_equals_analyze_here(service: str, clip: Path) -> None:
    client = mien.Client(service)
    assert client.health()
    remote = client.analyze(str(clip), metrics="all")
    local = mien.analyze(str(clip), metrics="all", progress=False)
    pd.testing.assert_frame_equal(remote, local, check_like=False)


def test_a_live_session_gives_the_results_of_the_command_line(service: str, engine: str, clip: Path) -> None:
    done = run_cli(engine, "analyze", str(clip), "--metrics", "all")
    expected = [json.loads(line) for line in done.stdout.splitlines()]
    capture = cv2.VideoCapture(str(clip))
    client = mien.Client(service)
    with client.detector(metrics="all") as detector:
        results = []
        for line in expected:
            ok, frame = capture.read()
            assert ok
            results.append(detector.process(frame, line["timestamp"]).to_dict())
    for line, result in zip(expected, results):
        line.pop("input")
        result.pop("input")
        # The service's timestamps cross as milliseconds (its wire format), so they round-trip to 1e-9 s.
        assert result.pop("timestamp") == pytest.approx(line.pop("timestamp"), abs=1e-9)
        assert result == line


@pytest.mark.parametrize("word", mien.METRIC_GROUPS)
def test_each_word_gives_the_catalogs_fields_over_the_service(service: str, engine: str, word: str) -> None:
    known = catalog(engine)
    frame = cv2.imread(str(SAMPLE))
    with mien.Client(service).detector(metrics=word) as detector:
        face = detector.process(frame, 0.0).faces[0]
    problems = mismatches(face.data, groups_of(word, [g["name"] for g in known["groups"]]), known["metrics"])
    assert problems == [], f"metrics={word}"


def test_bad_inputs_and_options_raise(service: str, tmp_path: Path) -> None:
    client = mien.Client(service)
    notes = tmp_path / "notes.mp4"
    notes.write_text("not a video at all")
    with pytest.raises(mien.InputError) as raised:
        client.analyze(str(notes))
    assert raised.value.input == str(notes)
    with pytest.raises(mien.InputError, match="cannot read"):
        client.analyze(str(tmp_path / "missing.mp4"))
    with pytest.raises(mien.OptionsError):
        client.analyze(str(SAMPLE), metrics="smiles")
    with pytest.raises(mien.OptionsError):
        mien.Client("ftp://example.org")
    with pytest.raises(mien.EngineError, match="cannot reach"):
        mien.Client("http://127.0.0.1:9", timeout=5).health()
    with client.detector(metrics="expressions") as detector:
        grey = cv2.imread(str(SAMPLE))
        assert detector.process(grey, 0.0).faces
        with pytest.raises(mien.InputError, match="not after"):
            detector.process(grey, 0.0)
        assert detector.process(grey, 0.1).frame_index == 1
