"""servelab.chapter: a made-up chapter's figures, declared once as fields: one figure a level of
every profile for a field with a knob, its value read back by name, exactly two main ones, and
the package the chapter's id names."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import pytest

from servelab.chapter import Chapter, Figure, Figures, figure, per_level
from servelab.lessons.serving_many_users.chapter import SIZES  # levels 1, 4 / 1-32 / 1-32


@dataclass(frozen=True)
class MadeUp(Figures):
    gain: float = figure("the gain (×)", main=True)
    kept: float = figure("the share kept (0-1)", main=True)
    total_at: Mapping[int, float] = figure("total at {n} users (tok/s)", knob="levels")


@dataclass(frozen=True)
class OneMain(Figures):
    gain: float = figure("the gain (×)", main=True)


def test_a_figure_with_a_knob_is_one_figure_a_level_of_every_profile() -> None:
    chapter = Chapter("07-made-up-chapter", SIZES, MadeUp)
    assert chapter.package == "made_up_chapter" and chapter.main_figures == ("gain", "kept")
    levels = sorted({*SIZES.smoke.levels, *SIZES.cpu.levels, *SIZES.gpu.levels})
    assert list(chapter.figures) == ["gain", "kept", *(f"total_at_{n}" for n in levels)]
    assert chapter.figures["total_at_4"] == Figure("total at 4 users (tok/s)", "levels", 4)
    assert chapter.figures["gain"] == Figure("the gain (×)")


def test_the_figures_read_back_by_name_one_a_level() -> None:
    made = MadeUp(gain=3.0, kept=0.5, total_at=per_level(["1", 4.0], [10.0, 30.0]))
    assert made.by_name() == {"gain": 3.0, "kept": 0.5, "total_at_1": 10.0, "total_at_4": 30.0}
    with pytest.raises(ValueError):
        per_level([1, 4], [10.0])


def test_a_chapter_has_exactly_two_main_figures() -> None:
    with pytest.raises(ValueError, match="1 figures are main"):
        Chapter("07-made-up-chapter", SIZES, OneMain)
