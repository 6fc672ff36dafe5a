"""Steady across frames: stable ids, no flicker from jitter, hidden figures stay put, moved figures
keep their ids, new ones are found, and a bumped camera is noticed and re-registered."""
from __future__ import annotations

import dataclasses

import cv2
import numpy as np
import pytest

from vision.detections import Detections
from vision.pipeline import WINDOW_IN, FramePipeline, to_gray
from vision.settings import VISION_DEFAULTS
from vision.synthetic import ColourFigure, MarkerFigure, PhotoSpec, TableSpec, profile_for, render_photo
from vision.tracking import Tracker
from calibration.profile import standard_anchors

RED, BLUE = (200, 40, 40), (40, 80, 200)


def _colour(xy, sides=None):
    xy = np.asarray(xy, float).reshape(-1, 2)
    sides = sides or ["red"] * len(xy)
    return Detections.from_colour([f"x{k}" for k in range(len(xy))], xy, sides, [0.9] * len(xy))


def test_ids_are_kept_and_jitter_does_not_move_figures():
    tracker = Tracker(jitter_in=0.03)
    first = tracker.update(_colour([[5, 5], [10, 5], [5, 12]]))
    ids = dict(zip(first.figure_id, map(tuple, first.xy_in)))
    rng = np.random.default_rng(0)
    for _ in range(20):
        wobble = np.array([[5, 5], [10, 5], [5, 12]]) + rng.uniform(-0.02, 0.02, (3, 2))
        out = tracker.update(_colour(wobble[::-1]))            # order of detection does not matter
        assert dict(zip(out.figure_id, map(tuple, out.xy_in))) == ids
    out = tracker.update(_colour([[5.06, 5], [10, 5], [5, 12]]))
    moved = dict(zip(out.figure_id, map(tuple, out.xy_in)))
    assert sum(moved[k] != ids[k] for k in ids) == 1               # a real move is reported at once


def test_hidden_figures_keep_their_place_then_expire():
    tracker = Tracker(keep_frames=5)
    tracker.update(_colour([[5, 5], [10, 5]]))
    for _ in range(5):
        out = tracker.update(_colour([[10, 5]]))
        assert len(out) == 2 and out.hidden.sum() == 1
        assert tuple(out.xy_in[out.hidden][0]) == (5.0, 5.0)
    out = tracker.update(_colour([[10, 5]]))
    assert len(out) == 1 and not out.hidden.any()


def test_a_figure_put_down_elsewhere_keeps_its_id_and_sides_do_not_swap():
    tracker = Tracker()
    first = tracker.update(_colour([[5, 5], [6.2, 5]], ["red", "blue"]))
    red_id = first.figure_id[list(first.side).index("red")]
    tracker.update(_colour([[6.2, 5]], ["blue"]))                         # red picked up
    out = tracker.update(_colour([[12, 9], [5.1, 5]], ["red", "blue"]))   # put down 8 in away
    sides = dict(zip(out.figure_id, out.side))
    assert sides[red_id] == "red" and tuple(out.xy_in[list(out.figure_id).index(red_id)]) == (12, 9)
    assert len(out) == 2 and not out.hidden.any()


def _hand_over(x0, y0, x1, y1):
    return lambda xy: (xy[:, 0] >= x0) & (xy[:, 0] <= x1) & (xy[:, 1] >= y0) & (xy[:, 1] <= y1)


def test_a_figure_a_hand_has_just_covered_stays_hidden_at_its_place():
    """The frame a hand comes over a base, something of its side's colour shows at the hand's edge
    (another figure's body peeping out): the base is hidden where it was, not moved there."""
    tracker = Tracker()
    first = tracker.update(_colour([[22.2, 33.3], [23.3, 35.4]], ["blue", "red"]))
    blue_id = first.figure_id[list(first.side).index("blue")]
    hand = _hand_over(20, 31, 24, 35.5)
    out = tracker.update(_colour([[23.7, 35.7]], ["blue"]), hand)   # both covered; a blue look-alike 2.8 in off
    blue = out[np.array([f == blue_id for f in out.figure_id])]
    assert blue.hidden.tolist() == [True] and tuple(blue.xy_in[0]) == (22.2, 33.3)
    assert out.hidden.sum() == 2 and len(out) == 3
    # Hidden since the last frame, it is the figure when a base of its side is put down elsewhere.
    out = tracker.update(_colour([[30.0, 30.0]], ["blue"]), hand)
    assert tuple(out.xy_in[list(out.figure_id).index(blue_id)]) == (30.0, 30.0)


