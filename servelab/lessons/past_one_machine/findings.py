"""Chapter 09's findings, each figure and verdict computed once: what two routing policies did
with the tenants' prompts (``RoutingFindings``, from each run's ``PolicyRun``) and two copies
against one server (``CopiesFindings``); what users saw when a replica died is ``failures``'. The
words (``policy_words``, ``failure_words``, ``copies_words``, ``story``) only read them.

Each comparison rests on repeated runs: two figures are called apart only when their ranges are
(``servelab.bench.spread``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import pandas as pd

from servelab.bench.frames import Result
from servelab.bench.metrics import OUTPUT_TOK_S, TTFT_MS_P50, TTFT_MS_P99
from servelab.bench.spread import Spread
from servelab.bench.workloads import Tenants
from servelab.lessons.compare import Compared, compare, compare_by, compare_points
from servelab.lessons.past_one_machine.thresholds import HIT_RATE_SHOWN, SAME_SPEED
from servelab.lessons.prefix.thresholds import TTFT_GAIN_SHOWN


@dataclass(frozen=True)
class PolicyRun:
    """One routing policy's run of the tenants' traffic: the client's metrics, how many requests
    of each tenant each replica served (``spread``: a row per tenant, a column per replica), each
    replica's prefix-cache counters during the run (prompt tokens looked up, found), and the
    router's command line."""

    policy: str
    summary: dict[str, float]
    spread: pd.DataFrame
    queries: tuple[float, ...]
    hits: tuple[float, ...]
    command_line: str = ""

    @property
    def hit_rate(self) -> float:
        """Share of the prompt tokens looked up that the replicas found cached, all together."""
        total = sum(self.queries)
        return sum(self.hits) / total if total else math.nan

    @property
    def computed_tokens(self) -> float:
        """Prompt tokens the replicas computed rather than found."""
        return sum(self.queries) - sum(self.hits)

    @property
    def prefills(self) -> int:
        """How many times a tenant's system prompt had to be computed, at least: once on each
        replica that served any of that tenant's requests."""
        return int((self.spread > 0).to_numpy().sum())

    def prompt_computations(self, prefix_tokens: int, question_tokens: int) -> int:
        """How many times the replicas computed a tenant's prompt, by their own counters
        (:func:`prompts_computed`, rounded)."""
        requests = int(self.spread.to_numpy().sum())
        return round(
            prompts_computed(self.computed_tokens, requests, prefix_tokens, question_tokens)
        )

    def expected_computed(self, prefix_tokens: int, question_tokens: int) -> int:
        """Prompt tokens the replicas should compute if each tenant's prompt is computed once per
        replica that served the tenant and every other request computes only its question."""
        requests = int(self.spread.to_numpy().sum())
        return self.prefills * prefix_tokens + requests * question_tokens

    @property
    def kept_together(self) -> float:
        """Mean share of a tenant's requests served by the replica that served most of them
        (1: every tenant stayed on one replica; 1/replicas: spread evenly)."""
        totals = self.spread.sum(axis=1)
        return float((self.spread.max(axis=1) / totals).mean())


def prompts_computed(
    computed_tokens: float, requests: int, prefix_tokens: int, question_tokens: int
) -> float:
    """How many tenant prompts the replicas computed, from the prompt tokens they counted as
    computed: those tokens less every request's question, in prompts (none below zero)."""
    return max(0.0, (computed_tokens - requests * question_tokens) / prefix_tokens)


def _first_token(spreading: Spread, following: Spread) -> Compared:
    """The prefix-following policy's first token against the spreading one's (``LOWER``:
    sooner), apart only when the ranges are and the medians differ ``TTFT_GAIN_SHOWN``-fold."""
    return compare_by(following, spreading, TTFT_GAIN_SHOWN)


def _cache(spreading: Spread, following: Spread) -> Compared:
    """The prefix-following policy's cached share against the spreading one's (``HIGHER``: it
    found more cached), by ``HIT_RATE_SHOWN`` points or more and beyond the runs' ranges."""
    return compare_points(following, spreading, HIT_RATE_SHOWN)


def _by_policy(
    both: tuple[Sequence[PolicyRun], Sequence[PolicyRun]], figure: Callable[[PolicyRun], float]
) -> tuple[Spread, Spread]:
    """``figure``'s spread over each policy's runs."""
    return (Spread.of(figure(r) for r in both[0]), Spread.of(figure(r) for r in both[1]))


