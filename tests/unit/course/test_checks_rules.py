"""Checks a test-wise student cannot pass without reading: option lengths give nothing away and
the keys are spread over the letters."""

from __future__ import annotations

from pathlib import Path

import pytest

from course.checks import LETTERS, Check, Option, load_check
from course.paths import CHECKS_DIR

# The key may be at most this many times the mean length of the other options ...
KEY_LENGTH_RATIO = 1.25
# ... and the longest option (ties included) in at most this many checks.
KEY_LONGEST_AT_MOST = 2

CHECK_FILES = sorted(CHECKS_DIR.glob("*.yml"))


def key_ratio(check: Check) -> float:
    others = [len(option.text) for option in check.wrong_options]
    return len(check.option(check.correct).text) / (sum(others) / len(others))


def key_is_longest(check: Check) -> bool:
    key = len(check.option(check.correct).text)
    return all(key >= len(option.text) for option in check.wrong_options)


def test_there_is_a_check_for_every_file() -> None:
    assert len(CHECK_FILES) >= 9


@pytest.mark.parametrize("path", CHECK_FILES, ids=lambda path: path.stem)
def test_the_key_is_not_much_longer_than_the_other_options(path: Path) -> None:
    check = load_check(path)
    assert key_ratio(check) <= KEY_LENGTH_RATIO, (
        f"{path.name}: the key {check.correct} is {key_ratio(check):.2f}× the others' mean length")


def test_the_key_is_rarely_the_longest_option() -> None:
    longest = [path.name for path in CHECK_FILES if key_is_longest(load_check(path))]
    assert len(longest) <= KEY_LONGEST_AT_MOST, f"the key is the longest option in {longest}"


def test_every_letter_is_a_key_somewhere_and_none_dominates() -> None:
    keys = [load_check(path).correct for path in CHECK_FILES]
    counts = {letter: keys.count(letter) for letter in LETTERS}
    assert min(counts.values()) >= 1, counts
    assert max(counts.values()) <= len(keys) // 2, counts


def test_the_rules_catch_a_check_whose_key_stands_out() -> None:
    telltale = Check(chapter="99-x", question="Which?", correct="C", options=(
        Option("A", "Short.", "t", "w"), Option("B", "Also short.", "t", "w"),
        Option("C", "A long, careful answer that explains itself at length."),
        Option("D", "Brief.", "t", "w")))
    assert key_is_longest(telltale)
    assert key_ratio(telltale) > KEY_LENGTH_RATIO
