"""A ring as white as paper is no rim (vision.rims._as_white_as_paper): a side's paint takes some of
the light, so in the same light it is darker than the anchors' white card; a printed page, a white
mug or a lit hand on which the likelihood finds a trace of the side's hue (a page white-balanced a
little blue under a warm lamp) is not."""
from __future__ import annotations

import numpy as np
import pytest
from shapely.geometry import Point

from tests.vision.rim_scenes import BLUE, RED
from vision import rims
from vision.pipeline import FramePipeline
from vision.rim_rays import ray_units
from vision.synthetic.hard import hard_photo
from vision.whitebalance import BLACK, WHITE, WhiteBalance

R_PX = 10.0
RADII = np.arange(0.0, 3 * R_PX, 0.5)
UNITS = ray_units()
# The anchors' card as measured: the white balance leaves every colour as it is.
SAME = WhiteBalance(np.full(3, BLACK), np.full(3, WHITE))


def _paper(patches_bgr, light=None, wb=SAME, mixed_share=0.0):
    """_as_white_as_paper of a blue ring standing in each uniform patch (BGR), all its rays showing
    its colour; with `mixed_share`, that share of each ring's band is a pale mat instead."""
    size = int(4 * R_PX)
    view = np.concatenate([np.full((size, size, 3), bgr, np.uint8) for bgr in patches_bgr], axis=1)
    if mixed_share:
        rows = int(round(mixed_share * size))
        view[:rows] = (200, 215, 225)
    centres = np.array([[size * (k + 0.5), size / 2] for k in range(len(patches_bgr))], np.float64)
    samples = np.ones((len(centres), len(UNITS), len(RADII)), np.float32)
    light_at = None if light is None else (lambda c: np.full(len(c), light))
    return rims._as_white_as_paper(rims.quantise_view(view, wb), wb, centres, samples, RADII, UNITS, R_PX,
                                   np.ones(len(centres), int), [RED, BLUE], light_at)


def test_white_paper_is_paper_and_the_sides_paint_is_not():
    page = (240, 236, 232)                          # BGR: a page a little blue
    paint = BLUE[::-1]
    lit_paint = tuple(min(255, int(1.4 * c)) for c in paint)  # under a lamp's hot spot
    assert _paper([page, paint, lit_paint]).tolist() == [True, False, False]


def test_the_light_over_the_table_is_divided_out():
    """A page in a dim corner (0.6 of the anchors' light) is as dark as lit paint; told the light
    there, it is paper again."""
    dim_page = tuple(int(0.6 * c) for c in (240, 236, 232))
    assert _paper([dim_page]).tolist() == [False]
    assert _paper([dim_page], light=0.6).tolist() == [True]


def test_a_pale_mat_blurred_into_most_of_a_rims_band_is_not_taken_for_its_paint():
    """Read on the arc's darker quarter: a blue rim whose band is more than half a light gravel mat
    (blurred into it at 1080p) is still paint; its median is the mat's."""
    assert _paper([BLUE[::-1]], mixed_share=0.6).tolist() == [False]


def test_without_the_anchors_white_balance_nothing_is_paper():
    assert _paper([(240, 236, 232)], wb=None).tolist() == [False]


@pytest.mark.parametrize("seed, index", [(3, 38), (11, 28)])
def test_a_page_under_a_warm_lamp_is_no_blue_figure(seed, index, monkeypatch):
    """Hard set 3 photo 38 and 11 photo 28 (a warm lamp or tungsten, a printed page on the table,
    1080p): the soft likelihood found blue on the page, white-balanced a little blue, and a ring at
    its corner. Judged as white as paper, it is no figure; every other figure found is found as it
    was."""
    photo = hard_photo(seed, index)
    page = next(c for c in photo.clutter if c.kind == "page").footprint(photo.camera).buffer(0.3)

    def colour_figures():
        scene = FramePipeline(photo.profile).process(photo.image).scene
        return {(round(f.x, 2), round(f.y, 2), f.side) for f in scene.figures if f.detected_by == "colour"}

    judged = colour_figures()
    monkeypatch.setattr(rims, "PAPER_SHARE", 10.0)       # nothing is as white as paper
    unjudged = colour_figures()
    on_page = [f for f in unjudged if page.contains(Point(f[0], f[1]))]
    assert [side for _x, _y, side in on_page] == ["blue"]
    assert judged == unjudged - set(on_page)
