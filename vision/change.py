"""Has this part of the frame changed? A cheap test that lets a stream skip work.

The frame is shrunk (`SCALE` times, area-averaged: sensor noise mostly averages out) and a region
is compared with a snapshot taken when it was last examined. A figure that moved, a hand, a new
figure or a bumped camera change the region far more than noise does; a change in the light does
too, which only costs a search, never a wrong answer.

What changed since a snapshot is either settled (the same as in the previous frame: something put
down, or taken away) or still moving (a hand passing over): `settled_change` tells them apart, part
by connected part, so a search can wait for a moving part to settle rather than look under a hand
that will be elsewhere next frame, and `snapshot_settled` keeps the moving part unexamined.
"""
from __future__ import annotations

import cv2
import numpy as np

SCALE = 4
MEAN_DIFF = 2.5          # grey levels (mean absolute difference over the region)
PEAK_DIFF = 24.0         # grey levels: a shrunk pixel changed by this much is a real change ...
MIN_CHANGED_PX = 4       # ... and this many of them anywhere in the region (a figure in a large tile)
JOIN_PX = 5              # shrunk pixels: changed parts closer than this are one part


def shrink(gray: np.ndarray) -> np.ndarray:
    h, w = gray.shape[:2]
    return cv2.resize(gray, (max(1, w // SCALE), max(1, h // SCALE)), interpolation=cv2.INTER_AREA)


class ChangeWatch:
    def __init__(self):
        self._snapshots: dict[object, tuple[tuple[int, int, int, int], np.ndarray]] = {}
        self.small: np.ndarray | None = None
        self.previous: np.ndarray | None = None       # the previous frame, shrunk
        self._settled: dict[object, np.ndarray] = {}    # this frame's settled part of each region asked

    def new_frame(self, gray: np.ndarray) -> None:
        self.previous, self.small = self.small, shrink(gray)
        self._settled.clear()

    def clear(self) -> None:
        self._snapshots.clear()

    def _box(self, points_px: np.ndarray) -> tuple[int, int, int, int] | None:
        pts = np.asarray(points_px, np.float64).reshape(-1, 2) / SCALE
        h, w = self.small.shape[:2]
        x0, y0 = np.floor(pts.min(axis=0)).astype(int)
        x1, y1 = np.ceil(pts.max(axis=0)).astype(int) + 1
        x0, y0, x1, y1 = max(0, x0), max(0, y0), min(w, x1), min(h, y1)
        if x1 - x0 < 2 or y1 - y0 < 2:
            return None
        return int(x0), int(y0), int(x1), int(y1)

    def snapshot(self, key, points_px: np.ndarray) -> None:
        """Remember the region around these frame points (their bounding box) as it is now."""
        box = self._box(points_px)
        if box is None:
            self._snapshots.pop(key, None)
            return
        x0, y0, x1, y1 = box
        self._snapshots[key] = (box, self.small[y0:y1, x0:x1].copy())

    def changed(self, key) -> bool:
        """True when the region has changed since its snapshot, or has none."""
        return self.changed_box_px(key) is not None

    def changed_box_px(self, key) -> tuple[float, float, float, float] | None:
        """None when the region has not changed since its snapshot; else the frame-pixel box
        (x0, y0, x1, y1) of what changed (the whole region when it has no snapshot, or when the
        light changed all over it)."""
        return self._compare(key)[0]

    def _compare(self, key):
        """(changed_box_px's answer, and the region's pixels that changed strongly when that box is
        theirs, else None)."""
        stored = self._snapshots.get(key)
        if stored is None:
            return (0.0, 0.0, float(self.small.shape[1] * SCALE), float(self.small.shape[0] * SCALE)), None
        (x0, y0, x1, y1), patch = stored
        now = self.small[y0:y1, x0:x1]
        whole = (float(x0 * SCALE), float(y0 * SCALE), float(x1 * SCALE), float(y1 * SCALE))
        if now.shape != patch.shape:
            return whole, None
        diff = cv2.absdiff(now, patch)
        strong = diff > PEAK_DIFF
        if int(np.count_nonzero(strong)) >= MIN_CHANGED_PX:
            return _box_px(strong, x0, y0), strong
        return (whole if float(diff.mean()) > MEAN_DIFF else None), None

    def settled_change(self, key) -> tuple[tuple[float, float, float, float] | None, bool]:
        """(the frame-pixel box of what changed since the snapshot and is still, or None; whether
        another part of what changed is still moving). A connected part of the change (parts closer
        than JOIN_PX are one) is moving when any of it, or a pixel next to it, differs from the
        previous frame too. A change of the light all over the region, a region with no snapshot,
        or a first frame: all of it, settled."""
        box, strong = self._compare(key)
        if strong is None or self.previous is None or self.previous.shape != self.small.shape:
            return box, False
        (x0, y0, x1, y1), _ = self._snapshots[key]
        now = self.small[y0:y1, x0:x1]
        strong = strong.astype(np.uint8)
        moving = cv2.dilate((cv2.absdiff(now, self.previous[y0:y1, x0:x1]) > PEAK_DIFF).astype(np.uint8),
                            np.ones((3, 3), np.uint8))
        if not (moving & strong).any():             # nothing that changed moves (a hand that left this frame)
            self._settled[key] = strong.astype(bool)
            return box, False
        # (Parts a few pixels apart are one: a hand over a gridded mat matches the grid's lines here
        # and there, and its pieces between them are as much in motion as its edge.)
        _, labels = cv2.connectedComponents(cv2.dilate(strong, np.ones((JOIN_PX, JOIN_PX), np.uint8)),
                                            connectivity=8)
        in_motion = np.unique(labels[(moving > 0) & (strong > 0)])
        settled = (strong > 0) & ~np.isin(labels, in_motion)
        self._settled[key] = settled
        if int(np.count_nonzero(settled)) < MIN_CHANGED_PX:
            return None, True
        return _box_px(settled, x0, y0), True

    def changed_near(self, key, points_px) -> bool:
        """Whether the region changed since its snapshot within the box round these frame points
        (to the shrunk pixel), or has no snapshot."""
        stored = self._snapshots.get(key)
        if stored is None:
            return True
        (x0, y0, x1, y1), patch = stored
        pts = np.asarray(points_px, np.float64).reshape(-1, 2) / SCALE
        c0, r0 = np.floor(pts.min(axis=0)).astype(int) - (x0, y0)
        c1, r1 = np.ceil(pts.max(axis=0)).astype(int) + 1 - (x0, y0)
        c0, r0, c1, r1 = max(0, c0), max(0, r0), min(x1 - x0, c1), min(y1 - y0, r1)
        if c1 <= c0 or r1 <= r0 or self.small[y0:y1, x0:x1].shape != patch.shape:
            return True
        now = self.small[y0 + r0:y0 + r1, x0 + c0:x0 + c1]
        return bool((cv2.absdiff(now, patch[r0:r1, c0:c1]) > PEAK_DIFF).any())

    def snapshot_settled(self, key) -> None:
        """Take in the settled part of the region (as `settled_change` found it this frame) and leave
        the moving part as it was, so that it still shows as changed once it settles."""
        stored, settled = self._snapshots.get(key), self._settled.get(key)
        if stored is None or settled is None:
            return
        (x0, y0, x1, y1), patch = stored
        patch[settled] = self.small[y0:y1, x0:x1][settled]


def _box_px(mask: np.ndarray, x0: int, y0: int) -> tuple[float, float, float, float]:
    """The frame-pixel box (x0, y0, x1, y1) of a shrunk region's pixels `mask`, the region's corner
    at shrunk pixel (x0, y0)."""
    ys, xs = np.nonzero(mask)
    return (float((x0 + xs.min()) * SCALE), float((y0 + ys.min()) * SCALE),
            float((x0 + xs.max() + 1) * SCALE), float((y0 + ys.max() + 1) * SCALE))
