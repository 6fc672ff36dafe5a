"""frame (BGR) -> registration -> detections -> Scene, for one photo or a stream of frames."""
from __future__ import annotations

import time
from dataclasses import dataclass, field

import cv2
import numpy as np

from calibration.profile import TableProfile
from calibration.registration import Registration, RegistrationError, register
from measure.scene import Scene, Table
from vision.detections import Detections
from vision.markers import MarkerFinder


@dataclass(frozen=True)
class FrameResult:
    scene: Scene
    registration: Registration
    detections: Detections
    timing_ms: dict[str, float] = field(default_factory=dict)


def to_gray(frame: np.ndarray) -> np.ndarray:
    if frame is None or not isinstance(frame, np.ndarray) or frame.size == 0:
        raise ValueError("the frame is empty")
    if frame.ndim == 2:
        return frame
    if frame.ndim == 3 and frame.shape[2] == 3:
        return cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    if frame.ndim == 3 and frame.shape[2] == 4:
        return cv2.cvtColor(frame, cv2.COLOR_BGRA2GRAY)
    raise ValueError(f"unsupported frame shape {frame.shape}")


class FramePipeline:
    """The per-frame work for one table profile (and optionally one calibrated camera)."""

    def __init__(self, profile: TableProfile, camera=None):
        self.profile = profile
        self.camera = camera
        self.markers = MarkerFinder(profile)
        self._roster = profile.roster_by_figure()

    def register(self, gray: np.ndarray) -> Registration:
        anchors = self.markers.find_anchors(gray)
        if not anchors:
            names = ", ".join(str(a.id) for a in self.profile.anchors)
            raise RegistrationError(f"no anchor in view: none of the anchor markers {names} "
                                    f"({self.profile.dictionary}) was found in the photo")
        return register(anchors, self.profile, (gray.shape[1], gray.shape[0]))

    def process(self, frame_bgr: np.ndarray) -> FrameResult:
        timing: dict[str, float] = {}
        t0 = time.perf_counter()
        if self.camera is not None:
            frame_bgr = self.camera.undistort(frame_bgr)
        gray = to_gray(frame_bgr)
        registration = self.register(gray)
        t1 = time.perf_counter()
        detections = self.markers.find_figures(gray, registration)
        t2 = time.perf_counter()
        timing.update(register_ms=(t1 - t0) * 1e3, markers_ms=(t2 - t1) * 1e3)
        scene = Scene(table=Table(self.profile.width_in, self.profile.depth_in),
                      figures=detections.to_figures(self._roster),
                      extra={"registration": registration.as_json()})
        return FrameResult(scene=scene, registration=registration, detections=detections, timing_ms=timing)


def analyze_image(frame_bgr: np.ndarray, profile: TableProfile, camera=None) -> FrameResult:
    """One photo, start to finish."""
    return FramePipeline(profile, camera).process(frame_bgr)
