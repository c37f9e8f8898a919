"""servelab.lessons.batching.request_words: where a p99 of few requests sits, as chapter 01's
primer words it."""

from __future__ import annotations

import pytest

from servelab.lessons.batching.request_metrics import PercentileReach
from servelab.lessons.batching.request_words import percentile_text


@pytest.mark.parametrize(
    ("n", "lower", "share", "top"),
    [
        (24, 23, 0.77, True),  # 0.99 x 23 = 22.77: between the two largest
        (300, 297, 0.01, False),  # 0.99 x 299 = 296.01: two values above
        (2, 1, 0.99, True),
    ],
)
def test_the_p99_text_names_the_two_values_it_sits_between(n, lower, share, top):
    said = percentile_text(PercentileReach(99, n))
    assert f"value {lower} " in said and f"value {lower + 1} " in said
    assert f"{share:.0%}" in said and f"p99 over {n} requests" in said
    assert (f"{n - lower} of them" in said) is not top  # how many lie above it, if any
