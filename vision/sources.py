"""Camera sources: a USB camera, a stream URL, a video file or a folder of photos behind one interface.

`open_source(spec)` picks the kind from what the person typed: "0" (USB camera 0),
"rtsp://..." or "http://.../video" (a phone's IP-camera app, RTSP or MJPEG over HTTP), a video file,
a folder of photos or one photo. `ReconnectingSource` wraps a live one and opens it again when it
drops, waiting a little longer each try, and says what is going on in `fault`.
"""
from __future__ import annotations

import re
import threading
import time
from pathlib import Path
from typing import Callable, Protocol, Sequence

import cv2
import numpy as np

PHOTO_SUFFIXES = {".jpg", ".jpeg", ".png", ".bmp", ".tif", ".tiff", ".webp"}
RETRY_S = (0.5, 1.0, 2.0, 5.0)      # waits between reconnect tries; the last one repeats


class SourceError(ValueError):
    """A source that cannot be opened or read; the message names it."""


class SourceLost(SourceError):
    """A live source stopped sending frames (unplugged, Wi-Fi dropped, phone app closed)."""


class FrameSource(Protocol):
    name: str          # how a person would call it: "camera 0", "stream rtsp://phone:8554/live"
    live: bool         # True: frames keep coming and an old one is worth nothing (so may be dropped)

    def read(self) -> np.ndarray | None:
        """The next BGR frame; None when a file or folder has no more; SourceLost when a camera drops."""

    def close(self) -> None:
        ...


def _redact(url: str) -> str:
    """rtsp://user:secret@host/ -> rtsp://user:***@host/: names end up in status lines and logs."""
    return re.sub(r"(://[^:/@]+):[^@/]*@", r"\1:***@", url)


class CaptureSource:
    """cv2.VideoCapture behind the FrameSource interface: USB index, stream URL or video file."""

    def __init__(self, target: int | str, name: str, live: bool, *, fps: float | None = None,
                 open_timeout_s: float = 10.0):
        self.name, self.live = name, live
        self._fps = fps
        self._next_due = 0.0
        if isinstance(target, int):
            self._cap = cv2.VideoCapture(target)
        else:
            params = [cv2.CAP_PROP_OPEN_TIMEOUT_MSEC, int(open_timeout_s * 1000),
                      cv2.CAP_PROP_READ_TIMEOUT_MSEC, int(open_timeout_s * 1000)]
            self._cap = cv2.VideoCapture(target, cv2.CAP_ANY, params)
        if not self._cap.isOpened():
            self._cap.release()
            raise SourceError(f"{name} cannot be opened")
        if live:
            self._cap.set(cv2.CAP_PROP_BUFFERSIZE, 1)   # keep the newest frame, not a queue of old ones

    def read(self) -> np.ndarray | None:
        if self._fps:   # a file replayed at its own pace, as a camera would deliver it
            now = time.monotonic()
            if self._next_due > now:
                time.sleep(self._next_due - now)
            self._next_due = max(now, self._next_due) + 1.0 / self._fps
        ok, frame = self._cap.read()
        if ok and frame is not None:
            return frame
        if self.live:
            raise SourceLost(f"{self.name} stopped sending frames")
        return None

    def close(self) -> None:
        self._cap.release()


class FolderSource:
    """Photos read one after another in name order (optionally round and round, optionally paced)."""

    def __init__(self, files: Sequence[str | Path], name: str, *, loop: bool = False, fps: float | None = None):
        self.name, self.live = name, False
        self.files = [Path(f) for f in files]
        if not self.files:
            raise SourceError(f"{name}: no photos (.jpg, .png, ...) in it")
        self.loop, self._fps = loop, fps
        self.skipped: list[str] = []      # files that could not be read as pictures
        self._i = 0
        self._next_due = 0.0

    def read(self) -> np.ndarray | None:
        tried = 0
        while tried < len(self.files):
            if self._i >= len(self.files):
                if not self.loop:
                    return None
                self._i = 0
            path = self.files[self._i]
            self._i += 1
            tried += 1
            frame = cv2.imread(str(path), cv2.IMREAD_COLOR)
            if frame is None:
                if path.name not in self.skipped:
                    self.skipped.append(path.name)
                continue
            if self._fps:
                now = time.monotonic()
                if self._next_due > now:
                    time.sleep(self._next_due - now)
                self._next_due = max(now, self._next_due) + 1.0 / self._fps
            return frame
        if self._i >= len(self.files) and not self.loop:
            return None
        raise SourceError(f"{self.name}: none of its files can be read as a picture")

    def close(self) -> None:
        pass


