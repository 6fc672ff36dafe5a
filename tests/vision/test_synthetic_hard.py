"""The hard renderer's truth agrees with its pictures: markers decode where the truth puts them,
felt lies where its polygon says, the rim shows as much as `rim_visible` says, the hand covers the
figures marked hidden (and only those), and a cast tints the anchors' white as a lamp would."""
from __future__ import annotations

import json
from collections import Counter
from dataclasses import replace

import cv2
import numpy as np
import pytest
from shapely.geometry import Point, Polygon

from calibration.profile import standard_anchors
from vision.synthetic import ColourFigure, MarkerFigure, PhotoSpec, TableSpec, camera_over_table, render_photo
from vision.synthetic.bodies import RIM_IN, random_body
from vision.synthetic.felt import FeltCut, FeltLayer, mat_surface
from vision.synthetic.hands import HIDDEN_SHARE, covered_share, hand_over
from vision.synthetic.hard import FACTORS, PHONE, hard_photo, level
from vision.synthetic.lighting import Cast, PhoneProcessing, cast_gains_bgr
from vision.synthetic.render import encode_jpeg
from vision.synthetic.textures import TEXTURES, printed_page, texture_gray

from tests.vision.hard_scoring import frame_ppi, score_photo

CLEAN = dict(light_low=1.0, light_high=1.0, vignette=0.0, shadow=0.0, blur_sigma_px=0.0, noise_sigma=0.0,
             jpeg_quality=0)
MAT = (176, 160, 128)


def _detector():
    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    return cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50), params)


def _decoded(image) -> dict[int, np.ndarray]:
    corners, ids, _ = _detector().detectMarkers(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY))
    return {} if ids is None else {int(i): c.reshape(4, 2) for i, c in zip(ids.ravel(), corners)}


def test_textures_are_the_shipped_photos():
    for name in TEXTURES:
        tex = texture_gray(name)
        assert tex.shape == (512, 512) and tex.std() > 20, name
    page = printed_page((300, 400))
    ink = (page[..., 0] < 128).mean()
    assert page.shape == (400, 300, 3) and 0.02 < ink < 0.4      # paper with lines of print


def test_levels_are_balanced_in_every_block():
    for factor, levels in FACTORS.items():
        n = len(levels)
        for block in range(3):
            got = Counter(level(5, factor, block * n + i, levels) for i in range(n))
            assert got == Counter(levels), factor


def test_force_pins_a_factor_and_refuses_a_wrong_one():
    photo = hard_photo(3, 0, resolutions=("1080p",), force={"cast": "tungsten", "texture": "wood", "grid": "none"})
    c = photo.conditions
    assert (c.cast, c.texture, c.grid, c.resolution) == ("tungsten", "wood", "none", "1080p")
    assert 2600 <= c.cast_k <= 3200 and photo.truth.grid is None and photo.image.shape == (1080, 1920, 3)
    with pytest.raises(ValueError, match="no level"):
        hard_photo(3, 0, force={"cast": "candle"})


def test_markers_decode_where_the_truth_puts_them():
    """On a clean render of a hard table (textures, clutter, bodies, dice and all) every marker
    decodes, at its truth corners."""
    photo = hard_photo(11, 1, resolutions=("1080p",), force={"hand": "no", "clutter": "yes"}, clean=True)
    found = _decoded(photo.image)
    truth_ids = {f.marker for f in photo.truth.figures if f.marker is not None}
    assert set(found) == truth_ids | {0, 1, 2, 3}
    # The mat's texture pulls a refined corner about; a wrong truth would be cells (>= 2.6 px) away.
    offsets = np.array([c - photo.marker_corners_px[i] for i, c in found.items()])      # (n, 4, 2) px
    assert np.linalg.norm(offsets, axis=2).max() < 1.5
    assert np.linalg.norm(offsets.mean(axis=1), axis=1).max() < 0.4                     # each centre


def test_felt_lies_where_its_polygon_says():
    rng = np.random.default_rng(4)
    outline = tuple((10 + 4 * np.cos(a), 8 + 3 * np.sin(a)) for a in np.linspace(0, 2 * np.pi, 12, endpoint=False))
    felt = FeltLayer(20, 16, [FeltCut("t1", "water", outline, (52, 104, 168), "grass", 0.07, 0.14, 0.08)], rng)
    table = TableSpec(20, 16, standard_anchors(20, 16))
    photo = render_photo(table, PhotoSpec(image_size=(1280, 960), tilt_deg=25, azimuth_deg=60, **CLEAN), 1,
                         surface=mat_surface(20, 16, MAT, None, rng), under=[felt])
    ppi = 20
    h = photo.camera.plane_homography(0.0) @ np.diag([1 / ppi, 1 / ppi, 1.0])
    top = cv2.warpPerspective(photo.image, h, (20 * ppi, 16 * ppi), flags=cv2.WARP_INVERSE_MAP | cv2.INTER_LINEAR)
    blue = (top[..., 0].astype(int) - top[..., 2].astype(int)) > 40
    truth = np.zeros_like(blue, np.uint8)
    poly = felt.truth[0][1]
    cv2.fillPoly(truth, [np.round(np.asarray(poly.exterior.coords) * ppi).astype(np.int32)], 1)
    iou = (blue & (truth > 0)).sum() / (blue | (truth > 0)).sum()
    assert iou > 0.97
    assert abs(poly.area - 12 * np.pi) < 0.15 * 12 * np.pi       # ragged, but the piece that was cut


