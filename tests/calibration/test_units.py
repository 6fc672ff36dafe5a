import pytest

from calibration.units import LengthError, parse_length_in, parse_pair


@pytest.mark.parametrize("text, inches", [
    ("25mm", 25 / 25.4), ("25 mm", 25 / 25.4), ("2.5cm", 25 / 25.4), ("1in", 1.0), ('0.75"', 0.75),
    ("0.75 inch", 0.75), ("2 inches", 2.0), (".5in", 0.5), ("1E1mm", 10 / 25.4), ("1IN", 1.0),
])
def test_lengths_with_units(text, inches):
    assert parse_length_in(text) == pytest.approx(inches, rel=1e-12)


@pytest.mark.parametrize("text", ["25", "mm", "-3mm", "0mm", "3 ft", "1in2", "", "nan in"])
def test_lengths_without_a_usable_unit_are_refused(text):
    with pytest.raises(LengthError, match="--square"):
        parse_length_in(text, "--square")


@pytest.mark.parametrize("text, pair", [("9x6", (9, 6)), ("5X7", (5, 7)), (" 10 x 7 ", (10, 7))])
def test_pairs(text, pair):
    assert parse_pair(text, "--chessboard") == pair


@pytest.mark.parametrize("text", ["9", "9x", "1x6", "9x6x2", "axb"])
def test_bad_pairs(text):
    with pytest.raises(LengthError, match="--chessboard"):
        parse_pair(text, "--chessboard")
