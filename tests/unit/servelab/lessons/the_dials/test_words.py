"""servelab.lessons.the_dials.words: every branch of chapter 05's text, on made-up findings."""

from __future__ import annotations

import pandas as pd
import pytest

from servelab.bench.spread import Spread, spread_table
from servelab.engines.vllm_server import Capacity
from servelab.lessons.compare import Compared
from servelab.lessons.the_dials import words as dials_words
from servelab.lessons.the_dials.findings import (
    SWEEP_SPREADS,
    ContextFindings,
    LimitVerdict,
    MedianVerdict,
    QueueVerdict,
    SweepFindings,
)
from servelab.lessons.the_dials.runs import OverLong, StartRefusal, start_refusal
from servelab.lessons.the_dials.words import refusal_line
from tests.support import REFUSAL_LOG, repeated


def _found(sweep: pd.DataFrame, runs: int = 3) -> SweepFindings:
    """Findings of ``sweep`` run ``runs`` times, each run 3 % either side of the median."""
    return SweepFindings.from_sweep(repeated(sweep, SWEEP_SPREADS, runs))


def _sweep(out, tpot, arrival, runs: int = 3, queued=(95.0, 32.0)):
    return _found(
        pd.DataFrame(
            {
                "output_tok_s": out,
                "tpot_ms_p99": tpot,
                "latency_s_p99": arrival,
                "queued": list(queued),
            },
            index=pd.Index([1, 64], name="max_num_seqs"),
        ),
        runs,
    )


def test_sweep_text_per_token_worse_backlog_better():
    found = _sweep([30, 300], [35, 90], [34.1, 5.1])
    text = dials_words.sweep_text(found)
    assert found.passes == 3 and found.shows_gain and "**10.0×**" in text
    assert found.tpot_moved is Compared.HIGHER
    assert "**35 → 90 ms**" in text and "34–36" in text and "87–93 ms" in text
    assert "**30 → 300 tok/s**" in text and "29–31" in text and "291–309 tok/s" in text
    narrow = dials_words.sweep_text(
        _found(
            pd.DataFrame(
                {
                    "output_tok_s": [23.0, 234.0],
                    "tpot_ms_p99": [35, 90],
                    "latency_s_p99": [9.0, 2.0],
                    "queued": [31.0, 8.0],
                },
                index=pd.Index([1, 24], name="max_num_seqs"),
            ),
            runs=3,
        )
    )
    assert "22–24" in narrow and "227–241 tok/s" in narrow
    # both ends round to one number: it is printed once, not as "23–23"
    assert (
        dials_words.ends(Spread(23.0, 22.6, 23.4, 3), Spread(90.0, 88.0, 92.0, 3), 0, "tok/s")
        == "**23 → 90 tok/s** (runs 23 and 88–92 tok/s)"
    )
    assert found.arrival_moved is Compared.LOWER and "**34.1 → 5.1 s**" in text
    assert found.queue_verdict is QueueVerdict.AT_TOP and "31–33 requests" in text


def test_sweep_text_claims_nothing_from_one_run_a_level():
    found = _sweep([30, 300], [35, 90], [34.1, 5.1], runs=1)
    text = dials_words.sweep_text(found)
    assert found.passes == 1 and not found.shows_gain
    assert found.tpot_moved is Compared.UNTOLD and "**35 → 90 ms**" in text
    assert "(runs" not in text  # one run a level prints no ranges
    assert text != dials_words.sweep_text(_sweep([30, 300], [35, 90], [34.1, 5.1]))


@pytest.mark.parametrize(
    ("queued", "verdict"),
    [
        ((95.0, 0.0), QueueVerdict.BELOW_TOP),
        ((0.0, 0.0), QueueVerdict.NONE),
    ],
)
def test_sweep_text_claims_a_queue_only_where_requests_waited(queued, verdict):
    found = _sweep([30, 300], [35, 90], [34.1, 5.1], queued=queued)
    text = dials_words.sweep_text(found)
    assert found.queue_verdict is verdict
    assert "requests waited" not in text  # no count of waiting requests at the top
    at_top = dials_words.sweep_text(_sweep([30, 300], [35, 90], [34.1, 5.1]))
    assert text != at_top


