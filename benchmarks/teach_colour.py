"""Does teaching a side's colour help? Each side taught from one figure, on the hard set.

A player taps one figure of a side (`tablesight analyze --teach-colour`, or Setup on the tablet):
vision.teach.learn_rim_colour reads that figure's rim, and the colour is used from then on when it
finds that figure plainly surer than the colour looked for now (vision.teach.adopts). For each
hard photo and each side, the figure a player would pick is taught: the one showing most of its rim
of those standing dry, with no hand over it and no cloak. The photo is then analysed with that
colour and scored against the photo analysed without it (tests/vision/hard_scoring.score_photo):
how many of that side's figures are found more, and how many phantoms (either side) more, when the
learned colour is used every time and when only as vision.teach decides.

`--paint hobby` paints the rims in shop paints unlike the profile's colour (the case teaching is
for); the set's own paint is near it. Prints markdown; asserts nothing.

Run: python benchmarks/teach_colour.py [--photos 60] [--seeds 0,7] [--paint set|hobby]
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from shapely.geometry import Point

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from calibration.profile import with_learned_colours  # noqa: E402
from tests.vision.hard_scoring import score_photo  # noqa: E402
from vision.base_size import base_of  # noqa: E402
from vision.height import camera_pose  # noqa: E402
from vision.pipeline import FramePipeline  # noqa: E402
from vision.settings import VISION_DEFAULTS  # noqa: E402
from vision.teach import ADOPT_MARGIN, TeachError, learn_rim_colour  # noqa: E402

try:
    from vision.synthetic.hard import hard_photo  # noqa: E402
except ImportError as exc:      # scikit-image ships the photographed textures
    sys.exit(f"teach_colour: {exc}")

RES = ("1080p", "1080p", "2160p")


def pick(photo, side: str):
    """The figure of `side` a player would tap: the most of its rim in view, dry, no hand, no cloak."""
    water = [t.polygon.buffer(0.6) for t in photo.truth.terrain if t.kind == "water"]
    figures = [t for t in photo.truth.figures if t.detected_by == "colour" and t.side == side and not t.hidden
               and not any(w.contains(Point(t.x, t.y)) for w in water) and photo.hand_cover.get(t.id, 0) == 0
               and t.id not in photo.cloaks]
    return max(figures, key=lambda t: photo.rim_visible.get(t.id, 0)) if figures else None


def photo_rows(seed: int, k: int, paint: str) -> list[dict]:
    photo = hard_photo(seed, k, resolutions=RES, paint=paint)
    profile = photo.profile
    result = FramePipeline(profile).process(photo.image)
    before = score_photo(photo, result.scene)
    reg = result.registration
    pose = camera_pose(reg.H_px_to_in, reg.image_size, None)
    rows = []
    for side in profile.sides:
        t = pick(photo, side.name)
        if t is None:
            continue
        try:
            learned = learn_rim_colour(photo.image, reg, profile, side.name, (t.x, t.y), pose=pose,
                                       base_in=base_of(result.scene.extra.get("colour_bases"), side.name,
                                                       VISION_DEFAULTS["colour_base_in"]),
                                       height_in=VISION_DEFAULTS["colour_base_height_in"])
        except TeachError:
            rows.append({"side": side.name, "refused": True})
            continue
        after = score_photo(photo, FramePipeline(with_learned_colours(profile, {side.name: learned.rgb}))
                            .process(photo.image).scene)
        rows.append({"side": side.name, "refused": False, "used": learned.adopted,
                     "found": after.side_found[side.name] - before.side_found[side.name],
                     "phantoms": len(after.colour_phantoms) - len(before.colour_phantoms)})
    print(f"seed {seed} photo {k + 1}: {len(rows)} taught", file=sys.stderr)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--photos", type=int, default=60)
    parser.add_argument("--seeds", default="0,7")
    parser.add_argument("--paint", choices=("set", "hobby"), default="set")
    args = parser.parse_args()
    seeds = [int(s) for s in args.seeds.split(",")]
    rows = [r for seed in seeds for k in range(args.photos) for r in photo_rows(seed, k, args.paint)]
    taught = [r for r in rows if not r["refused"]]
    used = [r for r in taught if r["used"]]
    print(f"## Teaching one figure's colour: seeds {', '.join(map(str, seeds))}, {args.photos} photos each, "
          f"paint {args.paint}\n")
    print(f"{len(rows)} teachings, {len(rows) - len(taught)} refused (no ring of that colour found there). "
          f"Against the same photo analysed without it, that side's figures found and the phantoms:\n")
    print("| the learned colour | teachings | figures found | phantoms |")
    print("|---|---|---|---|")
    print(f"| used every time | {len(taught)} | {sum(r['found'] for r in taught):+d} | "
          f"{sum(r['phantoms'] for r in taught):+d} |")
    print(f"| used as vision.teach decides (margin {ADOPT_MARGIN}) | {len(used)} | "
          f"{sum(r['found'] for r in used):+d} | {sum(r['phantoms'] for r in used):+d} |")


if __name__ == "__main__":
    main()
