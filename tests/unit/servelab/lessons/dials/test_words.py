"""servelab.lessons.dials.words: every branch of chapter 05's text, on made-up findings."""

from __future__ import annotations

import pandas as pd
import pytest

from servelab.bench.spread import Spread, spread_table
from servelab.engines.vllm_server import Capacity
from servelab.lessons.dials import words as dials_words
from servelab.lessons.dials.findings import SWEEP_SPREADS, ContextFindings, SweepFindings
from servelab.lessons.dials.runs import OverLong, start_refusal
from tests.support import REFUSAL_LOG, repeated


def _found(sweep: pd.DataFrame, runs: int = 3) -> SweepFindings:
    """Findings of ``sweep`` run ``runs`` times, each run 3 % either side of the median."""
    return SweepFindings.from_sweep(repeated(sweep, SWEEP_SPREADS, runs))


def _sweep(out, tpot, arrival, runs: int = 3, queued=(95.0, 32.0)):
    return _found(pd.DataFrame(
        {"output_tok_s": out, "tpot_ms_p99": tpot, "latency_s_p99": arrival,
         "queued": list(queued)},
        index=pd.Index([1, 64], name="max_num_seqs")), runs)


def test_sweep_text_per_token_worse_backlog_better():
    text = dials_words.sweep_text(_sweep([30, 300], [35, 90], [34.1, 5.1]))
    assert "Each level ran 3 times" in text and "**10.0×**" in text
    assert "(p99) rose: **35 → 90 ms** (runs 34–36 and 87–93 ms)" in text
    assert "**30 → 300 tok/s** (runs 29–31 and 291–309 tok/s)" in text
    narrow = dials_words.sweep_text(_found(pd.DataFrame(
        {"output_tok_s": [23.0, 234.0], "tpot_ms_p99": [35, 90], "latency_s_p99": [9.0, 2.0],
         "queued": [31.0, 8.0]}, index=pd.Index([1, 24], name="max_num_seqs")), runs=3))
    assert "(runs 22–24 and 227–241 tok/s)" in narrow
    # both ends round to one number: it is printed once, not as "23–23"
    assert dials_words.ends(Spread(23.0, 22.6, 23.4, 3), Spread(90.0, 88.0, 92.0, 3), 0,
                             "tok/s") == "**23 → 90 tok/s** (runs 23 and 88–92 tok/s)"
    assert "(p99) fell: **34.1 → 5.1 s**" in text
    assert "s), because with a backlog" in text
    assert "even at 64 sequences 31–33 requests waited for a slot in every pass" in text
    assert "This run shows it" in text


def test_sweep_text_claims_nothing_from_one_run_a_level():
    text = dials_words.sweep_text(_sweep([30, 300], [35, 90], [34.1, 5.1], runs=1))
    assert "did not show batching's throughput gain beyond its runs' spread" in text
    assert "(p99) moved no further than its runs' spread: **35 → 90 ms**." in text
    assert "Each level ran" not in text and "This run shows it" not in text


@pytest.mark.parametrize(("queued", "phrase"), [
    ((95.0, 0.0), "because at 1 the requests queued for a slot, while at 64 none waited in any "
                  "pass: there the figure is the requests' own time"),
    ((0.0, 0.0), "Not every pass had requests waiting for a slot even at 1, so this run does not "
                 "show a queue emptying."),
])
def test_sweep_text_claims_a_queue_only_where_requests_waited(queued, phrase):
    text = dials_words.sweep_text(_sweep([30, 300], [35, 90], [34.1, 5.1], queued=queued))
    assert phrase in text
    assert "with a backlog" not in text


def test_sweep_text_when_the_top_queued_in_some_passes_only():
    rows = [{"max_num_seqs": level, "output_tok_s": 30.0 * level, "tpot_ms_p99": 35.0 + level,
             "latency_s_p99": 30.0 / level, "queued": waited}
            for level, runs in {1: [95.0, 95.0, 95.0], 64: [0.0, 1.0, 3.0]}.items()
            for waited in runs]
    table = spread_table(pd.DataFrame(rows), "max_num_seqs", SWEEP_SPREADS)
    text = dials_words.sweep_text(SweepFindings.from_sweep(table.set_index("max_num_seqs")))
    assert "at 64 sequences 0–3 requests waited for a slot in some passes and none in" in text


