"""The live loop with fake sources and fake or real processing; status lines as a pure function."""
from __future__ import annotations

import threading
from dataclasses import dataclass, replace
from typing import Any

import cv2
import numpy as np
import pytest

from calibration.profile import ColourSpec, TableProfile, standard_anchors
from calibration.registration import Registration
from measure.scene import Scene, Table
from vision.live import (FrameStats, LiveLoop, Snapshot, StatusSettings, frame_stats, marker_cells,
                         status_messages)
from vision.quality import MESSAGES, PhotoQuality
from vision.sources import FolderSource, ReconnectingSource, SourceError, SourceLost

WAIT_S = 20.0       # safety net against a hung thread only; no test measures time


def _frame(i: int, grey: int = 120) -> np.ndarray:
    """A small frame that carries its number in the top-left pixel."""
    f = np.full((24, 32, 3), grey, np.uint8)
    f[0, 0] = i
    return f


class ListCamera:
    """A fake camera: a list of frames (live or not); `gate` (a Semaphore) lets frames out one by one."""

    def __init__(self, frames, live=True, gate=None, then="end", name="camera 0"):
        self.name, self.live = name, live
        self.frames = list(frames)
        self.gate = gate
        self.then = then
        self.reads = 0
        self.finished = False
        self.closed = False

    def read(self):
        if self.gate is not None:
            self.gate.acquire()
        if self.frames:
            self.reads += 1
            return self.frames.pop(0)
        if self.then == "drop":
            raise SourceLost(f"{self.name} stopped sending frames")
        self.finished = True
        return None

    def close(self):
        self.closed = True


def _number(frame) -> int:
    return int(frame[0, 0, 0])


def _finish(loop: LiveLoop) -> Snapshot:
    snap = loop.wait_until(lambda s: not s.running, WAIT_S)
    assert not snap.running, "the loop did not finish"
    return snap


def test_a_folder_of_frames_is_processed_in_order_without_drops(tmp_path):
    for i in range(12):
        cv2.imwrite(str(tmp_path / f"f{i:02d}.png"), _frame(i))
    seen = []

    def process(frame):
        seen.append(_number(frame))
        return {"n": _number(frame)}

    source = FolderSource(sorted(tmp_path.glob("*.png")), "folder")
    loop = LiveLoop(source, process).start()
    snap = _finish(loop)
    loop.stop()
    assert seen == list(range(12))
    assert snap.seq == 12 and snap.frames_read == 12 and snap.frames_dropped == 0
    assert snap.result == {"n": 11} and snap.last_good == {"n": 11} and _number(snap.frame) == 11
    assert snap.status == () and snap.error is None


def test_a_slow_consumer_never_holds_the_loop_up(tmp_path):
    for i in range(10):
        cv2.imwrite(str(tmp_path / f"f{i:02d}.png"), _frame(i))
    loop = LiveLoop(FolderSource(sorted(tmp_path.glob("*.png")), "folder"), lambda f: _number(f))
    consumer_has_one = threading.Event()
    consumer_may_go = threading.Event()
    held = []

    def slow_consumer():
        snap = loop.wait_until(lambda s: s.seq >= 1, WAIT_S)
        held.append(snap)
        consumer_has_one.set()
        consumer_may_go.wait(WAIT_S)          # a web client stuck on a slow network
        held.append(loop.latest())

    thread = threading.Thread(target=slow_consumer)
    thread.start()
    loop.start()
    assert consumer_has_one.wait(WAIT_S)
    snap = _finish(loop)                      # all ten frames get done while the consumer sits
    assert snap.seq == 10 and snap.result == 9
    assert not consumer_may_go.is_set()
    consumer_may_go.set()
    thread.join(WAIT_S)
    loop.stop()
    assert held[0].seq >= 1 and held[0].result == held[0].seq - 1     # the old snapshot stays whole
    assert held[1].seq == 10
    with pytest.raises(ValueError):
        held[0].frame[0, 0, 0] = 1            # shared frames are read-only


