"""servelab.bench.options: ``RunOptions`` names exactly the keywords ``run`` takes, each annotated
as ``run`` annotates it, so the workload helpers that pass them on cannot drift from it."""

from __future__ import annotations

import inspect

from servelab.bench import run
from servelab.bench.options import RunOptions


def test_the_options_are_runs_keywords_with_its_types() -> None:
    keywords = {
        name: parameter.annotation
        for name, parameter in inspect.signature(run).parameters.items()
        if parameter.kind is inspect.Parameter.KEYWORD_ONLY
    }
    options = {
        name: getattr(hint, "__forward_arg__", hint)  # a TypedDict keeps its strings
        for name, hint in RunOptions.__annotations__.items()
    }
    assert options == keywords
    assert not RunOptions.__required_keys__  # every one has run's default
