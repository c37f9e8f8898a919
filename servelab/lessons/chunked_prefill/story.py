"""Chapter 06's story: every passage its page writes from its numbers, in page order
(:mod:`servelab.lessons.story`)."""

from __future__ import annotations

from servelab.lessons.chunked_prefill.chapter import CHAPTER
from servelab.lessons.chunked_prefill.forecast_words import (
    alone_line,
    chunks_line,
    document_line,
    forecast_text,
    reading_line,
    spacing_line,
)
from servelab.lessons.chunked_prefill.record import ChunkingRecord
from servelab.lessons.chunking.words import gaps_title, story, trade_title
from servelab.lessons.story import Section, Story

STORY = Story(
    CHAPTER.id,
    (
        Section("document", document_line),
        Section("reading", reading_line),
        Section("spacing", spacing_line),
        Section("chunks", chunks_line),
        Section("alone", alone_line),
        Section("gaps_title", gaps_title, title=True),
        Section("trade_title", trade_title, title=True),
        Section("interpretation", story),
        Section("forecast", forecast_text),
    ),
    findings_record=ChunkingRecord,
)
