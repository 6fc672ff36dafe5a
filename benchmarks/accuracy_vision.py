"""Accuracy of vision on synthetic photos: issue 10's figures on the hard set, overall and per
condition, with every miss named. Prints markdown; asserts nothing.

The hard set (vision.synthetic.hard): each photo is analysed exactly as `tablesight analyze PHOTO
--table TABLE.toml` does (FramePipeline(profile).process(image), with the photo's own profile, no
camera file), and scored on
- figure markers: recall, false ids, p95 and max error (goal >= 99.5%, 0 false, p95 <= 0.05 in);
- grids (square, flat hex, none): a false grid on a plain table counts as a miss;
- colour-rimmed figures: recall, phantoms, p95 error (goal >= 98%, 0 phantoms, p95 <= 0.08 in);
  also recall by side under each cast and at each resolution, and by how finely the photo shows the
  table at the figure (under 20, 20-24, 24 px/in and more: the house default a player is told of);
- terrain felt: mean IoU per kind (goal >= 0.9), and pieces found where there is none;
- hands: found when the hands found cover 0.3 of the drawn hand and arm on the table, and hands
  found where there is none (a part of 2 sq in or more, 1.5" clear of any drawn hand), named by what
  lies there;
- figures under a hand: reported hidden at their last place when the previous picture (the same
  table without the hand) went first through a tracking pipeline (the camera's stream), and when
  the two were analysed each on its own and the second carried the first's hidden figures over
  (vision.hands.carry_hidden: the tablet's photo after a photo), also out of those the previous
  picture found (one it did not find could not be carried: colour rim recall, not the hand); in the
  still photo alone, the roster's markers reported hidden.
`--easy N` adds the older, kinder set's report (issue 4's figures).

`--absent-kinds` takes two of the four felt kinds off each photo's table (drawn by their own random
numbers, so the rest of the photo is the same) while its profile still lists all four, as a real
family's profile lists every kind it owns: "terrain where there is none" then counts false pieces of a
kind the search was told to look for and is not there.

`--full-colour-jpeg` is a diagnosis, not the issue's set: the same photos with their JPEG keeping the
colour at full resolution (4:4:4) where cameras and most encoders keep it at half (4:2:0). Against
a plain run it shows how much of what is missed the subsampled colour costs (at 1080p a rim is a
chroma pixel or two wide).

`--base-in D` draws every colour base D inches across instead of the set's 1" (1.26 is 32 mm, 1.575 is
40 mm), the profile giving no size, so that vision reads it from the photo (vision.base_size);
`--profile-base D` gives each side's size in the profile as D instead (the bases' own size: the
size told; 1: as vision looked for every base before it read their size). Not the issue's set: how
the size a family's bases happen to be changes what is found. The report says at what size the
bases were looked for.

`--paint hobby` rims each side's bases in one of a few shop paints (vision.synthetic.layout.HOBBY_PAINTS:
darker, duller, lighter and further in hue from the profile's colour than the set's own paint), the
profile still naming the set's colour, as a player picks a swatch near their paint. Not the issue's
set: how the paint a family happens to own changes what is found, printed paint by paint.

`--felt shop` cuts each kind's felt from one of a few craft-shop felts (vision.synthetic.layout.SHOP_FELTS:
darker, lighter and further in hue than the set's own felt), the profile still naming the set's
colour, as a family picks a swatch near their felt. Not the issue's set: how the felt a family
happens to own changes what is found, printed felt by felt.

`--mat kitchen` lays each table on one of a few kitchen tables instead of the set's mats
(vision.synthetic.hard.KITCHEN_MATS: cherry wood, walnut, a white or grey top, green baize, a blue
cloth), each table with its row of the main table and of the sides' table. Not the issue's set: a cherry table is nearly the red side's hue and a
blue cloth the blue side's.

`--shadows` has each colour figure cast a shadow from the room's light (one direction, as the
clutter's; vision.synthetic.hard.FIGURE_SHADOW) onto the table beside it and onto its own base's
top; nothing else in the photo changes. Not the issue's set (it names a mug's shadow, not the
figures'), but what a figure under a lamp has: the rim's edge against a shadowed mat is no
brightness step.

`--felt-at-edge` lays each felt piece across one of the table's edges (its centre 0.3-0.8 of its radius
in from it), as a river or a wood running off the table; its truth is the part on the table. Not the
issue's set (its felts lie inside the table): a felt cut straight by the table's edge is also what a
book hanging over it looks like.

`--turned` takes each photo whose table's long side runs along the picture's short side with the
camera turned a quarter turn and the table framed again, as the reply tells a player to
(vision.quality.quarter_turn_gain; vision.synthetic.hard.hard_photo's `turned`): the same table,
figures, felt, clutter and hand, seen finer. Its "long side: short axis" row, against the same row
without `--turned`, is what turning the camera gains.

`--thin-rims` paints each base that has a band at its edge (not its whole top) with a band 0.06-0.10
of its diameter wide (vision.synthetic.hard.THIN_BAND) instead of the set's 0.12-0.2, as a player who
paints the edge alone; nothing else in the photo changes. Not the issue's set: how much a rim's
width matters.

`--pale-tops` paints the top inside each such band sand, cream or snow (vision.synthetic.hard.PALE_TOPS)
instead of the set's brown, green or grey, as many players base their figures; nothing else in the
photo changes. Not the issue's set.

`--phone auto` puts each photo through what a phone's camera does between its sensor and the JPEG
(vision.synthetic.lighting.PhoneProcessing, its strengths vision.synthetic.hard.PHONE): the sensor's
Bayer mosaic interpolated, 70-90% of the lamp's cast taken out by the camera's own white balance,
the colour smoothed against noise and made 1.1-1.3 times as vivid (what is left of the cast too),
the edges sharpened; the scene is the same. `--phone locked`: the same with the camera's white
balance set to daylight, so that the whole cast is made more vivid. Not the issue's set: the set's
colours are the scene's times the cast, as no camera's are.

`--save DIR` also writes each photo as a player would have it (PNG, table TOML, truth and conditions
JSON), to run `tablesight analyze` on by hand.

Run: python benchmarks/accuracy_vision.py [--photos 60] [--seed 0] [--res 1080p,1080p,2160p] [--easy N] [--save DIR]
     [--absent-kinds] [--full-colour-jpeg] [--base-in 1.26 [--profile-base 1.26]] [--paint hobby]
     [--felt shop] [--mat kitchen] [--shadows] [--felt-at-edge] [--turned] [--thin-rims] [--pale-tops]
     [--phone auto|locked]
"""
from __future__ import annotations

