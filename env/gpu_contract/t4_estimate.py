"""``autograder/t4-estimate.json``: the contract's estimate of a fresh T4 runtime, per chapter,
for the class report to set beside what a class measured (``autograder.wall_time``).

The autograder does not import this environment; it reads the file, which this module writes
from ``t4_count``, ``t4_starts`` and ``t4_wait`` (``python env/gpu_contract/t4_estimate.py
--write``), and ``tests/unit/env/gpu_contract/test_t4_estimate.py`` holds to them. A chapter's
parts (install, download, server starts, measurement) add up to its ``wait``, the figure of its
``t4-wait`` line and of its row in the README's table.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from t4_count import NO_DOWNLOAD, PLATFORMS, measure_seconds, wait_seconds
from t4_starts import kept_count, starts_seconds
from t4_wait import (
    COMPILE_COLD_S,
    COMPILE_WARM_S,
    INSTALL_S,
    MODEL_DOWNLOAD_S,
    SECONDS_PER_GRAPH,
    START_FIXED_S,
)

from servelab.book import CHAPTERS

ESTIMATE_JSON = Path(__file__).parents[2] / "autograder" / "t4-estimate.json"


def _chapter(chapter: str, platform: str) -> dict[str, list[float]]:
    """One chapter's parts on ``platform``, low and high: the parts its ``t4-wait`` line adds."""
    low, high = measure_seconds(chapter, platform)
    download = 0.0 if chapter in NO_DOWNLOAD else MODEL_DOWNLOAD_S.value
    starts = round(starts_seconds(chapter, platform), 1)
    return {
        "install": [INSTALL_S.value] * 2,
        "download": [download] * 2,
        "server_starts": [len(kept_count(chapter, platform).starts)] * 2,
        "starts": [starts] * 2,
        "measure": [round(low, 1), round(high, 1)],
        "wait": [round(value, 1) for value in wait_seconds(chapter, platform)],
    }


def estimate() -> dict[str, Any]:
    """Per chapter and platform the parts of its wait (``_chapter``); per start its fixed part
    with a warm or cold compile, the compile, and a graph's capture."""
    fixed = START_FIXED_S.value
    return {
        "source": "env/gpu_contract/t4_estimate.py, from t4_count, t4_starts and t4_wait",
        "units": {"server_starts": "starts"},
        "per_start": {
            "start": {
                "value": [fixed + COMPILE_WARM_S.value, fixed + COMPILE_COLD_S.value],
                "unit": "s a start, graphs aside",
            },
            "compile": {"value": [COMPILE_WARM_S.value, COMPILE_COLD_S.value], "unit": "s a start"},
            "graphs": {"value": [SECONDS_PER_GRAPH.value] * 2, "unit": "s a graph"},
        },
        "chapters": {
            chapter.id: {platform: _chapter(chapter.id, platform) for platform in PLATFORMS}
            for chapter in CHAPTERS
        },
    }


def text() -> str:
    return json.dumps(estimate(), indent=1, sort_keys=True) + "\n"


if __name__ == "__main__":
    if sys.argv[1:] == ["--write"]:
        ESTIMATE_JSON.write_text(text(), encoding="utf-8")
    else:
        print(text(), end="")
