"""An open-loop run's middle: its figures with the first and last tenth of it left out.

Requests that arrive at a fixed rate meet an empty server first (no queue, every slot free) and,
once the last has arrived, a server draining with nothing more coming. Neither is the traffic a
plan is about, so the middle counts without them:

- ``request_per_s_mid``: requests finished a second from the finish of the first tenth of the
  completed requests to that of the last tenth (``MIDDLE_TRIM`` of them left out at each end).
  Above what a server can finish this is its rate with every slot busy; below it, the arrivals';
- ``slo_attainment_mid``: the share of the requests *sent* in the middle of the arrivals (the
  first and last ``MIDDLE_TRIM`` of the sends left out) that completed within every SLO, and
  ``slo_attainment_mid_<name>`` within that one SLO alone, which says which target binds.

With fewer than ``MIDDLE_LEAST`` requests a run has no middle worth the name: NaN.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from servelab.bench.client import RequestRecord
from servelab.bench.metrics import meets_slo

MIDDLE_TRIM = 0.1  # the share of a run left out at each end
MIDDLE_LEAST = 20  # the fewest requests a run needs for a middle
REQUEST_PER_S_MID = "request_per_s_mid"
SLO_ATTAINMENT_MID = "slo_attainment_mid"


def trimmed(count: int) -> int:
    """How many of a run's ``count`` requests are left out at each end."""
    return math.floor(count * MIDDLE_TRIM)


def _middle(count: int) -> slice:
    cut = trimmed(count)
    return slice(cut, count - cut)


def finished_mid(records: list[RequestRecord]) -> float:
    """Requests finished a second in the middle of the completions (NaN: too few)."""
    ends = sorted(r.end for r in records if r.ok)
    if len(ends) < MIDDLE_LEAST:
        return math.nan
    mid = ends[_middle(len(ends))]
    return (len(mid) - 1) / (mid[-1] - mid[0]) if mid[-1] > mid[0] else math.nan


def attainment_mid(records: list[RequestRecord], slo: Mapping[str, float]) -> dict[str, float]:
    """``slo_attainment_mid``, and ``slo_attainment_mid_<name>`` for each SLO, over the requests
    sent in the middle of the arrivals; a request that failed meets none (NaN: too few, or no
    SLO)."""
    sent = sorted((r for r in records if not math.isnan(r.sent)), key=lambda r: r.sent)
    names = [SLO_ATTAINMENT_MID, *(f"{SLO_ATTAINMENT_MID}_{name}" for name in slo)]
    if len(sent) < MIDDLE_LEAST or not slo:
        return dict.fromkeys(names, math.nan)
    middle = sent[_middle(len(sent))]
    row = {SLO_ATTAINMENT_MID: sum(r.ok and meets_slo(r, slo) for r in middle) / len(middle)}
    for name, limit in slo.items():
        met = sum(r.ok and meets_slo(r, {name: limit}) for r in middle)
        row[f"{SLO_ATTAINMENT_MID}_{name}"] = met / len(middle)
    return row


def middle(records: list[RequestRecord], slo: Mapping[str, float] | None) -> dict[str, float]:
    """Both middle figures of a run's requests, as its summary holds them."""
    return {REQUEST_PER_S_MID: finished_mid(records), **attainment_mid(records, slo or {})}


def sent_mid(records: list[RequestRecord]) -> list[RequestRecord]:
    """The requests sent in the middle of the arrivals (the first and last ``MIDDLE_TRIM`` of
    the sends left out), in the order sent; none where fewer than ``MIDDLE_LEAST`` were sent."""
    sent = sorted((r for r in records if not math.isnan(r.sent)), key=lambda r: r.sent)
    return sent[_middle(len(sent))] if len(sent) >= MIDDLE_LEAST else []
