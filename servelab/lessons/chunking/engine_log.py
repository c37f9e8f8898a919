"""What a vLLM start-up log says about chunked prefill (chapters 00 and 06, the smoke check and
the engine contract): whether it is on and the per-step token budget, so a page shows what the
engine did rather than what a flag was hoped to do.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

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
            text = (
                f"Chunked prefill is ON: at most {self.budget} tokens are scheduled per "
                "step, so a longer prompt is prefilled over several steps."
            )
        if self.warning:
            text += f"\nThe engine warned: {self.warning.strip()}"
        return text


def _last(pattern: re.Pattern[str], text: str) -> re.Match[str] | None:
    matches = list(pattern.finditer(text))
    return matches[-1] if matches else None


def chunking_state(log_text: str) -> ChunkingState:
    """What a vLLM start-up log says about chunked prefill: the last record of each kind.

    The last, because vLLM 0.11.2 builds its command-line parser from default configs
    (``get_kwargs(VllmConfig)`` instantiates ``SchedulerConfig``), which logs "Chunked prefill is
    enabled with max_num_batched_tokens=2048." before the engine's own configuration logs the
    budget it runs with. The engine core's config line does not name the budget, so it cannot be
    read there; every record after the parser's is the engine's configuration, and the log's last
    one is what the server uses.
    """
    enabled = _last(_ENABLED, log_text)
    budget = _last(_BUDGET, log_text)
    warning = _last(_WARNING, log_text)
    return ChunkingState(
        enabled=None if enabled is None else enabled.group(1) == "True",
        budget=int(budget.group(1)) if budget else None,
        warning=warning.group(1) if warning else None,
    )
