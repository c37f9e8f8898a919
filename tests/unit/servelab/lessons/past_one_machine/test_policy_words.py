"""servelab.lessons.past_one_machine.policy_words: chapter 09's routing policies worded on made-up
passes: the cache's and the first token's verdicts, why the first tokens came sooner, and the prompt
computations a cold or crowded cache makes."""

from __future__ import annotations

import dataclasses
import math

import pytest

from servelab.engines.router import CACHE_AWARE, ROUND_ROBIN
from servelab.lessons.compare import Compared
from servelab.lessons.past_one_machine.policy_words import (
    _cold_start_text,
    _crowding_text,
    _sooner_cause,
    policy_table,
    routing_text,
)
from tests.unit.servelab.lessons.past_one_machine.test_findings import (
    NEITHER,
    _crowded,
    _routing,
    _sooner,
    _warm,
)

SOONER = [
    # 16 requests; 4 and 2 of them computed a prompt: the median request hit under both.
    ([[4, 4], [4, 4]], [[8, 0], [0, 8]], 8, (True, True), 2),
    # 8 requests, 4 computed a prompt with round robin: half, so its median request missed.
    ([[2, 2], [2, 2]], [[4, 0], [0, 4]], 4, (False, True), 2),
    # 4 requests, each of cache_aware's 4 prompt computations one of them.
    ([[1, 1], [1, 1]], [[1, 1], [1, 1]], 2, (False, False), 0),
    ([[8, 0], [0, 8]], [[8, 0], [0, 8]], 8, (True, True), 0),
]


LEADS = [
    (([1, 2, 3], [1, 2, 2]), 150, None, True),
    (([0, 0, 1], [2, 3, 3]), 150, Compared.HIGHER, True),
    (([3, 4, 5], [0, 0, 1]), 150, Compared.LOWER, True),
    (([0, 0, 0], [0, 0, 0]), 4096, None, False),
]


def test_the_cache_verdict_needs_the_ranges_apart_and_a_few_points_between_the_medians():
    ttft = ([300.0, 310.0], [300.0, 310.0])
    assert _routing(([0.50, 0.52], [0.70, 0.72]), ttft).cache is Compared.HIGHER
    assert _routing(([0.70, 0.72], [0.50, 0.52]), ttft).cache is Compared.LOWER
    assert _routing(([0.50, 0.72], [0.60, 0.70]), ttft).cache in NEITHER  # ranges overlap
    assert _routing(([0.50, 0.51], [0.52, 0.53]), ttft).cache in NEITHER  # apart, 2 points
    assert _routing(([0.50], [0.70]), ([300.0], [300.0])).cache in NEITHER  # one run
    higher = routing_text(_routing(([0.5, 0.5], [0.7, 0.7]), ttft))
    untold = routing_text(_routing(([0.50, 0.72], [0.60, 0.70]), ttft))
    assert "found 50% of" in higher and "and 70% with" in higher and "every run" in higher
    assert "61% (50%–72%)" in untold and "65% (60%–70%)" in untold
    lower = routing_text(_routing(([0.70, 0.72], [0.50, 0.52]), ttft))

    def verdict(text: str) -> str:  # the sentence after the hit rates: the cache's verdict
        return text.split(f"cached with {ROUND_ROBIN} and ")[1].split(". ")[1]

    assert len({verdict(higher), verdict(untold), verdict(lower)}) == 3


def test_the_first_token_verdict_needs_the_ranges_apart_and_the_gain():
    hits = ([0.5, 0.5], [0.7, 0.7])
    assert _routing(hits, ([600.0, 640.0], [200.0, 260.0])).first_token is Compared.LOWER
    assert _routing(hits, ([200.0, 260.0], [600.0, 640.0])).first_token is Compared.HIGHER
    assert _routing(hits, ([300.0, 640.0], [200.0, 400.0])).first_token in NEITHER
    assert _routing(hits, ([300.0, 320.0], [250.0, 260.0])).first_token in NEITHER  # 1.2x
    sooner = routing_text(_routing(hits, ([600.0, 640.0], [200.0, 260.0])))
    assert "230 ms (200–260)" in sooner and "620 ms (600–640)" in sooner
    later = routing_text(_routing(hits, ([200.0, 260.0], [600.0, 640.0])))
    assert "620 ms (600–640)" in later and "230 ms (200–260)" in later and sooner != later


@pytest.mark.parametrize(("spreading", "following", "per_tenant", "hits", "extra"), SOONER)
def test_why_the_first_tokens_came_sooner_follows_which_median_request_hit(
    spreading, following, per_tenant, hits, extra
):
    found = _sooner(spreading, following, per_tenant, alone_s=0.3)
    assert found.first_token is Compared.LOWER and found.median_hits == hits
    assert found.extra_computations == pytest.approx(extra)
    assert found.extra_first_visits == extra  # counters agree with a cache that never evicts
    cause = _sooner_cause(found)
    assert cause in routing_text(found)
    named = hits == (True, True) and extra > 0  # the extra prompts named, with their cost
    assert ("0.30 s" in cause and "116-token" in cause and f"{extra} more" in cause) is named
    causes = {_sooner_cause(_sooner(*case[:3], alone_s=0.3)) for case in SOONER}
    assert len(causes) == len(SOONER)


