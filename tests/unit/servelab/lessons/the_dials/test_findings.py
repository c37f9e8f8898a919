"""servelab.lessons.the_dials.findings: each verdict of the sweep and context-limit records."""

from __future__ import annotations

import pandas as pd
import pytest

from servelab.bench.spread import Spread, spread_table
from servelab.engines.vllm_server import Capacity
from servelab.lessons.compare import Compared, compare
from servelab.lessons.the_dials.findings import (
    SWEEP_SPREADS,
    ContextFindings,
    LimitVerdict,
    MedianVerdict,
    QueueVerdict,
    SweepFindings,
    limit_verdict,
)
from servelab.lessons.the_dials.runs import OverLong, StartRefusal
from servelab.lessons.the_dials.thresholds import CHANGED
from tests.support import repeated

BEFORE = Spread(100.0, 98.0, 102.0, 3)


@pytest.mark.parametrize(
    ("after", "moved"),
    [
        (Spread(112.0, 110.0, 114.0, 3), Compared.HIGHER),
        (Spread(88.0, 86.0, 90.0, 3), Compared.LOWER),
        (Spread(109.0, 107.0, 111.0, 3), Compared.ALIKE),
        (Spread(91.0, 89.0, 93.0, 3), Compared.ALIKE),
        (Spread(130.0, 101.0, 140.0, 3), Compared.UNTOLD),  # 30 % up, one run inside BEFORE's
        (Spread(70.0, 69.0, 99.0, 3), Compared.UNTOLD),
        (Spread(130.0, 130.0, 130.0, 1), Compared.UNTOLD),  # one run: no range to weigh
    ],
)
def test_a_latency_moves_past_ten_percent_and_its_runs_spread(after, moved) -> None:
    assert compare(after, BEFORE, CHANGED) is moved


def sweep(output, p99, medians=None, queued=(23.0, 12.0, 8.0)) -> SweepFindings:
    frame = pd.DataFrame(
        {
            "output_tok_s": output,
            "tpot_ms_p99": [35, 60, 90][: len(output)],
            "latency_s_p99": p99,
            "queued": list(queued)[: len(output)],
        },
        index=pd.Index([1, 12, 24][: len(output)], name="max_num_seqs"),
    )
    if medians is not None:
        frame["latency_s_p50"] = medians
    return SweepFindings.from_sweep(repeated(frame, SWEEP_SPREADS))


def test_the_throughput_gain_shows_at_its_bar_beyond_the_spread() -> None:
    assert sweep([30, 100, 36], [9.0, 3.0, 2.0]).shows_gain
    assert not sweep([30, 100, 35], [9.0, 3.0, 2.0]).shows_gain  # 1.17× at the top
    frame = pd.DataFrame(
        {
            "output_tok_s": [30.0, 60.0],
            "tpot_ms_p99": [35.0, 60.0],
            "latency_s_p99": [9.0, 3.0],
            "queued": [23.0, 8.0],
        },
        index=pd.Index([1, 24], name="max_num_seqs"),
    )
    assert not SweepFindings.from_sweep(frame).shows_gain  # 2× in one run a level
    wide = repeated(frame, SWEEP_SPREADS, spread=0.4)  # 2×, but 18-42 against 36-84 tok/s
    assert not SweepFindings.from_sweep(wide).shows_gain


def test_the_best_level_in_between() -> None:
    assert sweep([30, 200, 260], [9.0, 2.0, 2.5]).best_in_between
    assert not sweep([30, 200, 260], [9.0, 3.0, 2.5]).best_in_between
    assert not sweep([30, 200, 260], [9.0, 2.4, 2.5]).best_in_between  # inside the spread


