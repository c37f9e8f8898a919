"""Every verdict bar has one home, ``servelab.lessons.thresholds``: no chapter module defines one
of its names again, and each bar is read by some lesson module (none is dead)."""

from __future__ import annotations

import ast
from pathlib import Path

from servelab.lessons import thresholds

LESSONS = Path(thresholds.__file__).parent  # servelab/lessons and its topic packages
BARS = {name for name in vars(thresholds) if name.isupper()}


def _assigned_and_read(path: Path) -> tuple[set[str], set[str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    assigned = {target.id for node in tree.body if isinstance(node, ast.Assign)
                for target in node.targets if isinstance(target, ast.Name)}
    read = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}
    return assigned, read


def test_the_table_holds_the_bars_and_no_chapter_module_defines_one_again() -> None:
    assert {"SHOWN_GAIN", "TTFT_GAIN_SHOWN", "PAUSE_GAIN_SHOWN", "SAME_SPEED"} <= BARS
    for path in sorted(LESSONS.rglob("*.py")):
        if path.name == "thresholds.py":
            continue
        assigned, _ = _assigned_and_read(path)
        assert not assigned & BARS, f"{path.name} defines {sorted(assigned & BARS)} again"


def test_every_bar_is_read_by_some_chapter_module() -> None:
    read: set[str] = set()
    for path in LESSONS.rglob("*.py"):
        if path.name != "thresholds.py":
            read |= _assigned_and_read(path)[1]
    assert BARS <= read, f"bars nothing reads: {sorted(BARS - read)}"
