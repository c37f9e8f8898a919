"""Chapter 09's pure logic: the router's metrics page, its command line read by the router's own
parser, the tenants' traffic, the failure wrapper and the findings of the page (the policies' and
the failures' words: test_policy_words.py, test_failure_words.py)."""

from __future__ import annotations

import asyncio
import dataclasses
import math
import time

import numpy as np
import pandas as pd
import pytest

from servelab.bench.client import PlannedRequest, RequestRecord
from servelab.bench.frames import Result
from servelab.bench.prompts import WordPrompts
from servelab.bench.spread import Spread
from servelab.bench.workloads import FailureDuring, Tenants, isolated
from servelab.engines.process import ServerStartError
from servelab.engines.router import (
    CACHE_AWARE,
    ROUND_ROBIN,
    Router,
    RouterMissing,
    parse_router_metrics,
)
from servelab.lessons.compare import Compared
from servelab.lessons.past_one_machine.failure_words import _lost_after_text, failure_text
from servelab.lessons.past_one_machine.failures import Failure, Failures
from servelab.lessons.past_one_machine.findings import (
    CopiesFindings,
    PolicyRun,
    RoutingFindings,
    copies_verdict,
    has_two_gpus,
)
from servelab.lessons.past_one_machine.measuring import failure_of, setup_table
from servelab.lessons.past_one_machine.policy_words import policy_table, routing_text
from tests.support import FIXTURES

# a verdict that sets neither policy or set-up apart
NEITHER = (Compared.ALIKE, Compared.UNTOLD)


def test_the_routers_metrics_page_says_who_is_healthy_and_who_served_what():
    page = parse_router_metrics((FIXTURES / "vllm-router-0.1.17" / "metrics.prom").read_text())
    assert sorted(page.processed.values()) == [6.0, 12.0]
    assert set(page.healthy) == set(page.processed) and all(page.healthy.values())
    assert page.retries == 0.0
    down = parse_router_metrics(
        'vllm_router_worker_health{worker="http://a:1"} 0\n'
        'vllm_router_retries_total{route="/v1/completions"} 3\n'
    )
    assert down.healthy == {"http://a:1": False} and down.retries == 3.0


class _Replica:
    def __init__(self, port: int, running: bool = True) -> None:
        self.url, self.running, self.model = f"http://127.0.0.1:{port}", running, "m"


def test_the_routers_own_parser_reads_the_command_servelab_builds():
    from vllm_router.launch_router import parse_router_args

    router = Router([_Replica(8001), _Replica(8002)], policy=CACHE_AWARE)
    router.metrics_port = 29123
    command = router.command
    assert command[1:3] == ["-m", "vllm_router.launch_router"]
    args = parse_router_args(command[3:])
    assert args.worker_urls == ["http://127.0.0.1:8001", "http://127.0.0.1:8002"]
    assert args.policy == "cache_aware" and args.prometheus_port == 29123
    assert (args.health_check_interval_secs, args.health_failure_threshold) == (1, 2)
    assert router.command_line.startswith("vllm-router --host 127.0.0.1 --port ")


def test_a_router_refuses_to_start_without_its_package_or_before_its_replicas(monkeypatch):
    with pytest.raises(ServerStartError, match=r"not running: replica 1"):
        Router([_Replica(8001), _Replica(8002, running=False)]).start()
    monkeypatch.setattr("importlib.util.find_spec", lambda name: None)
    with pytest.raises(RouterMissing, match="vLLM's router is not installed"):
        Router([_Replica(8001)]).start()
    with pytest.raises(ValueError, match="at least one replica"):
        Router([])


class _TokenPrompts(WordPrompts):
    """Words as prompts, one "token" per word (the tenants' traffic tokenizes its prompts)."""

    def tokenize(self, text: str) -> list[int]:
        return [len(word) for word in text.split()]


