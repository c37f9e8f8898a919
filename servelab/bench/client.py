"""One streamed request on the ``openai`` package, timed token by token.

Timing follows ``vllm.benchmarks.lib.endpoint_request_func``: the clock starts just before the
request is sent; the end of a request is the arrival of its last token, not of the usage chunk
that follows it. Token counts come from the final usage chunk (``stream_options.include_usage``).

A streamed chunk is not always one token: when vLLM's API server falls behind its engine (many
streams on few CPU cores, as on Colab's two vCPUs) it merges the outputs of several engine steps
into one chunk (``RequestOutputCollector`` in vLLM's output processor). So every request also asks
for ``continuous_usage_stats``: each chunk then carries its sample's token count so far, and a
chunk that brought ``k`` tokens is ``k`` token arrivals, spread evenly from the sample's previous
arrival to this one (one per engine step in that span; a first chunk's are all at its arrival).
A server that sends no usage (llama-cpp-python) is counted from the stream instead: one token
per chunk, leaving out a closing chunk that carries only the finish reason.
"""

from __future__ import annotations

import asyncio
import math
import time
from dataclasses import dataclass, field
from typing import Literal, Required, TypedDict

from openai import AsyncOpenAI, AsyncStream
from openai.types import Completion
from openai.types.chat import (
    ChatCompletionChunk,
    ChatCompletionMessageParam,
    ChatCompletionStreamOptionsParam,
)
from openai.types.chat.chat_completion_chunk import Choice as ChatChoice

from servelab.bench.workloads import PlannedRequest, Role

NAN = math.nan
REQUEST_ID_HEADER = "X-Request-Id"
# servelab.plots imports the two roles from here; their home is servelab.bench.workloads.Role.
USER, INTERFERER = Role.USER, Role.INTERFERER


class _StreamOptions(ChatCompletionStreamOptionsParam, total=False):
    """openai's stream options and vLLM's own: the tokens so far in every chunk's usage."""

    continuous_usage_stats: bool


class _StreamedRequest(TypedDict, total=False):
    """What both endpoints are sent besides the prompt or the messages."""

    model: Required[str]
    max_tokens: Required[int]
    n: Required[int]
    stream: Required[Literal[True]]
    stream_options: Required[_StreamOptions]
    extra_body: Required[dict[str, object]]
    temperature: float
    extra_headers: dict[str, str]


@dataclass
class RequestRecord:
    """What happened to one request. Times are seconds after the run started (NaN: never)."""

    planned: PlannedRequest
    sent: float = NAN
    first_token: float = NAN
    end: float = NAN
    closed: float = NAN
    token_times: list[float] = field(default_factory=list)
    token_samples: list[int] = field(default_factory=list)
    prompt_tokens: int | None = None
    output_tokens: int | None = None
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None and not math.isnan(self.first_token)

    @property
    def queued(self) -> float:
        """When the request arrived: its planned arrival, or its send time if it had none."""
        return self.sent if self.planned.arrival is None else self.planned.arrival

    @property
    def ttft(self) -> float:
        return self.first_token - self.sent

    @property
    def e2e(self) -> float:
        return self.end - self.sent

    def itls(self) -> list[float]:
        """Gaps between successive tokens of the same sample (n > 1 streams interleave)."""
        last: dict[int, float] = {}
        gaps = []
        for sample, t in zip(self.token_samples, self.token_times, strict=True):
            if sample in last:
                gaps.append(t - last[sample])
            last[sample] = t
        return gaps


def request_body(planned: PlannedRequest, endpoint: str = "completions") -> dict[str, object]:
    """Fields the openai client sends beyond model/prompt/max_tokens/stream.

    Chat requests turn thinking off: Qwen3 (the GPU model) writes a <think> trace before its
    answer unless its chat template is told not to. Templates without the switch ignore it.
    """
    extra: dict[str, object] = {}
    if endpoint == "chat":
        extra["chat_template_kwargs"] = {"enable_thinking": False}
    if planned.ignore_eos:
        extra["ignore_eos"] = True
    if planned.cache_salt is not None:
        extra["cache_salt"] = planned.cache_salt
    return extra


