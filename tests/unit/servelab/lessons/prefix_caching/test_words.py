"""servelab.lessons.prefix_caching.words: every branch of chapter 04's text, on made-up findings."""

from __future__ import annotations

import pandas as pd
import pytest

from servelab.bench.spread import Spread
from servelab.lessons.prefix.reuse_findings import LoadReuseFindings, ReuseFindings
from servelab.lessons.prefix_caching import words as prefix_words
from servelab.lessons.prefix_caching.sharing import SharingExpectation
from servelab.lessons.prefix_caching.sharing_findings import SharingFindings


def _cost(computed, cached):
    return pd.DataFrame(
        {"request": range(1, len(computed) + 1), "computed": computed, "from cache": cached}
    )


FAST, SLOW = Spread.of([80.0, 100.0, 130.0, 90.0]), Spread.of([700.0, 900.0, 1100.0, 800.0])
REUSED = ReuseFindings.from_probe(
    _cost([2016, 96, 96], [0, 1920, 1920]), _cost([2016] * 3, [0] * 3)
)


def test_reuse_text_when_reuse_and_speed_show():
    load = LoadReuseFindings(FAST, SLOW, 0.7)
    assert REUSED.reused and load.sooner and load.hits_counted
    text = prefix_words.reuse_text(REUSED, load)
    assert "**2,016**" in text and "**96** on average" in text and "**8.9×** sooner" in text
    assert "80–130 ms" in text and "700–1,100 ms" in text and "**70%**" in text


def test_reuse_text_names_a_single_later_request_as_the_second():
    pair = ReuseFindings.from_probe(_cost([2016, 96], [0, 1920]), _cost([2016] * 2, [0] * 2))
    text = prefix_words.reuse_text(pair, LoadReuseFindings(FAST, SLOW, 0.7))
    assert pair.later == 1 and "**96**." in text and "on average" not in text
    assert text.count("**2,016**") == 2  # the first request, and the second with caching off
    assert text != prefix_words.reuse_text(REUSED, LoadReuseFindings(FAST, SLOW, 0.7))


@pytest.mark.parametrize(
    "on",
    [
        Spread.of([700.0, 800.0, 850.0, 900.0]),  # about the same
        Spread.of([100.0, 150.0, 200.0, 750.0]),  # far apart at the median, one slow request
    ],
)
def test_reuse_text_when_the_load_cannot_tell(on):
    same = ReuseFindings.from_probe(_cost([2016] * 3, [0] * 3), _cost([2016] * 3, [0] * 3))
    load = LoadReuseFindings(on, SLOW, float("nan"))
    assert not same.reused and not load.sooner and not load.hits_counted
    text = prefix_words.reuse_text(same, load)
    assert "**" not in text  # nothing shown, nothing bolded
    assert f"{on.median:,.0f} ms" in text and f"({load.gain:.1f}×)" in text
    assert "%" not in text  # no hit rate where the server counted none


def test_reuse_prediction_reports_the_second_request():
    text = prefix_words.reuse_prediction("", REUSED, LoadReuseFindings(FAST, SLOW, 0.7))
    assert "96 of" in text and "2,016 prompt tokens" in text and "8.9× sooner" in text


EXPECT = SharingExpectation(4, 1000, 64, 128)  # shared 15 blocks, unshared 36


def test_sharing_text_when_all_controls_separate():
    text = prefix_words.sharing_text(
        SharingFindings.from_peaks(
            {"n4_on": 15.2, "n4_off": 35.8, "same_on": 15.0, "different_on": 36.1},
            {"n4_on": 2688, "n4_off": float("nan")},
            EXPECT,
        )
    )
    found = SharingFindings.from_peaks(
        {"n4_on": 15.2, "n4_off": 35.8, "same_on": 15.0, "different_on": 36.1},
        {"n4_on": 2688, "n4_off": float("nan")},
        EXPECT,
    )
    assert found.shared and found.twins_match and found.different_held_more
    assert "**15** blocks" in text and "**36** if not" in text
    assert "2,688 prompt tokens" in text and prefix_words.counted(float("nan")) == "none"
    assert "against none" in text
    assert "**36**: " in text  # the different prompts' peak, bolded as shown


def test_sharing_text_when_controls_do_not_separate():
    found = SharingFindings.from_peaks(
        {"n4_on": 30.0, "n4_off": 33.0, "same_on": 15.0, "different_on": 31.0},
        {"n4_on": 0, "n4_off": 0},
        EXPECT,
    )
    assert not found.shared and not found.twins_match and not found.different_held_more
    text = prefix_words.sharing_text(found)
    observed = text.split("\n\n")[-1]
    assert "**" not in observed  # nothing shown, nothing bolded
    assert all(f"{peak} blocks" in observed for peak in ("30", "15", "31"))
