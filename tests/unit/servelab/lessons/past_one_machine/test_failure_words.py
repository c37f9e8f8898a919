"""servelab.lessons.past_one_machine.failure_words: a replica killed mid-run, worded on made-up
runs: the answers after the kill held against those before, and the requests lost on either side of
the router's notice."""

from __future__ import annotations

import dataclasses

import pytest

from servelab.lessons.compare import Compared
from servelab.lessons.past_one_machine.failure_words import (
    _lost_after_text,
    _survivors_text,
    failure_text,
)
from servelab.lessons.past_one_machine.failures import Failures
from tests.unit.servelab.lessons.past_one_machine.test_findings import _failure

SURVIVORS = [
    ([1.0, 1.1], [0.5, 0.6], Compared.LOWER),
    ([0.5, 0.6], [1.0, 1.1], Compared.HIGHER),
    ([0.5, 1.0], [0.6, 0.9], Compared.ALIKE),
    ([0.5, 1.0], [0.6, 0.8], Compared.UNTOLD),
    ([0.5], [0.6, 0.9], None),
    ([], [0.6, 0.9], None),
]


@pytest.mark.parametrize(("before", "after", "verdict"), SURVIVORS)
def test_the_answers_after_the_kill_are_held_against_those_before_like_with_like(
    before, after, verdict
):
    failure = _failure(before, after)
    assert failure.survivors is verdict
    said = _survivors_text(Failures((failure,)))
    assert said in failure_text(Failures((failure,)))
    if verdict is not None:
        assert f"{failure.latency_before.median:.1f} s" in said
        assert f"{failure.latency_after.median:.1f} s" in said
    else:
        assert not any(char.isdigit() for char in said)
    # higher, lower, and one for alike and untold; one for too few succeeded
    closings = {
        _survivors_text(Failures((_failure(b, a),))).rsplit(": ", 1)[-1] for b, a, _ in SURVIVORS
    }
    assert len(closings) == 4


def test_lost_requests_on_both_sides_of_the_notice_are_counted_apart():
    failure = dataclasses.replace(
        _failure([0.5, 0.6], [0.7, 0.8]),
        failed_after=2,
        failed_unnoticed=1,
        errors_after=("first error", "second"),
    )
    text = _lost_after_text(Failures((failure,)))
    assert "2 failed" in text and '"first error"' in text
    assert text in failure_text(Failures((failure,)))
    one = dataclasses.replace(failure, failed_after=1, errors_after=("first error",))
    assert "1 failed" in _lost_after_text(Failures((one,)))
    # over two runs, one that lost a request sent after the router counted the replica down
    noticed = dataclasses.replace(failure, failed_unnoticed=0)
    both = _lost_after_text(Failures((failure, noticed)))
    assert "2 of the 2" in both and "each sent before" not in both
    assert "each sent before" in _lost_after_text(
        Failures((dataclasses.replace(failure, failed_unnoticed=2),))
    )
