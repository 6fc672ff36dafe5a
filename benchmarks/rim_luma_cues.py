"""Does the brightness tell a missed rim from a look-alike? Luma cues of the rejected ring candidates.

At 1080p JPEG keeps colour at half the resolution of brightness: a rim 0.12 in wide is a chroma
pixel or so, while its paint's edge against the mat may still be a sharp brightness step. For every
candidate of the ring search (vision.rims.find_rims with_rejected, as vet_hits receives them, with
the rays whose colour shows the rim) in each 1080p hard photo, this measures:
- `outline`: the share of all rays whose steepest brightness change lies on one circle of the
  base's radius (vision.rim_outline.outline_rays);
- `on_arc`: of the rays where the colour shows the rim, the share with that outline
  (vision.rim_outline.outline_on_arc): the step where the colour says the rim is;
- `beside`: the share of rays with the outline and the side's colour near the rim band that the
  colour's edge test did not keep (evidence the colour alone misses);
- `step`: the mean brightness step (grey levels) across the base's edge on the arc's rays, signed the
  way most of them go.
Each candidate is labelled by the truth: "missed base" (within 0.2 in of a visible base of its side
that the plain pipeline missed) or "no base" (more than 0.5 in from any base of its side and 0.9 in
from any kept ring, so that keeping it would add a phantom; one a place). For each reason a
candidate was left out, the table gives the count of each and how well each cue ranks a missed
base above a look-alike (AUC: 0.5 is no separation), and the look-alikes' 90th percentile against
the missed bases' median.

Run: python benchmarks/rim_luma_cues.py [--photos 60] [--seeds 0,7]
"""
from __future__ import annotations

import argparse
import math
import re
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import vision.pipeline as pipeline  # noqa: E402
import vision.rims as rims  # noqa: E402
from tests.vision.hard_scoring import colour_pairs  # noqa: E402
from vision.rim_outline import outline_on_arc, outline_rays  # noqa: E402
from vision.rim_rays import ray_units, sample_rays  # noqa: E402
from vision.rim_refine import BRIGHT_BIAS_PX, luma_rays  # noqa: E402
from vision.synthetic.hard import hard_photo, level  # noqa: E402

RES = ("1080p", "1080p", "2160p")
NEAR_IN, FAR_IN, FREE_IN, SAME_IN = 0.2, 0.5, 0.9, 0.15
CUES = ("outline", "on_arc", "beside", "step")


def cues(view, hits, kept, strict, loose, r_px, shift_fn) -> list[dict]:
    """Each candidate's luma cues (see the module's docstring)."""
    c = np.array([h.xy_view for h in hits], np.float64)
    c = np.where(np.isfinite(c).all(1)[:, None], c, 0.0)
    units = ray_units()
    shift = np.zeros_like(c) if shift_fn is None else np.asarray(shift_fn(c), np.float64)
    rays = outline_rays(view, c, shift, units, r_px)
    on_arc = outline_on_arc(view, c, shift, units, r_px, kept)
    own = outline_rays(view, c, shift, units, r_px, reach=0.0)
    sides = np.array([h.side_index for h in hits])
    band = np.arange(0.55 * r_px, 1.3 * r_px, 0.5)
    colour = np.zeros(rays.shape, bool)
    for k in np.unique(sides):
        sel = sides == k
        colour[sel] = (sample_rays(((strict == k) | (loose == k)).astype(np.float32), c[sel], band, units) >= 0.5).any(2)
    wall = np.maximum(0.0, shift @ units.T)
    s = luma_rays(view, c, units, (r_px + BRIGHT_BIAS_PX + wall)[..., None] + np.array([-3.0, -1.5, 1.5, 3.0]))
    diff = s[..., :2].mean(2) - s[..., 2:].mean(2)                  # inside less outside, each ray
    out = []
    for i in range(len(hits)):
        d = diff[i][kept[i]]
        way = np.sign(d.sum()) if len(d) else 0.0
        out.append(dict(outline=rays[i].mean(), on_arc=on_arc[i], beside=(own[i] & colour[i] & ~kept[i]).mean(),
                        step=float((d * way).mean()) if len(d) else 0.0))
    return out


