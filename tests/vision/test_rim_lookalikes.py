"""Look-alikes of a base in whole top views (vision.rims.find_rims and its vetting), seen from a
tilted camera: a die of a side's colour is a solid 0.63" cube whose top and near walls fill a blob
of a base's size; a base painted all over its top has a figure's feet in its middle, and where the
body leans off most of it, its colour runs from the rim in to the feet."""
from __future__ import annotations

import math

import numpy as np
import pytest

from tests.vision.rim_scenes import BASE_TOP_IN, BLUE, PPI, RED, TOWARDS, TopScene, solid_die
from vision.rims import find_rims

SIDES = [RED, BLUE]


def _shift(per_in: float):
    """A base top's wall shift (view pixels, towards the camera) when a thing one inch up shows
    `per_in` inches farther from the camera."""
    return lambda c: np.tile(TOWARDS * per_in * BASE_TOP_IN * PPI, (len(np.asarray(c).reshape(-1, 2)), 1))


def _whole_top_figure(scene: TopScene, x, y, side, rgb, per_in: float):
    """A base painted all over its top; the figure's feet in its middle and its body rising away from
    the camera hide the far half."""
    scene.disc(x, y, 0.5, rgb)
    for dx in (-0.13, 0.13):                               # the legs, from the feet up
        foot = np.array([x + dx, y])
        scene.poly(np.vstack([foot + (-0.16, 0.05), foot + (0.16, 0.05), foot + (0.16, -0.45 * per_in - 0.1),
                              foot + (-0.16, -0.45 * per_in - 0.1)]), (90, 70, 50))
        scene.disc(foot[0], foot[1], 0.16, (90, 70, 50))
    scene.poly(np.array([[x - 0.36, y - 0.35 * per_in], [x + 0.36, y - 0.35 * per_in], [x + 0.36, y - 1.0 * per_in],
                         [x - 0.36, y - 1.0 * per_in]]), (150, 150, 160))
    scene.truth.append((x, y, side))


@pytest.mark.parametrize("per_in", [0.3, 0.5, 0.65])
@pytest.mark.parametrize("rgb, side", [(RED, 0), (BLUE, 1)])
def test_a_solid_die_is_no_base_and_a_base_painted_all_over_is(per_in, rgb, side):
    scene = TopScene(width_in=8, depth_in=5)
    _whole_top_figure(scene, 2.0, 3.0, side, rgb, per_in)
    solid_die(scene, 3.3, 3.2, rgb, per_in)                 # beside the figure
    solid_die(scene, 6.0, 3.0, rgb, per_in, yaw_deg=0)      # alone on the mat
    img = scene.finish(seed=5)
    hits = find_rims(img, PPI, SIDES, 1.0, wall_shift_px=_shift(per_in), wall_height_in=BASE_TOP_IN)
    found = [(h.xy_view / PPI, h) for h in hits]
    assert len(found) == 1, [(np.round(p, 2), h.side_index, h.middle, h.hollow) for p, h in found]
    (xy, hit), = found
    assert hit.side_index == side and np.hypot(*(xy - (2.0, 3.0))) < 0.15


def _leaning_whole_top_figure(scene: TopScene, x, y, side, rgb, lean_deg, visible, legs_deg):
    """A base painted all over its top, the figure's two legs across its middle and its body leaning
    towards `lean_deg` over (1 - visible) of the ring: between the visible rim and the legs the
    top shows the side's colour, far into the middle."""
    scene.disc(x, y, 0.5, rgb)
    along = np.array([math.cos(math.radians(legs_deg)), math.sin(math.radians(legs_deg))])
    for d in (-0.13, 0.13):
        foot = np.array([x, y]) + d * along
        scene.disc(foot[0], foot[1], 0.16, (90, 70, 50))
    half, lean = math.radians((1 - visible) * 180), math.radians(lean_deg)
    t = np.linspace(lean - half, lean + half, 24)
    arc = np.column_stack([x + 0.56 * np.cos(t), y + 0.56 * np.sin(t)])
    scene.poly(np.vstack([np.array([x, y]) + 0.1 * np.array([math.cos(lean), math.sin(lean)]), arc]), (150, 150, 160))
    scene.truth.append((x, y, side))


@pytest.mark.parametrize("seed, visible, rgb, side", [(1, 0.35, RED, 0), (2, 0.35, RED, 0), (3, 0.35, BLUE, 1),
                                                     (3, 0.4, RED, 0), (5, 0.35, RED, 0), (5, 0.4, RED, 0)])
def test_a_painted_top_with_the_body_leaning_off_most_of_it_is_a_base_and_a_die_beside_it_is_not(seed, visible,
                                                                                                 rgb, side):
    # A disc of the side's colour with the body standing in it, not a ring: its colour runs in from
    # the rim to the legs, while its core (the feet) shows none; a die of the colour beside it is the
    # colour right through its middle. (Blurred as a 1080p photo's view is.)
    scene = TopScene(width_in=6, depth_in=4)
    _leaning_whole_top_figure(scene, 2.0, 2.0, side, rgb, 270 + 40 * seed, visible, 30 * seed)
    solid_die(scene, 3.5, 2.3, rgb, 0.4)
    img = scene.finish(seed=seed, blur_px=1.2)
    hits = find_rims(img, PPI, SIDES, 1.0, wall_shift_px=_shift(0.4), wall_height_in=BASE_TOP_IN)
    assert [(h.side_index, bool(np.hypot(*(h.xy_view / PPI - (2.0, 2.0))) < 0.15)) for h in hits] == [(side, True)], \
        [(np.round(h.xy_view / PPI, 2), h.side_index, h.confidence, h.inner, h.core) for h in hits]
