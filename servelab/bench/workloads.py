"""Workloads: what is sent, and when. Each is a frozen dataclass, seeded and reproducible.

A workload does two things:

- ``plan(prompts)`` returns the list of :class:`PlannedRequest` it will send. The plan depends only
  on the workload's fields and the prompt source, so the same workload always plans the same
  requests (prompts from seeds, output lengths and arrival times from ``numpy`` generators).
- ``drive(session, plan)`` sends them with the timing the workload stands for.

All workloads ask for fixed output lengths (``ignore_eos`` with ``max_tokens``) so that runs are
comparable; prompts have exact token lengths on the completions endpoint.
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import ClassVar, Protocol

import numpy as np

from servelab.bench.prompts import PromptSource, TokenizingSource

# Seeds for prompts are derived from the workload seed so that workloads with different seeds
# never share prompts (and so never share cached prefixes by accident).
SEED_STRIDE = 1_000_003


class Role(StrEnum):
    """What a request is within its workload. A run's metrics (``Result.summary()``) describe
    its ``USER`` requests, ``PlannedRequest``'s default; the other roles disturb or probe them.
    Each member equals its string (``Role.USER == "user"``), the value of the ``role`` column."""

    USER = "user"  # the users; chapter 07's chat traffic is theirs too
    INTERFERER = "interferer"  # chapter 06's long document, arriving among decoding users
    BATCH = "batch"  # chapter 07's batch job, submitted all at once
    LONG = "long"  # the long prompts of MixedLengths and PrefillProbe
    SHORT = "short"  # PrefillProbe's short prompts
    WARM_UP = "warm-up"  # PrefillProbe's first request, left out of its fit


@dataclass(frozen=True)
class PlannedRequest:
    """A request a workload will send.

    ``arrival`` is when the request arrives, in seconds after the run starts; from then until it
    is sent it waits (e.g. for its wave, or for a free slot). ``None`` means a closed-loop user
    sends it as soon as the previous answer is in: it never waits on the client. ``role``
    tells requests of one workload apart. A ``prompt`` may be token ids (completions only).
    ``cache_salt`` keeps vLLM from reusing cached prefixes.
    ``request_id`` is sent as the ``X-Request-Id`` header: vLLM names the request after it (and
    logs it with ``--enable-log-requests``), and vLLM's router passes it on to the replica.
    """

    index: int
    user: int
    prompt: str | list[int]
    max_tokens: int
    arrival: float | None = None
    n: int = 1
    role: Role = Role.USER
    ignore_eos: bool = True
    temperature: float | None = None
    cache_salt: str | None = None
    request_id: str | None = None


class Session(Protocol):
    """What a workload drives: ``send`` one request and wait until its stream is consumed;
    ``now`` is the run's clock (seconds since it started), the clock arrivals refer to."""

    async def send(self, planned: PlannedRequest) -> object: ...

    def now(self) -> float: ...


class Workload(Protocol):
    """What ``servelab.bench.run`` sends and when. A workload whose lesson is prefix reuse has a
    true ``reuses_cache``; every other one's requests are kept from the prefix cache (see
    ``isolated``)."""

    @property
    def name(self) -> str: ...

    def plan(self, prompts: PromptSource) -> list[PlannedRequest]: ...

    async def drive(self, session: Session, plan: list[PlannedRequest]) -> None: ...


def _positive(**values: float | None) -> None:
    for name, value in values.items():
        if value is None or value <= 0:
            raise ValueError(f"{name} must be positive, not {value!r}")


def _prompt_seed(seed: int, index: int) -> int:
    return seed * SEED_STRIDE + index


