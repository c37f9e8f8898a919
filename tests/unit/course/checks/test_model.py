"""course.checks.model: a check made in code refuses each malformed part with the reason, and
tells a student who chose a wrong option why it tempts and why it is wrong (the same rules read
from YAML: test_load.py)."""

from __future__ import annotations

import dataclasses

import pytest

from course.checks.model import LETTERS, Check, CheckError, Option

OPTIONS = tuple(
    Option(letter, f"option {letter}", tempts=f"{letter}-tempts", wrong=f"{letter}-wrong")
    for letter in LETTERS
)


def _check(**changes) -> Check:
    return Check(
        **(
            {"chapter": "99-test", "question": "Which?", "options": OPTIONS, "correct": "B"}
            | changes
        )
    )


@pytest.mark.parametrize(
    ("changes", "reason"),
    [
        ({"question": "  "}, "question is empty"),
        ({"options": OPTIONS[:3]}, "exactly four options"),
        ({"options": OPTIONS[::-1]}, "in that order"),
        ({"correct": "E"}, "correct must be one of"),
        ({"options": (dataclasses.replace(OPTIONS[0], text=" "), *OPTIONS[1:])}, "A has no text"),
        (
            {"options": (dataclasses.replace(OPTIONS[0], wrong=None), *OPTIONS[1:])},
            "wrong option A",
        ),
    ],
)
def test_each_malformed_part_is_refused_with_its_reason(changes, reason) -> None:
    with pytest.raises(CheckError, match=reason):
        _check(**changes)


def test_the_right_option_needs_no_explanation_and_a_wrong_one_is_explained() -> None:
    check = _check(
        options=(*OPTIONS[:1], dataclasses.replace(OPTIONS[1], wrong=None), *OPTIONS[2:])
    )
    assert [option.letter for option in check.wrong_options] == ["A", "C", "D"]
    assert check.option("C") is check.options[2]
    said = check.feedback("C")
    assert said.index("C-tempts") < said.index("C-wrong") and "B-" not in said
    untempting = _check(options=(dataclasses.replace(OPTIONS[0], tempts=None), *OPTIONS[1:]))
    assert "tempts" not in untempting.feedback("A") and "A-wrong" in untempting.feedback("A")
