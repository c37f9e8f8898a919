"""Chapter 07's sweeps and mixed traffic on made-up numbers: each verdict of the findings, the
spread over repeated runs and servings, the tables the page prints, and a few rendered
paragraphs (the runs and tables in servelab.lessons.rate_sweeps; in
servelab.lessons.throughput_vs_latency, the findings in sweep_findings and mixed_findings, their
words in sweep_words, mixed_words and words)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from servelab.bench.client import PlannedRequest, RequestRecord
from servelab.bench.frames import Result
from servelab.bench.spread import Spread
from servelab.bench.workloads import BATCH, CHAT, Role
from servelab.engines.placement import side_by_side, whole_device
from servelab.hardware import Device
from servelab.lessons import rate_sweeps as tl
from servelab.lessons.compare import NOT_TOLD_APART, Compared
from servelab.lessons.device_model.foretold import Foretold
from servelab.lessons.rate_sweeps import PAIR
from servelab.lessons.throughput_vs_latency import mixed_words, slot_words, sweep_words, words
from servelab.lessons.throughput_vs_latency.mixed_findings import MixedFindings
from servelab.lessons.throughput_vs_latency.slot_rate import SlotRate
from servelab.lessons.throughput_vs_latency.sweep_findings import (
    CapsSetting,
    FirstTokens,
    MoreSeqs,
    RateSweepFindings,
)
from servelab.tables import LABELS, readable

SETTING = CapsSetting(interactive_seqs=4, batch_seqs=64, ttft_slo_ms=1000,
                  device_label="CPU X (2 cores)")
SPLIT = ("1 core (0) and 1 GiB of KV cache", "1 core (1) and 1 GiB of KV cache")
RATES = (2.0, 8.0, 16.0)
REQUESTS = (4, 12, 12)


def _rates(ttft, tpot=((40, 41, 42),) * 3, out=((20, 21, 22), (60, 62, 64), (80, 82, 84)),
           in_flight=((2, 3, 4), (6, 7, 8), (9, 10, 12)), requests=REQUESTS,
           attainment=(1.0, 1.0, 1.0)):
    """A sweep's rate table from made-up runs: each argument one tuple of run values a rate
    (``requests``: one value a rate; ``attainment``: one value, or a tuple of run values)."""
    rows = [{"repeat": repeat, "rate": rate, "requests": requests[i],
             "ttft_ms_p99": ttft[i][repeat],
             "tpot_ms_p50": tpot[i][repeat], "output_tok_s": out[i][repeat],
             "slo_attainment": np.broadcast_to(attainment[i], 3)[repeat],
             "max_in_flight": in_flight[i][repeat],
             "goodput_req_s": rate, "waiting_max": 0.0, "offered_tok_s": rate * 5}
            for i, rate in enumerate(RATES) for repeat in range(3)]
    return tl.rate_table(pd.DataFrame(rows))


MET, MISSED, ACROSS = (300, 400, 500), (1200, 1500, 1800), (800, 1000, 1200)
SMALL = _rates((MET, MISSED, MISSED))


def test_a_rate_table_keeps_each_figures_median_and_range():
    table = _rates((MET, MISSED, (900, 2000, 1100)))
    assert list(table["rate"]) == list(RATES)
    top = table.iloc[-1]
    assert Spread.in_row(top, "ttft_ms_p99") == Spread(1100.0, 900.0, 2000.0, 3)
    assert Spread.in_row(top, "max_in_flight") == Spread(10.0, 9.0, 12.0, 3)
    assert top["goodput_req_s"] == 16.0


def test_the_sweep_takes_the_rates_in_turn_and_each_pass_its_own_seed(monkeypatch):
    calls = []

    def fake_open_loop(server, rate, count, **options):
        calls.append((rate, count, options["seed"]))
        return Result(workload=None, records=[_request(0, CHAT, 0.0, 0.1)], duration_s=1.0)

    monkeypatch.setattr(tl, "open_loop", fake_open_loop)
    runs = tl.sweep_repeated(object(), [2, 16], [4, 12], 3, input_tokens=8, max_tokens=4)
    assert calls == [(2, 4, 0), (16, 12, 0), (2, 4, 1), (16, 12, 1), (2, 4, 2), (16, 12, 2)]
    assert list(runs["repeat"]) == [0, 0, 1, 1, 2, 2] and list(runs["rate"]) == [2, 16] * 3


def test_the_printed_tables_show_the_range_beside_the_median_under_readable_names():
    shown = readable(tl.rate_view(_rates((MET, MISSED, (900, 2000, 1100)))))
    assert shown.index.name == "arrival rate (req/s)"
    assert shown.loc[16.0, "first token p99 (ms)"] == "1,100 (900–2,000)"
    assert shown.loc[2.0, LABELS["max_in_flight"]] == "3 (2–4)"
    assert shown.columns[0] == "requests" and shown.loc[8.0, "requests"] == "12"
    assert shown.loc[16.0, "goodput (req/s)"] == "16.0" and shown.loc[2.0, "most waiting"] == "0"
    mixed = readable(tl.setups_view(_mixed_table(500, 7.0, spread=0.02)))
    assert mixed.index.name == "set-up"
    assert mixed.loc[PAIR, LABELS["chat_ttft_ms_p99"]] == "500 (490–510)"
    assert mixed.loc["one small", LABELS["batch_job_s"]] == "12.0 (11.5–12.5)"


def test_both_sweeps_must_cover_the_same_rates():
    with pytest.raises(ValueError, match="same rates"):
        RateSweepFindings.of(SMALL, SMALL.iloc[:2], SETTING)


BROKE = [((MET, MISSED, MISSED), (MET, MET, MISSED), FirstTokens.SMALL_BROKE, 8.0),
         ((MET, MET, MET), (MET, MISSED, MISSED), FirstTokens.LARGE_BROKE, 8.0),
         ((MET, ACROSS, MISSED), (MET, MET, ACROSS), FirstTokens.STRADDLED, 8.0),
         ((MET, MISSED, MISSED), (MET, MISSED, MISSED), FirstTokens.NOT_SEPARATED, None),
         ((MISSED, MISSED, MISSED), (MISSED, MET, MET), FirstTokens.BOTH_MISSED, None)]


def _broke_text(small, large) -> str:
    """What ``chat_text`` says of which cap broke: its opening paragraph."""
    text = sweep_words.chat_text(RateSweepFindings.of(_rates(small), _rates(large), SETTING))
    return text.split("\n\n")[0]


@pytest.mark.parametrize(("small", "large", "verdict", "rate"), BROKE)
def test_which_cap_broke_first_needs_every_run_on_one_side_of_the_slo(small, large, verdict,
                                                                      rate):
    found = RateSweepFindings.of(_rates(small), _rates(large), SETTING)
    assert found.first_tokens is verdict
    told = _broke_text(small, large)
    assert rate is None or f"{rate:g} req/s" in told
    assert (" req/s" in told) is (rate is not None)
    assert len({_broke_text(s, b) for s, b, _, _ in BROKE}) == len(BROKE)


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
        "at every rate tried, to the sweep's highest of 16 req/s")
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
    many = RateSweepFindings.of(_rates((MET,) * 3, requests=(100, 200, 300)),
                            _rates((MET,) * 3, requests=(100, 200, 300)), SETTING)
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


PACES = [((30, 31, 32), Compared.LOWER), ((50, 55, 60), Compared.HIGHER),
         ((38, 41, 44), Compared.ALIKE), ((43, 44, 45), Compared.ALIKE)]  # the last 7% apart


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


# The large cap's runs had 9, 10, 12 requests in flight at 16 req/s: 10 sequences at once, 2.5×
# the small cap's 4 slots; MOST_OF_EXTRA asks for half of that, 1.25×, beyond the spread.
CAPACITY = [((4, 6, 9), (160, 170, 180), MoreSeqs.NO_QUEUE),
            ((6, 7, 9), (150, 160, 170), MoreSeqs.MOST_OF_EXTRA),
            ((6, 7, 9), (90, 95, 100), MoreSeqs.SOME_GAIN),
            ((6, 7, 9), (60, 65, 70), MoreSeqs.LOST),
            ((6, 7, 9), (70, 83, 95), MoreSeqs.UNTOLD),
            ((6, 7, 9), (85, 88, 89), MoreSeqs.UNTOLD)]


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
    tails = {sweep_words.throughput_text(_capacity(*case[:2])).split("(80–84). ")[-1]
             .split("<details>")[0] for case in CAPACITY if case[2] is not MoreSeqs.NO_QUEUE}
    assert len(tails) == 4  # each verdict its own words; the two untold runs name no gain


@pytest.mark.parametrize(("large_out", "late", "ramp"), [
    ((150, 160, 170), 41, True),    # 1.95x measured against 2.5x from the steps: the ramp told
    ((220, 230, 240), 41, False),   # 2.8x measured, above the steps' 2.5x: nothing to account
    ((150, 160, 170), 50, True),    # longer steps: 2.5 x 41 / 50 = 2.05x per unit of time
])
def test_the_step_arithmetic_sits_beside_the_measured_gain(large_out, late, ramp):
    small = _rates((MET,) * 3, in_flight=((2, 3, 4), (5, 6, 7), (6, 7, 9)))
    large = _rates((MET,) * 3, tpot=((40, 41, 42),) * 2 + ((late - 1, late, late + 1),),
                   out=((20, 21, 22), (60, 62, 64), large_out))
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
    found = RateSweepFindings.of(_rates((MET,) * 3, in_flight=many), _rates((MET,) * 3,
                                                                      in_flight=many), SETTING)
    assert found.large_seqs == 64 and not found.large_unfilled
    assert "cap of 64" not in sweep_words.throughput_text(found)
    assert sweep_words._try_text(found) == ""


def _mixed_table(pair_chat, pair_job, spread=0.0, n=3, split=SPLIT):
    """The pair (when ``split``) and two single servers: the small cap's chat p99 900 ms
    (850-950) and job 12 s (11.5-12.5), the large cap's 1,500 ms and 8 s (7.5-8.5); the pair's
    ranges are ``spread`` either side of its medians."""
    def row(chat, job, width_chat, width_job):
        return {**Spread(chat, chat - width_chat, chat + width_chat, n).columns(
            "chat_ttft_ms_p99"), **Spread(job, job - width_job, job + width_job, n).columns(
            "batch_job_s"), "chat_tpot_ms_p50": 60.0, "chat_within_slo": 1.0,
            "batch_output_tok_s": 50.0}
    rows = {PAIR: row(pair_chat, pair_job, spread * pair_chat, spread * pair_job)} if split else {}
    rows["one small"] = row(900.0, 12.0, 50.0, 0.5)
    rows["one large"] = row(1500.0, 8.0, 50.0, 0.5)
    return tl.setups_table(rows)


def _mixed(pair_chat, pair_job, spread=0.0, n=3, split=SPLIT):
    return MixedFindings.of(_mixed_table(pair_chat, pair_job, spread, n, split), split,
                            "all 4 cores")


MIXED = [(500, 7.0, (Compared.LOWER, Compared.LOWER)),
         (500, 9.0, (Compared.LOWER, Compared.HIGHER)),
         (1000, 7.0, (Compared.HIGHER, Compared.LOWER)),
         (1000, 9.0, (Compared.HIGHER, Compared.HIGHER)),
         (500, 8.2, (Compared.LOWER, Compared.UNTOLD)),
         (920, 7.0, (Compared.UNTOLD, Compared.LOWER)),
         (1000, 8.2, (Compared.HIGHER, Compared.UNTOLD)),
         (920, 8.2, (Compared.UNTOLD, Compared.UNTOLD))]


def _verdict_words(chat: float, job: float) -> str:
    """What ``mixed_text`` says after the figures: its verdict's words."""
    return _after_figures(mixed_words.mixed_text(_mixed(chat, job, spread=0.02)))