def test_rim_shows_as_much_as_the_truth_says():
    rng = np.random.default_rng(8)
    camera = camera_over_table(12, 9, (1280, 960), tilt_deg=30, azimuth_deg=100)
    figures = []
    for k, (x, y) in enumerate([(4, 3), (8, 3), (4, 6), (8, 6)]):
        fig = ColourFigure(f"c{k}", "red", (200, 40, 40), x, y)
        body, vis = random_body(rng, camera, fig, 0.3 + 0.12 * k)
        figures.append((ColourFigure(f"c{k}", "red", (200, 40, 40), x, y, body=body), vis))
    table = TableSpec(12, 9, standard_anchors(12, 9, size_in=1.0), colour_figures=tuple(f for f, _ in figures))
    photo = render_photo(table, PhotoSpec(image_size=(1280, 960), tilt_deg=30, azimuth_deg=100, **CLEAN), 1)
    rim = np.all(np.abs(photo.image.astype(int) - (40, 40, 200)) < 25, axis=2)
    for fig, vis in figures:
        band = np.zeros(rim.shape, np.uint8)
        for r, value in ((0.5, 1), (0.5 - RIM_IN, 0)):
            ring = np.c_[fig.x_in + r * np.cos(np.linspace(0, 2 * np.pi, 96)),
                         fig.y_in + r * np.sin(np.linspace(0, 2 * np.pi, 96)), np.full(96, -0.125)]
            cv2.fillPoly(band, [np.round(photo.camera.project(ring) * 16).astype(np.int32)], value, cv2.LINE_8, 4)
        seen = rim[band > 0].mean()
        assert abs(seen - vis) < 0.1, (fig.figure_id, seen, vis)
    assert min(v for _, v in figures) < 0.45 and max(v for _, v in figures) > 0.55


def test_a_painted_top_shows_the_rim_colour_inside_the_band_and_the_truth_says_so():
    # Some players paint a thin band at the base's edge, some the whole top (bodies.py): inside
    # the widest band (0.2 of a 1" base) a painted top shows the side's colour where no body stands,
    # a banded one its base_top.
    rng = np.random.default_rng(3)
    camera = camera_over_table(12, 9, (1280, 960), tilt_deg=20, azimuth_deg=60)
    figures = []
    for k, ((x, y), band) in enumerate(zip([(4, 3), (8, 3), (4, 6), (8, 6)], (0.5, 0.12, 0.2, 0.5))):
        fig = ColourFigure(f"c{k}", "red", (200, 40, 40), x, y)
        body, _ = random_body(rng, camera, fig, 0.7)
        figures.append(ColourFigure(f"c{k}", "red", (200, 40, 40), x, y, body=replace(body, rim_band_in=band)))
    assert [f.body.painted_top(f) for f in figures] == [True, False, False, True]
    table = TableSpec(12, 9, standard_anchors(12, 9, size_in=1.0), colour_figures=tuple(figures))
    photo = render_photo(table, PhotoSpec(image_size=(1280, 960), tilt_deg=20, azimuth_deg=60, **CLEAN), 1)
    red = np.all(np.abs(photo.image.astype(int) - (40, 40, 200)) < 25, axis=2)
    for fig in figures:
        body = fig.body.image_shape(photo.camera, fig).buffer(1.5)
        a = np.linspace(0, 2 * np.pi, 180, endpoint=False)
        ring = np.c_[fig.x_in + 0.26 * np.cos(a), fig.y_in + 0.26 * np.sin(a), np.full(len(a), -fig.base_height_in)]
        px = [p for p in photo.camera.project(ring) if not body.contains(Point(*p))]
        assert len(px) >= 10, (fig.figure_id, len(px))
        shows = np.mean([red[int(round(y)), int(round(x))] for x, y in px])
        assert (shows > 0.9) if fig.body.painted_top(fig) else (shows < 0.1), (fig.figure_id, shows)


