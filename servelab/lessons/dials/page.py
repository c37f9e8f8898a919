"""Chapter 05 whole: every sentence the page writes from its findings, in page order, as one
text to review (the story snapshots in ``tests/snapshots``)."""

from __future__ import annotations

from servelab.lessons.dials.findings import ContextFindings, SweepFindings
from servelab.lessons.dials.line_gain import LineGain
from servelab.lessons.dials.step_model import DialPrediction
from servelab.lessons.dials.step_words import check_text, line_gain_text, prediction_text
from servelab.lessons.dials.tp_findings import TensorParallelFindings
from servelab.lessons.dials.tp_words import tensor_parallel_skipped, tensor_parallel_text
from servelab.lessons.dials.words import context_text, dials_prediction, sweep_text


def page_words(expected: DialPrediction, swept: SweepFindings, context: ContextFindings,
               tensor_parallel: TensorParallelFindings | None, device_label: str,
               line_gain: LineGain, prediction: str = "") -> str:
    """Every sentence chapter 05 writes from its findings, in page order: one text to review
    (the tensor-parallel paragraph, or the line saying why this runtime skipped it)."""
    return "\n\n".join((
        prediction_text(expected), sweep_text(swept),
        check_text(expected, swept.speedup, swept.tpot_ratio, swept.tpot_moved,
                   swept.speedup_bounds),
        line_gain_text(line_gain), dials_prediction(prediction, swept, context),
        context_text(context),
        tensor_parallel_skipped(device_label) if tensor_parallel is None
        else tensor_parallel_text(tensor_parallel)))
