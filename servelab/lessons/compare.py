"""One comparison for every chapter: a figure measured over repeated runs on two arms, and a
band within which the two count as alike.

``compare(a, b, alike)`` says where ``a`` stands against ``b``. Alike where ``a``'s median is
within ``alike`` (a share of ``b``'s median) of ``b``'s; higher or lower past the band only where
the runs' ranges are apart too; not told apart where the medians differ past the band but the
ranges overlap, or a side has a single run. Which way is better is the caller's reading: a speed
is better higher, a time lower. The band may be drawn two other ways, with the same verdicts:
``compare_by`` as a factor between the medians, ``compare_points`` as a difference in the
figure's own unit (points of a share).
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
    return _past(a, b, a.median > b.median * (1 + alike), a.median < b.median * (1 - alike))


def _past(a: Spread, b: Spread, higher: bool, lower: bool) -> Compared:
    """The verdict once the band is drawn: ``higher``/``lower`` say whether ``a``'s median is
    past it above or below ``b``'s."""
    if higher:
        return Compared.HIGHER if a.above(b) else Compared.UNTOLD
    if lower:
        return Compared.LOWER if a.below(b) else Compared.UNTOLD
    return Compared.ALIKE


def compare_by(a: Spread, b: Spread, factor: float) -> Compared:
    """``a`` against ``b``, alike unless one median is ``factor`` times the other or more."""
    return _past(a, b, a.median >= factor * b.median, b.median >= factor * a.median)


def compare_points(a: Spread, b: Spread, points: float) -> Compared:
    """``a`` against ``b``, alike unless the medians differ by ``points`` or more."""
    return _past(a, b, a.median - b.median >= points, b.median - a.median >= points)
