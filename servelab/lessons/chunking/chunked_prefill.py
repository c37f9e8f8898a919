"""Chapter 06: chunked prefill — what the engine says it does, how large a chunk to allow, and
what the users and the document's sender each felt.

vLLM prints its engine configuration (``enable_chunked_prefill=True/False``) and the per-step
token budget (``max_num_batched_tokens``) when it starts; ``chunking_state`` reads them, so the
page shows what the engine did rather than what a flag was hoped to do. ``budget_for`` sizes the
budget from the prefill rate measured on this device; ``compare`` turns each budget's runs (its
servers started in turn with the other's, ``servelab.bench.in_turn``) into a row of the
page's table, :class:`TradeFindings` judges its two rows once, and ``story`` only words them.
``spacing_for`` keeps a run's documents apart, from how long one takes to read alone, so that
each repeat measures one document and not a queue of them.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum

import numpy as np
import pandas as pd

from servelab import tables
from servelab.bench.frames import Result
from servelab.bench.metrics import itls_during
from servelab.bench.prefill import PrefillFit
from servelab.bench.spread import Spread
from servelab.bench.workloads import Role
from servelab.lessons.prediction import page_story
from servelab.lessons.thresholds import HITCH_CHUNK_SHARE, PAUSE_GAIN_SHOWN, PAUSE_OFF_TARGET

_ENABLED = re.compile(r"enable_chunked_prefill=(True|False)")
_BUDGET = re.compile(r"Chunked prefill is enabled with max_num_batched_tokens=(\d+)")
_WARNING = re.compile(r"WARNING[^\]]*\] (.*disabling chunked prefill.*)$", re.MULTILINE)


@dataclass(frozen=True)
class ChunkingState:
    """Chunked prefill as the running engine reports it (None: the log did not say)."""

    enabled: bool | None
    budget: int | None
    warning: str | None

    def splits(self, prompt_tokens: int) -> bool:
        """Whether a prompt of ``prompt_tokens`` tokens is prefilled over several steps."""
        return bool(self.enabled) and self.budget is not None and self.budget < prompt_tokens

    def describe(self) -> str:
        if self.enabled is None:
            return "The engine's log does not say whether chunked prefill is on."
        if not self.enabled:
            text = "Chunked prefill is OFF: a prompt is prefilled in a single step."
        elif self.budget is None:
            text = "Chunked prefill is ON (the log does not give the step's token budget)."
        else:
            text = (f"Chunked prefill is ON: at most {self.budget} tokens are scheduled per "
                    "step, so a longer prompt is prefilled over several steps.")
        if self.warning:
            text += f"\nThe engine warned: {self.warning.strip()}"
        return text


def _last(pattern: re.Pattern[str], text: str) -> re.Match[str] | None:
    matches = list(pattern.finditer(text))
    return matches[-1] if matches else None


def chunking_state(log_text: str) -> ChunkingState:
    """What a vLLM start-up log says about chunked prefill: the last record of each kind.

    The last, because vLLM 0.11.2 builds its command-line parser from default configs
    (``get_kwargs(VllmConfig)`` instantiates ``SchedulerConfig``), which logs "Chunked prefill is
    enabled with max_num_batched_tokens=2048." before the engine's own configuration logs the
    budget it runs with. The engine core's config line does not name the budget, so it cannot be
    read there; every record after the parser's is the engine's configuration, and the log's last
    one is what the server uses.
    """
    enabled = _last(_ENABLED, log_text)
    budget = _last(_BUDGET, log_text)
    warning = _last(_WARNING, log_text)
    return ChunkingState(
        enabled=None if enabled is None else enabled.group(1) == "True",
        budget=int(budget.group(1)) if budget else None,
        warning=warning.group(1) if warning else None,
    )


def user_gaps(result: Result) -> pd.DataFrame:
    """Every inter-token gap of the decoding users: ``request``, ``t_s`` (when the token came)
    and ``itl_ms``."""
    requests = result.requests
    users = set(requests.loc[requests["role"] == Role.USER, "request"])
    tokens = result.tokens
    gaps = tokens[tokens["request"].isin(users) & tokens["itl_s"].notna()]
    return pd.DataFrame({"request": gaps["request"], "t_s": gaps["t_s"],
                         "itl_ms": gaps["itl_s"] * 1000.0}).reset_index(drop=True)


def usual_gap_ms(result: Result) -> float:
    """The users' median gap between tokens over a run (ms): the step they usually share."""
    return float(np.percentile(user_gaps(result)["itl_ms"], 50))


def document_rows(result: Result) -> pd.DataFrame:
    """The long documents' own request rows (``Role.INTERFERER``), in the order sent."""
    requests = result.requests
    rows = requests[requests["role"] == Role.INTERFERER].sort_values("sent_s")
    if rows.empty or not bool(rows["ok"].all()):
        raise RuntimeError(f"a document's request did not complete in {result}")
    return rows


def documents_queued(rows: pd.DataFrame) -> int:
    """How many of the documents (``document_rows``) were sent before the one ahead of them had
    its first token, so that part of their wait was the queue, not their own read."""
    ready = (rows["sent_s"] + rows["ttft_s"]).to_numpy()
    sent = rows["sent_s"].to_numpy()
    return int(np.sum(sent[1:] < ready[:-1]))


