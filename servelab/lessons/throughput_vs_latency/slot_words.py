"""The words of chapter 07's prediction from Little's law, in Markdown, before the sweep and
against it, from ``slot_rate.SlotRate``."""

from __future__ import annotations

from collections.abc import Sequence

from servelab.lessons.device_model.words import foretold_text
from servelab.lessons.throughput_vs_latency.slot_rate import KneeCheck, SlotRate
from servelab.lessons.throughput_vs_latency.sweep_findings import RateSweepFindings


def prediction_text(slot_rate: SlotRate) -> str:
    """The prediction, before the sweep."""
    return (
        f"**By Little's law the small cap can finish at most {slot_rate.rate:.1f} req/s** "
        f"({_rates(slot_rate)}). With all {slot_rate.slots} slots busy a request took "
        f"**{slot_rate.request_s.with_range(2, ' s')}** from sending to its last token "
        f"({slot_rate.request_s.n} closed-loop runs), and {slot_rate.slots} ÷ "
        f"{slot_rate.request_s.median:.2f} s = {slot_rate.rate:.1f}. Faster arrivals queue "
        "for as long as they keep coming. So its first tokens should stay within the target "
        "below that rate and break above it."
    )


def _rates(found: SlotRate) -> str:
    """The predicted rate over the closed-loop runs: "1.5–2.6 over the runs", or "the same
    in all 3 runs" where they round alike."""
    low, high = f"{found.rate_low:.1f}", f"{found.rate_high:.1f}"
    return (
        f"the same in all {found.request_s.n} runs"
        if low == high
        else (f"{low}–{high} over the runs")
    )


def check_text(found: SlotRate, rates: Sequence[float], held: float | None) -> str:
    """The prediction against where the small cap's first tokens held and broke."""
    verdict = found.check(rates, held)
    broke = found.broke_at(rates, held)
    low, high = f"{found.rate_low:.1f}", f"{found.rate_high:.1f}"
    predicted = f"the predicted {low if low == high else f'{low}–{high}'} req/s"
    if verdict is KneeCheck.BETWEEN:
        return (
            f"Little's law called it. Every run of the small cap kept its first tokens "
            f"within the target up to {held:g} req/s, not every run at {broke:g}. "
            f"{predicted[0].upper()}{predicted[1:]} lies between."
        )
    if verdict is KneeCheck.HELD_ABOVE:
        return (
            f"The small cap held to {held:g} req/s, above {predicted}. Either the "
            "prediction was low, or the queue just past the knee grew too slowly to push "
            "the first tokens of a run's middle past the target. The rate its slots "
            "finished, below, tells which."
        )
    if verdict is KneeCheck.BROKE_BELOW:
        return (
            f"Not every run of the small cap held at {broke:g} req/s, below {predicted}. "
            "Random arrivals come in bursts, and a burst fills the slots before the average "
            "rate does. Or the first token's own prefill took most of the target."
        )
    if verdict is KneeCheck.NEVER_BROKE:
        return (
            f"The small cap held at every rate, and every rate was below {predicted}, as "
            "the law expects. The sweep never reached the limit it predicts."
        )
    if verdict is KneeCheck.NOT_REACHED:
        return (
            f"The small cap held at every rate, up to {held:g} req/s, above {predicted}. "
            "Either the prediction was low, or its runs were too short for the queue to "
            "push the first tokens past the target."
        )
    return (
        f"The small cap's first tokens missed the target already at the lowest rate, below "
        f"{predicted}. So the target, not the slots, set the limit here."
    )


def rates_check_text(slot_rate: SlotRate, rates: Sequence[float], sweeps: RateSweepFindings) -> str:
    """The prediction against the rate up to which the small cap held (:func:`check_text`),
    then against what its slots finished in the steady middle at the top rate."""
    text = check_text(slot_rate, rates, sweeps.sustained(sweeps.small))
    served = sweeps.small.served[-1] if sweeps.small.served else None
    if not slot_rate.served_checks(served) or served is None:
        return text
    [check] = slot_rate.served_checks(served)
    return text + (
        f" At {sweeps.high_rate:g} req/s, past its knee, the small cap's slots "
        f"finished {served.with_range(2, ' req/s')} in the steady middle of its "
        f"runs. The law's {slot_rate.rate:.2f} req/s fell "
        f"{foretold_text(check.foretold, served)}."
    )
