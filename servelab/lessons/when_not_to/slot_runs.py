"""Chapter 08's three experiments on one running server, llama-server's or vLLM's, with the
same seeded load (their findings: ``servelab.lessons.when_not_to.slots``):

- ``step_sweep``: closed loops of 1, 2, 4, ... users decoding together;
- ``over_the_cap``: twice as many users at once as the engine takes;
- ``shared_prompt``: one user whose requests all begin with the same long prompt, the engine's
  reuse on or off.
"""

from __future__ import annotations

from collections.abc import Sequence

from servelab import bench
from servelab.bench.frames import Result
from servelab.bench.options import RunOptions
from servelab.bench.prompts import WordPrompts
from servelab.engines.running import RunningServer
from servelab.engines.vllm_server import Capacity, CapacityNotFound, Server

# Both llama.cpp servers lack vLLM's /tokenize and /metrics: prompts are seeded words, and the
# server is not sampled while it runs.
UNSAMPLED: RunOptions = {"prompts": WordPrompts(), "metrics_interval": None, "progress": False}


def step_sweep(
    server: RunningServer,
    levels: Sequence[int],
    prompt_words: int,
    output_tokens: int,
    seed: int = 200,
) -> dict[int, list[Result]]:
    """One closed loop of ``level`` users, one request each, at every level."""
    return {
        level: [
            bench.closed_loop(
                server,
                users=level,
                input_tokens=prompt_words,
                max_tokens=output_tokens,
                seed=seed + level,
                **UNSAMPLED,
            )
        ]
        for level in levels
    }


def over_the_cap(
    server: RunningServer, users: int, prompt_words: int, output_tokens: int, seed: int = 300
) -> Result:
    """``users`` users, one request each, all at the same moment."""
    return bench.closed_loop(
        server,
        users=users,
        input_tokens=prompt_words,
        max_tokens=output_tokens,
        seed=seed,
        **UNSAMPLED,
    )


def shared_prompt(
    server: RunningServer, prefix_words: int, requests: int, reuse: bool, seed: int = 400
) -> Result:
    """One user sending ``requests`` requests one after another, each the same prompt of
    ``prefix_words`` words and then a question of its own. ``reuse=False`` gives every request a
    cache salt of its own, so that vLLM cannot reuse the prompt; llama-server ignores the salt,
    and is started with ``cache_prompt=False`` instead."""
    return bench.shared_prefix(
        server,
        prefix_words,
        users=1,
        requests_per_user=requests,
        question_tokens=16,
        max_tokens=4,
        reuse_cache=reuse,
        seed=seed,
        **UNSAMPLED,
    )


def pool_of(server: Server) -> Capacity | None:
    """vLLM's KV pool as its start-up log states it; None where the log does not."""
    try:
        return server.capacity
    except CapacityNotFound:
        return None
