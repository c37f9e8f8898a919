"""The README's Colab section holds the t4-wait table ``t4_count.readme_table`` makes."""

from __future__ import annotations

import sys

from course.paths import REPO_ROOT

sys.path.insert(0, str(REPO_ROOT / "env" / "gpu_contract"))

import t4_count  # noqa: E402


def test_the_readme_table_is_the_counts_own() -> None:
    text = (REPO_ROOT / "README.md").read_text()
    start = text.index("<!-- t4-wait table")
    table = text[text.index("\n", start) + 1 : text.index("<!-- end t4-wait table -->")]
    assert table.strip() == t4_count.readme_table()
