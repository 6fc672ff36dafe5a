"""The synthetic renderer: its truth agrees with its camera, and its photos are hard enough."""
from __future__ import annotations

import cv2
import numpy as np

from vision.synthetic import (MarkerFigure, PhotoSpec, TableSpec, camera_over_table, marker_photo_set,
                              random_table, render_photo)
from vision.synthetic.scenes import worst_cell_px
from calibration.profile import standard_anchors


def test_camera_fits_the_table_in_frame():
    camera = camera_over_table(60, 40, (1920, 1080), tilt_deg=35, azimuth_deg=200, roll_deg=70)
    corners = np.array([[0, 0, 0], [60, 0, 0], [60, 40, 0], [0, 40, 0]], float)
    px = camera.project(corners)
    assert px[:, 0].min() >= 0 and px[:, 0].max() <= 1920 and px[:, 1].min() >= 0 and px[:, 1].max() <= 1080
    # The plane homography and the full projection agree.
    h = camera.plane_homography(0.0)
    via_h = np.c_[corners[:, :2], np.ones(4)] @ h.T
    assert np.allclose(via_h[:, :2] / via_h[:, 2:], px, atol=1e-6)


def test_marker_truth_matches_the_pixels():
    """The drawn marker's corners are where the truth says (clean photo, exact detector corners)."""
    table = TableSpec(30, 20, standard_anchors(30, 20), marker_figures=(MarkerFigure(17, 15.0, 10.0, 2.0, 30.0),))
    photo = render_photo(table, PhotoSpec(image_size=(1280, 720), tilt_deg=20, roll_deg=10, light_low=1,
                                          light_high=1, vignette=0, blur_sigma_px=0.5, noise_sigma=0,
                                          jpeg_quality=0), rng=1)
    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    detector = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50), params)
    corners, ids, _ = detector.detectMarkers(cv2.cvtColor(photo.image, cv2.COLOR_BGR2GRAY))
    found = {int(i): c.reshape(4, 2) for i, c in zip(ids.ravel(), corners)}
    assert set(found) == {0, 1, 2, 3, 17}
    for marker_id, truth in photo.marker_corners_px.items():
        assert np.abs(found[marker_id] - truth).max() < 0.5
    assert photo.truth.figure("m17").xy == (15.0, 10.0)


def test_acceptance_set_is_hard_for_a_naive_detector():
    """The set must fail a default ArucoDetector: small cells, tilt, uneven light, blur, JPEG."""
    detector = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50),
                                       cv2.aruco.DetectorParameters())
    found = total = 0
    for photo in marker_photo_set(4, seed=11):
        _, ids, _ = detector.detectMarkers(cv2.cvtColor(photo.image, cv2.COLOR_BGR2GRAY))
        truth = {f.marker for f in photo.truth.figures}
        found += len(truth & set(ids.ravel().tolist() if ids is not None else []))
        total += len(truth)
    assert total == 80
    assert found / total < 0.8


def test_cell_size_floor_is_kept():
    rng = np.random.default_rng(3)
    table = random_table(rng, width_in=60, depth_in=44, n_markers=5)
    assert worst_cell_px(table, PhotoSpec(tilt_deg=35, roll_deg=45, hfov_deg=75), 1.0) < 2.5
    for photo in marker_photo_set(2, seed=5, n_markers=3):
        assert photo.image.shape[1] in (1920, 3840)
