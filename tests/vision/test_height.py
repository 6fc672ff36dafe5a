"""The camera's pose from the registration, and markers on bases put back under the camera's ray."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from calibration.intrinsics import CameraModel
from vision.height import camera_pose, estimate_focal_px
from vision.pipeline import FramePipeline
from vision.synthetic import camera_over_table, profile_for, random_photo, random_table, render_photo


@pytest.mark.parametrize("tilt, azimuth, roll", [(0.0, 90.0, 0.0), (15.0, 30.0, 40.0), (35.0, 250.0, -100.0)])
def test_pose_from_an_exact_homography(tilt, azimuth, roll):
    camera = camera_over_table(48, 36, (1920, 1080), tilt_deg=tilt, azimuth_deg=azimuth, roll_deg=roll)
    H_px_to_in = np.linalg.inv(camera.plane_homography(0.0))
    pose = camera_pose(H_px_to_in, (1920, 1080), camera.camera_matrix)
    assert np.allclose(pose.centre_in, camera.centre_in, atol=1e-6)
    assert abs(pose.tilt_deg - tilt) < 1e-6
    assert np.allclose(pose.plane_homography(0.5) / pose.plane_homography(0.5)[2, 2],
                       camera.plane_homography(0.5) / camera.plane_homography(0.5)[2, 2], atol=1e-6)
    if tilt >= 15:
        assert abs(estimate_focal_px(np.linalg.inv(H_px_to_in), (1920, 1080)) / camera.camera_matrix[0, 0] - 1) < 1e-6
    else:
        assert estimate_focal_px(np.linalg.inv(H_px_to_in), (1920, 1080)) is None     # too square-on to tell
        assert camera_pose(H_px_to_in, (1920, 1080)).focal_source == "default-fov"


def test_lift_is_the_identity_on_the_table_and_moves_towards_the_camera_foot():
    camera = camera_over_table(48, 36, (1920, 1080), tilt_deg=30, azimuth_deg=10)
    pose = camera_pose(np.linalg.inv(camera.plane_homography(0.0)), (1920, 1080), camera.camera_matrix)
    xy = np.array([[5.0, 5.0], [40.0, 30.0]])
    assert np.allclose(pose.lift(xy, 0.0), xy)
    lifted = pose.lift(xy, 0.5)
    foot = pose.centre_in[:2]
    assert np.all(np.hypot(*(lifted - foot).T) < np.hypot(*(xy - foot).T))
    # A point drawn 0.5 in up projects, through the table plane, back to where lift says.
    top = np.c_[lifted, -0.5 * np.ones(2)]
    seen = camera.project(top)
    on_table = np.c_[seen, np.ones(2)] @ np.linalg.inv(camera.plane_homography(0.0)).T
    assert np.allclose(on_table[:, :2] / on_table[:, 2:], xy, atol=1e-6)


@pytest.fixture(scope="module")
def raised_markers():
    """Two 1080p photos at 35 degrees tilt of markers on 1/8 in bases, with the true camera."""
    rng = np.random.default_rng(35)
    out = []
    for _ in range(2):
        table = random_table(rng, n_markers=20, marker_height_in=0.125)
        photo = render_photo(table, random_photo(rng, tilt_deg=35.0), rng)
        out.append((photo, profile_for(table)))
    return out


def _errors(pairs, make):
    errors = []
    for photo, profile in pairs:
        truth = {f.id: f for f in photo.truth.figures}
        scene = make(photo, profile).process(photo.image).scene
        errors += [np.hypot(f.x - truth[f.id].x, f.y - truth[f.id].y) for f in scene.figures if f.id in truth]
    return np.array(errors)


def test_height_correction_gain_at_35_degrees(raised_markers):
    assert raised_markers[0][1].figure_marker_height_in == 0.125

    def flat(photo, profile):
        return FramePipeline(dataclasses.replace(profile, figure_marker_height_in=0.0))

    def calibrated(photo, profile):
        cam = photo.camera
        return FramePipeline(profile, CameraModel(camera_matrix=cam.camera_matrix, dist=np.zeros(5),
                                                  image_size=cam.image_size))

    uncorrected = _errors(raised_markers, flat)
    corrected = _errors(raised_markers, calibrated)
    estimated = _errors(raised_markers, lambda photo, profile: FramePipeline(profile))
    assert len(corrected) >= 30 and len(uncorrected) == len(corrected)
    assert np.percentile(uncorrected, 95) > 0.08               # the height matters at 35 degrees
    assert np.percentile(corrected, 95) <= 0.05
    assert np.mean(corrected) < np.mean(uncorrected) / 2.5
    assert np.percentile(estimated, 95) <= 0.05                # no camera file: the focal estimate does
