"""Alt text for a figure, read off the figure, and a notebook display that puts it on the page.

myst-nb keeps only width and height from an image output's metadata, so an image/png output
reaches the built page with no alt text. A figure is therefore shown as a single text/html output:
an ``<img>`` holding the PNG inline, with the figure's description as its alt. It is one copy of
the image, as before, and Jupyter, Colab and the built book all show it.
"""

from __future__ import annotations

import html
from collections.abc import Iterable

import matplotlib
import matplotlib.pyplot as plt
from matplotlib.axes import Axes
from matplotlib.axis import Axis
from matplotlib.collections import PathCollection
from matplotlib.container import BarContainer
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.ticker import LogFormatter, ScalarFormatter

INLINE_BACKENDS = ("inline", "module://matplotlib_inline.backend_inline")
MAX_CATEGORIES = 8


def _unique(texts: Iterable[str]) -> list[str]:
    """Non-empty texts in order, each once; matplotlib's hidden labels start with '_'."""
    return list(dict.fromkeys(t.strip() for t in texts if t.strip() and not t.startswith("_")))


def _categories(axis: Axis) -> list[str]:
    """The tick labels of an axis that names things (bars for 'request 1', ...), else []."""
    if isinstance(axis.get_major_formatter(), ScalarFormatter | LogFormatter):
        return []
    labels = _unique(label.get_text() for label in axis.get_ticklabels())
    if all(is_number(label) for label in labels):
        return []
    return labels


def is_number(text: str) -> bool:
    if text.startswith("$"):  # mathtext, as on a log axis: 10^2
        return True
    try:
        float(text.replace("−", "-").replace(",", ""))
    except ValueError:
        return False
    return True


def _axis_text(axis: Axis, label: str) -> str:
    categories = _categories(axis)
    if categories:
        shown = ", ".join(categories[:MAX_CATEGORIES])
        more = len(categories) - MAX_CATEGORIES
        named = shown + (f" and {more} more" if more > 0 else "")
        return f"{label}: {named}" if label else named
    if not label:
        return ""
    return label + (" on a log scale" if axis.get_scale() == "log" else "")


def _marks(axes: list[Axes]) -> str:
    """What the panel draws: bars, points, lines (several when it mixes them). Reference lines
    across the axes (axhline, axvline) are not data and count as none."""
    kinds = []
    for ax in axes:
        if any(isinstance(c, BarContainer) for c in ax.containers):
            kinds.append("bars")
        data_lines = [line for line in ax.lines if line.get_transform() is ax.transData]
        if any(isinstance(c, PathCollection) for c in ax.collections) or any(
            _is_markers(line) for line in data_lines
        ):
            kinds.append("points")
        if any(not _is_markers(line) for line in data_lines):
            kinds.append("lines")
    return " and ".join(_unique(kinds)) or "a diagram"


def _is_markers(line: Line2D) -> bool:
    return line.get_linestyle() in ("None", "", " ") and line.get_marker() not in ("None", "")


def _series(axes: list[Axes]) -> list[str]:
    labels = []
    for ax in axes:
        labels += ax.get_legend_handles_labels()[1]
        if (legend := ax.get_legend()) is not None:
            labels += [text.get_text() for text in legend.get_texts()]
    return _unique(labels)


def _title(ax: Axes) -> str:
    return next((t for loc in ("center", "left", "right") if (t := ax.get_title(loc))), "")


def _panels(fig: Figure) -> list[list[Axes]]:
    """Visible axes grouped by the grid cell they fill: a twinx axes joins its host's panel."""
    panels: dict[object, list[Axes]] = {}
    for ax in fig.axes:
        spec = ax.get_subplotspec()
        key = (id(spec.get_gridspec()), spec.num1, spec.num2) if spec else id(ax)
        panels.setdefault(key, []).append(ax)
    return list(panels.values())


def _where(ax: Axes, count: int) -> str:
    """'Left panel', 'Bottom panel', 'Panel 2 of 3 (top to bottom)' for one of ``count``."""
    spec = ax.get_subplotspec()
    if spec is None:
        return "Panel"
    rows, cols = spec.get_gridspec().get_geometry()
    row, col = spec.rowspan.start, spec.colspan.start
    if rows == 1 and count == 2:
        return ("Left", "Right")[col > 0] + " panel"
    if cols == 1 and count == 2:
        return ("Top", "Bottom")[row > 0] + " panel"
    if rows == 1:
        return f"Panel {col + 1} of {cols} (left to right)"
    if cols == 1:
        return f"Panel {row + 1} of {rows} (top to bottom)"
    return f"Panel in row {row + 1}, column {col + 1}"


