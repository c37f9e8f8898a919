"""Chapter 04's story: every passage its page writes from its numbers, in page order
(:mod:`servelab.lessons.story`)."""

from __future__ import annotations

from servelab.lessons.prefix_caching.chapter import CHAPTER
from servelab.lessons.prefix_caching.record import PrefixRecord
from servelab.lessons.prefix_caching.words import (
    first_token_text,
    peaks_title,
    probe_title,
    reuse_prediction,
    reuse_text,
    shared_blocks_title,
    sharing_text,
)
from servelab.lessons.story import Section, Story

STORY = Story(
    CHAPTER.id,
    (
        Section("probe_title", probe_title, title=True),
        Section("first_token", first_token_text),
        Section("peaks_title", peaks_title, title=True),
        Section("shared_blocks_title", shared_blocks_title, title=True),
        Section("prediction", reuse_prediction),
        Section("reuse", reuse_text),
        Section("sharing", sharing_text),
    ),
    findings_record=PrefixRecord,
)
