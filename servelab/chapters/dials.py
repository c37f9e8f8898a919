"""Chapter 05: the arithmetic behind the capacity the engine reports, and the sweep's latency.

The KV cache holds, for every token of every running sequence, one key and one value vector per
layer and KV head. Its size per token follows from the model's configuration; the number of
tokens the cache holds is the KV memory divided by that; and the number of full-length requests
it holds at once is those tokens divided by ``max_model_len``.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd

GIB = 2**30
DTYPE_BYTES = {"bfloat16": 2, "float16": 2, "half": 2, "float32": 4, "float": 4}


def kv_bytes_per_token(model_path: str, dtype: str | None = None) -> int:
    """Bytes of KV cache one token takes: 2 (key, value) × layers × KV heads × head size ×
    bytes per number. ``model_path`` is a local folder or a hub name."""
    folder = Path(model_path)
    if (folder / "config.json").is_file():
        config = json.loads((folder / "config.json").read_text())
    else:
        from transformers import AutoConfig

        config = AutoConfig.from_pretrained(model_path).to_dict()
    config = config.get("text_config", config)
    heads = config["num_attention_heads"]
    kv_heads = config.get("num_key_value_heads") or heads
    head_dim = config.get("head_dim") or config["hidden_size"] // heads
    dtype = dtype or config.get("dtype") or config.get("torch_dtype") or "bfloat16"
    if dtype not in DTYPE_BYTES:
        raise ValueError(f"unknown KV cache dtype {dtype!r}; known: {sorted(DTYPE_BYTES)}")
    return 2 * config["num_hidden_layers"] * kv_heads * head_dim * DTYPE_BYTES[dtype]


def capacity_table(kv_tokens: int, model_lens: list[int],
                   reported: dict[int, float]) -> pd.DataFrame:
    """Full-length requests the cache holds at each ``max_model_len``: computed as
    ``kv_tokens / max_model_len``, beside what the engine reported where it was started."""
    rows = [{"max_model_len": length,
             "computed_max_concurrency": kv_tokens / length,
             "engine_reported": reported.get(length, np.nan)} for length in model_lens]
    return pd.DataFrame(rows).set_index("max_model_len")


def latency_from_arrival(result: object) -> dict[str, float]:
    """p50/p99 of last token − arrival (s), counting any time a request waited in a queue,
    on the client or in the server; and the requests the server ran at most at once."""
    requests = result.requests
    done = requests[requests["ok"]]
    total = (done["end_s"] - done["queued_s"]).to_numpy()
    server = result.server
    running = float(server["running"].max()) if not server.empty else np.nan
    return {"latency_s_p50": float(np.percentile(total, 50)),
            "latency_s_p99": float(np.percentile(total, 99)),
            "server_running_max": running}


def plot_sweep(sweep: pd.DataFrame, title: str):
    """Throughput against p99 latency, one point per ``max_num_seqs`` level (the frame's index):
    the time a request takes once running, and the time from its arrival."""
    import matplotlib.pyplot as plt

    from servelab.plots import SERIES_COLORS, style

    with style():
        figure, ax = plt.subplots(figsize=(8, 4.4))
        ax.plot(sweep["output_tok_s"], sweep["served_s_p99"], marker="o", color=SERIES_COLORS[0],
                label="p99 send → last token (running)")
        ax.plot(sweep["output_tok_s"], sweep["latency_s_p99"], marker="s", linestyle="--",
                color=SERIES_COLORS[1], label="p99 arrival → last token (with queue)")
        for level, row in sweep.iterrows():
            ax.annotate(f"{level} seq{'s' if level > 1 else ''}",
                        (row["output_tok_s"], row["served_s_p99"]), textcoords="offset points",
                        xytext=(4, 6), fontsize=8)
        ax.set_xlabel("output throughput (tok/s)")
        ax.set_ylabel("latency (s)")
        ax.set_yscale("log")
        ax.legend(fontsize=8)
        ax.set_title(title, fontsize=10)
        figure.tight_layout()
    return figure
