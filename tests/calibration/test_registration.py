"""Registration: pixels <-> table inches from anchor corners, with outlier anchors thrown out."""
from __future__ import annotations

import numpy as np
import pytest

from calibration.profile import TableProfile, standard_anchors
from calibration.registration import RegistrationError, register
from vision.synthetic import camera_over_table

PROFILE = TableProfile("t", 48.0, 36.0, anchors=standard_anchors(48.0, 36.0))


def _corners(camera, ids, noise_px=0.0, seed=0):
    rng = np.random.default_rng(seed)
    h = camera.plane_homography(0.0)
    out = {}
    for i in ids:
        pts = np.array(PROFILE.anchor(i).corners_in(), float)
        px = np.c_[pts, np.ones(4)] @ h.T
        out[i] = px[:, :2] / px[:, 2:] + rng.normal(0, noise_px, (4, 2))
    return out


@pytest.mark.parametrize("tilt_deg, roll_deg", [(0, 0), (20, 45), (35, -120)])
def test_four_anchors_recover_the_table(tilt_deg, roll_deg):
    camera = camera_over_table(48, 36, (1920, 1080), tilt_deg=tilt_deg, roll_deg=roll_deg)
    reg = register(_corners(camera, [0, 1, 2, 3], noise_px=0.2), PROFILE, (1920, 1080))
    assert reg.method == "anchors-ransac" and reg.anchors_seen == (0, 1, 2, 3)
    assert 0.05 < reg.rms_px < 0.5
    probe_in = np.array([[24.0, 18.0], [5.0, 30.0], [40.0, 3.0]])
    px = np.c_[probe_in, np.ones(3)] @ camera.plane_homography(0.0).T
    back = reg.to_table(px[:, :2] / px[:, 2:])
    assert np.abs(back - probe_in).max() < 0.03
    assert np.allclose(reg.to_image(back), px[:, :2] / px[:, 2:], atol=1e-6)


def test_one_anchor_is_enough():
    camera = camera_over_table(48, 36, (1920, 1080), tilt_deg=10)
    reg = register(_corners(camera, [2]), PROFILE, (1920, 1080))
    assert reg.method == "single-anchor" and reg.anchors_seen == (2,)
    assert reg.rms_px < 1e-3     # four points fix the homography exactly (float32 inside OpenCV)
    assert np.abs(reg.to_table(reg.to_image([[30.0, 20.0]])) - [30.0, 20.0]).max() < 1e-6


def test_a_moved_anchor_is_left_out():
    camera = camera_over_table(48, 36, (1920, 1080), tilt_deg=25, roll_deg=10)
    corners = _corners(camera, [0, 1, 2, 3], noise_px=0.1)
    corners[3] = corners[3] + np.array([40.0, -25.0])    # someone nudged anchor 3 by about an inch
    reg = register(corners, PROFILE, (1920, 1080))
    assert reg.anchors_rejected == (3,) and reg.anchors_seen == (0, 1, 2)
    assert reg.rms_px < 0.5


def test_no_anchor_is_a_clear_error():
    with pytest.raises(RegistrationError, match="no anchor in view"):
        register({17: np.zeros((4, 2))}, PROFILE, (1920, 1080))


@pytest.mark.parametrize("ids", [(0, 1), (1, 2), (0, 2)])
def test_two_anchors_say_honestly_how_far_off_the_table_may_be(ids):
    """Two anchors fix their own part of the table; `table_error_in` says how far off (95%) the
    worst place may be, and the true error stays within it."""
    camera = camera_over_table(48, 36, (1920, 1080), tilt_deg=20, roll_deg=30)
    table_in = np.array([[0, 0], [48, 0], [48, 36], [0, 36], [24, 18]], float)
    px = np.c_[table_in, np.ones(5)] @ camera.plane_homography(0.0).T
    px = px[:, :2] / px[:, 2:]
    within, predicted = 0, []
    for seed in range(20):
        reg = register(_corners(camera, list(ids), noise_px=0.25, seed=seed), PROFILE, (1920, 1080))
        worst = np.linalg.norm(reg.to_table(px) - table_in, axis=1).max()
        within += worst <= reg.table_error_in
        predicted.append(reg.table_error_in)
    assert within >= 18
    assert min(predicted) > 0.1      # inches off somewhere: far more than four anchors give
    four = register(_corners(camera, [0, 1, 2, 3], noise_px=0.25), PROFILE, (1920, 1080))
    assert four.table_error_in < 0.1 < min(predicted)
