"""Table profiles: the TOML contract loads, and each kind of mistake gets one line naming its key."""
from __future__ import annotations

import textwrap

import pytest

from calibration.profile import ProfileError, load_profile, profile_from_dict

GOOD = textwrap.dedent('''
    name = "Kitchen table"
    width = 48.0
    depth = 36.0

    [markers]
    dictionary = "DICT_4X4_50"
    figure_marker_size = 1.0

    [[anchors]]
    id = 0
    x = 1.25
    y = 1.25
    size = 2.0

    [[anchors]]
    id = 1
    x = 46.75
    y = 1.25
    size = 2.0

    [grid]
    kind = "square"
    pitch = 1.0

    [[sides]]
    name = "red"
    colour = "#c82828"

    [[terrain]]
    kind = "woods"
    colour = "#23461e"

    [rules]
    ruler_width = 1.0

    [[roster]]
    marker = 12
    name = "Robin"
    side = "red"
    type = "archer"
    painted = false
''')


def test_contract_example_loads(tmp_path):
    path = tmp_path / "table.toml"
    path.write_text(GOOD)
    profile = load_profile(path)
    assert (profile.width_in, profile.depth_in) == (48.0, 36.0)
    assert profile.anchor_ids == {0, 1}
    assert profile.anchor(1).corners_in()[0] == (45.75, 0.25)
    assert profile.grid.kind == "square" and profile.grid.pitch_in == 1.0
    assert profile.sides[0].rgb == (200, 40, 40)
    assert profile.terrain[0].name == "woods"
    assert profile.rules.ruler_width_in == 1.0 and profile.rules.ruler_edge_in == 0.125
    assert profile.roster_by_figure() == {"m12": {"name": "Robin", "side": "red", "type": "archer", "painted": False}}


def test_a_side_may_give_its_bases_size():
    profile = profile_from_dict(_base(sides=[{"name": "red", "colour": "#c82828", "base": 1.26},
                                             {"name": "blue", "colour": "#2846c8"}]))
    assert [s.base_in for s in profile.sides] == [1.26, None]      # None: measured from the photo


def _base(**changes):
    data = {"width": 48.0, "depth": 36.0, "anchors": [{"id": 0, "x": 1.25, "y": 1.25, "size": 2.0}]}
    data.update(changes)
    return data


@pytest.mark.parametrize("data, key, problem", [
    (_base(markers={"dictionary": "DICT_9X9_7"}), "markers.dictionary", "unknown dictionary"),
    (_base(anchors=[{"id": 0, "x": 47.5, "y": 1.25, "size": 2.0}]), "anchors[0].x/y", "outside"),
    (_base(anchors=[{"id": 0, "x": 1.25, "y": 1.25, "size": -2.0}]), "anchors[0].size", "greater than 0"),
    (_base(anchors=[]), "anchors", "at least one"),
    (_base(width=-1), "width", "greater than 0"),
    (_base(depth="wide"), "depth", "expected a number"),
    (_base(markers={"figure_marker_size": 0}), "markers.figure_marker_size", "greater than 0"),
    (_base(grid={"kind": "triangle", "pitch": 1.0}), "grid.kind", "square"),
    (_base(grid={"kind": "square", "pitch": 0}), "grid.pitch", "greater than 0"),
    (_base(sides=[{"name": "red", "colour": "red"}]), "sides[0].colour", "like"),
    (_base(sides=[{"name": "red", "colour": "#c82828", "base": "32mm"}]), "sides[0].base", "expected a number"),
    (_base(sides=[{"name": "red", "colour": "#c82828", "base": 32}]), "sides[0].base", "0.75 to 2.5"),
    (_base(sides=[{"name": "red", "colour": "#c82828", "base": 0}]), "sides[0].base", "greater than 0"),
    (_base(terrain=[{"kind": "woods", "colour": "#23461e", "base": 1.0}]), "terrain[0].base", "unknown key"),
    (_base(widht=48), "widht", "unknown key"),
    (_base(anchors=[{"id": 0, "x": 1.25, "y": 1.25, "size": 2.0}, {"id": 0, "x": 5, "y": 5, "size": 2.0}]),
     "anchors[1].id", "twice"),
    (_base(roster=[{"name": "Robin"}]), "roster[0].marker", "names a marker"),
])
def test_bad_profile_names_key(data, key, problem):
    with pytest.raises(ProfileError) as err:
        profile_from_dict(data)
    message = str(err.value)
    assert message.startswith(key) and problem in message and "\n" not in message


def test_bad_toml_and_missing_file(tmp_path):
    with pytest.raises(ProfileError, match="no such table profile"):
        load_profile(tmp_path / "missing.toml")
    broken = tmp_path / "broken.toml"
    broken.write_text("width = [48\n")
    with pytest.raises(ProfileError, match="not valid TOML"):
        load_profile(broken)


def test_apriltag_dictionary_is_accepted():
    assert profile_from_dict(_base(markers={"dictionary": "DICT_APRILTAG_36h11"})).dictionary == "DICT_APRILTAG_36h11"
