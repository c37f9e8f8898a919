"""The tests mirror the source tree, one folder per tier (CONTRIBUTING.md "Test tiers", issue
#53): the tests of ``servelab/lessons/paging/findings.py`` are
``tests/<tier>/servelab/lessons/paging/test_findings.py`` (further files of the same module add
a suffix: ``test_findings_words.py``), a package's own tests are named for it in its parent
(``tests/unit/servelab/test_bench.py`` for ``servelab/bench/__init__.py``), and tests of no one
module sit in the tier's folder itself.

Every module of the packages below has a test file in some tier, or is exempted here with its
reason: by name in ``EXEMPT``, or by a rule that finds it (a chapter's declarations, a module
that is a docstring alone, a topic's bars). Read from the file tree alone, without importing
anything."""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).parents[1]
REPO = TESTS.parent
TIERS = ("unit", "tooling", "engine")
# The importable packages whose modules each need a test file. benchmarks/ holds scripts, not a
# package (no __init__.py); env/ is mirrored where it has tests, but not required to be.
PACKAGES = ("servelab", "autograder", "course")
# What may sit directly in tests/ besides the tier folders.
TOP_LEVEL = {"conftest.py", "support.py", "leak_scan.py", "__init__.py"}
CHAPTER = (
    "a chapter's sizes and cells' glue: its sizes are tested in "
    "tests/unit/servelab/test_sizes.py, its cells run by the chapter's nbval"
)
BARS = (
    "pure declaration, a topic's bars: tests/unit/servelab/lessons/test_thresholds.py "
    "holds each to one home"
)
TOPIC = "a package's docstring: nothing to test"
REEXPORTS = "a package's docstring and the names it re-exports from modules tested on their own"
STORY = (
    "a chapter's story, declared: rendered whole by tests/unit/test_story_snapshots.py, "
    "which also holds the page to its order"
)

# Modules with no test file of their own, each with the reason.
EXEMPT = {
    "servelab/bench/prompts.py": (
        "needs a server's tokenizer: tested through"
        " tests/engine/servelab/test_bench_engine.py and the chapters' nbval"
    ),
    "servelab/engines/process.py": (
        "the child-process life cycle, tested through the servers it runs"
        " (tests/engine/servelab/engines/test_router.py, test_vllm_server.py)"
    ),
    "servelab/engines/running.py": "pure declaration: the Protocol a running server satisfies",
    "servelab/env/__main__.py": (
        "the command line `python -m servelab.env`, run by tests/tooling/test_setup_commands.py"
    ),
    "servelab/hardware.py": (
        "the device and its flags, tested through"
        " tests/unit/servelab/engines/test_vllm_server.py and tests/unit/servelab/test_models.py"
    ),
    "servelab/lessons/serving_many_users/findings.py": (
        "pure declaration: the record of the three effects chapter 00's summary words, kept out"
        " of its words module by test_lesson_shape.py; built in"
        " tests/unit/servelab/lessons/serving_many_users/test_words.py"
    ),
    "servelab/lessons/prefix_caching/load.py": (
        "chapter 04's load against a live server, run by the chapter's nbval"
    ),
    "servelab/lessons/past_one_machine/interpretation.py": (
        "chapter 09's interpretation, rendered whole by tests/unit/test_story_snapshots.py"
    ),
    "servelab/lessons/when_not_to/slot_runs.py": (
        "drives a live llama-server or vLLM: run by chapter 08's nbval"
    ),
    "servelab/smoke.py": (
        "`python -m servelab.smoke` starts the engine: run by tests/engine/test_engine_compat.py"
    ),
    "autograder/__main__.py": (
        "the command line, run by tests/tooling/autograder/test_shard.py and test_sandbox.py"
    ),
    "autograder/course.py": (
        "the scratch nbgrader course, built by tests/tooling/autograder/test_grade.py"
    ),
    "autograder/merge.py": (
        "tested by merging shards in tests/unit/autograder/test_shard.py and its tooling twin"
    ),
    "autograder/preprocessors.py": (
        "nbgrader preprocessors: tested through tests/tooling/autograder/test_grade.py"
    ),
    "autograder/repair.py": (
        "tested through the hostile class of tests/tooling/autograder/test_grade.py"
    ),
    "autograder/sandbox_runner.py": (
        "runs inside bubblewrap: tested by tests/tooling/autograder/test_sandbox.py"
    ),
    "autograder/synthetic.py": (
        "the demo course and classes the autograder tests grade"
        " (tests/tooling/autograder/test_grade.py)"
    ),
    "autograder/workers.py": (
        "nbgrader processes: tested through tests/tooling/autograder/test_grade.py and"
        " test_shard.py"
    ),
}


