"""A record's wall-time split as class-results rows, and the report's table of it beside the GPU
contract's estimate of a T4.

Each part of a record's ``wall_time`` (schema 3) is a row whose figure starts :data:`WALL`: the
install cell, the measurement, how many servers started, and over those starts their wall time
and what vLLM logged of compiling, capturing CUDA graphs and initialising its engine. A part
that is negative or longer than :data:`LONGEST_S` is flagged ``implausible`` in its own row; a
record without a split (schema 1 or 2) gets one row flagged ``no wall time``.

The class report (``autograder.class_report``) shows the parts by device class beside the
estimate: ``autograder/t4-estimate.json``, which ``env/gpu_contract/t4_estimate.py``
writes from the contract's own functions (``t4_count``, ``t4_wait``), so the autograder reads the
contract's numbers without importing its environment.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from servelab.results import Record

WALL = "wall time: "
ESTIMATE_JSON = Path(__file__).with_name("t4-estimate.json")
LONGEST_S = 86_400.0  # a day: no part of one chapter's run comes near it
# The parts, in the report's order: (name, unit, what the contract estimates for it).
PARTS: tuple[tuple[str, str, str], ...] = (
    ("install", "s", "install"),
    ("measurement", "s", "measure"),
    ("server starts", "count", "server_starts"),
    ("starts", "s", "start"),
    ("compile", "s", "compile"),
    ("graph capture", "s", "graphs"),
    ("engine init", "s", ""),
)
PER_START = frozenset({"starts", "compile", "graph capture", "engine init"})
NO_SPLIT = "no wall time"
WALL_HEADER = (
    "device · sizes",
    "part",
    "notebooks",
    "median measured",
    "median a start (s)",
    "contract, Colab T4",
    "contract, Kaggle 2xT4",
)

Row = dict[str, str]  # a class-results row (``autograder.class_results``)
Make = Callable[[str, str, float | None], Row]  # (flag, figure, value) -> the row


def figure_name(part: str, unit: str) -> str:
    return f"{WALL}{part} ({unit})"


def _total(values: Iterable[float | None]) -> float | None:
    logged = [value for value in values if value is not None]
    return sum(logged) if logged else None


def parts(record: Record) -> dict[str, float | None]:
    """The split's parts by name; a time nothing logged is ``None`` (no row)."""
    split = record.wall_time
    if split is None:
        return {}
    starts = split.starts
    return {
        "install": split.install_s,
        "measurement": split.measure_s,
        "server starts": float(len(starts)),
        "starts": _total(s.wall_s for s in starts),
        "compile": _total(s.compile_s for s in starts),
        "graph capture": _total(s.graphs_s for s in starts),
        "engine init": _total(s.engine_s for s in starts),
    }


def _doubt(part: str, value: float) -> str | None:
    if value < 0:
        return f"{part} is negative ({value:.3g} s)"
    if value > LONGEST_S:
        return f"{part} is {value:.3g} s, longer than a day"
    return None


def wall_rows(record: Record, whole: list[str], make: Make) -> list[Row]:
    """The split's rows of ``record``; ``whole``: the doubts about the whole record."""
    if record.wall_time is None:
        return [make(f"{NO_SPLIT}: a schema {record.schema_version} record", f"{WALL}split", None)]
    rows, found = [], parts(record)
    for part, unit, _ in PARTS:
        value = found.get(part)
        if value is None:
            continue
        reasons = [*whole, *filter(None, [_doubt(part, value)])]
        flag = (
            f"implausible: {'; '.join(reasons)}"
            if reasons
            else "smoke size"
            if record.size_profile == "smoke"
            else "none"
        )
        rows.append(make(flag, figure_name(part, unit), value))
    return rows


def read_estimate(path: Path = ESTIMATE_JSON) -> dict[str, Any]:
    """The contract's estimate; empty where the file is missing or not the generator's."""
    try:
        found = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return found if isinstance(found, dict) else {}


def span(estimate: Mapping[str, Any], chapter: str, platform: str, key: str) -> str:
    if not key:
        return ""
    per_start = estimate.get("per_start", {}).get(key)
    if per_start:
        (low, high), unit = per_start["value"], per_start["unit"]
    else:
        found = estimate.get("chapters", {}).get(chapter, {}).get(platform, {}).get(key)
        if not found:
            return ""
        (low, high), unit = found, estimate.get("units", {}).get(key, "s")
    return f"{low:.3g} {unit}" if low == high else f"{low:.3g}-{high:.3g} {unit}"
