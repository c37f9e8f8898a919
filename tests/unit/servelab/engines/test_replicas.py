"""servelab.engines.replicas: which requests a replica's vLLM log says it received (the replicas
themselves, live: tests/engine/servelab/engines/test_router.py)."""

from __future__ import annotations

import pytest

from servelab.engines.replicas import received_ids
from tests.support import FIXTURES


@pytest.mark.parametrize(
    ("version", "expected"),
    [
        (
            "0.32",
            [
                "6e7ee8b88ed6ff1e-tenant2-request1",
                "6e7ee8b88ed6ff1e-tenant0-request3",
                "6e7ee8b88ed6ff1e-tenant1-request5",
            ],
        ),
        (
            "0.11.2",
            [
                "5f0c2a9e1b7d4c3a-tenant0-request0",
                "5f0c2a9e1b7d4c3a-tenant2-request1",
                "5f0c2a9e1b7d4c3a-tenant1-request2",
            ],
        ),
    ],
)
def test_a_replicas_log_names_the_requests_it_received(version: str, expected: list[str]):
    # The 0.32 log also holds the /tokenize requests that made the prompts: not ours to count.
    log = (FIXTURES / f"vllm-{version}" / "request-log.txt").read_text()
    assert received_ids(log) == expected
