"""A plain KIMMIRIA reading of who shoots and with which ruler, from house_defaults.toml.

For callers of measure/ that have no rule system at hand (measure's own tests; the real systems
live in assistant.rules). The numbers live in the data file, marked `house_default`.
"""
from __future__ import annotations

import tomllib
from functools import lru_cache
from pathlib import Path
from typing import Mapping

from measure.scene import Figure, Scene
from measure.sight import ShooterSpec, SightPolicy

DATA_FILE = Path(__file__).with_name("house_defaults.toml")


def _type_key(figure_type: str | None) -> str:
    return " ".join((figure_type or "").lower().replace("_", " ").replace("-", " ").split())


@lru_cache(maxsize=1)
def fallback_shooters() -> Mapping[str, ShooterSpec]:
    with DATA_FILE.open("rb") as fh:
        data = tomllib.load(fh)["kimmiria_fallback"]
    return {_type_key(name): ShooterSpec(width=spec["width"], range_in=spec.get("range"))
            for name, spec in data["shooters"].items()}


def fallback_shooter_spec(figure: Figure) -> ShooterSpec | None:
    """KIMMIRIA fallback: archers and horse archers use the edge, wizards and artillery the ruler."""
    return fallback_shooters().get(_type_key(figure.type))


def fallback_sight_policy() -> SightPolicy:
    return SightPolicy()


def fallback_specs(scene: Scene) -> dict[str, ShooterSpec]:
    """Shooter specs for every figure of the scene that can shoot under the fallback."""
    specs = {f.id: fallback_shooter_spec(f) for f in scene.figures}
    return {k: v for k, v in specs.items() if v is not None}