def _after_figures(text: str) -> str:
    """``mixed_text``'s verdict: its words before the table of figures (which leads, the
    finding first) and the fold that names what each set-up ran on."""
    return text.split("\n\n| ", 1)[0]


@pytest.mark.parametrize(("chat", "job", "outcomes"), MIXED)
def test_each_mixed_outcome_and_its_words(chat, job, outcomes):
    found = _mixed(chat, job, spread=0.02)
    assert (found.chat, found.job) == outcomes
    assert (found.best_chat.median, found.best_job.median) == (900.0, 8.0)
    text = mixed_words.mixed_text(found)
    assert SPLIT[0] in text and SPLIT[1] in text and text.index(SPLIT[0]) < text.index(SPLIT[1])
    assert f"| {chat:,.0f} (" in text and f"| {job:.1f} (" in text  # each set-up a row
    assert "| 900 (" in text and "| 8.0 (" in text
    assert len({_verdict_words(c, j) for c, j, _ in MIXED}) == len(MIXED)
    # Where both parts could not be told, the words claim nothing; where one was told, the
    # closing names the side the split served (or cost) and no more.
    closing = _verdict_words(920, 8.2).split(". ")[-1]
    assert _verdict_words(chat, job).endswith(closing) is (outcomes == (Compared.UNTOLD,) * 2)
    if Compared.UNTOLD in outcomes and outcomes != (Compared.UNTOLD,) * 2:
        told = "the chat users" if outcomes[0] is not Compared.UNTOLD else "the job"
        said = "served" if Compared.LOWER in outcomes else "cost"
        assert f"{said} {told}" in _verdict_words(chat, job)


