"""Checking and converting uploaded photos: only real JPEG / PNG / WebP images of a sane size get in.

The size is read from the file's own header before anything is decoded, so a small file that
claims a gigantic picture (a "decompression bomb") is refused without being unpacked.
"""
from __future__ import annotations

import struct
import time

import cv2
import numpy as np

MAX_PIXELS = 50_000_000          # a 48 MP phone photo fits; more is refused before decoding
DISPLAY_MAX_PX = 1600            # pictures sent to tablets are at most this wide or tall


class UploadError(ValueError):
    """An upload that is not a usable photo; `status` is the HTTP status to answer with."""

    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.status = status


def image_kind(data: bytes) -> str | None:
    """'jpeg', 'png' or 'webp' from the file's first bytes, else None."""
    if data[:3] == b"\xff\xd8\xff":
        return "jpeg"
    if data[:8] == b"\x89PNG\r\n\x1a\n":
        return "png"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "webp"
    return None


MAX_JPEG_SEGMENTS = 512         # a camera's JPEG has a dozen or two before its frame header
MAX_JPEG_SCAN_S = 0.25          # and reading them takes microseconds


def _jpeg_size(data: bytes) -> tuple[int, int] | None:
    """(width, height) from the first start-of-frame; UploadError for a file that makes the scan long.

    Segments are jumped over by their length, and both their number and the time spent are bounded,
    so millions of tiny comment segments or fill bytes cannot hold a server thread for seconds.
    """
    deadline = time.monotonic() + MAX_JPEG_SCAN_S
    segments = 0
    i = 2
    while i + 9 < len(data):
        segments += 1
        if segments > MAX_JPEG_SEGMENTS or (segments % 64 == 0 and time.monotonic() > deadline):
            raise UploadError(f"the JPEG has more than {MAX_JPEG_SEGMENTS} parts before its picture: "
                              "not a camera's photo", 400)
        if data[i] != 0xFF:
            nxt = data.find(b"\xff", i)          # garbage between segments: jump to the next marker
            if nxt < 0:
                return None
            i = nxt
            continue
        marker = data[i + 1]
        if marker == 0xFF:                      # fill bytes: skip the whole run at once
            j = i + 1
            while j < len(data) and data[j] == 0xFF:
                j += 1
                if j - i > 4096:
                    raise UploadError("the JPEG is padded with thousands of fill bytes: not a camera's photo", 400)
            i = j - 1
            continue
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:
            i += 2
            continue
        length = struct.unpack(">H", data[i + 2:i + 4])[0]
        # Start-of-frame markers (all but DHT C4, JPG C8, DAC CC) carry height and width.
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            height, width = struct.unpack(">HH", data[i + 5:i + 9])
            return width, height
        if length < 2:
            return None                         # a segment cannot be shorter than its own length field
        i += 2 + length
    return None


def header_size(data: bytes, kind: str) -> tuple[int, int] | None:
    """(width, height) from the header, without decoding the pixels."""
    if kind == "png" and len(data) >= 24:
        return struct.unpack(">II", data[16:24])
    if kind == "jpeg":
        return _jpeg_size(data)
    if kind == "webp" and len(data) >= 30:
        chunk = data[12:16]
        if chunk == b"VP8X":
            w = int.from_bytes(data[24:27], "little") + 1
            h = int.from_bytes(data[27:30], "little") + 1
            return w, h
        if chunk == b"VP8 " and len(data) >= 30:
            w, h = struct.unpack("<HH", data[26:30])
            return w & 0x3FFF, h & 0x3FFF
        if chunk == b"VP8L" and len(data) >= 25:
            bits = int.from_bytes(data[21:25], "little")
            return (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
    return None


def decode_upload(data: bytes, name: str = "photo") -> np.ndarray:
    """Bytes from a tablet -> BGR image, or UploadError (400 empty/broken, 415 not an image, 413 too big)."""
    if not data:
        raise UploadError(f"{name}: the file is empty", 400)
    kind = image_kind(data)
    if kind is None:
        raise UploadError(f"{name}: not a photo (send a JPEG, PNG or WebP picture)", 415)
    size = header_size(data, kind)
    if size is None:
        raise UploadError(f"{name}: the {kind.upper()} file is damaged (no picture size in it)", 400)
    width, height = size
    if width < 1 or height < 1:
        raise UploadError(f"{name}: the picture has no pixels", 400)
    if width * height > MAX_PIXELS:
        raise UploadError(f"{name}: {width} x {height} pixels is too big (at most {MAX_PIXELS // 1_000_000} MP)",
                          413)
    image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    if image is None or image.size == 0:
        raise UploadError(f"{name}: the {kind.upper()} file is damaged and cannot be read", 400)
    return image


def display_scale(width_px: int, height_px: int, max_px: int = DISPLAY_MAX_PX) -> float:
    """shown px / frame px for a picture sent to tablets (display_jpeg scales by exactly this)."""
    return min(1.0, max_px / max(width_px, height_px))


def display_jpeg(frame: np.ndarray, max_px: int = DISPLAY_MAX_PX, quality: int = 82) -> tuple[bytes, float]:
    """A JPEG for tablets, scaled to fit max_px; returns (bytes, scale) with scale = shown px / frame px."""
    h, w = frame.shape[:2]
    scale = display_scale(w, h, max_px)
    if scale < 1.0:
        frame = cv2.resize(frame, (round(w * scale), round(h * scale)), interpolation=cv2.INTER_AREA)
    ok, buf = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, quality])
    if not ok:
        raise UploadError("the picture could not be encoded", 500)
    return buf.tobytes(), scale
