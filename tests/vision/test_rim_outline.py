"""A faint ring's second look: the base's outline in the brightness, a circle of the base's size and
no other, and its visible arc facing the camera (the body hides the rest)."""
from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.rim_outline import faces_camera, outline_of_base_size, outline_on_arc, outline_rays, outline_share
from vision.rim_refine import LUMA_BGR
from vision.rim_rays import ray_units

R_PX = 10.0
SS = 8                          # supersampling of the drawn views: edges land between pixels
UNITS = ray_units()
ALL = np.ones((1, len(UNITS)), bool)


def _view(draw, size=64, mat=(120, 130, 140), noise=0.0, seed=0):
    """A uint8 BGR view `size` px square, drawn at SS times and shrunk by area (soft edges)."""
    big = np.full((size * SS, size * SS, 3), mat, np.uint8)
    draw(big)
    img = cv2.resize(big, (size, size), interpolation=cv2.INTER_AREA).astype(np.float32)
    if noise:
        img += np.random.default_rng(seed).normal(0, noise, img.shape)
    return np.clip(img, 0, 255).astype(np.uint8)


def _disc(centre, radius, colour):
    def draw(big):
        cv2.circle(big, (int(round(centre[0] * SS)), int(round(centre[1] * SS))), int(round(radius * SS)), colour, -1,
                   lineType=cv2.LINE_AA)
    return draw


def _both(*draws):
    def draw(big):
        for d in draws:
            d(big)
    return draw


def test_a_base_disc_shows_its_outline_on_every_ray():
    view = _view(_disc((32, 32), R_PX, (40, 40, 60)), noise=2.0)
    share = outline_share(view, np.array([[32.0, 32.0]]), np.zeros((1, 2)), UNITS, R_PX)
    assert share[0] >= 0.9


def test_the_outline_is_found_from_a_centre_a_little_off():
    view = _view(_disc((32, 32), R_PX, (40, 40, 60)), noise=2.0)
    share = outline_share(view, np.array([[33.5, 31.0]]), np.zeros((1, 2)), UNITS, R_PX)
    assert share[0] >= 0.9


@pytest.mark.parametrize("radius, base", [(R_PX, True), (0.7 * R_PX, False), (1.4 * R_PX, False)])
def test_only_a_circle_of_the_base_size_is_its_outline(radius, base):
    view = _view(_disc((32, 32), radius, (40, 40, 60)), noise=2.0)
    got = outline_of_base_size(view, np.array([[32.0, 32.0]]), np.zeros((1, 2)), UNITS, R_PX, ALL, 0.45, 0.85)
    assert bool(got[0]) is base


def test_a_body_over_the_far_half_leaves_the_near_arcs_outline():
    # a dark base, a brown body standing on it and over its far half (the camera below: +y)
    body = lambda big: cv2.ellipse(big, (32 * SS, 26 * SS), (9 * SS, 12 * SS), 0, 0, 360, (60, 90, 130), -1)
    view = _view(_both(_disc((32, 32), R_PX, (40, 40, 60)), body), noise=2.0)
    near = _arc(30, 1 / 3)[None]                 # the near third, centred on +y, shows the rim
    far = _arc(210, 1 / 3)[None]                 # (the far third lies under the body)
    centre, shift = np.array([[32.0, 32.0]]), np.zeros((1, 2))
    assert outline_of_base_size(view, centre, shift, UNITS, R_PX, near, 0.45, 0.85)[0]
    # an arc of the colour where the body stands over the base's edge has no outline under it
    assert not outline_of_base_size(view, centre, shift, UNITS, R_PX, far, 0.45, 0.85)[0]


def test_a_straight_edge_is_no_outline():
    # the edge of a felt running past the candidate: steps on many rays, on no circle
    edge = lambda big: cv2.rectangle(big, (36 * SS, 0), (64 * SS, 64 * SS), (40, 60, 40), -1)
    view = _view(edge, noise=2.0)
    got = outline_of_base_size(view, np.array([[32.0, 32.0]]), np.zeros((1, 2)), UNITS, R_PX, ALL, 0.45, 0.85)
    assert not got[0]