def test_an_untimed_prompt_leaves_its_cost_out():
    found = _sooner([[4, 4], [4, 4]], [[8, 0], [0, 8]], 8)
    assert math.isnan(found.prompt_alone_s)
    cause = _sooner_cause(found)
    assert "116-token" in cause and " s " not in cause and "0.30 s" not in cause
    timed = _sooner_cause(_sooner([[4, 4], [4, 4]], [[8, 0], [0, 8]], 8, alone_s=0.3))
    assert len(timed) > len(cause) and "0.30 s" in timed


def test_extra_prompt_computations_are_named_a_cold_caches_first_visits():
    """A review read a 689 against 284 ms routing gain that came from 3 extra prompt
    computations per 18 requests, on caches each run began cold."""
    found = _sooner([[4, 4], [4, 4]], [[8, 0], [0, 8]], 8)
    said = _cold_start_text(found)
    assert found.extra_computations == pytest.approx(2) and found.extra_first_visits == 2
    assert " all of " in said and "the 2 extra" in said and said in routing_text(found)
    assert found.cold_start and found.all_first_visits and not found.no_extra_computations
    assert not found.cache_known and _crowding_text(found) == ""  # its size not given
    none = _sooner([[8, 0], [0, 8]], [[8, 0], [0, 8]], 8)
    assert none.extra_computations == pytest.approx(0) and _cold_start_text(none) == ""
    assert none.no_extra_computations and not none.cold_start


def test_prompt_computations_are_the_counted_tokens_less_the_questions_in_prompts():
    found = _crowded([3, 4, 5], [0, 0, 1], cache_tokens=150)
    assert found.cache_known
    assert [r.median for r in found.recomputed] == [4, 0]
    assert found.crowded and found.recompute is Compared.LOWER
    said = _crowding_text(found)
    assert said in routing_text(found)
    assert "150 tokens" in said and "2 tenants'" in said and "(200)" in said
    assert "numbered 4 (3–5) with" in said and "0 (0–1)" in said
    assert policy_table(found).iloc[:, 3][ROUND_ROBIN] == "4 (3–5)"  # computed again


@pytest.mark.parametrize(("again", "cache_tokens", "verdict", "crowded"), LEADS)
def test_the_steady_state_lead_needs_a_crowded_cache_and_the_ranges_apart(
    again, cache_tokens, verdict, crowded
):
    found = _crowded(*again, cache_tokens=cache_tokens)
    assert found.crowded is crowded
    assert found.recompute in NEITHER if verdict is None else found.recompute is verdict
    said = _crowding_text(found)
    assert said in routing_text(found) and f"{cache_tokens:,} tokens" in said
    assert "(200 tokens)" in said if not crowded else "(200)" in said
    assert len(
        {
            _crowding_text(_crowded(*a, cache_tokens=c)).split("times a run. ")[-1]
            for a, c, _, _ in LEADS
        }
    ) == len(LEADS)


def test_the_extra_computations_are_the_replicas_counted_ones_not_the_first_visits():
    """Chapter 09's recorded run: round_robin made 6 first visits against 3, but the replicas'
    counters showed about 9 prompt computations against 3; the page said 3 more."""
    found = _sooner([[4, 4], [4, 4]], [[8, 0], [0, 8]], 8, alone_s=0.3)
    spreading = found.computed_tokens[0]
    assert found.computations[0].median == pytest.approx(4)
    evicted = dataclasses.replace(
        spreading, median=spreading.median + 200, low=spreading.low + 200, high=spreading.high + 200
    )
    counted = dataclasses.replace(found, computed_tokens=(evicted, found.computed_tokens[1]))
    assert counted.computations[0].median == pytest.approx(6) and counted.prefills[0].median == 4
    assert counted.extra_computations == pytest.approx(4) and counted.extra_first_visits == 2
    assert " 2 of " in _cold_start_text(counted) and "the 4 extra" in _cold_start_text(counted)
    assert "4 more computations" in _sooner_cause(counted)


def test_warm_passes_tell_a_cold_first_visit_from_a_recomputation():
    """Issue #64: the cold passes' first-token gain mixed first visits with evictions; the warm
    passes hold only the evictions."""
    kept = _warm([400.0, 420.0], [100.0, 110.0])
    assert kept.warm_first_token is Compared.LOWER
    assert kept.warm_against_cold == (Compared.LOWER, Compared.LOWER)
    assert kept.warm_computations[0].median == 1.0 and kept.warm_computations[1].high == 0.0
    assert kept.warm_recompute is Compared.LOWER  # cache_aware computed fewer again
    said = routing_text(kept)
    assert f"| {kept.warm_ttft_ms_p50[0].with_range()} |" in said  # a row a policy
    assert kept.warm_computations[0].with_range() in said
    gone = _warm([150.0, 240.0], [100.0, 210.0])
    assert gone.warm_first_token in NEITHER
    assert routing_text(gone).rsplit(". ", 1)[-1] != said.rsplit(". ", 1)[-1]
    table = policy_table(kept)
    assert table.loc[CACHE_AWARE].iloc[-1] == "105 (100–110)"
    old = _sooner([[4, 4], [4, 4]], [[8, 0], [0, 8]], 8)  # a recording without warm passes
    without = routing_text(old).removesuffix("\n\n</details>")  # the warm passes close the fold
    assert old.warm_first_token is None and without in said.split(" After each")[0]
