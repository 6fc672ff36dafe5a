"""A printed grid on a textured mat (grass, gravel, wood grain) is found; the textures alone are no grid."""
from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from vision.grid import GRID_PPI, MAX_PHASE_CLOSURE_RAD, find_grid, phase_error_in
from measure.scene import Grid

from tests.vision.felt_scenes import PPI, SS, _mat

WIDTH_IN, DEPTH_IN = 36.0, 24.0
ORIGIN = (0.37, 0.21)


def _mat_drawing(mat: str, seed: int):
    """(rng, ppi, shape, image): a textured mat drawn at the drawing's resolution, and its random
    numbers for what is printed on it."""
    rng = np.random.default_rng(seed)
    ppi = PPI * SS
    shape = (int(DEPTH_IN * ppi), int(WIDTH_IN * ppi))
    return rng, ppi, shape, _mat(rng, mat, shape)


def _as_view(image: np.ndarray) -> np.ndarray:
    """The drawing as the camera's gray top view at GRID_PPI (area-averaged, a little blurred)."""
    view = cv2.resize(np.clip(image, 0, 255).astype(np.uint8), (int(WIDTH_IN * GRID_PPI), int(DEPTH_IN * GRID_PPI)),
                      interpolation=cv2.INTER_AREA)
    return cv2.cvtColor(cv2.GaussianBlur(view, (0, 0), 0.8), cv2.COLOR_BGR2GRAY)


def _top_view(mat: str, seed: int, grid: bool, pitch_in: float = 1.0, dark: float = 0.5) -> np.ndarray:
    """Gray top view at GRID_PPI of a textured mat, with thin printed lines (0.03", `dark` as dark as
    the mat: half by default) or none."""
    _rng, ppi, shape, image = _mat_drawing(mat, seed)
    if grid:
        lines = np.zeros(shape, np.float32)
        for k in range(int(WIDTH_IN / pitch_in) + 1):
            x = int(round((ORIGIN[0] + k * pitch_in) * ppi))
            cv2.line(lines, (x, 0), (x, shape[0]), 1.0, 1)
        for k in range(int(DEPTH_IN / pitch_in) + 1):
            y = int(round((ORIGIN[1] + k * pitch_in) * ppi))
            cv2.line(lines, (0, y), (shape[1], y), 1.0, 1)
        image = image * (1 - dark * lines[..., None])
    return _as_view(image)


@pytest.mark.parametrize("mat", ["grass", "gravel", "wood"])
def test_a_square_grid_on_a_textured_mat_is_found(mat):
    fit = find_grid(_top_view(mat, 1, True), GRID_PPI, kind="square", pitch_in=1.0)
    assert fit is not None and fit.grid.kind == "square"
    assert abs(fit.grid.pitch_in - 1.0) < 0.006
    assert abs(fit.grid.angle_deg) < 0.3
    # Lines drawn one pixel of the drawing wide, at the left/top of their nominal place.
    assert phase_error_in(fit.grid, Grid("square", 1.0, ORIGIN, 0.0)) < 0.06


@pytest.mark.parametrize("mat, pitch_in, seed", [("wood", 1.0, 1), ("wood", 1.0, 2), ("grass", 1.5, 3)])
def test_a_faint_square_grid_is_found_by_its_lines_harmonics(mat, pitch_in, seed):
    """Lines printed 30% dark: their first peaks sink into the mat's texture, which is strongest at
    low frequencies. Thin lines put as much again at twice the frequency along each family (not on
    the diagonal, where only their crossings show): the two together stand out."""
    fit = find_grid(_top_view(mat, seed, True, pitch_in, dark=0.3), GRID_PPI, kind="square", pitch_in=pitch_in)
    assert fit is not None and fit.grid.kind == "square"
    assert abs(fit.grid.pitch_in / pitch_in - 1) < 0.006
    assert abs(fit.grid.angle_deg) < 0.3
    assert phase_error_in(fit.grid, Grid("square", pitch_in, ORIGIN, 0.0)) < 0.2


@pytest.mark.parametrize("mat", ["grass", "gravel", "wood", "plain"])
def test_a_textured_mat_alone_is_no_grid(mat):
    view = _top_view(mat, 2, False)
    assert find_grid(view, GRID_PPI, kind="square", pitch_in=1.0) is None
    assert find_grid(view, GRID_PPI) is None


def _hex_view(mat: str, seed: int, pitch_in: float, faded: float, family: int = 0,
              smeared_in: float = 0.0) -> np.ndarray:
    """Gray top view of a flat-topped honeycomb (pitch = flat to flat) printed on a textured mat; one
    of its three families of edges (`family`) printed `faded` as dark as the others and, as a motion
    blur across them smears them out, `smeared_in` wide (else thin)."""
    _rng, ppi, shape, image = _mat_drawing(mat, seed)
    lines = np.zeros(shape, np.float32)
    r = pitch_in / math.sqrt(3)                       # circumradius
    step = np.array([[1.5 * r, math.sqrt(3) / 2 * r], [0.0, math.sqrt(3) * r]])
    corners = np.column_stack([np.cos(np.radians(np.arange(7) * 60.0)), np.sin(np.radians(np.arange(7) * 60.0))]) * r
    n = int(WIDTH_IN / (1.5 * r)) + 3
    for q in range(-n, n + 1):
        for k in range(-n, n + 1):
            c = np.array([q, k]) @ step + ORIGIN
            if not (-1 < c[0] < WIDTH_IN + 1 and -1 < c[1] < DEPTH_IN + 1):
                continue
            for e in range(6):                        # edge e runs at 120 + 60 e degrees: e % 3 is its family
                a, b = ((c + corners[e]) * ppi).round().astype(int), ((c + corners[e + 1]) * ppi).round().astype(int)
                if e % 3 == family:
                    cv2.line(lines, tuple(a.tolist()), tuple(b.tolist()), faded, max(1, round(smeared_in * ppi)))
                else:
                    cv2.line(lines, tuple(a.tolist()), tuple(b.tolist()), 1.0, 1)
    return _as_view(image * (1 - 0.5 * lines[..., None]))