def test_overlapping_ranges_make_no_claim_however_far_apart_the_medians():
    # The pair's median chat is 44% below the best single's, but its range reaches into it.
    found = _mixed(500, 7.0, spread=0.8)
    assert found.chat is Compared.UNTOLD and found.job is Compared.UNTOLD
    text = mixed_words.mixed_text(found)
    assert "| 500 (100–900)" in text
    assert _after_figures(text) == _verdict_words(920, 8.2)  # the untold pair's words


def test_a_single_serving_has_no_spread_to_weigh():
    found = _mixed(500, 7.0, n=1)
    assert found.chat is Compared.UNTOLD and (found.chat_runs, found.job_runs) == (1, 1)
    once = _after_figures(mixed_words.mixed_text(found))
    assert once != _verdict_words(920, 8.2)  # not the overlapping ranges' words
    assert "| 500, 1 run |" in mixed_words.mixed_text(found)


def test_on_two_gpus_the_words_name_the_card_each_side_had():
    """Kaggle's pair has a T4 each while the one server has the first alone (issue #63)."""
    kaggle = Device(kind="cuda", name="Tesla T4", count=2, memory_gib=15.0)
    halves = side_by_side(kaggle, kv_cache_gib=1.0)
    assert halves is not None
    split = (halves[0].described, halves[1].described)
    found = MixedFindings.of(_mixed_table(500, 7.0, 0.02, 3, split), split,
                             whole_device(kaggle).described)
    text = mixed_words.mixed_text(found)
    pair, single = text.split("<details>", 1)[1].split("The one server for everything", 1)
    assert "GPU 0 of 2" in pair and "GPU 1 of 2" in pair
    assert "GPU 0 of 2" in single and "GPU 1 of 2" not in single