def _test_files() -> list[Path]:
    """Every test file of the tiers, relative to tests/."""
    return [path.relative_to(TESTS) for tier in TIERS for path in (TESTS / tier).rglob("test_*.py")]


def _mirrored(test: Path) -> tuple[Path, str]:
    """The source folder a test file mirrors, and the name after ``test_``."""
    return Path(*test.parts[1:-1]), test.stem.removeprefix("test_")


def _names(name: str, stem: str) -> bool:
    return name == stem or name.startswith(stem + "_")


def _tested(module: Path, tests: list[Path]) -> bool:
    """Whether ``module`` (relative to the repository) has a test file in some tier."""
    folder, stem = (
        (module.parent.parent, module.parent.name)
        if module.name == "__init__.py"
        else (module.parent, module.stem)
    )
    return any(where == folder and _names(name, stem) for where, name in map(_mirrored, tests))


def _modules() -> list[Path]:
    return sorted(
        path.relative_to(REPO) for package in PACKAGES for path in (REPO / package).rglob("*.py")
    )


def chapter_exemptions() -> dict[str, str]:
    """The parts of each chapter's package that are declarations, not logic: its ``__init__``,
    its ``chapter`` and its ``story`` (a chapter's package is a lessons package that holds a
    ``chapter.py``), so that adding a chapter adds no entry here."""
    exempt = {}
    for declaration in sorted((REPO / "servelab" / "lessons").glob("*/chapter.py")):
        package = declaration.parent.relative_to(REPO)
        exempt |= {
            f"{package}/__init__.py": TOPIC,
            f"{package}/chapter.py": CHAPTER,
            f"{package}/story.py": STORY,
        }
    return exempt


def _re_export(node: ast.stmt) -> bool:
    """An import, or the ``__all__`` that lists what a package re-exports."""
    names = [getattr(target, "id", "") for target in getattr(node, "targets", [])]
    return isinstance(node, (ast.Import, ast.ImportFrom)) or (
        isinstance(node, ast.Assign) and names == ["__all__"]
    )


def docstrings_alone() -> dict[str, str]:
    """The modules that hold a docstring and nothing else (a package that only describes itself),
    or a docstring and the names it re-exports from modules tested on their own: nothing of their
    own runs (those with a test file anyway are left out). Read with ``ast``, so a module that
    gains a line of code needs a test."""
    exempt, tests = {}, _test_files()
    for module in (module for module in _modules() if not _tested(module, tests)):
        body = ast.parse((REPO / module).read_text(encoding="utf-8")).body
        first = body[0] if body and isinstance(body[0], ast.Expr) else None
        if first is None or not (
            isinstance(first.value, ast.Constant) and isinstance(first.value.value, str)
        ):
            continue
        if len(body) == 1:
            exempt[str(module)] = TOPIC
        elif all(map(_re_export, body[1:])):
            exempt[str(module)] = REEXPORTS
    return exempt


def bar_homes() -> dict[str, str]:
    """Each lessons topic's ``thresholds.py``: its bars, declared, each held to one home by
    tests/unit/servelab/lessons/test_thresholds.py, so that adding a topic adds no entry here."""
    return {
        str(path.relative_to(REPO)): BARS
        for path in sorted((REPO / "servelab" / "lessons").glob("*/thresholds.py"))
    }


def found_exemptions() -> dict[str, str]:
    """What the rules exempt, beside ``EXEMPT``'s named modules."""
    return chapter_exemptions() | docstrings_alone() | bar_homes()


