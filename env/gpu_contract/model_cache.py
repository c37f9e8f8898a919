"""A Hugging Face cache holding the GPU model's ``config.json``, so no hub access is needed.

On a 16 GB T4 the book serves ``Qwen/Qwen3-0.6B`` (``servelab.models``). The chapters read its
shape and vLLM builds its model config from that one file; no weights are loaded. The file below
is the hub's ``config.json`` of that model; it is laid out as ``huggingface_hub`` caches a
download, under a revision name of its own, and read with ``HF_HUB_OFFLINE=1``.
"""

from __future__ import annotations

import json
from pathlib import Path

from servelab.models import gpu_model_for

REVISION = "gpu-contract"
QWEN3_0_6B_CONFIG = {
    "architectures": ["Qwen3ForCausalLM"],
    "attention_bias": False,
    "attention_dropout": 0.0,
    "bos_token_id": 151643,
    "eos_token_id": 151645,
    "head_dim": 128,
    "hidden_act": "silu",
    "hidden_size": 1024,
    "initializer_range": 0.02,
    "intermediate_size": 3072,
    "max_position_embeddings": 40960,
    "max_window_layers": 28,
    "model_type": "qwen3",
    "num_attention_heads": 16,
    "num_hidden_layers": 28,
    "num_key_value_heads": 8,
    "rms_norm_eps": 1e-06,
    "rope_scaling": None,
    "rope_theta": 1000000,
    "sliding_window": None,
    "tie_word_embeddings": True,
    "torch_dtype": "bfloat16",
    "transformers_version": "4.51.0",
    "use_cache": True,
    "use_sliding_window": False,
    "vocab_size": 151936,
}


def write_hub_cache(hf_home: Path) -> None:
    """``hf_home/hub`` holding the config of the model a 15 GiB T4 serves."""
    model = gpu_model_for(15.0)
    if model != "Qwen/Qwen3-0.6B":
        raise RuntimeError(f"a T4 now serves {model}; add its config.json to {__file__}")
    repo = hf_home / "hub" / f"models--{model.replace('/', '--')}"
    snapshot = repo / "snapshots" / REVISION
    snapshot.mkdir(parents=True)
    (snapshot / "config.json").write_text(json.dumps(QWEN3_0_6B_CONFIG, indent=2))
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text(REVISION)
