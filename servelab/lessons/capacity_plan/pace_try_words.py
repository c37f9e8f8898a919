"""Chapter 10's words on the time bound tried past the measured line
(:mod:`servelab.lessons.capacity_plan.pace_try`); nothing here compares."""

from __future__ import annotations

from servelab.lessons.capacity_plan.pace_try import PaceTry
from servelab.lessons.capacity_plan.plan import Bound, CapacityPlan
from servelab.lessons.compare import Placed
from servelab.lessons.fold import fold

VERDICTS = {
    Placed.BELOW: (
        "Every request met the target, so the time bound held past the line: the "
        "plan could have set `max_num_seqs` to {batch}."
    ),
    Placed.ABOVE: (
        "No request met the target, so the line was too hopeful past what it "
        "measured: stopping at {measured} was right."
    ),
    Placed.INSIDE: (
        "Some requests met the target and some did not, so the time bound lies "
        "near {batch}: stopping at {measured} kept a margin."
    ),
}


def pace_try_text(plan: CapacityPlan, pace_try: PaceTry | None) -> str:
    """The time bound past the measured line: tried, or why there was nothing to try."""
    if pace_try is None:
        why = {
            Bound.TIME: (
                f"The time bound set `max_num_seqs` at {plan.max_num_seqs}, inside "
                f"the batches the line was timed at (up to "
                f"{plan.largest_measured}): nothing past the line to try."
            ),
            Bound.MEMORY: (
                f"The KV cache set `max_num_seqs` at {plan.max_num_seqs}, "
                "before the time bound: no larger batch fits to try."
            ),
            Bound.MEASURED: (
                f"The plan stopped at {plan.max_num_seqs}, the largest batch "
                "the line was timed at, and no larger one was bounded to try."
            ),
        }
        return f"**The time bound, tried.** {why[plan.bound]}"
    verdict = VERDICTS[pace_try.against_target].format(
        batch=pace_try.batch, measured=pace_try.measured
    )
    return (
        f"**The time bound, tried.** It allowed **{pace_try.batch}** sequences; the plan "
        f"stopped at {pace_try.measured}, the largest batch its line was timed at. With "
        f"{pace_try.batch} users at once a token took **{pace_try.tpot_ms.median:.1f} ms** "
        f"({pace_try.tpot_ms.span(1)} ms), against a target of {pace_try.target_ms:.1f} ms. "
        f"{verdict}"
        + fold(
            f"The line, stretched to {pace_try.batch} sequences, gave a step of "
            f"{pace_try.line_ms:.1f} ms; the median token came out "
            f"{pace_try.line_off:+.0%} against it. Each of the {pace_try.tpot_ms.n} users "
            "sent one request of "
            f"{plan.brief.prompt_tokens} prompt and {plan.brief.answer_tokens} answer "
            "tokens, all at once, so every token after the first came from a step of the "
            "whole batch. The range is over those requests.",
            summary="How the bound was tried",
        )
    )