@pytest.mark.parametrize(("medians", "phrase"), [
    ([8.0, 2.0, 2.5], "shortest at 12 sequences, 2.00 s (runs 1.94–2.06 s), and longer again at "
                      "24, 2.50 s (runs 2.42–2.58 s), the ranges apart"),
    ([8.0, 2.0, 2.1], "2.10 s (runs 2.04–2.16 s) at 24 sequences, within 10% of the shortest, "
                      "2.00 s (runs 1.94–2.06 s) at 12"),
    ([8.0, 2.0, 1.5], "1.50 s (runs 1.46–1.54 s) at 24 sequences, the shortest of any level: its "
                      "runs were all below every other level's; the next shortest was 2.00 s"),
    ([8.0, 2.0, 1.9], "1.90 s (runs 1.84–1.96 s) at 24 sequences and 2.00 s (runs 1.94–2.06 s) "
                      "at 12: the ranges overlap, so this run cannot tell"),
])
def test_sweep_text_weighs_the_median_from_arrival(medians, phrase):
    sweep = pd.DataFrame({"output_tok_s": [30, 120, 180], "tpot_ms_p99": [35, 60, 90],
                          "latency_s_p99": [16.0, 3.0, 2.6], "latency_s_p50": medians,
                          "queued": [23.0, 12.0, 8.0]},
                         index=pd.Index([1, 12, 24], name="max_num_seqs"))
    text = dials_words.sweep_text(_found(sweep))
    assert phrase in text
    assert ("longer again" in text) == (medians[-1] > 1.1 * min(medians))
    assert ("shortest of any level" in text) == (medians[-1] == 1.5)


def test_sweep_text_with_one_run_a_level_cannot_weigh_the_median():
    sweep = pd.DataFrame({"output_tok_s": [30, 180], "tpot_ms_p99": [35, 90],
                          "latency_s_p99": [16.0, 2.6], "latency_s_p50": [8.0, 1.5],
                          "queued": [23.0, 8.0]}, index=pd.Index([1, 24], name="max_num_seqs"))
    text = dials_words.sweep_text(SweepFindings.from_sweep(sweep))
    assert "1.50 s at 24 sequences and 8.00 s at 1: one run a level has no range" in text


def test_sweep_text_when_nothing_moved():
    text = dials_words.sweep_text(_sweep([30, 31], [35, 36], [10.0, 10.2]))
    assert "did not show batching's throughput gain" in text
    assert "stayed about the same" in text
    assert "did not show here" in text
    assert "The median from arrival" not in text   # the sweep measured no medians


def test_sweep_text_names_a_best_level_in_the_middle():
    sweep = pd.DataFrame({"output_tok_s": [30, 200, 260], "tpot_ms_p99": [35, 60, 90],
                          "latency_s_p99": [9.0, 2.0, 2.5], "queued": [23.0, 12.0, 8.0]},
                         index=pd.Index([1, 12, 24], name="max_num_seqs"))
    text = dials_words.sweep_text(_found(sweep))
    assert "It was shortest at 12 sequences (2.0 s), not at the most" in text
    assert "shortest at" not in dials_words.sweep_text(_sweep([30, 300], [35, 90], [34.1, 5.1]))


def test_sweep_text_when_both_latencies_rise():
    text = dials_words.sweep_text(_sweep([30, 100], [35, 90], [5.0, 9.0]))
    assert "(p99) rose: **5.0 → 9.0 s** (runs 4.8–5.2 and 8.7–9.3 s)." in text


SHORT = {"running_max": 8, "preemptions": 0, "e2e_ms_p99": 6000.0}
MIXED = {"running_max": 9, "preemptions": 4, "e2e_ms_p99": 14000.0}


