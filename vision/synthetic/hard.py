"""The hard set: kitchen-table photos with exact truth, each with the profile to analyse it with.

What makes them hard (issue 10): rimmed bases whose leaning, many-coloured bodies leave 30-70% of
the rim in view, some with a red or blue cloak of either side; dice of the sides' colours beside
figures; blue figures standing in blue water felt; photographed mat and felt textures (grass,
gravel, wood grain) with ragged soft felt edges, woods on a green mat; a white-balance cast from
tungsten (2600 K) to daylight (6500 K), a lamp's hot spot, vignetting, motion blur, JPEG 60;
clutter on and around the table (mug with shadow, printed page, phone, pencil, book); a hand and
arm over one or two figures; tables 36-60" at tilts up to 35 degrees, some with the long side
along the frame's short axis; 1080p and 2160p.

Each condition is a factor with n levels; photos are taken in blocks of n (0..n-1, n..2n-1, ...)
and each block holds each level once, in a seeded shuffle, so any count that is a multiple of 12
is exactly balanced and the combinations vary. Photo k depends only on (seed, k).
"""
from __future__ import annotations

import zlib
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Collection, Iterator, Mapping, Sequence

import numpy as np
import shapely
from shapely.geometry import box

from calibration.profile import ColourSpec, GridSpec, RosterEntry, TableProfile, standard_anchors
from measure.scene import Scene, Terrain
from vision.synthetic import layout
from vision.synthetic.camera import PinholeCamera, camera_over_table
from vision.synthetic.clutter import Die
from vision.synthetic.felt import FeltCut, FeltLayer, mat_surface
from vision.synthetic.hands import HIDDEN_SHARE, Hand
from vision.synthetic.layout import FELT, RESOLUTIONS  # noqa: F401  (RESOLUTIONS: part of this module's vocabulary)
from vision.synthetic.lighting import Cast, HotSpot, MotionBlur, PhoneProcessing, cast_gains_bgr
from vision.synthetic.render import GridDrawing, TableSpec, render_photo
from vision.synthetic.scenes import SIDE_COLOURS

CAST_K = {"tungsten": (2600.0, 3200.0), "warm": (3600.0, 4800.0), "daylight": (5600.0, 6500.0)}
TILT_DEG = {"0-12": (0.0, 12.0), "12-24": (12.0, 24.0), "24-35": (24.0, 35.0)}
MAT_RGB = {"grass": (92, 124, 60), "gravel": (150, 140, 122), "wood": (168, 122, 80), "plain": (176, 160, 128)}
FIGURE_SHADOW = 0.35       # how much a figure's shadow darkens the table and its base (hard_photo's shadows)
PALE_TOPS = ((205, 185, 145), (225, 210, 175), (235, 235, 230))   # hard_photo's pale_tops: sand, cream, snow
THIN_BAND = (0.06, 0.10)   # hard_photo's thin_rims: a band painted at the base's edge, this share of its diameter
                           # (1.5-2.5 mm on a 25 mm base: the edge alone, or its bevel)
# hard_photo's phone: lighting.PhoneProcessing's saturation, chroma blur (px) and sharpening, each drawn from its
# range, and (phone="auto") the share of the lamp's cast the camera's own white balance takes out
PHONE = {"saturation": (1.1, 1.3), "chroma_blur_px": (0.7, 1.2), "sharpen": (0.4, 0.8), "balanced": (0.7, 0.9)}
PHONE_KINDS = ("", "auto", "locked")
# Tables a family plays on where the set's mats are not (hard_photo's mat="kitchen"): name -> (texture,
# colour). A cherry table is nearly the red side's hue, a blue cloth the blue side's.
KITCHEN_MATS = {"cherry wood": ("wood", (130, 62, 40)), "walnut": ("wood", (92, 64, 44)),
                "white top": ("plain", (225, 222, 215)), "grey top": ("plain", (128, 128, 128)),
                "green baize": ("plain", (40, 90, 50)), "blue cloth": ("plain", (60, 80, 130))}
