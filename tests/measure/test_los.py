"""Line of sight edge cases beyond the golden scenes: policies, soft terrain stretches, hills."""
import pytest
from shapely.geometry import Polygon, box

from measure import (Figure, MeasureSettings, Scene, SceneError, SightError, SightPolicy, Table, Terrain,
                     line_of_sight)


def scene(figures, terrain=()):
    return Scene(table=Table(48, 36), figures=tuple(figures), terrain=tuple(terrain))


SHOOTER, TARGET = Figure("s", 2, 5, side="blue"), Figure("t", 10, 5, side="red")


def los(terrain=(), extra=(), width="edge", policy=SightPolicy(), a="s", b="t"):
    return line_of_sight(scene([SHOOTER, TARGET, *extra], terrain), a, b, width, policy)


def test_open_table_is_clear_with_distances():
    r = los()
    assert r.clear and r.blocked_by == ()
    assert (r.width_in, r.distance_in, r.edge_distance_in) == (0.125, 8.0, 7.0)


def test_own_bases_never_block_even_when_huge():
    big = [Figure("s", 2, 5, base_in=4.0), Figure("t", 10, 5, base_in=4.0)]
    assert line_of_sight(scene(big), "s", "t", "ruler").clear


def test_figures_block_unless_the_policy_says_not():
    blocker = Figure("b", 6, 5, side="red")
    assert los(extra=[blocker]).blocked_by == ("b",)
    assert los(extra=[blocker], policy=SightPolicy(figures_block=False)).clear


def test_width_in_inches_and_settings():
    blocker = Figure("b", 6, 5.9)
    assert los(extra=[blocker], width=0.79).clear                 # 0.9 - 0.395 > 0.5
    assert not los(extra=[blocker], width=0.81).clear
    wide = line_of_sight(scene([SHOOTER, TARGET, blocker]), "s", "t", "ruler", SightPolicy(),
                         MeasureSettings(ruler_width_in=0.5))
    assert wide.clear and wide.width_in == 0.5


@pytest.mark.parametrize("width", ["wide", -1.0, 0.0, float("inf")])
def test_bad_width(width):
    with pytest.raises(SightError, match="width"):
        los(width=width)


def test_unknown_and_same_ids():
    with pytest.raises(SceneError, match="'zz'"):
        los(b="zz")
    with pytest.raises(SceneError, match="itself"):
        los(b="s")


@pytest.mark.parametrize("polygon,clear", [
    (box(5, 5.0625, 6, 6), False),              # touches the edge of the ruler in the middle
    (box(5, 5.0630, 6, 6), True),               # 0.0005 in off
    (box(9.5, 5.0, 10.5, 6), True),             # covers only the last half inch before the target
    (box(9.4, 5.0, 10.5, 6), False),            # covers more than the last half inch
    (box(2.2, 4, 2.5, 6), True),                # a thin strip crossed within half an inch of the shooter
    (box(2.2, 4, 2.5000001, 6), True),          # float noise at the half inch
    (box(2.2, 4, 2.51, 6), False),
    (box(4, 4, 8, 6), False),                   # crossing through
])
def test_soft_terrain_stretches(polygon, clear):
    r = los([Terrain("w", "woods", polygon)])
    assert r.clear is clear
    assert r.blocked_by == (() if clear else ("w",))


def test_soft_depth_comes_from_the_policy():
    woods = [Terrain("w", "woods", box(9.2, 0, 12, 10))]   # target 0.8 in inside
    assert not los(woods).clear
    assert los(woods, policy=SightPolicy(soft_depth_in=1.0)).clear


def test_kinds_follow_the_policy():
    piece = [Terrain("p", "marsh", box(5, 0, 6, 10))]
    assert los(piece).blocked_by == ("p",)          # unknown kinds block
    assert los(piece, policy=SightPolicy(clear_kinds=("marsh",))).clear
    water_as_wall = SightPolicy(clear_kinds=(), blocking_kinds=("water",))
    assert not los([Terrain("p", "water", box(5, 0, 6, 10))], policy=water_as_wall).clear


HILL = box(5, 0, 9, 10)
CREST = box(6.5, 0, 7.5, 10)


