"""A felt told from a grained mat by its texture (vision.terrain_grain): the structure tensor's
coherence on a drawn wood grain, on isotropic noise, and a felt of the mat's own colour cut into a
grain, with and without figures that break the grain; plain things of the mat's colour, smooth
where a felt is rough."""
from __future__ import annotations

import cv2
import numpy as np
import pytest
import shapely
from shapely.geometry import Point

from vision.terrain import find_terrain
from vision.terrain_grain import FUZZ_FELT, FUZZ_PLAIN, GRAIN_SIGMA, coherence, fuzz_sureness, grain_level, grainless

PPI = 5.0
WOOD = (168, 122, 80)


def _noise(rng, shape, sigma_px):
    n = cv2.GaussianBlur(rng.normal(0, 1, shape).astype(np.float32), (0, 0), sigma_px)
    return n / (n.std() + 1e-6)


def _grain(shape, rng, period_px=5.0, angle_deg=20.0):
    """A wood grain's brightness (about 1), bands `period_px` apart running at `angle_deg`, wavy."""
    yy, xx = np.mgrid[0:shape[0], 0:shape[1]].astype(np.float32)
    a = np.radians(angle_deg)
    across = -xx * np.sin(a) + yy * np.cos(a) + 2.0 * _noise(rng, shape, 8.0)
    return 1 + 0.15 * np.sin(2 * np.pi * across / period_px) + 0.03 * _noise(rng, shape, 0.7)


def _table(rng, felt=True, shape=(120, 180), fuzz=0.12):
    """BGR top view at PPI of a wood-grain mat, and (when `felt`) a disc of felt of the mat's very
    colour and brightness, grainless (a gravel print of contrast `fuzz`), at (18, 12) in, 3 in in
    radius; its mask."""
    t = _grain(shape, rng)
    yy, xx = np.mgrid[0:shape[0], 0:shape[1]]
    disc = np.hypot(xx - 18 * PPI, yy - 12 * PPI) <= 3.0 * PPI
    if felt:
        t = np.where(disc, 1 + fuzz * _noise(rng, shape, 0.7), t)
    return (np.array(WOOD[::-1], np.float32) * t[..., None]).clip(0, 255), disc


def test_a_grain_is_coherent_and_noise_is_not():
    rng = np.random.default_rng(1)
    grain = np.log(_grain((80, 80), rng))
    rough = np.log(1 + 0.12 * _noise(rng, (80, 80), 0.7))
    inner = (slice(10, 70), slice(10, 70))
    assert np.median(coherence(grain.astype(np.float32), PPI)[inner]) > 0.7
    assert np.median(coherence(rough.astype(np.float32), PPI)[inner]) < 0.35


def test_on_a_mat_without_grain_nothing_is_grainless():
    # Gravel or grass: the mat's own coherence is as low as a felt's, its spread reaches nought.
    rng = np.random.default_rng(2)
    coh = coherence(np.log(1 + 0.2 * _noise(rng, (100, 140), 0.7)).astype(np.float32), PPI)
    centre, spread = grain_level(coh, np.ones(coh.shape, bool))
    assert centre - GRAIN_SIGMA * spread < 0.05
    assert not grainless(coh, centre, spread).any()


@pytest.mark.parametrize("seed", [3, 4])
def test_a_felt_of_the_mats_own_colour_is_found_by_its_lack_of_grain(seed):
    rng = np.random.default_rng(seed)
    view, disc = _table(rng)
    pieces = find_terrain(view, PPI, [("hill", (150, 124, 84)), ("water", (52, 104, 168))])
    assert [p.kind for p in pieces] == ["hill"]
    truth = Point(18.0, 12.0).buffer(3.0, 64)
    iou = pieces[0].polygon.intersection(truth).area / pieces[0].polygon.union(truth).area
    assert iou >= 0.8
    assert 0.5 <= pieces[0].extra["confidence"] <= 1.0


def test_the_bare_grain_is_no_felt():
    view, _ = _table(np.random.default_rng(5), felt=False)
    assert find_terrain(view, PPI, [("hill", (150, 124, 84)), ("water", (52, 104, 168))]) == ()


