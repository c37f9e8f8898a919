"""Capacity planning on chapter 03's KV arithmetic: how many users of one context length a card
holds for a model, from the figures the model publishes, and the same arithmetic held against
the KV-cache size a running engine reports.

The memory vLLM gives the KV cache on a GPU is the card's total (as CUDA reports it) times
``gpu_memory_utilization``, less the weights, less what the engine needs besides: the
activations of its largest step, memory outside PyTorch (CUDA's own context, communication
buffers) and CUDA graphs. vLLM measures that last part when it starts; a plan made beforehand can
only assume it, so it is a parameter (``allowance_gib``), and ``ALLOWANCE_GIB`` says where its
default comes from. The cache is then cut into blocks (``servelab.lessons.paging.kv``): a plan
counts whole blocks, leaves out the one vLLM keeps back, and gives each user a full context.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import pandas as pd

from servelab.hardware import DTYPE_BYTES, Device
from servelab.lessons.paging.kv import KVShape, blocks_for, usable_blocks

GIB = 2**30
GPU_BLOCK = 16  # tokens per KV block: vLLM's default on a CUDA GPU (its CPU engine uses 128)
DEFAULT_SHARE = 0.9  # vLLM's default --gpu-memory-utilization

# What the engine needs besides weights and cache: an assumption, not a measurement. vLLM's own
# start-up profile of an 8B Llama on an 80 GB card logged 1.79 GiB outside PyTorch and a 1.26 GiB
# activation peak (vllm-project/vllm pull request #10511); smaller models and smaller step budgets
# need less, CUDA graphs can add some. Rounded down to 3 GiB for every model and card below.
ALLOWANCE_GIB = 3.0


@dataclass(frozen=True)
class PublishedModel:
    """A model as its own files describe it, so a plan needs no download: the KV factors from
    its config.json (``num_hidden_layers``, ``num_key_value_heads``, and ``head_dim`` or
    ``hidden_size`` ÷ ``num_attention_heads``), its parameter count, and where each was read."""

    name: str
    layers: int
    kv_heads: int
    head_dim: int
    parameters: float
    source: str

    def shape(self, dtype: str = "bfloat16") -> KVShape:
        """The KV factors of one token in ``dtype``, as ``kv_shape`` would read them."""
        return KVShape(layers=self.layers, kv_heads=self.kv_heads, head_dim=self.head_dim,
                       dtype=dtype)

    def weight_gib(self, dtype: str = "bfloat16") -> float:
        """GiB of unquantized weights in ``dtype``: one value per parameter."""
        return self.parameters * DTYPE_BYTES[dtype] / GIB


# The KV factors are each model's config.json on the Hugging Face hub (its hub name first in
# ``source``); parameter counts are the model card's where it gives one to two decimals, else
# counted from the same config's matrix shapes (tests/test_paging_capacity.py recounts them all).
PUBLISHED_MODELS: tuple[PublishedModel, ...] = (
    PublishedModel("Qwen3-0.6B", layers=28, kv_heads=8, head_dim=128, parameters=0.6e9,
                   source="Qwen/Qwen3-0.6B config.json (head_dim 128); 0.6B parameters on its "
                          "model card (0.44B without the embedding)"),
    PublishedModel("Llama-3.2-3B-Instruct", layers=28, kv_heads=8, head_dim=128,
                   parameters=3.21e9,
                   source="meta-llama/Llama-3.2-3B-Instruct config.json (head_dim 128); "
                          "3.21B parameters counted from its shapes (embedding tied)"),
    PublishedModel("Qwen2.5-7B-Instruct", layers=28, kv_heads=4, head_dim=128,
                   parameters=7.61e9,
                   source="Qwen/Qwen2.5-7B-Instruct config.json (hidden_size 3584 ÷ 28 "
                          "attention heads = 128); 7.61B parameters on its model card"),
    PublishedModel("Mistral-7B-Instruct-v0.3", layers=32, kv_heads=8, head_dim=128,
                   parameters=7.25e9,
                   source="mistralai/Mistral-7B-Instruct-v0.3 config.json (hidden_size 4096 ÷ "
                          "32 attention heads = 128); 7.25B parameters counted from its shapes"),
    PublishedModel("Llama-3.1-8B-Instruct", layers=32, kv_heads=8, head_dim=128,
                   parameters=8.03e9,
                   source="meta-llama/Llama-3.1-8B-Instruct config.json (head_dim 128); 8.03B "
                          "parameters counted from its shapes"),
)


@dataclass(frozen=True)
class Card:
    """An accelerator's memory as vLLM sees it: the total CUDA reports, which
    ``gpu_memory_utilization`` multiplies (a little under the figure on the box)."""

    name: str
    memory_gib: float
    source: str


CARDS: tuple[Card, ...] = (
    Card("16 GB (T4)", 14.74, "CUDA's total on a Tesla T4 (servelab.hardware.Device)"),
    Card("80 GB (A100, H100)", 79.22,
         "total_gpu_memory in vLLM's start-up profile on an 80 GB card "
         "(vllm-project/vllm pull request #10511)"),
)


def card_of(device: Device) -> Card | None:
    """This runtime's GPU as one more card to plan for (one card of several alike); ``None`` on
    a CPU, where vLLM is given a cache size instead of a share."""
    if device.kind != "cuda":
        return None
    return Card(f"{device.name} (this runtime)", round(device.cuda_memory_gib, 2),
                "CUDA's total on this runtime (nvidia-smi's, less what the driver keeps)")


def planning_cards(device: Device) -> list[Card]:
    """The cards a plan covers on ``device``: the two of ``CARDS``, and this runtime's own GPU
    as a third where it has one."""
    own = card_of(device)
    return [*CARDS, own] if own is not None else list(CARDS)


def whole_block_tokens(shape: KVShape, cache_bytes: int, block: int) -> int:
    """The KV tokens a cache of ``cache_bytes`` holds in whole blocks of ``block`` tokens: the
    count vLLM reports as its KV cache size (the block it keeps back included)."""
    if cache_bytes <= 0:
        return 0
    return shape.tokens_in(cache_bytes) // block * block


@dataclass(frozen=True)
class CachePlan:
    """What one card's share leaves for one model's KV cache, and whom it holds."""

    model: PublishedModel
    card: Card
    share: float
    allowance_gib: float
    dtype: str
    block: int

    @property
    def shape(self) -> KVShape:
        return self.model.shape(self.dtype)

    @property
    def weights_gib(self) -> float:
        return self.model.weight_gib(self.dtype)

    @property
    def room_gib(self) -> float:
        """share × card − weights − allowance; at or below zero the model does not fit."""
        return self.share * self.card.memory_gib - self.weights_gib - self.allowance_gib

    @property
    def fits(self) -> bool:
        return self.room_gib > 0

    @property
    def cache_tokens(self) -> int:
        """KV tokens the room holds, in whole blocks (what the engine would report)."""
        return whole_block_tokens(self.shape, int(self.room_gib * GIB), self.block)

    def users(self, context: int) -> int:
        """Users whose whole ``context`` is in the cache at once: the blocks left after the one
        vLLM keeps back, divided by the blocks one full context takes."""
        return usable_blocks(self.cache_tokens, self.block) // blocks_for(context, self.block)


def plan_cache(model: PublishedModel, card: Card, *, share: float = DEFAULT_SHARE,
               allowance_gib: float = ALLOWANCE_GIB, dtype: str = "bfloat16",
               block: int = GPU_BLOCK) -> CachePlan:
    """The plan for serving ``model`` on ``card`` with vLLM given ``share`` of its memory."""
    if not 0 < share <= 1:
        raise ValueError(f"share is a fraction of the card, in (0, 1]; got {share}")
    if dtype not in DTYPE_BYTES:
        raise ValueError(f"unknown dtype {dtype!r}; known: {sorted(DTYPE_BYTES)}")
    return CachePlan(model=model, card=card, share=share, allowance_gib=allowance_gib,
                     dtype=dtype, block=block)


def users_column(context: int) -> str:
    return f"users at {context:,} tokens"


def plan_table(plans: Sequence[CachePlan], contexts: Sequence[int]) -> pd.DataFrame:
    """One row per plan: the model's KV cost and weights, the room left on the card, and the
    users of each context length that fit (0 where the weights alone do not)."""
    rows = []
    for plan in plans:
        row = {"card": plan.card.name, "model": plan.model.name,
               "KV per token (KiB)": plan.shape.bytes_per_token / 2**10,
               "weights (GiB)": round(plan.weights_gib, 2),
               "room for KV (GiB)": round(max(plan.room_gib, 0.0), 2),
               "KV tokens": plan.cache_tokens}
        row |= {users_column(context): plan.users(context) for context in contexts}
        rows.append(row)
    return pd.DataFrame(rows)


def _names(plans: Sequence[CachePlan]) -> str:
    names = [plan.model.name for plan in plans]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def plan_text(plans: Sequence[CachePlan], contexts: Sequence[int]) -> str:
    """What the plans show: which weights do not fit, who holds the most and the fewest users
    of the longest context on the largest card, and why (the KV cost per token)."""
    parts = []
    cards = list(dict.fromkeys(plan.card for plan in plans))
    for card in cards:
        left_out = [plan for plan in plans if plan.card == card and not plan.fits]
        if left_out:
            first = left_out[0]
            verb = "does" if len(left_out) == 1 else "do"
            parts.append(
                f"On the {card.name} card, {_names(left_out)} {verb} not fit at all: "
                f"{first.share:.0%} of its {card.memory_gib:.2f} GiB, less the "
                f"{first.allowance_gib:g} GiB allowance, is less than the weights take in "
                f"{first.dtype}: {'it needs' if len(left_out) == 1 else 'they need'} "
                "quantized weights or a second card.")
    largest = max(cards, key=lambda card: card.memory_gib)
    longest = max(contexts)
    served = [plan for plan in plans if plan.card == largest and plan.fits]
    if len(served) >= 2:
        most = max(served, key=lambda plan: plan.users(longest))
        fewest = min(served, key=lambda plan: plan.users(longest))
        if most.users(longest) > fewest.users(longest):
            held = (f"On the {largest.name} card, {most.model.name} holds "
                    f"**{most.users(longest)}** users of {longest:,} tokens at once and "
                    f"{fewest.model.name} **{fewest.users(longest)}**.")
            if most.shape.bytes_per_token < fewest.shape.bytes_per_token:
                held += (f" A token of {most.model.name} costs "
                         f"{most.shape.bytes_per_token:,} bytes ({most.model.layers} layers × "
                         f"{most.model.kv_heads} KV heads), one of {fewest.model.name} "
                         f"{fewest.shape.bytes_per_token:,} ({fewest.model.layers} × "
                         f"{fewest.model.kv_heads}): "
                         f"{fewest.shape.bytes_per_token / most.shape.bytes_per_token:.1f}× "
                         "as much.")
            else:
                held += (f" A token costs {fewest.shape.bytes_per_token:,} bytes in "
                         f"{fewest.model.name} against {most.shape.bytes_per_token:,} in "
                         f"{most.model.name}: the difference is the room its "
                         f"{fewest.weights_gib:.1f} GiB of weights take up.")
            parts.append(held)
    smallest = min((plan for plan in plans if plan.card == largest),
                   key=lambda plan: plan.model.parameters, default=None)
    cheapest = min((plan for plan in plans if plan.card == largest),
                   key=lambda plan: plan.shape.bytes_per_token, default=None)
    if smallest is not None and cheapest is not None and (
            cheapest.shape.bytes_per_token < smallest.shape.bytes_per_token):
        parts.append(
            f"The smallest model is not the cheapest to keep in the cache: {smallest.model.name} "
            f"({smallest.model.parameters / 1e9:.1f}B parameters) costs "
            f"{smallest.shape.bytes_per_token:,} bytes a token, {cheapest.model.name} "
            f"({cheapest.model.parameters / 1e9:.1f}B) {cheapest.shape.bytes_per_token:,}. The "
            "cost of a token follows layers, KV heads and head size, not the parameter count.")
    caveat = ("Each user here holds a full context; with paging, users whose conversations "
              "are shorter hold fewer blocks, so these counts are the floor, not the ceiling.")
    return "\n\n".join([" ".join(parts), caveat]) if parts else caveat


# -- the arithmetic against the engine -----------------------------------------------------------
@dataclass(frozen=True)
class EngineCheck:
    """The KV tokens the arithmetic predicts for a cache of ``cache_bytes`` against the count
    the engine reported for it."""

    bytes_per_token: int
    cache_bytes: int
    block: int
    max_model_len: int
    predicted: int
    reported: int

    @classmethod
    def of(cls, shape: KVShape, *, cache_bytes: int, block: int, reported: int,
           max_model_len: int) -> EngineCheck:
        return cls(bytes_per_token=shape.bytes_per_token, cache_bytes=cache_bytes, block=block,
                   max_model_len=max_model_len,
                   predicted=whole_block_tokens(shape, cache_bytes, block), reported=reported)

    @property
    def blocks(self) -> int:
        return self.predicted // self.block

    @property
    def difference(self) -> int:
        """Reported minus predicted tokens."""
        return self.reported - self.predicted

    @property
    def counted_in_requests(self) -> int:
        """The count vLLM 0.32 reports for the same blocks: the blocks divided by those one
        request of ``max_model_len`` takes (whole blocks), times ``max_model_len``, truncated.
        It equals ``predicted`` when ``max_model_len`` is a whole number of blocks, but for the
        rounding of that division in floating point."""
        per_request = math.ceil(self.max_model_len / self.block)
        return int(self.blocks / per_request * self.max_model_len)


def _held_back(kv_tokens: int, block: int) -> str:
    usable = usable_blocks(kv_tokens, block)
    return (f" That count includes the one block vLLM keeps back for itself (its null block), "
            f"so {usable:,} blocks are there for sequences.")


def engine_check_text(check: EngineCheck) -> str:
    """How close the arithmetic came to the engine's own count, and why they differ if they do."""
    sum_up = (f"This chapter's server was given {check.cache_bytes:,} bytes of KV cache "
              f"({check.cache_bytes / GIB:.3f} GiB). At {check.bytes_per_token:,} bytes a token "
              f"and {check.block} tokens a block, that is **{check.blocks:,}** whole blocks, "
              f"**{check.predicted:,}** tokens; the engine reported "
              f"**{check.reported:,}**.")
    if check.difference == 0:
        return (sum_up + " The two agree to the token: the engine sizes its cache with exactly "
                "this arithmetic." + _held_back(check.predicted, check.block))
    apart = abs(check.difference)
    direction = "fewer" if check.difference < 0 else "more"
    if check.reported == check.counted_in_requests:
        why = (f"{check.max_model_len:,} is not a whole number of {check.block}-token blocks"
               if check.max_model_len % check.block else "the division rounds down")
        return (sum_up + f" That is {apart:,} tokens {direction} than predicted, and it is what "
                "the same blocks give when this vLLM counts them as requests of "
                f"{check.max_model_len:,} tokens and multiplies back: {why}."
                + _held_back(check.predicted, check.block))
    return (sum_up + f" They differ by {apart:,} tokens ({apart / check.block:.1f} blocks; the "
            f"engine has {direction}): the engine did not get the memory or the token size "
            "assumed here. Compare the dtype the server ran with (`server.flags['dtype']`) and "
            "the KV cache dtype in its log, and the block size in its `/metrics`."
            + _held_back(check.reported, check.block))