def _three(run: dict, p99_ms: tuple[float, float, float] = (0.97, 1.0, 1.02)) -> list[dict]:
    """``run`` three times, its p99 scaled by each of ``p99_ms``."""
    return [dict(run, e2e_ms_p99=run["e2e_ms_p99"] * scale) for scale in p99_ms]
REFUSAL = start_refusal(REFUSAL_LOG)
SMALL = Capacity(kv_cache_tokens=2560, max_model_len=2048, max_concurrency=1.25)
# vLLM 0.32's refusal of a prompt over the limit, and its answer to one that fits (cut to 8).
PROMPT_REFUSAL = ("This model's maximum context length is 2048 tokens. However, your prompt "
                  "contains at least 2049 input tokens, which exceeds this limit even without "
                  "any output tokens. Please reduce the length of the input prompt. "
                  "(parameter=input_tokens, value=2049)")
LONG_PROMPT = OverLong(2112, 16, 2048, PROMPT_REFUSAL)
SHORTENED = OverLong(2040, 16, 2048, None, 8, "length")
# An engine that counts the answer asked for against the limit refuses the second one.
SUM_REFUSAL = ("'max_tokens' or 'max_completion_tokens' is too large: 16. This model's maximum "
               "context length is 2048 tokens and your request has 2040 input tokens "
               "(16 > 2048 - 2040).")


def _context(**changes):
    args = dict(refusal=REFUSAL, refused_context=4096, long_prompt=LONG_PROMPT,
                long_answer=SHORTENED, capacity=SMALL, short_only=_three(SHORT),
                mixed=_three(MIXED),
                short_requests=8, long_requests=2)
    args.update(changes)
    return ContextFindings.from_runs(**args)


def test_context_text_explains_the_engines_at_least_count():
    text = dials_words.context_text(_context())
    assert ("It says “at least” 2,049 for the 2,112 tokens sent because it stops tokenizing one "
            "token past the limit") in text


def test_context_text_when_everything_shows():
    text = dials_words.context_text(_context())
    assert "refused to start" in text and "2,560 tokens would fit" in text
    assert "room for **1.25** requests" in text and "**8** short requests ran at once" in text
    assert "preempted **4 times in every run** (alone: 0 times in every run)" in text
    assert "**6.0 s (5.8–6.1)** to **14.0 s (13.6–14.3)** (over 3 runs of each load)" in text
    assert "took the blocks of many short ones" in text


def test_one_long_request_is_counted_in_the_singular():
    assert "With **2 long requests** beside" in dials_words.context_text(_context())
    text = dials_words.context_text(_context(long_requests=1))
    assert "With **1 long request** beside" in text and "1 long requests" not in text


def test_a_prompt_over_the_limit_is_quoted_whole():
    text = dials_words.context_text(_context())
    assert ("A prompt of 2,112 tokens, over the limit of 2,048, was turned away before it ran: "
            f"“{PROMPT_REFUSAL}”") in text
    assert "would buy room by turning them away" in text


def test_an_answer_cut_to_the_room_left():
    text = dials_words.context_text(_context())
    assert ("A prompt of 2,040 tokens asking for 16 answer tokens, where the limit leaves room "
            "for 8, was served: its answer stopped after **8** tokens with finish reason "
            "`length`") in text
    assert "turns away is a prompt that leaves no room after it" in text
    assert "A limit that only their answers would pass buys less" in text


def test_an_answer_past_the_room_refused():
    text = dials_words.context_text(_context(long_answer=OverLong(2040, 16, 2048, SUM_REFUSAL)))
    assert f"where the limit leaves room for 8, was turned away too: “{SUM_REFUSAL}”" in text
    assert "refuses a request whose sum does not fit, rather than shorten its answer" in text
    assert "turns them away as well" in text
    assert "cut" not in text


def test_context_text_when_preemptions_cost_no_time_seen():
    text = dials_words.context_text(_context(mixed=_three(dict(MIXED, e2e_ms_p99=6300.0))))
    assert "**6.0 s (5.8–6.1)** to **6.3 s (6.1–6.4)** (over 3 runs of each load), within 10%" \
        in text
    assert "shows no time they cost the short ones" in text
    assert "took the blocks of many" not in text


