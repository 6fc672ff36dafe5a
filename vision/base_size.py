"""How big a side's colour bases are, read from the rims found in a photo.

Families base their figures on 20-60 mm rounds; the ring search looks for a ring of one size, and a
rim of another size is found less often and off centre (60 hard photos of seed 7 looked at for 1"
bases: of 32 mm bases 589 of 636 found, 26 phantoms, p95 0.19 in, against 598, 13 and 0.08 in when
told the size; of 40 mm bases 46% found, 67 phantoms, against 95% and 3).
A side whose profile gives no `base` is looked for first at the house default (`colour_base_in`);
the rims that search finds still show their own size, as the radius their visible arc alone fits
(vision.rims.RimHit.free_radius), so when enough of them show another size the search is made again
at the common round base nearest it, and on from there towards the size its rims show, until they
show their own (vision.pipeline keeps the size whose rims show it best: best_size). A search at a
size pulls its rims' free radii towards it, so one read is not enough to jump to the right size.
"""
from __future__ import annotations

import numpy as np

from calibration.profile import SIDE_BASE_RANGE_IN

# The common round bases (mm), the sizes looked for when the rims show another than the default.
# 28 mm is left out: 10% over 25 mm, no more than a 1" base's rims may show by chance (of 240 hard
# photos of 1" bases, 2 read as 28 mm, each a phantom more); such a base is searched for as 25 mm,
# or given in the profile.
COMMON_BASES_MM = (20.0, 25.0, 32.0, 40.0, 50.0, 60.0)
# A rim's free radius reads this much over its true size at the size searched for (the arc's
# outer edge and the side wall's blur: on hard photos of 1" bases searched at 1", the median of
# a photo's rims 1.03 over the photos), so the size is the median over it.
FREE_RADIUS_BIAS = 1.03
MIN_RIMS = 3          # rims of the unsized sides needed to read a size at all (the water search's, whose
                      # circle is fitted at the size searched, are none: vision.rims.RimHit.by_water)
# The default's rims showing a size within these times it: it is that size. (Hard photos of 1"
# bases: 0.91-1.08 on seeds 0 and 7, and of 480 photos of eight seeds all but two within these
# (1.11 and 1.13, read as 32 mm); of 32 mm bases, 1.09-1.24 on seeds 0 and 7.)
SAME_SIZE = (0.88, 1.09)
SETTLED = 0.05        # a common size's rims showing within this share of it: no other is tried
MAX_SEARCHES = 3      # sizes searched at besides the default, at most
# A search at one size pulls its rims' free radii towards it (1.26" bases searched at 1" show
# 1.06-1.23): the next size is looked for this power of the ratio away.
PULL = 1.5
KEEP_SHARE = 0.75     # of the sizes whose search found at least this share of the most rims, the one
                      # whose rims show its own size best is kept


def best_size(tried: dict[float, tuple[int, float | None]]) -> float:
    """Of the sizes searched at ({size: (rims of the unsized sides found, their size_ratio)}), the
    one whose rims show its own size best, among those that found at least KEEP_SHARE of the most.
    (Their confidence does not tell the right size: on 60 hard photos of seed 7 with 32 mm bases,
    the rims' median confidence was lower at 32 mm than at 1" on 6.)"""
    most = max(n for n, _r in tried.values())
    fair = {s: abs(np.log(r)) for s, (n, r) in tried.items() if n >= KEEP_SHARE * most and r is not None}
    return min(fair, key=fair.get) if fair else max(tried, key=lambda s: tried[s][0])


def size_ratio(free_radii: np.ndarray) -> float | None:
    """How much bigger than the size searched for the rims found show their bases (1: that size),
    by their free radii (in the searched base's radii); None when there are too few to tell."""
    r = np.asarray(free_radii, float)
    r = r[np.isfinite(r) & (r > 0)]
    return float(np.median(r)) / FREE_RADIUS_BIAS if len(r) >= MIN_RIMS else None


def common_sizes_in(default_in: float) -> np.ndarray:
    """The common round bases a profile may give (SIDE_BASE_RANGE_IN), inches (3 places), smallest
    first; the one within 3% of the house default `default_in` is it (25 mm is a 1" base)."""
    sizes = np.round(np.asarray(COMMON_BASES_MM) / 25.4, 3)
    sizes[np.abs(sizes / default_in - 1.0) <= 0.03] = default_in
    return sizes[(sizes >= SIDE_BASE_RANGE_IN[0]) & (sizes <= SIDE_BASE_RANGE_IN[1])]


def next_size(searched_in: float, ratio: float, default_in: float) -> float | None:
    """The common base to search at next, after a search at `searched_in` whose rims show `ratio`
    times its size: the one nearest that size, or, where that is the size searched, its neighbour
    on that side; None where none is left on that side."""
    sizes = common_sizes_in(default_in)
    want = searched_in * ratio ** PULL
    best = float(sizes[int(np.argmin(np.abs(np.log(sizes / want))))])
    if abs(best / searched_in - 1.0) > 0.02:
        return best
    side = sizes[sizes > searched_in * 1.02] if ratio > 1 else sizes[sizes < searched_in / 1.02][::-1]
    return float(side[0]) if len(side) else None


def colour_bases_words(info: dict | None) -> str | None:
    """Plain words for a Scene's `colour_bases` ({side: {"base": in, "from": ...}}) where a size was
    read from the photo (None: nothing to say; the profile's and the house default go unsaid)."""
    read = {side: v["base"] for side, v in (info or {}).items() if v.get("from") == "photo"}
    if not read:
        return None
    sizes = sorted(set(read.values()))
    shown = " and ".join(f"{size * 25.4:.0f} mm ({size:g} in)" for size in sizes)
    return (f"The colour bases ({', '.join(read)}) look {shown} across, so they were looked for at that size. "
            "If they are another size, give it as base = ... (inches) under the side in the table profile.")


def base_of(colour_bases: dict | None, side: str, default_in: float) -> float:
    """A side's colour bases' diameter as a Scene's `colour_bases` gives it, else `default_in`."""
    return float(((colour_bases or {}).get(side) or {}).get("base", default_in))