def user_runs_s(result: Result) -> list[float]:
    """Each decoding user's own run, from sending its request to its last token (s)."""
    requests = result.requests
    return [float(e2e) for e2e in requests.loc[requests["role"] == Role.USER, "e2e_s"]]


def _hitches(gaps: pd.DataFrame, start: float, end: float, hitch_ms: float) -> pd.DataFrame:
    """The gaps of ``user_gaps`` at least ``hitch_ms`` long that overlap [start, end] (s)."""
    began = gaps["t_s"] - gaps["itl_ms"] / 1000.0
    return gaps[(gaps["t_s"] >= start) & (began <= end) & (gaps["itl_ms"] >= hitch_ms)]


def _per_user(hitches: pd.DataFrame) -> dict[str, float]:
    """Per user, how many hitches, and the first and the last in time (ms), as medians over
    the users who had any (NaN when none had)."""
    if hitches.empty:
        return {"count": 0.0, "first": math.nan, "last": math.nan}
    by_user = hitches.sort_values("t_s").groupby("request")["itl_ms"]
    return {"count": float(by_user.size().median()), "first": float(by_user.first().median()),
            "last": float(by_user.last().median())}


def run_figures(result: Result, window_s: float, hitch_ms: float) -> dict[str, float]:
    """One run's figures. Pooled over the run, as ``vllm bench serve`` pools them: the users'
    p50 and p99 gap, and the share of all their gaps that were hitches while a document was read
    (``hitch_ms`` or longer, ``BudgetPlan.hitch_ms``). Per document, then the median over the
    run's documents: the users' longest gap and p99 gap in the same stretch after its arrival
    in every run (``window_s``, or until the next document came), its own wait for a first
    token, and while it was read the hitches each user had, the first and the last. A document
    beside which no user was decoding any more is left out. Then the users' own runs (the
    median over the users) and the documents sent before the previous one's first token."""
    gaps = user_gaps(result)
    rows = document_rows(result)
    arrivals = [float(sent) for sent in rows["sent_s"]]
    p50 = usual_gap_ms(result)
    per_document, document_hitches = [], 0
    for number, (arrival, wait) in enumerate(zip(arrivals, rows["ttft_s"], strict=True)):
        end = min([arrival + window_s, *arrivals[number + 1:number + 2]])
        during = np.asarray(itls_during(result.records, arrival, end, role=Role.USER)) * 1000.0
        if during.size:
            reading = _hitches(gaps, arrival, arrival + float(wait), hitch_ms)
            document_hitches += len(reading)
            hitches = _per_user(reading)
            per_document.append({"users_longest_gap_ms": float(during.max()),
                                 "itl_ms_p99_after_arrival": float(np.percentile(during, 99)),
                                 "document_ttft_s": float(wait),
                                 "hitches_per_document": hitches["count"],
                                 "first_hitch_ms": hitches["first"],
                                 "last_hitch_ms": hitches["last"]})
    if not per_document:
        raise RuntimeError(f"no user was still decoding when a document arrived in {result}: "
                           "give the users more tokens or send the documents sooner")
    documents = pd.DataFrame(per_document)
    return {"users_itl_ms_p50": p50,
            "users_itl_ms_p99": float(np.percentile(gaps["itl_ms"], 99)),
            "hitch_share": document_hitches / len(gaps),
            **{key: float(documents[key].median()) for key in documents.columns.astype(str)},
            "users_output_tok_s": float(result.summary()["output_tok_s"]),
            "users_done_s": float(np.median(user_runs_s(result))),
            "documents_queued": float(documents_queued(rows))}


# The figures of a run that ``compare`` gives a range over the runs; ``documents_queued`` it adds.
RUN_SPREADS = ("users_itl_ms_p50", "users_itl_ms_p99", "hitch_share", "users_longest_gap_ms",
               "itl_ms_p99_after_arrival", "document_ttft_s", "hitches_per_document",
               "first_hitch_ms", "last_hitch_ms", "users_output_tok_s", "users_done_s")


def compare(runs: Mapping[str, Sequence[Result]], hitch_ms: float) -> pd.DataFrame:
    """One row per setting (a server's budget), from its runs (:func:`run_figures`): each figure of
    ``RUN_SPREADS`` (hitches: gaps of ``hitch_ms`` or longer) as the median over the runs with
    ``_low``, ``_high`` and ``_n`` (:class:`~servelab.bench.spread.Spread`), and
    ``documents_queued`` summed over them. The stretch after a document's arrival is the same in
    every run of every setting: until the slowest document of all got its first token."""
    documents = [document_rows(result) for results in runs.values() for result in results]
    window_s = max(float(rows["ttft_s"].max()) for rows in documents)
    table = []
    for label, results in runs.items():
        figures = pd.DataFrame([run_figures(result, window_s, hitch_ms) for result in results])
        row: dict[str, object] = {"run": label}
        for key in RUN_SPREADS:
            row |= Spread.of(figures[key]).columns(key) if figures[key].notna().any() else {
                key: math.nan, f"{key}_low": math.nan, f"{key}_high": math.nan, f"{key}_n": 0}
        row["documents_queued"] = int(figures["documents_queued"].sum())
        table.append(row)
    return pd.DataFrame(table).set_index("run")


