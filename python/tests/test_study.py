"""``mien.study``: every figure of ``curves.csv`` recomputed with pandas from the per-recording CSVs it analysed."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import mien
import mien.plot
from catalog import catalog
from conftest import ROOT

CLIP = ROOT / "Samples" / "astronaut-pan-zoom.mp4"
#: Student's t, two-sided 95 %, by degrees of freedom (textbook table).
T95 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262, 10: 2.228}
BIN = 0.5
#: The viewing metrics (`MetricCatalog.viewing`): read on every frame of the face, settling or not.
VIEWING = {"onScreen", "eyesClosed", "talking"}


def participant_bins(rows: pd.DataFrame, episodes: pd.DataFrame, onset: float, columns: dict) -> dict:
    """One participant's face: the face with most rows in the window; per metric, the mean and the episode share
    of each bin, on the millisecond grid the files are written on."""
    ms = (rows["TimeStamp"] * 1000).round().astype(int) - round(onset * 1000)
    window = rows[ms >= 0].assign(ms=ms[ms >= 0])
    counts = window["faceId"].value_counts()
    face = min(counts[counts == counts.max()].index)
    window = window[window["faceId"] == face].copy()
    window["bin"] = window["ms"] // round(BIN * 1000)
    result = {}
    for metric, column in columns.items():
        if window[column].isna().all():
            continue
        spans = episodes[(episodes["faceId"] == face) & (episodes["metric"] == metric)]
        absolute = window["ms"] + round(onset * 1000)
        inside = np.zeros(len(window), dtype=bool)
        for span in spans.itertuples():
            inside |= (absolute >= round(span.onset * 1000)).to_numpy() & (absolute <= round(span.offset * 1000)).to_numpy()
        frame = window.assign(inside=inside)
        if metric not in VIEWING:
            # Frames whose face was `settling` (its own neutral face not yet learnt) count for viewing only.
            frame = frame[~frame["flags"].fillna("").astype(str).str.contains("settling")]
        measured = frame[frame[column].notna()]
        result[metric] = (measured.groupby("bin")[column].mean(), frame.groupby("bin")["inside"].mean())
    return result


def test_curves_equal_pandas_on_the_recordings_csv(engine: str, tmp_path: Path) -> None:
    manifest = pd.DataFrame({
        "recording": [str(CLIP)] * 3, "participant": ["p1", "p2", "p3"], "stimulus": ["clip"] * 3,
        "onset": [0.0, 0.4, 1.0], "group": ["a", "a", "b"],
    })
    result = mien.study(manifest, output=tmp_path, metrics="expressions,emotions", bin=BIN, progress=False)
    assert result.participants["included"].all()
    entries = {entry["name"]: entry for entry in catalog(engine)["metrics"]}
    rows = pd.read_csv(tmp_path / "recordings" / f"{CLIP.name}.csv")
    episodes = pd.read_csv(tmp_path / "recordings" / f"{CLIP.name}.events.csv")
    curves = result.curves
    metrics = sorted(curves["metric"].unique())
    assert {"expressions.smile", "emotions.joy", "valence"} <= set(metrics)
    columns = {metric: entries[metric]["columns"][0] for metric in metrics}
    series = {row.participant: participant_bins(rows, episodes, row.onset, columns) for row in manifest.itertuples()}
    groups = {"all": ["p1", "p2", "p3"], "a": ["p1", "p2"], "b": ["p3"]}
    checked = 0
    for point in curves.itertuples():
        bin = round(point.time / BIN)
        values = [series[p][point.metric][0].get(bin) for p in groups[point.group] if point.metric in series[p]]
        values = [v for v in values if v is not None and not math.isnan(v)]
        assert point.n == len(values), point
        if not values:
            assert math.isnan(point.mean)
            continue
        mean = float(np.mean(values))
        assert abs(point.mean - mean) < 0.01, point
        if len(values) >= 2:
            half = T95[len(values) - 1] * float(np.std(values, ddof=1)) / math.sqrt(len(values))
            assert abs(point.low - (mean - half)) < 0.02 and abs(point.high - (mean + half)) < 0.02, point
        else:
            assert math.isnan(point.low) and math.isnan(point.high)
        shares = [series[p][point.metric][1].get(bin) for p in groups[point.group] if point.metric in series[p]]
        shares = [s for s in shares if s is not None]
        if not math.isnan(point.episodeShare):
            assert abs(point.episodeShare - sum(s >= 0.5 for s in shares) / len(shares)) < 1e-9, point
        checked += 1
    assert checked > 100
    # The same tables read back, and the plot drawn from them.
    again = mien.read_study(tmp_path)
    pd.testing.assert_frame_equal(again.curves, curves)
    # The response features of the same faces (features.csv): each included participant's smile, its mean among them.
    smile = again.features.query("metric == 'expressions.smile' and feature == 'mean'")
    assert len(smile) == int(again.participants.included.sum()) and smile.value.between(0, 100).all()
    for participant in ("p1", "p2", "p3"):
        bins = [v for v in series[participant]["expressions.smile"][0].values if not math.isnan(v)]
        feature = float(smile.loc[smile.participant == participant, "value"].iloc[0])
        assert abs(feature - float(np.mean(bins))) < 0.01, (participant, feature, np.mean(bins))
    assert again.info["settings"]["bin"] == BIN and again.info["models"]
    ax = mien.plot.study(again, "expressions.smile")
    assert ax.get_title() == "clip" and len(ax.lines) == 3


def test_bad_rows_warn_and_are_excluded(tmp_path: Path) -> None:
    manifest = pd.DataFrame({
        "recording": [str(CLIP), str(tmp_path / "missing.mp4"), str(CLIP)], "participant": ["p1", "p2", "p3"],
        "stimulus": ["clip"] * 3, "onset": [0.0, 0.0, 30.0],
    })
    with pytest.warns(mien.MienWarning, match="2 row"):
        # A file study has one viewing per row: the exposure rule (issue 95) is accepted and changes nothing.
        result = mien.study(manifest, metrics="expressions", progress=False, exposure="first-only")
    with pytest.raises(mien.OptionsError, match="exposure"):
        mien.study(manifest, metrics="expressions", progress=False, exposure="last")
    reasons = dict(zip(result.participants["participant"], result.participants["exclusion"]))
    assert pd.isna(reasons["p1"])
    assert "could not be analysed" in reasons["p2"] and "beyond the recording's end" in reasons["p3"]
    with pytest.raises(FileNotFoundError):
        mien.read_study(tmp_path)


def test_read_study_reads_a_collected_studys_answers(tmp_path: Path) -> None:
    """answers.csv as `mien study` writes it for a collected study with --questions (AnswerTable's columns)."""
    (tmp_path / "study.json").write_text('{"settings": {"bin": 0.5}}', encoding="utf-8")
    (tmp_path / "answers.csv").write_text(
        "participant,group,state,question,after,type,score,answer,answered,correct\n"
        "p1,A,complete,liking,ad,scale 7,6,6,2026-12-04T10:00:00Z,\n"
        "p1,A,complete,where,end,multiple,,TV | Cinema,2026-12-04T10:01:00Z,\n"
        'p2,,incomplete,comments,end,text,,"fine, thanks",2026-12-04T11:00:00Z,\n'
        "p2,,incomplete,brand,end,single,,B,2026-12-04T11:00:00Z,1\n", encoding="utf-8")
    answers = mien.read_study(tmp_path).answers
    assert answers["score"].iloc[0] == 6 and answers["score"].isna().sum() == 3
    assert answers["correct"].iloc[3] == True and answers["correct"].isna().sum() == 3  # noqa: E712
    assert str(answers["score"].dtype) == "Int64"
    assert answers.loc[answers.question == "comments", "answer"].iloc[0] == "fine, thanks"
    assert answers["answered"].iloc[1] == pd.Timestamp("2026-12-04T10:01:00Z")
    assert pd.isna(answers["group"].iloc[2])
    assert mien.read_study(tmp_path).attention.empty  # no other table needed
    (tmp_path / "answers.csv").unlink()
    assert mien.read_study(tmp_path).answers.empty


def test_read_study_reads_a_collected_studys_kpis(tmp_path: Path) -> None:
    """kpis.csv as `mien study` writes it for a collected study (StudyKPIs' columns)."""
    (tmp_path / "study.json").write_text('{"settings": {"bin": 0.5}}', encoding="utf-8")
    (tmp_path / "kpis.csv").write_text(
        "stimulus,group,kpi,value,low,high,n,weighted\n"
        "ad,all,viewers,9.00,,,9,false\n"
        "ad,all,liking.top2box,44.44,18.88,73.33,9,false\n"
        "ad,A,brand=Contoso,62.50,30.57,86.32,8,false\n", encoding="utf-8")
    kpis = mien.read_study(tmp_path).kpis
    assert list(kpis.columns) == ["stimulus", "group", "kpi", "value", "low", "high", "n", "weighted"]
    assert pd.isna(kpis["low"].iloc[0]) and kpis["value"].iloc[1] == 44.44 and kpis["n"].iloc[2] == 8
    assert kpis["kpi"].iloc[2] == "brand=Contoso" and kpis["weighted"].dtype == bool and not kpis["weighted"].any()
    (tmp_path / "kpis.csv").unlink()
    assert mien.read_study(tmp_path).kpis.empty


def test_read_study_reads_a_collected_studys_comparisons(tmp_path: Path) -> None:
    """comparisons.csv as `mien study` writes it (StudyComparisons' columns): a paired contrast and a groups row."""
    (tmp_path / "study.json").write_text('{"settings": {"bin": 0.5}}', encoding="utf-8")
    (tmp_path / "comparisons.csv").write_text(
        "kind,stimulus,kpi,a,b,value_a,value_b,difference,low,high,n,method,statistic,p,q,better\n"
        "stimuli,,watched,a,b,90,60,30,28.5,31.5,12,paired t,41.2,0.0000,0.0000,a\n"
        "groups,a,liking_a.top2box,G,H,100,50,50,,,12,two-proportion z (pooled),2,0.0455,0.0455,G\n"
        "groups,a,watched,G,H,92,94,-2,-5,1,12,Welch t,-1.2,0.25,0.25,\n", encoding="utf-8")
    compared = mien.read_study(tmp_path).comparisons
    assert list(compared.columns) == ["kind", "stimulus", "kpi", "a", "b", "value_a", "value_b", "difference", "low",
                                      "high", "n", "method", "statistic", "p", "q", "better"]
    assert compared["better"].iloc[0] == "a" and pd.isna(compared["better"].iloc[2])
    assert pd.isna(compared["stimulus"].iloc[0]) and compared["difference"].iloc[0] == 30
    assert pd.isna(compared["low"].iloc[1]) and compared["q"].iloc[1] == 0.0455
    (tmp_path / "comparisons.csv").unlink()
    assert mien.read_study(tmp_path).comparisons.empty


def test_a_stimulus_placed_against_a_norm_equals_pandas(tmp_path: Path) -> None:
    """``norms=``: a norm of 12 stimuli written as ``mien norms`` keeps them; the sample's smile mean placed among
    them by its percentile (ties half, as scipy's kind="mean"), computed here with pandas; below 10 after a filter,
    nothing placed."""
    manifest = pd.DataFrame({"recording": [str(CLIP)] * 3, "participant": ["p1", "p2", "p3"],
                             "stimulus": ["clip"] * 3, "onset": [0.0, 0.4, 1.0]})
    plain = mien.study(manifest, output=tmp_path / "plain", metrics="expressions", bin=BIN, progress=False)
    assert plain.norms.empty
    smiles = [20.0, 35.0, 50.0, 60.0, 60.0, 70.0, 80.0, 85.0, 90.0, 95.0, 99.0, 100.0]
    entries = [{
        "id": f"old{i}/ad", "fingerprint": f"{i:064x}", "study": f"old{i}", "stimulus": "ad",
        "tags": {"category": "space" if i < 10 else "food"}, "participants": 20, "seconds": 3.0, "bin": BIN,
        "allFrames": False, "generator": "test", "added": "2026-12-04T00:00:00Z",
        "figures": {"expressions.smile mean": smile}, "counts": {"expressions.smile mean": 20},
    } for i, smile in enumerate(smiles)]
    store = {"format": "mien-norms", "version": 1, "entries": entries, "figureSet": {
        "metrics": ["expressions.smile", "emotions.joy", "emotions.surprise", "valence", "engagement"],
        "features": ["mean", "peak", "lastQuarterSlope"], "marks": ["after.MARK", "change.MARK"],
        "viewing": ["attention"]}}
    (tmp_path / "norms.json").write_text(json.dumps(store), encoding="utf-8")
    placed = mien.study(manifest, output=tmp_path / "placed", metrics="expressions", bin=BIN, progress=False,
                        norms=tmp_path / "norms.json")
    row = placed.norms.set_index("figure").loc["expressions.smile mean"]
    norm = pd.Series(smiles)
    value = row["value"]
    assert abs(value - placed.features.query("feature == 'mean' and metric == 'expressions.smile'")["value"].mean()) < 1e-3
    expected = ((norm < value).sum() + (norm <= value).sum()) / 2 / len(norm) * 100
    assert row["normSize"] == 12 and abs(row["percentile"] - expected) < 0.05
    assert abs(row["normMedian"] - norm.median()) < 1e-9 and row["low"] <= row["percentile"] <= row["high"]
    assert str(placed.norms["figure"].dtype) == "string"
    few = mien.study(manifest, output=tmp_path / "few", metrics="expressions", bin=BIN, progress=False,
                     norms=tmp_path / "norms.json", norm_filter={"category": "food"})
    assert few.norms["percentile"].isna().all() and few.norms["reason"].str.contains("at least 10").all()
