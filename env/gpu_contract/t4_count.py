"""What each chapter sends on a T4, counted phase by phase from its ``gpu`` sizes (#63 item 1).

A pure function of the sizes (``servelab.book.CHAPTERS``) and the constants below: a T4 step of
``a + b * B`` ms from the book's own roofline (chapter 02's window at its slow end, times a stated
engine factor) and a stated prefill rate, each at its low and its high end. Every chapter runs
alone on Colab, so the short step-line sweep (``kept.quick_step_line``) is counted wherever a
chapter calls ``kept.step_line``. Per-request HTTP and tokenizer costs are not counted. A
chapter's wait adds the install, the model download and its server starts as the contract last
counted them (``t4_starts``).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from t4_starts import kept_count, starts_seconds
from t4_wait import INSTALL_S, MODEL_DOWNLOAD_S

from servelab.book import BY_ID, CHAPTERS
from servelab.lessons.batching.roofline import OVERHEAD_UP_TO
from servelab.lessons.batching.t4_step import ENGINE_PER_SEQUENCE as ENGINE_PER_SEQUENCE_FACTORS
from servelab.lessons.batching.t4_step import ENGINE_SHARED as ENGINE_SHARED_FACTORS
from servelab.lessons.batching.t4_step import SOURCE as T4_STEP_SOURCE
from servelab.lessons.continuous_batching.published import published_rooflines
from servelab.lessons.device_model.kept import QUICK_FIT, quick_levels


@dataclass(frozen=True)
class Span:
    """A stated or measured constant as a range: its low-count end first, then its high."""

    value: tuple[float, float]
    unit: str
    source: str
    measured: bool = False


_T4 = published_rooflines(users=1)[0]  # the book's model on a T4, from the datasheet
ENGINE_SHARED = Span(ENGINE_SHARED_FACTORS, "x", T4_STEP_SOURCE, False)
ENGINE_PER_SEQUENCE = Span(ENGINE_PER_SEQUENCE_FACTORS, "x", T4_STEP_SOURCE, False)


def _pair(base: float, factor: Span) -> tuple[float, float]:
    return base * factor.value[0], base * factor.value[1]


STEP_SHARED_MS = Span(
    _pair(_T4.weight_read_ms * (1 + OVERHEAD_UP_TO), ENGINE_SHARED),
    "ms",
    f"roofline.published(T4, t4_model()): weight read {_T4.weight_read_ms:.2f} ms x "
    f"(1 + OVERHEAD_UP_TO) x ENGINE_SHARED",
    False,
)
STEP_PER_SEQUENCE_MS = Span(
    _pair(_T4.per_sequence_ms * (1 + OVERHEAD_UP_TO), ENGINE_PER_SEQUENCE),
    "ms",
    f"roofline.published(T4, t4_model()): {_T4.per_sequence_ms:.3f} ms a sequence x "
    "(1 + OVERHEAD_UP_TO) x ENGINE_PER_SEQUENCE",
    False,
)
PREFILL_TOK_S = Span(
    (25_000.0, 10_000.0),
    "tok/s",
    "stated, issue #63: Qwen3-0.6B's prompt reading on a T4 "
    "(fast end first: the low count reads fastest)",
    False,
)
LLAMA_BUILDS_S = Span(
    (390.0, 600.0),
    "s",
    "stated, issue #63: chapter 08 builds llama-cpp-python "
    "(engines/llama_build.py) and llama-server (engines/llama_server_build.py) from source on "
    "Colab's two vCPUs, 6.5-10 min together (their REFERENCE_BUILD_S, 191 + 166 s; this "
    "machine's build records, 304 + 258 s); Kaggle's four vCPUs are counted at half",
    False,
)
_CPU = (
    "measured: chapter 08's llama.cpp runs at the gpu sizes of issue #63 (32 users, 128-token "
    "answers), SmolLM2-135M, wall clock with HTTP on a 2-core AMD EPYC (AVX2), 7 December "
    "2026; the high end stated at half, Colab's two vCPUs being one core's two threads"
)
CPU_TOK_S = Span(
    (35.0, 17.5),
    "tok/s",
    f"{_CPU}: llama-cpp-python's Q4_1 server, one request at a time (9,216 tokens in 261 s)",
    True,
)
CPU_F16_TOK_S = Span(
    (9.3, 4.65), "tok/s", f"{_CPU}: the same with the F16 file (1,024 tokens in 110 s)", True
)
CPU_SLOTS_TOK_S = Span(
    (48.0, 24.0),
    "tok/s",
    f"{_CPU}: llama-server, one user and the crowd (9,216 tokens in 185 s)",
    True,
)
CPU_SHORT_TOK_S = Span(
    (24.0, 12.0),
    "tok/s",
    f"{_CPU}: llama-server's step sweep and crowd "
    "over the cap, 32-token answers (3,744 tokens in 156 s)",
    True,
)
CPU_PROMPT_TOK_S = Span(
    (370.0, 185.0),
    "tok/s",
    f"{_CPU}: llama-server reading the shared "
    "prompt, reuse on and off (6 prompts of 699 tokens in 11.4 s)",
    True,
)
DEVICE_LIMITS_S = Span(
    (10.0, 20.0), "s", "stated: bench.device_limits' bandwidth and FLOP/s probes", False
)
COUNT_ESTIMATES: dict[str, Span] = {
    "ENGINE_SHARED": ENGINE_SHARED,
    "ENGINE_PER_SEQUENCE": ENGINE_PER_SEQUENCE,
    "STEP_SHARED_MS": STEP_SHARED_MS,
    "STEP_PER_SEQUENCE_MS": STEP_PER_SEQUENCE_MS,
    "PREFILL_TOK_S": PREFILL_TOK_S,
    "LLAMA_BUILDS_S": LLAMA_BUILDS_S,
    "CPU_TOK_S": CPU_TOK_S,
    "CPU_F16_TOK_S": CPU_F16_TOK_S,
    "CPU_SLOTS_TOK_S": CPU_SLOTS_TOK_S,
    "CPU_SHORT_TOK_S": CPU_SHORT_TOK_S,
    "CPU_PROMPT_TOK_S": CPU_PROMPT_TOK_S,
    "DEVICE_LIMITS_S": DEVICE_LIMITS_S,
}


@dataclass(frozen=True)
class T4:
    """One end of the ranges: the step ``a + b * B`` (ms) and the prefill rate (tok/s)."""

    a_ms: float
    b_ms: float
    prefill_tok_s: float
    end: int  # 0 low, 1 high: the index into each stated range

    @classmethod
    def at(cls, end: int) -> T4:
        return cls(
            STEP_SHARED_MS.value[end],
            STEP_PER_SEQUENCE_MS.value[end],
            PREFILL_TOK_S.value[end],
            end,
        )

    def step_s(self, batch: float) -> float:
        return (self.a_ms + self.b_ms * batch) / 1000

    def read_s(self, tokens: float) -> float:
        return tokens / self.prefill_tok_s

    def closed(self, users: int, requests: int, input_tokens: int, answer: int, cap: int) -> float:
        """``users`` each sending ``requests`` in turn, at most ``cap`` at once."""
        batch = min(users, cap)
        rounds = math.ceil(users / cap) * requests
        return rounds * (answer * self.step_s(batch) + self.read_s(batch * input_tokens))

    def open(self, n: int, rate: float, input_tokens: int, answer: int, cap: int) -> float:
        """``n`` requests at ``rate`` a second: the arrivals, or the work at ``cap`` if slower,
        then the last one's answer."""
        batch = min(n, cap)
        work = math.ceil(n / cap) * answer * self.step_s(batch) + self.read_s(n * input_tokens)
        return max(
            n / rate + answer * self.step_s(min(batch, rate * answer * self.a_ms / 1000 + 1)), work
        )

    def quick_line(self, cap: int) -> float:
        """``kept.quick_step_line``: one request a level at ``quick_levels(cap)``."""
        gpu = QUICK_FIT.gpu
        return sum(
            self.closed(n, 1, gpu.input_tokens, gpu.answer_tokens, cap) for n in quick_levels(cap)
        )

    def prefill_fit(self, long_tokens: int, repeats: int = 3) -> float:
        """``bench.prefill_fit``: a warm-up, then ``repeats`` prompts of each length alone."""
        return (repeats + 1) * (2 * self.step_s(1) + self.read_s(long_tokens * 9 / 8))

    def interferer(self, users: int, user_tokens: int, documents: int, document: int) -> float:
        return user_tokens * self.step_s(users) + self.read_s(documents * document)


