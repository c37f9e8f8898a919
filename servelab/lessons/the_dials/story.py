"""Chapter 05's story: every passage its page writes from its numbers, in page order
(:mod:`servelab.lessons.story`)."""

from __future__ import annotations

from servelab.lessons.story import Section, Story
from servelab.lessons.the_dials.chapter import CHAPTER
from servelab.lessons.the_dials.record import DialsRecord
from servelab.lessons.the_dials.step_words import line_gain_text, prediction_text, sweep_check_text
from servelab.lessons.the_dials.tp_words import tensor_parallel_section
from servelab.lessons.the_dials.words import (
    context_text,
    crowded_title,
    dials_prediction,
    sweep_text,
    sweep_title,
)

STORY = Story(
    CHAPTER.id,
    (
        Section("forecast", prediction_text),
        Section("sweep_title", sweep_title, title=True),
        Section("sweep", sweep_text),
        Section("sweep_check", sweep_check_text),
        Section("line_gain", line_gain_text),
        Section("crowded_title", crowded_title, title=True),
        Section("prediction", dials_prediction),
        Section("context", context_text),
        Section("tensor_parallel", tensor_parallel_section),
    ),
    findings_record=DialsRecord,
)