@pytest.mark.parametrize(
    ("medians", "verdict"),
    [
        (None, MedianVerdict.NOT_MEASURED),
        ([8.0, 2.0, 1.5], MedianVerdict.SHORTEST_AT_TOP),  # 1.46-1.55 below 1.94-2.06
        ([8.0, 2.0, 1.9], MedianVerdict.UNTOLD),  # shortest at the top, but 1.84-1.96 overlaps
        ([8.0, 2.0, 2.1], MedianVerdict.NEAR_SHORTEST),
        ([8.0, 2.0, 2.5], MedianVerdict.LONGER_AGAIN),
    ],
)
def test_the_median_from_arrival(medians, verdict) -> None:
    found = sweep([30, 120, 180], [16.0, 3.0, 2.6], medians)
    assert found.median_verdict is verdict
    assert (found.low, found.high, found.arrival_sooner) == (1, 24, pytest.approx(16 / 2.6))
    assert found.passes == 3 and found.repeated


def medians_of(runs: dict[int, list[float]]) -> SweepFindings:
    """Findings of a sweep whose medians from arrival ran as ``runs`` (one list per level)."""
    rows = [
        {
            "max_num_seqs": level,
            "output_tok_s": 30.0 * level,
            "tpot_ms_p99": 35.0 + level,
            "latency_s_p99": 9.0 / level,
            "queued": 8.0,
            "latency_s_p50": value,
        }
        for level, values in runs.items()
        for value in values
    ]
    table = spread_table(pd.DataFrame(rows), "max_num_seqs", SWEEP_SPREADS)
    return SweepFindings.from_sweep(table.set_index("max_num_seqs"))


def test_the_median_at_the_top_weighs_every_levels_range() -> None:
    # The page's case: 12 ran 1.18-1.26 s, 24 ran 1.21-1.26 s: 24's median is lower, but
    # 12's fastest run beat every run at 24.
    page = medians_of({1: [6.57, 6.60, 6.65], 12: [1.18, 1.24, 1.26], 24: [1.21, 1.21, 1.26]})
    assert page.median_verdict is MedianVerdict.UNTOLD
    assert (page.median_rival_level, page.median_top.median) == (12, 1.21)
    apart = medians_of({1: [6.6, 6.6, 6.7], 12: [1.30, 1.31, 1.40], 24: [1.20, 1.21, 1.25]})
    assert apart.median_verdict is MedianVerdict.SHORTEST_AT_TOP
    # below the runner-up's range but not below every level's: a third level reached lower
    wide = medians_of({1: [1.0, 6.6, 6.7], 12: [1.30, 1.31, 1.40], 24: [1.20, 1.21, 1.25]})
    assert wide.median_verdict is MedianVerdict.UNTOLD
    # longer again by more than CHANGED, but 24's fastest run is inside 12's range
    overlap = medians_of({1: [6.6, 6.6, 6.7], 12: [1.0, 1.1, 1.5], 24: [1.4, 1.5, 1.6]})
    assert overlap.median_verdict is MedianVerdict.UNTOLD
    once = medians_of({1: [6.6], 12: [1.3], 24: [1.2]})  # one run a level: no range
    assert once.median_verdict is MedianVerdict.UNTOLD


@pytest.mark.parametrize(
    ("queued", "verdict"),
    [
        ((23.0, 12.0, 8.0), QueueVerdict.AT_TOP),
        ((23.0, 12.0, 0.0), QueueVerdict.BELOW_TOP),
        ((0.0, 0.0, 0.0), QueueVerdict.NONE),
    ],
)
def test_where_requests_waited_for_a_slot(queued, verdict) -> None:
    assert sweep([30, 120, 180], [16.0, 3.0, 2.6], queued=queued).queue_verdict is verdict


def test_a_queue_in_some_passes_only_is_told_apart() -> None:
    rows = [
        {
            "max_num_seqs": level,
            "output_tok_s": 30.0 * level,
            "tpot_ms_p99": 35.0,
            "latency_s_p99": 9.0 / level,
            "queued": waited,
        }
        for level, runs in {1: [23.0, 23.0, 23.0], 24: [0.0, 0.0, 2.0]}.items()
        for waited in runs
    ]
    table = spread_table(pd.DataFrame(rows), "max_num_seqs", SWEEP_SPREADS)
    found = SweepFindings.from_sweep(table.set_index("max_num_seqs"))
    assert found.queue_verdict is QueueVerdict.SOME_PASSES
    assert found.queued_high.span(0) == "0–2"


