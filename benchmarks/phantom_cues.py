"""Whether four cues a person would use tell a colour phantom from a base: issue 10's phantoms.

Each hard photo is analysed as `tablesight analyze` does. Every colour base it reports is labelled
by the truth: a base (a visible colour figure of its side within the scoring gate), a figure of the
other side read as this side (a cloak of this side's colour on it: the largest class of phantoms),
or a phantom at no figure (a die, a body, clutter). For each, on the side labels the ring search
made of its window:
- near arc: the share of the rays within vision.rim_vetting.NEAR_ARC_DEG of the camera's direction
  showing the base's own side's colour at the rim (rim_vetting.near_arc), and the most of any
  other side. A base shows its rim towards the camera, where its body hides least; a cloak up on a
  body of the other side should show that side's rim there instead;
- rim beneath: the share of a ring of another side's colour, of the base's size, towards the camera
  (rim_vetting.rim_beneath, as the vetting's cloth test reads it), the rim of the figure a cloak is on;
- middle of another side: the share of the middle (within rim_vetting.MIDDLE_IN radii) showing
  another side's colour: a die of the other side, the felt's halo round it read as this side's rim;
- felt in front: for a side with felt of its hue on the table (blue water), the share of that felt
  on rays towards the camera just outside the rim (1.3-1.8 radii) against the share on the other
  rays. A ring round a figure's body in the felt has the figure's base, not felt, in front of it.
Prints each cue's quartiles per class and what a rule on it would drop. Asserts nothing.

Run: python benchmarks/phantom_cues.py [--photos 60] [--seeds 23,7]
"""
from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import vision.pipeline as pipeline  # noqa: E402
import vision.rims as rims  # noqa: E402
from tests.vision.hard_scoring import GATE_IN  # noqa: E402
from vision import rim_vetting  # noqa: E402

try:
    from vision.synthetic.hard import hard_photo  # noqa: E402
except ImportError as exc:      # scikit-image ships the photographed textures
    sys.exit(f"phantom_cues: {exc}")

CLASSES = ("base", "other side's figure", "no figure")
FRONT_DEG = 35.0               # rays this near the camera's direction are in front of a ring
FELT_BAND = (1.3, 1.8)         # in radii: just outside a rim and its blur
# (a rule: its name, and whether a base's cues would have it dropped)
RULES = (
    ("none of its colour on its near arc", lambda c: c["near_own"] == 0),
    ("none of its colour on its near arc, another side's there", lambda c: c["near_own"] == 0 and c["near_other"] > 0),
    ("a rim of another side beneath it, 0.2 of a ring or more", lambda c: c["beneath"] >= 0.2),
    ("another side's colour fills 0.8 of its middle", lambda c: c["middle_other"] >= 0.8),
    ("felt behind (0.5 or more), none in front (0.3 or less)",
     lambda c: c["felt_back"] is not None and c["felt_back"] >= 0.5 and c["felt_front"] <= 0.3),
)


def cues(hit, strict, loose, n_sides: int, felt_labels, r_px: float, shift_px) -> dict:
    """The four cues of one reported ring (see the module's docstring)."""
    other = rim_vetting.other_side_reader(strict, loose, n_sides, hit.side_index)
    h, w = strict.shape
    c = np.asarray(hit.xy_view, np.float64)
    out = {"near_own": rim_vetting.near_arc(strict, loose, hit.side_index, c, shift_px, r_px),
           "near_other": max((rim_vetting.near_arc(strict, loose, s, c, shift_px, r_px)
                              for s in range(n_sides) if s != hit.side_index), default=0.0),
           "beneath": rim_vetting.rim_beneath(other, strict.shape, c, r_px, shift_px)[0]}
    half = int(math.ceil(rim_vetting.MIDDLE_IN * r_px))
    yy, xx = np.mgrid[-half:half + 1, -half:half + 1]
    disc = (xx ** 2 + yy ** 2 <= (rim_vetting.MIDDLE_IN * r_px) ** 2)
    xi, yi = np.rint(c[0] + xx[disc]).astype(int), np.rint(c[1] + yy[disc]).astype(int)
    inside = (xi >= 0) & (xi < w) & (yi >= 0) & (yi < h)
    out["middle_other"] = float(other(yi[inside], xi[inside]).mean()) if inside.any() else 0.0
    out["felt_front"] = out["felt_back"] = None
    norm = float(np.hypot(*shift_px))
    if felt_labels and norm > 1e-9:
        units = rim_vetting.ray_units(rim_vetting.N_ARC)
        front = units @ (np.asarray(shift_px, np.float64) / norm) >= math.cos(math.radians(FRONT_DEG))
        radii = np.linspace(*FELT_BAND, 4) * r_px
        pts = c[None, None] + units[:, None] * radii[None, :, None]
        xi = np.clip(np.rint(pts[..., 0]).astype(int), 0, w - 1)
        yi = np.clip(np.rint(pts[..., 1]).astype(int), 0, h - 1)
        felt = np.isin(strict[yi, xi], felt_labels).mean(1)
        out["felt_front"], out["felt_back"] = float(felt[front].mean()), float(felt[~front].mean())
    return out


