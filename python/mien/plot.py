"""Plots of Mien's results with matplotlib: ``pip install mien[plot]``.

    >>> import mien, mien.plot
    >>> df = mien.analyze("talk.mp4", metrics="emotions")
    >>> mien.plot.timeline(df, ["joy", "valence"])          # one line per input, face and metric
    >>> mien.plot.faces(picture, detector.process(picture))  # the picture with each face's box and ID
    >>> mien.plot.study(mien.read_study("study/"), "expressions.smile")  # the panel's curve, bands, moments
"""

from __future__ import annotations

from typing import Any, Optional, Sequence, Tuple

import numpy as np
import pandas as pd

from ._result import Result
from ._study import Study


def _pyplot() -> Any:
    try:
        import matplotlib.pyplot as pyplot
    except ImportError as error:  # pragma: no cover - depends on the installation
        raise ImportError("mien.plot needs matplotlib: pip install 'mien[plot]'") from error
    return pyplot


def timeline(df: pd.DataFrame, columns: Sequence[str], *, ax: Optional[Any] = None) -> Any:
    """Each metric of ``columns`` over time, one line per input, face and metric.

    Args:
        df: what ``mien.analyze`` or ``mien.read`` returns (``TimeStamp`` in seconds, ``faceId``, metrics).
        columns: metric columns (``"joy"``, ``"valence"``, ``"smile"``, ...).
        ax: the matplotlib axes to draw on (default: a new figure's).

    Returns:
        The axes, time in seconds across, the metric's own scale up.

    Raises:
        ValueError: a column that ``df`` does not have.
    """
    missing = [column for column in columns if column not in df.columns]
    if missing or "TimeStamp" not in df.columns or "faceId" not in df.columns:
        raise ValueError(f"the frame has no column {missing or ['TimeStamp', 'faceId']}; columns are "
                         f"{', '.join(map(str, df.columns))}")
    if ax is None:
        _, ax = _pyplot().subplots(figsize=(10, 4))
    keys = ["input", "faceId"] if "input" in df.columns else ["faceId"]
    several_inputs = "input" in df.columns and df["input"].nunique() > 1
    for key, rows in df.sort_values("TimeStamp").groupby(keys, observed=True):
        key = key if isinstance(key, tuple) else (key,)
        face = f"face {key[-1]}" if not several_inputs else f"{key[0]} face {key[-1]}"
        for column in columns:
            ax.plot(rows["TimeStamp"], rows[column], label=f"{face}: {column}")
    ax.set_xlabel("time (s)")
    ax.set_ylabel(", ".join(columns))
    ax.legend(loc="best", fontsize="small")
    return ax


def faces(picture: np.ndarray, result: Result, *, color: str = "bgr", ax: Optional[Any] = None) -> Any:
    """The picture with each face of ``result`` drawn: its box, its ID and, when measured, its dominant emoji.

    Args:
        picture: the frame the result is of, ``uint8`` H x W x 3 (BGR unless ``color="rgb"``).
        result: ``Detector.process``'s result for it.
        ax: the matplotlib axes to draw on (default: a new figure's).

    Returns:
        The axes, in the picture's pixels (origin top left).
    """
    if not isinstance(picture, np.ndarray) or picture.ndim != 3 or picture.shape[2] != 3:
        raise ValueError("picture is a uint8 H x W x 3 array")
    if ax is None:
        _, ax = _pyplot().subplots()
    ax.imshow(picture[:, :, ::-1] if color == "bgr" else picture)
    from matplotlib.patches import Rectangle

    for face_id, face in (result.faces or {}).items():
        x, y, width, height = face.bounds
        ax.add_patch(Rectangle((x, y), width, height, fill=False, linewidth=2, edgecolor="lime"))
        emoji = (face.emoji or {}).get("dominantEmoji")
        ax.text(x, y - 4, f"{face_id}" + (f" {emoji}" if emoji else ""), color="lime", fontsize=10,
                verticalalignment="bottom")
    ax.set_axis_off()
    return ax


#: The colours of a study's groups, the whole panel (``all``) first: the same as ``study.html``'s.
STUDY_COLOURS = ("#333333", "#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b")


def _metric_range(metric: str) -> Tuple[float, float]:
    """The metric's scale in a study: -100..100 for valence (the catalog's one signed score), 0..100 for the
    scores every other study metric is."""
    return (-100.0, 100.0) if metric == "valence" else (0.0, 100.0)


def study(result: Study, metric: str, *, stimulus: Optional[str] = None, ax: Optional[Any] = None) -> Any:
    """One metric of a study on stimulus time, as ``study.html`` draws it: each group's mean curve with its 95 %
    band (clipped to the metric's range), peaks marked, stretches where groups differ shaded and where a group
    responds underlined, in the page's colours.

    Args:
        result: what ``mien.study`` or ``mien.read_study`` returns.
        metric: a catalog name (``"expressions.smile"``, ``"valence"``; ``mien metrics``).
        stimulus: which stimulus (default: the first).
        ax: the matplotlib axes to draw on (default: a new figure's).

    Returns:
        The axes: seconds of stimulus time across (each point at its bin's middle), the metric's scale up.

    Raises:
        ValueError: a metric or stimulus the study has no curve of.
    """
    curves = result.curves
    if curves.empty:
        raise ValueError("the study has no curve (was any participant included?)")
    stimulus = stimulus if stimulus is not None else str(curves["stimulus"].iloc[0])
    rows = curves[(curves["stimulus"] == stimulus) & (curves["metric"] == metric)]
    if rows.empty:
        raise ValueError(f"no curve of {metric!r} for stimulus {stimulus!r}; metrics are "
                         f"{', '.join(sorted(curves['metric'].unique()))}")
    if ax is None:
        _, ax = _pyplot().subplots(figsize=(10, 4))
    bin = float(result.info.get("settings", {}).get("bin", 1.0))
    moments = result.moments
    if not moments.empty:
        moments = moments[(moments["stimulus"] == stimulus) & (moments["metric"] == metric)]
    for _, moment in moments[moments["kind"] == "difference"].iterrows() if not moments.empty else []:
        ax.axvspan(moment["start"], moment["end"], color="#f5c542", alpha=0.25,
                   label=f"{moment['group']} − {moment['otherGroup']} differ")
    low, high = _metric_range(metric)
    for index, (group, line) in enumerate(rows.groupby("group", sort=False)):
        colour = STUDY_COLOURS[index % len(STUDY_COLOURS)]
        middle = line["time"] + bin / 2
        ax.plot(middle, line["mean"].clip(low, high), label=f"{group}", color=colour,
                linewidth=2 if group == "all" else 1.5)
        ax.fill_between(middle, line["low"].clip(low, high), line["high"].clip(low, high), color=colour, alpha=0.15)
        if not moments.empty:
            peaks = moments[(moments["kind"] == "peak") & (moments["group"] == group)]
            ax.scatter(peaks["time"] + bin / 2, peaks["value"], color=colour, zorder=3)
            for _, response in moments[(moments["kind"] == "response") & (moments["group"] == group)].iterrows():
                ax.hlines(low, response["start"], response["end"], color="#2a9d3a", linewidth=4,
                          label=f"{group} responds (p = {response['p']:.3g})")
    ax.set_ylim(low, high)
    ax.set_xlabel("stimulus time (s)")
    ax.set_ylabel(metric)
    ax.set_title(stimulus)
    ax.legend(loc="best", fontsize="small")
    return ax
