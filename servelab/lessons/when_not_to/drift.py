"""Chapter 08: whether the machine's own speed moved while its engines ran one after another.

The engines never run together, so a range of one engine's runs cannot show the machine
changing between engines. The chapter probes the CPU with no server running before the first
engine and after each (``servelab.bench.pace``); ``DriftFindings`` compares every later probe
with the first, and ``drift_text`` words the verdict.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from servelab.bench.pace import CpuPace
from servelab.bench.spread import Spread
from servelab.lessons.compare import Compared
from servelab.lessons.when_not_to.against import Against

FIGURES = {
    "bandwidth_gb_s": ("copy bandwidth", "GB/s", 1),  # name, unit, digits
    "gflops": ("float32 matrix-multiply rate", "GFLOP/s", 0),
}


@dataclass(frozen=True)
class Move:
    """One figure at one later moment against the first probe."""

    moment: str
    figure: str  # a key of FIGURES
    first: Spread
    later: Spread

    @property
    def against(self) -> Against:
        return Against(self.later, self.first)

    @property
    def ratio(self) -> float:
        return self.against.ratio

    @property
    def drift(self) -> Compared:
        """The later probe against the first: ``LOWER`` is slower."""
        return self.against.compared


@dataclass(frozen=True)
class DriftFindings:
    """The probes by moment, in the order they ran, and every later one against the first."""

    pace: Mapping[str, CpuPace]

    @property
    def moves(self) -> list[Move]:
        moments = list(self.pace)
        if len(moments) < 2:
            return []
        first = self.pace[moments[0]]
        return [
            Move(moment, figure, getattr(first, figure), getattr(self.pace[moment], figure))
            for moment in moments[1:]
            for figure in FIGURES
        ]

    @property
    def drift(self) -> Compared | None:
        """Slowed (``LOWER``) where any figure fell beyond the noise, else quickened
        (``HIGHER``) where any rose, else ``UNTOLD`` where any moved past ``ALIKE`` within the
        noise, else steady (``ALIKE``); None with fewer than two moments probed."""
        moves = self.moves
        if not moves:
            return None
        found = {move.drift for move in moves}
        for verdict in (Compared.LOWER, Compared.HIGHER, Compared.UNTOLD):
            if verdict in found:
                return verdict
        return Compared.ALIKE

    @property
    def largest(self) -> Move | None:
        """The move behind the verdict that went furthest from the first probe."""
        behind = [move for move in self.moves if move.drift is self.drift]
        return max(behind, key=lambda move: move.against.share_moved, default=None)
