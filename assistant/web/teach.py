"""Teach the camera a side's rim colour from the tablet: a player taps one figure of that side on
the last measured picture. POST /api/setup/teach-colour {"side": "red", "x": inches, "y": inches}
(a change: the PIN and the page's CSRF token, like every other write). The learned colour is
saved beside the table profile (the profile itself is not rewritten) and the picture measured
again with it, when it is used: where the colour looked for now already finds that figure about as
surely, it is kept and the reply says so (vision.teach.adopts)."""
from __future__ import annotations

import math

from flask import Blueprint, current_app, jsonify, request

from calibration.profile import colour_hex, save_learned_colours, with_learned_colours

from assistant.web import context

bp = Blueprint("teach", __name__, url_prefix="/api/setup")


class TeachRequestError(ValueError):
    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.status = status


def _number(body: dict, key: str) -> float:
    value = body.get(key)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise TeachRequestError(f"{key}: expected a number of inches, got {value!r}")
    return float(value)


@bp.post("/teach-colour")
def teach_colour():
    from vision.base_size import base_of
    from vision.height import camera_pose
    from vision.settings import VISION_DEFAULTS
    from vision.teach import TeachError, kept_words, learn_rim_colour

    body = request.get_json(silent=True)
    if not isinstance(body, dict):
        raise TeachRequestError('send JSON like {"side": "red", "x": 12.5, "y": 8.0} (table inches)')
    side = body.get("side")
    if not isinstance(side, str) or not side:
        raise TeachRequestError(f"side: expected a side's name, got {side!r}")
    x, y = _number(body, "x"), _number(body, "y")
    table = context.table()
    frame, registration, _ = table.registered_frame()
    if frame is None:
        raise TeachRequestError("no measured picture yet: take a photo of the table first", 409)
    profile = table.profile
    k = table.pipeline.camera.matrix_for(*registration.image_size) if table.pipeline.camera is not None else None
    _, last, _, _ = table.snapshot()       # the size its bases were looked for at in that picture
    try:
        learned = learn_rim_colour(frame, registration, profile, side, (x, y),
                                   pose=camera_pose(registration.H_px_to_in, registration.image_size, k),
                                   base_in=base_of(last.extra.get("colour_bases") if last is not None else None,
                                                   side, VISION_DEFAULTS["colour_base_in"]),
                                   height_in=VISION_DEFAULTS["colour_base_height_in"])
    except TeachError as exc:
        known = side in [s.name for s in profile.sides] and 0 <= x <= profile.width_in and 0 <= y <= profile.depth_in
        raise TeachRequestError(str(exc), 422 if known else 400) from None
    if learned.adopted:
        save_learned_colours(current_app.extensions["tablesight"]["learned_path"], {side: learned.rgb}, profile.name)
        table.set_profile(with_learned_colours(profile, {side: learned.rgb}))
    _, scene, _, _ = table.snapshot()
    found = 0 if scene is None else sum(1 for f in scene.figures if f.side == side and f.detected_by == "colour")
    spec = next(s for s in profile.sides if s.name == side)
    # (a colour that would not be used is neither saved nor looked for: the reply says why)
    return jsonify({"side": side, "colour": colour_hex(learned.rgb), "profile_colour": colour_hex(spec.rgb),
                    "from": list(learned.xy_in), "figures_of_side": found, "used": learned.adopted,
                    "words": None if learned.adopted else kept_words(learned)})


@bp.get("/colours")
def colours():
    """Each side's colour: the profile's, and the one learned from a photo (or null)."""
    profile = context.table().profile
    return jsonify({"sides": [{"name": s.name, "colour": colour_hex(s.rgb),
                               "learned": None if s.learned_rgb is None else colour_hex(s.learned_rgb)}
                              for s in profile.sides]})
