"""Chapter 07's sweeps and mixed traffic on made-up numbers: each verdict of the findings, the
spread over repeated servings, and a few rendered paragraphs
(servelab.chapters.throughput_latency)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from servelab.bench.client import PlannedRequest, RequestRecord
from servelab.bench.frames import Result
from servelab.bench.spread import Spread
from servelab.bench.workloads import BATCH, CHAT
from servelab.chapters import throughput_latency as tl
from servelab.chapters.throughput_latency import (
    PAIR,
    Capacity,
    FirstTokens,
    MixedFindings,
    Outcome,
    Setting,
    SweepFindings,
)

SETTING = Setting(interactive_seqs=4, batch_seqs=64, ttft_slo_ms=1000, output_tokens=32,
                  device_label="CPU X (2 cores)")
SPLIT = "1 core (0) and 1 GiB of KV cache"


def _sweep(tpot, ttft, out, waiting=0):
    return pd.DataFrame({"rate": [1, 2, 4, 8], "tpot_ms_p50": tpot, "ttft_ms_p99": ttft,
                         "output_tok_s": out, "waiting_max": [0, 0, 0, waiting]})


SMALL = _sweep([40, 45, 50, 55], [300, 600, 1500, 4000], [30, 60, 100, 110])


@pytest.mark.parametrize(("batch", "verdict"), [
    (_sweep([60] * 4, [300, 500, 800, 900], [30] * 4), FirstTokens.SMALL_BROKE),
    (_sweep([60] * 4, [1200, 1500, 1800, 5000], [30] * 4), FirstTokens.LARGE_BROKE),
    (_sweep([60] * 4, [300, 600, 1500, 4000], [30] * 4), FirstTokens.NOT_SEPARATED),
])
def test_which_cap_broke_first_follows_the_slo(batch, verdict):
    assert SweepFindings.of(SMALL, batch, SETTING).first_tokens is verdict


def test_both_missing_the_slo_at_the_lowest_rate_is_said():
    late = _sweep([40] * 4, [1500] * 4, [10, 20, 30, 40])
    found = SweepFindings.of(late, late, SETTING)
    assert found.first_tokens is FirstTokens.BOTH_MISSED
    assert (found.sustained_i, found.sustained_b) == (None, None)
    assert "Both missed the target even at the lowest rate" in tl._chat_text(found)


# 8 req/s × 32 tokens: 256 tok/s offered at the top rate; KEPT_UP is 80% of it, 204.8 tok/s.
@pytest.mark.parametrize(("peak_small", "peak_large", "waiting", "verdict"), [
    (250, 256, 3, Capacity.LOAD_BOUND),
    (20, 200, 3, Capacity.MOST_OF_EXTRA),    # 10× against half of min(16, 20)
    (100, 105, 0, Capacity.NO_QUEUE),        # no request waited for a small-cap slot
    (100, 220, 3, Capacity.LARGE_KEPT_UP),   # the large cap reached 86% of the load
    (100, 119, 3, Capacity.SATURATED),       # 1.19× < SATURATED_GAIN
    (100, 84, 3, Capacity.SATURATED),        # 0.84× > 1 / SATURATED_GAIN
    (100, 83, 3, Capacity.LOST),
    (100, 180, 3, Capacity.SOME_GAIN),
])
def test_each_capacity_verdict(peak_small, peak_large, waiting, verdict):
    small = _sweep([40] * 4, [300] * 4, [10, 10, 10, peak_small], waiting)
    large = _sweep([60] * 4, [300] * 4, [10, 10, 10, peak_large])
    found = SweepFindings.of(small, large, SETTING)
    assert found.offered == 256 and found.capacity is verdict


def test_saturation_is_worded_only_with_both_caps_at_their_limit():
    small = _sweep([40] * 4, [300] * 4, [10, 10, 10, 100], waiting=3)
    saturated = tl._throughput_text(SweepFindings.of(small, _sweep([60] * 4, [300] * 4,
                                                                   [10, 10, 10, 105]), SETTING))
    assert "almost nothing" in saturated and "Requests queued" in saturated
    assert "CPU X (2 cores)" in saturated and "16× as many sequences" in saturated
    unqueued = _sweep([40] * 4, [300] * 4, [10, 10, 10, 100], waiting=0)
    untold = tl._throughput_text(SweepFindings.of(unqueued, _sweep([60] * 4, [300] * 4,
                                                                   [10, 10, 10, 105]), SETTING))
    assert "cannot tell whether more sequences per step add throughput" in untold
    assert "almost nothing" not in untold
    lost = tl._throughput_text(SweepFindings.of(small, _sweep([60] * 4, [300] * 4,
                                                              [10, 10, 10, 40]), SETTING))
    assert "0.4× the peak throughput: less than the small cap" in lost
    assert "60 ms apart at the lowest rate against 40 ms" in lost and "almost nothing" not in lost


def _mixed(pair_chat, pair_job, spread=0.0, n=3, split=SPLIT):
    """The pair (when ``split``) and two single servers: the small cap's chat p99 900 ms
    (850-950) and job 12 s (11.5-12.5), the large cap's 1,500 ms and 8 s (7.5-8.5); the pair's
    ranges are ``spread`` either side of its medians."""
    def row(chat, job, width_chat, width_job):
        return {**Spread(chat, chat - width_chat, chat + width_chat, n).columns(
            "chat_ttft_ms_p99"), **Spread(job, job - width_job, job + width_job, n).columns(
            "batch_job_s")}
    rows = {PAIR: row(pair_chat, pair_job, spread * pair_chat, spread * pair_job)} if split else {}
    rows["one small"] = row(900.0, 12.0, 50.0, 0.5)
    rows["one large"] = row(1500.0, 8.0, 50.0, 0.5)
    return MixedFindings.of(tl.setups_table(rows), split)


@pytest.mark.parametrize(("chat", "job", "outcomes", "says"), [
    (500, 7.0, (Outcome.BETTER, Outcome.BETTER), "paid for itself here"),
    (500, 9.0, (Outcome.BETTER, Outcome.WORSE), "protected the chat users"),
    (1000, 7.0, (Outcome.WORSE, Outcome.BETTER), "the chat users waited longer"),
    (1000, 9.0, (Outcome.WORSE, Outcome.WORSE), "lost on both counts"),
    (500, 8.2, (Outcome.BETTER, Outcome.UNTOLD), "for the job the ranges overlap"),
    (920, 7.0, (Outcome.UNTOLD, Outcome.BETTER), "For the chat users the ranges overlap"),
    (920, 8.2, (Outcome.UNTOLD, Outcome.UNTOLD),
     "For the chat users and the job the ranges overlap, so this run cannot tell"),
])
def test_each_mixed_outcome_and_its_words(chat, job, outcomes, says):
    found = _mixed(chat, job, spread=0.02)
    assert (found.chat, found.job) == outcomes
    assert (found.best_chat.median, found.best_job.median) == (900.0, 8.0)
    text = tl._mixed_text(found)
    assert says in text
    if Outcome.UNTOLD in outcomes:
        assert "does not say whether two deployments beat one" in text
        assert "paid for itself" not in text and "lost on both" not in text


def test_overlapping_ranges_make_no_claim_however_far_apart_the_medians():
    # The pair's median chat is 44% below the best single's, but its range reaches into it.
    found = _mixed(500, 7.0, spread=0.8)
    assert found.chat is Outcome.UNTOLD and found.job is Outcome.UNTOLD
    text = tl._mixed_text(found)
    assert "500 ms (range 100–900 ms over 3)" in text
    assert "cannot tell the set-ups apart" in text and "paid for itself" not in text


def test_a_single_serving_has_no_spread_to_weigh():
    found = _mixed(500, 7.0, n=1)
    assert found.chat is Outcome.UNTOLD
    assert "With one run each there is no spread to weigh the difference for the chat users and " \
           "the job against" in tl._mixed_text(found)


def test_without_a_split_the_page_makes_no_claim():
    found = _mixed(500, 7.0, split=None)
    assert found.chat is None and found.job is None
    text = tl._mixed_text(found)
    assert "makes no claim about two deployments" in text and "won" not in text


def test_the_story_opens_with_the_prediction_and_words_all_three_parts():
    text = tl.story(SweepFindings.of(SMALL, SMALL, SETTING), _mixed(500, 7.0), "small first")
    assert text.startswith("You predicted: *small first*")
    assert "**Interactive chat.**" in text and "**Mixed traffic.**" in text
    assert "a token took 40 ms with max_num_seqs=4" in text


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
