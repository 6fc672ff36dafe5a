"""Whether the ring candidates' own measures tell a missed rim from what is no rim: issue 10's colour recall.

Each hard photo is analysed as `tablesight analyze` does, with a second look at each colour window
with with_rejected (benchmarks/rim_misses.py's, with the rings the vetting kept and one base per place
left out); every candidate's measures (vision.rims.RimHit:
confidence, coverage, residual, inner, outer, clean, other, radius, free radius, middle, hollow,
core, covered, front, the pass that found it) and the photo's resolution are one row, labelled by
the truth: within NEAR_IN of a visible figure of its side, and whether the photo found that figure
(tests/vision/hard_scoring.colour_pairs). A gradient-boosted classifier (scikit-learn's, balanced
classes) is fitted on the photos of one seed and judged on another's, both ways:
- rescue: among the candidates left out as too weak, cluttered, bits of arcs or too little ring,
  those at a figure the photo missed against every other (the ones at a figure found are left
  out: keeping them changes nothing); how many it picks, and how many of those are such rims;
- drop: among the rings kept, those at no figure against the others; how many it would drop, and
  how many of those are at no figure.
Use seeds outside the goal's set (0, 7, 3, 11, 5, 13, 23, 31). Prints markdown; asserts nothing.

Needs scikit-learn, which tablesight does not: pip install scikit-learn.

Run: python benchmarks/rim_separability.py [--photos 60] [--seeds 100,101]
"""
from __future__ import annotations

import argparse
import dataclasses
import math
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import rim_misses  # noqa: E402
import vision.pipeline as pipeline  # noqa: E402
from tests.vision.hard_scoring import colour_pairs  # noqa: E402

try:
    from sklearn.ensemble import HistGradientBoostingClassifier  # noqa: E402

    from vision.synthetic.hard import hard_photo  # noqa: E402
except ImportError as exc:      # scikit-learn, and scikit-image for the photographed textures
    sys.exit(f"rim_separability: {exc}")

NEAR_IN = 0.35                 # a candidate this near a visible figure of its side is at that figure
LEFT_OUT = ("too weak a ring all told", "cluttered, not a clean rim", "bits of arcs, not one rim", "too little ring")
MEASURES = ("confidence", "coverage", "residual_px", "inner", "outer", "by_hue", "radius", "clean", "other",
            "free_radius", "middle", "hollow", "by_likelihood", "core", "covered", "front", "by_water")


def rows(seed: int, count: int) -> list[dict]:
    """Every candidate of `count` hard photos of `seed`: its measures, reason and truth."""
    out = []
    for k in range(count):
        photo = hard_photo(seed, k)
        with rim_misses._Looks() as looks:
            try:
                scene = pipeline.FramePipeline(photo.profile).process(photo.image).scene
            except Exception as exc:    # a refused photo
                print(f"seed {seed} photo {k}: refused ({exc})", file=sys.stderr)
                continue
        sides = [s.name for s in photo.profile.sides]
        _, truth_c, matched = colour_pairs(scene, photo.truth)
        for xy, hit, reason in looks.hits:
            near = [(math.hypot(t.x - xy[0], t.y - xy[1]), i) for i, t in enumerate(truth_c)
                    if not t.hidden and t.side == sides[hit.side_index]]
            near = min((n for n in near if n[0] <= NEAR_IN), default=None)
            measures = dataclasses.asdict(hit)
            out.append({"x": [float(measures[m]) for m in MEASURES] + [photo.conditions.resolution == "2160p"],
                        "reason": rim_misses._reason(reason), "at_figure": near is not None,
                        "figure_found": near is not None and near[1] in matched})
        print(f"seed {seed} photo {k}: {len(looks.hits)} candidates", file=sys.stderr)
    return out


def _fit(train: list[dict], test: list[dict], keep, label):
    a, b = [r for r in train if keep(r)], [r for r in test if keep(r)]
    model = HistGradientBoostingClassifier(max_iter=300, learning_rate=0.05, class_weight="balanced", random_state=0)
    model.fit(np.array([r["x"] for r in a], float), np.array([label(r) for r in a]))
    p = model.predict_proba(np.array([r["x"] for r in b], float))[:, 1]
    return p, np.array([label(r) for r in b])


def report(by_seed: dict[int, list[dict]]) -> None:
    seeds = list(by_seed)
    print(f"## Ring candidates' measures, fitted on one seed and judged on another: seeds {seeds}\n")
    print("| fitted on | judged on | left out, at a missed figure / all | picked at p >= 0.5 / 0.8 | "
          "of them at a missed figure | kept rings at no figure / all | dropped at p < 0.3 / 0.5 | "
          "of them at no figure |")
    print("|---|---|---|---|---|---|---|---|")
    for a in seeds:
        for b in seeds:
            if a == b:
                continue
            p, y = _fit(by_seed[a], by_seed[b], lambda r: r["reason"] in LEFT_OUT and not r["figure_found"],
                        lambda r: r["at_figure"])
            q, z = _fit(by_seed[a], by_seed[b], lambda r: r["reason"] == "ring", lambda r: not r["at_figure"])
            print(f"| {a} | {b} | {int(y.sum())} / {len(y)} | {int((p >= 0.5).sum())} / {int((p >= 0.8).sum())} | "
                  f"{int(y[p >= 0.5].sum())} / {int(y[p >= 0.8].sum())} | {int(z.sum())} / {len(z)} | "
                  f"{int((q >= 0.7).sum())} / {int((q >= 0.5).sum())} | {int(z[q >= 0.7].sum())} / {int(z[q >= 0.5].sum())} |")
    print()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--photos", type=int, default=60)
    parser.add_argument("--seeds", default="100,101", help="two or more seeds, outside the goal's set")
    args = parser.parse_args()
    report({s: rows(s, args.photos) for s in (int(v) for v in args.seeds.split(","))})


if __name__ == "__main__":
    main()
