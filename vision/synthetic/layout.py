"""Where things go on a hard-set table: the camera framing, felt, clutter, figures with bodies that
hide nothing else, dice, and a hand. Each step keeps clear of what earlier steps laid, so the truth
stays exact: no marker is partly hidden, no rim is hidden by anything but its own body, and every
figure is either in plain view or at least half under the hand.
"""
from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import shapely
from shapely.geometry import Point, Polygon, box

from vision.synthetic import clutter as clutter_mod
from vision.synthetic.bodies import random_body
from vision.synthetic.clutter import Die
from vision.synthetic.felt import FeltCut
from vision.synthetic.hands import HIDDEN_SHARE, covered_share, hand_over
from vision.synthetic.paint import circle
from vision.synthetic.render import ColourFigure, MarkerFigure, PhotoSpec, TableSpec
from vision.synthetic.scenes import SIDE_COLOURS, _blob, worst_cell_px

RESOLUTIONS = {"1080p": (1920, 1080), "2160p": (3840, 2160)}
# kind -> (texture, daylight colour, texture contrast); woods is close to the green mat on purpose
FELT = {"woods": ("grass", (48, 82, 40), 0.2), "rocks": ("gravel", (128, 124, 120), 0.28),
        "hill": ("gravel", (150, 124, 84), 0.15), "water": ("grass", (52, 104, 168), 0.07)}
# Felt a family might buy for each kind, by name (a craft shop's colours, near enough), each 18-34
# levels off the set's own (FELT) in the channel most apart: darker, lighter, further in hue. The
# profile still names the set's colour, as a player picks a swatch near their felt. Not the issue's
# set (hard_photo's `felt="shop"`): how the felt a family happens to own changes what is found.
SHOP_FELTS = {
    "woods": {"dark green": (30, 60, 30), "olive": (72, 96, 40), "emerald": (40, 110, 60)},
    "rocks": {"mid grey": (100, 100, 104), "light grey": (155, 152, 148), "stone": (118, 106, 92)},
    "hill": {"tan": (175, 145, 95), "brown": (122, 96, 62), "khaki": (160, 142, 100)},
    "water": {"navy blue": (36, 70, 140), "sky blue": (80, 135, 195), "teal": (45, 115, 140)},
}
# Paints a family might rim its bases with, by the side they would paint (the shop's colours, near
# enough): darker, duller, lighter and further in hue from the profile's colour than the set's own
# paint (each table's within 18 levels a channel of SIDE_COLOURS). Not the set (hard_photo's
# `paint="hobby"`): what the paint a family happens to own changes what is found.
HOBBY_PAINTS = {
    "red": {"scarlet": (192, 20, 17), "deep red": (154, 17, 21), "dark red": (136, 7, 8),
            "pure red": (180, 20, 30), "crimson": (150, 20, 50), "orange red": (234, 43, 0)},
    "blue": {"royal blue": (31, 86, 167), "mid blue": (13, 64, 127), "navy": (2, 19, 77),
             "sky blue": (57, 107, 180), "bright blue": (49, 127, 216), "grey blue": (76, 120, 174)},
}


def frame(rng, width, depth, anchors, resolution, tilt, long_side) -> tuple[PhotoSpec, float]:
    """A camera draw at this tilt, and the smallest marker that keeps 2.6 px a cell everywhere."""
    big = resolution == "2160p"
    probe = TableSpec(width, depth, anchors)
    for _ in range(60):
        roll = float(rng.normal(90, 6) + 180 * rng.integers(2)) if long_side else float(rng.uniform(-180, 180))
        spec = PhotoSpec(image_size=RESOLUTIONS[resolution], tilt_deg=tilt, azimuth_deg=float(rng.uniform(0, 360)),
                         roll_deg=roll, hfov_deg=float(rng.uniform(55, 72)), margin=float(rng.uniform(0.02, 0.06)),
                         light_low=float(rng.uniform(0.6, 0.85)), light_high=float(rng.uniform(1.0, 1.15)),
                         light_dir_deg=float(rng.uniform(0, 360)), vignette=float(rng.uniform(0.2, 0.45)),
                         shadow=float(rng.uniform(0, 0.3)), blur_sigma_px=float(rng.uniform(0.5, 0.9)),
                         noise_sigma=float(rng.uniform(2.0, 4.5)), jpeg_quality=60)
        sizes = (0.75, 1.0) if big else (1.0, 1.25, 1.5)
        marker_in = next((s for s in sizes if worst_cell_px(probe, spec, s) >= 2.6), None)
        if marker_in is not None:
            return spec, marker_in
    return spec, sizes[-1]


