"""How fast this device reads a prompt, apart from what every request costs anyway.

A request's time to first token, when it runs alone, is a fixed part (the API server's and the
engine's work per request, one decode step) plus its prompt tokens ÷ the prefill rate. Dividing
tokens by the whole time counts the fixed part as prefill, which on a GPU is a large share of a
short prompt's time: chunk budgets sized from such a rate come out too small. ``prefill_fit``
times prompts of two lengths (``PrefillProbe``) and solves for both parts.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from servelab.bench.runner import run
from servelab.bench.workloads import PrefillProbe, Role
from servelab.engines.running import RunningServer


@dataclass(frozen=True)
class PrefillFit:
    """Time to first token alone = ``fixed_ms`` + prompt tokens ÷ ``tok_s``.

    ``separated`` is False when the run could not tell the two lengths apart (the long prompt
    was no slower than the short one): then ``tok_s`` is the long prompt's tokens ÷ its whole
    time, the fixed part counted as prefill, and ``fixed_ms`` is 0.
    """

    fixed_ms: float
    tok_s: float
    short_tokens: int
    long_tokens: int
    separated: bool = True

    def prefill_ms(self, tokens: float) -> float:
        """How long ``tokens`` prompt tokens take to prefill, the fixed part left out."""
        return 1000.0 * tokens / self.tok_s

    def __str__(self) -> str:
        if not self.separated:
            return (
                f"prefill about {self.tok_s:,.0f} prompt tokens/s, fixed cost included: the "
                f"{self.long_tokens:,}-token prompts came no later than the "
                f"{self.short_tokens:,}-token ones, so this run could not fit the two apart"
            )
        fitted = f"fitted from {self.short_tokens:,}- and {self.long_tokens:,}-token prompts"
        if self.fixed_ms == 0:
            return (
                f"prefill {self.tok_s:,.0f} prompt tokens/s, with no fixed cost per request "
                f"measurable beside it ({fitted})"
            )
        return (
            f"prefill {self.tok_s:,.0f} prompt tokens/s after a fixed {self.fixed_ms:.0f} ms "
            f"per request ({fitted})"
        )


def fit_prefill(
    short_tokens: int, short_ttft_s: float, long_tokens: int, long_ttft_s: float
) -> PrefillFit:
    """The line through (tokens, time to first token) of a short and a long prompt."""
    if long_ttft_s <= short_ttft_s:
        return PrefillFit(
            fixed_ms=0.0,
            tok_s=long_tokens / long_ttft_s,
            short_tokens=short_tokens,
            long_tokens=long_tokens,
            separated=False,
        )
    tok_s = (long_tokens - short_tokens) / (long_ttft_s - short_ttft_s)
    fixed_ms = 1000.0 * (short_ttft_s - short_tokens / tok_s)
    if fixed_ms < 0:  # within the noise of zero: the long prompt's own rate is the rate
        return PrefillFit(
            fixed_ms=0.0,
            tok_s=long_tokens / long_ttft_s,
            short_tokens=short_tokens,
            long_tokens=long_tokens,
        )
    return PrefillFit(
        fixed_ms=fixed_ms, tok_s=tok_s, short_tokens=short_tokens, long_tokens=long_tokens
    )


def prefill_fit(
    server: RunningServer,
    long_tokens: int,
    short_tokens: int | None = None,
    repeats: int = 3,
    seed: int = 97,
) -> PrefillFit:
    """Fit this server's prefill rate and fixed cost per request from ``repeats`` prompts of
    ``short_tokens`` (an eighth of ``long_tokens`` by default) and of ``long_tokens`` each,
    sent alone after a warm-up; each length's median time to first token is used."""
    short_tokens = max(1, long_tokens // 8) if short_tokens is None else short_tokens
    result = run(
        server,
        PrefillProbe(short_tokens, long_tokens, repeats, seed),
        progress=False,
        metrics_interval=None,
    )
    done = result.requests[result.requests["ok"]]
    medians = {
        role: float(np.median(done.loc[done["role"] == role, "ttft_s"]))
        for role in (Role.SHORT, Role.LONG)
        if (done["role"] == role).any()
    }
    if len(medians) < 2:
        raise RuntimeError(f"the prefill probe did not complete a prompt of each length: {result}")
    return fit_prefill(short_tokens, medians[Role.SHORT], long_tokens, medians[Role.LONG])