def isolated(plan: list[PlannedRequest], run_id: str) -> list[PlannedRequest]:
    """``plan`` with every request's cache salt prefixed by ``run_id``, one run's own id.

    Prompts come from seeds, so two runs with the same seed send the same prompts: the levels of
    a sweep, the two halves of a comparison. With prefix caching on (vLLM's default) a later run
    would then find an earlier one's blocks cached and skip their prefill; on a GPU's 16-token
    blocks even short prompts hit. vLLM mixes the salt into the hash of a request's first
    block, so salted runs cannot hit one another's blocks, while requests of one run that share
    a salt can still share a prefix. (vLLM refuses a salt with '/', '@' or '\\', or of over
    128 characters.) A request's ``request_id`` gets the same prefix, so that ids stay unique
    across runs on one server.
    """
    return [
        replace(
            planned,
            cache_salt=f"{run_id}-{planned.cache_salt or 'run'}",
            request_id=planned.request_id and f"{run_id}-{planned.request_id}",
        )
        for planned in plan
    ]


async def drive_users(session: Session, plan: list[PlannedRequest]) -> None:
    """Each user sends its own requests back to back; users run side by side."""
    by_user: dict[int, list[PlannedRequest]] = {}
    for planned in plan:
        by_user.setdefault(planned.user, []).append(planned)

    async def user_loop(requests: list[PlannedRequest]) -> None:
        for planned in requests:
            await session.send(planned)

    async with asyncio.TaskGroup() as group:
        for requests in by_user.values():
            group.create_task(user_loop(requests))


async def drive_arrivals(
    session: Session, plan: list[PlannedRequest], max_concurrency: int | None = None
) -> None:
    """Send each request at its ``arrival`` time; with ``max_concurrency``, at most that many
    are in flight and the rest queue in arrival order (vLLM's ``--max-concurrency``)."""
    limit = asyncio.Semaphore(max_concurrency) if max_concurrency else None

    async def one(planned: PlannedRequest) -> None:
        delay = (planned.arrival or 0.0) - session.now()
        if delay > 0:
            await asyncio.sleep(delay)
        if limit is None:
            await session.send(planned)
            return
        async with limit:
            await session.send(planned)

    async with asyncio.TaskGroup() as group:
        for planned in sorted(plan, key=lambda p: (p.arrival or 0.0, p.index)):
            group.create_task(one(planned))


async def drive_waves(session: Session, plan: list[PlannedRequest], batch_size: int) -> None:
    """Static batching: send ``batch_size`` requests, wait for all of them, then the next wave."""
    for start in range(0, len(plan), batch_size):
        async with asyncio.TaskGroup() as group:
            for planned in plan[start : start + batch_size]:
                group.create_task(session.send(planned))


@dataclass(frozen=True, kw_only=True)
class SameSizeRequests:
    """What the requests of a closed loop, an open loop or parallel sampling share: each prompt
    exactly ``input_tokens`` tokens from ``seed``, each answer exactly ``max_tokens`` tokens.
    Keyword-only, so that a workload's own fields come first and positionally."""

    input_tokens: int = 64
    max_tokens: int = 64
    seed: int = 0
    # The workload's own fields that must be positive, checked with the sizes.
    positive: ClassVar[tuple[str, ...]] = ()

    def __post_init__(self) -> None:
        _positive(
            **{name: getattr(self, name) for name in ("input_tokens", "max_tokens", *self.positive)}
        )

    def _request(
        self, index: int, user: int, prompts: PromptSource, arrival: float | None = None
    ) -> PlannedRequest:
        return PlannedRequest(
            index=index,
            user=user,
            max_tokens=self.max_tokens,
            arrival=arrival,
            prompt=prompts.text(self.input_tokens, _prompt_seed(self.seed, index)),
        )


@dataclass(frozen=True)
class ClosedLoop(SameSizeRequests):
    """``users`` users, each sending ``requests_per_user`` requests back to back.

    In flight there are never more than ``users`` requests: the concurrency is the user count.
    """

    users: int
    requests_per_user: int = 1
    name: str = "closed loop"

    positive = ("users", "requests_per_user")

    def plan(self, prompts: PromptSource) -> list[PlannedRequest]:
        return [
            self._request(index, index % self.users, prompts)
            for index in range(self.users * self.requests_per_user)
        ]

    async def drive(self, session: Session, plan: list[PlannedRequest]) -> None:
        await drive_users(session, plan)


