"""The table seen from straight above: one top view per frame, shared by every stage.

View pixel (u, v) is table point (x0 + u / ppi, y0 + v / ppi). A frame is warped once, in colour,
to a view of the whole table at the finest resolution any stage reading it needs (the figure
markers' where they read the view, else the colour's 20 px/in or a multiple of it); the other
stages read layers derived from it (gray, coarser resolutions, white-balanced colour) or windows
cut out of it, so nothing warps the frame a second time. The warp and each layer are made when a
stage first asks for them, once per frame (FrameView). While a registration holds, a stream's
later frames are resampled, window by window, through pixel maps kept at the markers' resolution
(WindowedView).
"""
from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

Rect = tuple[float, float, float, float]


@dataclass(frozen=True)
class TopView:
    image: np.ndarray                # gray or BGR
    ppi: float                       # view pixels per inch
    origin_in: tuple[float, float]   # table point of view pixel (0, 0)

    def to_table(self, points_view: np.ndarray) -> np.ndarray:
        return np.asarray(points_view, np.float64) / self.ppi + np.asarray(self.origin_in)

    def to_view(self, points_in: np.ndarray) -> np.ndarray:
        return (np.asarray(points_in, np.float64) - np.asarray(self.origin_in)) * self.ppi

    def window(self, rect_in: Rect) -> "TopView":
        """The part of this view inside the table rectangle (x0, y0, x1, y1): a cut, not a warp."""
        x0, y0, x1, y1 = rect_in
        h, w = self.image.shape[:2]
        u0 = int(np.clip(np.floor((x0 - self.origin_in[0]) * self.ppi), 0, w))
        v0 = int(np.clip(np.floor((y0 - self.origin_in[1]) * self.ppi), 0, h))
        u1 = int(np.clip(np.ceil((x1 - self.origin_in[0]) * self.ppi), u0, w))
        v1 = int(np.clip(np.ceil((y1 - self.origin_in[1]) * self.ppi), v0, h))
        origin = (self.origin_in[0] + u0 / self.ppi, self.origin_in[1] + v0 / self.ppi)
        return TopView(self.image[v0:v1, u0:u1], self.ppi, origin)

    def rescaled(self, factor: float, centre_in: tuple[float, float]) -> "TopView":
        """The same pixels in a table frame scaled by `factor` about `centre_in` (a grid-corrected
        registration): only the labels change."""
        cx, cy = centre_in
        origin = (factor * self.origin_in[0] + cx * (1 - factor), factor * self.origin_in[1] + cy * (1 - factor))
        return TopView(self.image, self.ppi / factor, origin)


def warp_top_view(frame: np.ndarray, H_in_to_px: np.ndarray, ppi: float, rect_in: Rect,
                  interpolation: int = cv2.INTER_LINEAR) -> TopView:
    """The table rectangle (x0, y0, x1, y1) inches seen from above, through H (inches -> pixels)."""
    size, m = _geometry(H_in_to_px, ppi, rect_in)
    image = cv2.warpPerspective(frame, m, size, flags=interpolation | cv2.WARP_INVERSE_MAP,
                                borderMode=cv2.BORDER_REPLICATE)
    return TopView(image, ppi, (rect_in[0], rect_in[1]))


