"""What a table's own wood, a felt's edge and a die in the water make of a side's colour is no colour
base.

Each case is a photo of the hard set where a colour figure was reported on nothing but the table
before. On kitchen tables (the hard set's mat="kitchen"): a faint ring of a side's hue in walnut's
grain (its middle the wood's own colour, or its band no more unlike the wood round it in hue than
the wood is itself: `vision.rim_vetting`'s FAINT_RING tests); a find of the water search at the edge
of a water felt, where the table past the edge, rounded off by it, looked like a body standing in
the felt (`vision.rim_water`'s "felt's edge"). On the set's own mats: a red die standing in water,
which the water search's fit, drifting off the die's red middle from one of its seeds, took for a
blue base round a body (`vision.rim_water`'s blob test); a bay in a water felt's edge, whose blend
with the mat shows a faint blue arc round the mat in the bay (`vision.rims`' felt's-edge test).
Last, the ring of a cloak of the other side's colour over a rim too weak to keep alone, which was
taken for a figure of the cloak's side (`vision.rim_vetting`'s MAX_UNDER_APART)."""
from __future__ import annotations

import numpy as np
import pytest

from vision.pipeline import FramePipeline

hard = pytest.importorskip("vision.synthetic.hard")     # scikit-image ships the textures


@pytest.mark.parametrize("seed, index, mat, place_in, why", [
    (7, 2, "kitchen", (41.8, 6.7), "walnut under a warm lamp: a red ring 0.46 sure whose middle is 9 Lab units off "
                                   "the wood"),
    (7, 40, "kitchen", (31.6, 36.8), "walnut: a red ring 0.48 sure whose band stands out of the wood by 2.2 units "
                                     "of hue"),
    (13, 29, "kitchen", (42.1, 27.4), "walnut in daylight: a red ring 0.48 sure whose band is the wood's own hue"),
    (7, 5, "kitchen", (30.0, 12.3), "a blue cloth table: the edge of a water felt on it"),
    (7, 6, "kitchen", (14.1, 13.0), "walnut: the edge of a water felt on it"),
    (7, 15, "kitchen", (21.2, 26.6), "green baize under tungsten: the edge of a water felt on it"),
    (13, 42, "kitchen", (7.7, 29.1), "green baize: the edge of a water felt on it"),
    (7, 48, "set", (34.6, 20.2), "a red die in the water under tungsten: the water search's fit drifted off its "
                                 "middle"),
    (23, 0, "set", (20.0, 23.3), "a red die in the water in warm light: the water search's fit drifted off its "
                                 "middle"),
    (11, 29, "set", (18.2, 12.0), "a bay in the water felt's edge on tiles: a blue ring 0.35 sure, felt beyond its "
                                  "arc"),
    (13, 6, "set", (34.1, 18.9), "a bay in the water felt's edge on wood: a blue ring 0.35 sure, felt beyond its arc"),
    (102, 6, "set", (25.3, 15.5), "a bay in the water felt's edge on gravel: a blue ring 0.37 sure, felt beyond its "
                                  "arc"),
])
def test_no_colour_figure_on_a_tables_own_wood_a_felts_edge_or_a_die_in_the_water(seed, index, mat, place_in, why):
    assert _colour_figures_near(hard.hard_photo(seed, index, mat=mat), place_in) == [], why


@pytest.mark.parametrize("seed, index, place_in, why", [
    (7, 31, (28.3, 22.8), "daylight: the brightness steps along the felt's rounded corner, a blue ring 0.35 sure"),
    (7, 49, (18.8, 34.4), "daylight, 2160p: the same at another corner, 0.15 sure by a ramp"),
])
def test_no_colour_figure_at_the_corner_of_a_familys_navy_pond(seed, index, place_in, why):
    """A craft-shop navy felt (`felt="shop"`), learnt as the photo shows it for the water search
    (vision.rim_water.seen_felts): where it blends into the mat its edge is labelled the blue
    side's colour, and the brightness steps round its corner as round a base. The ground round
    where the step puts the circle lies mostly outside the felt (`vision.rim_water`'s "felt's
    edge", asked again where the step moved the circle)."""
    assert _colour_figures_near(hard.hard_photo(seed, index, felt="shop"), place_in) == [], why


def _colour_figures_near(photo, place_in) -> list:
    """The colour figures `tablesight analyze` reports within half an inch of `place_in`, where
    no figure stands (none within an inch)."""
    assert min(np.hypot(f.x - place_in[0], f.y - place_in[1]) for f in photo.truth.figures) > 1.0
    scene = FramePipeline(photo.profile).process(photo.image).scene
    return [(f.side, round(f.x, 2), round(f.y, 2)) for f in scene.figures
            if f.detected_by == "colour" and np.hypot(f.x - place_in[0], f.y - place_in[1]) <= 0.5]


@pytest.mark.parametrize("seed, index, figure_id, why", [
    (23, 50, "c5", "a red base a third in view under a blue cloak: the rim 0.29 sure, the cloak's ring 0.51"),
    (23, 27, "c9", "a red base under a blue cloak: the rim 0.29 sure, the cloak's ring 0.39-0.42"),
    (23, 18, "c10", "a blue base under a red cloak: the rim pale, 0.37-0.39 sure, the cloak's ring 0.42-0.55"),
])
def test_a_rim_too_weak_alone_under_a_cloak_of_the_other_side_is_the_base(seed, index, figure_id, why):
    """A figure leaning over its base hides two thirds of its rim, and a cloak of the other side's
    colour hangs on it: the cloak's ring is surer than the rim (vision.rim_vetting's
    MAX_UNDER_APART). The base is found of its own side, and no figure of the cloak's side stands
    on it."""
    photo = hard.hard_photo(seed, index)
    truth = next(f for f in photo.truth.figures if f.id == figure_id)
    scene = FramePipeline(photo.profile).process(photo.image).scene
    near = [(f.side, round(float(np.hypot(f.x - truth.x, f.y - truth.y)), 2)) for f in scene.figures
            if f.detected_by == "colour" and np.hypot(f.x - truth.x, f.y - truth.y) <= 0.5]
    assert [side for side, _ in near] == [truth.side], (why, near)
    assert near[0][1] <= 0.15, (why, near)
