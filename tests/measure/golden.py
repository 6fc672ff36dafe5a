"""Golden scenes: Scene JSON plus an "expected" verdict (tests/data/scenes/*.json)."""
from __future__ import annotations

import json
from pathlib import Path

SCENES_DIR = Path(__file__).parent.parent / "data" / "scenes"


def scene_paths() -> list[Path]:
    return sorted(SCENES_DIR.glob("*.json"))


def load_golden(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def cases(section: str) -> list[tuple[str, dict, dict]]:
    """(scene name, document, one expected item) for every item of `section` in every scene."""
    out = []
    for path in scene_paths():
        doc = load_golden(path)
        for item in doc["expected"].get(section, []):
            out.append((path.stem, doc, item))
    return out


def case_id(case) -> str:
    name, _, item = case
    if "a" in item:
        return f"{name}:{item['a']}->{item['b']}@{item['width']}"
    if "shooter" in item:
        return f"{name}:{item['shooter']}"
    return name
