"""servelab.lessons.past_one_machine.copies_words: two copies against one server worded on made-up
runs: each setup's figures with its runs' range, the CPU's words apart from two GPUs', the setups'
table, the note on a second GPU and the title where the runs cannot tell."""

from __future__ import annotations

from servelab.lessons.past_one_machine.copies_words import (
    copies_text,
    copies_title,
    setup_view,
    two_gpus_note,
)
from servelab.lessons.past_one_machine.findings import CopiesFindings
from tests.unit.servelab.lessons.past_one_machine.test_findings import _results, copies_runs


def test_the_copies_words_state_each_setups_range_and_tell_two_gpus_from_two_cores():
    found, untold, on_gpus = copies_runs()
    text = copies_text(found)
    assert "(93–95)" in text and "161 output tok/s (160–162)" in text
    assert "no second GPU" in two_gpus_note(1)
    assert copies_text(untold).split("ms. ")[1] != text.split("ms. ")[1]
    words = copies_text(on_gpus)
    assert "61 output tok/s (60–62)" in words
    assert words.split("ms. ")[1] != text.split("ms. ")[1]  # one GPU's words, not both cores'
    view = setup_view(found)
    assert list(view.index) == ["2 replicas", "1 server"] and list(view["runs"]) == ["2", "2"]
    assert view.loc["2 replicas", "output (tok/s)"] == (found.copies.output_tok_s.with_range())
    assert "`--tensor-parallel-size 2`" in two_gpus_note(1) and two_gpus_note(1) != two_gpus_note(2)
    assert "cannot tell" in copies_title(
        CopiesFindings.of({"a": _results(90, 120), "b": _results(100, 110)}, "cpu", 0), "this CPU"
    )
