"""servelab.lessons.the_dials.step_words: chapter 05's check of its sweep against the step model,
worded for each outcome."""

from __future__ import annotations

import pytest

from servelab.lessons.compare import Compared, Placed
from servelab.lessons.the_dials.step_words import check_text
from tests.unit.servelab.lessons.the_dials.test_step_model import FOUND

OUTCOMES = [
    ((13.0, 1.8), (Placed.INSIDE, Placed.INSIDE)),
    ((13.0, 4.0), (Placed.INSIDE, Placed.ABOVE)),
    ((6.0, 1.8), (Placed.BELOW, Placed.INSIDE)),
    ((20.0, 1.2), (Placed.ABOVE, Placed.BELOW)),
]


@pytest.mark.parametrize(("ratios", "where"), OUTCOMES)
def test_each_outcome_is_worded(ratios: tuple[float, float], where: tuple[Placed, Placed]) -> None:
    speedup, tpot_ratio = ratios
    assert (FOUND.output_placed(speedup), FOUND.pace_placed(tpot_ratio)) == where
    text = check_text(FOUND, speedup, tpot_ratio, Compared.HIGHER)
    assert f"{speedup:.1f}×" in text and f"{tpot_ratio:.1f}×" in text
    others = {
        check_text(FOUND, *other, Compared.HIGHER) for other, _ in OUTCOMES if other != ratios
    }
    assert text not in others and len(others) == len(OUTCOMES) - 1


@pytest.mark.parametrize("moved", [Compared.ALIKE, Compared.UNTOLD])
def test_a_time_per_token_within_its_spread_is_no_evidence_of_the_steps_parts(
    moved: Compared,
) -> None:
    inside, below = (check_text(FOUND, 13.0, ratio, moved) for ratio in (1.8, 1.2))
    assert inside == check_text(FOUND, 13.0, 1.8, Compared.HIGHER)  # inside: nothing to doubt
    assert below != check_text(FOUND, 13.0, 1.2, Compared.LOWER)
    # output above its window still speaks of the shared part, the time per token no more
    assert check_text(FOUND, 20.0, 1.2, moved) != check_text(FOUND, 20.0, 1.2, Compared.LOWER)
