"""The Detections container: validated shapes, immutable columns, selection and Scene figures."""
from __future__ import annotations

import numpy as np
import pytest

from vision.detections import Detections


def _two():
    return Detections.from_markers([12, 30], np.array([[1.0, 2.0], [3.0, 4.0]]), np.zeros((2, 4, 2)), [0.9, 0.8])


def test_columns_and_selection():
    d = _two()
    assert len(d) == 2 and list(d.figure_id) == ["m12", "m30"]
    picked = d[d.confidence > 0.85]
    assert list(picked.figure_id) == ["m12"] and picked.xy_in.shape == (1, 2)
    with pytest.raises(ValueError):
        d.xy_in[0, 0] = 5.0          # columns are read-only
    both = d[:1].concat(d[1:])
    assert list(both.marker_id) == [12, 30]


def test_shapes_are_validated():
    with pytest.raises(ValueError, match="xy_in"):
        Detections(figure_id=["m1"], xy_in=np.zeros((1, 3)), marker_id=[1], side=[None], detected_by=["marker"],
                   confidence=[1.0], corners_px=np.zeros((1, 4, 2)))
    with pytest.raises(ValueError, match="unique"):
        Detections.from_markers([5, 5], np.zeros((2, 2)), np.zeros((2, 4, 2)), [1, 1])


def test_roster_fills_scene_figures():
    figures = _two().to_figures({"m30": {"name": "Grak", "side": "blue", "type": "giant", "painted": False}})
    assert figures[0].name is None and figures[0].marker == 12
    assert (figures[1].name, figures[1].side, figures[1].type, figures[1].painted) == ("Grak", "blue", "giant", False)
    assert Detections.empty().to_figures() == ()


def test_a_colour_figure_takes_its_sides_base_unless_the_roster_gives_one():
    d = _two().concat(Detections.from_colour(["c1", "c2"], np.array([[5.0, 5.0], [7.0, 5.0]]), ["red", "blue"],
                                             [0.9, 0.9]))
    figures = d.to_figures({"c2": {"base": 2.0}}, side_bases={"red": 1.26, "blue": 1.575, None: 9.0})
    assert [f.base_in for f in figures] == [1.0, 1.0, 1.26, 2.0]    # markers: the default, not a side's
