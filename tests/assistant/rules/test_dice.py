"""Dice sources (issue 6 item 2): fair, seeded, typed in; d6, d3 and d20; every roll logged."""
import pytest
from hypothesis import given
from hypothesis import strategies as st

from assistant.rules.dice import (Dice, DiceError, DiceExhausted, RandomDice, Roll, ScriptedDice, d3_from_d6,
                                  roll_d3)


@given(seed=st.integers(0, 2**32), sides=st.sampled_from([3, 6, 20]))
def test_random_dice_in_range_seeded_and_logged(seed, sides):
    a, b = RandomDice(seed), RandomDice(seed)
    values = [a.roll(sides, "test", who="m1") for _ in range(20)]
    assert values == [b.roll(sides, "test", who="m1") for _ in range(20)]
    assert all(1 <= v <= sides for v in values)
    assert a.rolls == [Roll(sides, v, "test", "m1") for v in values]


def test_random_dice_is_fair_enough():
    dice = RandomDice(7)
    counts = [0] * 6
    for _ in range(6000):
        counts[dice.roll(6, "fairness") - 1] += 1
    assert all(850 < c < 1150 for c in counts), counts


def test_both_sources_satisfy_the_protocol():
    assert isinstance(RandomDice(), Dice) and isinstance(ScriptedDice([1]), Dice)


def test_scripted_in_order_then_exhausted_naming_the_roll():
    dice = ScriptedDice([4, 20, 1])
    assert [dice.roll(6, "a"), dice.roll(20, "b"), dice.roll(3, "c")] == [4, 20, 1]
    with pytest.raises(DiceExhausted, match="d6 for melee by m12"):
        dice.roll(6, "melee", who="m12")


def test_scripted_by_figure_like_a_melee_table():
    dice = ScriptedDice({"A": 5, "B": [2, 6], None: [3]})
    assert dice.roll(6, "melee", who="B") == 2
    assert dice.roll(6, "melee", who="A") == 5
    assert dice.roll(6, "melee", who="B") == 6
    assert dice.roll(6, "initiative") == 3           # no `who`: the shared queue
    assert dice.remaining() == 0
    assert [r.who for r in dice.rolls] == ["B", "A", "B", None]


@pytest.mark.parametrize("value, sides", [(7, 6), (0, 6), (-1, 6), (21, 20), (4, 3), (True, 6), (2.0, 6), ("3", 6)])
def test_typed_in_value_that_cannot_be(value, sides):
    with pytest.raises(DiceError, match=f"d{sides} for roll"):
        ScriptedDice([value]).roll(sides, "roll")


@pytest.mark.parametrize("sides", [1, 0, True])
def test_a_die_needs_two_sides(sides):
    with pytest.raises(DiceError):
        RandomDice(1).roll(sides, "x")


@pytest.mark.parametrize("d6, d3", [(1, 1), (2, 1), (3, 1), (4, 2), (5, 2), (6, 3)])
def test_d3_from_d6(d6, d3):
    # Issue 6 item 2: "d3 (AnyMinis: 1-3 -> 1, 4-5 -> 2, 6 -> 3)".
    assert d3_from_d6(d6) == d3
    dice = ScriptedDice([d6])
    assert roll_d3(dice, "hit", who="m3") == d3
    assert dice.rolls == [Roll(6, d6, "hit", "m3")]        # the d6 as it fell is what gets logged


@pytest.mark.parametrize("bad", [0, 7, True, 2.5])
def test_d3_from_bad_d6(bad):
    with pytest.raises(DiceError):
        d3_from_d6(bad)
