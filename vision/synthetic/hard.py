"""The hard set: kitchen-table photos with exact truth, each with the profile to analyse it with.

What makes them hard (issue 10): rimmed bases whose leaning, many-coloured bodies leave 30-70% of
the rim in view, some with a red or blue cloak of either side; dice of the sides' colours beside
figures; blue figures standing in blue water felt; photographed mat and felt textures (grass,
gravel, wood grain) with ragged soft felt edges, woods on a green mat; a white-balance cast from
tungsten (2600 K) to daylight (6500 K), a lamp's hot spot, vignetting, motion blur, JPEG 60;
clutter on and around the table (mug with shadow, printed page, phone, pencil, book); a hand and
arm over one or two figures; tables 36-60" at tilts up to 35 degrees, some with the long side
along the frame's short axis; 1080p and 2160p.

Each condition is a factor with a few levels; within every run of consecutive photos as long as
a factor has levels, each level appears once (a seeded shuffle per block), so any count that is a
multiple of 12 is exactly balanced and the combinations vary. Photo k depends only on (seed, k).
"""
from __future__ import annotations

import math
import zlib
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Iterator, Mapping, Sequence

import numpy as np
import shapely
from shapely.geometry import Point, Polygon, box

from calibration.profile import ColourSpec, GridSpec, RosterEntry, TableProfile, standard_anchors
from measure.scene import Scene, Terrain
from vision.synthetic import clutter as clutter_mod
from vision.synthetic.bodies import random_body
from vision.synthetic.camera import PinholeCamera, camera_over_table
from vision.synthetic.clutter import Die
from vision.synthetic.felt import FeltCut, FeltLayer, mat_surface
from vision.synthetic.hands import HIDDEN_SHARE, Hand, covered_share, hand_over
from vision.synthetic.lighting import Cast, HotSpot, MotionBlur
from vision.synthetic.render import ColourFigure, GridDrawing, MarkerFigure, PhotoSpec, TableSpec, render_photo
from vision.synthetic.scenes import SIDE_COLOURS, _blob, worst_cell_px

CAST_K = {"tungsten": (2600.0, 3200.0), "warm": (3600.0, 4800.0), "daylight": (5600.0, 6500.0)}
TILT_DEG = {"0-12": (0.0, 12.0), "12-24": (12.0, 24.0), "24-35": (24.0, 35.0)}
MAT_RGB = {"grass": (92, 124, 60), "gravel": (150, 140, 122), "wood": (168, 122, 80), "plain": (176, 160, 128)}
# kind -> (texture, daylight colour, texture contrast); woods is close to the green mat on purpose
FELT = {"woods": ("grass", (48, 82, 40), 0.2), "rocks": ("gravel", (128, 124, 120), 0.28),
        "hill": ("gravel", (150, 124, 84), 0.15), "water": ("grass", (52, 104, 168), 0.07)}
RESOLUTIONS = {"1080p": (1920, 1080), "2160p": (3840, 2160)}
FACTORS: dict[str, tuple] = {
    "cast": tuple(CAST_K), "clutter": ("yes", "no"), "hand": ("yes", "no"), "blur": ("motion", "none"),
    "texture": tuple(MAT_RGB), "tilt": tuple(TILT_DEG), "grid": ("square", "hex", "none"),
    "hot_spot": ("yes", "no"), "long_side": ("short axis", "any", "any"),
}
REPORTED = ("cast", "clutter", "hand", "blur", "texture", "tilt", "resolution", "grid")


@dataclass(frozen=True)
class Conditions:
    """Everything applied to one photo; `groups()` gives the level of each reported factor."""
    cast: str
    cast_k: float
    clutter: bool
    hand: bool
    blur: str
    blur_px: float
    texture: str
    tilt: str
    tilt_deg: float
    resolution: str
    grid: str
    hot_spot: bool
    long_side_on_short_axis: bool
    table_in: tuple[float, float]
    marker_size_in: float
    jpeg_quality: int
    vignette: float

    def groups(self) -> dict[str, str]:
        return {"cast": self.cast, "clutter": "yes" if self.clutter else "no", "hand": "yes" if self.hand else "no",
                "blur": self.blur, "texture": self.texture, "tilt": self.tilt, "resolution": self.resolution,
                "grid": self.grid}