def test_sweep_text_when_the_top_queued_in_some_passes_only():
    rows = [
        {
            "max_num_seqs": level,
            "output_tok_s": 30.0 * level,
            "tpot_ms_p99": 35.0 + level,
            "latency_s_p99": 30.0 / level,
            "queued": waited,
        }
        for level, runs in {1: [95.0, 95.0, 95.0], 64: [0.0, 1.0, 3.0]}.items()
        for waited in runs
    ]
    table = spread_table(pd.DataFrame(rows), "max_num_seqs", SWEEP_SPREADS)
    found = SweepFindings.from_sweep(table.set_index("max_num_seqs"))
    text = dials_words.sweep_text(found)
    assert found.queue_verdict is QueueVerdict.SOME_PASSES and "0–3 requests" in text


@pytest.mark.parametrize(
    ("medians", "verdict", "figures"),
    [
        (
            [8.0, 2.0, 2.5],
            MedianVerdict.LONGER_AGAIN,
            ("2.00 s", "1.94–2.06 s", "2.50 s", "2.42–2.58 s"),
        ),
        ([8.0, 2.0, 2.1], MedianVerdict.NEAR_SHORTEST, ("2.10 s", "2.04–2.16 s", "10%", "2.00 s")),
        ([8.0, 2.0, 1.5], MedianVerdict.SHORTEST_AT_TOP, ("1.50 s", "1.46–1.54 s", "2.00 s")),
        ([8.0, 2.0, 1.9], MedianVerdict.UNTOLD, ("1.90 s", "1.84–1.96 s", "2.00 s", "1.94–2.06 s")),
    ],
)
def test_sweep_text_weighs_the_median_from_arrival(medians, verdict, figures):
    sweep = pd.DataFrame(
        {
            "output_tok_s": [30, 120, 180],
            "tpot_ms_p99": [35, 60, 90],
            "latency_s_p99": [16.0, 3.0, 2.6],
            "latency_s_p50": medians,
            "queued": [23.0, 12.0, 8.0],
        },
        index=pd.Index([1, 12, 24], name="max_num_seqs"),
    )
    found = _found(sweep)
    text = dials_words.sweep_text(found)
    assert found.median_verdict is verdict and found.median_rival_level == 12
    assert all(figure in text for figure in figures)


def test_sweep_text_with_one_run_a_level_cannot_weigh_the_median():
    sweep = pd.DataFrame(
        {
            "output_tok_s": [30, 180],
            "tpot_ms_p99": [35, 90],
            "latency_s_p99": [16.0, 2.6],
            "latency_s_p50": [8.0, 1.5],
            "queued": [23.0, 8.0],
        },
        index=pd.Index([1, 24], name="max_num_seqs"),
    )
    found = SweepFindings.from_sweep(sweep)
    text = dials_words.sweep_text(found)
    assert found.median_verdict is MedianVerdict.UNTOLD and found.median_rival_level == 1
    assert "1.50 s" in text and "8.00 s" in text and "(runs" not in text


def test_sweep_text_when_nothing_moved():
    found = _sweep([30, 31], [35, 36], [10.0, 10.2])
    text = dials_words.sweep_text(found)
    assert not found.shows_gain and "(1.0×)" in text
    assert found.tpot_moved is Compared.ALIKE and found.arrival_moved is Compared.ALIKE
    assert "**35 → 36 ms**" in text and "**10.0 → 10.2 s**" in text
    assert found.median_verdict is MedianVerdict.NOT_MEASURED
    assert dials_words._median_text(found) == ""


