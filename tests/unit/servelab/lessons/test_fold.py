"""servelab.lessons.fold: a folded block keeps its details behind one line, as Markdown."""

from __future__ import annotations

from servelab.lessons.fold import FOLD_SUMMARY, LEAD_WORDS, LONG_PARAGRAPH, fold, folded_long


def test_a_fold_keeps_its_details_behind_one_line_and_leaves_them_markdown():
    folded = fold("  The ranges *overlap*.  ")
    assert folded.startswith("\n\n<details>") and folded.endswith("</details>")
    head, details, tail = folded.split("\n\n")[1:]
    assert head == f"<details><summary>{FOLD_SUMMARY}</summary>"
    assert (details, tail) == ("The ranges *overlap*.", "</details>")  # blank lines: Markdown
    assert "<summary>Why</summary>" in fold("x", summary="Why")


def _sentences(count: int, words: int = 12) -> str:
    return " ".join(f"Sentence {n} " + "word " * (words - 3) + "end." for n in range(count))


def test_a_long_paragraph_keeps_its_opening_and_folds_the_rest() -> None:
    long = _sentences(14)  # 168 words, over LONG_PARAGRAPH
    within = _sentences(LONG_PARAGRAPH // 12)
    shown = folded_long(f"Short one.\n\n{long}")
    short, opening, summary, details, close = shown.split("\n\n")
    assert short == "Short one." and summary.startswith("<details>") and close == "</details>"
    assert LEAD_WORDS <= len(opening.split()) < LEAD_WORDS + 12  # whole sentences, no more
    assert f"{opening} {details}" == long  # nothing dropped, nothing reordered
    assert folded_long(within) == within


def test_a_written_fold_a_table_and_a_quotation_are_left_as_they_are() -> None:
    long = _sentences(14)
    led = f"{long}{fold(long)}"  # a lead its words function wrote, and its fold
    assert folded_long(led) == led
    table = "| a | b |\n|---|---|\n" + "| 1 | 2 |\n" * 60
    assert folded_long(table) == table
    quoted = "“" + _sentences(14) + "” Then it ended."
    assert "<details>" in folded_long(_sentences(14).lower())  # engines' names start small
    assert "<details>" not in folded_long(quoted)  # no cut inside the quotation