@pytest.mark.parametrize("shooter_xy,target_xy,crest,clear", [
    ((2, 5), (12, 5), None, False),              # beyond a hill
    ((2, 5), (8, 5), None, True),                # on a hill without crest
    ((2, 5), (8, 5), CREST, False),              # back slope
    ((2, 5), (7, 5), CREST, True),               # on the crest
    ((2, 5), (6, 5), CREST, True),               # front slope
    ((6, 5), (12, 5), CREST, False),             # shooter on the far slope, looking over the crest
    ((7, 5), (12, 5), CREST, True),              # shooter on the crest looks down the other side
    ((8, 5), (12, 5), None, True),               # shooter on a hill without crest, shooting off it
    ((2, 5), (4.5, 5), CREST, True),             # in front of the hill: it is behind the target
])
def test_hills(shooter_xy, target_xy, crest, clear):
    figs = [Figure("s", *shooter_xy), Figure("t", *target_xy)]
    r = line_of_sight(scene(figs, [Terrain("h", "hill", HILL, crest=crest)]), "s", "t")
    assert r.clear is clear
    assert r.blocked_by == (() if clear else ("h",))


def test_blockers_are_listed_figures_first_then_terrain_in_scene_order():
    terrain = [Terrain("z", "wall", box(7, 0, 7.2, 10)), Terrain("a", "building", box(4, 4, 4.5, 6))]
    extra = [Figure("m9", 5, 5), Figure("m1", 6, 5.2)]
    assert los(terrain, extra).blocked_by == ("m9", "m1", "z", "a")


def test_non_convex_piece_is_judged_one_stretch_at_a_time():
    # "Missiles will go into (and out of) trees and rocks, but only a half inch": a U-shaped wood whose
    # two arms cross the ruler within half an inch of each end is two short stretches, each allowed,
    # as the same trees cut as two felt pieces are.
    u = Polygon([(2.2, 3), (9.8, 3), (9.8, 7), (9.5, 7), (9.5, 4), (2.5, 4), (2.5, 7), (2.2, 7)])
    arms = [Terrain("a1", "woods", box(2.2, 3, 2.5, 7)), Terrain("a2", "woods", box(9.5, 3, 9.8, 7))]
    assert los(arms).clear
    assert los([Terrain("u", "woods", u)]).clear
    # an arm reaching 0.6 in past the shooter's centre is a stretch longer than the half inch
    deep = Polygon([(2.2, 3), (9.8, 3), (9.8, 7), (9.5, 7), (9.5, 4), (2.6, 4), (2.6, 7), (2.2, 7)])
    assert los([Terrain("u", "woods", deep)]).blocked_by == ("u",)
    # and the base of the U across the ruler blocks whatever the arms do
    across = Polygon([(2.2, 3), (9.8, 3), (9.8, 7), (9.5, 7), (9.5, 5.5), (2.5, 5.5), (2.5, 7), (2.2, 7)])
    assert los([Terrain("u", "woods", across)]).blocked_by == ("u",)


def test_a_wood_grazed_near_the_target_never_blocks_the_edge_more_than_the_full_ruler():
    # The edge only clips the wood's tip 0.4 in before the target; the full ruler's overlap runs on to
    # the target's centre. Read literally ("ends at the target's centre"), the edge would be blocked
    # while the full width is clear; the half-inch window keeps both clear.
    s = scene([Figure("s", 0, 0), Figure("t", 10, 0)],
              [Terrain("w", "woods", Polygon([(9.6, 0.05), (10.2, 0.65), (9.6, 2)]))])
    assert line_of_sight(s, "s", "t", "ruler").clear
    assert line_of_sight(s, "s", "t", "edge").clear
    # the same tip 0.6 in before the target is outside the half inch: both blocked
    s2 = scene([Figure("s", 0, 0), Figure("t", 10, 0)],
               [Terrain("w", "woods", Polygon([(9.4, 0.05), (10.0, 0.65), (9.4, 2)]))])
    assert not line_of_sight(s2, "s", "t", "ruler").clear
    assert not line_of_sight(s2, "s", "t", "edge").clear
