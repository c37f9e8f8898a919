"""servelab.lessons.throughput_vs_latency.mixed_findings: two servers side by side against one for
everything, on made-up servings: each outcome for the chat and the job, and a second card credited
rather than the split."""

from __future__ import annotations

import pytest

from servelab.engines.placement import whole_device
from servelab.hardware import Device
from servelab.lessons.compare import Compared
from servelab.lessons.throughput_vs_latency import mixed_words
from servelab.lessons.throughput_vs_latency.mixed_findings import MixedFindings
from tests.unit.servelab.lessons.test_rate_sweeps import SPLIT, _mixed, _mixed_table

MIXED = [
    (500, 7.0, (Compared.LOWER, Compared.LOWER)),
    (500, 9.0, (Compared.LOWER, Compared.HIGHER)),
    (1000, 7.0, (Compared.HIGHER, Compared.LOWER)),
    (1000, 9.0, (Compared.HIGHER, Compared.HIGHER)),
    (500, 8.2, (Compared.LOWER, Compared.UNTOLD)),
    (920, 7.0, (Compared.UNTOLD, Compared.LOWER)),
    (1000, 8.2, (Compared.HIGHER, Compared.UNTOLD)),
    (920, 8.2, (Compared.UNTOLD, Compared.UNTOLD)),
]


def _verdict_words(chat: float, job: float) -> str:
    """What ``mixed_text`` says after the figures: its verdict's words."""
    return _after_figures(mixed_words.mixed_text(_mixed(chat, job, spread=0.02)))


def _after_figures(text: str) -> str:
    """``mixed_text``'s verdict: its words before the table of figures (which leads, the
    finding first) and the fold that names what each set-up ran on."""
    return text.split("\n\n| ", 1)[0]


@pytest.mark.parametrize(("chat", "job", "outcomes"), MIXED)
def test_each_mixed_outcome_and_its_words(chat, job, outcomes):
    found = _mixed(chat, job, spread=0.02)
    assert (found.chat, found.job) == outcomes
    assert (found.best_chat.median, found.best_job.median) == (900.0, 8.0)
    text = mixed_words.mixed_text(found)
    assert SPLIT[0] in text and SPLIT[1] in text and text.index(SPLIT[0]) < text.index(SPLIT[1])
    assert f"| {chat:,.0f} (" in text and f"| {job:.1f} (" in text  # each set-up a row
    assert "| 900 (" in text and "| 8.0 (" in text
    assert len({_verdict_words(c, j) for c, j, _ in MIXED}) == len(MIXED)
    # Where both parts could not be told, the words claim nothing; where one was told, the
    # closing names the side the split served (or cost) and no more.
    closing = _verdict_words(920, 8.2).split(". ")[-1]
    assert _verdict_words(chat, job).endswith(closing) is (outcomes == (Compared.UNTOLD,) * 2)
    if Compared.UNTOLD in outcomes and outcomes != (Compared.UNTOLD,) * 2:
        told = "the chat users" if outcomes[0] is not Compared.UNTOLD else "the job"
        said = "served" if Compared.LOWER in outcomes else "cost"
        assert f"{said} {told}" in _verdict_words(chat, job)


@pytest.mark.parametrize(("gpus", "more"), [(2, True), (1, False), (0, False)])
def test_the_verdict_credits_a_second_card_not_the_split(gpus, more):
    """On Kaggle the pair won with two cards against one: its verdict says the pair had a card
    each and does not credit the split alone (issue #63 item 4); on one card or the CPU the
    verdict is unchanged."""
    card = Device(kind="cuda", name="Tesla T4", count=max(gpus, 1), memory_gib=15.0)
    split = SPLIT if gpus < 2 else ("GPU 0 of 2 (Tesla T4)", "GPU 1 of 2 (Tesla T4)")
    found = MixedFindings.of(
        _mixed_table(500, 7.0, 0.02, 3, split), split, whole_device(card).described, gpus=gpus
    )
    assert (found.chat, found.job) == (Compared.LOWER, Compared.LOWER)
    assert found.more_hardware is more
    verdict = _after_figures(mixed_words.mixed_text(found))
    assert ("a card each" in verdict) is more
    assert ("paid for itself" in verdict) is not more
    assert ("one card" in verdict) is more
    if more:  # the note follows every outcome, not only the pair's win
        lost = MixedFindings.of(
            _mixed_table(1000, 9.0, 0.02, 3, split), split, whole_device(card).described, gpus=gpus
        )
        assert "a card each" in mixed_words.mixed_text(lost)
