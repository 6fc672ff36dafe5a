"""One validated, column-oriented container of the figures found in a frame.

Row k of every array is one figure. It flows from detection through tracking to drawing, and
becomes Scene figures at the end (`to_figures`). Instances are immutable: methods return new ones.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Mapping

import numpy as np

from measure.scene import Figure


def _column(values, dtype, n: int, name: str, shape_tail: tuple = ()) -> np.ndarray:
    arr = np.asarray(values, dtype=dtype)
    if arr.shape != (n, *shape_tail):
        raise ValueError(f"Detections.{name}: expected shape {(n, *shape_tail)}, got {arr.shape}")
    arr.setflags(write=False)
    return arr


@dataclass(frozen=True)
class Detections:
    figure_id: np.ndarray       # (N,) str: "m12" for marker 12, "c3" for a colour figure
    xy_in: np.ndarray           # (N, 2) float: table inches
    marker_id: np.ndarray       # (N,) int: -1 for colour figures
    side: np.ndarray            # (N,) object: side name or None
    detected_by: np.ndarray     # (N,) str: "marker" or "colour"
    confidence: np.ndarray      # (N,) float in [0, 1]
    corners_px: np.ndarray      # (N, 4, 2) float: marker corners in the frame, NaN for colour figures
    hidden: np.ndarray = field(default=None)   # (N,) bool: tracked, not seen in this frame

    def __post_init__(self):
        n = len(np.asarray(self.figure_id))
        set_ = object.__setattr__
        set_(self, "figure_id", _column(self.figure_id, object, n, "figure_id"))
        set_(self, "xy_in", _column(self.xy_in, np.float64, n, "xy_in", (2,)) if n else np.zeros((0, 2)))
        set_(self, "marker_id", _column(self.marker_id, np.int64, n, "marker_id"))
        set_(self, "side", _column(self.side, object, n, "side"))
        set_(self, "detected_by", _column(self.detected_by, object, n, "detected_by"))
        set_(self, "confidence", _column(self.confidence, np.float64, n, "confidence"))
        set_(self, "corners_px", _column(self.corners_px, np.float64, n, "corners_px", (4, 2))
             if n else np.zeros((0, 4, 2)))
        hidden = np.zeros(n, bool) if self.hidden is None else self.hidden
        set_(self, "hidden", _column(hidden, bool, n, "hidden"))
        if len(set(self.figure_id.tolist())) != n:
            raise ValueError("Detections.figure_id: ids must be unique")

    def __len__(self) -> int:
        return len(self.figure_id)

    @classmethod
    def empty(cls) -> "Detections":
        return cls(figure_id=[], xy_in=np.zeros((0, 2)), marker_id=[], side=[], detected_by=[],
                   confidence=[], corners_px=np.zeros((0, 4, 2)))

    @classmethod
    def from_markers(cls, marker_ids: Iterable[int], xy_in: np.ndarray, corners_px: np.ndarray,
                     confidence: Iterable[float]) -> "Detections":
        ids = [int(i) for i in marker_ids]
        n = len(ids)
        return cls(figure_id=[f"m{i}" for i in ids], xy_in=np.asarray(xy_in).reshape(n, 2), marker_id=ids,
                   side=[None] * n, detected_by=["marker"] * n, confidence=list(confidence),
                   corners_px=np.asarray(corners_px).reshape(n, 4, 2))

    @classmethod
    def from_colour(cls, figure_ids: Iterable[str], xy_in: np.ndarray, sides: Iterable[str],
                    confidence: Iterable[float]) -> "Detections":
        """Colour-base figures: no marker (-1), no corners (NaN)."""
        ids = list(figure_ids)
        n = len(ids)
        return cls(figure_id=ids, xy_in=np.asarray(xy_in, np.float64).reshape(n, 2), marker_id=[-1] * n,
                   side=list(sides), detected_by=["colour"] * n, confidence=list(confidence),
                   corners_px=np.full((n, 4, 2), np.nan))

    def __getitem__(self, index) -> "Detections":
        """Rows by a boolean mask, an index array or a slice."""
        return Detections(**{name: getattr(self, name)[index] for name in _COLUMNS})

    def concat(self, other: "Detections") -> "Detections":
        return Detections(**{name: np.concatenate([getattr(self, name), getattr(other, name)])
                             for name in _COLUMNS})

    def to_figures(self, roster: Mapping[str, Mapping] | None = None, base_in: float = 1.0,
                   side_bases: Mapping[str, float] | None = None) -> tuple[Figure, ...]:
        """Scene figures, with name, side, type, base and painted from the roster where it has them;
        a colour figure's base else its side's (`side_bases`, diameters in inches), else `base_in`."""
        roster = roster or {}
        side_bases = side_bases or {}
        figures = []
        for k in range(len(self)):
            fid = str(self.figure_id[k])
            entry = roster.get(fid, {})
            own = side_bases.get(self.side[k], base_in) if self.detected_by[k] == "colour" else base_in
            figures.append(Figure(
                id=fid, x=float(self.xy_in[k, 0]), y=float(self.xy_in[k, 1]),
                base_in=float(entry.get("base", own)),
                side=entry.get("side", self.side[k]), type=entry.get("type"),
                marker=int(self.marker_id[k]) if self.marker_id[k] >= 0 else None,
                detected_by=str(self.detected_by[k]), confidence=float(self.confidence[k]),
                painted=bool(entry.get("painted", True)), name=entry.get("name"),
                hidden=bool(self.hidden[k])))
        return tuple(figures)


_COLUMNS = ("figure_id", "xy_in", "marker_id", "side", "detected_by", "confidence", "corners_px", "hidden")
