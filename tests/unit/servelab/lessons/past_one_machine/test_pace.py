"""servelab.lessons.past_one_machine.pace and its words: two copies and one server from the step
line."""

from __future__ import annotations

import dataclasses

import pytest

from servelab.bench.spread import Spread
from servelab.lessons.batching.steps import StepFit
from servelab.lessons.device_model.foretold import Foretold
from servelab.lessons.device_model.kept import StepLine
from servelab.lessons.past_one_machine.copies_words import copies_pace_text
from servelab.lessons.past_one_machine.pace import CopiesPace

LINE = StepLine(StepFit(30.0, 1.0, 0.99), "02-continuous-batching", (1, 4, 8))
CPU = CopiesPace(
    LINE, 8, "cpu", 1, copies=Spread(69.0, 66.0, 72.0, 3), one=Spread(40.0, 38.0, 41.0, 3)
)


def test_on_a_cpu_each_copy_doubles_both_parts_of_its_step() -> None:
    assert CPU.one_ms == 38.0 and CPU.copies_ms == 68.0  # 2·30 + 2·1·4
    assert CPU.foretold == (Foretold.INSIDE, Foretold.INSIDE)
    assert [check.predicted for check in CPU.checks] == [68.0, 38.0]
    text = copies_pace_text(CPU)
    assert "68 ms" in text and "38 ms" in text


def test_with_a_gpu_each_a_copy_runs_half_the_users_on_a_device_of_its_own() -> None:
    two = dataclasses.replace(CPU, device_kind="cuda", gpus=2)
    assert two.copies_ms == 34.0 and two.foretold == (Foretold.OFF, Foretold.INSIDE)
    shared = dataclasses.replace(CPU, device_kind="cuda", gpus=1)
    assert shared.copies_ms is None and shared.foretold is None and shared.checks == ()
    none = dataclasses.replace(CPU, line=None)
    assert none.one_ms is None and none.foretold is None
    assert len({copies_pace_text(shared), copies_pace_text(none), copies_pace_text(two)}) == 3


@pytest.mark.parametrize("users", [2, 8, 64])
def test_one_server_is_never_predicted_slower_than_a_one_core_copy(users: int) -> None:
    pace = dataclasses.replace(CPU, users=users)
    assert pace.one_ms is not None and pace.copies_ms is not None
    assert pace.one_ms < pace.copies_ms


def test_a_miss_inside_scattered_runs_is_said_to_be_untold() -> None:
    scattered = dataclasses.replace(CPU, one=Spread(143.0, 84.0, 172.0, 3))
    assert scattered.foretold == (Foretold.INSIDE, Foretold.UNPLACED)
    tight = dataclasses.replace(CPU, one=Spread(143.0, 140.0, 146.0, 3))
    assert tight.foretold == (Foretold.INSIDE, Foretold.OFF)
    assert "50%" in copies_pace_text(scattered) and "50%" not in copies_pace_text(tight)
