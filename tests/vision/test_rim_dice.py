"""A die of a side's colour is told from a base by the white pips on its top (vision.rim_dice): two
or more small bright spots in the ring's middle, each with the side's paint all round it. A figure's
bright bits (a face, a blade) lie against its body or the rim, not inside paint."""
from __future__ import annotations

import numpy as np
import pytest

from tests.vision.rim_scenes import BASE_TOP_IN, BLUE, PPI, RED, TOWARDS, TopScene, solid_die
from vision.pipeline import FramePipeline
from vision.rim_dice import MIN_PIPS, pip_counts
from vision.whitebalance import BLACK, WHITE, WhiteBalance

SIDES = [RED, BLUE]
R_PX = 0.5 * PPI
PER_IN = 0.4                 # a thing an inch up shows this far from the camera (a tilt of about 22 degrees)
SKIN, STEEL = (235, 200, 170), (225, 225, 230)


def _die_ring_centre(x, y, per_in=PER_IN, side_in=0.63):
    """Where a ring round a die's blob lies: between its bottom and its top, seen farther off."""
    return (np.array([x, y]) - TOWARDS * per_in * (side_in / 2 - BASE_TOP_IN)) * PPI


def _count(img, centres, sides, balance=None):
    return pip_counts(img, np.asarray(centres, float).reshape(-1, 2), sides, SIDES, R_PX, PPI, balance=balance).tolist()


@pytest.mark.parametrize("pips, per_in", [(2, 0.0), (3, PER_IN), (4, PER_IN), (5, PER_IN), (6, PER_IN)])
@pytest.mark.parametrize("rgb, side", [(RED, 0), (BLUE, 1)])
def test_a_dies_pips_are_counted(pips, per_in, rgb, side):
    """(A two's pips lie at opposite corners of its top: from a tilted camera the ring round the
    die's blob is centred nearer the camera than its top, and one of them may lie past the middle
    of the ring looked in: straight from above both lie in it.)"""
    scene = TopScene(width_in=4, depth_in=4)
    solid_die(scene, 2.0, 2.0, rgb, per_in, yaw_deg=15.0 * pips, pips=pips)
    (count,) = _count(scene.finish(seed=pips, blur_px=1.0), [_die_ring_centre(2.0, 2.0, per_in)], [side])
    assert count >= MIN_PIPS


def test_a_one_is_not_told_by_its_pip():
    """A single pip is no surer than a small bright body on a base painted all over its top."""
    scene = TopScene(width_in=4, depth_in=4)
    solid_die(scene, 2.0, 2.0, RED, PER_IN, pips=1)
    assert _count(scene.finish(seed=1, blur_px=1.0), [_die_ring_centre(2.0, 2.0)], [0]) == [0]


def test_a_figures_face_and_blade_are_no_pips():
    """Bright bits on a figure's body are ringed by the body's colours (a grey figure, its face and
    blade skin and steel), or half by the rim's paint where they lie at its edge."""
    scene = TopScene(width_in=5, depth_in=3)
    scene.figure(1.5, 1.5, 0, RED, visible=0.5, lean_deg=270, body_rgb=(90, 70, 50))
    scene.disc(1.45, 1.3, 0.07, SKIN)                      # the face
    scene.disc(1.65, 1.55, 0.05, STEEL)                    # a blade's tip
    scene.disc(3.5, 1.5, 0.5, BLUE)                        # a base painted all over its top
    scene.disc(3.5, 1.5, 0.2, (90, 70, 50))                # the feet and body
    scene.disc(3.5, 1.27, 0.06, SKIN)                      # bright bits at the body's edge
    scene.disc(3.68, 1.5, 0.06, STEEL)
    counts = _count(scene.finish(seed=3, blur_px=1.0), [(1.5 * PPI, 1.5 * PPI), (3.5 * PPI, 1.5 * PPI)], [0, 1])
    assert max(counts) < MIN_PIPS, counts


def test_a_dies_pips_are_counted_under_a_tungsten_lamp_once_white_balanced():
    """Under a lamp of about 2800 K a red die's face and its pips are orange and cream: the anchors'
    grey card, as the photo shows it, brings the paint back to the side's colour."""
    cast = np.array([1.0, 0.72, 0.42])                     # RGB
    scene = TopScene(width_in=4, depth_in=4)
    solid_die(scene, 2.0, 2.0, BLUE, PER_IN, pips=4)
    img = scene.finish(seed=2, blur_px=1.0, cast=tuple(cast))
    card = WhiteBalance(BLACK * cast[::-1], WHITE * cast[::-1])
    (count,) = _count(img, [_die_ring_centre(2.0, 2.0)], [1], balance=lambda window, centre: card.apply(window))
    assert count >= MIN_PIPS


hard = pytest.importorskip("vision.synthetic.hard")     # scikit-image ships the textures


@pytest.mark.parametrize("seed, index, mat, place_in, why", [
    (7, 0, "kitchen", (29.4, 20.1), "a red die with five pips on cherry wood under tungsten, 0.73 sure as a ring"),
    (7, 29, "kitchen", (21.3, 0.9), "a blue die with five pips on green baize in warm light, 0.81 sure as a ring"),
    (13, 12, "kitchen", (20.2, 18.6), "a blue die on a blue cloth at 2160p"),
    (13, 59, "kitchen", (5.0, 13.5), "a red die on cherry wood under tungsten"),
    (7, 50, "set", (19.5, 10.0), "a blue die beside figures on the set's mat"),
])
def test_a_die_of_a_sides_colour_is_no_figure(seed, index, mat, place_in, why):
    photo = hard.hard_photo(seed, index, mat=mat)
    assert min(np.hypot(d.x_in - place_in[0], d.y_in - place_in[1]) for d in photo.dice) < 0.3
    assert min(np.hypot(f.x - place_in[0], f.y - place_in[1]) for f in photo.truth.figures) > 1.0
    scene = FramePipeline(photo.profile).process(photo.image).scene
    assert [(f.side, round(f.x, 2), round(f.y, 2)) for f in scene.figures
            if f.detected_by == "colour" and np.hypot(f.x - place_in[0], f.y - place_in[1]) <= 0.5] == [], why


@pytest.mark.parametrize("seed, index, mat, figure_id, why", [
    (13, 22, "kitchen", "c2", "a blue base on a blue cloth, its figure's face and blade at the rim's inner edge"),
    (13, 36, "kitchen", "c8", "a blue base on green baize, three bright bits of its figure at the rim's inner edge"),
    (13, 1, "kitchen", "c2", "a blue base at 2160p under tungsten, a bright bit of its figure over the rim"),
    (0, 33, "set", "c9", "a red base at 2160p under tungsten, its figure's arm and face lit across its middle"),
    (0, 53, "set", "c6", "a blue base at 2160p, three bright bits of its figure in its middle"),
])
def test_a_base_with_bright_bits_on_its_figure_is_still_found(seed, index, mat, figure_id, why):
    """Bases whose middles show two or more bright spots of the side's paint's chromaticity or near
    it, none ringed by the paint all round within the middle of the ring."""
    photo = hard.hard_photo(seed, index, mat=mat)
    truth = next(f for f in photo.truth.figures if f.id == figure_id)
    scene = FramePipeline(photo.profile).process(photo.image).scene
    near = [(f.side, round(float(np.hypot(f.x - truth.x, f.y - truth.y)), 2)) for f in scene.figures
            if f.detected_by == "colour" and np.hypot(f.x - truth.x, f.y - truth.y) <= 0.5]
    assert [side for side, _ in near] == [truth.side], (why, near)
