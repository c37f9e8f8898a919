"""The words of chapter 07's knee from this device's model (:mod:`.knee`): before the closed
loop, and against it."""

from __future__ import annotations

from servelab.lessons.device_model.words import foretold_text, line_source
from servelab.lessons.throughput_vs_latency.knee import ModelKnee
from servelab.lessons.throughput_vs_latency.slot_rate import SlotRate


def knee_forecast_text(knee: ModelKnee) -> str:
    """The model's knee, before the closed loop measures *W*."""
    first, step, prompts, request, rate = (
        knee.first_token_ms,
        knee.step_ms,
        knee.prompts_ms,
        knee.request_s,
        knee.rate,
    )
    if knee.line is None or None in (first, step, prompts, request, rate):
        return (
            "This device's model has no step line or no prompt reading here, so it "
            "predicts no knee before the closed loop."
        )
    return (
        f"**This device's model predicts {rate:.1f} requests a second** "
        f"for {knee.slots} slots. A request holds its slot for *W* = {request:.2f} s. That "
        f"is {first:,.0f} ms to its first token, {knee.output_tokens} tokens at {step:.0f} "
        f"ms and {prompts:,.0f} ms of the slots' prompts read while it streams. The "
        f"{step:.0f} ms is the step of {knee.slots} sequences, from "
        f"{line_source(knee.line.fitted_in)}."
    )


def knee_text(knee: ModelKnee, slot_rate: SlotRate) -> str:
    """The model's knee against the closed loop's."""
    if not knee.checks(slot_rate) or knee.request_s is None:
        return "With no knee from the model, the closed loop's *W* stands alone."
    [check] = knee.checks(slot_rate)
    return (
        f"The model's {check.predicted:.1f} requests a second fell "
        f"{foretold_text(check.foretold, check.measured)} of the closed loop's "
        f"{check.measured.with_range(1, ' req/s')}. Its *W* was {knee.request_s:.2f} s, "
        f"the runs' {slot_rate.request_s.with_range(2, ' s')}."
    )
