"""Chapter 07's prediction before its sweep: the highest arrival rate a capped server can keep
up with, from Little's law, and where its first tokens then broke.

With every one of its ``slots`` busy, a server holds L = ``slots`` requests, each for W seconds
(a request's whole time when every slot is taken). Little's law, L = λ·W, turned round gives the
most requests per second it can finish: λ = slots ÷ W. Arrivals above that rate queue, and the
queue (and every first token behind it) grows for as long as they keep coming. W is measured
before the sweep, with a closed loop of exactly ``slots`` users, a few times over, so the
predicted rate has a range. ``slot_words`` words the prediction and its check.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from servelab.bench.frames import Result
from servelab.bench.spread import Spread
from servelab.lessons.device_model.foretold import Checked
from servelab.lessons.throughput_vs_latency.chapter import CHAPTER


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

    @staticmethod
    def broke_at(rates: Sequence[float], held: float | None) -> float | None:
        """The first rate of the sweep above ``held``, where the first tokens broke; None where
        they never held or never broke."""
        later = [rate for rate in rates if held is not None and rate > held]
        return later[0] if later else None

    def check(self, rates: Sequence[float], held: float | None) -> KneeCheck:
        """The prediction against the sweep: ``held`` is the highest rate up to which every run
        kept its first tokens within the target (None: not even the lowest)."""
        if held is None:
            return KneeCheck.NEVER_HELD
        broke = self.broke_at(rates, held)
        if broke is None:
            return KneeCheck.NOT_REACHED if held > self.rate_high else KneeCheck.NEVER_BROKE
        if held > self.rate_high:
            return KneeCheck.HELD_ABOVE
        if broke < self.rate_low:
            return KneeCheck.BROKE_BELOW
        return KneeCheck.BETWEEN

    def served_checks(self, served: Spread | None) -> tuple[Checked, ...]:
        """The prediction against ``served``, the requests a second the small cap finished in
        the steady middle of its runs at the top rate, where its slots were all busy (none
        where the sweep had no middle to read)."""
        if served is None:
            return ()
        return (
            Checked(
                CHAPTER.id,
                f"requests a second {self.slots} slots finished, steady middle",
                " req/s",
                self.rate,
                served,
            ),
        )
