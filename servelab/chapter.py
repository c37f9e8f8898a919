"""What a chapter declares about itself: its id, its sizes and its figures.

A chapter's figures are one frozen dataclass, a subclass of :class:`Figures`, each figure a field
made by :func:`figure` with its description (two of them ``main``: the effect the chapter is
about, which the class report plots). The chapter's findings record returns one instance of it,
and every list of a chapter's figure names (the record's validation, the class report, the
plausibility checks) is read from those fields, so a figure's name is written once.

Each chapter's package under ``servelab.lessons`` holds one such declaration (its ``chapter``
module); ``servelab.book`` lists them in reading order and everything else derives from it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Generic

from servelab.sizes import K, Profiles


@dataclass(frozen=True)
class Figure:
    """One named figure a chapter records. A figure with a ``level`` exists only in profiles
    whose ``knob`` (a list of the chapter's sizes) holds that level, e.g. one per concurrency."""

    description: str
    knob: str | None = None
    level: int | None = None


def figure(description: str, knob: str | None = None, main: bool = False) -> Any:
    """A field of a chapter's :class:`Figures`: what the figure is, unit included. With a
    ``knob`` the field maps each level of that size to its value, and names one figure per
    level, ``<field>_<level>`` (``{n}`` in the description is the level)."""
    return dataclasses.field(metadata={"description": description, "knob": knob, "main": main})


def per_level(levels: Iterable[Any], values: Iterable[Any]) -> dict[int, Any]:
    """Each level (a whole number of a knob, e.g. a concurrency) with its value: the value of a
    :func:`figure` field with a ``knob``."""
    return {int(level): value for level, value in zip(levels, values, strict=True)}


@dataclass(frozen=True)
class Figures:
    """The base of each chapter's figures dataclass (where a chapter repeats a measurement, a
    figure is the median of the runs)."""

    def by_name(self) -> dict[str, Any]:
        """Every figure's value by its name, one per level for a field with a ``knob``."""
        values: dict[str, Any] = {}
        for field in dataclasses.fields(self):
            value = getattr(self, field.name)
            if field.metadata["knob"] is None:
                values[field.name] = value
            else:
                values.update({f"{field.name}_{level}": item for level, item in value.items()})
        return values


@dataclass(frozen=True)
class Chapter(Generic[K]):
    """One chapter. ``id`` is the nbgrader assignment name and the notebook's file name;
    ``figures_record`` is its :class:`Figures` dataclass."""

    id: str
    sizes: Profiles[K]
    figures_record: type[Figures]

    def __post_init__(self) -> None:
        if len(self.main_figures) != 2:
            raise ValueError(f"{self.id}: {len(self.main_figures)} figures are main, not two")

    @property
    def package(self) -> str:
        """The lessons package the chapter lives in, named after it: its id without the number,
        as a Python name (``03-paged-attention`` lives in ``servelab.lessons.paged_attention``)."""
        return self.id.split("-", 1)[1].replace("-", "_")

    @cached_property
    def figures(self) -> Mapping[str, Figure]:
        """Each figure's name and declaration, one per level of every profile for a field
        with a ``knob``."""
        declared: dict[str, Figure] = {}
        for field in dataclasses.fields(self.figures_record):
            description, knob = field.metadata["description"], field.metadata["knob"]
            if knob is None:
                declared[field.name] = Figure(description)
                continue
            levels = sorted(
                {
                    level
                    for knobs in (self.sizes.smoke, self.sizes.cpu, self.sizes.gpu)
                    for level in getattr(knobs, knob)
                }
            )
            declared.update(
                {
                    f"{field.name}_{level}": Figure(description.format(n=level), knob, level)
                    for level in levels
                }
            )
        return declared

    @property
    def main_figures(self) -> tuple[str, ...]:
        """The two figures of the effect the chapter is about, which the class report plots."""
        return tuple(
            field.name
            for field in dataclasses.fields(self.figures_record)
            if field.metadata["main"]
        )
