"""servelab.lessons.prefix_caching.sharing_findings: each verdict of the shared-blocks record."""

from __future__ import annotations

import math

import pytest

from servelab.lessons.prefix_caching.sharing import SharingExpectation
from servelab.lessons.prefix_caching.sharing_findings import SharingFindings
from servelab.lessons.prefix_caching.words import counted

NAN = math.nan


EXPECT = SharingExpectation(4, 1000, 64, 128)  # shared 15 blocks, unshared 36


@pytest.mark.parametrize(
    ("peaks", "shared", "twins", "different"),
    [
        ({"n4_on": 15.2, "n4_off": 35.8, "same_on": 15.0, "different_on": 36.1}, True, True, True),
        # 30 of 33 is over three quarters; 15 is more than a quarter off 30; 31 not a quarter above
        (
            {"n4_on": 30.0, "n4_off": 33.0, "same_on": 15.0, "different_on": 31.0},
            False,
            False,
            False,
        ),
        # a peak of no blocks: the twins are judged within a quarter of one block
        ({"n4_on": 0.0, "n4_off": 36.0, "same_on": 0.2, "different_on": 36.0}, True, True, True),
    ],
)
def test_the_samples_share_blocks_and_the_controls_separate(
    peaks, shared, twins, different
) -> None:
    found = SharingFindings.from_peaks(peaks, {"n4_on": 2688.0, "n4_off": NAN}, EXPECT)
    assert (found.shared, found.twins_match, found.different_held_more) == (
        shared,
        twins,
        different,
    )


def test_an_uncounted_counter_reads_none() -> None:
    assert (counted(NAN), counted(2688.0)) == ("none", "2,688")