def test_sweep_text_names_a_best_level_in_the_middle():
    sweep = pd.DataFrame(
        {
            "output_tok_s": [30, 200, 260],
            "tpot_ms_p99": [35, 60, 90],
            "latency_s_p99": [9.0, 2.0, 2.5],
            "queued": [23.0, 12.0, 8.0],
        },
        index=pd.Index([1, 12, 24], name="max_num_seqs"),
    )
    found = _found(sweep)
    text = dials_words.sweep_text(found)
    assert found.best_in_between and found.best_level == 12 and "(2.0 s)" in text
    assert not _sweep([30, 300], [35, 90], [34.1, 5.1]).best_in_between


def test_sweep_text_when_both_latencies_rise():
    found = _sweep([30, 100], [35, 90], [5.0, 9.0])
    text = dials_words.sweep_text(found)
    assert found.tpot_moved is Compared.HIGHER and found.arrival_moved is Compared.HIGHER
    assert "**5.0 → 9.0 s**" in text and "4.8–5.2" in text and "8.7–9.3 s" in text


SHORT = {"running_max": 8, "preemptions": 0, "e2e_ms_p99": 6000.0}
MIXED = {"running_max": 9, "preemptions": 4, "e2e_ms_p99": 14000.0}


def _three(run: dict, p99_ms: tuple[float, float, float] = (0.97, 1.0, 1.02)) -> list[dict]:
    """``run`` three times, its p99 scaled by each of ``p99_ms``."""
    return [dict(run, e2e_ms_p99=run["e2e_ms_p99"] * scale) for scale in p99_ms]


REFUSAL = start_refusal(REFUSAL_LOG)
SMALL = Capacity(kv_cache_tokens=2560, max_model_len=2048, max_concurrency=1.25)
# vLLM 0.32's refusal of a prompt over the limit, and its answer to one that fits (cut to 8).
PROMPT_REFUSAL = (
    "This model's maximum context length is 2048 tokens. However, your prompt "
    "contains at least 2049 input tokens, which exceeds this limit even without "
    "any output tokens. Please reduce the length of the input prompt. "
    "(parameter=input_tokens, value=2049)"
)
LONG_PROMPT = OverLong(2112, 16, 2048, PROMPT_REFUSAL)
SHORTENED = OverLong(2040, 16, 2048, None, 8, "length")
# An engine that counts the answer asked for against the limit refuses the second one.
SUM_REFUSAL = (
    "'max_tokens' or 'max_completion_tokens' is too large: 16. This model's maximum "
    "context length is 2048 tokens and your request has 2040 input tokens "
    "(16 > 2048 - 2040)."
)


def _context(**changes):
    args = dict(
        refusal=REFUSAL,
        refused_context=4096,
        long_prompt=LONG_PROMPT,
        long_answer=SHORTENED,
        capacity=SMALL,
        short_only=_three(SHORT),
        mixed=_three(MIXED),
        short_requests=8,
        long_requests=2,
    )
    args.update(changes)
    return ContextFindings.from_runs(**args)


def test_context_text_explains_the_engines_at_least_count():
    found = _context()
    text = dials_words.context_text(found)
    assert found.prompt_verdict is LimitVerdict.REFUSED
    assert "“at least” 2,049" in text and "2,112 tokens" in text
    quiet = OverLong(2112, 16, 2048, "too long")  # a refusal that does not say “at least”
    assert "“at least”" not in dials_words.context_text(_context(long_prompt=quiet))


def test_context_text_when_everything_shows():
    found = _context()
    text = dials_words.context_text(found)
    assert found.refused and "2,560 tokens" in text
    assert found.ran_past_engine_count and "**1.25**" in text and "**8**" in text
    assert found.crowded_out
    assert f"**{dials_words._times(found.preemptions_mixed)}**" in text
    assert f"(alone: {dials_words._times(found.preemptions_alone)})" in text
    assert found.short_p99_moved is Compared.HIGHER
    assert "**6.0 s (5.8–6.1)**" in text and "**14.0 s (13.6–14.3)**" in text
    assert "3 runs" in text


