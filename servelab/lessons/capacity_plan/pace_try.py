"""Chapter 10's time bound tried past the line (issue #64 item 2).

A plan does not stretch a measured step line past the largest batch it was timed at, so where the
time bound allows more sequences than that, ``max_num_seqs`` stops at the measured batch and the
time bound is never tested. :func:`try_pace_bound` tests it: one closed loop of that many users,
each sending one request of the brief's size, on a server whose ``max_num_seqs`` is the time
bound, every user decoding at once. Each request's time per token after its first is set against
the line's step at that batch (what the plan would have assumed) and the brief's target.
"""

from __future__ import annotations

from dataclasses import dataclass

from servelab import bench
from servelab.bench.spread import Spread
from servelab.engines.running import RunningServer
from servelab.lessons.capacity_plan.plan import Bound, CapacityPlan
from servelab.lessons.compare import Placed, placed_runs


@dataclass(frozen=True)
class PaceTry:
    """The time bound's ``batch`` tried where the plan stopped at ``measured``, the largest
    batch its line was timed at: each request's time per token (ms, a spread over the batch's
    requests), the line's step at ``batch`` (ms) and the brief's target (ms)."""

    batch: int
    measured: int
    tpot_ms: Spread
    line_ms: float
    target_ms: float

    @property
    def against_target(self) -> Placed:
        """BELOW: every request within the target; ABOVE: none was; INSIDE: some were."""
        return placed_runs(self.tpot_ms, self.target_ms, self.target_ms)

    @property
    def line_off(self) -> float:
        """How far the measured median stood from the line's step, as a share of the step
        (positive: slower than the line)."""
        return self.tpot_ms.median / self.line_ms - 1


def untried_pace_bound(plan: CapacityPlan) -> int | None:
    """The time bound's ``max_num_seqs`` (no more than the cache holds) where the largest
    measured batch set a smaller one, else None: the time bound or the cache set the dial, or
    nothing bounds the time."""
    if plan.bound is not Bound.MEASURED or plan.by_time is None:
        return None
    allowed = min(plan.by_time, plan.by_memory)
    return allowed if allowed > plan.max_num_seqs else None


def try_pace_bound(server: RunningServer, plan: CapacityPlan, batch: int) -> PaceTry:
    """Run ``batch`` users at once, one request each of the brief's size, on ``server`` (whose
    ``max_num_seqs`` holds them all) and set their times per token against the plan's."""
    result = bench.closed_loop(
        server,
        batch,
        requests_per_user=1,
        input_tokens=plan.brief.prompt_tokens,
        max_tokens=plan.brief.answer_tokens,
        seed=97,
        progress=False,
    )
    tpot_s = result.requests.loc[result.requests["ok"], "tpot_s"]
    return PaceTry(
        batch,
        plan.max_num_seqs,
        Spread.of(1000 * tpot_s.astype(float)),
        plan.step.at(batch),
        plan.tpot_target_ms,
    )
