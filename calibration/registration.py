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


CORNER_NOISE_PX = 0.25   # how well a marker corner found in a photo is placed, at best (1 sigma)


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
    table_error_in: float = 0.0         # how far off (95%) a place on the table may be, at worst

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
                "anchors_rejected": list(self.anchors_rejected), "rms_px": round(self.rms_px, 4),
                "table_error_in": round(self.table_error_in, 3)}


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
    # The corners' noise: what the fit's spare equations show, never below what corners found in
    # a photo are good to.
    spare = 2 * len(px) - 8
    noise_px = max(CORNER_NOISE_PX, rms_px * np.sqrt(2 * len(px) / spare) if spare > 0 else 0.0)
    table = np.array([[0, 0], [profile.width_in, 0], [profile.width_in, profile.depth_in],
                      [0, profile.depth_in], [profile.width_in / 2, profile.depth_in / 2]], np.float64)
    error_in = placement_error_in(h_in_to_px, inch, table, noise_px)
    return Registration(H_px_to_in=np.linalg.inv(h_in_to_px), method=method, anchors_seen=tuple(used),
                        anchors_rejected=tuple(rejected), rms_px=rms_px, image_size=tuple(image_size),
                        table_error_in=float(error_in.max()))


def _jacobians(h: np.ndarray, points_in: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For each table point: d(pixel)/d(the homography's 8 free entries), (N, 2, 8), and
    d(pixel)/d(table point), (N, 2, 2), of h (inches -> pixels, h[2, 2] = 1)."""
    h = h / h[2, 2]
    x, y = points_in[:, 0], points_in[:, 1]
    w = h[2, 0] * x + h[2, 1] * y + 1.0
    u = (h[0, 0] * x + h[0, 1] * y + h[0, 2]) / w
    v = (h[1, 0] * x + h[1, 1] * y + h[1, 2]) / w
    one, zero = np.ones_like(x), np.zeros_like(x)
    du = np.stack([x, y, one, zero, zero, zero, -u * x, -u * y], axis=1) / w[:, None]
    dv = np.stack([zero, zero, zero, x, y, one, -v * x, -v * y], axis=1) / w[:, None]
    dp = np.stack([np.stack([h[0, 0] - u * h[2, 0], h[0, 1] - u * h[2, 1]], axis=1),
                   np.stack([h[1, 0] - v * h[2, 0], h[1, 1] - v * h[2, 1]], axis=1)], axis=1) / w[:, None, None]
    return np.stack([du, dv], axis=1), dp


def placement_error_in(h_in_to_px: np.ndarray, anchors_in: np.ndarray, points_in: np.ndarray,
                       noise_px: float) -> np.ndarray:
    """How far off (inches, 95%) each table point's place may be, when the homography is fitted
    to anchor corners at `anchors_in` found with `noise_px` of noise (first-order propagation:
    two adjacent anchors fix their own corner of the table well and the far side badly)."""
    j, _ = _jacobians(h_in_to_px, np.asarray(anchors_in, np.float64))
    normal = np.einsum("nik,nil->kl", j, j)
    cov_h = noise_px ** 2 * np.linalg.pinv(normal)
    g, dp = _jacobians(h_in_to_px, np.asarray(points_in, np.float64))
    # A fixed pixel read through a homography off by dh lands off by -dp^-1 g dh on the table.
    m = np.linalg.solve(dp, g)
    cov_in = m @ cov_h @ np.transpose(m, (0, 2, 1))
    # 95% of a 2-D normal lies within 2.45 of its largest standard deviation, at most.
    return 2.45 * np.sqrt(np.linalg.eigvalsh(cov_in)[:, -1])
