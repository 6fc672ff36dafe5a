"""Accuracy of grid, colour bases, terrain and height correction on a larger synthetic set than the
tests use (issue 4's acceptance figures). Prints the figures; asserts nothing.

Run: python benchmarks/accuracy_vision.py [--tables N] [--seed S]
"""
from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from calibration.intrinsics import CameraModel  # noqa: E402
from tests.vision.scoring import match_colour, terrain_ious  # noqa: E402
from vision.grid import GRID_PPI, find_grid, phase_error_in  # noqa: E402
from vision.pipeline import FramePipeline, to_gray  # noqa: E402
from vision.synthetic import profile_for, random_photo, random_table, render_photo  # noqa: E402
from vision.topview import warp_top_view  # noqa: E402

GRIDS = ("square", "hex", "hex-pointy", None)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=24)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    pitch_err, phase_err, grid_missed, false_grids, plain = [], [], 0, 0, 0
    colour_err, colour_missed, colour_false, colour_total = [], 0, [], 0
    ious, extra_pieces = [], 0
    for k in range(args.tables):
        table = random_table(rng, width_in=float(rng.uniform(36, 60)), depth_in=float(rng.uniform(30, 44)),
                             n_markers=8, n_colour=12, n_terrain=4, grid=GRIDS[k % len(GRIDS)],
                             grid_pitch_in=float(rng.choice([0.75, 1.0, 1.5])))
        photo = render_photo(table, random_photo(rng), rng)
        profile = profile_for(table)
        result = FramePipeline(profile).process(photo.image)
        truth = photo.truth
        if truth.grid is None:
            plain += 1
            view = warp_top_view(to_gray(photo.image), result.registration.H_in_to_px, GRID_PPI,
                                 (0, 0, table.width_in, table.depth_in))
            for kind in ("square", "hex"):
                for pitch in (0.75, 1.0, 1.5):
                    false_grids += find_grid(view.image, GRID_PPI, kind=kind, pitch_in=pitch) is not None
            false_grids += find_grid(view.image, GRID_PPI) is not None
        elif result.scene.grid is None:
            grid_missed += 1
        else:
            pitch_err.append(abs(result.scene.grid.pitch_in / truth.grid.pitch_in - 1))
            phase_err.append(phase_error_in(result.scene.grid, truth.grid))
        e, m, f = match_colour(result.scene, truth)
        colour_err += e
        colour_missed += m
        colour_false += f
        colour_total += sum(1 for fig in truth.figures if fig.detected_by == "colour")
        ious += terrain_ious(result.scene, truth)
        extra_pieces += max(0, len(result.scene.terrain) - len(truth.terrain))
        print(f"table {k + 1}/{args.tables}: anchors {result.registration.anchors_seen} rms {result.registration.rms_px:.2f} "
              f"tilt {result.scene.extra['camera_pose']['tilt_deg']} grid {truth.grid.kind if truth.grid else None} "
              f"phase {phase_err[-1] if truth.grid is not None and phase_err else None} colour max {max(e, default=0):.3f}", file=sys.stderr)
    print(f"{args.tables} tables at 1080p, tilt 0-35 deg, uneven light, shadows, blur, noise, JPEG")
    n_grid = len(pitch_err) + grid_missed
    print(f"grid: {n_grid} gridded tables, missed {grid_missed}; pitch error max {100 * max(pitch_err):.3f}% "
          f"(mean {100 * np.mean(pitch_err):.3f}%); phase error max {max(phase_err):.4f} in "
          f"(mean {np.mean(phase_err):.4f}); false grids {false_grids} in {plain * 7} searches on plain tables")
    e = np.array(colour_err)
    print(f"colour bases: {colour_total}, found {colour_total - colour_missed} "
          f"({100 * (colour_total - colour_missed) / colour_total:.1f}%), false {len(colour_false)}; "
          f"position p95 {np.percentile(e, 95):.4f} in, max {e.max():.4f}, mean {e.mean():.4f}")
    print(f"terrain: {len(ious)} pieces, mean IoU {np.mean(ious):.4f}, min {min(ious):.3f}, "
          f"extra pieces {extra_pieces}")

    errors = {"none": [], "intrinsics": [], "estimated focal": []}
    for _ in range(4):
        table = random_table(rng, n_markers=20, marker_height_in=0.125)
        photo = render_photo(table, random_photo(rng, tilt_deg=35.0), rng)
        profile = profile_for(table)
        truth = {f.id: f for f in photo.truth.figures}
        cam = CameraModel(camera_matrix=photo.camera.camera_matrix, dist=np.zeros(5), image_size=photo.camera.image_size)
        for name, pipeline in (("none", FramePipeline(dataclasses.replace(profile, figure_marker_height_in=0.0))),
                               ("intrinsics", FramePipeline(profile, cam)), ("estimated focal", FramePipeline(profile))):
            scene = pipeline.process(photo.image).scene
            errors[name] += [np.hypot(f.x - truth[f.id].x, f.y - truth[f.id].y) for f in scene.figures if f.id in truth]
    print("height correction, markers 1/8 in up, tilt 35 deg:")
    for name, errs in errors.items():
        errs = np.array(errs)
        print(f"  {name:16s} n={len(errs)} mean {errs.mean():.4f} in, p95 {np.percentile(errs, 95):.4f}, "
              f"max {errs.max():.4f}")


if __name__ == "__main__":
    main()
