"""Where each missed colour rim was lost, on the hard set: issue 10's colour recall.

A miss's count says how many; the stage that lost it says why. Each visible colour figure that
tests/vision/hard_scoring.score_colour leaves unmatched is put in one class:
- "too far off": a base of its side was found within FAR_IN of it, past the scoring gate;
- "never a candidate": no candidate of its side's ring search lies within NEAR_IN of it;
- else the reason the nearest such candidate was left out (vision.rims.find_rims' with_rejected
  reasons, their numbers dropped: "too weak a ring all told", "cluttered, not a clean rim", ...).
  A candidate left out beside a ring that stands (one base per place: find_rims does not list it
  even with_rejected) counts too, with the reason vision.rim_vetting.vet_hits gave it, placed where
  its top shows: the true rim under a cloak of the other side's colour is one such.
A miss standing in or beside felt of its side's hue (vision.rim_vetting.similar_felts: a blue base
in blue water) also gets the nearest reason of the water search (vision.rim_water.water_candidates'
with_rejected), "none" when it had no candidate there. Misses are grouped by resolution, by felt
(in/beside felt of the side's hue, or dry) and by cloak (none, the side's own colour, the other
side's), and each is listed with its photo, so that its crop can be looked at. Last, every visible
figure and every miss by the photo's own resolution at the base (frame pixels per inch of the table
there): a 1080p photo of a 3-5' table shows a base 12-20 frame pixels across, its rim (JPEG keeping
colour at half that resolution) a chroma pixel or two.

Each photo is analysed as `tablesight analyze` does (FramePipeline(profile).process(image)); the
reasons come from a second look at each colour window with with_rejected (which may keep a little
more or less than the plain look: the plain look's found figures are the ones scored). Prints
markdown; asserts nothing.

Run: python benchmarks/rim_misses.py [--photos 60] [--seeds 0,7] [--res 1080p,1080p,2160p] [--only 1080p]
     [--mat kitchen]  (kitchen tables: each miss then names its table) [--thin-rims] [--pale-tops]
     [--paint hobby] [--shadows]
"""
from __future__ import annotations

import argparse
import math
import re
import sys
from collections import Counter
from pathlib import Path

import numpy as np
from shapely.geometry import Point

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import vision.pipeline as pipeline  # noqa: E402
import vision.rims as rims  # noqa: E402
from tests.vision.hard_scoring import colour_pairs, frame_ppi  # noqa: E402
from vision.rim_vetting import similar_felts  # noqa: E402

try:
    from vision.synthetic.hard import hard_photo, level  # noqa: E402
except ImportError as exc:      # scikit-image ships the photographed textures
    sys.exit(f"rim_misses: {exc}")

NEAR_IN = 0.5                  # a candidate this near a missed figure is its (a base's radius, the scoring gate)
BESIDE = "kept by the vetting, then left out beside a surer ring"   # (one base per place)
FAR_IN = 1.0                   # a base of its side found this near, past the gate, is the figure found too far off
FELT_BESIDE_IN = 0.8           # felt this near a figure is felt it stands in or beside
PPI_BINS = (12, 14, 16, 18, 20, 24, 32, 48)   # frame pixels per inch: the edges of the bins misses are counted in


def _reason(text: str) -> str:
    """A reason without its numbers and its explanation: the class it names."""
    return re.sub(r"\d+(\.\d+)?", "N", re.sub(r" \([^)]*\)", "", text)).split(":")[0]


