"""The reader's prediction beside what the run measured: one sentence form for every page, and
one layout for a page's interpretation that opens with it."""

from __future__ import annotations

from collections.abc import Sequence


def prediction_text(prediction: str, measured: str) -> str:
    """The reader's prediction from the top of the page beside what the run measured."""
    measured = measured.rstrip().rstrip(".")
    said = prediction.strip()
    if not said:
        return (f"You left the prediction empty; this run measured: {measured}. Write one down "
                "before the next chapter's measurement: a guess you can check teaches more.")
    return f"You predicted: *{said}*. This run measured: {measured}."


def page_story(prediction: str, measured: str, sections: Sequence[tuple[str, str]]) -> str:
    """A page's interpretation in Markdown: the prediction sentence, then one paragraph per
    ``(title, text)`` section, its title in bold."""
    return "\n\n".join([prediction_text(prediction, measured),
                        *(f"**{title}.** {text}" for title, text in sections)])