import argparse
import dataclasses
import math
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from calibration.profile import SIDE_BASE_RANGE_IN  # noqa: E402
from vision.hands import carry_hidden  # noqa: E402
from vision.pipeline import FramePipeline  # noqa: E402

try:
    from vision.synthetic.export import write_hard_photo  # noqa: E402
    from vision.synthetic.hard import ALSO_REPORTED, FELT, REPORTED, hard_photo  # noqa: E402
    from vision.synthetic.textures import texture_gray  # noqa: E402
    texture_gray("grass")
except ImportError as exc:      # scikit-image ships the photographed textures
    sys.exit(f"accuracy_vision: {exc}")
from tests.vision.hard_scoring import (GOALS, KINDS, PPI_BANDS, UNSEEN_BEFORE, hidden_reported, p95,  # noqa: E402
                                        score_photo)


def describe(c) -> str:
    bits = [f"{c.cast} {c.cast_k:.0f} K", "clutter" if c.clutter else "no clutter", "hand" if c.hand else "no hand",
            f"motion blur {c.blur_px:g} px" if c.blur_px else "no blur", c.mat or c.texture, f"tilt {c.tilt_deg:g}",
            c.resolution, f"grid {c.grid}", f"table {c.table_in[0]:g}x{c.table_in[1]:g}"]
    if c.hot_spot:
        bits.append("hot spot")
    if c.long_side_on_short_axis:
        bits.append("long side on the short axis")
    bits += [f"{side} paint {paint}" for side, paint in c.paints]
    bits += [f"{kind} felt {name}" for kind, name in c.felts]
    return ", ".join(bits)


