"""A chapter's findings kept as JSON and read back as the same objects, so that a chapter's
whole story can be rendered again from one real run's findings without running anything.

``to_record`` writes a findings object (frozen dataclasses of spreads, figures, mappings,
tuples, enums, pandas frames and series) as plain JSON; ``from_record(cls, data)`` rebuilds it,
led by ``cls``'s type hints. Mappings become lists of [key, value] pairs, so keys may be
tuples, as some findings' are; a frame keeps its index, columns and values (not its dtypes), a
series its name, index and values. Properties are not stored: they are computed again, which
is what a snapshot of the words is meant to test.
"""

from __future__ import annotations

import dataclasses
import json
import types
from collections.abc import Mapping, Sequence
from enum import Enum
from pathlib import Path
from typing import Any, Union, get_args, get_origin, get_type_hints

import pandas as pd


def to_record(value: Any) -> Any:
    """``value`` as JSON-able data."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {
            field.name: to_record(getattr(value, field.name)) for field in dataclasses.fields(value)
        }
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, pd.DataFrame):
        split = value.to_dict(orient="split")
        return {
            "index": to_record(split["index"]),
            "index_names": list(value.index.names),
            "columns": to_record(split["columns"]),
            "data": to_record(split["data"]),
        }
    if isinstance(value, pd.Series):
        return {
            "name": to_record(value.name),
            "index": to_record(value.index.tolist()),
            "values": to_record(value.tolist()),
        }
    if isinstance(value, Mapping):
        return [[to_record(key), to_record(item)] for key, item in value.items()]
    if isinstance(value, tuple | list):
        return [to_record(item) for item in value]
    if isinstance(value, float) and value != value:  # NaN: JSON has none
        return "NaN"
    return value


def _cell(item: Any) -> Any:
    """A frame's or series' label or value as it was: NaN again where JSON held "NaN", and a
    label of several parts (a tuple) a tuple again."""
    if isinstance(item, list):
        return tuple(_cell(part) for part in item)
    return float("nan") if item == "NaN" else item


def from_record(kind: Any, data: Any) -> Any:
    """Rebuild a value of type ``kind`` (a class or a type hint) from ``to_record``'s data."""
    if get_origin(kind) is not None:
        return _from_generic(kind, data)
    if kind is Any:
        return data
    if kind is pd.Series:
        return pd.Series(
            [_cell(item) for item in data["values"]],
            index=[_cell(label) for label in data["index"]],
            name=_cell(data["name"]),
        )
    if kind is pd.DataFrame:
        frame = pd.DataFrame(
            [[_cell(item) for item in row] for row in data["data"]],
            columns=[_cell(column) for column in data["columns"]],
            index=[_cell(label) for label in data["index"]],
        )
        frame.index.names = data["index_names"]
        return frame
    if isinstance(kind, type) and dataclasses.is_dataclass(kind):
        hints = get_type_hints(kind)
        return kind(
            **{
                field.name: from_record(hints[field.name], data[field.name])
                for field in dataclasses.fields(kind)
                if field.name in data
            }
        )
    if isinstance(kind, type) and issubclass(kind, Enum):
        return kind(data)
    if kind is float:
        return float("nan") if data == "NaN" else float(data)
    return data


def _from_generic(kind: Any, data: Any) -> Any:
    """``from_record`` for a parametrised hint: an optional value, a mapping, a tuple or a list."""
    origin, args = get_origin(kind), get_args(kind)
    if origin in (Union, types.UnionType):
        if data is None:
            return None
        return from_record(next(arg for arg in args if arg is not type(None)), data)
    if isinstance(origin, type) and issubclass(origin, Mapping):
        key, item = args
        return {from_record(key, pair[0]): from_record(item, pair[1]) for pair in data}
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(from_record(args[0], item) for item in data)
        return tuple(from_record(arg, item) for arg, item in zip(args, data, strict=True))
    if isinstance(origin, type) and issubclass(origin, Sequence):
        return [from_record(args[0], item) for item in data]
    return data


def save(findings: Mapping[str, Any], path: str | Path) -> Path:
    """Write named findings to ``path`` as JSON."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        json.dumps(
            {name: to_record(value) for name, value in findings.items()},
            indent=1,
            ensure_ascii=False,
        )
        + "\n"
    )
    return path


def load(path: str | Path, kinds: Mapping[str, type]) -> dict[str, Any]:
    """Read back what ``save`` wrote, each name as its type in ``kinds``; a name the recording
    lacks (it was made before a story took that finding) is left out."""
    data = json.loads(Path(path).read_text())
    return {name: from_record(kind, data[name]) for name, kind in kinds.items() if name in data}
