"""servelab.lessons.paging.words: every branch of chapter 03's text, on made-up findings."""

from __future__ import annotations

from servelab.engines.vllm_server import Capacity
from servelab.lessons.paging import words as paging_words
from servelab.lessons.paging.findings import (
    AdmissionFindings,
    PagingFindings,
    SqueezeFindings,
    TokenCost,
)
from servelab.lessons.paging.kv import RequestFit

# 14,336 tokens are 111 usable blocks of 128: one 8,192-token context (64 blocks) or 37
# 300-token requests (3 blocks each).
CAPACITY = Capacity(kv_cache_tokens=14_336, max_model_len=8192, max_concurrency=1.75)
COST = TokenCost(bytes_per_token=23_040, dtype="bfloat16", context_limit=8192,
                 request_tokens=300, context_mib=180.0, request_mib=6.6)
ROOMY = {"running_max": 32.0, "waiting_max": 0.0, "duration_s": 20.0}
CRAMPED = {"running_max": 8.0, "waiting_max": 24.0, "preemptions": 5.0, "duration_s": 61.0,
           "failed": 0.0}


def _paging(capacity=CAPACITY, roomy=ROOMY, cramped=CRAMPED, request_tokens=300):
    paging = PagingFindings.from_run(capacity, 128, request_tokens, roomy,
                                     tokens_per_sequence=290.0)
    return paging_words.paging_text(paging, COST, SqueezeFindings.from_runs(roomy, cramped))


def test_paging_text_when_everything_shows():
    text = _paging()
    assert "**37**" in text and "**37×**" in text and "**180 MiB**" in text
    assert "**32** sequences ran at once" in text
    assert "preempted **5** times" in text and "**61 s**" in text
    assert "Every request still completed" in text


def test_paging_text_reports_failures():
    text = _paging(cramped=dict(CRAMPED, failed=2.0))
    assert "2 requests failed" in text and "still completed" not in text


def test_paging_text_without_gain_load_or_squeeze():
    # A 2,048-token context in 512 tokens' cache: one fits reserved, and one paged.
    tight = Capacity(kv_cache_tokens=2048 + 128, max_model_len=2048, max_concurrency=1.06)
    text = _paging(capacity=tight, roomy={"running_max": 1.0, "duration_s": 5.0},
                   cramped={"running_max": 4.0, "waiting_max": 0.0, "preemptions": 0.0,
                            "duration_s": 5.0}, request_tokens=2000)
    assert "no gain at these sizes" in text
    assert "did not show paging's gain" in text
    assert "squeeze did not show" in text


def test_paging_text_waits_without_preemption():
    text = _paging(cramped=dict(CRAMPED, waiting_max=3.0, preemptions=0.0))
    assert "no sequence was preempted" in text


def test_prediction_echo_with_and_without_a_guess():
    paging = PagingFindings.from_run(CAPACITY, 128, 300, ROOMY)
    empty = paging_words.paging_prediction("  ", paging)
    assert "left the prediction empty" in empty and "37 did (37× as many)" in empty
    two = Capacity(kv_cache_tokens=2 * 8192 + 16, max_model_len=8192, max_concurrency=2.0)
    said = paging_words.paging_prediction("ten times", PagingFindings.from_run(two, 16, 300, ROOMY))
    assert "You predicted: *ten times*" in said and "2 requests fit" in said


def test_admission_text_explains_waiting_beside_room_and_running_past_the_fit():
    roomy = RequestFit(blocks=123, block=128, context_limit=8192, request_tokens=300)  # 41
    small = RequestFit(blocks=27, block=128, context_limit=2048, request_tokens=300)   # 9
    admission = AdmissionFindings.from_runs({"waiting_max": 13, "running_max": 20}, roomy,
                                            {"running_max": 14, "preemptions": 3}, small)
    text = paging_words.admission_text(admission)
    assert "up to **13** requests waited while at most 20 ran, though 41 would fit" in text
    assert "**14** ran at once, more than the 9 whole requests" in text
    assert "its 3 preemptions" in text
    quiet = AdmissionFindings.from_runs({"waiting_max": 0, "running_max": 20}, roomy,
                                        {"running_max": 8, "preemptions": 0}, small)
    assert paging_words.admission_text(quiet) == ""
