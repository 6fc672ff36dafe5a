"""What the tablets look at: the table profile, the latest picture and its Scene, and a version number.

One `TableState` per app. A photo (uploaded or the bundled demo) or the live camera loop replaces
the picture; every change bumps `version` and wakes the Server-Sent-Events streams, so every tablet
at the table sees the same thing. Pixels stay here: pages get the picture as a JPEG plus the 3x3
matrix that maps table inches to its pixels, and draw overlays in SVG themselves.
"""
from __future__ import annotations

import hashlib
import json
import threading
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from calibration.profile import TableProfile
from measure.scene import Scene, Table, Terrain, scene_from_json
from vision.hands import carry_hidden
from vision.photo_check import anchor_places, photo_quality
from vision.pipeline import FramePipeline, to_gray

from assistant.web.hints import photo_hint
from assistant.web.images import display_jpeg, display_scale

LIVE_PUBLISH_S = 0.5        # house default: live pictures sent to tablets at most twice a second


class Picture:
    """The latest frame or photo, ready to send: JPEG bytes and the inches -> shown-pixels matrix.

    The JPEG is encoded when a tablet first asks for it, once, not while a photo is being read:
    a new photo's targets reach the tablets without waiting for its picture."""

    def __init__(self, frame_bgr: np.ndarray, width_px: int, height_px: int, H_in_to_px: np.ndarray | None):
        self._frame: np.ndarray | None = frame_bgr
        self._jpeg: bytes | None = None
        self._lock = threading.Lock()
        self.width_px = width_px
        self.height_px = height_px
        self.H_in_to_px = H_in_to_px        # None when the picture could not be registered

    @property
    def jpeg(self) -> bytes:
        with self._lock:
            if self._jpeg is None:
                self._jpeg, _ = display_jpeg(np.ascontiguousarray(self._frame))
                self._frame = None
            return self._jpeg

    def meta(self, version: int) -> dict[str, Any]:
        return {"url": f"/api/frame.jpg?v={version}", "width": self.width_px, "height": self.height_px,
                "H_in_to_px": None if self.H_in_to_px is None else np.round(self.H_in_to_px, 9).tolist()}


@dataclass(frozen=True)
class Calibration:
    """Registration facts for the setup page (plain words are made in words.py)."""
    anchors_expected: tuple[int, ...]
    anchors_seen: tuple[int, ...]
    anchors_rejected: tuple[int, ...]
    rms_px: float | None
    grid_expected: bool
    grid_found: bool
    problem: str | None = None          # why the last picture gave no scene

    def to_json(self) -> dict[str, Any]:
        return {"anchors_expected": list(self.anchors_expected), "anchors_seen": list(self.anchors_seen),
                "anchors_rejected": list(self.anchors_rejected),
                "rms_px": None if self.rms_px is None else round(self.rms_px, 3),
                "grid_expected": self.grid_expected, "grid_found": self.grid_found, "problem": self.problem}


def terrain_from_json(items: list[dict[str, Any]], table: Table) -> tuple[Terrain, ...]:
    """Terrain pieces (Scene JSON form) -> Terrain values, validated through scene_from_json."""
    scene = scene_from_json({"units": "in", "table": {"width": table.width_in, "depth": table.depth_in},
                             "grid": None, "figures": [], "terrain": items})
    return scene.terrain


