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


def test_a_shift_of_a_few_pixels_is_a_change():
    watch = ChangeWatch()
    watch.new_frame(_scene(0))
    watch.snapshot("a", BOX)
    watch.new_frame(np.roll(_scene(1), 6, axis=1))
    assert watch.changed("a")


def _with(seed: int, hand_x: int | None, put_down: bool = True) -> np.ndarray:
    img = _scene(seed)
    if put_down:
        cv2.circle(img, (270, 130), 8, 40, -1)                       # put down, and left there
    if hand_x is not None:
        cv2.ellipse(img, (hand_x, 215), (40, 25), hand_x, 0, 360, 230, -1)   # a hand in motion
    return img


def test_a_moving_hand_waits_for_a_later_look_and_what_was_put_down_beside_it_does_not():
    watch = ChangeWatch()
    watch.new_frame(_scene(0))
    watch.snapshot("a", BOX)
    watch.new_frame(_with(1, 150))
    watch.new_frame(_with(2, 165))
    box, moving = watch.settled_change("a")
    assert moving and box is not None
    assert box[0] <= 262 and box[2] >= 278 and box[1] <= 122 and box[3] >= 138     # the thing put down ...
    assert box[0] > 200 and box[3] < 190                                          # ... and not the hand
    watch.snapshot_settled("a")
    watch.new_frame(_with(3, 180))
    assert watch.settled_change("a") == (None, True)       # the thing is known now; the hand still waits
    watch.new_frame(_with(4, 180))
    box, moving = watch.settled_change("a")                 # a hand held still: looked under
    assert not moving and box is not None and box[0] < 180 < box[2]
    watch.new_frame(_with(5, None))
    watch.new_frame(_with(6, None))
    assert watch.settled_change("a") == (None, False)       # gone: the table is as it was last looked at


def test_a_hand_that_left_this_frame_is_no_moving_part():
    watch = ChangeWatch()
    watch.new_frame(_scene(0))
    watch.snapshot("a", BOX)
    watch.new_frame(_with(1, 150))             # a thing put down, the hand that put it there beside it
    watch.new_frame(_with(2, None))            # the hand gone: what changed is still
    box, moving = watch.settled_change("a")
    assert not moving
    assert box is not None and box[0] <= 262 and box[2] >= 278 and box[1] <= 122 and box[3] >= 138


def test_a_hand_over_a_gridded_mat_moves_as_one_though_the_lines_cut_it():
    lines = np.zeros((480, 640), bool)
    lines[:, np.arange(640) % 16 < 4] = True                 # a mat's lines, as bright as the hand
    lines[np.arange(480) % 16 < 4, :] = True
    grid = _scene(0)
    grid[lines] = 230
    watch = ChangeWatch()
    watch.new_frame(grid)
    watch.snapshot("a", BOX)
    for seed, x in ((1, 170), (2, 185)):
        img = _scene(seed)
        cv2.ellipse(img, (x, 200), (60, 40), 0, 0, 360, 230, -1)
        img[lines] = 230
        watch.new_frame(img)
    assert watch.settled_change("a") == (None, True)


def test_changed_near_tells_where_in_a_region_it_changed():
    watch = ChangeWatch()
    watch.new_frame(_scene(0))
    assert watch.changed_near("a", [[150, 150], [180, 180]])      # never seen: look
    watch.snapshot("a", BOX)
    moved = _scene(1)
    cv2.circle(moved, (250, 200), 8, 40, -1)
    watch.new_frame(moved)
    assert watch.changed_near("a", [[240, 190], [260, 210]])
    assert not watch.changed_near("a", [[120, 120], [190, 190]])  # the dark square, as it was