def test_a_live_camera_that_outruns_processing_drops_old_frames():
    busy = threading.Event()
    release = threading.Event()
    processed = []

    def process(frame):
        processed.append(_number(frame))
        if len(processed) == 1:
            busy.set()
            release.wait(WAIT_S)              # the first frame takes long
        return _number(frame)

    gate = threading.Semaphore(1)
    camera = ListCamera([_frame(i) for i in range(10)], live=True, gate=gate)
    loop = LiveLoop(camera, process).start()
    assert busy.wait(WAIT_S)                  # frame 0 is being processed
    for _ in range(10):                       # meanwhile the camera delivers 1..9 and stops
        gate.release()
    loop.wait_until(lambda s: camera.finished, WAIT_S)
    release.set()
    snap = _finish(loop)
    loop.stop()
    assert processed == [0, 9]                # the newest frame, not a backlog of old ones
    assert snap.frames_read == 10 and snap.frames_dropped == 8 and snap.seq == 2
    assert camera.closed


def test_a_dropping_camera_is_reported_and_comes_back():
    first = ListCamera([_frame(1), _frame(2)], live=True, then="drop")
    second = ListCamera([_frame(3), _frame(4)], live=True)
    opener_may_return = threading.Event()
    tries = []

    def opener():
        tries.append(1)
        if len(tries) == 1:
            return first
        if len(tries) == 2:
            raise SourceError("camera 0 cannot be opened")
        opener_may_return.wait(WAIT_S)        # the camera is still unplugged until the test says so
        return second

    source = ReconnectingSource(opener, "camera 0", retry_s=(0.0,))
    loop = LiveLoop(source, _number, idle_refresh_s=0.01).start()
    # The last frame stays on show while the fault is reported.
    snap = loop.wait_until(lambda s: s.result == 2 and any(st.code == "source" for st in s.status), WAIT_S)
    fault = [st.text for st in snap.status if st.code == "source"]
    assert fault and fault[0].startswith("camera 0") and snap.running
    opener_may_return.set()
    snap = _finish(loop)
    loop.stop()
    # A live camera may lose a frame to a busy worker; the newest always gets through.
    assert snap.result == 4 and snap.frames_read == 4 and snap.seq + snap.frames_dropped == 4
    assert source.reconnects == 1
    assert all(st.code != "source" for st in snap.status)


def test_a_source_that_fails_for_good_is_reported_and_the_loop_ends():
    def opener():
        raise SourceError("camera 0 cannot be opened")

    camera = ListCamera([_frame(1)], live=True, then="drop")
    calls = [camera]
    source = ReconnectingSource(lambda: calls.pop() if calls else opener(), "camera 0", retry_s=(0.0,),
                                max_tries=2)
    loop = LiveLoop(source, _number).start()
    snap = _finish(loop)
    loop.stop()
    assert snap.seq == 1
    assert [st.text for st in snap.status if st.code == "source"] == [
        "camera 0 cannot be opened; gave up after 2 tries"]


def test_processing_errors_are_reported_and_the_loop_goes_on():
    def process(frame):
        n = _number(frame)
        if n == 2:
            raise ValueError("no anchor in view: none of the anchor markers 0, 1, 2, 3 was found")
        if n == 3:
            raise ZeroDivisionError("oops")
        return n

    gate = threading.Semaphore(0)
    loop = LiveLoop(ListCamera([_frame(i) for i in range(1, 5)], live=False, gate=gate), process).start()
    results = []
    for k in range(1, 5):
        gate.release()
        results.append(loop.wait_until(lambda s: s.seq == k, WAIT_S))
    gate.release()
    _finish(loop)
    loop.stop()
    assert [s.result for s in results] == [1, None, None, 4]
    assert [s.last_good for s in results] == [1, 1, 1, 4]
    assert results[1].error.startswith("no anchor in view")
    assert [st.code for st in results[1].status] == ["error"]
    assert results[2].error == "processing failed: ZeroDivisionError: oops"
    assert results[3].error is None and results[3].status == ()


def test_stop_ends_the_loop_even_while_a_camera_is_being_waited_for():
    def opener():
        raise SourceError("camera 0 cannot be opened")

    calls = [ListCamera([_frame(1)], then="drop")]
    source = ReconnectingSource(lambda: calls.pop() if calls else opener(), "camera 0", retry_s=(3600.0,))
    loop = LiveLoop(source, _number, idle_refresh_s=0.01).start()
    loop.wait_until(lambda s: s.seq == 1, WAIT_S)
    loop.stop(timeout=WAIT_S)
    assert not any(t.is_alive() for t in loop._threads)


