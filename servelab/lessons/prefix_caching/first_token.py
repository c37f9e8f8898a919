"""Chapter 04's first token explained: a request sent alone waits a fixed part (the request's
work and the shared part of the step that reads its prompt) plus the prompt tokens it computes
at the prefill rate (:class:`servelab.lessons.device_model.PromptReading`), so reuse shortens
only the second part.

The model is made when the chapter's first server starts, before the probe: the step line kept
on this device (or a short sweep's) and a prefill fit. The probe then counts the tokens each
request computed. From those two the model predicts each later request's first token, with
reuse and without, and the page sets the prediction beside the first tokens the probe timed.
Why reuse that removes most of the tokens removes less of the wait follows from the fixed part,
which every request pays either way.
"""

from __future__ import annotations

from dataclasses import dataclass

from servelab.lessons.device_model.foretold import Checked, Foretold, foretold
from servelab.lessons.device_model.kept import PromptReading
from servelab.lessons.prefix.reuse_findings import ReuseFindings


@dataclass(frozen=True)
class FirstTokenModel:
    """This device's prompt reading and the probe's token counts and first tokens."""

    reading: PromptReading
    reuse: ReuseFindings

    def predicted_ms(self, computed: float) -> float:
        return self.reading.first_token_ms(computed)

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
        return self.reading.fixed_ms / self.on_ms

    @property
    def foretold(self) -> tuple[Foretold, Foretold] | None:
        """The predictions with reuse and without against the probe's first tokens; None where
        the probe did not time them."""
        on, off = self.reuse.ttft_on, self.reuse.ttft_off
        if on is None or off is None:
            return None
        return foretold(self.on_ms, on), foretold(self.off_ms, off)

    @property
    def checks(self) -> tuple[Checked, ...]:
        """The two predictions against the probe's first tokens, for the book's closing table
        (none where the probe did not time them)."""
        on, off = self.reuse.ttft_on, self.reuse.ttft_off
        if on is None or off is None:
            return ()
        return (
            Checked("04-prefix-caching", "first token alone, prefix cached", " ms", self.on_ms, on),
            Checked(
                "04-prefix-caching", "first token alone, nothing cached", " ms", self.off_ms, off
            ),
        )

    @property
    def unexplained_ms(self) -> float:
        """How much longer the median first token with reuse took than the model predicts (NaN
        where the probe did not time it)."""
        on = self.reuse.ttft_on
        return on.median - self.on_ms if on is not None else float("nan")

    @property
    def took_longer(self) -> bool:
        """The median first token with reuse took longer than the model predicts."""
        return self.unexplained_ms > 0

    @property
    def miss_ms(self) -> float:
        """How far the median first token with reuse fell from the prediction, either way."""
        return abs(self.unexplained_ms)

    @property
    def cached_tokens(self) -> float:
        """The prompt tokens a later request found cached, which each token it computes
        attends to; prompts that share nothing, which the rate was read from, have none."""
        return self.reuse.prompt_tokens - self.reuse.later_on