def _warp_colour(frame: np.ndarray, m: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """warpPerspective (bilinear, inverse map, replicated border). OpenCV's vectorised bilinear warp
    covers 1 and 4 channels, not 3: a BGR frame is warped as BGRA, which is twice as fast with the
    extra conversions and gives the same pixels."""
    flags = cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP
    if frame.ndim == 3 and frame.shape[2] == 3 and frame.dtype == np.uint8:
        out = cv2.warpPerspective(cv2.cvtColor(frame, cv2.COLOR_BGR2BGRA), m, size, flags=flags,
                                  borderMode=cv2.BORDER_REPLICATE)
        return cv2.cvtColor(out, cv2.COLOR_BGRA2BGR)
    return cv2.warpPerspective(frame, m, size, flags=flags, borderMode=cv2.BORDER_REPLICATE)


def _geometry(H_in_to_px: np.ndarray, ppi: float, rect_in: Rect) -> tuple[tuple[int, int], np.ndarray]:
    x0, y0, x1, y1 = rect_in
    size = (max(1, int(np.ceil((x1 - x0) * ppi))), max(1, int(np.ceil((y1 - y0) * ppi))))
    view_to_in = np.array([[1 / ppi, 0, x0], [0, 1 / ppi, y0], [0, 0, 1.0]])
    return size, np.asarray(H_in_to_px, np.float64) @ view_to_in


def _relabelled(view: TopView, relabels) -> TopView:
    for factor, centre in relabels:
        view = view.rescaled(factor, centre)
    return view


class _Layers:
    """What a FrameView and its relabelled copies share: the one warp, every layer made from it
    (keyed by kind and the nominal ppi asked for), and the white balance the balanced layers use."""

    def __init__(self, base: TopView | None, make_base=None, maker: "TopViewMaker | None" = None):
        self.base, self.make_base, self.maker = base, make_base, maker
        self.layers: dict = {}
        self.wb = None
        self.wb_relabels: tuple = ()

    def get_base(self) -> TopView:
        if self.base is None:
            self.base = self.make_base()
        return self.base


class FrameView:
    """A frame's one top view and the layers the stages derive from it, each made at most once and
    only when a stage first asks for it (a stage that is off costs nothing; the warp itself waits
    for the first layer asked for).

    - `base`: the view in colour (BGR uint8) at the finest resolution a stage reads whole;
    - `at(ppi)`, `gray()`, `gray_at(ppi)`: colour and gray at coarser resolutions, made by resizing
      a finer layer (an integer factor is an area average), never by warping again;
    - after `white_balance` is set (the anchors' grey card, vision.whitebalance):
      `balanced_at(ppi)` float32 BGR as `WhiteBalance.apply` (exposure plane divided out; the
      mat's colour and the hands read the one at 5 px/in), and `mat_chroma()` the mat's
      chromaticity.

    The ppi a stage asks for is a nominal one: after a grid correction (`rescaled`) the same
    pixels come back relabelled (their `ppi` and `origin_in` corrected), so no layer is resampled
    for a 1% change of scale. Stages must read `view.ppi`, not assume the one they asked for."""

    def __init__(self, base: TopView | None = None, *, make_base=None, maker: "TopViewMaker | None" = None,
                 _shared: _Layers | None = None, _relabels: tuple = ()):
        self._shared = _shared if _shared is not None else _Layers(base, make_base, maker)
        self._relabels = _relabels

    # ---------------------------------------------------------------- plain layers

    @property
    def base(self) -> TopView:
        return _relabelled(self._shared.get_base(), self._relabels)

    @property
    def base_ppi(self) -> float:
        """The nominal resolution of the base (no warp is made to tell it)."""
        if self._shared.base is None and self._shared.maker is not None:
            return self._shared.maker.ppi
        return self._shared.get_base().ppi

    def _layer(self, key, make) -> TopView:
        layers = self._shared.layers
        if key not in layers:
            layers[key] = make()
        return layers[key]

    def _raw_at(self, ppi: float) -> TopView:
        """The colour layer at nominal `ppi`, in the maker's frame."""
        base_ppi = self.base_ppi
        if ppi >= base_ppi * (1 - 1e-9):
            return self._shared.get_base()
        finer_ppi = 2 * ppi if 2 * ppi < base_ppi * (1 - 1e-9) else base_ppi
        return self._layer(("bgr", ppi), lambda: _resized(self._raw_at(finer_ppi), ppi))

    def _raw_gray_at(self, ppi: float) -> TopView:
        def make():
            v = self._raw_at(ppi)
            return TopView(cv2.cvtColor(v.image, cv2.COLOR_BGR2GRAY), v.ppi, v.origin_in)
        return self._layer(("gray", min(ppi, self.base_ppi)), make)

    def gray(self) -> TopView:
        return _relabelled(self._raw_gray_at(self.base_ppi), self._relabels)

    def at(self, ppi: float) -> TopView:
        """The colour view at nominal `ppi` (at most the base's): a rescale of a finer layer, not a warp."""
        return _relabelled(self._raw_at(ppi), self._relabels)

    def gray_at(self, ppi: float) -> TopView:
        return _relabelled(self._raw_gray_at(ppi), self._relabels)

    # ---------------------------------------------------------------- white-balanced layers

    @property
    def white_balance(self):
        return self._shared.wb

    @white_balance.setter
    def white_balance(self, wb) -> None:
        shared = self._shared
        if wb is not shared.wb:
            shared.wb, shared.wb_relabels = wb, self._relabels    # its plane is in this view's table frame
            shared.layers = {k: v for k, v in shared.layers.items() if k[0] in ("bgr", "gray")}

    def balanced_at(self, ppi: float) -> TopView:
        """float32 BGR under the anchors' white balance (identity when none is set), not clipped."""
        return _relabelled(self._raw_balanced(ppi), self._relabels)

    def mat_chroma(self, ppi: float = 10.0) -> np.ndarray:
        """The mat's chromaticity: the median over the white-balanced layer at `ppi` (`balanced_at`,
        which the hands read too), every other pixel (the mat covers most of a table, and a median
        needs no more)."""
        def make():
            from vision.colour import chromaticity, mat_chroma
            return mat_chroma(chromaticity(np.clip(self._raw_balanced(ppi).image[::2, ::2], 0, 255))[0])
        return self._layer(("mat", min(ppi, self.base_ppi)), make)

    def _raw_balanced(self, ppi: float) -> TopView:
        """The balanced layer at nominal `ppi`, in the maker's frame; its light plane is divided out
        in the frame the white balance was measured in."""
        shared = self._shared
        ppi = min(ppi, self.base_ppi)

        def build():
            v = self._raw_at(ppi)
            if shared.wb is None:
                return TopView(v.image.astype(np.float32), v.ppi, v.origin_in)
            labelled = _relabelled(v, shared.wb_relabels)
            return TopView(shared.wb.apply(v.image, labelled.ppi, labelled.origin_in), v.ppi, v.origin_in)
        return self._layer(("balanced", ppi), build)

    # ---------------------------------------------------------------- labels

    def rescaled(self, factor: float, centre_in: tuple[float, float]) -> "FrameView":
        """The same layers in a table frame scaled by `factor` about `centre_in`: only labels change."""
        return FrameView(_shared=self._shared, _relabels=self._relabels + ((factor, centre_in),))

    def whole(self) -> "FrameView":
        return self

    def coarse(self, ppi: float) -> "FrameView":
        """The whole view, for a stage that reads it at `ppi` or coarser (WindowedView's)."""
        return self


def _resized(view: TopView, ppi: float) -> TopView:
    """The view at a coarser resolution. An integer factor is an area average (each pixel the mean
    of a block); otherwise (factors between 1 and 2) a bilinear resample, blurred a little first
    when it skips pixels. The origin is moved to the new pixels' centres, so table points keep
    their content at any layer."""
    if abs(ppi - view.ppi) < 1e-9:
        return view
    h, w = view.image.shape[:2]
    scale = ppi / view.ppi
    factor = 1.0 / scale
    image = view.image
    if abs(factor - round(factor)) < 1e-6 and round(factor) >= 2:
        f = int(round(factor))
        if f == 2 and image.dtype == np.uint8 and h >= 2 and w >= 2:
            shift = 1 / (2 * view.ppi)
            return TopView(_halved(image), ppi, (view.origin_in[0] + shift, view.origin_in[1] + shift))
        pad_h, pad_w = (-h) % f, (-w) % f
        if pad_h or pad_w:
            image = cv2.copyMakeBorder(image, 0, pad_h, 0, pad_w, cv2.BORDER_REPLICATE)
        size = ((w + pad_w) // f, (h + pad_h) // f)
        out = cv2.resize(image, size, interpolation=cv2.INTER_AREA)
    else:
        if scale < 0.75:
            image = cv2.GaussianBlur(image, (3, 3), 0.4 / scale)
        # Given fx and fy (no size), OpenCV keeps the scale exact: source x = (u + 0.5) / scale - 0.5.
        out = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_LINEAR)
        shift = (0.5 / scale - 0.5) / view.ppi
        return TopView(out, ppi, (view.origin_in[0] + shift, view.origin_in[1] + shift))
    shift = (factor - 1) / (2 * view.ppi)
    return TopView(out, ppi, (view.origin_in[0] + shift, view.origin_in[1] + shift))


def _halved(image: np.ndarray) -> np.ndarray:
    """A uint8 image at half size, each pixel the mean of a 2 x 2 block (an odd last row or column
    replicated): the same pixels as INTER_AREA on the padded image. Bilinear at the midpoints of
    the blocks is their mean with the same rounding and is faster, and the odd last row or column is
    halved apart (no padded copy of the whole layer)."""
    h, w = image.shape[:2]
    he, we = h - h % 2, w - w % 2
    out = np.empty(((h + 1) // 2, (w + 1) // 2) + image.shape[2:], image.dtype)
    out[:he // 2, :we // 2] = cv2.resize(image[:he, :we], (we // 2, he // 2), interpolation=cv2.INTER_LINEAR)
    if w % 2:
        out[:he // 2, -1] = cv2.resize(image[:he, w - 1:], (1, he // 2), interpolation=cv2.INTER_LINEAR).reshape(
            out[:he // 2, -1].shape)
    if h % 2:
        out[-1, :we // 2] = cv2.resize(image[h - 1:, :we], (we // 2, 1), interpolation=cv2.INTER_LINEAR).reshape(
            out[-1, :we // 2].shape)
        if w % 2:
            out[-1, -1] = image[-1, -1]
    return out


COARSE_MARGIN = 4              # a coarse stage's whole view is remapped at this many times its ppi (two
                               # halvings above it: each of its pixels an average, as from a finer view)


class TopViewMaker:
    """Makes the shared top view of each frame for one registration (build again when it changes):
    a whole frame warped directly (`make`), or a stream's frame in windows remapped through pixel
    maps kept for the registration (`windows`)."""

    warps = 0        # frames warped by any maker (tests count them)

    def __init__(self, H_in_to_px: np.ndarray, ppi: float, rect_in: Rect):
        self.ppi = float(ppi)
        self.rect_in = rect_in
        self.size, self._m = _geometry(H_in_to_px, self.ppi, rect_in)
        self._maps = None
        self._H = H_in_to_px
        self._coarser: dict[float, TopViewMaker] = {}

    def coarser(self, ppi: float) -> "TopViewMaker":
        """A maker of the same registration and table at a coarser `ppi`, its maps made once."""
        if ppi not in self._coarser:
            maker = TopViewMaker(self._H, ppi, self.rect_in)
            maker.prepare_maps()
            self._coarser[ppi] = maker
        return self._coarser[ppi]

    def make(self, frame_bgr: np.ndarray) -> FrameView:
        """This frame's view; the warp is made when a stage first reads a layer of it."""
        TopViewMaker.warps += 1
        return FrameView(make_base=lambda: self._warp(frame_bgr), maker=self)

    def _warp(self, frame_bgr: np.ndarray) -> TopView:
        image = self._warp_part(frame_bgr, self._m, self.size)
        if image is None:          # no part of the table in the frame: its edges, as warpPerspective
            image = _warp_colour(frame_bgr, self._m, self.size)
        return TopView(image, self.ppi, (self.rect_in[0], self.rect_in[1]))

    def _warp_part(self, frame_bgr: np.ndarray, m: np.ndarray, size) -> np.ndarray | None:
        """The warp (view -> frame pixels `m`) to a view of `size`, read from the part of the frame
        that shows it (a table fills a third to a half of a photo: the rest is never converted);
        None when none of it is in the frame. The same pixels as warping the whole frame, to a level
        of rounding."""
        last_u, last_v = size[0] - 1, size[1] - 1        # the view's corner pixels, in the frame
        corners = np.array([[0, 0], [last_u, 0], [last_u, last_v], [0, last_v]], np.float64).reshape(-1, 1, 2)
        px = cv2.perspectiveTransform(corners, m).reshape(-1, 2)
        h, w = frame_bgr.shape[:2]
        u0, v0 = (int(max(0, np.floor(c) - 2)) for c in px.min(axis=0))
        u1, v1 = int(min(w, np.ceil(px[:, 0].max()) + 3)), int(min(h, np.ceil(px[:, 1].max()) + 3))
        if u1 <= u0 or v1 <= v0:
            return None
        shift = np.array([[1, 0, -u0], [0, 1, -v0], [0, 0, 1.0]])
        return _warp_colour(frame_bgr[v0:v1, u0:u1], shift @ m, size)

    def prepare_maps(self) -> None:
        """Make the pixel maps now (a stream's first frame), not on the first frame that needs them."""
        if self._maps is None:
            self._maps = self._build_maps()

    def windows(self, frame_bgr: np.ndarray, rescale=None) -> "WindowedView":
        """This frame's view, made only where a stage looks (a tracked frame: a few windows)."""
        TopViewMaker.warps += 1
        self.prepare_maps()
        return WindowedView(self, frame_bgr, rescale)

    def _build_maps(self):
        w, h = self.size
        grid = np.empty((h, w, 2), np.float32)
        grid[..., 0] = np.arange(w, dtype=np.float32)[None, :]
        grid[..., 1] = np.arange(h, dtype=np.float32)[:, None]
        px = cv2.perspectiveTransform(grid.reshape(-1, 1, 2), self._m).reshape(h, w, 2)
        return cv2.convertMaps(px, None, cv2.CV_16SC2)


class WindowedView:
    """A tracked frame's one top view, made window by window where the stages look (around the
    figures, a search tile) by remapping those parts of the frame through the kept maps; the whole
    of it only if a stage asks for it (`whole`). Layers: `gray()` and `at(ppi)` give window sources
    (`.window(rect)`), each window cut from the base resolution."""

    def __init__(self, maker: TopViewMaker, frame_bgr: np.ndarray, rescale=None):
        self._maker, self._frame, self._rescale = maker, frame_bgr, rescale
        self._whole: FrameView | None = None
        self._coarse: dict[float, FrameView] = {}

    def _remapped(self, maker: TopViewMaker) -> FrameView:
        image = cv2.remap(self._frame, *maker._maps, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        view = FrameView(TopView(image, maker.ppi, (maker.rect_in[0], maker.rect_in[1])), maker=maker)
        return view.rescaled(*self._rescale) if self._rescale is not None else view

    def whole(self) -> FrameView:
        if self._whole is None:
            self._whole = self._remapped(self._maker)
        return self._whole

    def coarse(self, ppi: float) -> FrameView:
        """The whole view for a stage that reads it at `ppi` or coarser (the hands, at 5 px/in): the
        whole view if made already, else one remapped at COARSE_MARGIN times `ppi` (its layers at
        `ppi` area averages of it, as of a finer view), not at the markers' resolution (36 px/in:
        a third of the pixels)."""
        fine = COARSE_MARGIN * ppi
        if self._whole is not None or fine >= self._maker.ppi:
            return self.whole()
        if fine not in self._coarse:
            self._coarse[fine] = self._remapped(self._maker.coarser(fine))
        return self._coarse[fine]

    def base_window(self, rect_in: Rect) -> TopView:
        if self._whole is not None:
            return self._whole.base.window(rect_in)
        x0, y0, x1, y1 = rect_in
        if self._rescale is not None:           # labels of the grid-corrected frame -> the maps' frame
            f, (cx, cy) = self._rescale
            x0, x1 = ((v - cx * (1 - f)) / f for v in (x0, x1))
            y0, y1 = ((v - cy * (1 - f)) / f for v in (y0, y1))
        maker = self._maker
        w, h = maker.size
        u0 = int(np.clip(np.floor((x0 - maker.rect_in[0]) * maker.ppi), 0, w))
        v0 = int(np.clip(np.floor((y0 - maker.rect_in[1]) * maker.ppi), 0, h))
        u1 = int(np.clip(np.ceil((x1 - maker.rect_in[0]) * maker.ppi), u0, w))
        v1 = int(np.clip(np.ceil((y1 - maker.rect_in[1]) * maker.ppi), v0, h))
        map1, map2 = maker._maps
        if u1 <= u0 or v1 <= v0:
            image = np.zeros((max(0, v1 - v0), max(0, u1 - u0), 3), np.uint8)
        else:
            image = cv2.remap(self._frame, map1[v0:v1, u0:u1], map2[v0:v1, u0:u1], cv2.INTER_LINEAR,
                              borderMode=cv2.BORDER_REPLICATE)
        view = TopView(image, maker.ppi, (maker.rect_in[0] + u0 / maker.ppi, maker.rect_in[1] + v0 / maker.ppi))
        return view.rescaled(*self._rescale) if self._rescale is not None else view

    def gray(self) -> "_Windows":
        return _Windows(self, None)

    def at(self, ppi: float) -> "_Windows":
        return _Windows(self, ppi)


class _Windows:
    """Windows of one layer of a WindowedView (gray at the base resolution, or colour at `ppi`)."""

    def __init__(self, source: WindowedView, ppi: float | None):
        self._source, self._ppi = source, ppi

    @property
    def ppi(self) -> float:
        return self._ppi if self._ppi is not None else self._source._maker.ppi

    def window(self, rect_in: Rect) -> TopView:
        base = self._source.base_window(rect_in)
        if self._ppi is None:
            gray = cv2.cvtColor(base.image, cv2.COLOR_BGR2GRAY) if base.image.size else base.image[..., 0]
            return TopView(gray, base.ppi, base.origin_in)
        return _resized(base, self._ppi) if base.image.size else base
