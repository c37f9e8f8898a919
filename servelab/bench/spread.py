"""Repeated measurements of one figure, and when two of them differ by more than their noise.

A page compares two settings only when their ranges are apart: the worst of the better one is
still better than the best of the other. Otherwise it says the run cannot tell them apart. With
three repeats each, two ranges that do not overlap is a plain, strict rule a reader can check
against the table.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd


@dataclass(frozen=True)
class Spread:
    """``n`` measurements of one figure: their median, lowest and highest."""

    median: float
    low: float
    high: float
    n: int

    @classmethod
    def of(cls, values: Iterable[float]) -> Spread:
        """The spread of ``values``, NaNs left out; at least one value must remain."""
        kept = [float(value) for value in values if not math.isnan(float(value))]
        if not kept:
            raise ValueError("a spread needs at least one measured value")
        return cls(float(np.median(kept)), min(kept), max(kept), len(kept))

    @classmethod
    def in_row(cls, row: Mapping[str, float] | pd.Series, key: str) -> Spread:
        """The spread a table row holds as ``key`` (the median), ``key_low``, ``key_high`` and
        ``key_n``; a row with ``key`` alone is one measurement."""
        median = float(row[key])
        return cls(
            median,
            float(row.get(f"{key}_low", median)),
            float(row.get(f"{key}_high", median)),
            int(row.get(f"{key}_n", 1)),
        )

    def columns(self, key: str) -> dict[str, float]:
        """The row entries ``in_row`` reads back."""
        return {
            key: self.median,
            f"{key}_low": self.low,
            f"{key}_high": self.high,
            f"{key}_n": self.n,
        }

    @property
    def ranged(self) -> bool:
        """Measured more than once: there is a range to show and weigh."""
        return self.n > 1

    def below(self, other: Spread) -> bool:
        """Lower than ``other`` beyond the noise: this range ends before ``other``'s begins,
        and each has at least two measurements (one value has no range to compare)."""
        return self.ranged and other.ranged and self.high < other.low

    def above(self, other: Spread) -> bool:
        return other.below(self)

    def span(self, digits: int = 0) -> str:
        """``"180–260"``: the lowest and highest run, or one number where both round to it."""
        low, high = f"{self.low:,.{digits}f}", f"{self.high:,.{digits}f}"
        return low if low == high else f"{low}–{high}"

    def range_text(self, unit: str = "", digits: int = 0, counted: str = "runs") -> str:
        """``"range 180–260 ms over 3 runs"`` (``counted="users"``: ``"over 3 users"``): what a
        sentence puts beside the median; ``"all 3 runs alike"`` where every run rounds to one
        number ("both runs alike" for two), since a range from a number to itself reads as a
        typo. ``counted`` is a plural noun, singular for one."""
        runs = f"{self.n} {counted if self.n != 1 else counted.removesuffix('s')}"
        span = self.span(digits)
        if self.ranged and "–" not in span:
            return f"both {counted} alike" if self.n == 2 else f"all {runs} alike"
        return f"range {span}{unit} over {runs}"

    def with_range(self, digits: int = 0, unit: str = "") -> str:
        """``"978 ms (961–1,034)"``: the median, then its runs' range where there are several;
        ``"12 ms (all 3 alike)"`` where every run rounds to one number (``"both alike"`` for
        two)."""
        median = f"{self.median:,.{digits}f}{unit}"
        if not self.ranged:
            return median
        span = self.span(digits)
        if "–" in span:
            return f"{median} ({span})"
        return f"{median} (both alike)" if self.n == 2 else f"{median} (all {self.n} alike)"


def ratio_bounds(top: Spread, bottom: Spread) -> tuple[float, float] | None:
    """The least and the most ``top`` ÷ ``bottom`` the runs allow, pairing one side's lowest run
    with the other's highest and the other way round; None where either side ran once."""
    if not (top.ranged and bottom.ranged):
        return None
    return top.low / bottom.high, top.high / bottom.low


def spread_table(
    runs: pd.DataFrame, by: str, spreads: Iterable[str], medians: Iterable[str] | None = None
) -> pd.DataFrame:
    """One row per value of ``by`` in a frame of repeated runs (one row per run): each of
    ``spreads`` as :class:`Spread` columns where it was measured, and the median of each of
    ``medians`` (of every other numeric column when None)."""
    rows = []
    for value, group in runs.groupby(by, sort=True):
        numeric = group.drop(columns=[by]).select_dtypes("number")
        kept = list(numeric.columns) if medians is None else [k for k in medians if k in group]
        row: dict[str, Any] = {by: value}
        row |= {str(key): float(group[key].median()) for key in kept}
        for key in spreads:
            if key in group and group[key].notna().any():
                row |= Spread.of(group[key]).columns(key)
        rows.append(row)
    return pd.DataFrame(rows)
