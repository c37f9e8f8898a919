"""How much each chapter measures: one table, three profiles.

``smoke`` runs every measurement in seconds (tests, nbval, a reader who only wants to see a
chapter work); ``cpu`` and ``gpu`` are the full lessons on the CPU engine and on a GPU. The
bootstrap picks ``gpu`` or ``cpu`` from the device; ``SERVELAB_SIZE`` overrides it. A chapter reads
its concurrency levels, request counts, token lengths and time limits from here, never from
literals of its own, and its page prints the profile it ran.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from typing import Any

PROFILES: tuple[str, ...] = ("smoke", "cpu", "gpu")
ENV_VAR = "SERVELAB_SIZE"

# chapter id -> profile -> the chapter's knobs. Every profile of a chapter has the same keys.
TABLE: dict[str, dict[str, dict[str, Any]]] = {
    "01-serving-engine": {
        "smoke": dict(users=4, answer_tokens=16),
        "cpu": dict(users=8, answer_tokens=48),
        "gpu": dict(users=32, answer_tokens=128),
    },
    "02-continuous-batching": {
        "smoke": dict(levels=[1, 4], requests_per_user=1, answer_tokens=16,
                      wave_size=4, wave_requests=8),
        "cpu": dict(levels=[1, 2, 4, 8, 16, 32, 64], requests_per_user=1, answer_tokens=48,
                    wave_size=8, wave_requests=24),
        "gpu": dict(levels=[1, 2, 4, 8, 16, 32, 64], requests_per_user=2, answer_tokens=128,
                    wave_size=16, wave_requests=64),
    },
    "03-paged-attention": {
        "smoke": dict(users=4, prompt_tokens=120, answer_tokens=24, context_limit=8192),
        "cpu": dict(users=32, prompt_tokens=120, answer_tokens=180, context_limit=8192),
        "gpu": dict(users=64, prompt_tokens=120, answer_tokens=180, context_limit=8192),
    },
    "04-prefix-caching": {
        "smoke": dict(prefix_tokens=2000, question_tokens=16, answer_tokens=4, users=2,
                      requests_per_user=1, probe_requests=2),
        "cpu": dict(prefix_tokens=2000, question_tokens=16, answer_tokens=16, users=4,
                    requests_per_user=2, probe_requests=4),
        "gpu": dict(prefix_tokens=2000, question_tokens=16, answer_tokens=16, users=16,
                    requests_per_user=4, probe_requests=4),
    },
    "05-the-dials": {
        "smoke": dict(levels=[1, 4], burst=8, input_tokens=32, output_tokens=8),
        "cpu": dict(levels=[1, 4, 16, 64], burst=64, input_tokens=32, output_tokens=16),
        "gpu": dict(levels=[1, 4, 16, 64], burst=64, input_tokens=128, output_tokens=64),
    },
    "06-chunked-prefill": {
        "smoke": dict(users=2, user_tokens=48, document_tokens=1000, chunk_budget=256,
                      arrival_s=1.0),
        "cpu": dict(users=4, user_tokens=160, document_tokens=2000, chunk_budget=256,
                    arrival_s=1.5),
        "gpu": dict(users=16, user_tokens=512, document_tokens=7000, chunk_budget=512,
                    arrival_s=1.5),
    },
    "07-throughput-vs-latency": {
        "smoke": dict(rates=[2, 8], requests_per_rate=4, input_tokens=32, output_tokens=8,
                      interactive_seqs=4, batch_seqs=64,
                      mix=dict(chat_rate=2.0, chat_requests=3, batch_requests=4,
                               batch_max_tokens=16)),
        "cpu": dict(rates=[1, 2, 4, 8], requests_per_rate=12, input_tokens=64, output_tokens=32,
                    interactive_seqs=4, batch_seqs=64,
                    mix=dict(chat_rate=2.0, chat_requests=10, batch_requests=12,
                             batch_max_tokens=96)),
        "gpu": dict(rates=[2, 4, 8, 16, 32], requests_per_rate=64, input_tokens=128,
                    output_tokens=128, interactive_seqs=8, batch_seqs=128,
                    mix=dict(chat_rate=4.0, chat_requests=32, batch_requests=96,
                             batch_max_tokens=256)),
    },
    "08-when-not-to": {
        "smoke": dict(many=4, one_user_requests=1, prompt_words=16, output_tokens=12),
        "cpu": dict(many=32, one_user_requests=3, prompt_words=32, output_tokens=48),
        "gpu": dict(many=32, one_user_requests=4, prompt_words=64, output_tokens=128),
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


def profile_for(device_kind: str) -> str:
    """``SERVELAB_SIZE`` if set, else ``gpu`` on a CUDA device and ``cpu`` elsewhere."""
    forced = os.environ.get(ENV_VAR, "").strip()
    if forced:
        if forced not in PROFILES:
            raise SizeError(f"{ENV_VAR}={forced!r} is not a profile; choose one of {PROFILES}")
        return forced
    return "gpu" if device_kind == "cuda" else "cpu"


def sizes_for(chapter: str, profile: str) -> Sizes:
    """The knobs of ``chapter`` at ``profile``."""
    if chapter not in TABLE:
        raise SizeError(f"no sizes for chapter {chapter!r}; known: {', '.join(TABLE)}")
    if profile not in PROFILES:
        raise SizeError(f"unknown size profile {profile!r}; choose one of {PROFILES}")
    return Sizes(chapter, profile, TABLE[chapter][profile])
