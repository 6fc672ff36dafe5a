"""The join PIN, cross-site request protection and the error pages every area shares.

Looking needs nothing. Every change (POST, PUT, PATCH, DELETE) needs the table's PIN: the header
`X-Table-PIN`, or a session made by joining with it. A session request must also carry the
session's CSRF token (header `X-CSRF-Token` or form field `csrf_token`), which a page on another
site cannot read, so a cross-site form cannot act for a joined tablet. Too many wrong PINs lock
one tablet's tries for a while, never anyone else's.
"""
from __future__ import annotations

import hashlib
import hmac
import json
import math
import os
import re
import secrets
import threading
import time
from collections import OrderedDict, deque
from pathlib import Path

from flask import Flask, current_app, jsonify, request, session
from werkzeug.exceptions import HTTPException

from assistant.web import inputs

CHANGING = frozenset({"POST", "PUT", "PATCH", "DELETE"})
OPEN_CHANGES = frozenset({"/join", "/leave"})      # these check the PIN / token themselves
FAILURE_WINDOW_S = 300.0                            # a client quiet this long starts its count afresh


_PATH_CHARS = re.compile(r"[A-Za-z0-9/_.~!$&'()*+,;=:@%?#-]*")


def same_site_path(target: str | None, default: str = "/") -> str:
    """`target` when it can only be a path on this server, else `default` (never an open redirect).

    Browsers drop tabs and newlines and read `\\` as `/`, so `/<tab>/evil` or `/\\evil` lead off site:
    only plain URL characters are accepted, the path must start with one `/`, and neither it nor
    its percent-decoded form may start with `//` or `/\\`.
    """
    if not target or len(target) > 512 or not _PATH_CHARS.fullmatch(target):
        return default
    from urllib.parse import unquote, urlsplit
    for form in (target, unquote(target), unquote(unquote(target))):
        if not form.startswith("/") or form[1:2] in ("/", "\\") or any(c in form for c in "\\\t\r\n"):
            return default
    parts = urlsplit(target)
    if parts.scheme or parts.netloc:
        return default
    return target


def new_pin() -> str:
    return f"{secrets.randbelow(10_000):04d}"


def join_token(instance: Path, secret_key: str, pin: str) -> str:
    """A random token that a joined tablet's cookie carries: it proves joining and says nothing of the PIN.

    Flask's cookie is signed, not encrypted, so anything in it can be read; the token is random and
    kept in the instance folder (tablets stay joined across a restart with the same PIN). A new PIN
    draws a new token, which ends every old session. Only a keyed digest of the PIN is kept next to
    it, on the server, to notice the change.
    """
    path = instance / "join_token.json"
    pin_check = hmac.new(secret_key.encode(), ("tablesight-pin:" + pin).encode(), hashlib.sha256).hexdigest()
    try:
        kept = json.loads(path.read_text(encoding="utf-8"))
        if same_secret(kept["pin_check"], pin_check) and len(str(kept["token"])) >= 32:
            return str(kept["token"])
    except (OSError, ValueError, KeyError, TypeError):
        pass
    token = secrets.token_urlsafe(32)
    path.write_text(json.dumps({"token": token, "pin_check": pin_check}), encoding="utf-8")
    os.chmod(path, 0o600)
    return token


def mark_joined() -> None:
    session["joined"] = current_app.config["JOIN_TOKEN"]
    session.permanent = True


def same_secret(sent: object, kept: object) -> bool:
    """A constant-time comparison of what a request sent with what the server kept (any text)."""
    if not isinstance(sent, str) or not isinstance(kept, str) or not sent or not kept:
        return False
    return hmac.compare_digest(sent.encode("utf-8", "surrogatepass"), kept.encode("utf-8", "surrogatepass"))


def csrf_token() -> str:
    token = session.get("csrf")
    if not token:
        token = secrets.token_urlsafe(24)
        session["csrf"] = token
    return token


def joined() -> bool:
    token = session.get("joined")
    return same_secret(token, current_app.config["JOIN_TOKEN"])


