"""The bundled demo table: a KIMMIRIA skirmish photographed by a known camera.

`python -m vision.synthetic.demo OUTDIR` writes photo.jpg, table.toml and truth.json; the copies
shipped in assistant/demo/ were made this way, so the demo needs no camera.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

from calibration.profile import standard_anchors
from measure.scene import scene_to_json
from vision.synthetic.render import FeltPiece, MarkerFigure, PhotoSpec, SyntheticPhoto, TableSpec, render_photo
from vision.synthetic.scenes import TERRAIN_COLOURS

WIDTH_IN, DEPTH_IN = 48.0, 36.0
MARKER_IN = 0.75        # on a 1" base: touching bases leave the markers whole

# marker id, x, y, yaw, name, side, type
ROSTER = (
    (10, 14.5, 21.5, 10, "Robin", "red", "archer"),
    (11, 13.0, 13.5, -20, "Marian", "red", "archer"),
    (12, 10.0, 8.0, 35, "Merlin", "red", "wizard"),
    (13, 30.0, 25.0, 80, "Sir Bors", "red", "knight"),
    (14, 14.0, 27.0, 5, "Tom", "red", "troop"),
    (15, 17.0, 9.0, 60, "Ann", "red", "hero"),
    (20, 22.5, 11.5, 15, "Goblin 1", "blue", "troop"),
    (21, 24.5, 18.5, -40, "Goblin 2", "blue", "troop"),
    (22, 27.0, 6.0, 120, "Goblin 3", "blue", "archer"),
    (23, 25.5, 24.5, 45, "Grak", "blue", "giant"),
    (24, 31.0, 25.0, 200, "Goblin 4", "blue", "troop"),
    (25, 38.0, 21.0, -75, "Snag", "blue", "horse_archer"),
)

TERRAIN = (
    ("t1", "woods", ((18.0, 16.0), (22.0, 15.0), (23.5, 18.5), (21.0, 21.5), (17.5, 20.0))),
    ("t2", "rocks", ((30.0, 5.0), (33.0, 4.5), (33.5, 7.5), (30.5, 8.0))),
    ("t3", "hill", ((33.0, 17.0), (38.0, 16.0), (41.5, 19.0), (39.0, 24.0), (34.0, 23.0))),
    ("t4", "water", ((6.0, 29.0), (11.0, 28.5), (12.0, 32.0), (7.0, 33.0))),
)


def demo_table() -> TableSpec:
    markers = tuple(MarkerFigure(i, x, y, MARKER_IN, yaw) for i, x, y, yaw, *_ in ROSTER)
    terrain = tuple(FeltPiece(tid, kind, poly, TERRAIN_COLOURS[kind]) for tid, kind, poly in TERRAIN)
    return TableSpec(width_in=WIDTH_IN, depth_in=DEPTH_IN, anchors=standard_anchors(WIDTH_IN, DEPTH_IN),
                     marker_figures=markers, terrain=terrain)


def demo_photo() -> SyntheticPhoto:
    photo = PhotoSpec(image_size=(1920, 1080), tilt_deg=18.0, azimuth_deg=95.0, roll_deg=2.0, hfov_deg=60.0,
                      margin=0.03, light_low=0.8, light_high=1.08, light_dir_deg=20.0, vignette=0.2,
                      blur_sigma_px=0.7, noise_sigma=2.5, jpeg_quality=90)
    return render_photo(demo_table(), photo, rng=2024)


def demo_profile_toml() -> str:
    lines = ['name = "Demo table: the goblins of Kimmiria"', f"width = {WIDTH_IN}", f"depth = {DEPTH_IN}", "",
             "[markers]", 'dictionary = "DICT_4X4_50"', f"figure_marker_size = {MARKER_IN}", ""]
    for a in standard_anchors(WIDTH_IN, DEPTH_IN):
        lines += ["[[anchors]]", f"id = {a.id}", f"x = {a.x_in}", f"y = {a.y_in}", f"size = {a.size_in}", ""]
    for kind, (r, g, b) in TERRAIN_COLOURS.items():
        lines += ["[[terrain]]", f'kind = "{kind}"', f'colour = "#{r:02x}{g:02x}{b:02x}"', ""]
    for i, _x, _y, _yaw, name, side, ftype in ROSTER:
        lines += ["[[roster]]", f"marker = {i}", f'name = "{name}"', f'side = "{side}"', f'type = "{ftype}"', ""]
    return "\n".join(lines)


def write_demo(out_dir: Path) -> None:
    import cv2

    out_dir.mkdir(parents=True, exist_ok=True)
    photo = demo_photo()
    cv2.imwrite(str(out_dir / "photo.jpg"), photo.image, [cv2.IMWRITE_JPEG_QUALITY, 90])
    (out_dir / "table.toml").write_text(demo_profile_toml(), encoding="utf-8")
    (out_dir / "truth.json").write_text(json.dumps(scene_to_json(photo.truth), indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    write_demo(Path(sys.argv[1] if len(sys.argv) > 1 else "assistant/demo"))
