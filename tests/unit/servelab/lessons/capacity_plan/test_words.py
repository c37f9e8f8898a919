"""servelab.lessons.capacity_plan.words: the published cards' plans and the plan set beside the
runs, as chapter 10 words them."""

from __future__ import annotations

import pytest

from servelab.lessons.capacity_plan.findings import PlanCheck
from servelab.lessons.capacity_plan.plan import Brief, published_plans
from servelab.lessons.capacity_plan.words import published_text
from tests.unit.servelab.lessons.capacity_plan.test_findings import _runs
from tests.unit.servelab.lessons.capacity_plan.test_plan import plan


def test_the_t4s_stated_step_is_the_one_the_gpu_contract_counts() -> None:
    from servelab.lessons.batching.roofline import OVERHEAD_UP_TO
    from servelab.lessons.batching.t4_step import ENGINE_PER_SEQUENCE, ENGINE_SHARED

    bare, stated, _ = published_plans(Brief(40, 64, 16, 2.0, 4.0, 0.9))
    assert stated.plan.step.fixed_ms == pytest.approx(
        bare.plan.step.fixed_ms * (1 + OVERHEAD_UP_TO) * ENGINE_SHARED[1]
    )
    assert stated.plan.step.per_sequence_ms == pytest.approx(
        bare.plan.step.per_sequence_ms * (1 + OVERHEAD_UP_TO) * ENGINE_PER_SEQUENCE[1]
    )
    assert stated.plan.rate_req_s < bare.plan.rate_req_s
    text = published_text([bare, stated])
    assert f"{bare.plan.rate_req_s / stated.plan.rate_req_s:.1f}×" in text
    assert f"{stated.plan.rate_req_s:.1f}" in text


def test_the_plan_is_set_beside_the_runs() -> None:
    from servelab.lessons.capacity_plan.words import plan_against_runs

    check = PlanCheck.of(plan(), _runs([1.0, 1.0], [0.1, 0.2], [2.0, 2.2]))
    table = plan_against_runs(check)
    assert list(table.columns) == ["plan", "runs"] and len(table) == 4
    assert table.iloc[0].tolist() == ["2.4", "2.1 (2.0–2.2)"]  # 10 ÷ (0.2 s + 4 s)
    assert table.iloc[-1].tolist() == ["13", "15"]
