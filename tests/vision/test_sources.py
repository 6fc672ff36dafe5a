"""Camera sources: folders, single photos, video files, an HTTP stream on this machine, and reconnect."""
from __future__ import annotations

import functools
import http.server
import threading

import cv2
import numpy as np
import pytest

from vision.sources import (FolderSource, ReconnectingSource, SourceError, SourceLost, _redact,
                            open_source)


def _frame(i: int, size=(64, 48)) -> np.ndarray:
    """A frame that says its own number: a grey level of 10 * i."""
    return np.full((size[1], size[0], 3), 10 * i, np.uint8)


@pytest.fixture
def photo_folder(tmp_path):
    folder = tmp_path / "photos"
    folder.mkdir()
    for i in range(5):
        cv2.imwrite(str(folder / f"f{i:02d}.png"), _frame(i))
    (folder / "notes.txt").write_text("not a photo")
    return folder


def _read_all(source, limit=100):
    frames = []
    while len(frames) < limit:
        f = source.read()
        if f is None:
            break
        frames.append(int(f[0, 0, 0]) // 10)
    return frames


def test_a_folder_is_read_in_name_order_and_ends(photo_folder):
    source = open_source(str(photo_folder))
    assert source.name == f"folder {photo_folder}" and not source.live
    assert _read_all(source) == [0, 1, 2, 3, 4]
    assert source.read() is None


def test_a_folder_can_loop_and_skips_files_that_are_not_pictures(photo_folder):
    (photo_folder / "f02.png").write_bytes(b"broken")
    source = open_source(photo_folder, loop=True)
    assert _read_all(source, limit=9) == [0, 1, 3, 4, 0, 1, 3, 4, 0]
    assert source.skipped == ["f02.png"]


def test_a_folder_with_nothing_readable(tmp_path):
    with pytest.raises(SourceError, match="no photos"):
        open_source(tmp_path)
    (tmp_path / "a.png").write_bytes(b"x")
    assert open_source(tmp_path).read() is None
    with pytest.raises(SourceError, match="none of its files can be read"):
        FolderSource([tmp_path / "a.png"], "folder x", loop=True).read()


def test_one_photo(photo_folder):
    source = open_source(str(photo_folder / "f03.png"))
    assert _read_all(source) == [3]


def _write_video(path, n=8):
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 10.0, (64, 48))
    assert writer.isOpened()
    for i in range(n):
        writer.write(_frame(i * 2))
    writer.release()


def test_a_video_file_plays_to_its_end(tmp_path):
    _write_video(tmp_path / "clip.avi")
    source = open_source(str(tmp_path / "clip.avi"))
    assert source.name.startswith("video") and not source.live
    # MJPEG is lossy: grey levels come back within a step or two.
    got = [10 * i for i in _read_all(source)]
    assert len(got) == 8 and np.allclose(got, [20 * i for i in range(8)], atol=10)
    source.close()


@pytest.mark.parametrize("spec, message", [
    ("no/such/place", "no/such/place: no such camera, stream, video file or folder of photos"),
    ("ftp://phone/video", "unknown stream kind"),
    ("rtsp://me:secret@127.0.0.1:1/live", "stream rtsp://me:\\*\\*\\*@127.0.0.1:1/live cannot be opened"),
])
def test_sources_that_cannot_open_say_which(spec, message):
    with pytest.raises(SourceError, match=message) as info:
        open_source(spec)
    assert "secret" not in str(info.value)


def test_a_usb_camera_that_is_not_there(tmp_path):
    with pytest.raises(SourceError, match="camera 37 cannot be opened"):
        open_source("37")


def test_a_device_node_that_is_no_camera():
    with pytest.raises(SourceError, match="camera /dev/null cannot be opened"):
        open_source("/dev/null")


def test_a_file_that_is_not_a_video(tmp_path):
    (tmp_path / "x.mp4").write_bytes(b"nothing")
    with pytest.raises(SourceError, match="cannot be opened"):
        open_source(tmp_path / "x.mp4")


def test_passwords_are_kept_out_of_names():
    assert _redact("rtsp://admin:hunter2@10.0.0.5:554/s") == "rtsp://admin:***@10.0.0.5:554/s"
    assert _redact("http://phone:8080/video") == "http://phone:8080/video"


def test_a_stream_url_over_http(tmp_path):
    """An IP-camera app seen as an HTTP URL: here a server on this machine's loopback serves a clip."""
    _write_video(tmp_path / "clip.avi")
    handler = functools.partial(_QuietHandler, directory=str(tmp_path))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        source = open_source(f"http://127.0.0.1:{server.server_port}/clip.avi")
        assert source.live and source.name.startswith("stream http://127.0.0.1")
        first = source.read()
        assert first.shape == (48, 64, 3)
        # A stream that ends is a dropped camera, not the end of a file.
        with pytest.raises(SourceLost, match="stopped sending frames"):
            for _ in range(20):
                source.read()
        source.close()
    finally:
        server.shutdown()
        server.server_close()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


class FakeCamera:
    """A live camera that sends `frames` and then drops (SourceLost), or ends (None) if `ends`."""

    def __init__(self, frames, ends=False):
        self.name, self.live = "camera 0", True
        self.frames = list(frames)
        self.ends = ends
        self.closed = False

    def read(self):
        if self.frames:
            return _frame(self.frames.pop(0))
        if self.ends:
            return None
        raise SourceLost("camera 0 stopped sending frames")

    def close(self):
        self.closed = True


def test_a_dropped_camera_is_opened_again():
    cameras = [FakeCamera([1, 2]), SourceError("camera 0 cannot be opened"),
               SourceError("camera 0 cannot be opened"), FakeCamera([3, 4], ends=True)]
    opened = []

    def opener():
        item = cameras.pop(0)
        if isinstance(item, Exception):
            raise item
        opened.append(item)
        return item

    source = ReconnectingSource(opener, "camera 0", retry_s=(0.0,))
    assert _read_all(source) == [1, 2, 3, 4]
    assert source.reconnects == 1 and source.fault is None
    assert opened[0].closed


def test_a_camera_that_never_comes_back_gives_up_when_told():
    cameras = [FakeCamera([1])]

    def opener():
        if cameras:
            return cameras.pop(0)
        raise SourceError("camera 0 cannot be opened")

    source = ReconnectingSource(opener, "camera 0", retry_s=(0.0,), max_tries=3)
    assert _read_all(source, limit=1) == [1]
    with pytest.raises(SourceError, match="gave up after 3 tries"):
        source.read()


def test_a_source_that_cannot_open_at_first_fails_at_once():
    def opener():
        raise SourceError("camera 3 cannot be opened")

    with pytest.raises(SourceError, match="camera 3 cannot be opened"):
        ReconnectingSource(opener, "camera 3")


def test_stop_ends_a_reconnect_wait():
    cameras = [FakeCamera([1])]

    def opener():
        if cameras:
            return cameras.pop(0)
        raise SourceError("camera 0 cannot be opened")

    source = ReconnectingSource(opener, "camera 0", retry_s=(0.0, 3600.0))
    assert _read_all(source, limit=1) == [1]
    threading.Timer(0.05, source.stop).start()
    assert source.read() is None
    assert source.fault == "camera 0 cannot be opened: trying again in 3600 s (try 3)"
