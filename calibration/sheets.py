"""Printable sheets laid out in inches: anchors, figure markers, a ChArUco board and a 1-inch grid.

A sheet is a `Page` of a few drawing items (filled rectangles, lines, text) in page inches, origin at
the top-left corner, y down. `calibration.sheet_output` turns a Page into SVG, PDF or PNG at exact
scale. Every sheet carries a 2-inch check ruler so a person can see that the printer did not scale it,
and every marker has its id printed beside it, a white quiet zone and a dashed cut line.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from calibration.profile import ProfileError, aruco_dictionary

RGB = tuple[int, int, int]
BLACK: RGB = (0, 0, 0)
GREY: RGB = (128, 128, 128)

PAPERS_IN = {"a4": (210 / 25.4, 297 / 25.4), "letter": (8.5, 11.0)}
MARGIN_IN = 0.5
QUIET_FRACTION = 0.2        # white margin round a marker, as a fraction of its side (> 1 cell for 4x4..6x6)
RULER_IN = 2.0
FOOTER_IN = 0.9             # the bottom band that holds the ruler and its note
HEADER_IN = 0.75


class SheetError(ValueError):
    """A sheet that cannot be laid out as asked; the message says what to change."""


@dataclass(frozen=True)
class Box:
    """Filled axis-aligned rectangles (x, y, w, h) of one colour, drawn as one path (no seams)."""
    rects: tuple[tuple[float, float, float, float], ...]
    rgb: RGB = BLACK


@dataclass(frozen=True)
class Line:
    points: tuple[tuple[float, float], ...]
    width_in: float = 0.01
    rgb: RGB = BLACK
    dash_in: float = 0.0        # 0 = solid; otherwise dash and gap length
    closed: bool = False


@dataclass(frozen=True)
class Text:
    x_in: float                 # start (or middle) of the baseline
    y_in: float
    text: str
    size_pt: float = 9.0
    rgb: RGB = BLACK
    anchor: str = "start"       # "start" or "middle"


@dataclass(frozen=True)
class PlacedMarker:
    """Where a marker's black square lies on the page: for tests and for the reader of a sheet."""
    marker_id: int
    x_in: float                 # top-left corner of the black square
    y_in: float
    size_in: float


@dataclass(frozen=True)
class Page:
    width_in: float
    height_in: float
    title: str
    items: tuple
    markers: tuple[PlacedMarker, ...] = ()
    ruler: tuple[float, float, float] = (0.0, 0.0, 0.0)   # x, y (top of the bar), length in inches


def paper_size_in(paper: str) -> tuple[float, float]:
    try:
        return PAPERS_IN[paper.lower()]
    except KeyError:
        raise SheetError(f"paper {paper!r}: expected one of {', '.join(PAPERS_IN)}") from None


def dictionary_for(name: str):
    try:
        return aruco_dictionary(name)
    except ProfileError:
        raise SheetError(f"unknown marker dictionary {name!r} (use a cv2.aruco name such as DICT_4X4_50)") from None


def marker_box(dictionary: str, marker_id: int, x_in: float, y_in: float, size_in: float) -> Box:
    """The black cells of one ArUco marker (with its 1-cell black border) as merged row runs."""
    dic = dictionary_for(dictionary)
    count = len(dic.bytesList)
    if not 0 <= marker_id < count:
        raise SheetError(f"marker id {marker_id} is not in {dictionary} (ids 0-{count - 1})")
    cells = dic.markerSize + 2
    bits = cv2.aruco.generateImageMarker(dic, marker_id, cells, borderBits=1) == 0
    cell = size_in / cells
    rects = []
    for r in range(cells):
        c = 0
        while c < cells:
            if bits[r, c]:
                start = c
                while c < cells and bits[r, c]:
                    c += 1
                rects.append((x_in + start * cell, y_in + r * cell, (c - start) * cell, cell))
            else:
                c += 1
    return Box(tuple(rects), BLACK)


def _cut_line(x: float, y: float, w: float, h: float) -> Line:
    return Line(((x, y), (x + w, y), (x + w, y + h), (x, y + h)), width_in=0.008, rgb=GREY,
                dash_in=0.06, closed=True)


def check_ruler(x_in: float, y_in: float) -> tuple[list, tuple[float, float, float]]:
    """A 2-inch bar with quarter-inch ticks and a note: the printer's scale check."""
    bar_h = 0.08
    items: list = [Box(((x_in, y_in, RULER_IN, bar_h),), BLACK)]
    for i in range(int(RULER_IN * 4) + 1):
        x = x_in + i * 0.25
        tick = 0.18 if i % 4 == 0 else 0.1
        items.append(Line(((x, y_in + bar_h), (x, y_in + bar_h + tick)), width_in=0.01))
    for inch in range(int(RULER_IN) + 1):
        items.append(Text(x_in + inch, y_in + bar_h + 0.36, f"{inch} in" if inch else "0", 7, anchor="middle"))
    note_x = x_in + RULER_IN + 0.3
    items.append(Text(note_x, y_in + 0.1, f"Check: this bar must measure exactly {RULER_IN:g} in "
                                          f"({RULER_IN * 25.4:.1f} mm).", 8))
    items.append(Text(note_x, y_in + 0.3, "If it does not, print again at 100% / actual size "
                                          "(no fit to page).", 8))
    return items, (x_in, y_in, RULER_IN)