def aggregate(scores) -> dict:
    m_err = [e for s in scores for e in s.marker_errors_in]
    c_err = [e for s in scores for e in s.colour_errors_in]
    ious = {k: [v for s in scores for v in s.terrain_iou.get(k, [])] for k in KINDS}
    return {
        "photos": len(scores),
        "m_found": sum(s.marker_found for s in scores), "m_total": sum(s.marker_total for s in scores),
        "m_false": sum(len(s.marker_false) for s in scores), "m_p95": p95(m_err), "m_max": max(m_err, default=math.nan),
        "g_ok": sum(s.grid_ok for s in scores),
        "c_found": sum(s.colour_found for s in scores), "c_total": sum(s.colour_total for s in scores),
        "c_phantoms": sum(len(s.colour_phantoms) for s in scores), "c_p95": p95(c_err),
        "p_found": sum(s.painted_found for s in scores), "p_total": sum(s.painted_total for s in scores),
        "w_found": sum(s.water_found for s in scores), "w_total": sum(s.water_total for s in scores),
        "w_p95": p95([e for s in scores for e, wet in zip(s.colour_errors_in, s.colour_in_water) if wet]),
        "dry_p95": p95([e for s in scores for e, wet in zip(s.colour_errors_in, s.colour_in_water) if not wet]),
        "iou": {k: (float(np.mean(v)) if v else math.nan) for k, v in ious.items()},
        "t_extra": sum(len(s.terrain_extra) for s in scores),
    }


def pct(a, b) -> str:
    return f"{a}/{b} ({100 * a / b:.1f}%)" if b else "-"


def row(name: str, a: dict) -> str:
    iou = [a["iou"][k] for k in KINDS]
    mean = np.nanmean(iou) if not all(math.isnan(v) for v in iou) else math.nan
    cells = [name, str(a["photos"]), pct(a["m_found"], a["m_total"]), str(a["m_false"]),
             f"{a['m_p95']:.3f} / {a['m_max']:.3f}", f"{a['g_ok']}/{a['photos']}", pct(a["c_found"], a["c_total"]),
             str(a["c_phantoms"]), f"{a['c_p95']:.3f}", *[f"{v:.2f}" for v in iou], f"{mean:.2f}", str(a["t_extra"])]
    return "| " + " | ".join(cells) + " |"


HEADER = ("| photos | n | markers found | false ids | marker p95 / max in | grids | colour found | phantoms | "
          "colour p95 in | " + " | ".join(f"IoU {k}" for k in KINDS) + " | IoU mean | terrain where none |")


def side_table(scores, factors=("cast", "resolution")) -> str:
    """Colour rims found by side, under each cast and at each resolution (each of `factors`): a side
    whose paint a light takes the colour from (blue under tungsten) shows here, not in the rows of
    all sides at once."""
    sides = sorted({side for sc in scores for side in sc.side_total})

    def cells(group) -> str:
        return " | ".join(pct(sum(sc.side_found[side] for sc in group), sum(sc.side_total[side] for sc in group))
                          for side in sides)

    out = ["Colour rims found by side:\n", "| photos | " + " | ".join(sides) + " |", "|---|" + "---|" * len(sides),
           f"| all | {cells(scores)} |"]
    for factor in factors:
        for value in sorted({sc.groups[factor] for sc in scores}):
            out.append(f"| {factor}: {value} | {cells([sc for sc in scores if sc.groups[factor] == value])} |")
    return "\n".join(out) + "\n"


def paint_table(scores, paints) -> str:
    """Colour rims found by each side's paint (`paints`: each photo's Conditions.paints), and the
    phantoms of that side on those photos (hard_photo's paint="hobby")."""
    rows = defaultdict(lambda: [0, 0, 0, 0])        # (side, paint) -> photos, visible, found, phantoms
    for sc, photo_paints in zip(scores, paints):
        for side, paint in photo_paints:
            r = rows[side, paint]
            r[0] += 1
            r[1] += sc.side_total[side]
            r[2] += sc.side_found[side]
            r[3] += sum(m.startswith(f"phantom {side} ") for m in sc.misses)
    out = ["Colour rims by the paint on them (the profile names the set's colour):\n",
           "| side | paint | photos | found | phantoms of the side |", "|---|---|---|---|---|"]
    for (side, paint), (n, total, found, phantoms) in sorted(rows.items(), key=lambda kv: (kv[0][0], -kv[1][2] / max(kv[1][1], 1))):
        out.append(f"| {side} | {paint} | {n} | {pct(found, total)} | {phantoms} |")
    return "\n".join(out) + "\n"


