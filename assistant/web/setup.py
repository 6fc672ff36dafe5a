"""Setup: rule system, table profile, roster (name, side, type, painted) and calibration status."""
from flask import Blueprint, current_app, render_template

from assistant.web import context

bp = Blueprint("setup", __name__, url_prefix="/setup")


@bp.get("/")
def page():
    t = context.table()
    return render_template("setup.html", area="setup", profile=t.profile,
                           table_path=current_app.extensions["tablesight"]["table_path"])
