"""House defaults for vision (vision_defaults.toml next to this file), read once."""
from __future__ import annotations

import tomllib
from pathlib import Path

_PATH = Path(__file__).with_name("vision_defaults.toml")


def _load() -> dict[str, float]:
    with _PATH.open("rb") as fh:
        return dict(tomllib.load(fh)["house_default"])


VISION_DEFAULTS: dict[str, float] = _load()
