"""servelab.bench.client.stream_request: token counts and arrivals from vLLM and llama.cpp.

Token arrivals from a stream in which vLLM merged several engine steps into one chunk:

The stream is ``tests/fixtures/vllm-0.32/stream-merged.jsonl``, made by vLLM's own output
collector and protocol classes (``render_stream.py`` beside it): sample 0 of a two-sample
request gets one token, then four in one chunk; sample 1 one token per chunk.
"""

from __future__ import annotations

import asyncio
import itertools
import json

import httpx
import pytest
from openai import AsyncOpenAI
from openai._models import construct_type
from openai.types import Completion

from servelab.bench import client
from servelab.bench.client import PlannedRequest, RequestRecord, stream_request
from tests.support import FIXTURES

STREAM = FIXTURES / "vllm-0.32" / "stream-merged.jsonl"


class _ReplayedCompletions:
    """An ``AsyncOpenAI``'s ``completions`` that answers with the recorded chunks."""

    def __init__(self) -> None:
        self.asked: dict[str, object] = {}

    async def create(self, **request: object):
        self.asked = request
        # As the client builds each server-sent event: constructed, not validated.
        chunks = [
            construct_type(type_=Completion, value=json.loads(line))
            for line in STREAM.read_text().splitlines()
        ]

        async def replay():
            for chunk in chunks:
                yield chunk

        return replay()


class _ReplayedClient:
    def __init__(self) -> None:
        self.completions = _ReplayedCompletions()


def test_a_merged_chunk_counts_as_all_its_tokens(monkeypatch: pytest.MonkeyPatch) -> None:
    ticks = itertools.count()  # the clock moves 1 s at every reading: send, each chunk, close
    monkeypatch.setattr(client.time, "perf_counter", lambda: float(next(ticks)))
    replayed = _ReplayedClient()
    record = RequestRecord(PlannedRequest(index=0, user=0, prompt="p", max_tokens=5, n=2))
    asyncio.run(stream_request(replayed, "m", record, clock_zero=0.0))

    assert replayed.completions.asked["stream_options"] == {
        "include_usage": True,
        "continuous_usage_stats": True,
    }
    assert record.output_tokens == 10 and record.prompt_tokens == 7
    assert len(record.token_times) == record.output_tokens
    first = [t for s, t in zip(record.token_samples, record.token_times, strict=True) if s == 0]
    # Chunks arrive at 1..8 s; sample 0's merged chunk (4 tokens) is the sixth, at 6 s.
    assert first == pytest.approx([1.0, 2.25, 3.5, 4.75, 6.0])
    # Sample 1's chunks came at 2, 3, 4, 5 and 7 s; sample 0's four gaps are 1.25 s each.
    assert sorted(record.itls()) == pytest.approx([1.0, 1.0, 1.0, 1.25, 1.25, 1.25, 1.25, 2.0])
    assert record.end == 7.0  # the last token, not the usage chunk at 8 s


def _chunk(text: str, finish: str | None = None) -> dict:
    return {
        "id": "c",
        "object": "text_completion",
        "created": 0,
        "model": "m",
        "choices": [{"text": text, "index": 0, "logprobs": None, "finish_reason": finish}],
    }


def _usage_chunk(prompt: int, completion: int) -> dict:
    return {
        "id": "c",
        "object": "text_completion",
        "created": 0,
        "model": "m",
        "choices": [],
        "usage": {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
        },
    }


def _stream(chunks: list[dict]) -> RequestRecord:
    """Run stream_request against a fake server that streams ``chunks`` as server-sent events."""
    body = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n"

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, text=body, headers={"content-type": "text/event-stream"})

    async def go() -> RequestRecord:
        client = AsyncOpenAI(
            base_url="http://fake/v1",
            api_key="x",
            max_retries=0,
            http_client=httpx.AsyncClient(transport=httpx.MockTransport(handler)),
        )
        record = RequestRecord(PlannedRequest(index=0, user=0, prompt="p", max_tokens=3))
        await stream_request(client, "m", record, clock_zero=0.0)
        await client.close()
        return record

    return asyncio.run(go())


def test_stream_without_usage_counts_chunks_and_drops_the_closing_one():
    # llama-cpp-python: one chunk per token, then an empty chunk with the finish reason, no usage.
    record = _stream([_chunk(" a"), _chunk(" b"), _chunk(" c"), _chunk("", "length")])
    assert record.ok
    assert record.output_tokens == 3
    assert len(record.token_times) == 3
    assert record.prompt_tokens is None


def test_stream_with_usage_keeps_the_servers_counts():
    # vLLM: the last token carries the finish reason, then a usage chunk.
    record = _stream([_chunk(" a"), _chunk(" b"), _chunk(" c", "length"), _usage_chunk(5, 3)])
    assert (record.prompt_tokens, record.output_tokens) == (5, 3)
    assert len(record.token_times) == 3


def test_usage_only_on_the_closing_chunk_adds_no_tokens():
    # llama-server: one chunk per token without usage, then an empty closing chunk that carries
    # the finish reason and the whole request's usage (as its 0.3.36 build streams it).
    closing = {
        **_chunk("", "length"),
        "usage": {"prompt_tokens": 4, "completion_tokens": 3, "total_tokens": 7},
    }
    record = _stream([_chunk(" a"), _chunk(" b"), _chunk(" c"), closing])
    assert record.output_tokens == 3
    assert len(record.token_times) == 3


def test_stream_of_only_a_closing_chunk_is_an_error():
    record = _stream([_chunk("", "stop")])
    assert not record.ok
    assert record.output_tokens == 0
    assert "without a single token" in record.error
