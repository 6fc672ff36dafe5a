"""A table that shows a side's own colour over much of itself (a cherry-wood table under red rims,
a blue cloth under blue ones): the Scene names the side (`colour_like_table`), so the player is told
that some of its bases may be missed; a table of no side's colour names none. Likewise felt of a
side's hue lying on the table (blue water under blue rims: `colour_like_felt`), where a base in or
beside it shows its rim against its own colour.

The expected sides come from each photo's table (its truth), not from the program: cherry wood is
red-brown, the blue cloth blue, walnut, green baize and a white or grey top are neither side's hue;
the hard set's water felt is blue (RGB 52, 104, 168), its woods green, its rocks grey, its hill
brown."""
from __future__ import annotations

import pytest
from shapely.geometry import box

from calibration.profile import ColourSpec, TableProfile, standard_anchors
from measure.scene import Terrain
from vision.pipeline import FramePipeline, colour_like_felt

hard = pytest.importorskip("vision.synthetic.hard")     # scikit-image ships the textures

LIKE = {"cherry wood": ["red"], "blue cloth": ["blue"]}


@pytest.mark.parametrize("seed, index", [(13, 34), (13, 3), (13, 0), (13, 5), (13, 2), (13, 1), (7, 0)])
def test_a_table_of_a_sides_colour_names_that_side(seed, index):
    photo = hard.hard_photo(seed, index, mat="kitchen")
    scene = FramePipeline(photo.profile).process(photo.image).scene
    assert scene.extra.get("colour_like_table") == LIKE.get(photo.conditions.mat), photo.conditions.mat


def test_the_sets_own_mats_name_no_side():
    for index in (0, 1, 2):
        photo = hard.hard_photo(0, index)
        assert "colour_like_table" not in FramePipeline(photo.profile).process(photo.image).scene.extra


@pytest.mark.parametrize("seed, index, cast, said", [(0, 2, "tungsten", ["blue"]), (7, 0, "tungsten", ["blue"]),
                                                     (0, 1, "daylight", None), (0, 0, "warm", None)])
def test_a_warm_bulb_names_the_blue_side(seed, index, cast, said):
    """A household bulb (the hard set's tungsten, 2600-3200 K) starves the blue channel: the blue
    side's bases show faintly (`light_tint`); daylight and warm white light (3600 K and up) name none."""
    photo = hard.hard_photo(seed, index)
    assert photo.conditions.cast == cast
    tint = FramePipeline(photo.profile).process(photo.image).scene.extra.get("light_tint")
    assert (tint or {}).get("faint_sides") == said


def test_water_on_the_table_names_the_blue_side():
    photo = hard.hard_photo(0, 0)
    assert "water" in {piece.kind for piece in photo.truth.terrain}
    assert FramePipeline(photo.profile).process(photo.image).scene.extra.get("colour_like_felt") == {"blue": ["water"]}


def test_a_table_without_water_names_no_side_for_felt():
    photo = hard.hard_photo(0, 0, absent_kinds=("water",))
    assert "water" not in {piece.kind for piece in photo.truth.terrain}
    assert "colour_like_felt" not in FramePipeline(photo.profile).process(photo.image).scene.extra


PROFILE = TableProfile(name="t", width_in=48.0, depth_in=36.0, anchors=standard_anchors(48.0, 36.0),
                       sides=(ColourSpec("red", (200, 40, 40)), ColourSpec("blue", (40, 80, 200))),
                       terrain=(ColourSpec("water", (52, 104, 168)), ColourSpec("lava", (210, 70, 30)),
                                ColourSpec("rocks", (128, 124, 120)), ColourSpec("woods", (48, 82, 40))))


@pytest.mark.parametrize("kinds, expected", [
    ((), {}),                                                  # no felt found: nothing to say
    (("rocks", "woods"), {}),                                  # grey has no hue; green is neither side's
    (("water",), {"blue": ["water"]}),                         # blue felt, blue rims
    (("water", "lava", "rocks"), {"red": ["lava"], "blue": ["water"]}),   # orange-red felt, red rims
    (("lava", "lava"), {"red": ["lava"]}),                     # two pieces of one kind: named once
])
def test_felt_of_a_sides_hue_on_the_table_names_that_side(kinds, expected):
    terrain = tuple(Terrain(f"t{k}", kind, box(k, 0, k + 1, 1)) for k, kind in enumerate(kinds))
    assert colour_like_felt(PROFILE, terrain) == expected
