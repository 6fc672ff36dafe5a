"""Identities and steady positions across frames.

- Marker figures keep their marker's id; colour figures get ids ("c1", "c2", ...) when first seen
  and keep them: each frame's colour bases are matched to the tracks of their side, nearest pairs
  first, within `gate_in`.
- A figure not seen in a frame (a hand over the table) stays at its last position, marked hidden,
  for `keep_frames` frames. When a base of its side turns up within `rematch_in` of where a figure
  not seen this frame was, it is that figure (it was picked up and put down) - unless the figure
  vanished in this very frame and a hand now covers its last place (`covered`): then it is under
  the hand, and what shows at the hand's edge (another figure's body peeping out, a sleeve) is no
  reason to move it. A figure carried off is hidden first anyway, and claims its base later.
- A base found `edge_pull_in` or more from its figure's last place while a hand covers that place
  is the arc the hand leaves showing at its edge, its ring's fit pulled off the base: the figure
  is under the hand, hidden at its last place, and that arc is no figure of its own.
- A figure that moves less than `jitter_in` keeps its reported position, so detection noise does
  not flicker the page; any larger move is reported at once.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from vision.detections import Detections
from vision.settings import VISION_DEFAULTS


@dataclass
class _Track:
    figure_id: str
    marker_id: int
    side: object
    detected_by: str
    xy_in: np.ndarray
    confidence: float
    corners_px: np.ndarray
    last_seen: int
    hidden: bool = False


class Tracker:
    def __init__(self, *, jitter_in: float | None = None, keep_frames: int | None = None,
                 gate_in: float = 1.0, rematch_in: float = 12.0, edge_pull_in: float | None = None):
        self.jitter_in = VISION_DEFAULTS["jitter_in"] if jitter_in is None else jitter_in
        self.edge_pull_in = VISION_DEFAULTS["hand_edge_pull_in"] if edge_pull_in is None else edge_pull_in
        self.keep_frames = int(VISION_DEFAULTS["hidden_keep_frames"] if keep_frames is None else keep_frames)
        self.gate_in = gate_in
        self.rematch_in = rematch_in
        self.tracks: dict[str, _Track] = {}
        self.frame = -1
        self._next_colour = 1

    def update(self, detections: Detections, covered: Callable[[np.ndarray], np.ndarray] | None = None) -> Detections:
        """This frame's detections in; every tracked figure out (seen or hidden), with stable ids.
        `covered`: table points (N, 2) -> (N,) bool, whether a hand covers them in this frame; asked
        only when a figure would claim a base farther off than `gate_in`, or `edge_pull_in` or more
        off within the gate."""
        self.frame += 1
        known: dict[str, bool] = {}

        def covers(track: _Track) -> bool:
            """A hand covers the figure's last place now (asked once a frame per figure)."""
            if covered is None:
                return False
            if track.figure_id not in known:
                known[track.figure_id] = bool(np.asarray(covered(track.xy_in[None, :])).ravel()[0])
            return known[track.figure_id]

        seen: set[str] = set()
        colour_rows = []
        for k in range(len(detections)):
            if detections.detected_by[k] == "marker":
                fid = str(detections.figure_id[k])
                self._see(fid, detections, k)
                seen.add(fid)
            else:
                colour_rows.append(k)
        # sides in the order the detections give them (a set's order of strings changes from one
        # run to the next, and with it which new base gets which id)
        under: set[str] = set()
        for side in dict.fromkeys(detections.side[k] for k in colour_rows):
            rows = [k for k in colour_rows if detections.side[k] == side]
            under |= self._match_colour(detections, rows, side, seen, covers)
        for fid, track in list(self.tracks.items()):
            if fid not in seen or fid in under:
                track.hidden = True
                if self.frame - track.last_seen > self.keep_frames:
                    del self.tracks[fid]
        return self.current()

    def _see(self, fid: str, det: Detections, k: int) -> None:
        xy = np.asarray(det.xy_in[k], np.float64)
        track = self.tracks.get(fid)
        if track is None:
            self.tracks[fid] = _Track(fid, int(det.marker_id[k]), det.side[k], str(det.detected_by[k]), xy,
                                      float(det.confidence[k]), np.asarray(det.corners_px[k]), self.frame)
            return
        if np.hypot(*(xy - track.xy_in)) >= self.jitter_in:
            track.xy_in = xy
        track.confidence = float(det.confidence[k])
        track.corners_px = np.asarray(det.corners_px[k])
        track.last_seen = self.frame
        track.hidden = False

    def _match_colour(self, det: Detections, rows: list[int], side, seen: set[str],
                      covers: Callable[[_Track], bool]) -> set[str]:
        """Match this frame's bases of one side to its tracks; the ids of the figures found under a
        hand (their arc at its edge dropped)."""
        tracks = [t for t in self.tracks.values() if t.detected_by == "colour" and t.side == side]
        unmatched = set(rows)
        under: set[str] = set()
        # Near pairs first; then a figure not seen this frame claims a base of its side farther off.
        for gate, pool in ((self.gate_in, tracks), (self.rematch_in, tracks)):
            free = [t for t in pool if t.figure_id not in seen]
            pairs = sorted((float(np.hypot(*(det.xy_in[k] - t.xy_in))), k, t.figure_id)
                           for k in unmatched for t in free)
            for dist, k, fid in pairs:
                if dist > gate:
                    break
                if k not in unmatched or fid in seen:
                    continue
                track = self.tracks[fid]
                if dist > self.gate_in:
                    # a figure that vanished this very frame under a hand is not moved to what shows
                    # at the hand's edge
                    if not track.hidden and covers(track):
                        continue
                elif dist >= self.edge_pull_in and covers(track):
                    seen.add(fid)
                    under.add(fid)
                    unmatched.discard(k)
                    continue
                self._see(fid, det, k)
                seen.add(fid)
                unmatched.discard(k)
        for k in sorted(unmatched, key=lambda k: (det.xy_in[k][1], det.xy_in[k][0])):
            fid = f"c{self._next_colour}"
            self._next_colour += 1
            self._see(fid, det, k)
            seen.add(fid)
        return under

    def current(self) -> Detections:
        tracks = sorted(self.tracks.values(), key=lambda t: (t.detected_by != "marker", t.marker_id,
                                                             _colour_number(t.figure_id)))
        if not tracks:
            return Detections.empty()
        return Detections(figure_id=[t.figure_id for t in tracks], xy_in=np.array([t.xy_in for t in tracks]),
                          marker_id=[t.marker_id for t in tracks], side=[t.side for t in tracks],
                          detected_by=[t.detected_by for t in tracks], confidence=[t.confidence for t in tracks],
                          corners_px=np.array([t.corners_px for t in tracks]), hidden=[t.hidden for t in tracks])


def _colour_number(fid: str) -> int:
    return int(fid[1:]) if fid[1:].isdigit() else 0