def test_a_hard_photo_says_which_tops_are_painted():
    photo = hard_photo(0, 2, clean=True)
    assert set(photo.painted_top) == set(photo.rim_rgb)
    assert 0 < sum(photo.painted_top.values()) < len(photo.painted_top)     # both kinds on one table
    # the hard set's scoring counts them apart: all found in the truth itself, none in an empty scene
    visible = sum(photo.painted_top[f.id] for f in photo.truth.figures if f.detected_by == "colour" and not f.hidden)
    everything = score_photo(photo, photo.truth)
    assert everything.painted_total == everything.painted_found == visible
    nothing = score_photo(photo, replace(photo.truth, figures=()))
    assert (nothing.painted_total, nothing.painted_found) == (visible, 0)
    assert sum("whole top painted" in m for m in nothing.misses) == visible


def test_the_hard_scoring_counts_each_side_apart():
    photo = hard_photo(0, 2, clean=True)
    shown = [f for f in photo.truth.figures if f.detected_by == "colour" and not f.hidden]
    want = Counter(f.side for f in shown)
    assert len(want) == 2                          # both sides on one table
    everything = score_photo(photo, photo.truth)
    assert everything.side_total == everything.side_found == want
    # one side's figures taken away: that side's are missed, the other's found
    gone = min(want)
    some = score_photo(photo, replace(photo.truth, figures=tuple(f for f in photo.truth.figures
                                                                 if f.detected_by != "colour" or f.side != gone)))
    assert some.side_total == want
    assert some.side_found == Counter({side: n for side, n in want.items() if side != gone})
    assert sum(some.side_total.values()) == some.colour_total


def test_a_hand_hides_the_marker_under_it_and_the_truth_says_so():
    table = TableSpec(30, 20, standard_anchors(30, 20), marker_figures=(MarkerFigure(17, 15.0, 10.0, 1.5),
                                                                         MarkerFigure(23, 26.0, 10.0, 1.5)))
    spec = PhotoSpec(image_size=(1280, 720), tilt_deg=20, azimuth_deg=80, **CLEAN)
    camera = camera_over_table(30, 20, (1280, 720), tilt_deg=20, azimuth_deg=80)
    hand = hand_over(np.random.default_rng(2), camera, (15.0, 10.0), 30, 20)
    foot = hand.footprint(camera)
    assert covered_share(foot, Point(15, 10).buffer(0.75)) >= HIDDEN_SHARE
    assert covered_share(foot, Point(26, 10).buffer(0.75)) == 0
    without = render_photo(table, spec, 1)
    with_hand = render_photo(table, spec, 1, over=[hand.draw])
    assert {17, 23} <= set(_decoded(without.image))
    found = _decoded(with_hand.image)
    assert 17 not in found and 23 in found


def test_hidden_figures_are_those_the_hand_covers_in_the_picture():
    photo = hard_photo(2, 3, resolutions=("1080p",), force={"hand": "yes", "blur": "none"})
    before = photo.before()
    assert photo.hidden_ids and before.shape == photo.image.shape
    changed = np.abs(photo.image.astype(int) - before.astype(int)).max(axis=2) > 25
    foot = photo.hand.footprint(photo.camera)

    def changed_share(f):
        ring = np.c_[f.x + 0.5 * np.cos(np.linspace(0, 2 * np.pi, 48)), f.y + 0.5 * np.sin(np.linspace(0, 2 * np.pi, 48)),
                     np.full(48, -0.125)]
        mask = np.zeros(changed.shape, np.uint8)
        cv2.fillPoly(mask, [np.round(photo.camera.project(ring)).astype(np.int32)], 1)
        return changed[mask > 0].mean()

    for f in photo.truth.figures:
        if f.hidden:
            assert changed_share(f) >= 0.5, f.id
        elif foot.distance(Point(f.x, f.y)) > 4:
            assert changed_share(f) < 0.02, f.id


def test_a_cast_tints_the_anchors_white_like_the_lamp():
    table = TableSpec(20, 14, standard_anchors(20, 14))
    spec = PhotoSpec(image_size=(1280, 960), tilt_deg=10, **{**CLEAN, "light_low": 0.6, "light_high": 0.6})
    means = {}     # (exposed low enough that the lamp's red does not clip)
    for kelvin in (2600.0, 6500.0):
        photo = render_photo(table, spec, 1, effects=[Cast(kelvin)])
        a = table.anchors[0]
        quiet = np.c_[[a.x_in - 1.1, a.x_in + 1.1, a.x_in + 1.1, a.x_in - 1.1],
                      [a.y_in - 1.1, a.y_in - 1.1, a.y_in + 1.1, a.y_in + 1.1], np.zeros(4)]
        inner = quiet.copy()
        inner[:, :2] = (quiet[:, :2] - (a.x_in, a.y_in)) * (1.0 / 1.1) + (a.x_in, a.y_in)
        mask = np.zeros(photo.image.shape[:2], np.uint8)
        cv2.fillPoly(mask, [np.round(photo.camera.project(quiet)).astype(np.int32)], 1)
        cv2.fillPoly(mask, [np.round(photo.camera.project(inner)).astype(np.int32)], 0)
        mask = cv2.erode(mask, np.ones((3, 3), np.uint8))
        means[kelvin] = photo.image[mask > 0].astype(float).mean(axis=0)
    day, tungsten = means[6500.0], means[2600.0]
    assert np.abs(day - 0.6 * np.array([228, 235, 235])).max() < 2   # daylight leaves the card's white as printed
    gains = cast_gains_bgr(2600.0)
    assert tungsten[0] < tungsten[1] < tungsten[2]                  # blue lowest, red highest: orange
    ratio = (tungsten[0] / tungsten[2]) / (day[0] / day[2])
    assert abs(ratio - gains[0] / gains[2]) < 0.05