def test_tenants_send_their_own_prompt_in_a_shuffled_order_with_ids_naming_them():
    workload = Tenants(
        3, 4, prefix_tokens=20, question_tokens=5, rate=2.0, seed=1, send_token_ids=False
    )
    plan = workload.plan(WordPrompts())
    assert sorted(p.user for p in plan) == [0] * 4 + [1] * 4 + [2] * 4
    order = [p.user for p in plan]
    assert order != sorted(order) and order[:3] * 4 != order  # no fixed rotation of tenants
    for planned in plan:
        same = [p for p in plan if p.user == planned.user]
        assert all(p.prompt.split()[:20] == planned.prompt.split()[:20] for p in same)
        assert planned.request_id == f"tenant{planned.user}-request{planned.index}"
    assert len({p.prompt.split()[0:20][0] for p in plan}) >= 1
    arrivals = [p.arrival for p in plan]
    assert arrivals == sorted(arrivals) and arrivals[0] == 0.0
    salted = isolated(plan, "run7")
    assert [p.request_id for p in salted] == [f"run7-{p.request_id}" for p in plan]
    tokens = Tenants(1, 2, prefix_tokens=8, seed=1).plan(_TokenPrompts())
    assert all(isinstance(p.prompt, list) and len(p.prompt) == 8 + 16 for p in tokens)


def test_a_salted_tenants_plan_shares_its_salt_across_passes_but_not_its_ids():
    """The warm pass: the cold pass's salt, so its cached prompts are found, with ids of its
    own, so the replicas' logs tell the two passes' requests apart."""
    workload = Tenants(2, 2, prefix_tokens=8, seed=1, send_token_ids=False)
    assert not workload.reuses_cache  # run() salts each run on its own
    salted = dataclasses.replace(workload, salt="s1")
    cold, warm = salted.plan(WordPrompts()), salted.plan(WordPrompts())
    assert salted.reuses_cache and {p.cache_salt for p in cold + warm} == {"s1"}
    assert [p.prompt for p in cold] == [p.prompt for p in warm]
    assert not {p.request_id for p in cold} & {p.request_id for p in warm}
    assert all(p.request_id.endswith(f"tenant{p.user}-request{p.index}") for p in warm)


class _Clock:
    """A run's session as the runner gives it: a clock, and requests that take no time."""

    def __init__(self) -> None:
        self.zero = time.perf_counter()
        self.sent: list[float] = []

    def now(self) -> float:
        return time.perf_counter() - self.zero

    async def send(self, planned: PlannedRequest) -> None:
        self.sent.append(self.now())


class _Steady:
    name, reuses_cache = "steady", False

    def plan(self, prompts: object) -> list[PlannedRequest]:
        return [
            PlannedRequest(index=i, user=i, prompt="x", max_tokens=1, arrival=0.1 * i)
            for i in range(6)
        ]

    async def drive(self, session: _Clock, plan: list[PlannedRequest]) -> None:
        for planned in plan:
            await asyncio.sleep(max(0.0, planned.arrival - session.now()))
            await session.send(planned)


def test_a_failure_comes_on_time_and_the_notice_is_timed_on_the_runs_clock():
    failed_at: list[float] = []
    asks = iter([False, False, True])
    clock = _Clock()
    workload = FailureDuring(
        _Steady(),
        at_s=0.2,
        fail=lambda: failed_at.append(clock.now()),
        noticed=lambda: next(asks),
        watch_interval_s=0.05,
    )
    asyncio.run(workload.drive(clock, workload.plan(None)))
    # On time as the run's own clock goes: not before at_s, and before the request planned
    # 0.2 s later is sent (a stalled event loop delays both alike; CI saw a 0.19 s stall).
    assert len(clock.sent) == 6 and failed_at and 0.2 <= failed_at[0] < clock.sent[4]
    assert workload.events["failed"] <= failed_at[0] < workload.events["noticed"]
    assert workload.events["noticed"] - workload.events["failed"] >= 0.1
    assert workload.name == "steady, one failure"

    def broken() -> None:
        raise OSError("no such process")

    with pytest.raises(OSError, match="no such process"):
        doomed = FailureDuring(_Steady(), at_s=0.0, fail=broken)
        asyncio.run(doomed.drive(_Clock(), doomed.plan(None)))


