"""Random tables and photos for tests, benchmarks and the demo, drawn from a seeded generator.

`marker_photo_set` is the acceptance set for marker figures: camera tilt 0-35 degrees at any
rotation, tables 36-60" wide, 1080p photos with 1" markers and 2160p photos with 0.75" markers,
uneven light, noise, blur and JPEG.
"""
from __future__ import annotations

import dataclasses
import math
from typing import Iterator

import numpy as np

from calibration.profile import TableProfile, ColourSpec, GridSpec, standard_anchors
from vision.synthetic.bodies import random_body
from vision.synthetic.camera import camera_over_table
from vision.synthetic.render import (ColourFigure, FeltPiece, GridDrawing, MarkerFigure, PhotoSpec,
                                     SyntheticPhoto, TableSpec, render_photo)

SIDE_COLOURS = {"red": (200, 40, 40), "blue": (40, 80, 200)}
TERRAIN_COLOURS = {"woods": (35, 70, 30), "rocks": (120, 120, 125), "hill": (150, 125, 80), "water": (60, 120, 170)}
BODY_COLOURS = [(150, 150, 160), (110, 80, 50), (70, 90, 60), (180, 160, 120), (60, 60, 70), (140, 40, 90)]


def place_points(rng: np.random.Generator, n: int, width_in: float, depth_in: float, *,
                 keep_out: list[tuple[float, float, float]], spacing_in: float,
                 edge_in: float = 1.5) -> list[tuple[float, float]]:
    """Up to n points at least `spacing_in` apart, clear of keep-out discs (x, y, radius)."""
    points: list[tuple[float, float]] = []
    for _ in range(n * 200):
        if len(points) == n:
            break
        x = rng.uniform(edge_in, width_in - edge_in)
        y = rng.uniform(edge_in, depth_in - edge_in)
        if any(math.hypot(x - kx, y - ky) < kr for kx, ky, kr in keep_out):
            continue
        if any(math.hypot(x - px, y - py) < spacing_in for px, py in points):
            continue
        points.append((x, y))
    return points


def _blob(rng: np.random.Generator, cx: float, cy: float, radius_in: float) -> tuple[tuple[float, float], ...]:
    # Nine corners spread round the centre (jittered), so the outline is always a simple polygon.
    angles = (np.arange(9) + (rng.uniform(0, 2 * math.pi, 9) / (2 * math.pi) - 0.5) * 0.7) * (2 * math.pi / 9)
    radii = radius_in * rng.uniform(0.7, 1.15, angles.size)
    return tuple((float(cx + r * math.cos(a)), float(cy + r * math.sin(a))) for a, r in zip(angles, radii))


def random_table(rng: np.random.Generator, *, width_in: float = 48.0, depth_in: float = 36.0,
                 n_markers: int = 20, marker_size_in: float = 1.0, marker_height_in: float = 0.0,
                 n_colour: int = 0, n_terrain: int = 0, grid: str | None = None,
                 grid_pitch_in: float = 1.0, first_marker_id: int = 10) -> TableSpec:
    anchors = standard_anchors(width_in, depth_in)
    keep_out = [(a.x_in, a.y_in, a.size_in * 1.2) for a in anchors]
    terrain = []
    for i in range(n_terrain):
        kind = list(TERRAIN_COLOURS)[i % len(TERRAIN_COLOURS)]
        radius = rng.uniform(2.5, 4.5)
        spot = place_points(rng, 1, width_in, depth_in, keep_out=keep_out, spacing_in=0, edge_in=radius + 1)
        if spot:
            terrain.append(FeltPiece(f"t{i + 1}", kind, _blob(rng, *spot[0], radius), TERRAIN_COLOURS[kind]))
            keep_out.append((spot[0][0], spot[0][1], radius * 1.2))
    spacing = max(1.7, marker_size_in * 1.8)
    spots = place_points(rng, n_markers + n_colour, width_in, depth_in, keep_out=keep_out, spacing_in=spacing)
    ids = rng.choice(np.arange(first_marker_id, 50), size=min(n_markers, 50 - first_marker_id), replace=False)
    markers = tuple(MarkerFigure(int(i), x, y, marker_size_in, float(rng.uniform(0, 360)), marker_height_in)
                    for i, (x, y) in zip(ids, spots[:n_markers]))
    colour = []
    for k, (x, y) in enumerate(spots[n_markers:]):
        side = list(SIDE_COLOURS)[k % len(SIDE_COLOURS)]
        colour.append(ColourFigure(f"c{k + 1}", side, SIDE_COLOURS[side], x, y,
                                   body_rgb=BODY_COLOURS[int(rng.integers(len(BODY_COLOURS)))]))
    drawing = None
    if grid is not None:
        orientation = "flat" if grid in ("hex", "hex-flat") else "pointy"
        drawing = GridDrawing(kind="square" if grid == "square" else "hex", pitch_in=grid_pitch_in,
                              origin=(float(rng.uniform(0, grid_pitch_in)), float(rng.uniform(0, grid_pitch_in))),
                              orientation=orientation)
    return TableSpec(width_in=width_in, depth_in=depth_in, anchors=anchors, marker_figures=markers,
                     colour_figures=tuple(colour), terrain=tuple(terrain), grid=drawing)


