"""Write a hard photo to files a player would have: the picture, the table profile (TOML), and
beside them the truth (Scene JSON) and the conditions, so `tablesight analyze PHOTO --table
TABLE.toml` can be run on it by hand and scored."""
from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import cv2

from calibration.profile import TableProfile
from measure.scene import scene_to_json


def _hex(rgb) -> str:
    return "#{:02x}{:02x}{:02x}".format(*rgb)


def profile_toml(profile: TableProfile) -> str:
    """The profile as the TOML `load_profile` reads (name, size, markers, anchors, grid, sides,
    terrain colours, roster)."""
    lines = [f"name = {json.dumps(profile.name)}", f"width = {profile.width_in!r}", f"depth = {profile.depth_in!r}",
             "", "[markers]", f"dictionary = {json.dumps(profile.dictionary)}",
             f"figure_marker_size = {profile.figure_marker_size_in!r}",
             f"figure_marker_height = {profile.figure_marker_height_in!r}", ""]
    if profile.grid is not None:
        lines += ["[grid]", f"kind = {json.dumps(profile.grid.kind)}", f"pitch = {profile.grid.pitch_in!r}"]
        if profile.grid.orientation:
            lines.append(f"orientation = {json.dumps(profile.grid.orientation)}")
        lines.append("")
    for a in profile.anchors:
        lines += ["[[anchors]]", f"id = {a.id}", f"x = {a.x_in!r}", f"y = {a.y_in!r}", f"size = {a.size_in!r}", ""]
    for s in profile.sides:
        lines += ["[[sides]]", f"name = {json.dumps(s.name)}", f'colour = "{_hex(s.rgb)}"']
        lines += [f"base = {s.base_in!r}", ""] if s.base_in is not None else [""]
    for t in profile.terrain:
        lines += ["[[terrain]]", f"kind = {json.dumps(t.name)}", f'colour = "{_hex(t.rgb)}"', ""]
    for r in profile.roster:
        lines += ["[[roster]]", f"figure = {json.dumps(r.figure)}"]
        lines += [f"{key} = {json.dumps(value)}" for key, value in (("name", r.name), ("side", r.side), ("type", r.type))
                  if value is not None]
        lines.append("")
    return "\n".join(lines)


def write_hard_photo(photo, out_dir: Path, stem: str) -> Path:
    """STEM.png (the decoded pixels, lossless), STEM.toml, STEM.truth.json, STEM.conditions.json;
    returns the picture's path."""
    out_dir.mkdir(parents=True, exist_ok=True)
    image_path = out_dir / f"{stem}.png"
    cv2.imwrite(str(image_path), photo.image)
    (out_dir / f"{stem}.toml").write_text(profile_toml(photo.profile), encoding="utf-8")
    (out_dir / f"{stem}.truth.json").write_text(json.dumps(scene_to_json(photo.truth), indent=1) + "\n",
                                                encoding="utf-8")
    extra = {"conditions": dataclasses.asdict(photo.conditions), "rim_visible": dict(photo.rim_visible),
             "hand_cover": dict(photo.hand_cover), "felt_texture": dict(photo.felt_texture),
             "cloaks": dict(photo.cloaks), "rim_rgb": {k: list(v) for k, v in photo.rim_rgb.items()},
             "painted_top": dict(photo.painted_top),
             "clutter": [c.kind for c in photo.clutter],
             "dice": [{"x": d.x_in, "y": d.y_in, "rgb": list(d.rgb)} for d in photo.dice]}
    (out_dir / f"{stem}.conditions.json").write_text(json.dumps(extra, indent=1) + "\n", encoding="utf-8")
    return image_path
