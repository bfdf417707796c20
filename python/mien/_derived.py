"""The metrics the catalog computes from a face's other fields, as typed properties of ``mien.Face``.

Written by ``scripts/catalog-sync.py`` from ``mien metrics --json`` (``make catalog``); do not edit.
"""

from __future__ import annotations

from typing import Any, Dict, Optional


class DerivedMetrics:
    """Each property is None when its metric is off or cannot be computed for the face."""

    data: Dict[str, Any]