def _run(
    policy: str, spread: list[list[int]], hits: tuple[float, ...], ttft_ms: float
) -> PolicyRun:
    frame = pd.DataFrame(spread, columns=["replica 0", "replica 1"])
    return PolicyRun(
        policy=policy,
        summary={"ttft_ms_p50": ttft_ms, "ttft_ms_p99": 2 * ttft_ms, "output_tok_s": 10.0},
        spread=frame,
        queries=(1000.0, 1000.0),
        hits=hits,
    )


def test_policy_findings_count_prefills_and_how_far_tenants_stayed_together():
    spreading = _run(ROUND_ROBIN, [[2, 2], [3, 1]], (500.0, 500.0), 600.0)
    following = _run(CACHE_AWARE, [[4, 0], [0, 4]], (800.0, 750.0), 200.0)
    assert (spreading.prefills, following.prefills) == (4, 2)
    assert spreading.kept_together == pytest.approx((0.5 + 0.75) / 2)
    assert following.kept_together == 1.0
    assert spreading.hit_rate == 0.5 and following.computed_tokens == 450.0
    workload = Tenants(2, 4, prefix_tokens=100)
    found = RoutingFindings.of([spreading] * 2, [following] * 2, workload)
    assert found.expected_tokens[0].median == 528  # 4 x 100 + 8 x 16
    assert [spread.to_numpy().tolist() for spread in found.run_spreads[ROUND_ROBIN]] == [
        [[2, 2], [3, 1]]
    ] * 2  # each run's own, not their sum
    table = policy_table(found)
    assert list(table.index) == [ROUND_ROBIN, CACHE_AWARE]
    assert list(table.iloc[:, 2]) == ["4 (both alike)", "2 (both alike)"]  # computed
    assert list(table["runs"]) == ["2", "2"]
    assert table.iloc[:, 1][ROUND_ROBIN] == "0.62 (both alike)"  # kept on the busiest replica
    assert table.loc[CACHE_AWARE, "first token p50 (ms)"] == "200 (both alike)"
    text = routing_text(found)
    assert "made 4 computations" in text and "528 and 328" in text


def _routing(
    hits: tuple[list[float], list[float]], ttft_ms: tuple[list[float], list[float]]
) -> RoutingFindings:
    """Findings from runs with these hit rates (out of 1,000 tokens per replica) and medians."""

    def runs(policy: str, rates: list[float], ttfts: list[float]) -> list[PolicyRun]:
        return [
            _run(policy, [[4, 0], [0, 4]], (1000 * rate, 1000 * rate), ttft)
            for rate, ttft in zip(rates, ttfts, strict=True)
        ]

    return RoutingFindings.of(
        runs(ROUND_ROBIN, hits[0], ttft_ms[0]),
        runs(CACHE_AWARE, hits[1], ttft_ms[1]),
        Tenants(2, 4, prefix_tokens=100),
    )


def _sooner(
    spreading: list[list[int]],
    following: list[list[int]],
    per_tenant: int,
    alone_s: float = math.nan,
) -> RoutingFindings:
    """Findings where cache_aware's first tokens came sooner, with these requests per tenant
    (row) and replica (column) in each run."""
    workload = Tenants(2, per_tenant, prefix_tokens=100)
    requests = 2 * per_tenant

    def runs(policy: str, spread: list[list[int]], ttfts: list[float]) -> list[PolicyRun]:
        # The replicas' counters as a cache that computes each prompt once per first visit.
        looked_up = requests * (workload.prefix_tokens + workload.question_tokens)
        computed = (
            int((np.array(spread) > 0).sum()) * workload.prefix_tokens
            + requests * workload.question_tokens
        )
        return [
            dataclasses.replace(
                _run(policy, spread, ((looked_up - computed) / 2,) * 2, ttft),
                queries=(looked_up / 2,) * 2,
            )
            for ttft in ttfts
        ]

    return RoutingFindings.of(
        runs(ROUND_ROBIN, spreading, [600.0, 640.0]),
        runs(CACHE_AWARE, following, [200.0, 260.0]),
        workload,
        alone_s,
    )