class _Looks:
    """Every candidate of the ring search and the water search, in table inches, from a second look
    at each colour window with with_rejected (vision.pipeline.rims_in_view wrapped, its answer unchanged)."""

    def __init__(self):
        self.rings: list[tuple[np.ndarray, int, str]] = []     # (xy in, side, reason)
        self.hits: list[tuple[np.ndarray, rims.RimHit, str]] = []   # the same rings' (xy in, RimHit, reason)
        self.water: list[tuple[np.ndarray, int, str]] = []
        self._window = None

    def __enter__(self):
        self._look, self._find, self._water = pipeline.rims_in_view, rims.find_rims, rims.water_candidates
        self._vet = rims.vet_hits

        def water(*args, **kwargs):
            out = self._water(*args, **kwargs)
            if self._window is not None:
                for c in self._water(*args, **dict(kwargs, with_rejected=True)):
                    self.water.append((self._window.to_table(np.asarray(c[0], np.float64)[None])[0], int(c[1]), c[5]))
            return out

        def rejected(*args, **kwargs):
            return self._find(*args, **dict(kwargs, with_rejected=True))

        vetted: list = []

        def vet(*args, **kwargs):
            out = self._vet(*args, **kwargs)
            vetted.extend(out)
            return out

        def look(view, *args, **kwargs):
            out = self._look(view, *args, **kwargs)
            rims.find_rims, rims.vet_hits, self._window = rejected, vet, view
            vetted.clear()
            try:
                every = self._look(view, *args, **kwargs)
            finally:
                rims.find_rims, rims.vet_hits, self._window = self._find, self._vet, None
            hits = [(np.asarray(xy, np.float64), hit, hit.reason) for xy, hit in every]
            # (a candidate left out beside a ring that stands is not among the bases' answer, even
            # with_rejected: one base per place. Its reason is the vetting's, in this window's view.)
            listed = {(hit.side_index, *np.round(hit.xy_view, 3)) for _, hit in every}
            hits += [(view.to_table(np.asarray(hit.xy_view, np.float64)[None])[0], hit,
                      BESIDE if hit.reason == "ring" else hit.reason)
                     for hit in vetted if (hit.side_index, *np.round(hit.xy_view, 3)) not in listed
                     and np.isfinite(hit.xy_view).all()]
            self.hits += hits
            self.rings += [(xy, hit.side_index, why) for xy, hit, why in hits]
            return out

        pipeline.rims_in_view, rims.water_candidates = look, water
        return self

    def __exit__(self, *exc):
        pipeline.rims_in_view, rims.find_rims, rims.water_candidates = self._look, self._find, self._water


def _nearest(cands, side: int, xy) -> str | None:
    near = [(math.hypot(p[0] - xy[0], p[1] - xy[1]), why) for p, s, why in cands if s == side]
    near = [c for c in near if c[0] <= NEAR_IN]
    return min(near)[1] if near else None


def photo_misses(seed: int, k: int, resolutions, mat: str = "set", thin_rims: bool = False,
                 pale_tops: bool = False, paint: str = "set",
                 shadows: bool = False) -> tuple[int, list[dict], list[float]]:
    """(visible colour figures, the misses, each visible figure's frame pixels per inch) of hard photo
    `k` of `seed` (0-based, as accuracy_vision names it; `mat`, `thin_rims`, `pale_tops`, `paint` and
    `shadows` as hard_photo takes them)."""
    photo = hard_photo(seed, k, resolutions=resolutions, mat=mat, thin_rims=thin_rims, pale_tops=pale_tops,
                       paint=paint, shadows=shadows)
    profile = photo.profile
    with _Looks() as looks:
        try:
            scene = pipeline.FramePipeline(profile).process(photo.image).scene
        except Exception as exc:    # a refused photo (accuracy_vision counts its misses)
            print(f"seed {seed} photo {k}: refused ({exc})", file=sys.stderr)
            return 0, [], []
    sides = [s.name for s in profile.sides]
    hued = similar_felts([s.seen_rgb for s in profile.sides], [t.rgb for t in profile.terrain], len(sides))
    kinds = [t.name for t in profile.terrain]
    found_c, truth_c, matched = colour_pairs(scene, photo.truth)
    misses, visible, seen_ppi = [], 0, []
    for i, t in enumerate(truth_c):
        if t.hidden:
            continue
        visible += 1
        seen_ppi.append(frame_ppi(photo.camera, t.x, t.y))
        if i in matched:
            continue
        side = sides.index(t.side)
        own = {kinds[j - len(sides)] for j in hued[side]}
        here = Point(t.x, t.y)
        felt = [p.kind for p in photo.truth.terrain if p.kind in own and p.polygon.distance(here) <= FELT_BESIDE_IN]
        cloak = photo.cloaks.get(t.id)
        off = min((math.hypot(f.x - t.x, f.y - t.y) for f in found_c if f.side == t.side), default=math.inf)
        why = _nearest(looks.rings, side, (t.x, t.y))
        stage = ("too far off" if off <= FAR_IN else "never a candidate" if why is None else _reason(why))
        water = _nearest(looks.water, side, (t.x, t.y)) if felt else None
        misses.append({"seed": seed, "photo": k, "id": t.id, "side": t.side,
                       "resolution": photo.conditions.resolution, "table": photo.conditions.mat,
                       "paint": dict(photo.conditions.paints).get(t.side, ""),
                       "felt": f"in or beside {felt[0]}" if felt else "dry",
                       "cloak": "no cloak" if cloak is None else "own colour cloak" if cloak == t.side
                       else "other side's cloak", "stage": stage,
                       "water": (_reason(water) if water else "none") if felt else "",
                       "seen": photo.rim_visible.get(t.id, 1.0), "painted": bool(photo.painted_top.get(t.id)),
                       "ppi": seen_ppi[-1]})
    print(f"seed {seed} photo {k}: {len(misses)} missed of {visible}", file=sys.stderr)
    return visible, misses, seen_ppi