@dataclass(frozen=True)
class RoutingFindings:
    """What two policies did with the same tenants' traffic over repeated runs, ``spreading``
    first and ``following`` second in each pair: prompt computations, the share of a tenant's
    requests kept on one replica, prompt tokens expected and counted, hit rate and median first
    token, each over the runs' cold passes; the verdicts ``cache`` (``_cache``) and
    ``first_token`` (``_first_token``); the requests per tenant and replica in each cold pass
    (``run_spreads``); and the warm passes' median first token and prompt computations (None in
    a recording made before the page ran warm passes)."""

    policies: tuple[str, str]
    workload: Tenants
    replicas: int
    runs: int
    prefills: tuple[Spread, Spread]
    kept_together: tuple[Spread, Spread]
    expected_tokens: tuple[Spread, Spread]
    computed_tokens: tuple[Spread, Spread]
    hit_rate: tuple[Spread, Spread]
    ttft_ms_p50: tuple[Spread, Spread]
    ttft_ms_p99: tuple[Spread, Spread]
    recomputed: tuple[Spread, Spread]  # prompt computations a run beyond the first visits
    cache: Compared  # the following policy's hit rate against the spreading one's
    first_token: Compared  # the following policy's first token against the spreading one's
    prompt_alone_s: float = math.nan  # one tenant's prompt read alone on a replica (NaN: not timed)
    cache_tokens: int = 0  # the smaller replica's KV cache, in tokens (0: not known)
    run_spreads: dict[str, tuple[pd.DataFrame, ...]] = field(default_factory=dict)
    warm_ttft_ms_p50: tuple[Spread, Spread] | None = None
    warm_computations: tuple[Spread, Spread] | None = None  # prompts computed in a warm pass

    @classmethod
    def of(
        cls,
        spreading: Sequence[PolicyRun],
        following: Sequence[PolicyRun],
        workload: Tenants,
        prompt_alone_s: float = math.nan,
        cache_tokens: int = 0,
        warm: tuple[Sequence[PolicyRun], Sequence[PolicyRun]] | None = None,
    ) -> RoutingFindings:
        """``spreading`` and ``following``: each policy's cold passes; ``warm``: the warm pass
        after each; ``prompt_alone_s``: the first token of one tenant's prompt sent alone to a
        replica, to set beside the prompt computations a policy added; ``cache_tokens``: the
        smaller replica's KV cache, to say whether the tenants' prompts outgrew it."""
        both = (spreading, following)

        def computed(run: PolicyRun) -> float:
            return prompts_computed(
                run.computed_tokens,
                int(run.spread.to_numpy().sum()),
                workload.prefix_tokens,
                workload.question_tokens,
            )

        hits = _by_policy(both, lambda r: r.hit_rate)
        ttft = _by_policy(both, lambda r: r.summary[TTFT_MS_P50])
        return cls(
            policies=(spreading[0].policy, following[0].policy),
            workload=workload,
            replicas=spreading[0].spread.shape[1],
            runs=min(len(spreading), len(following)),
            prefills=_by_policy(both, lambda r: r.prefills),
            kept_together=_by_policy(both, lambda r: r.kept_together),
            expected_tokens=_by_policy(
                both,
                lambda r: r.expected_computed(workload.prefix_tokens, workload.question_tokens),
            ),
            computed_tokens=_by_policy(both, lambda r: r.computed_tokens),
            hit_rate=hits,
            ttft_ms_p50=ttft,
            ttft_ms_p99=_by_policy(both, lambda r: r.summary[TTFT_MS_P99]),
            recomputed=_by_policy(
                both,
                lambda r: max(
                    0,
                    r.prompt_computations(workload.prefix_tokens, workload.question_tokens)
                    - r.prefills,
                ),
            ),
            cache=_cache(*hits),
            first_token=_first_token(*ttft),
            prompt_alone_s=prompt_alone_s,
            cache_tokens=cache_tokens,
            run_spreads={runs[0].policy: tuple(r.spread for r in runs) for runs in both},
            warm_ttft_ms_p50=None
            if warm is None
            else _by_policy(warm, lambda r: r.summary[TTFT_MS_P50]),
            warm_computations=None if warm is None else _by_policy(warm, computed),
        )

    @property
    def requests(self) -> int:
        """Requests in one run of the traffic."""
        return self.workload.tenants * self.workload.requests_per_tenant

    @property
    def prompt_tokens(self) -> int:
        """One request's prompt: its tenant's prompt and its question."""
        return self.workload.prefix_tokens + self.workload.question_tokens

    @property
    def tenant_prompts_tokens(self) -> int:
        """Every tenant's prompt together, in tokens."""
        return self.workload.tenants * self.workload.prefix_tokens

    @property
    def median_hits(self) -> tuple[bool, bool]:
        """Whether, under each policy, the median request found its tenant's prompt cached: in
        every run the replicas computed a prompt fewer times than half the requests."""
        spreading, following = self.computations
        return (2 * spreading.high < self.requests, 2 * following.high < self.requests)

    @property
    def computations(self) -> tuple[Spread, Spread]:
        """How many times the replicas computed a tenant's prompt in a run, by their own
        counters (``PolicyRun.prompt_computations`` unrounded, from each policy's computed
        tokens): the first visits and any computing again after a prompt was pushed out."""

        def prompts(tokens: float) -> float:
            return prompts_computed(
                tokens, self.requests, self.workload.prefix_tokens, self.workload.question_tokens
            )

        spreading, following = (
            Spread(prompts(s.median), prompts(s.low), prompts(s.high), s.n)
            for s in self.computed_tokens
        )
        return spreading, following

    @property
    def cache_known(self) -> bool:
        """The replicas' cache size was read (0: not known)."""
        return self.cache_tokens > 0

    @property
    def crowded(self) -> bool:
        """The tenants' prompts together outgrow one replica's cache: a replica serving every
        tenant must push one prompt out to hold another."""
        return 0 < self.cache_tokens < self.tenant_prompts_tokens

    @property
    def recompute(self) -> Compared:
        """How often the prefix-following policy computed prompts again beyond their first
        visits against the spreading one (``LOWER``: less often), the runs' ranges apart."""
        spreading, following = self.recomputed
        return compare(following, spreading)

    @property
    def extra_computations(self) -> float:
        """Prompt computations a run made under the spreading policy beyond the following one's,
        by the replicas' counters (medians)."""
        spreading, following = self.computations
        return spreading.median - following.median

    @property
    def no_extra_computations(self) -> bool:
        """The spreading policy computed no more prompts than the following one, to the
        nearest whole computation."""
        return self.extra_computations < 0.5

    @property
    def warm_first_token(self) -> Compared | None:
        """The prefix-following policy's first token against the spreading one's in the warm
        passes (``_first_token``), where no first visit is left; None: no warm passes."""
        return None if self.warm_ttft_ms_p50 is None else _first_token(*self.warm_ttft_ms_p50)

    @property
    def warm_recompute(self) -> Compared | None:
        """How many prompts the prefix-following policy computed in a warm pass against the
        spreading one (``LOWER``: fewer), the runs' ranges apart; None: no warm passes."""
        if self.warm_computations is None:
            return None
        spreading, following = self.warm_computations
        return compare(following, spreading)

    @property
    def warm_against_cold(self) -> tuple[Compared, Compared] | None:
        """Each policy's warm passes' median first token against its cold passes' (``LOWER``:
        sooner warm), apart only where the runs' ranges are; None: no warm passes."""
        if self.warm_ttft_ms_p50 is None:
            return None
        spreading, following = (
            compare(warm, cold)
            for warm, cold in zip(self.warm_ttft_ms_p50, self.ttft_ms_p50, strict=True)
        )
        return spreading, following

    @property
    def extra_first_visits(self) -> float:
        """First visits a run made under the spreading policy beyond the following one's
        (medians): the part of the extra computations a cold cache alone explains."""
        return self.prefills[0].median - self.prefills[1].median

    @property
    def cold_start(self) -> bool:
        """The spreading policy made extra computations and extra first visits (to the nearest
        whole one): some of what it computed more is a cold cache's."""
        return not (self.no_extra_computations or self.extra_first_visits < 0.5)

    @property
    def all_first_visits(self) -> bool:
        """The extra first visits account for every extra computation, to the nearest one."""
        return self.extra_first_visits >= self.extra_computations - 0.5


