"""Terrain when the profile lists felt kinds that are not on the table (a family's profile lists
every kind it owns; on an evening only some are laid out): the kinds on the table are found, and
nothing of the others, in drawn top views (tests/vision/felt_scenes.py) with exact truth. Felts of
the mat's own hue, clearly lighter or darker than it (a light hill on a wood-grain mat, dark woods
on a grass mat), are still felt."""
from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from shapely.geometry import Polygon

from vision.terrain import _one_felt, _paper_white, _plausible, _traded_kinds

from tests.vision import felt_scenes
from tests.vision.test_terrain_textured import _find, _iou

PPI5 = 5.0                         # the terrain's work layer


def _lighter(rgb, factor):
    return tuple(int(round(min(255, c * factor))) for c in rgb)


# (mat, the kinds laid out, the profile's colours for the kinds whose felt is of the mat's hue)
HUE_SCENES = [
    ("wood", ("hill", "water"), {"hill": _lighter(felt_scenes.MATS["wood"], 1.45)}, 11),
    ("grass", ("woods", "rocks"), {"woods": _lighter(felt_scenes.MATS["grass"], 0.6)}, 12),
    ("grass", ("woods", "hill"), {"woods": _lighter(felt_scenes.MATS["grass"], 0.5)}, 17),
    ("plain", ("hill", "woods"), {"hill": _lighter(felt_scenes.MATS["plain"], 0.65)}, 13),
]


@pytest.mark.parametrize("mat, laid, colours, seed", HUE_SCENES)
def test_a_felt_of_the_mats_hue_lighter_or_darker_is_found_with_two_kinds_off_the_table(
        monkeypatch, mat, laid, colours, seed):
    monkeypatch.setattr(felt_scenes, "KINDS", {**felt_scenes.KINDS, **colours})
    scene = felt_scenes.felt_scene(seed, mat=mat, kinds=laid)
    scene.kinds = dict(felt_scenes.KINDS)          # the profile lists all four kinds
    pieces = _find(scene)
    truth = dict(scene.truth)
    for kind in laid:
        mine = [t for t in pieces if t.kind == kind]
        assert len(mine) == 1 and _iou(mine[0].polygon, truth[kind]) >= 0.85, (kind, [t.kind for t in pieces])
    assert sorted(t.kind for t in pieces) == sorted(laid)


@pytest.mark.parametrize("mat, pale, drawn", [("plain", (215, 200, 160), 1.0), ("wood", (215, 200, 160), 1.12),
                                               ("plain", (225, 215, 190), 1.05)])
def test_a_pale_felt_nearly_as_bright_as_paper_is_found(monkeypatch, mat, pale, drawn):
    """A sand or cream hill (the profile's colour `pale`, the felt dyed a little lighter: `drawn`)
    is nearly as bright as the anchors' white card, but keeps its dye's tint where a printed page is
    grey: it is felt, found whole, and nothing else is."""
    monkeypatch.setattr(felt_scenes, "KINDS", {**felt_scenes.KINDS, "hill": _lighter(pale, drawn)})
    scene = felt_scenes.felt_scene(3, mat=mat, kinds=("woods", "hill"))
    scene.kinds = {**felt_scenes.KINDS, "hill": pale}
    pieces = _find(scene)
    hill = [t for t in pieces if t.kind == "hill"]
    assert len(hill) == 1 and _iou(hill[0].polygon, dict(scene.truth)["hill"]) >= 0.85, [t.kind for t in pieces]
    assert sorted(t.kind for t in pieces) == ["hill", "woods"]


def _disc(mask, x_in, y_in, r_in):
    cv2.circle(mask, (int(round(x_in * PPI5)), int(round(y_in * PPI5))), int(round(r_in * PPI5)), 1, cv2.FILLED)


def _arm(mask, x0, y0, x1, y1, width_in):
    cv2.line(mask, (int(x0 * PPI5), int(y0 * PPI5)), (int(x1 * PPI5), int(y1 * PPI5)), 1,
             max(1, int(round(width_in * PPI5))))


def _view(w_in=30, h_in=24):
    return np.zeros((int(h_in * PPI5), int(w_in * PPI5)), np.uint8)


