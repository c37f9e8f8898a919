"""Chapter 01's story: every passage its page writes from its numbers, in page order
(:mod:`servelab.lessons.story`)."""

from __future__ import annotations

from servelab.lessons.batching.request_words import percentile_text, timing_text
from servelab.lessons.batching.words import (
    crowd_prediction,
    crowd_text,
    crowd_title,
    token_count_text,
)
from servelab.lessons.serving_engine.chapter import CHAPTER
from servelab.lessons.serving_engine.record import ServingEngineRecord
from servelab.lessons.story import Section, Story

STORY = Story(
    CHAPTER.id,
    (
        Section("timing", timing_text),
        Section("percentile", percentile_text),
        Section("crowd_title", crowd_title, title=True),
        Section("crowd", crowd_text),
        Section("prediction", crowd_prediction),
        Section("token_count", token_count_text),
    ),
    findings_record=ServingEngineRecord,
)