def compare_view(table: pd.DataFrame) -> pd.DataFrame:
    """:func:`compare`'s table as the page prints it, one row per setting: each figure as its
    median over the runs with the lowest and highest in brackets, the queued documents as a
    count."""
    return tables.spread_view(table, {"users_longest_gap_ms": 0, "itl_ms_p99_after_arrival": 0,
                                      "document_ttft_s": 2, "hitches_per_document": 0,
                                      "users_itl_ms_p50": 0, "users_itl_ms_p99": 0,
                                      "users_output_tok_s": 0, "users_done_s": 1},
                              {"documents_queued": 0})


# The document is sized so that reading it in one step would take this many pause targets: long
# enough that chunks of the target's length make a difference, whatever the device's speed.
DOCUMENT_PAUSES = 3


def document_for(prefill_tok_s: float, pause_ms: float, smallest: int, largest: int) -> int:
    """The document's length, in tokens: ``DOCUMENT_PAUSES`` times what ``prefill_tok_s``
    prefills in ``pause_ms``, kept between ``smallest`` and ``largest``. A fixed length would
    take seconds in one step on a slow CPU and a fraction of the pause target on a fast one,
    where chunking it could change nothing."""
    if prefill_tok_s <= 0 or pause_ms <= 0:
        raise ValueError("the prefill rate and the pause must be positive")
    return max(smallest, min(largest, int(prefill_tok_s * DOCUMENT_PAUSES * pause_ms / 1000)))


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


def user_tokens_for(user_tok_s: float, arrival_s: float, documents: int, spacing_s: float,
                    smallest: int, largest: int) -> int:
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


def chunk_tokens(prefill_tok_s: float, pause_ms: float, step_ms: float) -> float:
    """The tokens a chunk may hold for a step that carries it to last about ``pause_ms``: such a
    step is the users' usual step (``step_ms``: their decoding and the engine's fixed work per
    step) with the chunk's reading on top, at ``prefill_tok_s``; 0 where the usual step alone
    is as long as the pause."""
    return max(0.0, prefill_tok_s * (pause_ms - step_ms) / 1000)


def budget_for(prefill_tok_s: float, pause_ms: float, step_ms: float, smallest: int,
               largest: int, block: int) -> int:
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
    def wanted_tokens(self) -> float:
        """The tokens the pause target buys at the measured prefill rate, the usual step apart."""
        return chunk_tokens(self.prefill_tok_s, self.pause_ms, self.step_ms)

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


class PauseVerdict(StrEnum):
    """The users' longest pause with chunks against in one step, over the runs."""

    NOT_SPLIT = "the chunked run read it in one step too"  # nothing for chunking to change
    NO_SPREAD = "one run a side"  # a single value has no range to weigh a difference by
    SHORTER = "shorter"  # ranges apart, and PAUSE_GAIN_SHOWN× below the one-step pause
    NOT_SHOWN = "not shorter beyond the spread"


class ReadingTail(StrEnum):
    """The users' p99 gap while a document was read, with chunks against in one step."""

    WORSE = "worse beyond the spread"
    BETTER = "better"  # ranges apart, and PAUSE_GAIN_SHOWN× below the one-step tail
    LOWER = "lower beyond the spread, by less than the bar"
    OVERLAP = "the ranges overlap"


class TargetVerdict(StrEnum):
    """The users' longest pause with chunks against the pause the budget was sized for."""

    NEAR = "near the target"  # some run's pause within PAUSE_OFF_TARGET× of it either way
    OVER = "over the target"  # every run's pause over PAUSE_OFF_TARGET× the target
    UNDER = "under the target"  # every run's pause under the target by PAUSE_OFF_TARGET×


class WaitVerdict(StrEnum):
    """The document's own first token with chunks against in one step."""

    NOT_SPLIT = "the chunked run read it in one step too"
    LATER = "later beyond the spread"
    SOONER = "sooner beyond the spread"
    OVERLAP = "the ranges overlap"


class DealVerdict(StrEnum):
    """Whether chunking was the better deal for the decoding users: their worst pause shorter
    beyond the spread, while neither their own runs (over the users) nor their tail while a
    document was read got worse beyond the spread."""

    NOT_SHOWN = "the worst pause was not shorter beyond the spread"
    NO_SPREAD = "one user a run"  # their own runs have no range to weigh
    TRADED = "their own runs or their tail got worse beyond the spread"
    BETTER = "the better deal"


class AloneCost(StrEnum):
    """What the document read alone on each server says of chunking's own cost."""

    UNMEASURED = "not read alone"
    DISTURBED = "slower alone than beside the users"  # one step alone past every run's read
    NONE_SEEN = "no slower in chunks"
    SEEN = "slower in chunks"


class HitchGrowth(StrEnum):
    """A chunked document's last hitch against its first, over the runs."""

    NONE = "no hitches"  # no run had a gap long enough to count
    GREW = "longer beyond the spread"  # each later chunk attends to more cached tokens
    NOT_SHOWN = "not longer beyond the spread"


