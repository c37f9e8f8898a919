"""Chapter 08's story: every passage its page writes from its numbers, in page order
(:mod:`servelab.lessons.story`)."""

from __future__ import annotations

from servelab.lessons.story import Section, Story
from servelab.lessons.when_not_to.chapter import CHAPTER
from servelab.lessons.when_not_to.forecast_words import forecast_text, opening_text
from servelab.lessons.when_not_to.record import SingleUserRecord
from servelab.lessons.when_not_to.slots_words import (
    memory_text,
    queue_text,
    queue_title,
    reuse_text,
    step_text,
    steps_title,
    takeaway_text,
    timeline_title,
)
from servelab.lessons.when_not_to.words import (
    ceiling_check,
    ceiling_prediction,
    engines_title,
    story,
)

STORY = Story(
    CHAPTER.id,
    (
        Section("ceiling_prediction", ceiling_prediction),
        Section("opening", opening_text),
        Section("engines_title", engines_title, title=True),
        Section("ceiling_check", ceiling_check),
        Section("timeline_title", timeline_title, title=True),
        Section("interpretation", story),
        Section("steps_title", steps_title, title=True),
        Section("steps", step_text),
        Section("queue_title", queue_title, title=True),
        Section("queue", queue_text),
        Section("memory", memory_text),
        Section("reuse", reuse_text),
        Section("forecast", forecast_text),
        Section("takeaway", takeaway_text),
    ),
    findings_record=SingleUserRecord,
)
