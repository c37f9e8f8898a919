"""OUT/class-report.html: what the class measured, drawn once per class from the result rows.

One section per chapter: how many notebooks held a record, how many were flagged or had none,
and each main figure by device class and size profile (one dot per notebook, the median marked,
the lesson's own figure drawn where the chapter has one), then the device model's predictions
the chapter checked, by device class: the medians predicted and measured, and how many fell
inside the runs' range, close, off or could not be placed. The page is static: plots are PNG data
URIs, every string from a record is escaped, and a Content-Security-Policy forbids scripts and
anything fetched from elsewhere, so a hostile record can neither run nor load anything.
"""

from __future__ import annotations

import base64
import html
import io
import statistics
import textwrap
from collections import Counter
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from autograder.class_results import COUNTED, PREDICTION, Row, device_class  # noqa: E402
from autograder.wall_time import (  # noqa: E402
    PARTS,
    PER_START,
    WALL,
    WALL_HEADER,
    figure_name,
    read_estimate,
    span,
)
from servelab.book import CHAPTERS  # noqa: E402
from servelab.lessons.batching.findings import LESSON_GPU  # noqa: E402
from servelab.lessons.continuous_batching.chapter import CHAPTER as CONTINUOUS_BATCHING  # noqa: E402
from servelab.lessons.device_model.foretold import Foretold  # noqa: E402
from servelab.lessons.serving_many_users.chapter import CHAPTER as OVERVIEW  # noqa: E402
from servelab.plots import COLORS, SERIES_COLORS, style  # noqa: E402
from servelab.results import FIGURES  # noqa: E402

REPORT_HTML = "class-report.html"
# chapter -> the figures its section plots: the effect each chapter is about.
MAIN_FIGURES: dict[str, tuple[str, ...]] = {
    chapter.id: chapter.main_figures for chapter in CHAPTERS
}
# (chapter, figure) -> the lesson's own value, from the modules its pages compare with.
LESSON_FIGURES: dict[tuple[str, str], float] = {
    (OVERVIEW.id, "batching_gain"): LESSON_GPU.gain,
    (OVERVIEW.id, "share_kept"): LESSON_GPU.kept,
    (CONTINUOUS_BATCHING.id, "batching_gain"): LESSON_GPU.gain,
}
LABEL_CHARACTERS = 40  # of a device class on an axis; the tables show it whole
PAGE_STYLE = (
    "body{font-family:sans-serif;max-width:60em;margin:2em auto;color:#222}"
    "table{border-collapse:collapse;margin:1em 0}"
    "td,th{border:1px solid #ccc;padding:.2em .6em;text-align:left}"
    "img{max-width:100%}"
)
POLICY = "default-src 'none'; img-src data:; style-src 'unsafe-inline'"


def _group(row: Row) -> tuple[str, str]:
    return device_class(row), row["size_profile"]


def _label(group: tuple[str, str]) -> str:
    """A group on an axis or in a title: a long device name cut, its size profile kept."""
    device, sizes = group
    short = device if len(device) <= LABEL_CHARACTERS else device[: LABEL_CHARACTERS - 1] + "…"
    return f"{short} · {sizes}"


def _title(figure: str, groups: dict[tuple[str, str], list[float]], lesson: float | None) -> str:
    """The finding: where the medians lie, beside the lesson's figure."""
    found = {group: statistics.median(values) for group, values in groups.items()}
    low, high = min(found, key=found.__getitem__), max(found, key=found.__getitem__)
    finding = (
        f"median {found[low]:.3g} on {_label(low)}"
        if len(found) == 1
        else f"median {found[low]:.3g} in every group"
        if found[low] == found[high]
        else f"median from {found[low]:.3g} on {_label(low)} to {found[high]:.3g} on {_label(high)}"
    )
    besides = f" (the lesson's GPU: {lesson:.3g})" if lesson is not None else ""
    return textwrap.fill(f"{figure}: {finding}{besides}", 64)


