"""A photo that cannot be measured (or only just) becomes a hint: what to fix, in plain words, plus the
facts a page needs to draw it (the table, its corner markers, which were seen, which are hidden or off
the photo). Never an HTTP status, never a marker dictionary's name.
"""
from __future__ import annotations

from typing import Any

from calibration.profile import TableProfile
from vision.photo_check import PhotoQuality


def corner_words(profile: TableProfile, x_in: float, y_in: float) -> str:
    """Where on the table (seen from above, y down) a point is: "top-left", "bottom edge", "middle"."""
    col = "left" if x_in < profile.width_in / 3 else "right" if x_in > 2 * profile.width_in / 3 else ""
    row = "top" if y_in < profile.depth_in / 3 else "bottom" if y_in > 2 * profile.depth_in / 3 else ""
    if col and row:
        return f"{row}-{col}"
    if col or row:
        return f"{col or row} edge"
    return "middle"


def _marker_words(profile: TableProfile, anchor_id: int) -> str:
    a = profile.anchor(anchor_id)
    place = corner_words(profile, a.x_in, a.y_in)
    return f"{place} corner marker" if "-" in place else f"marker on the {place}" if place != "middle" else \
        "marker in the middle"


def photo_hint(profile: TableProfile, quality: PhotoQuality, places: dict[int, str], *,
               failed: bool, kept: bool = True) -> dict[str, Any] | None:
    """The hint for one photo, or None when there is nothing to fix.

    places: anchor id -> "seen" | "hidden" | "outside" | "unknown" (vision.photo_check.anchor_places).
    failed: the photo could not be measured at all (the last good picture stays, when `kept`).
    """
    missing = [i for i, p in places.items() if p != "seen"]
    if not failed and not missing:
        return None
    reasons: list[dict[str, Any]] = []
    if quality.too_dark:
        reasons.append({"kind": "dark", "words": "The photo is too dark: turn on a light or open the curtains."})
    if quality.too_blurred:
        reasons.append({"kind": "blurred",
                        "words": "The photo is too blurry: hold the tablet still and tap the screen to focus."})
    outside = [i for i in missing if places[i] == "outside"]
    hidden = [i for i in missing if places[i] == "hidden"]
    if outside:
        spots = [corner_words(profile, profile.anchor(i).x_in, profile.anchor(i).y_in) for i in outside]
        spots = [p.replace(" edge", "") for p in spots]
        where = (f"the {spots[0]} corner is" if len(spots) == 1 else
                 "the " + ", ".join(spots[:-1]) + f" and {spots[-1]} corners are")
        reasons.append({"kind": "cut_off", "anchors": outside,
                        "words": f"The table is cut off: {where} outside the photo. "
                                 "Step back or point the camera at the middle of the table."})
    for i in (i for i in missing if places[i] == "moved"):
        reasons.append({"kind": "moved", "anchors": [i],
                        "words": f"The {_marker_words(profile, i)} has moved: put it back in its place."})
    for i in hidden:
        reasons.append({"kind": "covered", "anchors": [i],
                        "words": f"I can't see the {_marker_words(profile, i)}: is something on it?"})
    unknown = [i for i in missing if places[i] == "unknown"]
    if unknown and not reasons:
        if len(unknown) == len(places):
            words = ("I can't see any of the corner markers. Is the whole table in the photo, "
                     "with the printed corner squares on it?")
        else:
            words = "I can't see the " + " or the ".join(_marker_words(profile, i) for i in unknown) + \
                    ": is something on it?"
        reasons.append({"kind": "not_seen", "anchors": unknown, "words": words})
    elif unknown:
        reasons.append({"kind": "not_seen", "anchors": unknown,
                        "words": "So I can't see the corner markers."})
    # The heading is the first reason's first sentence; what to do about it opens the list.
    first = reasons[0]["words"] if reasons else "Something is wrong with the photo: take it again."
    title, _, rest = first.partition(". ")
    title = title if rest == "" else title + "."
    if failed and kept:
        after = "Your game and the last good picture are kept. Fix it and take the photo again."
    elif failed:
        after = "Fix it and take the photo again."
    else:
        after = "Measuring still works, but it is better with every corner marker in view."
    return {
        "failed": failed,
        "title": title,
        "lines": ([rest] if rest else []) + [r["words"] for r in reasons[1:]] + [after],
        "reasons": reasons,
        "table": {"width": profile.width_in, "depth": profile.depth_in},
        "anchors": [{"id": a.id, "x": a.x_in, "y": a.y_in, "size": a.size_in, "state": places.get(a.id, "unknown"),
                     "place": corner_words(profile, a.x_in, a.y_in)} for a in profile.anchors],
        "quality": {"brightness": round(quality.median, 1), "edge_px": round(quality.edge_px, 2),
                    "too_dark": quality.too_dark, "too_blurred": quality.too_blurred},
    }
