"""Merging the shards of one class into one grades.csv and one feedback tree.

`python -m autograder merge OUT/shard-*/ --out FINAL` checks every shard before writing anything:
each has a manifest (a shard without one did not finish), all were graded as N shards against
the same inputs, every index 0..N-1 is there exactly once, each shard's rows match its manifest
and belong to it, and no row or feedback page comes from two shards. The rows are then put in the
unsharded run's order and written by the same writer, so FINAL/grades.csv has the bytes an
unsharded run writes; so has FINAL/class-results.csv, from each shard's part, and the class
report is drawn once, from those merged rows.
"""

from __future__ import annotations

import json
import shutil
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from autograder.class_results import (
    RESULTS_CSV,
    ResultsError,
    Row,
    ordered,
    read_results,
    write_results,
)
from autograder.grade import COLUMNS, check_out_folder, mark_output, write_grades
from autograder.shard import MANIFEST, ROWS, shard_of

MAX_JSON_BYTES = 256 << 20


class MergeError(ValueError):
    """The shards cannot be merged; the message says which and why."""


@dataclass
class ShardOutput:
    folder: Path
    index: int
    count: int
    inputs: str
    rows: list[dict]


def _read_json(path: Path, what: str) -> Any:
    """The JSON in ``path``, whatever it holds: ``read_shard`` checks its shape."""
    if not path.is_file():
        raise MergeError(f"{path.parent} has no {path.name}: {what}")
    if path.stat().st_size > MAX_JSON_BYTES:
        raise MergeError(f"{path} is over {MAX_JSON_BYTES} bytes")
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError) as error:
        raise MergeError(f"{path} is not readable JSON ({error})") from None


def read_shard(folder: Path) -> ShardOutput:
    """One shard's manifest and rows, checked against each other."""
    manifest = _read_json(folder / MANIFEST, "the shard did not finish (grade it again)")
    rows = _read_json(folder / ROWS, "the shard's rows are missing (grade it again)")
    try:
        shard = ShardOutput(
            folder,
            int(manifest["shard"]),
            int(manifest["shards"]),
            str(manifest["inputs"]),
            list(rows),
        )
        counts = Counter(item["row"]["status"] for item in shard.rows)
        intact = (
            len(shard.rows) == manifest["rows"]
            and dict(counts) == manifest["counts"]
            and all(
                set(item["row"]) == set(COLUMNS)
                and isinstance(item["id"], str)
                and len(item["order"]) == 3
                and all(isinstance(part, str) for part in item["order"])
                for item in shard.rows
            )
        )
    except (KeyError, TypeError, ValueError, AttributeError):
        intact = False
    if not intact:
        raise MergeError(f"{folder}: its rows do not match its manifest (grade it again)")
    return shard


def check_shards(shards: list[ShardOutput]) -> None:
    """Refuse shards that are not exactly the N shards of one grading of one input list."""
    if not shards:
        raise MergeError("no shard folders given")
    _check_one_grading(shards)
    _check_every_index(shards)
    _check_rows(shards)


def _check_one_grading(shards: list[ShardOutput]) -> None:
    """Every shard is one of the same N, graded against the same inputs."""
    first = shards[0]
    for shard in shards:
        if shard.count != first.count:
            raise MergeError(
                f"{shard.folder} is shard {shard.index} of {shard.count}, but "
                f"{first.folder} is one of {first.count}: graded as another N"
            )
        if shard.inputs != first.inputs:
            raise MergeError(
                f"{shard.folder} was graded against other inputs than "
                f"{first.folder} (input fingerprints {shard.inputs[:12]} and "
                f"{first.inputs[:12]})"
            )


def _check_every_index(shards: list[ShardOutput]) -> None:
    """Each of the N shards is given once."""
    by_index: dict[int, ShardOutput] = {}
    for shard in shards:
        if shard.index in by_index:
            raise MergeError(
                f"shard {shard.index} is given twice: {by_index[shard.index].folder}"
                f" and {shard.folder}"
            )
        by_index[shard.index] = shard
    count = shards[0].count
    missing = sorted(set(range(count)) - set(by_index))
    if missing:
        raise MergeError(
            f"shard{'s' if len(missing) > 1 else ''} "
            f"{', '.join(map(str, missing))} of {count} "
            f"{'are' if len(missing) > 1 else 'is'} missing"
        )


def _check_rows(shards: list[ShardOutput]) -> None:
    """Each row appears once, in the shard its student belongs to."""
    seen: dict[str, ShardOutput] = {}
    for shard in shards:
        for item in shard.rows:
            if item["id"] in seen:
                raise MergeError(
                    f"the row of {item['id']!r} appears twice: in "
                    f"{seen[item['id']].folder} and {shard.folder}"
                )
            seen[item["id"]] = shard
            if shard_of(item["row"]["student"], shard.count) != shard.index:
                raise MergeError(
                    f"{shard.folder} holds a row of student "
                    f"{item['row']['student']!r}, who belongs to another shard"
                )


def _feedback_pages(shards: list[ShardOutput]) -> dict[Path, Path]:
    """Every feedback page: its path inside feedback/ -> the file; one shard per page."""
    pages: dict[Path, Path] = {}
    for shard in shards:
        root = shard.folder / "feedback"
        for page in sorted(root.rglob("*")) if root.is_dir() else []:
            if page.is_symlink():
                raise MergeError(f"{page} is a symbolic link; a shard never writes one")
            if not page.is_file():
                continue
            inside = page.relative_to(root)
            if inside in pages:
                raise MergeError(
                    f"the feedback page {inside} appears twice: in {pages[inside]} and {page}"
                )
            pages[inside] = page
    return pages


def _class_results(shards: list[ShardOutput]) -> list[Row]:
    """Every shard's part of class-results.csv, each row checked to be its shard's student's."""
    rows: list[Row] = []
    for shard in shards:
        try:
            part = read_results(shard.folder / RESULTS_CSV)
        except ResultsError as error:
            raise MergeError(str(error)) from None
        stray = next(
            (
                row["student"]
                for row in part
                if shard_of(row["student"], shard.count) != shard.index
            ),
            None,
        )
        if stray is not None:
            raise MergeError(
                f"{shard.folder / RESULTS_CSV} holds a result of student "
                f"{stray!r}, who belongs to another shard"
            )
        rows += part
    return ordered(rows)


def merge(folders: list[Path], final: Path) -> list[dict[str, str]]:
    """Check the shards, then write FINAL/grades.csv, FINAL/feedback, FINAL/class-results.csv
    and the class report; returns the grades' rows."""
    final = final.resolve()
    check_out_folder(final, folders)
    shards = sorted((read_shard(folder.resolve()) for folder in folders), key=lambda s: s.index)
    check_shards(shards)
    pages = _feedback_pages(shards)
    results = _class_results(shards)
    items = [item for shard in shards for item in shard.rows]
    items.sort(key=lambda item: item["order"])  # stable: ties stay as their shard wrote them
    rows = [{column: str(item["row"][column]) for column in COLUMNS} for item in items]
    mark_output(final)
    for inside, page in pages.items():
        target = final / "feedback" / inside
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(page, target)
    write_grades(final / "grades.csv", rows)
    write_results(final / RESULTS_CSV, results)
    from autograder.class_report import REPORT_HTML, write_report  # matplotlib: only here

    write_report(final / REPORT_HTML, results)
    return rows
