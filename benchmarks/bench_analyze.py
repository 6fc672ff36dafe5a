"""Per-frame cost of `analyze` with every feature on, as a ratio to a bare ArucoDetector.detectMarkers.

Photos: 1080p tables with figure markers, red and blue colour bases, four felt pieces and a printed
grid (square or hex), tilts 0-35 degrees; with --hard, photos of the hard set instead
(vision.synthetic.hard: textured mats, casts, clutter, hands, blur). Each photo is analysed from scratch (registration, grid,
markers, colour, terrain; nothing reused), interleaved in this process with two baselines on the
same frame, so machine load cancels out of the ratios:
- default: `cv2.aruco.ArucoDetector(dictionary, DetectorParameters())` as it comes;
- tuned: one detectMarkers run over the frame with a single threshold window and perimeter bounds
  set for the figure markers' size in this photo (what a careful user of OpenCV alone would do).
Reports the median, p95 and max of the per-run ratios, the stages' medians, and how long a 2160p
photo takes to register.

Run: python benchmarks/bench_analyze.py [--photos N] [--runs N] [--seed S] [--hard]
Goal (issue 10): <= 3x the default detector; 2160p registration <= 150 ms.
"""
from __future__ import annotations

import argparse
import statistics
import time

import cv2
import numpy as np

from vision.pipeline import FramePipeline, to_gray
from vision.synthetic import marker_photo_set, profile_for, random_photo, random_table, render_photo

GRIDS = ("square", "hex", "hex-pointy", None)


def tuned_detector(profile, registration, image_size) -> cv2.aruco.ArucoDetector:
    """One threshold window and perimeter bounds for this photo's figure markers."""
    w, h = image_size
    ppi = registration.px_per_in((profile.width_in / 2, profile.depth_in / 2))
    cells = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50).markerSize + 2
    cell_px = ppi * profile.figure_marker_size_in / cells
    params = cv2.aruco.DetectorParameters()
    window = max(3, int(round(3 * cell_px)) | 1)
    params.adaptiveThreshWinSizeMin = params.adaptiveThreshWinSizeMax = window
    params.adaptiveThreshWinSizeStep = 10
    perimeter = 4 * cells * cell_px
    params.minMarkerPerimeterRate = 0.5 * perimeter / max(w, h)
    return cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50), params)


def pct(values, q: float) -> float:
    return float(np.percentile(np.asarray(values), q))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--photos", type=int, default=6)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--hard", action="store_true", help="photos of the hard set (textures, clutter, hands)")
    args = parser.parse_args()

    rng = np.random.default_rng(args.seed)
    cases = []
    for k, (photo, profile) in enumerate(_photos(args, rng)):
        pipeline = FramePipeline(profile)
        first = pipeline.process(photo.image)
        tuned = tuned_detector(profile, first.registration, first.registration.image_size)
        cases.append((photo, pipeline, tuned))
    default = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50),
                                      cv2.aruco.DetectorParameters())

    vs_default, vs_tuned, pipe_ms, default_ms, tuned_ms = [], [], [], [], []
    stages: dict[str, list[float]] = {}
    found = truth_n = 0
    for run in range(args.runs + 1):                      # the first round warms up
        for photo, pipeline, tuned in cases:
            t0 = time.perf_counter()
            default.detectMarkers(to_gray(photo.image))
            t1 = time.perf_counter()
            tuned.detectMarkers(to_gray(photo.image))
            t2 = time.perf_counter()
            result = pipeline.process(photo.image)
            t3 = time.perf_counter()
            if run == 0:
                truth = {f.id for f in photo.truth.figures if f.detected_by == "marker"}
                truth_n += len(truth)
                found += len(truth & {f.id for f in result.scene.figures})
                continue
            d, t, p = (t1 - t0) * 1e3, (t2 - t1) * 1e3, (t3 - t2) * 1e3
            default_ms.append(d)
            tuned_ms.append(t)
            pipe_ms.append(p)
            vs_default.append(p / d)
            vs_tuned.append(p / t)
            for stage, ms in result.timing_ms.items():
                stages.setdefault(stage, []).append(ms)

    print(f"{len(cases)} {'hard-set ' if args.hard else ''}photos 1920x1080, every feature on (markers, colour bases, grid, terrain), "
          f"{args.runs} runs each; cv2 threads {cv2.getNumThreads()}")
    print(f"markers found by analyze: {found}/{truth_n}")
    print(f"default detectMarkers {statistics.median(default_ms):.1f} ms, tuned {statistics.median(tuned_ms):.1f} ms, "
          f"analyze {statistics.median(pipe_ms):.1f} ms (medians)")
    print("stages (median ms): " + ", ".join(f"{k} {statistics.median(v):.1f}" for k, v in stages.items()))
    for name, r in (("vs default detector", vs_default), ("vs tuned detector", vs_tuned)):
        print(f"ratio {name:20s} median {statistics.median(r):.2f}x  p95 {pct(r, 95):.2f}x  max {max(r):.2f}x")
    print("goal: <= 3x the default detector")

    # Registration of a 2160p photo (anchors found at half size, then refined at full size).
    reg_ms = []
    for photo in (p for k, p in enumerate(marker_photo_set(6, seed=args.seed)) if k % 2 == 1):
        table = photo.truth.table
        pipeline = FramePipeline(profile_for(_table_spec(photo)))
        gray = to_gray(photo.image)
        pipeline.register(gray)
        for _ in range(args.runs):
            t0 = time.perf_counter()
            pipeline.register(gray)
            reg_ms.append((time.perf_counter() - t0) * 1e3)
    print(f"2160p registration: median {statistics.median(reg_ms):.1f} ms, p95 {pct(reg_ms, 95):.1f} ms, "
          f"max {max(reg_ms):.1f} ms over {len(reg_ms)} runs (goal <= 150 ms); table {table.width_in:.0f} in")


def _photos(args, rng):
    """(photo, profile) pairs: the hard set's, or tables drawn here."""
    if args.hard:
        from vision.synthetic.hard import hard_photo_set
        for photo in hard_photo_set(args.seed, args.photos, resolutions=("1080p",)):
            yield photo, photo.profile
        return
    for k in range(args.photos):
        table = random_table(rng, width_in=float(rng.uniform(40, 60)), depth_in=float(rng.uniform(30, 44)),
                             n_markers=12, n_colour=10, n_terrain=4, grid=GRIDS[k % len(GRIDS)])
        yield render_photo(table, random_photo(rng), rng), profile_for(table)


def _table_spec(photo):
    """The table spec behind a marker photo, enough for its profile (size and anchors)."""
    from calibration.profile import standard_anchors
    from vision.synthetic import TableSpec
    t = photo.truth.table
    return TableSpec(t.width_in, t.depth_in, standard_anchors(t.width_in, t.depth_in))


if __name__ == "__main__":
    main()
