"""Autograding and feedback for many notebooks, in a few worker processes.

Grading a notebook is mostly waiting for its kernel to start, so two workers on two cores grade
nearly twice as fast as one. Each worker owns whole notebooks (one student's chapter); they share
the SQLite gradebook, whose writes are short, with a generous lock timeout.
"""

from __future__ import annotations

import contextlib
import logging
import warnings
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_all_start_methods, get_context
from pathlib import Path

from nbformat.warnings import MissingIDFieldWarning
from sqlalchemy.exc import SAWarning

from autograder.course import ScratchCourse, quiet_log

Pair = tuple[str, str]  # (chapter, student)

_course: ScratchCourse | None = None


def _start(course_root: Path, root: Path, timeout: int, verbose: bool) -> None:
    """Set up a worker process: its view of the scratch course, and a quiet nbgrader log."""
    global _course
    warnings.simplefilter("ignore", SAWarning)
    warnings.simplefilter("ignore", MissingIDFieldWarning)  # cells nbgrader re-adds have no id
    if verbose:
        logging.basicConfig(level=logging.INFO, format="%(levelname)s %(message)s")
    _course = ScratchCourse(course_root, root, timeout)
    quiet_log(_course.log, verbose)


def _grade(pair: Pair) -> str:
    chapter, student = pair
    return _course.autograde(chapter, student)


def grade_notebooks(course: ScratchCourse, pairs: list[Pair], jobs: int) -> dict[Pair, str]:
    """Autograde every (chapter, student) submitted; returns '' or nbgrader's reason for each."""
    settings = (course.course_root, course.root, course.timeout, course.log.propagate)
    results: dict[Pair, str] = {}
    if jobs > 1 and len(pairs) > 1:
        # fork, not spawn: spawn re-imports the caller's __main__, which breaks unguarded scripts
        method = "fork" if "fork" in get_all_start_methods() else "spawn"
        with ProcessPoolExecutor(jobs, mp_context=get_context(method), initializer=_start,
                                 initargs=settings) as pool:
            futures = {pair: pool.submit(_grade, pair) for pair in pairs}
            for pair, future in futures.items():
                with contextlib.suppress(Exception):  # a dead worker: graded again below
                    results[pair] = future.result()
    left = [pair for pair in pairs if pair not in results]
    if left:
        _start(*settings)
        results.update((pair, _grade(pair)) for pair in left)
    return results
