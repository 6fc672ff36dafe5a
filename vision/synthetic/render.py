"""Render a camera photo of a table from a TableSpec and a PhotoSpec, with exact ground truth.

Everything on the table is drawn as polygons projected through the known pinhole camera onto a
supersampled canvas, then area-averaged down, so marker cells land with sub-pixel truth. The photo
then gets what a real one has: uneven light, vignetting, a soft shadow, defocus blur, sensor noise
and JPEG compression.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

import cv2
import numpy as np
import shapely
from shapely.geometry import Polygon, box

from calibration.profile import Anchor, aruco_dictionary
from measure.scene import Figure, Grid, Scene, Table, Terrain
from vision.synthetic.camera import PinholeCamera, camera_over_table

RGB = tuple[int, int, int]


@dataclass(frozen=True)
class MarkerFigure:
    marker_id: int
    x_in: float
    y_in: float
    size_in: float = 1.0            # printed side of the black square
    yaw_deg: float = 0.0
    height_in: float = 0.0          # printed face above the table


@dataclass(frozen=True)
class ColourFigure:
    figure_id: str
    side: str
    rim_rgb: RGB
    x_in: float
    y_in: float
    base_in: float = 1.0
    body_rgb: RGB = (120, 110, 100)
    base_height_in: float = 0.125
    body: Any = None                # an object with draw(canvas, fig) (bodies.Body); None = the plain figure


@dataclass(frozen=True)
class FeltPiece:
    terrain_id: str
    kind: str
    polygon: tuple[tuple[float, float], ...]
    rgb: RGB


@dataclass(frozen=True)
class GridDrawing:
    kind: str                       # "square" or "hex"
    pitch_in: float = 1.0
    origin: tuple[float, float] = (0.0, 0.0)
    angle_deg: float = 0.0
    orientation: str = "flat"       # hex only
    line_in: float = 0.03
    rgb: RGB = (40, 40, 40)


@dataclass(frozen=True)
class TableSpec:
    width_in: float
    depth_in: float
    anchors: tuple[Anchor, ...]
    dictionary: str = "DICT_4X4_50"
    marker_figures: tuple[MarkerFigure, ...] = ()
    colour_figures: tuple[ColourFigure, ...] = ()
    terrain: tuple[FeltPiece, ...] = ()
    grid: GridDrawing | None = None
    surface_rgb: RGB = (176, 160, 128)
    floor_rgb: RGB = (60, 52, 46)


@dataclass(frozen=True)
class PhotoSpec:
    image_size: tuple[int, int] = (1920, 1080)
    tilt_deg: float = 20.0
    azimuth_deg: float = 90.0
    roll_deg: float = 0.0
    hfov_deg: float = 65.0
    margin: float = 0.04
    light_low: float = 0.75         # gain at the dark end of the lighting gradient
    light_high: float = 1.1
    light_dir_deg: float = 30.0
    vignette: float = 0.25
    shadow: float = 0.0             # 0 = none; else the darkening of one soft shadow
    blur_sigma_px: float = 0.7
    noise_sigma: float = 3.0        # of 255
    jpeg_quality: int = 88          # 0 = keep lossless
    jpeg_full_colour: bool = False  # keep the colour at full resolution (4:4:4): a diagnosis only, since
                                    # cameras and most encoders keep it at half (4:2:0)


@dataclass(frozen=True)
class SyntheticPhoto:
    image: np.ndarray               # BGR uint8
    camera: PinholeCamera
    truth: Scene                    # figures (marker and colour), terrain and grid in inches
    marker_corners_px: dict[int, np.ndarray] = field(default_factory=dict)   # id -> (4, 2), truth


def encode_jpeg(image_bgr: np.ndarray, quality: int, full_colour: bool = False) -> np.ndarray:
    """The JPEG file's bytes (uint8 array) of a BGR image: its colour kept at half resolution each
    way (4:2:0, as cameras and most encoders keep it) or, `full_colour`, at full (4:4:4)."""
    sampling = cv2.IMWRITE_JPEG_SAMPLING_FACTOR_444 if full_colour else cv2.IMWRITE_JPEG_SAMPLING_FACTOR_420
    ok, buf = cv2.imencode(".jpg", image_bgr, [cv2.IMWRITE_JPEG_QUALITY, int(quality),
                                               cv2.IMWRITE_JPEG_SAMPLING_FACTOR, sampling])
    if not ok:
        raise ValueError("the image could not be encoded as JPEG")
    return buf


class _Canvas:
    """A supersampled image with table-plane polygon drawing."""

    SHIFT = 4

    def __init__(self, camera: PinholeCamera, scale: int, background: np.ndarray):
        self.camera = camera
        self.scale = scale
        # Pixel-centre convention: image x -> canvas (x + 0.5) * s - 0.5.
        self.to_canvas = np.array([[scale, 0, (scale - 1) / 2], [0, scale, (scale - 1) / 2], [0, 0, 1.0]])
        self.image = background
        self._homographies: dict[float, np.ndarray] = {}

    def homography(self, height_in: float) -> np.ndarray:
        if height_in not in self._homographies:
            self._homographies[height_in] = self.to_canvas @ self.camera.plane_homography(height_in)
        return self._homographies[height_in]

    def fill(self, rings_in: list[np.ndarray], rgb: RGB, height_in: float = 0.0) -> None:
        """Fill polygons given as (k, 2) rings in table inches; rings of one call combine even-odd."""
        if not rings_in:
            return
        h = self.homography(height_in)
        pts = []
        for ring in rings_in:
            px = cv2.perspectiveTransform(np.asarray(ring, np.float64).reshape(-1, 1, 2), h).reshape(-1, 2)
            pts.append(np.round(px * (1 << self.SHIFT)).astype(np.int32))
        cv2.fillPoly(self.image, pts, (int(rgb[2]), int(rgb[1]), int(rgb[0])), cv2.LINE_8, self.SHIFT)

    def fill_hull(self, points_px_canvas: np.ndarray, rgb: RGB) -> None:
        hull = cv2.convexHull(np.round(points_px_canvas * (1 << self.SHIFT)).astype(np.int32))
        cv2.fillConvexPoly(self.image, hull, (int(rgb[2]), int(rgb[1]), int(rgb[0])), cv2.LINE_8, self.SHIFT)


def _shape_rings(geometry) -> list[np.ndarray]:
    rings = []
    for poly in getattr(geometry, "geoms", [geometry]):
        if poly.is_empty or poly.geom_type != "Polygon":
            continue
        rings.append(np.asarray(poly.exterior.coords))
        rings.extend(np.asarray(r.coords) for r in poly.interiors)
    return rings


def _square(cx: float, cy: float, side: float, yaw_deg: float) -> np.ndarray:
    h = side / 2
    c, s = math.cos(math.radians(yaw_deg)), math.sin(math.radians(yaw_deg))
    local = np.array([[-h, -h], [h, -h], [h, h], [-h, h]])
    return local @ np.array([[c, s], [-s, c]]) + (cx, cy)


def _marker_cells(bits: np.ndarray, cx: float, cy: float, side: float, yaw_deg: float):
    """White cells of a marker image (bits, n x n incl. border) as rings in table inches."""
    n = bits.shape[0]
    cell = side / n
    c, s = math.cos(math.radians(yaw_deg)), math.sin(math.radians(yaw_deg))
    rot = np.array([[c, s], [-s, c]])
    rings = []
    for row, col in zip(*np.nonzero(bits)):
        x0, y0 = -side / 2 + col * cell, -side / 2 + row * cell
        local = np.array([[x0, y0], [x0 + cell, y0], [x0 + cell, y0 + cell], [x0, y0 + cell]])
        rings.append(local @ rot + (cx, cy))
    return rings


def _grid_geometry(grid: GridDrawing, width_in: float, depth_in: float):
    """The printed grid lines as one shapely geometry, clipped to the table."""
    table = box(0, 0, width_in, depth_in)
    reach = math.hypot(width_in, depth_in) + grid.pitch_in * 2
    ox, oy = grid.origin
    if grid.kind == "square":
        n = int(reach / grid.pitch_in) + 2
        ks = np.arange(-n, n + 1) * grid.pitch_in
        lines = [[(k, -reach), (k, reach)] for k in ks] + [[(-reach, k), (reach, k)] for k in ks]
    else:
        r = grid.pitch_in / math.sqrt(3)            # circumradius of a hex with this flat-to-flat
        if grid.orientation == "flat":
            step = np.array([[1.5 * r, math.sqrt(3) / 2 * r], [0, math.sqrt(3) * r]])
            corner_angles = np.radians(np.arange(6) * 60.0)
        else:
            step = np.array([[math.sqrt(3) * r, 0], [math.sqrt(3) / 2 * r, 1.5 * r]])
            corner_angles = np.radians(np.arange(6) * 60.0 + 30.0)
        n = int(reach / (1.5 * r)) + 2
        q, rr = np.meshgrid(np.arange(-n, n + 1), np.arange(-n, n + 1))
        centres = np.column_stack([q.ravel(), rr.ravel()]) @ step
        centres = centres[np.hypot(centres[:, 0], centres[:, 1]) < reach]
        corners = np.column_stack([np.cos(corner_angles), np.sin(corner_angles)]) * r
        lines = [np.vstack([c + corners, c + corners[:1]]) for c in centres]
    a = math.radians(grid.angle_deg)
    rot = np.array([[math.cos(a), math.sin(a)], [-math.sin(a), math.cos(a)]])
    lines = [np.asarray(line) @ rot + (ox, oy) for line in lines]
    strips = shapely.intersection(shapely.buffer(shapely.linestrings(lines), grid.line_in / 2, cap_style="flat"), table)
    return [g for g in strips if not g.is_empty]


def _lighting(size: tuple[int, int], photo: PhotoSpec, rng: np.random.Generator) -> np.ndarray:
    # Light varies slowly: compute it on a coarse raster and enlarge.
    full_w, full_h = size
    w, h = max(2, full_w // 8), max(2, full_h // 8)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    xn, yn = xx / w - 0.5, yy / h - 0.5
    a = math.radians(photo.light_dir_deg)
    along = (xn * math.cos(a) + yn * math.sin(a)) / 0.71 + 0.5     # 0..1 across the frame
    gain = photo.light_low + (photo.light_high - photo.light_low) * np.clip(along, 0, 1)
    gain *= 1 - photo.vignette * (xn ** 2 + yn ** 2) / 0.5
    if photo.shadow > 0:
        cx, cy = rng.uniform(0.2, 0.8) * w, rng.uniform(0.2, 0.8) * h
        rx, ry = rng.uniform(0.08, 0.2) * w, rng.uniform(0.08, 0.2) * h
        blob = np.exp(-(((xx - cx) / rx) ** 2 + ((yy - cy) / ry) ** 2))
        gain *= 1 - photo.shadow * blob
    return cv2.resize(gain.astype(np.float32), (full_w, full_h), interpolation=cv2.INTER_LINEAR)


def _surface(table: TableSpec, camera: PinholeCamera, canvas_size: tuple[int, int],
             to_canvas: np.ndarray, rng: np.random.Generator, given: SurfaceImage | None = None) -> np.ndarray:
    """The mat (by default its colour with low-frequency mottling), warped into the canvas over the floor."""
    if given is not None:
        texture, ppi = given.image, given.ppi
    else:
        ppi = 4
        tw, th = int(table.width_in * ppi) + 1, int(table.depth_in * ppi) + 1
        mottle = cv2.GaussianBlur(rng.normal(0, 1, (th, tw)).astype(np.float32), (0, 0), 3)
        mottle = 1 + 0.05 * mottle / (mottle.std() + 1e-6)
        bgr = np.array(table.surface_rgb[::-1], np.float32)
        texture = np.clip(mottle[..., None] * bgr, 0, 255).astype(np.uint8)
    scale_in = np.array([[1 / ppi, 0, 0], [0, 1 / ppi, 0], [0, 0, 1.0]])
    h = to_canvas @ camera.plane_homography(0.0) @ scale_in
    floor = tuple(int(c) for c in table.floor_rgb[::-1])
    return cv2.warpPerspective(texture, h, canvas_size, flags=cv2.INTER_LINEAR,
                               borderMode=cv2.BORDER_CONSTANT, borderValue=floor)


@dataclass(frozen=True)
class SurfaceImage:
    """The mat as a picture in table inches: BGR, `ppi` pixels an inch, (0, 0) at the table's corner."""
    image: np.ndarray
    ppi: float


