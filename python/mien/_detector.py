"""``mien.Detector``: numpy frames in, one ``Result`` per frame out, faces tracked across calls.

The frames go to the engine's ``mien frames`` command over a pipe (a 24-byte header, then the BGR pixels), which
pushes them into one Mien ``Detector``: the same tracking, face IDs and numbers as ``mien detect`` on the same
frames. The engine is a child process, so a failure inside it raises ``EngineError`` here and never ends the
interpreter.
"""

from __future__ import annotations

import collections
import json
import math
import struct
import subprocess
import threading
from typing import Any, Deque, Dict, Iterable, Iterator, List, Optional, Sequence, Tuple, Union

import numpy as np

from . import _engine
from ._errors import EngineError, InputError, MienError, ModelError, OptionsError
from ._frames import _metric_groups
from ._result import Result

_HEADER = struct.Struct("<4sIIId")
_RESET = 1
# Frames written ahead of their results by ``stream`` (the engine's inbox holds 2 more).
_AHEAD = 4


class Detector:
    """A Mien detector fed from Python: ``process(frame, timestamp)`` returns that frame's ``Result``.

        >>> with mien.Detector(metrics="expressions,emotions") as detector:
        ...     for index, frame in enumerate(frames):          # uint8 H x W x 3, BGR as OpenCV reads it
        ...         result = detector.process(frame, index / 30)
        ...         for face_id, face in (result.faces or {}).items():
        ...             print(result.timestamp, face_id, face.expressions["smile"], face.valence)

    Args:
        metrics: metric groups, as ``mien.analyze`` takes them (default ``"all"``).
        max_faces: the most faces per frame (1...64).
        face_mode: ``"large"`` (near the camera) or ``"small"`` (small or distant faces).
        rate: frames analysed per second at most, on the frames' own clock (None: every frame); the others
            come back unprocessed (``faces`` None).
        mode: ``"video"``: frames of one stream, faces tracked and keeping their IDs, timestamps increasing;
            ``"images"``: unrelated pictures, each on its own.
        reidentify: a face that leaves and comes back gets its old ID (video mode).
        color: ``"bgr"`` (OpenCV's order, default) or ``"rgb"`` (PIL's, matplotlib's).

    Raises:
        OptionsError: an option is invalid (also a ``ValueError``), before anything runs.
        ModelError: the models are missing or altered.
    """

    def __init__(
        self,
        *,
        metrics: Union[str, Sequence[str]] = "all",
        max_faces: int = 5,
        face_mode: str = "large",
        rate: Optional[float] = None,
        mode: str = "video",
        reidentify: bool = False,
        color: str = "bgr",
    ) -> None:
        groups = _metric_groups(metrics)
        if not isinstance(max_faces, int) or not 1 <= max_faces <= 64:
            raise OptionsError(f"max_faces must be a whole number within 1...64, not {max_faces!r}")
        if face_mode not in ("large", "small"):
            raise OptionsError(f"face_mode must be 'large' or 'small', not {face_mode!r}")
        if rate is not None and not (isinstance(rate, (int, float)) and rate > 0 and math.isfinite(rate)):
            raise OptionsError(f"rate must be a positive number of frames per second, not {rate!r}")
        if mode not in ("video", "images"):
            raise OptionsError(f"mode must be 'video' or 'images', not {mode!r}")
        if color not in ("bgr", "rgb"):
            raise OptionsError(f"color must be 'bgr' or 'rgb', not {color!r}")
        self.mode = mode
        self.color = color
        self._options = ["--metrics", ",".join(groups), "--max-faces", str(max_faces), "--face-mode", face_mode]
        if rate is not None:
            self._options += ["--rate", repr(float(rate))]
        if reidentify:
            self._options.append("--reidentify")
        arguments = [_engine.executable(), "frames", *self._options]
        if mode == "images":
            arguments.append("--stills")
        self._process: Optional[subprocess.Popen] = subprocess.Popen(
            arguments, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, bufsize=0)
        self._errors: Deque[str] = collections.deque(maxlen=20)
        self._stderr = threading.Thread(target=self._drain_stderr, daemon=True)
        self._stderr.start()
        self._sequence = 0  # frames sent (refused ones included)
        self._accepted = 0  # frames given an index since the start or the last reset
        # Refusals read while waiting for an earlier frame's result (``stream``), by frame sequence.
        self._refusals: Dict[int, Dict[str, Any]] = {}
        self._lock = threading.Lock()
        # The thread iterating a ``stream`` (it holds the lock between yields), so that the same thread
        # calling ``process`` or ``reset`` inside the loop hears why instead of waiting for itself forever.
        self._streaming_thread: Optional[int] = None

    # -- frames ------------------------------------------------------------------------------------------

    def process(self, frame: np.ndarray, timestamp: Optional[float] = None) -> Result:
        """Analyses one frame and returns its result.

        Args:
            frame: a ``uint8`` array of H x W x 3 (BGR unless ``color="rgb"``); any strides.
            timestamp: seconds on the frames' clock; required in video mode, where it must increase.

        Raises:
            ValueError: a wrong type, dtype or shape, or a missing timestamp, before anything is sent.
            InputError: the frame was refused (its timestamp does not advance); the detector goes on.
            EngineError: the engine ended (killed, crashed) or the detector is closed.
        """
        self._refuse_inside_stream("process")
        with self._lock:
            sequence = self._send(frame, timestamp)
            return self._result_of(sequence)

    def stream(self, frames: Iterable[Union[np.ndarray, Tuple[np.ndarray, float]]],
               fps: Optional[float] = None) -> Iterator[Result]:
        """Analyses frames as they come, a few ahead of their results, and yields the results in order.

        Faster than ``process`` in a loop: the next frames cross the pipe while the engine analyses. Items are
        ``(frame, timestamp)`` pairs, or bare frames timed ``index / fps``.
        """
        if fps is not None and not fps > 0:
            raise OptionsError(f"fps must be positive, not {fps!r}")
        self._refuse_inside_stream("stream")
        with self._lock:
            self._streaming_thread = threading.get_ident()
            try:
                yield from self._stream_locked(frames, fps)
            finally:
                self._streaming_thread = None

    def _stream_locked(self, frames: Iterable[Union[np.ndarray, Tuple[np.ndarray, float]]],
                       fps: Optional[float]) -> Iterator[Result]:
        """``stream``'s loop, run while it holds the lock."""
        in_flight: Deque[int] = collections.deque()
        for index, item in enumerate(frames):
            if isinstance(item, tuple):
                frame, timestamp = item
            else:
                if fps is None:
                    raise ValueError("stream() needs (frame, timestamp) pairs, or fps= for bare frames")
                frame, timestamp = item, index / fps
            in_flight.append(self._send(frame, timestamp))
            if len(in_flight) > _AHEAD:
                yield self._result_of(in_flight.popleft())
        while in_flight:
            yield self._result_of(in_flight.popleft())

    def _refuse_inside_stream(self, call: str) -> None:
        """Raises when the calling thread is inside its own ``stream`` loop, which holds the detector."""
        if self._streaming_thread == threading.get_ident():
            raise RuntimeError(
                f"{call}() inside a stream() loop of the same detector: the stream holds it until the loop ends "
                "(use a second mien.Detector, or send the frames through the stream)")

    def video(self, path: str) -> Iterator[Result]:
        """The results of every frame of a video file, read by the engine itself (as ``mien detect`` does).

        A run of its own: it does not share this detector's faces. Raises ``InputError`` when the file cannot
        be read, after the results of the frames read before.
        """
        yield from self._run_source(str(path))

    def camera(self, index: int = 0) -> Iterator[Result]:
        """The results of camera ``index`` (``/dev/video<index>``), 5 frames a second unless ``rate`` says
        otherwise, until the iteration is closed."""
        yield from self._run_source(f"camera:{int(index)}")

    def reset(self) -> None:
        """Forgets every face, ID and baseline: the next frame is index 0 and its faces start from ID 0."""
        self._refuse_inside_stream("reset")
        with self._lock:
            self._write(_HEADER.pack(b"MIEN", 0, 0, _RESET, 0.0))
            self._sequence += 1
            self._accepted = 0

    def close(self) -> None:
        """Ends the engine after the frames sent; further calls raise ``EngineError``. Calling it again does
        nothing."""
        process, self._process = self._process, None
        if process is None:
            return
        try:
            if process.stdin is not None:
                process.stdin.close()
        except OSError:
            pass
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        for pipe in (process.stdout, process.stderr):
            if pipe is not None:
                pipe.close()

    def __enter__(self) -> "Detector":
        return self

    def __exit__(self, *exception: Any) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # noqa: BLE001 - nothing can be reported from a finaliser
            pass

    # -- the pipe ----------------------------------------------------------------------------------------

    def _send(self, frame: np.ndarray, timestamp: Optional[float]) -> int:
        pixels = _bgr_bytes(frame, self.color)
        if timestamp is None:
            if self.mode == "video":
                raise ValueError("process() needs the frame's timestamp in seconds in video mode")
            timestamp = 0.0
        if not isinstance(timestamp, (int, float)) or not math.isfinite(timestamp):
            raise ValueError(f"timestamp must be a finite number of seconds, not {timestamp!r}")
        height, width = frame.shape[:2]
        self._write(_HEADER.pack(b"MIEN", width, height, 0, float(timestamp)) + pixels)
        sequence = self._sequence
        self._sequence += 1
        return sequence

    def _write(self, data: bytes) -> None:
        process = self._alive()
        try:
            assert process.stdin is not None
            process.stdin.write(data)
        except (BrokenPipeError, OSError) as error:
            raise self._ended() from error

    def _result_of(self, sequence: int) -> Result:
        """Reads the engine's lines until the answer to frame ``sequence``: its result, or its refusal."""
        process = self._alive()
        assert process.stdout is not None
        while True:
            if sequence in self._refusals:
                detail = self._refusals.pop(sequence)
                raise InputError(detail.get("message", "refused"), detail.get("input"))
            line = process.stdout.readline()
            if not line:
                raise self._ended()
            answer = json.loads(line)
            if "error" in answer and "sequence" in answer:
                self._refusals[int(answer["sequence"])] = answer["error"]
                continue
            if answer.get("frameIndex") == self._accepted:
                self._accepted += 1
                return Result.from_dict(answer)
            raise EngineError(f"the engine answered frame {answer.get('frameIndex')}, not {self._accepted}")

    def _alive(self) -> subprocess.Popen:
        if self._process is None:
            raise EngineError("the detector is closed")
        if self._process.poll() is not None:
            raise self._ended()
        return self._process

    def _ended(self) -> MienError:
        """The error for an engine that is gone; the detector is closed with it."""
        process = self._process
        status = process.wait() if process is not None else None
        self._stderr.join(timeout=1)
        self.close()
        said = next((line for line in reversed(self._errors) if line.startswith("mien: error:")), None)
        if status == 3:
            return ModelError(said or "the models are missing or altered")
        if status == 64:
            return OptionsError(said or "the options were refused")
        if status is not None and status < 0:
            return EngineError(f"the mien program was ended by signal {-status}")
        return EngineError(said or f"the mien program ended (status {status})")

    def _drain_stderr(self) -> None:
        process = self._process
        if process is None or process.stderr is None:
            return
        for raw in process.stderr:
            self._errors.append(raw.decode("utf-8", "replace").rstrip("\n"))

    def _run_source(self, name: str) -> Iterator[Result]:
        arguments = [_engine.executable(), "analyze", name, *self._options]
        process = subprocess.Popen(arguments, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, text=True)
        errors: List[str] = []
        drain = threading.Thread(target=lambda: errors.extend(process.stderr or []), daemon=True)
        drain.start()
        try:
            assert process.stdout is not None
            for line in process.stdout:
                yield Result.from_dict(json.loads(line))
        finally:
            if process.poll() is None:
                process.terminate()
            status = process.wait()
            drain.join(timeout=5)
            for pipe in (process.stdout, process.stderr):
                if pipe is not None:
                    pipe.close()
        said = [line.rstrip("\n") for line in errors if line.startswith("mien: error:")]
        if status != 0 and said:
            failure = _engine._parse_error(said[0], status)
            raise failure
        if status not in (0, 130, -15):
            raise EngineError(f"the mien program ended with status {status}", name)


def _bgr_bytes(frame: Any, color: str) -> bytes:
    """The frame's pixels as packed BGR bytes; ``ValueError`` for anything that is not H x W x 3 ``uint8``."""
    if not isinstance(frame, np.ndarray):
        raise ValueError(f"a frame is a numpy array, not {type(frame).__name__}")
    if frame.dtype != np.uint8:
        raise ValueError(f"a frame is uint8 (0...255), not {frame.dtype}")
    if frame.ndim != 3 or frame.shape[2] != 3:
        raise ValueError(f"a frame is H x W x 3 (colour), not {' x '.join(map(str, frame.shape))}")
    if frame.shape[0] == 0 or frame.shape[1] == 0:
        raise ValueError("a frame has at least one pixel")
    if color == "rgb":
        frame = frame[:, :, ::-1]
    return np.ascontiguousarray(frame).tobytes()
