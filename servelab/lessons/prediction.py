"""The reader's prediction beside what the run measured: one sentence form for every page, and
one layout for a page's interpretation that opens with it. Where the prediction holds numbers,
each is scored against the figure of its unit the page measured (:mod:`.guess`)."""

from __future__ import annotations

from collections.abc import Sequence

from servelab.lessons.guess import Aim, Scored, Unit, scored

_FORMATS = {
    Unit.TIMES: "{:,.1f}×",
    Unit.PERCENT: "{:.0%}",
    Unit.MS: "{:,.0f} ms",
    Unit.TOKENS: "{:,.0f} tokens",
    Unit.TOK_S: "{:,.0f} tok/s",
    Unit.REQ_S: "{:,.1f} req/s",
    Unit.COUNT: "{:,.4g}",
}


def quantity_text(value: float, unit: Unit) -> str:
    """A number as the page writes it in ``unit``."""
    return _FORMATS[unit].format(value)


def _distance_text(score: Scored) -> str:
    if score.close:
        return "close"
    if score.ratio > 1:
        return f"{score.ratio:,.1f}× yours"
    return f"{1 / score.ratio:,.1f}× below yours"


def score_text(prediction: str, aims: Sequence[Aim]) -> str:
    """Each measured figure beside the number the reader wrote in its unit; "" where the page
    scores nothing or the prediction is empty."""
    if not aims or not prediction.strip():
        return ""
    found = scored(prediction, aims)
    if not found:
        units = ", ".join(sorted({aim.unit.strip() or "a count" for aim in aims}))
        return (
            f"Your prediction holds no number in a unit this page scores ({units}), so "
            "nothing was scored."
        )
    scores = "; ".join(
        f"{score.aim.what} {quantity_text(score.aim.value, score.aim.unit)} against your "
        f"{quantity_text(score.written, score.aim.unit)} ({_distance_text(score)})"
        for score in found
    )
    return f"Against your numbers: {scores}."


def prediction_text(prediction: str, measured: str, aims: Sequence[Aim] = ()) -> str:
    """The reader's prediction from the top of the page beside what the run measured, and its
    numbers scored against ``aims``, the figures the page measured."""
    measured = measured.rstrip().rstrip(".")
    said = prediction.strip()
    if not said:
        return (
            f"This run measured: {measured}. You wrote no prediction; write one before the "
            "next chapter's run."
        )
    text = f"You predicted: *{said}*. This run measured: {measured}."
    score = score_text(prediction, aims)
    return f"{text} {score}" if score else text


def page_story(
    prediction: str, measured: str, sections: Sequence[tuple[str, str]], aims: Sequence[Aim] = ()
) -> str:
    """A page's interpretation in Markdown: the prediction sentence, then one paragraph per
    ``(title, text)`` section, its title in bold."""
    return "\n\n".join(
        [
            prediction_text(prediction, measured, aims),
            *(f"**{title}.** {text}" for title, text in sections),
        ]
    )
