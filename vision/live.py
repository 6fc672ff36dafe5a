"""The live loop: frames from a source are processed in a background thread and the newest result is
published for whoever asks (the web app), with plain-words status lines about what a person must fix.

Two threads: a reader that pulls frames at the camera's own rate and keeps only the newest (a live
camera's old frames are worth nothing; files and folders are never dropped), and a worker that runs
`process(frame)` on it and publishes a `Snapshot`. Readers of snapshots take a reference under a short
lock and never hold anything up: a slow web client simply sees fewer of them.

The status lines come from `status_messages`, a pure function of (profile, frame stats, result,
previous registration), so every message can be tested without a camera.
"""
from __future__ import annotations

import math
import threading
import time
import tomllib
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, Callable

import cv2
import numpy as np

from vision.quality import MESSAGES, TINT_WORDS, colour_resolution, gray_levels, is_dark
from vision.sources import FrameSource, SourceError

DEFAULTS_PATH = Path(__file__).with_name("live_defaults.toml")
DARK_REFUSAL = MESSAGES["dark"]      # what the pipeline refuses a dark frame with


@dataclass(frozen=True)
class StatusSettings:
    """House defaults from vision/live_defaults.toml (see the notes there)."""
    camera_moved_px: float = 4.0
    min_px_per_cell: float = 2.5
    anchor_rms_px: float = 2.5

    @classmethod
    def load(cls, path: str | Path = DEFAULTS_PATH) -> "StatusSettings":
        data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
        values = {}
        for f in fields(cls):
            entry = data.get(f.name)
            if entry is not None:
                values[f.name] = float(entry["value"] if isinstance(entry, dict) else entry)
        return cls(**values)


@dataclass(frozen=True)
class FrameStats:
    median_grey: float      # 0-255
    bright_grey: float      # the 99th percentile, 0-255
    width_px: int
    height_px: int

    @property
    def dark(self) -> bool:
        """Too dark to measure: the photo check's own verdict (vision.quality), not a second one."""
        return is_dark(self.median_grey, self.bright_grey)


@dataclass(frozen=True)
class Status:
    code: str               # source, error, too_dark, anchor_covered, anchor_moved, anchors_loose,
                            # camera_moved, markers_too_small, colour_too_coarse,
                            # colour_like_table, colour_like_felt
    text: str               # what a person reads


def frame_stats(frame: np.ndarray) -> FrameStats:
    """Cheap numbers about a frame: its brightness from every 4th pixel."""
    sample = np.ascontiguousarray(frame[::4, ::4])
    grey = cv2.cvtColor(sample, cv2.COLOR_BGR2GRAY) if sample.ndim == 3 else sample
    median, bright = gray_levels(grey)
    return FrameStats(median, bright, int(frame.shape[1]), int(frame.shape[0]))


def _table_points(profile) -> np.ndarray:
    w, d = profile.width_in, profile.depth_in
    return np.array([[0, 0], [w, 0], [w, d], [0, d], [w / 2, d / 2]], np.float64)


def _px_per_in(registration, point: np.ndarray) -> float:
    px = registration.to_image(np.array([point, point + [1, 0], point + [0, 1]]))
    return float(math.sqrt(np.linalg.norm(px[1] - px[0]) * np.linalg.norm(px[2] - px[0])))


def marker_cells(dictionary: str) -> int:
    """Cells across a marker of this dictionary, its black border included (4x4 -> 6)."""
    from calibration.profile import aruco_dictionary
    return int(aruco_dictionary(dictionary).markerSize) + 2


def _size_words(size_in: float) -> str:
    return f"{size_in:g}-inch"


