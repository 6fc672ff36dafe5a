"""Issue 10's acceptance figures on a small slice of the hard set (vision.synthetic.hard), with the
same thresholds as benchmarks/accuracy_vision.py runs on 60 photos and more:

- figure markers: recall >= 99.5%, no false id, p95 error <= 0.05 in;
- grids (square, flat hex, none): all found, and none found on a plain table;
- colour-rimmed figures: recall >= 98%, no phantom, p95 error <= 0.08 in;
- terrain felt: mean IoU per kind >= 0.9, and no piece where there is none (also with two of the
  kinds the profile lists left off each table);
- figures under a hand: reported hidden, never removed.

Each photo is analysed as `tablesight analyze` does, with its own table profile. The same photos
with figure shadows (not the issue's set: benchmarks/accuracy_vision.py --shadows) keep the goals
the plain ones meet: markers, grids and felt. (Their colour rims: 69/84, 4 phantoms, p95 0.093 in.)
"""
from __future__ import annotations

import numpy as np
import pytest

from vision.hands import carry_hidden
from vision.pipeline import FramePipeline
from vision.synthetic.hard import FACTORS, REPORTED, hard_photo, hard_photo_set
from vision.synthetic.layout import FELT

from tests.vision.hard_scoring import GOALS, KINDS, hidden_reported, score_photo


def goal_not_met(measured: str):
    """Issue 10's goal, kept at its number, that the detectors do not reach yet: the test still runs
    and is reported, and it fails the suite the day it passes (strict), so the mark cannot outlive it."""
    return pytest.mark.xfail(strict=True, reason=f"issue 10 goal not met yet: {measured}")

SEED, N_PHOTOS = 2026, 8


def _analysed(shadows: bool) -> list:
    out = []
    for photo in hard_photo_set(SEED, N_PHOTOS, resolutions=("1080p",), shadows=shadows):
        scene = FramePipeline(photo.profile).process(photo.image).scene
        out.append((photo, scene, score_photo(photo, scene)))
    return out


@pytest.fixture(scope="session")
def hard_set():
    """[(photo, scene, score)]: eight 1080p hard photos, each condition's every level at least once."""
    return _analysed(shadows=False)


@pytest.fixture(scope="session")
def shadowed_set():
    """The same eight photos with each colour figure casting its shadow (hard_photo's shadows)."""
    return _analysed(shadows=True)


# The goals the plain photos meet, kept with figure shadows too: a figure's shadow is dark beside its
# base, as a marker's ink and a grid's lines are, and lies on the felt; it must not hide a marker,
# break a grid or make felt of itself.
plain_and_shadowed = pytest.mark.parametrize("photos", ["hard_set", "shadowed_set"])


def _misses(hard_set, word):
    return [f"photo {s.index}: {m}" for _p, _s, s in hard_set for m in s.misses if word in m]


def test_the_slice_covers_every_condition(hard_set):
    seen = {(f, v) for _p, _s, s in hard_set for f, v in s.groups.items()}
    for factor in REPORTED:
        levels = FACTORS.get(factor, ("1080p",))        # the slice is all 1080p
        assert {(factor, v) for v in levels} <= seen, factor


@plain_and_shadowed
def test_figure_markers(photos, request):
    hard_set = request.getfixturevalue(photos)
    scores = [s for _p, _s, s in hard_set]
    total = sum(s.marker_total for s in scores)
    found = sum(s.marker_found for s in scores)
    errors = [e for s in scores for e in s.marker_errors_in]
    assert total >= 40
    assert found / total >= GOALS["marker_recall"], _misses(hard_set, "marker")
    assert [f for s in scores for f in s.marker_false] == []
    assert np.percentile(errors, 95) <= GOALS["marker_p95_in"]


@plain_and_shadowed
def test_grids_all_found_and_none_invented(photos, request):
    hard_set = request.getfixturevalue(photos)
    assert [s.grid_note for _p, _s, s in hard_set if not s.grid_ok] == []


