"""servelab.lessons.untold_words: the one wording of "the runs cannot tell", which every
chapter's words use; and the one value every verdict that says it takes."""

from __future__ import annotations

from servelab.lessons.capacity_plan.findings import PlanVerdict
from servelab.lessons.compare import NOT_TOLD_APART, Compared, Shown
from servelab.lessons.the_dials.findings import MedianVerdict
from servelab.lessons.untold_words import cannot_tell, overlap


def test_overlap_names_whose_ranges_and_can_open_a_sentence() -> None:
    assert overlap().endswith("ranges overlap")
    assert "runs' ranges" in overlap("runs'")
    assert overlap(start=True)[0].isupper() and overlap()[0].islower()
    assert "  " not in overlap()


def test_cannot_tell_gives_the_reason_then_what_cannot_be_told() -> None:
    told = cannot_tell("the two apart")
    assert told.startswith(overlap()) and told.endswith("the two apart")
    assert cannot_tell("it", "one run a side", who="these runs").startswith("one run a side, so")
    assert "these runs cannot" in cannot_tell("it", who="these runs")


def test_every_untold_verdict_shares_one_value() -> None:
    members = (Compared.UNTOLD, Shown.UNTOLD, MedianVerdict.UNTOLD, PlanVerdict.UNTOLD)
    assert {member.value for member in members} == {NOT_TOLD_APART}