def _frame(paper: str, title: str, subtitle: str) -> tuple[float, float, list, tuple]:
    w, h = paper_size_in(paper)
    items: list = [Text(MARGIN_IN, MARGIN_IN + 0.2, title, 14), Text(MARGIN_IN, MARGIN_IN + 0.45, subtitle, 8)]
    ruler_items, ruler = check_ruler(MARGIN_IN, h - MARGIN_IN - FOOTER_IN + 0.2)
    return w, h, items + ruler_items, ruler


def _marker_grid(paper: str, title: str, subtitle: str, ids: list[int], size_in: float, dictionary: str,
                 label: str, rim_rgb: RGB | None = None) -> Page:
    """Markers in rows: each with its quiet zone, optional colour rim, cut line and id label below."""
    if not ids:
        raise SheetError("no marker ids to print")
    if len(set(ids)) != len(ids):
        raise SheetError("a marker id is listed twice")
    if size_in < 0.25:
        raise SheetError(f"marker size {size_in:g} in is too small to print and detect (0.25 in at least)")
    w, h, items, ruler = _frame(paper, title, subtitle)
    quiet = size_in * QUIET_FRACTION
    rim = 0.0 if rim_rgb is None else max(0.08, size_in * 0.12)
    piece = size_in + 2 * quiet + 2 * rim            # what the cut line encloses
    label_h = 0.25
    gap = 0.1
    top = MARGIN_IN + HEADER_IN
    area_w = w - 2 * MARGIN_IN
    area_h = h - MARGIN_IN - FOOTER_IN - top
    cols = int((area_w + gap) // (piece + gap))
    rows = int((area_h + gap) // (piece + label_h + gap))
    if cols * rows < len(ids):
        raise SheetError(f"{len(ids)} markers of {size_in:g} in do not fit on one {paper} sheet "
                         f"(at most {max(cols * rows, 0)}): print them on several sheets")
    markers = []
    for k, marker_id in enumerate(ids):
        r, c = divmod(k, cols)
        x0 = MARGIN_IN + c * (piece + gap)
        y0 = top + r * (piece + label_h + gap)
        if rim_rgb is not None:
            items.append(Box(((x0, y0, piece, rim), (x0, y0 + piece - rim, piece, rim),
                              (x0, y0 + rim, rim, piece - 2 * rim),
                              (x0 + piece - rim, y0 + rim, rim, piece - 2 * rim)), rim_rgb))
        mx, my = x0 + rim + quiet, y0 + rim + quiet
        items.append(marker_box(dictionary, marker_id, mx, my, size_in))
        items.append(_cut_line(x0, y0, piece, piece))
        items.append(Text(x0 + piece / 2, y0 + piece + 0.17, f"{label} {marker_id}", 8, anchor="middle"))
        markers.append(PlacedMarker(marker_id, mx, my, size_in))
    return Page(w, h, title, tuple(items), tuple(markers), ruler)


def anchors_sheet(paper: str = "a4", ids: tuple[int, ...] = (0, 1, 2, 3), size_in: float = 2.0,
                  dictionary: str = "DICT_4X4_50") -> Page:
    return _marker_grid(
        paper, "tablesight anchors",
        f"{dictionary}, {size_in:g} in squares. Cut on the dashed lines, keep the white border. Lay them square "
        "to the table edges, printed top edge toward the y = 0 edge.",
        list(ids), size_in, dictionary, "anchor")


def markers_sheet(ids: list[int], paper: str = "a4", size_in: float = 1.0, dictionary: str = "DICT_4X4_50",
                  rim_rgb: RGB | None = None) -> Page:
    rim_note = "" if rim_rgb is None else " The coloured rim marks the side."
    return _marker_grid(
        paper, "tablesight figure markers",
        f"{dictionary}, {size_in:g} in squares. Cut on the dashed lines and glue one under or beside each "
        f"figure's base.{rim_note}", list(ids), size_in, dictionary, "id", rim_rgb)


def charuco_sheet(paper: str = "a4", squares: tuple[int, int] = (5, 7), square_in: float = 1.1,
                  marker_in: float = 0.8, dictionary: str = "DICT_6X6_250") -> Page:
    """A ChArUco board for `tablesight calibrate --charuco`; the matching command is printed on it."""
    from calibration.intrinsics import CalibrationError, charuco_board
    w, h, items, ruler = _frame(
        paper, "tablesight ChArUco calibration board",
        f"{squares[0]}x{squares[1]} squares of {square_in:g} in, markers {marker_in:g} in, {dictionary}. "
        "Glue it flat on card.")
    try:
        board = charuco_board(squares, square_in, marker_in, dictionary)
    except CalibrationError as exc:
        raise SheetError(str(exc)) from None
    bw, bh = squares[0] * square_in, squares[1] * square_in
    top = MARGIN_IN + HEADER_IN + 0.3
    if bw > w - 2 * MARGIN_IN or top + bh + 0.3 > h - MARGIN_IN - FOOTER_IN:
        raise SheetError(f"a {squares[0]}x{squares[1]} board of {square_in:g} in squares does not fit on "
                         f"{paper}: use smaller squares")
    x0 = (w - bw) / 2
    ids = board.getIds().ravel()
    corners = board.getObjPoints()
    # Markers sit in the white squares; every other square is black.
    with_marker = set()
    markers, boxes = [], []
    for marker_id, pts in zip(ids, corners):
        mx, my = float(np.min(pts[:, 0])), float(np.min(pts[:, 1]))
        with_marker.add((int(mx // square_in), int(my // square_in)))
        boxes.append(marker_box(dictionary, int(marker_id), x0 + mx, top + my, marker_in))
        markers.append(PlacedMarker(int(marker_id), x0 + mx, top + my, marker_in))
    black = tuple((x0 + c * square_in, top + r * square_in, square_in, square_in)
                  for r in range(squares[1]) for c in range(squares[0]) if (c, r) not in with_marker)
    items.append(Box(black, BLACK))
    items.extend(boxes)
    quiet = 0.25
    items.append(_cut_line(x0 - quiet, top - quiet, bw + 2 * quiet, bh + 2 * quiet))
    items.append(Text(w / 2, top + bh + quiet + 0.25,
                      f"tablesight calibrate --charuco {squares[0]}x{squares[1]} --square {square_in:g}in "
                      f"--marker {marker_in:g}in --dict {dictionary} PHOTOS... --out camera.json", 7,
                      anchor="middle"))
    return Page(w, h, "tablesight ChArUco calibration board", tuple(items), tuple(markers), ruler)


def grid_sheet(paper: str = "a4", kind: str = "square", pitch_in: float = 1.0,
               orientation: str = "flat") -> Page:
    """A square or hex grid (pitch = square side or hex flat-to-flat) filling the page's middle."""
    if kind not in ("square", "hex"):
        raise SheetError(f"grid kind {kind!r}: expected square or hex")
    if orientation not in ("flat", "pointy"):
        raise SheetError(f"hex orientation {orientation!r}: expected flat or pointy")
    if not 0.25 <= pitch_in <= 4:
        raise SheetError(f"grid pitch {pitch_in:g} in: expected between 0.25 and 4 in")
    w, h, items, ruler = _frame(paper, f"tablesight {kind} grid",
                                f"{pitch_in:g} in {kind}{'es' if kind == 'hex' else 's'}. Trim on the dashed "
                                "line to tile sheets edge to edge.")
    x0, y0 = MARGIN_IN, MARGIN_IN + HEADER_IN
    cols = int((w - 2 * MARGIN_IN) // pitch_in)
    rows = int((h - MARGIN_IN - FOOTER_IN - y0) // pitch_in)
    gw, gh = cols * pitch_in, rows * pitch_in
    line_w = 0.01
    if kind == "square":
        for c in range(cols + 1):
            items.append(Line(((x0 + c * pitch_in, y0), (x0 + c * pitch_in, y0 + gh)), line_w))
        for r in range(rows + 1):
            items.append(Line(((x0, y0 + r * pitch_in), (x0 + gw, y0 + r * pitch_in)), line_w))
    else:
        items.extend(_hexes(x0, y0, gw, gh, pitch_in, orientation, line_w))
    items.append(_cut_line(x0, y0, gw, gh))
    return Page(w, h, f"tablesight {kind} grid", tuple(items), (), ruler)


def _hexes(x0, y0, gw, gh, pitch_in, orientation, line_w) -> list[Line]:
    """Whole hexes that fit inside the grid area, flat-to-flat = pitch."""
    side = pitch_in / math.sqrt(3)
    angles = [0, 60, 120, 180, 240, 300] if orientation == "flat" else [30, 90, 150, 210, 270, 330]
    if orientation == "flat":        # columns 1.5 sides apart, every other one half a pitch down
        step_x, step_y, half_w, half_h = 1.5 * side, pitch_in, side, pitch_in / 2
    else:                            # rows 1.5 sides apart, every other one half a pitch across
        step_x, step_y, half_w, half_h = pitch_in, 1.5 * side, pitch_in / 2, side
    out = []
    for i in range(int(gw / step_x) + 2):
        for j in range(int(gh / step_y) + 2):
            if orientation == "flat":
                cx, cy = x0 + half_w + i * step_x, y0 + half_h + j * step_y + (half_h if i % 2 else 0)
            else:
                cx, cy = x0 + half_w + i * step_x + (half_w if j % 2 else 0), y0 + half_h + j * step_y
            if cx + half_w > x0 + gw + 1e-9 or cy + half_h > y0 + gh + 1e-9:
                continue
            pts = tuple((cx + side * math.cos(math.radians(a)), cy + side * math.sin(math.radians(a)))
                        for a in angles)
            out.append(Line(pts, line_w, closed=True))
    return out