FACTORS: dict[str, tuple] = {
    "cast": tuple(CAST_K), "clutter": ("yes", "no"), "hand": ("yes", "no"), "blur": ("motion", "none"),
    "texture": tuple(MAT_RGB), "tilt": tuple(TILT_DEG), "grid": ("square", "hex", "none"),
    "hot_spot": ("yes", "no"), "long_side": ("short axis", "any", "any"),
}
REPORTED = ("cast", "clutter", "hand", "blur", "texture", "tilt", "resolution", "grid")
ALSO_REPORTED = ("hot spot", "long side")     # in Conditions.groups() too, under these names
# (and "table": a KITCHEN_MATS table's name, reported where the photos have one)


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
    jpeg_full_colour: bool = False
    paints: tuple[tuple[str, str], ...] = ()    # (side, hobby paint) where not the set's paint
    felts: tuple[tuple[str, str], ...] = ()     # (kind, shop felt) where not the set's felt
    mat: str = ""                   # a KITCHEN_MATS table where not the set's mat
    figure_shadows: bool = False    # each colour figure casts a shadow (hard_photo's shadows)
    felt_at_edge: bool = False      # each felt laid across a table edge (hard_photo's felt_at_edge)
    turned: bool = False            # the camera turned a quarter turn, the table's long side along the picture's
    thin_rims: bool = False         # bands at the bases' edges THIN_BAND wide (hard_photo's thin_rims)
    pale_tops: bool = False         # the tops inside those bands PALE_TOPS (hard_photo's pale_tops)
    phone: tuple[float, ...] = ()   # a phone's processing (hard_photo's phone): saturation, chroma blur, sharpening,
                                    # share of the cast its white balance took out (0: locked at daylight)
    clean: bool = False             # light, cast, blur, noise and JPEG left out (a test of the truth)

    def groups(self) -> dict[str, str]:
        return {"cast": self.cast, "clutter": "yes" if self.clutter else "no", "hand": "yes" if self.hand else "no",
                "blur": self.blur, "texture": self.texture, "tilt": self.tilt, "resolution": self.resolution,
                "grid": self.grid, "hot spot": "yes" if self.hot_spot else "no",
                "long side": "short axis" if self.long_side_on_short_axis else "long axis",
                "table": self.mat or "the set's mat"}


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
    cloaks: Mapping[str, str] = field(default_factory=dict)    # colour figure id -> the side its cloak is in
    rim_rgb: Mapping[str, tuple[int, int, int]] = field(default_factory=dict)   # as painted (the profile's is nominal)
    painted_top: Mapping[str, bool] = field(default_factory=dict)    # colour figure id -> its base's whole top
                                                                     # is the side's colour (not a rim band)
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
                   resolutions: Sequence[str] = ("1080p", "1080p", "2160p"),
                   shadows: bool = False) -> Iterator[HardPhoto]:
    """`count` hard photos (see the module's docstring); `resolutions` is cycled like a factor, so
    the default makes a third of them 2160p and ("1080p",) makes them all 1080p; `shadows` as
    hard_photo takes it."""
    for k in range(count):
        yield hard_photo(seed, k, resolutions=resolutions, shadows=shadows)


