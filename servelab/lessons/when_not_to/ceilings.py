"""Chapter 08's prediction before its runs: how fast one user could stream from each file if
reading the weights were all a token cost, and how close each engine then came.

One user's token needs every weight read once, so the copy bandwidth ÷ the bytes of weights is
the most tokens a second that file allows one stream (chapter 02's ceiling, per file). If the
files were read at that ceiling, the speeds would stand in the ratio of their sizes; where an
engine runs far below its ceiling, something other than reading the weights sets its pace.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import pandas as pd

from servelab.lessons.batching.thresholds import CEILING_NEAR


@dataclass(frozen=True)
class FileCeilings:
    """Each engine's weights in MB and the copy bandwidth (GB/s, probed with no server
    running); ``measured`` one user's speed on each (tok/s), where the runs are done."""

    megabytes: Mapping[str, float]
    bandwidth_gb_s: float
    measured: Mapping[str, float] | None = None

    def with_measured(self, measured: Mapping[str, float]) -> FileCeilings:
        """The same ceilings with one user's measured speed on each engine."""
        return FileCeilings(
            self.megabytes,
            self.bandwidth_gb_s,
            {engine: float(measured[engine]) for engine in self.megabytes},
        )

    def ceiling(self, engine: str) -> float:
        """The most tokens a second one stream reading ``engine``'s weights could make."""
        return self.bandwidth_gb_s * 1e3 / self.megabytes[engine]

    def share(self, engine: str) -> float | None:
        """The measured speed as a share of the ceiling; None before the runs."""
        if self.measured is None:
            return None
        return self.measured[engine] / self.ceiling(engine)

    def size_ratio(self, smaller: str, larger: str) -> float:
        """How many times fewer bytes ``smaller`` reads a token than ``larger``."""
        return self.megabytes[larger] / self.megabytes[smaller]

    def speed_ratio(self, smaller: str, larger: str) -> float | None:
        if self.measured is None:
            return None
        return self.measured[smaller] / self.measured[larger]

    @property
    def near(self) -> list[str]:
        """The engines that ran at ``CEILING_NEAR`` of their ceiling or above."""
        return [
            engine
            for engine in self.megabytes
            if (share := self.share(engine)) is not None and share >= CEILING_NEAR
        ]


def ceilings_table(found: FileCeilings) -> pd.DataFrame:
    """One row per engine: weights, ceiling, and (after the runs) the speed and its share."""
    frame = pd.DataFrame(
        {
            "weights (MB)": dict(found.megabytes),
            "ceiling (tok/s)": {engine: found.ceiling(engine) for engine in found.megabytes},
        }
    )
    if found.measured is not None:
        frame["one user (tok/s)"] = pd.Series(dict(found.measured))
        frame["share of ceiling"] = [f"{found.share(engine):.0%}" for engine in frame.index]
    return frame.round(0)
