"""One set of synthetic table photos (grid, colour bases, terrain, markers), analysed once per run."""
from __future__ import annotations

import numpy as np
import pytest

from vision.pipeline import FramePipeline
from vision.synthetic import profile_for, random_photo, random_table, render_photo

GRIDS = ("square", "hex", "hex-pointy", None)
N_TABLES = 8


@pytest.fixture(scope="session")
def table_set():
    """[(photo, profile, result)]: 1080p, tilt 0-35 degrees at any rotation, uneven light, 10 colour
    bases (red and blue), 4 felt pieces, 8 marker figures; two tables of each grid kind and two plain."""
    rng = np.random.default_rng(404)
    out = []
    for k in range(N_TABLES):
        table = random_table(rng, width_in=float(rng.uniform(40, 54)), depth_in=float(rng.uniform(30, 40)),
                             n_markers=8, n_colour=10, n_terrain=4, grid=GRIDS[k % len(GRIDS)])
        photo = render_photo(table, random_photo(rng), rng)
        profile = profile_for(table)
        out.append((photo, profile, FramePipeline(profile).process(photo.image)))
    return out