class Recorder:
    """Runs the pipeline's plain look, then a second look at each colour window with with_rejected,
    recording every candidate vet_hits receives with its cues and its place in table inches."""

    def __init__(self):
        self.rows: list[dict] = []

    def __enter__(self):
        self._look, self._find = pipeline.rims_in_view, rims.find_rims
        self._arc, self._vet = rims.longest_arc, rims.vet_hits
        state = {"kept": None, "ctx": None}

        def arc(kept, *a, **k):          # the rays each candidate's colour shows its rim on
            state["kept"] = kept.copy()
            return self._arc(kept, *a, **k)

        def vet(hits, **kw):
            out = self._vet(hits, **kw)
            kept, ctx = state["kept"], state["ctx"]
            if ctx is not None and len(hits) and kept is not None and len(kept) == len(hits):
                view, pose, height = ctx
                xy = np.array([h.xy_view for h in hits], np.float64)
                ok = np.isfinite(xy).all(1)
                table = np.full_like(xy, np.nan)
                if ok.any():
                    t = view.to_table(xy[ok])
                    table[ok] = pose.lift(t, height) if pose is not None and height > 0 else t
                for h, o, f, p in zip(hits, out, cues(kw["view_bgr"], hits, kept, kw["strict"], kw["loose"],
                                                      kw["r_px"], kw["wall_shift_px"]), table):
                    self.rows.append(dict(f, pre=h.reason, post=o.reason, conf=h.confidence, side=h.side_index, xy=p))
            state["kept"] = None
            return out

        def rejected(*a, **k):
            return self._find(*a, **dict(k, with_rejected=True))

        def look(view, *a, **k):
            out = self._look(view, *a, **k)
            rims.find_rims, rims.longest_arc, rims.vet_hits = rejected, arc, vet
            state["ctx"] = (view, k.get("pose"), k.get("height_in", 0.0))
            try:
                self._look(view, *a, **k)
            finally:
                rims.find_rims, rims.longest_arc, rims.vet_hits = self._find, self._arc, self._vet
                state["ctx"] = None
            return out

        pipeline.rims_in_view = look
        return self

    def __exit__(self, *exc):
        pipeline.rims_in_view = self._look


def _reason(r: dict) -> str:
    why = r["pre"] if r["pre"] != "ring" else r["post"]
    return re.sub(r" \(.*", "", why).split(":")[0]


def photo_rows(seed: int, k: int) -> list[dict]:
    photo = hard_photo(seed, k, resolutions=RES)
    sides = [s.name for s in photo.profile.sides]
    with Recorder() as rec:
        try:
            scene = pipeline.FramePipeline(photo.profile).process(photo.image).scene
        except Exception as exc:    # a refused photo
            print(f"seed {seed} photo {k}: refused ({exc})", file=sys.stderr)
            return []
    _, truth, matched = colour_pairs(scene, photo.truth)
    kept = [r["xy"] for r in rec.rows if r["post"] == "ring"]
    for r in rec.rows:
        same = [(math.hypot(r["xy"][0] - t.x, r["xy"][1] - t.y), i) for i, t in enumerate(truth)
                if sides.index(t.side) == r["side"]]
        d, i = min(same) if same else (math.inf, -1)
        free = all(math.hypot(*(r["xy"] - q)) > FREE_IN for q in kept)
        r.update(seed=seed, photo=k, truth=i, label=(
            "missed" if d <= NEAR_IN and not truth[i].hidden and i not in matched
            else "none" if d > FAR_IN and free and np.isfinite(r["xy"]).all() else ""))
    print(f"seed {seed} photo {k}: {len(rec.rows)} candidates", file=sys.stderr)
    return [r for r in rec.rows if r["label"] and r["post"] != "ring"]


def _one_a_place(rows: list[dict]) -> list[dict]:
    out: list[dict] = []
    for r in sorted(rows, key=lambda r: -r["conf"]):
        if all(not (o["seed"] == r["seed"] and o["photo"] == r["photo"]
                    and math.hypot(*(o["xy"] - r["xy"])) < SAME_IN) for o in out):
            out.append(r)
    return out


def _auc(a, b) -> float:
    a, b = np.asarray(a, float), np.asarray(b, float)
    return float((a[:, None] > b[None]).mean() + 0.5 * (a[:, None] == b[None]).mean())


def report(rows: list[dict], seeds) -> None:
    print(f"## Luma cues of the left-out ring candidates, 1080p, seeds {', '.join(map(str, seeds))}\n")
    print("| left out as | missed bases | no base | " + " | ".join(f"{c}: AUC, missed median / no-base p90"
                                                             for c in CUES) + " |")
    print("|---" * (3 + len(CUES)) + "|")
    by = defaultdict(list)
    for r in rows:
        by[_reason(r)].append(r)
    for why, rs in sorted(by.items(), key=lambda kv: -sum(r["label"] == "missed" for r in kv[1])):
        missed = [r for r in rs if r["label"] == "missed"]
        none = _one_a_place([r for r in rs if r["label"] == "none"])
        if len(missed) < 3 or not none:
            continue
        cells = [f"{_auc([r[c] for r in missed], [r[c] for r in none]):.2f}, "
                 f"{np.median([r[c] for r in missed]):.2f} / {np.percentile([r[c] for r in none], 90):.2f}" for c in CUES]
        n_missed = len({(r['seed'], r['photo'], r['truth']) for r in missed})
        print(f"| {why} | {n_missed} | {len(none)} | " + " | ".join(cells) + " |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--photos", type=int, default=60)
    parser.add_argument("--seeds", default="0,7")
    args = parser.parse_args()
    seeds = [int(s) for s in args.seeds.split(",")]
    rows = []
    for seed in seeds:
        for k in range(args.photos):
            if level(seed, "resolution", k, RES) == "1080p":
                rows += photo_rows(seed, k)
    report(rows, seeds)


if __name__ == "__main__":
    main()
