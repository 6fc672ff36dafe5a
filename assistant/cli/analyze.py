"""`tablesight analyze PHOTO --table TABLE.toml`: a photo becomes a Scene in table inches."""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time

from calibration.profile import colour_hex, learned_colours_path, load_profile
from measure.distance import distance_matrices
from measure.scene import Scene, scene_to_json
from vision.base_size import colour_bases_words
from vision.imageio import read_image
from vision.pipeline import FramePipeline
from vision.quality import (colour_like_felt_words, colour_like_table_words, colour_resolution_words,
                            light_tint_words)
from vision.teach import kept_words, parse_teach


def register(subparsers) -> None:
    parser = subparsers.add_parser("analyze", help="photo -> Scene JSON (figure positions in table inches)",
                                   description="Find the anchors and the figures in a photo of the table.")
    parser.add_argument("photo", nargs="?", help="the photo (JPEG, PNG, ...)")
    parser.add_argument("--table", metavar="TABLE.toml", help="the table profile")
    parser.add_argument("--camera", metavar="CAMERA.json", help="camera intrinsics from `tablesight calibrate`")
    parser.add_argument("--json", action="store_true", help="print the Scene JSON")
    parser.add_argument("--repeat", type=int, default=1, metavar="N",
                        help="process the photo N times and report the median ms per frame (benchmarking)")
    parser.add_argument("--demo", action="store_true", help="analyse the bundled demo photo and table")
    parser.add_argument("--teach-colour", action="append", default=[], metavar="SIDE=X,Y",
                        help="learn SIDE's rim colour from the figure at X,Y (table inches) in this photo; saved "
                             "beside the table profile (TABLE.learned.toml) and used from now on. Repeat for each side")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from assistant.cli import CommandError

    if args.demo:
        from assistant.demo import DEMO_PHOTO, DEMO_TABLE
        photo_path, table_path = args.photo or DEMO_PHOTO, args.table or DEMO_TABLE
    else:
        if not args.photo:
            raise CommandError("analyze: give a PHOTO (or --demo for the bundled demo table)")
        if not args.table:
            raise CommandError("analyze: give the table profile with --table TABLE.toml")
        photo_path, table_path = args.photo, args.table
    if args.repeat < 1:
        raise CommandError(f"--repeat: must be 1 or more, got {args.repeat}")
    profile = load_profile(table_path)
    camera = None
    if args.camera:
        from calibration.intrinsics import CameraModel
        camera = CameraModel.load(args.camera)
    teach = [parse_teach(text) for text in args.teach_colour]
    if teach and args.demo and not args.table:
        raise CommandError("--teach-colour: give your own --table TABLE.toml (the bundled demo table stays as it is)")
    frame = read_image(photo_path)

    learned = []
    if teach:
        profile, learned = _teach(frame, profile, camera, table_path, teach)
    pipeline = FramePipeline(profile, camera)
    times_ms = []
    for _ in range(args.repeat):
        t0 = time.perf_counter()
        result = pipeline.process(frame)
        times_ms.append((time.perf_counter() - t0) * 1e3)
    out = scene_to_json(result.scene)
    out["registration"] = result.registration.as_json()
    if learned:
        out["learned_colours"] = {k.side: {"colour": colour_hex(k.rgb), "from": list(k.xy_in),
                                           "profile_colour": colour_hex(profile.sides[[s.name for s in profile.sides].index(k.side)].rgb),
                                           "used": k.adopted, "confidence": round(k.confidence, 3),
                                           "current_confidence": None if k.current_confidence is None
                                           else round(k.current_confidence, 3)}
                                  for k in learned}
        out["learned_colours_file"] = str(learned_colours_path(table_path))
    if args.repeat > 1:
        out["timing"] = {"frames": args.repeat, "median_ms": round(statistics.median(times_ms), 2),
                         "stages_ms": {k: round(v, 2) for k, v in result.timing_ms.items()}}
    if args.json:
        json.dump(out, sys.stdout, indent=1)
        sys.stdout.write("\n")
    else:
        for k in learned:
            colours = out["learned_colours"][k.side]
            if k.adopted:
                sys.stdout.write(f"Learned the {k.side} rim colour {colours['colour']} (the profile says "
                                 f"{colours['profile_colour']}) from the figure at ({k.xy_in[0]:.2f}, {k.xy_in[1]:.2f}); "
                                 f"saved in {out['learned_colours_file']}\n")
            else:
                sys.stdout.write(f"{kept_words(k)} Nothing saved for {k.side}.\n")
        sys.stdout.write(describe(result.scene, out))
    return 0


