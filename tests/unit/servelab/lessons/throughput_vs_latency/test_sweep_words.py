"""servelab.lessons.throughput_vs_latency.sweep_words: chapter 07's sweeps worded on made-up runs:
how far the SLO held, the goodput, the pace of tokens, the step arithmetic beside the gain, the cap
to try and both caps' limits."""

from __future__ import annotations

import pytest

from servelab.bench.spread import Spread
from servelab.lessons.compare import Compared
from servelab.lessons.device_model.foretold import Foretold
from servelab.lessons.throughput_vs_latency import slot_words, sweep_words
from servelab.lessons.throughput_vs_latency.slot_rate import SlotRate
from servelab.lessons.throughput_vs_latency.sweep_findings import FirstTokens, RateSweepFindings
from tests.unit.servelab.lessons.test_rate_sweeps import (
    ACROSS,
    MET,
    MISSED,
    SETTING,
    SMALL,
    STEADY_SETTING,
    _rates,
    _steady,
)


def test_the_slo_holds_up_to_the_last_rate_every_run_met():
    found = RateSweepFindings.of(_rates((MET, ACROSS, MET)), _rates((MISSED,) * 3), SETTING)
    assert (found.sustained(found.small), found.sustained(found.large)) == (2.0, None)
    text = sweep_words.chat_text(found)
    assert f"max_num_seqs=4 {sweep_words.held_to(found, 2.0)}. With 64" in text
    assert f"64, {sweep_words.held_to(found, None)}" in text


def test_a_cap_that_held_at_the_top_rate_is_not_read_as_its_limit():
    found = RateSweepFindings.of(_rates((MET,) * 3), _rates((MET,) * 3), SETTING)
    assert found.sustained(found.small) == 16.0 and found.next_rate(16.0) is None
    assert sweep_words.held_to(found, 16.0) in sweep_words.chat_text(found)


def test_held_to_names_the_last_rate_every_run_held_and_the_next() -> None:
    """The held-rate formatter: its whole output is a rate, with the next one or none."""
    found = RateSweepFindings.of(SMALL, SMALL, SETTING)
    assert sweep_words.held_to(found, 2.0) == "up to 2 req/s (not in every run at 8)"
    assert sweep_words.held_to(found, 16.0) == (
        "at every rate tried, to the sweep's highest of 16 req/s"
    )
    assert sweep_words.held_to(found, None) == "at none of the rates tried"


def test_goodput_is_the_highest_rate_every_run_kept_its_share_within_the_slo():
    small = _rates((MET,) * 3, attainment=(1.0, (0.95, 0.85, 0.99), 0.5))
    large = _rates((MET,) * 3, attainment=(0.95, 0.92, 0.90))
    found = RateSweepFindings.of(small, large, SETTING)
    assert (found.goodput_rate(found.small), found.goodput_rate(found.large)) == (2.0, 16.0)
    goodput = sweep_words._goodput_text(found)
    assert not found.goodput_as_slo and goodput in sweep_words.chat_text(found)
    assert "90%" in goodput and f"max_num_seqs=4 {sweep_words.held_to(found, 2.0)}" in goodput
    assert f"64, {sweep_words.held_to(found, 16.0)}" in goodput
    held = RateSweepFindings.of(_rates((MET,) * 3), _rates((MET,) * 3), SETTING)
    assert all(held.sustained(cap) == held.goodput_rate(cap) for cap in (held.small, held.large))
    assert held.goodput_as_slo
    merged = sweep_words.chat_text(held)
    assert "1,000 ms" in merged and "90%" in merged
    assert sweep_words._goodput_text(held) not in merged  # said once, with the target
    assert merged.count(sweep_words.held_to(held, 16.0)) == 2
    none = RateSweepFindings.of(_rates((MET,) * 3, attainment=(0.89, 1.0, 1.0)), large, SETTING)
    assert none.goodput_rate(none.small) is None
    assert f"max_num_seqs=4 {sweep_words.held_to(none, None)}." in sweep_words._goodput_text(none)


def test_a_p99_of_a_few_requests_is_said_to_be_near_the_slowest():
    few = RateSweepFindings.of(SMALL, SMALL, SETTING)
    assert not few.tail_described
    assert "With 4 to 12 requests" in sweep_words.chat_text(few)
    many = RateSweepFindings.of(
        _rates((MET,) * 3, requests=(100, 200, 300)),
        _rates((MET,) * 3, requests=(100, 200, 300)),
        SETTING,
    )
    assert many.tail_described and "With 100 to 300" not in sweep_words.chat_text(many)


def test_where_a_cap_broke_its_attainment_is_said_to_depend_on_the_requests_sent():
    small = _rates((MET, MISSED, MISSED), attainment=(1.0, 0.5, 0.25))
    found = RateSweepFindings.of(small, _rates((MET, MET, MISSED)), SETTING)
    assert found.first_tokens is FirstTokens.SMALL_BROKE
    assert found.split_share is not None
    assert (found.split_share.sent, found.split_share.met) == (12, 6)
    text = sweep_words.chat_text(found)
    said = sweep_words._attainment_text(found)
    assert said and said in text
    assert "0.50 (all 3 alike)" in said and "12 requests" in said and "(6 at" in said
    untold = RateSweepFindings.of(SMALL, SMALL, SETTING)
    assert untold.split_share is None and sweep_words._attainment_text(untold) == ""