def test_figures_on_the_grain_are_no_felt():
    # Their outlines break the grain round them: no felt is told within the tensor's reach of them.
    view, _ = _table(np.random.default_rng(6), felt=False)
    feet = []
    for i, (x, y) in enumerate([(6, 5), (12, 18), (30, 6), (25, 16), (33, 20)]):
        u, v = int(x * PPI), int(y * PPI)
        view[v - 3:v + 4, u - 3:u + 4] = (40, 40, 200) if i % 2 else (30, 30, 30)
        feet.append((x, y, 0.6))
    assert find_terrain(view, PPI, [("hill", (150, 124, 84))], footprints_in=feet) == ()


@pytest.mark.parametrize("seed", [3, 4, 7])
def test_a_weakly_grained_knot_of_the_mat_does_not_hide_the_felt(seed):
    # A knot of the mat above the felt, its grain weaker than the mat's (its coherence past the
    # felt's outline but under the seeds' cut): a seed in no felt region, which must claim none.
    rng = np.random.default_rng(seed)
    view, _ = _table(rng)
    t = _grain(view.shape[:2], rng)
    yy, xx = np.mgrid[0:view.shape[0], 0:view.shape[1]]
    knot = np.hypot(xx - 18 * PPI, yy - 4 * PPI) <= 2.2 * PPI
    weak = 1 + 0.7 * (t - 1) + 0.3 * 0.12 * _noise(rng, view.shape[:2], 0.7)
    view = np.where(knot[..., None], np.array(WOOD[::-1], np.float32) * weak[..., None], view).clip(0, 255)
    pieces = find_terrain(view, PPI, [("hill", (150, 124, 84)), ("water", (52, 104, 168))])
    assert [p.kind for p in pieces] == ["hill"]
    truth = Point(18.0, 12.0).buffer(3.0, 64)
    assert pieces[0].polygon.intersection(truth).area / pieces[0].polygon.union(truth).area >= 0.8


def _plain(view, rng, shape, rgb):
    """`view` with a plain thing of colour `rgb` laid on it (a book, a card, an MDF building): one
    paint with a faint speckle, cut straight (a 5 x 4 in rectangle, an L) or round (a disc)."""
    yy, xx = np.mgrid[0:view.shape[0], 0:view.shape[1]]
    if shape == "rect":
        m = (xx >= 10 * PPI) & (xx < 15 * PPI) & (yy >= 8 * PPI) & (yy < 12 * PPI)
    elif shape == "disc":
        m = np.hypot(xx - 18 * PPI, yy - 12 * PPI) <= 2.6 * PPI
    else:
        m = (xx >= 10 * PPI) & (xx < 16 * PPI) & (yy >= 8 * PPI) & (yy < 13 * PPI) & ~((xx >= 13 * PPI) & (yy >= 10.5 * PPI))
    paint = np.array(rgb[::-1], np.float32) * (1 + 0.03 * _noise(rng, view.shape[:2], 0.7))[..., None]
    return np.where(m[..., None], paint, view).clip(0, 255)


@pytest.mark.parametrize("shape", ["rect", "disc", "L"])
@pytest.mark.parametrize("rgb", [WOOD, (175, 128, 84), (160, 118, 78)])
@pytest.mark.parametrize("seed", [5, 7])
def test_a_plain_thing_of_the_mats_colour_is_no_felt(shape, rgb, seed):
    # It has no grain either, but it is smooth at the pixel scale where a felt is as rough as the mat.
    rng = np.random.default_rng(seed)
    view, _ = _table(rng, felt=False)
    assert find_terrain(_plain(view, rng, shape, rgb), PPI, [("hill", (150, 124, 84)), ("water", (52, 104, 168))]) == ()


@pytest.mark.parametrize("seed", [3, 4, 5])
def test_a_felt_is_as_sure_as_it_is_rough(seed):
    # The drawn felt's print is about as rough as the mat's grain at the pixel scale: sure. Half as
    # rough: less sure, still reported. A quarter: no rougher than a speckled plain thing, none.
    kinds = [("hill", (150, 124, 84)), ("water", (52, 104, 168))]
    full = find_terrain(_table(np.random.default_rng(seed))[0], PPI, kinds)
    half = find_terrain(_table(np.random.default_rng(seed), fuzz=0.06)[0], PPI, kinds)
    assert [p.kind for p in full] == [p.kind for p in half] == ["hill"]
    assert full[0].extra["confidence"] >= 0.9
    assert 0.5 <= half[0].extra["confidence"] < 0.9
    assert find_terrain(_table(np.random.default_rng(seed), fuzz=0.03)[0], PPI, kinds) == ()