def test_a_plain_mat_has_no_outline():
    view = _view(lambda big: None, noise=3.0, seed=4)
    share = outline_share(view, np.array([[32.0, 32.0]]), np.zeros((1, 2)), UNITS, R_PX)
    assert share[0] < 0.3


def _arc(start_deg, share):
    angles = np.degrees(np.arctan2(UNITS[:, 1], UNITS[:, 0])) % 360
    return ((angles - start_deg) % 360) < share * 360


@pytest.mark.parametrize("arc_start, share, shift, faces", [
    (45, 0.25, (0.0, 2.0), True),       # a quarter centred on +y, the camera's side
    (225, 0.25, (0.0, 2.0), False),     # the same quarter away from the camera
    (0, 0.25, (2.0, 0.0), True),        # centred 45 degrees off the camera's direction
    (90, 0.25, (2.0, 0.0), False),      # centred 135 degrees off
    (0, 1.0, (0.0, 2.0), False),        # all round: faces no way
    (45, 0.25, (0.0, 0.0), False),      # no camera direction known
])
def test_the_arc_faces_the_camera(arc_start, share, shift, faces):
    kept = _arc(arc_start, share)[None]
    got = faces_camera(kept, UNITS, np.array([shift]), 0.3, 0.3)
    assert bool(got[0]) is faces


def test_reach_zero_reads_the_circle_centred_on_the_candidate_alone():
    view = _view(_disc((32, 32), R_PX, (40, 40, 60)), noise=2.0)
    on, off = np.array([[32.0, 32.0]]), np.array([[34.0, 32.0]])
    shift = np.zeros((1, 2))
    assert outline_rays(view, on, shift, UNITS, R_PX, reach=0.0).mean() >= 0.9
    # 2 px off the disc's centre: its own circle misses most of the outline, the circles near it do not
    assert outline_rays(view, off, shift, UNITS, R_PX, reach=0.0).mean() < 0.6
    assert outline_rays(view, off, shift, UNITS, R_PX).mean() >= 0.9


def _rim_base(rim_bgr, top_bgr=(60, 66, 70)):
    """A base at (32, 32): its top, a painted rim 0.2 radii wide at its edge."""
    return _both(_disc((32, 32), R_PX, rim_bgr), _disc((32, 32), 0.8 * R_PX, top_bgr))


def test_the_outline_runs_along_a_painted_rims_arc():
    # a red rim (darker than the mat) on the near third, where the colour says the rim is
    view = _view(_rim_base((40, 40, 200)), noise=2.0)
    near = _arc(90, 1 / 3)[None]
    share = outline_on_arc(view, np.array([[32.0, 32.0]]), np.zeros((1, 2)), UNITS, R_PX, near)
    assert share[0] >= 0.9


def test_a_rim_as_bright_as_the_mat_has_no_outline_on_its_arc():
    # the paint's brightness the mat's (a grey mat of a red rim's luma): only the colour shows it
    mat = (88, 88, 88)
    rim = (40, 40, 200)
    assert abs(float(np.dot(LUMA_BGR, rim)) - 88) < 2
    view = _view(_rim_base(rim, top_bgr=rim), mat=mat, noise=2.0)
    near = _arc(90, 1 / 3)[None]
    share = outline_on_arc(view, np.array([[32.0, 32.0]]), np.zeros((1, 2)), UNITS, R_PX, near)
    assert share[0] <= 0.2


def test_no_ray_of_the_colour_has_no_outline_share():
    view = _view(_rim_base((40, 40, 200)), noise=2.0)
    none = np.zeros((1, len(UNITS)), bool)
    assert outline_on_arc(view, np.array([[32.0, 32.0]]), np.zeros((1, 2)), UNITS, R_PX, none)[0] == 0.0
