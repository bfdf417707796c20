"""Mien for Python: faces in pictures and videos read the way Affectiva's Affdex SDK did, as pandas DataFrames.

    >>> import mien
    >>> df = mien.analyze(["interview.mp4", "photos/"])      # one row per face per analysed frame
    >>> df.groupby(["input", "faceId"])[["joy", "valence"]].mean()
    >>> mien.read("results/")                               # what `mien analyze --output results/` wrote

The ``mien`` command comes with the package (``mien --help``). Both run the same engine, carried in the wheel.
"""

from __future__ import annotations

from ._engine import engine_version, executable, model_checksums
from ._errors import EngineError, InputError, MienError, MienWarning, ModelError, OptionsError
from ._frames import METRIC_GROUPS, analyze, read
from ._version import __version__

__all__ = [
    "analyze", "read", "engine_version", "executable", "model_checksums", "METRIC_GROUPS",
    "MienError", "InputError", "ModelError", "OptionsError", "EngineError", "MienWarning", "__version__",
]
