"""``mien.Detector``: numpy frames read with OpenCV give what the command line gives on the same video, IDs and
tracking included; bad arrays are ``ValueError``s before anything crosses; a killed engine is an exception."""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path
from typing import Any, Dict, List

import cv2
import numpy as np
import pytest

import mien
from conftest import SAMPLE, run_cli


def cli_lines(engine: str, *arguments: str) -> List[Dict[str, Any]]:
    done = run_cli(engine, "analyze", *arguments)
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    for line in lines:
        line.pop("input", None)
    return lines


def video_frames(path: Path) -> List[np.ndarray]:
    capture = cv2.VideoCapture(str(path))
    frames = []
    while True:
        ok, frame = capture.read()
        if not ok:
            return frames
        frames.append(frame)


def test_process_on_opencv_frames_equals_the_command_line_ids_and_tracking_included(engine: str,
                                                                                     clip: Path) -> None:
    expected = cli_lines(engine, str(clip), "--metrics", "all")
    frames = video_frames(clip)
    assert len(frames) == len(expected) == 20
    with mien.Detector(metrics="all") as detector:
        results = [detector.process(frame, line["timestamp"]) for frame, line in zip(frames, expected)]
    assert [result.to_dict() for result in results] == expected
    assert results[0].found == [0] and all(list(result.faces or {}) == [0] for result in results)
    face = results[-1].faces[0]
    assert 0 <= face.expressions["smile"] <= 100 and -100 <= face.valence <= 100 and face.gender is not None


def test_stream_and_video_give_the_same_results_as_process(engine: str, clip: Path) -> None:
    expected = cli_lines(engine, str(clip), "--metrics", "expressions")
    frames = video_frames(clip)
    with mien.Detector(metrics="expressions") as detector:
        streamed = [result.to_dict() for result in
                    detector.stream((frame, line["timestamp"]) for frame, line in zip(frames, expected))]
        from_file = [result.to_dict() for result in detector.video(str(clip))]
    assert streamed == expected
    assert [{key: value for key, value in line.items() if key != "input"} for line in from_file] == expected


def test_process_or_reset_inside_a_stream_loop_is_an_error_not_a_hang(engine: str, clip: Path) -> None:
    frames = video_frames(clip)
    with mien.Detector(metrics="none") as detector:
        results = []
        for result in detector.stream(frames[:6], fps=15):
            with pytest.raises(RuntimeError, match="inside a stream"):
                detector.process(frames[0], 99.0)
            with pytest.raises(RuntimeError, match="inside a stream"):
                detector.reset()
            results.append(result)
        # The stream went on, and once it has ended the detector takes frames again.
        assert [result.frame_index for result in results] == list(range(6))
        assert detector.process(frames[6], 6 / 15).frame_index == 6


def test_a_picture_in_images_mode_rgb_and_strided_arrays_give_the_same_face(engine: str) -> None:
    picture = cv2.imread(str(SAMPLE))
    expected = cli_lines(engine, str(SAMPLE), "--metrics", "all")[0]
    with mien.Detector(metrics="all", mode="images") as detector:
        bgr = detector.process(picture)
        twice = detector.process(picture)
    with mien.Detector(metrics="all", mode="images", color="rgb") as rgb_detector:
        rgb = rgb_detector.process(np.ascontiguousarray(picture[:, :, ::-1]))
    # A view with strides (every pixel of a picture twice as wide) is read as the picture it shows.
    wide = np.repeat(picture, 2, axis=1)[:, ::2, :]
    assert not wide.flags["C_CONTIGUOUS"]
    with mien.Detector(metrics="all", mode="images") as strided_detector:
        strided = strided_detector.process(wide)
    expected.pop("frameIndex")
    for result in (bgr, twice, rgb, strided):
        data = result.to_dict()
        data.pop("frameIndex")
        assert data == expected
    assert twice.frame_index == 1 and list(bgr.faces) == [0]


@pytest.mark.parametrize("frame,message", [
    (np.zeros((4, 4, 3), dtype=np.float32), "uint8"),
    (np.zeros((4, 4), dtype=np.uint8), "H x W x 3"),
    (np.zeros((4, 4, 4), dtype=np.uint8), "H x W x 3"),
    (np.zeros((0, 4, 3), dtype=np.uint8), "at least one pixel"),
    ([[0, 0, 0]], "numpy array"),
])
def test_a_wrong_array_is_a_value_error_and_the_detector_goes_on(engine: str, frame: Any, message: str) -> None:
    with mien.Detector(metrics="none") as detector:
        with pytest.raises(ValueError, match=message):
            detector.process(frame, 0.0)
        with pytest.raises(ValueError, match="timestamp"):
            detector.process(np.zeros((8, 8, 3), dtype=np.uint8))
        assert detector.process(np.zeros((8, 8, 3), dtype=np.uint8), 0.0).frame_index == 0


def test_time_that_does_not_advance_is_refused_and_reset_starts_over(engine: str) -> None:
    grey = np.full((48, 64, 3), 128, dtype=np.uint8)
    with mien.Detector(metrics="none") as detector:
        assert detector.process(grey, 0.0).frame_index == 0
        assert detector.process(grey, 0.1).frame_index == 1
        with pytest.raises(mien.InputError, match="not after"):
            detector.process(grey, 0.1)
        assert detector.process(grey, 0.2).frame_index == 2
        detector.reset()
        assert detector.process(grey, 0.0).frame_index == 0


def test_options_are_checked_before_anything_runs() -> None:
    for options in ({"mode": "film"}, {"max_faces": 0}, {"color": "hsv"}, {"metrics": "smiles"}, {"rate": -1}):
        with pytest.raises(mien.OptionsError):
            mien.Detector(**options)


def test_a_closed_detector_and_a_killed_engine_raise_and_the_interpreter_goes_on(engine: str) -> None:
    grey = np.full((48, 64, 3), 128, dtype=np.uint8)
    detector = mien.Detector(metrics="none")
    detector.close()
    with pytest.raises(mien.EngineError, match="closed"):
        detector.process(grey, 0.0)
    detector.close()
    killed = mien.Detector(metrics="none")
    assert killed.process(grey, 0.0).processed
    os.kill(killed._process.pid, signal.SIGKILL)
    killed._process.wait()
    with pytest.raises(mien.EngineError, match="signal 9"):
        killed.process(grey, 0.1)
    with pytest.raises(mien.EngineError, match="closed"):
        killed.process(grey, 0.2)
    with mien.Detector(metrics="none") as fresh:
        assert fresh.process(grey, 0.0).processed


def test_results_carry_typed_episodes(engine: str, clip: Path) -> None:
    frames = video_frames(clip)
    with mien.Detector(metrics="expressions") as detector:
        results = [detector.process(frame, index / 15) for index, frame in enumerate(frames)]
    started = [episode for result in results for episode in result.episodes if episode.metric == "expressions.smile"]
    # Her smile starts once her face has settled (1 s: her own neutral face learnt) and it has lasted 0.2 s (the
    # default minimum): the fourth frame after, of 15 fps.
    assert len(started) == 1 and started[0].change == "started" and 1.0 <= started[0].onset <= 1.1, started
    assert started[0].offset is None and started[0].duration is None and started[0].apex_value > 50
    assert not any(result.shot_cut for result in results)