def poisson_arrivals(rate: float, count: int, seed: int) -> np.ndarray:
    """``count`` arrival times (s) of a Poisson process of ``rate`` requests/s; first is 0."""
    _positive(rate=rate, count=count)
    gaps = np.random.default_rng(seed).exponential(1.0 / rate, size=count)
    gaps[0] = 0.0
    return np.cumsum(gaps)


@dataclass(frozen=True)
class OpenLoop(SameSizeRequests):
    """Requests arrive as a Poisson process of ``rate`` requests/s, whether or not earlier ones
    have finished (optionally capped at ``max_concurrency`` in flight)."""

    rate: float
    num_requests: int = 32
    max_concurrency: int | None = None
    name: str = "open loop"

    positive = ("rate", "num_requests")

    def plan(self, prompts: PromptSource) -> list[PlannedRequest]:
        arrivals = poisson_arrivals(self.rate, self.num_requests, self.seed)
        return [self._request(i, i, prompts, float(t)) for i, t in enumerate(arrivals)]

    async def drive(self, session: Session, plan: list[PlannedRequest]) -> None:
        await drive_arrivals(session, plan, self.max_concurrency)


def short_and_long_lengths(
    count: int, short: tuple[int, int], long: tuple[int, int], long_share: float, seed: int
) -> np.ndarray:
    """``count`` output lengths as chat traffic has them: most answers short (uniform within
    ``short``, inclusive), a ``long_share`` of them long (uniform within ``long``).

    Exactly ``round(long_share * count)`` answers are long, at seeded random places: drawing
    each answer's kind at random would let one seed put three long answers in a wave and
    another none, and the cost of waves would swing with the seed rather than the share."""
    _positive(count=count)
    for name, (low, high) in (("short", short), ("long", long)):
        if not 1 <= low <= high:
            raise ValueError(f"{name} must be (low, high) with 1 <= low <= high, not {(low, high)}")
    if not 0 <= long_share <= 1:
        raise ValueError(f"long_share must be within 0..1, not {long_share}")
    rng = np.random.default_rng(seed)
    is_long = np.zeros(count, dtype=bool)
    is_long[rng.permutation(count)[: round(long_share * count)]] = True
    return np.where(
        is_long,
        rng.integers(long[0], long[1] + 1, count),
        rng.integers(short[0], short[1] + 1, count),
    ).astype(int)


@dataclass(frozen=True)
class StaticBatching:
    """The naive server: waves of ``batch_size`` requests, the next wave only after the whole
    wave has finished. Most answers are short and a few long (``short_and_long_lengths``), so
    in most waves the short ones leave their slots idle while a long one finishes.

    ``continuous=True`` sends the very same requests with at most ``batch_size`` in flight, a new
    one as soon as any finishes: the same plan, as continuous batching would serve it.
    """

    batch_size: int
    num_requests: int = 96
    input_tokens: int = 32
    short_tokens: tuple[int, int] = (4, 32)
    long_tokens: tuple[int, int] = (128, 192)
    long_share: float = 0.125
    continuous: bool = False
    seed: int = 0

    def __post_init__(self) -> None:
        _positive(
            batch_size=self.batch_size,
            num_requests=self.num_requests,
            input_tokens=self.input_tokens,
        )

    @property
    def name(self) -> str:
        return "continuous batching" if self.continuous else "static batching"

    def output_lengths(self) -> np.ndarray:
        return short_and_long_lengths(
            self.num_requests, self.short_tokens, self.long_tokens, self.long_share, self.seed
        )

    def plan(self, prompts: PromptSource) -> list[PlannedRequest]:
        return [
            PlannedRequest(
                index=i,
                user=i % self.batch_size,
                max_tokens=int(length),
                arrival=0.0,
                prompt=prompts.text(self.input_tokens, _prompt_seed(self.seed, i)),
            )
            for i, length in enumerate(self.output_lengths())
        ]

    async def drive(self, session: Session, plan: list[PlannedRequest]) -> None:
        if self.continuous:
            await drive_arrivals(session, plan, self.batch_size)
        else:
            await drive_waves(session, plan, self.batch_size)


