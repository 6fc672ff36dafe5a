"""The printed grid: pitch within 0.5%, phase within 0.05 in, the right kind and orientation, cells
for figures, and no grid read from plain felt, terrain or markers."""
from __future__ import annotations

import math

import numpy as np
import pytest

from calibration.profile import Anchor, GridSpec, TableProfile
from measure.grid import cell_centre, cell_of
from measure.scene import Grid
from vision.grid import GRID_PPI, find_grid, lattice_vectors, phase_error_in
from vision.imageio import read_image
from vision.pipeline import FramePipeline, to_gray
from vision.topview import warp_top_view
from pathlib import Path

DATA = Path(__file__).parent.parent / "data"


def _gridded(table_set):
    return [(p, prof, r) for p, prof, r in table_set if p.truth.grid is not None]


def test_pitch_phase_and_kind(table_set):
    rows = _gridded(table_set)
    assert len(rows) >= 6
    for photo, profile, result in rows:
        truth, found = photo.truth.grid, result.scene.grid
        assert found is not None, f"grid missed ({truth.kind} {truth.orientation})"
        assert found.kind == truth.kind and found.orientation == truth.orientation
        assert abs(found.pitch_in / truth.pitch_in - 1) <= 0.005
        assert phase_error_in(found, truth) <= 0.05
        assert abs(found.angle_deg - truth.angle_deg) <= 0.2


def test_orientation_found_without_the_profile_saying(table_set):
    for photo, profile, result in _gridded(table_set):
        if photo.truth.grid.kind != "hex":
            continue
        view = warp_top_view(to_gray(photo.image), result.registration.H_in_to_px, GRID_PPI,
                             (0, 0, profile.width_in, profile.depth_in))
        fit = find_grid(view.image, GRID_PPI, kind="hex", pitch_in=1.0)
        assert fit is not None and fit.grid.orientation == photo.truth.grid.orientation


def test_figures_get_their_space(table_set):
    """The found cell is the truth's space (the same place on the table) for nearly every figure;
    only a figure within a few hundredths of a cell edge may land next door."""
    agree, total = 0, 0
    for photo, profile, result in _gridded(table_set):
        truth = {f.id: f for f in photo.truth.figures}
        g_found, g_truth = result.scene.grid, photo.truth.grid
        for fig in result.scene.figures:
            if fig.detected_by != "marker" or fig.id not in truth:
                continue
            assert fig.cell is not None
            t = truth[fig.id]
            found_centre = cell_centre(g_found, fig.cell)
            truth_centre = cell_centre(g_truth, cell_of(g_truth, (t.x, t.y)))
            total += 1
            agree += np.hypot(*(found_centre - truth_centre)) < 0.1
    assert total >= 30 and agree / total >= 0.95


def test_no_grid_on_plain_felt_terrain_and_markers(table_set):
    plain = [(p, prof, r) for p, prof, r in table_set if p.truth.grid is None]
    assert plain
    for photo, profile, result in plain:
        assert result.scene.grid is None
        view = warp_top_view(to_gray(photo.image), result.registration.H_in_to_px, GRID_PPI,
                             (0, 0, profile.width_in, profile.depth_in))
        for kind in ("square", "hex"):
            for pitch in (0.75, 1.0, 1.5):
                assert find_grid(view.image, GRID_PPI, kind=kind, pitch_in=pitch) is None
        assert find_grid(view.image, GRID_PPI) is None        # any kind, 0.5 to 3 in


def test_real_photo_markers_do_not_read_as_a_grid():
    """OpenCV's singlemarkersoriginal.jpg (marker 23 as the anchor): six markers on paper, a box, a
    desk. With a grid declared in the profile, none is found."""
    image = read_image(DATA / "real" / "singlemarkersoriginal.jpg")
    for spec in (GridSpec("square", 1.0), GridSpec("hex", 1.0), GridSpec("square", 0.5)):
        profile = TableProfile("real", 40.0, 30.0, dictionary="DICT_6X6_250", anchors=(Anchor(23, 20.0, 15.0, 1.0),),
                               grid=spec)
        assert FramePipeline(profile).process(image).scene.grid is None


@pytest.mark.parametrize("grid", [Grid("square", 1.0, (0.3, 0.7), 0.0),
                                  Grid("hex", 1.0, (0.2, 0.4), 0.0, "flat"),
                                  Grid("hex", 1.25, (0.9, 0.1), 5.0, "pointy")])
def test_phase_error_is_zero_modulo_the_lattice(grid):
    steps = lattice_vectors(grid)
    for a, b in ((0, 0), (3, -2), (-1, 5)):
        moved = Grid(grid.kind, grid.pitch_in, tuple(np.asarray(grid.origin) + a * steps[0] + b * steps[1]),
                     grid.angle_deg, grid.orientation)
        assert phase_error_in(moved, grid) < 1e-9
    half = Grid(grid.kind, grid.pitch_in, tuple(np.asarray(grid.origin) + steps[0] / 2), grid.angle_deg,
                grid.orientation)
    assert math.isclose(phase_error_in(half, grid), np.hypot(*steps[0]) / 2, rel_tol=1e-9)


def test_a_grid_of_known_pitch_corrects_the_scale_of_misplaced_anchors():
    """The profile puts the anchors 1% too close to the table's centre (a tape measure misread): the
    printed 1 in grid shows the registration 1% off, and the table frame is rescaled by it."""
    from dataclasses import replace

    from vision.synthetic import profile_for, random_photo, random_table, render_photo

    rng = np.random.default_rng(77)
    table = random_table(rng, n_markers=12, grid="square")
    photo = render_photo(table, random_photo(rng, tilt_deg=15), rng)
    profile = profile_for(table)
    cx, cy = table.width_in / 2, table.depth_in / 2
    misplaced = replace(profile, anchors=tuple(Anchor(a.id, cx + (a.x_in - cx) * 0.99, cy + (a.y_in - cy) * 0.99,
                                                      a.size_in) for a in profile.anchors))
    scene = FramePipeline(misplaced).process(photo.image).scene
    check = scene.extra["grid_check"]
    assert check["rescaled"] and abs(check["scale_error_pct"] + 1.0) < 0.1
    truth = {f.id: f for f in photo.truth.figures}
    errors = [np.hypot(f.x - truth[f.id].x, f.y - truth[f.id].y) for f in scene.figures]
    assert len(errors) >= 11 and max(errors) <= 0.06          # without the rescale: up to 0.2 in
    assert scene.grid.pitch_in == 1.0 and phase_error_in(scene.grid, photo.truth.grid) <= 0.05
    assert 0 <= scene.grid.origin[0] < 1 and 0 <= scene.grid.origin[1] < 1