PACES = [
    ((30, 31, 32), Compared.LOWER),
    ((50, 55, 60), Compared.HIGHER),
    ((38, 41, 44), Compared.ALIKE),
    ((43, 44, 45), Compared.ALIKE),
]  # the last 7% apart


@pytest.mark.parametrize(("tpot", "outcome"), PACES)
def test_the_pace_of_tokens_is_compared_only_beyond_the_spread(tpot, outcome):
    found = RateSweepFindings.of(SMALL, _rates((MET,) * 3, tpot=(tpot,) * 3), SETTING)
    assert found.pace_low is outcome and found.pace_high is outcome
    text = sweep_words.chat_text(found)
    assert "| 41 (40–42) |" in text and f"| {tpot[1]} ({tpot[0]}–{tpot[2]}) |" in text
    told = sweep_words._PACE_TOLD.get(outcome, sweep_words._PACE_UNTOLD)
    assert f"| {told} |" in sweep_words._pace(found)  # each rate's row says what the runs tell
    assert len({*sweep_words._PACE_TOLD.values(), sweep_words._PACE_UNTOLD}) == 3
    assert ("10%" in sweep_words._pace(found)) is (outcome is Compared.ALIKE)


@pytest.mark.parametrize(
    ("large_out", "late", "ramp"),
    [
        ((150, 160, 170), 41, True),  # 1.95x measured against 2.5x from the steps: the ramp told
        ((220, 230, 240), 41, False),  # 2.8x measured, above the steps' 2.5x: nothing to account
        ((150, 160, 170), 50, True),  # longer steps: 2.5 x 41 / 50 = 2.05x per unit of time
    ],
)
def test_the_step_arithmetic_sits_beside_the_measured_gain(large_out, late, ramp):
    small = _rates((MET,) * 3, in_flight=((2, 3, 4), (5, 6, 7), (6, 7, 9)))
    large = _rates(
        (MET,) * 3,
        tpot=((40, 41, 42),) * 2 + ((late - 1, late, late + 1),),
        out=((20, 21, 22), (60, 62, 64), large_out),
    )
    found = RateSweepFindings.of(small, large, SETTING)
    assert found.step_gain == pytest.approx(2.5 * 41 / late)
    assert found.step_ratio == pytest.approx(late / 41) and found.gain_within_steps is not ramp
    text = sweep_words.throughput_text(found)
    said = sweep_words._step_text(found)
    assert said in text and "41 ms" in said and f"{late} ms" in said and "up to 10" in said
    assert f"{found.step_gain:.1f}×" in said and f"{found.step_ratio:.2f}×" in said
    assert ("(12 ÷ 16 req/s)" in said and "0.8 s" in said) is ramp


def test_no_cap_is_suggested_where_none_lies_between():
    close = _rates((MET,) * 3, in_flight=((2, 3, 4), (5, 6, 7), (5, 5, 5)))
    found = RateSweepFindings.of(SMALL, close, SETTING)
    assert found.large_seqs == 5 and found.try_cap is None
    assert sweep_words._try_text(found) == ""


def test_a_load_that_filled_the_large_cap_is_not_called_short_of_it():
    many = ((64, 70, 80),) * 3
    found = RateSweepFindings.of(
        _rates((MET,) * 3, in_flight=many), _rates((MET,) * 3, in_flight=many), SETTING
    )
    assert found.large_seqs == 64 and not found.large_unfilled
    assert "cap of 64" not in sweep_words.throughput_text(found)
    assert sweep_words._try_text(found) == ""


def test_the_same_peak_in_every_run_is_said_once():
    small = _rates((MET,) * 3, in_flight=((2, 3, 4), (5, 6, 7), (12, 12, 12)))
    large = _rates((MET,) * 3, out=((20, 21, 22), (60, 62, 64), (150, 160, 170)))
    found = RateSweepFindings.of(small, large, SETTING)
    assert found.busiest_alike
    text = sweep_words.throughput_text(found)
    assert "12 in every run" in text and "12 to 12" not in text


def test_both_caps_limits_are_told_and_the_law_is_checked_against_the_finished_rate() -> None:
    small, large = _steady((2.0, 4.0), (3, 20)), _steady((2.0, 7.0), (3, 17))
    found = RateSweepFindings.of(small, large, STEADY_SETTING)
    assert found.small_queued and found.large_queued
    assert found.small.served[-1].median == pytest.approx(4.1)
    said = sweep_words._limits_text(found)
    assert said in sweep_words.throughput_text(found) and "16" in said and "7.10" in said
    short = RateSweepFindings.of(small, _steady((2.0, 7.0), (3, 12)), STEADY_SETTING)
    assert not short.large_queued and sweep_words._limits_text(short) != said
    slots = SlotRate(4, Spread(1.0, 0.95, 1.05, 3))  # 4.0 req/s predicted
    [check] = slots.served_checks(found.small.served[-1])
    assert check.predicted == 4.0 and check.foretold is Foretold.INSIDE
    text = slot_words.rates_check_text(slots, found.rates, found)
    assert "4.10 req/s (4.00–4.20)" in text
    assert slots.served_checks(None) == ()