def _tail_verdict(chunked: Spread, whole: Spread) -> ReadingTail:
    """A p99 gap with chunks against in one step."""
    if chunked.above(whole):
        return ReadingTail.WORSE
    if chunked.below_by(whole, PAUSE_GAIN_SHOWN):
        return ReadingTail.BETTER
    if chunked.below(whole):
        return ReadingTail.LOWER
    return ReadingTail.OVERLAP


# A pooled percentile can only land on the hitches when they are more than its share of the gaps:
# the p99 counts them when over 1 in 100 gaps were hitches.
P99_SHARE = 0.01


@dataclass(frozen=True)
class ReadAlone:
    """The document read with nothing else running, to its first token, on each server (s)."""

    one_step_s: float
    chunked_s: float

    @classmethod
    def of(cls, one_step: PrefillFit, chunked: PrefillFit, tokens: int) -> ReadAlone:
        """From the two servers' ``bench.prefill_fit``, at the document's ``tokens``."""
        return cls(read_alone_s(one_step, tokens), read_alone_s(chunked, tokens))


def _spread_or_none(row: Mapping[str, float], key: str) -> Spread | None:
    """The spread ``compare`` gave ``key``, or None where no run measured it."""
    return None if math.isnan(float(row[key])) else Spread.in_row(row, key)


@dataclass(frozen=True)
class TradeFindings:
    """Chapter 06's two settings, each a spread over its runs (every run's figure the median
    over its documents): the users' longest pause (ms), their p99 gap while a document was read
    (ms), the document's first token (s), the users' own runs (s), the hitches each user had
    while a document was read, and the first and last of them with chunks (ms; None where no
    run had one); pooled over each run, the users' p99 gap (ms) and the share of their gaps
    that were hitches; the documents that queued behind another; the users' usual gap in one
    step (ms); the plan, and the document read alone on each server where the page measured
    it."""

    plan: BudgetPlan
    pause_whole: Spread
    pause_chunked: Spread
    tail_whole: Spread
    tail_chunked: Spread
    wait_whole: Spread
    wait_chunked: Spread
    done_whole: Spread
    done_chunked: Spread
    pooled_whole: Spread
    pooled_chunked: Spread
    hitch_share_whole: Spread
    hitch_share_chunked: Spread
    hitches_whole: Spread
    hitches_chunked: Spread
    first_hitch: Spread | None
    last_hitch: Spread | None
    queued_whole: int
    queued_chunked: int
    usual_gap_ms: float
    alone: ReadAlone | None = None

    @classmethod
    def from_runs(cls, chunked: Mapping[str, float], whole: Mapping[str, float],
                  plan: BudgetPlan, alone: ReadAlone | None = None) -> TradeFindings:
        """From the two rows of :func:`compare`."""
        return cls(plan=plan,
                   pause_whole=Spread.in_row(whole, "users_longest_gap_ms"),
                   pause_chunked=Spread.in_row(chunked, "users_longest_gap_ms"),
                   tail_whole=Spread.in_row(whole, "itl_ms_p99_after_arrival"),
                   tail_chunked=Spread.in_row(chunked, "itl_ms_p99_after_arrival"),
                   wait_whole=Spread.in_row(whole, "document_ttft_s"),
                   wait_chunked=Spread.in_row(chunked, "document_ttft_s"),
                   done_whole=Spread.in_row(whole, "users_done_s"),
                   done_chunked=Spread.in_row(chunked, "users_done_s"),
                   pooled_whole=Spread.in_row(whole, "users_itl_ms_p99"),
                   pooled_chunked=Spread.in_row(chunked, "users_itl_ms_p99"),
                   hitch_share_whole=Spread.in_row(whole, "hitch_share"),
                   hitch_share_chunked=Spread.in_row(chunked, "hitch_share"),
                   hitches_whole=Spread.in_row(whole, "hitches_per_document"),
                   hitches_chunked=Spread.in_row(chunked, "hitches_per_document"),
                   first_hitch=_spread_or_none(chunked, "first_hitch_ms"),
                   last_hitch=_spread_or_none(chunked, "last_hitch_ms"),
                   queued_whole=int(whole["documents_queued"]),
                   queued_chunked=int(chunked["documents_queued"]),
                   usual_gap_ms=float(whole["users_itl_ms_p50"]),
                   alone=alone)

    @property
    def pause_verdict(self) -> PauseVerdict:
        if self.plan.second_read is Reading.ONE_STEP:
            return PauseVerdict.NOT_SPLIT
        if self.pause_whole.n < 2 or self.pause_chunked.n < 2:
            return PauseVerdict.NO_SPREAD
        if self.pause_chunked.below_by(self.pause_whole, PAUSE_GAIN_SHOWN):
            return PauseVerdict.SHORTER
        return PauseVerdict.NOT_SHOWN

    @property
    def tail_verdict(self) -> ReadingTail:
        """The users' p99 gap while a document was read."""
        return _tail_verdict(self.tail_chunked, self.tail_whole)

    @property
    def pooled_verdict(self) -> ReadingTail:
        """The users' p99 gap pooled over each whole run."""
        return _tail_verdict(self.pooled_chunked, self.pooled_whole)

    @property
    def p99_counts_hitches(self) -> tuple[bool, bool]:
        """Whether, in one step and with chunks, the documents' hitches were more than the
        share of all gaps a pooled p99 lies above (``P99_SHARE``): only then can it land on
        them."""
        return (self.hitch_share_whole.median > P99_SHARE,
                self.hitch_share_chunked.median > P99_SHARE)

    @property
    def hitch_growth(self) -> HitchGrowth:
        if self.first_hitch is None or self.last_hitch is None:
            return HitchGrowth.NONE
        if self.last_hitch.above(self.first_hitch):
            return HitchGrowth.GREW
        return HitchGrowth.NOT_SHOWN

    @property
    def deal_verdict(self) -> DealVerdict:
        if self.pause_verdict is not PauseVerdict.SHORTER:
            return DealVerdict.NOT_SHOWN
        if self.done_whole.n < 2 or self.done_chunked.n < 2:
            return DealVerdict.NO_SPREAD
        if self.runs_longer or self.tail_verdict is ReadingTail.WORSE:
            return DealVerdict.TRADED
        return DealVerdict.BETTER

    @property
    def runs_longer(self) -> bool:
        """Whether the users' own runs took longer with chunks, beyond the spread."""
        return self.done_chunked.above(self.done_whole)

    @property
    def target_verdict(self) -> TargetVerdict:
        target = self.plan.pause_ms
        if self.pause_chunked.low > PAUSE_OFF_TARGET * target:
            return TargetVerdict.OVER
        if PAUSE_OFF_TARGET * self.pause_chunked.high < target:
            return TargetVerdict.UNDER
        return TargetVerdict.NEAR

    @property
    def pause_over_target(self) -> float:
        """The longest pause with chunks (the median), in pause targets."""
        return self.pause_chunked.median / self.plan.pause_ms

    @property
    def wait_verdict(self) -> WaitVerdict:
        if self.plan.second_read is Reading.ONE_STEP:
            return WaitVerdict.NOT_SPLIT
        if self.wait_chunked.above(self.wait_whole):
            return WaitVerdict.LATER
        if self.wait_chunked.below(self.wait_whole):
            return WaitVerdict.SOONER
        return WaitVerdict.OVERLAP

    @property
    def alone_cost(self) -> AloneCost:
        """A read alone that took longer than every read beside the users was disturbed (the
        machine busy with something else), so it cannot weigh chunking's cost."""
        if self.alone is None:
            return AloneCost.UNMEASURED
        if self.alone.one_step_s > self.wait_whole.high:
            return AloneCost.DISTURBED
        if self.alone.chunked_s <= self.alone.one_step_s:
            return AloneCost.NONE_SEEN
        return AloneCost.SEEN

    @property
    def pause_over_usual(self) -> float:
        """The longest pause with chunks, in usual gaps."""
        return self.pause_chunked.median / self.usual_gap_ms

    @property
    def wait_ratio(self) -> float:
        """How many times as long the document waited with chunks."""
        return self.wait_chunked.median / self.wait_whole.median

    @property
    def wait_extra_s(self) -> float:
        """How much later the document's first token came with chunks (medians, s)."""
        return self.wait_chunked.median - self.wait_whole.median

    @property
    def chunk_planned_ms(self) -> float:
        """What one chunk of the budget takes at the rate the budget was sized from (ms)."""
        return 1000.0 * self.plan.budget / self.plan.prefill_tok_s


