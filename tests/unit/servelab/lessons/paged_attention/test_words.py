"""servelab.lessons.paged_attention.words: every branch of chapter 03's text, on made-up
findings."""

from __future__ import annotations

from servelab.engines.vllm_server import Capacity
from servelab.lessons.compare import Compared, Placed
from servelab.lessons.paged_attention import words as paging_words
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
COST = TokenCost(
    bytes_per_token=23_040,
    dtype="bfloat16",
    context_limit=8192,
    request_tokens=300,
    context_mib=180.0,
    request_mib=6.6,
)
ROOMY = {"running_max": 32.0, "waiting_max": 0.0, "duration_s": 20.0}
CRAMPED = {
    "running_max": 8.0,
    "waiting_max": 24.0,
    "preemptions": 5.0,
    "duration_s": 61.0,
    "failed": 0.0,
}


def _runs(summary, scales=(0.97, 1.0, 1.03)):
    """Three runs of one load: its summary with the duration a little apart each time."""
    return [dict(summary, duration_s=summary["duration_s"] * scale) for scale in scales]


def _findings(
    capacity=CAPACITY,
    roomy=ROOMY,
    cramped=CRAMPED,
    request_tokens=300,
    cramped_scales=(0.97, 1.0, 1.03),
) -> tuple[PagingFindings, SqueezeFindings]:
    paging = PagingFindings.from_run(
        capacity, 128, request_tokens, roomy, tokens_per_sequence=290.0
    )
    squeeze = SqueezeFindings.from_runs(_runs(roomy), _runs(cramped, cramped_scales), sample_s=0.26)
    return paging, squeeze


def _paging(**changes):
    paging, squeeze = _findings(**changes)
    return paging_words.paging_text(paging, COST, squeeze)


def test_paging_text_when_everything_shows():
    paging, squeeze = _findings()
    text = _paging()
    assert paging.paging_gain and paging.ran_verdict is Placed.ABOVE
    assert squeeze.waited and squeeze.preempted and squeeze.took_longer and squeeze.all_completed
    # 64 blocks a reservation against 3 a request: 21×, though the counts are 37 and 1.
    assert "**37**" in text and "**21×**" in text and "**180 MiB**" in text
    assert paging.counts_ratio_off and "37×" in text and "1.73 full contexts" in text
    assert "**32** sequences" in text
    assert "0.26 s" in text and "**8** running" in text and "**5** times" in text
    assert "**61 s (59–63)**" in text and "**20 s (19–21)**" in text
    assert "3 and 3 runs" in text and "3.0×" in text
    assert "failed" not in text


def test_paging_text_leaves_out_the_rounding_when_the_counts_divide_evenly():
    # 128 usable blocks: 2 contexts of 64 exactly, 64 requests of 2 blocks: 32× either way.
    even = Capacity(kv_cache_tokens=129 * 128, max_model_len=8192, max_concurrency=2.0)
    text = _paging(capacity=even, request_tokens=256)
    assert "**32×**" in text and "Dividing the counts" not in text


def test_paging_text_reports_failures():
    _, squeeze = _findings(cramped=dict(CRAMPED, failed=2.0))
    assert not squeeze.all_completed
    text = _paging(cramped=dict(CRAMPED, failed=2.0))
    assert "6 requests failed" in text
    assert text.split("\n\n")[:2] == _paging().split("\n\n")[:2]
    assert text != _paging()


def test_paging_text_without_gain_load_or_squeeze():
    # A 2,048-token context in 512 tokens' cache: one fits reserved, and one paged.
    tight = Capacity(kv_cache_tokens=2048 + 128, max_model_len=2048, max_concurrency=1.06)
    setting = dict(
        capacity=tight,
        roomy={"running_max": 1.0, "duration_s": 5.0},
        cramped={"running_max": 4.0, "waiting_max": 0.0, "preemptions": 0.0, "duration_s": 5.0},
        request_tokens=2000,
    )
    paging, squeeze = _findings(**setting)
    assert not paging.paging_gain and paging.ran_verdict is not Placed.ABOVE
    assert not squeeze.waited
    text = _paging(**setting)
    assert "**" not in text.split("\n\n", 1)[1]  # past the token's cost, nothing shown
    assert "fits 1" in text and "reservation 1" in text and "most 1 sequences" in text
    assert not any(char.isdigit() for char in text.split("\n\n")[3])  # no squeeze figures