@pytest.mark.parametrize("pulled_in, hidden", [
    (0.02, False),      # noise: the base is seen where it stands, beside the hand
    (0.29, False),      # just short of the pull
    (0.30, True),       # the pull exactly: the arc at the hand's edge
    (0.58, True),       # seed 3 photo 56 of the hard set: a blue base's arc 0.58 in off
    (0.99, True),       # still within the gate
])
def test_an_arc_at_a_hands_edge_does_not_move_the_figure_under_it(pulled_in, hidden):
    """A hand over most of a base leaves an arc of its rim showing at its edge, and the ring fitted
    to that arc stands off the base: the figure is hidden at its last place, and the arc is no
    figure of its own. Less far off, the base is seen where it was found."""
    tracker = Tracker(edge_pull_in=0.3)
    first = tracker.update(_colour([[13.93, 6.19], [20.0, 6.0]], ["blue", "blue"]))
    fid = first.figure_id[int(np.argmin(first.xy_in[:, 0]))]
    hand = _hand_over(12.0, 3.0, 14.5, 7.0)         # over the first base's place, not the second's
    out = tracker.update(_colour([[13.93 + pulled_in * 0.6, 6.19 + pulled_in * 0.8], [20.0, 6.0]],
                                 ["blue", "blue"]), hand)
    k = list(out.figure_id).index(fid)
    assert len(out) == 2 and bool(out.hidden[k]) is hidden
    if hidden:
        assert tuple(out.xy_in[k]) == (13.93, 6.19)
    else:
        assert np.hypot(*(out.xy_in[k] - [13.93, 6.19])) == pytest.approx(pulled_in, abs=1e-9) \
            or pulled_in < VISION_DEFAULTS["jitter_in"]
    # The hand lifted: the base seen where it stands is the same figure, seen again.
    out = tracker.update(_colour([[13.95, 6.2], [20.0, 6.0]], ["blue", "blue"]))
    assert not out.hidden.any() and list(out.figure_id).count(fid) == 1 and len(out) == 2


def test_a_base_pulled_off_where_no_hand_is_has_moved():
    """The same move with no hand near is a figure moved: it keeps its id and is seen there."""
    tracker = Tracker(edge_pull_in=0.3)
    first = tracker.update(_colour([[13.93, 6.19]], ["blue"]))
    out = tracker.update(_colour([[14.28, 6.65]], ["blue"]), _hand_over(0, 0, 5, 5))
    assert list(out.figure_id) == list(first.figure_id) and not out.hidden.any()
    assert tuple(out.xy_in[0]) == (14.28, 6.65)


def test_a_figure_moved_from_where_no_hand_is_keeps_its_id():
    """The same frames with the hand elsewhere: the base that vanished was moved, and keeps its id."""
    tracker = Tracker()
    first = tracker.update(_colour([[22.2, 33.3], [23.3, 35.4]], ["blue", "red"]))
    blue_id = first.figure_id[list(first.side).index("blue")]
    out = tracker.update(_colour([[23.7, 35.7]], ["blue"]), _hand_over(0, 0, 5, 5))
    assert tuple(out.xy_in[list(out.figure_id).index(blue_id)]) == (23.7, 35.7) and out.hidden.sum() == 1


# ---------------------------------------------------------------- a stream through the pipeline

WIDTH, DEPTH = 36.0, 24.0
SPEC = PhotoSpec(image_size=(1280, 720), tilt_deg=22, azimuth_deg=70, roll_deg=8, noise_sigma=2.0)


