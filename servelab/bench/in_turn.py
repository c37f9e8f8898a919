"""Servers that differ in a start-up flag, measured in turn.

A flag the engine reads when it starts (the step budget, say) can only be compared by starting
one server per setting, and one run a side compares the two runs' luck as much as the flag: a
minute later the machine may be busier. So each setting is measured several times, the settings
in turn (A, B, A, B, ...), and a page judges the flag by the ranges over those runs. Where the
servers fit side by side (``servelab.engines.placement.fit_together``) they all stay up and take
turns; where they do not, each run gets a fresh start of its server, warmed up, measured and
stopped.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Protocol

from servelab.bench.frames import Result
from servelab.engines.running import RunningServer


class Restartable(RunningServer, Protocol):
    """A server that can be started, and started again once stopped (``servelab.Server``)."""

    def start(self) -> object: ...


def runs_in_turn(
    servers: Mapping[str, Restartable],
    measure: Callable[[RunningServer], Result],
    runs: int,
    keep_up: bool,
    done: Mapping[str, Sequence[Result]] | None = None,
    warm_up: Callable[[RunningServer], None] | None = None,
) -> dict[str, list[Result]]:
    """Every setting of ``servers`` (a label and its server) measured by ``measure`` until it
    has ``runs`` runs, the settings in turn. ``keep_up``: each server is started (and warmed up
    with ``warm_up``) when its turn comes, if it is not running, and stays up until all are
    stopped at the end; otherwise each run gets a fresh start, warmed up and stopped after it,
    with every other server stopped first (a server the page left running keeps its turn if
    it comes first). ``done`` holds runs a page already made (its first server of each kind);
    they count towards ``runs``. Prints one line a round of turns."""
    made = {label: list((done or {}).get(label, ())) for label in servers}
    try:
        while any(len(results) < runs for results in made.values()):
            for label, server in servers.items():
                if len(made[label]) >= runs:
                    continue
                if not server.running:
                    if not keep_up:  # one at a time: the others make room first
                        for other in servers.values():
                            other.stop()
                    server.start()
                    if warm_up is not None:
                        warm_up(server)
                try:
                    made[label].append(measure(server))
                finally:
                    if not keep_up:
                        server.stop()
            counts = ", ".join(f"{label} {len(results)}" for label, results in made.items())
            print(f"runs in turn so far: {counts} of {runs}", flush=True)
    finally:
        for server in servers.values():
            server.stop()
    return made
