"""Chapter 00's story: every passage its page writes from its numbers, in page order
(:mod:`servelab.lessons.story`)."""

from __future__ import annotations

from servelab.lessons.chunking.words import effect_text, sizing_text
from servelab.lessons.serving_many_users.chapter import CHAPTER
from servelab.lessons.serving_many_users.record import OverviewRecord
from servelab.lessons.serving_many_users.words import (
    batching_text,
    batching_title,
    lesson_summary,
    load_line,
    paging_text,
    prefix_text,
    reuse_title,
    trade_title,
)
from servelab.lessons.story import Section, Story

STORY = Story(
    CHAPTER.id,
    (
        Section("batching_title", batching_title, title=True),
        Section("batching", batching_text),
        Section("paging", paging_text),
        Section("reuse_title", reuse_title, title=True),
        Section("prefix", prefix_text),
        Section("load", load_line),
        Section("sizing", sizing_text),
        Section("trade_title", trade_title, title=True),
        Section("effect", effect_text),
        Section("summary", lesson_summary),
    ),
    findings_record=OverviewRecord,
)
