"""Chapters 01 and 02 whole: every sentence each page writes from its findings, in page order,
as one text to review (the story snapshots in ``tests/snapshots``)."""

from __future__ import annotations

from servelab.lessons.batching import words
from servelab.lessons.batching.findings import BatchFindings, CeilingFindings, Intensity
from servelab.lessons.batching.roofline import EngineWindow, Roofline, published_rooflines
from servelab.lessons.batching.step_cost import GainFindings, StepCost
from servelab.lessons.batching.step_words import (
    arithmetic_bind_text,
    engine_rows_text,
    gain_text,
    prediction_window_text,
    regime_text,
    window_check_text,
)
from servelab.lessons.batching.waves_findings import WavesFindings
from servelab.lessons.deployments.request_metrics import PercentileReach, RequestTiming
from servelab.lessons.deployments.request_words import percentile_text, timing_text


def serving_engine_words(timing: RequestTiming, reach: PercentileReach, found: BatchFindings,
                         client_tokens: float, server_tokens: float, smoke: bool,
                         prediction: str = "") -> str:
    """Every sentence chapter 01 writes from its findings, in page order: one text to review."""
    return "\n\n".join((
        timing_text(timing), percentile_text(reach), words.crowd_text(found, smoke),
        words.crowd_prediction(prediction, found),
        words.token_count_text(client_tokens, server_tokens)))


def continuous_batching_words(here: Roofline, lesson_row: Roofline, found: BatchFindings,
                              ceiling: CeilingFindings, cost: StepCost, gain: GainFindings,
                              intensity: Intensity, waves: WavesFindings, smoke: bool,
                              prediction: str = "") -> str:
    """Every sentence chapter 02 writes from its findings, in page order: one text to review.
    The published rows are the datasheets' (``published_rooflines``), not the run's."""
    window = EngineWindow(here, cost, found.gain, found.gain_bounds,
                          tuple(published_rooflines(here.users)))
    return "\n\n".join((
        prediction_window_text(here, lesson_row), words.scaling_text(found, smoke),
        words.scaling_prediction(prediction, found),
        words.ceiling_text(ceiling), regime_text(cost), arithmetic_bind_text(cost),
        gain_text(gain), window_check_text(window), engine_rows_text(window),
        words.intensity_text(intensity), words.waves_text(waves, smoke)))
