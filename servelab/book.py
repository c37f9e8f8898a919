"""The book's chapters in reading order, each from its own package's ``chapter`` module.

Everything that lists chapters (``course.paths.CHAPTERS``, the sizes ``runtime.sizes`` reads,
``servelab.results.FIGURES``, the class report) derives from :data:`CHAPTERS`.
"""

from __future__ import annotations

from typing import Any

from servelab.chapter import Chapter
from servelab.lessons.capacity_plan.chapter import CHAPTER as CAPACITY_PLAN
from servelab.lessons.chunked_prefill.chapter import CHAPTER as CHUNKED_PREFILL
from servelab.lessons.continuous_batching.chapter import CHAPTER as CONTINUOUS_BATCHING
from servelab.lessons.paged_attention.chapter import CHAPTER as PAGED_ATTENTION
from servelab.lessons.past_one_machine.chapter import CHAPTER as PAST_ONE_MACHINE
from servelab.lessons.prefix_caching.chapter import CHAPTER as PREFIX_CACHING
from servelab.lessons.serving_engine.chapter import CHAPTER as SERVING_ENGINE
from servelab.lessons.serving_many_users.chapter import CHAPTER as SERVING_MANY_USERS
from servelab.lessons.the_dials.chapter import CHAPTER as THE_DIALS
from servelab.lessons.throughput_vs_latency.chapter import CHAPTER as THROUGHPUT_VS_LATENCY
from servelab.lessons.when_not_to.chapter import CHAPTER as WHEN_NOT_TO

CHAPTERS: tuple[Chapter[Any], ...] = (
    SERVING_MANY_USERS,
    SERVING_ENGINE,
    CONTINUOUS_BATCHING,
    PAGED_ATTENTION,
    PREFIX_CACHING,
    THE_DIALS,
    CHUNKED_PREFILL,
    THROUGHPUT_VS_LATENCY,
    WHEN_NOT_TO,
    PAST_ONE_MACHINE,
    CAPACITY_PLAN,
)
BY_ID: dict[str, Chapter[Any]] = {chapter.id: chapter for chapter in CHAPTERS}
