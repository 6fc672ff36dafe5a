"""Reading a small text file (a profile, a camera file) with one clear error naming it."""
from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any


def read_text(path: str | Path, what: str, error: type[ValueError]) -> str:
    """The file's text; a missing or unreadable file raises `error` with a line naming `what`."""
    path = Path(path)
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise error(f"{path}: no such {what}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise error(f"{path}: cannot read the {what} ({exc.__class__.__name__})") from None


def read_toml(path: str | Path, what: str, error: type[ValueError]) -> dict[str, Any]:
    """The file's TOML table; a missing, unreadable or malformed file raises `error` naming it."""
    text = read_text(path, what, error)
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise error(f"{Path(path)}: not valid TOML ({exc})") from None
