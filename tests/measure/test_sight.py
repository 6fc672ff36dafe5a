import dataclasses

import pytest

from measure import MeasureSettings, ShooterSpec, SightError, SightPolicy, resolve_width
from measure.defaults import DATA_FILE, fallback_shooters


def test_measure_settings_mirror_the_profile_rules_defaults():
    # measure must not import calibration; the two default sets must still agree
    from calibration.profile import RulesSettings
    assert dataclasses.asdict(MeasureSettings()) == dataclasses.asdict(RulesSettings())


@pytest.mark.parametrize("width,settings,expected", [
    ("edge", MeasureSettings(), 0.125), ("ruler", MeasureSettings(), 1.25), (0.5, MeasureSettings(), 0.5),
    ("edge", MeasureSettings(ruler_edge_in=0.2), 0.2), ("ruler", MeasureSettings(ruler_width_in=1.0), 1.0)])
def test_resolve_width(width, settings, expected):
    assert resolve_width(width, settings) == expected


@pytest.mark.parametrize("width", ["thin", 0, -0.5, float("nan"), float("inf")])
def test_resolve_width_rejects(width):
    with pytest.raises(SightError, match="width"):
        resolve_width(width)


def test_policy_defaults_are_kimmiria():
    p = SightPolicy()
    assert p.soft_kinds == ("woods", "rocks") and p.soft_depth_in == 0.5
    assert p.blocking_kinds == ("wall", "building") and p.clear_kinds == ("water",) and p.figures_block


def test_fallback_is_a_marked_house_default():
    text = DATA_FILE.read_text()
    assert "house_default = true" in text
    assert fallback_shooters() == {"archer": ShooterSpec("edge"), "horse archer": ShooterSpec("edge"),
                                   "wizard": ShooterSpec("ruler"), "artillery": ShooterSpec("ruler")}
