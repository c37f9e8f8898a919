"""Chapter 09's story: every passage its page writes from its numbers, in page order
(:mod:`servelab.lessons.story`)."""

from __future__ import annotations

from servelab.lessons.past_one_machine.chapter import CHAPTER
from servelab.lessons.past_one_machine.copies_words import (
    copies_pace_text,
    copies_title,
    two_gpus_note,
)
from servelab.lessons.past_one_machine.failure_words import failure_lines, failure_title
from servelab.lessons.past_one_machine.interpretation import interpretation_text
from servelab.lessons.past_one_machine.policy_words import spread_title
from servelab.lessons.past_one_machine.record import RoutingRecord
from servelab.lessons.story import Section, Story

STORY = Story(
    CHAPTER.id,
    (
        Section("spread_title", spread_title, title=True),
        Section("failure_lines", failure_lines),
        Section("failure_title", failure_title, title=True),
        Section("two_gpus", two_gpus_note),
        Section("copies_title", copies_title, title=True),
        Section("copies_pace", copies_pace_text),
        Section("interpretation", interpretation_text),
    ),
    findings_record=RoutingRecord,
)
