"""servelab.bench against a real vLLM server (at most one running at a time).

Run under the engine lock:
    flock /tmp/servelab-engine.lock .venv/bin/pytest tests/engine/servelab/test_bench_engine.py
"""

from __future__ import annotations

import _thread
import asyncio
import threading
import warnings
from collections.abc import Callable

import numpy as np
import pytest

import servelab.bench as bench
from servelab import Server
from servelab.bench.server_metrics import fetch_metrics

pytestmark = pytest.mark.engine

FLAGS = dict(max_model_len=1024, max_num_seqs=16)


class OneServer:
    """Hands out a server with the asked-for prefix caching, stopping the previous one first:
    this machine never runs two vLLM servers at once."""

    def __init__(self) -> None:
        self.current: Server | None = None
        self.caching: bool | None = None

    def get(self, caching: bool) -> Server:
        if self.current is None or self.caching != caching or not self.current.running:
            self.stop()
            self.current = Server(enable_prefix_caching=caching, **FLAGS).start()
            self.caching = caching
        return self.current

    def stop(self) -> None:
        if self.current is not None:
            self.current.stop()
            self.current = None


def generated_tokens(server: Server) -> float:
    return fetch_metrics(server.url)["generation_tokens"]


def after_tokens(
    server: Server, tokens: int, action: Callable[[], object], done: threading.Event
) -> threading.Thread:
    """Call ``action`` once the server has generated ``tokens`` more tokens than now: an event
    inside the run, not a timer, so a fast or a slow machine interrupts it at the same point.
    Polls /metrics twice a second (each scrape costs the server time) and gives up once
    ``done`` is set, so that a run that ended first is never interrupted afterwards. A failed
    scrape is retried (on a slow machine one can time out) rather than ending the watcher."""
    start = generated_tokens(server)

    def watch() -> None:
        while not done.wait(0.5):
            try:
                made = generated_tokens(server) - start
            except OSError:  # a scrape that timed out on a busy server is tried again
                continue
            if made >= tokens:
                action()
                return

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    return watcher


@pytest.fixture(scope="module")
def servers():
    pool = OneServer()
    yield pool
    pool.stop()


@pytest.fixture
def server(servers: OneServer) -> Server:
    return servers.get(caching=True)


@pytest.fixture
def closed(server: Server) -> bench.Result:
    return bench.closed_loop(
        server, users=4, requests_per_user=2, input_tokens=32, max_tokens=24, progress=False
    )


def test_ignore_eos_gives_exactly_max_tokens(closed: bench.Result) -> None:
    requests = closed.requests
    assert requests["ok"].all(), requests["error"].tolist()
    assert (requests["output_tokens"] == 24).all()
    assert (requests["prompt_tokens"] == 32).all()


def test_one_gap_fewer_than_tokens_and_ttft_within_e2e(closed: bench.Result) -> None:
    requests = closed.requests
    assert (requests["itl_count"] == requests["output_tokens"] - 1).all()
    assert (requests["ttft_s"] > 0).all()
    assert (requests["ttft_s"] <= requests["e2e_s"]).all()
    assert len(closed.tokens) == requests["output_tokens"].sum()


def test_closed_loop_never_has_more_than_n_in_flight(closed: bench.Result) -> None:
    summary = closed.summary()
    assert summary["max_in_flight"] == 4
    assert summary["completed"] == 8 and summary["failed"] == 0
    assert summary["output_tok_s"] > 0


def test_steady_state_is_inside_the_run_and_leaves_out_the_ramp(closed: bench.Result) -> None:
    summary = closed.summary()
    start, end = closed.steady_window()
    requests = closed.requests
    assert start == requests.groupby("user")["first_token_s"].min().max()
    assert end == requests.groupby("user")["end_s"].max().min()
    assert 0 < start < end <= summary["duration_s"]
    assert summary["steady_user_tok_s"] * 4 == pytest.approx(summary["steady_output_tok_s"])
    # The rate counts only the tokens that arrived inside the window, over the window's length.
    times = closed.tokens["t_s"]
    inside = ((times > start) & (times <= end)).sum()
    assert 0 < inside < len(times)
    assert summary["steady_output_tok_s"] == pytest.approx(inside / (end - start))


