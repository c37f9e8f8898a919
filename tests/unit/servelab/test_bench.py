"""servelab.bench logic without a server: metrics, workloads, plots (/metrics parsing and the
runs' DataFrames: bench/test_server_metrics.py, bench/test_frames.py)."""

from __future__ import annotations

import math

import matplotlib
import matplotlib.pyplot
import numpy as np
import pytest

from servelab.bench import metrics
from servelab.bench.client import PlannedRequest, RequestRecord
from servelab.bench.prompts import WordPrompts
from servelab.bench.workloads import (
    ClosedLoop,
    Interferer,
    OpenLoop,
    ParallelSampling,
    SharedPrefix,
    StaticBatching,
    isolated,
    poisson_arrivals,
    short_and_long_lengths,
)
from tests.support import record
from tests.unit.servelab.bench.test_frames import _result

matplotlib.use("Agg")


def test_a_stream_that_came_in_one_chunk_has_no_decode_speed_and_breaks_nothing(
    records: list[RequestRecord],
) -> None:
    """A proxy can hand over a short answer's tokens at once: TPOT 0, left out of user_tok_s."""
    buffered = record(7, 0.0, [0.0, 0.0], ttft=0.4)
    row = metrics.calculate([*records, buffered], duration_s=2.0)
    assert row["completed"] == 5
    assert row["user_tok_s"] == pytest.approx((3 + 5 + 2) / (0.4 + 0.25 + 0.4))
    alone = metrics.calculate([buffered], duration_s=1.0)
    assert math.isnan(alone["user_tok_s"])


def test_metrics_by_hand(records: list[RequestRecord]) -> None:
    failed = RequestRecord(PlannedRequest(index=9, user=9, prompt="p", max_tokens=4))
    failed.error = "APIConnectionError: Connection error."
    row = metrics.calculate([*records, failed], duration_s=2.0, slo={"ttft": 600, "tpot": 150})
    assert row["completed"] == 4 and row["failed"] == 1
    assert row["output_tokens"] == 4 + 6 + 1 + 3
    assert row["output_tok_s"] == pytest.approx(14 / 2.0)
    assert row["request_per_s"] == pytest.approx(2.0)
    assert row["ttft_ms_p50"] == pytest.approx(400.0)
    # TPOT = (E2E − TTFT) / (tokens − 1); the one-token request has none.
    tpots = [0.4 / 3, 0.25 / 5, 0.4 / 2]
    assert row["tpot_ms_mean"] == pytest.approx(np.mean(tpots) * 1000)
    # the tokens after each first one over the time they took, summed: 10 tokens in 1.05 s
    assert row["user_tok_s"] == pytest.approx((3 + 5 + 2) / (0.4 + 0.25 + 0.4))
    itls = [0.1, 0.1, 0.2, *[0.05] * 5, 0.3, 0.1]
    assert row["itl_ms_p99"] == pytest.approx(np.percentile(itls, 99) * 1000)
    # Within SLO: request 0 (TTFT 500, TPOT 133) and 1; not 2 (TTFT 1000) nor 3 (TPOT 200).
    assert row["goodput_req_s"] == pytest.approx(2 / 2.0)
    assert row["slo_attainment"] == pytest.approx(2 / row["completed"])


def test_bad_metric_input_is_refused(records: list[RequestRecord]) -> None:
    with pytest.raises(ValueError, match="duration"):
        metrics.calculate(records, 0.0)
    with pytest.raises(ValueError, match="latency"):
        metrics.calculate(records, 1.0, slo={"latency": 100})


def test_itls_follow_each_sample_of_a_parallel_request() -> None:
    r = RequestRecord(PlannedRequest(index=0, user=0, prompt="p", max_tokens=2, n=2))
    r.token_samples = [0, 1, 0, 1]
    r.token_times = [1.0, 1.01, 1.1, 1.12]
    assert r.itls() == pytest.approx([0.1, 0.11])


