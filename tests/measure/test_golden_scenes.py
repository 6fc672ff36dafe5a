"""Every golden scene's expected verdict, computed by measure with KIMMIRIA's policy."""
from __future__ import annotations

import pytest

from measure import closest_targets, engaged_pairs, groups, line_of_sight, scene_from_json
from measure.defaults import fallback_specs

from tests.measure.golden import case_id, cases, load_golden, scene_paths

LOS = cases("los")
TARGETS = cases("targets")


def test_golden_scenes_exist_and_have_expectations():
    paths = scene_paths()
    assert len(paths) >= 10
    for path in paths:
        doc = load_golden(path)
        assert doc["expected"], path.name
        assert set(doc["expected"]) <= {"los", "targets", "engaged", "groups"}, path.name


@pytest.mark.parametrize("case", LOS, ids=[case_id(c) for c in LOS])
def test_golden_line_of_sight(case):
    _, doc, item = case
    scene = scene_from_json(doc)
    result = line_of_sight(scene, item["a"], item["b"], item["width"])
    assert (result.clear, list(result.blocked_by)) == (item["clear"], item["blocked_by"])


@pytest.mark.parametrize("case", TARGETS, ids=[case_id(c) for c in TARGETS])
def test_golden_targets(case):
    _, doc, item = case
    scene = scene_from_json(doc)
    results = {r.shooter: r for r in closest_targets(scene, fallback_specs(scene))}
    got = results[item["shooter"]]
    assert got.target == item["target"]
    assert list(got.ties) == item["ties"]
    assert [{"id": e.id, "reason": e.reason, "blocked_by": list(e.blocked_by)} for e in got.others] == item["others"]


ENGAGED = [(p.stem, load_golden(p)) for p in scene_paths() if "engaged" in load_golden(p)["expected"]]
GROUPS = [(p.stem, load_golden(p)) for p in scene_paths() if "groups" in load_golden(p)["expected"]]


@pytest.mark.parametrize("name,doc", ENGAGED, ids=[n for n, _ in ENGAGED])
def test_golden_engaged_pairs(name, doc):
    scene = scene_from_json(doc)
    assert [list(p) for p in engaged_pairs(scene)] == doc["expected"]["engaged"]


@pytest.mark.parametrize("name,doc", GROUPS, ids=[n for n, _ in GROUPS])
def test_golden_groups(name, doc):
    scene = scene_from_json(doc)
    assert [list(g) for g in groups(scene)] == doc["expected"]["groups"]
