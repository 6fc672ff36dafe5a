"""Table view: the latest picture with overlays, the top-down map, taking a photo."""
from flask import Blueprint, render_template

bp = Blueprint("table", __name__, url_prefix="/table")


@bp.get("/")
def page():
    return render_template("table.html", area="table", live=False)
