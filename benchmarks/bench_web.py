"""Benchmark: the tablet app under a table's load, on loopback only, with a memory soak.

Starts `tablesight serve --demo` as a child process on 127.0.0.1 (a free port, a temporary
instance folder) with the demo photo as a live camera, then plays TABLETS tablets against it for
--seconds (10 minutes by default) and stops everything by itself:

- each tablet holds a live-update stream (/live/events, reconnecting as told by `retry:`) and on
  every change fetches what a page fetches: /api/scene, /api/targets, /api/game; it also asks
  every POLL_S seconds even without a change;
- one phone uploads a 1080p photo (the demo's) every PHOTO_EVERY_S seconds; "photo to targets"
  is the time from sending it until every tablet holds /api/targets for its version or newer.

Before the load, the same three reads are timed from one tablet with the camera off (the
baseline in the same run), and the load's figures are also given as ratios to it. Memory is the
server's resident set (VmRSS) after a warm-up and at the end. Prints p50/p95/p99/max per request.
Traffic goes only to 127.0.0.1; nothing is asserted (machines drift).

    python benchmarks/bench_web.py [--seconds 600] [--tablets 10] [--photo-every 2] [--warmup 20]
"""
from __future__ import annotations

import argparse
import http.client
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import defaultdict
from pathlib import Path

HOST = "127.0.0.1"
PIN = "2468"
READS = ("/api/scene", "/api/targets", "/api/game")


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))]


class Recorder:
    def __init__(self) -> None:
        self.times: dict[str, list[float]] = defaultdict(list)
        self.errors: dict[str, int] = defaultdict(int)
        self.lock = threading.Lock()

    def add(self, name: str, ms: float) -> None:
        with self.lock:
            self.times[name].append(ms)

    def error(self, name: str) -> None:
        with self.lock:
            self.errors[name] += 1


class Tablet:
    """One tablet: a live-update stream in one thread, the page's fetches in another."""

    def __init__(self, port: int, rec: Recorder, stop: threading.Event, poll_s: float) -> None:
        self.port, self.rec, self.stop, self.poll_s = port, rec, stop, poll_s
        self.wake = threading.Event()
        self.seen = 0
        self.targets_version = 0                  # the newest version this tablet holds targets for
        self.targets_at: dict[int, float] = {}     # version -> when its targets arrived
        self.lock = threading.Lock()
        self.threads = [threading.Thread(target=self._stream, daemon=True),
                        threading.Thread(target=self._fetch, daemon=True)]

    def start(self) -> "Tablet":
        for t in self.threads:
            t.start()
        return self

    def _stream(self) -> None:
        retry_s = 2.0
        while not self.stop.is_set():
            try:
                conn = http.client.HTTPConnection(HOST, self.port, timeout=5)
                conn.request("GET", "/live/events", headers={"Last-Event-ID": str(self.seen)})
                res = conn.getresponse()
                buf = b""
                while not self.stop.is_set():
                    try:
                        chunk = res.read1(4096)
                    except socket.timeout:
                        continue
                    if not chunk:
                        break
                    buf += chunk
                    while b"\n\n" in buf:
                        block, buf = buf.split(b"\n\n", 1)
                        for line in block.decode().splitlines():
                            if line.startswith("retry: "):
                                retry_s = int(line[7:]) / 1000
                            elif line.startswith("id: "):
                                self.seen = max(self.seen, int(line[4:]))
                                self.wake.set()
                conn.close()
            except (OSError, http.client.HTTPException):
                self.rec.error("/live/events")
            self.stop.wait(retry_s)

    def _fetch(self) -> None:
        conn = http.client.HTTPConnection(HOST, self.port, timeout=30)
        while not self.stop.is_set():
            self.wake.wait(self.poll_s)
            self.wake.clear()
            for path in READS:
                started = time.perf_counter()
                try:
                    conn.request("GET", path)
                    res = conn.getresponse()
                    body = res.read()
                except (OSError, http.client.HTTPException):
                    self.rec.error(path)
                    conn.close()
                    conn = http.client.HTTPConnection(HOST, self.port, timeout=30)
                    continue
                self.rec.add(path, (time.perf_counter() - started) * 1000)
                if res.status >= 500:
                    self.rec.error(path)
                if path == "/api/scene" and res.status == 200:
                    version = json.loads(body)["version"]
                elif path == "/api/targets" and res.status == 200:
                    with self.lock:
                        if version > self.targets_version:
                            self.targets_version = version
                            self.targets_at[version] = time.perf_counter()
        conn.close()

    def targets_since(self, version: int) -> float | None:
        """When this tablet first held targets for `version` or newer."""
        with self.lock:
            times = [at for v, at in self.targets_at.items() if v >= version]
        return min(times) if times else None


