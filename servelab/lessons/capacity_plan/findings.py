"""Chapter 10's check of a plan on the engine: open-loop runs just below and just above the
planned knee, repeated, and what they say of the plan.

Every figure is a run's middle (:mod:`servelab.bench.middle`): the first and last tenth of the
requests, sent to an empty server or to one draining, are left out. Below the knee the plan holds
when every run met the brief's share of requests within both targets; above it, when no run did
(its queue grew for as long as requests kept coming). With the two rates a tenth either side of
the knee, a plan that held put the knee within a tenth of the engine's. A run above the knee
also measures what the server finishes a second once it is saturated: the plan's knee is the
device model's prediction of it (:attr:`PlanCheck.checks`), and where the two differ the slot
time *W* they imply says which of its terms, the first token or the answer's pace, was missed
(:class:`KneeMiss`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import StrEnum

import pandas as pd

from servelab.bench.middle import REQUEST_PER_S_MID, SLO_ATTAINMENT_MID
from servelab.bench.spread import Spread
from servelab.lessons.capacity_plan.chapter import CHAPTER
from servelab.lessons.capacity_plan.plan import CapacityPlan
from servelab.lessons.compare import NOT_TOLD_APART
from servelab.lessons.device_model.foretold import Checked, Foretold, foretold


class PlanVerdict(StrEnum):
    """The engine's verdict on a plan's knee; each value is what the runs did, as the page's
    summary says it (``UNTOLD``, runs at one rate disagreed, the summary words itself)."""

    HELD = "held below the knee and broke above it"
    CONSERVATIVE = "held above the knee as well"
    OPTIMISTIC = "broke below the knee"
    UNTOLD = NOT_TOLD_APART


class Target(StrEnum):
    """One of the brief's two targets."""

    FIRST_TOKEN = "the first token"
    PACE = "the time per token"


def _spread(runs: pd.DataFrame, rate: float, key: str) -> Spread:
    return Spread.of(runs.loc[runs["rate"] == rate, key].astype(float))


@dataclass(frozen=True)
class TargetShares:
    """At one rate, the share of requests within each target alone (a spread over the runs)."""

    first_token: Spread
    pace: Spread

    @classmethod
    def at(cls, runs: pd.DataFrame, rate: float) -> TargetShares:
        return cls(
            _spread(runs, rate, f"{SLO_ATTAINMENT_MID}_ttft"),
            _spread(runs, rate, f"{SLO_ATTAINMENT_MID}_tpot"),
        )

    def binding(self, share: float) -> Target | None:
        """The target fewer requests met, where it kept the median run below ``share``."""
        lower = min((self.first_token.median, Target.FIRST_TOKEN), (self.pace.median, Target.PACE))
        return lower[1] if lower[0] < share else None


@dataclass(frozen=True)
class KneeMiss:
    """The slot time *W* a saturated server's finishing rate implies (*B* ÷ its rate), split as
    the plan splits it: the answer at the pace the runs measured (*A* × their time per token),
    and the rest, the first token and whatever else held a slot."""

    plan: CapacityPlan
    served: float
    pace_ms: float

    @property
    def request_s(self) -> float:
        return self.plan.max_num_seqs / self.served

    @property
    def answer_s(self) -> float:
        return self.plan.brief.answer_tokens * self.pace_ms / 1000

    @property
    def first_s(self) -> float:
        return self.request_s - self.answer_s

    @property
    def missed(self) -> Target:
        """The term of *W* the plan missed by more."""
        answer = abs(self.answer_s - self.plan.answer_s)
        first = abs(self.first_s - self.plan.first_token_ms / 1000)
        return Target.PACE if answer >= first else Target.FIRST_TOKEN

    @property
    def off_by(self) -> float:
        """The plan's knee over the measured one, less 1 (+0.18: 18 % too high)."""
        return self.plan.rate_req_s / self.served - 1


@dataclass(frozen=True)
class PlanCheck:
    """The runs at the rate below the knee and the rate above it, each a spread over its runs'
    middles: the share of requests within both targets, the most requests waiting in the
    server, and the requests finished a second; the share within each target alone, and the
    time per token above the knee (None in a recording made before the runs counted them)."""

    plan: CapacityPlan
    rate_below: float
    rate_above: float
    within_below: Spread
    within_above: Spread
    waiting_below: Spread
    waiting_above: Spread
    served_above: Spread
    targets_below: TargetShares | None = None
    targets_above: TargetShares | None = None
    pace_above: Spread | None = None

    @classmethod
    def of(cls, plan: CapacityPlan, runs: pd.DataFrame) -> PlanCheck:
        """From ``sweep_repeated``'s rows at two rates, the lower below the knee."""
        below, above = sorted(runs["rate"].unique())[0], sorted(runs["rate"].unique())[-1]
        within = SLO_ATTAINMENT_MID
        return cls(
            plan,
            float(below),
            float(above),
            _spread(runs, below, within),
            _spread(runs, above, within),
            _spread(runs, below, "waiting_max"),
            _spread(runs, above, "waiting_max"),
            _spread(runs, above, REQUEST_PER_S_MID),
            TargetShares.at(runs, below),
            TargetShares.at(runs, above),
            _spread(runs, above, "tpot_ms_p50"),
        )

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
        return PlanVerdict.UNTOLD

    @property
    def knee_bracket(self) -> tuple[float, float]:
        """The two rates run, each as a share of the planned knee: where a plan that held says
        the engine's knee lies."""
        knee = self.plan.rate_req_s
        return self.rate_below / knee, self.rate_above / knee

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
    def miss(self) -> KneeMiss | None:
        """What the saturated runs' rate and pace say the plan missed; None where the server
        kept up, or the runs did not time their tokens."""
        if not self.saturated or self.pace_above is None:
            return None
        return KneeMiss(self.plan, self.served_above.median, self.pace_above.median)

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
        return (
            Checked(
                CHAPTER.id,
                "requests a second one server finishes",
                " req/s",
                self.plan.rate_req_s,
                self.served_above,
            ),
        )
