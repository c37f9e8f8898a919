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
    two = Result(workload=None, records=[_record(i, 0.0, [0.1], ttft=0.2 * i + 0.1)
                                         for i in range(3)], duration_s=1)
    figure = plots.request_timeline({"a": one, "b": two}, title="both")
    assert [ax.get_title(loc="left") for ax in figure.axes] == ["a", "b"]
    assert figure.axes[0].get_shared_x_axes().joined(figure.axes[0], figure.axes[1])
    matplotlib.pyplot.close(figure)