def _first_run(plan: BudgetPlan) -> str:
    """How the first run read the document, as a phrase."""
    if plan.first_read is Reading.ONE_STEP:
        return "in one step"
    return f"in {plan.first_chunks} chunks"


def _default_text(plan: BudgetPlan) -> str:
    text = ("In vLLM's current engine chunked prefill is on by default; "
            "`--no-enable-chunked-prefill` turns it off, and vLLM then warns that the model does "
            "not officially support running without it. So the dial here is "
            "`max_num_batched_tokens`, whose default depends on the device and the engine "
            "version. (A second one, `--long-prefill-token-threshold`, counts a prompt longer "
            "than it as long and caps how much of it one step may take, without shrinking every "
            "step's budget; its default, 0, sets no cap.) The first server was given "
            f"{plan.first_budget:,} tokens per step, ")
    if plan.first_read is Reading.ONE_STEP:
        return text + (f"enough for the whole {plan.document_tokens:,}-token document, so it read "
                       "the document in a single step, as an engine without chunking would. ")
    return text + (f"less than the {plan.document_tokens:,}-token document, so even the first "
                   f"run read it {_first_run(plan)}. ")


def _share_side(share: Spread, counted: bool) -> str:
    """A share of hitches against the 1 in 100 a p99 needs (``counted``: over it), as a
    phrase."""
    return f"{share.median:.1%} of the users' gaps, {'over' if counted else 'under'} 1 in 100"


