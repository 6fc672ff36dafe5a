"""Terrain felt on the hard set's own photos (vision.synthetic.hard), with its exact truth: the
felt kinds that photograph close to a mat of the same texture family (rocks on a gravel mat, a
hill on a wood-grain mat, woods on a grass mat), figures standing on felt, and clutter (a mug with
its shadow, a book, a phone, a page, a pencil) beside the felt.

Each photo is analysed as `tablesight analyze` does, with its own table profile; the truth of a
piece is where its felt covers at least half, as drawn.
"""
from __future__ import annotations

import math

import numpy as np
import pytest
from shapely.geometry import Point

from vision import terrain
from vision.pipeline import FramePipeline
from vision.synthetic.hard import hard_photo

from tests.vision.scoring import visible_truth

SEED = 11
# Photo index of seed SEED on each textured mat (clutter on the table, no hand), and the kind that
# photographs like that mat.
PHOTOS = {"gravel": 0, "wood": 3, "grass": 2}
HARD_KIND = {"gravel": "rocks", "wood": "hill", "grass": "woods"}


def goal_not_met(measured: str):
    """Issue 10's goal, kept at its number, not reached yet on this photo (strict: the mark goes
    the day it passes)."""
    return pytest.mark.xfail(strict=True, reason=f"issue 10 goal not met yet: {measured}")


def _analyse(texture: str, index: int):
    photo = hard_photo(SEED, index, resolutions=("1080p",), force={"texture": texture, "clutter": "yes", "hand": "no"})
    return photo, FramePipeline(photo.profile).process(photo.image).scene


@pytest.fixture(scope="module")
def analysed():
    """{texture: (photo, scene)}: one 1080p photo on each textured mat."""
    return {texture: _analyse(texture, index) for texture, index in PHOTOS.items()}


def _iou(a, b) -> float:
    return a.intersection(b).area / a.union(b).area


def _scene_and_truth(seed: int, index: int, **photo_kw):
    """Hard photo `index` of `seed` (`photo_kw`: as hard_photo takes them) as `tablesight analyze`
    sees it: (photo, scene, {kind: truth})."""
    photo = hard_photo(seed, index, **photo_kw)
    return photo, FramePipeline(photo.profile).process(photo.image).scene, dict(visible_truth(photo.truth))


def _assert_one_piece(scene, truth, kind: str, min_iou: float) -> None:
    """The kind is one piece over its felt, IoU at least `min_iou`."""
    mine = [t for t in scene.terrain if t.kind == kind]
    assert len(mine) == 1 and _iou(mine[0].polygon, truth[kind]) >= min_iou, kind


def _assert_every_kind_once(scene, truth, min_iou: float) -> None:
    """Each kind in the photo found, nothing else, each piece over its felt with IoU >= `min_iou`."""
    assert sorted(t.kind for t in scene.terrain) == sorted(truth)
    for t in scene.terrain:
        assert _iou(t.polygon, truth[t.kind]) >= min_iou, t.kind


@pytest.mark.parametrize("texture", list(PHOTOS))
def test_the_kind_like_its_mat_is_one_polygon_with_iou_over_0_9(analysed, texture):
    photo, scene = analysed[texture]
    kind = HARD_KIND[texture]
    truth = [poly for k, poly in visible_truth(photo.truth) if k == kind]
    assert len(truth) == 1
    mine = [t for t in scene.terrain if t.kind == kind and t.polygon.intersects(truth[0])]
    assert len(mine) == 1, [(t.kind, t.polygon.bounds) for t in scene.terrain]
    assert mine[0].polygon.geom_type == "Polygon" and not mine[0].polygon.interiors
    assert _iou(mine[0].polygon, truth[0]) >= 0.9


@pytest.mark.parametrize("texture", list(PHOTOS))
def test_every_kind_found_once_and_nothing_else(analysed, texture):
    photo, scene = analysed[texture]
    truth = visible_truth(photo.truth)
    assert sorted(t.kind for t in scene.terrain) == sorted(k for k, _ in truth)
    for kind, poly in truth:
        found = [t for t in scene.terrain if t.kind == kind]
        assert _iou(found[0].polygon, poly) >= 0.85, kind
    for t in scene.terrain:
        assert 0.5 <= t.extra["confidence"] <= 1.0