@pytest.mark.parametrize(("gpus", "more"), [(2, True), (1, False), (0, False)])
def test_the_verdict_credits_a_second_card_not_the_split(gpus, more):
    """On Kaggle the pair won with two cards against one: its verdict says the pair had a card
    each and does not credit the split alone (issue #63 item 4); on one card or the CPU the
    verdict is unchanged."""
    card = Device(kind="cuda", name="Tesla T4", count=max(gpus, 1), memory_gib=15.0)
    split = SPLIT if gpus < 2 else ("GPU 0 of 2 (Tesla T4)", "GPU 1 of 2 (Tesla T4)")
    found = MixedFindings.of(_mixed_table(500, 7.0, 0.02, 3, split), split,
                             whole_device(card).described, gpus=gpus)
    assert (found.chat, found.job) == (Compared.LOWER, Compared.LOWER)
    assert found.more_hardware is more
    verdict = _after_figures(mixed_words.mixed_text(found))
    assert ("a card each" in verdict) is more
    assert ("paid for itself" in verdict) is not more
    assert ("one card" in verdict) is more
    if more:  # the note follows every outcome, not only the pair's win
        lost = MixedFindings.of(_mixed_table(1000, 9.0, 0.02, 3, split), split,
                                whole_device(card).described, gpus=gpus)
        assert "a card each" in mixed_words.mixed_text(lost)


