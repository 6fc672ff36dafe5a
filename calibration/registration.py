"""Table registration: the homography between image pixels and table inches, fitted to anchor corners.

Every corner of every anchor seen takes part; with two or more anchors a RANSAC fit throws out an
anchor that was moved or misread, and a least-squares fit on the inliers follows. One anchor alone
still works (its four corners fix a homography exactly, with no check).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

import cv2
import numpy as np

from calibration.profile import TableProfile


class RegistrationError(ValueError):
    """No usable registration (for instance no anchor in view)."""


@dataclass(frozen=True)
class Registration:
    H_px_to_in: np.ndarray              # 3x3, image pixels -> table inches
    method: str                         # "anchors-ransac" (2+ anchors) or "single-anchor"
    anchors_seen: tuple[int, ...]       # anchors used in the fit
    anchors_rejected: tuple[int, ...]   # seen, but disagreeing with the others (moved?)
    rms_px: float                       # reprojection RMS of the used anchor corners
    image_size: tuple[int, int]         # (width_px, height_px)

    @property
    def H_in_to_px(self) -> np.ndarray:
        return np.linalg.inv(self.H_px_to_in)

    def to_table(self, points_px: np.ndarray) -> np.ndarray:
        """(N, 2) pixels -> (N, 2) table inches."""
        pts = np.asarray(points_px, np.float64).reshape(-1, 1, 2)
        return cv2.perspectiveTransform(pts, self.H_px_to_in).reshape(-1, 2)

    def to_image(self, points_in: np.ndarray) -> np.ndarray:
        """(N, 2) table inches -> (N, 2) pixels."""
        pts = np.asarray(points_in, np.float64).reshape(-1, 1, 2)
        return cv2.perspectiveTransform(pts, self.H_in_to_px).reshape(-1, 2)

    def px_per_in(self, point_in: tuple[float, float]) -> float:
        """Local image scale at a table point: pixels per inch (geometric mean of the two axes)."""
        x, y = point_in
        px = self.to_image(np.array([[x, y], [x + 1, y], [x, y + 1]]))
        return float(np.sqrt(np.linalg.norm(px[1] - px[0]) * np.linalg.norm(px[2] - px[0])))

    def as_json(self) -> dict:
        return {"method": self.method, "anchors_seen": list(self.anchors_seen),
                "anchors_rejected": list(self.anchors_rejected), "rms_px": round(self.rms_px, 4)}


def register(anchor_corners_px: Mapping[int, np.ndarray], profile: TableProfile,
             image_size: tuple[int, int], *, ransac_px: float = 3.0) -> Registration:
    """Fit pixels -> inches from the corners (id -> (4, 2) px, TL TR BR BL) of the anchors seen."""
    ids = sorted(i for i in anchor_corners_px if profile.anchor(i) is not None)
    if not ids:
        names = ", ".join(str(a.id) for a in profile.anchors)
        raise RegistrationError(f"no anchor in view (looked for markers {names} of {profile.dictionary})")
    px = np.vstack([np.asarray(anchor_corners_px[i], np.float64).reshape(4, 2) for i in ids])
    inch = np.vstack([np.array(profile.anchor(i).corners_in()) for i in ids])
    owner = np.repeat(ids, 4)
    if len(ids) == 1:
        h_in_to_px = cv2.getPerspectiveTransform(inch.astype(np.float32), px.astype(np.float32))
        used, rejected, method = ids, [], "single-anchor"
    else:
        h_in_to_px, mask = cv2.findHomography(inch, px, cv2.RANSAC, ransac_px)
        if h_in_to_px is None:
            raise RegistrationError("the anchors seen do not agree on one table plane")
        inlier = mask.ravel().astype(bool)
        # An anchor counts only when all four of its corners agree.
        used = [i for i in ids if inlier[owner == i].all()]
        rejected = [i for i in ids if i not in used]
        if not used:
            raise RegistrationError("the anchors seen do not agree on one table plane")
        keep = np.isin(owner, used)
        if len(used) == 1:
            h_in_to_px = cv2.getPerspectiveTransform(inch[keep].astype(np.float32), px[keep].astype(np.float32))
        else:
            h_in_to_px, _ = cv2.findHomography(inch[keep], px[keep], 0)
        method = "anchors-ransac" if len(used) > 1 else "single-anchor"
        px, inch = px[keep], inch[keep]
    predicted = cv2.perspectiveTransform(inch.reshape(-1, 1, 2), h_in_to_px).reshape(-1, 2)
    rms_px = float(np.sqrt(np.mean(np.sum((predicted - px) ** 2, axis=1))))
    return Registration(H_px_to_in=np.linalg.inv(h_in_to_px), method=method, anchors_seen=tuple(used),
                        anchors_rejected=tuple(rejected), rms_px=rms_px, image_size=tuple(image_size))