def test_same_seed_same_photo():
    a = hard_photo(9, 4, resolutions=("1080p",))
    b = hard_photo(9, 4, resolutions=("1080p",))
    assert np.array_equal(a.image, b.image) and a.conditions == b.conditions
    assert [f.xy for f in a.truth.figures] == [f.xy for f in b.truth.figures]


def test_a_kind_off_the_table_is_not_drawn_but_still_listed_and_all_else_is_the_same_photo():
    whole = hard_photo(0, 1, resolutions=("1080p",))
    photo = hard_photo(0, 1, resolutions=("1080p",), absent_kinds=("hill",))
    assert [t.kind for t in photo.truth.terrain] == ["woods", "rocks", "water"]
    assert [t.name for t in photo.profile.terrain] == ["woods", "rocks", "hill", "water"]
    assert photo.profile == whole.profile and photo.truth.figures == whole.truth.figures
    # Only the hill's own place changed (its edge blurred, JPEG blocks round it): it is cut with the
    # same random numbers, so everything else lies where it was.
    hill = next(t.polygon for t in whole.truth.terrain if t.kind == "hill")
    ring = np.asarray(hill.buffer(0.6).exterior.coords)
    near = np.zeros(whole.image.shape[:2], np.uint8)
    cv2.fillPoly(near, [np.round(whole.camera.project(np.c_[ring, np.zeros(len(ring))])).astype(np.int32)], 1)
    changed = np.abs(photo.image.astype(int) - whole.image).max(axis=2) > 24
    assert changed.sum() > 1000 and (changed & (near > 0)).sum() / changed.sum() > 0.95
    with pytest.raises(ValueError, match="no felt kind"):
        hard_photo(0, 1, absent_kinds=("lava",))


def _sampling(jpeg: np.ndarray) -> list[int]:
    """Each component's sampling factors (H << 4 | V) in a baseline JPEG's frame header (SOF0)."""
    data = bytes(jpeg)
    at = data.index(b"\xff\xc0")
    n = data[at + 9]
    return [data[at + 10 + 3 * c + 1] for c in range(n)]


def test_a_jpeg_keeps_colour_at_half_resolution_unless_asked_for_full():
    image = np.random.default_rng(0).integers(0, 256, (64, 96, 3), dtype=np.uint8)
    assert _sampling(encode_jpeg(image, 60)) == [0x22, 0x11, 0x11]          # 4:2:0, as cameras keep it
    assert _sampling(encode_jpeg(image, 60, full_colour=True)) == [0x11, 0x11, 0x11]
    # A line of colour two pixels wide (a rim at 1080p) loses most of its colour at half
    # resolution, and keeps it at full.
    grey = np.full((64, 64, 3), 150, np.uint8)
    grey[:, 31:33] = (200, 90, 60)                                        # BGR: blue paint
    cb = {full: cv2.cvtColor(cv2.imdecode(encode_jpeg(grey, 60, full), cv2.IMREAD_COLOR),
                             cv2.COLOR_BGR2YCrCb)[8:56, 31:33, 2].astype(float).mean() - 128
          for full in (False, True)}
    truth = float(cv2.cvtColor(grey[:1, 31:32], cv2.COLOR_BGR2YCrCb)[0, 0, 2]) - 128
    assert cb[True] > 0.8 * truth and cb[False] < 0.7 * cb[True]


def test_a_full_colour_jpeg_is_the_same_photo_with_its_colour_kept():
    photo = hard_photo(0, 1, resolutions=("1080p",))
    full = hard_photo(0, 1, resolutions=("1080p",), full_colour_jpeg=True)
    assert full.conditions == replace(photo.conditions, jpeg_full_colour=True)
    assert full.truth == photo.truth and full.profile == photo.profile
    y = [cv2.cvtColor(p.image, cv2.COLOR_BGR2YCrCb).astype(float) for p in (photo, full)]
    assert np.abs(y[0][..., 0] - y[1][..., 0]).mean() < 3.0               # the same picture
    # its colour's fine detail kept: more of the colour planes' variation left at the finest scale
    fine = [float(np.abs(cv2.Laplacian(c[..., 1:], cv2.CV_64F)).mean()) for c in y]
    assert fine[1] > 1.3 * fine[0]


