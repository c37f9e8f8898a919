"""One speed against another over their runs, as a ratio and as ``servelab.lessons.compare``'s
verdict within ``ALIKE``.

Chapter 08 compares its engines this way, and its CPU probes between engines with the same rule.
"""

from __future__ import annotations

from dataclasses import dataclass

from servelab.bench.spread import Spread
from servelab.lessons.compare import Compared, compare
from servelab.lessons.thresholds import ALIKE


def times_apart(ratio: float) -> float:
    """How many times the larger of two figures is the smaller, from the first over the second."""
    return max(ratio, 1 / ratio)


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
    def times(self) -> float:
        """How many times the larger median is the smaller, whichever side it is on."""
        return times_apart(self.ratio)

    @property
    def share_moved(self) -> float:
        """How far ``a``'s median moved from ``b``'s, as a share of ``b``'s."""
        return abs(self.ratio - 1)

    @property
    def compared(self) -> Compared:
        """Alike within ``ALIKE``; higher (faster) or lower past it only with the ranges apart."""
        return compare(self.a, self.b, ALIKE)