def post_photo(port: int, jpeg: bytes) -> tuple[int, int]:
    boundary = "bench-boundary"
    body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"photo\"; filename=\"table.jpg\"\r\n"
            "Content-Type: image/jpeg\r\n\r\n").encode() + jpeg + f"\r\n--{boundary}--\r\n".encode()
    conn = http.client.HTTPConnection(HOST, port, timeout=60)
    conn.request("POST", "/api/photo", body=body, headers={
        "X-Table-PIN": PIN, "Content-Type": f"multipart/form-data; boundary={boundary}"})
    res = conn.getresponse()
    data = res.read()
    conn.close()
    return res.status, json.loads(data).get("version", 0)


def call(port: int, method: str, path: str, body: dict | None = None) -> int:
    conn = http.client.HTTPConnection(HOST, port, timeout=30)
    conn.request(method, path, body=None if body is None else json.dumps(body),
                 headers={"X-Table-PIN": PIN, "Content-Type": "application/json"})
    status = conn.getresponse().status
    conn.close()
    return status


def baseline(port: int, rounds: int = 60) -> dict[str, float]:
    """The three reads from one tablet with nothing else going on: p50 in ms."""
    conn = http.client.HTTPConnection(HOST, port, timeout=30)
    times: dict[str, list[float]] = defaultdict(list)
    for i in range(rounds):
        if i % 10 == 0:
            call(port, "PUT", "/api/roster/m10", {"name": f"Robin {i}"})      # a new version: no kept answer
        for path in READS:
            started = time.perf_counter()
            conn.request("GET", path)
            conn.getresponse().read()
            times[path].append((time.perf_counter() - started) * 1000)
    conn.close()
    return {p: statistics.median(v) for p, v in times.items()}


