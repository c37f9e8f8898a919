"""servelab.lessons.guess: the numbers a reader wrote, read with their units, and each paired with
the figure of its unit the page measured."""

from __future__ import annotations

import pytest

from servelab.lessons.guess import Aim, Quantity, Unit, scored, written_numbers


@pytest.mark.parametrize(
    ("prediction", "numbers"),
    [
        (
            "about 50 tokens; first token 5x sooner",
            [Quantity(50, Unit.TOKENS), Quantity(5, Unit.TIMES)],
        ),
        (
            "2,000 tok/s and 3 req/s, 40%",
            [Quantity(2000, Unit.TOK_S), Quantity(3, Unit.REQ_S), Quantity(0.4, Unit.PERCENT)],
        ),
        ("a pause of 1.5 s; then 300ms", [Quantity(1500, Unit.MS), Quantity(300, Unit.MS)]),
        ("about 10 at once, 3.5 times", [Quantity(10, Unit.COUNT), Quantity(3.5, Unit.TIMES)]),
        ("v0.11.2 and half of it", []),  # a version and a number in words are not numbers read
        ("", []),
    ],
)
def test_numbers_are_read_with_the_unit_after_them(
    prediction: str, numbers: list[Quantity]
) -> None:
    assert written_numbers(prediction) == numbers


def test_each_aim_takes_the_first_unused_number_of_its_unit() -> None:
    aims = [
        Aim("one user", 2.4, Unit.TIMES),
        Aim("the crowd", 4.0, Unit.TIMES),
        Aim("hit rate", 0.9, Unit.PERCENT),
    ]
    found = scored("1 user: llama.cpp 2x; 32 users: vLLM 5x", aims)
    assert [(score.aim.what, score.written) for score in found] == [
        ("one user", 2.0),
        ("the crowd", 5.0),
    ]
    assert found[0].ratio == pytest.approx(1.2) and found[0].close
    assert found[1].ratio == pytest.approx(0.8) and found[1].close
    assert scored("no numbers here", aims) == []


@pytest.mark.parametrize(
    ("written", "close"),
    [(8.0, True), (10.0, True), (12.5, True), (7.9, False), (12.6, False), (0.0, False)],
)
def test_close_is_a_band_either_way(written: float, close: bool) -> None:
    [score] = scored(f"{written}x", [Aim("gain", 10.0, Unit.TIMES)])
    assert score.close is close
