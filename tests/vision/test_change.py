"""The change watch: noise is no change; a figure, a hand or a shifted view is."""
from __future__ import annotations

import cv2
import numpy as np

from vision.change import ChangeWatch

BOX = np.array([[100, 100], [300, 260]], float)


def _scene(seed: int, noise: float = 3.0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    img = np.full((480, 640), 150, np.uint8)
    cv2.rectangle(img, (150, 150), (180, 180), 20, -1)
    return np.clip(img + rng.normal(0, noise, img.shape), 0, 255).astype(np.uint8)


def test_noise_is_not_a_change_but_a_small_object_is():
    watch = ChangeWatch()
    watch.new_frame(_scene(0))
    assert watch.changed("a")                     # never seen: look
    watch.snapshot("a", BOX)
    for seed in range(1, 6):
        watch.new_frame(_scene(seed))
        assert not watch.changed("a")
    moved = _scene(9)
    cv2.circle(moved, (250, 200), 8, 40, -1)     # a small thing put down in a big region
    watch.new_frame(moved)
    assert watch.changed("a")


def test_a_shift_of_a_few_pixels_is_a_change_and_forget_clears():
    watch = ChangeWatch()
    watch.new_frame(_scene(0))
    watch.snapshot("a", BOX)
    watch.new_frame(np.roll(_scene(1), 6, axis=1))
    assert watch.changed("a")
    watch.new_frame(_scene(2))
    watch.forget("a")
    assert watch.changed("a")