def band_table(scores) -> str:
    """Colour rims by how finely the photo shows the table at each figure (tests.vision.hard_scoring
    ppi_band, against the house default `colour_least_px_per_in` that vision.quality tells a player
    of): found, phantoms at such places, and the found ones' p95 error."""
    bands = [b for b in PPI_BANDS if any(sc.band_total[b] for sc in scores)]
    out = ["Colour rims by the photo's pixels per inch at the figure (the shorter of an inch's steps):\n",
           "| frame px/in | found | phantoms | p95 in |", "|---|---|---|---|"]
    for band in bands:
        errors = [e for sc in scores for e in sc.band_errors_in.get(band, [])]
        p95 = f"{np.percentile(errors, 95):.3f}" if errors else "-"
        out.append(f"| {band} | {pct(sum(sc.band_found[band] for sc in scores), sum(sc.band_total[band] for sc in scores))}"
                   f" | {sum(sc.band_phantoms[band] for sc in scores)} | {p95} |")
    return "\n".join(out) + "\n"


def absent_kinds(seed: int, index: int) -> tuple[str, ...]:
    """The two felt kinds left off photo `index`'s table under --absent-kinds (own random numbers)."""
    pick = np.random.default_rng([seed, index, 10]).choice(len(FELT), 2, replace=False)
    return tuple(k for i, k in enumerate(FELT) if i in pick)


def felt_table(scores, felts) -> str:
    """Terrain by the felt each piece was cut from (`felts`: each photo's Conditions.felts): how many
    pieces were scored, their mean IoU and how many fell under the goal (hard_photo's felt="shop")."""
    rows = defaultdict(list)                        # (kind, felt) -> each piece's IoU
    for sc, photo_felts in zip(scores, felts):
        for kind, name in photo_felts:
            rows[kind, name] += sc.terrain_iou.get(kind, [])
    out = ["Terrain by the felt it is cut from (the profile names the set's colour):\n",
           f"| kind | felt | pieces | mean IoU | under {GOALS['terrain_iou']} |", "|---|---|---|---|---|"]
    for (kind, name), ious in sorted(rows.items()):
        out.append(f"| {kind} | {name} | {len(ious)} | {np.mean(ious):.2f} | "
                   f"{sum(v < GOALS['terrain_iou'] for v in ious)} |" if ious else f"| {kind} | {name} | 0 | - | - |")
    return "\n".join(out) + "\n"