def test_a_figure_standing_on_felt_cuts_no_hole(analysed):
    """Figures found standing on a piece (inside it, or on its edge) are part of it; no piece has a
    hole. (A figure the detectors miss at a piece's edge may still notch it.) The felt under the
    figure is where the figure truly stands: a base found 0.3" off towards the felt's edge still
    stands on the felt where it is."""
    count = 0
    for photo, scene in analysed.values():
        truth = visible_truth(photo.truth)
        for f in scene.figures:
            real = min(photo.truth.figures, key=lambda g: math.hypot(g.x - f.x, g.y - f.y))
            if math.hypot(real.x - f.x, real.y - f.y) > 0.5:
                continue                                    # no figure there (scored elsewhere)
            for kind, poly in truth:
                if poly.contains(Point(real.x, real.y)):
                    count += 1
                    piece = [t.polygon for t in scene.terrain if t.kind == kind]
                    assert piece and piece[0].contains(Point(real.x, real.y).buffer(0.4)), (f.id, kind)
        assert all(not t.polygon.interiors for t in scene.terrain)
    assert count >= 2


def test_clutter_never_becomes_terrain(analysed):
    kinds = set()
    for photo, scene in analysed.values():
        for item in photo.clutter:
            kinds.add(item.kind)
            foot = item.footprint(photo.camera)
            for t in scene.terrain:
                assert t.polygon.intersection(foot).area < 0.05 * t.polygon.area, (item.kind, t.kind)
    assert "mug" in kinds


@pytest.mark.parametrize("texture, index", [
    pytest.param("gravel", 2, marks=goal_not_met("rocks whose felt came out within the gravel mat's own "
                                                 "colour spread are found, but their edge runs into the gravel "
                                                 "(IoU 0.75)")),
    pytest.param("wood", 0),
])
def test_a_felt_as_near_its_mat_as_the_mat_varies_is_still_found(texture, index):
    photo, scene = _analyse(texture, index)
    kind = HARD_KIND[texture]
    truth = [poly for k, poly in visible_truth(photo.truth) if k == kind][0]
    mine = [t for t in scene.terrain if t.kind == kind]
    assert len(mine) == 1 and _iou(mine[0].polygon, truth) >= 0.9


def test_a_page_held_by_a_hand_is_no_felt():
    """Hard set 0, photo 6: a printed page under a hand beside a grey rocks felt. The page is grey
    too but no rocks felt: it is not like the rocks patch (in that patch's own spread), so it is
    neither learnt with it nor made a piece."""
    photo = hard_photo(0, 6)
    assert photo.hand is not None and "page" in [item.kind for item in photo.clutter]
    scene = FramePipeline(photo.profile).process(photo.image).scene
    truth = visible_truth(photo.truth)
    for t in scene.terrain:
        assert any(k == t.kind and t.polygon.intersects(p) for k, p in truth), (t.kind, t.polygon.bounds)
    page = next(item for item in photo.clutter if item.kind == "page").footprint(photo.camera)
    assert all(t.polygon.intersection(page).area < 0.05 * t.polygon.area for t in scene.terrain)
    rocks = [t for t in scene.terrain if t.kind == "rocks"]
    assert len(rocks) == 1 and _iou(rocks[0].polygon, next(p for k, p in truth if k == "rocks")) >= 0.9


def test_a_table_without_two_of_its_listed_kinds_is_analysed_and_its_felts_found():
    """Hard set 11, photo 8 with its rocks and water left off the table, the profile still listing
    them (a family's profile lists every kind it owns): the rims' felt check once found a side's
    colour core made only by closing its pin holes and failed the whole photo."""
    photo, scene, truth = _scene_and_truth(11, 8, absent_kinds=("rocks", "water"))
    for kind in ("woods", "hill"):
        _assert_one_piece(scene, truth, kind, 0.9)


def test_rocks_a_warm_light_moved_towards_the_hill_colour_are_still_rocks():
    """Hard set 7, photo 15 (tungsten, grass mat): the rocks felt photographs nearer the hill's
    profile colour than the rocks'. The patches are shared out among the kinds at once: the hill
    has its own felt elsewhere, so this one is rocks."""
    photo, scene, truth = _scene_and_truth(7, 15)
    assert photo.conditions.cast == "tungsten"
    for kind in ("rocks", "hill"):
        _assert_one_piece(scene, truth, kind, 0.9)


