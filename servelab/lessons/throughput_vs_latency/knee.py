"""Chapter 07's knee from this device's model, before the closed loop measures it.

With every one of the small cap's *B* slots busy, a request holds its slot through its first
token *F* (the prompt reading kept by chapter 04: a fixed part, then the prompt at the prefill
rate) and then its *A* tokens, each at the step of *B* sequences (chapter 02's line) plus its
share of the *B* prompts read while it streams, *p* each: W = F + A × step(B) + B × p, the pace
chapter 10 plans with. Little's law turns that into the most requests a second the slots
finish, B ÷ W, which the closed loop then measures (``slot_rate.SlotRate``).
"""

from __future__ import annotations

from dataclasses import dataclass

from servelab.bench.spread import Spread
from servelab.lessons.device_model.foretold import Checked
from servelab.lessons.device_model.kept import PromptReading, StepLine
from servelab.lessons.throughput_vs_latency.pace import CHAPTER
from servelab.lessons.throughput_vs_latency.slot_rate import SlotRate


@dataclass(frozen=True)
class ModelKnee:
    """The step line and the prompt reading (None: not to hand), the small cap's slots and a
    request's prompt and answer lengths."""

    line: StepLine | None
    reading: PromptReading | None
    slots: int
    input_tokens: int
    output_tokens: int

    @property
    def first_token_ms(self) -> float | None:
        return None if self.reading is None else self.reading.first_token_ms(self.input_tokens)

    @property
    def step_ms(self) -> float | None:
        return None if self.line is None else self.line.fit.at(self.slots)

    @property
    def prompts_ms(self) -> float | None:
        """*B* × *p*: the slots' prompts read while one answer streams."""
        return (
            None if self.reading is None else self.slots * self.reading.read_ms(self.input_tokens)
        )

    @property
    def request_s(self) -> float | None:
        """*W*: the first token, the answer at the slots' step, the others' prompts (s)."""
        if self.first_token_ms is None or self.step_ms is None or self.prompts_ms is None:
            return None
        return (self.first_token_ms + self.output_tokens * self.step_ms + self.prompts_ms) / 1000

    @property
    def rate(self) -> float | None:
        """The knee: slots ÷ *W* requests a second."""
        return None if self.request_s is None else self.slots / self.request_s

    def checks(self, measured: SlotRate) -> tuple[Checked, ...]:
        """The model's knee against the one the closed loop's *W* gives, for the closing
        table (none where the model had no line or no reading)."""
        if self.rate is None:
            return ()
        runs = Spread(measured.rate, measured.rate_low, measured.rate_high, measured.request_s.n)
        return (
            Checked(
                CHAPTER, f"requests a second {self.slots} slots finish", " req/s", self.rate, runs
            ),
        )