def untested(modules: list[Path], tests: list[Path], exempt: dict[str, str]) -> list[str]:
    return [str(m) for m in modules if str(m) not in exempt and not _tested(m, tests)]


def test_every_module_has_a_test_file_or_a_reason() -> None:
    missing = untested(_modules(), _test_files(), EXEMPT | found_exemptions())
    assert missing == [], (
        "write tests/<tier>/<the module's path>/test_<module>.py, or exempt the "
        f"module in {Path(__file__).name} with its reason: {missing}"
    )


def test_each_exemption_names_a_module_still_untested() -> None:
    modules, tests = _modules(), _test_files()
    exempt = EXEMPT | found_exemptions()
    gone = [name for name in exempt if Path(name) not in modules]
    tested = [name for name in exempt if _tested(Path(name), tests)]
    assert (gone, tested) == ([], []), f"drop these exemptions: gone {gone}, now tested {tested}"
    assert all(reason.strip() for reason in EXEMPT.values())


def test_no_test_file_sits_directly_in_tests() -> None:
    loose = sorted(path.name for path in TESTS.glob("*.py") if path.name not in TOP_LEVEL)
    assert loose == [], f"move these to tests/unit, tests/tooling or tests/engine: {loose}"


def test_each_test_file_mirrors_a_source_module() -> None:
    """A test file in a tier's subfolder is named for a module or package of the same folder."""
    astray = []
    for test in _test_files():
        folder, name = _mirrored(test)
        if folder == Path():
            continue
        source = REPO / folder
        stems = {p.stem for p in source.glob("*.py")} | {p.name for p in source.glob("*/")}
        if not source.is_dir() or not any(_names(name, stem) for stem in stems):
            astray.append(str(test))
    assert astray == [], f"no source module of that path: {astray}"


def _tier_marks(path: Path) -> set[str]:
    """The tier marks a test file gives itself (decorators and ``pytestmark``)."""
    marks = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Attribute)
            and node.value.attr == "mark"
            and node.attr in {"engine", "tooling"}
        ):
            marks.add(node.attr)
    return marks


def test_no_unit_test_is_marked_for_another_tier() -> None:
    """tests/unit runs as the unit tier: a test marked engine or tooling belongs in that folder."""
    here = Path(__file__)
    marked = [
        str(p.relative_to(TESTS))
        for p in sorted((TESTS / "unit").rglob("test_*.py"))
        if p.name not in {here.name, "test_tiers.py"} and _tier_marks(p)
    ]
    assert marked == [], f"move these to tests/tooling or tests/engine: {marked}"


def test_the_check_fails_on_an_untested_module() -> None:
    modules = [
        Path("servelab/lessons/paging/findings.py"),
        Path("servelab/lessons/paging/new.py"),
        Path("servelab/bench/__init__.py"),
        Path("servelab/plots/__init__.py"),
    ]
    tests = [
        Path("unit/servelab/lessons/paging/test_findings_words.py"),
        Path("engine/servelab/test_bench_engine.py"),
    ]
    assert untested(modules, tests, {}) == [
        "servelab/lessons/paging/new.py",
        "servelab/plots/__init__.py",
    ]
    assert (
        untested(
            modules,
            tests,
            {"servelab/lessons/paging/new.py": "why", "servelab/plots/__init__.py": "why"},
        )
        == []
    )


def test_the_rules_find_docstrings_alone_and_each_topics_bars() -> None:
    alone, bars = docstrings_alone(), bar_homes()
    assert alone["servelab/lessons/__init__.py"] == TOPIC
    assert alone["servelab/env/__init__.py"] == REEXPORTS
    assert "servelab/bench/__init__.py" not in alone  # it runs code of its own
    assert "servelab/lessons/batching/thresholds.py" in bars
    assert "servelab/lessons/thresholds.py" not in bars  # the shared bars have a test file


def test_the_named_exemptions_stay_few() -> None:
    """Issue #66: at most 20 modules exempted by name; a new one needs a test file instead."""
    assert len(EXEMPT) <= 20, f"{len(EXEMPT)} named exemptions: write test files instead"
