"""`tablesight print anchors|markers|charuco|grid --out FILE`: printable sheets at exact scale."""
from __future__ import annotations

import argparse
import re

from assistant.cli import CommandError
from calibration.profile import ProfileError, load_profile, parse_colour
from calibration.sheet_output import FORMATS, format_for, write_sheet
from calibration.sheets import PAPERS_IN, anchors_sheet, charuco_sheet, grid_sheet, markers_sheet
from calibration.units import parse_length_in, parse_pair

NAMED_COLOURS = {"red": "#c82828", "blue": "#2850c8", "green": "#28a03c", "yellow": "#e6c81e",
                 "orange": "#e67814", "purple": "#7832a0", "black": "#000000", "white": "#ffffff"}

# Which options each sheet reads; any other one given is refused rather than silently ignored.
OPTIONS = {"anchors": {"ids", "size", "dict", "table"},
           "markers": {"ids", "size", "dict", "rim"},
           "charuco": {"squares", "square", "marker", "dict"},
           "grid": {"kind", "pitch", "orientation"}}


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "print", help="printable anchor, marker, ChArUco and grid sheets at exact scale",
        description="Write a sheet to print at 100 percent (actual size). Every sheet has a 2-inch check ruler.")
    p.add_argument("sheet", choices=sorted(OPTIONS), help="which sheet")
    p.add_argument("--out", required=True, help="file to write (.svg, .pdf or .png)")
    p.add_argument("--format", choices=FORMATS, help="default: from the file's extension")
    p.add_argument("--paper", choices=sorted(PAPERS_IN), default="a4")
    p.add_argument("--dpi", type=float, default=300.0, help="PNG resolution (default 300)")
    p.add_argument("--ids", help="marker ids, e.g. 10-29,40 (anchors: default 0-3)")
    p.add_argument("--size", help="printed side of each marker's black square, e.g. 1in, 0.75in, 20mm")
    p.add_argument("--dict", help="ArUco dictionary (anchors/markers: DICT_4X4_50, charuco: DICT_6X6_250)")
    p.add_argument("--table", help="anchors: take ids, size and dictionary from this table profile")
    p.add_argument("--rim", help="markers: a side's colour for a rim round each marker (#c82828 or red)")
    p.add_argument("--squares", help="charuco: squares across x down (default 5x7)")
    p.add_argument("--square", help="charuco: square side (default 1.1in)")
    p.add_argument("--marker", help="charuco: marker side (default 0.8in)")
    p.add_argument("--kind", choices=("square", "hex"), help="grid: square or hex (default square)")
    p.add_argument("--pitch", help="grid: square side or hex flat-to-flat (default 1in)")
    p.add_argument("--orientation", choices=("flat", "pointy"), help="grid: hex orientation (default flat)")
    p.set_defaults(func=run)


def parse_ids(text: str) -> list[int]:
    """'10-12,40' -> [10, 11, 12, 40]."""
    ids: list[int] = []
    for part in str(text).split(","):
        match = re.match(r"^\s*(\d+)\s*(?:-\s*(\d+))?\s*$", part)
        if not match:
            raise CommandError(f"--ids: cannot read {part.strip()!r} (write ids like 10-29,40)")
        lo = int(match.group(1))
        hi = int(match.group(2) or lo)
        if hi < lo:
            raise CommandError(f"--ids: {part.strip()!r} runs backwards")
        if hi - lo > 1000:
            raise CommandError(f"--ids: {part.strip()!r} is too many markers for a sheet")
        ids.extend(range(lo, hi + 1))
    return ids


def parse_rim(text: str) -> tuple[int, int, int]:
    value = NAMED_COLOURS.get(text.lower(), text)
    try:
        return parse_colour(value, "--rim")
    except ProfileError as exc:
        raise CommandError(f"{exc} (or one of {', '.join(NAMED_COLOURS)})") from None


def _sheet(args):
    given = {name for name in ("ids", "size", "dict", "table", "rim", "squares", "square", "marker", "kind",
                               "pitch", "orientation") if getattr(args, name) is not None}
    extra = sorted(given - OPTIONS[args.sheet])
    if extra:
        raise CommandError(f"--{extra[0]} does not apply to the {args.sheet} sheet")
    if args.sheet == "anchors":
        ids, size, dictionary = (0, 1, 2, 3), 2.0, "DICT_4X4_50"
        if args.table:
            profile = load_profile(args.table)
            ids = tuple(a.id for a in profile.anchors)
            sizes = {a.size_in for a in profile.anchors}
            if len(sizes) > 1:
                raise CommandError(f"{args.table}: anchors of different sizes; print each size with --ids and --size")
            size, dictionary = sizes.pop(), profile.dictionary
        if args.ids:
            ids = tuple(parse_ids(args.ids))
        if args.size:
            size = parse_length_in(args.size, "--size")
        return anchors_sheet(args.paper, ids, size, args.dict or dictionary)
    if args.sheet == "markers":
        if not args.ids:
            raise CommandError("markers: say which ids to print, e.g. --ids 10-29")
        size = parse_length_in(args.size, "--size") if args.size else 1.0
        rim = parse_rim(args.rim) if args.rim else None
        return markers_sheet(parse_ids(args.ids), args.paper, size, args.dict or "DICT_4X4_50", rim)
    if args.sheet == "charuco":
        squares = parse_pair(args.squares, "--squares") if args.squares else (5, 7)
        square = parse_length_in(args.square, "--square") if args.square else 1.1
        marker = parse_length_in(args.marker, "--marker") if args.marker else round(square * 8 / 11, 4)
        return charuco_sheet(args.paper, squares, square, marker, args.dict or "DICT_6X6_250")
    pitch = parse_length_in(args.pitch, "--pitch") if args.pitch else 1.0
    return grid_sheet(args.paper, args.kind or "square", pitch, args.orientation or "flat")


def run(args: argparse.Namespace) -> int:
    fmt = format_for(args.out, args.format)
    page = _sheet(args)
    write_sheet(page, args.out, fmt, args.dpi)
    ids = ", ".join(str(m.marker_id) for m in page.markers)
    print(f"{args.out}: {page.title} on {args.paper} ({fmt})" + (f", markers {ids}" if ids else ""))
    print("Print at 100% / actual size and check that the ruler measures 2 in (50.8 mm).")
    return 0
