"""The metrics a face keeps as one number each (``"stored": true`` in ``mien metrics --json``), as typed
properties of ``mien.Face``.

Written by ``scripts/catalog-sync.py`` from ``mien metrics --json`` (``make catalog``); do not edit.
"""

from __future__ import annotations

from typing import Any, Dict, Optional


class StoredMetrics:
    """Each property is None when its metric is off or cannot be computed for the face."""

    data: Dict[str, Any]

    @property
    def looking_at_camera(self) -> Optional[float]:
        """How directly the person looks into the camera: 100 within 10° of it, 0 beyond 20° (from the gaze
        and where the eyes are in the frame). (``lookingAtCamera``, score; group ``gaze``)"""
        return self.data.get('lookingAtCamera')

    @property
    def on_screen(self) -> Optional[float]:
        """Whether the person looks at the screen: 100 on it or within 20° of its edge, 0 from 30° beyond or
        with the head turned away (from the gaze, where the eyes are in the frame and the screen's place, by
        default a laptop's below its camera). (``onScreen``, score; group ``gaze``)"""
        return self.data.get('onScreen')

    @property
    def valence(self) -> Optional[float]:
        """How positive the expression is: -100 (negative) ... 100 (positive). (``valence``, signed score;
        group ``emotions``)"""
        return self.data.get('valence')

    @property
    def engagement(self) -> Optional[float]:
        """How expressive the face is. (``engagement``, score; group ``emotions``)"""
        return self.data.get('engagement')

    @property
    def lip_tighten(self) -> Optional[float]:
        """AU23 lip tightener: the lips narrowed and pressed thin (not in a smile), from the mesh and
        blendshapes. (``lipTighten``, score; group ``expressions``)"""
        return self.data.get('lipTighten')

    @property
    def blink_rate(self) -> Optional[float]:
        """Blinks per minute over the last minute, in streams with eye closure on (after a face's first 5 s).
        (``blinkRate``, per minute; group ``expressions``)"""
        return self.data.get('blinkRate')

    @property
    def eyes_closed(self) -> Optional[float]:
        """100 while both eyes have stayed shut longer than a blink (0.5 s: dozing, looking down), else 0; in
        streams with eye closure on. (``eyesClosed``, score; group ``expressions``)"""
        return self.data.get('eyesClosed')

    @property
    def talking(self) -> Optional[float]:
        """100 while the mouth opens and shuts as speech does (3 or more reversals of 12 points in 1.5 s;
        laughter's bursts too), else 0; in streams with mouthOpen and jawDrop on, after a face's first 1.5 s.
        (``talking``, score; group ``expressions``)"""
        return self.data.get('talking')
