"""The reader's prediction beside what the run measured: one sentence form for every page."""

from __future__ import annotations


def prediction_text(prediction: str, measured: str) -> str:
    """The reader's prediction from the top of the page beside what the run measured."""
    said = prediction.strip()
    if not said:
        return (f"You left the prediction empty; this run measured {measured}. Write one down "
                "before the next chapter's measurement: a guess you can check teaches more.")
    return f"You predicted: *{said}*. This run measured {measured}."
