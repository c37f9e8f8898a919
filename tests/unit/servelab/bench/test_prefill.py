"""servelab.bench.prefill: the prefill rate fitted apart from the fixed cost per request."""

from __future__ import annotations

import pytest

from servelab.bench.prefill import fit_prefill


def test_the_prefill_rate_leaves_the_fixed_cost_per_request_out():
    # 30 ms per request whatever its length, then 1,000 tokens/s: 100 tokens at 130 ms, 800 at
    # 830 ms. Tokens over the whole time would say 964 tokens/s for the long one.
    fit = fit_prefill(100, 0.130, 800, 0.830)
    assert fit.tok_s == pytest.approx(1000.0) and fit.fixed_ms == pytest.approx(30.0)
    assert fit.separated and fit.prefill_ms(400) == pytest.approx(400.0)
    # A line through the two points that starts below zero: no fixed part shows.
    flat = fit_prefill(100, 0.095, 800, 0.8)
    assert flat.fixed_ms == 0 and flat.tok_s == pytest.approx(1000.0)
    assert "no fixed cost per request measurable" in str(flat)
    noisy = fit_prefill(100, 0.5, 800, 0.4)
    assert not noisy.separated and noisy.tok_s == pytest.approx(2000.0)
    assert "could not fit" in str(noisy)