def test_itls_during_a_window_only_count_overlapping_user_gaps() -> None:
    users = [record(0, 0.0, [0.1, 0.1, 2.0, 0.1], ttft=0.1)]  # tokens at .1 .2 .3 2.3 2.4
    other = record(1, 0.5, [], ttft=1.5, role="interferer")
    gaps = metrics.itls_during([*users, other], start=0.5, end=2.0)
    assert gaps == pytest.approx([2.0])


def test_poisson_mean_interarrival_is_one_over_rate() -> None:
    arrivals = poisson_arrivals(rate=4.0, count=4000, seed=7)
    assert arrivals[0] == 0.0 and np.all(np.diff(arrivals) >= 0)
    assert np.diff(arrivals).mean() == pytest.approx(0.25, rel=0.05)
    assert not np.array_equal(arrivals, poisson_arrivals(4.0, 4000, seed=8))


def test_output_lengths_are_mostly_short_with_a_few_long() -> None:
    lengths = short_and_long_lengths(5000, short=(4, 32), long=(128, 192), long_share=0.125, seed=1)
    long = lengths >= 128
    assert long.sum() == 625  # exactly the share, not about it
    assert (short_and_long_lengths(96, (2, 8), (160, 192), 0.125, seed=7) >= 160).sum() == 12
    assert lengths[long].min() >= 128 and lengths[long].max() == 192
    assert lengths[~long].min() == 4 and lengths[~long].max() == 32
    assert not np.array_equal(
        lengths, short_and_long_lengths(5000, (4, 32), (128, 192), 0.125, seed=2)
    )
    with pytest.raises(ValueError, match="long_share"):
        short_and_long_lengths(4, (4, 32), (128, 192), long_share=1.5, seed=0)
    with pytest.raises(ValueError, match="short"):
        short_and_long_lengths(4, (32, 4), (128, 192), long_share=0.1, seed=0)


def user_record(index: int, user: int, times: list[float]) -> RequestRecord:
    """A finished request of ``user`` whose tokens arrived at ``times`` (sent 0.1 s before)."""
    r = RequestRecord(PlannedRequest(index=index, user=user, prompt="p", max_tokens=len(times)))
    r.sent, r.token_times, r.token_samples = times[0] - 0.1, list(times), [0] * len(times)
    r.first_token, r.end, r.closed = times[0], times[-1], times[-1] + 0.01
    r.prompt_tokens, r.output_tokens = 4, len(times)
    return r


def test_steady_window_is_where_every_user_decodes() -> None:
    # User 0 decodes from 1.0 to 5.0; user 1 from 2.0 to 6.0 (two requests with a gap between).
    records = [
        user_record(0, 0, [1.0, 2.0, 3.0, 4.0, 5.0]),
        user_record(1, 1, [2.0, 2.5, 3.0]),
        user_record(2, 1, [3.5, 4.0, 4.5, 5.0, 6.0]),
    ]
    assert metrics.steady_window(records) == (2.0, 5.0)
    row = metrics.steady(records)
    # Tokens in (2.0, 5.0]: user 0 at 3, 4, 5; user 1 at 2.5, 3, 3.5, 4, 4.5, 5 → 9 in 3 s.
    assert row["steady_output_tok_s"] == pytest.approx(9 / 3.0)
    assert row["steady_user_tok_s"] == pytest.approx(9 / 3.0 / 2)
    whole = metrics.calculate(records, duration_s=6.0)
    assert whole["output_tok_s"] == pytest.approx(13 / 6.0)
    assert whole["steady_output_tok_s"] == pytest.approx(row["steady_output_tok_s"])


def test_one_user_is_steady_over_its_own_decode() -> None:
    row = metrics.steady([user_record(0, 0, [0.5, 0.6, 0.7, 0.8, 0.9])])
    assert (row["steady_start_s"], row["steady_end_s"]) == (0.5, 0.9)
    assert row["steady_output_tok_s"] == pytest.approx(1 / 0.1)


def test_users_that_never_overlap_have_no_steady_window() -> None:
    records = [user_record(0, 0, [1.0, 1.1, 1.2]), user_record(1, 1, [2.0, 2.1, 2.2])]
    assert metrics.steady_window(records) is None
    row = metrics.steady(records)
    assert all(math.isnan(value) for value in row.values())
    assert metrics.steady_window([]) is None


