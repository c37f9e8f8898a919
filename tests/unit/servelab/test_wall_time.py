"""Reading a start's times from each engine version's own log lines (servelab/wall_time.py)."""

from __future__ import annotations

import pytest

from course.paths import REPO_ROOT
from servelab.wall_time import Clock, StartTimes, read_start

FIXTURES = REPO_ROOT / "tests" / "fixtures"


def test_a_gpu_start_has_its_compile_graphs_and_engine_init() -> None:
    log = (FIXTURES / "vllm-0.11.2" / "startup-times.log").read_text()
    assert read_start(log, 80.0) == StartTimes(
        wall_s=80.0, engine_s=63.52, compile_s=41.07, graphs_s=19.0
    )


def test_an_eager_cpu_start_logs_only_its_engine_init() -> None:
    log = (FIXTURES / "vllm-0.32" / "startup-times.log").read_text()
    assert read_start(log, 9.5) == StartTimes(
        wall_s=9.5, engine_s=1.04, compile_s=None, graphs_s=None
    )


def test_two_workers_count_the_slower_and_no_log_gives_nothing() -> None:
    log = (FIXTURES / "vllm-0.11.2" / "startup-times.log").read_text()
    slower = log.replace("takes 41.07", "takes 44.50")
    assert read_start(log + slower, 1.0).compile_s == 44.5
    assert read_start("", 2.0) == StartTimes(2.0, None, None, None)


def test_the_clock_splits_the_install_from_the_starts_and_the_rest(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    now = iter([100.0, 400.0])
    monkeypatch.setattr("servelab.wall_time.time.monotonic", lambda: next(now))
    clock = Clock(starts=[StartTimes(1.0, None, None, None)])
    assert clock.measured_s() is None
    clock.installed(40.0)
    assert clock.install_s == 60.0 and clock.starts == []
    clock.starts.append(StartTimes(50.0, 30.0, 20.0, 5.0))
    assert clock.measured_s() == 250.0


def test_an_older_install_cell_leaves_the_install_untimed() -> None:
    clock = Clock()
    clock.installed(None)
    assert clock.install_s is None and clock.measured_s() is not None
