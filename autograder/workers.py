"""Autograding many notebooks in a few nbgrader processes at once.

Grading a notebook is mostly waiting for its sandboxed kernel to start, so two workers on two
cores grade nearly twice as fast as one. Each worker is one `nbgrader autograde` and one
`nbgrader generate_feedback` run over its own batch of notebooks (autograder.course); the
SQLite gradebook is shared, its writes are short and a writer waits for the other's lock.
Student code never runs in these processes (only in the sandbox), and a batch that fails, even
a worker that dies, leaves its notebooks without a grade: they become `error` rows.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from autograder.course import ScratchCourse

Pair = tuple[str, str]  # (chapter, student)


def batches(pairs: list[Pair], jobs: int) -> dict[Pair, int]:
    """Deal the notebooks round-robin into at most `jobs` batches: pair -> batch number."""
    return {pair: n % max(1, jobs) for n, pair in enumerate(sorted(pairs))}


def grade_batches(course: ScratchCourse, batch_of: dict[Pair, int]) -> dict[int, str]:
    """Autograde every batch, `len(batches)` at once; returns '' or the failure of each batch."""
    numbers = sorted(set(batch_of.values()))
    if not numbers:
        return {}
    with ThreadPoolExecutor(len(numbers)) as pool:
        return dict(zip(numbers, pool.map(course.autograde_batch, numbers), strict=True))
