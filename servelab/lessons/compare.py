"""One comparison for every chapter: a figure measured over repeated runs on two arms, and a
band within which the two count as alike.

``compare(a, b, alike)`` says where ``a`` stands against ``b``. Alike where ``a``'s median is
within ``alike`` (a share of ``b``'s median) of ``b``'s; higher or lower past the band only where
the runs' ranges are apart too; not told apart where the medians differ past the band but the
ranges overlap, or a side has a single run. Which way is better is the caller's reading: a speed
is better higher, a time lower.
"""

from __future__ import annotations

from enum import StrEnum

from servelab.bench.spread import Spread


class Compared(StrEnum):
    """Where one arm's figure stands against the other's."""

    HIGHER = "higher beyond the spread"
    LOWER = "lower beyond the spread"
    ALIKE = "alike within the band"
    UNTOLD = "not told apart"  # past the band, but the ranges overlap or a side ran once


def compare(a: Spread, b: Spread, alike: float = 0.0) -> Compared:
    """``a`` against ``b``, with medians within ``alike`` × ``b``'s median counted alike."""
    if a.median > b.median * (1 + alike):
        return Compared.HIGHER if a.above(b) else Compared.UNTOLD
    if a.median < b.median * (1 - alike):
        return Compared.LOWER if a.below(b) else Compared.UNTOLD
    return Compared.ALIKE