def test_paging_text_cannot_tell_a_duration_within_the_noise():
    _, squeeze = _findings(cramped=dict(CRAMPED, duration_s=21.0))
    assert not squeeze.took_longer
    text = _paging(cramped=dict(CRAMPED, duration_s=21.0))
    assert "**21 s (20–22)**" in text and "10%" in text
    assert "× the time" not in text


def test_paging_text_cannot_tell_a_duration_whose_runs_overlap():
    # The medians 2× apart, but one slow roomy-sized run of the small cache overlaps the roomy.
    text = _paging(cramped=dict(CRAMPED, duration_s=40.0), cramped_scales=(0.5, 1.0, 1.1))
    _, squeeze = _findings(cramped=dict(CRAMPED, duration_s=40.0), cramped_scales=(0.5, 1.0, 1.1))
    assert not squeeze.took_longer
    assert "**40 s (20–44)**" in text and "2.0×" not in text
    assert "× the time" not in text


def test_paging_text_says_when_the_small_cache_finished_sooner():
    """A float32 recording of chapter 03: the small cache 33 s (32–33), the roomy one 48 s
    (36–65), worded as ranges that overlap."""
    sooner = dict(CRAMPED, duration_s=10.0)
    _, squeeze = _findings(cramped=sooner)
    assert squeeze.duration is Compared.LOWER
    text = _paging(cramped=sooner)
    assert "finished sooner" in text and "waiting cost any" not in text
    assert "fuller steps" in text and "queue, not per" not in text


def test_paging_text_waits_without_preemption():
    _, squeeze = _findings(cramped=dict(CRAMPED, waiting_max=3.0, preemptions=0.0))
    assert squeeze.waited and not squeeze.preempted
    text = _paging(cramped=dict(CRAMPED, waiting_max=3.0, preemptions=0.0))
    assert "**3** waiting" in text and "**0**" not in text


def test_prediction_echo_with_and_without_a_guess():
    paging = PagingFindings.from_run(CAPACITY, 128, 300, ROOMY)
    empty = paging_words.paging_prediction("  ", paging)
    assert "(1.73 full contexts)" in empty and "room for 1 request " in empty
    assert "room for 37," in empty and "384 tokens" in empty and "21×" in empty
    two = Capacity(kv_cache_tokens=2 * 8192 + 16, max_model_len=8192, max_concurrency=2.0)
    said = paging_words.paging_prediction("ten times", PagingFindings.from_run(two, 16, 300, ROOMY))
    assert "*ten times*" in said and "room for 2 requests" in said
    assert empty.split("\n")[0] != said.split("\n")[0]  # an empty guess is said to be empty


ROOMY_FIT = RequestFit(blocks=123, block=128, context_limit=8192, request_tokens=300)  # 41
SMALL_FIT = RequestFit(blocks=27, block=128, context_limit=2048, request_tokens=300)  # 9
STEP = StepBudget(budget=2048, prompt_tokens=120, prompts=32)
WAITED = {"waiting_max": 13, "running_max": 20}


def _admission(roomy=WAITED, cramped=None, step=STEP) -> str:
    squeeze = SqueezeFindings.from_runs(
        [{"duration_s": 10.0}],
        [
            {"waiting_max": 0, "duration_s": 10.0}
            | (cramped or {"running_max": 8, "preemptions": 0})
        ],
        sample_s=0.26,
    )
    admission = AdmissionFindings.from_runs(roomy, ROOMY_FIT, squeeze, SMALL_FIT, step=step)
    return paging_words.admission_text(admission)