def cut_felt(rng, width, depth, blocked, at_edge: bool = False) -> list[FeltCut]:
    """One piece of each kind in FELT, clear of `blocked` and of each other; `at_edge`: each piece
    laid across one of the table's edges (its centre 0.3-0.8 of its radius in from it), as a river or
    a wood that runs off the table."""
    cuts, taken = [], blocked
    for i, kind in enumerate(FELT):
        texture, rgb, contrast = FELT[kind]
        for _ in range(200):
            radius = float(rng.uniform(2.8, 4.5))
            edge, inset = (int(rng.integers(4)), float(rng.uniform(0.3, 0.8)) * radius) if at_edge else (None, 0.0)
            cx, cy = rng.uniform(radius + 1.5, width - radius - 1.5), rng.uniform(radius + 1.5, depth - radius - 1.5)
            if edge is not None:
                cx, cy = [(inset, cy), (width - inset, cy), (cx, inset), (cx, depth - inset)][edge]
            outline = _blob(rng, cx, cy, radius)
            if not Polygon(outline).buffer(1.2).intersects(taken):
                break
        cuts.append(FeltCut(f"t{i + 1}", kind, outline, _near(rng, rgb, 10), texture, contrast,
                            ragged_in=float(rng.uniform(0.06, 0.14)), soft_in=float(rng.uniform(0.03, 0.08))))
        taken = taken.union(Polygon(outline).buffer(1.2))
    return cuts


def lay_clutter(rng, camera, width, depth, blocked, felt_area) -> list:
    """Two to four things on or across the table's edges, hiding no anchor and no felt."""
    items = []
    for kind in list(rng.permutation(list(clutter_mod.MAKERS)))[: int(rng.integers(2, 5))]:
        for _ in range(40):
            near = int(rng.integers(4))            # straddle or sit near one edge
            off = float(rng.uniform(-3, 6))
            along_x, along_y = rng.uniform(4, width - 4), rng.uniform(4, depth - 4)
            x, y = [(off, along_y), (width - off, along_y), (along_x, off), (along_x, depth - off)][near]
            item = clutter_mod.MAKERS[kind](rng, float(x), float(y))
            foot = item.footprint(camera).buffer(0.5)
            if not foot.intersects(blocked) and not foot.intersects(felt_area):
                items.append(item)
                blocked = blocked.union(foot.buffer(0.5))
                break
    return items


def place_figures(rng, camera, width, depth, blocked, water, marker_in, base_in: float = 1.0,
                  paints: dict[str, tuple[int, int, int]] | None = None):
    """Colour figures (two blue ones in the water; bases `base_in` across) and marker figures 2"
    apart, clear of `blocked`; then bodies that lean over no other figure's base, so the rim in
    view is exactly `rim_visible` and every marker is whole. `paints`: a side's paint pot, in place
    of the set's near the profile's colour. Returns them, rim_visible, and where they all show
    (pixels)."""
    figures_xy: list[tuple[float, float]] = []

    def spot(inside: Polygon | None = None):
        for _ in range(400):
            if inside is not None:
                x0, y0, x1, y1 = inside.bounds
                x, y = rng.uniform(x0, x1), rng.uniform(y0, y1)
                if not inside.contains(Point(x, y).buffer(max(0.6, base_in / 2 + 0.1))):   # the base in the felt
                    continue
            else:
                x, y = rng.uniform(1.5, width - 1.5), rng.uniform(1.5, depth - 1.5)
            if (not Point(x, y).buffer(1.0).intersects(blocked)
                    and all(math.hypot(x - a, y - b) >= 2.0 for a, b in figures_xy)):
                figures_xy.append((float(x), float(y)))
                return float(x), float(y)
        return None

    # Each table's paint is near, not at, the profile's colour (the player named it by eye; the
    # pipeline may learn the real one), and no two pots mix quite alike.
    paint = {side: _near(rng, rgb, 18) for side, rgb in SIDE_COLOURS.items()}
    paint.update(paints or {})          # (after the draws: all else is the same photo)
    n_colour = int(rng.integers(10, 13))
    colour_xy = [(k, spot(water if k in (1, 3) else None)) for k in range(n_colour)]
    ids = rng.choice(np.arange(10, 50), size=8, replace=False)
    marker_figs = [MarkerFigure(int(i), *xy, marker_in, float(rng.uniform(0, 360)))
                   for i in ids[: int(rng.integers(6, 9))] if (xy := spot()) is not None]
    keep_clear = {f"m{m.marker_id}": solid_image(camera, circle(m.x_in, m.y_in, m.size_in * 0.95, 24), 0.0, 0.0)
                  for m in marker_figs}
    plain = []
    for k, xy in colour_xy:
        if xy is not None:
            side = "blue" if k % 2 else "red"
            fig = ColourFigure(f"c{k + 1}", side, _near(rng, paint[side], 6), *xy, base_in=base_in)
            plain.append(fig)
            keep_clear[fig.figure_id] = solid_image(camera, circle(fig.x_in, fig.y_in, fig.base_in / 2 + 0.05, 32),
                                                     0.0, fig.base_height_in)
    colour_figs, rim_visible, body_shapes = [], {}, []
    for fig in plain:
        others = shapely.union_all([v for key, v in keep_clear.items() if key != fig.figure_id])
        for _ in range(12):
            body, vis = random_body(rng, camera, fig, float(rng.uniform(0.3, 0.7)))
            shape = body.image_shape(camera, fig)
            if not shape.intersects(others):
                break
        else:
            continue          # no room to lean here: leave the figure off the table
        colour_figs.append(replace(fig, body=body))
        rim_visible[fig.figure_id] = round(vis, 3)
        body_shapes.append(shape)
    kept = set(rim_visible) | {f"m{m.marker_id}" for m in marker_figs}
    taken_img = shapely.union_all([v for key, v in keep_clear.items() if key in kept] + body_shapes)
    return colour_figs, marker_figs, rim_visible, taken_img