def _ppi_bin(ppi: float) -> str:
    lo = max((b for b in PPI_BINS if b <= ppi), default=0)
    hi = min((b for b in PPI_BINS if b > ppi), default=None)
    return f"{lo}-{hi}" if hi is not None else f"{lo}+"


def report_by_ppi(misses: list[dict], seen_ppi: list[float]) -> None:
    """Every visible figure and every miss by the frame's pixels per inch at the base."""
    seen = Counter(_ppi_bin(p) for p in seen_ppi)
    lost = Counter(_ppi_bin(m["ppi"]) for m in misses)
    print("### By the frame's pixels per inch at the base\n")
    print("| frame px/in | visible | missed | share missed |")
    print("|---|---|---|---|")
    for b in sorted(seen, key=lambda b: float(b.split("-")[0].rstrip("+"))):
        print(f"| {b} | {seen[b]} | {lost[b]} | {lost[b] / seen[b]:.1%} |")
    print()


def report(misses: list[dict], visible: Counter, seeds) -> None:
    print(f"## Missed colour rims by the stage that lost them: seeds {', '.join(map(str, seeds))}\n")
    for res in sorted(visible):
        mine = [m for m in misses if m["resolution"] == res]
        print(f"### {res}: {len(mine)} missed of {visible[res]}\n")
        groups = sorted({(m["felt"] != "dry", m["cloak"]) for m in mine})
        names = [("in/beside felt of its hue" if f else "dry") + f", {c}" for f, c in groups]
        print("| stage | all | " + " | ".join(names) + " |")
        print("|---" * (2 + len(groups)) + "|")
        for stage, n in Counter(m["stage"] for m in mine).most_common():
            cells = [sum(1 for m in mine if m["stage"] == stage and (m["felt"] != "dry", m["cloak"]) == g)
                     for g in groups]
            print(f"| {stage} | {n} | " + " | ".join(map(str, cells)) + " |")
        water = Counter(m["water"] for m in mine if m["felt"] != "dry")
        if water:
            print("\nIn or beside felt of its hue, the water search's nearest reason: "
                  + ", ".join(f"{why} {n}" for why, n in water.most_common()) + ".")
        print()
    print("### Each miss\n")
    for m in misses:
        named = (f"{m['table']}, " if m["table"] else "") + (f"{m['paint']}, " if m["paint"] else "")
        print(f"- seed {m['seed']} photo {m['photo']} {m['id']} ({m['side']}, {named}{m['resolution']}, {m['ppi']:.0f} px/in, {m['seen']:.0%} "
              f"of rim in view{', whole top painted' if m['painted'] else ''}, {m['felt']}, {m['cloak']}): {m['stage']}"
              + (f"; water search: {m['water']}" if m["water"] else ""))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--photos", type=int, default=60)
    parser.add_argument("--seeds", default="0,7")
    parser.add_argument("--res", default="1080p,1080p,2160p", help="resolutions cycled like a factor")
    parser.add_argument("--only", default="", help="look only at photos of this resolution (1080p or 2160p)")
    parser.add_argument("--mat", choices=("set", "kitchen"), default="set",
                        help="the tables: the set's mats, or kitchen tables (as accuracy_vision's --mat)")
    parser.add_argument("--thin-rims", action="store_true", help="bands at the bases' edges 0.06-0.10 of their "
                        "diameter wide (as accuracy_vision's --thin-rims)")
    parser.add_argument("--pale-tops", action="store_true", help="the tops inside those bands sand, cream or snow "
                        "(as accuracy_vision's --pale-tops)")
    parser.add_argument("--paint", choices=("set", "hobby"), default="set",
                        help="the rims' paint: the set's, or shop paints (as accuracy_vision's --paint)")
    parser.add_argument("--shadows", action="store_true", help="each colour figure casts a shadow (as "
                        "accuracy_vision's --shadows)")
    args = parser.parse_args()
    seeds = [int(s) for s in args.seeds.split(",")]
    resolutions = tuple(args.res.split(","))
    visible, misses, seen_ppi = Counter(), [], []
    for seed in seeds:
        for k in range(args.photos):
            res = level(seed, "resolution", k, resolutions)       # (hard_photo's own draw of it)
            if args.only and res != args.only:
                continue
            n, lost, ppi = photo_misses(seed, k, resolutions, args.mat, args.thin_rims, args.pale_tops,
                                          args.paint, args.shadows)
            visible[res] += n
            misses += lost
            seen_ppi += ppi
    report(misses, visible, seeds)
    report_by_ppi(misses, seen_ppi)


if __name__ == "__main__":
    main()