def test_a_lacy_patch_of_the_mats_mottle_broad_in_one_place_is_no_felt():
    """A patch of the mat's mottle or grain that a lamp lifted over the seeds' cut: broad where two
    blotches meet, and sprawling arms narrower than a felt elsewhere. Most of it is not within a
    disc two inches across that fits in it: no felt."""
    part = _view()
    _disc(part, 15, 12, 1.7)
    for a in range(0, 360, 45):
        x1, y1 = 15 + 8 * math.cos(math.radians(a)), 12 + 8 * math.sin(math.radians(a))
        _arm(part, 15, 12, x1, y1, 1.2)
        _arm(part, x1, y1, x1 + 2.5 * math.cos(math.radians(a + 70)), y1 + 2.5 * math.sin(math.radians(a + 70)), 1.0)
    edge = np.zeros_like(part, bool)
    assert cv2.distanceTransform(part, cv2.DIST_L2, 3).max() * 2 / PPI5 >= 3.0    # broad somewhere
    assert not _plausible(part, PPI5, edge)


@pytest.mark.parametrize("bites", [0, 1, 2])
def test_a_cut_felt_bitten_by_a_hand_or_holding_figures_is_broad(bites):
    """A felt blob with figures standing on it (holes) and a hand or a figure biting into its edge
    is still broad over most of it."""
    part = _view()
    rng = np.random.default_rng(bites)
    ang = np.linspace(0, 2 * np.pi, 60, endpoint=False)
    r = 3.0 + 0.4 * np.cos(3 * ang + rng.uniform(0, 6)) + 0.2 * np.cos(5 * ang + rng.uniform(0, 6))
    pts = np.stack([15 + r * np.cos(ang), 12 + r * np.sin(ang)], 1) * PPI5
    cv2.fillPoly(part, [np.round(pts).astype(np.int32)], 1)
    for k in range(3):                      # figures standing on it, left out of the felt
        cv2.circle(part, (int((14 + k) * PPI5), int((11 + k) * PPI5)), int(0.5 * PPI5), 0, cv2.FILLED)
    if bites:                               # a hand over its edge, a figure at it
        cv2.rectangle(part, (int(17 * PPI5), int(8 * PPI5)), (int(20 * PPI5), int(11 * PPI5)), 0, cv2.FILLED)
    if bites > 1:
        cv2.circle(part, (int(12 * PPI5), int(14.5 * PPI5)), int(0.7 * PPI5), 0, cv2.FILLED)
    assert _plausible(part, PPI5, np.zeros_like(part, bool))


