"""Studies: a panel's recordings of the same stimuli, aligned on stimulus time and aggregated (``mien study``)."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import warnings
from pathlib import Path
from typing import Any, Dict, NamedTuple, Optional, Sequence, Union

import pandas as pd

from . import _engine
from ._errors import MienWarning, OptionsError
from ._frames import _metric_groups

PathLike = Union[str, "os.PathLike[str]"]

#: The manifest's columns (``duration`` and ``group`` may be left out).
MANIFEST_COLUMNS = ("recording", "participant", "stimulus", "onset", "duration", "group")


class Study(NamedTuple):
    """What ``study`` and ``read_study`` return: the study folder's tables as DataFrames.

    ``curves``: one row per stimulus, group (``all`` = the whole panel), metric and time bin (``time``: the bin's
    start, seconds of stimulus time): ``n`` participants measured, ``mean``, its 95 % interval ``low``..``high``
    and ``episodeShare`` (0..1, participants in an episode). ``participants``: one row per manifest row, with
    ``included`` and the ``exclusion`` reason, ``faceShare``, for a collected study what the page recorded of the
    viewing (``viewing``: ``recorded`` or ``not recorded``, ``hiddenSeconds``, ``stallSeconds``, ``cameraFps``,
    ``timingSpreadMs``, ...), per-metric means (``mean.<metric>``) and episode counts. ``moments``: peaks (with bootstrap intervals for ``time`` and ``value``), ``response`` stretches (a
    group against its own baseline) and group ``difference`` stretches, the last two with their corrected ``p``,
    cluster ``mass``, ``method`` and ``permutations``. ``isc``: leave-one-out inter-subject correlation per metric
    with ``p`` (against circularly shifted series, corrected over metrics), its bootstrap interval ``low``..``high``
    and ``bins``, or the ``reason`` there is none. ``segments``: per named scene (empty without ``segments=``).
    ``info``: the rest of ``study.json`` (settings, what was tested in ``notes``, each skippable stimulus's
    log-rank test in ``retentionTests``, versions, model checksums, timing). ``attention``: per stimulus, group
    and bin, the share of viewers watching (``onScreen``, percent, Wilson's 95 % interval ``low``..``high``, ``n``
    judged). ``retention``: for skippable stimuli, per group and bin, viewers still watching (``atRisk``), those
    who ``skipped`` and Kaplan-Meier's percent ``retained`` with its band (empty when nobody skipped).
    ``answers``: a collected study's answers to its questions (``mien study init --questions``), a row per
    participant and question on a page they sent: ``participant``, ``group``, ``state``, ``question``, ``after`` (a
    stimulus, or ``end``), ``type``, ``score`` (a scale's point, nullable integer), ``answer`` (text: the point,
    the option, options joined by `` | ``, or free text), ``answered`` (UTC time) and ``correct`` (a recall
    question's answer: right or not, nullable boolean; missing in an answers.csv written before it); empty for other
    studies.
    ``features``: per included participant, stimulus and headline metric, each response ``feature`` (``mean``,
    ``peak``, ``peakTime``, ``area``, ``lastQuarterSlope``, ``episodes``, ``after.MARK``, ``change.MARK``) and its
    ``value``. ``relations``: Spearman's ``rho`` of each feature with each scale answer, ``p``, BH-corrected ``q``,
    ``passes``, or the ``reason`` it was not testable. ``prediction``: per stimulus and scale question, the
    cross-validated ``auc`` with its ``low``..``high`` interval and permutation ``p`` (or the ``reason``).
    ``norms``: with ``norms=`` (``mien study --norms``), per stimulus and ``figure`` (``expressions.smile mean``,
    ``attention``, ``answer liking (7 points)``, ...) its ``value`` over ``n`` participants, the norm's ``normSize``
    and ``normMedian``, the ``percentile`` among the norm's stimuli with its bootstrap interval ``low``..``high``, the
    sign-flip ``p``, BH-corrected ``q`` and ``direction`` (``above``/``below`` where q < alpha), or the ``reason`` it
    was not compared (fewer than 10 stimuli); empty without a norm. ``kpis``: a collected study's key figures per
    stimulus and ``group`` (``all`` and each group): ``kpi`` (``viewers``, ``watched``, ``<question>.top2box``,
    ``<question>.mean``, ``<question>=<option>``, ``<question>.correct``), its ``value`` (percent for a share), the
    95 % interval ``low``..``high`` (Wilson's for a share, Student's t for a mean; NaN where none), ``n`` and
    ``weighted`` (bool: the rows again weighted to a population's margins with ``mien study --weight``); empty for
    other studies. ``comparisons``: adverts compared within participants (``kind``
    ``stimuli``: McNemar's exact test for a share, Student's paired t for a mean, BH ``q`` over every contrast) and
    groups within a ``stimulus`` (``kind`` ``groups``: the two-proportion z test or Welch's t, Bonferroni ``q``
    within the KPI's pairs): ``kpi``, sides ``a`` and ``b`` with ``value_a``, ``value_b``, ``difference`` (a − b,
    its ``low``..``high`` where the test gives one), ``n``, ``method``, ``statistic``, ``p``, ``q`` and ``better``
    (the side higher where q < alpha); empty for other studies.
    """

    curves: pd.DataFrame
    participants: pd.DataFrame
    moments: pd.DataFrame
    isc: pd.DataFrame
    segments: pd.DataFrame
    info: Dict[str, Any]
    attention: pd.DataFrame
    retention: pd.DataFrame
    answers: pd.DataFrame
    features: pd.DataFrame
    relations: pd.DataFrame
    prediction: pd.DataFrame
    norms: pd.DataFrame
    kpis: pd.DataFrame
    comparisons: pd.DataFrame


def study(
    manifest: Union[PathLike, pd.DataFrame],
    *,
    output: Optional[PathLike] = None,
    metrics: Union[str, Sequence[str]] = "all",
    rate: Optional[float] = None,
    bin: float = 1.0,
    min_face_share: float = 0.5,
    min_watched: float = 0.25,
    exposure: str = "first-complete",
    min_difference: float = 0.0,
    peak_prominence: float = 10.0,
    alpha: float = 0.05,
    permutations: int = 1000,
    seed: int = 1,
    correction: str = "cluster",
    baseline: float = 1.0,
    chart: Optional[Sequence[str]] = None,
    segments: Optional[Union[PathLike, pd.DataFrame]] = None,
    max_faces: int = 5,
    face_mode: str = "large",
    jobs: int = 1,
    segment_by: Optional[str] = None,
    norms: Optional[PathLike] = None,
    norm_filter: Optional[Dict[str, str]] = None,
    progress: bool = True,
) -> Study:
    """Analyses each recording of a manifest once and aggregates the panel on stimulus time (``mien study``).

    Args:
        manifest: a CSV path, or a DataFrame with the columns ``recording``, ``participant``, ``stimulus``,
            ``onset`` (seconds into the recording when the stimulus started) and optionally ``duration`` and
            ``group``. A DataFrame's relative recording paths are read from the current folder. Or a study
            folder made by ``mien study init`` and collected by ``mien serve --studies``: its participants'
            results are aggregated as they were measured, nothing is analysed again (``metrics``, ``rate``,
            ``max_faces``, ``face_mode`` and ``jobs`` then change nothing).
        output: the study folder (kept: ``recordings/`` is reused by the next run). None: a temporary folder,
            removed once the tables are read.
        metrics: metric groups, as ``analyze`` takes them.
        rate: frames analysed per second at most (None: every frame).
        bin: seconds per time bin (whole milliseconds).
        min_face_share: least share (0..1) of the stimulus window with the participant's face measured.
        min_watched: least share (0..1) of the stimulus window watched (facing the screen, eyes open, the face
            settled) for a participant's curves and features of it.
        exposure: a collected study's participant shown a stimulus again: ``"first-complete"`` reads the first
            viewing measured enough, its viewing rules judged over every viewing; ``"first-only"`` excludes them.
        min_difference: seconds a difference or response must last to be listed, on top of its test.
        peak_prominence: score points a peak must rise above its bases to be a moment.
        alpha: the error rate the tests of differences, responses and ISC control.
        permutations: permutations and bootstrap resamples per test (every relabelling when there are fewer).
        seed: the seed of every random draw: the same seed gives the same study.
        correction: ``"cluster"`` (cluster-based permutation test, family-wise error) or ``"fdr"`` (per-bin
            permutation p with Benjamini-Hochberg, false discovery rate).
        baseline: seconds at the start of each stimulus that are each participant's baseline for responses.
        chart: the metrics ``study.html`` charts (catalog names); None: those with the strongest moments.
        segments: named scenes (``stimulus``, ``name``, ``start``, ``end``): a CSV path or a DataFrame.
        segment_by: an attribute (the manifest's ``attribute.NAME`` column): its values become the groups.
        norms: a norms file (``mien norms add``): each stimulus placed against it (``Study.norms``).
        norm_filter: only the norm's stimuli with these tags (``{"category": "snacks"}``).
        max_faces, face_mode, jobs, progress: as ``analyze``.

    Rows that cannot be used (a recording that cannot be read, an onset beyond its end, a duplicate row, a
    participant never seen) are excluded with their reason in ``participants`` and reported with a
    ``MienWarning``; the rest of the study completes.

    Raises:
        OptionsError: an option is invalid, or the manifest (or segments file) cannot be read, lacks a required
            column or has no usable row (the engine's usage error, naming the file); nothing is analysed.
        ModelError, EngineError: as ``analyze``.
    """
    groups = _metric_groups(metrics)
    if not bin > 0:
        raise OptionsError(f"bin must be a positive number of seconds, not {bin!r}")
    if not 0 <= min_face_share <= 1:
        raise OptionsError(f"min_face_share must be within 0...1, not {min_face_share!r}")
    if not 0 <= min_watched <= 1:
        raise OptionsError(f"min_watched must be within 0...1, not {min_watched!r}")
    if exposure not in ("first-complete", "first-only"):
        raise OptionsError(f"exposure must be 'first-complete' or 'first-only', not {exposure!r}")
    if correction not in ("cluster", "fdr"):
        raise OptionsError(f"correction must be 'cluster' or 'fdr', not {correction!r}")
    temporary = output is None
    folder = Path(tempfile.mkdtemp(prefix="mien-study-") if output is None else output)
    folder.mkdir(parents=True, exist_ok=True)
    try:
        manifest_file = _table_file(manifest, folder, "manifest.csv", "recording")
        arguments = [_engine.executable(), "study", manifest_file,
                     "--output", str(folder), "--metrics", ",".join(groups), "--bin", repr(float(bin)),
                     "--min-face-share", repr(float(min_face_share)),
                     "--min-watched", repr(float(min_watched)), "--exposure", exposure, "--min-difference", repr(float(min_difference)),
                     "--peak-prominence", repr(float(peak_prominence)), "--max-faces", str(max_faces),
                     "--face-mode", face_mode, "--jobs", str(jobs), "--alpha", repr(float(alpha)),
                     "--permutations", str(int(permutations)), "--seed", str(int(seed)), "--correction", correction,
                     "--baseline", repr(float(baseline))]
        if chart:
            arguments += ["--chart", *chart]
        if rate is not None:
            arguments += ["--rate", repr(float(rate))]
        if segments is not None:
            arguments += ["--segments", _table_file(segments, folder, "segments.input.csv", None)]
        if segment_by is not None:
            arguments += ["--segment-by", segment_by]
        if norms is not None:
            arguments += ["--norms", str(norms)]
        for key, value in (norm_filter or {}).items():
            arguments += ["--norm-filter", f"{key}={value}"]
        shown = _engine._Progress(_recordings(manifest_file)) if progress else None
        try:
            done = _engine.run(arguments, progress=shown)
        finally:
            if shown is not None:
                shown.close()
        if not (folder / "study.json").is_file():
            if done.errors:
                raise done.errors[0]
            raise OptionsError(f"mien study wrote no study.json into {folder}")
        result = read_study(folder)
    finally:
        if temporary:
            shutil.rmtree(folder, ignore_errors=True)
    excluded = result.participants[~result.participants["included"].astype(bool)]
    if len(excluded):
        listed = "; ".join(f"{row.participant} ({row.stimulus}): {row.exclusion}" for row in excluded.itertuples())
        warnings.warn(f"{len(excluded)} row(s) excluded: {listed}", MienWarning, stacklevel=2)
    return result


def read_study(folder: PathLike) -> Study:
    """Reads what ``mien study --output FOLDER`` wrote (the tables and ``study.json``)."""
    path = Path(folder)
    if not (path / "study.json").is_file():
        raise FileNotFoundError(f"{path}: no study.json (is it a `mien study` folder?)")
    info = json.loads((path / "study.json").read_text(encoding="utf-8"))
    for bulky in ("participants", "curves", "attention", "retention", "moments", "correlations", "segments"):
        info.pop(bulky, None)

    def table(name: str) -> pd.DataFrame:
        file = path / name
        return pd.read_csv(file, keep_default_na=False, na_values=[""]) if file.is_file() else pd.DataFrame()

    participants = table("participants.csv")
    if "included" in participants:
        participants["included"] = participants["included"].astype(bool)
    for frame in (participants,):
        for column in ("group", "exclusion", "notes"):
            if column in frame:
                frame[column] = frame[column].astype("string")
    answers = table("answers.csv")
    if not answers.empty:
        for column in ("participant", "group", "state", "question", "after", "type", "answer"):
            answers[column] = answers[column].astype("string")
        answers["score"] = answers["score"].astype("Int64")
        answers["answered"] = pd.to_datetime(answers["answered"], utc=True)
        if "correct" in answers:
            # A recall question's answer: True right, False another option; missing for the other questions.
            answers["correct"] = answers["correct"].astype("Int64").astype("boolean")
    norms = table("norms.csv")
    for column in ("stimulus", "figure", "direction", "reason"):
        if column in norms:
            norms[column] = norms[column].astype("string")
    kpis = table("kpis.csv")
    if not kpis.empty:
        for column in ("stimulus", "group", "kpi"):
            kpis[column] = kpis[column].astype("string")
        kpis["weighted"] = kpis["weighted"].astype(str).str.lower() == "true"
    comparisons = table("comparisons.csv")
    if not comparisons.empty:
        for column in ("kind", "stimulus", "kpi", "a", "b", "method", "better"):
            comparisons[column] = comparisons[column].astype("string")
    return Study(table("curves.csv"), participants, table("moments.csv"), table("isc.csv"), table("segments.csv"),
                 info, table("attention.csv"), table("retention.csv"), answers, table("features.csv"),
                 table("relations.csv"), table("prediction.csv"), norms, kpis, comparisons)


def _recordings(manifest: str) -> int:
    """How many recordings the manifest names (for the progress bar; 0 when it cannot be read here)."""
    try:
        return int(pd.read_csv(manifest)["recording"].nunique())
    except (OSError, ValueError, KeyError):
        return 0


def _table_file(table: Union[PathLike, pd.DataFrame], folder: Path, name: str, path_column: Optional[str]) -> str:
    """A path for the engine: the CSV given, or a DataFrame written into the study folder (paths made absolute)."""
    if not isinstance(table, pd.DataFrame):
        return os.fspath(table)
    frame = table.copy()
    if path_column is not None and path_column in frame:
        frame[path_column] = [os.path.abspath(os.fspath(value)) for value in frame[path_column]]
    file = folder / name
    frame.to_csv(file, index=False)
    return str(file)
