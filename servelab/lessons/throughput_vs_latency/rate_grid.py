"""Where chapter 07's sweep sends its rates: around the knees predicted before it.

The small cap's knee is Little's law on the closed loop (``slot_rate.SlotRate``: slots ÷ *W*);
the sweep's rates are set at ``percents`` of it, below, near and above, close enough on either
side that a prediction off by more than their spacing would be caught (the rate just below would
queue, or the rate just above would keep up). The top rate is set past the large cap's knee as
this device's model predicts it (``knee.ModelKnee`` at the large cap), so that both caps run out
of slots there. Every run sends ``requests`` and is counted in its steady middle
(:mod:`servelab.bench.middle`): the first and last ``MIDDLE_TRIM`` of its requests left out.
``grid_words`` words it.
"""

from __future__ import annotations

from dataclasses import dataclass

from servelab.bench.middle import trimmed
from servelab.lessons.throughput_vs_latency.knee import ModelKnee
from servelab.lessons.throughput_vs_latency.slot_rate import SlotRate

# Where the model gives no knee for the large cap, the top rate is this many times the highest
# of the small cap's rates.
TOP_WITHOUT_MODEL = 2.0


@dataclass(frozen=True)
class RateGrid:
    """The small cap's knee (req/s) and the large cap's from the model (None: no model), the
    percents of the small knee the sweep sends, the percent of the large knee its top rate is,
    the requests every run sends and how many runs a rate gets."""

    small_knee: float
    large_knee: float | None
    large_slots: int
    percents: tuple[int, ...]
    top_percent: int
    requests: int
    repeats: int

    @classmethod
    def of(
        cls,
        slot_rate: SlotRate,
        large: ModelKnee,
        percents: list[int],
        top_percent: int,
        requests: int,
        repeats: int,
    ) -> RateGrid:
        return cls(
            slot_rate.rate,
            large.rate,
            large.slots,
            tuple(sorted(percents)),
            top_percent,
            requests,
            repeats,
        )

    @property
    def placed(self) -> tuple[float, ...]:
        """The rates set from the small cap's knee, to 0.01 req/s."""
        return tuple(round(self.small_knee * p / 100, 2) for p in self.percents)

    @property
    def nearest_percent_off(self) -> int:
        """How far, in percent of the small knee, its nearest rate sits from it: the least miss
        of the prediction the rates beside it would show."""
        return min(abs(percent - 100) for percent in self.percents)

    @property
    def top_from_model(self) -> bool:
        """The top rate is the large knee's ``top_percent``: the model gave a knee, and that
        rate lies above the small cap's rates."""
        return (
            self.large_knee is not None
            and self.large_knee * self.top_percent / 100 > self.placed[-1]
        )

    @property
    def top(self) -> float:
        """The top rate: past the large cap's predicted knee, else ``TOP_WITHOUT_MODEL`` × the
        highest placed rate."""
        if self.top_from_model and self.large_knee is not None:
            return round(self.large_knee * self.top_percent / 100, 2)
        return round(self.placed[-1] * TOP_WITHOUT_MODEL, 2)

    @property
    def rates(self) -> list[float]:
        """Every rate the sweep sends, lowest first."""
        return [*self.placed, self.top]

    @property
    def read_closely(self) -> float:
        """The rate whose first run the page reads request by request: the highest placed rate
        below the small cap's knee (else the lowest)."""
        below = [rate for rate, p in zip(self.placed, self.percents, strict=True) if p < 100]
        return below[-1] if below else self.placed[0]

    @property
    def per_rate(self) -> int:
        """Requests sent at each rate, over all its runs."""
        return self.requests * self.repeats

    @property
    def trimmed(self) -> int:
        """Requests left out at each end of a run."""
        return trimmed(self.requests)

    def trim_s(self, rate: float) -> float:
        """About how long the left-out first requests take to arrive at ``rate``."""
        return self.trimmed / rate
