"""Reading photos from disk or from bytes, with one clear error for anything that is not an image."""
from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np


class ImageError(ValueError):
    """A file or upload that is not a usable photo."""


def decode_image(data: bytes, name: str = "photo") -> np.ndarray:
    """Bytes of a JPEG/PNG/... -> BGR uint8 image."""
    if not data:
        raise ImageError(f"{name}: the file is empty")
    image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    if image is None or image.size == 0:
        raise ImageError(f"{name}: not an image OpenCV can read (JPEG, PNG, BMP, TIFF or WebP)")
    return image


def read_image(path: str | Path) -> np.ndarray:
    path = Path(path)
    if not path.exists():
        raise ImageError(f"{path}: no such file")
    if path.is_dir():
        raise ImageError(f"{path}: is a folder, not a photo")
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ImageError(f"{path}: cannot read the file ({exc.strerror or exc.__class__.__name__})") from None
    return decode_image(data, str(path))