def _record(sent: float, ok: bool, took: float = 0.5) -> RequestRecord:
    record = RequestRecord(PlannedRequest(index=0, user=0, prompt="x", max_tokens=1))
    record.sent = sent
    if ok:
        record.first_token, record.end, record.token_times = sent + 0.1, sent + took, [sent + 0.1]
    else:
        record.error = "APIConnectionError: Connection error."
    return record


class _Router:
    health_interval_s, health_failures = 1, 2


def _failure(
    before: list[float], after: list[float], noticed: float | None = 2.5, retries: float = 3.0
) -> Failure:
    """A kill at 1.0 s: one request sent before it fails, one sent after it (at 1.5 s) fails,
    and the others succeed, taking ``before`` and ``after`` seconds."""
    records = (
        [_record(0.1 * i, True, took) for i, took in enumerate(before)]
        + [_record(0.5, False), _record(1.5, False)]
        + [_record(1.2 + 0.5 * i, True, took) for i, took in enumerate(after)]
    )
    workload = FailureDuring(_Steady(), at_s=1.0, fail=lambda: None)
    workload.events.update(failed=1.0)
    if noticed is not None:
        workload.events.update(noticed=noticed)
    result = Result(workload=_Steady(), records=records, duration_s=6.0)
    return failure_of(result, workload, _Router(), retries=retries)


def test_a_failures_findings_split_the_requests_at_the_kill():
    failure = _failure([0.5, 0.6], [2.0, 0.7])
    assert (failure.failed_before, failure.failed_after, failure.failed) == (1, 1, 2)
    assert (failure.sent_before, failure.sent_after) == (3, 3) and failure.failed_unnoticed == 1
    assert failure.detection_s == 1.5 and failure.latency_after == Spread(1.35, 0.7, 2.0, 2)
    assert failure.errors_after == ("APIConnectionError: Connection error.",)
    text = failure_text(Failures((failure,)))
    assert "Of the 3 requests" in text and "it, 1 failed" in text
    assert "3 retries" in text and "1.5 s" in text
    assert _lost_after_text(Failures((failure,))) in text and "1 failed" in text
    assert text.count("the 3 requests") == 2  # sent before the kill, and after it
    assert '"APIConnectionError: Connection error."' in text
    late = _failure([0.5, 0.6], [2.0, 0.7], noticed=None, retries=0.0)
    assert math.isnan(late.detection_s) and late.failed_unnoticed == 1
    late_text = failure_text(Failures((late,)))
    assert "retries a run)" not in late_text and "1.5 s" not in late_text
    assert late_text.split(". ")[3] != text.split(". ")[3]  # what the router counted
    noticed_early = _failure([0.5, 0.6], [2.0, 0.7], noticed=1.2)
    assert noticed_early.failed_unnoticed == 0
    assert "0.2 s" in failure_text(Failures((noticed_early,)))
    assert _lost_after_text(Failures((noticed_early,))) != _lost_after_text(Failures((failure,)))


def _results(*rates: float) -> list[Result]:
    """Closed-loop runs of one user each giving ``rate`` tokens over one second."""
    out = []
    for rate in rates:
        record = RequestRecord(PlannedRequest(index=0, user=0, prompt="x", max_tokens=int(rate)))
        record.sent, record.first_token, record.end = 0.0, 0.0, 1.0
        record.token_times = [float(t) for t in np.linspace(0.0, 1.0, int(rate))]
        record.token_samples = [0] * int(rate)
        record.output_tokens = int(rate)
        out.append(Result(workload=_Steady(), records=[record], duration_s=1.0))
    return out


