"""Figure markers no threshold outlines (motion blur of well over a cell merges a marker's thin
white margin with a mottled mat) are found in the table's top view as dark squares of a marker's
size on a lighter card and read by pattern - the roster's missing markers only, and nothing from
a dark square that holds no code."""
from __future__ import annotations

import cv2
import numpy as np
import pytest

from calibration.profile import RosterEntry, TableProfile, standard_anchors
from calibration.registration import Registration
from vision.markers import MarkerFinder
from vision.topview import TopView

DICT = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
SIZE_IN = 0.75
WIDTH_IN, DEPTH_IN = 10.0, 6.0
MARKERS = ((7, 2.0, 2.0, 15.0), (23, 5.0, 3.5, 40.0), (31, 8.0, 2.0, -25.0))   # id, x, y, turn (deg)


def _card(marker_id: int | None) -> np.ndarray:
    """A printed figure marker on its white card (8 x 8 cells); None: a plain black square."""
    card = np.full((8, 8), 255, np.uint8)
    card[1:7, 1:7] = 0 if marker_id is None else cv2.aruco.generateImageMarker(DICT, marker_id, 6, borderBits=1)
    return card


def _view(cards, blur_px: float, seed: int, ppi: float, width_in: float = WIDTH_IN) -> TopView:
    """A mottled mat seen from above at `ppi` with cards ((8, 8) cells, x, y, turn) a marker's size,
    smeared by a slanting motion blur of `blur_px` pixels, with sensor noise."""
    rng = np.random.default_rng(seed)
    scale = 4
    w, h = int(width_in * ppi) * scale, int(DEPTH_IN * ppi) * scale
    mottle = rng.normal(110, 35, (h // 24, w // 24)).astype(np.float32)
    canvas = np.clip(cv2.resize(mottle, (w, h), interpolation=cv2.INTER_CUBIC), 40, 200)
    side = int(round(8 / 6 * SIZE_IN * ppi * scale))
    for card, x, y, turn in cards:
        big = cv2.resize(card, (side, side), interpolation=cv2.INTER_NEAREST).astype(np.float32)
        rot = cv2.getRotationMatrix2D((side / 2, side / 2), turn, 1.0)
        rot[:, 2] += (x * ppi * scale - side / 2, y * ppi * scale - side / 2)
        inside = cv2.warpAffine(np.ones_like(big), rot, (w, h))
        canvas = canvas * (1 - inside) + cv2.warpAffine(big * 0.8 + 20, rot, (w, h)) * inside
    small = cv2.resize(canvas, (w // scale, h // scale), interpolation=cv2.INTER_AREA)
    k = int(np.ceil(blur_px)) | 1
    kernel = np.zeros((k, k), np.float32)
    cv2.line(kernel, (0, k - 1), (k - 1, 0), 1.0)
    small = cv2.filter2D(small, -1, kernel / kernel.sum())
    return TopView(np.clip(small + rng.normal(0, 3, small.shape), 0, 255).astype(np.uint8), ppi, (0.0, 0.0))


def _finder(roster_ids, width_in: float = WIDTH_IN) -> MarkerFinder:
    return MarkerFinder(TableProfile("Blurred markers", width_in, DEPTH_IN, figure_marker_size_in=SIZE_IN,
                                     anchors=standard_anchors(width_in, DEPTH_IN, 1.0),
                                     roster=tuple(RosterEntry(f"m{m}") for m in roster_ids)))


def _registration(view: TopView) -> Registration:
    return Registration(np.diag([1 / view.ppi, 1 / view.ppi, 1.0]), "anchors-ransac", (0, 1, 2, 3), (), 0.1,
                        view.image.shape[::-1])


def _found(finder: MarkerFinder, view: TopView) -> dict[int, np.ndarray]:
    found = finder.find_figures(view, _registration(view))
    return {int(m): xy for m, xy in zip(found.marker_id, found.xy_in)}


@pytest.mark.parametrize("seed", [0, 2])
def test_markers_smeared_over_a_cell_are_read_from_their_dark_squares(seed):
    _assert_all_read_in_place(MARKERS, seed)


def _assert_all_read_in_place(markers, seed: int) -> None:
    """Markers (id, x, y, turn) on their cards, the roster's, smeared by a slanting blur of 8 px (1.3
    cells): each is read, within 0.05 in of its place."""
    finder = _finder([m for m, *_ in markers])
    view = _view([(_card(m), x, y, t) for m, x, y, t in markers], 8.0, seed, finder.view_px_per_in)
    found = _found(finder, view)
    assert set(found) == {m for m, *_ in markers}
    for m, x, y, _t in markers:
        assert np.hypot(*(found[m] - (x, y))) <= 0.05


def test_only_the_rosters_missing_markers_are_read_and_a_square_with_no_code_is_nothing():
    finder = _finder([7, 31])                                           # 23 is no figure of this table
    cards = [(_card(m), x, y, t) for m, x, y, t in MARKERS] + [(_card(None), 3.5, 4.5, 30.0),
                                                                (_card(None), 7.0, 4.5, 0.0)]
    view = _view(cards, 8.0, 0, finder.view_px_per_in)
    assert set(_found(finder, view)) == {7, 31}
    assert _found(_finder([7, 31, 40, 41]), view).keys() == {7, 31}     # missing 40, 41: not made up


def test_a_tracked_window_reads_the_marker_last_seen_in_it_and_no_other():
    """A tracked frame searches windows round the figures' last places: the marker expected in a
    window is read by pattern when the threshold cannot read it (a shaken frame must not report
    it hidden); a window expects nothing else, and a search tile reads nothing by pattern."""
    finder = _finder([m for m, *_ in MARKERS])
    view = _view([(_card(m), x, y, t) for m, x, y, t in MARKERS], 8.0, 2, finder.view_px_per_in)
    registration = Registration(np.diag([1 / view.ppi, 1 / view.ppi, 1.0]), "anchors-ransac", (0, 1, 2, 3), (),
                                0.1, view.image.shape[::-1])
    around = [(x - 1.4, y - 1.4, x + 1.4, y + 1.4) for _m, x, y, _t in MARKERS]

    def read(expected):
        found = finder.find_figures(view, registration, around, expected)
        return {int(m): xy for m, xy in zip(found.marker_id, found.xy_in)}

    found = read([frozenset({m}) for m, *_ in MARKERS])
    assert set(found) == {m for m, *_ in MARKERS}
    assert all(np.hypot(*(found[m] - (x, y))) <= 0.05 for m, x, y, _t in MARKERS)
    assert set(read([frozenset({40})] * 3)) <= {7}            # 7 reads by threshold alone; 40 is not there
    assert set(read([frozenset()] * 3)) <= {7}


@pytest.mark.parametrize("markers, seed", [
    # a blob between the marker's and its card's size: read once brought to the printed size
    (((27, 2.0, 2.0, 40.0), (24, 5.0, 3.5, -17.0), (38, 8.0, 2.0, -7.0)), 0),
    # ink fallen apart round white bits (38 and 21): all its pieces in the middle make the square
    (((21, 2.0, 2.0, -21.0), (38, 5.0, 3.5, 23.0), (22, 8.0, 2.0, -20.0)), 3),
    (((10, 2.0, 2.0, -9.0), (44, 5.0, 3.5, -18.0), (38, 8.0, 2.0, 31.0)), 27),
    # an edge of white bits lost to the blur (23 and 20): a square flush with the blob's other edge
    (((45, 2.0, 2.0, 14.0), (23, 5.0, 3.5, -23.0), (47, 8.0, 2.0, 24.0)), 14),
    (((20, 2.0, 2.0, -29.0), (38, 5.0, 3.5, -9.0), (10, 8.0, 2.0, -44.0)), 16),
])
def test_smeared_markers_whose_ink_falls_apart_or_loses_an_edge_are_read(markers, seed):
    """A slanting blur of 1.3 cells: where white bits lie along the border, the thin black border
    between them greys past the threshold, so that a marker's dark blob is a square less a strip, or
    pieces round its white bits, or a square of neither the marker's nor its card's size."""
    _assert_all_read_in_place(markers, seed)


@pytest.mark.parametrize("seed", [0, 2])
def test_a_plain_black_square_on_a_white_card_is_no_dark_id(seed):
    """A black square on a white card has a marker's frame and no code. Smeared by 1.3 cells, its
    cells correlate 0.9 with the darkest ids' patterns (17: four white bits of 16; 28 and 35: five)
    through the frame alone; a read must show its bits too."""
    finder = _finder([17, 28, 35])
    cards = [(_card(None), 2.0, 2.0, 10.0 + 7 * seed), (_card(None), 5.0, 3.5, -30.0 + 5 * seed),
             (_card(None), 8.0, 2.0, 0.0)]
    assert _found(finder, _view(cards, 8.0, seed, finder.view_px_per_in)) == {}


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_frames_missing_roster_markers_are_read_from_their_dark_squares(seed):
    """A 1080p frame's search (the frame itself, not a top view): markers at 3 px a cell smeared
    by 1.3 cells are outlined by no threshold; the table's top view (any resolution) shows their
    dark squares, each read in a window of the frame at the markers' resolution."""
    ppi = 24.0
    finder = _finder([m for m, *_ in MARKERS])
    frame = _view([(_card(m), x, y, t) for m, x, y, t in MARKERS], 4.0, seed, ppi)
    registration = _registration(frame)
    search = finder.scan(frame.image)
    assert len(finder.figures_in_frame(search, frame.image, registration)) == 0
    found = finder.figures_in_frame(search, frame.image, registration, table_view=lambda: frame)
    assert sorted(found.marker_id.tolist()) == sorted(m for m, *_ in MARKERS)
    for m, xy in zip(found.marker_id, found.xy_in):
        x, y = next((x, y) for mm, x, y, _t in MARKERS if mm == m)
        assert np.hypot(*(xy - (x, y))) <= 0.05


def test_a_dark_patch_at_the_views_edge_is_read_without_error():
    """A dark patch of the mat at the view's edge taken for a square: the outline of its card, or
    the square flush with its blob, reaches past the view, where no corner can be refined (OpenCV
    raises for a corner off the image); it is read as it is."""
    finder = _finder([7, 26, 13, 41, 9, 49], 14.0)
    view = _view([(_card(7), 2.0, 2.0, -27.7)], 6.0, 5, finder.view_px_per_in, 14.0)
    assert set(_found(finder, view)) == {7}


def test_a_table_partly_off_a_1080p_frame_reads_its_dark_squares_without_error():
    """The camera sees only part of the table: the table's top view repeats the frame's edge pixels
    past it, and a dark thing at that edge becomes a dark band there. Nothing past the frame is read
    (its window of the frame would be empty); the marker in view still is."""
    ppi = 24.0
    finder = _finder([7, 9])
    seen = _view([(_card(7), 2.0, 2.0, 15.0)], 4.0, 0, ppi, 6.0)       # x < 6 in of a 10 in table
    frame = seen.image.copy()
    frame[int(3.0 * ppi):int(3.75 * ppi), -int(0.5 * ppi):] = 25        # a dark thing at the frame's edge
    registration = _registration(seen)
    view = TopView(cv2.warpPerspective(frame, np.eye(3), (int(WIDTH_IN * ppi), int(DEPTH_IN * ppi)),
                                       borderMode=cv2.BORDER_REPLICATE), ppi, (0.0, 0.0))
    found = finder.figures_in_frame(finder.scan(frame), frame, registration, table_view=lambda: view)
    assert found.marker_id.tolist() == [7]


def test_a_missing_marker_is_read_before_darker_bodies_with_no_card_round_them():
    """Figures' dark bodies on the mat are darker squares of a marker's size than a marker itself
    (its white bits lighten it), so by darkness alone a missing marker ranks behind a dozen of them
    and is never read (DARK_SQUARES_PER_MISSING); its white card, lighter than the table round it,
    puts it first."""
    body = np.full((8, 8), 110, np.uint8)          # the mat's own grey round a black middle
    body[1:7, 1:7] = 0
    places = [(x, y) for y in (1.6, 3.0, 4.4) for x in (2.2, 3.4, 4.6, 5.8, 7.0)]
    marker_at = places.pop(7)
    finder = _finder([7])
    cards = [(body, x, y, 10.0 * k) for k, (x, y) in enumerate(places)] + [(_card(7), *marker_at, 20.0)]
    found = _found(finder, _view(cards, 8.0, 1, finder.view_px_per_in))
    assert set(found) == {7}
    assert np.hypot(*(found[7] - marker_at)) <= 0.05
