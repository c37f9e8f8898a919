"""Chapter 09's copies against one server, predicted from this device's step line
(:mod:`servelab.lessons.device_model`).

One server on the whole device takes a step of *a* + *b*·*U* for its *U* users. Each of two
copies carries *U* ÷ 2 of them. On a CPU a copy has half the cores, so the page assumes both
parts of its step take twice as long: 2*a* + *b*·*U*. With a GPU each, a copy has a device like
the one the line was timed on: *a* + *b*·*U* ÷ 2. Two copies sharing one GPU share its compute
in a way the line does not describe, so there the page predicts nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

from servelab.bench.spread import Spread
from servelab.lessons.device_model.foretold import Checked, Foretold, foretold
from servelab.lessons.device_model.kept import StepLine
from servelab.lessons.past_one_machine.findings import CopiesFindings, has_two_gpus


@dataclass(frozen=True)
class CopiesPace:
    """The step line of one server on the whole device (None: none to hand), the users of the
    closed loop, and the copies' and the one server's median times per token over their runs."""

    line: StepLine | None
    users: int
    device_kind: str
    gpus: int
    copies: Spread
    one: Spread

    @classmethod
    def of(cls, line: StepLine | None, users: int, copied: CopiesFindings) -> CopiesPace:
        return cls(
            line,
            users,
            copied.device_kind,
            copied.gpus,
            copied.copies.tpot_ms_p50,
            copied.one.tpot_ms_p50,
        )

    @property
    def one_ms(self) -> float | None:
        """One server's step with every user in it."""
        return None if self.line is None else self.line.fit.at(self.users)

    @property
    def halves_cores(self) -> bool:
        """Each copy has half a CPU's cores (not a GPU of its own)."""
        return self.device_kind == "cpu"

    @property
    def copies_ms(self) -> float | None:
        """A copy's step with half the users; None where the line cannot say (no line, or two
        copies on one GPU)."""
        if self.line is None or (not self.halves_cores and not has_two_gpus(self.gpus)):
            return None
        fit, half = self.line.fit, self.users / 2
        if self.halves_cores:
            return 2 * fit.fixed_ms + 2 * fit.per_sequence_ms * half
        return fit.at(half)

    @property
    def foretold(self) -> tuple[Foretold, Foretold] | None:
        """The predictions for the copies and for one server against their runs."""
        if self.copies_ms is None or self.one_ms is None:
            return None
        return foretold(self.copies_ms, self.copies), foretold(self.one_ms, self.one)

    @property
    def checks(self) -> tuple[Checked, ...]:
        """The two predictions against their runs, for the book's closing table."""
        if self.copies_ms is None or self.one_ms is None:
            return ()
        return (
            Checked(
                "09-past-one-machine",
                "time per token, two copies",
                " ms",
                self.copies_ms,
                self.copies,
            ),
            Checked(
                "09-past-one-machine", "time per token, one server", " ms", self.one_ms, self.one
            ),
        )
