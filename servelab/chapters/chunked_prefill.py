"""Chapter 06: what the engine says about chunked prefill, read from its start-up log.

vLLM prints its engine configuration (``enable_chunked_prefill=True/False``) when it starts,
prints the per-step token budget when chunking is on, and warns when chunking is turned off for
a model that does not officially support that. The chapter shows these lines instead of
assuming what a flag did: an engine version may refuse the flag, or accept it and chunk anyway.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import pandas as pd

from servelab.bench.metrics import itls_during

_ENABLED = re.compile(r"enable_chunked_prefill=(True|False)")
_BUDGET = re.compile(r"Chunked prefill is enabled with max_num_batched_tokens=(\d+)")
_WARNING = re.compile(r"WARNING[^\]]*\] (.*disabling chunked prefill.*)$", re.MULTILINE)


@dataclass(frozen=True)
class ChunkingState:
    """Chunked prefill as the running engine reports it (None: the log did not say)."""

    enabled: bool | None
    budget: int | None
    warning: str | None

    def splits(self, prompt_tokens: int) -> bool:
        """Whether a prompt of ``prompt_tokens`` tokens is prefilled over several steps."""
        return bool(self.enabled) and self.budget is not None and self.budget < prompt_tokens

    def describe(self) -> str:
        if self.enabled is None:
            return "The engine's log does not say whether chunked prefill is on."
        if not self.enabled:
            text = "Chunked prefill is OFF: a prompt is prefilled in a single step."
        elif self.budget is None:
            text = "Chunked prefill is ON (the log does not give the step's token budget)."
        else:
            text = (f"Chunked prefill is ON: at most {self.budget} tokens are scheduled per "
                    "step, so a longer prompt is prefilled over several steps.")
        if self.warning:
            text += f"\nThe engine warned: {self.warning.strip()}"
        return text


def chunking_state(log_text: str) -> ChunkingState:
    """What a vLLM start-up log says about chunked prefill."""
    enabled = _ENABLED.search(log_text)
    budget = _BUDGET.search(log_text)
    warning = _WARNING.search(log_text)
    return ChunkingState(
        enabled=None if enabled is None else enabled.group(1) == "True",
        budget=int(budget.group(1)) if budget else None,
        warning=warning.group(1) if warning else None,
    )


def user_gaps(result: object) -> pd.DataFrame:
    """Every inter-token gap of the decoding users: ``request``, ``t_s`` (when the token came)
    and ``itl_ms``."""
    requests = result.requests
    users = set(requests.loc[requests["role"] == "user", "request"])
    tokens = result.tokens
    gaps = tokens[tokens["request"].isin(users) & tokens["itl_s"].notna()]
    return pd.DataFrame({"request": gaps["request"], "t_s": gaps["t_s"],
                         "itl_ms": gaps["itl_s"] * 1000.0}).reset_index(drop=True)


def document_row(result: object) -> pd.Series:
    """The long document's own request row (role ``"interferer"``)."""
    requests = result.requests
    rows = requests[requests["role"] == "interferer"]
    if rows.empty or not bool(rows["ok"].iloc[0]):
        raise RuntimeError(f"the document's request did not complete in {result}")
    return rows.iloc[0]


def compare(results: dict[str, object]) -> pd.DataFrame:
    """One row per run: what the decoding users felt and what the document's sender waited.

    ``users_itl_ms_p99`` pools every gap of the run, as ``vllm bench serve`` does; when few users
    stream, one freeze per user is under 1 % of their gaps and this percentile can miss it.
    ``itl_ms_p99_after_arrival`` takes only the gaps that overlap the same stretch of time in
    every run: from the document's arrival until the slowest run's document got its first token.
    """
    documents = {label: document_row(result) for label, result in results.items()}
    window_s = max(float(row["ttft_s"]) for row in documents.values())
    rows = []
    for label, result in results.items():
        gaps = user_gaps(result)["itl_ms"]
        arrival = float(documents[label]["sent_s"])
        after = np.asarray(
            itls_during(result.records, arrival, arrival + window_s, role="user")) * 1000.0
        rows.append({
            "run": label,
            "users_itl_ms_p50": float(np.percentile(gaps, 50)),
            "users_itl_ms_p99": float(np.percentile(gaps, 99)),
            "itl_ms_p99_after_arrival": float(np.percentile(after, 99)),
            "users_longest_gap_ms": float(gaps.max()),
            "document_ttft_s": float(documents[label]["ttft_s"]),
            "users_output_tok_s": float(result.summary()["output_tok_s"]),
        })
    return pd.DataFrame(rows).set_index("run")


def plot_gaps(results: dict[str, object], title: str):
    """The users' inter-token gaps over time, one panel per run, with the document's prefill
    (from its arrival to its first token) shaded."""
    import matplotlib.pyplot as plt

    from servelab.plots import COLORS, style

    with style():
        figure, axes = plt.subplots(len(results), 1, figsize=(9, 2.8 * len(results)),
                                    sharex=True, sharey=True, squeeze=False)
        for ax, (label, result) in zip(axes[:, 0], results.items(), strict=True):
            gaps = user_gaps(result)
            ax.scatter(gaps["t_s"], gaps["itl_ms"], s=6, color=COLORS["decode"],
                       label="a user's gap before a token")
            document = document_row(result)
            ax.axvspan(document["sent_s"], document["first_token_s"], color=COLORS["prefill"],
                       alpha=0.2, label="document being prefilled")
            ax.set_ylabel("gap between tokens (ms)")
            ax.set_title(label, loc="left", fontsize=10)
            ax.legend(loc="upper right", fontsize=8)
        axes[-1, 0].set_xlabel("time since the run started (s)")
        figure.suptitle(title)
        figure.tight_layout()
    return figure
