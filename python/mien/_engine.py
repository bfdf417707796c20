"""Finding and running the engine: the ``mien`` program this package carries.

Python talks to Mien through the bundled executable over pipes, not through a C ABI loaded into the
interpreter: a failure inside the engine (a corrupt video, an exhausted machine) then ends a child process
and becomes a Python exception, and never takes a notebook's kernel down with it. For ``analyze`` the cost is
the program's start (0.1 s) and reading its CSV back; the analysis itself is the same program the command line
runs.
"""

from __future__ import annotations

import functools
import os
import re
import signal
import subprocess
import sys
from pathlib import Path
from typing import Dict, List, Optional, Sequence

from ._errors import EngineError, InputError, MienError, ModelError, OptionsError

_BUNDLE = Path(__file__).resolve().parent / "_bundle"

# The command line's exit statuses (mien --help).
_INPUT_FAILED, _REFUSED, _MODEL_PROBLEM, _USAGE = 1, 2, 3, 64
_ERROR_LINE = re.compile(r"^mien: error: (?:(?P<input>.+?): )?(?P<message>.*)$")


def executable() -> str:
    """The ``mien`` program this package runs.

    ``MIEN_EXECUTABLE`` names another build (a source checkout's ``.build/release/mien``, say); otherwise it
    is the one inside the installed wheel.
    """
    override = os.environ.get("MIEN_EXECUTABLE")
    if override:
        if not os.access(override, os.X_OK):
            raise EngineError("MIEN_EXECUTABLE does not name an executable file", override)
        return override
    bundled = _BUNDLE / "bin" / "mien"
    if not os.access(bundled, os.X_OK):
        raise EngineError(
            "the mien program is missing from this installation; reinstall the wheel", str(bundled)
        )
    return str(bundled)


@functools.lru_cache(maxsize=None)
def _cached_version(path: str) -> str:
    return run([path, "--version"], capture=True).stdout.strip()


def engine_version() -> str:
    """What ``mien --version`` prints: the release, the commit, OpenCV's and OpenVINO's versions."""
    return _cached_version(executable())


@functools.lru_cache(maxsize=None)
def _cached_models(path: str) -> Dict[str, str]:
    out = run([path, "models"], capture=True).stdout
    checksums = {}
    for line in out.splitlines():
        fields = line.split()
        if len(fields) >= 5 and fields[0] == "ok" and fields[3] == "sha256":
            checksums[fields[2]] = fields[4]
    return checksums


def model_checksums() -> Dict[str, str]:
    """The SHA-256 of every model file the engine verified, by file name."""
    return dict(_cached_models(executable()))


class Completed:
    """A finished run of the engine: its exit status, standard output and the errors it reported."""

    def __init__(self, status: int, stdout: str, errors: List[MienError]) -> None:
        self.status = status
        self.stdout = stdout
        self.errors = errors


def _parse_error(line: str, status: int) -> MienError:
    match = _ERROR_LINE.match(line)
    message, name = (match.group("message"), match.group("input")) if match else (line, None)
    kind = {_MODEL_PROBLEM: ModelError, _USAGE: OptionsError}.get(status, InputError)
    return kind(message, name)


def run(
    arguments: Sequence[str],
    *,
    capture: bool = False,
    progress: Optional["_Progress"] = None,
) -> Completed:
    """Runs the engine to its end and turns what it reports into Python errors.

    Standard error is read line by line: ``mien: error:`` lines become errors, progress lines go to
    ``progress``. A status of 3 (models) or 64 (options) raises at once; a status of 1 (some inputs failed)
    is returned with the errors for the caller to weigh. Ctrl-C (``KeyboardInterrupt``) stops the engine
    cleanly (it gets SIGINT, as from a terminal) and is raised again once it has ended.
    """
    process = subprocess.Popen(
        list(arguments),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE if capture else subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        encoding="utf-8",
        errors="replace",
    )
    errors: List[MienError] = []
    stdout = ""

    def take(line: str) -> None:
        if line.startswith("mien: error:") or line.startswith("Error:"):
            errors.append(_parse_error(line, _INPUT_FAILED))
        elif progress is not None:
            progress.line(line)

    try:
        if capture:
            # Both pipes at once, so that neither can fill and block the engine.
            stdout, stderr = process.communicate()
            for line in stderr.splitlines():
                take(line)
        else:
            assert process.stderr is not None
            for raw in process.stderr:
                take(raw.rstrip("\n"))
        status = process.wait()
    except KeyboardInterrupt:
        _stop(process)
        raise
    finally:
        if process.poll() is None:
            _stop(process)
        for pipe in (process.stdout, process.stderr):
            if pipe is not None:
                pipe.close()
    if status < 0:
        raise EngineError(f"the mien program was ended by signal {-status} ({_signal_name(-status)})")
    if status in (_MODEL_PROBLEM, _USAGE) or (status not in (0, _INPUT_FAILED, _REFUSED)):
        kind = {_MODEL_PROBLEM: ModelError, _USAGE: OptionsError}.get(status, EngineError)
        if errors:
            first = errors[0]
            raise kind(first.message, first.input)
        raise kind(f"the mien program exited with status {status}")
    return Completed(status, stdout, errors)


def _stop(process: "subprocess.Popen[str]") -> None:
    """SIGINT (Mien completes the files for the frames done), then SIGKILL if it does not end in 10 s."""
    try:
        process.send_signal(signal.SIGINT)
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
    except OSError:
        pass


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return "unknown"


class _Progress:
    """Shows the engine's progress lines: a tqdm bar per run when tqdm is installed, else the lines on stderr."""

    _FRAMES = re.compile(r"^(?P<input>.+?): (?P<done>\d+)(?:/(?P<total>\d+))? frames")

    def __init__(self, inputs: int) -> None:
        self._bar = None
        self._done: Dict[str, int] = {}
        try:
            from tqdm.auto import tqdm  # type: ignore[import-not-found]

            self._bar = tqdm(total=inputs, unit="input", desc="mien")
        except ImportError:
            pass

    def line(self, line: str) -> None:
        if self._bar is None:
            print(line, file=sys.stderr, flush=True)
            return
        match = self._FRAMES.match(line)
        if match and line.rstrip().endswith("done") and match.group("input") not in self._done:
            self._done[match.group("input")] = int(match.group("done"))
            self._bar.update(1)
        if match:
            self._bar.set_postfix_str(f"{match.group('input')}: {match.group('done')} frames", refresh=True)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