def test_times_counts_every_run_a_run_or_once():
    """The count formatter: its whole output is a figure with its unit."""
    assert dials_words._times(Spread(4.0, 4.0, 4.0, 3)) == "4 times in every run"
    assert dials_words._times(Spread(5.0, 3.0, 6.0, 3)) == "5 times a run (3–6)"
    assert dials_words._times(Spread(4.0, 4.0, 4.0, 1)) == "4 times"


def test_one_long_request_is_counted_in_the_singular():
    assert "**2 long requests**" in dials_words.context_text(_context())
    text = dials_words.context_text(_context(long_requests=1))
    assert "**1 long request**" in text and "1 long requests" not in text


def test_a_prompt_over_the_limit_is_quoted_whole():
    found = _context()
    text = dials_words.context_text(found)
    assert found.prompt_verdict is LimitVerdict.REFUSED
    assert "2,112 tokens" in text and "2,048" in text
    assert f"“{PROMPT_REFUSAL}”" in text  # the engine's message, quoted whole


def test_an_answer_cut_to_the_room_left():
    found = _context()
    text = dials_words.context_text(found)
    assert found.answer_verdict is LimitVerdict.SHORTENED
    assert "2,040 tokens" in text and "16 answer tokens" in text and "**8** tokens" in text
    assert "`length`" in text
    served = _context(long_answer=OverLong(2040, 16, 2048, None, 16, "length"))
    assert dials_words._lower_limit_text(found) != dials_words._lower_limit_text(served)


def test_an_answer_past_the_room_refused():
    found = _context(long_answer=OverLong(2040, 16, 2048, SUM_REFUSAL))
    text = dials_words.context_text(found)
    assert found.answer_verdict is LimitVerdict.REFUSED
    assert f"“{SUM_REFUSAL}”" in text and "2,040 tokens" in text
    assert "**8** tokens" not in text
    shortened = dials_words._lower_limit_text(_context())
    served = dials_words._lower_limit_text(
        _context(long_answer=OverLong(2040, 16, 2048, None, 16, "length"))
    )
    assert len({dials_words._lower_limit_text(found), shortened, served}) == 3


def test_context_text_when_preemptions_cost_no_time_seen():
    found = _context(mixed=_three(dict(MIXED, e2e_ms_p99=6300.0)))
    text = dials_words.context_text(found)
    assert found.crowded_out and found.short_p99_moved is Compared.ALIKE
    assert "**6.0 s (5.8–6.1)**" in text and "**6.3 s (6.1–6.4)**" in text and "10%" in text
    assert dials_words._crowd_cost_text(found) != dials_words._crowd_cost_text(_context())


def test_context_text_when_nothing_shows():
    served = OverLong(2112, 16, 2048, None, 16, "length")
    found = _context(
        refusal=None,
        long_prompt=served,
        long_answer=OverLong(2040, 16, 2048, None, 16, "length"),
        mixed=_three(dict(MIXED, preemptions=0)),
    )
    text = dials_words.context_text(found)
    assert not found.refused and "`max_model_len=4,096`" in text
    assert found.prompt_verdict is LimitVerdict.SERVED and "16 answer tokens" in text
    assert found.answer_verdict is LimitVerdict.SERVED and "`length`" in text
    assert not found.crowded_out and dials_words._times(found.preemptions_mixed) in text
    assert "**" not in text.split("\n\n")[2]  # the crowd paragraph bolds no figure
    crowded = _context(long_prompt=served)
    assert crowded.crowded_out and crowded.prompt_verdict is LimitVerdict.SERVED
    assert dials_words._lower_limit_text(crowded) != dials_words._lower_limit_text(_context())
    assert dials_words._lower_limit_text(crowded).strip() in dials_words.context_text(crowded)


def test_context_text_when_few_short_requests_ran():
    found = _context(short_only=_three(dict(SHORT, running_max=1)))
    text = dials_words.context_text(found)
    assert not found.ran_past_engine_count and "**1.25**" in text and "at most 1 short" in text