class _Cues:
    """The cues of every base the colour search reports, in table inches, from the labels of the
    window it was found in (vision.rims._with_water_rims and vision.pipeline.rims_in_view wrapped,
    their answers unchanged)."""

    def __init__(self):
        self.found: list[tuple[np.ndarray, int, dict]] = []     # (xy in, side, cues)

    def __enter__(self):
        self._water, self._look = rims._with_water_rims, pipeline.rims_in_view
        window: dict = {}

        def water(hits, strict, side_rgbs, other_rgbs, r_px, wall_shift_px, view_bgr=None, loose=None, *a, **k):
            out = self._water(hits, strict, side_rgbs, other_rgbs, r_px, wall_shift_px, view_bgr, loose, *a, **k)
            if loose is not None and wall_shift_px is not None:
                felts = rim_vetting.similar_felts(side_rgbs, other_rgbs, len(side_rgbs))
                for hit in out:
                    if hit.reason == "ring":
                        shift = np.asarray(wall_shift_px(hit.xy_view[None]), np.float64).reshape(2)
                        window[(hit.side_index, *np.round(hit.xy_view, 3))] = cues(
                            hit, strict, loose, len(side_rgbs), felts[hit.side_index], r_px, shift)
            return out

        def look(view, *args, **kwargs):
            window.clear()
            out = self._look(view, *args, **kwargs)
            for xy, hit in out:
                c = window.get((hit.side_index, *np.round(hit.xy_view, 3)))
                if c is not None:
                    self.found.append((np.asarray(xy, np.float64), hit.side_index, c))
            return out

        rims._with_water_rims, pipeline.rims_in_view = water, look
        return self

    def __exit__(self, *exc):
        rims._with_water_rims, pipeline.rims_in_view = self._water, self._look


def rows(seed: int, count: int) -> list[tuple[str, dict]]:
    """(class, cues) of every colour base reported on `count` hard photos of `seed`."""
    out = []
    for k in range(count):
        photo = hard_photo(seed, k)
        sides = [s.name for s in photo.profile.sides]
        with _Cues() as seen:
            try:
                pipeline.FramePipeline(photo.profile).process(photo.image)
            except Exception as exc:    # a refused photo
                print(f"seed {seed} photo {k}: refused ({exc})", file=sys.stderr)
                continue
        figures = [f for f in photo.truth.figures if f.marker is None and not f.hidden]
        for xy, side, c in seen.found:
            near = [(math.hypot(f.x - xy[0], f.y - xy[1]), f) for f in figures]
            d, f = min(near, key=lambda t: t[0]) if near else (math.inf, None)
            cls = CLASSES[2] if d > GATE_IN else CLASSES[0] if f.side == sides[side] else CLASSES[1]
            out.append((cls, c))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--photos", type=int, default=60)
    parser.add_argument("--seeds", default="23,7")
    args = parser.parse_args()
    seeds = [int(s) for s in args.seeds.split(",")]
    found = [r for s in seeds for r in rows(s, args.photos)]
    by_class = {cls: [c for k, c in found if k == cls] for cls in CLASSES}
    print(f"## Phantom cues: {args.photos} hard photos of seeds {args.seeds}\n")
    print("| cue | " + " | ".join(f"{cls} ({len(by_class[cls])}): quartiles" for cls in CLASSES) + " |")
    print("|---|" + "---|" * len(CLASSES))
    for cue in ("near_own", "near_other", "beneath", "middle_other", "felt_front", "felt_back"):
        cells = []
        for cls in CLASSES:
            v = [c[cue] for c in by_class[cls] if c[cue] is not None]
            cells.append(" / ".join(f"{q:.2f}" for q in np.percentile(v, [25, 50, 75])) + f" (n {len(v)})"
                         if v else "-")
        print(f"| {cue} | " + " | ".join(cells) + " |")
    print("\n| rule | " + " | ".join(f"{cls} dropped" for cls in CLASSES) + " |")
    print("|---|" + "---|" * len(CLASSES))
    for name, drops in RULES:
        print(f"| {name} | " + " | ".join(f"{sum(map(drops, by_class[cls]))}/{len(by_class[cls])}"
                                           for cls in CLASSES) + " |")


if __name__ == "__main__":
    main()
