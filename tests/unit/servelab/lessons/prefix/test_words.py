"""servelab.lessons.prefix.words: every branch of chapter 04's text, on made-up findings."""

from __future__ import annotations

import pandas as pd
import pytest

from servelab.bench.spread import Spread
from servelab.lessons.prefix import words as prefix_words
from servelab.lessons.prefix.reuse_findings import LoadReuseFindings, ReuseFindings
from servelab.lessons.prefix.sharing import SharingExpectation
from servelab.lessons.prefix.sharing_findings import SharingFindings


def _cost(computed, cached):
    return pd.DataFrame({"request": range(1, len(computed) + 1), "computed": computed,
                         "from cache": cached})


FAST, SLOW = Spread.of([80.0, 100.0, 130.0, 90.0]), Spread.of([700.0, 900.0, 1100.0, 800.0])
REUSED = ReuseFindings.from_probe(_cost([2016, 96, 96], [0, 1920, 1920]),
                                  _cost([2016] * 3, [0] * 3))


def test_reuse_text_when_reuse_and_speed_show():
    text = prefix_words.reuse_text(REUSED, LoadReuseFindings(FAST, SLOW, 0.7))
    assert "each later one **96**" in text and "**8.9×** sooner" in text
    assert "range 80–130 ms over 4 runs with caching" in text and "hit rate of **70%**" in text


def test_reuse_text_names_a_single_later_request_as_the_second():
    pair = ReuseFindings.from_probe(_cost([2016, 96], [0, 1920]), _cost([2016] * 2, [0] * 2))
    text = prefix_words.reuse_text(pair, LoadReuseFindings(FAST, SLOW, 0.7))
    assert "and the second **96**;" in text and "on average" not in text
    assert "caching off the second computed **2,016**" in text


@pytest.mark.parametrize("on", [
    Spread.of([700.0, 800.0, 850.0, 900.0]),   # about the same
    Spread.of([100.0, 150.0, 200.0, 750.0]),   # far apart at the median, one slow request
])
def test_reuse_text_when_the_load_cannot_tell(on):
    same = ReuseFindings.from_probe(_cost([2016] * 3, [0] * 3), _cost([2016] * 3, [0] * 3))
    text = prefix_words.reuse_text(same, LoadReuseFindings(on, SLOW, float("nan")))
    assert "did not show the reuse" in text
    assert "cannot say the cache made first tokens sooner" in text and "sooner (" not in text
    assert "no prefix-cache queries" in text


def test_reuse_prediction_reports_the_second_request():
    text = prefix_words.reuse_prediction("", REUSED, LoadReuseFindings(FAST, SLOW, 0.7))
    assert "computed 96 of its 2,016 prompt tokens" in text and "8.9× sooner" in text


EXPECT = SharingExpectation(4, 1000, 64, 128)  # shared 15 blocks, unshared 36


def test_sharing_text_when_all_controls_separate():
    text = prefix_words.sharing_text(SharingFindings.from_peaks(
        {"n4_on": 15.2, "n4_off": 35.8, "same_on": 15.0, "different_on": 36.1},
        {"n4_on": 2688, "n4_off": float("nan")}, EXPECT))
    assert "need **15** blocks" in text and "**36** if not" in text
    assert "only when prefix caching was on" in text
    assert "counted 2,688 prompt tokens found in the cache, against none" in text
    assert "treats the samples as separate requests" in text
    assert "nothing to share" in text


def test_sharing_text_when_controls_do_not_separate():
    text = prefix_words.sharing_text(SharingFindings.from_peaks(
        {"n4_on": 30.0, "n4_off": 33.0, "same_on": 15.0, "different_on": 31.0},
        {"n4_on": 0, "n4_off": 0}, EXPECT))
    assert "did not show the children sharing" in text
    assert "did not match" in text
    assert "did not separate them" in text