def test_without_a_split_the_page_makes_no_claim():
    found = _mixed(500, 7.0, split=None)
    assert found.chat is None and found.job is None and found.chat_runs == 0
    text = mixed_words.mixed_text(found)
    assert not any(char.isdigit() for char in text) and "500" not in text


def test_the_story_opens_with_the_prediction_and_words_all_three_parts():
    text = words.story(RateSweepFindings.of(SMALL, SMALL, SETTING), _mixed(500, 7.0), "small first")
    assert text.startswith("You predicted: *small first*")
    assert "**Interactive chat.**" in text and "**Mixed traffic.**" in text
    assert "41 ms" in text and "max_num_seqs=4" in text and "(medians of 3 runs)" in text


def _request(index: int, role: str, sent: float, ttft: float, tokens: int = 4) -> RequestRecord:
    record = RequestRecord(PlannedRequest(index=index, user=index, prompt="p", max_tokens=tokens,
                                          role=role))
    times = list(sent + ttft + 0.05 * np.arange(tokens))
    record.sent, record.token_times, record.token_samples = sent, times, [0] * tokens
    record.first_token, record.end, record.closed = times[0], times[-1], times[-1] + 0.001
    record.prompt_tokens, record.output_tokens = 10, tokens
    return record


def _serving(chat_ttft: float, job_end: float, parts=(CHAT, BATCH)) -> Result:
    records = []
    if CHAT in parts:
        records += [_request(i, CHAT, 0.5 * i, chat_ttft) for i in range(3)]
    if BATCH in parts:
        records.append(_request(9, BATCH, 0.0, job_end - 0.15))
    return Result(workload=None, records=records, duration_s=job_end)


def test_a_setup_row_spreads_the_servings_and_reads_each_part_where_it_ran():
    one = [_serving(0.2, 6.0), _serving(0.4, 9.0), _serving(0.3, 7.0)]
    row = tl.setup_row(one, one, {"ttft": 1000.0})
    chat = Spread.in_row(row, "chat_ttft_ms_p99")
    assert (chat.median, chat.low, chat.high, chat.n) == pytest.approx((300.0, 200.0, 400.0, 3))
    assert Spread.in_row(row, "batch_job_s") == Spread(7.0, 6.0, 9.0, 3)
    assert row["chat_within_slo"] == 1.0 and row["chat_tpot_ms_p50"] == pytest.approx(50.0)
    # Side by side each server saw one part: the chat from one, the job from the other.
    chats = [_serving(0.2, 1.0, parts=(CHAT,)), _serving(0.25, 1.0, parts=(CHAT,))]
    jobs = [_serving(0.0, 5.0, parts=(BATCH,)), _serving(0.0, 5.5, parts=(BATCH,))]
    pair = tl.setup_row(chats, jobs, {})
    assert Spread.in_row(pair, "chat_ttft_ms_p99").median == pytest.approx(225.0)
    assert Spread.in_row(pair, "batch_job_s") == Spread(5.25, 5.0, 5.5, 2)
    assert not math.isnan(pair["batch_output_tok_s"])


def test_the_same_peak_in_every_run_is_said_once():
    small = _rates((MET,) * 3, in_flight=((2, 3, 4), (5, 6, 7), (12, 12, 12)))
    large = _rates((MET,) * 3, out=((20, 21, 22), (60, 62, 64), (150, 160, 170)))
    found = RateSweepFindings.of(small, large, SETTING)
    assert found.busiest_alike
    text = sweep_words.throughput_text(found)
    assert "12 in every run" in text and "12 to 12" not in text


def test_a_rate_whose_offered_tokens_exceed_the_peak_is_marked() -> None:
    """At 5 tokens an answer 16 req/s offers 80 tok/s, above the 62 tok/s the server made at
    its best rate (the median at 8 req/s); 8 req/s offers 40, below it."""
    table = _rates(ttft=((100,) * 3,) * 3, out=((20, 21, 22), (60, 62, 64), (40, 42, 44)))
    assert list(table["beyond_peak"]) == [False, False, True]
    view = tl.rate_view(table)
    assert list(view["beyond_peak"]) == ["no", "no", "yes"]
    assert list(view.columns[:3]) == ["requests", "offered_tok_s", "beyond_peak"]