@pytest.mark.parametrize("share, sure", [(0.0, 0.0), (FUZZ_PLAIN, 0.0), ((FUZZ_PLAIN + FUZZ_FELT) / 2, 0.5),
                                         (FUZZ_FELT, 1.0), (2.0, 1.0)])
def test_how_sure_a_piece_is_from_its_fuzz_as_a_share_of_the_mats(share, sure):
    assert fuzz_sureness(share * 0.08, 0.08) == pytest.approx(sure)


def _felts(rng, masks, shape=(120, 180)):
    """A wood-grain mat with grainless felt of its very colour where each of `masks(xx, yy)` is."""
    t = _grain(shape, rng)
    yy, xx = np.mgrid[0:shape[0], 0:shape[1]]
    for mask in masks:
        t = np.where(mask(xx / PPI, yy / PPI), 1 + 0.12 * _noise(rng, shape, 0.7), t)
    return (np.array(WOOD[::-1], np.float32) * t[..., None]).clip(0, 255)


HILL_WATER = [("hill", (150, 124, 84)), ("water", (52, 104, 168))]


@pytest.mark.parametrize("seed", [3, 4])
def test_a_grainless_felt_of_no_kinds_colour_is_no_piece(seed):
    # The mat's own colour is no water's: a felt cut to it is no water piece.
    view, _ = _table(np.random.default_rng(seed))
    assert find_terrain(view, PPI, [("water", (52, 104, 168))]) == ()


@pytest.mark.parametrize("seed", [3, 4])
def test_a_kind_the_colours_missed_is_one_felt_the_biggest(seed):
    view = _felts(np.random.default_rng(seed), [lambda x, y: np.hypot(x - 9, y - 12) <= 3.0,
                                                lambda x, y: np.hypot(x - 28, y - 12) <= 2.4])
    pieces = find_terrain(view, PPI, HILL_WATER)
    assert [p.kind for p in pieces] == ["hill"]
    assert pieces[0].polygon.contains(Point(9, 12))


@pytest.mark.parametrize("seed", [3, 4])
def test_a_small_grainless_patch_is_no_felt(seed):
    view = _felts(np.random.default_rng(seed), [lambda x, y: np.hypot(x - 18, y - 12) <= 1.3])
    assert find_terrain(view, PPI, HILL_WATER) == ()


@pytest.mark.parametrize("seed", [3, 4])
def test_a_long_thin_grainless_streak_is_no_felt(seed):
    view = _felts(np.random.default_rng(seed), [lambda x, y: (abs(y - 12) <= 0.4) & (abs(x - 18) <= 8)])
    assert find_terrain(view, PPI, HILL_WATER) == ()


@pytest.mark.parametrize("seed", [3, 4, 5])
def test_a_grainless_inside_ringed_by_a_thing_is_no_felt(seed):
    # A bowl or a mug seen from above: its inside as rough as felt and of the mat's colour, but
    # ringed by its dark rim, not by the mat as a felt lying on the mat is.
    view = _felts(np.random.default_rng(seed), [lambda x, y: np.hypot(x - 18, y - 12) <= 3.0])
    yy, xx = np.mgrid[0:view.shape[0], 0:view.shape[1]]
    d = np.hypot(xx / PPI - 18, yy / PPI - 12)
    view[(d > 3.0) & (d <= 3.5)] = (60, 60, 60)
    assert find_terrain(view, PPI, HILL_WATER) == ()