def test_a_saved_hard_photo_reads_back_through_the_command_line(tmp_path, capsys):
    """The files a player would have: `tablesight analyze` on them sees what the benchmark's
    in-process pipeline sees, with the same profile."""
    from assistant.cli import main
    from calibration.profile import load_profile
    from vision.pipeline import FramePipeline
    from vision.synthetic.export import write_hard_photo

    photo = hard_photo(6, 2, resolutions=("1080p",))
    image = write_hard_photo(photo, tmp_path, "p2")
    assert load_profile(tmp_path / "p2.toml") == photo.profile
    assert main(["analyze", str(image), "--table", str(tmp_path / "p2.toml"), "--json"]) == 0
    cli = json.loads(capsys.readouterr().out)
    direct = FramePipeline(photo.profile).process(photo.image).scene
    found = {f["id"]: (f["x"], f["y"]) for f in cli["figures"]}
    assert set(found) == {f.id for f in direct.figures}
    for f in direct.figures:               # the Scene JSON keeps positions to the thousandth
        assert np.allclose(found[f.id], f.xy, atol=0.0011), f.id
    truth = json.loads((tmp_path / "p2.truth.json").read_text())
    assert len(truth["figures"]) == len(photo.truth.figures) and len(truth["terrain"]) == 4


def test_a_saved_profile_keeps_a_sides_base_size(tmp_path):
    from dataclasses import replace

    from calibration.profile import load_profile
    from vision.synthetic.export import write_hard_photo

    photo = hard_photo(6, 2, resolutions=("1080p",), base_in=1.26)
    sized = replace(photo, profile=replace(photo.profile, sides=(replace(photo.profile.sides[0], base_in=1.26),
                                                                 *photo.profile.sides[1:])))
    write_hard_photo(sized, tmp_path, "p2")
    assert load_profile(tmp_path / "p2.toml") == sized.profile
    assert [s.base_in for s in sized.profile.sides] == [1.26] + [None] * (len(sized.profile.sides) - 1)
    assert {f.base_in for f in photo.truth.figures if f.detected_by == "colour"} == {1.26}   # as drawn


def test_hobby_paint_rims_each_side_in_a_shop_paint_and_all_else_is_the_same_photo():
    from vision.synthetic.layout import HOBBY_PAINTS
    from vision.synthetic.scenes import SIDE_COLOURS

    plain = hard_photo(6, 2, resolutions=("1080p",))
    photo = hard_photo(6, 2, resolutions=("1080p",), paint="hobby")
    paints = dict(photo.conditions.paints)
    assert plain.conditions.paints == () and set(paints) == {"red", "blue"}
    # the profile still names the set's colour (a swatch near the paint), not the paint
    assert photo.profile == plain.profile
    assert {s.name: s.rgb for s in photo.profile.sides} == SIDE_COLOURS
    sides = {f.id: f.side for f in photo.truth.figures}
    for fid, rgb in photo.rim_rgb.items():       # each figure's paint is the pot's, give or take 6 levels
        pot = HOBBY_PAINTS[sides[fid]][paints[sides[fid]]]
        assert max(abs(a - b) for a, b in zip(rgb, pot)) <= 6, fid
    assert photo.truth.figures == plain.truth.figures and photo.rim_visible == plain.rim_visible
    with pytest.raises(ValueError, match="paint"):
        hard_photo(6, 2, paint="shop")


@pytest.mark.parametrize("option, level, table, named", [("paint", "hobby", "HOBBY_PAINTS", "paints"),
                                                         ("felt", "shop", "SHOP_FELTS", "felts")])
def test_shop_paints_and_felts_are_balanced_over_every_block(option, level, table, named):
    from vision.synthetic import layout

    choices = getattr(layout, table)
    n = len(next(iter(choices.values())))
    got = [dict(getattr(hard_photo(3, k, resolutions=("1080p",), **{option: level}).conditions, named))
           for k in range(n)]
    for what, names in choices.items():
        assert Counter(g[what] for g in got) == Counter(list(names)), what


