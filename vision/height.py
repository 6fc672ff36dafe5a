"""Where the camera is, from the table registration: for things that stand above the table.

A homography from the table plane to the image decomposes, given the camera matrix K, into the
camera's rotation and position (Zhang's method): H ~ K [r1 r2 t]. With the camera centre known in
table inches, a point seen `h` inches above the table can be put back where it really is: the ray
from the camera through the point meets the table plane farther out than the point, by the factor
Hc / (Hc - h) about the camera's foot (Hc is the camera's height above the table).

Without intrinsics the focal length is estimated from the homography itself, assuming square
pixels and the principal point at the image centre (true enough for webcams and phones); when the
view is too square-on for that (the estimate is ill-posed near zero tilt) the house-default field
of view is used. Near zero tilt a focal error only scales the small correction, so this is benign.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from vision.settings import VISION_DEFAULTS


@dataclass(frozen=True)
class CameraPose:
    camera_matrix: np.ndarray     # K, 3x3, pixels
    rotation: np.ndarray          # R, table frame -> camera frame (table z points into the table)
    translation: np.ndarray       # t, (3,)
    focal_source: str             # "intrinsics", "estimated" or "default-fov"

    @property
    def centre_in(self) -> np.ndarray:
        """Camera centre in the table frame: (x, y, z) inches, z < 0 above the table."""
        return -self.rotation.T @ self.translation

    @property
    def height_in(self) -> float:
        return float(-self.centre_in[2])

    @property
    def tilt_deg(self) -> float:
        """Angle between the optical axis and the table's normal."""
        return math.degrees(math.acos(min(1.0, abs(float(self.rotation[2, 2])))))

    def plane_homography(self, height_in: float) -> np.ndarray:
        """Table inches (x, y) on the plane `height_in` above the table -> pixels."""
        r, t = self.rotation, self.translation
        return self.camera_matrix @ np.column_stack([r[:, 0], r[:, 1], t - r[:, 2] * height_in])

    def lift(self, xy_table_in: np.ndarray, height_in: float | np.ndarray) -> np.ndarray:
        """(N, 2) points where rays meet the table plane -> (N, 2) true positions of the points on
        those rays that are `height_in` above the table."""
        xy = np.asarray(xy_table_in, np.float64).reshape(-1, 2)
        c = self.centre_in
        factor = (self.height_in - np.asarray(height_in, np.float64)) / self.height_in
        return c[:2] + (xy - c[:2]) * np.reshape(factor, (-1, 1))


def _principal_point(image_size: tuple[int, int]) -> tuple[float, float]:
    w, h = image_size
    return (w - 1) / 2.0, (h - 1) / 2.0


def estimate_focal_px(H_in_to_px: np.ndarray, image_size: tuple[int, int]) -> float | None:
    """The focal length (pixels) that makes the homography a rotation plus translation, with the
    principal point at the image centre and square pixels; None when the view is too square-on."""
    cx, cy = _principal_point(image_size)
    h = np.array([[1, 0, -cx], [0, 1, -cy], [0, 0, 1.0]]) @ np.asarray(H_in_to_px, np.float64)
    h = h / np.linalg.norm(h[:, :2])
    (h11, h12), (h21, h22), (h31, h32) = h[0, :2], h[1, :2], h[2, :2]
    # Orthogonal columns and equal norms of K^-1 [h1 h2], linear in x = 1 / f^2.
    a = np.array([h11 * h12 + h21 * h22, h11 ** 2 + h21 ** 2 - h12 ** 2 - h22 ** 2])
    b = np.array([-h31 * h32, h32 ** 2 - h31 ** 2])
    denominator = float(a @ a)
    if denominator <= 0:
        return None
    inv_f2 = float(a @ b) / denominator
    if inv_f2 <= 0:
        return None
    f = 1.0 / math.sqrt(inv_f2)
    # Ill-posed near zero tilt: the perspective terms are then tiny compared with their noise.
    perspective = math.hypot(h31, h32) * f
    w = image_size[0]
    hfov = math.degrees(2 * math.atan(w / 2 / f))
    lo, hi = VISION_DEFAULTS["min_plausible_hfov_deg"], VISION_DEFAULTS["max_plausible_hfov_deg"]
    if perspective < VISION_DEFAULTS["min_perspective_for_focal"] or not lo <= hfov <= hi:
        return None
    return f


def default_camera_matrix(image_size: tuple[int, int]) -> np.ndarray:
    w, _ = image_size
    f = (w / 2) / math.tan(math.radians(VISION_DEFAULTS["default_hfov_deg"]) / 2)
    cx, cy = _principal_point(image_size)
    return np.array([[f, 0, cx], [0, f, cy], [0, 0, 1.0]])


def pose_from_homography(H_in_to_px: np.ndarray, camera_matrix: np.ndarray,
                         focal_source: str = "intrinsics") -> CameraPose:
    m = np.linalg.inv(camera_matrix) @ np.asarray(H_in_to_px, np.float64)
    scale = 2.0 / (np.linalg.norm(m[:, 0]) + np.linalg.norm(m[:, 1]))
    m = m * scale
    if m[2, 2] < 0:                  # the table lies in front of the camera
        m = -m
    r1, r2, t = m[:, 0], m[:, 1], m[:, 2]
    r = np.column_stack([r1, r2, np.cross(r1, r2)])
    u, _, vt = np.linalg.svd(r)     # nearest rotation
    rotation = u @ vt
    if np.linalg.det(rotation) < 0:
        rotation = u @ np.diag([1, 1, -1.0]) @ vt
    return CameraPose(np.asarray(camera_matrix, np.float64), rotation, t, focal_source)


def camera_pose(H_px_to_in: np.ndarray, image_size: tuple[int, int], camera_matrix: np.ndarray | None = None
                ) -> CameraPose:
    """The camera's pose over the table from a registration's homography (pixels -> inches).

    `camera_matrix` from calibration when there is one; otherwise the focal length is estimated."""
    H = np.linalg.inv(np.asarray(H_px_to_in, np.float64))
    if camera_matrix is not None:
        return pose_from_homography(H, camera_matrix, "intrinsics")
    f = estimate_focal_px(H, image_size)
    if f is None:
        return pose_from_homography(H, default_camera_matrix(image_size), "default-fov")
    cx, cy = _principal_point(image_size)
    return pose_from_homography(H, np.array([[f, 0, cx], [0, f, cy], [0, 0, 1.0]]), "estimated")
