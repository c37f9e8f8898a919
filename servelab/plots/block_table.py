"""A block-table figure (chapters 03-04): each sequence's logical blocks and where they live.

The block counts follow from the block size the engine reports and the sequences' real token
counts; the physical block numbers are illustrative (handed out in order, round by round as the
sequences grow), since the engine does not publish its table.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import matplotlib.pyplot as plt
from matplotlib.figure import Figure
from matplotlib.patches import Patch, Rectangle

from servelab.lessons.paging.kv import blocks_for
from servelab.plots import COLORS, SERIES_COLORS, legend_below, style

SHARED_COLOR = "#7a7a7a"
FREE_COLOR = "#eeeeee"
POOL_COLUMNS = 16


@dataclass(frozen=True)
class Holder:
    """One sequence: ``tokens`` in all, of which the first ``shared_tokens`` are a prompt it
    shares with every other holder that has the same ``shared_tokens``."""

    name: str
    tokens: int
    shared_tokens: int = 0


@dataclass(frozen=True)
class BlockTable:
    """Logical → physical block numbers per holder, and which physical blocks are shared."""

    block_size: int
    rows: dict[str, list[int]]
    fill: dict[str, int]  # tokens in each holder's last block
    shared: frozenset[int]
    owner: dict[int, str]  # physical block -> holder name, or "shared"

    @property
    def used(self) -> int:
        return len(self.owner)

    @property
    def unshared(self) -> int:
        """Blocks the same holders would take if nothing were shared."""
        return sum(len(row) for row in self.rows.values())


def block_table(holders: Sequence[Holder], block_size: int) -> BlockTable:
    """Hand out physical blocks: shared full blocks once, then each holder's own blocks one
    round at a time (so a growing sequence's blocks need not sit side by side)."""
    if not holders:
        raise ValueError("need at least one holder")
    shared_ids: dict[int, list[int]] = {}
    owner: dict[int, str] = {}
    for holder in holders:
        full = holder.shared_tokens // block_size
        if full and holder.shared_tokens not in shared_ids:
            start = len(owner)
            shared_ids[holder.shared_tokens] = list(range(start, start + full))
            owner.update(dict.fromkeys(shared_ids[holder.shared_tokens], "shared"))
    own = {
        h.name: blocks_for(h.tokens, block_size) - len(shared_ids.get(h.shared_tokens, []))
        for h in holders
    }
    rows = {h.name: list(shared_ids.get(h.shared_tokens, [])) for h in holders}
    for round_ in range(max(own.values(), default=0)):
        for holder in holders:
            if round_ < own[holder.name]:
                rows[holder.name].append(len(owner))
                owner[len(owner)] = holder.name
    fill = {h.name: h.tokens - (blocks_for(h.tokens, block_size) - 1) * block_size for h in holders}
    shared = frozenset(b for ids in shared_ids.values() for b in ids)
    return BlockTable(block_size, rows, fill, shared, owner)


def plot_block_table(holders: Sequence[Holder], block_size: int, title: str) -> Figure:
    """Left: each holder's block table (logical block → physical number, the last block filled
    as far as its tokens go). Right: the physical pool, coloured by owner."""
    table = block_table(holders, block_size)
    colors = {h.name: SERIES_COLORS[i % len(SERIES_COLORS)] for i, h in enumerate(holders)}
    colors["shared"] = SHARED_COLOR
    width = max(len(row) for row in table.rows.values())
    pool = table.used + max(4, table.used // 4)
    pool_rows = -(-pool // POOL_COLUMNS)
    with style():
        figure, (left, right) = plt.subplots(
            1,
            2,
            figsize=(10, 1.6 + 0.55 * max(len(holders), pool_rows)),
            layout="constrained",
            gridspec_kw={"width_ratios": [max(width, 4), POOL_COLUMNS * 0.7]},
        )
        for y, holder in enumerate(reversed(holders)):
            row = table.rows[holder.name]
            for x, physical in enumerate(row):
                color = colors["shared" if physical in table.shared else holder.name]
                used = table.fill[holder.name] / block_size if x == len(row) - 1 else 1.0
                left.add_patch(
                    Rectangle(
                        (x, y + 0.1), 0.95, 0.8, facecolor="white", edgecolor=color, linewidth=1.2
                    )
                )
                left.add_patch(
                    Rectangle(
                        (x, y + 0.1), 0.95 * used, 0.8, facecolor=color, alpha=0.85, linewidth=0
                    )
                )
                left.text(
                    x + 0.47,
                    y + 0.5,
                    str(physical),
                    ha="center",
                    va="center",
                    fontsize=7,
                    color="white" if used > 0.5 else "black",
                )
        left.set_xlim(0, max(width, 4))
        left.set_ylim(0, len(holders))
        left.set_yticks(
            [y + 0.5 for y in range(len(holders))],
            [f"{h.name} ({h.tokens} tok)" for h in reversed(holders)],
        )
        left.set_xlabel(f"logical block (of {block_size} tokens); the number is the physical block")
        left.grid(False)
        for index in range(pool):
            x, y = index % POOL_COLUMNS, pool_rows - 1 - index // POOL_COLUMNS
            color = colors[table.owner[index]] if index in table.owner else FREE_COLOR
            right.add_patch(Rectangle((x, y), 0.92, 0.92, facecolor=color, edgecolor="white"))
            right.text(
                x + 0.46,
                y + 0.46,
                str(index),
                ha="center",
                va="center",
                fontsize=6,
                color="white" if index in table.owner else COLORS["waiting"],
            )
        right.set_xlim(0, POOL_COLUMNS)
        right.set_ylim(0, pool_rows)
        right.set_axis_off()
        right.set_title(f"physical pool: {table.used} blocks in use", fontsize=9)
        legend = [Patch(color=colors[h.name], label=h.name) for h in holders]
        if table.shared:
            legend.insert(0, Patch(color=SHARED_COLOR, label="shared prompt blocks"))
        legend.append(Patch(color=FREE_COLOR, label="free"))
        legend_below(figure, legend)
        figure.suptitle(title, fontsize=11, fontweight="bold")
    return figure
