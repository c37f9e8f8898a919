"""Checks a test-wise student cannot pass without reading: option lengths give nothing away, the
keys are spread over the letters, and no key repeats its page's wording (a key found by matching
the take-away's words, not by understanding them: issue #65 item 5)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from course.checks import LETTERS, Check, Option, load_check, role_of
from course.paths import CHECKS_DIR, SOURCE_DIR

# The key may be at most this many times the mean length of the other options ...
KEY_LENGTH_RATIO = 1.25
# ... and the longest option (ties included) in at most this many checks.
KEY_LONGEST_AT_MOST = 2

# ... and shares no run of more words than this with its page's prose.
KEY_ECHO_WORDS = 5

CHECK_FILES = sorted(CHECKS_DIR.glob("*.yml"))


def key_ratio(check: Check) -> float:
    others = [len(option.text) for option in check.wrong_options]
    return len(check.option(check.correct).text) / (sum(others) / len(others))


def key_is_longest(check: Check) -> bool:
    key = len(check.option(check.correct).text)
    return all(key >= len(option.text) for option in check.wrong_options)


def words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9']+", text.lower())


def longest_shared_run(text: str, page: str) -> int:
    """The most words in a row ``text`` shares with ``page``, case and punctuation aside."""
    ours, theirs = words(text), words(page)
    longest, previous = 0, [0] * (len(theirs) + 1)
    for word in ours:
        current = [0] * (len(theirs) + 1)
        for j, other in enumerate(theirs, start=1):
            if word == other:
                current[j] = previous[j - 1] + 1
                longest = max(longest, current[j])
        previous = current
    return longest


def page_prose(chapter: str) -> str:
    """The chapter's markdown cells, its check's own cells aside."""
    notebook = json.loads((SOURCE_DIR / chapter / f"{chapter}.ipynb").read_text(encoding="utf-8"))
    return "\n".join(
        "".join(cell["source"])
        for cell in notebook["cells"]
        if cell["cell_type"] == "markdown" and not role_of(cell)
    )


def test_there_is_a_check_for_every_file() -> None:
    assert len(CHECK_FILES) >= 9


@pytest.mark.parametrize("path", CHECK_FILES, ids=lambda path: path.stem)
def test_the_key_is_not_much_longer_than_the_other_options(path: Path) -> None:
    check = load_check(path)
    assert key_ratio(check) <= KEY_LENGTH_RATIO, (
        f"{path.name}: the key {check.correct} is {key_ratio(check):.2f}× the others' mean length"
    )


@pytest.mark.parametrize("path", CHECK_FILES, ids=lambda path: path.stem)
def test_the_key_does_not_repeat_its_pages_wording(path: Path) -> None:
    check = load_check(path)
    shared = longest_shared_run(check.option(check.correct).text, page_prose(path.stem))
    assert shared <= KEY_ECHO_WORDS, (
        f"{path.name}: the key shares {shared} words in a row with its page; word it afresh"
    )


def test_the_key_is_rarely_the_longest_option() -> None:
    longest = [path.name for path in CHECK_FILES if key_is_longest(load_check(path))]
    assert len(longest) <= KEY_LONGEST_AT_MOST, f"the key is the longest option in {longest}"


def test_every_letter_is_a_key_somewhere_and_none_dominates() -> None:
    keys = [load_check(path).correct for path in CHECK_FILES]
    counts = {letter: keys.count(letter) for letter in LETTERS}
    assert min(counts.values()) >= 1, counts
    assert max(counts.values()) <= len(keys) // 2, counts


def test_the_rules_catch_a_check_whose_key_stands_out() -> None:
    telltale = Check(
        chapter="99-x",
        question="Which?",
        correct="C",
        options=(
            Option("A", "Short.", "t", "w"),
            Option("B", "Also short.", "t", "w"),
            Option("C", "A long, careful answer that explains itself at length."),
            Option("D", "Brief.", "t", "w"),
        ),
    )
    assert key_is_longest(telltale)
    assert key_ratio(telltale) > KEY_LENGTH_RATIO


def test_the_echo_rule_finds_a_key_that_repeats_its_page() -> None:
    page = "The take-away: each engine's step line and its first token for a fresh prompt."
    assert longest_shared_run("Its first token for a fresh prompt, alone.", page) == 7
    assert longest_shared_run("How soon a new prompt is answered.", page) == 1
