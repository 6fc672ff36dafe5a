import pytest
from shapely.geometry import box

from measure import (Figure, MeasureSettings, Scene, SceneError, ShooterSpec, SightPolicy, Table, Terrain,
                     closest_targets)
from measure.defaults import fallback_shooter_spec, fallback_specs


def scene(figures, terrain=()):
    return Scene(table=Table(48, 36), figures=tuple(figures), terrain=tuple(terrain))


EDGE = ShooterSpec("edge")


def test_range_makes_far_enemies_out_of_range():
    s = scene([Figure("a", 0, 0, side="b"), Figure("n", 5, 0, side="r"), Figure("f", 0, 9, side="r")])
    (r,) = closest_targets(s, {"a": ShooterSpec("edge", range_in=6.0)})
    assert r.target == "n" and r.range_in == 6.0
    assert [(e.id, e.reason) for e in r.others] == [("f", "out_of_range")]
    (r,) = closest_targets(s, {"a": ShooterSpec("edge", range_in=4.0)})
    assert r.target is None and {e.reason for e in r.others} == {"out_of_range"}


def test_range_is_checked_before_blocking():
    s = scene([Figure("a", 0, 0, side="b"), Figure("n", 10, 0, side="r")],
              [Terrain("w", "wall", box(4, -1, 5, 1))])
    (r,) = closest_targets(s, {"a": ShooterSpec("edge", range_in=6.0)})
    assert r.others[0].reason == "out_of_range" and r.others[0].blocked_by == ("w",)


def test_width_per_shooter_kind():
    # a friend 0.9 in off the line: the archer's edge passes, the wizard's full ruler does not
    s = scene([Figure("arch", 0, 0, side="b", type="archer"), Figure("f1", 4, 0.9, side="b"), Figure("e1", 8, 0, side="r"),
               Figure("wiz", 0, 20, side="b", type="wizard"), Figure("f2", 4, 20.9, side="b"), Figure("e2", 8, 20, side="r")])
    specs = fallback_specs(s)
    assert set(specs) == {"arch", "wiz"}
    by = {r.shooter: r for r in closest_targets(s, specs)}
    assert by["arch"].target == "e1" and by["arch"].width_in == 0.125
    assert by["arch"].enemy("e2").reason == "farther"
    assert by["wiz"].target == "e1" and by["wiz"].width_in == 1.25
    assert by["wiz"].enemy("e2").reason == "blocked" and by["wiz"].enemy("e2").blocked_by == ("f2",)


def test_tie_tolerance_comes_from_settings():
    s = scene([Figure("a", 0, 0, side="b"), Figure("n", 5, 0, side="r"), Figure("m", 0, 5.4, side="r")])
    (r,) = closest_targets(s, {"a": EDGE})
    assert r.ties == () and r.others[0].reason == "farther"
    (r,) = closest_targets(s, {"a": EDGE}, settings=MeasureSettings(tie_in=0.5))
    assert r.ties == ("m",) and r.others == ()


def test_engage_gap_comes_from_settings():
    s = scene([Figure("a", 0, 0, side="b"), Figure("n", 5, 0, side="r"), Figure("f", 6.3, 0, side="b"),
               Figure("far", 0, 8, side="r")])
    (r,) = closest_targets(s, {"a": EDGE})
    assert r.target == "n"
    (r,) = closest_targets(s, {"a": EDGE}, settings=MeasureSettings(engage_gap_in=0.5))
    assert r.target == "far" and r.enemy("n").reason == "engaged"


def test_no_enemies_and_no_sides():
    s = scene([Figure("a", 0, 0, side="b"), Figure("b", 5, 0, side="b"), Figure("x", 3, 3)])
    (r,) = closest_targets(s, {"a": EDGE})
    assert r.target is None and r.enemies == ()


def test_unknown_shooter_id():
    with pytest.raises(SceneError, match="'ghost'"):
        closest_targets(scene([Figure("a", 0, 0)]), {"ghost": EDGE})


def test_policy_is_applied():
    s = scene([Figure("a", 0, 0, side="b"), Figure("n", 5, 0, side="r"), Figure("f", 2.5, 0, side="b"),
               Figure("far", 0, 8, side="r")])
    assert closest_targets(s, {"a": EDGE})[0].target == "far"
    assert closest_targets(s, {"a": EDGE}, SightPolicy(figures_block=False))[0].target == "n"


def test_results_in_scene_order_and_every_enemy_once():
    figs = [Figure(f"r{i}", i * 3.0, 0, side="r", type="archer") for i in range(4)]
    figs += [Figure(f"b{i}", i * 3.0, 10, side="b", type="horse archer") for i in range(4)]
    results = closest_targets(scene(figs), fallback_specs(scene(figs)))
    assert [r.shooter for r in results] == [f.id for f in figs]
    for r in results:
        assert len(r.enemies) == 4 and r.target is not None
        assert sorted(e.distance_in for e in r.enemies) == [e.distance_in for e in r.enemies]


@pytest.mark.parametrize("type_,width", [("archer", "edge"), ("Horse_Archer", "edge"), ("horse-archer", "edge"),
                                        ("wizard", "ruler"), ("ARTILLERY", "ruler"), ("troop", None), (None, None)])
def test_fallback_shooters(type_, width):
    spec = fallback_shooter_spec(Figure("x", 0, 0, type=type_))
    assert (spec.width if spec else None) == width
    assert spec is None or spec.range_in is None