@goal_not_met("70/84 rims found on this slice, 4 phantoms, p95 0.077 in (goal >= 98%, 0 phantoms, p95 <= 0.08 in)")
def test_colour_rimmed_figures(hard_set):
    scores = [s for _p, _s, s in hard_set]
    total = sum(s.colour_total for s in scores)
    found = sum(s.colour_found for s in scores)
    assert total >= 70
    assert found / total >= GOALS["colour_recall"], _misses(hard_set, "colour")
    assert _misses(hard_set, "phantom") == []
    assert np.percentile([e for s in scores for e in s.colour_errors_in], 95) <= GOALS["colour_p95_in"]


def test_bases_of_the_default_size_are_looked_for_at_it_once(hard_set):
    """The slice's bases are the house default's 1" and its profiles give no size: no photo reads
    another (vision.base_size), and so none is searched twice."""
    read = {(v["base"], v["from"]) for _p, scene, _s in hard_set for v in scene.extra["colour_bases"].values()}
    assert read == {(1.0, "house default")}
    assert {f.base_in for _p, scene, _s in hard_set for f in scene.figures if f.detected_by == "colour"} == {1.0}


@plain_and_shadowed
@pytest.mark.parametrize("kind", KINDS)
def test_terrain_mean_iou_per_kind(photos, request, kind):
    hard_set = request.getfixturevalue(photos)
    ious = [v for _p, _s, s in hard_set for v in s.terrain_iou.get(kind, [])]
    assert len(ious) == N_PHOTOS
    assert np.mean(ious) >= GOALS["terrain_iou"], _misses(hard_set, f"({kind})")


@plain_and_shadowed
def test_no_terrain_where_there_is_none(photos, request):
    assert [k for _p, _s, s in request.getfixturevalue(photos) for k in s.terrain_extra] == []


def test_no_terrain_where_there_is_none_with_two_listed_kinds_off_the_table():
    """The same eight photos with two of the four felt kinds their profile lists left off the table
    (a family's profile lists every kind it owns; benchmarks/accuracy_vision.py --absent-kinds):
    no piece of a kind that is not there. (With its felt there, a kind's seed is its felt; without
    it, the mat's mottle or a shadow may stand out most for it: photo 6's hill was such a piece.)"""
    kinds, extra = list(FELT), []
    for k in range(N_PHOTOS):
        gone = (kinds[k % 4], kinds[(k + 1) % 4])
        photo = hard_photo(SEED, k, resolutions=("1080p",), absent_kinds=gone)
        score = score_photo(photo, FramePipeline(photo.profile).process(photo.image).scene)
        assert score.terrain_iou and not set(score.terrain_iou) & set(gone)
        extra += [f"photo {k}: {kind}" for kind in score.terrain_extra]
    assert extra == []


def test_figures_under_a_hand_stay_hidden_at_their_last_place(hard_set):
    """The previous picture (the same table a moment before, no hand) goes first, as on the tablet:
    through the camera's tracked stream, and as a photo after a photo (each analysed on its own,
    the hidden carried over)."""
    total, problems = 0, []
    for photo, scene, _score in hard_set:
        if photo.hand is None:
            continue
        pipeline = FramePipeline(photo.profile, track=True)
        pipeline.process(photo.before())
        n, ok, bad = hidden_reported(pipeline.process(photo.image).scene, photo.truth)
        carried = carry_hidden(FramePipeline(photo.profile).process(photo.before()).scene, scene)
        n2, ok2, bad2 = hidden_reported(carried, photo.truth)
        assert n2 == n
        total += n
        problems += [f"photo {photo.index}: {b} (tracked)" for b in bad]
        problems += [f"photo {photo.index}: {b} (a photo after a photo)" for b in bad2]
    assert total >= 3
    assert problems == []


def test_markers_under_a_hand_are_hidden_in_a_still_photo(hard_set):
    """The roster says which markers are on the table: one under a hand is hidden, not removed."""
    total, problems = 0, []
    for photo, scene, _score in hard_set:
        n, ok, bad = hidden_reported(scene, photo.truth, markers_only=True)
        total += n
        problems += [f"photo {photo.index}: {b}" for b in bad]
    assert total >= 1
    assert problems == []