class Failures:
    """Wrong PIN attempts per client, to slow down guessing the digits without locking anyone else out.

    A client is a tablet's session when it has one (it opened a page), else its address. After
    FREE_TRIES wrong PINs a client waits before its next try: 2 s, then twice as long after each
    further wrong PIN, at most MAX_WAIT_S. So that a guesser cannot start a fresh session for each
    try, an address also has a budget: at most ADDRESS_BUDGET wrong PINs per ADDRESS_WINDOW_S from
    all its sessions together. A wait holds back only the guesser (its session, or its address
    while it guesses fast); the right PIN from any other tablet gets in, and every wait ends. The
    tables are bounded (the oldest are forgotten first).
    """

    FREE_TRIES = 3
    FIRST_WAIT_S = 2.0
    MAX_WAIT_S = 60.0
    ADDRESS_BUDGET = 30
    ADDRESS_WINDOW_S = 60.0
    MAX_CLIENTS = 4096

    def __init__(self, clock=time.monotonic) -> None:
        self._clock = clock
        self._clients: OrderedDict[str, tuple[int, float]] = OrderedDict()   # client -> (wrong PINs, last at)
        self._addresses: OrderedDict[str, deque[float]] = OrderedDict()      # address -> times of wrong PINs
        self._lock = threading.Lock()

    def _wait_s(self, count: int) -> float:
        if count < self.FREE_TRIES:
            return 0.0
        return min(self.MAX_WAIT_S, self.FIRST_WAIT_S * 2 ** min(count - self.FREE_TRIES, 32))

    def add(self, client: str, address: str | None = None) -> None:
        with self._lock:
            now = self._clock()
            count, _ = self._clients.pop(client, (0, 0.0))
            self._clients[client] = (count + 1, now)
            if address is not None:
                times = self._addresses.pop(address, None) or deque(maxlen=self.ADDRESS_BUDGET)
                times.append(now)
                self._addresses[address] = times
            for table in (self._clients, self._addresses):
                while len(table) > self.MAX_CLIENTS:
                    table.popitem(last=False)

    def clear(self, client: str) -> None:
        with self._lock:
            self._clients.pop(client, None)

    def wait_s(self, client: str, address: str | None = None) -> float:
        """Seconds this client must still wait before its next try (0: it may try now)."""
        with self._lock:
            now = self._clock()
            count, at = self._clients.get(client, (0, 0.0))
            if count and now - at > FAILURE_WINDOW_S:       # long quiet: a fresh start
                self._clients.pop(client, None)
                count, at = 0, 0.0
            wait = max(0.0, at + self._wait_s(count) - now)
            times = self._addresses.get(address) if address is not None else None
            if times is not None and len(times) >= self.ADDRESS_BUDGET:
                wait = max(wait, times[0] + self.ADDRESS_WINDOW_S - now)
            return wait


def client_id() -> tuple[str, str]:
    """(client, address) of who is guessing: the tablet's session if it has one, and its address
    (the server faces the LAN directly, no proxy)."""
    address = request.remote_addr or "unknown"
    sid = session.get("csrf")
    return (f"session:{sid}" if isinstance(sid, str) and sid else f"address:{address}"), address


def check_pin(given: str) -> tuple[bool, int, str]:
    """(ok, status, message) for a PIN someone typed or sent."""
    failures: Failures = current_app.extensions["tablesight_failures"]
    who, address = client_id()
    wait = failures.wait_s(who, address)
    if wait > 0:
        return False, 429, f"too many wrong PINs from this tablet: wait {math.ceil(wait)} s and try again"
    if same_secret(given.strip(), current_app.config["TABLE_PIN"]):
        failures.clear(who)
        return True, 200, ""
    failures.add(who, address)
    return False, 403, "wrong PIN: the PIN is shown where the server was started"


def error_response(status: int, message: str):
    """JSON for the API and scripts, a short page for people."""
    message = inputs.one_line(message)             # never an echo of a whole bad input
    wants_json = request.path.startswith(("/api/", "/live/")) or request.accept_mimetypes.best == "application/json"
    if wants_json:
        return jsonify({"error": message, "status": status}), status
    from flask import render_template
    return render_template("error.html", status=status, message=message), status


def guard_changes():
    """before_request: every change needs the PIN (401 without one, 403 with a wrong one)."""
    if request.method not in CHANGING or request.path in OPEN_CHANGES:
        return None
    header = request.headers.get("X-Table-PIN")
    if header is not None:
        ok, status, message = check_pin(header)
        return None if ok else error_response(status, message)
    if not joined():
        return error_response(401, "join the table with its PIN first (header X-Table-PIN, or the Join page)")
    sent = request.headers.get("X-CSRF-Token") or request.form.get("csrf_token", "")
    if not same_secret(sent, session.get("csrf")):
        return error_response(403, "this request did not come from a tablesight page (missing CSRF token)")
    return None


def install(app: Flask) -> None:
    app.extensions["tablesight_failures"] = Failures()
    app.request_class = inputs.BoundedRequest
    app.before_request(inputs.bound_body)
    app.before_request(guard_changes)

    @app.context_processor
    def _security_values():
        return {"csrf_token": csrf_token(), "joined": joined()}

    @app.errorhandler(HTTPException)
    def _http_error(exc: HTTPException):
        limit = request.max_content_length or app.config["MAX_CONTENT_LENGTH"]
        too_big = (f"the upload is too big (at most {limit // (1024 * 1024)} MB)" if limit >= 1024 * 1024
                   else f"the request is too big (at most {limit // 1024} kB)")
        messages = {413: too_big,
                    404: "no such page", 405: "this address does not take that kind of request"}
        return error_response(exc.code or 500, messages.get(exc.code, exc.description or exc.name))

    @app.errorhandler(ValueError)
    def _value_error(exc: ValueError):
        # Domain errors (SceneError, ProfileError, UnknownSystem, ...) name what is wrong: a 400.
        status = getattr(exc, "status", 400)
        if status >= 500:
            app.logger.error("%s", exc, exc_info=exc)
        return error_response(status, str(exc) or exc.__class__.__name__)

    @app.errorhandler(Exception)
    def _server_error(exc: Exception):
        # A fault of the server itself (a broken install, a bug): logged whole, said in one line.
        if isinstance(exc, HTTPException):
            return _http_error(exc)
        app.logger.error("unexpected error on %s %s", request.method, request.path, exc_info=exc)
        return error_response(500, f"the server failed: {exc.__class__.__name__}: {exc}")