def _plot(chapter: str, figure: str, groups: dict[tuple[str, str], list[float]]) -> str:
    """One figure of a chapter by group, as a PNG data URI."""
    lesson = LESSON_FIGURES.get((chapter, figure))
    description = FIGURES[chapter][figure].description
    names = sorted(groups)
    with style(), plt.rc_context({"text.parse_math": False}):
        fig, ax = plt.subplots(figsize=(8.0, 1.6 + 0.45 * len(names)))
        for y, (name, color) in enumerate(zip(names, SERIES_COLORS * len(names), strict=False)):
            values = groups[name]
            ax.plot(values, [y] * len(values), "o", color=color, alpha=0.7)
            ax.plot(
                [statistics.median(values)] * 2,
                [y - 0.3, y + 0.3],
                "-",
                color="black",
                linewidth=2,
                label="median" if y == 0 else None,
            )
        if lesson is not None:
            ax.axvline(
                lesson,
                color=COLORS["marker"],
                linestyle="--",
                label=f"the lesson's GPU ({lesson:.3g})",
            )
        ax.set_yticks(range(len(names)), [_label(name) for name in names])
        ax.set_ylim(-0.6, len(names) - 0.4)
        ax.set_xlabel(textwrap.fill(description, 70))
        ax.set_ylabel("device · sizes")
        ax.legend(fontsize=8, loc="best")
        fig.suptitle(_title(figure, groups, lesson), fontweight="bold")
        fig.tight_layout()
        buffer = io.BytesIO()
        fig.savefig(buffer, format="png", metadata={"Software": None})
        plt.close(fig)
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


def _table(header: Iterable[str], rows: Iterable[Iterable[object]]) -> str:
    head = "".join(f"<th>{html.escape(str(cell))}</th>" for cell in header)
    body = "".join(
        "<tr>" + "".join(f"<td>{html.escape(str(cell))}</td>" for cell in row) + "</tr>"
        for row in rows
    )
    return f"<table><tr>{head}</tr>{body}</table>"


def _notebooks(rows: list[Row]) -> dict[tuple[str, str], set[str]]:
    """(student, chapter) -> the kinds of flag its rows carry (none, smoke size, implausible…)."""
    kinds: dict[tuple[str, str], set[str]] = {}
    for row in rows:
        kinds.setdefault((row["student"], row["chapter"]), set()).add(row["flag"].split(":")[0])
    return kinds


def _device_mix(rows: list[Row]) -> str:
    """Notebooks per device class, size profile and engine, flagged or not."""
    mix: dict[tuple[str, str, str], set[tuple[str, str]]] = {}
    for row in rows:
        if row["device_kind"]:
            key = (device_class(row), row["size_profile"], row["engine"])
            mix.setdefault(key, set()).add((row["student"], row["chapter"]))
    return _table(
        ("device", "sizes", "engine", "notebooks"),
        (key + (len(notebooks),) for key, notebooks in sorted(mix.items())),
    )


def _predictions(counted: list[Row]) -> str:
    """The chapter's checked predictions by device class, sizes and what was predicted; empty
    where no record carried one."""
    found: dict[tuple[str, str, str], list[Row]] = {}
    for row in counted:
        if row["figure"].startswith(PREDICTION):
            found.setdefault((*_group(row), row["figure"].removeprefix(PREDICTION)), []).append(row)
    if not found:
        return ""
    verdicts = list(Foretold)
    table = _table(
        (
            "device · sizes",
            "prediction",
            "notebooks",
            "median predicted",
            "median measured",
            *(verdict.value for verdict in verdicts),
        ),
        (
            (
                _label((device, sizes)),
                what,
                len(group),
                f"{statistics.median(float(row['predicted']) for row in group):.3g}",
                f"{statistics.median(float(row['value']) for row in group):.3g}",
                *(sum(row["foretold"] == verdict.name for row in group) for verdict in verdicts),
            )
            for (device, sizes, what), group in sorted(found.items())
        ),
    )
    return (
        "<h3>The device model's predictions</h3><p>Each chapter predicted these from the "
        "model its device kept before it measured them; the medians are over notebooks.</p>" + table
    )