def random_photo(rng: np.random.Generator, *, image_size=(1920, 1080), tilt_deg: float | None = None) -> PhotoSpec:
    return PhotoSpec(
        image_size=image_size,
        tilt_deg=float(rng.uniform(0, 35)) if tilt_deg is None else tilt_deg,
        azimuth_deg=float(rng.uniform(0, 360)),
        roll_deg=float(rng.uniform(-180, 180)),
        hfov_deg=float(rng.uniform(55, 75)),
        margin=float(rng.uniform(0.02, 0.08)),
        light_low=float(rng.uniform(0.55, 0.85)),
        light_high=float(rng.uniform(1.0, 1.2)),
        light_dir_deg=float(rng.uniform(0, 360)),
        vignette=float(rng.uniform(0.1, 0.35)),
        shadow=float(rng.uniform(0, 0.35)),
        blur_sigma_px=float(rng.uniform(0.5, 1.1)),
        noise_sigma=float(rng.uniform(1.5, 5.0)),
        jpeg_quality=int(rng.integers(70, 95)),
    )


def worst_cell_px(table: TableSpec, photo: PhotoSpec, marker_size_in: float, cells: int = 6) -> float:
    """Pixels per marker cell at the worst place on the table (its centre and its corners)."""
    camera = camera_over_table(table.width_in, table.depth_in, photo.image_size, tilt_deg=photo.tilt_deg,
                               azimuth_deg=photo.azimuth_deg, roll_deg=photo.roll_deg,
                               hfov_deg=photo.hfov_deg, margin=photo.margin)
    worst = math.inf
    for cx, cy in ((table.width_in / 2, table.depth_in / 2), (1, 1), (table.width_in - 2, 1),
                   (1, table.depth_in - 2), (table.width_in - 2, table.depth_in - 2)):
        px = camera.project(np.array([[cx, cy, 0], [cx + 1, cy, 0], [cx, cy + 1, 0]], float))
        worst = min(worst, math.sqrt(np.linalg.norm(px[1] - px[0]) * np.linalg.norm(px[2] - px[0])))
    return worst * marker_size_in / cells


def marker_photo_set(n_photos: int, seed: int = 0, *, n_markers: int = 20,
                     min_cell_px: float = 2.5) -> Iterator[SyntheticPhoto]:
    """The acceptance set: half 1080p with 1" markers, half 2160p with 0.75" markers.

    A camera that leaves a marker cell under `min_cell_px` anywhere on the table is framed too
    loosely for that marker size (the set-up guide asks for 2.5 pixels a cell or more, and the live
    status says so); such a draw is replaced by another.
    """
    rng = np.random.default_rng(seed)
    for k in range(n_photos):
        big = k % 2 == 1
        size_in = 0.75 if big else 1.0
        table = random_table(rng, width_in=float(rng.uniform(36, 60)), depth_in=float(rng.uniform(30, 44)),
                             n_markers=n_markers, marker_size_in=size_in)
        for _ in range(50):
            photo = random_photo(rng, image_size=(3840, 2160) if big else (1920, 1080))
            if worst_cell_px(table, photo, size_in) >= min_cell_px:
                break
        yield render_photo(table, photo, rng)