def test_context_text_when_nothing_shows():
    served = OverLong(2112, 16, 2048, None, 16, "length")
    text = dials_words.context_text(_context(
        refusal=None, long_prompt=served, long_answer=OverLong(2040, 16, 2048, None, 16, "length"),
        mixed=_three(dict(MIXED, preemptions=0))))
    assert "start-up rule is not shown here" in text
    assert "was served in this run (16 answer tokens, finish reason `length`)" in text
    assert "does not show what the limit does to an answer that would pass it" in text
    assert "did not show long conversations pushing short ones out" in text
    crowded = dials_words.context_text(_context(long_prompt=served))
    assert "did not show the limit turning a request away, so it cannot say" in crowded


def test_context_text_when_few_short_requests_ran():
    text = dials_words.context_text(_context(short_only=_three(dict(SHORT, running_max=1))))
    assert "does not show more requests than that number" in text


def test_dials_prediction_names_both_parts():
    text = dials_words.dials_prediction("more", _sweep([30, 300], [35, 90], [34.1, 5.1]),
                                       _context())
    assert "output 10.0×" in text and "(p99) 0.15×" in text
    assert "preempted 4 times in every run" in text and "14.0 s (13.6–14.3)" in text


def test_context_text_when_the_runs_cannot_tell():
    text = dials_words.context_text(_context(
        mixed=[dict(MIXED, preemptions=count, e2e_ms_p99=ms)
               for count, ms in ((3, 6100.0), (5, 9000.0), (6, 12000.0))]))
    assert "preempted **5 times a run (3–6)**" in text
    assert "**9.0 s (6.1–12.0)** (over 3 runs of each load): the runs' ranges overlap" in text
    assert "cannot tell whether the preemptions cost the short ones time" in text
    assert "took the blocks of many" not in text


def test_context_text_from_one_run_of_each_load():
    text = dials_words.context_text(_context(short_only=[SHORT], mixed=[MIXED]))
    assert "preempted **4 times** (alone: 0 times)" in text
    assert "(one run each): one run a load has no range, so this run cannot tell" in text


@pytest.mark.parametrize(("mixed_first_ms", "says"), [
    (874.0, "went from 339 ms (329–346) to 874 ms (848–891): later, beyond the runs' spread"),
    (350.0, "within 10%, so the wait for a first token held"),
    (200.0, "sooner, the ranges apart"),
])
def test_context_text_says_how_the_short_requests_first_tokens_moved(mixed_first_ms: float,
                                                                     says: str) -> None:
    """A review found '339 → 874 ms (ranges apart)' in the table and not in the words."""
    short = [dict(run, ttft_ms_p99=339.0 * scale)
             for run, scale in zip(_three(SHORT), (0.97, 1.0, 1.02), strict=True)]
    mixed = [dict(run, ttft_ms_p99=mixed_first_ms * scale)
             for run, scale in zip(_three(MIXED), (0.97, 1.0, 1.02), strict=True)]
    text = dials_words.context_text(_context(short_only=short, mixed=mixed))
    assert says in text


def test_context_text_leaves_first_tokens_out_where_the_runs_did_not_report_them() -> None:
    assert "first tokens' p99" not in dials_words.context_text(_context())


def test_context_text_cannot_tell_first_tokens_apart_where_the_ranges_overlap() -> None:
    short = [dict(run, ttft_ms_p99=ms) for run, ms in zip(_three(SHORT), (300.0, 339.0, 500.0),
                                                         strict=True)]
    mixed = [dict(run, ttft_ms_p99=ms) for run, ms in zip(_three(MIXED), (450.0, 600.0, 900.0),
                                                         strict=True)]
    text = dials_words.context_text(_context(short_only=short, mixed=mixed))
    assert "the runs' ranges overlap, so this run cannot tell whether they moved" in text
