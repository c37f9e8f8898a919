"""servelab.lessons.capacity_plan.plan: the plan's arithmetic and the published cards' plans (the
engine's verdict on it: test_findings.py; its words: test_words.py)."""

from __future__ import annotations

import pytest
import yaml

from course.paths import CHECKS_DIR
from servelab.lessons.batching.steps import StepFit
from servelab.lessons.capacity_plan.plan import (
    T4_STATED,
    Bound,
    Brief,
    CapacityPlan,
    DatasheetGap,
    published_plans,
)
from servelab.lessons.capacity_plan.words import plan_text, published_table
from servelab.lessons.device_model.kept import EngineShares

# The check's own numbers: a step of 20 ms + 2 ms a sequence, prompts (and so the first token)
# too quick to count, a 100-token answer, every token within 40 ms (the check states it outright:
# 40 ÷ 22 of a lone sequence's step), a cache of 100 requests, 30 requests a second.
CHECK_BRIEF = Brief(
    rate_req_s=30,
    prompt_tokens=0,
    answer_tokens=100,
    tpot_factor=40 / 22,
    ttft_factor=1.0,
    share=0.9,
)


def plan(
    brief: Brief = CHECK_BRIEF,
    fixed: float = 20.0,
    per_sequence: float = 2.0,
    kv_tokens: int = 100 * 100,
    prompt_ms: float = 0.0,
    first_token_ms: float = 200.0,
) -> CapacityPlan:
    return CapacityPlan(
        brief,
        StepFit(fixed, per_sequence, 1.0),
        prompt_ms=prompt_ms,
        first_token_ms=first_token_ms,
        kv_tokens=kv_tokens,
        kv_bytes_per_token=2**20,
    )


def test_the_checks_key_follows_from_the_plans_arithmetic() -> None:
    found = plan(first_token_ms=0.0)
    assert found.tpot_target_ms == pytest.approx(40.0)
    assert found.max_num_seqs == 10 and found.bound is Bound.TIME and found.by_memory == 100
    assert found.request_s == pytest.approx(100 * 0.040)
    assert found.rate_req_s == pytest.approx(2.5)
    assert found.replicas == 12
    check = yaml.safe_load((CHECKS_DIR / "10-capacity-plan.yml").read_text())
    assert check["correct"] == "D" and "2.5" in check["options"]["D"]["text"]
    assert "12 servers" in check["options"]["D"]["text"]
    # The distractor that fills the cache: 100 sequences a step of 220 ms, 22 s a request.
    full = plan(fixed=20.0, per_sequence=2.0)
    assert full.step.at(full.by_memory) == pytest.approx(220.0)


def test_reading_prompts_adds_to_every_tokens_pace_with_the_batch() -> None:
    found = plan(prompt_ms=20.0)  # 20 ms a prompt over 100 tokens: 0.2 ms a token a slot
    assert found.pace_ms(10) == pytest.approx(20 + 2 * 10 + 10 * 0.2)
    assert found.by_time == 9  # (40 - 20) / 2.2
    assert found.request_s == pytest.approx(0.2 + 100 * found.pace_ms(9) / 1000)


def test_the_first_token_holds_the_slot_before_the_answer_streams() -> None:
    # W = F + A × pace(B): 0.2 s + 100 × 40 ms = 4.2 s, so 10 slots finish 10 ÷ 4.2 a second.
    found = plan(first_token_ms=200.0)
    assert found.answer_s == pytest.approx(4.0)
    assert found.request_s == pytest.approx(4.2)
    assert found.rate_req_s == pytest.approx(10 / 4.2)
    assert found.replicas == 13  # 30 ÷ 2.38, where leaving the first token out said 12
    assert plan(first_token_ms=0.0).replicas == 12
    assert "4.20 s" in plan_text(found) and "200 ms" in plan_text(found)


def test_memory_bounds_the_batch_before_time_where_the_cache_is_small() -> None:
    found = plan(kv_tokens=5 * CHECK_BRIEF.tokens_per_request + 7)
    assert (found.by_time, found.by_memory, found.max_num_seqs) == (10, 5, 5)
    assert found.bound is Bound.MEMORY and found.kv_mib == pytest.approx(5 * 100)


def test_steps_that_did_not_grow_leave_the_cache_to_set_the_batch() -> None:
    found = plan(per_sequence=0.0, kv_tokens=3_000)
    assert found.by_time is None and found.max_num_seqs == 30 and found.bound is Bound.MEMORY


