"""The menu page, and joining the table with its PIN (a session cookie for this tablet)."""
from __future__ import annotations

from flask import Blueprint, redirect, render_template, request, session, url_for

from assistant.web import security

bp = Blueprint("home", __name__)


def _safe_next(target: str | None) -> str:
    # Only paths on this server: never bounce a tablet to another site after joining.
    return security.same_site_path(target, url_for("home.index"))


@bp.get("/")
def index():
    return render_template("index.html", area="home")


@bp.get("/join")
def join_page():
    return render_template("join.html", area="join", next=_safe_next(request.args.get("next")), message=None)


@bp.post("/join")
def join():
    sent = request.form.get("csrf_token", "")
    nxt = _safe_next(request.form.get("next"))
    if not security.same_secret(sent, session.get("csrf")):
        return render_template("join.html", area="join", next=nxt,
                               message="That form was old: please type the PIN again."), 403
    ok, status, message = security.check_pin(request.form.get("pin", ""))
    if not ok:
        return render_template("join.html", area="join", next=nxt, message=message), status
    security.mark_joined()
    return redirect(nxt)


@bp.post("/leave")
def leave():
    sent = request.form.get("csrf_token", "")
    if not security.same_secret(sent, session.get("csrf")):
        return render_template("error.html", status=403, message="That form was old."), 403
    session.pop("joined", None)
    return redirect(url_for("home.index"))