@pytest.mark.parametrize("seed, index, photo_kw", [(100, 34, {}), (31, 33, {"absent_kinds": ("hill", "water")})])
def test_rocks_first_read_as_hill_are_rocks_once_the_other_felts_tell_the_cast(seed, index, photo_kw):
    """Tungsten light and a hot spot, on wood and gravel: the rocks felt photographs nearer the
    hill's profile colour, so the first look seeds it as hill, and the hill told the cast with the
    other felts. Moved by that cast, the second look reads the patch as rocks: it is rocks, and the
    hill (of the wood grain's own colour on seed 100: found by its lack of grain, IoU 0.85) is
    looked for again, not given the rocks."""
    photo, scene, truth = _scene_and_truth(seed, index, **photo_kw)
    assert photo.conditions.cast == "tungsten"
    _assert_every_kind_once(scene, truth, 0.8)


def test_a_bright_felt_clipping_in_specks_under_a_lamp_is_found():
    """Hard set 0, photo 2: a hill under a lamp's hot spot (tungsten) where the camera clipped
    many of its grains. The clipped specks inside its seed patch are part of it; without them the
    patch fell apart into crumbs and no hill was found. (Its edge in the hot spot still falls a
    little short of the issue's 0.9.)"""
    _, scene, truth = _scene_and_truth(0, 2)
    _assert_one_piece(scene, truth, "hill", 0.85)


def test_a_hill_the_colour_of_the_wood_grain_is_found():
    """Hard set 7, photo 13 (daylight, wood-grain mat): the hill felt lies within the grain's
    colour spread pixel by pixel, but it is one colour where the grain varies from place to place:
    pooled over half an inch it stands out, and it is found whole."""
    photo, scene, truth = _scene_and_truth(7, 13)
    assert photo.conditions.texture == "wood"
    _assert_one_piece(scene, truth, "hill", 0.9)


def test_a_cast_the_white_balance_leaves_on_every_felt_is_taken_out():
    """Hard set 7, photo 45 (tungsten, gravel mat): after the anchors' white balance every felt
    still lies off its profile colour the same way (the card's white is no felt's dye), the grey
    rocks too far for a seed. The felts seeded surely tell the cast; moved by it, the rocks are
    found."""
    photo, scene, truth = _scene_and_truth(7, 45)
    assert photo.conditions.cast == "tungsten"
    _assert_every_kind_once(scene, truth, 0.9)


@pytest.mark.parametrize("seed, index", [(3, 52), (11, 47)])
def test_felts_a_phone_made_more_vivid_tell_the_stretch_and_are_found(seed, index):
    """A phone's processing (`phone="locked"`: its white balance set to daylight, so that under
    seed 3's tungsten lamp the cast is made more vivid with the colours; seed 11 in daylight, the
    colours alone) moves each felt by its own colour, not all alike: a shift of every kind's colour
    left some felt (the woods and hill on seed 3, the water on seed 11) with no piece. Three felts
    or more fit a stretch of the colours: moved by it, every kind is found."""
    photo, scene, truth = _scene_and_truth(seed, index, phone="locked")
    assert photo.conditions.phone
    _assert_every_kind_once(scene, truth, 0.9)


def test_a_stretch_is_told_only_where_a_shift_leaves_a_felt_off_and_the_stretch_does_not():
    """terrain._colour_stretch: felts moved by one shift tell no stretch; felts stretched from the
    profile's colours (the chromaticities 1.4 times as far from grey) tell it back; a felt off by
    itself, the others where they should be, tells none (no stretch fits it)."""
    mat_ref = np.array([0.1, -0.2, 4.8], np.float32)
    named = np.array([[-0.6, 0.2, -0.4], [0.2, 0.8, 0.1], [0.4, 0.5, 0.1], [-0.9, 1.4, -0.3]], np.float32)
    sd = np.full((4, 3), 0.08, np.float32)
    mat_sigma = np.full(4, 0.03, np.float32)

    def told(means):
        return {k: (None, None, np.append(m, 0.0).astype(np.float32), None) for k, m in enumerate(means)}

    assert terrain._colour_stretch(told(named + [0.1, -0.05, 0.0]), named, sd, mat_sigma, mat_ref) is None
    absolute = named[:, :2] + mat_ref[:2]
    stretched = named.copy()
    stretched[:, :2] = 1.4 * absolute - mat_ref[:2]
    gain, offset = terrain._colour_stretch(told(stretched), named, sd, mat_sigma, mat_ref)
    assert gain == pytest.approx([1.4, 1.4], abs=1e-3) and offset == pytest.approx([0, 0], abs=1e-3)
    moved = terrain._stretched(named, mat_ref, gain, offset)
    assert moved[:, :2] == pytest.approx(stretched[:, :2] - named[:, :2], abs=1e-3) and not moved[:, 2].any()
    one_off = named.copy()
    one_off[1, :2] += [0.4, -0.4]
    assert terrain._colour_stretch(told(one_off), named, sd, mat_sigma, mat_ref) is None


