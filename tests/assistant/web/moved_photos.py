"""Photos of the demo table with figures moved or taken off, rendered with exact ground truth."""
from __future__ import annotations

import dataclasses
from functools import lru_cache

import cv2

from vision.synthetic.demo import demo_table
from vision.synthetic.render import PhotoSpec, render_photo

# The demo photo's camera (vision.synthetic.demo.demo_photo) at half size: enough for the markers.
SPEC = PhotoSpec(image_size=(1280, 720), tilt_deg=18.0, azimuth_deg=95.0, roll_deg=2.0, hfov_deg=60.0,
                 margin=0.03, light_low=0.8, light_high=1.08, light_dir_deg=20.0, vignette=0.2,
                 blur_sigma_px=0.5, noise_sigma=2.0, jpeg_quality=90)


@lru_cache(maxsize=16)
def demo_photo_with(moves: tuple[tuple[int, float, float], ...] = (), off: tuple[int, ...] = ()) -> bytes:
    """JPEG bytes of the demo table with marker figures moved ((id, x_in, y_in), ...) or taken off."""
    table = demo_table()
    where = {m: (x, y) for m, x, y in moves}
    figures = tuple(dataclasses.replace(f, x_in=where[f.marker_id][0], y_in=where[f.marker_id][1])
                    if f.marker_id in where else f for f in table.marker_figures if f.marker_id not in off)
    photo = render_photo(dataclasses.replace(table, marker_figures=figures), SPEC, rng=7)
    ok, buf = cv2.imencode(".jpg", photo.image, [cv2.IMWRITE_JPEG_QUALITY, 90])
    assert ok
    return buf.tobytes()
