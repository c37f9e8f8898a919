"""Chapter 04's first token explained: a request sent alone waits a fixed part plus the prompt
tokens it computes ÷ the prefill rate (``servelab.bench.prefill``), so reuse shortens only the
second part.

The fit is measured when the chapter's first server starts, before the probe; the probe then
counts the tokens each request computed. From those two the model predicts each later request's
first token, with reuse and without, and the page sets the prediction beside the first tokens
the probe timed. Why reuse that removes most of the tokens removes less of the wait follows from
the fixed part, which every request pays either way.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from servelab.bench.prefill import PrefillFit
from servelab.bench.spread import Spread
from servelab.lessons.prefix.reuse_findings import ReuseFindings
from servelab.lessons.prefix.thresholds import PREDICTION_CLOSE


class Foretold(StrEnum):
    """A prediction against the spread it predicted."""

    INSIDE = "inside the measured range"
    CLOSE = "close to the median"
    OFF = "off"


def foretold(predicted_ms: float, measured: Spread) -> Foretold:
    """``INSIDE`` the runs' range, ``CLOSE`` within ``PREDICTION_CLOSE`` of their median, else
    ``OFF``."""
    if measured.low <= predicted_ms <= measured.high:
        return Foretold.INSIDE
    if abs(predicted_ms / measured.median - 1) <= PREDICTION_CLOSE:
        return Foretold.CLOSE
    return Foretold.OFF


@dataclass(frozen=True)
class FirstTokenModel:
    """The prefill fit and the probe's token counts and first tokens."""

    fit: PrefillFit
    reuse: ReuseFindings

    def predicted_ms(self, computed: float) -> float:
        return self.fit.fixed_ms + self.fit.prefill_ms(computed)

    @property
    def on_ms(self) -> float:
        """A later request's first token with reuse, as the model predicts it."""
        return self.predicted_ms(self.reuse.later_on)

    @property
    def off_ms(self) -> float:
        return self.predicted_ms(self.reuse.later_off)

    @property
    def token_share(self) -> float:
        """Tokens computed with reuse as a share of those computed without."""
        return self.reuse.later_on / self.reuse.later_off

    @property
    def time_share(self) -> float:
        """The predicted first token with reuse as a share of the one without."""
        return self.on_ms / self.off_ms

    @property
    def fixed_share_on(self) -> float:
        """The fixed part's share of the predicted first token with reuse."""
        return self.fit.fixed_ms / self.on_ms

    @property
    def foretold(self) -> tuple[Foretold, Foretold] | None:
        """The predictions with reuse and without against the probe's first tokens; None where
        the probe did not time them."""
        on, off = self.reuse.ttft_on, self.reuse.ttft_off
        if on is None or off is None:
            return None
        return foretold(self.on_ms, on), foretold(self.off_ms, off)

    @property
    def unexplained_ms(self) -> float:
        """How much longer the median first token with reuse took than its computed tokens
        explain (NaN where the probe did not time it)."""
        on = self.reuse.ttft_on
        return on.median - self.on_ms if on is not None else float("nan")