# --- status lines: a pure function ---------------------------------------------------------------

PROFILE = TableProfile(name="t", width_in=48.0, depth_in=36.0, anchors=standard_anchors(48.0, 36.0),
                       figure_marker_size_in=1.0)
BRIGHT = FrameStats(median_grey=130.0, bright_grey=240.0, width_px=1920, height_px=1080)
SETTINGS = StatusSettings(camera_moved_px=4, min_px_per_cell=5, anchor_rms_px=2.5)


def _registration(px_per_in: float = 36.0, shift_px=(0.0, 0.0), seen=(0, 1, 2, 3), rejected=(), rms_px=0.3):
    """A straight-down camera: table inches -> pixels by a scale and a shift."""
    in_to_px = np.array([[px_per_in, 0, 100 + shift_px[0]], [0, px_per_in, 50 + shift_px[1]], [0, 0, 1.0]])
    return Registration(H_px_to_in=np.linalg.inv(in_to_px), method="anchors-ransac", anchors_seen=tuple(seen),
                        anchors_rejected=tuple(rejected), rms_px=rms_px, image_size=(1920, 1080))


@dataclass(frozen=True)
class Result:
    registration: Registration
    scene: Any = None


def _texts(profile=PROFILE, stats=BRIGHT, result=None, previous=None, **kw):
    return [s.text for s in status_messages(profile, stats, result, previous, settings=SETTINGS, **kw)]


def test_all_well_says_nothing():
    assert _texts(result=Result(_registration()), previous=_registration(shift_px=(1.0, -1.0))) == []


@pytest.mark.parametrize("seen, expected", [
    ((0, 1, 3), ["anchor 2 is covered"]),
    ((1,), ["anchor 0 is covered", "anchor 2 is covered", "anchor 3 is covered"]),
])
def test_covered_anchors_are_named(seen, expected):
    assert _texts(result=Result(_registration(seen=seen))) == expected


def test_a_moved_anchor_is_named_not_called_covered():
    assert _texts(result=Result(_registration(seen=(0, 2, 3), rejected=(1,)))) == [
        "anchor 1 has moved or is misread: put it back in its place"]


def test_loose_anchors():
    assert _texts(result=Result(_registration(rms_px=3.2))) == [
        "the anchors disagree by 3.2 px: check that they lie flat and in their places"]


@pytest.mark.parametrize("shift, moved", [((0.0, 0.0), False), ((3.0, 0.0), False), ((0.0, 4.5), True),
                                          ((30.0, -20.0), True)])
def test_camera_moved(shift, moved):
    texts = _texts(result=Result(_registration(shift_px=shift)), previous=_registration())
    assert texts == (["camera moved, re-registered"] if moved else [])


def test_a_camera_moved_by_turning_is_seen_too():
    turned = _registration(px_per_in=36.4)          # zoomed or raised: the far corners move most
    assert _texts(result=Result(turned), previous=_registration()) == ["camera moved, re-registered"]


@pytest.mark.parametrize("median, bright, dark", [
    (10.0, 30.0, True), (14.9, 34.9, True),
    (15.0, 30.0, False),            # a dim room with the table lit enough to measure
    (10.0, 35.0, False),            # a dark frame with something bright in it (the lit table)
    (130.0, 240.0, False)])
def test_too_dark_is_the_photo_checks_own_verdict(median, bright, dark):
    stats = FrameStats(median, bright, 640, 480)
    assert stats.dark == (PhotoQuality(median, bright, 1.0, bright).problem == "dark")
    assert _texts(stats=stats) == (["too dark"] if dark else [])


def test_a_frame_refused_as_dark_says_so_once():
    dark = FrameStats(8.0, 12.0, 640, 480)
    assert _texts(stats=dark, error=MESSAGES["dark"]) == ["too dark"]
    assert _texts(stats=dark, error="no anchor in view") == ["too dark", "no anchor in view"]