def test_the_second_look_for_a_cast_keeps_a_felt_that_told_it():
    """Hard set 3, photo 13 (tungsten, grey rocks on a gravel mat): the felts seeded surely tell
    the cast, and the kinds' colours moved by it bring the rocks' colour near a shaded patch of the
    mat. The rocks felt found first stands further from the mat than that patch: it keeps its seeds,
    and the patch becomes no piece. (Its edge in the gravel still falls short of the issue's 0.9.)"""
    photo, scene, truth = _scene_and_truth(3, 13)
    assert photo.conditions.cast == "tungsten" and photo.conditions.texture == "gravel"
    for t in scene.terrain:
        assert t.polygon.intersects(truth[t.kind]), (t.kind, t.polygon.bounds)
    _assert_one_piece(scene, truth, "rocks", 0.6)


def test_a_patch_at_the_table_edge_does_not_take_a_kind_from_its_felt():
    """Hard set 7, photo 30 (tungsten, hot spot, gravel mat): a darker stretch of the mat along the
    table's left edge seeds as hill, bigger than the hill felt. A seed patch at the table's edge
    counts for less than a felt inside that stands out well: the hill is the felt, and nothing at
    the edge is terrain."""
    photo, scene, truth = _scene_and_truth(7, 30)
    assert photo.conditions.cast == "tungsten" and photo.conditions.texture == "gravel"
    _assert_every_kind_once(scene, truth, 0.85)


def test_a_book_hanging_off_the_table_is_no_felt_and_takes_no_kind():
    """Hard set 7, photo 58 (tungsten, hot spot): a green book hanging over the table's edge
    stands out more than the woods felt and is nearer the woods' colour. It touches the table's
    edge, so the woods is the felt, and the book no piece."""
    photo, scene, truth = _scene_and_truth(7, 58)
    assert "book" in [item.kind for item in photo.clutter]
    book = next(item for item in photo.clutter if item.kind == "book").footprint(photo.camera)
    assert all(t.polygon.intersection(book).area < 0.05 * t.polygon.area for t in scene.terrain)
    for t in scene.terrain:
        assert t.polygon.intersects(truth[t.kind]), (t.kind, t.polygon.bounds)
    _assert_one_piece(scene, truth, "woods", 0.9)


def test_felts_under_a_hot_spot_where_the_camera_clipped_the_mat():
    """Hard set 0, photo 42 (tungsten, a lamp's hot spot, the camera clipped much of the mat): the
    hill's seeds lie in its part outside the clipped light, and the window looked in round them cut
    the piece straight (IoU 0.57): a piece reaching its window's edge is looked for again further
    that way. The grey rocks beside the hot spot spread into the clipped mat, washed out towards grey
    (IoU 0.74): where the camera clipped, a pixel brighter than the mat around is no felt darker than
    the mat."""
    photo, scene, truth = _scene_and_truth(0, 42)
    assert photo.conditions.hot_spot and photo.conditions.cast == "tungsten"
    for kind in ("hill", "rocks"):
        _assert_one_piece(scene, truth, kind, 0.9)


def test_a_felt_brighter_than_the_mat_does_not_spread_into_the_clipped_hot_spot():
    """Hard set 7, photo 53 (tungsten, a lamp's hot spot over a wood-grain mat): the hill felt is
    brighter than the mat, and where the camera clipped, the light grain beside it read as hill
    (IoU 0.85). A clipped pixel brighter than both the mat around and the felt is the hot spot."""
    photo, scene, truth = _scene_and_truth(7, 53)
    assert photo.conditions.hot_spot and photo.conditions.texture == "wood"
    _assert_one_piece(scene, truth, "hill", 0.9)


def test_a_hill_cut_to_the_wood_grains_own_colour_is_found_by_its_lack_of_grain():
    """Hard set 11, photo 7 (warm light, a lamp's hot spot, a hand, wood-grain mat): the hill felt
    came out the wood's own colour and brightness (its log chromaticities within 0.01 of the mat
    round it), so no colour seeds it (it was missed whole, IoU 0). The grain runs one way all over
    the mat and every way in the felt: the one grainless patch of the hill's colour is the hill
    (IoU 0.83: the felt runs on under the figure at its edge as far as its hull)."""
    photo, scene, truth = _scene_and_truth(11, 7)
    assert photo.conditions.texture == "wood" and photo.hand is not None
    _assert_one_piece(scene, truth, "hill", 0.8)
    for t in scene.terrain:
        assert t.polygon.intersects(truth[t.kind]), (t.kind, t.polygon.bounds)


