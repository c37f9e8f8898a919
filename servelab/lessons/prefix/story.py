"""Chapter 04's story: every passage its page writes from its numbers, in page order
(:mod:`servelab.lessons.story`)."""

from __future__ import annotations

from servelab.lessons.prefix.chapter import CHAPTER
from servelab.lessons.prefix.words import (
    first_token_text,
    reuse_prediction,
    reuse_text,
    sharing_text,
)
from servelab.lessons.story import Section, Story

STORY = Story(CHAPTER.id, (
    Section("first_token", first_token_text),
    Section("prediction", reuse_prediction),
    Section("reuse", reuse_text),
    Section("sharing", sharing_text),
))
