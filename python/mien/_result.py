"""One frame's result as typed Python values: what ``mien.Detector`` returns, the JSON schema's fields."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Tuple

from ._measures import StoredMetrics


@dataclass(frozen=True)
class Face(StoredMetrics):
    """One face in one frame.

    Attributes:
        face_id: the face's ID, kept while it is tracked (from 0 in each run).
        bounds: ``(x, y, width, height)`` of the face's box, in pixels of the frame, origin at its top left.
        orientation: head pose in degrees: ``pitch`` (up +), ``yaw`` (the face's left +), ``roll``; absent
            for the detector alone.
        expressions: the 21 Affdex expressions, 0...100, by name (``smile``, ``browRaise``, ...).
        emotions: the 7 emotions and contempt, 0...100, by name.
        valence: -100...100; ``engagement``: 0...100.
        emoji: the 14 emoji, 0...100, and ``dominantEmoji``.
        gender, age, glasses: perceived gender, apparent age bracket (Affdex's), glasses; ``age_years``:
            apparent age in years.
        gaze: where the person looks, degrees: ``yaw``, ``pitch`` (both eyes), ``eyeYaw``, ``eyePitch`` (the
            eyes' rotation in the head), ``left`` and ``right`` (each eye); None when not measurable.
        blink_rate: blinks per minute over the last minute (streams with eye closure on; None for a face's
            first 5 s).
        points: Affdex's 34 facial points, ``(x, y)`` in pixels of the frame; None for the detector alone.
        Every metric of ``mien metrics`` is one of these attributes (a group's metric is a key of its dict:
        ``face.expressions["smile"]``, ``face.emoji["dominantEmoji"]``), or, for a metric kept as one number
        (``"stored": true`` in ``mien metrics --json``: ``valence``, ``engagement``, ``blink_rate``,
        ``looking_at_camera``, ...), a property named in snake case (``StoredMetrics``, written from the catalog).
        data: the face as the JSON schema has it (every field, including those above).
    """

    face_id: int
    bounds: Tuple[float, float, float, float]
    orientation: Optional[Dict[str, float]]
    expressions: Optional[Dict[str, Any]]
    emotions: Optional[Dict[str, Any]]
    emoji: Optional[Dict[str, Any]]
    gender: Optional[str]
    age: Optional[str]
    glasses: Optional[bool]
    age_years: Optional[float] = None
    gaze: Optional[Dict[str, Any]] = None
    points: Optional[List[Tuple[float, float]]] = field(default=None, repr=False)
    data: Dict[str, Any] = field(default_factory=dict, repr=False)

    @classmethod
    def from_dict(cls, face_id: int, data: Dict[str, Any]) -> "Face":
        box = data.get("faceBounds") or {}
        return cls(
            face_id=face_id,
            bounds=(float(box.get("x", 0)), float(box.get("y", 0)), float(box.get("width", 0)),
                    float(box.get("height", 0))),
            orientation=data.get("orientation"), expressions=data.get("expressions"),
            emotions=data.get("emotions"),
            emoji=data.get("emoji"), gender=data.get("gender"), age=data.get("age"), glasses=data.get("glasses"),
            age_years=data.get("ageYears"), gaze=data.get("gaze"),
            points=[(float(p["x"]), float(p["y"])) for p in data["facePoints"]] if data.get("facePoints") else None,
            data=data,
        )


@dataclass(frozen=True)
class Episode:
    """An episode of one face's metric, or a blink, starting or finishing on a frame.

    Attributes:
        face_id: the face.
        metric: ``expressions.smile``, ``emotions.joy``, ``emoji.smirk``, ``valence``, ``engagement``, or the
            blink events ``blink``, ``winkLeft``, ``winkRight`` (the person's eye).
        change: ``"started"`` (it has lasted its minimum duration) or ``"finished"``.
        onset: seconds, when the score reached the on threshold; ``apex``: when it was highest (so far);
            ``apex_value``: that score.
        offset: seconds, when it ended; ``ending``: why (``fell``, ``lost``, ``cut``, ``ended``); None for
            ``started``.
    """

    face_id: int
    metric: str
    change: str
    onset: float
    apex: float
    apex_value: float
    offset: Optional[float]
    ending: Optional[str]

    @property
    def duration(self) -> Optional[float]:
        """Seconds from onset to offset (None for ``started``)."""
        return None if self.offset is None else self.offset - self.onset

    @classmethod
    def from_dict(cls, data: Dict[str, Any]) -> "Episode":
        return cls(
            face_id=int(data["faceId"]), metric=str(data["metric"]), change=str(data["change"]),
            onset=float(data["onset"]), apex=float(data["apex"]), apex_value=float(data["apexValue"]),
            offset=None if data.get("offset") is None else float(data["offset"]), ending=data.get("ending"),
        )


@dataclass(frozen=True)
class Result:
    """One frame's result.

    Attributes:
        frame_index: the frame's position, from 0 in the order frames were given (0 again after ``reset``).
        timestamp: seconds, as the frame was given.
        width, height: the frame's size in pixels.
        faces: faces by ``face_id``; None when the frame was not processed (left out by ``rate``).
        found: faces first seen on this frame; ``lost``: faces no longer seen from this frame on.
        episodes: episodes of the faces' metrics and blinks that started or finished on this frame (streams).
        shot_cut: whether a shot cut comes before this frame (every face seen before it is in ``lost``).
    """

    frame_index: int
    timestamp: float
    width: Optional[int]
    height: Optional[int]
    faces: Optional[Dict[int, Face]]
    found: List[int]
    lost: List[int]
    episodes: List[Episode]
    shot_cut: bool
    _data: Dict[str, Any] = field(repr=False, compare=False)

    @property
    def processed(self) -> bool:
        """Whether the frame was analysed (Affdex reports unprocessed frames with no faces at all)."""
        return self.faces is not None

    def to_dict(self) -> Dict[str, Any]:
        """The result as ``mien detect`` prints it (``Schema/detector-result.schema.json``)."""
        return dict(self._data)

    @classmethod
    def from_dict(cls, data: Dict[str, Any]) -> "Result":
        faces = data.get("faces")
        return cls(
            frame_index=int(data["frameIndex"]), timestamp=float(data["timestamp"]),
            width=data.get("width"), height=data.get("height"),
            faces=None if faces is None else {int(key): Face.from_dict(int(key), value) for key, value in faces.items()},
            found=list(data.get("found", [])), lost=list(data.get("lost", [])),
            episodes=[Episode.from_dict(item) for item in data.get("episodes", [])],
            shot_cut=bool(data.get("shotCut", False)), _data=data,
        )
