import math

import numpy as np
import pytest

from measure import Figure, Scene, Table, centre_distance, distance_matrices, edge_distance, figure_distance


def scene_of(*figs):
    return Scene(table=Table(48, 36), figures=tuple(figs))


@pytest.mark.parametrize("a,ba,b,bb,centre,edge", [
    ((0, 0), 1.0, (1, 0), 1.0, 1.0, 0.0),            # touching reads 0
    ((0, 0), 1.0, (0.5, 0), 1.0, 0.5, 0.0),          # overlapping reads 0
    ((0, 0), 1.0, (3, 4), 1.0, 5.0, 4.0),
    ((0, 0), 2.0, (3, 4), 0.5, 5.0, 3.75),
    ((0.1, 0.2), 1.0, (1.1, 0.2), 1.0, 1.0, 0.0),    # float noise around a touch still reads 0
])
def test_centre_and_edge(a, ba, b, bb, centre, edge):
    assert centre_distance(a, b) == pytest.approx(centre)
    assert edge_distance(a, ba, b, bb) == pytest.approx(edge, abs=1e-12)


def test_matrices_are_symmetric_with_zero_diagonal():
    s = scene_of(Figure("a", 0, 0), Figure("b", 3, 4, base_in=2.0), Figure("c", 10, 1))
    centre, edge = distance_matrices(s)
    assert np.allclose(centre, centre.T) and np.allclose(edge, edge.T)
    assert np.all(np.diag(centre) == 0)
    assert edge[0, 1] == pytest.approx(5 - 1.5)


def test_figure_distance_by_id():
    s = scene_of(Figure("a", 0, 0), Figure("b", 0, 2))
    assert figure_distance(s, "a", "b") == (2.0, 1.0)


def test_empty_scene():
    centre, edge = distance_matrices(scene_of())
    assert centre.shape == (0, 0) and edge.shape == (0, 0)


def test_far_diagonal():
    assert centre_distance((0, 0), (30, 40)) == 50.0
    assert math.isclose(float(edge_distance((0, 0), 1, (30, 40), 1)), 49.0)