Phase = tuple[str, Callable[[T4], float]]


def _sizes(chapter: str) -> Any:
    return BY_ID[chapter].sizes.at("gpu")


def _phases_00(s: Any, kaggle: bool) -> list[Phase]:
    return [
        (
            "sweep",
            lambda m: (
                s.sweeps
                * sum(
                    m.closed(n, s.requests_per_user, s.input_tokens, s.answer_tokens, 64)
                    for n in s.levels
                )
            ),
        ),
        (
            "prefix probes",
            lambda m: (
                2 * s.probe_requests * (m.step_s(1) + m.read_s(s.prefix_tokens + s.question_tokens))
            ),
        ),
        ("prefill fit", lambda m: m.prefill_fit(s.document_tokens)),
        (
            "documents, 2 servers",
            lambda m: (
                2
                * s.runs
                * m.interferer(s.decode_users, s.user_tokens, s.documents, s.document_tokens)
            ),
        ),
    ]


def _phases_01(s: Any, kaggle: bool) -> list[Phase]:
    return [
        ("one request", lambda m: m.closed(1, 1, 32, s.answer_tokens, 64)),
        (
            "sweep",
            lambda m: (
                s.sweeps
                * sum(
                    m.closed(n, s.requests_per_user, 32, s.answer_tokens, 64) for n in (1, s.users)
                )
            ),
        ),
    ]


