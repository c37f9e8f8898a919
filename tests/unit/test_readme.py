"""README.md is what a newcomer reads once (issue #65 item 7): what the book is, the two
commands, and where each reader goes next. Developer material lives in CONTRIBUTING.md
(benchmark results in benchmarks/README.md), instructor and grader material in instructors.md, a
page of the site."""

from __future__ import annotations

import re

from course.paths import REPO_ROOT

README = REPO_ROOT / "README.md"
LONGEST = 150  # lines


def test_the_readme_stays_short() -> None:
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= LONGEST, f"README.md has {len(lines)} lines: move detail to the guides"


def test_the_readme_keeps_the_two_commands_and_links_each_guide() -> None:
    text = README.read_text(encoding="utf-8")
    assert "make book" in text and "make test" in text
    linked = re.findall(r"\]\(([\w/.-]+\.md)\)", text)
    assert {"CONTRIBUTING.md", "instructors.md", "benchmarks/README.md"} <= set(linked)
    assert all((REPO_ROOT / path).is_file() for path in linked)