def _table(colour, markers):
    return TableSpec(WIDTH, DEPTH, standard_anchors(WIDTH, DEPTH), colour_figures=tuple(colour),
                     marker_figures=tuple(markers))


BASES = [ColourFigure("c1", "red", RED, 8, 8), ColourFigure("c2", "blue", BLUE, 14, 15),
         ColourFigure("c3", "red", RED, 25, 9), ColourFigure("c4", "blue", BLUE, 28, 17)]
MARKERS = [MarkerFigure(11, 12, 5, 1.0, 10), MarkerFigure(12, 20, 18, 1.0, 40)]


def _noisy(image, seed):
    noise = np.random.default_rng(seed).normal(0, 2.0, image.shape)
    return np.clip(image + noise, 0, 255).astype(np.uint8)


def _by_place(scene):
    return {f.id: (round(f.x, 6), round(f.y, 6)) for f in scene.figures}


def _nearest(scene, x, y):
    return min(scene.figures, key=lambda f: np.hypot(f.x - x, f.y - y))


def _draw_hand(frame, camera, x, y, z=-1.5, axes=(70, 50), angle=0.0):
    """A flat skin-coloured ellipse (`axes` pixels, turned `angle` degrees) drawn into `frame` where
    the table point (x, y), `z` in above it (negative: up), shows: a hand over the table."""
    c = camera.project(np.array([[x, y, z]]))[0]
    cv2.ellipse(frame, (int(c[0]), int(c[1])), axes, angle, 0, 360, (140, 170, 205), -1)


@pytest.fixture(scope="module")
def stream():
    base = render_photo(_table(BASES, MARKERS), SPEC, rng=1)
    profile = profile_for(_table(BASES, MARKERS))
    return base, profile


def test_stream_steady_hidden_moved_new_and_bumped(stream):
    base, profile = stream
    pipeline = FramePipeline(profile, track=True)
    first = pipeline.process(base.image)
    assert "registered" in first.events and len(first.scene.figures) == 6
    places = _by_place(first.scene)

    # Sensor noise frame after frame: nothing flickers, nothing is registered again.
    for seed in range(4):
        result = pipeline.process(_noisy(base.image, seed))
        assert "registered" not in result.events
        assert _by_place(result.scene) == places

    # A hand over two bases and a marker: they stay where they were, marked hidden.
    hand = base.image.copy()
    covered = {_nearest(first.scene, 8, 8).id, _nearest(first.scene, 14, 15).id, "m11"}
    for x, y in ((8, 8), (14, 15), (12, 5)):
        _draw_hand(hand, base.camera, x, y, angle=30)
    for seed in range(3):
        result = pipeline.process(_noisy(hand, seed))
        hidden = {f.id for f in result.scene.figures if f.hidden}
        assert hidden == covered
        assert _by_place(result.scene) == places
    result = pipeline.process(base.image)
    assert not any(f.hidden for f in result.scene.figures) and _by_place(result.scene) == places

    # One base nudged 0.6 in, another carried 10 in away, and a new one put down.
    moved = [dataclasses.replace(BASES[0], x_in=8.6), BASES[1], dataclasses.replace(BASES[2], x_in=15, y_in=4),
             BASES[3], ColourFigure("c5", "blue", BLUE, 30, 5)]
    photo = render_photo(_table(moved, MARKERS), SPEC, rng=1)
    ids = {k: _nearest(first.scene, b.x_in, b.y_in).id for k, b in enumerate(BASES)}
    for _ in range(int(VISION_DEFAULTS["search_tiles"]) + 1):
        result = pipeline.process(photo.image)
    scene = result.scene
    assert not any(f.hidden for f in scene.figures) and len(scene.figures) == 7
    for k, b in enumerate(moved[:4]):
        fig = _nearest(scene, b.x_in, b.y_in)
        assert fig.id == ids[k] and np.hypot(fig.x - b.x_in, fig.y - b.y_in) <= 0.08
    new = _nearest(scene, 30, 5)
    assert new.id not in places and new.side == "blue"

    # The camera is bumped: noticed, registered again, and the figures are still where they are.
    bumped = render_photo(_table(moved, MARKERS), dataclasses.replace(SPEC, azimuth_deg=71.5, roll_deg=9), rng=1)
    result = pipeline.process(bumped.image)
    assert "bumped" in result.events and "registered" in result.events
    for fig in bumped.truth.figures:
        found = _nearest(result.scene, fig.x, fig.y)
        assert np.hypot(found.x - fig.x, found.y - fig.y) <= 0.08 and not found.hidden


