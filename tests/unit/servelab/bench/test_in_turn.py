"""servelab.bench.in_turn: the order servers start, run and stop in (a lifecycle, not a measurement:
each run's result is the label and the run's number)."""

from __future__ import annotations

import pytest

from servelab.bench.frames import Result
from servelab.bench.in_turn import runs_in_turn


class Lifecycle:
    """A server that only records when it starts and stops, into a log shared by all of them."""

    def __init__(self, name: str, log: list[str], running: bool = False) -> None:
        self.name, self.log, self._running = name, log, running
        self.url = self.base_url = self.model = self.alive_path = name

    @property
    def running(self) -> bool:
        return self._running

    def start(self) -> Lifecycle:
        self._running = True
        self.log.append(f"start {self.name}")
        return self

    def stop(self) -> None:
        if self._running:
            self.log.append(f"stop {self.name}")
        self._running = False

    def log_tail(self, lines: int = 40) -> str:
        return ""


def _measure(log: list[str]):
    def measure(server: Lifecycle) -> Result:
        log.append(f"run {server.name}")
        return Result(workload=None, records=[], duration_s=1.0)

    return measure


def test_kept_up_each_server_starts_once_and_they_take_turns(capsys):
    log: list[str] = []
    a, b = Lifecycle("a", log), Lifecycle("b", log, running=True)  # b left up by the page
    made = runs_in_turn(
        {"A": a, "B": b},
        _measure(log),
        runs=3,
        keep_up=True,
        done={"A": [Result(None, [], 1.0)], "B": [Result(None, [], 1.0)]},
        warm_up=lambda server: log.append(f"warm {server.name}"),
    )
    assert [len(made["A"]), len(made["B"])] == [3, 3]
    assert log == ["start a", "warm a", "run a", "run b", "run a", "run b", "stop a", "stop b"]
    assert capsys.readouterr().out.splitlines() == [  # one line a round, not one a run
        "runs in turn so far: A 2, B 2 of 3",
        "runs in turn so far: A 3, B 3 of 3",
    ]


def test_one_at_a_time_every_run_gets_a_fresh_start_and_the_others_stop_first():
    log: list[str] = []
    a, b = Lifecycle("a", log), Lifecycle("b", log, running=True)
    runs_in_turn(
        {"A": a, "B": b},
        _measure(log),
        runs=2,
        keep_up=False,
        done={"A": [Result(None, [], 1.0)], "B": [Result(None, [], 1.0)]},
    )
    assert log == ["stop b", "start a", "run a", "stop a", "start b", "run b", "stop b"]


def test_every_server_is_stopped_when_a_run_fails():
    log: list[str] = []
    a, b = Lifecycle("a", log), Lifecycle("b", log)

    def failing(server: Lifecycle) -> Result:
        raise RuntimeError(f"{server.name} died")

    with pytest.raises(RuntimeError, match="a died"):
        runs_in_turn({"A": a, "B": b}, failing, runs=1, keep_up=True)
    assert not a.running and not b.running
