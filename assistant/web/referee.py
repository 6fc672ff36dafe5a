"""The referee: tap two figures for the ruler corridor, or one shooter for its ranking of targets."""
from flask import Blueprint, render_template

bp = Blueprint("referee", __name__, url_prefix="/referee")


@bp.get("/")
def page():
    return render_template("referee.html", area="referee")
