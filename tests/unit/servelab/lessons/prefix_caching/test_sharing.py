"""servelab.lessons.prefix_caching.sharing: the identical-prompts workload and the blocks it
shares."""

from __future__ import annotations

from servelab.bench.prompts import WordPrompts
from servelab.lessons.prefix_caching.sharing import IdenticalPrompts, SharingExpectation
from servelab.plots.block_table import Holder, block_table


def test_a_prompt_that_fills_its_last_block_shares_one_block_less():
    # 256 tokens are two full blocks of 128, but a later sample reuses at most 255 of them:
    # its second block is computed again and held by each of the four.
    expect = SharingExpectation(4, 256, 16, 128)
    assert (expect.reusable_tokens, expect.shared_blocks) == (255, 1)
    assert expect.shared == 1 + 4 * 2 and expect.unshared == 4 * 3
    table = block_table(
        [Holder(f"s{i}", 272, shared_tokens=expect.reusable_tokens) for i in range(4)], 128
    )
    assert table.used == expect.shared


def test_identical_prompts_share_one_prompt():
    plan = IdenticalPrompts(4, 12, 8, seed=3).plan(WordPrompts())
    assert len({p.prompt for p in plan}) == 1
    assert [p.user for p in plan] == [0, 1, 2, 3]
    assert all(p.temperature == 1.0 for p in plan)