def _phases_02(s: Any, kaggle: bool) -> list[Phase]:
    cap = max(s.levels)
    short, long = sum(s.short_tokens) / 2, sum(s.long_tokens) / 2
    tokens = s.wave_requests * ((1 - s.long_share) * short + s.long_share * long)
    waves = s.wave_requests // s.wave_size
    return [
        ("device limits", lambda m: DEVICE_LIMITS_S.value[m.end]),
        (
            "sweep",
            lambda m: (
                s.sweeps
                * sum(m.closed(n, 1, s.input_tokens, s.answer_tokens, cap) for n in s.levels)
            ),
        ),
        ("waves", lambda m: (s.sweeps * waves + 1) * s.long_tokens[1] * m.step_s(s.wave_size)),
        (
            "flowing",
            lambda m: (
                s.sweeps * (tokens / s.wave_size * m.step_s(s.wave_size) + long * m.step_s(1))
            ),
        ),
    ]


def _phases_03(s: Any, kaggle: bool) -> list[Phase]:
    cap = 2 * s.users
    return [
        ("step line", lambda m: m.quick_line(cap)),
        (
            "roomy",
            lambda m: s.repeats * m.closed(s.users, 1, s.prompt_tokens, s.answer_tokens, cap),
        ),
        (
            "cramped",
            lambda m: (
                s.repeats * m.closed(s.users, 1, s.prompt_tokens, s.answer_tokens, s.users // 3)
            ),
        ),
    ]


def _phases_04(s: Any, kaggle: bool) -> list[Phase]:
    cap, prompt = max(2 * s.users, s.samples), s.prefix_tokens + s.question_tokens
    load = s.users * s.requests_per_user
    return [
        ("step line", lambda m: m.quick_line(cap)),
        ("prefill fit", lambda m: m.prefill_fit(prompt)),
        ("probes", lambda m: (s.probe_requests + 1) * m.read_s(prompt)),
        (
            "loads, cached",
            lambda m: (
                s.load_runs
                * (
                    m.read_s(s.prefix_tokens)
                    + m.closed(
                        s.users, s.requests_per_user, s.question_tokens, s.answer_tokens, cap
                    )
                )
            ),
        ),
        (
            "loads, uncached",
            lambda m: (
                s.load_runs
                * (
                    m.read_s(load * prompt)
                    + m.closed(s.users, s.requests_per_user, 0, s.answer_tokens, cap)
                )
            ),
        ),
        (
            "samples",
            lambda m: 4 * m.closed(s.samples, 1, s.sample_prompt_tokens, s.sample_tokens, cap),
        ),
    ]


def _phases_05(s: Any, kaggle: bool) -> list[Phase]:
    short, long = s.short_requests, s.long_requests
    phases_05: list[Phase] = [
        ("device limits", lambda m: DEVICE_LIMITS_S.value[m.end]),
        ("step line", lambda m: m.quick_line(max(s.levels))),
        (
            "bursts",
            lambda m: (
                s.sweeps
                * sum(m.open(s.burst, 1000.0, s.input_tokens, s.output_tokens, n) for n in s.levels)
            ),
        ),
        (
            "mixed lengths",
            lambda m: (
                s.sweeps
                * (
                    2 * s.mixed_output_tokens * m.step_s(short + long)
                    + m.read_s(short * s.short_input_tokens * 2 + long * s.long_input_tokens)
                )
            ),
        ),
    ]
    if kaggle:
        phases_05.append(
            (
                "tensor parallel",
                lambda m: (
                    2
                    * s.sweeps
                    * (
                        m.closed(1, 1, 32, s.output_tokens, s.tp_users)
                        + m.closed(s.tp_users, 1, 32, s.output_tokens, s.tp_users)
                    )
                ),
            )
        )
    return phases_05


def _phases_06(s: Any, kaggle: bool) -> list[Phase]:
    return [
        ("prefill fit", lambda m: m.prefill_fit(s.document_tokens)),
        (
            "documents, 2 servers",
            lambda m: (
                2 * s.runs * m.interferer(s.users, s.user_tokens, s.documents, s.document_tokens)
            ),
        ),
    ]


def _phases_07(s: Any, kaggle: bool) -> list[Phase]:
    mix = s.mix

    def mixed(m: T4, cap: int) -> float:
        return max(
            mix["chat_requests"] / mix["chat_rate"],
            math.ceil((mix["chat_requests"] + mix["batch_requests"]) / cap)
            * mix["batch_max_tokens"]
            * m.step_s(cap),
        )

    def knee(m: T4, cap: int) -> float:
        """The model's knee for ``cap`` slots (knee.ModelKnee): cap / W, W = the prompt
        read, the answer at the cap's step and the slots' prompts read while it streams."""
        return cap / (
            m.read_s(s.input_tokens)
            + s.output_tokens * m.step_s(cap)
            + m.read_s(cap * s.input_tokens)
        )

    def sweep_rates(m: T4) -> list[float]:
        """rate_grid.RateGrid: rate_percents of the small cap's knee, then top_percent of
        the large cap's (twice the highest placed rate where that is not above it)."""
        placed = [knee(m, seqs) * p / 100 for p in s.rate_percents]
        top = knee(m, big) * s.top_percent / 100
        return [*placed, top if top > placed[-1] else 2 * placed[-1]]

    def rates(m: T4, cap: int) -> float:
        return s.repeats * sum(
            m.open(s.requests_per_rate, r, s.input_tokens, s.output_tokens, cap)
            for r in sweep_rates(m)
        )

    seqs, big = s.interactive_seqs, s.batch_seqs
    return [
        ("step line", lambda m: m.quick_line(seqs)),
        ("slots", lambda m: s.repeats * m.closed(seqs, 1, s.input_tokens, s.output_tokens, seqs)),
        (
            "mixed, both caps and the pair",
            lambda m: s.repeats * (2 * mixed(m, seqs) + mixed(m, big)),
        ),
        ("rate sweeps", lambda m: rates(m, seqs) + rates(m, big)),
    ]


def _phases_08(s: Any, kaggle: bool) -> list[Phase]:
    one = s.repeats * s.one_user_requests * s.output_tokens  # each engine's one user
    crowd = s.repeats * s.many * s.output_tokens
    short = (sum(s.levels) + 2 * s.many) * s.experiment_tokens  # steps, over the cap
    prompts = (1 + s.prefix_requests) * (s.prefix_words * 4 / 3 + 16)  # reuse on, off
    builds = [
        LLAMA_BUILDS_S.value[0] / (2 if kaggle else 1),
        LLAMA_BUILDS_S.value[1] / (2 if kaggle else 1),
    ]
    return [
        ("llama.cpp builds", lambda m: builds[m.end]),
        (
            "llama-cpp-python on the CPU",
            lambda m: (one + crowd) / CPU_TOK_S.value[m.end] + one / CPU_F16_TOK_S.value[m.end],
        ),
        (
            "llama-server on the CPU",
            lambda m: (
                (one + crowd) / CPU_SLOTS_TOK_S.value[m.end]
                + short / CPU_SHORT_TOK_S.value[m.end]
                + prompts / CPU_PROMPT_TOK_S.value[m.end]
            ),
        ),
        (
            "vLLM",
            lambda m: (
                s.repeats
                * (
                    m.closed(1, s.one_user_requests, s.prompt_words, s.output_tokens, s.many)
                    + m.closed(s.many, 1, s.prompt_words, s.output_tokens, s.many)
                )
                + sum(
                    m.closed(n, 1, s.prompt_words, s.experiment_tokens, s.many)
                    for n in (*s.levels, 2 * s.many)
                )
            ),
        ),
    ]


def _phases_09(s: Any, kaggle: bool) -> list[Phase]:
    tenants = s.tenants * s.requests_per_tenant
    prompt = s.prefix_tokens + s.question_tokens
    alone = 2 if kaggle else 1  # one server, and on Kaggle the model over both GPUs

    def tenants_pass(m: T4, tokens: float) -> float:
        """One pass of the tenants' traffic, reading ``tokens`` of each prompt."""
        return max(
            tenants / s.rate,
            m.read_s(tenants * tokens / 2)
            + tenants * s.answer_tokens * m.step_s(s.users) / s.users,
        )

    # Each policy's cold pass reads every prompt; the warm pass after it finds them cached
    # (on a GPU the page does not crowd the replicas' caches) and reads the questions.
    return [
        (
            "policies",
            lambda m: (
                2 * s.repeats * (tenants_pass(m, prompt) + tenants_pass(m, s.question_tokens))
            ),
        ),
        ("prefill fit", lambda m: m.prefill_fit(prompt)),
        (
            "router",
            lambda m: s.repeats * m.closed(s.users, 1, s.input_tokens, s.output_tokens, s.users),
        ),
        (
            "failure",
            lambda m: (
                s.failure_runs
                * m.open(
                    s.failure_requests,
                    s.failure_rate,
                    s.input_tokens,
                    s.failure_output_tokens,
                    s.users,
                )
            ),
        ),
        (
            "alone",
            lambda m: (
                alone
                * (
                    m.quick_line(s.users)
                    + s.repeats * m.closed(s.users, 1, s.input_tokens, s.output_tokens, s.users)
                )
            ),
        ),
    ]


def _phases_10(s: Any, kaggle: bool) -> list[Phase]:
    def knee(m: T4) -> float:
        return s.most_seqs / (s.answer_tokens * m.step_s(s.most_seqs))

    return [
        ("step line", lambda m: m.quick_line(s.most_seqs)),
        (
            "rates",
            lambda m: (
                s.repeats
                * sum(
                    m.open(s.requests, b * knee(m), s.prompt_tokens, s.answer_tokens, s.most_seqs)
                    for b in s.brackets
                )
            ),
        ),
    ]


# Each chapter's count of what it sends, from its gpu sizes ``s`` (``kaggle``: two T4s).
PHASES: dict[str, Callable[[Any, bool], list[Phase]]] = {
    "00-serving-many-users": _phases_00,
    "01-serving-engine": _phases_01,
    "02-continuous-batching": _phases_02,
    "03-paged-attention": _phases_03,
    "04-prefix-caching": _phases_04,
    "05-the-dials": _phases_05,
    "06-chunked-prefill": _phases_06,
    "07-throughput-vs-latency": _phases_07,
    "08-when-not-to": _phases_08,
    "09-past-one-machine": _phases_09,
    "10-capacity-plan": _phases_10,
}


def phases(chapter: str, platform: str) -> list[Phase]:
    """What ``chapter`` sends at its ``gpu`` sizes on ``platform`` (Colab: one T4; Kaggle: two),
    read from its notebook, one named phase at a time."""
    if chapter not in PHASES:
        raise KeyError(f"{chapter}: no count of what it sends")
    return PHASES[chapter](_sizes(chapter), platform == "kaggle")


def phase_seconds(chapter: str, platform: str) -> list[tuple[str, float, float]]:
    """Each phase's seconds at the low and the high end."""
    low, high = T4.at(0), T4.at(1)
    return [(name, count(low), count(high)) for name, count in phases(chapter, platform)]


def measure_seconds(chapter: str, platform: str) -> tuple[float, float]:
    """The chapter's measurement, low and high, in seconds."""
    parts = phase_seconds(chapter, platform)
    return sum(p[1] for p in parts), sum(p[2] for p in parts)


PLATFORMS = ("colab", "kaggle")
NO_DOWNLOAD = {"08-when-not-to"}  # serves its offline model and a GGUF file: no hub download


def wait_seconds(chapter: str, platform: str, starts_s: float | None = None) -> tuple[float, float]:
    """Install, model download, the server starts and the measurement, low and high;
    ``starts_s``: the contract's fresh count of the starts, else the kept one."""
    fixed = INSTALL_S.value + (0.0 if chapter in NO_DOWNLOAD else MODEL_DOWNLOAD_S.value)
    starts = starts_seconds(chapter, platform) if starts_s is None else starts_s
    low, high = measure_seconds(chapter, platform)
    return fixed + starts + low, fixed + starts + high


def wait_line(chapter: str, platform: str, starts_s: float | None = None) -> str:
    """``t4-wait <platform> <chapter> <low>-<high> min``."""
    low, high = wait_seconds(chapter, platform, starts_s)
    return f"t4-wait {platform} {chapter} {low / 60:.1f}-{high / 60:.1f} min"


def readme_table() -> str:
    """The README's table: install, download, server starts and measurement, low-high minutes,
    and how many servers each chapter starts."""
    rows = [
        "| Chapter | Colab (min) | Kaggle (min) | Server starts (Colab, Kaggle) |",
        "|---|---|---|---|",
    ]
    for chapter in CHAPTERS:
        cells = [wait_line(chapter.id, p).split()[3] for p in PLATFORMS]
        starts = [str(len(kept_count(chapter.id, p).starts)) for p in PLATFORMS]
        rows.append(f"| {chapter.id} | {cells[0]} | {cells[1]} | {', '.join(starts)} |")
    return "\n".join(rows)


def main() -> None:
    """Print every chapter's line with its kept server starts, then each phase."""
    for chapter in CHAPTERS:
        for platform in PLATFORMS:
            print(
                wait_line(chapter.id, platform),
                f"[server starts {starts_seconds(chapter.id, platform) / 60:.1f}]",
                " ".join(
                    f"[{name} {low / 60:.1f}-{high / 60:.1f}]"
                    for name, low, high in phase_seconds(chapter.id, platform)
                ),
            )
    print(
        "Constants:",
        *(
            f"  {name} = {s.value[0]:g}-{s.value[1]:g} {s.unit} "
            f"({'measured' if s.measured else 'stated'}): {s.source}"
            for name, s in COUNT_ESTIMATES.items()
        ),
        sep="\n",
    )


if __name__ == "__main__":
    main()
