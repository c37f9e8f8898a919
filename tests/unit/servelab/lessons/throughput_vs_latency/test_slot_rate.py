"""servelab.lessons.throughput_vs_latency.slot_rate: Little's law's rate for a capped server, and
every branch of its check against the sweep (worded by slot_words; test_slot_words.py)."""

from __future__ import annotations

import pytest

from servelab.bench.spread import Spread
from servelab.lessons.throughput_vs_latency.slot_rate import KneeCheck, SlotRate
from servelab.lessons.throughput_vs_latency.slot_words import check_text, prediction_text

# 4 slots, a request takes 0.8-1.0 s with all busy: 4-5 req/s, 4.4 at the median 0.9 s.
FOUND = SlotRate(4, Spread(0.9, 0.8, 1.0, 3))
RATES = [2.0, 3.0, 6.0, 16.0]


def test_littles_law_turns_slots_and_time_into_a_rate() -> None:
    assert FOUND.rate == pytest.approx(4 / 0.9)
    assert (FOUND.rate_low, FOUND.rate_high) == pytest.approx((4.0, 5.0))
    text = prediction_text(FOUND)
    assert "4 ÷ 0.90 s = 4.4" in text and "4.4 req/s**" in text and "(4.0–5.0" in text
    assert "**0.90 s (0.80–1.00)**" in text


HELD = [
    (3.0, KneeCheck.BETWEEN, ("3 req/s", "6.")),
    (6.0, KneeCheck.HELD_ABOVE, ("6 req/s",)),
    (2.0, KneeCheck.BROKE_BELOW, ("3 req/s",)),
    (None, KneeCheck.NEVER_HELD, ()),
]


@pytest.mark.parametrize(("held", "verdict", "figures"), HELD)
def test_each_verdict_follows_from_where_the_first_tokens_held(
    held: float | None, verdict: KneeCheck, figures: tuple[str, ...]
) -> None:
    assert FOUND.check(RATES, held) is verdict
    assert FOUND.broke_at(RATES, held) == (None if held is None else RATES[RATES.index(held) + 1])
    text = check_text(FOUND, RATES, held)
    assert "4.0–5.0 req/s" in text and all(figure in text for figure in figures)
    assert len({check_text(FOUND, RATES, other) for other, _, _ in HELD}) == len(HELD)


def test_a_sweep_that_never_broke_is_told_apart_by_its_top_rate() -> None:
    assert FOUND.check([1.0, 2.0], 2.0) is KneeCheck.NEVER_BROKE
    assert FOUND.check([2.0, 8.0], 8.0) is KneeCheck.NOT_REACHED
    assert "8 req/s" in check_text(FOUND, [2.0, 8.0], 8.0)
    assert "2 req/s" not in check_text(FOUND, [1.0, 2.0], 2.0)  # below: no top rate named
    assert check_text(FOUND, [1.0, 2.0], 2.0) != check_text(FOUND, [2.0, 8.0], 8.0)
