"""Alt text read off made-up figures, the one-output notebook display, and keys kept off the
data (servelab.plots.alt, servelab.plots.legend_below). No engine, no kernel."""

from __future__ import annotations

import matplotlib
import matplotlib.pyplot as plt
import pandas as pd
import pytest

from servelab import plots
from servelab.plots import alt
from servelab.plots.block_table import Holder, plot_block_table

matplotlib.use("Agg")


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def two_panels() -> plt.Figure:
    fig, (left, right) = plt.subplots(1, 2, layout="constrained")
    left.plot([1, 2, 4, 8], [30, 55, 90, 150], "o-", label="steady state")
    left.plot([1, 2, 4, 8], [28, 50, 80, 140], "s--", label="whole run")
    left.set_xscale("log", base=2)
    left.set_xlabel("concurrent users")
    left.set_ylabel("aggregate output (tokens/s)")
    right.bar(["one server", "two copies"], [40, 70])
    right.axhline(50, label="budget (50 ms)")
    right.set_ylabel("time per output token (ms)")
    right.set_title("per token")
    fig.suptitle("8 users: 5x the total of one")
    return fig


def test_alt_text_names_the_finding_each_panel_its_axes_and_series() -> None:
    text = alt.describe(two_panels())
    assert text.startswith("8 users: 5x the total of one. Left panel: lines; ")
    assert "x axis concurrent users on a log scale; y axis aggregate output (tokens/s)." in text
    assert "Series: steady state; whole run." in text
    # A bar chart names its bars; a line across the axes is a reference, not a data series.
    assert (
        "Right panel, per token: bars; x axis one server, two copies; "
        "y axis time per output token (ms). Series: budget (50 ms)."
    ) in text


def test_a_lone_panel_takes_its_title_as_the_heading_and_a_twin_axis_joins_it() -> None:
    fig, ax = plt.subplots()
    ax.plot([0, 1, 2], [0, 20, 40], label="KV cache used")
    ax.set(xlabel="time (s)", ylabel="KV cache used (%)", title="Usage climbs to 40%")
    twin = ax.twinx()
    twin.step([0, 1, 2], [0, 3, 3], label="running")
    twin.set_ylabel("requests")
    assert alt.describe(fig) == (
        "Usage climbs to 40%. Lines; x axis time (s); y axis KV cache used (%); right axis "
        "requests. Series: KV cache used; running."
    )


def test_series_every_panel_draws_are_named_once_in_the_key() -> None:
    fig, axes = plt.subplots(2, 1, sharex=True)
    for ax, name in zip(axes, ("one step", "in slices"), strict=True):
        ax.scatter([0, 1], [5, 6], label="a user's token gap")
        ax.set(title=name, ylabel="gap (ms)")
    axes[1].set_xlabel("time (s)")
    plots.legend_below(fig)
    text = alt.describe(fig)
    assert text.count("a user's token gap") == 1
    assert text.endswith("Key: a user's token gap.")
    assert "Top panel, one step: points; y axis gap (ms)." in text


def test_html_carries_the_alt_escaped_and_one_copy_of_the_image() -> None:
    fig, ax = plt.subplots()
    ax.plot([0, 1, 2], [1, 2, 3])
    ax.set(xlabel="x (s)", ylabel="y (ms)", title='The "fast" path is <2x slower')
    page = alt.figure_html(fig, "QUJD", {"width": 440.0, "height": 220})
    assert page == (
        '<img src="data:image/png;base64,QUJD" alt="The &quot;fast&quot; path is '
        '&lt;2x slower. Lines; x axis x (s); y axis y (ms)." width="440" '
        'height="220"/>'
    )


def test_a_notebook_shows_a_figure_as_one_html_output_with_its_alt(monkeypatch) -> None:
    import IPython
    import IPython.display

    class NoPngFormatter:
        def lookup(self, obj):
            raise KeyError(obj)

    class Shell:
        class display_formatter:  # noqa: N801 - IPython's attribute name
            formatters = {"image/png": NoPngFormatter()}

    shown = []
    monkeypatch.setattr(IPython, "get_ipython", lambda: Shell)
    monkeypatch.setattr(IPython.display, "display", lambda bundle, raw: shown.append((bundle, raw)))
    fig = two_panels()
    alt.show(fig)
    ((bundle, raw),) = shown
    assert raw and set(bundle) == {"text/html", "text/plain"}  # no second, image/png copy
    assert bundle["text/plain"] == alt.describe(fig)
    assert bundle["text/html"].startswith('<img src="data:image/png;base64,iVBOR')
    assert 'alt="8 users: 5x the total of one. Left panel' in bundle["text/html"]


def test_outside_a_kernel_nothing_is_registered() -> None:
    assert alt.register() is False


def below_every_axes(fig: plt.Figure) -> bool:
    """The figure has one key, no axes has its own, and the key lies under every axes."""
    fig.canvas.draw()
    (key,) = fig.legends
    top = key.get_window_extent().y1
    return all(ax.get_legend() is None and ax.get_tightbbox().y0 >= top for ax in fig.axes)


def test_keys_sit_below_the_data() -> None:
    sweep = pd.DataFrame(
        {
            "concurrency": [1, 2, 4],
            "output_tok_s": [30, 55, 90],
            "steady_output_tok_s": [31, 60, 100],
            "user_tok_s": [30, 27, 22],
        }
    )
    rows = pd.DataFrame(
        {"sent_s": [0.0, 1.0, 2.0], "ok": [True, False, True], "latency_s": [1.0, 0.0, 1.2]}
    )
    spread = pd.DataFrame({"replica 0": [3, 1], "replica 1": [1, 3]}, index=[0, 1])
    figures = [
        plots.concurrency_curves(sweep),
        plots.step_time_fit([1, 2, 4], [40.7, 41.4, 42.8], 40.0, 0.7, weight_read_ms=12.0),
        plots.failure_timeline(rows, killed_s=0.5, noticed_s=1.5),
        plots.tenant_spread({"round robin": (spread, spread), "cache aware": (spread,)}),
        plot_block_table([Holder("a", 300, 200), Holder("b", 250, 200)], 16, title="t"),
    ]
    for fig in figures:
        assert below_every_axes(fig), alt.describe(fig)


def test_a_figure_of_ones_own_gets_the_key_below_too() -> None:
    fig, ax = plt.subplots()  # no layout engine: legend_below switches it on
    ax.bar([0, 1], [3, 4], label="caching on")
    plots.legend_below(fig)
    assert below_every_axes(fig)
    empty, _ = plt.subplots()
    plots.legend_below(empty)
    assert empty.legends == []