def test_a_base_put_down_while_a_hand_moves_over_its_tile_is_found(stream):
    """A hand moving over a tile hides what is under it and is elsewhere next frame, so the tile's
    search waits for it to settle (up to search_defer_turns of its turns); a base put down in the
    same tile away from the hand is looked for at once, at the tile's next turn. Nothing the hand
    does not cover is reported hidden."""
    base, profile = stream
    pipeline = FramePipeline(profile, track=True)
    first = pipeline.process(base.image)
    places = _by_place(first.scene)
    tiles = len(pipeline._tiles)
    photo = render_photo(_table(BASES + [ColourFigure("c5", "blue", BLUE, 25.5, 2.5)], MARKERS), SPEC, rng=1)
    frames = []
    for k in range(tiles * (int(VISION_DEFAULTS["search_defer_turns"]) + 1) + 1):
        frame = _noisy(photo.image, k)
        _draw_hand(frame, photo.camera, 30 + 0.7 * np.cos(k), 7.5 + 0.7 * np.sin(k), angle=40 * k)
        frames.append(frame)
    for frame in frames[:tiles + 1]:
        result = pipeline.process(frame)
        assert "registered" not in result.events
    scene = result.scene
    new = _nearest(scene, 25.5, 2.5)
    assert new.id not in places and new.side == "blue" and np.hypot(new.x - 25.5, new.y - 2.5) <= 0.08
    assert not any(f.hidden for f in scene.figures) and len(scene.figures) == 7
    assert {f.id: (round(f.x, 6), round(f.y, 6)) for f in scene.figures if f.id in places} == places
    for frame in frames[tiles + 1:]:
        result = pipeline.process(frame)
        assert "registered" not in result.events
    scene = result.scene
    assert len(scene.figures) == 7 and _by_place(scene)[new.id] == (round(new.x, 6), round(new.y, 6))


def test_a_hand_over_the_edge_of_one_anchor_card_is_no_bump(stream):
    """A hand reaching over a corner of the table covers the edge of an anchor's card: the anchor
    is still read, its corners pulled a few pixels. A bumped camera moves every anchor; the other
    anchors, where they were, and the hand moving over that card say it was not bumped: the table
    is not registered again, then or when the hand has gone."""
    base, profile = stream
    pipeline = FramePipeline(profile, track=True)
    first = pipeline.process(base.image)
    frame = _noisy(base.image, 3)
    _draw_hand(frame, base.camera, 32 + np.cos(3), 5 + np.sin(3), angle=120)
    held = pipeline._held.registration.H_px_to_in
    moved = pipeline.anchor_windows.displacement_px(pipeline.anchor_windows.find(to_gray(frame), held), held)
    assert moved[1] > VISION_DEFAULTS["bump_px"] and sorted(moved) == [0, 1, 2, 3]
    for frame in (frame, _noisy(base.image, 4)):
        result = pipeline.process(frame)
        assert "bumped" not in result.events and "registered" not in result.events
        assert _by_place(result.scene) == _by_place(first.scene)


