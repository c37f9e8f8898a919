"""servelab.lessons.throughput_vs_latency.knee_words: the model's knee worded beside the closed
loops it is checked against, and its forecast stating the rate."""

from __future__ import annotations

from servelab.bench.spread import Spread
from servelab.lessons.throughput_vs_latency.knee_words import knee_forecast_text, knee_text
from servelab.lessons.throughput_vs_latency.slot_rate import SlotRate
from tests.unit.servelab.lessons.throughput_vs_latency.test_knee import KNEE


def test_the_knee_text_follows_its_check_and_the_forecast_states_the_rate() -> None:
    assert KNEE.request_s is not None
    near = SlotRate(4, Spread(KNEE.request_s, 0.95 * KNEE.request_s, 1.05 * KNEE.request_s, 3))
    slow = SlotRate(4, Spread(3 * KNEE.request_s, 2.9 * KNEE.request_s, 3.1 * KNEE.request_s, 3))
    assert knee_text(KNEE, near) != knee_text(KNEE, slow)
    assert f"{KNEE.rate:.1f}" in knee_forecast_text(KNEE)
