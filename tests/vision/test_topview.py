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
    rim's mask round a circle, are not warps of the frame). A photo's warp reads the part of the
    frame under the table only (vision.topview): `part=True` counts a source of an eighth of the
    frame or more as such a part."""

    def __init__(self, monkeypatch, name, shape, part: bool = False):
        self.calls = 0
        real = getattr(cv2, name)

        def counted(src, *args, **kwargs):
            h, w = np.shape(src)[:2]
            whole = (h, w) == tuple(shape[:2])
            if whole or (part and h <= shape[0] and w <= shape[1] and h * w >= shape[0] * shape[1] / 8):
                self.calls += 1
            return real(src, *args, **kwargs)
        monkeypatch.setattr(cv2, name, counted)


def test_a_photo_with_every_feature_on_is_warped_once(monkeypatch, photo_and_profile):
    photo, profile = photo_and_profile
    assert profile.sides and profile.terrain and profile.grid is not None and photo.truth.figures
    warps = _Counter(monkeypatch, "warpPerspective", photo.image.shape, part=True)
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


def test_a_streams_first_frame_is_seen_as_the_same_photo_is(photo_and_profile):
    # A stream's first frame searches the whole table, as a photo is searched; its view is the
    # photo's (its colour layer not a resample of the markers' finer one), so it finds the same.
    photo, profile = photo_and_profile
    still = FramePipeline(profile).process(photo.image).scene
    first = FramePipeline(profile, track=True).process(photo.image).scene

    def seen(scene):
        return sorted((f.detected_by, f.side or "", f.marker or 0, round(f.x, 6), round(f.y, 6)) for f in scene.figures)
    assert any(f.detected_by == "colour" for f in still.figures)
    assert seen(first) == seen(still)
    assert [t.polygon.wkt for t in first.terrain] == [t.polygon.wkt for t in still.terrain]


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


def _ramp_view(ppi: float, size_in=(24.0, 18.0)) -> TopView:
    """A colour view whose channels are linear in table inches (a linear picture keeps its values
    under an area average and a bilinear resample, so a layer's labels can be checked exactly)."""
    w, h = int(np.ceil(size_in[0] * ppi)), int(np.ceil(size_in[1] * ppi))
    x = (np.arange(w) / ppi)[None, :] + 0.0 * np.arange(h)[:, None]
    y = (np.arange(h) / ppi)[:, None] + 0.0 * np.arange(w)[None, :]
    image = np.stack([5 * x, 6 * y, 3 * x + 4 * y], axis=-1)
    return TopView(np.clip(image, 0, 255).astype(np.float32), ppi, (0.0, 0.0))


@pytest.mark.parametrize("base_ppi, ppi", [(20.0, 10.0), (20.0, 5.0), (28.8, 20.0), (36.0, 10.0), (24.0, 20.0)])
def test_a_coarser_layer_shows_each_table_point_where_its_labels_say(base_ppi, ppi):
    view = FrameView(_ramp_view(base_ppi))
    layer = view.at(ppi)
    assert layer.ppi == ppi
    h, w = layer.image.shape[:2]
    u, v = np.meshgrid(np.arange(2, w - 2), np.arange(2, h - 2))        # away from the replicated border
    xy = layer.to_table(np.column_stack([u.ravel(), v.ravel()]))
    expected = np.column_stack([5 * xy[:, 0], 6 * xy[:, 1], 3 * xy[:, 0] + 4 * xy[:, 1]])
    assert np.abs(layer.image[v.ravel(), u.ravel()] - expected).max() < 0.05


def test_the_warp_waits_for_the_first_layer_and_every_layer_is_made_once(monkeypatch, photo_and_profile):
    photo, profile = photo_and_profile
    registration = FramePipeline(profile).register(cv2.cvtColor(photo.image, cv2.COLOR_BGR2GRAY))
    warps = _Counter(monkeypatch, "warpPerspective", photo.image.shape, part=True)
    maker = TopViewMaker(registration.H_in_to_px, 20.0, (0.0, 0.0, profile.width_in, profile.depth_in))
    view = maker.make(photo.image)
    assert warps.calls == 0                           # nothing asked for yet: nothing made
    coarse = view.at(10.0)
    assert warps.calls == 1
    from vision.whitebalance import estimate_white_balance
    view.white_balance = estimate_white_balance(coarse.image, coarse.ppi, profile.anchors, coarse.origin_in)
    layers = [view.gray_at(20.0), view.at(5.0), view.balanced_at(10.0), view.balanced_at(5.0)]
    again = [view.gray_at(20.0), view.at(5.0), view.balanced_at(10.0), view.balanced_at(5.0)]
    assert all(a.image is b.image for a, b in zip(layers, again))
    assert view.mat_chroma(5.0) is view.mat_chroma(5.0)
    assert warps.calls == 1                           # every layer came from the one warp
    # Each is what its own conversion of the colour layer gives.
    wb = view.white_balance
    balanced = wb.apply(coarse.image, coarse.ppi, coarse.origin_in)
    assert np.allclose(view.balanced_at(10.0).image, balanced, atol=1e-3)
    # The mat's colour is the median chromaticity of the balanced layer it was asked at.
    from vision.colour import chromaticity, mat_chroma
    five = view.at(5.0)
    sample = wb.apply(five.image, five.ppi, five.origin_in)[::2, ::2]
    assert np.allclose(view.mat_chroma(5.0), mat_chroma(chromaticity(np.clip(sample, 0, 255))[0]), atol=1e-5)


def test_a_grid_corrected_frame_view_relabels_its_layers_without_resampling():
    image = (np.random.default_rng(2).random((200, 300, 3)) * 255).astype(np.uint8)
    view = FrameView(TopView(image, 20.0, (0.0, 0.0)))
    coarse = view.at(10.0)
    corrected = view.rescaled(0.98, (7.0, 5.0))
    again = corrected.at(10.0)
    assert again.image is coarse.image                # the same pixels ...
    assert again.ppi == pytest.approx(10.0 / 0.98)    # ... under the corrected labels
    p = np.array([[40.0, 30.0]])
    assert np.allclose(again.to_table(p), 0.98 * coarse.to_table(p) + 0.02 * np.array([7.0, 5.0]))


def test_the_light_plane_is_divided_out_in_the_frame_the_white_balance_was_measured_in():
    from vision.whitebalance import WhiteBalance
    image = (np.random.default_rng(3).random((200, 300, 3)) * 255).astype(np.uint8)
    corrected = FrameView(TopView(image, 20.0, (0.0, 0.0))).rescaled(0.97, (7.0, 5.0))
    wb = WhiteBalance(np.full(3, 20.0), np.array([210.0, 220.0, 190.0]), np.array([1.1, -0.01, 0.008]), (0, 1, 2))
    corrected.white_balance = wb
    coarse = corrected.at(10.0)
    assert np.allclose(corrected.balanced_at(10.0).image, wb.apply(coarse.image, coarse.ppi, coarse.origin_in),
                       atol=1e-3)


@pytest.mark.parametrize("shape", [(9, 14), (10, 15, 3), (11, 13, 3), (2, 3, 3), (7, 2)])
def test_halving_a_layer_averages_each_two_by_two_block_an_odd_edge_replicated(shape):
    from vision.topview import _resized
    image = (np.random.default_rng(5).random(shape) * 255).astype(np.uint8)
    half = _resized(TopView(image, 20.0, (1.0, 2.0)), 10.0)
    h, w = shape[:2]
    padded = np.pad(image.astype(np.int64), ((0, h % 2), (0, w % 2)) + ((0, 0),) * (image.ndim - 2), mode="edge")
    blocks = padded[0::2, 0::2] + padded[1::2, 0::2] + padded[0::2, 1::2] + padded[1::2, 1::2]
    assert np.array_equal(half.image, (blocks + 2) // 4)      # the mean, rounded half up
    assert half.origin_in == pytest.approx((1.025, 2.025))    # the new pixels' centres


def test_a_coarse_stage_of_a_stream_reads_a_coarse_whole_view_not_the_markers_one(photo_and_profile):
    # A tracked frame's hands are looked for at 5 px/in: its whole view is remapped for them at
    # COARSE_MARGIN times that (a third of the markers' 36 px/in pixels), and its 5 px/in
    # layer shows what the markers' whole view's does, to a few grey levels (two halvings of a
    # sampling near the frame's own resolution, against three of a finer one).
    from vision.topview import COARSE_MARGIN

    photo, profile = photo_and_profile
    H = FramePipeline(profile).process(photo.image).registration.H_in_to_px
    rect = (0.0, 0.0, profile.width_in, profile.depth_in)
    stream = TopViewMaker(H, 36.0, rect).windows(photo.image)
    coarse = stream.coarse(5.0)
    assert coarse.base.ppi == COARSE_MARGIN * 5.0 and stream._whole is None
    # (its pixels' centres within a tenth of a 5 px/in pixel of the other's)
    assert coarse.at(5.0).origin_in == pytest.approx(stream.whole().at(5.0).origin_in, abs=0.02)
    diff = np.abs(coarse.at(5.0).image.astype(int) - stream.whole().at(5.0).image.astype(int))
    assert diff.shape == stream.whole().at(5.0).image.shape and diff.mean() < 3.0
    assert stream.coarse(5.0) is stream.whole()       # once the whole view is made, it is read
    # a maker already as coarse as that remaps its whole view
    coarse_stream = TopViewMaker(H, 16.0, rect).windows(photo.image)
    assert coarse_stream.coarse(5.0) is coarse_stream.whole()
