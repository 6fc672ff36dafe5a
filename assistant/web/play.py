"""Kids' mode: one big prompt at a time (the page talks to /api/game)."""
from flask import Blueprint, render_template

bp = Blueprint("play", __name__, url_prefix="/play")


@bp.get("/")
def page():
    return render_template("play.html", area="play")
