"""Chapter 07's prediction before its sweep: the highest arrival rate a capped server can keep
up with, from Little's law, and where its first tokens then broke.

With every one of its ``slots`` busy, a server holds L = ``slots`` requests, each for W seconds
(a request's whole time when every slot is taken). Little's law, L = λ·W, turned round gives the
most requests per second it can finish: λ = slots ÷ W. Arrivals above that rate queue, and the
queue (and every first token behind it) grows for as long as they keep coming. W is measured
before the sweep, with a closed loop of exactly ``slots`` users, a few times over, so the
predicted rate has a range.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from servelab.bench.frames import Result
from servelab.bench.spread import Spread


class KneeCheck(StrEnum):
    """The predicted rate against the rates at which the sweep's first tokens held and broke."""

    BETWEEN = "between the last rate held and the first that broke"
    HELD_ABOVE = "held at a rate above the prediction"
    BROKE_BELOW = "broke at a rate below the prediction"
    NEVER_BROKE = "held at every rate, all below the prediction"
    NOT_REACHED = "held at every rate, one of them above the prediction"
    NEVER_HELD = "broke at the lowest rate"


@dataclass(frozen=True)
class SlotRate:
    """``slots`` sequences at once and ``request_s``, each closed-loop run's median time per
    request with every slot busy."""

    slots: int
    request_s: Spread

    @classmethod
    def of(cls, slots: int, runs: Sequence[Result]) -> SlotRate:
        """From closed-loop runs of ``slots`` users each."""
        return cls(slots, Spread.of(float(run.summary()["e2e_ms_p50"]) / 1000 for run in runs))

    @property
    def rate(self) -> float:
        """The most requests per second the slots finish: slots ÷ W (median W)."""
        return self.slots / self.request_s.median

    @property
    def rate_low(self) -> float:
        return self.slots / self.request_s.high

    @property
    def rate_high(self) -> float:
        return self.slots / self.request_s.low

    def check(self, rates: Sequence[float], held: float | None) -> KneeCheck:
        """The prediction against the sweep: ``held`` is the highest rate up to which every run
        kept its first tokens within the target (None: not even the lowest)."""
        if held is None:
            return KneeCheck.NEVER_HELD
        later = [rate for rate in rates if rate > held]
        if not later:
            return KneeCheck.NOT_REACHED if held > self.rate_high else KneeCheck.NEVER_BROKE
        broke = later[0]
        if held > self.rate_high:
            return KneeCheck.HELD_ABOVE
        if broke < self.rate_low:
            return KneeCheck.BROKE_BELOW
        return KneeCheck.BETWEEN


def prediction_text(found: SlotRate) -> str:
    """The prediction, before the sweep."""
    return (f"With all {found.slots} slots busy a request took "
            f"**{found.request_s.with_range(2, ' s')}** from sending to its last token "
            f"({found.request_s.n} closed-loop runs). By Little's law the small cap can then "
            f"finish at most {found.slots} ÷ {found.request_s.median:.2f} s = "
            f"**{found.rate:.1f} req/s** ({found.rate_low:.1f}–{found.rate_high:.1f} over those "
            "runs). Faster arrivals queue for as long as they keep coming, so its first tokens "
            "should stay within the target below that rate and break above it.")


def check_text(found: SlotRate, rates: Sequence[float], held: float | None) -> str:
    """The prediction against where the small cap's first tokens held and broke."""
    verdict = found.check(rates, held)
    later = [rate for rate in rates if held is not None and rate > held]
    predicted = f"the predicted {found.rate_low:.1f}–{found.rate_high:.1f} req/s"
    if verdict is KneeCheck.BETWEEN:
        return (f"Little's law called it: the small cap held to {held:g} req/s and broke at "
                f"{later[0]:g}, and {predicted} lies between.")
    if verdict is KneeCheck.HELD_ABOVE:
        return (f"The small cap held to {held:g} req/s, above {predicted}: a run is only a "
                "handful of requests, and a queue that grows for a few seconds can still end "
                "before its first tokens pass the target. A longer run at that rate would "
                "break.")
    if verdict is KneeCheck.BROKE_BELOW:
        return (f"The small cap broke at {later[0]:g} req/s, below {predicted}: random "
                "arrivals come in bursts, and a burst fills the slots before the average rate "
                "does, or the first token's own prefill took most of the target.")
    if verdict is KneeCheck.NEVER_BROKE:
        return (f"The small cap held at every rate, and every rate was below {predicted}, as "
                "the law expects; the sweep never reached the limit it predicts.")
    if verdict is KneeCheck.NOT_REACHED:
        return (f"The small cap held at every rate, up to {held:g} req/s, above {predicted}: "
                "its runs were too short for the queue to push the first tokens past the "
                "target.")
    return (f"The small cap's first tokens missed the target already at the lowest rate, below "
            f"{predicted}, so the target, not the slots, set the limit here.")
