"""A profile written by the tablet's Setup is an ordinary profile: `load_profile` reads back the same value."""
from __future__ import annotations

import tomllib

from hypothesis import given, strategies as st

from calibration.profile import (Anchor, ColourSpec, GridSpec, RosterEntry, RulesSettings, TableProfile,
                                 load_profile, profile_from_dict, standard_anchors)
from calibration.profile_toml import profile_to_toml

from assistant.demo import DEMO_TABLE

sizes = st.floats(min_value=0.25, max_value=400, allow_nan=False, allow_infinity=False)
text = st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=30)
rgb = st.tuples(*[st.integers(0, 255)] * 3)


@st.composite
def profiles(draw):
    width = draw(st.floats(min_value=5, max_value=400, allow_nan=False))
    depth = draw(st.floats(min_value=5, max_value=400, allow_nan=False))
    size = draw(st.floats(min_value=0.5, max_value=2.0, allow_nan=False))
    anchors = standard_anchors(width, depth, size)[:draw(st.integers(1, 4))]
    grid = draw(st.none() | st.builds(GridSpec, st.sampled_from(["square"]), sizes, st.none())
                | st.builds(GridSpec, st.just("hex"), sizes, st.sampled_from([None, "flat", "pointy"])))
    roster = draw(st.lists(st.builds(
        RosterEntry, figure=st.integers(0, 999).map(lambda i: f"m{i}") | st.from_regex(r"c[a-z0-9]{1,6}", fullmatch=True),
        name=st.none() | text, side=st.none() | text, type=st.none() | text, painted=st.booleans(),
        base_in=st.none() | sizes), max_size=4))
    return TableProfile(
        name=draw(text), width_in=width, depth_in=depth,
        dictionary=draw(st.sampled_from(["DICT_4X4_50", "DICT_5X5_100", "DICT_APRILTAG_36h11"])),
        figure_marker_size_in=draw(sizes), figure_marker_height_in=draw(st.floats(0, 3, allow_nan=False)),
        anchors=anchors, grid=grid,
        sides=tuple(draw(st.lists(st.builds(ColourSpec, text, rgb, st.none(),
                                            st.none() | st.floats(0.75, 2.5, allow_nan=False)), max_size=3))),
        terrain=tuple(draw(st.lists(st.builds(ColourSpec, st.sampled_from(["woods", "hill", "water"]), rgb),
                                    max_size=3))),
        rules=draw(st.builds(RulesSettings, sizes, sizes, st.floats(0, 2, allow_nan=False),
                             st.floats(0, 2, allow_nan=False))),
        roster=tuple(roster))


@given(profiles())
def test_any_profile_reads_back_identically(profile):
    assert profile_from_dict(tomllib.loads(profile_to_toml(profile))) == profile


def test_the_demo_table_reads_back_identically_from_a_file(tmp_path):
    demo = load_profile(DEMO_TABLE)
    path = tmp_path / "demo.toml"
    path.write_text(profile_to_toml(demo), encoding="utf-8")
    assert load_profile(path) == demo


def test_the_written_file_is_the_documented_format():
    text = profile_to_toml(TableProfile("Kitchen", 48.0, 36.0, anchors=standard_anchors(48.0, 36.0),
                                        sides=(ColourSpec("red", (200, 40, 40)),)))
    data = tomllib.loads(text)
    assert data["width"] == 48.0 and data["depth"] == 36.0 and data["markers"]["dictionary"] == "DICT_4X4_50"
    assert [a["id"] for a in data["anchors"]] == [0, 1, 2, 3]
    assert data["anchors"][2] == {"id": 2, "x": 46.75, "y": 34.75, "size": 2.0}
    assert data["sides"] == [{"name": "red", "colour": "#c82828"}]
    assert "grid" not in data


def test_a_figure_id_that_only_looks_like_a_marker_keeps_its_id():
    p = TableProfile("T", 10.0, 10.0, anchors=(Anchor(0, 2, 2, 2.0),), roster=(RosterEntry("m007", name="Bond"),))
    assert profile_from_dict(tomllib.loads(profile_to_toml(p))).roster[0].figure == "m007"
