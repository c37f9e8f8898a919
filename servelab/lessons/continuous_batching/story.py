"""Chapter 02's story: every passage its page writes from its numbers, in page order
(:mod:`servelab.lessons.story`)."""

from __future__ import annotations

from servelab.lessons.batching.step_words import (
    arithmetic_bind_text,
    engine_rows_text,
    fit_title,
    gain_text,
    prediction_window_text,
    regime_text,
    window_check_text,
)
from servelab.lessons.batching.words import (
    ceiling_text,
    curves_title,
    flowing_title,
    intensity_text,
    scaling_prediction,
    scaling_text,
    steady_window_title,
    waves_text,
    waves_title,
)
from servelab.lessons.continuous_batching.chapter import CHAPTER
from servelab.lessons.continuous_batching.record import ContinuousBatchingRecord
from servelab.lessons.story import Section, Story

STORY = Story(
    CHAPTER.id,
    (
        Section("window", prediction_window_text),
        Section("curves_title", curves_title, title=True),
        Section("steady_window_title", steady_window_title, title=True),
        Section("scaling", scaling_text),
        Section("prediction", scaling_prediction),
        Section("ceiling", ceiling_text),
        Section("fit_title", fit_title, title=True),
        Section("regime", regime_text),
        Section("arithmetic", arithmetic_bind_text),
        Section("gain", gain_text),
        Section("window_check", window_check_text),
        Section("engine_rows", engine_rows_text),
        Section("intensity", intensity_text),
        Section("waves_title", waves_title, title=True),
        Section("flowing_title", flowing_title, title=True),
        Section("waves", waves_text),
    ),
    findings_record=ContinuousBatchingRecord,
)
