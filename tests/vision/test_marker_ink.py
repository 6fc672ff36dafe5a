"""A die of a side's colour beside a figure can read as a marker: a dark square on a lighter mat whose
white pips fall on a code's white bits. A printed marker's ink is grey after the anchors' white
balance, a blue or red die is not: such a read is no figure marker, and the printed one beside it
still is."""
from __future__ import annotations

import cv2
import numpy as np
import pytest

from calibration.profile import TableProfile, standard_anchors
from calibration.registration import Registration
from vision.marker_reading import MAX_INK_CHROMA, pattern_reader
from vision.markers import FrameColour, MarkerFinder
from vision.topview import TopView

DICT = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
SIZE_IN = 0.75
WIDTH_IN, DEPTH_IN = 8.0, 5.0
PPI = 48.0                                  # the top view's: 6 px a marker's cell
MAT_BGR = (128, 160, 176)                   # a plain beige mat
INK, CARD = 20.0, 235.0                     # printed black and white card, before the light
DIE_IN = 0.63                               # a 16 mm die
SIX_PIPS = ((-1, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (1, 1))
TUNGSTEN = (0.45, 0.75, 1.0)                # a lamp's gain on B, G, R
MARKER_AT, DIE_AT = (2.5, 2.5), (5.5, 2.5)


def _table(die_bgr, light, yaw_deg: float, seed: int) -> np.ndarray:
    """The table seen from above in colour (BGR) at PPI: printed marker 7 on its white card at
    MARKER_AT, a die of colour `die_bgr` showing six white pips at DIE_AT, all under `light`."""
    s = 4                                                     # drawn 4x finer, then area-averaged
    w, h = int(WIDTH_IN * PPI) * s, int(DEPTH_IN * PPI) * s
    canvas = np.empty((h, w, 3), np.float32)
    canvas[:] = MAT_BGR
    card = np.full((8, 8), 255, np.uint8)
    card[1:7, 1:7] = cv2.aruco.generateImageMarker(DICT, 7, 6, borderBits=1)
    side = int(round(8 / 6 * SIZE_IN * PPI * s))
    x, y = (int(v * PPI * s - side / 2) for v in MARKER_AT)
    big = cv2.resize(card, (side, side), interpolation=cv2.INTER_NEAREST).astype(np.float32)
    canvas[y:y + side, x:x + side] = (INK + big * (CARD - INK) / 255)[..., None]
    centre, d = np.array(DIE_AT) * PPI * s, DIE_IN * PPI * s
    cv2.fillPoly(canvas, [cv2.boxPoints(((centre[0], centre[1]), (d, d), yaw_deg)).astype(np.int32)], die_bgr)
    c, sn = np.cos(np.radians(yaw_deg)), np.sin(np.radians(yaw_deg))
    for px, py in SIX_PIPS:
        lx, ly = px * 0.27 * d, py * 0.27 * d
        cv2.circle(canvas, (int(centre[0] + lx * c - ly * sn), int(centre[1] + lx * sn + ly * c)), int(0.08 * d),
                   (CARD, CARD, CARD), -1)
    small = cv2.resize(canvas, (w // s, h // s), interpolation=cv2.INTER_AREA) * np.float32(light)
    noise = np.random.default_rng(seed).normal(0, 2, small.shape)
    return np.clip(small + noise, 0, 255).astype(np.uint8)


def _grey_card(light) -> tuple[np.ndarray, np.ndarray]:
    """The white balance's black level and gain (BGR) the anchors' ink and card give under `light`."""
    light = np.asarray(light, np.float64)
    return INK * light, (230.0 - 25.0) / ((CARD - INK) * light)


def _found(bgr: np.ndarray, light, with_colour: bool) -> set[int]:
    gray = cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY)
    finder = MarkerFinder(TableProfile("Die beside a figure", WIDTH_IN, DEPTH_IN, figure_marker_size_in=SIZE_IN,
                                       anchors=standard_anchors(WIDTH_IN, DEPTH_IN, 1.0)))
    registration = Registration(np.diag([1 / PPI, 1 / PPI, 1.0]), "anchors-ransac", (0, 1, 2, 3), (), 0.1,
                                gray.shape[::-1])
    colour = FrameColour(bgr, *_grey_card(light)) if with_colour else None
    found = finder.find_figures(TopView(gray, PPI, (0.0, 0.0)), registration, colour=colour)
    return {int(m) for m in found.marker_id}


@pytest.mark.parametrize("yaw_deg", [0.0, 15.0])
def test_a_blue_die_under_a_tungsten_lamp_is_no_marker(yaw_deg):
    bgr = _table((200, 80, 40), TUNGSTEN, yaw_deg, 0)
    assert _found(bgr, TUNGSTEN, with_colour=False) == {7, 21}        # its pips do read as id 21
    assert _found(bgr, TUNGSTEN, with_colour=True) == {7}


@pytest.mark.parametrize("die_bgr", [(200, 80, 40), (40, 40, 200)])
@pytest.mark.parametrize("light", [TUNGSTEN, (1.0, 1.0, 1.0), (1.0, 0.9, 0.8)])
def test_a_dies_face_is_coloured_and_printed_ink_grey_under_any_lamp(die_bgr, light):
    """Ink chroma of the printed marker and of the die (outlined as a marker's square, read as the
    id its pips fall closest to) after the white balance."""
    bgr = _table(die_bgr, light, 0.0, 1)
    reader = pattern_reader("DICT_4X4_50")

    def outline(at, side_in):
        u, v = np.array(at) * PPI
        r = side_in * PPI / 2
        return np.array([[u - r, v - r], [u + r, v - r], [u + r, v + r], [u - r, v + r]]) - 0.5

    quads = np.stack([outline(MARKER_AT, SIZE_IN), outline(DIE_AT, DIE_IN)])
    marker, die = reader.ink_chroma(bgr, quads, [7, 21], *_grey_card(light))
    assert marker < 0.5 * MAX_INK_CHROMA < 2 * MAX_INK_CHROMA < die
