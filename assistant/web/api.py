"""The JSON API behind the pages (documented in docs/api.md). Viewing is open; changes need the PIN."""
from __future__ import annotations

import hashlib
from typing import Any

from flask import Blueprint, Response, current_app, jsonify, request

from measure.scene import scene_to_json
from vision.base_size import colour_bases_words
from vision.quality import (colour_like_felt_words, colour_like_table_words, colour_resolution_words,
                            light_tint_words)

from assistant.rules import system_names, get_system
from assistant.web import context, game
from assistant.web.inputs import InputError, allows_upload, json_object, one_line, quote
from assistant.web.images import UploadError, decode_upload, display_jpeg
from assistant.web.measuring import los_json, measure_settings, targets_json
from assistant.web.terrain import TerrainError, check_piece, piece_json, source_of, terrain_kinds
from assistant.web.words import calibration_words, house_label, thing_names

bp = Blueprint("api", __name__, url_prefix="/api")


class NoScene(ValueError):
    status = 409

    def __init__(self) -> None:
        super().__init__("no table picture yet: take a photo of the table or start the camera")


def _scene():
    scene = context.scene()
    if scene is None:
        raise NoScene()
    return scene


def _json_body() -> dict[str, Any]:
    return json_object()            # bounded in size and depth before it is parsed


def _answer(query, compute):
    """The JSON answer to `query`, computed once per table state (assistant.web.answers)."""
    return context.answers().json(context.state_key(), query, compute)


@bp.get("/status")
def status():
    return _answer(("status",), _status)


def _status():
    t = context.table()
    version, scene, picture, cal = t.snapshot()
    s = context.settings()
    system = get_system(s.system)
    return {"version": version, "source": t.source, "system": system.name, "system_title": system.title,
            "table": {"name": t.profile.name, "width": t.profile.width_in, "depth": t.profile.depth_in},
            "calibration": cal.to_json(), "calibration_words": calibration_words(cal, t.source, t.profile),
            "hint": t.hint(),
            "live_available": bool(_camera()), "live_running": t.live is not None,
            "figures": _figures_in_game()}


def _figures_in_game() -> int:
    """The figures the pages draw (the fallen of the current game left out): one count everywhere."""
    current = context.scene()
    return 0 if current is None else len(current.figures)


def _camera():
    from flask import current_app
    return current_app.config.get("CAMERA")


@bp.get("/scene")
def scene():
    return _answer(("scene",), _scene_answer)


def _scene_answer():
    t = context.table()
    version, _, picture, _ = t.snapshot()
    current = context.scene()
    if current is None:
        return {"version": version, "source": t.source, "scene": None, "picture": None, "removed": [],
                "hint": t.hint()}
    everything = context.scene(with_removed=True)
    gone = sorted({f.id for f in everything.figures} - {f.id for f in current.figures})
    ghosts = [f for f in scene_to_json(everything)["figures"] if f["id"] in gone]
    return {"version": version, "source": t.source, "scene": scene_to_json(current),
            "removed": gone, "removed_figures": ghosts, "hint": t.hint(),
            "picture": None if picture is None else picture.meta(version)}


@bp.get("/frame.jpg")
def frame():
    _, _, picture, _ = context.table().snapshot()
    if picture is None:
        return jsonify({"error": "no picture yet", "status": 404}), 404
    return Response(picture.jpeg, mimetype="image/jpeg", headers={"Cache-Control": "no-store"})


@bp.get("/overlay.jpg")
def overlay():
    """The picture with the Scene (and a ruler, given ?a=&b=) drawn in by vision.overlay: for a big screen."""
    from vision.overlay import Ruler, draw_scene       # a broken install is a 500 that says so, not a 404
    frame, registration, (x0, y0, x1, y1) = context.table().registered_frame()
    if frame is None:
        return jsonify({"error": "no measured picture yet", "status": 404}), 404
    scene = _scene()
    ruler = None
    if request.args.get("a") or request.args.get("b"):
        facts = los_json(scene, request.args.get("a"), request.args.get("b"), request.args.get("width"),
                         context.system(), context.table().profile)
        import shapely
        ruler = Ruler(shapely.Polygon(facts["corridor"]), facts["clear"], tuple(b["id"] for b in facts["blocked_by"]))
    drawn = draw_scene(frame, scene, registration, ruler=ruler)[y0:y1, x0:x1]
    jpeg, _ = display_jpeg(drawn)
    return Response(jpeg, mimetype="image/jpeg", headers={"Cache-Control": "no-store"})