def test_a_failed_request_does_not_count_as_a_user() -> None:
    failed = RequestRecord(PlannedRequest(index=1, user=1, prompt="p", max_tokens=4))
    failed.error = "APIConnectionError: Connection error."
    records = [user_record(0, 0, [1.0, 1.5, 2.0]), failed]
    assert metrics.steady_window(records) == (1.0, 2.0)
    assert metrics.steady(records)["steady_user_tok_s"] == pytest.approx(2.0)


def test_slots_are_reused_and_idle_time_is_counted() -> None:
    # Two slots over 0..3 s: request 0 holds a slot 0..3 s, request 1 0..1 s; request 2 comes
    # 1 s later than the slot it takes was freed (a wave boundary) and runs 2..3 s.
    records = [
        user_record(0, 0, [0.1, 3.0]),
        user_record(1, 1, [0.1, 0.99]),
        user_record(2, 0, [2.1, 3.0]),
    ]
    assert metrics.assign_slots(records, slots=2) == [0, 1, 1]
    # Busy: 3.0 + 0.99 + 1.0 slot-seconds of 2 × 3.0.
    assert metrics.idle_slot_share(records, slots=2) == pytest.approx(1 - 4.99 / 6.0)
    # Idle: 1.01 slot-seconds, of which none after the last send at 2.1 s (both slots busy).
    assert metrics.idle_after_last_send(records, slots=2) == pytest.approx(0.0, abs=1e-9)


def test_idle_time_after_the_last_send_is_the_tail() -> None:
    # Two slots: requests 0 and 1 run 0..1 s, request 2 runs 1..4 s alone. Idle: 3 of the
    # 2 × 4 slot-seconds, all after the last send at 1 s.
    records = [
        user_record(0, 0, [0.1, 1.0]),
        user_record(1, 1, [0.1, 1.0]),
        user_record(2, 0, [1.1, 4.0]),
    ]
    assert metrics.idle_slot_share(records, slots=2) == pytest.approx(3 / 8)
    assert metrics.idle_after_last_send(records, slots=2) == pytest.approx(1.0)


ALL_WORKLOADS = [
    ClosedLoop(users=3, requests_per_user=2),
    OpenLoop(rate=2.0, num_requests=5),
    StaticBatching(batch_size=4, num_requests=8),
    SharedPrefix(prefix_tokens=50, users=2),
    Interferer(ClosedLoop(users=2), document_tokens=100),
    ParallelSampling(n=3),
]


@pytest.mark.parametrize("workload", ALL_WORKLOADS, ids=lambda w: w.name)
def test_workloads_plan_the_same_requests_every_time(workload: object) -> None:
    first, again = workload.plan(WordPrompts()), workload.plan(WordPrompts())
    assert first == again
    assert [p.index for p in first] == list(range(len(first)))


def test_seeds_change_prompts_and_lengths() -> None:
    a = StaticBatching(batch_size=4, num_requests=8, seed=0).plan(WordPrompts())
    b = StaticBatching(batch_size=4, num_requests=8, seed=1).plan(WordPrompts())
    assert [p.prompt for p in a] != [p.prompt for p in b]
    assert [p.max_tokens for p in a] != [p.max_tokens for p in b]
    assert len({p.prompt for p in a}) == len(a)


def test_shared_prefix_shares_exactly_the_prefix() -> None:
    plan = SharedPrefix(prefix_tokens=40, users=2, requests_per_user=2, question_tokens=5).plan(
        WordPrompts()
    )
    words = [p.prompt.split() for p in plan]
    assert all(len(w) == 45 and w[:40] == words[0][:40] for w in words)
    assert len({tuple(w[40:]) for w in words}) == 4
    salted = SharedPrefix(prefix_tokens=40, users=2, reuse_cache=False).plan(WordPrompts())
    assert len({p.cache_salt for p in salted}) == len(salted)