def test_admission_text_counts_the_prompts_a_step_holds():
    text = _admission()
    assert not STEP.one_step and (STEP.per_step, STEP.steps, STEP.total_tokens) == (17, 2, 3840)
    assert "**13** requests" in text and "most 20" in text and "41 would" in text
    assert "**2,048** tokens" in text and "**17** whole prompts" in text and "120 tokens" in text
    assert "3,840 tokens" in text and "**2** steps" in text and "15 of them" in text


def test_admission_text_when_one_step_holds_every_prompt():
    step = StepBudget(budget=8192, prompt_tokens=120, prompts=32)
    assert step.one_step
    text = _admission(step=step)
    assert "**8,192** tokens" in text and "3,840 tokens" in text and "32 prompts" in text
    assert "** steps" not in text and "of them wait" not in text


def test_admission_text_explains_running_past_the_fit():
    text = _admission(cramped={"running_max": 14, "preemptions": 3})
    assert "**27** blocks" in text and "**3** at" in text and "**9** fit" in text
    assert "120-token prompt" in text and "**27**." in text
    assert "0.26 s" in text and "**14** running" in text and "the 9 that" in text
    assert "3 preemptions" in text


def test_admission_counts_the_most_any_small_cache_run_showed_as_the_squeeze_does():
    runs = [
        {"running_max": 14, "waiting_max": 5, "preemptions": 16, "duration_s": 50.0},
        {"running_max": 12, "waiting_max": 6, "preemptions": 17, "duration_s": 52.0},
    ]
    squeeze = SqueezeFindings.from_runs([{"duration_s": 30.0}], runs, sample_s=0.26)
    text = paging_words.admission_text(
        AdmissionFindings.from_runs(WAITED, ROOMY_FIT, squeeze, SMALL_FIT, step=STEP)
    )
    assert "**14** running" in text and "17 preemptions" in text


def test_admission_text_running_past_the_fit_without_preemption():
    text = _admission(cramped={"running_max": 14, "preemptions": 0})
    assert "**14** running" in text and "preemptions" not in text
    assert text != _admission(cramped={"running_max": 14, "preemptions": 3}).replace("3 ", "0 ")


def test_admission_text_explains_preemptions_the_samples_missed():
    text = _admission(
        roomy={"waiting_max": 0, "running_max": 20}, cramped={"running_max": 9, "preemptions": 16}
    )
    assert "**9** running" in text and "**16** preemptions" in text
    seen_past = _admission(
        roomy={"waiting_max": 0, "running_max": 20}, cramped={"running_max": 14, "preemptions": 16}
    )
    assert "**16** preemptions" not in seen_past and "16 preemptions" in seen_past
    assert "roomy cache" not in text


def test_admission_text_is_empty_when_nothing_needs_explaining():
    assert _admission(roomy={"waiting_max": 0, "running_max": 20}) == ""


def test_the_small_caches_tokens_come_faster_only_with_the_ranges_apart():
    loads = {"roomy": ROOMY | {"tpot_ms_p50": 80.0}, "cramped": CRAMPED | {"tpot_ms_p50": 40.0}}
    assert _findings(**loads)[1].tokens_faster
    faster = _paging(**loads)
    assert "40 ms (all 3" in faster and "80 ms (all 3" in faster
    even = {"roomy": ROOMY | {"tpot_ms_p50": 40.0}, "cramped": CRAMPED | {"tpot_ms_p50": 40.0}}
    assert not _findings(**even)[1].tokens_faster
    same = _paging(**even)
    assert "80 ms" not in same and "40 ms (all 3" in same
    faster_said = paging_words._tokens_text(_findings(**loads)[1])
    same_said = paging_words._tokens_text(_findings(**even)[1])
    assert faster_said.replace("80 ms", "40 ms") != same_said
    assert paging_words._tokens_text(_findings()[1]) == ""  # the runs did not time their tokens
