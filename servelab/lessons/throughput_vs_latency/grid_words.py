"""The words of chapter 07's rate grid (:mod:`.rate_grid`): where the rates sit, how many
requests each gets, and which part of a run is counted."""

from __future__ import annotations

from servelab.bench.middle import MIDDLE_LEAST, MIDDLE_TRIM
from servelab.lessons.fold import fold
from servelab.lessons.plural import plural_s
from servelab.lessons.throughput_vs_latency.rate_grid import TOP_WITHOUT_MODEL, RateGrid


def _listed(items: list[str]) -> str:
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


def grid_text(grid: RateGrid) -> str:
    """The rates, the requests and the steady middle, before the sweep."""
    percents = _listed([f"{p}%" for p in grid.percents])
    rates = _listed([f"{rate:g}" for rate in grid.placed])
    runs = f"{grid.repeats} run{plural_s(grid.repeats)}"
    nearest = grid.nearest_percent_off
    lead = (
        f"**The sweep's rates sit at {percents} of the small cap's predicted "
        f"{grid.small_knee:.2f} req/s** ({rates} req/s). A prediction off by more than "
        f"{nearest}% would show at the rates beside it: they would queue below the knee or "
        f"keep up above it. The sweep sends {grid.requests} requests a run, {runs} a rate "
        f"({grid.per_rate} requests at each rate)."
    )
    if grid.top_from_model and grid.large_knee is not None:
        top = (
            f"The top rate, {grid.top:g} req/s, is {grid.top_percent}% of the knee this "
            f"device's model predicts for the large cap's {grid.large_slots} slots "
            f"({grid.large_knee:.2f} req/s). So both caps run out of slots there."
        )
    else:
        top = (
            f"The model predicts no knee for the large cap above those rates. So the top "
            f"rate, {grid.top:g} req/s, is {TOP_WITHOUT_MODEL:g}× the highest of them. "
            "Whether the large cap runs out of slots there, its runs tell."
        )
    return lead + fold(
        f"{top} A run's first and last {MIDDLE_TRIM:.0%} ({grid.trimmed} requests at each end) "
        "are left out: there the slots are still filling or the queue is draining with nothing "
        f"more coming. A run needs {MIDDLE_LEAST} requests for a steady middle. Every figure of "
        "the sweep is its steady middle. That is the requests sent in the middle of the "
        "arrivals (their first tokens, time per token and share within the SLO), and the middle "
        "of the completions (the rate they finished at). At the top rate the left-out first "
        f"requests arrive within about {grid.trim_s(grid.top):.1f} s, at the lowest within "
        f"{grid.trim_s(grid.rates[0]):.1f} s.",
        "The top rate, and which part of a run counts",
    )