@dataclass(frozen=True)
class SharedPrefix:
    """Every request starts with the same system prompt of exactly ``prefix_tokens`` tokens,
    followed by a distinct question of ``question_tokens`` tokens.

    ``reuse_cache=False`` gives each request its own ``cache_salt``: the server then cannot
    reuse the cached prefix, as if prefix caching were off for these requests.
    """

    prefix_tokens: int
    users: int = 4
    requests_per_user: int = 2
    question_tokens: int = 16
    max_tokens: int = 16
    reuse_cache: bool = True
    seed: int = 0
    name: str = "shared prefix"

    def __post_init__(self) -> None:
        _positive(
            prefix_tokens=self.prefix_tokens,
            users=self.users,
            requests_per_user=self.requests_per_user,
            question_tokens=self.question_tokens,
            max_tokens=self.max_tokens,
        )

    @property
    def reuses_cache(self) -> bool:
        """Whether its requests may reuse prefixes cached before the run (``Workload``)."""
        return self.reuse_cache

    def plan(self, prompts: PromptSource) -> list[PlannedRequest]:
        prefix = prompts.text(self.prefix_tokens, _prompt_seed(self.seed, -1))
        plan: list[PlannedRequest] = []
        for _ in range(self.requests_per_user):
            for user in range(self.users):
                index = len(plan)
                question = prompts.text(self.question_tokens, _prompt_seed(self.seed, index))
                salt = None if self.reuse_cache else f"seed{self.seed}-request{index}"
                plan.append(
                    PlannedRequest(
                        index=index,
                        user=user,
                        prompt=f"{prefix} {question}",
                        max_tokens=self.max_tokens,
                        cache_salt=salt,
                    )
                )
        return plan

    async def drive(self, session: Session, plan: list[PlannedRequest]) -> None:
        await drive_users(session, plan)


@dataclass(frozen=True)
class Interferer:
    """The ``users`` of a one-request closed loop decode side by side from time 0; ``arrival``
    seconds in, a long prompt of ``document_tokens`` tokens arrives (``Role.INTERFERER``) and
    must be prefilled while they decode. ``documents`` > 1 sends more, ``spacing`` seconds
    apart, each a different text: repeats of the same disturbance within one run, so a page can
    show the spread of what each one cost. The prompts come from the users' seed."""

    users: ClosedLoop = ClosedLoop(users=8, input_tokens=32, max_tokens=256)
    document_tokens: int = 2000
    document_max_tokens: int = 8
    arrival: float = 2.0
    documents: int = 1
    spacing: float = 0.0
    name: str = "interferer"

    def __post_init__(self) -> None:
        if self.users.requests_per_user != 1:
            raise ValueError(
                f"the interferer's users send one request each, not {self.users.requests_per_user}"
            )
        _positive(
            document_tokens=self.document_tokens,
            document_max_tokens=self.document_max_tokens,
            documents=self.documents,
        )
        if self.arrival < 0:
            raise ValueError(f"arrival must be 0 or later, not {self.arrival}")
        if self.documents > 1 and self.spacing <= 0:
            raise ValueError(
                f"{self.documents} documents need a spacing above 0 s, not {self.spacing}"
            )

    def plan(self, prompts: PromptSource) -> list[PlannedRequest]:
        plan = [replace(planned, arrival=0.0) for planned in self.users.plan(prompts)]
        count, seed = self.users.users, self.users.seed
        for number in range(self.documents):
            index = count + number
            plan.append(
                PlannedRequest(
                    index=index,
                    user=index,
                    arrival=self.arrival + number * self.spacing,
                    prompt=prompts.text(self.document_tokens, _prompt_seed(seed, index)),
                    max_tokens=self.document_max_tokens,
                    role=Role.INTERFERER,
                )
            )
        return plan

    async def drive(self, session: Session, plan: list[PlannedRequest]) -> None:
        await drive_arrivals(session, plan)