def _wall_lines(
    chapter: str, counted: list[Row], estimate: Mapping[str, Any]
) -> list[tuple[str, ...]]:
    """One line per device class, sizes and part: notebooks, the median measured, the median a
    start, and the contract's estimate on Colab and on Kaggle."""
    groups: dict[tuple[str, str, str], list[float]] = {}
    for row in counted:
        if row["figure"].startswith(WALL):
            groups.setdefault((device_class(row), row["size_profile"], row["figure"]), []).append(
                float(row["value"])
            )
    lines: list[tuple[str, ...]] = []
    for device, sizes in sorted({group[:2] for group in groups}):
        starts = statistics.median(
            groups.get((device, sizes, figure_name("server starts", "count")), [0.0])
        )
        for part, unit, key in PARTS:
            values = groups.get((device, sizes, figure_name(part, unit)))
            if not values:
                continue
            median = statistics.median(values)
            each = f"{median / starts:.3g}" if part in PER_START and starts else ""
            lines.append(
                (
                    f"{device} · {sizes}",
                    part,
                    str(len(values)),
                    f"{median:.3g} {unit}",
                    each,
                    span(estimate, chapter, "colab", key),
                    span(estimate, chapter, "kaggle", key),
                )
            )
    return lines


def _wall_time(chapter: str, counted: list[Row]) -> str:
    """Where the chapter's wall time went, by device class, beside the GPU contract's estimate
    of a T4; empty where no record carried a split."""
    lines = _wall_lines(chapter, counted, read_estimate())
    if not lines:
        return ""
    return (
        "<h3>Where the wall time went</h3><p>Medians over notebooks of each part of the "
        "records' wall-time split (the install cell, the measurement, and over the server "
        "starts what vLLM logged), beside the GPU contract's estimate for a fresh T4 "
        "runtime: the chapter's install and measurement; a start's fixed part with a warm "
        "or a cold compile; its graph capture, a graph.</p>" + _table(WALL_HEADER, lines)
    )


def _section(chapter: str, rows: list[Row]) -> str:
    kinds = _notebooks(rows)
    counts = Counter(kind for found in kinds.values() for kind in found)
    recorded = sum(1 for found in kinds.values() if found & {*COUNTED, "implausible"})
    parts = [
        f"<section><h2>{html.escape(chapter)}</h2>",
        _table(
            ("notebooks", "with a record", "smoke size", "implausible", "malformed", "missing"),
            [
                (
                    len(kinds),
                    recorded,
                    counts["smoke size"],
                    counts["implausible"],
                    counts["malformed"],
                    counts["missing"],
                )
            ],
        ),
    ]
    counted = [row for row in rows if row["flag"] in COUNTED and row["figure"]]
    for figure in MAIN_FIGURES.get(chapter, ()):
        groups: dict[tuple[str, str], list[float]] = {}
        for row in counted:
            if row["figure"] == figure:
                groups.setdefault(_group(row), []).append(float(row["value"]))
        if groups:
            parts.append(
                f'<p><img alt="{html.escape(figure)} by device and sizes" '
                f'src="{_plot(chapter, figure, groups)}"></p>'
            )
        else:
            parts.append(f"<p>No unflagged record measured {html.escape(figure)}.</p>")
    return "".join(parts) + _predictions(counted) + _wall_time(chapter, counted) + "</section>"


def render_report(rows: list[Row]) -> str:
    """The whole page, from the class-results rows alone."""
    chapters = sorted({row["chapter"] for row in rows})
    sections = "".join(
        _section(chapter, [r for r in rows if r["chapter"] == chapter]) for chapter in chapters
    )
    summary = (
        "<p>Every figure comes from a result record in a submitted notebook: evidence "
        "of what the student measured, not proof (a record can be edited). Records never "
        "change a grade. Each row's flag, and why, is in class-results.csv.</p>"
    )
    return (
        '<!DOCTYPE html><html><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{POLICY}">'
        f"<title>Class results</title><style>{PAGE_STYLE}</style></head><body>"
        f"<h1>Class results</h1>{summary}<h2>Device mix</h2>{_device_mix(rows)}"
        f"{sections or '<p>No notebook of a chapter that records figures.</p>'}"
        "</body></html>\n"
    )


def write_report(path: Path, rows: list[Row]) -> None:
    path.write_text(render_report(rows), encoding="utf-8")