def test_a_brief_asks_no_more_than_the_device_can_do() -> None:
    with pytest.raises(ValueError, match="below 1"):
        Brief(
            rate_req_s=1,
            prompt_tokens=1,
            answer_tokens=1,
            tpot_factor=0.5,
            ttft_factor=2,
            share=0.9,
        )
    with pytest.raises(ValueError, match="share"):
        Brief(
            rate_req_s=1, prompt_tokens=1, answer_tokens=1, tpot_factor=2, ttft_factor=2, share=1.5
        )
    # At any factor of 1 or more one sequence fits within its own target.
    assert plan(Brief(1, 8, 8, 1.0, 1.0, 0.9), fixed=50.0, per_sequence=9.0).max_num_seqs == 1


def test_published_plans_are_a_t4_twice_and_one_80_gb_card() -> None:
    rows = published_plans(Brief(40, 64, 16, 2.0, 4.0, 0.9))
    assert [row.card.name for row in rows] == ["16 GB (T4)"] * 2 + ["80 GB (A100, H100)"]
    assert [row.engine for row in rows] == [None, T4_STATED, None]
    for row in rows:
        assert row.plan.max_num_seqs >= 1 and row.plan.rate_req_s > 0
        # A card's first token (one read of the weights, the prompt's arithmetic) is in its W.
        assert row.plan.first_token_ms > row.plan.prompt_ms > 0
        assert row.plan.request_s == pytest.approx(
            row.plan.first_token_ms / 1000 + row.plan.answer_s
        )
    table = published_table(rows)
    assert (table["W (s)"] >= table["first token (s)"]).all()
    assert list(table.index) == ["Tesla T4", "Tesla T4", "A100 80GB SXM"]  # one card a row
    assert "servers for 40 req/s" in table.columns


def test_this_devices_engine_shares_add_a_slower_row_per_card() -> None:
    brief = Brief(40, 64, 16, 2.0, 4.0, 0.9)
    engine = EngineShares(step_share=5.0, sequence_share=0.4, fitted_in="02-continuous-batching")
    rows = published_plans(brief, engine)
    assert [row.engine for row in rows] == [None, T4_STATED, engine, None, engine]
    for bare, carried in ((rows[0], rows[2]), (rows[3], rows[4])):
        assert carried.plan.step.fixed_ms == pytest.approx(6 * bare.plan.step.fixed_ms)
        assert carried.plan.step.per_sequence_ms == pytest.approx(
            1.4 * bare.plan.step.per_sequence_ms
        )
        assert carried.plan.rate_req_s < bare.plan.rate_req_s
    engines = list(published_table(rows)["engine work"])
    assert engines[0] == engines[3] != engines[2] and "+500%" in engines[2]
    assert engines[1] not in (engines[0], engines[2])


def test_a_line_that_does_not_split_plans_every_step_at_the_mean() -> None:
    from servelab.lessons.batching.steps import fit_step_time
    from servelab.lessons.capacity_plan.plan import plan_line
    from servelab.lessons.device_model.kept import FITTED_HERE, StepLine

    grows = StepLine(fit_step_time([1, 4, 8], [30.0, 36.0, 44.0]), FITTED_HERE, (1, 4, 8))
    assert plan_line(grows) == grows.fit
    # faster with more: noise, not a step's split
    flat = StepLine(fit_step_time([1, 4], [31.0, 29.0]), FITTED_HERE, (1, 4))
    assert plan_line(flat).fixed_ms == pytest.approx(30.0)  # the mean step
    assert plan_line(flat).per_sequence_ms == 0.0
    with pytest.raises(ValueError, match="no step line"):
        plan_line(None)


def test_a_measured_line_is_not_stretched_past_its_largest_batch() -> None:
    found = CapacityPlan(
        CHECK_BRIEF,
        StepFit(20.0, 0.01, 1.0),
        prompt_ms=0.0,
        first_token_ms=200.0,
        kv_tokens=10**7,
        kv_bytes_per_token=1,
        largest_measured=16,
    )
    assert found.by_time is not None and found.by_time > 16
    assert found.max_num_seqs == 16 and found.bound is Bound.MEASURED
    assert "16" in plan_text(found)
    stretched = CapacityPlan(
        CHECK_BRIEF,
        StepFit(20.0, 0.01, 1.0),
        prompt_ms=0.0,
        first_token_ms=200.0,
        kv_tokens=10**7,
        kv_bytes_per_token=1,
        largest_measured=4096,
    )
    assert stretched.bound is not Bound.MEASURED and plan_text(stretched) != plan_text(found)


def test_the_datasheet_gap_sets_the_t4s_bare_plan_against_its_stated_one() -> None:
    rows = published_plans(Brief(40, 64, 16, 2.0, 4.0, 0.9))
    gap = DatasheetGap.of(rows)
    assert (gap.bare, gap.stated) == (rows[0].plan, rows[1].plan)
    assert gap.promised == pytest.approx(rows[0].plan.rate_req_s / rows[1].plan.rate_req_s)
    assert gap.promised > 1  # the engine's own work only slows a step