@dataclass(frozen=True)
class ParallelSampling(SameSizeRequests):
    """``requests`` requests, each asking for ``n`` samples of one prompt (vLLM's ``n``),
    sent back to back. Sampling is random (``temperature``) so the samples differ."""

    n: int
    requests: int = 1
    temperature: float = 1.0
    name: str = "parallel sampling"

    positive = ("n", "requests")

    def plan(self, prompts: PromptSource) -> list[PlannedRequest]:
        return [
            replace(self._request(i, 0, prompts), n=self.n, temperature=self.temperature)
            for i in range(self.requests)
        ]

    async def drive(self, session: Session, plan: list[PlannedRequest]) -> None:
        await drive_users(session, plan)


@dataclass(frozen=True)
class PrefillProbe:
    """One user sends, one at a time, a short warm-up request (``Role.WARM_UP``) and then
    ``repeats`` prompts of each of two lengths, alternating (``Role.SHORT`` and ``Role.LONG``);
    each answer is one token, so its time to first token is its prefill and the request's fixed
    cost. ``servelab.bench.prefill`` fits the two apart."""

    short_tokens: int
    long_tokens: int
    repeats: int = 3
    seed: int = 0
    name: str = "prefill probe"

    def __post_init__(self) -> None:
        _positive(
            short_tokens=self.short_tokens, long_tokens=self.long_tokens, repeats=self.repeats
        )
        if self.long_tokens <= self.short_tokens:
            raise ValueError(
                f"long_tokens ({self.long_tokens}) must exceed short_tokens ({self.short_tokens})"
            )

    def plan(self, prompts: PromptSource) -> list[PlannedRequest]:
        kinds = [(Role.WARM_UP, self.short_tokens)]
        kinds += [(Role.SHORT, self.short_tokens), (Role.LONG, self.long_tokens)] * self.repeats
        return [
            PlannedRequest(
                index=index,
                user=0,
                role=role,
                max_tokens=1,
                prompt=prompts.text(tokens, _prompt_seed(self.seed, index)),
            )
            for index, (role, tokens) in enumerate(kinds)
        ]

    async def drive(self, session: Session, plan: list[PlannedRequest]) -> None:
        await drive_users(session, plan)


@dataclass(frozen=True)
class MixedLengths:
    """``long_requests`` long prompts (``Role.LONG``) and ``short_requests`` short ones
    (``Role.USER``), all arriving at once, longs first; every request decodes ``max_tokens``.

    ``Result.summary()`` describes the short ones (the users); the server's counters
    (preemptions) cover the whole run. ``long_requests=0`` is the short-only control.
    """

    short_requests: int
    long_requests: int
    short_input_tokens: int
    long_input_tokens: int
    max_tokens: int
    seed: int = 0
    name: str = "mixed lengths"

    def __post_init__(self) -> None:
        _positive(
            short_requests=self.short_requests,
            short_input_tokens=self.short_input_tokens,
            long_input_tokens=self.long_input_tokens,
            max_tokens=self.max_tokens,
        )
        if self.long_requests < 0:
            raise ValueError(f"long_requests must be 0 or more, not {self.long_requests!r}")

    def plan(self, prompts: PromptSource) -> list[PlannedRequest]:
        roles = [(Role.LONG, self.long_input_tokens)] * self.long_requests
        roles += [(Role.USER, self.short_input_tokens)] * self.short_requests
        return [
            PlannedRequest(
                index=index,
                user=index,
                role=role,
                arrival=0.0,
                max_tokens=self.max_tokens,
                prompt=prompts.text(tokens, _prompt_seed(self.seed, index)),
            )
            for index, (role, tokens) in enumerate(roles)
        ]

    async def drive(self, session: Session, plan: list[PlannedRequest]) -> None:
        await drive_arrivals(session, plan)


# Which roles each of MixedTraffic's ``parts`` sends: the chat requests are the users.
PARTS = {"both": (Role.USER, Role.BATCH), "chat": (Role.USER,), "batch": (Role.BATCH,)}
# The two parts' roles by the names chapter 07 gives them
# (servelab.lessons.rate_sweeps imports these; new code reads Role).
CHAT, BATCH = Role.USER, Role.BATCH


