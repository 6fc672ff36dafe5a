"""Issue 12 row 4: ranking in chunks of shooters, and long rulers queried in pieces, give the same
answers as one pass over every pair (memory is checked by benchmarks/bench_targets_memory.py)."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

import measure.los
from measure.sight import TargetPolicy
from measure.targets import closest_targets

sys.path.insert(0, str(Path(__file__).parents[2] / "benchmarks"))
from bench_targets import make_scene  # noqa: E402


def answers(results):
    return [(r.shooter, r.target, r.ties, r.engaged, tuple(r.enemies)) for r in results]


@pytest.mark.parametrize("seed", [3, 7])
@pytest.mark.parametrize("policy", [TargetPolicy(), TargetPolicy(engaged_targets="risk", engaged_shooters=True)])
def test_chunks_give_the_same_answers(seed, policy):
    scene, specs = make_scene(seed, per_side=20, pieces=20, corners=7)
    whole = answers(closest_targets(scene, specs, policy, chunk_pairs=10 ** 9))
    assert answers(closest_targets(scene, specs, policy, chunk_pairs=1)) == whole     # one shooter a chunk
    assert answers(closest_targets(scene, specs, policy, chunk_pairs=57)) == whole
    assert any(e.reason == "blocked" for r in whole for e in r[4])                      # not a trivial table


def test_rulers_queried_in_pieces_find_the_same_blockers(monkeypatch):
    scene, specs = make_scene(5, per_side=20, pieces=20, corners=7)
    plain = answers(closest_targets(scene, specs))
    monkeypatch.setattr(measure.los, "SPLIT_QUERY_ITEMS", 0)
    monkeypatch.setattr(measure.los, "PIECE_IN", 0.7)
    assert answers(closest_targets(scene, specs)) == plain


@pytest.mark.parametrize("grid", [None, "square", "hex"])
def test_contacts_from_the_tree_match_all_pairs(monkeypatch, grid):
    import measure.engage as engage
    from dataclasses import replace
    from measure.scene import Grid

    scene, _ = make_scene(11, per_side=40, pieces=0)
    figures = [replace(f, x=f.x * 0.35, y=f.y * 0.35) for f in scene.figures]     # crowded: many contacts
    scene = replace(scene.with_figures(figures), grid=Grid(grid, 1.0) if grid else None)
    dense = engage.contact_pairs(scene, 0.1)
    monkeypatch.setattr(engage, "DENSE_CONTACTS", 0)
    tree = engage.contact_pairs(scene, 0.1)
    assert len(dense[0]) > 10
    assert (dense[0].tolist(), dense[1].tolist()) == (tree[0].tolist(), tree[1].tolist())
