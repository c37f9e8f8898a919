"""Four made-up requests the bench's metrics, frames and plots tests share: one that waited half
a second for three tokens, one with a 20-token prompt and five quick gaps, one that gave a single
token, and one with two uneven gaps."""

from __future__ import annotations

import pytest

from servelab.bench.client import RequestRecord
from tests.support import record


@pytest.fixture
def records() -> list[RequestRecord]:
    return [
        record(0, 0.0, [0.1, 0.1, 0.2], ttft=0.5),
        record(1, 0.2, [0.05] * 5, ttft=0.3, prompt=20),
        record(2, 0.4, [], ttft=1.0),
        record(3, 0.5, [0.3, 0.1], ttft=0.2),
    ]