@pytest.mark.parametrize("faded", [1.0, 0.3, 0.0])
def test_a_hex_grid_on_grass_is_found_with_one_family_of_edges_faded(faded):
    """A honeycomb is a lattice by two of its peaks: the third (a family of edges smeared out) may
    be gone, and the line energy of the rest still stands over the grass."""
    fit = find_grid(_hex_view("grass", 3, 1.5, faded), GRID_PPI, kind="hex", pitch_in=1.5)
    assert fit is not None and fit.grid.kind == "hex" and fit.grid.orientation == "flat"
    assert abs(fit.grid.pitch_in - 1.5) < 0.01
    assert abs(fit.grid.angle_deg) < 0.3


@pytest.mark.parametrize("mat", ["grass", "gravel", "wood"])
def test_a_textured_mat_alone_is_no_hex_grid_either(mat):
    view = _top_view(mat, 5, False)
    assert all(find_grid(view, GRID_PPI, kind="hex", pitch_in=p) is None for p in (1.0, 1.5, 2.0))


def _plank_view(mat: str, seed: int, pitch_in: float) -> np.ndarray:
    """Gray top view of a plank floor printed on a textured mat: seams one way only, `pitch_in` apart,
    with staggered plank ends across them. One family of lines is no square grid."""
    rng, ppi, shape, image = _mat_drawing(mat, seed)
    lines = np.zeros(shape, np.float32)
    x0 = rng.uniform(0, pitch_in)
    for k in range(int(WIDTH_IN / pitch_in) + 1):
        x = int(round((x0 + k * pitch_in) * ppi))
        cv2.line(lines, (x, 0), (x, shape[0]), 1.0, 1)
        for y in np.cumsum(rng.uniform(4, 10, 6)) - rng.uniform(0, 6):
            y = int(y * ppi)
            cv2.line(lines, (x, y), (int(round((x0 + (k + 1) * pitch_in) * ppi)), y), 1.0, 1)
    return _as_view(image * (1 - 0.5 * lines[..., None]))


@pytest.mark.parametrize("mat,seed,pitch_in", [("plain", 0, 1.0), ("wood", 2, 1.0), ("grass", 1, 1.5),
                                               ("gravel", 3, 1.5)])
def test_one_family_of_lines_is_no_square_grid(mat, seed, pitch_in):
    # a plank's seams fill their own first and second orders; the other family's must show as well
    view = _plank_view(mat, seed, pitch_in)
    assert find_grid(view, GRID_PPI) is None


def _smeared_view(mat: str, seed: int, smear_in: float) -> np.ndarray:
    """Gray top view of a 1" square grid (lines 0.03", half as dark as the mat) shaken across its
    horizontal lines: each smeared over `smear_in` of table."""
    _rng, ppi, shape, image = _mat_drawing(mat, seed)
    lines = np.zeros(shape, np.float32)
    for k in range(int(WIDTH_IN) + 1):
        x = int(round((ORIGIN[0] + k) * ppi))
        cv2.line(lines, (x, 0), (x, shape[0]), 1.0, 1)
    for k in range(int(DEPTH_IN) + 1):
        y = int(round((ORIGIN[1] + k) * ppi))
        cv2.line(lines, (0, y), (shape[1], y), 1.0, 1)
    image = (image * (1 - 0.5 * lines[..., None])).astype(np.float32)
    return _as_view(cv2.blur(image, (1, int(round(smear_in * ppi)))))


@pytest.mark.parametrize("mat, smear_in", [("plain", 0.45), ("wood", 0.5), ("grass", 0.35), ("gravel", 0.3)])
def test_a_square_grid_shaken_across_one_family_of_lines_is_found(mat, smear_in):
    """A line smeared to about the narrow black-hat's width shows there only as its two edges, whose
    first-order peaks cancel: the wider filter sees the line whole."""
    fit = find_grid(_smeared_view(mat, 1, smear_in), GRID_PPI, kind="square", pitch_in=1.0)
    assert fit is not None and fit.grid.kind == "square"
    assert abs(fit.grid.pitch_in - 1.0) < 0.006
    assert phase_error_in(fit.grid, Grid("square", 1.0, ORIGIN, 0.0)) < 0.1


@pytest.mark.parametrize("mat, smeared_in, faded", [("grass", 0.25, 0.25), ("plain", 0.35, 0.2)])
def test_a_honeycomb_with_one_family_smeared_keeps_its_origin(mat, smeared_in, faded):
    """A honeycomb's three first-order phases close (p0 + p120 - p60 = pi). A family smeared to the
    thin lines' filter's width shows there as its edges, its phase half a turn off and the origin
    with it; the wider filter's phases close, and its origin is taken."""
    fit = find_grid(_hex_view(mat, 1, 1.5, faded, family=1, smeared_in=smeared_in), GRID_PPI, kind="hex",
                    pitch_in=1.5, orientation="flat")
    assert fit is not None and fit.grid.kind == "hex" and abs(fit.grid.pitch_in / 1.5 - 1) < 0.01
    assert abs(fit.phase_closure_rad) <= MAX_PHASE_CLOSURE_RAD
    assert phase_error_in(fit.grid, Grid("hex", 1.5, ORIGIN, 0.0, "flat")) < 0.15
