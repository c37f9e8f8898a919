"""KV-cache arithmetic (chapters 03-05): bytes per token and blocks (the block-table figure is
``servelab.plots.block_table``).

A decoder keeps, for every token of every sequence, one key and one value vector per KV head in
every layer. So one token costs layers × KV heads × head dim × 2 (K and V) × bytes per value,
where the bytes per value are those of the dtype the server runs (``Server.flags["dtype"]``, or
the model's own when that is ``None``, which is what vLLM does).
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from servelab.bench.server_metrics import fetch_metrics
from servelab.hardware import DTYPE_BYTES


@dataclass(frozen=True)
class KVShape:
    """The factors of one token's KV-cache footprint."""

    layers: int
    kv_heads: int
    head_dim: int
    dtype: str

    @property
    def bytes_per_value(self) -> int:
        return DTYPE_BYTES[self.dtype]

    @property
    def bytes_per_token(self) -> int:
        return self.layers * self.kv_heads * self.head_dim * 2 * self.bytes_per_value

    def formula(self) -> str:
        return (
            f"{self.layers} layers × {self.kv_heads} KV heads × {self.head_dim} head dim × "
            f"2 (K and V) × {self.bytes_per_value} bytes ({self.dtype}) = "
            f"{self.bytes_per_token:,} bytes"
        )

    def tokens_in(self, cache_bytes: float) -> int:
        """How many tokens of KV fit in ``cache_bytes``."""
        return int(cache_bytes // self.bytes_per_token)

    def gib_for(self, tokens: int) -> float:
        """GiB of cache that ``tokens`` tokens take."""
        return tokens * self.bytes_per_token / 2**30

    def mib_for(self, tokens: int) -> float:
        """MiB of cache that ``tokens`` tokens take."""
        return tokens * self.bytes_per_token / 2**20


def _config(model_path: str) -> dict:
    folder = Path(model_path)
    if (folder / "config.json").is_file():
        config = json.loads((folder / "config.json").read_text())
    else:
        from transformers import AutoConfig

        config = AutoConfig.from_pretrained(model_path).to_dict()
    return config.get("text_config", config)


def kv_shape(model_path: str, dtype: str | None = None) -> KVShape:
    """The KV factors of a model (a local folder or a hub name) served in ``dtype``.

    Pass the server's dtype (``server.flags["dtype"]`` or ``hardware.default_dtype(device)``);
    ``None`` or ``"auto"`` means the model's own, as in vLLM.
    """
    config = _config(model_path)
    heads = config["num_attention_heads"]
    if dtype in (None, "auto"):
        dtype = config.get("dtype") or config.get("torch_dtype") or "bfloat16"
    if dtype not in DTYPE_BYTES:
        raise ValueError(f"unknown KV cache dtype {dtype!r}; known: {sorted(DTYPE_BYTES)}")
    return KVShape(
        layers=config["num_hidden_layers"],
        kv_heads=config.get("num_key_value_heads") or heads,
        head_dim=config.get("head_dim") or config["hidden_size"] // heads,
        dtype=dtype,
    )


def engine_block_size(url: str) -> int:
    """The KV block size (tokens) a running vLLM server reports in ``/metrics``."""
    block = fetch_metrics(url).get("block_size", math.nan)
    if math.isnan(block):
        raise RuntimeError(f"{url}/metrics reports no KV block size")
    return int(block)


def usable_blocks(kv_cache_tokens: int, block_size: int) -> int:
    """Blocks sequences can use in a cache the engine reports as ``kv_cache_tokens``: vLLM keeps
    one block back (its "null" block), counts it in the tokens it logs and leaves it out of the
    usage fraction in ``/metrics`` and of the one-full-request check at start-up."""
    return max(kv_cache_tokens // block_size - 1, 0)


def blocks_for(tokens: int, block_size: int) -> int:
    """Blocks a sequence of ``tokens`` tokens occupies: its last block may be partly empty."""
    if tokens < 0 or block_size <= 0:
        raise ValueError(f"need tokens >= 0 and block_size > 0, got {tokens}, {block_size}")
    return -(-tokens // block_size)  # whole numbers throughout: exact at any length


@dataclass(frozen=True)
class RequestFit:
    """How many requests of ``request_tokens`` a cache of ``blocks`` usable blocks holds at
    once: each reserving the full ``context_limit`` up front, and each taking blocks as it
    grows (paged)."""

    blocks: int
    block: int
    context_limit: int
    request_tokens: int

    @classmethod
    def of(
        cls, kv_cache_tokens: int, block: int, context_limit: int, request_tokens: int
    ) -> RequestFit:
        """From the cache the engine reports (the block it keeps back left out)."""
        return cls(usable_blocks(kv_cache_tokens, block), block, context_limit, request_tokens)

    @property
    def context_blocks(self) -> int:
        """Blocks one full-context reservation takes."""
        return blocks_for(self.context_limit, self.block)

    @property
    def request_blocks(self) -> int:
        """Blocks one request holds at its full length (at least one)."""
        return max(blocks_for(self.request_tokens, self.block), 1)

    @property
    def reserved(self) -> int:
        return self.blocks // self.context_blocks

    @property
    def paged(self) -> int:
        return self.blocks // self.request_blocks

    @property
    def full_contexts(self) -> float:
        """Full contexts the cache holds, before rounding down to whole requests."""
        return self.blocks / self.context_blocks

    @property
    def held_factor(self) -> float:
        """A full-context reservation ÷ what one request holds, both in whole blocks: how far a
        real request falls short of the limit, with no rounding of the cache into requests."""
        return self.context_blocks / self.request_blocks

    @property
    def request_held(self) -> int:
        """Tokens of cache one finished request holds: its tokens in whole blocks."""
        return blocks_for(self.request_tokens, self.block) * self.block


@dataclass(frozen=True)
class BlockTable:
    """A few requests at the lengths a block-table figure draws: the blocks they hold together
    (``held``), against one full-context reservation each (``reserved``)."""

    holders: int
    block: int
    held: int
    reserved: int

    @classmethod
    def of(cls, tokens: Sequence[int], block: int, context_limit: int) -> BlockTable:
        """From each request's tokens so far, the engine's block and the context limit."""
        return cls(
            len(tokens),
            block,
            sum(blocks_for(count, block) for count in tokens),
            len(tokens) * blocks_for(context_limit, block),
        )
