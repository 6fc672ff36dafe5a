"""Overlays: the scene drawn onto the frame where the camera sees it; the frame itself untouched."""
from __future__ import annotations

import numpy as np
from shapely.geometry import Polygon

from calibration.registration import Registration
from measure.corridor import corridor
from measure.scene import Figure, Grid, Scene, Table, Terrain
from vision.overlay import BLOCKED_BGR, CLEAR_BGR, Ruler, draw_scene, grid_lines

# A camera straight above a 30 x 20 in table at 20 px per inch, table origin at pixel (50, 40).
PPI = 20.0
REG = Registration(H_px_to_in=np.array([[1 / PPI, 0, -50 / PPI], [0, 1 / PPI, -40 / PPI], [0, 0, 1.0]]),
                   method="anchors-ransac", anchors_seen=(0, 1), anchors_rejected=(), rms_px=0.1,
                   image_size=(700, 500))
FIGS = (Figure("m10", 5.0, 5.0, side="red"), Figure("c1", 15.0, 5.0, side="blue", detected_by="colour"),
        Figure("m11", 25.0, 5.0, side="blue"))
WOODS = Terrain("t1", "woods", Polygon([(8, 10), (14, 10), (14, 16), (8, 16)]))


def _px(x, y):
    return int(round(50 + x * PPI)), int(round(40 + y * PPI))


def _frame():
    return np.full((500, 700, 3), 128, np.uint8)


def test_frame_is_not_changed_and_everything_is_drawn():
    frame = _frame()
    scene = Scene(Table(30, 20), FIGS, (WOODS,), Grid("square", 1.0, (0.5, 0.5)))
    out = draw_scene(frame, scene, REG)
    assert (frame == 128).all() and out.shape == frame.shape and out is not frame
    for fig in FIGS:                                   # the base outline crosses the base's edge
        x, y = _px(fig.x + 0.5, fig.y)
        assert np.abs(out[y - 1:y + 2, x - 1:x + 2].astype(int) - 128).max() > 60
    x, y = _px(11, 10)                                 # the terrain outline
    assert np.abs(out[y - 1:y + 2, x].astype(int) - 128).max() > 60
    x, y = _px(20.5, 15.2)                             # a grid line, away from anything else
    assert np.abs(out[y - 1:y + 2, x].astype(int) - 128).max() > 60
    x, y = _px(20.0, 15.0)                             # a cell's middle stays as it was
    assert (out[y, x] == 128).all()


def test_grid_lines_stay_on_the_table():
    for grid in (Grid("square", 1.0, (0.3, 0.2), 10.0), Grid("hex", 1.0, (0.4, 0.1), 0.0, "pointy")):
        lines = grid_lines(grid, 30, 20)
        pts = np.vstack(lines)
        assert len(lines) > 40
        assert pts.min() >= -1e-9 and pts[:, 0].max() <= 30 + 1e-9 and pts[:, 1].max() <= 20 + 1e-9


def test_ruler_green_when_clear_red_when_blocked_with_the_blocker_outlined():
    scene = Scene(Table(30, 20), FIGS, (WOODS,))
    band = corridor((5, 5), (25, 5), 1.25)
    clear = draw_scene(_frame(), scene, REG, ruler=Ruler(band, True))
    blocked = draw_scene(_frame(), scene, REG, ruler=Ruler(band, False, ("c1",)))
    x, y = _px(10, 5.3)
    assert clear[y, x, 1] > clear[y, x, 2] + 30                 # green tint
    assert blocked[y, x, 2] > blocked[y, x, 1] + 30             # red tint
    x, y = _px(15, 5 - 0.58)                                     # just outside c1's base: the blocker's ring
    ring = blocked[y - 1:y + 2, x].astype(int)
    assert (np.abs(ring - np.array(BLOCKED_BGR)).sum(axis=1) < 90).any()
    assert not (np.abs(clear[y - 1:y + 2, x].astype(int) - np.array(BLOCKED_BGR)).sum(axis=1) < 90).any()
    assert CLEAR_BGR != BLOCKED_BGR


def test_figures_are_labelled_with_their_roster_names_not_ids():
    named = lambda fid, name: Scene(Table(30, 20), (Figure(fid, 5.0, 5.0, side="red", name=name),))   # noqa: E731
    robin = draw_scene(_frame(), named("m10", "Robin"), REG)
    assert (robin == draw_scene(_frame(), named("m12", "Robin"), REG)).all()     # the id is not drawn
    assert (robin != draw_scene(_frame(), named("m10", "Merlin"), REG)).any()    # the name is
