"""Chapter 09's failure run repeated: each run's ``Failure``, the same stream
through a fresh router with the same replica killed at the same moment, the victim started again
between runs, and each figure over the runs. ``failure_words`` reads them.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from servelab.bench.spread import Spread
from servelab.lessons.compare import Compared, compare
from servelab.lessons.past_one_machine.findings import CopiesFindings, RoutingFindings


@dataclass(frozen=True)
class Failure:
    """What users saw when a replica was killed during a run through the router: run-clock
    times (s) of the kill and of the router counting the replica down (NaN: it did not within
    the run), and the requests, split by when they were sent."""

    killed_s: float
    noticed_s: float
    failed_before: int  # sent before the kill and failed (in flight on the dead replica)
    failed_after: int  # sent after the kill and failed
    failed_unnoticed: int  # of those, sent before the router counted the replica down
    sent_before: int
    sent_after: int
    latency_before: Spread | None  # sent to last token (s) of those that succeeded
    latency_after: Spread | None
    errors_after: tuple[str, ...]  # what the requests that failed after the kill reported
    retries: float  # requests the router sent again, to another replica
    health_interval_s: int  # how often the router checked each replica's /health
    health_failures: int  # failed checks in a row before it counted a replica down

    @property
    def failed(self) -> int:
        return self.failed_before + self.failed_after

    @property
    def detection_s(self) -> float:
        return self.noticed_s - self.killed_s

    @property
    def survivors(self) -> Compared | None:
        """How long the answers after the kill took against those before (``LOWER``: quicker),
        apart only when every one on one side took less than every one on the other; None
        where a side had fewer than two answers."""
        before, after = self.latency_before, self.latency_after
        if before is None or after is None or not (before.ranged and after.ranged):
            return None
        return compare(after, before)


@dataclass(frozen=True)
class Survived:
    """How many runs' answers after the kill came ``sooner`` than those before, every one,
    ``later``, every one, or with ``overlapping`` times, of the ``told`` runs that could be
    compared (``Failure.survivors``) out of ``runs``."""

    sooner: int
    later: int
    told: int
    runs: int

    @property
    def overlapping(self) -> int:
        return self.told - self.sooner - self.later

    @property
    def untold(self) -> int:
        """Runs with too few answers on one side of the kill to compare."""
        return self.runs - self.told

    @property
    def all_sooner(self) -> bool:
        return self.sooner == self.runs

    @property
    def all_later(self) -> bool:
        return self.later == self.runs


@dataclass(frozen=True)
class Failures:
    """The failure runs, in the order they ran."""

    runs: tuple[Failure, ...]

    @property
    def repeated(self) -> bool:
        """The stream ran more than once."""
        return len(self.runs) > 1

    @property
    def several_lost_after(self) -> bool:
        """Some run lost more than one request sent after the kill."""
        return self.failed_after.high > 1

    def _over(self, figure: Callable[[Failure], float]) -> Spread:
        return Spread.of(figure(run) for run in self.runs)

    @property
    def failed(self) -> Spread:
        return self._over(lambda run: run.failed)

    @property
    def failed_before(self) -> Spread:
        return self._over(lambda run: run.failed_before)

    @property
    def failed_after(self) -> Spread:
        return self._over(lambda run: run.failed_after)

    @property
    def sent_before(self) -> Spread:
        return self._over(lambda run: run.sent_before)

    @property
    def sent_after(self) -> Spread:
        return self._over(lambda run: run.sent_after)

    @property
    def retries(self) -> Spread:
        return self._over(lambda run: run.retries)

    @property
    def killed_s(self) -> Spread:
        return self._over(lambda run: run.killed_s)

    @property
    def detection_s(self) -> Spread | None:
        """Kill to the router counting the replica down, over the runs in which it did (None:
        in none)."""
        seen = [run.detection_s for run in self.runs if not math.isnan(run.detection_s)]
        return Spread.of(seen) if seen else None

    @property
    def unnoticed_runs(self) -> int:
        """Runs that ended with the router still counting the dead replica healthy."""
        return sum(math.isnan(run.noticed_s) for run in self.runs)

    @property
    def lost_after_runs(self) -> int:
        """Runs in which a request sent after the kill failed."""
        return sum(run.failed_after > 0 for run in self.runs)

    @property
    def lost_after_unnoticed(self) -> bool:
        """Every request lost after the kill, in every run, was sent before the router counted
        the replica down."""
        return all(run.failed_unnoticed == run.failed_after for run in self.runs)

    @property
    def retried_and_lost(self) -> int:
        """Runs in which the router retried requests and yet one sent after the kill failed."""
        return sum(run.retries > 0 and run.failed_after > 0 for run in self.runs)

    @property
    def first_error(self) -> str:
        """What the first request lost after a kill reported (empty: none was lost)."""
        return next((run.errors_after[0] for run in self.runs if run.errors_after), "")

    @property
    def latency_before(self) -> Spread | None:
        """The runs' median time, sent to last token (s), of the answers sent before the kill
        (None: no run had one)."""
        medians = [run.latency_before.median for run in self.runs if run.latency_before]
        return Spread.of(medians) if medians else None

    @property
    def latency_after(self) -> Spread | None:
        """The same of the answers sent after the kill."""
        medians = [run.latency_after.median for run in self.runs if run.latency_after]
        return Spread.of(medians) if medians else None

    @property
    def survivors(self) -> tuple[Compared | None, ...]:
        """Each run's answers after the kill against those before (``Failure.survivors``)."""
        return tuple(run.survivors for run in self.runs)

    @property
    def survived(self) -> Survived:
        """The runs' ``survivors`` verdicts, counted."""
        told = [verdict for verdict in self.survivors if verdict is not None]
        return Survived(
            told.count(Compared.LOWER), told.count(Compared.HIGHER), len(told), len(self.runs)
        )

    @property
    def health(self) -> tuple[int, int]:
        """The router's health check: every so many seconds, so many failures in a row."""
        return self.runs[0].health_interval_s, self.runs[0].health_failures


@dataclass(frozen=True)
class PastOneMachine:
    """The page's findings: routing, the failure runs, copies against one server."""

    routing: RoutingFindings
    failures: Failures
    copies: CopiesFindings
