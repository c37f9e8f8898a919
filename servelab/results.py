"""A result record per measurement: the one schema, the one writer and the one reader.

Every chapter ends its measuring part with ``record_results(runtime, findings)``: the findings
record (its package's ``record`` module) names the chapter and maps its findings to figures.
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
from typing import TYPE_CHECKING, Annotated, Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from servelab.book import BY_ID, CHAPTERS
from servelab.chapter import Figure, Figures
from servelab.engines.vllm_server import GPUS_COMPUTED_ON
from servelab.hardware import DeviceKind, engine_distribution
from servelab.lessons.device_model.foretold import Checked
from servelab.sizes import Profile
from servelab.wall_time import CLOCK, Clock

if TYPE_CHECKING:
    from servelab.env import Runtime

# Version 2 added ``predictions``, version 3 ``wall_time``; older records, without them, read.
SchemaVersion = Literal[1, 2, 3]  # the type checker holds them together
SCHEMA_VERSION: SchemaVersion = 3
MIME_TYPE = "application/vnd.servelab.result+json"
MAX_RECORD_BYTES = 16_000  # a record is about 2 kB; anything much larger is not one of ours
MAX_RECORDS = 32  # per notebook: each chapter writes one
MAX_TEXT = 200  # characters of any string field
MAX_PREDICTIONS = 16  # per record: a chapter checks two or three
MAX_STARTS = 64  # server starts per record: a chapter makes at most a dozen

Text = Annotated[str, Field(max_length=MAX_TEXT)]
Finite = Annotated[float, Field(allow_inf_nan=False)]


#: chapter id -> figure name -> what it is, unit included; each chapter declares its own
#: (``servelab.lessons.<topic>.chapter``).
FIGURES: dict[str, Mapping[str, Figure]] = {chapter.id: chapter.figures for chapter in CHAPTERS}


class ChapterFindings(Protocol):
    """A chapter's findings as one record: which chapter, and its figures by declared name."""

    @property
    def chapter(self) -> str: ...

    def figures(self) -> Figures: ...


class FigureError(ValueError):
    """A chapter passed figures that do not match the names declared for it."""


