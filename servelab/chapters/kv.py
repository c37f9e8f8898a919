"""KV-cache arithmetic for chapter 03: bytes per token from a model's config, blocks in use.

A decoder keeps, for every token of every sequence, one key and one value vector per KV head in
every layer. So one token costs layers × KV heads × head dim × 2 (K and V) × bytes per value.
"""

from __future__ import annotations

import math
import urllib.request
from dataclasses import dataclass

from prometheus_client.parser import text_string_to_metric_families

CACHE_CONFIG_METRIC = "vllm:cache_config_info"


@dataclass(frozen=True)
class KVShape:
    """The factors of one token's KV-cache footprint."""

    layers: int
    kv_heads: int
    head_dim: int
    bytes_per_value: int

    @property
    def bytes_per_token(self) -> int:
        return self.layers * self.kv_heads * self.head_dim * 2 * self.bytes_per_value

    def formula(self) -> str:
        return (f"{self.layers} layers × {self.kv_heads} KV heads × {self.head_dim} head dim × "
                f"2 (K and V) × {self.bytes_per_value} bytes = {self.bytes_per_token:,} bytes")

    def tokens_in(self, cache_bytes: float) -> int:
        """How many tokens of KV fit in ``cache_bytes``."""
        return int(cache_bytes // self.bytes_per_token)


def kv_shape(model_path: str) -> KVShape:
    """Read the KV factors from the model's ``config.json`` (a folder or a hub name)."""
    import torch
    from transformers import AutoConfig

    config = AutoConfig.from_pretrained(model_path)
    config = getattr(config, "text_config", config)
    heads = config.num_attention_heads
    head_dim = getattr(config, "head_dim", None) or config.hidden_size // heads
    dtype = getattr(config, "dtype", None) or getattr(config, "torch_dtype", None) or "float16"
    if isinstance(dtype, str):
        dtype = getattr(torch, dtype)
    return KVShape(
        layers=config.num_hidden_layers,
        kv_heads=getattr(config, "num_key_value_heads", None) or heads,
        head_dim=head_dim,
        bytes_per_value=torch.tensor([], dtype=dtype).element_size(),
    )


def engine_block_size(url: str) -> int:
    """The KV block size (tokens) a running vLLM server reports in ``/metrics``."""
    with urllib.request.urlopen(url.rstrip("/") + "/metrics", timeout=10) as response:
        text = response.read().decode()
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name.startswith(CACHE_CONFIG_METRIC) and "block_size" in sample.labels:
                return int(sample.labels["block_size"])
    raise RuntimeError(f"{url}/metrics has no {CACHE_CONFIG_METRIC} with a block_size label")


def blocks_for(tokens: int, block_size: int) -> int:
    """Blocks a sequence of ``tokens`` tokens occupies: its last block may be partly empty."""
    if tokens < 0 or block_size <= 0:
        raise ValueError(f"need tokens >= 0 and block_size > 0, got {tokens}, {block_size}")
    return math.ceil(tokens / block_size)
