"""One comparison for every chapter: a figure measured over repeated runs on two arms, and a
band within which the two count as alike.

``compare(a, b, alike)`` says where ``a`` stands against ``b``. Alike where the two medians are
within a factor of ``1 + alike`` of each other, either way; higher or lower past the band only where
the runs' ranges are apart too; not told apart where the medians differ past the band but the
ranges overlap, or a side has a single run. Which way is better is the caller's reading: a speed
is better higher, a time lower. The band may be drawn two other ways, with the same verdicts:
``compare_by`` as a factor between the medians, ``compare_points`` as a difference in the
figure's own unit (points of a share).

Two more verdicts serve every chapter: ``Placed``, where a measured value (or every run of one)
falls against a window drawn before it was measured, and ``Shown``, how far an effect the lesson
names showed in the runs.
"""

from __future__ import annotations

from enum import StrEnum

from servelab.bench.spread import Spread

# The one value of every verdict that says the runs cannot tell (``Compared.UNTOLD``,
# ``Shown.UNTOLD`` and the chapters' own verdicts alias it); ``untold_words`` words it.
NOT_TOLD_APART = "not told apart"


class Compared(StrEnum):
    """Where one arm's figure stands against the other's."""

    HIGHER = "higher beyond the spread"
    LOWER = "lower beyond the spread"
    ALIKE = "alike within the band"
    UNTOLD = NOT_TOLD_APART  # past the band, but the ranges overlap or a side ran once


def compare(a: Spread, b: Spread, alike: float = 0.0) -> Compared:
    """``a`` against ``b``, with medians within a factor of ``1 + alike`` of each other, either
    way, counted alike: the band is the same read from either side, so ``a`` higher than ``b``
    is always ``b`` lower than ``a``."""
    return _past(a, b, a.median > b.median * (1 + alike), b.median > a.median * (1 + alike))


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


class Placed(StrEnum):
    """Where a measured value falls against a window drawn before it was measured."""

    BELOW = "below"
    INSIDE = "inside"
    ABOVE = "above"


def placed(value: float, low: float, high: float) -> Placed:
    """``value`` against the window from ``low`` to ``high``, both ends inside it."""
    if value < low:
        return Placed.BELOW
    if value > high:
        return Placed.ABOVE
    return Placed.INSIDE


def placed_within(
    value: float, bounds: tuple[float, float] | None, low: float, high: float
) -> Placed | None:
    """``value`` against the window (``placed``) where the least and the most the runs allow
    (``bounds``; None: one run, nothing to weigh) fall on the same side of it as ``value``;
    else None: the runs cannot place it."""
    where = placed(value, low, high)
    if bounds is None or all(placed(edge, low, high) is where for edge in bounds):
        return where
    return None


def placed_runs(runs: Spread, low: float, high: float) -> Placed:
    """Repeated runs against a window: below or above it only where every run is."""
    if runs.high < low:
        return Placed.BELOW
    if runs.low > high:
        return Placed.ABOVE
    return Placed.INSIDE


class Shown(StrEnum):
    """How far an effect the lesson names showed in the runs. A finding that was not measured
    at all is ``None`` beside it, and its record says why."""

    STRONG = "shown in full"  # past the chapter's bar, beyond the spread
    WEAK = "shown in part"  # beyond the spread, but short of the bar or at a cost the page names
    NONE = "not shown"  # measured, and the runs show no such effect
    REVERSED = "the other way"  # beyond the spread, in the direction opposite the lesson's
    UNTOLD = NOT_TOLD_APART  # the runs cannot say: no spread to weigh, or it was disturbed
