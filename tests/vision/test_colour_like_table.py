"""A table that shows a side's own colour over much of itself (a cherry-wood table under red rims,
a blue cloth under blue ones): the Scene names the side (`colour_like_table`), so the player is told
that some of its bases may be missed; a table of no side's colour names none.

The expected sides come from each photo's table (its truth), not from the program: cherry wood is
red-brown, the blue cloth blue, walnut, green baize and a white or grey top are neither side's hue."""
from __future__ import annotations

import pytest

from vision.pipeline import FramePipeline

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