@dataclass(frozen=True)
class MixedTraffic:
    """``chat_requests`` chat requests (``Role.USER``, so that ``Result.summary()`` describes
    them) arrive at ``chat_rate`` req/s, a Poisson process, beside a job of ``batch_requests``
    longer requests (``Role.BATCH``) all submitted at time 0.

    ``parts`` picks which of the two are sent, so that the very same requests can be split over
    two deployments.
    """

    chat_rate: float = 2.0
    chat_requests: int = 10
    chat_input_tokens: int = 64
    chat_max_tokens: int = 32
    batch_requests: int = 12
    batch_input_tokens: int = 128
    batch_max_tokens: int = 96
    parts: str = "both"
    seed: int = 0

    def __post_init__(self) -> None:
        if self.parts not in PARTS:
            raise ValueError(f"parts must be one of {sorted(PARTS)}, not {self.parts!r}")
        _positive(
            chat_rate=self.chat_rate,
            chat_requests=self.chat_requests,
            chat_input_tokens=self.chat_input_tokens,
            chat_max_tokens=self.chat_max_tokens,
            batch_requests=self.batch_requests,
            batch_input_tokens=self.batch_input_tokens,
            batch_max_tokens=self.batch_max_tokens,
        )

    @property
    def name(self) -> str:
        return {"both": "chat + batch job", "chat": "chat only", "batch": "batch job only"}[
            self.parts
        ]

    def plan(self, prompts: PromptSource) -> list[PlannedRequest]:
        # The chat part is an open loop, whose requests carry the default role: the users.
        chat = OpenLoop(
            self.chat_rate,
            self.chat_requests,
            input_tokens=self.chat_input_tokens,
            max_tokens=self.chat_max_tokens,
            seed=self.seed,
        ).plan(prompts)
        batch = [
            PlannedRequest(
                index=index,
                user=index,
                role=Role.BATCH,
                arrival=0.0,
                max_tokens=self.batch_max_tokens,
                prompt=prompts.text(self.batch_input_tokens, _prompt_seed(self.seed, index)),
            )
            for index in range(self.chat_requests, self.chat_requests + self.batch_requests)
        ]
        return [p for p in chat + batch if p.role in PARTS[self.parts]]

    async def drive(self, session: Session, plan: list[PlannedRequest]) -> None:
        await drive_arrivals(session, plan)


