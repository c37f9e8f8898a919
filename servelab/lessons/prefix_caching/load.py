"""Chapter 04's load, repeated on one server: users whose requests share a system prompt."""

from __future__ import annotations

from servelab import bench
from servelab.bench.frames import Result
from servelab.engines.running import RunningServer

# The loads' seeds start here, apart from the chapter's probes (1) and samples (11 to 13): a
# load that drew a probe's prompts would find them cached.
FIRST_SEED = 20


def warm_loads(
    server: RunningServer,
    prefix_tokens: int,
    users: int,
    requests_per_user: int,
    question_tokens: int,
    max_tokens: int,
    runs: int,
) -> list[Result]:
    """``runs`` loads of ``users`` sending ``requests_per_user`` requests one after another, each
    opening with a system prompt of ``prefix_tokens``. Each run has a prompt and questions of its
    own (its seed), and one request with its prompt goes first, not measured: with caching on, a
    run then finds its prompt cached, as a service's steady traffic would, and never the
    questions of the run before it."""
    results = []
    for seed in range(FIRST_SEED, FIRST_SEED + runs):
        bench.shared_prefix(
            server,
            prefix_tokens,
            users=1,
            requests_per_user=1,
            question_tokens=question_tokens,
            max_tokens=1,
            seed=seed,
            progress=False,
        )
        results.append(
            bench.shared_prefix(
                server,
                prefix_tokens,
                users=users,
                requests_per_user=requests_per_user,
                question_tokens=question_tokens,
                max_tokens=max_tokens,
                seed=seed,
                progress=False,
            )
        )
    return results
