"""The test tiers hold (pyproject.toml's markers, CONTRIBUTING.md "Test tiers"), read from the
test files' source without running them: a test marked neither ``engine`` nor ``tooling`` is a
unit test, so it may not reach (itself, or through its module's helpers, fixtures and constants)
a name bound to subprocess, multiprocessing, vLLM, nbgrader, nbclient or jupyter_client, a new
venv, or chromium. tests/conftest.py watches, as they run, what unit tests start and import
through other code."""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

TESTS = Path(__file__).parents[1]
TIERS = {"engine", "tooling"}
FORBIDDEN = {
    "subprocess",
    "multiprocessing",
    "vllm",
    "nbgrader",
    "nbclient",
    "jupyter_client",
    "venv",
}
BROWSER = "chromium"


def _marks(expression: ast.expr) -> set[str]:
    """The X of every ``pytest.mark.X`` in ``expression`` (a decorator or ``pytestmark``)."""
    return {
        node.attr
        for node in ast.walk(expression)
        if isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Attribute)
        and node.value.attr == "mark"
    }


def _imports(node: ast.AST) -> dict[str, str]:
    """Each name an import in ``node`` binds, and the top-level module it comes from."""
    bound = {}
    for found in ast.walk(node):
        if isinstance(found, ast.Import):
            for alias in found.names:
                bound[alias.asname or alias.name.split(".")[0]] = alias.name.split(".")[0]
        elif isinstance(found, ast.ImportFrom) and found.module and found.level == 0:
            for alias in found.names:
                bound[alias.asname or alias.name] = found.module.split(".")[0]
    return bound


def _uses(node: ast.AST, forbidden: set[str]) -> set[str]:
    """What of the forbidden ``node`` itself touches: a forbidden module imported in it, a name
    bound to one, or the browser named in a string."""
    used = {module for module in _imports(node).values() if module in FORBIDDEN}
    for found in ast.walk(node):
        if isinstance(found, ast.Name) and found.id in forbidden:
            used.add(found.id)
        elif (
            isinstance(found, ast.Constant)
            and isinstance(found.value, str)
            and (found.value.split(" ")[0].rsplit("/", 1)[-1] == BROWSER)
        ):
            used.add(BROWSER)
    return used


def _bound(tree: ast.Module) -> tuple[dict[str, ast.AST], set[str]]:
    """The module's own helpers, fixtures, classes and constants, by the name they bind, and the
    marks its ``pytestmark`` gives every test."""
    module_marks: set[str] = set()
    nodes: dict[str, ast.AST] = {}
    for statement in tree.body:
        if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            nodes[statement.name] = statement
        elif isinstance(statement, ast.Assign | ast.AnnAssign):
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            for target in targets:
                if isinstance(target, ast.Name) and target.id == "pytestmark":
                    module_marks |= _marks(statement.value)
                elif isinstance(target, ast.Name):
                    nodes[target.id] = statement
    return nodes, module_marks


def unmarked_reaching(source: str) -> dict[str, set[str]]:
    """Each unit test of a test module's ``source`` that reaches something only an ``engine`` or
    ``tooling`` test may use, with what it reaches."""
    tree = ast.parse(source)
    nodes, module_marks = _bound(tree)
    # a name the module binds again is the module's own
    forbidden = {name for name, module in _imports(tree).items() if module in FORBIDDEN} - set(
        nodes
    )

    def reached(name: str, seen: set[str]) -> set[str]:
        seen.add(name)
        node = nodes[name]
        found = _uses(node, forbidden)
        referred = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):  # fixtures it asks for
            referred |= {arg.arg for arg in node.args.args + node.args.kwonlyargs}
        for other in sorted(referred & set(nodes) - seen):
            found |= reached(other, seen)
        return found

    offenders = {}
    for name, node in nodes.items():
        if not (
            name.startswith("test_") and isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        ):
            continue
        marks = module_marks.union(*(_marks(d) for d in node.decorator_list))
        if not marks & TIERS and (found := reached(name, set())):
            offenders[name] = found
    return offenders


def test_every_unit_test_stays_a_unit_test() -> None:
    # Every file of tests/unit, and those still directly in tests/ (the layout test says which).
    unit = [*sorted((TESTS / "unit").rglob("test_*.py")), *sorted(TESTS.glob("test_*.py"))]
    offenders = [
        f"{path.relative_to(TESTS)}::{test} reaches {', '.join(sorted(found))}"
        for path in unit
        if path != Path(__file__)
        for test, found in unmarked_reaching(path.read_text(encoding="utf-8")).items()
    ]
    assert offenders == [], (
        f"mark these tests tooling or engine (pyproject.toml's markers): {offenders}"
    )


def test_the_guard_follows_helpers_and_fixtures_and_honours_marks() -> None:
    source = """
import subprocess
import pytest
from nbgrader.preprocessors import ClearSolutions

BROWSER = ["chromium", "--headless"]

def run(code):
    return subprocess.run(code)

@pytest.fixture
def cleared():
    return ClearSolutions()

def test_direct():
    subprocess.run(["true"])

def test_through_a_helper():
    run("x")

def test_through_a_fixture(cleared):
    pass

def test_a_browser():
    print(BROWSER)

def test_vllm_inside():
    from vllm.benchmarks import serve

def test_pure():
    assert 1 + 1 == 2

@pytest.mark.tooling
def test_marked():
    run("x")
"""
    assert unmarked_reaching(source) == {
        "test_direct": {"subprocess"},
        "test_through_a_helper": {"subprocess"},
        "test_through_a_fixture": {"ClearSolutions"},
        "test_a_browser": {"chromium"},
        "test_vllm_inside": {"vllm"},
    }
    marked = "import pytest\npytestmark = [pytest.mark.engine]\n" + source
    assert unmarked_reaching(marked) == {}


def test_the_tiers_are_declared_markers() -> None:
    pyproject = tomllib.loads((TESTS.parent / "pyproject.toml").read_text(encoding="utf-8"))
    markers = pyproject["tool"]["pytest"]["ini_options"]["markers"]
    assert TIERS <= {line.split(":")[0] for line in markers}