@pytest.mark.parametrize(
    ("probe", "verdict"),
    [
        (
            OverLong(2112, 16, 2048, "This model's maximum context length is 2048 tokens."),
            LimitVerdict.REFUSED,
        ),
        (OverLong(2040, 16, 2048, None, 8, "length"), LimitVerdict.SHORTENED),
        (OverLong(2040, 16, 2048, None, 16, "length"), LimitVerdict.SERVED),  # past the room
        (OverLong(2040, 16, 2048, None, 5, "stop"), LimitVerdict.SERVED),  # it stopped by itself
        (OverLong(2040, 16, 2048, None, None, None), LimitVerdict.SERVED),  # no usage reported
    ],
)
def test_what_the_server_did_past_its_limit(probe, verdict) -> None:
    assert limit_verdict(probe) is verdict


SMALL = Capacity(kv_cache_tokens=2560, max_model_len=2048, max_concurrency=1.25)
REFUSAL = StartRefusal(4096, 0.09, 0.05, 2560)


def _runs(preemptions: list[float], p99_s: list[float], running: float = 8) -> list[dict]:
    return [
        {"running_max": running, "preemptions": count, "e2e_ms_p99": seconds * 1000}
        for count, seconds in zip(preemptions, p99_s, strict=True)
    ]


def context(**changes) -> ContextFindings:
    args = dict(
        refusal=REFUSAL,
        refused_context=4096,
        long_prompt=OverLong(2112, 16, 2048, "no"),
        long_answer=OverLong(2040, 16, 2048, None, 8, "length"),
        capacity=SMALL,
        short_only=_runs([0, 0, 1], [6.0, 5.8, 6.2]),
        mixed=_runs([4, 6, 5], [14.0, 13.0, 15.0], running=9),
        short_requests=8,
        long_requests=2,
    )
    return ContextFindings.from_runs(**(args | changes))


def test_what_the_limit_decided() -> None:
    found = context()
    assert found.refused and found.ran_past_engine_count and found.crowded_out
    assert (found.prompt_verdict, found.answer_verdict) == (
        LimitVerdict.REFUSED,
        LimitVerdict.SHORTENED,
    )
    assert found.long_context == 2048
    assert found.short_p99_mixed_s == Spread(14.0, 13.0, 15.0, 3)
    assert found.preemptions_alone == Spread(0.0, 0.0, 1.0, 3)
    quiet = context(refusal=None, short_only=_runs([4], [6.0], running=1))
    assert not (quiet.refused or quiet.ran_past_engine_count or quiet.crowded_out)


def test_the_most_short_requests_seen_running_in_any_run() -> None:
    runs = _runs([0, 0], [6.0, 6.0], running=1) + _runs([0], [6.0], running=3)
    assert context(short_only=runs).short_running == 3


def test_crowded_out_only_where_every_mixed_run_preempted_more() -> None:
    assert not context(mixed=_runs([4, 1, 5], [14.0, 13.0, 15.0])).crowded_out
    assert context(mixed=_runs([2, 2, 2], [14.0, 13.0, 15.0])).crowded_out


@pytest.mark.parametrize(
    ("mixed_p99_s", "moved"),
    [
        ([6.7, 6.9, 7.0], Compared.HIGHER),  # past the bar, the ranges apart
        ([6.3, 6.5, 6.6], Compared.ALIKE),  # within CHANGED of 6.0
        ([5.0, 5.1, 5.2], Compared.LOWER),
        ([6.1, 9.0, 12.0], Compared.UNTOLD),  # a 50% higher median, but the ranges overlap
    ],
)
def test_how_the_short_requests_p99_moved(mixed_p99_s, moved) -> None:
    found = context(mixed=_runs([4, 4, 4], mixed_p99_s))
    assert found.short_p99_moved is moved


def test_one_run_a_load_cannot_show_a_rise() -> None:
    found = context(short_only=_runs([0], [6.0]), mixed=_runs([4], [14.0]))
    assert found.short_p99_moved is Compared.UNTOLD and found.crowded_out


def test_the_mixed_load_needs_runs() -> None:
    with pytest.raises(ValueError, match="at least one run"):
        context(mixed=[])
