"""Colour bases in a melee: figures touching, one behind another along the camera's ray.

A figure's body shows behind its base, away from the camera, so a base right behind another lies
where the front figure's cloak or head may show; the rim tests that call a ring there "up on a
figure's body" (vision.rim_vetting.on_a_surer_body) must keep such bases. Each photo (1080p, JPEG
60, tilted 20-40 degrees, a random azimuth) has five pairs of figures on 1" bases, touching: the
second of each pair behind the first along the camera's ray, in front of it, or beside it, in turn
from photo to photo; some pairs are of one side, some of two; bodies leaning as
vision.synthetic.bodies draws them, 30-70% of each rim in view.

Counts the bases found (same side, within half an inch, nearest pairs first, as the hard set is
scored: tests/vision/hard_scoring.nearest_pairs) and the phantoms (any other colour base found). Prints one line; asserts nothing.

Run: python benchmarks/melee_rims.py [--photos 30]
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.vision.hard_scoring import GATE_IN, nearest_pairs  # noqa: E402
from vision.pipeline import FramePipeline  # noqa: E402
from vision.synthetic.scenes import MELEE_WAYS, melee_photo  # noqa: E402


def photo(index: int):
    """(image, profile, figures) of melee photo `index`: tilt and azimuth drawn from its own seed, the
    second figure of each pair behind, in front of or beside the first in turn."""
    rng = np.random.default_rng(100 + index)
    tilt, azimuth = float(rng.uniform(20, 40)), float(rng.uniform(0, 360))
    return melee_photo(rng, tilt_deg=tilt, azimuth_deg=azimuth, way=MELEE_WAYS[index % 3], render_seed=index)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--photos", type=int, default=30)
    args = parser.parse_args()
    total = found_n = phantoms = 0
    for index in range(args.photos):
        image, profile, figures = photo(index)
        found = [f for f in FramePipeline(profile).process(image).scene.figures if f.detected_by == "colour"]
        truth = [SimpleNamespace(x=f.x_in, y=f.y_in, side=f.side) for f in figures]
        matched = nearest_pairs(truth, found, lambda t, f: f.side == t.side, GATE_IN)
        total += len(truth)
        found_n += len(matched)
        phantoms += len(found) - len(matched)
    print(f"melee: {args.photos} photos, bases found {found_n}/{total}, phantoms {phantoms}")


if __name__ == "__main__":
    main()