def has_two_gpus(gpus: int) -> bool:
    """Two GPUs or more: a copy each, or one model split over two."""
    return gpus >= 2


def copies_verdict(copies: Spread, other: Spread) -> Compared:
    """Two copies' output against the other setup's (``HIGHER``: the copies delivered more),
    called apart only when the runs' ranges are and the medians differ by ``SAME_SPEED`` or
    more."""
    return compare_by(copies, other, 1 + SAME_SPEED)


@dataclass(frozen=True)
class SetupRuns:
    """One setup's repeated closed-loop runs: its output rate and median time per token."""

    label: str
    output_tok_s: Spread
    tpot_ms_p50: Spread

    @classmethod
    def of(cls, label: str, results: Sequence[Result]) -> SetupRuns:
        summaries = [result.summary() for result in results]
        return cls(
            label,
            Spread.of(float(s[OUTPUT_TOK_S]) for s in summaries),
            Spread.of(float(s["tpot_ms_p50"]) for s in summaries),
        )


@dataclass(frozen=True)
class CopiesFindings:
    """Two replicas behind the router against one server with the whole device and, with two
    GPUs, one model split over both (``split``); ``verdict`` (copies against one server) and
    ``split_verdict`` (copies against the split model) from ``copies_verdict``."""

    copies: SetupRuns
    one: SetupRuns
    split: SetupRuns | None
    device_kind: str
    gpus: int
    verdict: Compared
    split_verdict: Compared | None

    @classmethod
    def of(
        cls, runs: Mapping[str, Sequence[Result]], device_kind: str, gpus: int
    ) -> CopiesFindings:
        """``runs``: the replicas' runs first, then the one server's, then the split model's."""
        setups = [SetupRuns.of(label, results) for label, results in runs.items()]
        copies, one, split = setups[0], setups[1], (setups[2] if len(setups) > 2 else None)
        return cls(
            copies,
            one,
            split,
            device_kind,
            gpus,
            copies_verdict(copies.output_tok_s, one.output_tok_s),
            None if split is None else copies_verdict(copies.output_tok_s, split.output_tok_s),
        )

    @property
    def setups(self) -> list[SetupRuns]:
        return [self.copies, self.one, *([self.split] if self.split else [])]
