"""A known pinhole camera looking down at the table, for synthetic photos with exact truth.

Table frame: x right, y down (a top-down picture), z into the table, so a point above the table
has z < 0. The camera sits above the table's centre, tilted away from straight down.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class PinholeCamera:
    camera_matrix: np.ndarray       # K, 3x3, pixels
    rotation: np.ndarray            # R, 3x3: table frame -> camera frame
    centre_in: np.ndarray           # camera centre in the table frame, inches
    image_size: tuple[int, int]     # (width_px, height_px)

    @property
    def translation(self) -> np.ndarray:
        return -self.rotation @ self.centre_in

    def plane_homography(self, height_in: float = 0.0) -> np.ndarray:
        """3x3 homography from table inches (x, y) on the plane `height_in` above the table to pixels."""
        r = self.rotation
        t = self.translation + r[:, 2] * (-height_in)
        return self.camera_matrix @ np.column_stack([r[:, 0], r[:, 1], t])

    def project(self, points_in: np.ndarray) -> np.ndarray:
        """(N, 3) table-frame points (z < 0 above the table) -> (N, 2) pixels."""
        cam = (self.rotation @ (np.asarray(points_in, float).T - self.centre_in[:, None]))
        uvw = self.camera_matrix @ cam
        return (uvw[:2] / uvw[2]).T


def _look_at(centre: np.ndarray, target: np.ndarray, roll_deg: float) -> np.ndarray:
    forward = target - centre
    forward /= np.linalg.norm(forward)
    down_ref = np.array([0.0, 1.0, 0.0])           # image y follows table y before rolling
    down = down_ref - forward * (down_ref @ forward)
    if np.linalg.norm(down) < 1e-6:
        down = np.array([1.0, 0.0, 0.0]) - forward * forward[0]
    down /= np.linalg.norm(down)
    right = np.cross(down, forward)
    roll = math.radians(roll_deg)
    c, s = math.cos(roll), math.sin(roll)
    right, down = c * right + s * down, -s * right + c * down
    return np.vstack([right, down, forward])


def camera_over_table(width_in: float, depth_in: float, image_size: tuple[int, int], *,
                      tilt_deg: float = 0.0, azimuth_deg: float = 90.0, roll_deg: float = 0.0,
                      hfov_deg: float = 65.0, margin: float = 0.04,
                      look_offset_in: tuple[float, float] = (0.0, 0.0)) -> PinholeCamera:
    """A camera tilted `tilt_deg` from vertical, seen from `azimuth_deg` (90 = from the y = depth
    edge), rolled about its axis, and just far enough away that the whole table fits the frame."""
    w_px, h_px = image_size
    f_px = (w_px / 2) / math.tan(math.radians(hfov_deg) / 2)
    k = np.array([[f_px, 0, (w_px - 1) / 2], [0, f_px, (h_px - 1) / 2], [0, 0, 1.0]])
    target = np.array([width_in / 2 + look_offset_in[0], depth_in / 2 + look_offset_in[1], 0.0])
    t, a = math.radians(tilt_deg), math.radians(azimuth_deg)
    direction = np.array([math.sin(t) * math.cos(a), math.sin(t) * math.sin(a), -math.cos(t)])
    corners = np.array([[0, 0, 0], [width_in, 0, 0], [width_in, depth_in, 0], [0, depth_in, 0]], float)
    lo, hi = 1.0, 2000.0
    for _ in range(60):   # bisect the distance at which the table just fits inside the margins
        dist = (lo + hi) / 2
        centre = target + dist * direction
        cam = PinholeCamera(k, _look_at(centre, target, roll_deg), centre, image_size)
        px = cam.project(corners)
        fits = (px[:, 0].min() >= margin * w_px and px[:, 0].max() <= (1 - margin) * w_px
                and px[:, 1].min() >= margin * h_px and px[:, 1].max() <= (1 - margin) * h_px)
        lo, hi = (lo, dist) if fits else (dist, hi)
    centre = target + hi * direction
    return PinholeCamera(k, _look_at(centre, target, roll_deg), centre, image_size)
