"""servelab.lessons.throughput_vs_latency.slot_words: the slots' predicted rate worded where the
runs agree, with no range to itself."""

from __future__ import annotations

from servelab.bench.spread import Spread
from servelab.lessons.throughput_vs_latency.slot_rate import SlotRate
from servelab.lessons.throughput_vs_latency.slot_words import check_text, prediction_text
from tests.unit.servelab.lessons.throughput_vs_latency.test_slot_rate import RATES


def test_runs_that_agree_give_one_predicted_rate_not_a_range_to_itself() -> None:
    """A float32 recording of chapter 07 printed "1.6 req/s (1.6–1.6 over those runs)"."""
    steady = SlotRate(4, Spread(2.47, 2.46, 2.50, 3))
    assert f"{steady.rate_low:.1f}" == f"{steady.rate_high:.1f}" == "1.6"
    assert "1.6–1.6" not in prediction_text(steady) and "all 3 runs" in prediction_text(steady)
    said = check_text(steady, RATES, 2.0)
    assert "1.6–1.6" not in said and "predicted 1.6 req/s" in said