def test_a_hill_of_the_grains_colour_in_a_hot_spot_clipped_in_specks_is_found():
    """Hard set 13, photo 28 (tungsten, a lamp's hot spot, wood-grain mat): the hill is of the
    wood's colour and the camera clipped a channel over more than half of it, so no colour seeds it
    (missed whole). Where one channel clipped the others still show the grain (the brightness's
    gradients line up on the mat, not on the felt); the mat's own grain is read away from the
    markers and figures that break it: the hill is found (IoU 0.74, where it was nothing)."""
    photo, scene, truth = _scene_and_truth(13, 28)
    assert photo.conditions.texture == "wood" and photo.conditions.hot_spot
    _assert_one_piece(scene, truth, "hill", 0.7)
    for t in scene.terrain:
        assert t.polygon.intersects(truth[t.kind]), (t.kind, t.polygon.bounds)


def test_a_shaded_patch_of_the_mat_tells_no_cast_and_takes_no_felt():
    """Hard set 0, photo 2 with its woods and water left off the table (tungsten, a lamp's hot
    spot, grass mat): a shaded patch of the grass seeded as woods (the woods' dark green is near the
    mat's hue). Taken as a felt telling the cast, it moved every kind's colour, and the hill felt
    then came nearer the woods' colour than the hill's: the hill was reported as woods and no hill
    found. A patch of the mat's own chromaticity tells no cast: the hill is the hill."""
    photo, scene, truth = _scene_and_truth(0, 2, absent_kinds=("woods", "water"))
    assert photo.conditions.texture == "grass"
    for kind in ("hill", "rocks"):
        _assert_one_piece(scene, truth, kind, 0.9)
    for t in scene.terrain:
        assert t.kind in truth and t.polygon.intersects(truth[t.kind]), (t.kind, t.polygon.bounds)


@pytest.mark.parametrize("seed, index, kind", [(0, 20, "hill"), (7, 12, "rocks"), (0, 29, "woods")])
def test_a_kind_left_off_the_table_is_not_seeded_by_a_few_square_inches_of_the_mat(seed, index, kind):
    """Hard sets 0 and 7 with one kind the profile lists left off the table (a family's profile lists
    every kind it owns). With its felt there, that felt's patch is the kind's seed; without it the
    patch that stood out most was a few square inches just past the seed's least strength (the
    mat's mottle, a shadow by an anchor or a book): a piece of felt where there is none. A felt's
    seed patch is big, or stands far out, or both: its size times its strength is enough."""
    _photo, scene, truth = _scene_and_truth(seed, index, absent_kinds=(kind,))
    assert kind not in truth
    assert [t.kind for t in scene.terrain if t.kind == kind] == []
    for t in scene.terrain:
        assert t.kind in truth and t.polygon.intersects(truth[t.kind]), (t.kind, t.polygon.bounds)


@pytest.mark.parametrize("seed, index, kind", [(0, 58, "rocks"), (0, 59, "rocks"), (0, 56, "hill")])
def test_a_felt_running_off_the_tables_edge_is_found(seed, index, kind):
    """Hard set 0 with each felt laid across one of the table's edges (a river or a wood running off
    the table; accuracy_vision.py --felt-at-edge). The part on the table fills 0.7-0.9 of its smallest
    rectangle, as a book hanging over the edge does, and was left out as one (IoU 0); but a felt is
    round where the edge does not cut it, a book's outline is straight all round."""
    _photo, scene, truth = _scene_and_truth(seed, index, felt_at_edge=True)
    _assert_one_piece(scene, truth, kind, 0.85)


@pytest.mark.parametrize("seed, index, kind", [(7, 0, "rocks"), (7, 34, "rocks"), (0, 15, "woods"), (11, 28, "water")])
def test_a_felt_the_edge_cuts_long_along_it_is_no_arm(seed, index, kind):
    """Hard photos with each felt laid across one of the table's edges: the part on the table is
    more than 1.8 times as long as it is deep, and a piece that long at the edge was taken for an arm
    reaching in (IoU 0). It is long along the edge: an arm, or its shadow, reaches in across it."""
    _photo, scene, truth = _scene_and_truth(seed, index, felt_at_edge=True)
    _assert_one_piece(scene, truth, kind, 0.85)