def _page(view, cx_in, cy_in, deg, gains, ppi=felt_scenes.PPI):
    """A printed rule-book page (8.5 x 11 in, white margins, rows of print too fine for the felt's
    layer, gaps between paragraphs) laid on a drawn top view, lit as the table is (`gains`, BGR)."""
    w, h = int(8.5 * ppi), int(11 * ppi)
    sheet = np.full((h, w), 228, np.float32)
    mx, my = int(0.8 * ppi), int(0.9 * ppi)
    block = sheet[my:h - my, mx:w - mx]
    block[::2] = 70
    block[(np.arange(block.shape[0]) // 14) % 6 == 5] = 228
    turn = cv2.getRotationMatrix2D((w / 2, h / 2), deg, 1.0)
    turn[:, 2] += (cx_in * ppi - w / 2, cy_in * ppi - h / 2)
    size = (view.shape[1], view.shape[0])
    paper = cv2.warpAffine(sheet, turn, size, flags=cv2.INTER_AREA)
    on = cv2.warpAffine(np.ones_like(sheet), turn, size, flags=cv2.INTER_LINEAR) > 0.5
    out = view.copy()
    out[on] = np.clip(paper[on][:, None] * np.asarray(gains, np.float32)[None], 0, 255).astype(np.uint8)
    corners = cv2.transform(np.array([[[0, 0], [w, 0], [w, h], [0, h]]], np.float32), turn)[0] / ppi
    return out, Polygon(corners)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_printed_page_is_no_grey_felt(seed):
    """A printed page on a gravel mat under a warm lamp, the profile listing rocks that are not on
    the table: the print, too fine for the felt's layer, averages to a grey near the rocks' and its
    paper to a white the wide learnt colour takes in. Nearly all of it is as white as paper, or
    clipped: no rocks felt. The felts on the table are found."""
    scene = felt_scenes.felt_scene(seed, mat="gravel", cast="tungsten", kinds=("woods", "water"), clutter=False)
    scene.view_bgr, page = _page(scene.view_bgr, 27, 12, 15 + 10 * seed, felt_scenes.CASTS["tungsten"])
    scene.kinds = dict(felt_scenes.KINDS)
    pieces = _find(scene)
    truth = dict(scene.truth)
    assert all(t.polygon.intersection(page).area < 0.05 * t.polygon.area for t in pieces), [t.kind for t in pieces]
    for kind in ("woods", "water"):
        mine = [t for t in pieces if t.kind == kind]
        assert len(mine) == 1 and _iou(mine[0].polygon, truth[kind]) >= 0.85, kind


@pytest.mark.parametrize("offset_l, tint_of, clipped_share, white", [
    (0.0, "kind", 0.0, False),      # a felt of the kind's colour, with its texture
    (0.15, "kind", 0.4, False),     # lit brighter than the mat's estimate, a lamp clipping it in specks
    (0.5, "paper", 0.0, True),      # as white as paper: a page, a card
    (0.0, "paper", 0.95, True),     # clipped all over where the mat is not: white paper under the lamp
    (0.5, "kind", 0.0, False),      # a pale felt (sand, cream) as bright as paper keeps its dye's tint
])
def test_a_region_nearly_all_as_white_as_paper_is_no_felt_of_a_darker_kind(offset_l, tint_of, clipped_share, white):
    rng = np.random.default_rng(5)
    kind_l, paper_l = -0.1, 0.6                 # over the mat: the kind's dye, the anchors' white card
    kind_ab, paper_ab = np.array([0.09, -0.15]), np.array([0.0, 0.0])
    ab = kind_ab if tint_of == "kind" else paper_ab
    rel = np.concatenate([ab[:, None, None] + rng.normal(0, 0.03, (2, 40, 40)),
                          kind_l + offset_l + rng.normal(0, 0.12, (1, 40, 40))]).astype(np.float32)
    clipped = rng.uniform(0, 1, (40, 40)) < clipped_share
    inside = np.zeros((40, 40), bool)
    inside[5:35, 5:35] = True
    assert _paper_white(rel, clipped, inside, (kind_l + paper_l) / 2, paper_ab, kind_ab) is white


def test_a_grey_kinds_tint_tells_nothing_against_paper():
    """Rocks felt is grey, as paper is: a region as bright as paper is paper whatever its tint (a
    page greyed by its print sits near the rocks' colour)."""
    rng = np.random.default_rng(6)
    rel = np.concatenate([np.array([0.03, 0.02])[:, None, None] + rng.normal(0, 0.02, (2, 40, 40)),
                          0.4 + rng.normal(0, 0.1, (1, 40, 40))]).astype(np.float32)
    inside = np.ones((40, 40), bool)
    clipped = np.zeros((40, 40), bool)
    assert _paper_white(rel, clipped, inside, 0.25, np.array([0.1, 0.1]), None)
    assert not _paper_white(rel, clipped, inside, 0.25, np.array([0.1, 0.1]), np.array([0.03, 0.02]))


def _two_parts(colour_a, colour_b, rng, ppi=PPI5):
    """Rel planes (3, H, W) of a mat (nought, with the mat's spread) holding two touching halves of
    a blob, each of its own colour with a felt's texture; and the halves' polygons in inches."""
    h, w = 100, 120
    mat_sigma = np.array([0.02, 0.02, 0.07])
    rel = (rng.normal(0, 1, (3, h, w)) * mat_sigma[:, None, None]).astype(np.float32)
    left = Polygon([(6, 6), (12, 6), (12, 14), (6, 14)])
    right = Polygon([(12, 6), (18, 6), (18, 14), (12, 14)])
    for poly, colour in ((left, colour_a), (right, colour_b)):
        mask = np.zeros((h, w), np.uint8)
        cv2.fillPoly(mask, [np.round(np.asarray(poly.exterior.coords) * ppi).astype(np.int32)], 1)
        texture = rng.normal(0, 1, (3, h, w)) * np.array([0.03, 0.02, 0.07])[:, None, None]
        rel[:, mask > 0] = (np.asarray(colour)[:, None] + texture[:, mask > 0]).astype(np.float32)
    return rel, mat_sigma, left, right


# The kinds' colours over the mat (log R/G, log B/G, log brightness) and spreads, as the seeds judge them.
NAMES = ["rocks", "hill"]
KIND_MU = np.array([[-0.06, 0.2, -0.18], [0.09, -0.15, -0.16]])
KIND_SD = np.array([[0.08, 0.085, 0.26], [0.075, 0.1, 0.26]])


def test_one_felt_seeded_in_two_parts_by_two_kinds_is_one_piece_of_the_nearer_kind():
    """A grey felt a warm light moved part way to the hill's colour, seeded in two touching parts,
    one as rocks and one as hill: the two are one colour, so one felt, and it is rocks, the kind
    its colour is nearer; the hill has no piece there."""
    grey = (-0.02, 0.14, -0.1)
    rel, mat_sigma, left, right = _two_parts(grey, (0.0, 0.13, -0.12), np.random.default_rng(3))
    out = _one_felt([("rocks", left, 0.9), ("hill", right, 0.8)], NAMES, rel, np.zeros(rel.shape[1:], bool), PPI5,
                    (0.0, 0.0), KIND_MU, KIND_SD, mat_sigma)
    assert [k for k, _, _ in out] == ["rocks"]
    assert abs(out[0][1].area - left.union(right).area) < 1.0


def test_felts_of_two_kinds_side_by_side_are_left_as_they_are():
    """A rocks felt and a hill felt laid edge to edge differ in colour: two pieces, as found."""
    rel, mat_sigma, left, right = _two_parts((-0.05, 0.19, -0.17), (0.09, -0.14, -0.15), np.random.default_rng(4))
    pieces = [("rocks", left, 0.9), ("hill", right, 0.9)]
    out = _one_felt(pieces, NAMES, rel, np.zeros(rel.shape[1:], bool), PPI5, (0.0, 0.0), KIND_MU, KIND_SD, mat_sigma)
    assert out == pieces


def _traded(pieces, rel, colours):
    return _traded_kinds(pieces, NAMES, rel, np.zeros(rel.shape[1:], bool), PPI5, (0.0, 0.0), colours)


def test_two_pieces_each_nearer_the_others_kind_trade_kinds():
    """A rocks felt read as hill and a hill felt read as rocks: each whole piece lies nearer the
    other's kind, so the two trade kinds; felts read right are left as they are."""
    rel, _sigma, left, right = _two_parts(tuple(KIND_MU[0]), tuple(KIND_MU[1]), np.random.default_rng(6))
    out = _traded([("hill", left, 0.8), ("rocks", right, 0.9)], rel, [(KIND_MU, KIND_SD)])
    assert out == [("rocks", left, 0.8), ("hill", right, 0.9)]
    right_way = [("rocks", left, 0.8), ("hill", right, 0.9)]
    assert _traded(right_way, rel, [(KIND_MU, KIND_SD)]) == right_way


def test_a_piece_nearer_a_kind_no_piece_has_keeps_its_own_kind():
    """A grey felt seeded as rocks whose whole piece lies a little nearer the hill's colour, no
    hill found: the hill's felt may be off the table (a family's profile lists every kind it
    owns), so the piece stays rocks."""
    rel, _sigma, left, _right = _two_parts(tuple(KIND_MU[1]), (0.0, 0.0, 0.0), np.random.default_rng(5))
    pieces = [("rocks", left, 0.8)]
    assert _traded(pieces, rel, [(KIND_MU, KIND_SD)]) == pieces


def test_two_pieces_keep_their_kinds_where_the_colours_disagree():
    """By the profile's colours the two pieces are the wrong way round, by the colours the cast
    told the right way: only where both agree do they trade."""
    rel, _sigma, left, right = _two_parts(tuple(KIND_MU[0]), tuple(KIND_MU[1]), np.random.default_rng(7))
    pieces = [("hill", left, 0.8), ("rocks", right, 0.9)]
    cast_mu = KIND_MU[::-1].copy()
    assert _traded(pieces, rel, [(KIND_MU, KIND_SD), (cast_mu, KIND_SD)]) == pieces