def _pooled_text(findings: TradeFindings) -> str:
    """The p99 pooled over each whole run, and why it can miss the longest pause: a percentile
    lesson from the share of gaps that were hitches."""
    whole, chunked = findings.pooled_whole, findings.pooled_chunked
    caught_whole, caught_chunked = findings.p99_counts_hitches
    moved = {ReadingTail.WORSE: "higher with chunks beyond the spread",
             ReadingTail.BETTER: "lower with chunks beyond the spread",
             ReadingTail.LOWER: "lower with chunks beyond the spread",
             ReadingTail.OVERLAP: "the ranges overlap"}[findings.pooled_verdict]
    text = (f"Pooled over each whole run, as `vllm bench serve` reports it, the users' "
            f"99th-percentile gap was {whole.median:,.0f} ms ({whole.range_text(' ms', 0, 'runs')})"
            f" in one step and {chunked.median:,.0f} ms ({chunked.range_text(' ms', 0, 'runs')}) "
            f"with chunks: {moved}. A 99th percentile is the gap that 1 gap in 100 exceeds, so it "
            f"lands on the documents' hitches (gaps of {findings.plan.hitch_ms:,.0f} ms or longer "
            f"while one was read: the usual step and {HITCH_CHUNK_SHARE:g} of a chunk's reading) "
            "only where they are more than 1 in 100 of all gaps: in one step they were "
            f"{_share_side(findings.hitch_share_whole, caught_whole)}, with chunks "
            f"{_share_side(findings.hitch_share_chunked, caught_chunked)}. ")
    if not caught_whole and caught_chunked:
        return text + ("So the pooled p99 missed the long stalls and counted the short hitches: "
                       "read alone, it makes chunking look worse, whatever the longest pause "
                       "did. ")
    if not caught_whole:
        return text + "So neither run's pooled p99 saw its pauses; the longest pause does. "
    if caught_chunked:
        return text + "So both runs' pooled p99 counts their hitches. "
    return text + "So the pooled p99 saw the one-step stalls and missed the chunked hitches. "


def _hitch_count(count: float) -> str:
    return f"{count:.0f} hitch" if round(count) == 1 else f"{count:.0f} hitches"


def _hitches_text(findings: TradeFindings) -> str:
    """How the one stall became a hitch per chunk, and whether the later ones cost more."""
    whole, chunked = findings.hitches_whole.median, findings.hitches_chunked.median
    text = (f"While a document was read, each user had {_hitch_count(whole)} in one step and "
            f"{_hitch_count(chunked)} with chunks (medians over the runs; the budget cuts the "
            f"document into {findings.plan.chunks} chunks): each chunk is a step of its own, and "
            "every step pays the engine's fixed work again. ")
    first, last = findings.first_hitch, findings.last_hitch
    if first is None or last is None or findings.hitch_growth is HitchGrowth.NONE:
        return text
    both = (f"a chunked document's first hitch took {first.median:,.0f} ms "
            f"({first.range_text(' ms', 0, 'runs')}) and its last {last.median:,.0f} ms "
            f"({last.range_text(' ms', 0, 'runs')})")
    if findings.hitch_growth is HitchGrowth.GREW:
        return text + (f"Within a document the hitches grew: {both}, since each later chunk "
                       "attends to all the tokens cached before it. ")
    return text + (f"Each later chunk attends to more cached tokens, but here {both}: the ranges "
                   "do not say the later ones cost more. ")


def _users_text(findings: TradeFindings) -> str:
    plan, pause_whole, pause_chunked = findings.plan, findings.pause_whole, findings.pause_chunked
    tail_whole, tail_chunked = findings.tail_whole, findings.tail_chunked
    head = (f"The longest pause a document caused the users was {pause_whole.median:,.0f} ms "
            f"({pause_whole.range_text(' ms', 0, 'runs')}) with the document read "
            f"{_first_run(plan)}, and {pause_chunked.median:,.0f} ms "
            f"({pause_chunked.range_text(' ms', 0, 'runs')}) with {plan.budget}-token chunks; a "
            f"normal gap between their tokens was {findings.usual_gap_ms:.0f} ms. ")
    reading = (f"While each document was being read, the users' 99th-percentile gap was "
               f"{tail_whole.median:,.0f} ms ({tail_whole.range_text(' ms', 0, 'runs')}) and "
               f"then {tail_chunked.median:,.0f} ms "
               f"({tail_chunked.range_text(' ms', 0, 'runs')}). ")
    if findings.pause_verdict is PauseVerdict.NOT_SPLIT:
        return head + reading + _pooled_text(findings) + (
            "The second run read the document in one step too, so whatever differs between the "
            "two runs is their own noise, not chunking.")
    head += _target_text(findings) + _hitches_text(findings)
    pooled = reading + _pooled_text(findings)
    if findings.pause_verdict is PauseVerdict.NO_SPREAD:
        return head + pooled + ("With one run a side there is no spread to weigh the difference "
                                "against, so this run cannot say whether chunking shortened the "
                                "worst pause.")
    if findings.pause_verdict is PauseVerdict.NOT_SHOWN:
        return head + pooled + ("So these runs did not show chunking shortening the worst pause "
                                "by more than the spread between them. A longer document or a "
                                "smaller budget would separate them. " + _deal_text(findings))
    return head + pooled + _reading_tail_text(findings) + " " + _deal_text(findings)


