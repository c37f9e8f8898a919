"""Chapter 04's shared blocks, found once: the peaks ``n`` samples, identical prompts and different
prompts held, against the counts ``sharing.SharingExpectation`` expects shared and not.
``words.sharing_text`` only words it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from servelab.lessons.prefix.thresholds import SAME_BLOCKS, SHARING_SHOWN
from servelab.lessons.prefix_caching.sharing import SharingExpectation


@dataclass(frozen=True)
class SharingFindings:
    """The blocks each run held at its peak (``n4_on``, ``n4_off``: ``n`` samples with prefix
    caching on and off; ``same_on``, ``different_on``: as many separate requests with one
    identical prompt, and with different prompts, caching on), the prompt tokens the server
    found cached in the two ``n`` runs (NaN: not counted), and the counts ``expect``ed."""

    expect: SharingExpectation
    n4_on: float
    n4_off: float
    same_on: float
    different_on: float
    hits_on: float
    hits_off: float

    @classmethod
    def from_peaks(
        cls, peaks: Mapping[str, float], hits: Mapping[str, float], expect: SharingExpectation
    ) -> SharingFindings:
        return cls(
            expect=expect,
            n4_on=peaks["n4_on"],
            n4_off=peaks["n4_off"],
            same_on=peaks["same_on"],
            different_on=peaks["different_on"],
            hits_on=hits["n4_on"],
            hits_off=hits["n4_off"],
        )

    @property
    def shared(self) -> bool:
        """The samples shared the prompt with caching on and not without."""
        return self.n4_on < SHARING_SHOWN * self.n4_off

    @property
    def twins_match(self) -> bool:
        """Separate identical requests held about as many blocks as the ``n`` samples."""
        return abs(self.same_on - self.n4_on) <= SAME_BLOCKS * max(self.n4_on, 1.0)

    @property
    def different_held_more(self) -> bool:
        """Different prompts held clearly more: the control separated them."""
        return self.different_on > (1 + SAME_BLOCKS) * self.n4_on
