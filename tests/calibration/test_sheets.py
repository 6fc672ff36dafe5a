"""Printable sheets: rasterise each one (PNG as written; SVG and PDF read back from the file), decode the
markers with cv2.aruco and check ids and printed sizes to within 1%, the 2-inch ruler, and the grids."""
from __future__ import annotations

import math
import shutil
import struct
import subprocess

import cv2
import numpy as np
import pytest

from calibration.sheet_output import rasterise, to_pdf, to_png, to_svg, write_sheet
from calibration.sheets import (Box, Line, SheetError, Text, anchors_sheet, charuco_sheet, grid_sheet,
                                markers_sheet)
from tests.calibration.sheet_readback import page_from_pdf, page_from_svg

DPI = 150


def _decode(img: np.ndarray, dictionary: str):
    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    detector = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, dictionary)), params)
    corners, ids, _ = detector.detectMarkers(img)
    assert ids is not None, "no marker decoded"
    return {int(i): c.reshape(4, 2) for i, c in zip(ids.ravel(), corners)}


def _png_dpi(png: bytes) -> float:
    at = png.index(b"pHYs")
    ppm_x, ppm_y, unit = struct.unpack(">IIB", png[at + 4:at + 13])
    assert unit == 1 and ppm_x == ppm_y
    return ppm_x * 0.0254


def _as_image(page, fmt: str):
    """What the written file holds, as pixels at DPI."""
    if fmt == "png":
        png = to_png(page, DPI)
        assert _png_dpi(png) == pytest.approx(DPI, rel=1e-4)
        return cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_COLOR)
    back = page_from_svg(to_svg(page)) if fmt == "svg" else page_from_pdf(to_pdf(page))
    assert (back.width_in, back.height_in) == pytest.approx((page.width_in, page.height_in), abs=1e-3)
    return rasterise(back, DPI)


SHEETS = {
    "anchors": (lambda: anchors_sheet("a4"), "DICT_4X4_50"),
    "markers-0.75": (lambda: markers_sheet(list(range(10, 30)), "letter", 0.75), "DICT_4X4_50"),
    "markers-1-rim": (lambda: markers_sheet([10, 11, 12, 40, 49], "a4", 1.0, rim_rgb=(200, 40, 40)),
                      "DICT_4X4_50"),
    "markers-apriltag": (lambda: markers_sheet([0, 7, 300], "a4", 1.0, "DICT_APRILTAG_36h11"),
                         "DICT_APRILTAG_36h11"),
    "charuco": (lambda: charuco_sheet("letter"), "DICT_6X6_250"),
}


@pytest.mark.parametrize("fmt", ["png", "svg", "pdf"])
@pytest.mark.parametrize("sheet", sorted(SHEETS))
def test_markers_decode_with_their_ids_at_their_printed_size(sheet, fmt):
    make, dictionary = SHEETS[sheet]
    page = make()
    img = _as_image(page, fmt)
    found = _decode(img, dictionary)
    assert set(found) == {m.marker_id for m in page.markers}
    for m in page.markers:
        c = found[m.marker_id] / DPI                        # inches on the page
        sides = np.linalg.norm(np.roll(c, -1, axis=0) - c, axis=1)
        assert sides == pytest.approx(m.size_in, rel=0.01)
        # Upright, at the place the layout says (TL corner first in OpenCV's order).
        assert c[0] == pytest.approx((m.x_in, m.y_in), abs=0.01 * m.size_in + 1 / DPI)


@pytest.mark.parametrize("fmt", ["png", "svg", "pdf"])
@pytest.mark.parametrize("make", [anchors_sheet, charuco_sheet, grid_sheet,
                                  lambda paper: markers_sheet([10], paper)])
@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_every_sheet_has_a_two_inch_ruler(make, paper, fmt):
    page = make(paper=paper)
    img = _as_image(page, fmt)
    x, y, length = page.ruler
    assert length == 2.0
    row = img[int((y + 0.04) * DPI), :, 0] < 128
    start = int(round(x * DPI))
    assert row[start] and not row[start - 2]
    run = np.argmin(row[start:])                      # the bar's dark run from its left end
    assert run / DPI == pytest.approx(2.0, rel=0.01)


