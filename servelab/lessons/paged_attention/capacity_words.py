"""Capacity planning in words and as a table, from ``paging.capacity``: the plans of each model
on each card, and the arithmetic held against the count a running engine reported."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from servelab.lessons.paging.capacity import CachePlan, EngineCheck, PlansCompared


def users_column(context: int) -> str:
    return f"users at {context:,} tokens"


def plan_table(plans: Sequence[CachePlan], contexts: Sequence[int]) -> pd.DataFrame:
    """One row per plan: the model's KV cost and weights, the room left on the card, and the
    users of each context length that fit (0 where the weights alone do not)."""
    rows = []
    for plan in plans:
        row = {
            "card": plan.card.name,
            "model": plan.model.name,
            "KV per token (KiB)": plan.kv_kib_per_token,
            "weights (GiB)": round(plan.weights_gib, 2),
            "room for KV (GiB)": round(plan.room_left_gib, 2),
            "KV tokens": plan.cache_tokens,
        }
        row |= {users_column(context): plan.users(context) for context in contexts}
        rows.append(row)
    return pd.DataFrame(rows)


def _names(plans: Sequence[CachePlan]) -> str:
    names = [plan.model.name for plan in plans]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def plan_text(plans: Sequence[CachePlan], contexts: Sequence[int]) -> str:
    """What the plans show: which weights do not fit, who holds the most and the fewest users
    of the longest context on the largest card, and why (the KV cost per token)."""
    found = PlansCompared.of(plans, contexts)
    parts = []
    for card in found.cards:
        left_out = found.left_out(card)
        if left_out:
            first = left_out[0]
            verb = "does" if len(left_out) == 1 else "do"
            parts.append(
                f"On the {card.name} card, {_names(left_out)} {verb} not fit at all. "
                f"What is left of its {card.memory_gib:.2f} GiB ({first.share:.0%} of it, less "
                f"the {first.allowance_gib:g} GiB allowance) is less than the weights take in "
                f"{first.dtype}, so {'it needs' if len(left_out) == 1 else 'they need'} "
                "quantized weights or a second card."
            )
    largest, longest, holders = found.largest, found.longest, found.most_and_fewest
    if holders is not None:
        most, fewest = holders.most, holders.fewest
        held = (
            f"On the {largest.name} card, {most.model.name} holds "
            f"**{most.users(longest)}** users of {longest:,} tokens at once and "
            f"{fewest.model.name} **{fewest.users(longest)}**."
        )
        if holders.cheaper_token:
            held += (
                f" A token of {most.model.name} costs "
                f"{most.shape.bytes_per_token:,} bytes ({most.model.layers} layers × "
                f"{most.model.kv_heads} KV heads), one of {fewest.model.name} "
                f"{fewest.shape.bytes_per_token:,} ({fewest.model.layers} × "
                f"{fewest.model.kv_heads}): {holders.cost_ratio:.1f}× as much."
            )
        else:
            held += (
                f" A token costs {fewest.shape.bytes_per_token:,} bytes in "
                f"{fewest.model.name} against {most.shape.bytes_per_token:,} in "
                f"{most.model.name}: the difference is the room its "
                f"{fewest.weights_gib:.1f} GiB of weights take up."
            )
        parts.append(held)
    if found.smallest_and_cheapest is not None:
        smallest, cheapest = found.smallest_and_cheapest
        parts.append(
            f"The smallest model is not the cheapest to keep in the cache: {smallest.model.name} "
            f"({smallest.model.billions:.1f}B parameters) costs "
            f"{smallest.shape.bytes_per_token:,} bytes a token, {cheapest.model.name} "
            f"({cheapest.model.billions:.1f}B) {cheapest.shape.bytes_per_token:,}. The "
            "cost of a token follows layers, KV heads and head size, not the parameter count."
        )
    caveat = (
        "Each user here holds a full context. With paging, users whose conversations "
        "are shorter hold fewer blocks. So these counts are the floor, not the ceiling."
    )
    return "\n\n".join([" ".join(parts), caveat]) if parts else caveat


def _held_back(usable: int) -> str:
    return (
        f" That count includes the one block vLLM keeps back for itself (its null block), "
        f"so {usable:,} blocks are there for sequences."
    )


def engine_check_text(check: EngineCheck) -> str:
    """How close the arithmetic came to the engine's own count, and why they differ if they do."""
    sum_up = (
        f"This chapter's server was given {check.cache_bytes:,} bytes of KV cache "
        f"({check.cache_gib:.3f} GiB). At {check.bytes_per_token:,} bytes a token "
        f"and {check.block} tokens a block, that is **{check.blocks:,}** whole blocks, "
        f"**{check.predicted:,}** tokens; the engine reported "
        f"**{check.reported:,}**."
    )
    if check.difference == 0:
        return (
            sum_up + " The two agree to the token: the engine sizes its cache with exactly "
            "this arithmetic." + _held_back(check.usable(check.predicted))
        )
    apart = check.apart
    direction = "fewer" if check.engine_has_fewer else "more"
    if check.reported == check.counted_in_requests:
        why = (
            f"{check.max_model_len:,} is not a whole number of {check.block}-token blocks"
            if check.ragged
            else "the division rounds down"
        )
        return (
            sum_up + f" That is {apart:,} tokens {direction} than predicted, and it is what "
            "the same blocks give when this vLLM counts them as requests of "
            f"{check.max_model_len:,} tokens and multiplies back: {why}."
            + _held_back(check.usable(check.predicted))
        )
    return (
        sum_up + f" They differ by {apart:,} tokens ({check.apart_blocks:.1f} blocks; the "
        f"engine has {direction}): the engine did not get the memory or the token size "
        "assumed here. Compare the dtype the server ran with (`server.flags['dtype']`) and "
        "the KV cache dtype in its log, and the block size in its `/metrics`."
        + _held_back(check.usable(check.reported))
    )
