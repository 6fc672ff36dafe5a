"""What a request may carry, checked before anything is parsed, and how bad input is quoted back.

Every request body is bounded: JSON_MAX_BYTES unless the view is marked `@allows_upload` (the
photo), which gets the app's MAX_CONTENT_LENGTH. JSON is checked for size and nesting depth
before it is parsed, so a body nested a thousand deep is one clear 400, not a RecursionError.
Messages quote at most a short prefix of what was sent (`quote`), never the whole of it.
"""
from __future__ import annotations

import re
from typing import Any, Callable

from flask import Request, current_app, request
from werkzeug.exceptions import RequestEntityTooLarge

JSON_MAX_BYTES = 64 * 1024          # the biggest change a tablet sends (a drawn piece) is a few kB
JSON_MAX_DEPTH = 16                 # Scene JSON nests 5 deep
QUOTE_CHARS = 40                    # at most this much of a bad value goes back in a message
MESSAGE_MAX_CHARS = 300             # and no error message is longer than this

FORM_TYPES = ("application/x-www-form-urlencoded", "multipart/form-data")

_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_BRACKET = re.compile(r"[\[\]{}]")


class InputError(ValueError):
    """A request the API cannot read; `status` is the HTTP status to answer with."""

    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.status = status


def quote(value: Any, limit: int = QUOTE_CHARS) -> str:
    """repr() of a value a tablet sent, cut to a short prefix with its full length said."""
    text = value if isinstance(value, str) else repr(value)
    if len(text) <= limit:
        return repr(value)
    head = repr(text[:limit]) if isinstance(value, str) else text[:limit]
    return f"{head}... ({len(text):,} characters)"


def one_line(message: str, limit: int = MESSAGE_MAX_CHARS) -> str:
    """An error message as one short line, whatever a lower layer put in it."""
    message = " ".join(str(message).split())
    if len(message) > limit:
        message = message[:limit - 10] + " ... (cut)"
    return message


def json_depth(text: str) -> int:
    """How deep arrays and objects nest in JSON text, counted without parsing (no recursion)."""
    depth = deepest = 0
    for match in _BRACKET.finditer(_STRING.sub('""', text)):
        if match.group() in "[{":
            depth += 1
            deepest = max(deepest, depth)
        else:
            depth -= 1
    return deepest


def allows_upload(view: Callable) -> Callable:
    """Mark a view that takes a photo: its body may be as big as MAX_CONTENT_LENGTH."""
    view.allows_upload = True           # type: ignore[attr-defined]
    return view


def bound_body() -> None:
    """before_request: every body but an upload's is at most JSON_MAX_BYTES (413 beyond)."""
    view = current_app.view_functions.get(request.endpoint or "")
    if view is not None and getattr(view, "allows_upload", False):
        return
    request.max_content_length = JSON_MAX_BYTES
    request.max_form_memory_size = JSON_MAX_BYTES
    if request.content_length is not None and request.content_length > JSON_MAX_BYTES:
        raise RequestEntityTooLarge()


class BoundedRequest(Request):
    """Flask's request whose JSON is checked for size and depth before it is parsed."""

    def get_json(self, force: bool = False, silent: bool = False, cache: bool = True) -> Any:
        if not (force or self.is_json):
            return super().get_json(force=force, silent=silent, cache=cache)
        data = self.get_data(cache=True)
        if len(data) > JSON_MAX_BYTES:
            raise InputError(f"the JSON body is too big (at most {JSON_MAX_BYTES // 1024} kB)", 413)
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            raise InputError("the body is not UTF-8 JSON") from None
        if json_depth(text) > JSON_MAX_DEPTH:
            raise InputError(f"the JSON nests deeper than {JSON_MAX_DEPTH} levels")
        return super().get_json(force=force, silent=silent, cache=cache)

    def on_json_loading_failed(self, e: ValueError | None) -> Any:
        if e is None:
            return super().on_json_loading_failed(e)        # 415: not sent as JSON
        raise InputError("expected a JSON object in the request body; this is not valid JSON")


def json_object() -> dict[str, Any]:
    """The request's JSON object ({} for an empty body); one clear 4xx for anything else."""
    if request.mimetype in FORM_TYPES or not request.get_data(cache=True):
        return {}
    data = request.get_json(force=True)
    if not isinstance(data, dict):
        raise InputError("expected a JSON object in the request body")
    return data


__all__ = ["InputError", "quote", "one_line", "json_depth", "allows_upload", "bound_body", "BoundedRequest",
           "json_object", "JSON_MAX_BYTES", "JSON_MAX_DEPTH"]

