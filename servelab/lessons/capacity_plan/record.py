"""Chapter 10's findings as one result record: the figures the grader reads, by declared name
(``servelab.results.record_results``)."""

from __future__ import annotations

from dataclasses import dataclass

from servelab.lessons.batching.steps import StepFit
from servelab.lessons.capacity_plan.chapter import CHAPTER, CapacityPlanFigures
from servelab.lessons.capacity_plan.findings import PlanCheck
from servelab.lessons.capacity_plan.plan import CapacityPlan


@dataclass(frozen=True)
class CapacityRecord:
    """The measured step time, the plan made from it and the engine's check of that plan."""

    step: StepFit
    plan: CapacityPlan
    check: PlanCheck

    chapter = CHAPTER.id

    def figures(self) -> CapacityPlanFigures:
        """Chapter 10's figures."""
        step, plan, check = self.step, self.plan, self.check
        return CapacityPlanFigures(
            step_fixed_ms=step.fixed_ms,
            step_per_sequence_ms=step.per_sequence_ms,
            plan_max_num_seqs=plan.max_num_seqs,
            plan_kv_mib=plan.kv_mib,
            plan_rate_req_s=plan.rate_req_s,
            plan_replicas=plan.replicas,
            within_below=check.within_below.median,
            within_above=check.within_above.median,
            served_above_req_s=check.served_above.median,
        )