class DeviceInfo(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    kind: DeviceKind
    name: Text
    count: int = Field(ge=1, le=64)
    memory_gib: Finite = Field(ge=0)


class Prediction(BaseModel):
    """A prediction the device model made before the chapter measured (``predicted``) and the
    spread of the ``runs`` it predicted (``low``, ``median``, ``high``), ``unit`` after each."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    what: Text
    unit: Annotated[str, Field(max_length=8)]
    predicted: Finite
    low: Finite
    median: Finite
    high: Finite
    runs: int = Field(ge=1, le=10_000)

    @model_validator(mode="after")
    def _a_spread(self) -> Prediction:
        if not self.low <= self.median <= self.high:
            raise ValueError("a prediction's runs need low <= median <= high")
        return self

    @classmethod
    def of(cls, check: Checked) -> Prediction:
        spread = check.measured
        return cls(
            what=check.what,
            unit=check.unit,
            predicted=check.predicted,
            low=spread.low,
            median=spread.median,
            high=spread.high,
            runs=spread.n,
        )


class StartSplit(BaseModel):
    """One server start's seconds (``servelab.wall_time.StartTimes``); a time vLLM did not log
    is ``None``. Any finite number reads: the class results judge its size."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    wall_s: Finite
    engine_s: Finite | None
    compile_s: Finite | None
    graphs_s: Finite | None


class WallTime(BaseModel):
    """Where the chapter's wall time went (``servelab.wall_time.Clock``): the install cell, each
    server start, and the rest until the record (``measure_s``); ``None``: not timed."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    platform: Text
    install_s: Finite | None
    measure_s: Finite | None
    starts: list[StartSplit] = Field(max_length=MAX_STARTS)

    @classmethod
    def of(cls, platform: str, clock: Clock) -> WallTime:
        return cls(
            platform=platform,
            install_s=clock.install_s,
            measure_s=clock.measured_s(),
            starts=[
                StartSplit(
                    wall_s=s.wall_s, engine_s=s.engine_s, compile_s=s.compile_s, graphs_s=s.graphs_s
                )
                for s in clock.starts[:MAX_STARTS]
            ],
        )


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
    predictions: list[Prediction] = Field(default_factory=list, max_length=MAX_PREDICTIONS)
    wall_time: WallTime | None = None

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
        if self.predictions and self.schema_version < 2:
            raise ValueError("predictions came with schema 2; this record says 1")
        if self.wall_time is not None and self.schema_version < 3:
            raise ValueError(
                f"wall_time came with schema 3; this record says {self.schema_version}"
            )
        return self

    def summary(self) -> str:
        """The line a reader sees under the record cell."""
        gpus = self.device.kind == "cuda" and self.device.count > 1
        many = f"{self.device.count}x " if gpus else ""
        device = f"{many}{self.device.name}"
        missing = f", {len(self.missing)} not measured" if self.missing else ""
        count = len(self.predictions)
        predicted = f", {count} prediction{'s' * (count != 1)} checked" if count else ""
        return (
            f"Result recorded: {self.chapter}, {len(self.figures)} figures{missing}"
            f"{predicted} | "
            f"{self.device.kind.upper()} {device} | {self.engine} | "
            f"sizes {self.size_profile} | schema {self.schema_version}"
        )


@dataclass(frozen=True)
class RecordError:
    """A result output that is not a valid record: in which cell, and why."""

    cell: int
    reason: str


def expected_names(chapter: str, profile: Profile) -> set[str]:
    """The figures ``chapter`` must pass at ``profile``: every declared one whose level, if it
    has one, that profile measures."""
    sizes = BY_ID[chapter].sizes.at(profile)
    return {
        name
        for name, figure in FIGURES[chapter].items()
        if figure.level is None
        or figure.knob is None
        or figure.level in getattr(sizes, figure.knob)
    }


def _split(
    chapter: str, profile: Profile, figures: Mapping[str, Any]
) -> tuple[dict[str, float], list[str]]:
    if chapter not in FIGURES:
        raise FigureError(f"no figures are declared for chapter {chapter!r}")
    unknown = sorted(set(figures) - set(FIGURES[chapter]))
    forgotten = sorted(expected_names(chapter, profile) - set(figures))
    if unknown or forgotten:
        raise FigureError(
            f"{chapter}: undeclared figures {unknown}, figures not given "
            f"{forgotten} (its package's chapter module declares them)"
        )
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


def make_record(
    runtime: Runtime,
    chapter: str,
    figures: Mapping[str, Any],
    checks: Sequence[Checked] = (),
    clock: Clock | None = None,
) -> Record:
    """The record of ``figures`` measured on ``runtime`` (a ``servelab.env.Runtime``), of
    the predictions ``checks`` set against them (a check whose runs were not all finite is
    left out) and of where the wall time went (``clock``: this kernel's)."""
    measured, missing = _split(chapter, runtime.size_profile, figures)
    device = runtime.device
    distribution = engine_distribution()
    return Record(
        schema_version=SCHEMA_VERSION,
        chapter=chapter,
        servelab_version=_version("servelab") or "unknown",
        engine=runtime.engine,
        engine_distribution=distribution,
        engine_version=_version(distribution),
        device=DeviceInfo(
            kind=device.kind,
            name=device.name,
            count=len(GPUS_COMPUTED_ON) or device.count,
            memory_gib=float(device.memory_gib),
        ),
        model=runtime.model,
        size_profile=runtime.size_profile,
        figures=measured,
        missing=missing,
        predictions=[Prediction.of(check) for check in checks if _finite_check(check)],
        wall_time=WallTime.of(runtime.platform, clock or CLOCK),
    )


def _finite_check(check: Checked) -> bool:
    spread = check.measured
    return all(
        math.isfinite(value) for value in (check.predicted, spread.low, spread.median, spread.high)
    )


def record_results(
    runtime: Runtime, findings: ChapterFindings, checks: Sequence[Checked] | None = None
) -> Record:
    """Validate the figures of ``findings`` against its chapter's declared names, display the
    record (JSON for the grader, one summary line for the reader) and return it.

    A chapter that predicts passes its ``checks`` (none: it predicts nothing): the record
    carries them, and the device model keeps them for chapter 10's closing table in place of
    those an earlier run of the chapter kept, so an empty tuple clears those."""
    from IPython.display import display

    from servelab.lessons.device_model.kept import note_checks

    record = make_record(runtime, findings.chapter, findings.figures().by_name(), checks or ())
    if checks is not None:
        note_checks(runtime, findings.chapter, checks)
    display({MIME_TYPE: record.model_dump(mode="json"), "text/plain": record.summary()}, raw=True)
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
        results.append(
            RecordError(
                found[MAX_RECORDS][0], f"more than {MAX_RECORDS} records; the rest were not read"
            )
        )
    return results
