"""What a chapter declares about itself: its id, its sizes, the figures it records and the two
its section of the class report plots.

Each chapter's package under ``servelab.lessons`` holds one such declaration (its ``chapter``
module); ``servelab.book`` lists them in reading order and everything else derives from it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Generic

from servelab.sizes import K, Profiles


@dataclass(frozen=True)
class Figure:
    """One named figure a chapter records. A figure with a ``level`` exists only in profiles
    whose ``knob`` (a list of the chapter's sizes) holds that level, e.g. one per concurrency."""

    description: str
    knob: str | None = None
    level: int | None = None


def per_level(sizes: Profiles[K], knob: str, template: str, description: str
              ) -> dict[str, Figure]:
    """``template.format(n=level)`` for every level of ``knob`` in any profile of ``sizes``."""
    levels = sorted({level for knobs in (sizes.smoke, sizes.cpu, sizes.gpu)
                     for level in getattr(knobs, knob)})
    return {template.format(n=level): Figure(description.format(n=level), knob, level)
            for level in levels}


@dataclass(frozen=True)
class Chapter(Generic[K]):
    """One chapter. ``id`` is the nbgrader assignment name and the notebook's file name;
    ``figures`` maps each figure name to what it is, unit included (where a chapter repeats a
    measurement, its figure is the median of the runs); ``main_figures`` are the effect the
    chapter is about, which the class report plots."""

    id: str
    sizes: Profiles[K]
    figures: Mapping[str, Figure]
    main_figures: tuple[str, str]

    def __post_init__(self) -> None:
        unknown = [name for name in self.main_figures if name not in self.figures]
        if unknown:
            raise ValueError(f"{self.id}: main figures {unknown} are not declared")
