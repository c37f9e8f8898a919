"""servelab.lessons.capacity_plan.findings: the engine's verdict on chapter 10's plan, read off
made-up runs at two rates: each run's share, the target missed, the knee and the servers a saturated
run measures."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from servelab.lessons.capacity_plan.findings import PlanCheck, PlanVerdict, Target
from servelab.lessons.capacity_plan.words import VERDICT_WORDS, check_text
from tests.unit.servelab.lessons.capacity_plan.test_plan import plan


def _runs(
    below: list[float],
    above: list[float],
    served: list[float],
    first_token: float = 1.0,
    pace_ms: float = 40.0,
) -> pd.DataFrame:
    """Runs' middles at 1 and 3 req/s: ``below`` and ``above`` within both targets, every run
    within the first token's target at ``first_token`` and within the pace's as it met both."""

    def row(rate: float, share: float, waiting: float, finished: float) -> dict[str, float]:
        return {
            "rate": rate,
            "slo_attainment_mid": share,
            "waiting_max": waiting,
            "request_per_s_mid": finished,
            "slo_attainment_mid_ttft": first_token,
            "slo_attainment_mid_tpot": share,
            "tpot_ms_p50": pace_ms,
        }

    return pd.DataFrame(
        [row(1.0, share, 0.0, 1.0) for share in below]
        + [row(3.0, share, 40.0, rate) for share, rate in zip(above, served, strict=True)]
    )


@pytest.mark.parametrize(
    ("below", "above", "verdict"),
    [
        ([0.95, 1.0], [0.2, 0.4], PlanVerdict.HELD),
        ([0.95, 1.0], [0.92, 0.97], PlanVerdict.CONSERVATIVE),
        ([0.5, 0.8], [0.1, 0.2], PlanVerdict.OPTIMISTIC),
        ([0.85, 0.95], [0.1, 0.2], PlanVerdict.UNTOLD),
        ([0.95, 1.0], [0.5, 0.95], PlanVerdict.UNTOLD),
    ],
)
def test_the_verdict_follows_every_runs_share(
    below: list[float], above: list[float], verdict: PlanVerdict
) -> None:
    check = PlanCheck.of(plan(), _runs(below, above, [2.0, 2.2]))
    assert check.verdict is verdict
    assert VERDICT_WORDS[verdict] in check_text(check)


def test_the_target_fewer_requests_met_is_named_where_it_fell_short() -> None:
    check = PlanCheck.of(plan(), _runs([0.95, 1.0], [0.2, 0.4], [2.0, 2.2]))
    assert check.targets_below is not None and check.targets_above is not None
    assert check.targets_below.binding(0.9) is None
    assert check.targets_above.binding(0.9) is Target.PACE
    late = PlanCheck.of(plan(), _runs([0.95, 1.0], [0.2, 0.4], [2.0, 2.2], first_token=0.1))
    assert late.targets_above is not None
    assert late.targets_above.binding(0.9) is Target.FIRST_TOKEN
    assert str(Target.FIRST_TOKEN) in check_text(late) and check_text(late) != check_text(check)


def test_a_knee_missed_names_the_term_of_w_it_missed_most() -> None:
    # the plan: B = 10, W = 0.2 s + 100 x 40 ms = 4.2 s, a knee of 2.38 req/s
    slow_tokens = PlanCheck.of(plan(), _runs([1.0, 1.0], [0.1, 0.2], [1.6, 1.6], pace_ms=60.0))
    assert slow_tokens.miss is not None and slow_tokens.miss.missed is Target.PACE
    assert math.isclose(slow_tokens.miss.request_s, 10 / 1.6)
    assert math.isclose(slow_tokens.miss.off_by, plan().rate_req_s / 1.6 - 1)
    slow_start = PlanCheck.of(plan(), _runs([1.0, 1.0], [0.1, 0.2], [1.6, 1.6], pace_ms=40.0))
    assert slow_start.miss is not None and slow_start.miss.missed is Target.FIRST_TOKEN
    assert str(Target.FIRST_TOKEN) in check_text(slow_start)
    kept_up = PlanCheck.of(plan(), _runs([1.0, 1.0], [0.1, 0.2], [2.0, 3.0]))
    assert kept_up.miss is None


def test_a_plan_that_held_places_the_knee_between_its_two_rates() -> None:
    check = PlanCheck.of(plan(), _runs([0.95, 1.0], [0.2, 0.4], [2.0, 2.2]))
    assert check.verdict is PlanVerdict.HELD
    assert f"{1.0 / plan().rate_req_s:.0%}" in check_text(check)


def test_a_saturated_server_measures_the_servers_needed() -> None:
    check = PlanCheck.of(plan(), _runs([1.0, 1.0], [0.1, 0.2], [2.0, 2.2]))
    assert check.saturated and check.measured_replicas == math.ceil(30 / 2.1)
    kept_up = PlanCheck.of(plan(), _runs([1.0, 1.0], [0.1, 0.2], [2.0, 3.0]))
    assert not kept_up.saturated and kept_up.measured_replicas is None
    assert f"{check.measured_replicas}" in check_text(check)
    assert check_text(kept_up) != check_text(check)


def test_the_planned_knee_is_checked_only_against_a_server_that_fell_behind() -> None:
    from servelab.lessons.device_model.foretold import Foretold

    saturated = PlanCheck.of(plan(), _runs([1.0, 1.0], [0.1, 0.2], [2.0, 2.2]))
    [knee] = saturated.checks
    assert (knee.predicted, knee.measured) == (plan().rate_req_s, saturated.served_above)
    assert knee.foretold is saturated.foretold is Foretold.CLOSE  # 2.38 against 2.0-2.2
    kept_up = PlanCheck.of(plan(), _runs([1.0, 1.0], [0.1, 0.2], [2.0, 3.0]))
    assert kept_up.checks == () and kept_up.foretold is None
    near = PlanCheck.of(
        plan(), _runs([1.0, 1.0], [0.1, 0.2], [0.98 * plan().rate_req_s, 1.01 * plan().rate_req_s])
    )
    assert near.saturated and near.foretold is Foretold.INSIDE
    assert check_text(saturated) != check_text(kept_up)