def report(rec: Recorder, photo_ms: list[float], base: dict[str, float]) -> None:
    print(f"{'request':<22}{'n':>7}{'p50 ms':>9}{'p95 ms':>9}{'p99 ms':>9}{'max ms':>9}{'p50/base':>10}{'errors':>8}")
    rows = list(rec.times.items()) + [("photo to targets", photo_ms)]
    for name, values in rows:
        if not values:
            print(f"{name:<22}{0:>7}")
            continue
        ratio = f"{pct(values, 50) / base[name]:.1f}x" if name in base and base[name] > 0 else ""
        print(f"{name:<22}{len(values):>7}{pct(values, 50):>9.1f}{pct(values, 95):>9.1f}{pct(values, 99):>9.1f}"
              f"{max(values):>9.1f}{ratio:>10}{rec.errors.get(name, 0):>8}")
    print("baseline (one tablet, camera off, answers recomputed every 10 rounds): "
          + ", ".join(f"{p} p50 {ms:.1f} ms" for p, ms in base.items()))
    if rec.errors.get("/live/events"):
        print(f"live stream reconnects after an error: {rec.errors['/live/events']}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=600.0, help="soak length after the warm-up (default 600)")
    ap.add_argument("--warmup", type=float, default=20.0, help="seconds of load before memory is first read")
    ap.add_argument("--tablets", type=int, default=10)
    ap.add_argument("--photo-every", type=float, default=2.0, help="seconds between photo uploads")
    ap.add_argument("--poll", type=float, default=1.0, help="seconds a tablet waits for a change before asking anyway")
    ap.add_argument("--no-camera", action="store_true", help="no live camera (photos only)")
    args = ap.parse_args(argv)

    from assistant.demo import DEMO_PHOTO
    jpeg = DEMO_PHOTO.read_bytes()
    port = free_port()
    instance = tempfile.mkdtemp(prefix="tablesight-bench-")
    cmd = [sys.executable, "-m", "assistant", "serve", "--demo", "--host", HOST, "--port", str(port),
           "--pin", PIN, "--instance", instance]
    if not args.no_camera:
        cmd += ["--camera", str(DEMO_PHOTO)]
    server = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                              env={**os.environ, "PYTHONUNBUFFERED": "1"})
    stop = threading.Event()
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if call(port, "GET", "/api/status") == 200:
                    break
            except OSError:
                pass
            if time.monotonic() > deadline or server.poll() is not None:
                print("the server did not start:", server.stderr.read().decode()[-2000:] if server.poll() is not None else "")
                return 1
            time.sleep(0.2)

        camera_on = not args.no_camera
        if camera_on:
            call(port, "POST", "/api/live", {"on": False})          # the baseline runs with the camera off
        base = baseline(port)
        if camera_on:
            call(port, "POST", "/api/live", {"on": True})

        rec = Recorder()
        tablets = [Tablet(port, rec, stop, args.poll).start() for _ in range(args.tablets)]
        photo_ms: list[float] = []
        pending: list[tuple[float, int]] = []
        rss_start = None
        started = time.monotonic()
        ends = started + args.warmup + args.seconds
        next_photo = started
        print(f"server pid {server.pid} on {HOST}:{port}; {args.tablets} tablets, a photo every "
              f"{args.photo_every:g} s, camera {'on' if camera_on else 'off'}; warm-up {args.warmup:g} s, "
              f"soak {args.seconds:g} s", flush=True)
        while time.monotonic() < ends and server.poll() is None:
            now = time.monotonic()
            if rss_start is None and now - started >= args.warmup:
                rss_start = rss_mb(server.pid)
                with rec.lock:                  # figures from the warm soak only
                    rec.times.clear()
                    rec.errors.clear()
                photo_ms.clear()
                print(f"warm: server RSS {rss_start:.1f} MB", flush=True)
            if now >= next_photo:
                sent = time.perf_counter()
                try:
                    status, version = post_photo(port, jpeg)
                    rec.add("POST /api/photo", (time.perf_counter() - sent) * 1000)
                    if status >= 500:
                        rec.error("POST /api/photo")
                    pending.append((sent, version))
                except (OSError, http.client.HTTPException):
                    rec.error("POST /api/photo")
                next_photo += args.photo_every
            # A photo is done when every tablet holds targets for its version or newer.
            still = []
            for sent, version in pending:
                got = [t.targets_since(version) for t in tablets]
                if all(g is not None for g in got):
                    photo_ms.append((max(got) - sent) * 1000)
                elif time.perf_counter() - sent < 30:
                    still.append((sent, version))
                else:
                    rec.error("photo to targets")
            pending = still
            time.sleep(0.02)
        rss_end = rss_mb(server.pid)
        stop.set()
        report(rec, photo_ms, base)
        if rss_start is not None:
            print(f"server RSS: {rss_start:.1f} MB after the warm-up, {rss_end:.1f} MB at the end "
                  f"({rss_end - rss_start:+.1f} MB over {args.seconds:g} s)")
        return 0
    finally:
        stop.set()
        if server.poll() is None:
            server.send_signal(signal.SIGINT)
            try:
                server.wait(10)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()


if __name__ == "__main__":
    sys.exit(main())
