"""servelab.lessons.dials.words: every branch of chapter 05's text, on made-up findings."""

from __future__ import annotations

import pandas as pd
import pytest

from servelab.bench.spread import Spread
from servelab.engines.vllm_server import Capacity
from servelab.lessons.dials import words as dials_words
from servelab.lessons.dials.findings import SWEEP_SPREADS, ContextFindings, SweepFindings
from servelab.lessons.dials.runs import OverLong, start_refusal
from tests.support import REFUSAL_LOG, repeated


def _found(sweep: pd.DataFrame, runs: int = 3) -> SweepFindings:
    """Findings of ``sweep`` run ``runs`` times, each run 3 % either side of the median."""
    return SweepFindings.from_sweep(repeated(sweep, SWEEP_SPREADS, runs))


def _sweep(out, tpot, arrival, runs: int = 3):
    return _found(pd.DataFrame(
        {"output_tok_s": out, "tpot_ms_p99": tpot, "latency_s_p99": arrival},
        index=pd.Index([1, 64], name="max_num_seqs")), runs)


def test_sweep_text_per_token_worse_backlog_better():
    text = dials_words.sweep_text(_sweep([30, 300], [35, 90], [34.1, 5.1]))
    assert "Each level ran 3 times" in text and "**10.0×**" in text
    assert "(p99) rose: **35 → 90 ms** (runs 34–36 and 87–93 ms)" in text
    assert "**30 → 300 tok/s** (runs 29–31 and 291–309 tok/s)" in text
    narrow = dials_words.sweep_text(_found(pd.DataFrame(
        {"output_tok_s": [23.0, 234.0], "tpot_ms_p99": [35, 90], "latency_s_p99": [9.0, 2.0]},
        index=pd.Index([1, 24], name="max_num_seqs")), runs=3))
    assert "(runs 22–24 and 227–241 tok/s)" in narrow
    # both ends round to one number: it is printed once, not as "23–23"
    assert dials_words._ends(Spread(23.0, 22.6, 23.4, 3), Spread(90.0, 88.0, 92.0, 3), 0,
                             "tok/s") == "**23 → 90 tok/s** (runs 23 and 88–92 tok/s)"
    assert "(p99) fell: **34.1 → 5.1 s**" in text and "s), because" in text
    assert "This run shows it" in text


def test_sweep_text_claims_nothing_from_one_run_a_level():
    text = dials_words.sweep_text(_sweep([30, 300], [35, 90], [34.1, 5.1], runs=1))
    assert "did not show batching's throughput gain beyond its runs' spread" in text
    assert "(p99) moved no further than its runs' spread: **35 → 90 ms**." in text
    assert "Each level ran" not in text and "This run shows it" not in text


@pytest.mark.parametrize(("medians", "phrase"), [
    ([8.0, 2.0, 2.5], "shortest at 12 sequences (**2.0 s**) and longer again at 24 (**2.5 s**)"),
    ([8.0, 2.0, 2.1], "2.1 s at 24 sequences, within 10% of the shortest, 2.0 s at 12"),
    ([8.0, 2.0, 1.5], "1.5 s at 24 sequences, the shortest of any level"),
])
def test_sweep_text_weighs_the_median_from_arrival(medians, phrase):
    sweep = pd.DataFrame({"output_tok_s": [30, 120, 180], "tpot_ms_p99": [35, 60, 90],
                          "latency_s_p99": [16.0, 3.0, 2.6], "latency_s_p50": medians},
                         index=pd.Index([1, 12, 24], name="max_num_seqs"))
    text = dials_words.sweep_text(_found(sweep))
    assert phrase in text
    assert ("longer again" in text) == (medians[-1] > 1.1 * min(medians))


def test_sweep_text_when_nothing_moved():
    text = dials_words.sweep_text(_sweep([30, 31], [35, 36], [10.0, 10.2]))
    assert "did not show batching's throughput gain" in text
    assert "stayed about the same" in text
    assert "did not show here" in text
    assert "The median from arrival" not in text   # the sweep measured no medians


def test_sweep_text_names_a_best_level_in_the_middle():
    sweep = pd.DataFrame({"output_tok_s": [30, 200, 260], "tpot_ms_p99": [35, 60, 90],
                          "latency_s_p99": [9.0, 2.0, 2.5]},
                         index=pd.Index([1, 12, 24], name="max_num_seqs"))
    text = dials_words.sweep_text(_found(sweep))
    assert "It was shortest at 12 sequences (2.0 s), not at the most" in text
    assert "shortest at" not in dials_words.sweep_text(_sweep([30, 300], [35, 90], [34.1, 5.1]))


def test_sweep_text_when_both_latencies_rise():
    text = dials_words.sweep_text(_sweep([30, 100], [35, 90], [5.0, 9.0]))
    assert "(p99) rose: **5.0 → 9.0 s** (runs 4.8–5.2 and 8.7–9.3 s)." in text


SHORT = {"running_max": 8, "preemptions": 0, "e2e_ms_p99": 6000.0}
MIXED = {"running_max": 9, "preemptions": 4, "e2e_ms_p99": 14000.0}
REFUSAL = start_refusal(REFUSAL_LOG)
SMALL = Capacity(kv_cache_tokens=2560, max_model_len=2048, max_concurrency=1.25)
OVER = OverLong(2100, 16, 2048, "This model's maximum context length is 2048.")


def _context(**changes):
    args = dict(refusal=REFUSAL, refused_context=4096, over_long=OVER, capacity=SMALL,
                short_only=SHORT, mixed=MIXED, short_requests=8, long_requests=2)
    args.update(changes)
    return ContextFindings.from_runs(**args)


def test_context_text_when_everything_shows():
    text = dials_words.context_text(_context())
    assert "refused to start" in text and "2,560 tokens would fit" in text
    assert "was turned away" in text
    assert "room for **1.25** requests" in text and "**8** short requests ran at once" in text
    assert "preempted **4** times" in text and "**6.0 s** to **14.0 s**" in text


def test_a_refusal_about_the_room_left_is_explained():
    exact = OverLong(2048, 16, 2048, "max_tokens must be at least 1, got 0.")
    assert exact.room == 0 and exact.names_room
    text = dials_words.context_text(_context(over_long=exact))
    assert "“max_tokens must be at least 1, got 0.”" in text
    assert "speaks of 0 answer tokens, not the 16 asked for" in text
    assert OVER.room == 0 and not OVER.names_room
    assert "speaks of" not in dials_words.context_text(_context())


def test_context_text_when_nothing_shows():
    text = dials_words.context_text(_context(refusal=None, over_long=OverLong(2048, 16, 2048, None),
                                            mixed=dict(MIXED, preemptions=0)))
    assert "start-up rule is not shown here" in text
    assert "was not refused in this run" in text
    assert "did not show long conversations pushing short ones out" in text


def test_context_text_when_few_short_requests_ran():
    text = dials_words.context_text(_context(short_only=dict(SHORT, running_max=1)))
    assert "does not show more requests than that number" in text


def test_dials_prediction_names_both_parts():
    text = dials_words.dials_prediction("more", _sweep([30, 300], [35, 90], [34.1, 5.1]),
                                       _context())
    assert "output 10.0×" in text and "(p99) 0.15×" in text
    assert "preempted 4 times" in text and "14.0 s" in text