def test_terrain_is_looked_at_again_when_a_moving_hand_has_settled(stream, monkeypatch):
    """Terrain is looked at again every terrain_every_frames frames when the table changed; felt
    under a hand cannot be seen, so while a hand moves over the table that waits, until the hand
    holds still or twice as many frames have passed."""
    base, profile = stream
    every = 4                          # (fewer frames than the house default's, the same schedule)
    monkeypatch.setitem(VISION_DEFAULTS, "terrain_every_frames", every)

    def hand(k, seed):
        frame = _noisy(base.image, seed)
        _draw_hand(frame, base.camera, 6 + np.cos(k), 17 + np.sin(k), angle=40 * k)
        return frame

    pipeline = FramePipeline(profile, track=True)
    assert "terrain" in pipeline.process(base.image).events
    looked = [k for k in range(1, every + 3) if "terrain" in pipeline.process(hand(k, k)).events]
    assert looked == []
    looked = [k for k in (every + 3, every + 4) if "terrain" in pipeline.process(hand(every + 2, k)).events]
    assert looked == [every + 3]

    pipeline = FramePipeline(profile, track=True)
    pipeline.process(base.image)
    looked = [k for k in range(1, 2 * every + 2) if "terrain" in pipeline.process(hand(k, k)).events]
    assert looked == [2 * every]


def _colour_searches_round(pipeline, x: float, y: float, windows_only: bool = False) -> list[bool]:
    """Spy on the pipeline's colour searches: for each, whether one of its rects is centred within
    0.3 in of (x, y) (with `windows_only`, only a figure's window, 2 * WINDOW_IN wide, counts)."""
    looked = []
    colour = pipeline._colour

    def spy(view, pose, rects, *args, **kwargs):
        looked.append(any(np.hypot((r[0] + r[2]) / 2 - x, (r[1] + r[3]) / 2 - y) < 0.3
                          and (not windows_only or abs(r[2] - r[0] - 2 * WINDOW_IN) < 1e-6) for r in rects))
        return colour(view, pose, rects, *args, **kwargs)

    pipeline._colour = spy
    return looked


def test_a_figure_taken_off_is_looked_for_again_only_when_its_place_changes(stream):
    """A figure taken off the table stays hidden at its last place (for hidden_keep_frames frames):
    its place is looked at once more, and then only when it changes - when the figure is put back
    it is seen again that very frame."""
    base, profile = stream
    pipeline = FramePipeline(profile, track=True)
    first = pipeline.process(base.image)
    fid = _nearest(first.scene, 14, 15).id
    looked = _colour_searches_round(pipeline, 14, 15, windows_only=True)     # the window round its last place
    gone = render_photo(_table([b for b in BASES if b.figure_id != "c2"], MARKERS), SPEC, rng=1)
    for seed in range(4):
        looked.clear()
        scene = pipeline.process(_noisy(gone.image, seed)).scene
        assert [f.id for f in scene.figures if f.hidden] == [fid]
        assert any(looked) == (seed == 0)
    scene = pipeline.process(_noisy(base.image, 9)).scene
    assert not any(f.hidden for f in scene.figures) and _by_place(scene) == _by_place(first.scene)


def test_a_figure_whose_base_a_hand_passes_by_is_carried_over(stream):
    """Something moving near a figure but not over its base's place (a finger passing beside it):
    the figure is where it was, and is carried over, seen, without its window being searched."""
    base, profile = stream
    pipeline = FramePipeline(profile, track=True)
    first = pipeline.process(base.image)
    looked = _colour_searches_round(pipeline, 25, 9)
    for k, x in enumerate((24.0, 24.6, 25.2)):
        frame = _noisy(base.image, k)
        _draw_hand(frame, base.camera, x, 10.3, z=0.0, axes=(14, 8))         # a finger
        scene = pipeline.process(frame).scene
        assert not any(f.hidden for f in scene.figures) and _by_place(scene) == _by_place(first.scene)
    assert not any(looked)


