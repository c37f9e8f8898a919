"""servelab.lessons.batching.request_metrics: chapter 01's primer on one request's times (worded
by request_words; its p99 text: test_request_words.py)."""

from __future__ import annotations

import pytest

from servelab.lessons.batching.request_metrics import PercentileReach, RequestTiming
from servelab.lessons.batching.request_words import timing_text
from tests.support import record


def test_one_requests_times_are_its_first_token_gaps_and_their_spread():
    # sent at 1.0 s; first token 0.2 s later, then gaps of 50, 50 and 300 ms
    timing = RequestTiming.of(record(0, 1.0, [0.05, 0.05, 0.3], ttft=0.2))
    assert timing.ttft_s == pytest.approx(0.2) and timing.e2e_s == pytest.approx(0.6)
    assert timing.tpot_s == pytest.approx(0.4 / 3)  # 400 ms over the 3 tokens after the first
    assert (timing.ttft_ms, timing.e2e_ms, timing.tpot_ms) == pytest.approx((200, 600, 400 / 3))
    assert (timing.median_gap_ms, timing.longest_gap_ms) == pytest.approx(
        (1000 * timing.median_gap_s, 1000 * timing.longest_gap_s)
    )
    assert (timing.tokens_after_first, timing.gap_count) == (3, 3)
    assert (timing.median_gap_s, timing.longest_gap_s) == pytest.approx((0.05, 0.3))
    table = timing.arrivals(shown=3)
    assert list(table["arrived after (ms)"]) == pytest.approx([200, 250, 300])
    text = timing_text(timing)
    assert "(600 − 200) ms ÷ 3 = 133.3 ms" in text
    assert "200 ms" in text and "50 ms" in text and "300 ms" in text
    with pytest.raises(ValueError, match="two tokens or more"):
        RequestTiming.of(record(0, 0.0, [], ttft=0.1))


@pytest.mark.parametrize(
    ("n", "lower", "share", "top"),
    [
        (24, 23, 0.77, True),  # 0.99 x 23 = 22.77: between the two largest
        (300, 297, 0.01, False),  # 0.99 x 299 = 296.01: two values above
        (2, 1, 0.99, True),
    ],
)
def test_a_p99_of_few_requests_sits_between_the_largest_values(n, lower, share, top):
    reach = PercentileReach(99, n)
    assert (reach.lower, reach.upper, reach.above, reach.at_the_top) == (
        lower,
        lower + 1,
        n - lower,
        top,
    )
    assert reach.share == pytest.approx(share)
    with pytest.raises(ValueError):
        PercentileReach(99, 1)