def test_runs_are_isolated_from_each_other_in_the_prefix_cache() -> None:
    plan = ClosedLoop(users=2, requests_per_user=2, input_tokens=8).plan(WordPrompts())
    first, second = isolated(plan, "run-a"), isolated(plan, "run-b")
    assert {p.cache_salt for p in first} == {"run-a-run"}
    assert not {p.cache_salt for p in first} & {p.cache_salt for p in second}
    assert [p.prompt for p in first] == [p.prompt for p in plan]
    salted = SharedPrefix(prefix_tokens=40, users=2, reuse_cache=False).plan(WordPrompts())
    assert len({p.cache_salt for p in isolated(salted, "run-a")}) == len(salted)
    assert SharedPrefix(prefix_tokens=40).reuses_cache
    assert not SharedPrefix(prefix_tokens=40, reuse_cache=False).reuses_cache


def test_interferer_arrives_late_with_a_long_prompt() -> None:
    plan = Interferer(ClosedLoop(users=3), document_tokens=500, arrival=1.5).plan(WordPrompts())
    (long,) = [p for p in plan if p.role == "interferer"]
    assert long.arrival == 1.5 and len(long.prompt.split()) == 500
    assert all(p.arrival == 0.0 for p in plan if p.role == "user")


def test_several_documents_arrive_spaced_apart_each_a_different_text() -> None:
    plan = Interferer(
        ClosedLoop(users=2), document_tokens=50, arrival=1.0, documents=3, spacing=2.5
    ).plan(WordPrompts())
    documents = [p for p in plan if p.role == "interferer"]
    assert [p.arrival for p in documents] == [1.0, 3.5, 6.0]
    assert len({p.prompt for p in documents}) == 3 and len({p.index for p in plan}) == 5
    with pytest.raises(ValueError, match="spacing"):
        Interferer(documents=2)
    with pytest.raises(ValueError, match="documents"):
        Interferer(documents=0)


def test_bad_workloads_are_refused() -> None:
    with pytest.raises(ValueError, match="users"):
        ClosedLoop(users=0)
    with pytest.raises(ValueError, match="rate"):
        OpenLoop(rate=-1)
    with pytest.raises(ValueError, match="arrival"):
        Interferer(arrival=-1)


def test_plots_draw_from_a_result(records: list[RequestRecord]) -> None:
    import pandas as pd

    from servelab import plots

    result = _result([*records, record(4, 0.6, [0.1], ttft=0.2, role="interferer")])
    overlapping = _result([user_record(0, 0, [1.0, 2.0, 3.0]), user_record(1, 1, [1.5, 2.5])])
    sweep = pd.DataFrame(
        {"concurrency": [1, 2, 4], "output_tok_s": [30, 55, 90], "user_tok_s": [30, 27, 22]}
    )
    over_time = plots.throughput_over_time({"one": result, "two": overlapping})
    figures = [
        plots.request_timeline(result),
        plots.concurrency_curves(sweep, title="More users, more tokens"),
        plots.itl_over_time(result),
        plots.kv_usage(result),
        over_time,
        plots.slot_timeline(result, slots=2),
        plots.step_time_fit([1, 2, 4], [40.7, 41.4, 42.8], 40.0, 0.7),
    ]
    assert figures[1].texts[0].get_text() == "More users, more tokens"
    for figure in figures:
        assert figure.axes[0].get_xlabel()
        assert all(ax.get_ylabel() for ax in figure.axes)
        matplotlib.pyplot.close(figure)
    slots_axis = figures[5].axes[0]
    assert slots_axis.get_ylim() == (1.5, -0.5)  # slot 0 on top, no phantom slot 2 below
    (steady,) = over_time.axes[0].collections  # only the second run has a steady window
    assert steady.get_segments()[0][0][0] == pytest.approx(1.5)  # its dashed line starts there
    steady_sweep = sweep.assign(steady_output_tok_s=[31, 60, 100])
    assert len(plots.concurrency_curves(steady_sweep).axes[0].lines) == 2
    with pytest.raises(ValueError, match="user_tok_s"):
        plots.concurrency_curves(sweep.drop(columns="user_tok_s"))