Layer = Callable[["_Canvas"], None]
Effect = Callable[[np.ndarray, np.random.Generator], np.ndarray]


def render_photo(table: TableSpec, photo: PhotoSpec, rng: np.random.Generator | int = 0, *,
                 surface: SurfaceImage | None = None, under: Sequence[Layer] = (), over: Sequence[Layer] = (),
                 effects: Sequence[Effect] = (),
                 finish: Callable[[np.ndarray], np.ndarray] | None = None) -> SyntheticPhoto:
    """The photo. Hooks for harder photos: `surface` replaces the mottled mat, `under` layers are
    drawn after the grid and before the felt and figures, `over` layers after the figures (dice,
    clutter, a hand), `effects` change the lit float32 image before blur, noise and JPEG, and
    `finish` the noisy uint8 image before the JPEG (a camera's own processing)."""
    rng = np.random.default_rng(rng)
    camera = camera_over_table(table.width_in, table.depth_in, photo.image_size, tilt_deg=photo.tilt_deg,
                               azimuth_deg=photo.azimuth_deg, roll_deg=photo.roll_deg,
                               hfov_deg=photo.hfov_deg, margin=photo.margin)
    w, h = photo.image_size
    scale = 3 if w <= 2000 else 2
    to_canvas = np.array([[scale, 0, (scale - 1) / 2], [0, scale, (scale - 1) / 2], [0, 0, 1.0]])
    canvas = _Canvas(camera, scale, _surface(table, camera, (w * scale, h * scale), to_canvas, rng, surface))

    grid_truth = None
    if table.grid is not None:
        for strip in _grid_geometry(table.grid, table.width_in, table.depth_in):
            canvas.fill(_shape_rings(strip), table.grid.rgb)
        g = table.grid
        grid_truth = Grid(kind=g.kind, pitch_in=g.pitch_in, origin=g.origin, angle_deg=g.angle_deg,
                          orientation=g.orientation if g.kind == "hex" else None)
    for layer in under:
        layer(canvas)

    terrain_truth = []
    for piece in table.terrain:
        canvas.fill([np.asarray(piece.polygon)], piece.rgb)
        terrain_truth.append(Terrain(piece.terrain_id, piece.kind, Polygon(piece.polygon)))

    dictionary = aruco_dictionary(table.dictionary)
    cells = dictionary.markerSize + 2
    corners_px: dict[int, np.ndarray] = {}
    figures: list[Figure] = []

    def draw_marker(marker_id, cx, cy, side, yaw_deg, height_in):
        card = side * (cells + 2) / cells                # one white cell of quiet zone all round
        canvas.fill([_square(cx, cy, card, yaw_deg)], (235, 235, 228), height_in)
        canvas.fill([_square(cx, cy, side, yaw_deg)], (22, 22, 24), height_in)
        bits = cv2.aruco.generateImageMarker(dictionary, marker_id, cells, borderBits=1) > 127
        canvas.fill(_marker_cells(bits, cx, cy, side, yaw_deg), (235, 235, 228), height_in)
        ring = _square(cx, cy, side, yaw_deg).reshape(-1, 1, 2)
        corners_px[marker_id] = cv2.perspectiveTransform(ring, camera.plane_homography(height_in)).reshape(4, 2)

    for anchor in table.anchors:
        draw_marker(anchor.id, anchor.x_in, anchor.y_in, anchor.size_in, 0.0, 0.0)
    for fig in table.marker_figures:
        draw_marker(fig.marker_id, fig.x_in, fig.y_in, fig.size_in, fig.yaw_deg, fig.height_in)
        figures.append(Figure(id=f"m{fig.marker_id}", x=fig.x_in, y=fig.y_in, marker=fig.marker_id,
                              detected_by="marker"))

    for fig in table.colour_figures:
        if fig.body is not None:
            fig.body.draw(canvas, fig)
        else:
            _draw_colour_figure(canvas, fig)
        figures.append(Figure(id=fig.figure_id, x=fig.x_in, y=fig.y_in, base_in=fig.base_in, side=fig.side,
                              detected_by="colour"))
    for layer in over:
        layer(canvas)

    image = cv2.resize(canvas.image, (w, h), interpolation=cv2.INTER_AREA).astype(np.float32)
    image *= _lighting((w, h), photo, rng)[..., None]
    for effect in effects:
        image = effect(image, rng)
    if photo.blur_sigma_px > 0:
        image = cv2.GaussianBlur(image, (0, 0), photo.blur_sigma_px)
    noise = np.empty_like(image)
    cv2.setRNGSeed(int(rng.integers(1 << 31)))
    cv2.randn(noise, 0.0, float(photo.noise_sigma))
    image += noise
    image = np.clip(image, 0, 255).astype(np.uint8)
    if finish is not None:
        image = finish(image)
    if photo.jpeg_quality:
        image = cv2.imdecode(encode_jpeg(image, photo.jpeg_quality, photo.jpeg_full_colour), cv2.IMREAD_COLOR)
    truth = Scene(table=Table(table.width_in, table.depth_in), figures=tuple(figures),
                  terrain=tuple(terrain_truth), grid=grid_truth)
    return SyntheticPhoto(image=image, camera=camera, truth=truth, marker_corners_px=corners_px)