def test_chapter_10_tries_its_time_bound_with_every_user_at_once(server: Server) -> None:
    """The time bound tried past the measured line (chapter 10, issue #64): one request per
    user, all decoding together, each timed after its first token."""
    from servelab.lessons.batching.steps import StepFit
    from servelab.lessons.capacity_plan.pace_try import try_pace_bound
    from servelab.lessons.capacity_plan.plan import Brief, CapacityPlan

    brief = Brief(
        rate_req_s=1.0,
        prompt_tokens=32,
        answer_tokens=16,
        tpot_factor=2.0,
        ttft_factor=4.0,
        share=0.9,
    )
    plan = CapacityPlan(
        brief,
        StepFit(50.0, 5.0, 1.0),
        prompt_ms=0.0,
        first_token_ms=100.0,
        kv_tokens=100 * brief.tokens_per_request,
        kv_bytes_per_token=2**20,
        largest_measured=4,
    )
    tried = try_pace_bound(server, plan, batch=8)
    assert (tried.batch, tried.measured, tried.tpot_ms.n) == (8, 4, 8)
    assert 0 < tried.tpot_ms.low <= tried.tpot_ms.median <= tried.tpot_ms.high
    assert (tried.line_ms, tried.target_ms) == (plan.step.at(8), plan.tpot_target_ms)


def test_parallel_samples_each_get_max_tokens(server: Server) -> None:
    result = bench.parallel_sampling(server, n=3, max_tokens=12, progress=False)
    (request,) = result.requests.itertuples()
    assert request.output_tokens == 36
    assert result.tokens.groupby("sample").size().tolist() == [12, 12, 12]
    assert request.itl_count == 36 - 3


