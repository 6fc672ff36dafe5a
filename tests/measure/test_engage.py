import numpy as np
import pytest

from measure import Figure, Grid, Scene, Table, contact_matrix, engaged_group_mask, engaged_ids, engaged_pairs, groups
from measure.engage import group_labels


def scene(figures, grid=None):
    return Scene(table=Table(48, 36), figures=tuple(figures), grid=grid)


@pytest.mark.parametrize("gap,gap_in,engaged", [(0.0, 0.1, True), (0.1, 0.1, True), (0.1001, 0.1, False),
                                               (0.3, 0.5, True), (0.0, 0.0, True), (0.01, 0.0, False)])
def test_gap_tolerance(gap, gap_in, engaged):
    s = scene([Figure("a", 0, 0, side="r"), Figure("b", 1 + gap, 0, side="b")])
    assert bool(engaged_pairs(s, gap_in)) is engaged


def test_friends_touch_but_are_not_engaged_and_unknown_sides_never_are():
    s = scene([Figure("a", 0, 0, side="r"), Figure("b", 1, 0, side="r"), Figure("c", 2, 0)])
    assert engaged_pairs(s) == ()
    assert groups(s) == (("a", "b", "c"),)
    assert not engaged_group_mask(s).any()


def test_grid_adjacency_includes_corners_and_given_cells():
    g = Grid("square", 1.0)
    s = scene([Figure("a", 0.5, 0.5, side="r", base_in=0.5), Figure("b", 1.5, 1.5, side="b", base_in=0.5),
               Figure("c", 5.5, 5.5, side="b", base_in=0.5, cell=(1, 0))], grid=g)
    # c stands at (5.5, 5.5) but the roster puts it in cell (1, 0), next to a
    assert engaged_pairs(s) == (("a", "b"), ("a", "c"))
    assert engaged_pairs(scene(s.figures)) == ()                  # no grid: bases far apart


def test_groups_are_chains_of_contacts():
    figs = [Figure(f"f{i}", 1.0 * i, 0, side="r") for i in range(6)] + [Figure("x", 20, 20, side="b")]
    s = scene(figs)
    assert groups(s) == (tuple(f"f{i}" for i in range(6)), ("x",))


def test_group_labels_on_a_long_snake_converge():
    n = 200
    contact = np.zeros((n, n), bool)
    order = np.random.default_rng(3).permutation(n)
    contact[order[:-1], order[1:]] = contact[order[1:], order[:-1]] = True
    assert set(group_labels(contact).tolist()) == {0}


def test_engaged_group_and_engaged_ids():
    s = scene([Figure("f", 0, 0, side="b"), Figure("e", 1, 0, side="r"), Figure("e2", 2, 0, side="r"),
               Figure("lone", 9, 9, side="r")])
    assert engaged_ids(s) == {"f", "e"}
    assert engaged_group_mask(s).tolist() == [True, True, True, False]
    assert not contact_matrix(s).diagonal().any()


def test_empty_scene():
    assert groups(scene([])) == () and engaged_pairs(scene([])) == ()
