import math

import numpy as np
import pytest
from hypothesis import given, strategies as st

from measure import Grid, GridError, adjacent, cell_centre, cell_of, grid_distance, hex_distance, square_distance

SQUARE = Grid("square", 1.0)


@pytest.mark.parametrize("xy,cell", [((0.5, 0.5), (0, 0)), ((1.0, 0.0), (1, 0)), ((3.99, 2.01), (3, 2)),
                                     ((-0.1, 0.2), (-1, 0))])
def test_square_cell(xy, cell):
    assert tuple(cell_of(SQUARE, xy)) == cell


def test_square_cell_with_origin_pitch_and_angle():
    g = Grid("square", 1.5, origin=(10.0, 5.0), angle_deg=90.0)
    # grid x runs along table +y: a point 2 in "down" the table from the origin is in grid column 1
    assert tuple(cell_of(g, (10.0 - 0.1, 7.0))) == (1, 0)
    assert np.allclose(cell_centre(g, (0, 0)), (10.0 - 0.75, 5.0 + 0.75))


@pytest.mark.parametrize("metric,d", [("chessboard", 5), ("equidistant", 5), ("alternating", 6),
                                      ("manhattan", 8), ("euclidean", math.hypot(5, 3))])
def test_square_metrics(metric, d):
    assert square_distance((0, 0), (5, 3), metric) == pytest.approx(d)


@pytest.mark.parametrize("diag,expected", [(1, 1), (2, 3), (3, 4), (4, 6)])
def test_alternating_diagonals_cost_1_2_1(diag, expected):
    assert square_distance((0, 0), (diag, diag), "alternating") == expected


def test_unknown_metric():
    with pytest.raises(GridError, match="metric"):
        square_distance((0, 0), (1, 1), "taxicab-ish")


@pytest.mark.parametrize("orientation", ["flat", "pointy"])
def test_hex_neighbours_are_one_pitch_apart(orientation):
    g = Grid("hex", 1.0, orientation=orientation)
    neighbours = [(1, 0), (-1, 0), (0, 1), (0, -1), (1, -1), (-1, 1)]
    centres = cell_centre(g, neighbours)
    assert np.allclose(np.hypot(centres[:, 0], centres[:, 1]), 1.0)
    assert all(hex_distance((0, 0), n) == 1 for n in neighbours)
    assert hex_distance((0, 0), (2, -1)) == 2
    assert hex_distance((0, 0), (3, 3)) == 6


def test_flat_and_pointy_differ():
    flat, pointy = Grid("hex", 1.0, orientation="flat"), Grid("hex", 1.0, orientation="pointy")
    # flat-topped: neighbours straight above/below; pointy-topped: straight left/right
    assert tuple(cell_of(flat, (0.0, 1.0))) == (0, 1) and tuple(cell_of(pointy, (0.0, 1.0))) != (0, 1)
    assert np.allclose(cell_centre(flat, (0, 1)), (0.0, 1.0))
    assert np.allclose(cell_centre(pointy, (1, 0)), (1.0, 0.0))


@pytest.mark.parametrize("kind,orientation", [("square", None), ("hex", "flat"), ("hex", "pointy")])
@given(q=st.integers(-30, 30), r=st.integers(-30, 30), angle=st.floats(-180, 180),
       ox=st.floats(-5, 5), oy=st.floats(-5, 5))
def test_cell_of_cell_centre_round_trips(kind, orientation, q, r, angle, ox, oy):
    g = Grid(kind, 1.25, origin=(ox, oy), angle_deg=angle, orientation=orientation)
    assert tuple(cell_of(g, cell_centre(g, (q, r)))) == (q, r)


def test_grid_distance_and_adjacency():
    assert grid_distance(SQUARE, (0.5, 0.5), (3.5, 1.5)) == 3
    assert grid_distance(SQUARE, (0.5, 0.5), (3.5, 1.5), "manhattan") == 4
    assert adjacent(SQUARE, (2, 2), (3, 3)) and adjacent(SQUARE, (2, 2), (2, 2))
    assert not adjacent(SQUARE, (2, 2), (4, 3))
    hexg = Grid("hex", 1.0, orientation="flat")
    assert adjacent(hexg, (0, 0), (1, -1)) and not adjacent(hexg, (0, 0), (1, 1))


def test_vectorised_cells():
    xy = np.array([[0.5, 0.5], [1.5, 0.5], [2.5, 3.5]])
    assert cell_of(SQUARE, xy).tolist() == [[0, 0], [1, 0], [2, 3]]
    assert square_distance(cell_of(SQUARE, xy)[:, None], cell_of(SQUARE, xy)[None], "chessboard").tolist() == [
        [0, 1, 3], [1, 0, 3], [3, 3, 0]]
