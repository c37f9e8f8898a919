"""servelab.lessons.past_one_machine.failures: the failure run repeated, each figure over the runs,
and the words that read them."""

from __future__ import annotations

from servelab.bench.spread import Spread
from servelab.lessons.compare import Compared
from servelab.lessons.past_one_machine.failure_words import (
    failure_lines,
    failure_text,
    failure_title,
)
from servelab.lessons.past_one_machine.failures import Failures, Survived
from tests.unit.servelab.lessons.past_one_machine.test_findings import _failure


def test_repeated_failure_runs_give_each_figure_its_range():
    first = _failure([0.5, 0.6], [2.0, 0.7])
    later = _failure([0.5, 0.6], [0.3, 0.4], noticed=None, retries=0.0)
    failures = Failures((first, later))
    assert failures.failed == Spread(2.0, 2.0, 2.0, 2)
    assert failures.detection_s == Spread(1.5, 1.5, 1.5, 1) and failures.unnoticed_runs == 1
    assert failures.retries == Spread(1.5, 0.0, 3.0, 2) and failures.retried_and_lost == 1
    assert failures.survivors == (first.survivors, later.survivors)
    assert failures.repeated and not Failures((first,)).repeated
    assert failures.several_lost_after is (failures.failed_after.high > 1)
    text = failure_text(failures)
    assert "(0–3) retries a run" in text and "2 times" in text
    assert "Of the 3 requests" in text and "it, 1 failed" in text  # alike in every run: one number
    assert failure_lines(failures).count("\n| ") == 3  # the alignment row and a row a run
    assert failure_title(failures).startswith("2 requests")
    one = failure_text(Failures((first,)))
    assert "2 times" not in one and "a run" not in one  # one run: no "over the runs"


def test_the_survivors_verdicts_are_counted_with_the_runs_too_few_to_compare():
    survived = Survived(sooner=1, later=1, told=3, runs=4)
    assert (survived.overlapping, survived.untold) == (1, 1)
    assert not (survived.all_sooner or survived.all_later)
    sooner = _failure([1.0, 1.1], [0.5, 0.6])
    assert sooner.survivors is Compared.LOWER
    assert Failures((sooner, sooner)).survived == Survived(2, 0, 2, 2)
    assert Failures((sooner,)).survived.all_sooner
    assert Failures((_failure([0.5], [0.6, 0.9]),)).survived.untold == 1