def _panel_text(axes: list[Axes], count: int, heading: str, shared: set[str]) -> str:
    host = axes[0]
    parts = []
    title = _title(host)
    where = _where(host, count) if count > 1 else ""
    opening = ", ".join(p for p in (where, title if title != heading else "") if p)
    marks = _marks(axes) if host.axison else "a diagram"
    parts.append(f"{opening}: {marks}" if opening else marks.capitalize())
    if host.axison:
        x = _axis_text(host.xaxis, host.get_xlabel())
        y = _axis_text(host.yaxis, host.get_ylabel())
        right = [_axis_text(twin.yaxis, twin.get_ylabel()) for twin in axes[1:]]
        axes_text = [
            f"x axis {x}" if x else "",
            f"y axis {y}" if y else "",
            *(f"right axis {r}" for r in right if r),
        ]
        parts += [t for t in axes_text if t]
    text = "; ".join(parts) + "."
    series = [label for label in _series(axes) if label not in shared]
    if series:
        text += " Series: " + "; ".join(series) + "."
    return text


def describe(fig: Figure) -> str:
    """What a figure shows, for its alt text: the title that states the finding, then each
    panel's marks, its axes as labelled (units and all), and its series; then the figure's key."""
    panels = _panels(fig)
    heading = fig.get_suptitle().strip()
    if not heading and len(panels) == 1:
        heading = _title(panels[0][0])
    series = [_series(axes) for axes in panels]
    # Series that every panel draws are named once, in the key, not once a panel.
    shared = set.intersection(*map(set, series)) if len(panels) > 1 else set()
    texts = [heading.rstrip(".") + "." if heading else ""]
    texts += [_panel_text(axes, len(panels), heading, shared) for axes in panels]
    named = {label for labels in series for label in labels} - shared
    key = [
        label
        for label in _unique(
            [
                *(label for labels in series for label in labels if label in shared),
                *(text.get_text() for legend in fig.legends for text in legend.get_texts()),
            ]
        )
        if label not in named
    ]
    if key:
        texts.append("Key: " + "; ".join(key) + ".")
    return " ".join(t for t in texts if t)


def figure_html(fig: Figure, png_base64: str, size: dict | None = None) -> str:
    """The ``<img>`` a notebook shows for ``fig``: the PNG inline, ``describe(fig)`` as alt."""
    attributes = "".join(
        f' {name}="{int(value)}"'
        for name, value in (size or {}).items()
        if name in ("width", "height")
    )
    alt = html.escape(describe(fig), quote=True)
    return f'<img src="data:image/png;base64,{png_base64}" alt="{alt}"{attributes}/>'


def show(fig: Figure) -> None:
    """Display ``fig`` as one text/html output with its alt text (a plain-text twin for
    consoles), drawn by the PNG formatter the inline backend set up (retina and all).

    Where the inline backend closes figures after each cell (its default), a figure shown is
    closed now: one a cell returns as its last expression is not shown a second time when the
    backend flushes the cell's open figures."""
    from IPython import get_ipython
    from IPython.core.pylabtools import print_figure
    from IPython.display import display

    formatter = get_ipython().display_formatter.formatters["image/png"]
    try:
        png = formatter.lookup(fig)(fig)
    except KeyError:
        png = print_figure(fig, fmt="png", base64=True)
    data, size = png if isinstance(png, tuple) else (png, None)
    display({"text/html": figure_html(fig, data, size), "text/plain": describe(fig)}, raw=True)
    if _closes_after_each_cell():
        plt.close(fig)


def _closes_after_each_cell() -> bool:
    try:
        from matplotlib_inline.config import InlineBackend
    except ImportError:
        return False
    return bool(InlineBackend.instance().close_figures)


def register() -> bool:
    """In an IPython kernel drawing inline, show every Figure through ``show``. The PNG
    formatter stays as the inline backend set it (``show`` uses it); IPython's display formatter
    comes first, so no second copy of the image is published. True when registered."""
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    shell = get_ipython()
    if shell is None or not hasattr(shell, "display_formatter"):
        return False
    if matplotlib.get_backend() not in INLINE_BACKENDS:
        return False
    shell.display_formatter.ipython_display_formatter.for_type(Figure, show)
    return True
