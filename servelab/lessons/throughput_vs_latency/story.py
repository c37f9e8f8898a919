"""Chapter 07's story: every passage its page writes from its numbers, in page order
(:mod:`servelab.lessons.story`)."""

from __future__ import annotations

from servelab.lessons.story import Section, Story
from servelab.lessons.throughput_vs_latency.chapter import CHAPTER
from servelab.lessons.throughput_vs_latency.grid_words import grid_text
from servelab.lessons.throughput_vs_latency.knee_words import knee_forecast_text, knee_text
from servelab.lessons.throughput_vs_latency.metrics_words import metrics_text, timeline_title
from servelab.lessons.throughput_vs_latency.record import DeploymentsRecord
from servelab.lessons.throughput_vs_latency.slot_words import prediction_text, rates_check_text
from servelab.lessons.throughput_vs_latency.sweep_words import caps_pace_text, rates_title
from servelab.lessons.throughput_vs_latency.words import story

STORY = Story(
    CHAPTER.id,
    (
        Section("knee_forecast", knee_forecast_text),
        Section("forecast", prediction_text),
        Section("knee", knee_text),
        Section("grid", grid_text),
        Section("timeline_title", timeline_title, title=True),
        Section("metrics", metrics_text),
        Section("rates_title", rates_title, title=True),
        Section("rates_check", rates_check_text),
        Section("pace", caps_pace_text),
        Section("interpretation", story),
    ),
    findings_record=DeploymentsRecord,
)
