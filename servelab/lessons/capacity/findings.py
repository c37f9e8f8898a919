"""Chapter 10's check of a plan on the engine: open-loop runs below and above the planned knee,
repeated, and what they say of the plan.

Below the knee the plan holds when every run met the brief's share of requests within both
targets; above it, when no run did (its queue grew for as long as requests kept coming). A run
above the knee also measures what the server really finishes a second once it is saturated:
the plan's knee is the device model's prediction of it (:attr:`PlanCheck.checks`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import StrEnum

import pandas as pd

from servelab.bench.spread import Spread
from servelab.lessons.capacity.chapter import CHAPTER
from servelab.lessons.capacity.plan import CapacityPlan
from servelab.lessons.device_model.foretold import Checked, Foretold, foretold


class PlanVerdict(StrEnum):
    """The engine's verdict on a plan's knee."""

    HELD = "held below the knee and broke above it"
    CONSERVATIVE = "held above the knee as well"
    OPTIMISTIC = "broke below the knee"
    UNCLEAR = "runs at one rate disagreed"


def _spread(runs: pd.DataFrame, rate: float, key: str) -> Spread:
    return Spread.of(runs.loc[runs["rate"] == rate, key].astype(float))


@dataclass(frozen=True)
class PlanCheck:
    """The runs at the rate below the knee and the rate above it, each a spread over its runs:
    the share of requests within both targets, the most requests waiting in the server, and
    the requests finished a second."""

    plan: CapacityPlan
    rate_below: float
    rate_above: float
    within_below: Spread
    within_above: Spread
    waiting_below: Spread
    waiting_above: Spread
    served_above: Spread

    @classmethod
    def of(cls, plan: CapacityPlan, runs: pd.DataFrame) -> PlanCheck:
        """From ``sweep_repeated``'s rows at two rates, the lower below the knee."""
        below, above = sorted(runs["rate"].unique())[0], sorted(runs["rate"].unique())[-1]
        return cls(plan, float(below), float(above),
                   _spread(runs, below, "slo_attainment"), _spread(runs, above, "slo_attainment"),
                   _spread(runs, below, "waiting_max"), _spread(runs, above, "waiting_max"),
                   _spread(runs, above, "request_per_s"))

    @property
    def verdict(self) -> PlanVerdict:
        share = self.plan.brief.share
        if self.within_below.high < share:
            return PlanVerdict.OPTIMISTIC
        below_held = self.within_below.low >= share
        if below_held and self.within_above.high < share:
            return PlanVerdict.HELD
        if below_held and self.within_above.low >= share:
            return PlanVerdict.CONSERVATIVE
        return PlanVerdict.UNCLEAR

    @property
    def saturated(self) -> bool:
        """Whether the server fell behind in every run above the knee (it finished fewer
        requests a second than were sent), so ``served_above`` is what it can finish."""
        return self.served_above.high < self.rate_above

    @property
    def measured_replicas(self) -> int | None:
        """The servers the target rate needs at the rate a saturated server finished (median);
        None where it was never saturated."""
        if not self.saturated:
            return None
        return math.ceil(self.plan.brief.rate_req_s / self.served_above.median - 1e-9)

    @property
    def foretold(self) -> Foretold | None:
        """Where the planned knee fell against what the saturated server finished; None where
        it kept up in some run above the knee, so the runs are not what it can finish."""
        return foretold(self.plan.rate_req_s, self.served_above) if self.saturated else None

    @property
    def checks(self) -> tuple[Checked, ...]:
        """The planned knee against what the saturated server finished, for the book's closing
        table (none where it kept up)."""
        if not self.saturated:
            return ()
        return (Checked(CHAPTER.id, "requests a second one server finishes", " req/s",
                        self.plan.rate_req_s, self.served_above),)