def test_an_arms_shadow_reaching_in_from_the_edge_is_still_no_felt():
    """Hard set 0, photo 2 with its woods and water left off the table (grass mat): the arm's shadow
    on the grass, darker green, runs in from the table's edge, long and slanting: no woods."""
    _photo, scene, truth = _scene_and_truth(0, 2, absent_kinds=("woods", "water"))
    assert [t.kind for t in scene.terrain if t.kind == "woods"] == []
    for t in scene.terrain:
        assert t.kind in truth and _iou(t.polygon, truth[t.kind]) >= 0.85, t.kind


@pytest.mark.parametrize("seed, index, kind", [(0, 17, "rocks"), (7, 41, "hill"), (0, 57, "hill")])
def test_a_felt_running_off_the_edge_is_its_kind_before_a_faint_patch_inside(seed, index, kind):
    """Hard set 0 and 7 with felt laid across the table's edges: the felt's seed patch touches the
    edge, and a patch at the edge once counted only where its kind had none inside. A faint patch of
    the mat's mottle inside, near the kind's colour, was the kind's, and no piece (or one on the
    mat); the felt counts for more than that now, though still for less than a felt inside that
    stands out well."""
    _photo, scene, truth = _scene_and_truth(seed, index, felt_at_edge=True)
    _assert_one_piece(scene, truth, kind, 0.85)
    assert all(t.polygon.intersects(truth[t.kind]) for t in scene.terrain if t.kind == kind)


def test_a_book_hanging_over_the_tables_edge_is_still_no_felt():
    """Hard set 0, photo 3 with its woods left off the table: a green book hangs over the edge, the
    woods' colour. Cut by the edge it fills 0.83 of its smallest rectangle, as a felt cut by the edge
    may, but its outline is four straight sides: no woods."""
    photo, scene, _truth = _scene_and_truth(0, 3, absent_kinds=("woods",))
    assert "book" in [item.kind for item in photo.clutter]
    assert [t.kind for t in scene.terrain if t.kind == "woods"] == []


@pytest.mark.parametrize("seed, index, photo_kw", [
    (11, 2, {"felt_at_edge": True}), (3, 0, {"felt_at_edge": True}),
    (31, 57, {"absent_kinds": ("woods", "hill")}), (23, 48, {"absent_kinds": ("woods", "water")})])
def test_a_smooth_book_the_tables_edge_cuts_is_no_felt_whatever_its_outline(seed, index, photo_kw):
    """A green book hanging over the table's edge on a wood or gravel mat, nearer the woods' colour
    than the woods felt: cut by the edge it fills no rectangle, and its outline is as straight as a
    cut felt's, but its cover is 0.01-0.03 as fuzzy as the mat where felts are 0.27 or more. It is no
    woods; where the woods lies on the table (at the edge too) it is found, not passed over for the
    book."""
    photo, scene, truth = _scene_and_truth(seed, index, **photo_kw)
    book = next(item for item in photo.clutter if item.kind == "book").footprint(photo.camera)
    assert all(t.polygon.intersection(book).area < 0.05 * t.polygon.area for t in scene.terrain)
    if "woods" in truth:
        _assert_one_piece(scene, truth, "woods", 0.85)
    else:
        assert [t.kind for t in scene.terrain if t.kind == "woods"] == []


@pytest.mark.parametrize("seed, index, kind, absent", [
    (5, 13, "woods", ("woods", "rocks")), (13, 20, "woods", ("woods", "water")), (31, 10, "hill", ("rocks", "hill"))])
def test_a_faint_sprawl_of_the_mats_blotches_is_no_felt(seed, index, kind, absent):
    """Hard photos with two of the profile's kinds left off the table: darker blotches of a grass
    mat, or of a gravel one, near the kind's colour joined into one faint region, 2.8-3.2 of the
    mat's spreads from it, stepping at its outline as much as inside it. It sprawls, filling
    0.66-0.75 of its convex hull; a felt is one cut shape (faint felts fill 0.85 of theirs or more)."""
    _photo, scene, truth = _scene_and_truth(seed, index, absent_kinds=absent)
    assert kind not in truth
    assert [t.kind for t in scene.terrain if t.kind == kind] == []
    for t in scene.terrain:
        assert t.kind in truth and _iou(t.polygon, truth[t.kind]) >= 0.85, t.kind


@pytest.mark.parametrize("seed, index, kind, photo_kw", [
    (100, 51, "rocks", {"mat": "kitchen"}), (3, 57, "hill", {"absent_kinds": ("woods", "rocks")})])
