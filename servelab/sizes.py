"""How much each chapter measures: one table, three profiles.

``smoke`` runs every measurement in seconds (tests, nbval, a reader who only wants to see a
chapter work); ``cpu`` and ``gpu`` are the full lessons on the CPU engine and on a GPU. The
bootstrap picks ``gpu`` or ``cpu`` from the device; ``SERVELAB_SIZE`` overrides it. A chapter reads
its concurrency levels, request counts, token lengths and time limits from here, never from
literals of its own, and its page prints the profile it ran.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, Literal, get_args

from servelab.settings import SIZE

Profile = Literal["smoke", "cpu", "gpu"]
PROFILES: tuple[Profile, ...] = get_args(Profile)

# chapter id -> profile -> the chapter's knobs. Every profile of a chapter has the same keys.
TABLE: dict[str, dict[str, dict[str, Any]]] = {
    "00-serving-many-users": {
        "smoke": dict(levels=[1, 4], requests_per_user=1, input_tokens=32, answer_tokens=16,
                      sweeps=2, prefix_tokens=500, question_tokens=16, probe_requests=3,
                      decode_users=2, user_tokens=96, document_tokens=600, arrival_s=0.5,
                      documents=2, spacing_s=0.5, chunk_pause_ms=250, runs=2),
        "cpu": dict(levels=[1, 4, 8, 16, 32], requests_per_user=1, input_tokens=32,
                    answer_tokens=48, sweeps=3, prefix_tokens=2000, question_tokens=16,
                    probe_requests=4, decode_users=4, user_tokens=160, document_tokens=1200,
                    arrival_s=1.5, documents=2, spacing_s=2.5, chunk_pause_ms=250,
                    runs=3),
        "gpu": dict(levels=[1, 2, 4, 8, 16, 32], requests_per_user=2, input_tokens=64,
                    answer_tokens=128, sweeps=3, prefix_tokens=2000, question_tokens=16,
                    probe_requests=4, decode_users=16, user_tokens=768, document_tokens=7000,
                    arrival_s=1.5, documents=3, spacing_s=1.5, chunk_pause_ms=50,
                    runs=3),
    },
    "01-serving-engine": {
        "smoke": dict(users=4, requests_per_user=1, answer_tokens=16, sweeps=2),
        "cpu": dict(users=16, requests_per_user=1, answer_tokens=96, sweeps=3),
        "gpu": dict(users=32, requests_per_user=2, answer_tokens=256, sweeps=3),
    },
    "02-continuous-batching": {
        "smoke": dict(levels=[1, 4], input_tokens=32, answer_tokens=16, sweeps=2, wave_size=4,
                      wave_requests=8, short_tokens=(4, 8), long_tokens=(24, 32),
                      long_share=0.25),
        "cpu": dict(levels=[1, 4, 8, 16, 32], input_tokens=16, answer_tokens=64, sweeps=3,
                    wave_size=16, wave_requests=64, short_tokens=(2, 8),
                    long_tokens=(160, 192), long_share=0.125),
        "gpu": dict(levels=[1, 2, 4, 8, 16, 32, 64], input_tokens=128, answer_tokens=256,
                    sweeps=3, wave_size=32, wave_requests=256, short_tokens=(8, 64),
                    long_tokens=(256, 512), long_share=0.125),
    },
    "03-paged-attention": {
        # each load runs ``repeats`` times on its server, so the two times have ranges
        "smoke": dict(users=4, prompt_tokens=120, answer_tokens=24, context_limit=1024,
                      small_context=256, repeats=2),
        "cpu": dict(users=32, prompt_tokens=120, answer_tokens=96, context_limit=8192,
                    small_context=2048, repeats=3),
        "gpu": dict(users=64, prompt_tokens=120, answer_tokens=180, context_limit=8192,
                    small_context=2048, repeats=3),
    },
    "04-prefix-caching": {
        # The load (users x requests_per_user) runs load_runs times on each server.
        "smoke": dict(prefix_tokens=384, question_tokens=16, answer_tokens=4, users=2,
                      requests_per_user=1, probe_requests=2, samples=4,
                      sample_prompt_tokens=384, sample_tokens=16, load_runs=2),
        "cpu": dict(prefix_tokens=2000, question_tokens=16, answer_tokens=16, users=2,
                    requests_per_user=2, probe_requests=2, samples=4,
                    sample_prompt_tokens=512, sample_tokens=64, load_runs=3),
        "gpu": dict(prefix_tokens=2000, question_tokens=16, answer_tokens=16, users=16,
                    requests_per_user=4, probe_requests=4, samples=4,
                    sample_prompt_tokens=2000, sample_tokens=128, load_runs=3),
    },
    "05-the-dials": {
        # burst is above the largest level in every profile, so requests queue at each level.
        "smoke": dict(sweeps=2, levels=[1, 4], burst=8, input_tokens=32, output_tokens=8,
                      tp_users=4, cache_tokens=1536, long_context=1024, refused_context=2048,
                      short_requests=4, long_requests=1, short_input_tokens=32,
                      long_input_tokens=600, mixed_output_tokens=160),
        "cpu": dict(sweeps=3, levels=[1, 4, 12, 24], burst=32, input_tokens=32,
                    output_tokens=12, tp_users=16, cache_tokens=2560, long_context=2048,
                    refused_context=4096,
                    short_requests=8, long_requests=2, short_input_tokens=32,
                    long_input_tokens=600, mixed_output_tokens=128),
        "gpu": dict(sweeps=3, levels=[1, 4, 16, 64], burst=96, input_tokens=128,
                    output_tokens=64, tp_users=16, cache_tokens=2560, long_context=2048,
                    refused_context=4096,
                    short_requests=8, long_requests=2, short_input_tokens=32,
                    long_input_tokens=600, mixed_output_tokens=160),
    },
    "06-chunked-prefill": {
        # spacing_s is the least time between a run's documents: the page spaces them further,
        # from how long one takes alone, and the users decode long enough to outlast them.
        # Each server is started ``runs`` times, the two in turn, and measured once a start.
        "smoke": dict(users=2, user_tokens=64, document_tokens=160, pause_ms=400,
                      arrival_s=0.5, documents=2, spacing_s=0.4, max_model_len=1024, runs=2),
        "cpu": dict(users=4, user_tokens=200, document_tokens=600, pause_ms=400,
                    arrival_s=1.0, documents=2, spacing_s=3.0, max_model_len=8192, runs=3),
        "gpu": dict(users=16, user_tokens=512, document_tokens=2000, pause_ms=40,
                    arrival_s=1.5, documents=3, spacing_s=1.5, max_model_len=4096, runs=3),
    },
    "07-throughput-vs-latency": {
        # requests_per_rate[i] requests at rates[i]; every rate and the mix are served
        # ``repeats`` times. The top rate offers more requests at once than interactive_seqs.
        "smoke": dict(rates=[2, 8], requests_per_rate=[2, 4], input_tokens=32, output_tokens=8,
                      metrics_rate=4, metrics_requests=6, interactive_seqs=4, batch_seqs=64,
                      ttft_slo_ms=1000, tpot_slo_ms=1000, repeats=2,
                      mix=dict(chat_rate=2.0, chat_requests=3, batch_requests=4,
                               batch_max_tokens=16)),
        # cpu: 4 slots of ~1 s requests finish ~4 req/s, so 6 req/s already queues the small cap.
        "cpu": dict(rates=[2, 6, 16], requests_per_rate=[4, 12, 12], input_tokens=64,
                    output_tokens=24,
                    metrics_rate=1.5, metrics_requests=24, interactive_seqs=4, batch_seqs=64,
                    ttft_slo_ms=1000, tpot_slo_ms=250, repeats=3,
                    mix=dict(chat_rate=2.0, chat_requests=6, batch_requests=8,
                             batch_max_tokens=48)),
        "gpu": dict(rates=[2, 8, 32], requests_per_rate=[32, 64, 128], input_tokens=128,
                    output_tokens=128, metrics_rate=2, metrics_requests=128,
                    interactive_seqs=8, batch_seqs=128, ttft_slo_ms=1000,
                    tpot_slo_ms=100, repeats=3,
                    mix=dict(chat_rate=4.0, chat_requests=32, batch_requests=96,
                             batch_max_tokens=256)),
    },
    "08-when-not-to": {
        # many users at once, each of llama-server's `many` slots holding slot_context tokens;
        # its step sweep over levels, 2 × many users against the cap, and prefix_requests
        # requests that share one prompt of prefix_words words
        "smoke": dict(many=4, one_user_requests=1, prompt_words=16, output_tokens=12, repeats=2,
                      slot_context=512, levels=[1, 2, 4], prefix_words=128, prefix_requests=3),
        "cpu": dict(many=16, one_user_requests=2, prompt_words=32, output_tokens=32, repeats=3,
                    slot_context=1024, levels=[1, 2, 4, 8, 16], prefix_words=384,
                    prefix_requests=5),
        # two repeats: on a GPU runtime llama.cpp still serves its 32 users on the CPU
        "gpu": dict(many=32, one_user_requests=4, prompt_words=64, output_tokens=128,
                    repeats=2, slot_context=1024, levels=[1, 2, 4, 8, 16, 32],
                    prefix_words=512, prefix_requests=5),
    },
    "09-past-one-machine": {
        "smoke": dict(tenants=2, requests_per_tenant=3, prefix_tokens=256, question_tokens=16,
                      answer_tokens=4, rate=4.0, failure_rate=4.0, failure_requests=16,
                      kill_at_s=1.5, failure_output_tokens=8, users=4, input_tokens=32,
                      output_tokens=16, max_model_len=1024, repeats=2),
        "cpu": dict(tenants=3, requests_per_tenant=6, prefix_tokens=1024, question_tokens=16,
                    answer_tokens=8, rate=2.0, failure_rate=4.0, failure_requests=32,
                    kill_at_s=3.0, failure_output_tokens=16, users=8, input_tokens=32,
                    output_tokens=48, max_model_len=2048, repeats=3),
        "gpu": dict(tenants=8, requests_per_tenant=16, prefix_tokens=2000, question_tokens=16,
                    answer_tokens=32, rate=8.0, failure_rate=16.0, failure_requests=240,
                    kill_at_s=5.0, failure_output_tokens=64, users=64, input_tokens=128,
                    output_tokens=128, max_model_len=4096, repeats=3),
    },
    "10-capacity-plan": {
        # The brief (rate, prompt, answer, targets as multiples of this device's own times,
        # share), the step fit's closed-loop levels (answers of fit_tokens) on a server allowed
        # most_seqs sequences,
        # then `requests` Poisson arrivals at each of two rates around the planned knee,
        # `repeats` times over.
        "smoke": dict(rate=8.0, prompt_tokens=32, answer_tokens=8, tpot_factor=2.0,
                      ttft_factor=4.0, share=0.9, levels=[1, 4], most_seqs=4, fit_tokens=16,
                      brackets=[0.5, 2.0], requests=16, repeats=2, max_model_len=512),
        "cpu": dict(rate=40.0, prompt_tokens=32, answer_tokens=16, tpot_factor=2.0,
                    ttft_factor=4.0, share=0.9, levels=[1, 4, 8, 16], most_seqs=16,
                    fit_tokens=48,
                    brackets=[0.75, 1.5], requests=200, repeats=2, max_model_len=1024),
        "gpu": dict(rate=400.0, prompt_tokens=256, answer_tokens=128, tpot_factor=2.0,
                    ttft_factor=4.0, share=0.9, levels=[1, 8, 32, 64], most_seqs=64,
                    fit_tokens=256,
                    brackets=[0.75, 1.5], requests=400, repeats=2, max_model_len=1024),
    },
}


class SizeError(ValueError):
    """An unknown profile or chapter; the message lists the known ones."""


class Sizes(Mapping[str, Any]):
    """One chapter's knobs at one profile: ``sizes.users`` or ``sizes["users"]``."""

    def __init__(self, chapter: str, profile: str, values: Mapping[str, Any]) -> None:
        self.chapter = chapter
        self.profile = profile
        self._values = dict(values)

    def __getattr__(self, name: str) -> Any:
        try:
            return self._values[name]
        except KeyError:
            raise AttributeError(f"{self.chapter} has no size {name!r}") from None

    def __getitem__(self, name: str) -> Any:
        return self._values[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def describe(self) -> str:
        """One line for the page: which profile ran and what it sets."""
        knobs = ", ".join(f"{name}={value}" for name, value in self._values.items())
        return f"Size profile '{self.profile}': {knobs}"

    def __repr__(self) -> str:
        return f"<Sizes {self.chapter} {self.profile}: {self._values}>"


def profile_for(device_kind: str) -> Profile:
    """``SERVELAB_SIZE`` if set, else ``gpu`` on a CUDA device and ``cpu`` elsewhere."""
    forced = SIZE.value()
    if forced:
        if forced not in PROFILES:
            raise SizeError(f"{SIZE.name}={forced!r} is not a profile; choose one of {PROFILES}")
        return forced
    return "gpu" if device_kind == "cuda" else "cpu"


def engine_in_process(device_kind: str) -> bool:
    """Whether a vLLM server on this kind of device runs its engine core inside the API server's
    process: only in a smoke run on the CPU.

    A smoke run (tests, nbval) measures nothing a lesson states, so there it saves one import of
    vLLM, about 11 s at every start on two cores. The lesson sizes keep vLLM's default:
    benchmarks/in_process.py measured one stream at half its speed and prefill at twice its rate
    in process, which would change what the chapters report.
    """
    return device_kind == "cpu" and profile_for(device_kind) == "smoke"


def sizes_for(chapter: str, profile: str) -> Sizes:
    """The knobs of ``chapter`` at ``profile``."""
    if chapter not in TABLE:
        raise SizeError(f"no sizes for chapter {chapter!r}; known: {', '.join(TABLE)}")
    if profile not in PROFILES:
        raise SizeError(f"unknown size profile {profile!r}; choose one of {PROFILES}")
    return Sizes(chapter, profile, TABLE[chapter][profile])