def _circle(cx: float, cy: float, r: float, n: int = 48) -> np.ndarray:
    t = np.linspace(0, 2 * math.pi, n, endpoint=False)
    return np.column_stack([cx + r * np.cos(t), cy + r * np.sin(t)])


def _draw_colour_figure(canvas: _Canvas, fig: ColourFigure) -> None:
    """A round base rimmed in the side's colour, with a painted figure standing on its centre."""
    r = fig.base_in / 2
    top = fig.base_height_in
    side_wall = np.vstack([
        cv2.perspectiveTransform(_circle(fig.x_in, fig.y_in, r).reshape(-1, 1, 2), canvas.homography(z)).reshape(-1, 2)
        for z in (0.0, top)])
    canvas.fill_hull(side_wall, tuple(int(c * 0.55) for c in fig.rim_rgb))
    canvas.fill([_circle(fig.x_in, fig.y_in, r)], fig.rim_rgb, top)
    canvas.fill([_circle(fig.x_in, fig.y_in, r * 0.62)], (70, 66, 60), top)     # the figure's footing
    body = np.vstack([
        cv2.perspectiveTransform(_circle(fig.x_in, fig.y_in, rad, 24).reshape(-1, 1, 2),
                                 canvas.homography(z)).reshape(-1, 2)
        for z, rad in ((top, r * 0.5), (top + 0.6, r * 0.42), (top + 0.95, r * 0.3))])
    canvas.fill_hull(body, fig.body_rgb)
    head = cv2.perspectiveTransform(_circle(fig.x_in, fig.y_in, r * 0.22, 24).reshape(-1, 1, 2),
                                    canvas.homography(top + 1.1)).reshape(-1, 2)
    canvas.fill_hull(head, (205, 170, 140))