@bp.get("/targets")
def targets():
    shooter = request.args.get("shooter")
    return _answer(("targets", shooter),
                   lambda: targets_json(_scene(), context.system(), context.table().profile, shooter))


@bp.get("/los")
def los():
    a, b, width = request.args.get("a"), request.args.get("b"), request.args.get("width")
    to, cell = request.args.get("to"), request.args.get("cell")
    return _answer(("los", a, b, width, to, cell),
                   lambda: los_json(_scene(), a, b, width, context.system(), context.table().profile,
                                    to=to, cell=cell))


@bp.get("/systems")
def systems():
    settings = context.settings()
    current = settings.system
    out = []
    for name in system_names():
        try:
            s = get_system(name, overrides=settings.system_overrides(name))
        except (ImportError, ValueError) as exc:    # listed with what is wrong, never dropped silently
            current_app.logger.error("rule system %s cannot be loaded: %s", name, exc)
            out.append({"name": name, "title": name, "current": name == current, "available": False,
                        "error": one_line(f"{name} cannot be loaded: {exc.__class__.__name__}: {exc}"),
                        "house_defaults": [], "types": []})
            continue
        out.append({"available": True, "name": s.name, "title": s.title, "current": s.name == current,
                    "house_defaults": [{**h.to_json(), "label": house_label(h.key)} for h in s.house_defaults()],
                    "types": sorted(s.values.get("figure_types", {}))})
    return jsonify({"systems": out, "current": current})


@bp.post("/setup/system")
def set_system():
    body = _json_body()
    wanted = body.get("name") or request.form.get("name")
    playing = game.game_in_progress(context.games())
    if playing is not None and wanted != playing and body.get("confirm") is not True:
        # Switching ends the game in progress: the players must say so (the page asks first).
        return jsonify({"error": f"a game of {get_system(playing).title} is in progress: switching ends it",
                        "confirm": True, "playing": playing}), 409
    name = context.settings_store().set_system(wanted)
    if playing is not None and name != playing:
        game.end_game(context.games(), f"the rules were switched to {name}")
    context.table().bump()
    return jsonify({"system": name})


@bp.put("/setup/house")
def set_house():
    body = _json_body()
    overrides = context.settings_store().set_house(body.get("key"), body.get("value"), check=_targets_still_work())
    context.table().bump()
    return jsonify({"overrides": overrides})


def _targets_still_work():
    """A check for new house numbers, by the read they feed: if every tablet's targets work now, a
    number that would make them fail is refused before it is written."""
    current = context.scene(with_removed=True)
    if current is None:
        return None
    name, profile = context.settings().system, context.table().profile
    try:
        targets_json(current, context.system(), profile)
    except ValueError:
        return None                     # already failing: the new number cannot be blamed

    def check(overrides) -> None:
        try:
            targets_json(current, get_system(name, overrides=overrides), profile)
        except ValueError as exc:
            raise InputError(f"refused: it would stop the targets for everyone ({exc})") from None
    return check


@bp.get("/roster")
def roster():
    current = context.scene(with_removed=True)
    edits = context.settings().roster
    figures = [] if current is None else [
        {"id": f.id, "marker": f.marker, "name": f.name, "side": f.side, "type": f.type, "painted": f.painted,
         "edited": f.id in edits} for f in current.figures]
    return jsonify({"figures": figures})


def _known_figure(figure_id: str) -> None:
    """404 for a figure id that is neither on the table nor in the roster edits."""
    current = _scene_with_removed()
    if figure_id in {f.id for f in current.figures} or figure_id in context.settings().roster:
        return
    raise InputError(f"no figure {quote(figure_id)} on the table", 404)