def test_a_faint_felt_is_one_cut_shape_and_found(seed, index, kind, photo_kw):
    """The faintest felts of the cached hard photos (2.5-2.6 of the mat's spreads from it: rocks on a
    kitchen table, a hill on a wood mat) fill 0.85 of their convex hulls: they are found."""
    _photo, scene, truth = _scene_and_truth(seed, index, **photo_kw)
    _assert_one_piece(scene, truth, kind, 0.75)


def test_a_grey_felt_seeded_in_two_parts_as_rocks_and_hill_is_one_rocks_piece():
    """Hard set 17, photo 12 with its woods and hill left off the table (tungsten, a lamp's hot
    spot, plain mat): the rocks felt was seeded in two touching parts, one as rocks and one as the
    (absent) hill: a hill piece on the rocks felt, and the rocks piece cut short (IoU 0.75). The two
    parts are one colour: one felt, rocks, the kind its colour is nearer."""
    photo, scene, truth = _scene_and_truth(17, 12, absent_kinds=("woods", "hill"))
    _assert_one_piece(scene, truth, "rocks", 0.85)
    for t in scene.terrain:
        assert t.kind in truth and t.polygon.intersects(truth[t.kind]), (t.kind, t.polygon.bounds)


def test_rocks_felt_on_a_grey_table_stand_out_by_their_roughness():
    """Kitchen set 13, photo 13 (tungsten, a grey table top, a hand): the rocks felt is the table's
    own grey and a little darker, so by colour and brightness it is no surer a felt than the table in
    shade; rougher than the table it is. Counted by colour alone, the rocks were not found (IoU 0)
    and a patch of the table was called rocks; counted by its roughness too, it is one rocks piece."""
    photo, scene, truth = _scene_and_truth(13, 13, mat="kitchen")
    assert photo.conditions.mat == "grey top"
    _assert_every_kind_once(scene, truth, 0.85)


def test_rocks_of_a_grey_tables_own_colour_are_outlined_by_their_roughness():
    """Kitchen set 7, photo 16 (daylight, a grey table top, clutter, a hand): the rocks felt is the
    table's grey to within its pixels' spread, only rougher. Its seeds were found by their roughness,
    but where it won was judged by colour alone, and no piece was outlined (IoU 0); told and
    outlined by its roughness too, it is one rocks piece."""
    photo, scene, truth = _scene_and_truth(7, 16, mat="kitchen")
    assert photo.conditions.mat == "grey top"
    _assert_every_kind_once(scene, truth, 0.85)


def test_a_soft_blotch_of_a_plain_mat_is_no_felt_for_its_roughness():
    """Hard set 0, photo 33 with its hill and water left off the table (tungsten, a lamp, a plain
    mat, 2160p): a soft darker blotch of the mat, the hill's colour to within its spread, is rough
    at the felt's scale only where its light changes, and was outlined as a hill by its roughness.
    At the pixel scale it is as smooth as the mat (a felt told by its roughness is rougher there
    too): no hill."""
    photo, scene, truth = _scene_and_truth(0, 33, absent_kinds=("hill", "water"))
    assert photo.conditions.texture == "plain"
    _assert_every_kind_once(scene, truth, 0.8)


def test_a_light_streak_of_a_wood_mat_along_the_table_edge_is_no_felt():
    """Hard set 7, photo 38 with its rocks and hill left off the table (warm light, a lamp, a wood
    mat): a lighter streak of the wood along the table's far edge is the hill's colour; with no
    hill patch inside the table it seeded the hill there, a hill where there is none, sure 1.0. It
    shows the mat's own grain: the mat."""
    photo, scene, truth = _scene_and_truth(7, 38, absent_kinds=("rocks", "hill"))
    assert photo.conditions.texture == "wood"
    _assert_every_kind_once(scene, truth, 0.85)


@pytest.mark.parametrize("seed, index", [(13, 1), (101, 43)])
def test_grey_felt_beside_a_hot_spot_whose_red_the_camera_flattened_takes_in_no_mat(seed, index):
    # A lamp's hot spot on a warm mat: the camera's red reaches its tone curve's shoulder (245-254)
    # while its green and blue still rise, so after the white balance the mat there reads a blue-grey
    # like the rocks felt beside it (which took the hot spot in: IoU 0.09 and 0.15). Where the mat
    # around was read unflattened, the true red is at least what was read: the mat explains it.
    photo, scene, truth = _scene_and_truth(seed, index)
    assert photo.conditions.hot_spot
    _assert_every_kind_once(scene, truth, 0.85)


