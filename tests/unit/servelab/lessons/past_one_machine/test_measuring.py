"""servelab.lessons.past_one_machine.measuring: the crowded cache's size (the runs against live
replicas: tests/engine/servelab/engines/test_router.py)."""

from __future__ import annotations

from servelab.lessons.past_one_machine.measuring import crowded_cache_tokens


def test_a_crowded_cache_holds_every_prompt_but_one_or_the_longest_request():
    assert crowded_cache_tokens(3, 1024, 2048) == 2048 + 256  # 2 prompts, one request
    assert crowded_cache_tokens(8, 2000, 4096) == 14_000 + 256
    assert crowded_cache_tokens(2, 256, 1024) == 1024 + 256  # holds both: not crowded
