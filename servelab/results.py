"""A result record per measurement: the one schema, the one writer and the one reader.

Every chapter ends its measuring part with ``record_results(runtime, chapter, figures={...})``.
That validates the figures against the names :data:`FIGURES` declares for the chapter (an
unknown or a forgotten name is the author's error and raises), records a NaN or infinite figure
(a smoke run that did not measure it) as missing, and displays the record as an ordinary notebook
output: the JSON under :data:`MIME_TYPE` for machines, one ``text/plain`` line for people (the
book shows only that line; ``_config.yml`` keeps myst-nb quiet about the JSON).

:func:`read_records` finds those outputs in a submitted notebook and validates each one again;
a broken record comes back as a :class:`RecordError` with its reason, never as an exception.
Change :data:`SCHEMA_VERSION` whenever a field or a chapter's figure names change.
"""

from __future__ import annotations

import importlib.metadata
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from numbers import Real
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from servelab.engines.vllm_server import GPUS_COMPUTED_ON
from servelab.hardware import DeviceKind, engine_distribution
from servelab.sizes import TABLE, Profile

if TYPE_CHECKING:
    from servelab.env import Runtime

SchemaVersion = Literal[1]  # the type checker holds the two together
SCHEMA_VERSION: SchemaVersion = 1
MIME_TYPE = "application/vnd.servelab.result+json"
MAX_RECORD_BYTES = 16_000  # a record is about 2 kB; anything much larger is not one of ours
MAX_RECORDS = 32  # per notebook: each chapter writes one
MAX_TEXT = 200  # characters of any string field

Text = Annotated[str, Field(max_length=MAX_TEXT)]
Finite = Annotated[float, Field(allow_inf_nan=False)]


@dataclass(frozen=True)
class Figure:
    """One named figure a chapter records. A figure with a ``level`` exists only in profiles
    whose ``knob`` (a list in ``servelab.sizes``) holds that level, e.g. one per concurrency."""

    description: str
    knob: str | None = None
    level: int | None = None


def per_level(chapter: str, knob: str, template: str, description: str) -> dict[str, Figure]:
    """``template.format(n=level)`` for every level of ``knob`` in any profile of ``chapter``."""
    levels = sorted({level for sizes in TABLE[chapter].values() for level in sizes[knob]})
    return {template.format(n=level): Figure(description.format(n=level), knob, level)
            for level in levels}