def test_rocks_on_gravel_in_a_hot_spot_are_not_taken_for_the_mats_blotch():
    # Hard set 105, photo 29 (tungsten, a lamp's hot spot, gravel mat): the rocks felt stands out
    # faintly from the gravel and a quarter of it had its red flattened. Read as the mat there, its
    # colour stepped less across its outline than its inside stood out, and it was dropped as a
    # soft blotch of the mat: whether a piece fades out is told by its colour as read.
    photo, scene, truth = _scene_and_truth(105, 29)
    assert photo.conditions.hot_spot and photo.conditions.texture == "gravel"
    _assert_one_piece(scene, truth, "rocks", 0.6)


@pytest.mark.parametrize("seed, index", [(0, 11), (3, 9)])
def test_a_kind_left_with_no_piece_is_looked_for_again_among_the_patches_none_holds(seed, index):
    """Craft-shop felt under tungsten light: the stone-grey rocks felt lies nearer the hill's
    profile colour than the rocks'. On seed 0 photo 11 the rocks' likeliest patch was a sliver at
    the water's edge, joined to the water as one felt, leaving the rocks no piece; on seed 3 photo
    9 the cast the other felts told gave the stone's patch to the hill, whose own felt was then
    kept, and the patch to no kind. A kind left with no piece is looked for again among the patches
    no piece holds: the stone is the rocks, and every other felt is still its own kind."""
    photo, scene, truth = _scene_and_truth(seed, index, felt="shop")
    assert photo.conditions.cast == "tungsten" and dict(photo.conditions.felts)["rocks"] == "stone"
    _assert_every_kind_once(scene, truth, 0.85)


@pytest.mark.parametrize("seed, index, absent", [(0, 38, ("woods", "rocks")), (3, 19, ("hill", "water"))])
def test_a_kind_looked_for_again_takes_no_patch_beside_a_mug(seed, index, absent):
    """Two kinds the profile lists left off the table: each is looked for again among the patches
    no piece holds, and the likeliest was a mug's shadow (seed 0 photo 38, taken for rocks) or its
    side lying beside its dark coffee (seed 3 photo 19, taken for hill). A patch more than a tenth
    of whose ring shows a colour looked for as no felt's (the coffee, the glaze: a fifth here) may
    be that thing's edge: the kinds left off stay without a piece, and the felts laid are found."""
    photo, scene, truth = _scene_and_truth(seed, index, absent_kinds=absent)
    assert "mug" in [item.kind for item in photo.clutter]
    _assert_every_kind_once(scene, truth, 0.85)


@pytest.mark.parametrize("seed, index", [(3, 29), (7, 48)])
def test_a_kind_looked_for_again_is_less_sure_of_its_colour(seed, index):
    """Craft-shop teal water under tungsten light: the felt stands far out from the mat and nearer
    the water's profile colour than any other kind's, but further from it than a seed patch may
    lie, so the water had no seed and no piece. Looked for again, a kind is less sure of its colour
    (its spread SECOND_PRIOR_SCALE times): the teal is the water, and every other felt is still its
    own kind."""
    photo, scene, truth = _scene_and_truth(seed, index, felt="shop")
    assert photo.conditions.cast == "tungsten" and dict(photo.conditions.felts)["water"] == "teal"
    _assert_every_kind_once(scene, truth, 0.85)


def test_a_shops_stone_and_khaki_felts_read_the_wrong_way_round_trade_kinds():
    """Hard set 31, photo 5 with craft-shop felts (tungsten): the stone-grey rocks were seeded as the
    hill and the khaki hill as rocks. Each whole piece lies nearer the other's colour, by the cast
    the felts told and by the profile's alike: they trade kinds, and every kind is found once."""
    photo, scene, truth = _scene_and_truth(31, 5, felt="shop")
    assert dict(photo.conditions.felts)["rocks"] == "stone"
    _assert_every_kind_once(scene, truth, 0.85)


def test_grey_rocks_under_a_tungsten_lamp_stay_rocks_with_the_hill_off_the_table():
    """Hard set 13, photo 44 with the hill and the water left off the table (tungsten, grass): the
    set's grey rocks felt lies a little nearer the hill's colour as a whole piece, but was seeded
    as rocks and the hill has no felt there: it stays rocks, and no hill is reported."""
    photo, scene, truth = _scene_and_truth(13, 44, absent_kinds=("hill", "water"))
    assert photo.conditions.cast == "tungsten"
    _assert_every_kind_once(scene, truth, 0.9)