def hard_photo(seed: int, index: int, *, resolutions: Sequence[str] = ("1080p", "1080p", "2160p"),
               force: Mapping[str, str] | None = None, clean: bool = False,
               absent_kinds: Collection[str] = (), full_colour_jpeg: bool = False, base_in: float = 1.0,
               paint: str = "set", mat: str = "set", shadows: bool = False, felt_at_edge: bool = False,
               felt: str = "set", turned: bool = False, thin_rims: bool = False,
               pale_tops: bool = False, phone: str = "") -> HardPhoto:
    """Photo `index` of the set `seed`; `force` pins factors to levels (e.g. {"hand": "yes"}) for a
    test; `clean` draws the same table with even light and no cast, blur, noise or JPEG;
    `absent_kinds`: felt of these kinds is cut (its random draws taken, so all else is the same photo)
    but not laid on the table, while the profile still lists it, as a family's profile lists every
    kind it owns; `full_colour_jpeg`: the same photo, its JPEG keeping the colour at full resolution
    (4:4:4) instead of half (4:2:0): a diagnosis of what the subsampling costs, not a condition of
    the set; `base_in`: the colour figures' bases' diameter (the set's are 1"; a family's may be
    32 or 40 mm), the profile giving none, as a family's need not; `paint`: "set", each table's paint
    near the profile's colour, or "hobby", each side's rims in one of layout.HOBBY_PAINTS (balanced
    over photos like a factor), the profile still naming the set's colour, as a player picks a
    swatch near their paint; `mat`: "set", or "kitchen", the table one of KITCHEN_MATS (balanced over
    photos like a factor; its texture in place of the texture factor's); `shadows`: each colour
    figure's body casts a shadow from the room's light onto the table and its own base's top
    (FIGURE_SHADOW; no random draw taken, so all else is the same photo); `felt_at_edge`: each felt
    piece laid across one of the table's edges, its truth the part on the table (other draws follow,
    so it is another photo); `felt`: "set", each felt near the profile's colour, or "shop", each kind's
    felt one of layout.SHOP_FELTS (balanced over photos like a factor; no random draw taken, so all
    else is the same photo), the profile still naming the set's colour; `turned`: a photo whose
    table's long side runs along the picture's short side is taken with the camera turned a quarter
    turn about its axis and the table framed again (camera_over_table: just fitting), as a player
    told to turn it would (vision.quality.quarter_turn_gain); the table, its figures, felt, clutter
    and hand are laid out as before (no random draw taken), each rim's share in view and each base's
    share under the hand measured again from the turned camera; Conditions keep the photo's own
    `long_side_on_short_axis` and say `turned`; `thin_rims`: each base painted in a band at its edge
    (not over its whole top) has a band THIN_BAND of its diameter wide instead of the set's 0.12-0.2,
    as a player who paints the edge alone (its own random draws, none taken from the photo's, so all
    else is the same photo; each rim's share in view is measured on the set's band as before);
    `pale_tops`: the top inside each such band is one of PALE_TOPS (sand, cream or snow) instead of
    the set's brown, green or grey (its own draws too); `phone`: "auto" or "locked", the camera's
    own processing between its sensor and the JPEG (lighting.PhoneProcessing: a Bayer mosaic
    interpolated, the colour smoothed against noise and made more vivid, the edges sharpened; its
    strengths drawn from PHONE by its own draws, so all else is the same photo), as a phone's camera
    does and the set's does not: "auto", its own white balance first takes out most of the lamp's
    cast (PHONE's "balanced" share of it), as a phone does by itself; "locked", none (a camera whose
    white balance is set to daylight: the whole cast is made more vivid)."""
    if paint not in ("set", "hobby"):
        raise ValueError(f"paint: {paint!r} is neither 'set' nor 'hobby'")
    if felt not in ("set", "shop"):
        raise ValueError(f"felt: {felt!r} is neither 'set' nor 'shop'")
    if phone not in PHONE_KINDS:
        raise ValueError(f"phone: {phone!r} is none of 'auto', 'locked'")
    if mat not in ("set", "kitchen"):
        raise ValueError(f"mat: {mat!r} is neither 'set' nor 'kitchen'")
    if set(absent_kinds) - set(FELT):
        raise ValueError(f"absent_kinds: {sorted(set(absent_kinds) - set(FELT))} is no felt kind ({list(FELT)})")
    rng = np.random.default_rng([seed, index, 7])
    lv = {f: level(seed, f, index, levels) for f, levels in FACTORS.items()}
    for f, value in (force or {}).items():
        if f not in FACTORS or value not in FACTORS[f]:
            raise ValueError(f"force: {f}={value!r} is no level of a factor ({FACTORS})")
        lv[f] = value
    resolution = level(seed, "resolution", index, tuple(resolutions))
    kitchen = level(seed, "kitchen mat", index, tuple(KITCHEN_MATS)) if mat == "kitchen" else ""
    if kitchen:
        lv["texture"], mat_rgb = KITCHEN_MATS[kitchen]
    else:
        mat_rgb = MAT_RGB[lv["texture"]]
    big = resolution == "2160p"
    long_side = lv["long_side"] == "short axis"
    width = float(rng.uniform(54, 60) if long_side else rng.uniform(36, 60))
    depth = float(rng.uniform(30, min(44.0, width)))
    cast_k = float(rng.uniform(*CAST_K[lv["cast"]]))
    tilt = float(rng.uniform(*TILT_DEG[lv["tilt"]]))
    blur_px = float(rng.uniform(1.0, 2.5) * (2 if big else 1)) if lv["blur"] == "motion" else 0.0

    anchors = standard_anchors(width, depth)
    spec, marker_in = layout.frame(rng, width, depth, anchors, resolution, tilt, long_side)
    spec = replace(spec, jpeg_full_colour=full_colour_jpeg)
    camera = camera_over_table(width, depth, spec.image_size, tilt_deg=spec.tilt_deg, azimuth_deg=spec.azimuth_deg,
                               roll_deg=spec.roll_deg, hfov_deg=spec.hfov_deg, margin=spec.margin)
    edge = camera.project(np.array([[0, 0, 0], [width, 0, 0]], float))
    along = np.abs(edge[1] - edge[0])
    short_axis = bool(along[1] > along[0]) if width >= depth else bool(along[0] > along[1])

    # Felt pieces, then clutter clear of anchors and felt, then figures clear of both, then dice.
    blocked = shapely.union_all([box(a.x_in - a.size_in, a.y_in - a.size_in, a.x_in + a.size_in,
                                     a.y_in + a.size_in) for a in anchors])
    cuts = layout.cut_felt(rng, width, depth, blocked, at_edge=felt_at_edge)
    shop = {kind: level(seed, f"felt {kind}", index, tuple(names))
            for kind, names in layout.SHOP_FELTS.items()} if felt == "shop" else {}
    cuts = [replace(c, rgb=layout.SHOP_FELTS[c.kind][shop[c.kind]]) if c.kind in shop else c for c in cuts]
    felt_layer = FeltLayer(width, depth, cuts, rng)
    felt_area = shapely.union_all([p for _c, p in felt_layer.truth])
    items = layout.lay_clutter(rng, camera, width, depth, blocked, felt_area) if lv["clutter"] == "yes" else []
    for item in items:
        blocked = blocked.union(item.footprint(camera).buffer(1.0))
    water = next(p for c, p in felt_layer.truth if c.kind == "water")
    hobby = {side: level(seed, f"paint {side}", index, tuple(names))
             for side, names in layout.HOBBY_PAINTS.items()} if paint == "hobby" else {}
    colour_figs, marker_figs, rim_visible, taken_img = layout.place_figures(
        rng, camera, width, depth, blocked, water, marker_in, base_in,
        paints={side: layout.HOBBY_PAINTS[side][name] for side, name in hobby.items()})
    dice = layout.roll_dice(rng, camera, width, depth, blocked, colour_figs, marker_figs, taken_img)
    if shadows:
        colour_figs = [replace(f, body=replace(f.body, shadow=FIGURE_SHADOW)) for f in colour_figs]
    if thin_rims:
        bands = np.random.default_rng([seed, index, 11]).uniform(*THIN_BAND, len(colour_figs))
        colour_figs = [f if f.body.painted_top(f) else
                       replace(f, body=replace(f.body, rim_band_in=float(b) * f.base_in))
                       for f, b in zip(colour_figs, bands)]
    if pale_tops:
        tops = np.random.default_rng([seed, index, 13]).integers(len(PALE_TOPS), size=len(colour_figs))
        colour_figs = [f if f.body.painted_top(f) else replace(f, body=replace(f.body, base_top=PALE_TOPS[t]))
                       for f, t in zip(colour_figs, tops)]

    hand, cover = None, {}
    if lv["hand"] == "yes":
        hand, cover, colour_figs, marker_figs = layout.place_hand(rng, camera, width, depth, anchors, felt_area,
                                                            colour_figs, marker_figs)
    turn = turned and short_axis
    if turn:
        # (after every draw that reads the camera: the same table, seen by the camera turned)
        spec = replace(spec, roll_deg=spec.roll_deg + 90.0)
        camera = camera_over_table(width, depth, spec.image_size, tilt_deg=spec.tilt_deg,
                                   azimuth_deg=spec.azimuth_deg, roll_deg=spec.roll_deg, hfov_deg=spec.hfov_deg,
                                   margin=spec.margin)
        rim_visible = {f.figure_id: round(f.body.rim_visible(camera, f), 3) for f in colour_figs}
        if hand is not None:
            cover = layout.hand_cover(hand.footprint(camera), layout.figure_discs(colour_figs, marker_figs))

    grid = None
    if lv["grid"] != "none":
        pitch = float(rng.choice([1.0, 1.5])) if lv["grid"] == "square" else float(rng.choice([1.0, 1.5, 2.0]))
        line = shade_of(mat_rgb, 0.45)
        grid = GridDrawing(kind="square" if lv["grid"] == "square" else "hex", pitch_in=pitch,
                           origin=(float(rng.uniform(0, pitch)), float(rng.uniform(0, pitch))),
                           orientation="flat", line_in=float(rng.uniform(0.03, 0.05)), rgb=line)
    table = TableSpec(width, depth, anchors, marker_figures=tuple(marker_figs), colour_figures=tuple(colour_figs),
                      grid=grid, surface_rgb=mat_rgb)
    surface = mat_surface(width, depth, mat_rgb, None if lv["texture"] == "plain" else lv["texture"], rng)
    effects: list = [Cast(cast_k)]
    if lv["hot_spot"] == "yes":
        effects.append(HotSpot((float(rng.uniform(0.25, 0.75)), float(rng.uniform(0.25, 0.75))),
                               float(rng.uniform(0.12, 0.25)), float(rng.uniform(0.35, 0.7))))
    if blur_px:
        effects.append(MotionBlur(blur_px, float(rng.uniform(0, 180))))
    render_seed = int(rng.integers(1 << 31))
    if clean:
        effects = []
        spec = replace(spec, light_low=1.0, light_high=1.0, vignette=0.0, shadow=0.0, blur_sigma_px=0.5,
                       noise_sigma=0.0, jpeg_quality=0)
    over = [thing.draw for thing in (*dice, *items)]
    if absent_kinds:            # after every draw that reads the felt: the rest of the photo is unmoved
        felt_layer.pieces = [p for p in felt_layer.pieces if p[0].kind not in absent_kinds]
        felt_layer.truth = [t for t in felt_layer.truth if t[0].kind not in absent_kinds]

    finish, finish_conditions = None, ()
    if phone and not clean:
        saturation, blur, sharpen, balanced = (round(float(v), 3) for v in np.random.default_rng(
            [seed, index, 17]).uniform(*np.transpose(list(PHONE.values()))))
        balanced = balanced if phone == "auto" else 0.0
        finish = PhoneProcessing(saturation, blur, sharpen,
                                 tuple(float(g) for g in cast_gains_bgr(cast_k) ** -balanced))
        finish_conditions = (saturation, blur, sharpen, balanced)

    def draw(with_hand: bool):
        layers = over + ([hand.draw] if with_hand and hand is not None else [])
        return render_photo(table, spec, render_seed, surface=surface, under=[felt_layer], over=layers, effects=effects,
                            finish=finish)

    photo = draw(True)
    hidden = {fid for fid, share in cover.items() if share >= HIDDEN_SHARE}
    figures = tuple(replace(f, hidden=f.id in hidden) for f in photo.truth.figures)
    on_table = box(0.0, 0.0, width, depth)
    terrain = tuple(Terrain(c.terrain_id, c.kind, poly.intersection(on_table) if felt_at_edge else poly)
                    for c, poly in felt_layer.truth)
    truth = replace(photo.truth, figures=figures, terrain=terrain)
    conditions = Conditions(
        cast=lv["cast"], cast_k=round(cast_k), clutter=bool(items), hand=hand is not None, blur=lv["blur"],
        blur_px=round(blur_px, 2), texture=lv["texture"], tilt=lv["tilt"], tilt_deg=round(tilt, 1),
        resolution=resolution, grid=lv["grid"], hot_spot=lv["hot_spot"] == "yes", long_side_on_short_axis=short_axis,
        table_in=(round(width, 2), round(depth, 2)), marker_size_in=marker_in, jpeg_quality=spec.jpeg_quality,
        vignette=round(spec.vignette, 3), clean=clean, jpeg_full_colour=spec.jpeg_full_colour,
        paints=tuple(hobby.items()), felts=tuple(shop.items()), mat=kitchen, figure_shadows=shadows, felt_at_edge=felt_at_edge,
        turned=turn, thin_rims=thin_rims, pale_tops=pale_tops,
        phone=finish_conditions)
    profile = _profile(f"Hard photo {seed}/{index}", table, cuts, marker_figs, rng)
    return HardPhoto(index=index, image=photo.image, truth=truth, profile=profile, conditions=conditions,
                     camera=photo.camera, marker_corners_px=photo.marker_corners_px, rim_visible=rim_visible,
                     hand_cover={k: round(v, 3) for k, v in cover.items()},
                     felt_texture={c.terrain_id: c.texture for c, _p in felt_layer.truth},
                     cloaks={f.figure_id: f.body.cloth for f in colour_figs if f.body.cloth},
                     rim_rgb={f.figure_id: f.rim_rgb for f in colour_figs},
                     painted_top={f.figure_id: f.body.painted_top(f) for f in colour_figs},
                     dice=tuple(dice), clutter=tuple(items),
                     hand=hand, _before=(lambda: draw(False).image) if hand is not None else None)


def shade_of(rgb, k):
    return tuple(int(c * k) for c in rgb)


def _profile(name: str, table: TableSpec, cuts: list[FeltCut], marker_figs, rng) -> TableProfile:
    grid = None
    if table.grid is not None:
        grid = GridSpec(table.grid.kind, table.grid.pitch_in, "flat" if table.grid.kind == "hex" else None)
    roster = tuple(RosterEntry(figure=f"m{m.marker_id}", name=f"Figure {m.marker_id}",
                               side=("red", "blue")[int(rng.integers(2))]) for m in marker_figs)
    return TableProfile(name=name, width_in=table.width_in, depth_in=table.depth_in, dictionary=table.dictionary,
                        figure_marker_size_in=marker_figs[0].size_in if marker_figs else 1.0, anchors=table.anchors,
                        grid=grid, sides=tuple(ColourSpec(k, v) for k, v in SIDE_COLOURS.items()),
                        terrain=tuple(ColourSpec(c.kind, FELT[c.kind][1]) for c in cuts), roster=roster)
