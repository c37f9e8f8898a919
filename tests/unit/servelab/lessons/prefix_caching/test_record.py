"""servelab.lessons.prefix_caching.record: chapter 04's figures from one real run's recorded
findings and made-up medians of the load's runs."""

from __future__ import annotations

import pandas as pd

from course.paths import REPO_ROOT
from servelab.lessons import recorded
from servelab.lessons.prefix_caching.chapter import CHAPTER
from servelab.lessons.prefix_caching.record import PrefixRecord
from servelab.lessons.prefix_caching.story import STORY

RUN = REPO_ROOT / "tests" / "snapshots" / CHAPTER.id / "avx512-bf16.json"


def test_the_record_gives_every_declared_figure_from_its_findings() -> None:
    run = recorded.load(RUN, STORY.kinds())
    sharing = run["sharing"]
    peaks = {
        "n4_on": sharing.n4_on,
        "n4_off": sharing.n4_off,
        "same_on": sharing.same_on,
        "different_on": sharing.different_on,
    }
    record = PrefixRecord(
        reuse=run["reuse"],
        load=run["load"],
        typical_on=pd.Series({"request_per_s": 2.5, "ttft_ms": 350.0}),
        typical_off=pd.Series({"request_per_s": 0.5, "ttft_ms": 3600.0}),
        peaks=peaks,
        expect=sharing.expect,
    )
    figures = record.figures().by_name()
    assert record.chapter == "04-prefix-caching"
    assert set(figures) == set(CHAPTER.figures)
    assert (figures["request_per_s_cached"], figures["request_per_s_uncached"]) == (2.5, 0.5)
    assert (
        figures["prompt_tokens_computed_cached"],
        figures["prompt_tokens_computed_uncached"],
    ) == (96.0, 2016.0)
    assert figures["ttft_ms_p50_uncached"] == run["load"].off.median
    assert (figures["peak_blocks_samples_cached"], figures["peak_blocks_identical_cached"]) == (
        11.0,
        11.0,
    )
    assert figures["peak_blocks_samples_uncached"] == sharing.n4_off
    assert (figures["expected_blocks_shared"], figures["expected_blocks_unshared"]) == (
        sharing.expect.shared,
        sharing.expect.unshared,
    )