def test_every_marker_has_its_id_beside_it_and_a_cut_line_round_it():
    page = markers_sheet([10, 11, 12], "a4", 1.0)
    texts = [t for t in page.items if isinstance(t, Text)]
    cuts = [i for i in page.items if isinstance(i, Line) and i.dash_in > 0 and i.closed]
    for m in page.markers:
        label = [t for t in texts if t.text == f"id {m.marker_id}"]
        assert len(label) == 1
        assert abs(label[0].x_in - (m.x_in + m.size_in / 2)) < 1e-9 and 0 < label[0].y_in - (m.y_in + m.size_in) < 0.6
        # The cut line encloses the marker with a white quiet zone of at least one marker cell.
        xs = [[p[0] for p in c.points] for c in cuts]
        around = [c for c, x in zip(cuts, xs) if min(x) < m.x_in < max(x)
                  and min(p[1] for p in c.points) < m.y_in < max(p[1] for p in c.points)]
        assert len(around) == 1
        quiet = m.x_in - min(p[0] for p in around[0].points)
        assert quiet >= m.size_in / 6


def test_charuco_sheet_is_a_board_opencv_finds_at_the_printed_square_size():
    page = charuco_sheet("a4", (5, 7), 1.1, 0.8, "DICT_6X6_250")
    img = rasterise(page, DPI)
    board = cv2.aruco.CharucoBoard((5, 7), 1.1, 0.8, cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_6X6_250))
    corners, ids, _, _ = cv2.aruco.CharucoDetector(board).detectBoard(img)
    assert ids is not None and len(ids) == 24
    # The 4x6 inner corners sit one square apart.
    grid = corners.reshape(-1, 2)[np.argsort(ids.ravel())].reshape(6, 4, 2) / DPI
    spacing = np.concatenate([np.linalg.norm(np.diff(grid, axis=0), axis=2).ravel(),
                              np.linalg.norm(np.diff(grid, axis=1), axis=2).ravel()])
    assert spacing == pytest.approx(1.1, rel=0.01)
    assert any("--charuco 5x7 --square 1.1in --marker 0.8in --dict DICT_6X6_250" in t.text
               for t in page.items if isinstance(t, Text))


@pytest.mark.parametrize("fmt", ["png", "svg", "pdf"])
@pytest.mark.parametrize("pitch", [1.0, 0.75])
def test_square_grid_lines_are_one_pitch_apart(fmt, pitch):
    page = grid_sheet("a4", "square", pitch)
    img = _as_image(page, fmt)
    # Sample one row through the grid's middle: the dark columns are the vertical lines.
    verticals = [i for i in page.items if isinstance(i, Line) and i.dash_in == 0
                 and i.points[0][0] == i.points[1][0] and i.points[1][1] - i.points[0][1] > pitch]
    y = (verticals[0].points[0][1] + verticals[0].points[1][1]) / 2 + 0.5 * pitch * 0.37
    dark = img[int(y * DPI), :, 0] < 160
    edges = np.flatnonzero(np.diff(dark.astype(int)) == 1)
    centres = np.array([e + 1 + np.argmin(dark[e + 1:]) / 2 for e in edges])[:len(verticals)]
    assert len(centres) == len(verticals) >= 6
    assert np.diff(centres) / DPI == pytest.approx(pitch, rel=0.01)


@pytest.mark.parametrize("orientation", ["flat", "pointy"])
def test_hexes_are_one_pitch_flat_to_flat_and_stay_inside_the_cut_line(orientation):
    page = grid_sheet("letter", "hex", 1.0, orientation)
    hexes = [i for i in page.items if isinstance(i, Line) and i.closed and i.dash_in == 0]
    cut = [i for i in page.items if isinstance(i, Line) and i.dash_in > 0][0]
    cx0, cy0 = cut.points[0]
    cx1, cy1 = cut.points[2]
    assert len(hexes) >= 40
    for h in hexes:
        p = np.array(h.points)
        assert len(p) == 6
        flat_to_flat = [np.linalg.norm((p[i] + p[(i + 1) % 6]) / 2 - (p[i + 3] + p[(i + 4) % 6]) / 2) for i in range(3)]
        assert flat_to_flat == pytest.approx([1.0] * 3, rel=1e-9)
        assert p[:, 0].min() >= cx0 - 1e-9 and p[:, 0].max() <= cx1 + 1e-9
        assert p[:, 1].min() >= cy0 - 1e-9 and p[:, 1].max() <= cy1 + 1e-9
    # Neighbouring hexes share edges: the centres lie one pitch apart.
    centres = np.array([np.mean(h.points, axis=0) for h in hexes])
    d = np.linalg.norm(centres[:, None] - centres[None], axis=2)
    np.fill_diagonal(d, np.inf)
    assert d.min(axis=1) == pytest.approx(1.0, rel=1e-9)