def _target_text(findings: TradeFindings) -> str:
    """The chunked pauses against the pause the budget was sized for, as a sentence."""
    target, verdict = findings.plan.pause_ms, findings.target_verdict
    if verdict is TargetVerdict.NEAR:
        return (f"Against the {target:.0f} ms the budget was sized for, the chunked pauses came "
                f"within {PAUSE_OFF_TARGET:g}× of the target: the sizing held. ")
    if verdict is TargetVerdict.OVER:
        return (f"Every run's longest chunked pause was over {PAUSE_OFF_TARGET:g}× the "
                f"{target:.0f} ms the budget was sized for ({findings.pause_over_target:.1f}× at "
                f"the median). {_chunk_alone_text(findings)}")
    return (f"Every run's longest chunked pause was under the {target:.0f} ms the budget "
            f"was sized for by more than {PAUSE_OFF_TARGET:g}× ({findings.pause_over_target:.2f}× "
            "at the median): the run read prompts faster than the rate the budget was sized "
            "from, so a larger budget would still have met the target. ")


def _chunk_alone_text(findings: TradeFindings) -> str:
    """What one chunk took with nothing else running, against what the sizing expected."""
    if findings.alone is None:
        return ("This run did not read the document alone in chunks, so it cannot say where "
                "the extra time went. ")
    chunk_ms = 1000.0 * findings.alone.chunked_s / findings.plan.chunks
    return (f"Read alone on the chunked server, a chunk took {chunk_ms:,.0f} ms on average, "
            f"where the rate the budget was sized from gives {findings.chunk_planned_ms:,.0f} ms "
            f"for its reading, and the usual step {findings.plan.step_ms:,.0f} ms more. ")


def effect_text(findings: TradeFindings) -> str:
    """What the users felt and what the document paid, in two paragraphs: chapter 06's
    middle and chapter 00's section on the same effect."""
    return f"{_users_text(findings)}\n\n{_document_text(findings)}"


def _reading_tail_text(findings: TradeFindings) -> str:
    """The tail while a document was read, once the worst pause was capped."""
    verdict = findings.tail_verdict
    if verdict is ReadingTail.WORSE:
        return (f"Each long stall became up to {findings.plan.chunks} shorter ones, the longest "
                f"{findings.pause_over_usual:.1f}× a normal gap, and there were enough of them "
                f"that the tail while a document was read got worse beyond its spread. Chunking "
                f"capped the worst pause; it did not make the stream even.")
    if verdict is ReadingTail.BETTER:
        return (f"The worst pause was capped, and the tail while a document was read fell beyond "
                f"its spread and by more than {PAUSE_GAIN_SHOWN:g}× too.")
    if verdict is ReadingTail.LOWER:
        return (f"The worst pause was capped beyond the spread; the tail while a document was "
                f"read was lower beyond its spread too, but by less than {PAUSE_GAIN_SHOWN:g}×.")
    return ("The worst pause was capped beyond the spread; the tails while a document was read "
            "overlap between the documents, so this run cannot call either one better.")


def _deal_text(findings: TradeFindings) -> str:
    """The users' own runs either way, and whether chunking was the better deal for them."""
    before, after = findings.done_whole, findings.done_chunked
    runs = (f"Each user's own run took {before.median:.1f} s "
            f"({before.range_text(' s', 1, 'runs')}) with the document read "
            f"{_first_run(findings.plan)} and {after.median:.1f} s "
            f"({after.range_text(' s', 1, 'runs')}) with chunks")
    verdict = findings.deal_verdict
    if verdict is DealVerdict.NOT_SHOWN:
        return runs + "; with no shorter worst pause shown, this run makes no case for chunking."
    if verdict is DealVerdict.NO_SPREAD:
        return runs + ("; one run a side gives no range to weigh them by, so these runs cannot "
                       "say whether chunking served the users better overall.")
    if verdict is DealVerdict.TRADED:
        worse = [cost for cost, held in (
            ("their answers took longer in all, beyond the spread", findings.runs_longer),
            ("their tail while a document was read got worse",
             findings.tail_verdict is ReadingTail.WORSE)) if held]
        return runs + (f": the users' worst pause shrank, but {' and '.join(worse)}, so "
                       "chunking was a trade for them here, not the better deal.")
    return runs + (", no longer beyond the spread: with the worst pause shorter as well, here "
                   "chunking was the better deal for the users.")


def _queue_text(findings: TradeFindings) -> str:
    """Whether a document arrived before the one ahead of it had its first token."""
    if findings.queued_whole == 0 and findings.queued_chunked == 0:
        return (" Every document arrived after the one before it had its first token, so none "
                "of these waits includes queueing behind another document.")
    return (f" In the one-step run {findings.queued_whole} and with chunks "
            f"{findings.queued_chunked} documents arrived before the one ahead of them had its "
            "first token, so their figures include waiting behind it, not only their own read.")


