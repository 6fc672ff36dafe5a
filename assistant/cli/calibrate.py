"""`tablesight calibrate`: camera intrinsics from chessboard or ChArUco photos -> a camera file."""
from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

import cv2

from assistant.cli import CommandError
from calibration.intrinsics import calibrate_charuco, calibrate_chessboard
from calibration.shots import BoardSpec, ShotPicker
from calibration.units import parse_length_in, parse_pair

IMAGE_SUFFIXES = {".jpg", ".jpeg", ".png", ".bmp", ".tif", ".tiff", ".webp"}


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "calibrate", help="camera intrinsics from photos of a chessboard or ChArUco board",
        description="Find the board in each photo, solve the camera's focal length, centre and lens "
                    "distortion, and write them to a camera file. Photos where the board is not found "
                    "or fits badly are named and left out.")
    board = p.add_mutually_exclusive_group(required=True)
    board.add_argument("--chessboard", metavar="COLSxROWS",
                       help="inner corners across x down, e.g. 9x6 (a board of 10x7 squares)")
    board.add_argument("--charuco", metavar="COLSxROWS", help="ChArUco squares across x down, e.g. 5x7")
    p.add_argument("--square", required=True, help="printed square side, e.g. 25mm or 1.1in")
    p.add_argument("--marker", help="ChArUco marker side, e.g. 20mm or 0.8in")
    p.add_argument("--dict", default="DICT_6X6_250", help="ChArUco dictionary (default DICT_6X6_250)")
    p.add_argument("photos", nargs="*", metavar="PHOTO", help="photos of the board, or folders of them")
    p.add_argument("--source", help="take the shots from a camera instead: 0 (USB camera), a stream URL, "
                                    "a video file")
    p.add_argument("--shots", type=int, default=15, help="with --source: how many views to take (default 15)")
    p.add_argument("--save-dir", help="with --source: keep the shots taken in this folder")
    p.add_argument("--out", help="camera file to write, e.g. camera.json")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.set_defaults(func=run)


def expand_photos(paths: list[str]) -> list[str]:
    """Files as given, folders as their image files in name order; a missing path is an error."""
    out: list[str] = []
    for text in paths:
        path = Path(text)
        if path.is_dir():
            found = sorted(str(f) for f in path.iterdir() if f.suffix.lower() in IMAGE_SUFFIXES)
            if not found:
                raise CommandError(f"{text}: no photos (.jpg, .png, ...) in this folder")
            out.extend(found)
        elif path.is_file():
            out.append(text)
        else:
            raise CommandError(f"{text}: no such photo or folder")
    return out


def take_shots(spec: BoardSpec, source_spec: str, count: int, save_dir: str | None) -> list[tuple[str, object]]:
    """Frames from a camera where the board is found, still and seen from a new place."""
    from vision.sources import open_source     # only this mode needs a camera
    if count < 3:
        raise CommandError("--shots: at least 3 views are needed")
    source = open_source(source_spec)
    picker = ShotPicker(spec, still_px=2.0 if source.live else None)
    shots: list[tuple[str, object]] = []
    if save_dir:
        Path(save_dir).mkdir(parents=True, exist_ok=True)
    print(f"move the board around in front of {source.name}: near, far, tilted, in every corner "
          "(Ctrl-C to stop early)", file=sys.stderr)
    try:
        while len(shots) < count:
            frame = source.read()
            if frame is None:
                break
            if picker.offer(frame):
                name = f"shot_{len(shots) + 1:02d}.png"
                shots.append((name, frame))
                if save_dir:
                    cv2.imwrite(str(Path(save_dir) / name), frame)
                print(f"  shot {len(shots)} of {count}", file=sys.stderr)
    except KeyboardInterrupt:
        pass
    finally:
        source.close()
    return shots


def run(args: argparse.Namespace) -> int:
    square = parse_length_in(args.square, "--square")
    if bool(args.photos) == bool(args.source):
        raise CommandError("give either photos of the board or --source to take them from a camera")
    if args.chessboard:
        if args.marker:
            raise CommandError("--marker is for --charuco boards only")
        spec = BoardSpec("chessboard", parse_pair(args.chessboard, "--chessboard"), square)
        board = {"kind": "chessboard", "inner_corners": list(spec.pattern), "square_in": square}
    else:
        if not args.marker:
            raise CommandError("--charuco needs --marker, the printed marker side (e.g. --marker 20mm)")
        spec = BoardSpec("charuco", parse_pair(args.charuco, "--charuco"), square,
                         parse_length_in(args.marker, "--marker"), args.dict)
        board = {"kind": "charuco", "squares": list(spec.pattern), "square_in": square,
                 "marker_in": spec.marker_in, "dictionary": args.dict}
    photos = expand_photos(args.photos) if args.photos else take_shots(spec, args.source, args.shots,
                                                                       args.save_dir)
    if spec.kind == "chessboard":
        result = calibrate_chessboard(photos, spec.pattern, square)
    else:
        result = calibrate_charuco(photos, spec.pattern, square, spec.marker_in, spec.dictionary)
    summary = result.summary()
    if args.out:
        # Write beside and rename, so a failed write never leaves half a camera file behind.
        tmp = Path(str(args.out) + ".tmp")
        result.camera.save(tmp, {"board": board, "views_used": summary["views_used"],
                                 "views_rejected": summary["views_rejected"]})
        os.replace(tmp, args.out)
    if args.json:
        print(json.dumps(summary))
        return 0
    cam = result.camera
    k = cam.camera_matrix
    total = len(result.views_used) + len(result.views_rejected)
    print(f"calibrated from {len(result.views_used)} of {total} photos: RMS {cam.rms_px:.3f} px")
    print(f"  focal length fx {k[0, 0]:.2f} px, fy {k[1, 1]:.2f} px; centre ({k[0, 2]:.1f}, {k[1, 2]:.1f}); "
          f"image {cam.image_size[0]}x{cam.image_size[1]}")
    for view in result.views_rejected:
        print(f"  left out {view.name}: {view.reason}")
    if cam.rms_px > 1.0:
        print("  the fit is loose (RMS above 1 px): retake blurred photos and keep the board flat")
    print(f"  wrote {args.out}" if args.out else "  no --out given: nothing written")
    return 0
