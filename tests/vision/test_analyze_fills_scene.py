"""`tablesight analyze` on a photo it has never seen fills grid, colour figures (with cells) and terrain."""
from __future__ import annotations

import json

import cv2
import numpy as np

from assistant.cli import main
from measure.scene import scene_from_json
from vision.synthetic import random_photo, random_table, render_photo

from tests.vision.scoring import match_colour, terrain_ious


def _toml(table) -> str:
    lines = ['name = "Synthetic"', f"width = {table.width_in}", f"depth = {table.depth_in}", "",
             "[markers]", 'dictionary = "DICT_4X4_50"', "figure_marker_size = 1.0", ""]
    for a in table.anchors:
        lines += ["[[anchors]]", f"id = {a.id}", f"x = {a.x_in}", f"y = {a.y_in}", f"size = {a.size_in}", ""]
    lines += ["[grid]", f'kind = "{table.grid.kind}"', f"pitch = {table.grid.pitch_in}", ""]
    for name, rgb in sorted({(f.side, f.rim_rgb) for f in table.colour_figures}):
        lines += ["[[sides]]", f'name = "{name}"', 'colour = "#%02x%02x%02x"' % rgb, ""]
    for kind, rgb in sorted({(t.kind, t.rgb) for t in table.terrain}):
        lines += ["[[terrain]]", f'kind = "{kind}"', 'colour = "#%02x%02x%02x"' % rgb, ""]
    return "\n".join(lines)


def test_analyze_json_has_grid_colour_figures_cells_and_terrain(tmp_path, capsys):
    rng = np.random.default_rng(2026)
    table = random_table(rng, n_markers=6, n_colour=8, n_terrain=3, grid="hex-pointy")
    photo = render_photo(table, random_photo(rng, tilt_deg=18.0), rng)
    cv2.imwrite(str(tmp_path / "table.jpg"), photo.image, [cv2.IMWRITE_JPEG_QUALITY, 92])
    (tmp_path / "table.toml").write_text(_toml(table))
    assert main(["analyze", str(tmp_path / "table.jpg"), "--table", str(tmp_path / "table.toml"), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["grid"]["kind"] == "hex" and out["grid"]["orientation"] == "pointy"
    assert abs(out["grid"]["pitch"] - 1.0) <= 0.005
    colour = [f for f in out["figures"] if f["detected_by"] == "colour"]
    assert len(colour) == 8 and all(f["side"] in ("red", "blue") and "cell" in f for f in colour)
    scene = scene_from_json(out)                                  # the contract reads it back
    errors, missed, false = match_colour(scene, photo.truth)
    assert missed == 0 and false == [] and max(errors) <= 0.08
    assert np.mean(terrain_ious(scene, photo.truth)) >= 0.9