def test_shop_felt_cuts_each_kind_from_a_shop_felt_and_all_else_is_the_same_photo():
    from vision.synthetic.layout import FELT, SHOP_FELTS

    plain = hard_photo(6, 2, resolutions=("1080p",))
    photo = hard_photo(6, 2, resolutions=("1080p",), felt="shop")
    felts = dict(photo.conditions.felts)
    assert plain.conditions.felts == () and set(felts) == set(FELT)
    # the profile still names the set's felt colour (a swatch near the felt), not the shop's
    assert photo.profile == plain.profile
    assert {t.name: t.rgb for t in photo.profile.terrain} == {k: v[1] for k, v in FELT.items()}
    assert photo.truth == plain.truth and photo.rim_visible == plain.rim_visible
    # each piece is drawn in its shop felt: a pixel in the middle of it, in the clean photo, is that
    # colour (give or take the felt's texture), and each shop felt is 18 levels or more off the set's
    clean = hard_photo(6, 2, resolutions=("1080p",), felt="shop", clean=True)
    for t in clean.truth.terrain:
        x, y = t.polygon.representative_point().coords[0]
        u, v = clean.camera.project(np.array([[x, y, 0.0]]))[0]
        shop = SHOP_FELTS[t.kind][felts[t.kind]]
        assert max(abs(a - b) for a, b in zip(shop, FELT[t.kind][1])) >= 18, t.kind
        patch = clean.image[int(v) - 2:int(v) + 3, int(u) - 2:int(u) + 3].reshape(-1, 3)[:, ::-1].mean(0)
        assert np.abs(patch - shop).max() < np.abs(patch - FELT[t.kind][1]).max(), (t.kind, patch, shop)
    with pytest.raises(ValueError, match="felt"):
        hard_photo(6, 2, felt="hobby")


def test_a_kitchen_table_lays_the_set_on_one_of_the_kitchen_mats_balanced_over_every_block():
    from vision.synthetic.hard import KITCHEN_MATS

    n = len(KITCHEN_MATS)
    got = [hard_photo(2, k, resolutions=("1080p",), mat="kitchen", clean=True) for k in range(n)]
    assert Counter(p.conditions.mat for p in got) == Counter(list(KITCHEN_MATS))
    assert hard_photo(2, 0, resolutions=("1080p",)).conditions.mat == ""
    for photo in got:
        texture, rgb = KITCHEN_MATS[photo.conditions.mat]
        assert photo.conditions.texture == texture
        # the (clean) table's mat, away from everything on it, is that colour (the texture varies it)
        clean = photo
        things = [Point(f.x, f.y).buffer(1.5) for f in clean.truth.figures] + [t.polygon.buffer(1.0)
                                                                             for t in clean.truth.terrain]
        xy = np.stack(np.meshgrid(np.linspace(3, clean.profile.width_in - 3, 40),
                                  np.linspace(3, clean.profile.depth_in - 3, 30)), -1).reshape(-1, 2)
        xy = np.array([p for p in xy if not any(t.contains(Point(*p)) for t in things)])
        px = np.round(clean.camera.project(np.c_[xy, np.zeros(len(xy))])).astype(int)
        seen = clean.image[px[:, 1], px[:, 0]][:, ::-1].astype(float)
        assert np.abs(np.median(seen, axis=0) - rgb).max() <= 30, (photo.conditions.mat, np.median(seen, axis=0))
    with pytest.raises(ValueError, match="mat"):
        hard_photo(2, 0, mat="patio")


def test_felt_at_the_edge_lays_each_piece_across_a_table_edge_its_truth_the_part_on_the_table():
    photo = hard_photo(0, 58, felt_at_edge=True, clean=True)
    assert photo.conditions.felt_at_edge and not hard_photo(0, 58, clean=True).conditions.felt_at_edge
    width, depth = photo.conditions.table_in
    table = Polygon([(0, 0), (width, 0), (width, depth), (0, depth)])
    assert sorted(t.kind for t in photo.truth.terrain) == ["hill", "rocks", "water", "woods"]
    for t in photo.truth.terrain:
        # (table_in is rounded to 0.01")
        assert t.polygon.area >= 10 and t.polygon.difference(table.buffer(0.01)).area < 1e-6, t.kind
        # it reaches one of the table's edges: the rest of it runs off the table
        assert t.polygon.intersects(table.exterior.buffer(0.05)), t.kind