def open_source(spec: int | str, *, loop: bool = False, fps: float | None = None) -> FrameSource:
    """A source from what a person typed; SourceError (one line, naming it) when it cannot be opened.

    `fps` paces a file or folder like a camera; `loop` replays a folder round and round.
    """
    text = str(spec).strip()
    if isinstance(spec, int) or re.fullmatch(r"\d{1,2}", text):
        return CaptureSource(int(text), f"camera {int(text)}", live=True)
    if "://" in text:
        if not re.match(r"^(rtsp|rtsps|rtmp|http|https|udp|tcp)://", text, re.I):
            raise SourceError(f"{_redact(text)}: unknown stream kind (use rtsp://, http:// or https://)")
        return CaptureSource(text, f"stream {_redact(text)}", live=True)
    path = Path(text)
    if path.is_dir():
        files = sorted(f for f in path.iterdir() if f.suffix.lower() in PHOTO_SUFFIXES)
        return FolderSource(files, f"folder {path}", loop=loop, fps=fps)
    if path.is_file():
        if path.suffix.lower() in PHOTO_SUFFIXES:
            return FolderSource([path], f"photo {path}", loop=loop, fps=fps)
        return CaptureSource(str(path), f"video {path}", live=False, fps=fps)
    if path.exists():       # a device node such as /dev/video2
        return CaptureSource(str(path), f"camera {path}", live=True)
    raise SourceError(f"{text}: no such camera, stream, video file or folder of photos")


class ReconnectingSource:
    """A live source that is opened again when it drops; `fault` says in words what is wrong meanwhile.

    `opener` makes a fresh source (e.g. `lambda: open_source("0")`). Waits between tries follow
    `retry_s` (the last repeats); `max_tries` None means try for ever. `stop()` ends any wait at once.
    """

    def __init__(self, opener: Callable[[], FrameSource], name: str, *, retry_s: Sequence[float] = RETRY_S,
                 max_tries: int | None = None):
        self.name, self.live = name, True
        self._opener = opener
        self._retry_s = tuple(retry_s)
        self._max_tries = max_tries
        self._stop = threading.Event()
        self._src: FrameSource | None = None
        self.fault: str | None = None
        self.reconnects = 0
        # The first open fails at once (a typo should be a clear error, not an endless wait);
        # only a source that worked and then dropped is waited for.
        self._src = opener()
        self.live = getattr(self._src, "live", True)

    def _open(self) -> None:
        tries = 0
        while not self._stop.is_set():
            try:
                self._src = self._opener()
                self.reconnects += 1
                self.fault = None
                return
            except SourceError as exc:
                tries += 1
                if self._max_tries is not None and tries >= self._max_tries:
                    self.fault = f"{exc}; gave up after {tries} tries"
                    raise SourceError(self.fault) from None
                wait = self._retry_s[min(tries - 1, len(self._retry_s) - 1)]
                self.fault = f"{exc}: trying again in {wait:g} s (try {tries + 1})"
                self._stop.wait(wait)

    def read(self) -> np.ndarray | None:
        """The next frame; None once stopped or when the source itself ends."""
        while not self._stop.is_set():
            if self._src is None:
                self._open()
                continue
            try:
                return self._src.read()
            except SourceLost as exc:
                self.fault = f"{exc}: reconnecting"
                self._src.close()
                self._src = None
                self._stop.wait(self._retry_s[0])
        return None

    def stop(self) -> None:
        self._stop.set()

    def close(self) -> None:
        self.stop()
        if self._src is not None:
            self._src.close()
            self._src = None
