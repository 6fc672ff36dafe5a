"""The tablet app: `create_app(test_config)` builds a Flask app with one blueprint per area.

Areas: home (menu, join with the PIN), play (kids' mode), referee (line of sight, targets),
setup (system, profile, roster, calibration), table (picture and map), api (JSON), live (SSE).
Resources are reached through the accessors in assistant.web.context, so tests can swap them.
Pages are plain HTML/CSS/JS from this package: no internet, no build step.
"""
from __future__ import annotations

import os
import secrets
from pathlib import Path
from typing import Any, Mapping

from flask import Flask

from calibration.profile import learned_colours_path, load_profile

from assistant.demo import DEMO_PHOTO, DEMO_TABLE, DEMO_TRUTH
from assistant.rules import get_system
from assistant.web import security
from assistant.web.game import Games
from assistant.web.settings import TableSettings
from assistant.web.table import TableState, load_truth_terrain

MAX_UPLOAD_BYTES = 25 * 1024 * 1024


def _secret_key(instance: Path) -> str:
    """Kept in the instance folder so joined tablets stay joined across a restart with the same PIN."""
    path = instance / "secret_key"
    try:
        return path.read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        key = secrets.token_hex(32)
        path.write_text(key, encoding="utf-8")
        os.chmod(path, 0o600)
        return key


def create_app(test_config: Mapping[str, Any] | None = None) -> Flask:
    app = Flask(__name__, instance_relative_config=True)
    config = dict(test_config or {})
    if config.get("INSTANCE_PATH"):
        app.instance_path = str(config["INSTANCE_PATH"])
    instance = Path(app.instance_path)
    instance.mkdir(parents=True, exist_ok=True)
    app.config.from_mapping(
        DEBUG=False,
        TESTING=False,
        TABLE=None,                 # a table profile TOML; None with DEMO: the bundled demo table
        DEMO=False,
        SYSTEM=None,                # rule system name; None: KIMMIRIA
        CAMERA=None,                # camera index, stream URL or file for live mode
        CALIBRATION=None,           # camera intrinsics (camera.json from `tablesight calibrate`)
        TABLE_PIN=None,             # None: a fresh 4-digit PIN each start
        MAX_CONTENT_LENGTH=MAX_UPLOAD_BYTES,
        SESSION_COOKIE_SAMESITE="Lax",
        SESSION_COOKIE_HTTPONLY=True,
        GAMES_DIR=str(instance / "games"),
        TABLES_DIR=str(instance / "tables"),     # tables saved by the Setup wizard (profile TOML files)
        SETTINGS_LOG=str(instance / "settings.sqlite"),
        SSE_HEARTBEAT_S=15.0,
        LIVE_MAX_STREAMS=8,         # streams held open at once (each keeps a server thread); serve sets it
        LIVE_STREAM_MAX_S=120.0,    # a held stream ends after this and the tablet reconnects (fair turns)
        LIVE_POLL_MS=3000,          # a tablet without a held stream asks again after this
    )
    app.config.update(config)
    app.debug = False               # never the debugger, whatever the config says
    if not app.config.get("SECRET_KEY"):
        app.config["SECRET_KEY"] = _secret_key(instance)
    if not app.config["TABLE_PIN"]:
        app.config["TABLE_PIN"] = security.new_pin()
    app.config["TABLE_PIN"] = str(app.config["TABLE_PIN"])
    app.config["JOIN_TOKEN"] = security.join_token(instance, app.config["SECRET_KEY"], app.config["TABLE_PIN"])

    # The table, its settings and its games.
    demo = bool(app.config["DEMO"])
    table_path = app.config["TABLE"] or (DEMO_TABLE if demo else None)
    if table_path is None:
        raise ValueError("no table profile: give --table TABLE.toml, or --demo for the bundled demo table")
    # Rim colours learned on the tablet live beside the profile (the bundled demo's in the instance folder).
    learned_path = learned_colours_path(table_path) if app.config["TABLE"] else instance / "demo.learned.toml"
    start = {"key": str(Path(app.config["TABLE"]).resolve()) if app.config["TABLE"] else "demo",
             "path": str(table_path), "learned": str(learned_path), "fallback": (), "picture": None}
    # A broken --table is refused even when a saved table was in use before the restart.
    start_profile = load_profile(table_path, learned_path)
    from assistant.web.tables import remembered_table
    chosen = remembered_table(instance, start["key"], Path(app.config["TABLES_DIR"]))
    profile = start_profile
    if chosen is not None:                  # the saved table in use before the restart
        table_path, profile = chosen
        learned_path = learned_colours_path(table_path)
    system = get_system(app.config["SYSTEM"])          # UnknownSystem names the known ones
    if demo and not app.config["TABLE"]:
        start["fallback"] = load_truth_terrain(DEMO_TRUTH, _table(start_profile))
    fallback = start["fallback"] if chosen is None else ()
    camera = None
    if app.config["CALIBRATION"]:
        from calibration.intrinsics import CameraModel
        camera = CameraModel.load(app.config["CALIBRATION"])      # CameraFileError names the file
    demo_picture = None
    if demo:
        import cv2
        demo_picture = cv2.imread(str(DEMO_PHOTO))
        if not app.config["TABLE"]:
            start["picture"] = demo_picture
    # The demo's known terrain is laid over the demo photo only, never over another picture.
    state = TableState(profile, fallback_terrain=fallback, fallback_picture=demo_picture if fallback else None,
                       camera=camera)
    app.extensions["tablesight"] = {
        "table": state,
        "settings": TableSettings(app.config["SETTINGS_LOG"], system.name),
        "games": Games(app.config["GAMES_DIR"]),
        "table_path": str(table_path),
        "learned_path": str(learned_path),
        "start": start,                     # the table the server was started with: a way back to it
    }
    if demo and chosen is None:
        state.analyze(demo_picture, source="demo")

    security.install(app)
    from assistant.web import api, home, live, play, referee, setup, tables, tableview, teach
    for module in (home, play, referee, setup, tableview, api, tables, live, teach):
        app.register_blueprint(module.bp)

    def warm() -> None:
        with app.app_context():
            api.warm_answers()
    state.warmers.append(warm)
    return app


def _table(profile):
    from measure.scene import Table
    return Table(profile.width_in, profile.depth_in)


__all__ = ["create_app", "MAX_UPLOAD_BYTES"]
