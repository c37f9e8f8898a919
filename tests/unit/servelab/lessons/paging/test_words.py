"""servelab.lessons.paging.words: every branch of chapter 03's text, on made-up findings."""

from __future__ import annotations

from servelab.engines.vllm_server import Capacity
from servelab.lessons.paging import words as paging_words
from servelab.lessons.paging.findings import (
    AdmissionFindings,
    PagingFindings,
    SqueezeFindings,
    StepBudget,
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


def _runs(summary, scales=(0.97, 1.0, 1.03)):
    """Three runs of one load: its summary with the duration a little apart each time."""
    return [dict(summary, duration_s=summary["duration_s"] * scale) for scale in scales]


def _paging(capacity=CAPACITY, roomy=ROOMY, cramped=CRAMPED, request_tokens=300,
            cramped_scales=(0.97, 1.0, 1.03)):
    paging = PagingFindings.from_run(capacity, 128, request_tokens, roomy,
                                     tokens_per_sequence=290.0)
    squeeze = SqueezeFindings.from_runs(_runs(roomy), _runs(cramped, cramped_scales),
                                        sample_s=0.26)
    return paging_words.paging_text(paging, COST, squeeze)


def test_paging_text_when_everything_shows():
    text = _paging()
    # 64 blocks a reservation against 3 a request: 21×, though the counts are 37 and 1.
    assert "**37**" in text and "**21×**" in text and "**180 MiB**" in text
    assert "Dividing the counts gives 37×, not 21×" in text and "1.73 full contexts" in text
    assert "**32** sequences ran at once" in text
    assert "about every 0.26 s, saw up to **8** running" in text
    assert "preempted up to **5** times in one run" in text
    assert "**61 s (59–63)** in the small cache and **20 s (19–21)** in the roomy one" in text
    assert "(median of 3 and 3 runs, range in brackets)" in text
    assert "cost 3.0× the time, with the ranges apart" in text
    assert "Every request still completed" in text


def test_paging_text_leaves_out_the_rounding_when_the_counts_divide_evenly():
    # 128 usable blocks: 2 contexts of 64 exactly, 64 requests of 2 blocks: 32× either way.
    even = Capacity(kv_cache_tokens=129 * 128, max_model_len=8192, max_concurrency=2.0)
    text = _paging(capacity=even, request_tokens=256)
    assert "**32×**" in text and "Dividing the counts" not in text


def test_paging_text_reports_failures():
    text = _paging(cramped=dict(CRAMPED, failed=2.0))
    assert "6 requests failed over these runs" in text and "still completed" not in text


def test_paging_text_without_gain_load_or_squeeze():
    # A 2,048-token context in 512 tokens' cache: one fits reserved, and one paged.
    tight = Capacity(kv_cache_tokens=2048 + 128, max_model_len=2048, max_concurrency=1.06)
    text = _paging(capacity=tight, roomy={"running_max": 1.0, "duration_s": 5.0},
                   cramped={"running_max": 4.0, "waiting_max": 0.0, "preemptions": 0.0,
                            "duration_s": 5.0}, request_tokens=2000)
    assert "no gain at these sizes" in text
    assert "did not show paging's gain" in text
    assert "squeeze did not show" in text


def test_paging_text_cannot_tell_a_duration_within_the_noise():
    text = _paging(cramped=dict(CRAMPED, duration_s=21.0))
    assert "within 10% of each other" in text and "cannot say the waiting cost" in text
    assert "× the time" not in text


def test_paging_text_cannot_tell_a_duration_whose_runs_overlap():
    # The medians 2× apart, but one slow roomy-sized run of the small cache overlaps the roomy.
    text = _paging(cramped=dict(CRAMPED, duration_s=40.0), cramped_scales=(0.5, 1.0, 1.1))
    assert "**40 s (20–44)**" in text and "the ranges overlap" in text
    assert "× the time" not in text


def test_paging_text_waits_without_preemption():
    text = _paging(cramped=dict(CRAMPED, waiting_max=3.0, preemptions=0.0))
    assert "no sequence was preempted" in text


def test_prediction_echo_with_and_without_a_guess():
    paging = PagingFindings.from_run(CAPACITY, 128, 300, ROOMY)
    empty = paging_words.paging_prediction("  ", paging)
    assert "left the prediction empty" in empty and "(1.73 full contexts)" in empty
    assert "37 did, each holding 384 tokens, where a reservation holds 21× as much" in empty
    two = Capacity(kv_cache_tokens=2 * 8192 + 16, max_model_len=8192, max_concurrency=2.0)
    said = paging_words.paging_prediction("ten times", PagingFindings.from_run(two, 16, 300, ROOMY))
    assert "You predicted: *ten times*" in said and "2 requests fit" in said


ROOMY_FIT = RequestFit(blocks=123, block=128, context_limit=8192, request_tokens=300)  # 41
SMALL_FIT = RequestFit(blocks=27, block=128, context_limit=2048, request_tokens=300)   # 9
STEP = StepBudget(budget=2048, prompt_tokens=120, prompts=32)
WAITED = {"waiting_max": 13, "running_max": 20}


def _admission(roomy=WAITED, cramped=None, step=STEP) -> str:
    squeeze = SqueezeFindings.from_runs(
        [{"duration_s": 10.0}],
        [{"waiting_max": 0, "duration_s": 10.0}
         | (cramped or {"running_max": 8, "preemptions": 0})],
        sample_s=0.26)
    admission = AdmissionFindings.from_runs(roomy, ROOMY_FIT, squeeze, SMALL_FIT, step=step)
    return paging_words.admission_text(admission)


def test_admission_text_counts_the_prompts_a_step_holds():
    text = _admission()
    assert "up to **13** requests waited while at most 20 were seen running, though 41" in text
    assert "here **2,048** tokens as the servers were started" in text
    assert "holds **17** whole prompts of 120 tokens" in text
    assert "are 3,840 tokens, so by that arithmetic reading them takes **2** steps" in text
    assert "15 of them wait for a later step" in text


def test_admission_text_when_one_step_holds_every_prompt():
    text = _admission(step=StepBudget(budget=8192, prompt_tokens=120, prompts=32))
    assert "here **8,192** tokens" in text and "in one step" in text
    assert "does not explain the wait" in text



def test_admission_text_explains_running_past_the_fit():
    text = _admission(cramped={"running_max": 14, "preemptions": 3})
    assert "The small cache has **27** blocks of 128" in text
    assert "needs **3** at its full length, so **9** fit whole" in text
    assert "its 120-token prompt needs 1" in text and "admit up to **27**" in text
    assert "about every 0.26 s, saw **14** running at once, more than the 9" in text
    assert "its 3 preemptions" in text


def test_admission_counts_the_most_any_small_cache_run_showed_as_the_squeeze_does():
    runs = [{"running_max": 14, "waiting_max": 5, "preemptions": 16, "duration_s": 50.0},
            {"running_max": 12, "waiting_max": 6, "preemptions": 17, "duration_s": 52.0}]
    squeeze = SqueezeFindings.from_runs([{"duration_s": 30.0}], runs, sample_s=0.26)
    text = paging_words.admission_text(AdmissionFindings.from_runs(WAITED, ROOMY_FIT, squeeze,
                                                                    SMALL_FIT, step=STEP))
    assert "saw **14** running at once" in text and "its 17 preemptions" in text


def test_admission_text_running_past_the_fit_without_preemption():
    text = _admission(cramped={"running_max": 14, "preemptions": 0})
    assert "no answer grew far enough" in text


def test_admission_text_explains_preemptions_the_samples_missed():
    text = _admission(roomy={"waiting_max": 0, "running_max": 20},
                      cramped={"running_max": 9, "preemptions": 16})
    assert "saw **9** running at once, no more than fit whole" in text
    assert "a peak can fall between two samples" in text
    assert "the **16** preemptions show" in text
    assert "roomy cache" not in text


def test_admission_text_is_empty_when_nothing_needs_explaining():
    assert _admission(roomy={"waiting_max": 0, "running_max": 20}) == ""


def test_the_small_caches_tokens_come_faster_only_with_the_ranges_apart():
    faster = _paging(roomy=ROOMY | {"tpot_ms_p50": 80.0}, cramped=CRAMPED | {"tpot_ms_p50": 40.0})
    assert "tokens came faster in the small cache, a time per output token of 40 ms (all 3" in (
        faster) and "time in the queue, not per token" in faster
    same = _paging(roomy=ROOMY | {"tpot_ms_p50": 40.0}, cramped=CRAMPED | {"tpot_ms_p50": 40.0})
    assert "do not put the small cache's tokens ahead" in same and "came faster" not in same
    assert "time per output token" not in _paging()  # the runs did not time their tokens