#: chapter id -> figure name -> what it is, unit included. The one place the names live. Where a
#: chapter repeats a measurement, its figure is the median of the runs.
FIGURES: dict[str, dict[str, Figure]] = {
    "00-serving-many-users": {
        **per_level("00-serving-many-users", "levels", "total_tok_s_at_{n}",
                    "output tokens per second of the whole run, {n} users at once"),
        **per_level("00-serving-many-users", "levels", "user_tok_s_at_{n}",
                    "output tokens per second each user saw, {n} users at once"),
        "batching_gain": Figure("total output at the top concurrency over one user's (×)"),
        "share_kept": Figure("share of the single-stream speed each batched user kept (0-1)"),
        "prompt_tokens_computed_with_reuse": Figure(
            "prompt tokens computed per request after the first, prefix reuse on (tokens)"),
        "prompt_tokens_computed_without_reuse": Figure(
            "prompt tokens computed per request after the first, prefix reuse off (tokens)"),
        "ttft_ms_with_reuse": Figure("time to first token after the first request, reuse on "
                                     "(ms)"),
        "ttft_ms_without_reuse": Figure("time to first token after the first request, reuse off "
                                        "(ms)"),
        "longest_pause_ms_one_piece": Figure(
            "users' longest gap between tokens, the long prompt prefilled in one step (ms)"),
        "longest_pause_ms_sliced": Figure(
            "users' longest gap between tokens, the long prompt prefilled in slices (ms)"),
        "document_ttft_s_one_piece": Figure("the long prompt's time to first token, one step (s)"),
        "document_ttft_s_sliced": Figure("the long prompt's time to first token, in slices (s)"),
        "step_budget_tokens": Figure("tokens per step the sliced run allowed (tokens)"),
    },
    "01-serving-engine": {
        "steady_tok_s_one_user": Figure("output tokens per second, one user, steady state"),
        "steady_tok_s_all_users": Figure("total output tokens per second, every user at once, "
                                         "steady state"),
        "user_tok_s_all_users": Figure("output tokens per second each user saw, every user at "
                                       "once, steady state"),
        "batching_gain": Figure("total steady output with every user over one user's (×)"),
        "share_kept": Figure("share of the single user's steady speed each user kept (0-1)"),
        "ttft_ms_p50_one_user": Figure("median time to first token, one user (ms)"),
        "ttft_ms_p50_all_users": Figure("median time to first token, every user at once (ms)"),
        "generated_tokens_client": Figure("generated tokens the client counted (tokens)"),
        "generated_tokens_server": Figure("generated tokens the server's /metrics counted "
                                          "(tokens)"),
    },
    "02-continuous-batching": {
        "steady_tok_s_at_1": Figure("output tokens per second, one stream, steady state"),
        "top_users": Figure("streams at the top of the sweep (count)"),
        "steady_tok_s_at_top": Figure("total output tokens per second at the top, steady state"),
        "user_tok_s_at_top": Figure("output tokens per second each stream saw at the top, "
                                    "steady state"),
        "batching_gain": Figure("steady total at the top over one stream's (×)"),
        "share_kept": Figure("share of the single-stream speed each stream kept at the top "
                             "(0-1)"),
        "bandwidth_gb_s": Figure("memory bandwidth measured before the server started (GB/s)"),
        "weight_read_ms": Figure("time one read of all weights takes at that bandwidth (ms)"),
        "matmul_gflop_s": Figure("matrix-multiply rate in the server's dtype (GFLOP/s)"),
        "step_fixed_ms": Figure("fitted part of a decoding step every sequence shares (ms)"),
        "step_per_sequence_ms": Figure("fitted cost each sequence adds to a step (ms)"),
        "step_fit_r_squared": Figure("R² of the step-time fit (0-1)"),
        "predicted_gain_low": Figure("gain at the top predicted before the sweep from bandwidth "
                                     "and FLOP/s, low end of the window (×)"),
        "predicted_gain_high": Figure("the same prediction, high end of the window (×)"),
        "waves_s": Figure("the same requests in static waves: duration (s)"),
        "continuous_s": Figure("the same requests batched continuously: duration (s)"),
        "continuous_speedup": Figure("waves' duration over the continuous batch's (×)"),
        "idle_share_waves": Figure("share of slot time idle in waves (0-1)"),
        "idle_share_continuous": Figure("share of slot time idle, continuous batching (0-1)"),
    },
    "03-paged-attention": {
        "kv_bytes_per_token": Figure("KV-cache bytes one token takes (bytes)"),
        "block_tokens": Figure("tokens in one KV-cache block (tokens)"),
        "cache_tokens": Figure("KV-cache tokens the engine reported (tokens)"),
        "requests_fit_reserved": Figure("requests that fit reserving the context limit each "
                                        "(count)"),
        "requests_fit_paged": Figure("requests that fit in blocks allocated as needed (count)"),
        "running_max_roomy": Figure("most sequences running at once in the roomy cache (count)"),
        "kv_usage_peak_roomy": Figure("peak KV-cache usage in the roomy cache (0-1)"),
        "tokens_per_sequence_at_peak": Figure("KV tokens held per running sequence at that peak "
                                              "(tokens)"),
        "running_max_cramped": Figure("most sequences running at once in a third of the room "
                                      "(count)"),
        "waiting_max_cramped": Figure("most requests waiting at once in a third of the room "
                                      "(count)"),
        "preemptions_cramped": Figure("preemptions in a third of the room (count)"),
    },
    "04-prefix-caching": {
        "prompt_tokens_computed_cached": Figure(
            "prompt tokens computed per request after the first, caching on (tokens)"),
        "prompt_tokens_computed_uncached": Figure(
            "prompt tokens computed per request after the first, caching off (tokens)"),
        "ttft_ms_p50_cached": Figure("median time to first token, shared prefix, caching on "
                                     "(ms)"),
        "ttft_ms_p50_uncached": Figure("median time to first token, shared prefix, caching off "
                                       "(ms)"),
        "request_per_s_cached": Figure("requests per second, caching on (req/s)"),
        "request_per_s_uncached": Figure("requests per second, caching off (req/s)"),
        "hit_rate_cached": Figure("prefix-cache hit rate the server counted, caching on (0-1)"),
        "peak_blocks_samples_cached": Figure("peak KV blocks held by n parallel samples, caching "
                                             "on (blocks)"),
        "peak_blocks_identical_cached": Figure("peak KV blocks held by identical prompts, caching "
                                               "on (blocks)"),
        "peak_blocks_different_cached": Figure("peak KV blocks held by different prompts, caching "
                                               "on (blocks)"),
        "peak_blocks_samples_uncached": Figure("peak KV blocks held by n parallel samples, caching "
                                               "off (blocks)"),
        "expected_blocks_shared": Figure("blocks the samples need if they share the prompt "
                                         "(blocks)"),
        "expected_blocks_unshared": Figure("blocks the samples need if each keeps its own "
                                           "(blocks)"),
    },
    "05-the-dials": {
        **per_level("05-the-dials", "levels", "output_tok_s_at_{n}",
                    "output tokens per second of the burst, max_num_seqs={n}"),
        **per_level("05-the-dials", "levels", "tpot_ms_p99_at_{n}",
                    "99th-percentile time per output token, max_num_seqs={n} (ms)"),
        **per_level("05-the-dials", "levels", "latency_s_p99_at_{n}",
                    "99th-percentile arrival to last token, max_num_seqs={n} (s)"),
        "small_cache_tokens": Figure("KV-cache tokens of the small server (tokens)"),
        "preemptions_short_alone": Figure("preemptions, short requests alone (count)"),
        "preemptions_beside_long": Figure("preemptions, short requests beside long ones (count)"),
        "ttft_ms_p99_short_alone": Figure("99th-percentile time to first token, short requests "
                                          "alone (ms)"),
        "ttft_ms_p99_beside_long": Figure("99th-percentile time to first token, short requests "
                                          "beside long ones (ms)"),
    },
    "06-chunked-prefill": {
        "prefill_tok_s": Figure("prefill rate of the document alone, fixed cost apart "
                                "(tokens/s)"),
        "step_budget_tokens": Figure("tokens per step the chunked run allowed (tokens)"),
        "chunks": Figure("chunks the document was read in (count)"),
        "longest_pause_ms_one_step": Figure("users' longest gap, document in one step (ms)"),
        "longest_pause_ms_chunked": Figure("users' longest gap, document in chunks (ms)"),
        "itl_ms_p50_one_step": Figure("users' median gap between tokens, one step (ms)"),
        "itl_ms_p99_one_step": Figure("users' 99th-percentile gap, one step (ms)"),
        "itl_ms_p99_chunked": Figure("users' 99th-percentile gap, chunks (ms)"),
        "document_ttft_s_one_step": Figure("the document's time to first token, one step (s)"),
        "document_ttft_s_chunked": Figure("the document's time to first token, chunks (s)"),
    },
    "07-throughput-vs-latency": {
        "peak_tok_s_interactive": Figure("highest output tokens per second, the small "
                                         "max_num_seqs"),
        "peak_tok_s_batch": Figure("highest output tokens per second, the large max_num_seqs"),
        **per_level("07-throughput-vs-latency", "rates", "ttft_ms_p99_interactive_at_{n}",
                    "99th-percentile time to first token at {n} req/s, small max_num_seqs (ms)"),
        **per_level("07-throughput-vs-latency", "rates", "ttft_ms_p99_batch_at_{n}",
                    "99th-percentile time to first token at {n} req/s, large max_num_seqs (ms)"),
        **per_level("07-throughput-vs-latency", "rates", "goodput_req_s_interactive_at_{n}",
                    "requests per second within the SLO at {n} req/s, small max_num_seqs"),
        **per_level("07-throughput-vs-latency", "rates", "goodput_req_s_batch_at_{n}",
                    "requests per second within the SLO at {n} req/s, large max_num_seqs"),
        "little_in_flight": Figure("requests in the server at once by Little's law, arrival "
                                   "rate x mean request time, one run of the small max_num_seqs"),
        "engine_in_flight": Figure("requests running or waiting as the engine counted them, "
                                   "averaged over the same run's /metrics samples"),
        "slot_rate_req_s": Figure("requests per second the small max_num_seqs can finish by "
                                  "Little's law, slots over a request's time with all busy, "
                                  "predicted before the sweep"),
    },
    "08-when-not-to": {
        "user_tok_s_alone_llama_q4": Figure("tokens per second one user saw, llama-cpp-python "
                                            "Q4_1"),
        "user_tok_s_alone_llama_f16": Figure("tokens per second one user saw, llama-cpp-python "
                                             "F16"),
        "user_tok_s_alone_llama_server": Figure("tokens per second one user saw, llama-server "
                                                "Q4_1"),
        "user_tok_s_alone_vllm": Figure("tokens per second one user saw, vLLM"),
        "output_tok_s_many_llama_q4": Figure("total output tokens per second, many users, "
                                             "llama-cpp-python Q4_1"),
        "output_tok_s_many_llama_server": Figure("total output tokens per second, many users, "
                                                 "llama-server Q4_1"),
        "output_tok_s_many_vllm": Figure("total output tokens per second, many users, vLLM"),
        "ttft_s_p99_many_llama_q4": Figure("slowest-percentile first token, many users, "
                                           "llama-cpp-python Q4_1 (s)"),
        "ttft_s_p99_many_llama_server": Figure("slowest-percentile first token, many users, "
                                               "llama-server Q4_1 (s)"),
        "ttft_s_p99_many_vllm": Figure("slowest-percentile first token, many users, vLLM (s)"),
        "step_gain_llama_server": Figure("output of the largest batch against one sequence's, "
                                         "llama-server (×)"),
        "step_gain_vllm": Figure("output of the largest batch against one sequence's, vLLM (×)"),
        "start_s_llama_q4": Figure("launch to answering, llama-cpp-python Q4_1 (s)"),
        "start_s_llama_server": Figure("launch to answering, llama-server Q4_1 (s)"),
        "start_s_vllm": Figure("launch to answering, vLLM (s)"),
        "bits_per_weight_q4": Figure("bits per weight of the Q4_1 file, block scales included"),
        "bits_per_weight_f16": Figure("bits per weight of the F16 file"),
    },
    "09-past-one-machine": {
        **{name: Figure(text) for policy in ("round_robin", "cache_aware") for name, text in (
            (f"hit_rate_{policy}", f"prefix-cache hit rate of the replicas, {policy} (0-1)"),
            (f"kept_together_{policy}", f"mean share of a tenant's requests on one replica, "
                                        f"{policy} (0-1)"),
            (f"prompt_tokens_computed_{policy}", f"prompt tokens the replicas computed, "
                                                 f"{policy} (tokens)"),
            (f"ttft_ms_p50_{policy}", f"median time to first token, {policy} (ms)"),
            (f"ttft_ms_p99_{policy}", f"99th-percentile time to first token, {policy} (ms)"),
        )},
        "failed_requests": Figure("requests that failed when a replica was killed (count)"),
        "detection_s": Figure("kill to the router counting the replica down (s)"),
        "retries": Figure("requests the router sent again after a failure (count)"),
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
    "10-capacity-plan": {
        "step_fixed_ms": Figure("the step line's fixed part (ms)"),
        "step_per_sequence_ms": Figure("the step line's part per sequence (ms)"),
        "plan_max_num_seqs": Figure("max_num_seqs the plan chose (sequences)"),
        "plan_kv_mib": Figure("KV cache those sequences take, planned (MiB)"),
        "plan_rate_req_s": Figure("the planned knee: requests one server finishes (req/s)"),
        "plan_replicas": Figure("servers the plan says the target rate needs (count)"),
        "within_below": Figure("share of requests within both targets below the knee (0-1)"),
        "within_above": Figure("share of requests within both targets above the knee (0-1)"),
        "served_above_req_s": Figure("requests a second the server finished above the knee "
                                     "(req/s)"),
    },
}


class FigureError(ValueError):
    """A chapter passed figures that do not match the names declared for it."""


class DeviceInfo(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    kind: DeviceKind
    name: Text
    count: int = Field(ge=1, le=64)
    memory_gib: Finite = Field(ge=0)


class Record(BaseModel):
    """One chapter's measurements on one device. ``figures`` holds the finite ones; ``missing``
    names the declared figures this run has no number for."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    schema_version: SchemaVersion
    chapter: Text
    servelab_version: Text
    engine: Text
    engine_distribution: Text | None
    engine_version: Text | None
    device: DeviceInfo
    model: Text
    size_profile: Profile
    figures: dict[Text, Finite]
    missing: list[Text] = Field(max_length=256)

    @model_validator(mode="after")
    def _names_are_the_chapters(self) -> Record:
        declared = FIGURES.get(self.chapter)
        if declared is None:
            raise ValueError(f"unknown chapter {self.chapter!r}")
        names = list(self.figures) + self.missing
        unknown = sorted(set(names) - set(declared))
        if unknown:
            raise ValueError(f"figures not declared for {self.chapter}: {', '.join(unknown)}")
        if len(set(names)) != len(names):
            raise ValueError("a figure is listed both as measured and as missing")
        return self

    def summary(self) -> str:
        """The line a reader sees under the record cell."""
        gpus = self.device.kind == "cuda" and self.device.count > 1
        many = f"{self.device.count}x " if gpus else ""
        device = f"{many}{self.device.name}"
        missing = f", {len(self.missing)} not measured" if self.missing else ""
        return (f"Result recorded: {self.chapter}, {len(self.figures)} figures{missing} | "
                f"{self.device.kind.upper()} {device} | {self.engine} | "
                f"sizes {self.size_profile} | schema {self.schema_version}")


@dataclass(frozen=True)
class RecordError:
    """A result output that is not a valid record: in which cell, and why."""

    cell: int
    reason: str


def expected_names(chapter: str, profile: str) -> set[str]:
    """The figures ``chapter`` must pass at ``profile``: every declared one whose level, if it
    has one, that profile measures."""
    sizes = TABLE[chapter][profile]
    return {name for name, figure in FIGURES[chapter].items()
            if figure.level is None or figure.knob is None or figure.level in sizes[figure.knob]}


def _split(chapter: str, profile: str, figures: Mapping[str, Any]
           ) -> tuple[dict[str, float], list[str]]:
    if chapter not in FIGURES:
        raise FigureError(f"no figures are declared for chapter {chapter!r}")
    unknown = sorted(set(figures) - set(FIGURES[chapter]))
    forgotten = sorted(expected_names(chapter, profile) - set(figures))
    if unknown or forgotten:
        raise FigureError(f"{chapter}: undeclared figures {unknown}, figures not given "
                          f"{forgotten} (servelab.results.FIGURES declares them)")
    measured: dict[str, float] = {}
    for name, value in figures.items():
        if isinstance(value, bool) or not isinstance(value, Real):
            raise FigureError(f"{chapter}: figure {name!r} is {value!r}, not a number")
        if math.isfinite(value):
            measured[name] = float(value)
    # Missing: what this profile was to measure and did not (a NaN), not the levels of others.
    missing = sorted(expected_names(chapter, profile) - set(measured))
    return measured, missing


def _version(distribution: str | None) -> str | None:
    if distribution is None:
        return None
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return None


def make_record(runtime: Runtime, chapter: str, figures: Mapping[str, Any]) -> Record:
    """The record of ``figures`` measured on ``runtime`` (a ``servelab.env.Runtime``)."""
    measured, missing = _split(chapter, runtime.size_profile, figures)
    device = runtime.device
    distribution = engine_distribution()
    return Record(
        schema_version=SCHEMA_VERSION, chapter=chapter,
        servelab_version=_version("servelab") or "unknown", engine=runtime.engine,
        engine_distribution=distribution, engine_version=_version(distribution),
        device=DeviceInfo(kind=device.kind, name=device.name,
                          count=len(GPUS_COMPUTED_ON) or device.count,
                          memory_gib=float(device.memory_gib)),
        model=runtime.model, size_profile=runtime.size_profile, figures=measured,
        missing=missing)


def record_results(runtime: Runtime, chapter: str, figures: Mapping[str, Any]) -> Record:
    """Validate ``figures`` against the chapter's declared names, display the record (JSON for
    the grader, one summary line for the reader) and return it."""
    from IPython.display import display

    record = make_record(runtime, chapter, figures)
    display({MIME_TYPE: record.model_dump(mode="json"), "text/plain": record.summary()},
            raw=True)
    return record


def _reason(error: ValidationError) -> str:
    parts = [f"{'.'.join(map(str, e['loc'])) or 'record'}: {e['msg']}" for e in error.errors()]
    return "; ".join(parts)[:500]


def _parse(data: Any) -> Record:
    """One output's payload as a record; raises ValueError with the reason."""
    if isinstance(data, str):
        if len(data) > MAX_RECORD_BYTES:
            raise ValueError(f"larger than {MAX_RECORD_BYTES} bytes")
        data = json.loads(data)
    elif len(json.dumps(data, default=str)) > MAX_RECORD_BYTES:
        raise ValueError(f"larger than {MAX_RECORD_BYTES} bytes")
    if not isinstance(data, dict):
        raise ValueError(f"a record is a JSON object, not {type(data).__name__}")
    try:
        return Record.model_validate(data, strict=True)
    except ValidationError as error:
        raise ValueError(_reason(error)) from None


def _outputs(notebook: Mapping[str, Any]) -> list[tuple[int, Any]]:
    """(cell index, payload) of every result output, in order."""
    found = []
    cells = notebook.get("cells")
    for index, cell in enumerate(cells if isinstance(cells, Sequence) else []):
        outputs = cell.get("outputs") if isinstance(cell, Mapping) else None
        for output in outputs if isinstance(outputs, Sequence) else []:
            data = output.get("data") if isinstance(output, Mapping) else None
            if isinstance(data, Mapping) and MIME_TYPE in data:
                found.append((index, data[MIME_TYPE]))
    return found


def read_records(notebook: Mapping[str, Any]) -> list[Record | RecordError]:
    """Every result record in ``notebook`` (an nbformat node or its JSON as a dict), validated;
    a broken one is a :class:`RecordError` with its reason. Never raises on the content."""
    found = _outputs(notebook)
    results: list[Record | RecordError] = []
    for index, payload in found[:MAX_RECORDS]:
        try:
            results.append(_parse(payload))
        except (ValueError, TypeError, RecursionError) as error:
            results.append(RecordError(index, str(error) or type(error).__name__))
    if len(found) > MAX_RECORDS:
        results.append(RecordError(found[MAX_RECORDS][0],
                                   f"more than {MAX_RECORDS} records; the rest were not read"))
    return results
