"""Per-frame cost of `analyze` on a 1080p photo, as a ratio to a bare ArucoDetector.detectMarkers.

Both run in this process on the same frame, interleaved, so machine load cancels out of the ratio.
Run: python benchmarks/bench_analyze.py [--runs N] [--seed S]
Goal (issue: foundation): <= 3x while finding >= 99% of the markers.
"""
from __future__ import annotations

import argparse
import statistics
import time

import cv2

from calibration.profile import TableProfile, standard_anchors
from vision.pipeline import FramePipeline, to_gray
from vision.synthetic import marker_photo_set


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=25)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()

    photo = next(iter(marker_photo_set(1, seed=args.seed, n_markers=20)))     # 1080p, 1" markers
    table = photo.truth.table
    profile = TableProfile("bench", table.width_in, table.depth_in,
                           anchors=standard_anchors(table.width_in, table.depth_in))
    pipeline = FramePipeline(profile)
    bare = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50),
                                   cv2.aruco.DetectorParameters())
    frame = photo.image
    bare_ms, pipe_ms = [], []
    for _ in range(3):                                      # warm up both
        bare.detectMarkers(to_gray(frame))
        pipeline.process(frame)
    for _ in range(args.runs):
        t0 = time.perf_counter()
        _, ids, _ = bare.detectMarkers(to_gray(frame))
        t1 = time.perf_counter()
        result = pipeline.process(frame)
        t2 = time.perf_counter()
        bare_ms.append((t1 - t0) * 1e3)
        pipe_ms.append((t2 - t1) * 1e3)
    truth = {f.id for f in photo.truth.figures}
    found = truth & {f.id for f in result.scene.figures}
    bare_found = truth & {f"m{i}" for i in (ids.ravel().tolist() if ids is not None else [])}
    b, p = statistics.median(bare_ms), statistics.median(pipe_ms)
    print(f"frame {frame.shape[1]}x{frame.shape[0]}, table {table.width_in:.1f} x {table.depth_in:.1f} in, "
          f"{len(truth)} figure markers, cv2 threads {cv2.getNumThreads()}")
    print(f"bare detectMarkers: {b:.1f} ms median, finds {len(bare_found)}/{len(truth)}")
    print(f"analyze pipeline:   {p:.1f} ms median, finds {len(found)}/{len(truth)}")
    print(f"ratio: {p / b:.2f}x  (goal <= 3x)")


if __name__ == "__main__":
    main()
