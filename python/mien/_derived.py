"""The metrics the catalog computes from a face's other fields, as typed properties of ``mien.Face``.

Written by ``scripts/catalog-sync.py`` from ``mien metrics --json`` (``make catalog``); do not edit.
"""

from __future__ import annotations

from typing import Any, Dict, Optional


class DerivedMetrics:
    """Each property is None when its metric is off or cannot be computed for the face."""

    data: Dict[str, Any]

    @property
    def looking_at_camera(self) -> Optional[float]:
        """How directly the person looks into the camera: 100 within 10° of it, 0 beyond 20° (from the gaze
        and where the eyes are in the frame). (``lookingAtCamera``, score; group ``gaze``)"""
        return self.data.get('lookingAtCamera')
