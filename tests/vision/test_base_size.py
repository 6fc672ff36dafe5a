"""Reading the colour bases' size from the rims found (vision.base_size): pure functions over the
rims' free radii; the search itself is checked on hard photos in test_hard_set.py."""
from __future__ import annotations

import numpy as np
import pytest

from vision.base_size import (FREE_RADIUS_BIAS, KEEP_SHARE, MIN_RIMS, best_size, colour_bases_words, common_sizes_in,
                              next_size, size_ratio)


def test_too_few_rims_tell_no_size():
    assert size_ratio(np.full(MIN_RIMS - 1, 1.3)) is None
    assert size_ratio(np.r_[np.nan, 0.0, np.full(MIN_RIMS - 1, 1.3)]) is None      # unmeasured radii are no rims
    assert size_ratio(np.full(MIN_RIMS, FREE_RADIUS_BIAS)) == pytest.approx(1.0)


def test_the_median_reads_through_a_few_odd_rims():
    radii = np.r_[np.full(7, 1.26 * FREE_RADIUS_BIAS), 0.4, 3.0]
    assert size_ratio(radii) == pytest.approx(1.26)


def test_the_common_bases_are_20_to_60_mm_in_inches():
    assert common_sizes_in(1.0).tolist() == [0.787, 1.0, 1.26, 1.575, 1.969, 2.362]     # 25 mm is 1"; not 28 mm
    assert common_sizes_in(1.26).tolist() == [0.787, 0.984, 1.26, 1.575, 1.969, 2.362]


@pytest.mark.parametrize("searched, ratio, expected", [
    (1.0, 1.2, 1.26),          # 1.2 ** 1.5 = 1.31: nearest 32 mm
    (1.0, 1.3, 1.575),         # 1.48: nearest 40 mm
    (1.0, 0.88, 0.787),        # 0.83: 20 mm
    (1.0, 1.1, 1.26),          # 1.15: 32 mm, not 28 mm (no common size read)
    (1.0, 1.01, 1.26),         # 1.015 is nearest 25 mm, the size searched (1"): the next one up
    (1.26, 1.02, 1.575),       # settled on the size searched but for a little: its neighbour that way
    (1.26, 0.97, 1.0),         # 25 mm: the house default's 1"
    (2.362, 1.3, None),        # nothing bigger to try
    (0.787, 0.8, None),        # nor smaller
])
def test_the_next_size_to_search(searched, ratio, expected):
    assert next_size(searched, ratio, 1.0) == expected


def test_the_size_whose_rims_show_it_is_kept_among_those_that_found_enough():
    # 1": the most rims, but they show 1.18 times its size; 1.26": nearly as many, showing its own
    assert best_size({1.0: (10, 1.18), 1.26: (9, 1.01), 1.575: (9, 0.9)}) == 1.26
    # a size whose search found too few is not kept however well its few rims agree
    assert best_size({1.0: (10, 1.18), 1.575: (int(KEEP_SHARE * 10) - 1, 1.0)}) == 1.0
    # no size with enough rims to read: the one that found the most
    assert best_size({1.0: (3, None), 1.26: (2, None)}) == 1.0


def test_a_size_read_from_the_photo_is_said_in_plain_words():
    assert colour_bases_words(None) is None
    assert colour_bases_words({"red": {"base": 1.0, "from": "house default"},
                               "blue": {"base": 1.26, "from": "profile"}}) is None
    words = colour_bases_words({"red": {"base": 1.26, "from": "photo"}, "blue": {"base": 1.26, "from": "photo"}})
    assert words.startswith("The colour bases (red, blue) look 32 mm (1.26 in) across") and "base = " in words