# The sweep read in each run's steady middle (steady_figures, steady_table), the limits both caps
# reached, and the served-rate check of Little's law.
STEADY_SETTING = CapsSetting(interactive_seqs=4, batch_seqs=16, ttft_slo_ms=1000,
                      device_label="CPU X (2 cores)")


def _steady_record(index: int, sent: float, ttft: float, tokens: int = 4) -> RequestRecord:
    record = RequestRecord(PlannedRequest(index=index, user=index, prompt="p", max_tokens=tokens,
                                          role=Role.USER))
    times = list(sent + ttft + 0.1 * np.arange(tokens))
    record.sent, record.token_times, record.token_samples = sent, times, [0] * tokens
    record.first_token, record.end, record.closed = times[0], times[-1], times[-1] + 0.001
    record.prompt_tokens, record.output_tokens = 10, tokens
    return record


def _steady_run(rate: float, slow_ends: bool) -> tl.RateRun:
    """50 requests a second apart; with ``slow_ends`` the first and last five wait 5 s for
    their first token (a warm-up and a drain), the rest 0.2 s."""
    records = [_steady_record(i, float(i), 5.0 if slow_ends and (i < 5 or i >= 45) else 0.2)
               for i in range(50)]
    return tl.RateRun(0, rate, 50, 4, Result(workload=None, records=records, duration_s=56.0,
                                             slo={"ttft": 1000.0}))


def test_a_runs_figures_leave_out_its_warm_up_and_drain() -> None:
    whole = tl.runs_frame([_steady_run(1.0, True)]).iloc[0]
    steady = tl.steady_figures(_steady_run(1.0, True))
    assert whole["ttft_ms_p99"] > 4000 and steady["ttft_ms_p99"] == pytest.approx(200.0)
    assert steady["tpot_ms_p50"] == pytest.approx(100.0)
    assert steady["slo_attainment"] == 1.0 and steady["goodput_req_s"] == 1.0
    even = tl.steady_figures(_steady_run(1.0, False))
    assert even[tl.SERVED] == pytest.approx(1.0)  # one a second in the completions' middle
    assert even["output_tok_s"] == pytest.approx(4.0)


def test_the_steady_table_spreads_the_finished_rate_and_prints_it() -> None:
    frame = tl.steady_frame([_steady_run(1.0, False), _steady_run(2.0, False)])
    frame["waiting_max"] = 0.0  # what the server counted: no /metrics in made-up runs
    table = tl.steady_table(frame)
    assert list(table["rate"]) == [1.0, 2.0]
    assert Spread.in_row(table.iloc[0], tl.SERVED).median == pytest.approx(1.0)
    view = tl.steady_view(table)
    assert tl.SERVED in view.columns and view.loc[1.0, tl.SERVED] == "1.00"


def _steady(served: tuple[float, float], in_flight: tuple[int, int]) -> pd.DataFrame:
    """A steady table of two rates, 2 and 8 req/s, three runs each."""
    rows = [{"repeat": repeat, "rate": rate, "requests": 50, "ttft_ms_p99": 300.0,
             "tpot_ms_p50": 40.0 + 10 * i, "output_tok_s": 4 * served[i] + repeat,
             "slo_attainment": 1.0, "max_in_flight": in_flight[i] + repeat,
             tl.SERVED: served[i] + 0.1 * repeat, "goodput_req_s": rate, "waiting_max": 0.0,
             "offered_tok_s": rate * 4}
            for i, rate in enumerate((2.0, 8.0)) for repeat in range(3)]
    return tl.steady_table(pd.DataFrame(rows))


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


def test_the_sweeps_verdicts_that_cannot_tell_take_the_one_value():
    """Issue #66: every verdict that says the runs cannot tell takes compare.NOT_TOLD_APART."""
    assert FirstTokens.NOT_SEPARATED.value == MoreSeqs.UNTOLD.value == NOT_TOLD_APART