def copies_runs() -> tuple[CopiesFindings, CopiesFindings, CopiesFindings]:
    """Two copies against one server on the CPU, told apart and not, and on two GPUs with the
    model split over both as well."""
    found = CopiesFindings.of(
        {"2 replicas": _results(93, 95), "1 server": _results(160, 162)}, "cpu", 0
    )
    untold = CopiesFindings.of(
        {"2 replicas": _results(90, 120), "1 server": _results(100, 110)}, "cpu", 0
    )
    on_gpus = CopiesFindings.of(
        {
            "2 replicas": _results(93, 95),
            "1 server": _results(160, 162),
            "1 model over 2 GPUs": _results(60, 62),
        },
        "cuda",
        2,
    )
    return found, untold, on_gpus


def test_two_copies_and_one_server_are_called_apart_only_beyond_the_noise():
    spread = Spread.of
    assert copies_verdict(spread([100.0, 105.0]), spread([160.0, 170.0])) is Compared.LOWER
    assert copies_verdict(spread([160.0, 170.0]), spread([100.0, 105.0])) is Compared.HIGHER
    assert copies_verdict(spread([100.0, 105.0]), spread([108.0, 110.0])) in NEITHER  # < 15 %
    assert copies_verdict(spread([100.0, 200.0]), spread([150.0, 160.0])) in NEITHER  # overlap
    assert copies_verdict(spread([100.0]), spread([160.0])) in NEITHER  # no range
    found, untold, on_gpus = copies_runs()
    assert found.verdict is Compared.LOWER and found.split is None
    assert found.one.output_tok_s.median == pytest.approx(161.0, rel=0.02)
    assert (has_two_gpus(0), has_two_gpus(1), has_two_gpus(2)) == (False, False, True)
    assert untold.verdict in NEITHER
    assert on_gpus.split_verdict is Compared.HIGHER
    assert on_gpus.verdict is Compared.LOWER
    assert list(setup_table(on_gpus)["runs"]) == [2, 2, 2]


def _crowded(
    spreading_again: list[int], following_again: list[int], cache_tokens: int
) -> RoutingFindings:
    """Two tenants of 100-token prompts on two replicas, four requests each a run: round robin
    visits both replicas with each tenant (4 first visits), cache_aware keeps them apart (2);
    each run's counters add ``*_again`` computations of a prompt beyond those."""

    def runs(policy: str, spread: list[list[int]], again: list[int]) -> list[PolicyRun]:
        visits = sum(1 for row in spread for count in row if count)
        return [
            PolicyRun(
                policy=policy,
                summary={"ttft_ms_p50": 300.0, "ttft_ms_p99": 600.0},
                spread=pd.DataFrame(spread, columns=["replica 0", "replica 1"]),
                queries=(5000.0, 5000.0),
                hits=(5000.0, 5000.0 - (100 * (visits + extra) + 8 * 16)),
            )
            for extra in again
        ]

    return RoutingFindings.of(
        runs(ROUND_ROBIN, [[2, 2], [2, 2]], spreading_again),
        runs(CACHE_AWARE, [[4, 0], [0, 4]], following_again),
        Tenants(2, 4, prefix_tokens=100),
        cache_tokens=cache_tokens,
    )


def _warm(spreading_ms: list[float], following_ms: list[float]) -> RoutingFindings:
    """``_sooner``'s findings with warm passes after the cold ones: round robin computing one
    prompt again a run, cache_aware none, at these first tokens."""
    cold = _sooner([[4, 4], [4, 4]], [[8, 0], [0, 8]], 8)
    # 2,000 prompt tokens looked up a pass; 16 questions of 16 tokens always computed
    again = [_run(ROUND_ROBIN, [[4, 4], [4, 4]], (822.0, 822.0), ms) for ms in spreading_ms]
    cached = [_run(CACHE_AWARE, [[8, 0], [0, 8]], (872.0, 872.0), ms) for ms in following_ms]
    workload = Tenants(2, 8, prefix_tokens=100)
    return dataclasses.replace(
        cold,
        **{
            name: getattr(RoutingFindings.of(again, cached, workload, warm=(again, cached)), name)
            for name in ("warm_ttft_ms_p50", "warm_computations")
        },
    )