def roll_dice(rng, camera, width, depth, blocked, colour_figs, marker_figs, taken_img) -> list[Die]:
    """Two to four dice of the sides' colours beside colour figures, hiding no base, body or marker."""
    dice = []
    for _ in range(int(rng.integers(2, 5))):
        for _ in range(60):
            fig = colour_figs[int(rng.integers(len(colour_figs)))]
            a = rng.uniform(0, 2 * math.pi)
            d = rng.uniform(1.2, 1.6)
            x, y = fig.x_in + d * math.cos(a), fig.y_in + d * math.sin(a)
            side = ("red", "blue")[int(rng.integers(2))]
            die = Die(float(x), float(y), float(rng.uniform(0, 90)), SIDE_COLOURS[side], int(rng.integers(1, 7)))
            shape = solid_image(camera, die.ring(), 0.0, die.side_in)
            if (0.8 < x < width - 0.8 and 0.8 < y < depth - 0.8 and not Point(x, y).buffer(0.6).intersects(blocked)
                    and not shape.buffer(2.0).intersects(taken_img)):
                dice.append(die)
                blocked = blocked.union(Point(x, y).buffer(0.5))
                taken_img = taken_img.union(shape)
                break
    return dice


def _near(rng, rgb, spread: int) -> tuple[int, int, int]:
    return tuple(int(np.clip(c + rng.integers(-spread, spread + 1), 0, 255)) for c in rgb)


def solid_image(camera, ring_in: np.ndarray, z0: float, z1: float) -> Polygon:
    """Where a convex solid standing from z0 to z1 shows in the photo, in pixels."""
    pts = np.vstack([camera.project(np.c_[ring_in, np.full(len(ring_in), -z)]) for z in (z0, z1)])
    return shapely.convex_hull(shapely.multipoints(pts))


def figure_discs(colour_figs, marker_figs) -> list[tuple[str, float, float, float]]:
    """(id, x, y, radius in inches) of what a hand may cover of each figure: a colour figure's base, a
    marker's card."""
    return ([(f.figure_id, f.x_in, f.y_in, f.base_in / 2) for f in colour_figs]
            + [(f"m{m.marker_id}", m.x_in, m.y_in, m.size_in * 0.95) for m in marker_figs])


def hand_cover(foot: Polygon, discs) -> dict[str, float]:
    """The share under a hand's footprint of each figure it covers at all (`discs`: figure_discs)."""
    shares = {fid: covered_share(foot, Point(x, y).buffer(r)) for fid, x, y, r in discs}
    return {fid: v for fid, v in shares.items() if v > 0}


def place_hand(rng, camera, width, depth, anchors, felt_area, colour_figs, marker_figs):
    """A hand over one or two figures, clear of the anchors; figures it would half-hide are left off
    the table, so every figure is either hidden (>= HIDDEN_SHARE under it) or in plain view."""
    anchor_area = shapely.union_all([box(a.x_in - a.size_in, a.y_in - a.size_in, a.x_in + a.size_in,
                                         a.y_in + a.size_in) for a in anchors])
    everyone = figure_discs(colour_figs, marker_figs)
    best = None
    for attempt in range(40):
        first = everyone[int(rng.integers(len(everyone)))]
        target = (first[1], first[2])
        if attempt % 2:       # sometimes between two neighbours
            near = [e for e in everyone if e is not first and math.hypot(e[1] - first[1], e[2] - first[2]) < 3.2]
            if near:
                target = ((first[1] + near[0][1]) / 2, (first[2] + near[0][2]) / 2)
        hand = hand_over(rng, camera, target, width, depth)
        foot = hand.footprint(camera)
        if foot.buffer(0.6).intersects(anchor_area):
            continue
        cover = hand_cover(foot, everyone)
        n_hidden = sum(1 for v in cover.values() if v >= HIDDEN_SHARE)
        felt_hit = foot.intersection(felt_area).area
        score = (n_hidden == 0, felt_hit)
        if best is None or score < best[0]:
            best = (score, hand, cover)
        if n_hidden and felt_hit < 1.0:
            break
    _, hand, cover = best
    # A marker is spoilt by any touch of its card; a rim can lose a sliver.
    drop = {fid for fid, v in cover.items() if (0 if fid.startswith("m") else 0.02) < v < HIDDEN_SHARE}
    colour_figs = [f for f in colour_figs if f.figure_id not in drop]
    marker_figs = [m for m in marker_figs if f"m{m.marker_id}" not in drop]
    cover = {fid: v for fid, v in cover.items() if fid not in drop}
    return hand, cover, colour_figs, marker_figs