def _document_text(findings: TradeFindings) -> str:
    plan, before, after = findings.plan, findings.wait_whole, findings.wait_chunked
    second = (f"with {plan.chunks} chunks" if plan.second_read is Reading.CHUNKS
              else "in the second run")
    numbers = (f"A document's sender waited {before.median:.2f} s for a first token "
               f"{_first_run(plan)} ({before.range_text(' s', 2, 'runs')}) and "
               f"{after.median:.2f} s "
               f"{second} ({after.range_text(' s', 2, 'runs')})")
    queue = _queue_text(findings)
    if findings.wait_verdict is WaitVerdict.NOT_SPLIT:
        return numbers + (": that run read it in one step too, so whatever separates the two "
                          "waits is not chunking's doing." + queue)
    if findings.wait_verdict is WaitVerdict.LATER:
        return numbers + f", {findings.wait_ratio:.1f}× as long." + queue + _cost_text(findings)
    if findings.wait_verdict is WaitVerdict.SOONER:
        return numbers + (": sooner beyond the spread, which is not the usual outcome; on a "
                          "busy machine the single long step can be the slower one." + queue)
    return numbers + (": the ranges overlap, so this run cannot tell the two waits apart."
                      + queue)


def _cost_text(findings: TradeFindings) -> str:
    """The chunked read's extra time alone, in all and per chunk, beside the runs' difference."""
    verdict = findings.alone_cost
    if verdict is AloneCost.UNMEASURED or findings.alone is None:
        return (" This run did not read the document alone in chunks, so it cannot say how much "
                "of the later first token is chunking's own cost.")
    alone, chunks = findings.alone, findings.plan.chunks
    if verdict is AloneCost.DISTURBED:
        return (f" Alone, with nothing else running, the document took {alone.one_step_s:.2f} s "
                f"in one step, longer than any of its reads beside the users "
                f"({findings.wait_whole.range_text(' s', 2, 'runs')}): the reads alone were "
                "disturbed, so these runs cannot say how much of the later first token is "
                "chunking's own cost.")
    both = (f" Alone, with nothing else running, the document took {alone.one_step_s:.2f} s in "
            f"one step and {alone.chunked_s:.2f} s in {chunks} chunks")
    if verdict is AloneCost.NONE_SEEN:
        return both + (": no slower in chunks, so these reads show no cost of chunking itself; "
                       f"beside the users, the medians above differ by "
                       f"{findings.wait_extra_s:.2f} s.")
    extra_s = alone.chunked_s - alone.one_step_s
    return both + (f": {extra_s:+.2f} s, {1000 * extra_s / chunks:+,.0f} ms a chunk. Beside the "
                   f"users, the medians above differ by {findings.wait_extra_s:.2f} s.")


def sizing_text(plan: BudgetPlan, fit: PrefillFit | None = None) -> str:
    """How the chunked run's budget followed from the measured prefill rate (chapters 00, 06);
    given the ``fit`` it came from, the rate is named once, in the fit's own words."""
    left_ms = plan.pause_ms - plan.step_ms
    bought = (f"A step that carries a chunk lasts about as long as the users' usual step "
              f"({plan.step_ms:,.0f} ms: their decoding and the engine's fixed work per step) "
              f"plus the chunk's reading, so a pause of about {plan.pause_ms:.0f} ms ")
    bought += (f"leaves {left_ms:,.0f} ms to read in, which buys {plan.wanted_tokens:,.0f} tokens. "
               if left_ms > 0 else "leaves no time to read a chunk in. ")
    if fit is None:
        text = (f"Alone, the document was read at {plan.prefill_tok_s:,.0f} tokens/s on this "
                f"device. {bought}")
    else:
        text = f"This device: {fit}. {bought}"
    if plan.sizing is Sizing.FLOOR:
        return text + (f"A step must have room for every sequence it may hold, so the second run's "
                       f"budget is {plan.budget} tokens, and its pauses will be longer than aimed "
                       f"for.")
    if plan.sizing is Sizing.WHOLE:
        return text + ("That covers the whole document, so the second run cannot split it: this "
                       "device reads prompts fast enough that one step is already short.")
    if plan.budget < plan.block:
        return text + (f"That is less than one of this engine's {plan.block}-token blocks, so "
                       f"it is not rounded: the second run's budget is {plan.budget} tokens.")
    return text + (f"Rounded down to whole blocks of {plan.block} tokens (this engine's block), "
                   f"the second run's budget is {plan.budget} tokens.")


def story(findings: TradeFindings, prediction: str) -> str:
    """The page's interpretation, in Markdown, from the findings of the two runs."""
    plan = findings.plan
    measured = (f"a longest pause (the median over the runs) of "
                f"{findings.pause_whole.median:,.0f} ms with the document read "
                f"{_first_run(plan)} and of {findings.pause_chunked.median:,.0f} ms in "
                f"{plan.budget}-token chunks, and a document's first token after "
                f"{findings.wait_whole.median:.2f} s and {findings.wait_chunked.median:.2f} s.")
    return page_story(prediction, measured, [
        ("What the engine did", _default_text(plan) + sizing_text(plan)),
        ("What the users felt", _users_text(findings)),
        ("What the document paid", _document_text(findings)),
        ("The dial", "Without a cap on the step, one long prompt turns into a stall for "
                     "everyone who is already reading an answer; a cap turns it into several "
                     "shorter hitches and can make the long prompt's own first token later. The "
                     "budget decides where on that line a server sits; the plot above shows the "
                     "two points this run measured, and the users' own runs say which side of "
                     "the trade they came out on."),
    ])
