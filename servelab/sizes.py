"""How much each chapter measures: three profiles of the chapter's knobs.

``smoke`` runs every measurement in seconds (tests, nbval, a reader who only wants to see a
chapter work); ``cpu`` and ``gpu`` are the full lessons on the CPU engine and on a GPU. The
bootstrap picks ``gpu`` or ``cpu`` from the device; ``SERVELAB_SIZE`` overrides it. A chapter reads
its concurrency levels, request counts, token lengths and time limits from here, never from
literals of its own, and its page prints the profile it ran. Each chapter declares its knobs in
its own package (``servelab.lessons.<topic>.chapter``); this module picks the profile.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, Generic, Literal, TypeVar, get_args

from servelab.settings import SIZE

Profile = Literal["smoke", "cpu", "gpu"]
PROFILES: tuple[Profile, ...] = get_args(Profile)


class SizeError(ValueError):
    """An unknown profile or chapter; the message lists the known ones."""


@dataclass(frozen=True, kw_only=True)
class Knobs:
    """One chapter's knobs at one profile. Each chapter subclasses it with its own typed fields
    (in its package's ``chapter`` module), so ``sizes.users`` has a type."""

    profile: Profile

    def knobs(self) -> dict[str, Any]:
        """The chapter's own fields, in declaration order, without the profile."""
        return {f.name: getattr(self, f.name) for f in fields(self) if f.name != "profile"}

    def describe(self) -> str:
        """One line for the page: which profile ran and what it sets."""
        knobs = ", ".join(f"{name}={value}" for name, value in self.knobs().items())
        return f"Size profile '{self.profile}': {knobs}"


K = TypeVar("K", bound=Knobs, covariant=True)


@dataclass(frozen=True)
class Profiles(Generic[K]):
    """A chapter's knobs at each profile: one class, three instances."""

    smoke: K
    cpu: K
    gpu: K

    def __post_init__(self) -> None:
        for profile in PROFILES:
            knobs = self.at(profile)
            if knobs.profile != profile or type(knobs) is not type(self.smoke):
                raise SizeError(f"the {profile} slot holds {knobs!r}")

    def at(self, profile: Profile) -> K:
        found: K = getattr(self, profile)
        return found


# chapter id -> its profiles. The declarations live in each chapter's package, above this layer
# (servelab.lessons.*.chapter); servelab/__init__.py hands them down from servelab.book, so
# ``runtime.sizes(chapter)`` can read them from ``servelab.env``.
DECLARED: dict[str, Profiles[Knobs]] = {}


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


def sizes_for(chapter: str, profile: str) -> Knobs:
    """The knobs of ``chapter`` at ``profile``."""
    if chapter not in DECLARED:
        raise SizeError(f"no sizes for chapter {chapter!r}; known: {', '.join(DECLARED)}")
    if profile not in PROFILES:
        raise SizeError(f"unknown size profile {profile!r}; choose one of {PROFILES}")
    return DECLARED[chapter].at(profile)
