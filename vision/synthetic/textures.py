"""Real photographed textures for mats, felt and paper, read from the files scikit-image ships.

The grass, gravel and brick photos (CC0, see skimage.data's docstrings) and the printed `page`
photo (scikit-image's own sample data, BSD-3) are inside the scikit-image wheel; they are read straight from its package folder with
OpenCV, so nothing is imported from skimage and nothing is ever downloaded. No wood photo ships:
`wood` is derived from the gravel photo, smeared along one axis into long fibres and bent into
growth rings, so it keeps a photo's irregular grain rather than a clean sine.
"""
from __future__ import annotations

import functools
import importlib.util
import math
from pathlib import Path

import cv2
import numpy as np

PHOTO_TEXTURES = ("grass", "gravel", "brick")
TEXTURES = PHOTO_TEXTURES + ("wood",)
NEEDS = ("scikit-image is needed for the photographed textures of the hard synthetic set: "
         "pip install -e '.[test]' (or pip install scikit-image)")


def _data_dir() -> Path:
    spec = importlib.util.find_spec("skimage")
    if spec is None or not spec.submodule_search_locations:
        raise ImportError(NEEDS)
    return Path(list(spec.submodule_search_locations)[0]) / "data"


@functools.lru_cache(maxsize=None)
def shipped_gray(name: str) -> np.ndarray:
    """One of the grey photos in skimage's data folder (grass, gravel, brick, page), uint8."""
    path = _data_dir() / f"{name}.png"
    image = cv2.imread(str(path), cv2.IMREAD_GRAYSCALE)
    if image is None:
        raise ImportError(f"{NEEDS} ({path.name} is missing from the installed package)")
    image.setflags(write=False)
    return image


@functools.lru_cache(maxsize=None)
def _wood_source() -> np.ndarray:
    g = shipped_gray("gravel").astype(np.float32)
    fibres = cv2.GaussianBlur(g, (0, 0), sigmaX=40, sigmaY=1.2)        # grain runs along x
    fibres = (fibres - fibres.mean()) / (fibres.std() + 1e-6)
    h, w = fibres.shape
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    bend = 9 * np.sin(xx / 83.0) + 5 * np.sin(xx / 31.0 + 1.3)           # rings wander across planks
    rings = np.sin((yy + bend) / 4.5 + 0.8 * fibres)
    wood = 0.55 * rings + 0.45 * fibres
    out = cv2.normalize(wood, None, 0, 255, cv2.NORM_MINMAX).astype(np.uint8)
    out.setflags(write=False)
    return out


def texture_gray(name: str) -> np.ndarray:
    if name == "wood":
        return _wood_source()
    if name not in PHOTO_TEXTURES:
        raise ValueError(f"unknown texture {name!r}; one of {', '.join(TEXTURES)}")
    return shipped_gray(name)


def tiled(name: str, size_px: tuple[int, int], texel_px: float, rng: np.random.Generator,
          angle_deg: float | None = None) -> np.ndarray:
    """A float32 field of `size_px` (w, h), mean 0 and std 1, of the named photo, rescaled so that
    one of its pixels is `texel_px` of ours, mirrored to tile without seams, randomly shifted and
    turned."""
    w, h = size_px
    src = texture_gray(name).astype(np.float32)
    if texel_px < 1:             # shrink the photo first: a warp alone would alias its fine detail
        src = cv2.resize(src, None, fx=texel_px, fy=texel_px, interpolation=cv2.INTER_AREA)
        texel_px = 1.0
    src = np.vstack([np.hstack([src, src[:, ::-1]]), np.hstack([src[::-1], src[::-1, ::-1]])])
    a = math.radians(float(rng.uniform(0, 360)) if angle_deg is None else angle_deg)
    c, s = math.cos(a) / texel_px, math.sin(a) / texel_px
    ox, oy = rng.uniform(0, src.shape[1]), rng.uniform(0, src.shape[0])
    m = np.array([[c, -s, ox], [s, c, oy]], np.float32)       # ours -> source
    out = cv2.warpAffine(src, m, (w, h), flags=cv2.WARP_INVERSE_MAP | cv2.INTER_LINEAR,
                         borderMode=cv2.BORDER_WRAP)
    out -= out.mean()
    return out / (out.std() + 1e-6)


def tinted(field: np.ndarray, rgb: tuple[int, int, int], contrast: float) -> np.ndarray:
    """BGR float32: the colour modulated by the texture field (a relative contrast, e.g. 0.25)."""
    gain = 1 + contrast * np.clip(field, -2.5, 2.5)
    return gain[..., None] * np.array(rgb[::-1], np.float32)


def printed_page(size_px: tuple[int, int]) -> np.ndarray:
    """A printed rule-book page (BGR uint8): the shipped `page` photo of printed text, lightened
    to paper white and repeated down the sheet."""
    w, h = size_px
    page = shipped_gray("page")
    # The photo is lit unevenly: ink is what is darker than its neighbourhood.
    local = cv2.GaussianBlur(page.astype(np.float32), (0, 0), 6)
    text = np.clip((local - page.astype(np.float32) - 8) / 40, 0, 1)      # 1 where ink
    reps = int(math.ceil(h / (w * text.shape[0] / text.shape[1]))) + 1
    column = cv2.resize(text, (w, int(w * text.shape[0] / text.shape[1])), interpolation=cv2.INTER_AREA)
    sheet = np.vstack([column] * reps)[:h]
    paper = 238 - 200 * sheet
    return np.repeat(paper[..., None], 3, axis=2).clip(0, 255).astype(np.uint8)
