"""Every verdict bar has one home: its chapter's ``<topic>/thresholds.py``, or
``servelab.lessons.thresholds`` for the bar several chapters share. No bar is named in two homes,
no other lesson module defines one of their names again, and each bar is read by some lesson
module (none is dead)."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

from servelab.lessons import thresholds

LESSONS = Path(thresholds.__file__).parent  # servelab/lessons and its topic packages
HOMES = sorted(LESSONS.rglob("thresholds.py"))


def _module(path: Path) -> str:
    return ".".join(path.relative_to(LESSONS.parents[1]).with_suffix("").parts)


def _bars(path: Path) -> set[str]:
    return {
        name
        for name in vars(importlib.import_module(_module(path)))
        if name.isupper() and name in _assigned_and_read(path)[0]
    }


def _assigned_and_read(path: Path) -> tuple[set[str], set[str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    assigned = {
        target.id
        for node in tree.body
        if isinstance(node, ast.Assign)
        for target in node.targets
        if isinstance(target, ast.Name)
    }
    read = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}
    return assigned, read


BARS = {path: _bars(path) for path in HOMES}
ALL_BARS = set().union(*BARS.values())


def test_each_topic_keeps_its_own_bars_and_no_bar_has_two_homes() -> None:
    topics = {path.parent.name for path in HOMES}
    assert {"batching", "chunking", "prefix", "throughput_vs_latency", "past_one_machine"} <= topics
    assert "SHOWN_GAIN" in BARS[LESSONS / "batching" / "thresholds.py"]
    assert "PAUSE_GAIN_SHOWN" in BARS[LESSONS / "chunking" / "thresholds.py"]
    assert sum(len(bars) for bars in BARS.values()) == len(ALL_BARS), "a bar named in two homes"


def test_no_other_lesson_module_defines_a_bar_again() -> None:
    for path in sorted(LESSONS.rglob("*.py")):
        if path.name == "thresholds.py":
            continue
        assigned, _ = _assigned_and_read(path)
        assert not assigned & ALL_BARS, f"{path} defines {sorted(assigned & ALL_BARS)} again"


def test_every_bar_is_read_by_some_lesson_module() -> None:
    read: set[str] = set()
    for path in LESSONS.rglob("*.py"):
        if path.name != "thresholds.py" or path.parent != LESSONS:
            read |= _assigned_and_read(path)[1] - (_bars(path) if path in BARS else set())
    assert ALL_BARS <= read, f"bars nothing reads: {sorted(ALL_BARS - read)}"
