"""Why figures under a hand were not reported hidden, on the hard set: issue 10's hidden figures.

For each photo with a hand, as benchmarks/accuracy_vision.py scores it (the still photo alone:
roster markers under the hand reported hidden; then the previous picture, the same table without
the hand, through a tracking pipeline first: every figure under the hand hidden at its last
place), each miss is put in one class:
- still photo: "no hand found" (nothing can be said hidden), or "marker seen" (a marker of that
  number was reported where the hand is);
- with the previous picture: "previous picture never found it" (no figure of its side within the
  scoring gate of it there: colour rim recall, not the hand), "track dropped", "matched wrong" (its
  track claimed another base farther than the gate), or "seen in place" (found through the hand).
Each line also gives the hand as drawn (table inches under it) against the hand found and how
far the figure is from the found outline. Prints markdown; asserts nothing.

Run: python benchmarks/hidden_misses.py [--photos 60] [--seeds 0,7,5,13] [--res 1080p,1080p,2160p]
     [--mat kitchen]  (kitchen tables, as accuracy_vision's --mat)
"""
from __future__ import annotations

import argparse
import dataclasses
import math
import sys
from collections import Counter
from pathlib import Path

import shapely
from shapely.geometry import Point, Polygon

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.vision.hard_scoring import GATE_IN, hidden_reported  # noqa: E402
from vision.hands import REACH_IN  # noqa: E402
from vision.pipeline import FramePipeline  # noqa: E402
from vision.synthetic.hard import hard_photo  # noqa: E402


def _hands(scene) -> Polygon:
    polys = [Polygon(h["polygon"]) for h in scene.extra.get("hands", [])]
    return shapely.union_all(polys) if polys else Polygon()


def classify(photo) -> tuple[str, list[tuple[str, str]]]:
    """(a line on the hand, [(class, detail)] for each miss) for a photo with a hand."""
    still = FramePipeline(photo.profile).process(photo.image).scene
    _, _, bad = hidden_reported(still, photo.truth, markers_only=True)
    tracker = FramePipeline(photo.profile, track=True)
    refused = False
    try:
        before = tracker.process(photo.before()).scene
        tracked = tracker.process(photo.image).scene
    except ValueError:                  # refused (too few anchors): nothing reported hidden
        before = tracked = dataclasses.replace(photo.truth, figures=())
        refused = True
    _, _, bad2 = hidden_reported(tracked, photo.truth)
    table = shapely.box(0, 0, photo.profile.width_in, photo.profile.depth_in)
    drawn = photo.hand.footprint(photo.camera).intersection(table)
    found = _hands(still)
    covered = drawn.intersection(found.buffer(REACH_IN)).area / drawn.area if drawn.area else math.nan
    hand = f"hand drawn {drawn.area:.0f} in2, found {found.area:.0f} in2, of the drawn covered {covered:.0%}"
    out = []
    for b in bad:
        t = next(f for f in photo.truth.figures if f.id == b.split()[0])
        cls = "no hand found" if found.is_empty else (
            "marker seen" if any(f.marker == t.marker and not f.hidden for f in still.figures) else "other")
        far = found.distance(Point(t.x, t.y)) if not found.is_empty else math.inf
        out.append((f"still photo: {cls}", f"{t.id} ({far:.1f} in from the found hand)"))
    for b in bad2:
        t = next(f for f in photo.truth.figures if f.id == b.split()[0])
        if refused:
            out.append(("a picture of the pair refused", t.id))
            continue
        same = [f for f in before.figures if f.side == t.side and not f.hidden
                and (f.marker == t.marker if t.marker is not None else f.detected_by == "colour")]
        near = min(same, key=lambda f: math.hypot(f.x - t.x, f.y - t.y), default=None)
        d = math.hypot(near.x - t.x, near.y - t.y) if near else math.inf
        if d > GATE_IN:
            out.append(("previous picture never found it", f"{t.id} (nearest of its side {d:.1f} in off)"))
            continue
        now = next((f for f in tracked.figures if f.id == near.id), None)
        if now is None:
            out.append(("track dropped", t.id))
            continue
        moved = math.hypot(now.x - near.x, now.y - near.y)
        under = found.buffer(REACH_IN).contains(Point(near.x, near.y)) if not found.is_empty else False
        cls = "matched wrong" if moved > GATE_IN else ("seen in place" if not now.hidden else "other")
        out.append((cls, f"{t.id} as {near.id}, moved {moved:.1f} in, under the found hand: {under}"))
    return hand, out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--photos", type=int, default=60)
    ap.add_argument("--seeds", default="0,7,5,13")
    ap.add_argument("--res", default="1080p,1080p,2160p")
    ap.add_argument("--mat", choices=("set", "kitchen"), default="set",
                    help="the tables: the set's mats, or kitchen tables (as accuracy_vision's --mat)")
    args = ap.parse_args()
    counts: Counter = Counter()
    lines = []
    for seed in (int(s) for s in args.seeds.split(",")):
        for k in range(args.photos):
            photo = hard_photo(seed, k, resolutions=tuple(args.res.split(",")), mat=args.mat)
            if photo.hand is None:
                continue
            hand, misses = classify(photo)
            for cls, detail in misses:
                counts[cls] += 1
                lines.append(f"- seed {seed} photo {k} ({photo.conditions.resolution}, "
                             f"{photo.conditions.mat or photo.conditions.texture}, "
                             f"{photo.conditions.cast} {photo.conditions.cast_k} K): {cls}: {detail}; {hand}")
            print(f"seed {seed} photo {k + 1}/{args.photos}: {len(misses)} missed", file=sys.stderr)
    print("## Figures under a hand not reported hidden\n")
    for cls, n in counts.most_common():
        print(f"- {cls}: {n}")
    print()
    print("\n".join(lines))


if __name__ == "__main__":
    main()