@pytest.mark.parametrize("marker_in, px_per_in, expected", [
    (1.0, 36.0, None),                          # 6 px per cell
    (0.75, 40.0, None),                         # exactly 5 px per cell
    (0.75, 36.0, "figures too small for this camera: use 1-inch markers"),
    (1.0, 25.0, "figures too small for this camera: use 1.25-inch markers or bring the camera closer"),
    (0.75, 12.0, "figures too small for this camera: use 2.5-inch markers or bring the camera closer"),
])
def test_marker_size_for_the_camera(marker_in, px_per_in, expected):
    profile = TableProfile(name="t", width_in=48.0, depth_in=36.0, anchors=standard_anchors(48.0, 36.0),
                           figure_marker_size_in=marker_in)
    assert _texts(profile=profile, result=Result(_registration(px_per_in))) == ([expected] if expected else [])


@pytest.mark.parametrize("px_per_in, expected", [
    (36.0, None),
    (24.0, None),                               # the house default itself
    (20.0, "colour bases too small for this camera (20 px/in, 24 wanted): bring the camera closer or use a "
           "higher resolution"),
])
def test_colour_bases_for_the_camera(px_per_in, expected):
    sides = replace(PROFILE, sides=(ColourSpec("red", (200, 40, 40)), ColourSpec("blue", (40, 80, 200))))
    assert [t for t in _texts(profile=sides, result=Result(_registration(px_per_in))) if "colour" in t] == (
        [expected] if expected else [])
    # a table with no colour sides is not told of them
    assert not [t for t in _texts(result=Result(_registration(px_per_in))) if "colour" in t]


def test_a_camera_showing_the_tables_long_side_along_the_pictures_short_side_is_told_to_turn():
    # 48 x 36 in at 20 px/in, the long side along the 1080 pixels: turned, it fills 1.33 times more
    sides = replace(PROFILE, sides=(ColourSpec("red", (200, 40, 40)), ColourSpec("blue", (40, 80, 200))))
    in_to_px = np.array([[0.0, 20.0, 100.0], [20.0, 0.0, 50.0], [0.0, 0.0, 1.0]])
    turned = Registration(H_px_to_in=np.linalg.inv(in_to_px), method="anchors-ransac", anchors_seen=(0, 1, 2, 3),
                          anchors_rejected=(), rms_px=0.3, image_size=(1920, 1080))
    assert [t for t in _texts(profile=sides, result=Result(turned)) if "colour" in t] == [
        "colour bases too small for this camera (20 px/in, 24 wanted): bring the camera closer or use a higher "
        "resolution, or turn it a quarter turn so that the table's long side runs along the picture's"]


def test_marker_cells_follow_the_dictionary():
    assert marker_cells("DICT_4X4_50") == 6 and marker_cells("DICT_6X6_250") == 8
    assert marker_cells("DICT_APRILTAG_36h11") == 8


def test_faults_and_errors_come_first_and_without_a_result():
    assert _texts(stats=FrameStats(10.0, 20.0, 640, 480), result=None, error="no anchor in view",
                  source_fault="camera 0 stopped sending frames: reconnecting") == [
        "camera 0 stopped sending frames: reconnecting", "too dark", "no anchor in view"]
    assert _texts(profile=None, result=Result(_registration(seen=()))) == []


def test_frame_stats():
    stats = frame_stats(np.full((48, 64, 3), (10, 20, 250), np.uint8))
    assert (stats.width_px, stats.height_px) == (64, 48)
    assert stats.median_grey == pytest.approx(0.114 * 10 + 0.587 * 20 + 0.299 * 250, abs=1)
    half = np.zeros((40, 40), np.uint8)
    half[:, 20:] = 200                                # every 4th pixel: half black, half at 200
    stats = frame_stats(half)
    assert stats.bright_grey == 200 and stats.median_grey == pytest.approx(100, abs=1)
    assert frame_stats(np.zeros((8, 8), np.uint8)).dark


def test_house_defaults_are_read_from_the_data_file(tmp_path):
    defaults = StatusSettings.load()
    assert defaults == StatusSettings()          # the file and the code agree
    text = (tmp_path / "d.toml")
    text.write_text('camera_moved_px = { value = 8, house_default = true, note = "x" }\n')
    assert StatusSettings.load(text).camera_moved_px == 8


# --- with the real pipeline on synthetic photos ----------------------------------------------------

