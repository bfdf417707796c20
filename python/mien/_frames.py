"""``analyze``, ``read`` and ``read_events``: Mien's results as pandas DataFrames, one row per face per analysed
frame, and one row per episode (an expression, emotion or blink starting and ending)."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import warnings
from pathlib import Path
from typing import Any, Dict, List, NamedTuple, Optional, Sequence, Union

import numpy as np
import pandas as pd

from . import _engine
from ._errors import InputError, MienError, MienWarning, OptionsError

PathLike = Union[str, "os.PathLike[str]"]

#: The metric groups ``metrics`` takes: the words of every surface (``mien analyze --metrics``, the service's
#: ``metrics=``, ``mien.Detector`` and ``mien.Client``); ``mien metrics --json`` lists each group's metrics, and a
#: test checks this tuple against it.
METRIC_GROUPS = ("all", "expressions", "emoji", "emotions", "appearance", "gaze", "none")
#: Columns holding labels rather than numbers; read as pandas categoricals.
LABEL_COLUMNS = ("input", "flags", "gender", "age", "dominantEmoji", "file")
#: Columns that are always whole numbers.
INTEGER_COLUMNS = ("frame", "faceId")
#: Label columns of the episodes' table (``events.csv``).
EVENT_LABEL_COLUMNS = ("input", "metric", "ending")


class Analysis(NamedTuple):
    """What ``analyze(..., events=True)`` returns: the per-frame rows and the episodes."""

    results: pd.DataFrame
    events: pd.DataFrame


def analyze(
    inputs: Union[PathLike, Sequence[PathLike]],
    *,
    metrics: Union[str, Sequence[str]] = "all",
    rate: Optional[float] = None,
    max_faces: int = 5,
    face_mode: str = "large",
    reidentify: bool = False,
    jobs: int = 1,
    progress: bool = True,
    errors: str = "warn",
    events: bool = False,
) -> Union[pd.DataFrame, Analysis]:
    """Analyses pictures, folders of pictures and videos, and returns one row per face per analysed frame.

    The columns are those of ``mien analyze``'s CSV with ``input`` first: ``TimeStamp`` (seconds: 0 for a
    picture, the presentation time for a video frame), ``frame`` (from 0), ``faceId``, the face box ``x``,
    ``y``, ``width``, ``height`` in pixels of the original frame (origin top-left), head pose in degrees,
    and every score (0..100; valence -100..100). A metric that is off, or that cannot be measured on a face,
    is NaN, never 0. Labels (``gender``, ``age``, ``dominantEmoji``, ``flags``) are categoricals.

    ``DataFrame.attrs`` holds ``mien`` (the engine's version and commit), ``models`` (each model file's
    SHA-256, as verified), ``settings`` (these arguments) and ``errors`` (inputs that failed).

    Args:
        inputs: a path or a list of paths: pictures, folders of pictures (each picture on its own), videos.
        metrics: metric groups, a list or a comma-separated string: ``all``, ``expressions``, ``emoji``,
            ``emotions``, ``appearance``, ``gaze``, ``none`` (face, points and pose only).
        rate: frames analysed per second of video at most (None: every frame).
        max_faces: faces kept per frame, the most confident (1..64).
        face_mode: ``"large"`` (faces within about 2 m of the camera) or ``"small"`` (small or distant faces).
        reidentify: in videos, a face that comes back keeps its ``faceId`` (face descriptors stay in memory).
        jobs: inputs analysed at the same time (1..64).
        progress: show progress (a tqdm bar when tqdm is installed, else the engine's lines on stderr).
        errors: ``"warn"`` (default): inputs that fail are reported with a ``MienWarning`` and in
            ``attrs["errors"]`` while the others' rows are returned; ``"raise"``: the first failure raises.
            When every input fails, the first failure raises either way.
        events: also return the episodes (``read_events``'s table): ``analyze(...)`` then returns
            ``Analysis(results, events)``.

    Raises:
        InputError: an input is missing, empty, corrupt or of a wrong type (see ``errors``).
        ModelError: the models are missing or altered.
        OptionsError: an option is invalid (also a ``ValueError``), raised before anything runs.
        EngineError: the engine ended abnormally (killed, crashed).
        KeyboardInterrupt: Ctrl-C; the engine is stopped and nothing half-made is returned.
    """
    paths = _paths(inputs)
    groups = _metric_groups(metrics)
    if rate is not None and not rate > 0:
        raise OptionsError(f"rate must be a positive number of frames per second, not {rate!r}")
    if not isinstance(max_faces, int) or not 1 <= max_faces <= 64:
        raise OptionsError(f"max_faces must be a whole number within 1...64, not {max_faces!r}")
    if face_mode not in ("large", "small"):
        raise OptionsError(f"face_mode must be 'large' or 'small', not {face_mode!r}")
    if not isinstance(jobs, int) or not 1 <= jobs <= 64:
        raise OptionsError(f"jobs must be a whole number within 1...64, not {jobs!r}")
    if errors not in ("warn", "raise"):
        raise OptionsError(f"errors must be 'warn' or 'raise', not {errors!r}")
    settings: Dict[str, Any] = {
        "metrics": groups, "rate": rate, "max_faces": max_faces, "face_mode": face_mode,
        "reidentify": reidentify, "jobs": jobs,
    }
    executable = _engine.executable()
    folder = tempfile.mkdtemp(prefix="mien-analyze-")
    try:
        arguments = [executable, "analyze", *paths, "--output", folder, "--format", "csv",
                     "--metrics", ",".join(groups), "--max-faces", str(max_faces), "--face-mode", face_mode,
                     "--jobs", str(jobs)]
        if rate is not None:
            arguments += ["--rate", repr(float(rate))]
        if reidentify:
            arguments.append("--reidentify")
        shown = _engine._Progress(len(paths)) if progress else None
        try:
            done = _engine.run(arguments, progress=shown)
        finally:
            if shown is not None:
                shown.close()
        frame = _read_folder(Path(folder), order=paths, required=False)
        episodes = _read_events_folder(Path(folder), order=paths) if events else None
        # Inputs read to their end, faces or not (an input with no face leaves no row but did not fail).
        analysed = len(list(Path(folder).glob("*.summary.json")))
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    if done.errors and (analysed == 0 or errors == "raise"):
        raise done.errors[0]
    if done.errors:
        listed = "; ".join(str(error) for error in done.errors)
        warnings.warn(f"{len(done.errors)} input(s) failed: {listed}", MienWarning, stacklevel=2)
    frame.attrs.update(_provenance(settings, done.errors))
    if episodes is not None:
        episodes.attrs.update(frame.attrs)
        return Analysis(frame, episodes)
    return frame


def read_events(path: PathLike) -> pd.DataFrame:
    """Reads the episodes ``mien analyze --output DIR`` or ``mien merge`` wrote: one row per finished episode.

    Columns: ``input``, ``faceId``, ``metric`` (``expressions.smile``, ``emotions.joy``, ``blink``, ...),
    ``onset``, ``apex``, ``offset`` (seconds on the input's clock), ``apexValue`` (the score at the apex),
    ``duration`` (seconds) and ``ending`` (``fell``, ``lost``, ``cut``, ``ended``). Count blinks with
    ``events[events.metric == "blink"].groupby(["input", "faceId"]).size()``.

    Args:
        path: an output folder of ``mien analyze`` (each input's ``<name>.events.csv``), a folder ``mien merge``
            wrote (``events.csv``), or one of those files.

    Raises:
        InputError: the path holds no episodes Mien wrote.
    """
    target = Path(path)
    if not target.exists():
        raise InputError("no such file or folder", str(path))
    if target.is_dir():
        merged = target / "events.csv"
        if merged.is_file():
            return _read_events_csv(merged)
        if not list(target.glob("*.events.csv")):
            raise InputError("holds no episodes of mien analyze (no <name>.events.csv or events.csv)", str(path))
        return _read_events_folder(target, order=None)
    if target.name.endswith("events.csv"):
        return _read_events_csv(target)
    raise InputError("not a folder or events CSV file that mien analyze or mien merge wrote", str(path))


def read(path: PathLike) -> pd.DataFrame:
    """Reads what ``mien analyze --output DIR`` or ``mien merge`` wrote into the DataFrame ``analyze`` returns.

    Args:
        path: an output folder of ``mien analyze`` (each input's ``<name>.csv`` and ``<name>.summary.json``),
            a folder ``mien merge`` wrote (``results.csv``), or one of those CSV files.

    Raises:
        InputError: the path holds no results Mien wrote.
    """
    target = Path(path)
    if not target.exists():
        raise InputError("no such file or folder", str(path))
    if target.is_dir():
        merged = target / "results.csv"
        frame = _read_csv(merged, None) if _is_merged(merged) else _read_folder(target, order=None, required=True)
    elif _is_merged(target):
        frame = _read_csv(target, None)
    elif target.suffix == ".csv":
        frame = _read_csv(target, _input_of(target))
    else:
        raise InputError("not a folder or CSV file that mien analyze or mien merge wrote", str(path))
    frame.attrs.update({"source": str(path)})
    return frame


# --- helpers


def _paths(inputs: Union[PathLike, Sequence[PathLike]]) -> List[str]:
    if isinstance(inputs, (str, os.PathLike)):
        inputs = [inputs]
    paths = [os.fspath(item) for item in inputs]
    if not paths:
        raise OptionsError("no inputs given")
    for item in paths:
        if not isinstance(item, str) or not item:
            raise OptionsError(f"inputs must be paths, not {item!r}")
    return paths


def _metric_groups(metrics: Union[str, Sequence[str]]) -> List[str]:
    names = metrics.split(",") if isinstance(metrics, str) else list(metrics)
    groups = [name.strip() for name in names if name.strip()]
    unknown = [name for name in groups if name not in METRIC_GROUPS]
    if unknown or not groups:
        raise OptionsError(f"metrics must be among {', '.join(METRIC_GROUPS)}; got {metrics!r}")
    return groups


def _is_merged(path: Path) -> bool:
    """Whether ``path`` is the CSV ``mien merge`` writes: every input's rows with an ``input`` column first."""
    if path.suffix != ".csv" or not path.is_file():
        return False
    with open(path, "rb") as file:
        return file.readline().startswith(b"input,")


def _input_of(csv_path: Path) -> str:
    """The input a per-input CSV belongs to: its summary names it; else the file's name without .csv."""
    summary = csv_path.with_name(csv_path.name[: -len(".csv")] + ".summary.json")
    if summary.is_file():
        try:
            return str(json.loads(summary.read_text(encoding="utf-8"))["input"])
        except (ValueError, KeyError) as error:
            raise InputError(f"unreadable summary ({error})", str(summary)) from error
    return csv_path.name[: -len(".csv")]


def _read_folder(folder: Path, order: Optional[List[str]], required: bool) -> pd.DataFrame:
    parts = []
    for csv_path in sorted(folder.glob("*.csv")):
        if csv_path.name.endswith(".events.csv"):
            continue
        parts.append(_read_csv(csv_path, _input_of(csv_path)))
    if not parts:
        if required:
            raise InputError("holds no results of mien analyze (no <name>.csv)", str(folder))
        return _typed(pd.DataFrame(columns=["input"]))
    frame = pd.concat(_in_input_order(parts, order), ignore_index=True)
    return _typed(frame)


def _in_input_order(parts: List[pd.DataFrame], order: Optional[List[str]]) -> List[pd.DataFrame]:
    """Per-input tables in the order the inputs were given (a folder's pictures where the folder was)."""
    if order is None:
        return parts
    rank = {name: position for position, name in enumerate(order)}

    def position(part: pd.DataFrame) -> int:
        name = str(part["input"].iloc[0]) if len(part) else ""
        matches = [rank[given] for given in rank if name == given or name.startswith(given.rstrip("/") + "/")]
        return min(matches) if matches else len(rank)

    return sorted(parts, key=position)


def _read_events_folder(folder: Path, order: Optional[List[str]]) -> pd.DataFrame:
    parts = [_read_events_csv(path) for path in sorted(folder.glob("*.events.csv"))]
    parts = [part for part in parts if len(part)]
    if not parts:
        return _read_events_csv(None)
    return pd.concat(_in_input_order(parts, order), ignore_index=True)


def _read_events_csv(path: Optional[Path]) -> pd.DataFrame:
    columns = ["input", "faceId", "metric", "onset", "apex", "apexValue", "offset", "duration", "ending"]
    if path is None:
        frame = pd.DataFrame(columns=columns)
    else:
        try:
            frame = pd.read_csv(path, dtype=str, keep_default_na=False, encoding="utf-8")
        except (OSError, ValueError) as error:
            raise InputError(f"unreadable CSV ({error})", str(path)) from error
        if list(frame.columns) != columns:
            raise InputError("not an events CSV of mien (its header differs)", str(path))
    typed = {}
    for column in frame.columns:
        values = frame[column].astype(object)
        if column in EVENT_LABEL_COLUMNS:
            typed[column] = values.astype("category")
        elif column == "faceId":
            typed[column] = pd.to_numeric(values).astype("int64")
        else:
            typed[column] = pd.to_numeric(values, errors="coerce").astype("float64")
    return pd.DataFrame(typed, columns=columns)


def _read_csv(path: Path, input_name: Optional[str]) -> pd.DataFrame:
    try:
        frame = pd.read_csv(path, dtype=str, keep_default_na=False, encoding="utf-8")
    except (OSError, ValueError) as error:
        raise InputError(f"unreadable CSV ({error})", str(path)) from error
    if input_name is not None:
        frame.insert(0, "input", input_name)
    return _typed(frame)


def _typed(frame: pd.DataFrame) -> pd.DataFrame:
    """Real dtypes: whole numbers as int64, labels as categoricals, every other column float64 (NaN if empty)."""
    typed = {}
    for column in frame.columns:
        values = frame[column].astype(object).where(frame[column].astype(str) != "", np.nan)
        if column in LABEL_COLUMNS:
            typed[column] = values.astype("category")
        elif column in INTEGER_COLUMNS and values.notna().all():
            typed[column] = pd.to_numeric(values).astype("int64")
        else:
            typed[column] = pd.to_numeric(values, errors="coerce").astype("float64")
    return pd.DataFrame(typed, columns=list(frame.columns))


def _provenance(settings: Dict[str, Any], failures: List[MienError]) -> Dict[str, Any]:
    return {
        "mien": _engine.engine_version(),
        "models": _engine.model_checksums(),
        "settings": settings,
        "errors": [{"input": error.input, "message": error.message} for error in failures],
    }
