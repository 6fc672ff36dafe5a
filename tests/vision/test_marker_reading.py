"""Reading a blurred small marker from its outline (vision.marker_reading), and reading nothing
from an outline that holds no code."""
from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.marker_reading import PatternReader

DICT = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
READER = PatternReader(DICT)


def _scene(inside: np.ndarray, cell_px: float, angle_deg: float, blur_px: float, seed: int):
    """A 6x6-cell square (`inside`: 0-255, 6x6 cells incl. the black border) drawn on a light mat,
    `cell_px` pixels a cell, turned by `angle_deg`, motion-blurred by `blur_px`, with noise.
    Returns the image and the square's corners (TL, TR, BR, BL of the square as printed)."""
    rng = np.random.default_rng(seed)
    scale = 16
    big_cell = int(round(cell_px * scale))
    marker = cv2.resize(inside.astype(np.uint8), (6 * big_cell, 6 * big_cell), interpolation=cv2.INTER_NEAREST)
    size = 60 * scale
    canvas = np.full((size, size), 200, np.uint8)
    o = (size - marker.shape[0]) // 2
    canvas[o:o + marker.shape[0], o:o + marker.shape[1]] = marker
    centre = (size / 2 - 0.5, size / 2 - 0.5)
    rot = cv2.getRotationMatrix2D(centre, angle_deg, 1.0)
    canvas = cv2.warpAffine(canvas, rot, (size, size), flags=cv2.INTER_LINEAR, borderValue=200)
    corners_big = np.array([[o, o], [o + marker.shape[1], o], [o + marker.shape[1], o + marker.shape[0]],
                            [o, o + marker.shape[0]]], np.float64) - 0.5
    corners_big = corners_big @ rot[:, :2].T + rot[:, 2]
    small = cv2.resize(canvas, (size // scale, size // scale), interpolation=cv2.INTER_AREA).astype(np.float32)
    corners = (corners_big + 0.5) / scale - 0.5
    k = int(np.ceil(blur_px)) * 2 + 1
    kernel = np.zeros((k, k), np.float32)
    kernel[k // 2, k // 2 - int(round(blur_px / 2)): k // 2 + int(round(blur_px / 2)) + 1] = 1
    small = cv2.filter2D(small, -1, kernel / kernel.sum())
    small = np.clip(small + rng.normal(0, 3, small.shape), 0, 255).astype(np.uint8)
    return small, corners


@pytest.mark.parametrize("marker_id, angle_deg, seed", [(17, 20.0, 0), (3, 115.0, 1), (42, -60.0, 2)])
def test_a_blurred_marker_at_three_pixels_a_cell_reads_from_its_outline(marker_id, angle_deg, seed):
    printed = cv2.aruco.generateImageMarker(DICT, marker_id, 6, borderBits=1)
    image, corners = _scene(printed, 2.8, angle_deg, 2.0, seed)
    # The outline as the detector hands it over: whole pixels, starting at any corner.
    start = seed % 4
    outline = np.round(np.roll(corners, -start, axis=0) + np.random.default_rng(seed).normal(0, 0.3, (4, 2)))
    read = READER.read(image, outline)
    assert read is not None and read.marker_id == marker_id and read.correlation >= 0.9
    assert np.abs(read.corners - corners).max() < 1.0          # corner 0 is the printed top left
    assert READER.read(image, outline, allowed=frozenset({marker_id + 1})) is None


def _no_code(inside: str) -> tuple[np.ndarray, np.ndarray]:
    """A black-bordered square holding no code ("black", "white" or "noise" inside), as `_scene`."""
    cells = np.zeros((6, 6), np.uint8)
    if inside == "white":
        cells[1:-1, 1:-1] = 255
    elif inside == "noise":
        cells[1:-1, 1:-1] = np.random.default_rng(4).integers(60, 140, (4, 4))
    return _scene(cells, 3.0, 10.0, 1.0, 5)


@pytest.mark.parametrize("inside", ["black", "white", "noise"])
def test_an_outline_with_no_code_reads_as_nothing(inside):
    image, corners = _no_code(inside)
    assert READER.read(image, np.round(corners)) is None


@pytest.mark.parametrize("marker_id, angle_deg, seed", [(9, 70.0, 3), (17, 20.0, 0), (42, -60.0, 2)])
def test_a_marker_smeared_nearly_two_cells_along_one_direction_reads(marker_id, angle_deg, seed):
    """A camera's shake smears a small marker along one direction (6 px at 3.4 px a cell): it is
    compared with its patterns smeared the same way, and still reads as itself only."""
    printed = cv2.aruco.generateImageMarker(DICT, marker_id, 6, borderBits=1)
    image, corners = _scene(printed, 3.4, angle_deg, 6.0, seed)
    read = READER.read(image, np.round(corners))
    assert read is not None and read.marker_id == marker_id and read.correlation >= 0.95
    assert READER.read(image, np.round(corners), allowed=frozenset({marker_id + 1})) is None


@pytest.mark.parametrize("marker_id, angle_deg, cell_px, blur_px, seed",
                         [(17, 20.0, 2.8, 2.0, 0), (3, 115.0, 3.4, 6.0, 1), (42, -60.0, 6.0, 3.0, 2)])
def test_a_read_marker_shows_its_own_pattern(marker_id, angle_deg, cell_px, blur_px, seed):
    printed = cv2.aruco.generateImageMarker(DICT, marker_id, 6, borderBits=1)
    image, corners = _scene(printed, cell_px, angle_deg, blur_px, seed)
    assert READER.shows(image, corners[None], [marker_id]).all()
    # Other ids share its frame (white margin, black border) but not its bits.
    own, *others = READER.own_correlations(image, np.repeat(corners[None], 50, axis=0),
                                           [marker_id] + [i for i in range(50) if i != marker_id])
    assert own > max(others)


@pytest.mark.parametrize("angle_deg, seed", [(0.0, 6), (30.0, 7), (45.0, 8)])
def test_a_dark_painted_base_outlined_as_a_square_shows_no_id(angle_deg, seed):
    """A base painted all over in a dark colour, a lighter figure standing in its middle: a square
    outlined on it holds no printed cells, whatever id a decoder corrects its bits into."""
    rng = np.random.default_rng(seed)
    size, r = 120, 30
    image = np.full((size, size), 170, np.float32)
    cv2.circle(image, (size // 2, size // 2), r, 60, -1, cv2.LINE_AA)
    cv2.ellipse(image, (size // 2 + 3, size // 2 - 2), (11, 8), 20, 0, 360, 95, -1, cv2.LINE_AA)
    image = cv2.GaussianBlur(image, (0, 0), 1.5) + rng.normal(0, 3, image.shape)
    image = np.clip(image, 0, 255).astype(np.uint8)
    a = np.radians(angle_deg)
    half = 0.72 * r
    square = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]], np.float64) * half
    corners = square @ np.array([[np.cos(a), np.sin(a)], [-np.sin(a), np.cos(a)]]) + size / 2
    assert not READER.shows(image, np.repeat(corners[None], 50, axis=0), list(range(50))).any()


def _off(corners: np.ndarray, shift_cells, turn_deg: float, scale: float) -> np.ndarray:
    """The outline `corners` moved in its own cells: turned and scaled about its middle, shifted."""
    centre = corners.mean(axis=0)
    cell = (corners[1] - corners[0]) / 6, (corners[3] - corners[0]) / 6
    t = np.radians(turn_deg)
    rot = np.array([[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]])
    return centre + scale * (corners - centre) @ rot.T + shift_cells[0] * cell[0] + shift_cells[1] * cell[1]


@pytest.mark.parametrize("marker_id, angle_deg, shift_cells, turn_deg, scale, seed", [
    (17, 20.0, (0.5, -0.3), 12.0, 1.0, 0),     # a blurred card's outline: half a cell off and turned
    (3, 115.0, (-0.4, 0.4), -8.0, 1.08, 1),
    (42, -60.0, (0.3, 0.5), 0.0, 0.92, 2),
])
def test_an_outline_a_third_of_a_cell_off_reads_once_aligned(marker_id, angle_deg, shift_cells, turn_deg,
                                                             scale, seed):
    printed = cv2.aruco.generateImageMarker(DICT, marker_id, 6, borderBits=1)
    image, corners = _scene(printed, 2.8, angle_deg, 2.0, seed)
    outline = _off(corners, shift_cells, turn_deg, scale)
    assert READER.read(image, outline) is None          # as it lies, its cells are smeared together
    read = READER.aligned(image, outline)
    assert read is not None and read.marker_id == marker_id and read.correlation >= 0.9
    assert np.abs(read.corners - corners).max() < 1.0          # where the marker lies, corner 0 its top left
    # Moving the outline never makes it another id.
    assert READER.aligned(image, outline, allowed=frozenset({marker_id + 1})) is None


@pytest.mark.parametrize("inside", ["black", "white", "noise"])
def test_an_outline_with_no_code_reads_as_nothing_wherever_it_is_moved(inside):
    image, corners = _no_code(inside)
    assert READER.aligned(image, _off(corners, (0.4, 0.2), 6.0, 1.0)) is None
