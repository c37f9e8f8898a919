"""servelab.bench logic without a server: metrics, workloads, /metrics parsing, plots."""

from __future__ import annotations

import matplotlib
import matplotlib.pyplot
import pytest

from servelab.bench import metrics
from servelab.bench.client import RequestRecord

matplotlib.use("Agg")


@pytest.mark.engine  # imports vLLM's own benchmark code
def test_metrics_match_vllms_own_calculation(records: list[RequestRecord]) -> None:
    # vLLM is in every test environment (env/requirements-cpu.txt): without it this parity
    # check must fail, not be skipped and pass unseen.
    from vllm.benchmarks import serve
    from vllm.benchmarks.lib.endpoint_request_func import RequestFuncOutput

    outputs = [
        RequestFuncOutput(
            success=True,
            latency=r.e2e,
            ttft=r.ttft,
            itl=r.itls(),
            output_tokens=r.output_tokens,
            prompt_len=r.prompt_tokens,
            start_time=r.sent,
        )
        for r in records
    ]
    theirs, _ = serve.calculate_metrics(
        [], outputs, 3.0, None, [50.0, 90.0, 99.0], {"ttft": 600.0, "tpot": 150.0}
    )
    ours = metrics.calculate(records, 3.0, slo={"ttft": 600, "tpot": 150})
    assert ours["output_tok_s"] == pytest.approx(theirs.output_throughput)
    assert ours["request_per_s"] == pytest.approx(theirs.request_throughput)
    assert ours["goodput_req_s"] == pytest.approx(theirs.request_goodput)
    pairs = {"ttft": "ttft", "tpot": "tpot", "itl": "itl", "e2e": "e2el"}
    for name, vllm_name in pairs.items():
        assert ours[f"{name}_ms_mean"] == pytest.approx(getattr(theirs, f"mean_{vllm_name}_ms"))
        assert ours[f"{name}_ms_p50"] == pytest.approx(getattr(theirs, f"median_{vllm_name}_ms"))
        percentiles = dict(getattr(theirs, f"percentiles_{vllm_name}_ms"))
        for p in (90, 99):
            assert ours[f"{name}_ms_p{p}"] == pytest.approx(percentiles[float(p)])