def test_dials_prediction_names_both_parts():
    text = dials_words.dials_prediction(
        "more", _sweep([30, 300], [35, 90], [34.1, 5.1]), _context()
    )
    assert "10.0×" in text and "0.15×" in text
    assert "4 times" in text and "14.0 s (13.6–14.3)" in text


def test_context_text_when_the_runs_cannot_tell():
    found = _context(
        mixed=[
            dict(MIXED, preemptions=count, e2e_ms_p99=ms)
            for count, ms in ((3, 6100.0), (5, 9000.0), (6, 12000.0))
        ]
    )
    text = dials_words.context_text(found)
    assert found.crowded_out and found.short_p99_moved is Compared.UNTOLD
    assert "**5 times a run (3–6)**" in text and "**9.0 s (6.1–12.0)**" in text
    assert dials_words._crowd_cost_text(found) != dials_words._crowd_cost_text(_context())


def test_context_text_from_one_run_of_each_load():
    found = _context(short_only=[SHORT], mixed=[MIXED])
    text = dials_words.context_text(found)
    assert found.short_p99_moved is Compared.UNTOLD and found.short_p99_mixed_s.n == 1
    assert "**4 times**" in text and "0 times)" in text and "in every run" not in text
    overlap = _context(
        mixed=[
            dict(MIXED, preemptions=count, e2e_ms_p99=ms)
            for count, ms in ((3, 6100.0), (5, 9000.0), (6, 12000.0))
        ]
    )
    assert dials_words._crowd_cost_text(found) != dials_words._crowd_cost_text(overlap)


@pytest.mark.parametrize(
    ("mixed_first_ms", "moved", "figures"),
    [
        (874.0, Compared.HIGHER, ("339 ms (329–346)", "874 ms (848–891)")),
        (350.0, Compared.ALIKE, ("339 ms (329–346)", "350 ms", "10%")),
        (200.0, Compared.LOWER, ("339 ms (329–346)", "200 ms")),
    ],
)
def test_context_text_says_how_the_short_requests_first_tokens_moved(
    mixed_first_ms: float, moved: Compared, figures: tuple[str, ...]
) -> None:
    """A review found '339 → 874 ms (ranges apart)' in the table and not in the words."""
    short = [
        dict(run, ttft_ms_p99=339.0 * scale)
        for run, scale in zip(_three(SHORT), (0.97, 1.0, 1.02), strict=True)
    ]
    mixed = [
        dict(run, ttft_ms_p99=mixed_first_ms * scale)
        for run, scale in zip(_three(MIXED), (0.97, 1.0, 1.02), strict=True)
    ]
    found = _context(short_only=short, mixed=mixed)
    text = dials_words.context_text(found)
    assert found.first_p99_moved is moved
    assert all(figure in text for figure in figures)
    assert dials_words._first_token_text(found) in text


def test_context_text_leaves_first_tokens_out_where_the_runs_did_not_report_them() -> None:
    found = _context()
    assert found.first_p99_moved is None and dials_words._first_token_text(found) == ""


def test_context_text_cannot_tell_first_tokens_apart_where_the_ranges_overlap() -> None:
    short = [
        dict(run, ttft_ms_p99=ms)
        for run, ms in zip(_three(SHORT), (300.0, 339.0, 500.0), strict=True)
    ]
    mixed = [
        dict(run, ttft_ms_p99=ms)
        for run, ms in zip(_three(MIXED), (450.0, 600.0, 900.0), strict=True)
    ]
    found = _context(short_only=short, mixed=mixed)
    text = dials_words.context_text(found)
    assert found.first_p99_moved is Compared.UNTOLD
    assert "339 ms (300–500)" in text and "600 ms (450–900)" in text


def test_a_refused_start_prints_as_its_numbers_not_as_a_dataclass() -> None:
    refusal = start_refusal(REFUSAL_LOG)
    assert refusal is not None
    line = refusal_line(refusal)
    assert all(figure in line for figure in ("4,096", "0.09", "0.05", "2,560"))
    assert "StartRefusal" not in line
    assert "2,560" not in refusal_line(StartRefusal(4096, 0.09, 0.05, None))
