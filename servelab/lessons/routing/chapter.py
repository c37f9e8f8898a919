"""Chapter 09, past one machine.

Its sizes at each profile, the figures it records and the two the class report plots
(``servelab.chapter``).
"""

from __future__ import annotations

from dataclasses import dataclass

from servelab.chapter import Chapter, Figure
from servelab.sizes import Knobs, Profiles


@dataclass(frozen=True, kw_only=True)
class RoutingSizes(Knobs):
    """Chapter 09's knobs: tenants sharing prefixes across replicas, a replica killed under load,
    and copies against one server."""

    tenants: int
    requests_per_tenant: int
    prefix_tokens: int
    question_tokens: int
    answer_tokens: int
    rate: float
    failure_rate: float
    failure_requests: int
    failure_runs: int
    kill_at_s: float
    failure_output_tokens: int
    users: int
    input_tokens: int
    output_tokens: int
    max_model_len: int
    repeats: int


SIZES = Profiles(
    smoke=RoutingSizes(profile="smoke", tenants=2, requests_per_tenant=3, prefix_tokens=256,
                       question_tokens=16, answer_tokens=4, rate=4.0, failure_rate=4.0,
                       failure_requests=16, failure_runs=2, kill_at_s=1.5,
                       failure_output_tokens=8, users=4, input_tokens=32, output_tokens=16,
                       max_model_len=1024, repeats=2),
    cpu=RoutingSizes(profile="cpu", tenants=3, requests_per_tenant=6, prefix_tokens=512,
                     question_tokens=16, answer_tokens=8, rate=2.0, failure_rate=4.0,
                     failure_requests=32, failure_runs=2, kill_at_s=3.0,
                     failure_output_tokens=16, users=8, input_tokens=32, output_tokens=48,
                     max_model_len=1024, repeats=3),
    gpu=RoutingSizes(profile="gpu", tenants=8, requests_per_tenant=16, prefix_tokens=2000,
                     question_tokens=16, answer_tokens=32, rate=8.0, failure_rate=16.0,
                     failure_requests=240, failure_runs=2, kill_at_s=5.0,
                     failure_output_tokens=64, users=64, input_tokens=128, output_tokens=128,
                     max_model_len=4096, repeats=3),
)

CHAPTER = Chapter(
    id="09-past-one-machine",
    sizes=SIZES,
    figures={
        **{name: Figure(text) for policy in ("round_robin", "cache_aware") for name, text in (
            (f"hit_rate_{policy}", f"prefix-cache hit rate of the replicas, {policy} (0-1)"),
            (f"kept_together_{policy}", f"mean share of a tenant's requests on one replica, "
                                        f"{policy} (0-1)"),
            (f"prompt_tokens_computed_{policy}", f"prompt tokens the replicas computed, "
                                                 f"{policy} (tokens)"),
            (f"ttft_ms_p50_{policy}", f"median time to first token, {policy}, cold passes (ms)"),
            (f"ttft_ms_p50_warm_{policy}", f"median time to first token, {policy}, warm passes "
                                           "(ms)"),
            (f"ttft_ms_p99_{policy}", f"99th-percentile time to first token, {policy}, cold "
                                      "passes (ms)"),
        )},
        "failed_requests": Figure("requests that failed when a replica was killed, median run "
                                  "(count)"),
        "detection_s": Figure("kill to the router counting the replica down, median run (s)"),
        "retries": Figure("requests the router sent again after a failure, median run (count)"),
        "output_tok_s_replicas": Figure("output tokens per second, two replicas behind the "
                                        "router"),
        "output_tok_s_one_server": Figure("output tokens per second, one server on the whole "
                                          "device"),
        "output_tok_s_tensor_parallel": Figure("output tokens per second, one model over two "
                                               "GPUs"),
        "tpot_ms_p50_replicas": Figure("median time per output token, two replicas (ms)"),
        "tpot_ms_p50_one_server": Figure("median time per output token, one server (ms)"),
        "tpot_ms_p50_tensor_parallel": Figure("median time per output token, one model over two "
                                              "GPUs (ms)"),
    },
    main_figures=("hit_rate_round_robin", "hit_rate_cache_aware"),
)