def _scene_with_removed():
    current = context.scene(with_removed=True)
    if current is None:
        raise NoScene()
    return current


@bp.put("/roster/<figure_id>")
def put_roster(figure_id: str):
    _known_figure(figure_id)
    fields = context.settings_store().set_roster(figure_id, _json_body())
    context.table().bump()
    return jsonify({"figure": figure_id, "fields": fields})


@bp.delete("/roster/<figure_id>")
def delete_roster(figure_id: str):
    _known_figure(figure_id)
    context.settings_store().clear_roster(figure_id)
    context.table().bump()
    return jsonify({"figure": figure_id, "cleared": True})


# ------------------------------------------------------------ terrain (found by the camera, drawn on a tablet)

@bp.get("/terrain")
def terrain():
    t = context.table()
    current = context.scene(with_removed=True)
    pieces = current.terrain if current is not None else context.drawn_terrain()
    names = thing_names(current)
    out = [{**piece_json(p, t.table_size), "source": source_of(p, t.fallback_terrain),
            "name": names.get(p.id, f"the {p.kind}")} for p in pieces]
    return jsonify({"terrain": out, "kinds": list(terrain_kinds(context.system())),
                    "table": {"width": t.profile.width_in, "depth": t.profile.depth_in}})


@bp.post("/terrain")
def add_terrain():
    data = json_object() or None
    if not isinstance(data, dict):
        raise TerrainError('terrain: expected a JSON object {"kind": ..., "polygon": [[x, y], ...]}')
    piece = check_piece(data, context.table().table_size, context.system())
    piece_id = context.settings_store().add_terrain(piece["kind"], piece["polygon"])
    context.table().bump()
    return jsonify({"id": piece_id, **piece, "source": "drawn"}), 201


@bp.delete("/terrain/<piece_id>")
def delete_terrain(piece_id: str):
    drawn = context.settings().drawn
    if piece_id not in drawn:
        current = context.scene(with_removed=True)
        if current is not None and any(p.id == piece_id for p in current.terrain):
            raise TerrainError(f"terrain {quote(piece_id)} was found by the camera, not drawn on a tablet: "
                               "take the felt off the table instead", 409)
        raise TerrainError(f"no drawn terrain {quote(piece_id)} (drawn: {', '.join(drawn) or 'none'})", 404)
    context.settings_store().delete_terrain(piece_id)
    context.table().bump()
    return jsonify({"id": piece_id, "deleted": True})


def hand_words(scene, hidden: list[str]) -> str | None:
    """Plain words for a photo with a hand in it."""
    if not scene.extra.get("hands"):
        return None
    if not hidden:
        return "A hand is over the table. Take the photo again without it, to be sure every figure is seen."
    names = [next((f.name or f.id for f in scene.figures if f.id == fid), fid) for fid in hidden]
    n = len(names)
    return (f"A hand is covering {', '.join(names)}. {'It stays' if n == 1 else 'They stay'} where "
            f"{'it was' if n == 1 else 'they were'} in the last photo, not taken off the table. "
            "Take the photo again without the hand.")


def colour_words(scene) -> str | None:
    """Plain words on how well the photo lets colour bases be found: coarse, a side's colour the
    table's own, felt of a side's hue on it, or a light that starves a side's colour (None: nothing
    to say)."""
    said = [w for w in (colour_resolution_words(scene.extra.get("colour_resolution")),
                        colour_like_table_words(scene.extra.get("colour_like_table")),
                        colour_like_felt_words(scene.extra.get("colour_like_felt")),
                        light_tint_words(scene.extra.get("light_tint"))) if w]
    return " ".join(said) or None


