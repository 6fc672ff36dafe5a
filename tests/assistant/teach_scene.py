"""A small table whose red side was painted orange (the profile says #c82828), photographed under a
warm lamp: for teaching a side's rim colour from the command line and from the tablet."""
from __future__ import annotations

import numpy as np

from calibration.profile import standard_anchors
from vision.synthetic import ColourFigure, PhotoSpec, TableSpec, render_photo

WIDTH, DEPTH = 30.0, 20.0
PAINTED_RED = (230, 160, 40)         # the family's "red" is an amber orange; the profile says #c82828
BLUE = (40, 80, 200)
RED_AT = [(8.0, 6.0), (15.0, 12.0), (22.0, 7.0)]
BLUE_AT = [(9.0, 14.0), (21.0, 14.5)]


def profile_toml() -> str:
    lines = ['name = "Kitchen"', f"width = {WIDTH}", f"depth = {DEPTH}", ""]
    for a in standard_anchors(WIDTH, DEPTH):
        lines += ["[[anchors]]", f"id = {a.id}", f"x = {a.x_in}", f"y = {a.y_in}", f"size = {a.size_in}", ""]
    lines += ["# our own note: kept as written", "[[sides]]", 'name = "red"', 'colour = "#c82828"', "",
              "[[sides]]", 'name = "blue"', 'colour = "#2850c8"', ""]
    return "\n".join(lines)


def teach_photo() -> np.ndarray:
    figures = [ColourFigure(f"r{i}", "red", PAINTED_RED, x, y) for i, (x, y) in enumerate(RED_AT)]
    figures += [ColourFigure(f"b{i}", "blue", BLUE, x, y) for i, (x, y) in enumerate(BLUE_AT)]
    table = TableSpec(WIDTH, DEPTH, standard_anchors(WIDTH, DEPTH), colour_figures=tuple(figures))
    photo = render_photo(table, PhotoSpec(image_size=(1280, 800), tilt_deg=15, azimuth_deg=70), rng=5)
    # a warm lamp: the camera's white balance left a cast
    cast = np.clip(photo.image.astype(np.float32) * np.array([0.7, 0.88, 1.0], np.float32), 0, 255).astype(np.uint8)
    return cast
