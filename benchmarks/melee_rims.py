"""Colour bases in a melee: figures touching, one behind another along the camera's ray.

A figure's body shows behind its base, away from the camera, so a base right behind another lies
where the front figure's cloak or head may show; the rim tests that call a ring there "up on a
figure's body" (vision.rim_vetting.on_a_surer_body) must keep such bases. Each photo (1080p, JPEG
60, tilted 20-40 degrees, a random azimuth) has five pairs of figures on 1" bases, touching: the
second of each pair behind the first along the camera's ray, in front of it, or beside it, in turn
from photo to photo; some pairs are of one side, some of two; bodies leaning as
vision.synthetic.bodies draws them, 30-70% of each rim in view.

Counts the bases found (same side, within half an inch) and the phantoms (any other colour base
found). Prints one line; asserts nothing.

Run: python benchmarks/melee_rims.py [--photos 30]
"""
from __future__ import annotations

import argparse
import dataclasses
import math
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from calibration.profile import ColourSpec, TableProfile, standard_anchors  # noqa: E402
from vision.pipeline import FramePipeline  # noqa: E402
from vision.synthetic.bodies import random_body  # noqa: E402
from vision.synthetic.camera import camera_over_table  # noqa: E402
from vision.synthetic.render import ColourFigure, PhotoSpec, TableSpec, render_photo  # noqa: E402
from vision.synthetic.scenes import SIDE_COLOURS  # noqa: E402

WIDTH_IN, DEPTH_IN = 30.0, 22.0
PAIRS = ((8, 7), (15, 11), (22, 15), (9, 16), (22, 6))
GATE_IN = 0.5


def melee_photo(index: int):
    """(image, profile, figures) of melee photo `index`."""
    rng = np.random.default_rng(100 + index)
    anchors = standard_anchors(WIDTH_IN, DEPTH_IN)
    spec = PhotoSpec(image_size=(1920, 1080), tilt_deg=float(rng.uniform(20, 40)),
                     azimuth_deg=float(rng.uniform(0, 360)), jpeg_quality=60)
    camera = camera_over_table(WIDTH_IN, DEPTH_IN, spec.image_size, tilt_deg=spec.tilt_deg,
                               azimuth_deg=spec.azimuth_deg, roll_deg=spec.roll_deg, hfov_deg=spec.hfov_deg,
                               margin=spec.margin)
    figures = []
    for n, (x, y) in enumerate(PAIRS):
        ray = np.array([x, y], float) - camera.centre_in[:2]
        ray /= np.hypot(*ray)
        way = (1.02 * ray, -1.02 * ray, 1.02 * np.array([-ray[1], ray[0]]))[index % 3]   # behind, in front, beside
        for k, (fx, fy) in enumerate([(x, y), (x + way[0], y + way[1])]):
            side = ("red", "blue")[(n + k * (n % 2)) % 2]
            fig = ColourFigure(f"c{2 * n + k + 1}", side, SIDE_COLOURS[side], float(fx), float(fy))
            body, _ = random_body(rng, camera, fig, float(rng.uniform(0.3, 0.7)))
            figures.append(dataclasses.replace(fig, body=body))
    table = TableSpec(WIDTH_IN, DEPTH_IN, anchors, colour_figures=tuple(figures))
    profile = TableProfile(name="melee", width_in=WIDTH_IN, depth_in=DEPTH_IN, dictionary=table.dictionary,
                           figure_marker_size_in=1.0, anchors=anchors,
                           sides=tuple(ColourSpec(k, v) for k, v in SIDE_COLOURS.items()))
    return render_photo(table, spec, index).image, profile, figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--photos", type=int, default=30)
    args = parser.parse_args()
    total = found_n = phantoms = 0
    for index in range(args.photos):
        image, profile, figures = melee_photo(index)
        found = [f for f in FramePipeline(profile).process(image).scene.figures if f.detected_by == "colour"]
        used: set[int] = set()
        for fig in figures:
            near = sorted((math.hypot(f.x - fig.x_in, f.y - fig.y_in), i) for i, f in enumerate(found)
                          if i not in used and f.side == fig.side)
            total += 1
            if near and near[0][0] <= GATE_IN:
                used.add(near[0][1])
                found_n += 1
        phantoms += len(found) - len(used)
    print(f"melee: {args.photos} photos, bases found {found_n}/{total}, phantoms {phantoms}")


if __name__ == "__main__":
    main()