def profile_for(table: TableSpec, name: str = "Synthetic table") -> TableProfile:
    """The table profile a user would write for this table."""
    size = table.marker_figures[0].size_in if table.marker_figures else 1.0
    height = table.marker_figures[0].height_in if table.marker_figures else 0.0
    grid = None
    if table.grid is not None:
        grid = GridSpec(table.grid.kind, table.grid.pitch_in,
                        table.grid.orientation if table.grid.kind == "hex" else None)
    sides = {f.side: f.rim_rgb for f in table.colour_figures}
    kinds = {t.kind: t.rgb for t in table.terrain}
    return TableProfile(name=name, width_in=table.width_in, depth_in=table.depth_in, dictionary=table.dictionary,
                        figure_marker_size_in=size, figure_marker_height_in=height, anchors=table.anchors,
                        grid=grid, sides=tuple(ColourSpec(k, v) for k, v in sides.items()),
                        terrain=tuple(ColourSpec(k, v) for k, v in kinds.items()))


MELEE_PAIRS = ((8, 7), (15, 11), (22, 15), (9, 16), (22, 6))   # on a 30 x 22" table
MELEE_WAYS = ("behind", "in front", "beside")


def melee_photo(rng: np.random.Generator, *, tilt_deg: float, azimuth_deg: float, way: str = "behind",
                render_seed: int = 1):
    """(image, profile, figures): a rendered photo (1080p, JPEG 60) of five melees on a 30 x 22"
    table, two figures on 1" bases touching in each, the second `way` the first along the camera's
    ray (behind, in front, or beside it: across the ray), some pairs of one side, some of two, their
    bodies leaning as vision.synthetic.bodies draws them with 30-70% of each rim in view (drawn
    from `rng`)."""
    width, depth = 30.0, 22.0
    anchors = standard_anchors(width, depth)
    spec = PhotoSpec(image_size=(1920, 1080), tilt_deg=tilt_deg, azimuth_deg=azimuth_deg, jpeg_quality=60)
    camera = camera_over_table(width, depth, spec.image_size, tilt_deg=spec.tilt_deg, azimuth_deg=spec.azimuth_deg,
                               roll_deg=spec.roll_deg, hfov_deg=spec.hfov_deg, margin=spec.margin)
    figures = []
    for n, (x, y) in enumerate(MELEE_PAIRS):
        ray = np.array([x, y], float) - camera.centre_in[:2]
        ray /= np.hypot(*ray)
        step = {"behind": ray, "in front": -ray, "beside": np.array([-ray[1], ray[0]])}[way] * 1.02
        for k, (fx, fy) in enumerate([(x, y), (x + step[0], y + step[1])]):
            side = ("red", "blue")[(n + k * (n % 2)) % 2]
            fig = ColourFigure(f"c{2 * n + k + 1}", side, SIDE_COLOURS[side], float(fx), float(fy))
            body, _ = random_body(rng, camera, fig, float(rng.uniform(0.3, 0.7)))
            figures.append(dataclasses.replace(fig, body=body))
    table = TableSpec(width, depth, anchors, colour_figures=tuple(figures))
    profile = TableProfile(name="melee", width_in=width, depth_in=depth, dictionary=table.dictionary,
                           figure_marker_size_in=1.0, anchors=anchors,
                           sides=tuple(ColourSpec(k, v) for k, v in SIDE_COLOURS.items()))
    return render_photo(table, spec, render_seed).image, profile, figures
