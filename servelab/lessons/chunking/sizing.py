"""Chapter 06's sizing, from the prefill rate measured on this device: the document's length,
the spacing that keeps a run's documents apart (from how long one takes to read alone, so that
each repeat measures one document and not a queue of them), the users' length, the
:class:`DocumentLoad` every run of both servers sends (chapters 06 and 00), and ``budget_for``,
the per-step token budget whose step lasts about the pause target, with the :class:`BudgetPlan`
the page words.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any

from servelab.bench.prefill import PrefillFit
from servelab.lessons.chunking.thresholds import HITCH_CHUNK_SHARE

# The document is sized so that reading it in one step would take this many pause targets: long
# enough that chunks of the target's length make a difference, whatever the device's speed.
DOCUMENT_PAUSES = 3


def document_for(prefill_tok_s: float, pause_ms: float, smallest: int, largest: int) -> int:
    """The document's length, in tokens: ``DOCUMENT_PAUSES`` times what ``prefill_tok_s``
    prefills in ``pause_ms``, kept between ``smallest`` and ``largest``. A fixed length would
    take seconds in one step on a slow CPU and a fraction of the pause target on a fast one,
    where chunking it could change nothing."""
    return max(smallest, min(largest, paused_tokens(prefill_tok_s, pause_ms)))


def paused_tokens(prefill_tok_s: float, pause_ms: float) -> int:
    """What ``prefill_tok_s`` prefills in ``DOCUMENT_PAUSES`` pause targets: the document's
    length before ``document_for`` keeps it within its bounds."""
    if prefill_tok_s <= 0 or pause_ms <= 0:
        raise ValueError("the prefill rate and the pause must be positive")
    return int(prefill_tok_s * DOCUMENT_PAUSES * pause_ms / 1000)


class DocumentBound(StrEnum):
    """What set the document's length: the chapter's least, the longest the server takes, or
    the rate's own ``paused_tokens``."""

    LEAST = "least"
    LONGEST = "longest"
    RATE = "rate"

    @classmethod
    def of(cls, paused: int, document_tokens: int) -> DocumentBound:
        """From the rate's length (``paused_tokens``) and the document's."""
        if paused < document_tokens:
            return cls.LEAST
        return cls.LONGEST if paused > document_tokens else cls.RATE


# The documents of a run are spaced this many times the time one takes to read alone, so that
# each has had its first token before the next arrives, even when reading beside the users is
# slower than reading alone.
SPACING_MARGIN = 2.0


def read_alone_s(fit: PrefillFit, tokens: int) -> float:
    """How long a prompt of ``tokens`` takes to its first token alone, by ``fit`` (s)."""
    return (fit.fixed_ms + fit.prefill_ms(tokens)) / 1000.0


def spacing_for(read_s: float, smallest: float) -> float:
    """The seconds between a run's documents: ``SPACING_MARGIN`` times ``read_s``, the time one
    takes alone, to a tenth of a second, and at least ``smallest``."""
    if read_s <= 0:
        raise ValueError("the time to read a document must be positive")
    return max(smallest, round(SPACING_MARGIN * read_s, 1))


def user_tokens_for(
    user_tok_s: float,
    arrival_s: float,
    documents: int,
    spacing_s: float,
    smallest: int,
    largest: int,
) -> int:
    """How many tokens each decoding user asks for: enough that, at ``user_tok_s`` (a user's
    speed with no document to read), they are still decoding one spacing after the last of
    ``documents`` arrived, by when it has been read; at least ``smallest`` and at most
    ``largest``. A document only slows the users down, so with one they last longer still.
    With a fixed length, users on a slow machine finish before the last document comes, and
    that document measures nothing."""
    if user_tok_s <= 0 or spacing_s < 0 or documents < 1:
        raise ValueError("the users' speed must be positive, with one document or more")
    until_s = arrival_s + documents * spacing_s
    return max(smallest, min(largest, math.ceil(user_tok_s * until_s)))


@dataclass(frozen=True)
class DocumentLoad:
    """What every run of both servers sends: ``users`` decoding ``user_tokens`` each while
    ``documents`` documents of ``document_tokens`` arrive, the first ``arrival_s`` in and the
    rest ``spacing_s`` apart, sized from ``read_s``, one document read alone. ``input_tokens``
    and ``seed`` are the users' prompts and their seed (None: ``bench.interferer``'s own)."""

    users: int
    user_tokens: int
    document_tokens: int
    arrival_s: float
    documents: int
    spacing_s: float
    read_s: float
    input_tokens: int | None = None
    seed: int | None = None

    @classmethod
    def spaced(
        cls,
        fit: PrefillFit,
        smallest_spacing_s: float,
        *,
        users: int,
        user_tokens: int,
        document_tokens: int,
        arrival_s: float,
        documents: int,
        input_tokens: int | None = None,
        seed: int | None = None,
    ) -> DocumentLoad:
        """The load with its documents spaced (:func:`spacing_for`, at least
        ``smallest_spacing_s``) from the time one takes alone by ``fit``."""
        read_s = read_alone_s(fit, document_tokens)
        return cls(
            users=users,
            user_tokens=user_tokens,
            document_tokens=document_tokens,
            arrival_s=arrival_s,
            documents=documents,
            spacing_s=spacing_for(read_s, smallest_spacing_s),
            read_s=read_s,
            input_tokens=input_tokens,
            seed=seed,
        )

    def lasting(self, user_tok_s: float, largest: int) -> DocumentLoad:
        """The same load with the users asking for enough tokens, at ``user_tok_s`` each, to be
        still decoding when the last document has been read (:func:`user_tokens_for`; at least
        ``user_tokens``, at most ``largest``)."""
        return replace(
            self,
            user_tokens=user_tokens_for(
                user_tok_s,
                self.arrival_s,
                self.documents,
                self.spacing_s,
                smallest=self.user_tokens,
                largest=largest,
            ),
        )

    @property
    def options(self) -> dict[str, Any]:
        """``bench.interferer``'s arguments for this load, without a progress bar."""
        chosen = {"input_tokens": self.input_tokens, "seed": self.seed}
        return {
            "users": self.users,
            "user_max_tokens": self.user_tokens,
            "document_tokens": self.document_tokens,
            "arrival": self.arrival_s,
            "documents": self.documents,
            "spacing": self.spacing_s,
            "progress": False,
            **{key: value for key, value in chosen.items() if value is not None},
        }


