"""servelab.plots (the package's own figures): the request timeline over several runs."""

from __future__ import annotations

import matplotlib
import matplotlib.pyplot

from servelab import plots
from servelab.bench.frames import Result
from tests.support import record as _record

matplotlib.use("Agg")


def test_request_timeline_draws_one_panel_per_engine():
    one = Result(workload=None, records=[_record(0, 0.0, [0.1, 0.1], ttft=0.2)], duration_s=1)
    two = Result(
        workload=None,
        records=[_record(i, 0.0, [0.1], ttft=0.2 * i + 0.1) for i in range(3)],
        duration_s=1,
    )
    figure = plots.request_timeline({"a": one, "b": two}, title="both")
    assert [ax.get_title(loc="left") for ax in figure.axes] == ["a", "b"]
    assert figure.axes[0].get_shared_x_axes().joined(figure.axes[0], figure.axes[1])
    matplotlib.pyplot.close(figure)


def test_two_runs_steady_windows_are_lines_not_bands_that_cover_each_other():
    """Issue #65: chapter 02's two shaded windows overlapped; each is now its dashed line."""
    runs = {
        name: Result(
            workload=None,
            records=[_record(i, 0.0, [0.1] * 20, ttft=0.2 + i / 10) for i in range(users)],
            duration_s=3,
        )
        for name, users in (("1 user", 1), ("4 users", 4))
    }
    figure = plots.throughput_over_time(runs, title="t")
    (ax,) = figure.axes
    assert not [patch for patch in ax.patches if patch.get_alpha()]  # no translucent band
    assert len(ax.collections) == 2  # one dashed steady line a run
    matplotlib.pyplot.close(figure)


def test_token_gaps_that_arrived_together_are_left_off_the_log_axis_and_counted():
    """Issue #65: gaps of about 0.1 ms (tokens read together) stretched chapter 06's log axis."""
    together = Result(
        workload=None,
        duration_s=2,
        records=[
            _record(0, 0.0, [0.05, 0.0001, 0.05, 0.0002], ttft=0.2),
            _record(1, 0.5, [0.2], ttft=0.1, role="interferer"),
        ],
    )
    figure = plots.itl_over_time(together)
    (ax,) = figure.axes
    (dots,) = [c for c in ax.collections if c.get_label().startswith("a user's token gap")]
    assert len(dots.get_offsets()) == 2 and min(dots.get_offsets()[:, 1]) >= 1.0
    assert "2 under 1 ms" in dots.get_label()
    matplotlib.pyplot.close(figure)
