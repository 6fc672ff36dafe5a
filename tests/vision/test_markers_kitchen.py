"""Small blurred figure markers on kitchen tables (the hard set's mat="kitchen") that the search
outlined or read with corners a pixel or two off: read again, each in its place.

Each case is a photo of the hard set where the marker was missed before: the detector read its id
from corners off enough that its cells did not show the id's pattern (`MarkerFinder._showing`) or a
side came out a fifth short (`_keep`), and the id was dropped; or the only outline was the white
card's, turned and a cell off, so the pattern read only once the outline was moved to where its
cells fit (`PatternReader.aligned`); or its dark square ranked behind eight darker places that
have no white card round them, or was less dark than a dark square must be while its card stood
clearly out of the table (`MarkerFinder._read_dark_squares`)."""
from __future__ import annotations

import numpy as np
import pytest

from vision.pipeline import FramePipeline

hard = pytest.importorskip("vision.synthetic.hard")     # scikit-image ships the textures


@pytest.mark.parametrize("seed, index, marker_id, why", [
    (13, 8, 13, "read from corners two pixels off: its cells correlate 0.79 with its pattern"),
    (13, 46, 33, "read from corners that make one side 0.78 in"),
    (13, 10, 18, "its threshold outline a cell off and its dark blob's too: read once aligned"),
    (7, 11, 41, "outlined only as its card, turned: its dark square ninth by darkness alone"),
    (13, 42, 49, "outlined together with the mat beside it: its dark square 60th by darkness alone"),
    (13, 5, 47, "outlined with the mat beside it; its many white bits leave its square 0.14 darker than its "
                "card, its card 0.32 lighter than the baize"),
    (7, 49, 13, "a 2160p photo blurred 4.4 px: its square 0.14 darker than its card, its card 0.30 lighter than "
                "the baize"),
])
def test_a_kitchen_tables_blurred_marker_is_read_in_its_place(seed, index, marker_id, why):
    photo = hard.hard_photo(seed, index, mat="kitchen")
    truth = next(f for f in photo.truth.figures if f.marker == marker_id)
    scene = FramePipeline(photo.profile).process(photo.image).scene
    found = [f for f in scene.figures if f.marker == marker_id and not f.hidden]
    assert found, why
    assert np.hypot(found[0].x - truth.x, found[0].y - truth.y) < 0.05