def _teach(frame, profile, camera, table_path, requests):
    """Learn each requested side's rim colour from this photo; all or nothing is saved."""
    from assistant.cli import CommandError
    from calibration.profile import save_learned_colours, with_learned_colours
    from vision.base_size import base_of
    from vision.height import camera_pose
    from vision.settings import VISION_DEFAULTS
    from vision.teach import learn_rim_colour

    for side, x, y in requests:     # the cheap checks first, before any pixel is looked at
        if side not in [s.name for s in profile.sides]:
            raise CommandError(f"--teach-colour: the table has no side {side!r} "
                               f"(its sides: {', '.join(s.name for s in profile.sides) or 'none'})")
        if not (0 <= x <= profile.width_in and 0 <= y <= profile.depth_in):
            raise CommandError(f"--teach-colour: ({x:g}, {y:g}) is outside the "
                               f"{profile.width_in:g} x {profile.depth_in:g} in table")
    result = FramePipeline(profile, camera).process(frame)
    reg = result.registration
    k = camera.matrix_for(*reg.image_size) if camera is not None else None
    pose = camera_pose(reg.H_px_to_in, reg.image_size, k)
    learned = []
    for side, x, y in requests:
        try:
            learned.append(learn_rim_colour(frame, reg, profile, side, (x, y), pose=pose,
                                            base_in=base_of(result.scene.extra.get("colour_bases"), side,
                                                            VISION_DEFAULTS["colour_base_in"]),
                                            height_in=VISION_DEFAULTS["colour_base_height_in"]))
        except ValueError as exc:
            raise CommandError(f"--teach-colour: {exc}") from None
    # (a colour that would not be used is not saved: the one looked for now stays)
    colours = {k.side: k.rgb for k in learned if k.adopted}
    if colours:
        save_learned_colours(learned_colours_path(table_path), colours, profile.name)
    return with_learned_colours(profile, colours), learned


def describe(scene: Scene, out: dict) -> str:
    """A readable report: registration, the figures, and the distances between them."""
    reg = out["registration"]
    lines = [f"Table {scene.table.width_in:g} x {scene.table.depth_in:g} in; anchors seen "
             f"{', '.join(map(str, reg['anchors_seen']))} ({reg['method']}, reprojection RMS {reg['rms_px']:.2f} px)"]
    if reg.get("anchors_rejected"):
        lines.append(f"  anchors left out (they disagree with the others; moved?): {reg['anchors_rejected']}")
    for note in (colour_resolution_words(scene.extra.get("colour_resolution")),
                 colour_like_table_words(scene.extra.get("colour_like_table")),
                 colour_like_felt_words(scene.extra.get("colour_like_felt")),
                 light_tint_words(scene.extra.get("light_tint")),
                 colour_bases_words(scene.extra.get("colour_bases"))):
        if note:
            lines.append(f"  note: {note}")
    if "timing" in out:
        lines.append(f"  {out['timing']['frames']} runs, median {out['timing']['median_ms']:.1f} ms per frame")
    if not scene.figures:
        lines.append("No figures found.")
        return "\n".join(lines) + "\n"
    lines.append("")
    lines.append(f"{'figure':<8} {'name':<12} {'side':<6} {'type':<13} {'x in':>7} {'y in':>7}  found by")
    for f in scene.figures:
        lines.append(f"{f.id:<8} {f.name or '-':<12} {f.side or '-':<6} {f.type or '-':<13} "
                     f"{f.x:7.2f} {f.y:7.2f}  {f.detected_by}" + (" (hidden)" if f.hidden else ""))
    centre, _edge = distance_matrices(scene)
    ids = [f.id for f in scene.figures]
    lines.append("")
    lines.append("Centre-to-centre distances, inches:")
    lines.append(" " * 8 + "".join(f"{i:>7}" for i in ids))
    for k, i in enumerate(ids):
        lines.append(f"{i:<8}" + "".join("      -" if k == j else f"{centre[k, j]:7.1f}" for j in range(len(ids))))
    return "\n".join(lines) + "\n"
