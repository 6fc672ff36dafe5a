"""Colour bases of another size than the house default's 1" (vision.base_size through
vision.pipeline), on hard photos whose bases are 32 mm (1.26") across: the size is read from the
photo when the profile gives none, and the profile's size is used as it stands when it does.

Truth: the photos' own figures (vision.synthetic.hard, `base_in`), scored as the hard set is."""
from __future__ import annotations

from dataclasses import replace

import pytest

from vision.pipeline import FramePipeline
from vision.synthetic.hard import hard_photo

from tests.vision.hard_scoring import score_photo

SEED, PHOTOS, BASE_IN = 2026, (0, 1), 1.26


def _with_bases(profile, bases):
    return replace(profile, sides=tuple(replace(s, base_in=bases.get(s.name)) for s in profile.sides))


@pytest.fixture(scope="module")
def photos():
    return [hard_photo(SEED, k, resolutions=("1080p",), base_in=BASE_IN) for k in PHOTOS]


def _run(photos, bases):
    out = []
    for photo in photos:
        scene = FramePipeline(_with_bases(photo.profile, bases)).process(photo.image).scene
        out.append((scene, score_photo(photo, scene)))
    return out


def _found(runs):
    return sum(s.colour_found for _c, s in runs), sum(s.colour_total for _c, s in runs)


def test_a_size_the_profile_does_not_give_is_read_from_the_photo(photos):
    runs = _run(photos, {})
    for scene, _score in runs:
        assert scene.extra["colour_bases"] == {"red": {"base": BASE_IN, "from": "photo"},
                                               "blue": {"base": BASE_IN, "from": "photo"}}
        assert {f.base_in for f in scene.figures if f.detected_by == "colour"} == {BASE_IN}
    found, total = _found(runs)
    told, _ = _found(_run(photos, {"red": BASE_IN, "blue": BASE_IN}))
    assert total >= 18 and found >= told - 1         # as many as when told, but for one


def test_the_profiles_size_is_used_as_it_stands(photos):
    """A side with a size in the profile is looked for at it, and reported so; a side without is read."""
    scene, _ = _run(photos[:1], {"red": BASE_IN})[0]
    assert scene.extra["colour_bases"]["red"] == {"base": BASE_IN, "from": "profile"}
    assert scene.extra["colour_bases"]["blue"] == {"base": BASE_IN, "from": "photo"}
    # told the wrong size, it is not second-guessed: the player's word stands, and shows in the Scene
    scene, score = _run(photos[:1], {"red": 1.0, "blue": 1.0})[0]
    assert {v["from"] for v in scene.extra["colour_bases"].values()} == {"profile"}
    assert {f.base_in for f in scene.figures if f.detected_by == "colour"} == {1.0}



def test_a_stream_reads_the_size_once_a_registration_and_keeps_it(photos):
    """The live camera: the first frame reads the size; the tracked frames after it look for the
    bases at that size without reading it again."""
    pipeline = FramePipeline(photos[0].profile, track=True)
    first = pipeline.process(photos[0].image)
    reads = []
    real = pipeline._colour_sized
    pipeline._colour_sized = lambda *a, **k: reads.append(1) or real(*a, **k)
    later = pipeline.process(photos[0].image)
    assert "registered" in first.events and "registered" not in later.events and reads == []
    for result in (first, later):
        assert {v["base"] for v in result.scene.extra["colour_bases"].values()} == {BASE_IN}
        assert {f.base_in for f in result.scene.figures if f.detected_by == "colour"} == {BASE_IN}
