"""Mien for Python: faces in pictures and videos read the way Affectiva's Affdex SDK did, as pandas DataFrames.

    >>> import mien
    >>> df = mien.analyze(["interview.mp4", "photos/"])      # one row per face per analysed frame
    >>> df.groupby(["input", "faceId"])[["joy", "valence"]].mean()
    >>> mien.read("results/")                               # what `mien analyze --output results/` wrote
    >>> mien.read_events("results/")                        # one row per episode (smiles, blinks, ...)
    >>> panel = mien.study("manifest.csv", output="study/")  # many viewers of one advert, on stimulus time
    >>> mien.plot.study(panel, "expressions.smile")
    >>> with mien.Detector(metrics="expressions") as detector:  # numpy frames in, one Result each
    ...     result = detector.process(frame, timestamp=0.0)

The ``mien`` command comes with the package (``mien --help``). Both run the same engine, carried in the wheel.
"""

from __future__ import annotations

from ._client import Client, RemoteDetector
from ._detector import Detector
from ._engine import engine_version, executable, model_checksums
from ._errors import EngineError, InputError, MienError, MienWarning, ModelError, OptionsError
from ._frames import METRIC_GROUPS, Analysis, analyze, read, read_events
from ._result import Episode, Face, Result
from ._study import Study, read_study, study
from ._version import __version__

__all__ = [
    "analyze", "read", "read_events", "Analysis", "study", "read_study", "Study", "Detector", "Result", "Face", "Episode", "Client", "RemoteDetector", "engine_version", "executable", "model_checksums", "METRIC_GROUPS",
    "MienError", "InputError", "ModelError", "OptionsError", "EngineError", "MienWarning", "__version__",
]