def hard_report(count: int, seed: int, resolutions: tuple[str, ...], save: Path | None = None,
                absent: bool = False, full_colour_jpeg: bool = False, base_in: float = 1.0,
                profile_base_in: float | None = None, paint: str = "set", mat: str = "set",
                shadows: bool = False, felt_at_edge: bool = False, felt: str = "set", turned: bool = False,
                thin_rims: bool = False, pale_tops: bool = False, phone: str = "") -> None:
    scores, lines, hidden, paints, felts = [], [], defaultdict(int), [], []
    sized = Counter()           # (the size the colour bases were looked for at, where it came from) per photo
    render_s, analyse_s = [], []
    extra_by_kind, absent_count = defaultdict(int), defaultdict(int)
    for k in range(count):
        t0 = time.perf_counter()
        gone = absent_kinds(seed, k) if absent else ()
        photo = hard_photo(seed, k, resolutions=resolutions, absent_kinds=gone, full_colour_jpeg=full_colour_jpeg,
                           base_in=base_in, paint=paint, mat=mat, shadows=shadows, felt_at_edge=felt_at_edge,
                           felt=felt, turned=turned, thin_rims=thin_rims, pale_tops=pale_tops, phone=phone)
        paints.append(photo.conditions.paints)
        felts.append(photo.conditions.felts)
        if profile_base_in is not None:
            photo = dataclasses.replace(photo, profile=dataclasses.replace(photo.profile, sides=tuple(
                dataclasses.replace(side, base_in=profile_base_in) for side in photo.profile.sides)))
        if save is not None:
            write_hard_photo(photo, save, f"hard-{seed}-{k:03d}")
        t1 = time.perf_counter()
        try:
            scene = FramePipeline(photo.profile).process(photo.image).scene
            for v in scene.extra.get("colour_bases", {}).values():
                sized[v["base"], v["from"]] += 1
        except Exception as exc:         # a photo the pipeline refuses is all misses, named
            scene = dataclasses.replace(photo.truth, figures=(), terrain=(), grid=None)
            lines.append(f"- photo {k} [{describe(photo.conditions)}]: analyze failed: {exc}")
        t2 = time.perf_counter()
        s = score_photo(photo, scene)
        scores.append(s)
        for kind in gone:
            absent_count[kind] += 1
        for kind in s.terrain_extra:      # (each piece of a kind off the table is one of these)
            extra_by_kind[kind] += kind in gone
        if photo.hand is not None:
            n, ok, bad = hidden_reported(scene, photo.truth, markers_only=True)
            hidden["still_total"] += n
            hidden["still_ok"] += ok
            tracker = FramePipeline(photo.profile, track=True)
            nothing = dataclasses.replace(photo.truth, figures=())
            try:
                tracked_before = tracker.process(photo.before()).scene
                tracked = tracker.process(photo.image).scene
            except ValueError:           # refused (too few anchors): nothing reported hidden
                tracked_before = tracked = nothing
            n, ok, bad2 = hidden_reported(tracked, photo.truth, before=tracked_before)
            hidden["tracked_total"] += n
            hidden["tracked_ok"] += ok
            hidden["tracked_unseen_before"] += sum(UNSEEN_BEFORE in b for b in bad2)
            try:
                still_before = FramePipeline(photo.profile).process(photo.before()).scene
                carried = carry_hidden(still_before, scene)
            except ValueError:
                still_before = carried = nothing
            n, ok, bad3 = hidden_reported(carried, photo.truth, before=still_before)
            hidden["carried_total"] += n
            hidden["carried_ok"] += ok
            hidden["carried_unseen_before"] += sum(UNSEEN_BEFORE in b for b in bad3)
            s.misses += ([f"{b} (with the previous picture, tracked)" for b in bad2]
                         + [f"{b} (with the previous photo, carried over)" for b in bad3]
                         + [f"{b} (still photo)" for b in bad])
        render_s.append(t1 - t0)
        analyse_s.append(t2 - t1)
        if s.misses:
            off = f", off the table: {', '.join(gone)}" if gone else ""
            lines.append(f"- photo {k} [{describe(photo.conditions)}{off}]: " + "; ".join(s.misses))
        print(f"photo {k + 1}/{count} {photo.conditions.resolution}: render {t1 - t0:.1f} s, analyse {t2 - t1:.2f} s, "
              f"misses {len(s.misses)}", file=sys.stderr)

    print(f"## Hard set: {count} photos, seed {seed}\n")
    if full_colour_jpeg:
        print("**Diagnosis, not the issue's set**: each photo's JPEG keeps the colour at full resolution (4:4:4), "
              "not at half (4:2:0) as cameras do.\n")
    if base_in != 1.0 or profile_base_in is not None:
        told = "the profile gives none: vision reads it from the photo" if profile_base_in is None else \
            f"the profile gives {profile_base_in:g}\""
        print(f"**Not the issue's set**: the colour bases are {base_in:g}\" across ({told}).\n")
    if mat == "kitchen":
        print("**Not the issue's set**: each table is one of a few kitchen tables (vision.synthetic.hard.KITCHEN_MATS), "
              "not the set's mats.\n")
    if paint == "hobby":
        print("**Not the issue's set**: each side's rims are painted in a shop paint (vision.synthetic.layout."
              "HOBBY_PAINTS), the profile naming the set's colour.\n")
    if felt == "shop":
        print("**Not the issue's set**: each kind's felt is one of a few craft-shop felts (vision.synthetic.layout."
              "SHOP_FELTS), the profile naming the set's colour.\n")
    if shadows:
        print("**Not the issue's set**: each colour figure casts a shadow onto the table and its base's top "
              "(vision.synthetic.hard.FIGURE_SHADOW).\n")
    if thin_rims:
        print("**Not the issue's set**: each base painted in a band at its edge has a band 0.06-0.10 of its "
              "diameter wide (vision.synthetic.hard.THIN_BAND), not 0.12-0.2.\n")
    if pale_tops:
        print("**Not the issue's set**: the top inside each band at a base's edge is sand, cream or snow "
              "(vision.synthetic.hard.PALE_TOPS).\n")
    if phone:
        print("**Not the issue's set**: each photo goes through a phone camera's processing before its JPEG "
              "(vision.synthetic.lighting.PhoneProcessing: a Bayer mosaic interpolated, "
              + ("most of the lamp's cast taken out by the camera's own white balance, " if phone == "auto" else
                 "the camera's white balance locked at daylight, ")
              + "the colour smoothed and made 1.1-1.3 times as vivid, the edges sharpened).\n")
    if turned:
        print("**Not the issue's set**: each photo whose table's long side runs along the picture's short side "
              "is taken with the camera turned a quarter turn, the table framed again (rows keep each photo's "
              "own long side).\n")
    if felt_at_edge:
        print("**Not the issue's set**: each felt piece lies across one of the table's edges (a river or a wood "
              "running off the table); its truth is the part on the table.\n")
    print("Colour bases looked for at (side-photos): "
          + ", ".join(f'{size:g}" ({source}) {n}' for (size, source), n in sorted(sized.items())) + "\n")
    print(f"Goals: markers >= {GOALS['marker_recall']:.1%}, 0 false, p95 <= {GOALS['marker_p95_in']} in; "
          f"grids all; colour >= {GOALS['colour_recall']:.0%}, 0 phantoms, p95 <= {GOALS['colour_p95_in']} in; "
          f"terrain IoU per kind >= {GOALS['terrain_iou']}.\n")
    print(HEADER)
    print("|" + "---|" * (HEADER.count("|") - 1))
    everything = aggregate(scores)
    print(row("all", everything))
    for factor in REPORTED + ALSO_REPORTED + (("table",) if mat == "kitchen" else ()):
        for value in sorted({s.groups[factor] for s in scores}):
            print(row(f"{factor}: {value}", aggregate([s for s in scores if s.groups[factor] == value])))
    print()
    pf, pt = everything["p_found"], everything["p_total"]
    print(f"Colour rims by the base's top: whole top painted {pct(pf, pt)}, a band at the edge "
          f"{pct(everything['c_found'] - pf, everything['c_total'] - pt)}.\n")
    wf, wt = everything["w_found"], everything["w_total"]
    print(f"Colour rims standing in water felt (blue figures in the water): {pct(wf, wt)}, p95 "
          f"{everything['w_p95']:.3f} in; the rest {pct(everything['c_found'] - wf, everything['c_total'] - wt)}, "
          f"p95 {everything['dry_p95']:.3f} in.\n")
    # (on kitchen tables, each table's row of the main table, and here its sides')
    print(side_table(scores, ("cast", "resolution") + (("table",) if mat == "kitchen" else ())))
    print(band_table(scores))
    if paint == "hobby":
        print(paint_table(scores, paints))
    if felt == "shop":
        print(felt_table(scores, felts))
    kinds = Counter(k for sc in scores for k in sc.colour_phantom_kinds)
    if kinds:
        print("Colour phantoms by what they are: " + "; ".join(f"{kind} {n}" for kind, n in kinds.most_common()) + ".\n")
    if absent:
        print("Kinds listed in every profile but off the table (--absent-kinds): " + ", ".join(
            f"{kind} off {absent_count[kind]} tables, {extra_by_kind[kind]} pieces found of it" for kind in FELT) + ".\n")
    drawn = [sc for sc in scores if sc.hand_drawn]
    print(f"Hands: found on {pct(sum(sc.hand_found for sc in drawn), len(drawn))} of the photos with a hand; "
          f"a hand where there is none: {sum(sc.hands_where_none for sc in scores)} "
          f"(on {sum(sc.hands_where_none > 0 for sc in scores)} of {len(scores)} photos).")
    print(f"Figures under a hand: {hidden['tracked_total']}; reported hidden at their last place after the previous "
          f"picture: tracked {pct(hidden['tracked_ok'], hidden['tracked_total'])}, a photo after a photo (the tablet) "
          f"{pct(hidden['carried_ok'], hidden['carried_total'])}; of those the previous picture found, tracked "
          f"{pct(hidden['tracked_ok'], hidden['tracked_total'] - hidden['tracked_unseen_before'])}, the tablet "
          f"{pct(hidden['carried_ok'], hidden['carried_total'] - hidden['carried_unseen_before'])}; roster markers "
          f"under a hand reported hidden in the still photo: {pct(hidden['still_ok'], hidden['still_total'])}.")
    print(f"Time a photo: render median {np.median(render_s):.1f} s, analyse median {np.median(analyse_s):.2f} s "
          f"(max {max(analyse_s):.2f} s).\n")
    print("### Misses\n")
    print("\n".join(lines) if lines else "none")