def status_messages(profile, stats: FrameStats | None, result: Any, previous=None, *,
                    error: str | None = None, source_fault: str | None = None,
                    settings: StatusSettings = StatusSettings()) -> tuple[Status, ...]:
    """What a person must fix, most urgent first. `previous` is the last frame's Registration."""
    out: list[Status] = []
    if source_fault:
        out.append(Status("source", source_fault))
    dark = stats is not None and stats.dark
    if dark:
        out.append(Status("too_dark", "too dark"))
    if error and not (dark and error == DARK_REFUSAL):    # the refusal says the same: once is enough
        out.append(Status("error", error))
    registration = getattr(result, "registration", None)
    if registration is None or profile is None:
        return tuple(out)

    seen = set(int(i) for i in getattr(registration, "anchors_seen", ()))
    moved = set(int(i) for i in getattr(registration, "anchors_rejected", ()))
    for anchor_id in sorted(profile.anchor_ids - seen - moved):
        out.append(Status("anchor_covered", f"anchor {anchor_id} is covered"))
    for anchor_id in sorted(moved):
        out.append(Status("anchor_moved", f"anchor {anchor_id} has moved or is misread: put it back "
                                          "in its place"))
    rms = float(getattr(registration, "rms_px", 0.0) or 0.0)
    if rms > settings.anchor_rms_px:
        out.append(Status("anchors_loose", f"the anchors disagree by {rms:.1f} px: check that they lie "
                                           "flat and in their places"))

    corners = _table_points(profile)
    if previous is not None:
        shift = np.linalg.norm(registration.to_image(corners) - previous.to_image(corners), axis=1).max()
        if shift > settings.camera_moved_px:
            out.append(Status("camera_moved", "camera moved, re-registered"))

    # The farthest part of the table has the fewest pixels per inch: size markers for that.
    ppi = min(_px_per_in(registration, p) for p in corners)
    cells = marker_cells(profile.dictionary)
    size_in = profile.figure_marker_size_in
    needed_in = settings.min_px_per_cell * cells / ppi
    if size_in < needed_in:
        if needed_in <= 1.0:
            text = "figures too small for this camera: use 1-inch markers"
        else:
            text = (f"figures too small for this camera: use {_size_words(math.ceil(needed_in * 4) / 4)} "
                    "markers or bring the camera closer")
        out.append(Status("markers_too_small", text))
    # Colour bases want more pixels an inch than markers (vision.quality: JPEG and video keep colour
    # at half the resolution): measured all the same, and said.
    if getattr(profile, "sides", ()):
        coarse = colour_resolution(registration, (profile.width_in, profile.depth_in))
        if coarse is not None:
            out.append(Status("colour_too_coarse", f"colour bases too small for this camera "
                                                   f"({coarse['px_per_in_least']:.0f} px/in, "
                                                   f"{coarse['least_px_per_in']:.0f} wanted): bring the camera "
                                                   "closer or use a higher resolution"
                                                   + (", or turn it a quarter turn so that the table's long side runs "
                                                      "along the picture's" if coarse.get("turn_gain") else "")))
        # and a table of a side's own colour (the Scene's colour_like_table, vision.rims.mat_flood)
        extra = getattr(getattr(result, "scene", None), "extra", {})
        like = extra.get("colour_like_table")
        if like:
            names = " and ".join(like)
            out.append(Status("colour_like_table", f"the table looks like the {names} bases' colour: some may "
                                                   "be missed; lay a cloth or mat of another colour under the "
                                                   "figures"))
        # and felt of a side's hue on it (the Scene's colour_like_felt: blue water under blue rims)
        for side, kinds in (extra.get("colour_like_felt") or {}).items():
            felt = " or ".join(kinds)
            out.append(Status("colour_like_felt", f"{side} figures in or beside the {felt} may be missed: "
                                                  "their rims look like its colour"))
        # and a light that starves a side's colour (the Scene's light_tint: blue rims under a warm bulb)
        tint = extra.get("light_tint")
        if tint:
            names = " and ".join(tint["faint_sides"])
            out.append(Status("light_tint", f"the light is {TINT_WORDS[tint['weakest']]}: {names} bases show "
                                            "faintly and some may be missed; whiter light helps"))
    return tuple(out)


@dataclass(frozen=True)
class Snapshot:
    version: int                    # bumps on every publish (a frame, or a status change while waiting)
    seq: int                        # frames processed so far
    frame: np.ndarray | None        # the frame last processed (read-only)
    result: Any                     # process(frame), or None when it failed
    last_good: Any                  # the newest successful result: keep showing it through a bad frame
    status: tuple[Status, ...]
    error: str | None
    frames_read: int
    frames_dropped: int             # newer frames came before the worker was free (live sources only)
    running: bool
    fps: float                      # processed frames per second lately

    @property
    def scene(self):
        return getattr(self.last_good, "scene", None)


