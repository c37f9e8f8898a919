"""servelab.plots.block_table: which blocks each sequence holds, shared or not, and its figure."""

from __future__ import annotations

import matplotlib
import pytest

from servelab.lessons.prefix_caching.sharing import SharingExpectation
from servelab.plots.block_table import Holder, block_table, plot_block_table

matplotlib.use("Agg")


def test_block_table_without_sharing_interleaves_growth():
    table = block_table([Holder("a", 300), Holder("b", 100)], 128)
    assert table.rows == {"a": [0, 2, 3], "b": [1]}
    assert table.fill == {"a": 44, "b": 100}
    assert table.used == table.unshared == 4
    assert not table.shared


def test_block_table_shares_only_full_prompt_blocks():
    holders = [Holder(f"s{i}", 1000 + 64, shared_tokens=1000) for i in range(4)]
    table = block_table(holders, 128)
    assert len(table.shared) == 7  # 1000 // 128 full blocks
    assert table.used == 7 + 4 * 2  # each keeps 2 of its own
    assert table.unshared == 4 * 9
    assert all(row[:7] == list(range(7)) for row in table.rows.values())
    expect = SharingExpectation(4, 1000, 64, 128)
    assert (expect.shared, expect.unshared) == (table.used, table.unshared)


def test_block_table_figure_draws(tmp_path):
    figure = plot_block_table([Holder("x", 200, 130), Holder("y", 150, 130)], 16, title="t")
    assert len(figure.axes) == 2
    with pytest.raises(ValueError):
        block_table([], 16)