@pytest.mark.parametrize("seed", [0, 1])
def test_a_region_of_a_grained_mat_shows_its_grain_and_a_felt_on_it_does_not(seed):
    # A piece that reaches on and on past every window is kept as first found unless it shows the
    # mat's own grain (terrain._mats_grain): a streak of light wood taken for a hill is the mat, the
    # felt cut into the grain is not; on a mat without grain (noise) nothing shows one.
    from shapely.geometry import box

    from vision.terrain import _mats_grain
    rng = np.random.default_rng(seed)
    view, disc = _table(rng)
    assert _mats_grain(_work(view), box(24.0, 4.0, 33.0, 20.0), (0.0, 0.0))
    assert not _mats_grain(_work(view), Point(18.0, 12.0).buffer(2.5), (0.0, 0.0))
    plain = (np.array(WOOD[::-1], np.float32) * (1 + 0.1 * _noise(rng, disc.shape, 0.7))[..., None]).clip(0, 255)
    assert not _mats_grain(_work(plain), box(24.0, 4.0, 33.0, 20.0), (0.0, 0.0))


def _work(view):
    """The texture of a work layer (terrain._Texture) all of whose pixels are mat-like."""
    from vision.terrain import _Texture
    shape = view.shape[:2]
    return _Texture(view.astype(np.float32), PPI, np.zeros((3, *shape), np.float32), np.full(3, 0.05, np.float32),
                    np.zeros(shape, bool))


def test_a_plain_mat_under_a_lamps_gradient_has_no_grain():
    # A plain mat's brightness changes only slowly, with the light: its gradients line up as a
    # grain's do (coherence near 1), but it has no texture (no fuzz past the camera's noise), so
    # no region of it shows a grain, and nothing is dropped as the mat for showing one.
    from shapely.geometry import box

    from vision.terrain import GRAINED_MAT, _mats_grain
    shape = (120, 180)
    yy, xx = np.mgrid[0:shape[0], 0:shape[1]].astype(np.float32)
    lamp = 1.3 - 0.5 * np.hypot(xx / PPI - 10, yy / PPI - 8) / 30
    noise = 0.003 * np.random.default_rng(2).normal(0, 1, shape)
    view = (np.array(WOOD[::-1], np.float32) * (lamp + noise)[..., None]).clip(0, 255)
    work = _work(view)
    assert work.mat_grain[0] >= GRAINED_MAT           # (coherent, by its gradient)
    assert not _mats_grain(work, box(24.0, 4.0, 33.0, 20.0), (0.0, 0.0))


GRAVEL = (150, 140, 122)
WOODS = (48, 82, 40)


@pytest.mark.parametrize("seed", [1, 2])
@pytest.mark.parametrize("book", ["plain", "rough"])
def test_a_plain_book_of_a_felts_colour_is_no_felt_and_the_felt_is_found(seed, book):
    # A book of the woods felt's very green on a gravel mat, larger than the felt, is cut straight and
    # one paint: a book, and the woods felt beside
    # it is the woods. A felt cut straight is as rough as the mat: felt, though a rectangle.
    rng = np.random.default_rng(seed)
    shape = (120, 180)
    yy, xx = np.mgrid[0:shape[0], 0:shape[1]]
    rough = 1 + 0.12 * _noise(rng, shape, 0.7)
    view = np.array(GRAVEL[::-1], np.float32) * rough[..., None]
    disc = np.hypot(xx - 26 * PPI, yy - 12 * PPI) <= 3.0 * PPI
    rect = (xx >= 4 * PPI) & (xx < 10.5 * PPI) & (yy >= 6 * PPI) & (yy < 15.5 * PPI)
    felt = np.array(WOODS[::-1], np.float32) * (1 + 0.12 * _noise(rng, shape, 0.7))[..., None]
    cover = np.array(WOODS[::-1], np.float32) * (1 + 0.01 * _noise(rng, shape, 0.7))[..., None]
    view = np.where(disc[..., None], felt, view)
    view = np.where(rect[..., None], cover if book == "plain" else felt, view).clip(0, 255)
    pieces = find_terrain(view, PPI, [("woods", WOODS), ("water", (52, 104, 168))])
    truths = [Point(26.0, 12.0).buffer(3.0, 64)]
    if book == "rough":
        truths.append(shapely.box(4.0, 6.0, 10.5, 15.5))
    assert [p.kind for p in pieces] == ["woods"] * len(truths)
    for truth in truths:
        assert max(p.polygon.intersection(truth).area / p.polygon.union(truth).area for p in pieces) >= 0.8