class LiveLoop:
    """Run `process(frame) -> result` on a source in the background; `latest()` never blocks."""

    def __init__(self, source: FrameSource, process: Callable[[np.ndarray], Any], *, profile=None,
                 settings: StatusSettings | None = None, idle_refresh_s: float = 0.25):
        self.source = source
        self.process = process
        self.profile = profile
        self.settings = settings or StatusSettings.load()
        self.idle_refresh_s = idle_refresh_s
        self._cond = threading.Condition()
        self._slot: np.ndarray | None = None
        self._stopping = False
        self._ended = False
        self._reader_fault: str | None = None
        self._frames_read = 0
        self._dropped = 0
        self._previous_registration = None
        self._rate: list[float] = []
        self._snapshot = Snapshot(0, 0, None, None, None, (), None, 0, 0, False, 0.0)
        self._threads: list[threading.Thread] = []

    # --- consumers -----------------------------------------------------------------------------
    def latest(self) -> Snapshot:
        with self._cond:
            return self._snapshot

    def wait_next(self, after_version: int, timeout: float | None = None) -> Snapshot:
        """The first snapshot newer than `after_version` (or the current one on timeout)."""
        with self._cond:
            self._cond.wait_for(lambda: self._snapshot.version > after_version, timeout)
            return self._snapshot

    def wait_until(self, predicate: Callable[[Snapshot], bool], timeout: float | None = None) -> Snapshot:
        with self._cond:
            self._cond.wait_for(lambda: predicate(self._snapshot), timeout)
            return self._snapshot

    # --- life ----------------------------------------------------------------------------------
    def start(self) -> "LiveLoop":
        self._snapshot = self._next_snapshot(running=True)
        for target, name in ((self._read_loop, "tablesight-reader"), (self._work_loop, "tablesight-worker")):
            thread = threading.Thread(target=target, name=name, daemon=True)
            thread.start()
            self._threads.append(thread)
        return self

    def stop(self, timeout: float = 5.0) -> None:
        with self._cond:
            self._stopping = True
            self._cond.notify_all()
        stop_source = getattr(self.source, "stop", None)
        if stop_source:
            stop_source()           # ends a reconnect wait at once
        for thread in self._threads:
            thread.join(timeout)
        # Closing a capture while another thread sits in its read() is unsafe: if the reader is
        # still stuck in a driver call, it closes the source itself when that call returns.
        if not any(t.is_alive() for t in self._threads[:1]):
            self.source.close()

    def __enter__(self) -> "LiveLoop":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    # --- threads -------------------------------------------------------------------------------
    def _source_fault(self) -> str | None:
        return self._reader_fault or getattr(self.source, "fault", None)

    def _read_loop(self) -> None:
        try:
            while True:
                frame = self.source.read()
                with self._cond:
                    if self._stopping or frame is None:
                        break
                    if not self.source.live:    # a file: wait for the worker, drop nothing
                        self._cond.wait_for(lambda: self._slot is None or self._stopping)
                        if self._stopping:
                            break
                    if self._slot is not None:
                        self._dropped += 1
                    self._slot = frame
                    self._frames_read += 1
                    self._cond.notify_all()
        except SourceError as exc:
            self._reader_fault = str(exc)
        except Exception as exc:            # a broken driver must not kill the app silently
            self._reader_fault = f"{self.source.name}: {exc.__class__.__name__}: {exc}"
        with self._cond:
            self._ended = True
            self._cond.notify_all()
            stopping = self._stopping
        if stopping:
            self.source.close()

    def _work_loop(self) -> None:
        shown_fault = None
        while True:
            with self._cond:
                self._cond.wait_for(lambda: self._slot is not None or self._ended or self._stopping,
                                    self.idle_refresh_s)
                if self._stopping or (self._ended and self._slot is None):
                    break
                frame, self._slot = self._slot, None
                self._cond.notify_all()
            if frame is None:
                # Nothing new: still tell people when the camera dropped or came back.
                fault = self._source_fault()
                if fault != shown_fault:
                    shown_fault = fault
                    self._publish(self._next_snapshot(
                        status=self._refresh_source_status(fault)))
                continue
            shown_fault = self._source_fault()
            self._publish(self._run(frame, shown_fault))
        with self._cond:
            self._snapshot = self._next_snapshot(running=False,
                                                 status=self._refresh_source_status(self._source_fault()))
            self._cond.notify_all()

    def _refresh_source_status(self, fault: str | None) -> tuple[Status, ...]:
        kept = tuple(s for s in self._snapshot.status if s.code != "source")
        return ((Status("source", fault),) if fault else ()) + kept

    def _run(self, frame: np.ndarray, fault: str | None) -> Snapshot:
        frame.setflags(write=False)      # consumers share it: nobody draws on it in place
        stats = frame_stats(frame)
        result, error = None, None
        try:
            result = self.process(frame)
        except ValueError as exc:        # RegistrationError, CameraFileError...: already plain words
            error = str(exc) or exc.__class__.__name__
        except Exception as exc:         # keep running, say what broke
            error = f"processing failed: {exc.__class__.__name__}: {exc}"
        status = status_messages(self.profile, stats, result, self._previous_registration, error=error,
                                 source_fault=fault, settings=self.settings)
        registration = getattr(result, "registration", None)
        if registration is not None:
            self._previous_registration = registration
        now = time.monotonic()
        self._rate = (self._rate + [now])[-30:]
        fps = (len(self._rate) - 1) / (self._rate[-1] - self._rate[0]) if len(self._rate) > 1 and \
            self._rate[-1] > self._rate[0] else 0.0
        last_good = result if error is None else self._snapshot.last_good
        return Snapshot(self._snapshot.version + 1, self._snapshot.seq + 1, frame, result, last_good, status,
                        error, self._frames_read, self._dropped, True, fps)

    def _next_snapshot(self, **changes) -> Snapshot:
        s = self._snapshot
        values = dict(version=s.version + 1, seq=s.seq, frame=s.frame, result=s.result, last_good=s.last_good,
                      status=s.status, error=s.error, frames_read=self._frames_read,
                      frames_dropped=self._dropped, running=s.running, fps=s.fps)
        values.update(changes)
        return Snapshot(**values)

    def _publish(self, snapshot: Snapshot) -> None:
        with self._cond:
            self._snapshot = snapshot
            self._cond.notify_all()