def test_the_real_pipeline_in_the_loop_reports_what_to_fix():
    from calibration.profile import standard_anchors as anchors_for
    from vision.pipeline import FramePipeline
    from vision.synthetic import MarkerFigure, PhotoSpec, TableSpec, render_photo
    from vision.synthetic.scenes import profile_for

    table = TableSpec(width_in=36.0, depth_in=24.0, anchors=anchors_for(36.0, 24.0),
                      marker_figures=(MarkerFigure(10, 10.0, 8.0, 1.0, 0.0), MarkerFigure(11, 20.0, 14.0, 1.0, 30.0)))
    profile = profile_for(table)
    still = render_photo(table, PhotoSpec(image_size=(960, 540), tilt_deg=10), rng=1)
    moved = render_photo(table, PhotoSpec(image_size=(960, 540), tilt_deg=14, azimuth_deg=80), rng=2)
    # A hand over anchor 2 (the far corner), in the colour of the table.
    covered = still.image.copy()
    x, y = cv2.perspectiveTransform(np.array([[[36 - 1.25, 24 - 1.25]]]), still.camera.plane_homography()).ravel()
    cv2.circle(covered, (int(x), int(y)), 40, (90, 80, 60), -1)
    dark = (still.image * 0.1).astype(np.uint8)     # refused by the photo check: too dark to measure
    frames = [still.image, still.image, covered, moved.image, dark]

    gate = threading.Semaphore(0)
    loop = LiveLoop(ListCamera(frames, live=False, gate=gate), FramePipeline(profile).process,
                    profile=profile, settings=StatusSettings.load()).start()
    snaps = []
    for k in range(1, len(frames) + 1):
        gate.release()
        snaps.append(loop.wait_until(lambda s: s.seq == k, WAIT_S))
    gate.release()
    _finish(loop)
    loop.stop()
    texts = [[st.text for st in s.status] for s in snaps]
    assert texts[0] == [] and texts[1] == []
    assert texts[2] == ["anchor 2 is covered"]
    assert texts[3] == ["camera moved, re-registered"]
    assert texts[4] == ["too dark"]                  # the status and the refusal: one verdict, said once
    assert sorted(f.id for f in snaps[1].scene.figures) == ["m10", "m11"]
    assert snaps[4].scene is not None       # a bad frame keeps the last good Scene on show


def test_a_table_of_a_sides_colour_is_a_status():
    """The Scene names the side whose colour the table shows (colour_like_table): said once, plainly."""
    sides = replace(PROFILE, sides=(ColourSpec("red", (200, 40, 40)), ColourSpec("blue", (40, 80, 200))))
    scene = Scene(Table(48.0, 36.0), extra={"colour_like_table": ["red"]})
    assert [t for t in _texts(profile=sides, result=Result(_registration(), scene)) if "colour" in t] == [
        "the table looks like the red bases' colour: some may be missed; lay a cloth or mat of another colour "
        "under the figures"]
    assert not [t for t in _texts(profile=sides, result=Result(_registration(), Scene(Table(48.0, 36.0))))
                if "colour" in t]


def test_felt_of_a_sides_colour_is_a_status():
    """The Scene names the side with felt of its hue on the table (colour_like_felt): said plainly."""
    sides = replace(PROFILE, sides=(ColourSpec("red", (200, 40, 40)), ColourSpec("blue", (40, 80, 200))))
    scene = Scene(Table(48.0, 36.0), extra={"colour_like_felt": {"blue": ["water"]}})
    assert [t for t in _texts(profile=sides, result=Result(_registration(), scene)) if "rims" in t] == [
        "blue figures in or beside the water may be missed: their rims look like its colour"]


def test_a_light_that_starves_a_sides_colour_is_a_status():
    """The Scene names the side whose colour the light starves (light_tint): said plainly."""
    sides = replace(PROFILE, sides=(ColourSpec("red", (200, 40, 40)), ColourSpec("blue", (40, 80, 200))))
    scene = Scene(Table(48.0, 36.0), extra={"light_tint": {"weakest": "blue", "channel_share": 0.45,
                                                           "least_channel_share": 0.55, "faint_sides": ["blue"]}})
    assert [t for t in _texts(profile=sides, result=Result(_registration(), scene)) if "light" in t] == [
        "the light is very warm (orange): blue bases show faintly and some may be missed; whiter light helps"]