def test_a_figure_casts_its_shadow_on_the_table_and_its_own_top_where_the_light_says():
    # (bodies.Body.shadow: the body's shadow, slanting as paint.SHADOW_SLANT, darkens what lies
    # under it by `shadow`; the body itself, drawn after, is not darkened)
    from vision.synthetic.hard import FIGURE_SHADOW

    rng = np.random.default_rng(5)
    camera = camera_over_table(12, 9, (1280, 960), tilt_deg=10, azimuth_deg=40)
    fig = ColourFigure("c0", "red", (200, 40, 40), 6, 4.5)
    body, _ = random_body(rng, camera, fig, 0.6)
    photos = []
    for shadow in (0.0, FIGURE_SHADOW):
        shown = replace(fig, body=replace(body, shadow=shadow, rim_band_in=0.12))
        table = TableSpec(12, 9, standard_anchors(12, 9, size_in=1.0), colour_figures=(shown,))
        photos.append(render_photo(table, PhotoSpec(image_size=(1280, 960), tilt_deg=10, azimuth_deg=40, **CLEAN), 1))
    plain, shaded = (p.image.astype(float) for p in photos)
    body_px = body.image_shape(camera, fig).buffer(1.5)         # (pixels: the body hides what lies behind it)
    on_table = body.shadow_shape(fig, 0.0).difference(Point(6, 4.5).buffer(0.6))
    on_top = body.shadow_shape(fig, fig.base_height_in)
    assert on_table.area > 0.2 and not on_top.is_empty

    def ratio_at(shape, height_in):
        grid = np.stack(np.meshgrid(np.linspace(3, 9, 241), np.linspace(1.5, 7.5, 241)), -1).reshape(-1, 2)
        inner = shape.buffer(-0.08)
        xy = np.array([p for p in grid if inner.contains(Point(*p))])
        px = np.round(camera.project(np.c_[xy, np.full(len(xy), -height_in)])).astype(int)
        px = np.array([p for p in px if not body_px.contains(Point(*p))])
        assert len(px) >= 5
        return shaded[px[:, 1], px[:, 0]].sum(1) / plain[px[:, 1], px[:, 0]].sum(1)

    assert np.median(ratio_at(on_table, 0.0)) == pytest.approx(1 - FIGURE_SHADOW, abs=0.05)
    assert np.median(ratio_at(on_top, fig.base_height_in)) == pytest.approx(1 - FIGURE_SHADOW, abs=0.05)
    # nothing away from the shadow and the base changes
    near = body.shadow_shape(fig, 0.0).union(Point(6, 4.5).buffer(0.5)).buffer(0.4)
    ring = np.asarray(near.exterior.coords)
    far = ~_pixels_of(Polygon(camera.project(np.c_[ring, np.zeros(len(ring))])), plain.shape[:2])
    far &= ~_pixels_of(body.image_shape(camera, fig).buffer(3.0), far.shape)
    assert far.sum() > 0.9 * far.size
    assert np.array_equal(plain[far], shaded[far])


def _pixels_of(shape, size) -> np.ndarray:
    mask = np.zeros(size, np.uint8)
    cv2.fillPoly(mask, [np.round(np.asarray(shape.exterior.coords)).astype(np.int32)], 1)
    return mask > 0


def test_figure_shadows_change_only_the_pixels_near_the_colour_figures():
    plain = hard_photo(4, 1, resolutions=("1080p",))
    photo = hard_photo(4, 1, resolutions=("1080p",), shadows=True)
    assert photo.conditions.figure_shadows and not plain.conditions.figure_shadows
    assert photo.truth == plain.truth and photo.profile == plain.profile and photo.rim_visible == plain.rim_visible
    changed = np.abs(photo.image.astype(int) - plain.image.astype(int)).max(2) > 12
    assert changed.sum() > 200
    near = np.zeros(changed.shape, bool)
    for f in plain.truth.figures:
        if f.detected_by == "colour":
            near |= _pixels_of(Point(*plain.camera.project(np.array([[f.x, f.y, 0.0]]))[0]).buffer(
                2.0 * frame_ppi(plain.camera, f.x, f.y)), changed.shape)
    assert not (changed & ~near).any()


def test_a_turned_camera_shows_the_same_table_finer_its_long_side_along_the_pictures_long_side():
    """`turned`: the camera turned a quarter turn as the reply tells a player to, the table framed
    again. The same table (figures, felt, profile), its long side now along the picture's long side,
    seen finer; the bases the hand hides are those its footprint covers from the turned camera. A
    photo whose table's long side already runs along the picture's long side is not turned."""
    before = hard_photo(0, 11, resolutions=("1080p",))
    after = hard_photo(0, 11, resolutions=("1080p",), turned=True)
    assert before.conditions.long_side_on_short_axis and not before.conditions.turned
    assert after.conditions.long_side_on_short_axis and after.conditions.turned
    assert [(f.id, f.x, f.y) for f in after.truth.figures] == [(f.id, f.x, f.y) for f in before.truth.figures]
    assert after.truth.terrain == before.truth.terrain and after.profile == before.profile
    w, d = before.profile.width_in, before.profile.depth_in
    long_edge = np.array([[0, 0, 0], [max(w, d), 0, 0]] if w >= d else [[0, 0, 0], [0, max(w, d), 0]], float)

    def along(camera):
        return np.abs(np.diff(camera.project(long_edge), axis=0))[0]

    assert along(before.camera)[1] > along(before.camera)[0] and along(after.camera)[0] > along(after.camera)[1]

    def px_per_in(camera):
        c = np.array([[w / 2, d / 2, 0], [w / 2 + 1, d / 2, 0], [w / 2, d / 2 + 1, 0]], float)
        p = camera.project(c)
        return min(np.hypot(*(p[1] - p[0])), np.hypot(*(p[2] - p[0])))

    assert px_per_in(after.camera) > 1.2 * px_per_in(before.camera)
    foot = after.hand.footprint(after.camera)
    for f in after.truth.figures:
        r = f.base_in / 2 if f.detected_by == "colour" else 0.95 * after.profile.figure_marker_size_in
        assert f.hidden == (covered_share(foot, Point(f.x, f.y).buffer(r)) >= HIDDEN_SHARE), f.id
    assert after.hidden_ids
    plain = hard_photo(0, 3, resolutions=("1080p",))
    assert not plain.conditions.long_side_on_short_axis
    assert np.array_equal(hard_photo(0, 3, resolutions=("1080p",), turned=True).image, plain.image)


