"""The words of chapter 07's rate grid (:mod:`.rate_grid`): where the rates sit, how many
requests each gets, and which part of a run is counted."""

from __future__ import annotations

from servelab.bench.middle import MIDDLE_LEAST, MIDDLE_TRIM
from servelab.lessons.plural import plural_s
from servelab.lessons.throughput_vs_latency.rate_grid import TOP_WITHOUT_MODEL, RateGrid


def _listed(items: list[str]) -> str:
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


def grid_text(grid: RateGrid) -> str:
    """The rates, the requests and the steady middle, before the sweep."""
    percents = _listed([f"{p}%" for p in grid.percents])
    rates = _listed([f"{rate:g}" for rate in grid.placed])
    runs = f"{grid.repeats} run{plural_s(grid.repeats)}"
    nearest = min(abs(p - 100) for p in grid.percents)
    text = (f"**The sweep sends {grid.requests} requests a run, {runs} a rate "
            f"({grid.per_rate} requests at each rate; a run needs {MIDDLE_LEAST} for a steady "
            f"middle).** Its rates sit at {percents} of the "
            f"small cap's predicted {grid.small_knee:.2f} req/s ({rates} req/s): a prediction "
            f"off by more than {nearest}% would show at the rates beside it, which would queue "
            "below the knee or keep up above it. ")
    if grid.top_from_model and grid.large_knee is not None:
        text += (f"The top rate, {grid.top:g} req/s, is {grid.top_percent}% of the knee this "
                 f"device's model predicts for the large cap's {grid.large_slots} slots "
                 f"({grid.large_knee:.2f} req/s), so both caps run out of slots there. ")
    else:
        text += (f"The model predicts no knee for the large cap above those rates, so the top "
                 f"rate, {grid.top:g} req/s, is {TOP_WITHOUT_MODEL:g}× the highest of them; "
                 "whether the large cap runs out of slots there, its runs tell. ")
    return text + (
        f"A run's first and last {MIDDLE_TRIM:.0%} ({grid.trimmed} requests at each end) are "
        "left out: there the slots are still filling or the queue is draining with nothing "
        "more coming. Every figure of the sweep is its steady middle, the requests sent in the "
        "middle of the arrivals (their first tokens, time per token and share within the SLO) "
        "and the middle of the completions (the rate they finished at). At the top rate the "
        f"left-out first requests arrive within about {grid.trim_s(grid.top):.1f} s, at the "
        f"lowest within {grid.trim_s(grid.rates[0]):.1f} s.")
