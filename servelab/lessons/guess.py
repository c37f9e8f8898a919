"""The reader's written prediction scored against what the page measured.

Each page opens by asking for a prediction in ``my_prediction``, free text such as "about 50
tokens; first token 5x sooner". :func:`written_numbers` reads the numbers in it with their units;
:func:`scored` pairs each figure the page measured (an :class:`Aim`) with the first number the
reader wrote in the same unit, in order, so "llama.cpp 2x, vLLM 5x" scores two ratios. A number
in words ("half", "a second") is not read: the page says when it found nothing to score.
:mod:`.prediction` words the result.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from servelab.lessons.thresholds import GUESS_CLOSE


class Unit(StrEnum):
    """What a written or measured number counts, as a page writes it after the number."""

    TIMES = "×"
    PERCENT = "%"  # kept as a fraction: 50% is 0.5
    MS = " ms"  # seconds are read as milliseconds
    TOKENS = " tokens"
    TOK_S = " tok/s"
    REQ_S = " req/s"
    COUNT = ""


# Longest spellings first: "tok/s" before "tok", "ms" before "s".
_UNITS = [
    (r"tok(?:en)?s?\s*/\s*s|tok(?:en)?s? per second", Unit.TOK_S, 1.0),
    (r"req(?:uest)?s?\s*/\s*s|requests? per second", Unit.REQ_S, 1.0),
    (r"x|×|times", Unit.TIMES, 1.0),
    (r"%|percent", Unit.PERCENT, 0.01),
    (r"ms|milliseconds?", Unit.MS, 1.0),
    (r"s|secs?|seconds?", Unit.MS, 1000.0),
    (r"tok(?:en)?s?", Unit.TOKENS, 1.0),
]
_NUMBER = re.compile(
    r"(?<![\w.])(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?|\.\d+)\s*("
    + "|".join(f"(?:{pattern})" for pattern, _, _ in _UNITS)
    + r")?(?![\w/])",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Quantity:
    """A number and its unit (a percentage as a fraction, a time in milliseconds)."""

    value: float
    unit: Unit


def _unit_of(suffix: str) -> tuple[Unit, float]:
    for pattern, unit, scale in _UNITS:
        if re.fullmatch(pattern, suffix, re.IGNORECASE):
            return unit, scale
    return Unit.COUNT, 1.0


def written_numbers(prediction: str) -> list[Quantity]:
    """Every number in ``prediction``, in order, with the unit written right after it (none:
    a count)."""
    found = []
    for match in _NUMBER.finditer(prediction):
        unit, scale = _unit_of(match.group(2) or "")
        found.append(Quantity(float(match.group(1).replace(",", "")) * scale, unit))
    return found


@dataclass(frozen=True)
class Aim:
    """A figure the page measured that a prediction may have named: ``what`` it is, for the
    page, and its value in ``unit`` (a percentage as a fraction)."""

    what: str
    value: float
    unit: Unit


@dataclass(frozen=True)
class Scored:
    """One measured figure beside the number the reader wrote for it."""

    aim: Aim
    written: float

    @property
    def ratio(self) -> float:
        """The measured figure over the written one (inf where the reader wrote 0)."""
        return self.aim.value / self.written if self.written else float("inf")

    @property
    def close(self) -> bool:
        """Within ``GUESS_CLOSE`` of what the reader wrote, either way."""
        return 1 / (1 + GUESS_CLOSE) <= self.ratio <= 1 + GUESS_CLOSE


def scored(prediction: str, aims: Sequence[Aim]) -> list[Scored]:
    """Each aim with the first number not yet used that the reader wrote in its unit; aims
    with no such number are left out."""
    unused = written_numbers(prediction)
    found = []
    for aim in aims:
        match = next((number for number in unused if number.unit is aim.unit), None)
        if match is not None:
            unused.remove(match)
            found.append(Scored(aim, match.value))
    return found