@bp.post("/photo")
@allows_upload
def photo():
    upload = request.files.get("photo")
    if upload is None:
        raise UploadError("photo: send the picture as the multipart field 'photo'", 400)
    image = decode_upload(upload.read(), upload.filename or "photo")
    t = context.table()
    version, problem = t.analyze(image, source="photo")
    current = context.scene()
    if problem:         # a 4xx whose words say what to fix; the last good picture and the game stay
        return jsonify({"version": version, "problem": problem, "error": problem, "hint": t.hint(),
                        "hidden_under_hand": [], "hand_words": None, "colour_words": None,
                        "bases_words": None, "figures": 0, "scene": None}), 422
    hidden = [] if current is None else list(current.extra.get("hidden_under_hand", []))
    return jsonify({"version": version, "problem": None, "hint": t.hint(),
                    "hidden_under_hand": hidden,
                    "hand_words": hand_words(current, hidden) if current is not None else None,
                    # a photo too coarse for colour bases, or a side's colour the table's own, is
                    # measured, and told how to do better
                    "colour_words": None if current is None else colour_words(current),
                    # colour bases looked for at a size read from the photo: said, so a player can correct it
                    "bases_words": None if current is None else colour_bases_words(current.extra.get("colour_bases")),
                    "figures": 0 if current is None else len(current.figures),
                    "scene": None if current is None else scene_to_json(current)})


def warm_answers() -> None:
    """Compute what every tablet asks for after a new picture (scene, targets, game, status), once.

    Called in the app context by TableState after it publishes a picture; an answer that fails is
    not kept (the tablet asking gets the error), and nothing here may stop the camera loop."""
    for query, compute in ((("scene",), _scene_answer), (("status",), _status),
                           (("targets", None), lambda: targets_json(_scene(), context.system(),
                                                                    context.table().profile)),
                           (("game",), _game_prompt)):
        try:
            _answer(query, compute)
        except Exception:                       # noqa: BLE001 - said again to the tablet that asks
            pass


@bp.post("/live")
def live():
    on = _json_body().get("on", True)
    t = context.table()
    camera = _camera()
    if on and not camera:
        raise UploadError("no camera: start the server with --camera INDEX, URL or FILE", 409)
    if on and t.live is None:
        t.start_live(camera)
    elif not on and t.live is not None:
        t.stop_live()
    t.bump()
    return jsonify({"live_running": t.live is not None})


# ------------------------------------------------------------ the game (kids' mode)

def _game_prompt():
    return game.current_prompt(context.games(), _measure(), context.system().title)


def _measure():
    return measure_settings(context.table().profile)


def _picture_key() -> str | None:
    """Which picture the table shows now (a new photo, upload or live frame changes it)."""
    _, _, picture, _ = context.table().snapshot()
    return None if picture is None else hashlib.sha1(picture.jpeg).hexdigest()[:16]


@bp.get("/game")
def game_prompt():
    return _answer(("game",), _game_prompt)


@bp.post("/game/new")
def game_new():
    body = _json_body()
    system = context.system()
    # Everyone the picture shows: the fallen of the game before stand again in a new game.
    everyone = context.scene(with_removed=True)
    if everyone is None:
        raise NoScene()
    game.start_game(context.games(), everyone, overrides=context.settings().system_overrides(system.name),
                    condition=str(body.get("condition", "A")), system=system.name, settings=_measure(),
                    picture=_picture_key())
    context.table().bump()
    return jsonify(_game_prompt())


@bp.post("/game/roll")
def game_roll():
    body = _json_body()
    value = body.get("value")
    rolled = game.enter_roll(context.games(), value, "typed" if value is not None else "virtual", _measure(),
                             _picture_key())
    context.table().bump()
    return jsonify({"rolled": rolled, "prompt": _game_prompt()})


@bp.post("/game/next")
def game_next():
    game.acknowledge(context.games(), context.scene(with_removed=True), _picture_key(), _measure())
    context.table().bump()
    return jsonify(_game_prompt())


@bp.post("/game/accept")
def game_accept():
    game.accept(context.games(), _measure(), context.scene(with_removed=True))
    context.table().bump()
    return jsonify(_game_prompt())


@bp.post("/game/undo")
def game_undo():
    game.undo_roll(context.games())
    context.table().bump()
    return jsonify(_game_prompt())
