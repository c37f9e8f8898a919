"""A number the device model predicted before the run, against the spread the run measured
(chapter 04's first tokens, chapter 03's time per token), and one such check as the book's
closing table keeps it (:class:`Checked`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from servelab.bench.spread import Spread
from servelab.lessons.thresholds import PREDICTION_CLOSE, RUNS_SCATTERED


class Foretold(StrEnum):
    """A prediction against the spread it predicted."""

    INSIDE = "inside the measured range"
    CLOSE = "close to the median"
    OFF = "off"
    UNPLACED = "not placed: the runs spread too wide"


def foretold(predicted: float, measured: Spread) -> Foretold:
    """``UNPLACED`` where the runs spread over more than ``RUNS_SCATTERED`` of their median;
    else ``INSIDE`` their range, ``CLOSE`` within ``PREDICTION_CLOSE`` of their median, or
    ``OFF``."""
    if measured.high - measured.low > RUNS_SCATTERED * measured.median:
        return Foretold.UNPLACED
    if measured.low <= predicted <= measured.high:
        return Foretold.INSIDE
    if abs(predicted / measured.median - 1) <= PREDICTION_CLOSE:
        return Foretold.CLOSE
    return Foretold.OFF


@dataclass(frozen=True)
class Checked:
    """One prediction the device model made before a chapter measured, and what the chapter
    measured: ``what`` names the figure, ``unit`` follows its numbers (" ms", "×")."""

    chapter: str
    what: str
    unit: str
    predicted: float
    measured: Spread

    @property
    def foretold(self) -> Foretold:
        return foretold(self.predicted, self.measured)

    @property
    def off_low(self) -> bool:
        """Off, with the runs' median below the prediction."""
        return self.foretold is Foretold.OFF and self.measured.median < self.predicted

    @property
    def off_high(self) -> bool:
        """Off, with the runs' median above the prediction."""
        return self.foretold is Foretold.OFF and self.measured.median > self.predicted


@dataclass(frozen=True)
class BookChecks:
    """Every check the chapters kept on one device, in chapter order: the closing table."""

    checks: tuple[Checked, ...]

    @classmethod
    def of(cls, checks: Sequence[Checked]) -> BookChecks:
        return cls(tuple(sorted(checks, key=lambda check: check.chapter)))

    def replacing(self, chapter: str, checks: Sequence[Checked]) -> BookChecks:
        """The table with ``checks`` in place of those ``chapter`` kept before: a chapter that
        shows the table before its own record keeps its checks."""
        return BookChecks.of(
            [check for check in self.checks if check.chapter != chapter] + list(checks)
        )

    def count(self, found: Foretold) -> int:
        """How many predictions fell ``found``."""
        return sum(check.foretold is found for check in self.checks)

    @property
    def chapters(self) -> int:
        """How many chapters kept a check."""
        return len({check.chapter for check in self.checks})
