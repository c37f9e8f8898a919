"""A class's result records as rows: what each student measured, on what, and what is doubtful.

Records are read from the outputs a submission already holds (``servelab.results.read_records``:
size-capped, schema-validated, finite numbers only); nothing in a notebook runs, and a record
never changes a grade. Each row is one student, chapter and figure with the device, engine and
size profile it was measured on, and a ``flag``:

- ``none``; ``smoke size`` (measured at the smoke profile: shows the chapter ran, not its effect);
- ``implausible: <why>`` (``autograder.plausibility``'s checks);
- ``malformed: <why>`` (a result output that is not a valid record; one row, no figure);
- ``missing`` (a notebook of a chapter that records figures, with no record; one row).

A record's wall-time split (schema 3) is rows too (``autograder.wall_time``: a figure starting
``wall time: ``, flagged in its own row where it is implausible or missing). A record's checked
predictions (schema 2) are rows too: the figure is :data:`PREDICTION` and
what was predicted, the value the runs' median, ``predicted`` the device model's number and
``foretold`` where it fell (a :class:`~servelab.lessons.device_model.foretold.Foretold` name,
worked out here from the record's numbers, never taken from it).

Everything downstream (the report, the feedback tables, a merge of shards) reads these rows, so
a sharded class and an unsharded one give the same bytes.
"""

from __future__ import annotations

import csv
import statistics
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from autograder.plausibility import doubts
from autograder.wall_time import wall_rows
from servelab.bench.spread import Spread
from servelab.lessons.device_model.foretold import foretold
from servelab.results import FIGURES, Prediction, Record, RecordError, read_records

RESULTS_CSV = "class-results.csv"
COLUMNS = (
    "student",
    "chapter",
    "figure",
    "value",
    "device_kind",
    "device_name",
    "device_count",
    "engine",
    "size_profile",
    "flag",
    "predicted",
    "foretold",
)
PREDICTION = "prediction: "  # opens the figure of a prediction's row
COUNTED = ("none", "smoke size")  # flags whose figures go into medians and plots
FORMULA_START = ("=", "+", "-", "@")  # a spreadsheet would run a cell starting so
MAX_CSV_BYTES = 256 << 20

Row = dict[str, str]


class ResultsError(ValueError):
    """A class-results.csv that this module did not write (a merge refuses it)."""


def number(value: float) -> str:
    """The one format of a figure in the rows: six significant digits."""
    return f"{value:.6g}"


def _text(value: str) -> str:
    """A record's string for a CSV cell, never a spreadsheet formula."""
    return f"'{value}" if value.startswith(FORMULA_START) else value


def device_class(row: Mapping[str, str]) -> str:
    """What medians and plots group by: "CPU" (processors differ too much by name to group),
    "GPU Tesla T4", "GPU 2x Tesla T4"."""
    if row["device_kind"] != "cuda":
        return "CPU"
    many = f"{row['device_count']}x " if row["device_count"] not in ("", "1") else ""
    return f"GPU {many}{row['device_name']}"


def prediction_figure(prediction: Prediction) -> str:
    """A prediction's row's figure: what was predicted, and its unit."""
    return f"{PREDICTION}{prediction.what} ({prediction.unit.strip()})"


def _foretold(prediction: Prediction) -> str:
    runs = Spread(prediction.median, prediction.low, prediction.high, prediction.runs)
    return foretold(prediction.predicted, runs).name


def _row(
    student: str,
    chapter: str,
    flag: str,
    figure: str = "",
    value: str = "",
    record: Record | None = None,
    prediction: Prediction | None = None,
) -> Row:
    device = record.device if record else None
    return {
        "student": student,
        "chapter": chapter,
        "figure": figure,
        "value": value,
        "device_kind": device.kind if device else "",
        "device_name": _text(device.name) if device else "",
        "device_count": str(device.count) if device else "",
        "engine": _text(record.engine) if record else "",
        "size_profile": record.size_profile if record else "",
        "flag": flag,
        "predicted": number(prediction.predicted) if prediction else "",
        "foretold": _foretold(prediction) if prediction else "",
    }