@pytest.mark.parametrize("option", ["thin_rims", "pale_tops"])
def test_thin_rims_and_pale_tops_change_only_the_bases_painted_in_a_band_at_their_edge(option):
    """`thin_rims`: a base painted in a band at its edge has a band THIN_BAND of its diameter wide;
    `pale_tops`: the top inside that band is sand, cream or snow. A base painted over its whole top,
    and everything else in the photo, as before."""
    plain = hard_photo(4, 1, resolutions=("1080p",))
    photo = hard_photo(4, 1, resolutions=("1080p",), **{option: True})
    assert getattr(photo.conditions, option) and not getattr(plain.conditions, option)
    assert photo.truth == plain.truth and photo.profile == plain.profile
    assert photo.rim_visible == plain.rim_visible and photo.painted_top == plain.painted_top
    assert not all(plain.painted_top.values()) and any(plain.painted_top.values())
    changed = np.abs(photo.image.astype(int) - plain.image.astype(int)).max(2) > 12
    assert changed.sum() > 50
    near = np.zeros(changed.shape, bool)
    for f in plain.truth.figures:
        if f.detected_by == "colour" and not plain.painted_top[f.id]:
            near |= _pixels_of(Point(*plain.camera.project(np.array([[f.x, f.y, 0.0]]))[0]).buffer(
                1.5 * frame_ppi(plain.camera, f.x, f.y)), changed.shape)   # (and the JPEG's blocks round it)
    assert not (changed & ~near).any()


def test_a_phone_keeps_a_flat_colour_but_smooths_a_thin_line_of_it_and_makes_it_more_vivid():
    """lighting.PhoneProcessing: the sensor's mosaic interpolated keeps a flat patch's colour where
    it is; the colour of a red line two pixels wide is spread past it (smoothed against noise); and
    the colour stands further from grey (more vivid)."""
    image = np.full((40, 60, 3), 128, np.uint8)
    image[:, :20] = (40, 50, 190)                      # a red patch (BGR)
    image[:, 39:41] = (40, 50, 190)                    # a red line 2 px wide
    plain = PhoneProcessing(saturation=1.0, chroma_blur_px=0.7, sharpen=0.0)(image)
    vivid = PhoneProcessing(saturation=1.25, chroma_blur_px=0.7, sharpen=0.0)(image)
    cr = [cv2.cvtColor(x, cv2.COLOR_BGR2YCrCb)[20, :, 1].astype(int) - 128 for x in (image, plain, vivid)]
    assert abs(plain[20, 8].astype(int) - image[20, 8]).max() <= 3        # the flat red kept, red channel red
    assert cr[1][40] < 0.8 * cr[0][40] and cr[1][38] > 0.15 * cr[0][40] and cr[0][38] == 0
    assert cr[2][8] == pytest.approx(1.25 * cr[1][8], abs=2)


def test_phone_processing_changes_the_photo_not_the_scene():
    """hard_photo(phone="auto" or "locked"): the same table, truth and profile; the strengths drawn
    from PHONE by draws of their own; "auto" takes most of the lamp's cast out (the photo's colour
    nearer grey than "locked" under a warm light); a clean photo has none."""
    plain = hard_photo(4, 1, resolutions=("1080p",), force={"cast": "tungsten"})
    chroma = {}
    for kind in ("auto", "locked"):
        photo = hard_photo(4, 1, resolutions=("1080p",), force={"cast": "tungsten"}, phone=kind)
        assert photo.truth == plain.truth and photo.profile == plain.profile
        assert photo.rim_visible == plain.rim_visible
        assert plain.conditions.phone == () and len(photo.conditions.phone) == len(PHONE)
        for value, (lo, hi), name in zip(photo.conditions.phone, PHONE.values(), PHONE):
            assert lo <= value <= hi or (name == "balanced" and kind == "locked" and value == 0)
        ycc = cv2.cvtColor(photo.image, cv2.COLOR_BGR2YCrCb).astype(float)
        chroma[kind] = np.abs(ycc[..., 1:] - 128).mean()
    ycc = cv2.cvtColor(plain.image, cv2.COLOR_BGR2YCrCb).astype(float)
    assert chroma["locked"] > 1.05 * np.abs(ycc[..., 1:] - 128).mean() > 1.05 * chroma["auto"]
    clean = hard_photo(4, 1, resolutions=("1080p",), force={"cast": "tungsten"}, phone="auto", clean=True)
    assert clean.conditions.phone == ()
    with pytest.raises(ValueError, match="phone"):
        hard_photo(4, 1, phone="vivid")
