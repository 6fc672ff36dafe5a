"""Per-frame cost of the tracked pipeline on a 1080p stream, as a ratio to a bare detectMarkers.

A 1080p photo of a table with 20 figures (12 markers, 8 colour bases), terrain felt and a square
grid; the stream is that photo with fresh sensor noise each frame. The pipeline runs with
tracking: the first frame registers the table and searches everything; later frames reuse the
registration, grid, pose and terrain and search windows around the figures plus one tile.
Both run in this process on the same frames, interleaved, so machine load cancels out of the ratio.

Run: python benchmarks/bench_frame.py [--frames N] [--seed S]
Goal (issue 4): <= 1.5x.
"""
from __future__ import annotations

import argparse
import statistics
import time

import cv2
import numpy as np

from vision.pipeline import FramePipeline, to_gray
from vision.synthetic import profile_for, random_photo, random_table, render_photo


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=40)
    parser.add_argument("--seed", type=int, default=11)
    args = parser.parse_args()

    rng = np.random.default_rng(args.seed)
    table = random_table(rng, n_markers=12, n_colour=8, n_terrain=3, grid="square")
    photo = render_photo(table, random_photo(rng, tilt_deg=25.0), rng)
    profile = profile_for(table)
    frames = []
    for _ in range(4):
        noise = rng.normal(0, 2.0, photo.image.shape)
        frames.append(np.clip(photo.image + noise, 0, 255).astype(np.uint8))

    bare = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50),
                                   cv2.aruco.DetectorParameters())
    pipeline = FramePipeline(profile, track=True)
    t0 = time.perf_counter()
    first = pipeline.process(frames[0])
    first_ms = (time.perf_counter() - t0) * 1e3
    bare.detectMarkers(to_gray(frames[0]))
    bare_ms, pipe_ms = [], []
    stages: dict[str, list[float]] = {}
    for k in range(args.frames):
        frame = frames[k % len(frames)]
        t0 = time.perf_counter()
        bare.detectMarkers(to_gray(frame))
        t1 = time.perf_counter()
        result = pipeline.process(frame)
        t2 = time.perf_counter()
        bare_ms.append((t1 - t0) * 1e3)
        pipe_ms.append((t2 - t1) * 1e3)
        for name, ms in result.timing_ms.items():
            stages.setdefault(name, []).append(ms)
    truth = {f.id for f in photo.truth.figures}
    markers_found = {f.id for f in result.scene.figures if f.detected_by == "marker"} & truth
    colour_found = sum(1 for f in result.scene.figures if f.detected_by == "colour" and not f.hidden)
    b, p = statistics.median(bare_ms), statistics.median(pipe_ms)
    print(f"frame {frames[0].shape[1]}x{frames[0].shape[0]}, table {table.width_in:.0f} x {table.depth_in:.0f} in, "
          f"{len(table.marker_figures)} markers + {len(table.colour_figures)} colour bases, "
          f"cv2 threads {cv2.getNumThreads()}")
    print(f"first frame (registration, grid, terrain, whole-table search): {first_ms:.0f} ms; "
          f"events {first.events}")
    print(f"bare detectMarkers: {b:.1f} ms median")
    print(f"tracked pipeline:   {p:.1f} ms median over {args.frames} frames; stages (median ms) "
          + ", ".join(f"{k} {statistics.median(v):.1f}" for k, v in stages.items()))
    print(f"still tracked: {len(markers_found)}/{len(table.marker_figures)} markers, "
          f"{colour_found}/{len(table.colour_figures)} colour bases")
    print(f"ratio: {p / b:.2f}x  (goal <= 1.5x)")


if __name__ == "__main__":
    main()
