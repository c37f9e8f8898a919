"""Chapter 10's story: every passage its page writes from its numbers, in page order
(:mod:`servelab.lessons.story`)."""

from __future__ import annotations

from servelab.lessons.capacity_plan.chapter import CHAPTER
from servelab.lessons.capacity_plan.pace_try_words import pace_try_text
from servelab.lessons.capacity_plan.record import CapacityRecord
from servelab.lessons.capacity_plan.words import (
    check_text,
    plan_text,
    published_text,
    queue_title,
    summary_text,
)
from servelab.lessons.device_model.words import closing_text
from servelab.lessons.story import Section, Story

STORY = Story(
    CHAPTER.id,
    (
        Section("plan", plan_text),
        Section("queue", queue_title, title=True),
        Section("check", check_text),
        Section("pace_try", pace_try_text),
        Section("published", published_text),
        Section("closing", closing_text),
        Section("summary", summary_text),
    ),
    findings_record=CapacityRecord,
)