def chunk_tokens(prefill_tok_s: float, pause_ms: float, step_ms: float) -> float:
    """The tokens a chunk may hold for a step that carries it to last about ``pause_ms``: such a
    step is the users' usual step (``step_ms``: their decoding and the engine's fixed work per
    step) with the chunk's reading on top, at ``prefill_tok_s``; 0 where the usual step alone
    is as long as the pause."""
    return max(0.0, prefill_tok_s * (pause_ms - step_ms) / 1000)


def budget_for(
    prefill_tok_s: float, pause_ms: float, step_ms: float, smallest: int, largest: int, block: int
) -> int:
    """The per-step token budget whose step lasts about ``pause_ms`` (:func:`chunk_tokens`),
    kept between ``smallest`` and ``largest``. Once it is a KV-cache block or more it is rounded
    down to whole blocks of ``block`` tokens (the engine's own block size: 16 on a GPU by
    default, 128 on the CPU engine), so chunks end on block boundaries."""
    if prefill_tok_s <= 0 or pause_ms <= 0 or block <= 0 or step_ms < 0:
        raise ValueError("the prefill rate, the pause and the block size must be positive")
    tokens = int(chunk_tokens(prefill_tok_s, pause_ms, step_ms))
    if tokens >= block:
        tokens = tokens // block * block
    return max(smallest, min(largest, tokens))


class Reading(StrEnum):
    """How a run's budget let it read the document."""

    ONE_STEP = "in one step"  # the budget holds the whole document
    CHUNKS = "in chunks"  # the budget is shorter than the document


def _reading(chunks: int) -> Reading:
    return Reading.ONE_STEP if chunks == 1 else Reading.CHUNKS


class Sizing(StrEnum):
    """What set the chunked run's budget, against the tokens the pause target buys."""

    FLOOR = "the sequences a step holds"  # raised to ``smallest``: over the target
    WHOLE = "the whole document"  # the target buys the document: nothing to split
    TARGET = "the pause target"  # the target's tokens, in whole blocks once that large


@dataclass(frozen=True)
class BudgetPlan:
    """How the chunked run's budget was chosen, for the page."""

    first_budget: int  # the first run's budget (the page gives it the whole context)
    prefill_tok_s: float  # the document alone, its fixed cost apart (bench.prefill_fit)
    pause_ms: float  # the pause the budget was sized for
    step_ms: float  # the users' usual step, without a chunk: their median gap in one step
    budget: int  # the budget the chunked run used
    document_tokens: int
    block: int  # the engine's KV-cache block, in tokens

    @property
    def chunks(self) -> int:
        return math.ceil(self.document_tokens / self.budget)

    @property
    def first_chunks(self) -> int:
        """How many steps the first run's budget needed for the document."""
        return math.ceil(self.document_tokens / self.first_budget)

    @property
    def first_read(self) -> Reading:
        return _reading(self.first_chunks)

    @property
    def second_read(self) -> Reading:
        return _reading(self.chunks)

    @property
    def read_ms(self) -> float:
        """What a pause of the target leaves to read a chunk in, after the usual step (ms;
        none where it is not positive)."""
        return self.pause_ms - self.step_ms

    @property
    def leaves_read_time(self) -> bool:
        """The pause target leaves time to read a chunk in after the usual step."""
        return self.read_ms > 0

    @property
    def under_a_block(self) -> bool:
        """The budget is less than one KV-cache block, so it was not rounded to blocks."""
        return self.budget < self.block

    @property
    def wanted_tokens(self) -> float:
        """The tokens the pause target buys at the measured prefill rate, the usual step apart."""
        return chunk_tokens(self.prefill_tok_s, self.pause_ms, self.step_ms)

    @property
    def whole_tokens(self) -> int:
        """The whole tokens the pause target buys: a budget counts no part of one."""
        return math.floor(self.wanted_tokens)

    @property
    def hitch_ms(self) -> float:
        """A user's gap this long or longer is a hitch, a step that carried part of the document:
        the usual step and ``HITCH_CHUNK_SHARE`` of one chunk's reading."""
        return self.step_ms + HITCH_CHUNK_SHARE * 1000.0 * self.budget / self.prefill_tok_s

    @property
    def sizing(self) -> Sizing:
        if self.budget > self.wanted_tokens:
            return Sizing.FLOOR
        if self.budget >= self.document_tokens:
            return Sizing.WHOLE
        return Sizing.TARGET