async def stream_request(
    client: AsyncOpenAI,
    model: str,
    record: RequestRecord,
    clock_zero: float,
    endpoint: str = "completions",
) -> RequestRecord:
    """Send ``record.planned`` and fill ``record`` in as the stream arrives.

    Errors are kept in ``record.error``; cancellation is recorded and re-raised.
    """
    common = _stream_fields(record.planned, model, endpoint)
    record.sent = time.perf_counter() - clock_zero
    try:
        stream = await _open_stream(client, record.planned, common, endpoint)
        arrivals = _Arrivals(record)
        async for chunk in stream:
            arrivals.take(chunk, time.perf_counter() - clock_zero)
        if record.output_tokens is None:
            _count_tokens_from_stream(record, arrivals.closing)
        if not record.token_times:
            record.error = "the stream ended without a single token"
    except asyncio.CancelledError:
        record.error = "cancelled"
        raise
    except Exception as error:  # any failure is a failed request, kept as data
        record.error = f"{type(error).__name__}: {error}"
    finally:
        record.closed = time.perf_counter() - clock_zero
        if record.token_times:
            record.first_token = record.token_times[0]
            record.end = record.token_times[-1]
    return record


def _stream_fields(planned: PlannedRequest, model: str, endpoint: str) -> _StreamedRequest:
    """The request's fields besides its prompt or messages."""
    common: _StreamedRequest = {
        "model": model,
        "max_tokens": planned.max_tokens,
        "n": planned.n,
        "stream": True,
        "stream_options": {"include_usage": True, "continuous_usage_stats": True},
        "extra_body": request_body(planned, endpoint),
    }
    if planned.temperature is not None:
        common["temperature"] = planned.temperature
    if planned.request_id is not None:
        common["extra_headers"] = {REQUEST_ID_HEADER: planned.request_id}
    return common


async def _open_stream(
    client: AsyncOpenAI,
    planned: PlannedRequest,
    common: _StreamedRequest,
    endpoint: str,
) -> AsyncStream[Completion] | AsyncStream[ChatCompletionChunk]:
    if endpoint == "completions":
        return await client.completions.create(prompt=planned.prompt, **common)
    if endpoint == "chat":
        if not isinstance(planned.prompt, str):
            raise ValueError("token ids can be sent to the completions endpoint only")
        messages: list[ChatCompletionMessageParam] = [{"role": "user", "content": planned.prompt}]
        return await client.chat.completions.create(messages=messages, **common)
    raise ValueError(f"endpoint must be 'completions' or 'chat', not {endpoint!r}")


class _Arrivals:
    """Writes a stream's chunks into ``record`` as token arrivals, one sample (``n``) apiece."""

    def __init__(self, record: RequestRecord) -> None:
        self.record = record
        self.closing: list[int] = []  # arrivals that only carried a finish reason, no text
        self.counted: dict[int, int] = {}  # each sample's tokens so far, from continuous usage
        self.last: dict[int, float] = {}  # each sample's latest arrival

    def take(self, chunk: Completion | ChatCompletionChunk, now: float) -> None:
        record = self.record
        if chunk.usage is not None and not chunk.choices:  # the final usage chunk
            record.prompt_tokens = chunk.usage.prompt_tokens
            record.output_tokens = chunk.usage.completion_tokens
        for choice in chunk.choices:
            if isinstance(choice, ChatChoice):
                # A chat stream opens with a chunk that only announces the assistant role.
                if choice.delta.role and not choice.delta.content:
                    continue
                text = choice.delta.content
            else:
                text = choice.text
            if chunk.usage is not None:
                self._counted_by_usage(choice.index, chunk.usage.completion_tokens, now)
                continue
            if choice.finish_reason and not text:
                self.closing.append(len(record.token_times))
            record.token_times.append(now)
            record.token_samples.append(choice.index)

    def _counted_by_usage(self, sample: int, so_far: int, now: float) -> None:
        """Continuous usage says ``sample`` has ``so_far`` tokens: add the new ones."""
        if sample not in self.counted:
            # llama-server puts usage only on its closing chunk: the tokens before it came in
            # chunks of their own and are already counted.
            self.counted[sample] = self.record.token_samples.count(sample)
        new = so_far - self.counted.get(sample, 0)
        if new > 0:
            _add_arrivals(self.record, sample, new, self.last.get(sample), now)
            self.last[sample] = now
        self.counted[sample] = so_far


def _add_arrivals(
    record: RequestRecord, sample: int, tokens: int, previous: float | None, now: float
) -> None:
    """``tokens`` tokens of ``sample`` arrived in one chunk at ``now``: spread them evenly from
    the sample's ``previous`` arrival (if any) to ``now``, the last at ``now``."""
    for step in range(1, tokens + 1):
        at = now if previous is None else previous + (now - previous) * step / tokens
        record.token_times.append(at)
        record.token_samples.append(sample)


def _count_tokens_from_stream(record: RequestRecord, closing: list[int]) -> None:
    """No usage chunk came: drop the closing arrivals and count one token per remaining chunk."""
    for index in reversed(closing):
        del record.token_times[index], record.token_samples[index]
    record.output_tokens = len(record.token_times)
