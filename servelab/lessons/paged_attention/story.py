"""Chapter 03's story: every passage its page writes from its numbers, in page order
(:mod:`servelab.lessons.story`)."""

from __future__ import annotations

from servelab.lessons.paged_attention.capacity_words import engine_check_text, plan_text
from servelab.lessons.paged_attention.chapter import CHAPTER
from servelab.lessons.paged_attention.record import PagingRecord
from servelab.lessons.paged_attention.words import (
    admission_text,
    block_table_title,
    cramped_title,
    pace_text,
    paging_prediction,
    paging_text,
    room_title,
    roomy_title,
)
from servelab.lessons.story import Section, Story

STORY = Story(
    CHAPTER.id,
    (
        Section("room_title", room_title, title=True),
        Section("block_table_title", block_table_title, title=True),
        Section("roomy_title", roomy_title, title=True),
        Section("cramped_title", cramped_title, title=True),
        Section("plans", plan_text),
        Section("engine_check", engine_check_text),
        Section("prediction", paging_prediction),
        Section("paging", paging_text),
        Section("pace", pace_text),
        Section("admission", admission_text),
    ),
    findings_record=PagingRecord,
)
