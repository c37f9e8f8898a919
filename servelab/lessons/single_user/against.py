"""One speed against another over their runs: alike, faster, slower, or not told apart.

Chapter 08 compares its engines this way, and its CPU probes between engines with the same rule.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from servelab.bench.spread import Spread
from servelab.lessons.thresholds import ALIKE


class Pace(StrEnum):
    """One speed against another."""

    FASTER = "faster"
    ALIKE = "about as fast"
    SLOWER = "slower"
    UNCLEAR = "not told apart"  # medians past ALIKE, ranges overlapping (or one run a side)


@dataclass(frozen=True)
class Against:
    """Speed ``a`` against speed ``b``, each over its runs."""

    a: Spread
    b: Spread

    @property
    def ratio(self) -> float:
        """``a``'s median against ``b``'s."""
        return self.a.median / self.b.median

    @property
    def pace(self) -> Pace:
        """Alike within ``ALIKE``; faster or slower past it only with the ranges apart."""
        if 1 - ALIKE <= self.ratio <= 1 + ALIKE:
            return Pace.ALIKE
        if self.ratio > 1:
            return Pace.FASTER if self.a.above(self.b) else Pace.UNCLEAR
        return Pace.SLOWER if self.a.below(self.b) else Pace.UNCLEAR
