"""vision.teach.adopts: a colour learned from one figure is used only where it finds that figure
plainly surer than the colour looked for now (ADOPT_MARGIN), or that colour does not find it."""
from __future__ import annotations

import pytest

from vision.teach import ADOPT_MARGIN, Learned, adopts, kept_words


@pytest.mark.parametrize("confidence, current, used", [
    (0.9, None, True),                        # the colour looked for now does not find it at all
    (0.3, None, True),
    (0.9, 0.9 - ADOPT_MARGIN, True),          # exactly the margin surer
    (0.9, 0.9 - ADOPT_MARGIN + 0.01, False),  # a little less than that
    (0.95, 0.82, True),                       # an orange rim the profile's red finds weakly
    (0.96, 0.96, False),                      # the paint is the profile's colour
    (0.6, 0.8, False),                        # the learned colour finds it less surely
])
def test_adopts(confidence, current, used):
    assert adopts(confidence, current) is used
    assert Learned("red", (200, 40, 40), (1.0, 2.0), confidence, current).adopted is used


def test_kept_words_say_both_confidences():
    words = kept_words(Learned("blue", (40, 80, 200), (9.0, 14.0), 0.965, 0.967))
    assert "blue figure" in words and "0.97 sure" in words and "0.96 with the colour seen there" in words
