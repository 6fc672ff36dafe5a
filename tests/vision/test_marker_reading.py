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


@pytest.mark.parametrize("inside", ["black", "white", "noise"])
def test_an_outline_with_no_code_reads_as_nothing(inside):
    cells = np.zeros((6, 6), np.uint8)
    if inside == "white":
        cells[1:-1, 1:-1] = 255
    elif inside == "noise":
        cells[1:-1, 1:-1] = np.random.default_rng(4).integers(60, 140, (4, 4))
    image, corners = _scene(cells, 3.0, 10.0, 1.0, 5)
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