def _record_rows(student: str, chapter: str, record: Record, earlier: int) -> list[Row]:
    found = doubts(record, chapter, earlier)
    whole = [why for figure, why in found if figure is None]
    rows = []
    figures: list[tuple[str, float | None]] = [*sorted(record.figures.items())]
    for figure, value in figures or [("", None)]:
        reasons = whole + [why for name, why in found if name == figure and figure]
        flag = (
            f"implausible: {'; '.join(reasons)}"
            if reasons
            else "smoke size"
            if record.size_profile == "smoke"
            else "none"
        )
        rows.append(
            _row(student, chapter, flag, figure, "" if value is None else number(value), record)
        )
    flag = (
        f"implausible: {'; '.join(whole)}"
        if whole
        else "smoke size"
        if record.size_profile == "smoke"
        else "none"
    )
    rows += [
        _row(
            student,
            chapter,
            flag,
            _text(prediction_figure(prediction)),
            number(prediction.median),
            record,
            prediction,
        )
        for prediction in record.predictions
    ]
    return rows + wall_rows(
        record,
        whole,
        lambda flag, figure, value: _row(
            student, chapter, flag, figure, "" if value is None else number(value), record
        ),
    )


def notebook_rows(student: str, chapter: str, notebook: Mapping[str, Any]) -> list[Row]:
    """The rows of one student's notebook of ``chapter``."""
    if chapter not in FIGURES:
        return []
    records = read_records(notebook)
    if not records:
        return [_row(student, chapter, "missing")]
    rows: list[Row] = []
    valid = 0
    for item in records:
        if isinstance(item, RecordError):
            rows.append(_row(student, chapter, f"malformed: cell {item.cell}: {item.reason}"))
        else:
            rows += _record_rows(student, chapter, item, valid)
            valid += 1
    return rows


def ordered(rows: Iterable[Row]) -> list[Row]:
    """The rows' one order, of a class and of merged shards: by every column, left to right."""
    return sorted(rows, key=lambda row: [row[column] for column in COLUMNS])


def class_rows(notebooks: Iterable[tuple[str, str, Mapping[str, Any]]]) -> list[Row]:
    """The rows of every (student, chapter, notebook), in their one order."""
    return ordered(
        row for student, chapter, nb in notebooks for row in notebook_rows(student, chapter, nb)
    )


def write_results(path: Path, rows: list[Row]) -> None:
    """class-results.csv: the one writer of its bytes, for a class, a shard and a merge."""
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=COLUMNS)
        writer.writeheader()
        writer.writerows(rows)


def read_results(path: Path) -> list[Row]:
    """The rows of a class-results.csv this module wrote; ResultsError for anything else."""
    if not path.is_file():
        raise ResultsError(f"{path.parent} has no {path.name} (grade it again)")
    if path.stat().st_size > MAX_CSV_BYTES:
        raise ResultsError(f"{path} is over {MAX_CSV_BYTES} bytes")
    try:
        with path.open(newline="", encoding="utf-8") as handle:
            reader = csv.DictReader(handle)
            rows = list(reader)
            header = tuple(reader.fieldnames or ())
    except (csv.Error, UnicodeDecodeError) as error:
        raise ResultsError(f"{path} is not readable CSV ({error})") from None
    if header != COLUMNS or any(None in row or None in row.values() for row in rows):
        raise ResultsError(f"{path} does not have the columns {', '.join(COLUMNS)}")
    return rows


def medians(rows: Iterable[Row]) -> dict[tuple[str, str, str, str], tuple[float, int]]:
    """(chapter, figure, device class, size profile) -> (median, how many) of counted rows."""
    values: dict[tuple[str, str, str, str], list[float]] = {}
    for row in rows:
        if row["flag"] in COUNTED and row["figure"]:
            key = (row["chapter"], row["figure"], device_class(row), row["size_profile"])
            values.setdefault(key, []).append(float(row["value"]))
    return {key: (statistics.median(found), len(found)) for key, found in values.items()}
