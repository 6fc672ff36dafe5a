"""One top view per frame: the frame is warped once and every stage reads that view."""
from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.pipeline import FramePipeline
from vision.synthetic import profile_for, random_photo, random_table, render_photo
from vision.topview import FrameView, TopView, TopViewMaker


@pytest.fixture(scope="module")
def photo_and_profile():
    rng = np.random.default_rng(31)
    table = random_table(rng, width_in=40.0, depth_in=30.0, n_markers=6, n_colour=6, n_terrain=2, grid="square")
    photo = render_photo(table, random_photo(rng, image_size=(1280, 720), tilt_deg=20.0), rng)
    return photo, profile_for(table)


class _Counter:
    """Calls of cv2.<name> that resample a whole frame of `shape` (other uses, such as sampling a
    rim's mask round a circle, are not warps of the frame)."""

    def __init__(self, monkeypatch, name, shape):
        self.calls = 0
        real = getattr(cv2, name)

        def counted(src, *args, **kwargs):
            if np.shape(src)[:2] == shape[:2]:
                self.calls += 1
            return real(src, *args, **kwargs)
        monkeypatch.setattr(cv2, name, counted)


def test_a_photo_with_every_feature_on_is_warped_once(monkeypatch, photo_and_profile):
    photo, profile = photo_and_profile
    assert profile.sides and profile.terrain and profile.grid is not None and photo.truth.figures
    warps = _Counter(monkeypatch, "warpPerspective", photo.image.shape)
    remaps = _Counter(monkeypatch, "remap", photo.image.shape)
    result = FramePipeline(profile).process(photo.image)
    assert set(result.registration.anchors_seen) == profile.anchor_ids     # no anchor window was needed
    assert result.scene.grid is not None and result.scene.terrain
    assert {f.detected_by for f in result.scene.figures} == {"marker", "colour"}
    assert (warps.calls, remaps.calls) == (1, 0)


def test_a_stream_keeps_the_warp_as_maps_and_remaps_once_a_frame(monkeypatch, photo_and_profile):
    photo, profile = photo_and_profile
    pipeline = FramePipeline(profile, track=True)
    pipeline.process(photo.image)
    warps = _Counter(monkeypatch, "warpPerspective", photo.image.shape)
    before = TopViewMaker.warps
    for k in range(3):
        frame = photo.image.copy()
        # A hand's worth of change in the middle: figures there are searched again.
        cv2.circle(frame, (640 + 40 * k, 360), 60, (140, 170, 205), -1)
        pipeline.process(frame)
    assert 1 <= TopViewMaker.warps - before <= 3     # at most one view a frame, none when nothing changed
    assert warps.calls == 0                          # made by remapping the kept maps


def test_layers_are_made_once_and_a_window_is_a_cut():
    image = (np.random.default_rng(1).random((360, 480, 3)) * 255).astype(np.uint8)
    view = FrameView(TopView(image, 20.0, (0.0, 0.0)))
    assert view.at(10.0) is view.at(10.0) and view.gray() is view.gray()
    coarse = view.at(5.0)
    assert coarse.ppi == 5.0 and coarse.image.shape[:2] == (90, 120)
    window = view.base.window((2.0, 3.0, 4.0, 5.5))
    assert window.origin_in == (2.0, 3.0) and window.image.shape[:2] == (50, 40)
    assert np.shares_memory(window.image, image)
    # Pixel centres line up: table point (3.1, 4.2) is the same pixel content at any layer.
    assert np.allclose(view.at(10.0).to_table(view.at(10.0).to_view(np.array([[3.1, 4.2]]))), [[3.1, 4.2]])


def test_a_grid_corrected_view_only_relabels_its_pixels():
    image = np.zeros((100, 200, 3), np.uint8)
    view = TopView(image, 20.0, (0.0, 0.0)).rescaled(0.99, (5.0, 2.5))
    p = np.array([[120.0, 40.0]])
    table_before = p / 20.0
    assert np.allclose(view.to_table(p), 0.99 * table_before + np.array([5.0, 2.5]) * 0.01)
    assert view.image is image