class TableState:
    """Thread-safe holder of the latest Scene and picture; `wait_change` serves the SSE streams."""

    def __init__(self, profile: TableProfile, *, source: str = "none", fallback_terrain=(), fallback_picture=None,
                 camera=None):
        self.profile = profile
        self.pipeline = FramePipeline(profile, camera)      # camera: intrinsics to undistort with, or None
        self.source = source                    # "demo", "photo", "live" or "none"
        # Terrain used when vision gives none (the demo's known pieces); pieces drawn on a tablet are
        # kept in the settings log and laid over every scene by context.scene().
        # They belong to one picture only (`fallback_picture`, the demo photo): any other photo shows
        # what vision found in it, even nothing.
        self.fallback_terrain: tuple[Terrain, ...] = tuple(fallback_terrain)
        self._fallback_key = None if fallback_picture is None else picture_key(fallback_picture)
        self._cond = threading.Condition()
        self._version = 1
        self._scene: Scene | None = None
        self._picture: Picture | None = None
        self._frame: np.ndarray | None = None          # the last registered frame, full size
        self._registration = None
        self._crop = (0, 0, 0, 0)
        self._calibration = self._calibration_for(None, None, None)
        self._hint: dict[str, Any] | None = None       # what to fix in the last photo (assistant.web.hints)
        self._updated_at = time.time()
        self.live = None                        # a vision.live.LiveLoop when a camera is attached
        self._live_thread: threading.Thread | None = None
        self._live_stop = threading.Event()
        self.live_pipeline: FramePipeline | None = None
        self.warmers: list = []                 # called after each new picture, before tablets hear of it
        # A photo is read before the next camera frame: tablets wait for the photo, not for the camera.
        self._photo_gate = threading.Condition()
        self._photos_reading = 0

    # ------------------------------------------------------------ reading
    @property
    def table_size(self) -> Table:
        """The table's size in inches, from the profile (drawn terrain is checked against it)."""
        return Table(self.profile.width_in, self.profile.depth_in)

    @property
    def version(self) -> int:
        with self._cond:
            return self._version

    def snapshot(self) -> tuple[int, Scene | None, Picture | None, Calibration]:
        with self._cond:
            return self._version, self._scene, self._picture, self._calibration

    def hint(self) -> dict[str, Any] | None:
        """What to fix in the last photo, or None: kept until the next picture."""
        with self._cond:
            return self._hint

    def wait_change(self, after_version: int, timeout: float) -> int:
        with self._cond:
            self._cond.wait_for(lambda: self._version > after_version, timeout)
            return self._version

    def bump(self) -> int:
        """Something the tablets show changed (the game log, the roster): wake every stream."""
        with self._cond:
            self._version += 1
            self._cond.notify_all()
            return self._version

    # ------------------------------------------------------------ writing
    def _calibration_for(self, result, scene: Scene | None, problem: str | None) -> Calibration:
        reg = getattr(result, "registration", None)
        return Calibration(
            anchors_expected=tuple(sorted(self.profile.anchor_ids)),
            anchors_seen=tuple(int(i) for i in getattr(reg, "anchors_seen", ())),
            anchors_rejected=tuple(int(i) for i in getattr(reg, "anchors_rejected", ())),
            rms_px=None if reg is None else float(reg.rms_px),
            grid_expected=self.profile.grid is not None,
            grid_found=scene is not None and scene.grid is not None,
            problem=problem)

    def _with_fallback_terrain(self, scene: Scene, frame_bgr: np.ndarray) -> Scene:
        if scene.terrain or not self.fallback_terrain or self._fallback_key is None:
            return scene
        if picture_key(frame_bgr) != self._fallback_key:
            return scene
        return replace(scene, terrain=self.fallback_terrain)

    def _table_crop(self, registration, shape) -> tuple[int, int, int, int]:
        """The part of the frame showing the table (plus a small margin): x0, y0, x1, y1 in pixels."""
        h, w = shape[:2]
        W, D = self.profile.width_in, self.profile.depth_in
        corners = registration.to_image(np.array([[0, 0], [W, 0], [W, D], [0, D]], np.float64))
        if not np.all(np.isfinite(corners)):
            return 0, 0, w, h
        margin = 0.04 * max(np.ptp(corners[:, 0]), np.ptp(corners[:, 1]))
        x0 = int(max(0, np.floor(corners[:, 0].min() - margin)))
        y0 = int(max(0, np.floor(corners[:, 1].min() - margin)))
        x1 = int(min(w, np.ceil(corners[:, 0].max() + margin)))
        y1 = int(min(h, np.ceil(corners[:, 1].max() + margin)))
        if x1 - x0 < 16 or y1 - y0 < 16:
            return 0, 0, w, h
        return x0, y0, x1, y1

    def publish(self, frame_bgr: np.ndarray, result, *, source: str, problem: str | None = None,
                hint: dict[str, Any] | None = None) -> int:
        """A new picture and (when it could be read) its analysis; returns the new version.

        The picture sent to tablets is cropped to the table, so the figures are as big as the
        screen allows; the matrix sent along maps table inches to the cropped, scaled pixels.
        A picture that could not be read does not replace the last one that could: the figures
        stay drawn where they were, and `hint` says what to fix.
        """
        H = None
        scene = None
        x0, y0 = 0, 0
        full_frame = frame_bgr
        if result is not None:
            scene = self._with_fallback_terrain(result.scene, frame_bgr)
            x0, y0, x1, y1 = self._table_crop(result.registration, frame_bgr.shape)
            frame_bgr = frame_bgr[y0:y1, x0:x1]
        h, w = frame_bgr.shape[:2]
        scale = display_scale(w, h)
        if result is not None:
            shift = np.array([[1.0, 0.0, -x0], [0.0, 1.0, -y0], [0.0, 0.0, 1.0]])
            H = np.diag([scale, scale, 1.0]) @ shift @ result.registration.H_in_to_px
        picture = Picture(frame_bgr, round(w * scale), round(h * scale), H)
        with self._cond:
            if result is not None or self._frame is None:
                self._picture = picture
            self._hint = hint
            if result is not None:
                self._frame = full_frame
                self._registration = result.registration
                self._crop = (x0, y0, x0 + w, y0 + h)
            if scene is not None:
                self._scene = scene
            self._calibration = self._calibration_for(result, scene if scene is not None else self._scene, problem)
            self.source = source
            self._version += 1
            self._updated_at = time.time()
            version = self._version
        # The answers every tablet will ask for are computed here, once, before the tablets are
        # woken, so their requests find them ready.
        for warm in self.warmers:
            warm()
        with self._cond:
            self._cond.notify_all()
        return version

    def analyze(self, frame_bgr: np.ndarray, *, source: str) -> tuple[int, str | None]:
        """Run the pipeline on one photo and publish it; returns (version, problem in plain words or None).

        A photo it cannot read keeps the last good picture and the game, and leaves a hint (too dark,
        too blurred, the table cut off, a corner marker covered) that the pages draw.
        """

        size = (frame_bgr.shape[1], frame_bgr.shape[0])
        with self._photo_gate:
            self._photos_reading += 1
        try:
            result = self.pipeline.process(frame_bgr)
        except ValueError as refused:       # RegistrationError and friends: the hint says what to fix
            hint = self.failed_hint(frame_bgr, refused)
            return self.publish(frame_bgr, None, source=source, problem=hint["title"], hint=hint), hint["title"]
        finally:
            with self._photo_gate:
                self._photos_reading -= 1
                self._photo_gate.notify_all()
        # A hand over the table hides figures: they stay where the last picture had them, hidden,
        # never removed; colour figures found again keep their ids (vision.hands).
        with self._cond:
            previous = self._scene
        result = replace(result, scene=carry_hidden(previous, result.scene))
        places = anchor_places(self.profile, result.registration, size)
        hint = None
        if any(p != "seen" for p in places.values()):
            hint = photo_hint(self.profile, photo_quality(frame_bgr), places, failed=False)
        return self.publish(frame_bgr, result, source=source, hint=hint), None

    def failed_hint(self, frame_bgr: np.ndarray, refused: BaseException | None = None) -> dict[str, Any]:
        """What to fix in a frame the pipeline could not register: too dark, too blurred (as the pipeline's
        refusal, `refused`, says), markers unseen."""
        size = (frame_bgr.shape[1], frame_bgr.shape[0])
        seen = self.pipeline.markers.find_anchors(to_gray(frame_bgr))
        return photo_hint(self.profile, photo_quality(frame_bgr, refused),
                          anchor_places(self.profile, None, size, seen), failed=True, kept=self._frame is not None)

    def use_profile(self, profile: TableProfile) -> int:
        """Switch to another table: its pipeline, no picture yet; every tablet is woken to show it."""
        camera = self.pipeline.camera
        was_live = self.live is not None
        if was_live:
            self.stop_live()
        with self._cond:
            self.profile = profile
            self.pipeline = FramePipeline(profile, camera)
            self.fallback_terrain = ()
            self._fallback_key = None
            self._scene = self._picture = self._frame = self._registration = None
            self._crop = (0, 0, 0, 0)
            self._hint = None
            self._calibration = self._calibration_for(None, None, None)
            self.source = "none"
            self._version += 1
            self._cond.notify_all()
            version = self._version
        return version

    def set_profile(self, profile: TableProfile) -> None:
        """A changed profile (a side's colour learned): a new pipeline, and the last measured
        picture measured again with it."""
        with self._cond:
            self.profile = profile
            self.pipeline = FramePipeline(profile, self.pipeline.camera)
            frame, source = self._frame, self.source
        if frame is not None:
            self.analyze(frame, source=source)

    def _after_photos(self, process):
        """`process` for camera frames, started only when no photo is being read (at most 5 s later)."""
        def gated(frame_bgr: np.ndarray):
            with self._photo_gate:
                self._photo_gate.wait_for(lambda: self._photos_reading == 0, timeout=5.0)
            return process(frame_bgr)
        return gated

    def registered_frame(self):
        """(frame, registration, crop box) of the last picture that could be measured, or Nones."""
        with self._cond:
            return self._frame, self._registration, self._crop

    # ------------------------------------------------------------ live camera
    def start_live(self, camera: str | int) -> None:
        """Attach a camera (index, URL or file) through vision.live and follow its snapshots."""
        from vision.live import LiveLoop
        from vision.sources import ReconnectingSource, open_source

        spec = str(camera)
        if spec.isdigit() or "://" in spec:
            source = ReconnectingSource(lambda: open_source(spec), f"camera {spec}")
        else:
            source = open_source(spec, loop=True, fps=2.0)
        # A stream gets its own tracking pipeline: steady ids, hidden figures, a bumped camera noticed,
        # and the work a new frame did not change reused.
        tracked = FramePipeline(self.profile, self.pipeline.camera, track=True)
        self.live_pipeline = tracked
        self.live = LiveLoop(source, self._after_photos(tracked.process), profile=self.profile).start()
        self._live_stop.clear()
        self._live_thread = threading.Thread(target=self._follow_live, name="tablesight-web-live", daemon=True)
        self._live_thread.start()

    def _follow_live(self, every_s: float = LIVE_PUBLISH_S) -> None:
        # Tablets refetch the picture on every change: pass on at most one frame per `every_s`.
        seen = 0
        last = 0.0
        while not self._live_stop.is_set():
            snap = self.live.wait_next(seen, timeout=0.5)
            if snap.version == seen or snap.frame is None:
                seen = snap.version
                continue
            wait = last + every_s - time.monotonic()
            if wait > 0:
                self._live_stop.wait(wait)
                continue                # take the newest snapshot after the pause
            seen = snap.version
            last = time.monotonic()
            problem = "; ".join(s.text for s in snap.status) or None
            hint = self.failed_hint(snap.frame) if snap.result is None else None
            self.publish(snap.frame, snap.result, source="live", problem=problem, hint=hint)

    def stop_live(self) -> None:
        self._live_stop.set()
        if self.live is not None:
            self.live.stop()
        if self._live_thread is not None:
            self._live_thread.join(2.0)
        self.live = None
        self._live_thread = None


def picture_key(frame_bgr: np.ndarray) -> tuple[tuple[int, ...], str]:
    """Which picture this is, pixel for pixel (the demo photo, however it arrives, has one key)."""
    return tuple(frame_bgr.shape), hashlib.blake2b(np.ascontiguousarray(frame_bgr).data, digest_size=16).hexdigest()


def load_truth_terrain(path: Path, table: Table) -> tuple[Terrain, ...]:
    """The terrain pieces of a Scene JSON file (the bundled demo's known layout)."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    return terrain_from_json(data.get("terrain", []), table)
