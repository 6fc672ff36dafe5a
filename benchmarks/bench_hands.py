"""Cost of finding hands (vision.hands.find_hands, as the pipeline calls it) per 1080p hard photo, as a
ratio to a bare ArucoDetector.detectMarkers on the same frame, interleaved in this process so that
machine load cancels out of the ratio. Half the hard set's photos have a hand and arm in them.

Each photo is analysed once to get the frame's shared white-balanced coarse view; then, run after
run, the default detector on the whole frame and the hands on that view. Reports the median, p95
and max of the per-run ratios, wall clock and CPU time (OpenCV's threads spin on a busy machine and
are charged to whatever runs next: both are shown).

Run: python benchmarks/bench_hands.py [--photos N] [--runs N] [--seed S]
Goal (issue 10): hands <= 2 ms per 1080p photo, i.e. about 0.2x a bare detectMarkers (~10 ms).
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from vision.hands import find_hands  # noqa: E402
from vision.pipeline import FramePipeline, to_gray  # noqa: E402
from vision.synthetic.hard import hard_photo_set  # noqa: E402


def _coarse_view(photo):
    """The frame's white-balanced coarse view, as the pipeline hands it to find_hands."""
    seen = {}
    pipeline = FramePipeline(photo.profile)
    original = pipeline._hands

    def keep(view, held):
        seen["balanced"] = held.balanced
        return original(view, held)

    pipeline._hands = keep
    pipeline.process(photo.image)
    return seen["balanced"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--photos", type=int, default=8)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    detector = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50),
                                       cv2.aruco.DetectorParameters())
    cases = []
    for photo in hard_photo_set(args.seed, args.photos, resolutions=("1080p",)):
        coarse, balanced = _coarse_view(photo)
        cases.append((to_gray(photo.image), coarse, balanced, [t.rgb for t in photo.profile.terrain]))
    wall, cpu, hands_ms = [], [], []
    for run in range(args.runs + 1):                   # the first round warms up
        for gray, coarse, balanced, felt in cases:
            w0, c0 = time.perf_counter(), time.process_time()
            detector.detectMarkers(gray)
            w1, c1 = time.perf_counter(), time.process_time()
            find_hands(coarse.image, coarse.ppi, coarse.origin_in, normalised=balanced, other_rgbs=felt)
            w2, c2 = time.perf_counter(), time.process_time()
            if run:
                wall.append((w2 - w1) / (w1 - w0))
                cpu.append((c2 - c1) / max(c1 - c0, 1e-6))
                hands_ms.append((w2 - w1) * 1e3)
    print(f"{len(cases)} hard-set photos 1920x1080, {args.runs} runs each; cv2 threads {cv2.getNumThreads()}")
    print(f"hands: median {statistics.median(hands_ms):.2f} ms wall on this machine now")
    for name, r in (("wall clock", wall), ("CPU time", cpu)):
        print(f"ratio to the default detector, {name:10s}: median {statistics.median(r):.3f}x  "
              f"p95 {np.percentile(r, 95):.3f}x  max {max(r):.3f}x")
    print("goal: hands <= 2 ms, about 0.2x the default detector")


if __name__ == "__main__":
    main()