def test_a_sweep_prints_one_line_where_bars_are_off(
    server: Server, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A built page once showed fifteen 'closed loop: ...' lines for one sweep."""
    monkeypatch.setenv("TQDM_DISABLE", "1")
    runs = bench.sweep_runs(
        server, [1, 2], requests_per_user=1, input_tokens=8, max_tokens=4, repeats=2
    )
    assert [len(runs[users]) for users in (1, 2)] == [2, 2]
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 1 and lines[0].startswith("sweep of 2 passes, users × output tok/s by ")
    assert lines[0].count(" / ") == 2  # each level's output in both passes
    bench.sweep_runs(
        server, [1, 2], requests_per_user=1, input_tokens=8, max_tokens=4, progress=False
    )
    assert capsys.readouterr().out == ""


def test_open_loop_sends_at_the_planned_arrivals(server: Server) -> None:
    result = bench.open_loop(
        server, rate=8.0, num_requests=12, input_tokens=16, max_tokens=8, progress=False
    )
    requests = result.requests
    assert requests["ok"].all()
    lateness = requests["sent_s"] - requests["queued_s"]
    # Never early, mostly on time. A 2-core machine busy with the engine can stall the client
    # for a few hundred ms (CI saw 0.38 s), so one late stretch is allowed; a sender that waited
    # for answers would fall behind by seconds over these 12 requests.
    assert (lateness >= 0).all(), lateness.tolist()
    assert lateness.median() < 0.1 and lateness.max() < 1.0, lateness.tolist()


def test_chat_endpoint_counts_tokens_too(server: Server) -> None:
    result = bench.closed_loop(server, users=2, max_tokens=10, endpoint="chat", progress=False)
    requests = result.requests
    assert (requests["output_tokens"] == 10).all()
    assert (requests["itl_count"] == 9).all()


def test_runs_inside_a_running_event_loop_as_in_jupyter(server: Server) -> None:
    async def notebook_cell() -> bench.Result:
        return bench.closed_loop(server, users=2, max_tokens=8, progress=False)

    result = asyncio.run(notebook_cell())
    assert result.summary()["completed"] == 2


def test_sampler_sees_prefix_cache_hits(server: Server) -> None:
    result = bench.shared_prefix(
        server,
        prefix_tokens=256,
        users=1,
        requests_per_user=3,
        metrics_interval=0.2,
        progress=False,
    )
    assert (result.requests["prompt_tokens"] == 256 + 16).all()
    summary = result.summary()
    assert summary["prefix_cache_hits"] >= 2 * 256 - 16
    assert len(result.server) >= 2


def test_a_run_never_hits_blocks_an_earlier_run_cached(server: Server) -> None:
    # Prefix caching is on, and both runs send the same seeded 300-token prompt: more than two
    # of the CPU engine's 128-token blocks (a GPU's are 16), so without the run's own cache salt
    # the second run would find them cached. Reuse stays possible where it is the lesson.
    def hits() -> float:
        return fetch_metrics(server.url)["prefix_cache_hits"]

    options = dict(
        users=1, input_tokens=300, max_tokens=4, seed=7, metrics_interval=None, progress=False
    )
    bench.closed_loop(server, **options)
    before = hits()
    again = bench.closed_loop(server, **options)
    assert again.summary()["completed"] == 1
    assert hits() == before
    reused = bench.shared_prefix(
        server,
        prefix_tokens=300,
        users=1,
        requests_per_user=2,
        metrics_interval=None,
        progress=False,
    )
    assert reused.summary()["completed"] == 2 and hits() > before


def test_prefill_fit_separates_the_fixed_cost_from_the_rate(server: Server) -> None:
    fit = bench.prefill_fit(server, long_tokens=640, short_tokens=80, repeats=2)
    assert fit.separated and fit.tok_s > 0 and fit.fixed_ms < 1000


def test_a_time_limit_keeps_the_partial_result(server: Server) -> None:
    # The limit is sized from this machine's own speed: at least ten times one request's time
    # lets some of the 1,000 requests finish, and not all (they take about 500 times as long).
    one = bench.closed_loop(server, users=1, max_tokens=8, metrics_interval=None, progress=False)
    limit = max(15.0, 10 * one.summary()["duration_s"])
    with pytest.warns(UserWarning, match="time limit"):
        result = bench.closed_loop(
            server,
            users=2,
            requests_per_user=500,
            max_tokens=8,
            time_limit=limit,
            metrics_interval=None,
            progress=False,
        )
    assert result.status == "time limit"
    assert 0 < result.summary()["completed"] < 1000
    assert "time limit" in str(result)


@pytest.mark.usefixtures("ctrl_c_raises")
def test_ctrl_c_keeps_the_partial_result(server: Server) -> None:
    # Interrupt once 40 tokens (at least one whole 16-token answer) have come out of 6,400: the
    # run is long so that the interrupt comes inside it however slowly /metrics answers.
    done = threading.Event()
    watcher = after_tokens(server, 40, _thread.interrupt_main, done)
    with warnings.catch_warnings(record=True):
        result = bench.closed_loop(
            server, users=2, requests_per_user=200, max_tokens=16, progress=False
        )
    done.set()
    watcher.join()
    assert result.status == "interrupted"
    assert result.summary()["completed"] > 0
    assert result.requests["error"].eq("cancelled").any()


def test_no_prefix_cache_hits_with_caching_off(servers: OneServer) -> None:
    server = servers.get(caching=False)
    result = bench.shared_prefix(
        server,
        prefix_tokens=256,
        users=1,
        requests_per_user=3,
        metrics_interval=0.2,
        progress=False,
    )
    assert result.summary()["completed"] == 3
    hits = result.server["prefix_cache_hits"]
    assert np.nan_to_num(hits).max() == 0


def test_a_server_that_dies_mid_run_ends_it_with_a_clear_error(servers: OneServer) -> None:
    server = servers.get(caching=False)
    done = threading.Event()
    watcher = after_tokens(server, 64, server.stop, done)
    with pytest.raises(bench.ServerDiedError, match="stopped during the closed loop") as caught:
        bench.closed_loop(server, users=2, requests_per_user=100, max_tokens=64, progress=False)
    done.set()
    watcher.join()
    partial = caught.value.result
    assert partial.status == "server died"
    assert len(partial.records) > 0
