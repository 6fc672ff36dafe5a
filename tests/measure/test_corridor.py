import numpy as np
import pytest
import shapely

from measure import corridor, corridors


def test_corridor_is_a_rectangle_with_flat_ends_at_the_centres():
    c = corridor((1, 2), (11, 2), 0.125)
    assert c.area == pytest.approx(10 * 0.125)
    assert c.bounds == pytest.approx((1, 2 - 0.0625, 11, 2 + 0.0625))


def test_diagonal_corridor_width_and_length():
    c = corridor((0, 0), (3, 4), 1.25)
    assert c.area == pytest.approx(5 * 1.25)
    # the flat end: the corridor does not reach past the target's centre along the axis
    assert not c.intersects(shapely.Point(3 + 0.6 * 0.01, 4 + 0.8 * 0.01))
    assert c.intersects(shapely.Point(3, 4))


def test_vectorised_corridors_match_one_by_one():
    a = np.array([[0, 0], [5, 5], [1, 9]])
    b = np.array([[4, 1], [2, 8], [9, 9]])
    w = np.array([0.125, 1.25, 0.5])
    many = corridors(a, b, w)
    for i in range(3):
        assert shapely.equals(many[i], corridor(a[i], b[i], w[i]))


def test_coincident_centres_give_a_point():
    assert corridors([(2, 2)], [(2, 2)], 1.0)[0].geom_type == "Point"


@pytest.mark.parametrize("width", [0, -1, float("nan")])
def test_bad_width(width):
    with pytest.raises(ValueError, match="width"):
        corridor((0, 0), (1, 0), width)
