"""Drawing helpers for the harder photos, on render.py's supersampled canvas: solids, pictures laid
flat (felt, paper), soft shadows, and where a raised thing hides the table from this camera.
Heights are inches above the table."""
from __future__ import annotations

import math

import cv2
import numpy as np
import shapely
from shapely.geometry import Polygon

RGB = tuple[int, int, int]

# Where the room's light comes from: shadows fall this many inches per inch of height.
SHADOW_SLANT = (0.35, 0.25)


def to_canvas(canvas, ring_in: np.ndarray, height_in: float = 0.0) -> np.ndarray:
    pts = np.asarray(ring_in, np.float64).reshape(-1, 1, 2)
    return cv2.perspectiveTransform(pts, canvas.homography(height_in)).reshape(-1, 2)


def circle(cx: float, cy: float, r: float, n: int = 32) -> np.ndarray:
    t = np.linspace(0, 2 * math.pi, n, endpoint=False)
    return np.column_stack([cx + r * np.cos(t), cy + r * np.sin(t)])


def rect(cx: float, cy: float, w: float, h: float, yaw_deg: float) -> np.ndarray:
    c, s = math.cos(math.radians(yaw_deg)), math.sin(math.radians(yaw_deg))
    local = np.array([[-w / 2, -h / 2], [w / 2, -h / 2], [w / 2, h / 2], [-w / 2, h / 2]])
    return local @ np.array([[c, s], [-s, c]]) + (cx, cy)


def shaded(rgb: RGB, k: float) -> RGB:
    return tuple(int(np.clip(c * k, 0, 255)) for c in rgb)


def solid(canvas, ring_in: np.ndarray, z0: float, z1: float, top_rgb: RGB, wall: float = 0.6) -> None:
    """A convex prism standing from height z0 to z1: walls a shade darker, then the top face."""
    walls = np.vstack([to_canvas(canvas, ring_in, z0), to_canvas(canvas, ring_in, z1)])
    canvas.fill_hull(walls, shaded(top_rgb, wall))
    canvas.fill([ring_in], top_rgb, z1)


def tube(canvas, centres_in: np.ndarray, heights_in: np.ndarray, radii_in: np.ndarray, rgb: RGB) -> None:
    """A round part: the hull of circles (one per centre, height and radius), e.g. a leaning torso."""
    pts = np.vstack([to_canvas(canvas, circle(x, y, r, 20), z)
                     for (x, y), z, r in zip(centres_in, heights_in, radii_in)])
    canvas.fill_hull(pts, rgb)


def _roi(canvas, pts: np.ndarray, pad: int):
    h, w = canvas.image.shape[:2]
    x0, y0 = np.floor(pts.min(axis=0)).astype(int) - pad
    x1, y1 = np.ceil(pts.max(axis=0)).astype(int) + pad
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
    return (x0, y0, x1, y1) if x1 > x0 and y1 > y0 else None


def paste(canvas, image_bgr: np.ndarray, alpha: np.ndarray | None, px_to_in: np.ndarray,
          height_in: float = 0.0) -> None:
    """Lay a picture flat at a height: its pixel (u, v, 1) is table point px_to_in @ (u, v, 1).
    `alpha` (float 0-1, same size) blends it over what is there."""
    h, w = image_bgr.shape[:2]
    corners = np.array([[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]], np.float64)
    corners_in = cv2.perspectiveTransform(corners.reshape(-1, 1, 2), px_to_in).reshape(-1, 2)
    roi = _roi(canvas, to_canvas(canvas, corners_in, height_in), 2)
    if roi is None:
        return
    x0, y0, x1, y1 = roi
    shift = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1.0]])
    m = shift @ canvas.homography(height_in) @ px_to_in
    size = (x1 - x0, y1 - y0)
    colour = cv2.warpPerspective(image_bgr.astype(np.float32), m, size, flags=cv2.INTER_LINEAR)
    a = np.ones((h, w), np.float32) if alpha is None else alpha.astype(np.float32)
    a = cv2.warpPerspective(a, m, size, flags=cv2.INTER_LINEAR, borderValue=0)[..., None]
    under = canvas.image[y0:y1, x0:x1].astype(np.float32)
    canvas.image[y0:y1, x0:x1] = np.clip(under * (1 - a) + colour * a, 0, 255).astype(np.uint8)


def shade(canvas, ring_in: np.ndarray, darken: float, soft_in: float, height_in: float = 0.0) -> None:
    """A soft shadow: multiply what is drawn inside the ring by (1 - darken), edges blurred."""
    pts = to_canvas(canvas, ring_in, height_in)
    px_per_in = np.linalg.norm(to_canvas(canvas, ring_in[:1] + [[1.0, 0.0]], height_in) - pts[:1])
    sigma = max(1.0, soft_in * px_per_in)
    roi = _roi(canvas, pts, int(3 * sigma) + 2)
    if roi is None:
        return
    x0, y0, x1, y1 = roi
    f = max(1.0, sigma / 3)          # a wide blur is as good made small and enlarged, and far cheaper
    small = (max(1, int((x1 - x0) / f)), max(1, int((y1 - y0) / f)))
    mask = np.zeros((small[1], small[0]), np.float32)
    cv2.fillPoly(mask, [np.round((pts - (x0, y0)) / f * 16).astype(np.int32)], 1.0, cv2.LINE_AA, 4)
    mask = cv2.resize(cv2.GaussianBlur(mask, (0, 0), sigma / f), (x1 - x0, y1 - y0), interpolation=cv2.INTER_LINEAR)
    part = canvas.image[y0:y1, x0:x1].astype(np.float32) * (1 - darken * mask[..., None])
    canvas.image[y0:y1, x0:x1] = np.clip(part, 0, 255).astype(np.uint8)


def footprint(camera, ring_in: np.ndarray, height_in: float) -> Polygon:
    """The table this flat shape hides from the camera: the ring at `height_in`, seen along the
    camera's rays down onto the table (inches)."""
    if height_in == 0:
        return shapely.make_valid(Polygon(ring_in))
    h = np.linalg.inv(camera.plane_homography(0.0)) @ camera.plane_homography(height_in)
    down = cv2.perspectiveTransform(np.asarray(ring_in, np.float64).reshape(-1, 1, 2), h).reshape(-1, 2)
    return shapely.make_valid(Polygon(down))


def solid_footprint(camera, ring_in: np.ndarray, z0: float, z1: float) -> Polygon:
    """The table a convex prism from z0 to z1 hides (its own base included)."""
    return shapely.convex_hull(shapely.union(footprint(camera, ring_in, z0), footprint(camera, ring_in, z1)))
