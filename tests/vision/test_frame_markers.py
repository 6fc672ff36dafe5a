"""The frame's one marker search: anchors and figure markers from one detectMarkers pass, figure
markers at a steep tilt, a 4K frame's anchors refined at full size, and a photo with too few
anchors refused in plain words rather than measured wrong."""
from __future__ import annotations

import cv2
import numpy as np
import pytest

from calibration.registration import RegistrationError
from vision.pipeline import FramePipeline, to_gray
from vision.synthetic import PhotoSpec, profile_for, random_table, render_photo
from vision.synthetic.scenes import worst_cell_px


def _photo(seed: int, *, image_size=(1920, 1080), tilt_deg=35.0, marker_size_in=1.0, n_markers=12,
           width_in=48.0, depth_in=36.0):
    rng = np.random.default_rng(seed)
    table = random_table(rng, width_in=width_in, depth_in=depth_in, n_markers=n_markers,
                         marker_size_in=marker_size_in)
    for _ in range(50):
        # The set-up guide asks for 2.5 pixels a marker cell or more everywhere on the table.
        spec = PhotoSpec(image_size=image_size, tilt_deg=tilt_deg, azimuth_deg=float(rng.uniform(0, 360)),
                         roll_deg=float(rng.uniform(-180, 180)), hfov_deg=65.0, blur_sigma_px=0.8,
                         noise_sigma=3.0, jpeg_quality=80)
        if worst_cell_px(table, spec, marker_size_in) >= 2.6:
            break
    return table, spec, render_photo(table, spec, rng)


def _found(result) -> dict[int, np.ndarray]:
    d = result.detections
    return {int(m): xy for m, xy, by in zip(d.marker_id, d.xy_in, d.detected_by) if by == "marker"}


class _Counting:
    """An ArucoDetector that counts the searches of images of one shape."""

    def __init__(self, detector, shape, calls):
        self._detector, self._shape, self._calls = detector, shape, calls

    def detectMarkers(self, image, *args, **kwargs):
        if image.shape[:2] == self._shape[:2]:
            self._calls.append(image.shape)
        return self._detector.detectMarkers(image, *args, **kwargs)

    def setDetectorParameters(self, params):
        self._detector.setDetectorParameters(params)


def test_one_detect_markers_pass_serves_anchors_and_figures_at_35_degrees():
    table, spec, photo = _photo(3)
    assert worst_cell_px(table, spec, 1.0) < 4.0          # small markers: a few pixels a cell
    pipeline = FramePipeline(profile_for(table))
    calls = []
    finder = pipeline.markers
    for name, value in vars(finder).items():
        if isinstance(value, cv2.aruco.ArucoDetector):
            setattr(finder, name, _Counting(value, photo.image.shape, calls))
    result = pipeline.process(photo.image)
    assert len(calls) == 1                                # the whole frame is searched once
    assert result.registration.anchors_seen == (0, 1, 2, 3)
    found = _found(result)
    truth = {f.marker: (f.x, f.y) for f in photo.truth.figures}
    assert set(found) == set(truth)                       # every figure, no false id
    errors = [np.hypot(*(found[m] - truth[m])) for m in truth]
    assert max(errors) < 0.05


def test_a_4k_frame_registers_from_half_size_with_corners_refined_at_full_size():
    table, spec, photo = _photo(5, image_size=(3840, 2160), tilt_deg=20.0, marker_size_in=0.75, n_markers=6)
    pipeline = FramePipeline(profile_for(table))
    found = pipeline.markers.scan(to_gray(photo.image))
    assert found.scale == 0.5 and not found.figures_searched
    assert sorted(found.anchors) == [0, 1, 2, 3]
    for i, corners in found.anchors.items():
        # Half-size corners alone are good to about a full-size pixel; refined, to a fraction.
        assert np.abs(corners - photo.marker_corners_px[i]).max() < 0.5
    result = pipeline.process(photo.image)
    truth = {f.marker: (f.x, f.y) for f in photo.truth.figures}
    found_xy = _found(result)
    assert set(found_xy) == set(truth)
    assert max(np.hypot(*(found_xy[m] - truth[m])) for m in truth) < 0.05


def _cover(photo, ids) -> np.ndarray:
    """The photo with the anchors `ids` (card and all) painted over in the mat's colour."""
    image = photo.image.copy()
    for i in ids:
        quad = photo.marker_corners_px[i]
        centre = quad.mean(axis=0)
        card = (centre + 1.8 * (quad - centre)).astype(np.int32)
        ring = (centre + 2.6 * (quad - centre)).astype(np.int32)
        mask = np.zeros(image.shape[:2], np.uint8)
        cv2.fillConvexPoly(mask, ring, 255)
        cv2.fillConvexPoly(mask, card, 0)
        colour = np.median(image[mask > 0], axis=0)
        cv2.fillConvexPoly(image, card, colour.tolist())
    return image


@pytest.mark.parametrize("covered", [(2, 3), (0, 3)])
def test_two_anchors_side_by_side_are_refused_in_plain_words(covered):
    table, _spec, photo = _photo(11, tilt_deg=20.0, n_markers=4)
    with pytest.raises(RegistrationError, match=r"only 2 of 4 anchors .* make sure every anchor is in view"):
        FramePipeline(profile_for(table)).process(_cover(photo, covered))


def test_three_anchors_place_the_table_or_refuse_it_never_wrong():
    table, _spec, photo = _photo(11, tilt_deg=20.0, n_markers=12)
    try:
        result = FramePipeline(profile_for(table)).process(_cover(photo, (2,)))
    except RegistrationError as exc:
        assert "missing: 2" in str(exc)
        return
    assert result.registration.table_error_in <= 0.5
    truth = {f.marker: (f.x, f.y) for f in photo.truth.figures}
    found = _found(result)
    assert set(found) <= set(truth)
    assert all(np.hypot(*(found[m] - truth[m])) <= result.registration.table_error_in for m in found)
