"""The table seen from straight above: one top view per frame, shared by every stage.

View pixel (u, v) is table point (x0 + u / ppi, y0 + v / ppi). A frame is warped once, in colour,
to a view of the whole table at the finest resolution any stage needs (the figure markers'); the
other stages read layers derived from it (gray, coarser resolutions) or windows cut out of it, so
nothing warps the frame a second time. While a registration holds, the warp's pixel maps are kept
and each new frame is only resampled through them.
"""
from __future__ import annotations

from dataclasses import dataclass, field

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


def _geometry(H_in_to_px: np.ndarray, ppi: float, rect_in: Rect) -> tuple[tuple[int, int], np.ndarray]:
    x0, y0, x1, y1 = rect_in
    size = (max(1, int(np.ceil((x1 - x0) * ppi))), max(1, int(np.ceil((y1 - y0) * ppi))))
    view_to_in = np.array([[1 / ppi, 0, x0], [0, 1 / ppi, y0], [0, 0, 1.0]])
    return size, np.asarray(H_in_to_px, np.float64) @ view_to_in


@dataclass
class FrameView:
    """A frame's one top view (BGR, `base.ppi`) and the layers the stages derive from it, each made
    at most once: `gray()` at the base resolution, `at(ppi)` in colour, `gray_at(ppi)`."""
    base: TopView
    _layers: dict = field(default_factory=dict, repr=False)

    def _layer(self, key, make):
        if key not in self._layers:
            self._layers[key] = make()
        return self._layers[key]

    def gray(self) -> TopView:
        return self._layer("gray", lambda: TopView(cv2.cvtColor(self.base.image, cv2.COLOR_BGR2GRAY),
                                                   self.base.ppi, self.base.origin_in))

    def at(self, ppi: float) -> TopView:
        """The colour view at `ppi` (at most the base's): a rescale of a finer layer, not a warp."""
        if ppi >= self.base.ppi:
            return self.base
        finer = self.at(2 * ppi) if 2 * ppi < self.base.ppi else self.base
        return self._layer(("bgr", ppi), lambda: _resized(finer, ppi))

    def gray_at(self, ppi: float) -> TopView:
        if ppi >= self.base.ppi:
            return self.gray()
        return self._layer(("gray", ppi), lambda: _resized(self.gray(), ppi))

    def rescaled(self, factor: float, centre_in: tuple[float, float]) -> "FrameView":
        return FrameView(self.base.rescaled(factor, centre_in))

    def whole(self) -> "FrameView":
        return self


def _resized(view: TopView, ppi: float) -> TopView:
    """The view at another resolution, on the same pixel-centre convention (an exact scale about the
    origin; blurred first when shrinking a lot, so texture and grid lines do not alias)."""
    if abs(ppi - view.ppi) < 1e-9:
        return view
    h, w = view.image.shape[:2]
    scale = ppi / view.ppi
    image = view.image
    if scale < 0.75:
        image = cv2.GaussianBlur(image, (0, 0), 0.4 / scale)
    size = (max(1, int(np.ceil(w * scale))), max(1, int(np.ceil(h * scale))))
    m = np.array([[scale, 0, 0], [0, scale, 0]], np.float64)
    image = cv2.warpAffine(image, m, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return TopView(image, ppi, view.origin_in)


class TopViewMaker:
    """Makes the shared top view of each frame for one registration (build again when it changes).

    `keep_maps`: keep the warp as pixel maps, so that each later frame is one remap (a stream);
    a single photo warps directly."""

    warps = 0        # frames warped by any maker (tests count them)

    def __init__(self, H_in_to_px: np.ndarray, ppi: float, rect_in: Rect, *, keep_maps: bool = False):
        self.ppi = float(ppi)
        self.rect_in = rect_in
        self.size, self._m = _geometry(H_in_to_px, self.ppi, rect_in)
        self._keep_maps = keep_maps
        self._maps = None

    def make(self, frame_bgr: np.ndarray) -> FrameView:
        TopViewMaker.warps += 1
        if not self._keep_maps:
            image = cv2.warpPerspective(frame_bgr, self._m, self.size, flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                                        borderMode=cv2.BORDER_REPLICATE)
        else:
            if self._maps is None:
                self._maps = self._build_maps()
            image = cv2.remap(frame_bgr, *self._maps, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        return FrameView(TopView(image, self.ppi, (self.rect_in[0], self.rect_in[1])))

    def windows(self, frame_bgr: np.ndarray, rescale=None) -> "WindowedView":
        """This frame's view, made only where a stage looks (a tracked frame: a few windows)."""
        TopViewMaker.warps += 1
        if self._maps is None:
            self._maps = self._build_maps()
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

    def whole(self) -> FrameView:
        if self._whole is None:
            image = cv2.remap(self._frame, *self._maker._maps, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
            view = FrameView(TopView(image, self._maker.ppi, (self._maker.rect_in[0], self._maker.rect_in[1])))
            self._whole = view.rescaled(*self._rescale) if self._rescale is not None else view
        return self._whole

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