def test_a_camera_moved_far_is_noticed_even_though_no_anchor_is_where_it_was(stream):
    base, profile = stream
    pipeline = FramePipeline(profile, track=True)
    pipeline.process(base.image)
    far = render_photo(_table(BASES, MARKERS), dataclasses.replace(SPEC, azimuth_deg=160, roll_deg=60, tilt_deg=30),
                       rng=1)
    result = pipeline.process(far.image)
    assert "bumped" in result.events and "registered" in result.events
    for fig in far.truth.figures:
        found = _nearest(result.scene, fig.x, fig.y)
        assert np.hypot(found.x - fig.x, found.y - fig.y) <= 0.08
    covered = base.image.copy()
    for a in profile.anchors:                                    # every anchor under a hand
        c = base.camera.project(np.array([[a.x_in, a.y_in, -1.0]]))[0]
        cv2.circle(covered, (int(c[0]), int(c[1])), 60, (140, 170, 205), -1)
    pipeline = FramePipeline(profile, track=True)
    first = pipeline.process(base.image)
    result = pipeline.process(covered)
    assert "anchors-hidden" in result.events and "registered" not in result.events
    assert _by_place(result.scene) == _by_place(first.scene)


from hypothesis import given, settings, strategies as st  # noqa: E402


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.tuples(st.floats(0, 30), st.floats(0, 20), st.sampled_from(["red", "blue"])),
                         max_size=6), min_size=1, max_size=8))
def test_tracker_invariants(frames):
    """Whatever the frames: ids unique, every base seen is reported where it was seen (or within the
    jitter), and the figures not seen are exactly the hidden ones."""
    tracker = Tracker(jitter_in=0.03)
    for frame in frames:
        xy = np.array([(x, y) for x, y, _ in frame], float).reshape(-1, 2)
        out = tracker.update(_colour(xy, [s for _, _, s in frame]) if frame else Detections.empty())
        assert len(set(out.figure_id)) == len(out)
        seen = out[~out.hidden]
        assert len(seen) == len(frame)
        for (x, y, side) in frame:
            d = np.hypot(seen.xy_in[:, 0] - x, seen.xy_in[:, 1] - y)
            assert any((d < 0.03 + 1e-9) & (seen.side == side))


def test_a_base_beside_a_hand_is_not_reported_hidden():
    """Photo 29 of the hard set's seed 0 (1080p, grass, tilt 28 deg): the previous picture without
    the hand goes first, then the photo with it. Only what the hand covers is reported hidden: a
    base 1.6 in from the hand, missed in the small window round its last place, is looked for in a
    wider one and stays where it is, seen."""
    from tests.vision.hard_scoring import hidden_reported
    from vision.synthetic.hard import hard_photo

    photo = hard_photo(0, 29)
    pipeline = FramePipeline(photo.profile, track=True)
    pipeline.process(photo.before())
    scene = pipeline.process(photo.image).scene
    under = [t for t in photo.truth.figures if t.hidden]

    def under_hand(f):
        return any((f.marker == t.marker) if t.marker is not None else
                   (f.marker is None and f.side == t.side and np.hypot(f.x - t.x, f.y - t.y) <= 0.5) for t in under)

    assert [f.id for f in scene.figures if f.hidden and not under_hand(f)] == []
    n, ok, _bad = hidden_reported(scene, photo.truth)
    assert n >= 1 and ok == n


def test_new_bases_get_the_same_ids_whatever_the_run():
    # A set of side names iterates in an order that changes with each run's string hashing; the
    # ids new bases get must not (a replayed game names the same figure the same way).
    import os
    import subprocess
    import sys
    code = ("import numpy as np\n"
            "from vision.detections import Detections\n"
            "from vision.tracking import Tracker\n"
            "xy = np.array([[5.0, 5.0], [9.0, 6.0], [14.0, 7.0], [3.0, 8.0]])\n"
            "sides = ['blue', 'red', 'green', 'gold']\n"
            "d = Detections.from_colour([f'x{k}' for k in range(4)], xy, sides, [0.9] * 4)\n"
            "out = Tracker().update(d)\n"
            "print(sorted(zip(out.figure_id, out.side)))\n")
    runs = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                           env={**os.environ, "PYTHONHASHSEED": str(seed)}).stdout
            for seed in range(6)}
    assert len(runs) == 1
    assert "('c1', 'blue')" in runs.pop()          # the first base detected is the first new id