@dataclass(frozen=True)
class HardPhoto:
    index: int
    image: np.ndarray                       # BGR uint8, as decoded from the JPEG
    truth: Scene                            # figures (hidden=True under the hand), felt as drawn, grid
    profile: TableProfile                   # what the players would write for this table
    conditions: Conditions
    camera: PinholeCamera
    marker_corners_px: Mapping[int, np.ndarray]
    rim_visible: Mapping[str, float]        # colour figure id -> share of its rim band in view
    hand_cover: Mapping[str, float]         # figure id -> share of its base under the hand (> 0 only)
    felt_texture: Mapping[str, str]         # terrain id -> texture
    dice: tuple[Die, ...] = ()
    clutter: tuple[Any, ...] = ()
    hand: Hand | None = None
    _before: Callable[[], np.ndarray] | None = field(default=None, repr=False, compare=False)

    @property
    def hidden_ids(self) -> tuple[str, ...]:
        return tuple(f.id for f in self.truth.figures if f.hidden)

    def before(self) -> np.ndarray | None:
        """The same photo a moment earlier, without the hand (None when there is no hand)."""
        return self._before() if self._before is not None else None


def level(seed: int, factor: str, index: int, levels: Sequence) -> Any:
    n = len(levels)
    perm = np.random.default_rng([seed, zlib.crc32(factor.encode()), index // n]).permutation(n)
    return levels[perm[index % n]]


def hard_photo_set(seed: int = 0, count: int = 60, *,
                   resolutions: Sequence[str] = ("1080p", "1080p", "2160p")) -> Iterator[HardPhoto]:
    """`count` hard photos (see the module's docstring); `resolutions` is cycled like a factor, so
    the default makes a third of them 2160p and ("1080p",) makes them all 1080p."""
    for k in range(count):
        yield hard_photo(seed, k, resolutions=resolutions)


def hard_photo(seed: int, index: int, *, resolutions: Sequence[str] = ("1080p", "1080p", "2160p"),
               force: Mapping[str, str] | None = None) -> HardPhoto:
    """Photo `index` of the set `seed`; `force` pins factors to levels (e.g. {"hand": "yes"}) for a test."""
    rng = np.random.default_rng([seed, index, 7])
    lv = {f: level(seed, f, index, levels) for f, levels in FACTORS.items()}
    for f, value in (force or {}).items():
        if f not in FACTORS or value not in FACTORS[f]:
            raise ValueError(f"force: {f}={value!r} is no level of a factor ({FACTORS})")
        lv[f] = value
    resolution = level(seed, "resolution", index, tuple(resolutions))
    big = resolution == "2160p"
    long_side = lv["long_side"] == "short axis"
    width = float(rng.uniform(54, 60) if long_side else rng.uniform(36, 60))
    depth = float(rng.uniform(30, min(44.0, width)))
    cast_k = float(rng.uniform(*CAST_K[lv["cast"]]))
    tilt = float(rng.uniform(*TILT_DEG[lv["tilt"]]))
    blur_px = float(rng.uniform(1.0, 2.5) * (2 if big else 1)) if lv["blur"] == "motion" else 0.0

    anchors = standard_anchors(width, depth)
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
            break
    camera = camera_over_table(width, depth, spec.image_size, tilt_deg=spec.tilt_deg, azimuth_deg=spec.azimuth_deg,
                               roll_deg=spec.roll_deg, hfov_deg=spec.hfov_deg, margin=spec.margin)
    edge = camera.project(np.array([[0, 0, 0], [width, 0, 0]], float))
    along = np.abs(edge[1] - edge[0])
    short_axis = bool(along[1] > along[0]) if width >= depth else bool(along[0] > along[1])

    keep_anchor = shapely.union_all([box(a.x_in - a.size_in, a.y_in - a.size_in, a.x_in + a.size_in,
                                         a.y_in + a.size_in) for a in anchors])
    table_area = box(0, 0, width, depth)

    # Felt pieces, then clutter clear of anchors and felt, then figures clear of both.
    cuts, taken = [], keep_anchor
    for i, kind in enumerate(FELT):
        texture, rgb, contrast = FELT[kind]
        for _ in range(200):
            radius = float(rng.uniform(2.8, 4.5))
            cx, cy = rng.uniform(radius + 1.5, width - radius - 1.5), rng.uniform(radius + 1.5, depth - radius - 1.5)
            outline = _blob(rng, cx, cy, radius)
            if not Polygon(outline).buffer(1.2).intersects(taken):
                break
        cuts.append(FeltCut(f"t{i + 1}", kind, outline, rgb, texture, contrast,
                            ragged_in=float(rng.uniform(0.06, 0.14)), soft_in=float(rng.uniform(0.03, 0.08))))
        taken = taken.union(Polygon(outline).buffer(1.2))
    felt = FeltLayer(width, depth, cuts, rng)
    felt_area = shapely.union_all([p for _c, p in felt.truth])

    items = []
    if lv["clutter"] == "yes":
        kinds = list(rng.permutation(list(clutter_mod.MAKERS)))[: int(rng.integers(2, 5))]
        for kind in kinds:
            for _ in range(40):
                near = int(rng.integers(4))            # straddle or sit near one edge
                off = float(rng.uniform(-3, 6))
                along_x, along_y = rng.uniform(4, width - 4), rng.uniform(4, depth - 4)
                x, y = [(off, along_y), (width - off, along_y), (along_x, off), (along_x, depth - off)][near]
                item = clutter_mod.MAKERS[kind](rng, float(x), float(y))
                foot = item.footprint(camera)
                if not foot.buffer(0.5).intersects(keep_anchor) and not foot.buffer(0.5).intersects(felt_area):
                    items.append(item)
                    keep_anchor = keep_anchor.union(foot.buffer(1.0))
                    break
    blocked = keep_anchor     # anchors and clutter

    figures_xy: list[tuple[float, float]] = []

    def free(x, y, r=1.0, spacing=2.0):
        return (not Point(x, y).buffer(r).intersects(blocked)
                and all(math.hypot(x - a, y - b) >= spacing for a, b in figures_xy))

    def spot(inside: Polygon | None = None, tries=400):
        for _ in range(tries):
            if inside is not None:
                x0, y0, x1, y1 = inside.bounds
                x, y = rng.uniform(x0, x1), rng.uniform(y0, y1)
                if not inside.contains(Point(x, y).buffer(0.6)):
                    continue
            else:
                x, y = rng.uniform(1.5, width - 1.5), rng.uniform(1.5, depth - 1.5)
            if free(x, y):
                figures_xy.append((float(x), float(y)))
                return float(x), float(y)
        return None

    water = next(p for c, p in felt.truth if c.kind == "water")
    colour_figs, rim_visible = [], {}
    n_colour = int(rng.integers(10, 13))
    for k in range(n_colour):
        side = "blue" if k % 2 else "red"
        xy = spot(water if k in (1, 3) else None)        # two blue figures stand in the water
        if xy is None:
            continue
        fig = ColourFigure(f"c{k + 1}", side, SIDE_COLOURS[side], *xy)
        body, vis = random_body(rng, camera, fig, float(rng.uniform(0.3, 0.7)))
        colour_figs.append(replace(fig, body=body))
        rim_visible[fig.figure_id] = round(vis, 3)
    ids = rng.choice(np.arange(10, 50), size=8, replace=False)
    marker_figs = []
    for marker_id in ids[: int(rng.integers(6, 9))]:
        xy = spot()
        if xy is not None:
            marker_figs.append(MarkerFigure(int(marker_id), *xy, marker_in, float(rng.uniform(0, 360))))

    dice = []
    for _ in range(int(rng.integers(2, 5))):
        for _ in range(60):
            fig = colour_figs[int(rng.integers(len(colour_figs)))]
            a = rng.uniform(0, 2 * math.pi)
            d = rng.uniform(1.25, 1.6)
            x, y = fig.x_in + d * math.cos(a), fig.y_in + d * math.sin(a)
            if (0.8 < x < width - 0.8 and 0.8 < y < depth - 0.8 and not Point(x, y).buffer(0.6).intersects(blocked)
                    and all(math.hypot(x - fx, y - fy) >= 0.95 for fx, fy in figures_xy)):
                side = ("red", "blue")[int(rng.integers(2))]
                dice.append(Die(float(x), float(y), float(rng.uniform(0, 90)), SIDE_COLOURS[side], int(rng.integers(1, 7))))
                blocked = blocked.union(Point(x, y).buffer(0.5))
                break

    hand, cover = None, {}
    if lv["hand"] == "yes":
        hand, cover, colour_figs, marker_figs = _place_hand(rng, camera, width, depth, anchors, felt_area,
                                                            colour_figs, marker_figs)

    grid = None
    if lv["grid"] != "none":
        pitch = float(rng.choice([1.0, 1.5])) if lv["grid"] == "square" else float(rng.choice([1.0, 1.5, 2.0]))
        line = shade_of(MAT_RGB[lv["texture"]], 0.45)
        grid = GridDrawing(kind="square" if lv["grid"] == "square" else "hex", pitch_in=pitch,
                           origin=(float(rng.uniform(0, pitch)), float(rng.uniform(0, pitch))),
                           orientation="flat", line_in=float(rng.uniform(0.03, 0.05)), rgb=line)
    table = TableSpec(width, depth, anchors, marker_figures=tuple(marker_figs), colour_figures=tuple(colour_figs),
                      grid=grid, surface_rgb=MAT_RGB[lv["texture"]])
    surface = mat_surface(width, depth, MAT_RGB[lv["texture"]], None if lv["texture"] == "plain" else lv["texture"], rng)
    effects = [Cast(cast_k)]
    if lv["hot_spot"] == "yes":
        effects.append(HotSpot((float(rng.uniform(0.25, 0.75)), float(rng.uniform(0.25, 0.75))),
                               float(rng.uniform(0.12, 0.25)), float(rng.uniform(0.35, 0.7))))
    if blur_px:
        effects.append(MotionBlur(blur_px, float(rng.uniform(0, 180))))
    render_seed = int(rng.integers(1 << 31))
    over = [thing.draw for thing in (*dice, *items)]

    def draw(with_hand: bool):
        layers = over + ([hand.draw] if with_hand and hand is not None else [])
        return render_photo(table, spec, render_seed, surface=surface, under=[felt], over=layers, effects=effects)

    photo = draw(True)
    hidden = {fid for fid, share in cover.items() if share >= HIDDEN_SHARE}
    figures = tuple(replace(f, hidden=f.id in hidden) for f in photo.truth.figures)
    terrain = tuple(Terrain(c.terrain_id, c.kind, poly) for c, poly in felt.truth)
    truth = replace(photo.truth, figures=figures, terrain=terrain)
    conditions = Conditions(
        cast=lv["cast"], cast_k=round(cast_k), clutter=bool(items), hand=hand is not None, blur=lv["blur"],
        blur_px=round(blur_px, 2), texture=lv["texture"], tilt=lv["tilt"], tilt_deg=round(tilt, 1),
        resolution=resolution, grid=lv["grid"], hot_spot=lv["hot_spot"] == "yes", long_side_on_short_axis=short_axis,
        table_in=(round(width, 2), round(depth, 2)), marker_size_in=marker_in, jpeg_quality=spec.jpeg_quality,
        vignette=round(spec.vignette, 3))
    profile = _profile(f"Hard photo {seed}/{index}", table, cuts, marker_figs, rng)
    return HardPhoto(index=index, image=photo.image, truth=truth, profile=profile, conditions=conditions,
                     camera=photo.camera, marker_corners_px=photo.marker_corners_px, rim_visible=rim_visible,
                     hand_cover={k: round(v, 3) for k, v in cover.items()},
                     felt_texture={c.terrain_id: c.texture for c in cuts}, dice=tuple(dice), clutter=tuple(items),
                     hand=hand, _before=(lambda: draw(False).image) if hand is not None else None)


def shade_of(rgb, k):
    return tuple(int(c * k) for c in rgb)


def _place_hand(rng, camera, width, depth, anchors, felt_area, colour_figs, marker_figs):
    """A hand over one or two figures, clear of the anchors; figures it would half-hide are left off
    the table, so every figure is either hidden (>= HIDDEN_SHARE under it) or in plain view."""
    anchor_area = shapely.union_all([box(a.x_in - a.size_in, a.y_in - a.size_in, a.x_in + a.size_in,
                                         a.y_in + a.size_in) for a in anchors])
    everyone = [(f.figure_id, f.x_in, f.y_in, f.base_in / 2, f) for f in colour_figs] + \
               [(f"m{m.marker_id}", m.x_in, m.y_in, m.size_in * 0.75, m) for m in marker_figs]
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
        cover = {fid: covered_share(foot, Point(x, y).buffer(r)) for fid, x, y, r, _f in everyone}
        n_hidden = sum(1 for v in cover.values() if v >= HIDDEN_SHARE)
        felt_hit = foot.intersection(felt_area).area
        score = (n_hidden == 0, felt_hit)
        if best is None or score < best[0]:
            best = (score, hand, cover)
        if n_hidden and felt_hit < 1.0:
            break
    _, hand, cover = best
    drop = {fid for fid, v in cover.items() if 0.02 < v < HIDDEN_SHARE}
    colour_figs = [f for f in colour_figs if f.figure_id not in drop]
    marker_figs = [m for m in marker_figs if f"m{m.marker_id}" not in drop]
    cover = {fid: v for fid, v in cover.items() if v >= HIDDEN_SHARE or (0 < v <= 0.02)}
    return hand, cover, colour_figs, marker_figs


def _profile(name: str, table: TableSpec, cuts: list[FeltCut], marker_figs, rng) -> TableProfile:
    grid = None
    if table.grid is not None:
        grid = GridSpec(table.grid.kind, table.grid.pitch_in, "flat" if table.grid.kind == "hex" else None)
    roster = tuple(RosterEntry(figure=f"m{m.marker_id}", name=f"Figure {m.marker_id}",
                               side=("red", "blue")[int(rng.integers(2))]) for m in marker_figs)
    return TableProfile(name=name, width_in=table.width_in, depth_in=table.depth_in, dictionary=table.dictionary,
                        figure_marker_size_in=marker_figs[0].size_in if marker_figs else 1.0, anchors=table.anchors,
                        grid=grid, sides=tuple(ColourSpec(k, v) for k, v in SIDE_COLOURS.items()),
                        terrain=tuple(ColourSpec(c.kind, c.rgb) for c in cuts), roster=roster)