def test_written_files_carry_the_paper_size(tmp_path):
    page = anchors_sheet("letter")
    write_sheet(page, tmp_path / "a.pdf")
    write_sheet(page, tmp_path / "a.svg")
    write_sheet(page, tmp_path / "a.png", dpi=72)
    assert b"/MediaBox [0 0 612 792]" in (tmp_path / "a.pdf").read_bytes()
    assert 'width="8.5in" height="11in"' in (tmp_path / "a.svg").read_text()
    assert cv2.imread(str(tmp_path / "a.png")).shape == (792, 612, 3)
    a4 = page_from_pdf(to_pdf(anchors_sheet("a4")))
    assert (a4.width_in * 25.4, a4.height_in * 25.4) == pytest.approx((210, 297), abs=0.01)


def test_text_with_pdf_special_characters_stays_a_valid_pdf():
    page = markers_sheet([10], "a4")
    page = type(page)(page.width_in, page.height_in, "a (tricky) \\ title", page.items + (Text(1, 1, "x(y)z\\"),))
    data = to_pdf(page)
    assert b"(x\\(y\\)z\\\\) Tj" in data
    page_from_pdf(data)


@pytest.mark.parametrize("call, message", [
    (lambda: markers_sheet(list(range(10, 50)), "a4", 1.0), r"40 markers of 1 in do not fit on one a4 sheet \(at most"),
    (lambda: markers_sheet([], "a4"), "no marker ids"),
    (lambda: markers_sheet([3, 3], "a4"), "listed twice"),
    (lambda: markers_sheet([50], "a4"), r"marker id 50 is not in DICT_4X4_50 \(ids 0-49\)"),
    (lambda: markers_sheet([1], "a4", 0.1), "too small"),
    (lambda: markers_sheet([1], "a4", 1.0, "DICT_NOPE"), "unknown marker dictionary 'DICT_NOPE'"),
    (lambda: anchors_sheet("a3"), "paper 'a3'"),
    (lambda: charuco_sheet("a4", (5, 7), 2.0, 1.0), "does not fit"),
    (lambda: charuco_sheet("a4", (5, 7), 1.0, 1.2), "must be smaller than the square"),
    (lambda: grid_sheet("a4", "triangle"), "grid kind 'triangle'"),
    (lambda: grid_sheet("a4", "square", 0.1), "grid pitch"),
    (lambda: grid_sheet("a4", "hex", 1.0, "sideways"), "orientation 'sideways'"),
    (lambda: rasterise(anchors_sheet(), 5), "dpi 5"),
])
def test_sheets_that_cannot_be_made_say_why(call, message):
    with pytest.raises(SheetError, match=message):
        call()


def test_a_marker_is_one_seamless_path_of_cells():
    page = anchors_sheet()
    marker_boxes = [i for i in page.items if isinstance(i, Box) and i.rgb == (0, 0, 0) and len(i.rects) > 1]
    assert len(marker_boxes) == 4
    for box, m in zip(marker_boxes, page.markers):
        area = sum(w * h for _, _, w, h in box.rects)
        cell = m.size_in / 6
        assert all(math.isclose(h, cell) for _, _, _, h in box.rects)
        assert cell ** 2 * 20 <= area <= m.size_in ** 2 - cell ** 2   # border (20 cells) plus some bits


@pytest.mark.skipif(shutil.which("pdftoppm") is None, reason="poppler's pdftoppm is not installed")
@pytest.mark.parametrize("sheet", ["anchors", "markers-1-rim", "charuco"])
def test_an_independent_pdf_renderer_agrees(tmp_path, sheet):
    """Poppler (when present) reads our PDF writer's files to the same markers at the same sizes."""
    make, dictionary = SHEETS[sheet]
    page = make()
    (tmp_path / "s.pdf").write_bytes(to_pdf(page))
    subprocess.run(["pdftoppm", "-r", str(DPI), "-png", "-singlefile", str(tmp_path / "s.pdf"),
                    str(tmp_path / "s")], check=True)
    img = cv2.imread(str(tmp_path / "s.png"))
    assert np.allclose(img.shape[:2], (page.height_in * DPI, page.width_in * DPI), atol=1)
    found = _decode(img, dictionary)
    assert set(found) == {m.marker_id for m in page.markers}
    for m in page.markers:
        c = found[m.marker_id] / DPI
        assert np.linalg.norm(np.roll(c, -1, axis=0) - c, axis=1) == pytest.approx(m.size_in, rel=0.01)