def easy_report(tables: int, seed: int) -> None:
    """Issue 4's figures on the older, kinder renderer (flat-coloured bases and felt, no cast)."""
    from calibration.intrinsics import CameraModel
    from tests.vision.scoring import match_colour, terrain_ious
    from vision.grid import GRID_PPI, find_grid, phase_error_in
    from vision.pipeline import to_gray
    from vision.synthetic import profile_for, random_photo, random_table, render_photo
    from vision.topview import warp_top_view

    rng = np.random.default_rng(seed)
    grids = ("square", "hex", "hex-pointy", None)
    pitch_err, phase_err, grid_missed, false_grids, plain = [], [], 0, 0, 0
    colour_err, colour_missed, colour_false, colour_total, ious = [], 0, [], 0, []
    for k in range(tables):
        table = random_table(rng, width_in=float(rng.uniform(36, 60)), depth_in=float(rng.uniform(30, 44)),
                             n_markers=8, n_colour=12, n_terrain=4, grid=grids[k % len(grids)],
                             grid_pitch_in=float(rng.choice([0.75, 1.0, 1.5])))
        photo = render_photo(table, random_photo(rng), rng)
        result = FramePipeline(profile_for(table)).process(photo.image)
        truth = photo.truth
        if truth.grid is None:
            plain += 1
            view = warp_top_view(to_gray(photo.image), result.registration.H_in_to_px, GRID_PPI,
                                 (0, 0, table.width_in, table.depth_in))
            false_grids += sum(find_grid(view.image, GRID_PPI, kind=kind, pitch_in=pitch) is not None
                               for kind in ("square", "hex") for pitch in (0.75, 1.0, 1.5))
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
    e = np.array(colour_err)
    print(f"## Easy set: {tables} tables at 1080p (flat colours, no cast, no clutter)\n")
    print(f"- grid: missed {grid_missed} of {len(pitch_err) + grid_missed}; pitch error max "
          f"{100 * max(pitch_err, default=0):.3f}%; phase error max {max(phase_err, default=0):.4f} in; "
          f"false grids {false_grids} in {plain * 7} searches on plain tables")
    print(f"- colour bases: {pct(colour_total - colour_missed, colour_total)}, false {len(colour_false)}; "
          f"p95 {np.percentile(e, 95):.4f} in, max {e.max():.4f}")
    print(f"- terrain: {len(ious)} pieces, mean IoU {np.mean(ious):.4f}, min {min(ious):.3f}")
    errors = {"none": [], "intrinsics": [], "estimated focal": []}
    for _ in range(4):
        table = random_table(rng, n_markers=20, marker_height_in=0.125)
        photo = render_photo(table, random_photo(rng, tilt_deg=35.0), rng)
        profile = profile_for(table)
        truth_xy = {f.id: f.xy for f in photo.truth.figures}
        cam = CameraModel(camera_matrix=photo.camera.camera_matrix, dist=np.zeros(5), image_size=photo.camera.image_size)
        for name, pipeline in (("none", FramePipeline(dataclasses.replace(profile, figure_marker_height_in=0.0))),
                               ("intrinsics", FramePipeline(profile, cam)), ("estimated focal", FramePipeline(profile))):
            scene = pipeline.process(photo.image).scene
            errors[name] += [math.dist(f.xy, truth_xy[f.id]) for f in scene.figures if f.id in truth_xy]
    print("- height correction, markers 1/8 in up, tilt 35 deg: " + "; ".join(
        f"{name} mean {np.mean(e):.4f} in, p95 {np.percentile(e, 95):.4f}, max {np.max(e):.4f}"
        for name, e in errors.items()) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--photos", type=int, default=60, help="hard photos (default 60)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--res", default="1080p,1080p,2160p",
                        help="resolutions, cycled like a condition (default: a third at 2160p)")
    parser.add_argument("--easy", type=int, default=0, metavar="N", help="also the older easy set, N tables")
    parser.add_argument("--absent-kinds", action="store_true",
                        help="leave two felt kinds off each table while the profile lists all four")
    parser.add_argument("--full-colour-jpeg", action="store_true",
                        help="diagnosis: the photos' JPEG keeps the colour at full resolution (4:4:4), not half")
    parser.add_argument("--save", type=Path, metavar="DIR", help="write each hard photo, its profile and truth there")
    parser.add_argument("--base-in", type=float, default=1.0,
                        help="the colour bases' diameter in the photos (the set's: 1; 1.26 is 32 mm)")
    parser.add_argument("--profile-base", type=float, default=None, metavar="D",
                        help="the profiles give the bases' size as D (default: they give none)")
    parser.add_argument("--paint", choices=("set", "hobby"), default="set",
                        help="the rims' paint: the set's, near the profile's colour, or shop paints (hobby)")
    parser.add_argument("--felt", choices=("set", "shop"), default="set",
                        help="the felt: the set's, near the profile's colour, or craft-shop felts (shop)")
    parser.add_argument("--mat", choices=("set", "kitchen"), default="set",
                        help="the tables: the set's mats, or kitchen tables (cherry, walnut, white, grey, baize, blue cloth)")
    parser.add_argument("--shadows", action="store_true",
                        help="each colour figure casts a shadow onto the table and its own base's top")
    parser.add_argument("--felt-at-edge", action="store_true",
                        help="each felt piece lies across one of the table's edges, running off the table")
    parser.add_argument("--turned", action="store_true",
                        help="photos of a table whose long side runs along the picture's short side taken with the "
                             "camera turned a quarter turn")
    parser.add_argument("--thin-rims", action="store_true",
                        help="each base painted in a band at its edge has a band 0.06-0.10 of its diameter wide")
    parser.add_argument("--pale-tops", action="store_true",
                        help="the top inside each band at a base's edge is sand, cream or snow")
    parser.add_argument("--phone", choices=("auto", "locked"), default="",
                        help="each photo goes through a phone camera's processing (demosaic, its own white balance "
                             "(auto) or none (locked), colour smoothed and made more vivid, sharpened) before its JPEG")
    args = parser.parse_args()
    resolutions = tuple(r.strip() for r in args.res.split(",") if r.strip())
    if any(r not in ("1080p", "2160p") for r in resolutions):
        parser.error(f"--res: each of 1080p or 2160p, got {args.res!r}")
    lo, hi = SIDE_BASE_RANGE_IN
    for name, value in (("--base-in", args.base_in), ("--profile-base", args.profile_base)):
        if value is not None and not lo <= value <= hi:
            parser.error(f"{name}: a base's diameter in inches, {lo:g} to {hi:g}, got {value:g}")
    if args.photos > 0:
        hard_report(args.photos, args.seed, resolutions, args.save, args.absent_kinds, args.full_colour_jpeg,
                    args.base_in, args.profile_base, args.paint, args.mat, args.shadows, args.felt_at_edge,
                    args.felt, args.turned, args.thin_rims, args.pale_tops, args.phone)
    if args.easy > 0:
        easy_report(args.easy, args.seed + 1)


if __name__ == "__main__":
    main()
