"""servelab.lessons.throughput_vs_latency.sweep_findings: chapter 07's two caps swept over the same
rates, on made-up runs: which cap broke first, and each verdict on the larger cap's output."""

from __future__ import annotations

import pytest

from servelab.lessons.compare import NOT_TOLD_APART
from servelab.lessons.throughput_vs_latency import sweep_words
from servelab.lessons.throughput_vs_latency.sweep_findings import (
    FirstTokens,
    MoreSeqs,
    RateSweepFindings,
)
from tests.unit.servelab.lessons.test_rate_sweeps import ACROSS, MET, MISSED, SETTING, SMALL, _rates


def test_both_sweeps_must_cover_the_same_rates():
    with pytest.raises(ValueError, match="same rates"):
        RateSweepFindings.of(SMALL, SMALL.iloc[:2], SETTING)


BROKE = [
    ((MET, MISSED, MISSED), (MET, MET, MISSED), FirstTokens.SMALL_BROKE, 8.0),
    ((MET, MET, MET), (MET, MISSED, MISSED), FirstTokens.LARGE_BROKE, 8.0),
    ((MET, ACROSS, MISSED), (MET, MET, ACROSS), FirstTokens.STRADDLED, 8.0),
    ((MET, MISSED, MISSED), (MET, MISSED, MISSED), FirstTokens.NOT_SEPARATED, None),
    ((MISSED, MISSED, MISSED), (MISSED, MET, MET), FirstTokens.BOTH_MISSED, None),
]


def _broke_text(small, large) -> str:
    """What ``chat_text`` says of which cap broke: its opening paragraph."""
    text = sweep_words.chat_text(RateSweepFindings.of(_rates(small), _rates(large), SETTING))
    return text.split("\n\n")[0]


@pytest.mark.parametrize(("small", "large", "verdict", "rate"), BROKE)
def test_which_cap_broke_first_needs_every_run_on_one_side_of_the_slo(small, large, verdict, rate):
    found = RateSweepFindings.of(_rates(small), _rates(large), SETTING)
    assert found.first_tokens is verdict
    told = _broke_text(small, large)
    assert rate is None or f"{rate:g} req/s" in told
    assert (" req/s" in told) is (rate is not None)
    assert len({_broke_text(s, b) for s, b, _, _ in BROKE}) == len(BROKE)


# The large cap's runs had 9, 10, 12 requests in flight at 16 req/s: 10 sequences at once, 2.5×
# the small cap's 4 slots; MOST_OF_EXTRA asks for half of that, 1.25×, beyond the spread.
CAPACITY = [
    ((4, 6, 9), (160, 170, 180), MoreSeqs.NO_QUEUE),
    ((6, 7, 9), (150, 160, 170), MoreSeqs.MOST_OF_EXTRA),
    ((6, 7, 9), (90, 95, 100), MoreSeqs.SOME_GAIN),
    ((6, 7, 9), (60, 65, 70), MoreSeqs.LOST),
    ((6, 7, 9), (70, 83, 95), MoreSeqs.UNTOLD),
    ((6, 7, 9), (85, 88, 89), MoreSeqs.UNTOLD),
]


def _capacity(small_in_flight, large_out) -> RateSweepFindings:
    small = _rates((MET,) * 3, in_flight=((2, 3, 4), (5, 6, 7), small_in_flight))
    large = _rates((MET,) * 3, out=((20, 21, 22), (60, 62, 64), large_out))
    return RateSweepFindings.of(small, large, SETTING)


@pytest.mark.parametrize(("small_in_flight", "large_out", "verdict"), CAPACITY)
def test_each_capacity_verdict(small_in_flight, large_out, verdict):
    found = _capacity(small_in_flight, large_out)
    assert found.capacity is verdict
    assert found.large_seqs == 10 and found.seq_ratio == 2.5
    text = sweep_words.throughput_text(found)
    assert f"{large_out[1]} output tok/s ({large_out[0]}–{large_out[2]})" in text
    assert "16 req/s" in text and "82 (80–84)" in text
    if verdict is MoreSeqs.NO_QUEUE:
        assert "4 requests" in text and "2.5×" not in text
    else:
        assert found.large_unfilled and found.try_cap == 7 and not found.busiest_alike
        assert "6 to 9" in text and "10 at once" in text and "2.5×" in text
        assert "cap of 64" in text and "max_num_seqs=7," in text
    if verdict in (MoreSeqs.MOST_OF_EXTRA, MoreSeqs.SOME_GAIN):
        assert f"{found.gain:.1f}×" in text
    tails = {
        sweep_words.throughput_text(_capacity(*case[:2]))
        .split("(80–84). ")[-1]
        .split("<details>")[0]
        for case in CAPACITY
        if case[2] is not MoreSeqs.NO_QUEUE
    }
    assert len(tails) == 4  # each verdict its own words; the two untold runs name no gain


def test_the_sweeps_verdicts_that_cannot_tell_take_the_one_value():
    """Issue #66: every verdict that says the runs cannot tell takes compare.NOT_TOLD_APART."""
    assert FirstTokens.NOT_SEPARATED.value == MoreSeqs.UNTOLD.value == NOT_TOLD_APART
