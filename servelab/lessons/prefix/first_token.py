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


def first_token_text(model: FirstTokenModel) -> str:
    """The prediction, then how it met the probe's first tokens."""
    fit, reuse = model.fit, model.reuse
    if not fit.separated:
        return (f"The prefill fit could not tell the fixed part from the prompt's ({fit}), so "
                "this run cannot predict how much of the first token reuse removes.")
    text = (f"The fit measured when the server started: {fit}. A later request computed "
            f"{reuse.later_on:,.0f} prompt tokens with reuse and {reuse.later_off:,.0f} without "
            f"({model.token_share:.1%} of them), so it should see its first token after "
            f"{fit.fixed_ms:.0f} + {fit.prefill_ms(reuse.later_on):.0f} = "
            f"**{model.on_ms:,.0f} ms** with reuse and **{model.off_ms:,.0f} ms** without: "
            f"{model.time_share:.1%} of the time for {model.token_share:.1%} of the tokens")
    if fit.fixed_ms > 0:
        text += (f", because the fixed part is {model.fixed_share_on:.0%} of the shorter wait "
                 "and reuse cannot remove it.")
    else:
        text += (". The fit found no fixed part beside the prompt, so the model expects the "
                 "wait to shrink with the tokens.")
    if reuse.ttft_on is None or reuse.ttft_off is None:
        return text + " The probe did not time its first tokens, so nothing checks it here."
    checks = []
    for label, predicted, measured in (("with reuse", model.on_ms, reuse.ttft_on),
                                       ("without", model.off_ms, reuse.ttft_off)):
        found = foretold(predicted, measured)
        said = {Foretold.INSIDE: "inside their range", Foretold.CLOSE: "close to their median",
                Foretold.OFF: f"more than {PREDICTION_CLOSE:.0%} from their median"}[found]
        checks.append(f"{label} {measured.with_range(0, ' ms')}, the prediction {said}")
    text += f" The probe timed them {'; '.join(checks)}."
    unexplained = reuse.ttft_on.median - model.on_ms
    if foretold(model.on_ms, reuse.ttft_on) is Foretold.OFF and unexplained > 0:
        text += (f" With reuse the wait was {unexplained:,.0f} ms longer than its computed "
                 "tokens explain, so something the model leaves out costs that much here: work "
                 "per request the fit did not separate from the prompt, or each computed token "
                 f"attending to the {reuse.prompt_tokens - reuse.later_on:,.0f} cached tokens "
                 "before it, which a prompt that shares nothing does not do.")
    return text