@dataclass(frozen=True)
class Tenants:
    """``tenants`` customers of one service, each with a system prompt of its own of
    ``prefix_tokens`` tokens, send ``requests_per_tenant`` requests each: the prompt, then a
    question of ``question_tokens`` of the request's own. Requests arrive as a Poisson process of
    ``rate`` req/s, the tenants in a seeded random order, so that no simple rotation over
    replicas can keep a tenant on one replica by chance. ``user`` is the tenant's index (the
    requests are all of the default role, the users the metrics describe); each
    request carries a ``request_id`` naming its tenant, to find out later which replica
    served it.

    With ``send_token_ids`` (the default) each prompt is sent as its token ids, as the
    completions endpoint allows, and ``prompts`` must tokenize (``ServerPrompts``): vLLM's
    router (0.1.17) follows prefixes by token, and given text it has no tokenizer for a plain
    HTTP replica, so its cache-aware policy would route every request as if nothing were cached
    (its metrics count them as ``missing_tokens``).

    ``salt``: one cache salt for every request, so that a second run with the same salt finds
    what the first left cached (a warm pass); None, as ``run`` does for a workload that does not
    reuse the cache, gives each run a salt of its own and a cold cache.
    """

    tenants: int
    requests_per_tenant: int
    prefix_tokens: int
    question_tokens: int = 16
    max_tokens: int = 8
    rate: float = 2.0
    seed: int = 0
    send_token_ids: bool = True
    salt: str | None = None
    name: str = "tenants"

    def __post_init__(self) -> None:
        _positive(
            tenants=self.tenants,
            requests_per_tenant=self.requests_per_tenant,
            prefix_tokens=self.prefix_tokens,
            question_tokens=self.question_tokens,
            max_tokens=self.max_tokens,
            rate=self.rate,
        )

    def plan(self, prompts: PromptSource) -> list[PlannedRequest]:
        tokenizer = None
        if self.send_token_ids:
            if not isinstance(prompts, TokenizingSource):
                raise TypeError(
                    f"token ids need a prompt source that tokenizes (ServerPrompts), "
                    f"not {prompts!r}"
                )
            tokenizer = prompts
        prefixes = [
            prompts.text(self.prefix_tokens, _prompt_seed(self.seed, -1 - tenant))
            for tenant in range(self.tenants)
        ]
        order = np.random.default_rng(self.seed).permutation(
            np.repeat(np.arange(self.tenants), self.requests_per_tenant)
        )
        arrivals = poisson_arrivals(self.rate, len(order), self.seed)
        plan = []
        for index, (tenant, arrival) in enumerate(zip(order.tolist(), arrivals, strict=True)):
            question = prompts.text(self.question_tokens, _prompt_seed(self.seed, index))
            prompt = f"{prefixes[tenant]} {question}"
            plan.append(
                PlannedRequest(
                    index=index,
                    user=tenant,
                    prompt=prompt if tokenizer is None else tokenizer.tokenize(prompt),
                    max_tokens=self.max_tokens,
                    arrival=float(arrival),
                    request_id=f"tenant{tenant}-request{index}",
                )
            )
        if self.salt is None:
            return plan
        # Each plan's ids get a prefix of their own, as ``isolated`` gives a run's: a warm pass's
        # requests share the cold pass's salt, not its ids on the same replicas.
        visit = secrets.token_hex(4)
        return [
            replace(planned, cache_salt=self.salt, request_id=f"{visit}-{planned.request_id}")
            for planned in plan
        ]

    @property
    def reuses_cache(self) -> bool:
        """Whether ``run`` leaves the salt to the plan (``salt`` set) instead of its own."""
        return self.salt is not None

    async def drive(self, session: Session, plan: list[PlannedRequest]) -> None:
        await drive_arrivals(session, plan)


@dataclass
class FailureDuring:
    """``workload``, with ``fail()`` called ``at_s`` seconds into the run (a replica killed, for
    instance), then ``noticed()`` asked every ``watch_interval_s`` until it says yes (the router
    has stopped counting the replica healthy) or the run ends. ``events`` keeps the run-clock
    times of "failed" and, if it came, "noticed". Not frozen: the run writes ``events``.
    """

    workload: Workload
    at_s: float
    fail: Callable[[], None]
    noticed: Callable[[], bool] | None = None
    watch_interval_s: float = 0.1
    events: dict[str, float] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return f"{self.workload.name}, one failure"

    @property
    def reuses_cache(self) -> bool:
        return bool(getattr(self.workload, "reuses_cache", False))

    def plan(self, prompts: PromptSource) -> list[PlannedRequest]:
        return self.workload.plan(prompts)

    async def _failure(self, session: Session) -> None:
        await asyncio.sleep(max(0.0, self.at_s - session.now()))
        self.events["failed"] = session.now()
        await asyncio.to_thread(self.fail)
        while self.noticed is not None:
            if await asyncio.to_thread(self.noticed):
                self.events["noticed"] = session.now()
                return
            await asyncio.sleep(self.watch_interval_s)

    async def drive(self, session: Session, plan: list[PlannedRequest]) -> None:
        failure = asyncio.create_task(self._failure(session))
        try:
            await self.workload.drive(session, plan)
            if "failed" in self.events and "noticed" not in self.events:
                # The load ended first: give the watch a moment more, as users would still come.
                await asyncio.wait([failure], timeout=max(5 * self.watch_interval_s, 2.0))
            if failure.done() and not failure.cancelled():
                error = failure.exception()
                if error is not None:
                    raise error
        finally:
            failure.cancel()
            await asyncio.gather(failure, return_exceptions=True)
