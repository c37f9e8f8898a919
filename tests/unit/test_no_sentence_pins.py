"""No unit test pins a sentence (issue #53 item 2): a wording test asserts which verdict its
findings reach and which figures the text states, each figure with its unit ("35 → 90 ms",
"2.4× sooner", "1,024 tokens"), never a longer fragment of a generated sentence. A chapter's
whole story is held by its reviewed snapshot (tests/snapshots/, tests/unit/test_story_snapshots.py);
a rewording then changes one snapshot, not dozens of asserts.

Every test file under tests/unit is read with ``ast``, without importing it: an ``assert`` that
compares a string literal by ``in``, ``not in``, ``==`` or ``!=`` (also inside ``all(...)`` and
``any(...)``, and through a ``pytest.mark.parametrize`` argument the comparison names) fails
here when the literal has more than ``MAX_WORDS`` words, a word being a whitespace-separated
token of letters only once its punctuation and Markdown marks are stripped ("ms", "sooner";
not "35", "2.4×" or "max_num_seqs=4"). The tests named below are exempt, each with its reason.

Only the test files that import ``servelab.lessons`` are read: a chapter's story is written there
(its words modules), so a test that reaches no lessons module cannot pin one of its sentences.
Error messages, printed progress and install lines, table labels and alt text are held exactly
where they are tested, as what they are (issue #66 item 4: thirty exemptions for them went).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

UNIT = Path(__file__).parent
STORY = "servelab.lessons"
MOST_EXEMPT = 20  # issue #66 item 4: an exemption list holds at most 20 entries
MAX_WORDS = 3  # "35 → 90 ms", "2.4× sooner", "**4 times**" pass; "makes no case for chunking" not
STRIP = "*`“”\"'()[]{},.;:!?"

FORMATTER = (
    "an exact-output formatter: its whole output is a figure with its unit, or a "
    "table's headers, so the exact string is what it is for"
)
MESSAGE = (
    "an error or validation message quoted to the person who must act on it, held "
    "verbatim: not a chapter's story"
)
INPUT = "the literal is the test's input (a source text, a cell, an import line), not words made"
LABEL = "a table's, axis's or placement's label, the whole label as a formatter gives it"

# "file under tests/unit::test name": why its long literals stay.
EXEMPT = {
    "servelab/lessons/throughput_vs_latency/test_sweep_words.py::"
    "test_held_to_names_the_last_rate_every_run_held_and_the_next": FORMATTER,
    "servelab/lessons/the_dials/test_words.py::"
    "test_times_counts_every_run_a_run_or_once": FORMATTER,
    "servelab/lessons/paged_attention/test_capacity_words.py::"
    "test_the_table_has_one_row_a_plan_and_readable_columns": FORMATTER,
    "servelab/plots/test_comparisons.py::test_chunking_trade_puts_one_point_per_run": LABEL,
    "servelab/test_results.py::"
    "test_a_broken_record_reads_back_as_an_error_with_its_reason": MESSAGE,
    "servelab/lessons/test_guess.py::test_numbers_are_read_with_the_unit_after_them": INPUT,
    "servelab/lessons/test_story.py::"
    "test_a_shown_section_keeps_its_findings_for_the_snapshot": INPUT,
    "test_own_words.py::test_a_copied_run_is_found_and_a_paraphrase_is_not": INPUT,
    "test_own_words.py::test_words_ignore_case_punctuation_numbers_and_code": INPUT,
}


def words(literal: str) -> int:
    """The words of ``literal``: its whitespace-separated tokens that are letters alone once
    punctuation and Markdown marks are stripped from their ends."""
    return sum(1 for token in literal.split() if token.strip(STRIP).isalpha())


def _strings(node: ast.AST) -> Iterator[tuple[int, str]]:
    """Each string literal under ``node``, an f-string's holes read as a number."""
    for child in ast.walk(node):
        if isinstance(child, ast.Constant) and isinstance(child.value, str):
            yield child.lineno, child.value
        elif isinstance(child, ast.JoinedStr):
            yield (
                child.lineno,
                "".join(
                    part.value if isinstance(part, ast.Constant) else " 0 " for part in child.values
                ),
            )


def _parametrized(test: ast.FunctionDef) -> dict[str, list[ast.AST]]:
    """The values each ``pytest.mark.parametrize`` argument of ``test`` takes, by name."""
    values: dict[str, list[ast.AST]] = {}
    for decorator in test.decorator_list:
        if not (
            isinstance(decorator, ast.Call)
            and len(decorator.args) >= 2
            and getattr(decorator.func, "attr", "") == "parametrize"
        ):
            continue
        names_node, cases = decorator.args[0], decorator.args[1]
        if isinstance(names_node, ast.Constant) and isinstance(names_node.value, str):
            names = [name.strip() for name in names_node.value.split(",")]
        elif isinstance(names_node, (ast.Tuple, ast.List)):
            names = [
                element.value for element in names_node.elts if isinstance(element, ast.Constant)
            ]
        else:
            continue
        if not isinstance(cases, (ast.List, ast.Tuple)):
            continue
        for case in cases.elts:
            if isinstance(case, ast.Call):  # pytest.param(...)
                if not case.args:
                    continue
                case = ast.Tuple(elts=list(case.args)) if len(names) > 1 else case.args[0]
            items = [case] if len(names) == 1 else getattr(case, "elts", [])
            for name, item in zip(names, items, strict=False):
                values.setdefault(name, []).append(item)
    return values


def _looped(test: ast.Assert, by_name: dict[str, list[ast.AST]]) -> dict[str, list[ast.AST]]:
    """The names an ``all(...)``/``any(...)`` in ``test`` loops over, each with what it loops
    over (a literal list, or a parametrized argument's values)."""
    looped: dict[str, list[ast.AST]] = {}
    for call in ast.walk(test):
        if not (
            isinstance(call, ast.Call)
            and isinstance(call.func, ast.Name)
            and call.func.id in ("all", "any")
            and call.args
            and isinstance(call.args[0], (ast.GeneratorExp, ast.ListComp, ast.SetComp))
        ):
            continue
        for loop in call.args[0].generators:
            over = [loop.iter]
            if isinstance(loop.iter, ast.Name) and loop.iter.id in by_name:
                over = by_name[loop.iter.id]
            for target in ast.walk(loop.target):
                if isinstance(target, ast.Name):
                    looped.setdefault(target.id, []).extend(over)
    return looped


def pins(test: ast.FunctionDef) -> Iterator[tuple[int, str]]:
    """Each string ``test`` compares by ``in``/``not in``/``==``/``!=`` in an assert, with more
    than ``MAX_WORDS`` words."""
    parametrized = _parametrized(test)
    for node in ast.walk(test):
        if not isinstance(node, ast.Assert):
            continue
        by_name = parametrized | _looped(node, parametrized)
        for compare in ast.walk(node.test):
            if not (
                isinstance(compare, ast.Compare)
                and any(
                    isinstance(op, (ast.In, ast.NotIn, ast.Eq, ast.NotEq)) for op in compare.ops
                )
            ):
                continue
            for side in (compare.left, *compare.comparators):
                found = list(_strings(side))
                for name in ast.walk(side):
                    if isinstance(name, ast.Name) and name.id in by_name:
                        for value in by_name[name.id]:
                            found += list(_strings(value))
                yield from ((line, text) for line, text in found if words(text) > MAX_WORDS)


def reaches_the_story(tree: ast.Module) -> bool:
    """Whether a test module imports ``servelab.lessons``, where the chapters' words are made."""
    return any(
        isinstance(node, ast.ImportFrom)
        and (node.module or "").startswith(STORY)
        or isinstance(node, ast.Import)
        and any(alias.name.startswith(STORY) for alias in node.names)
        for node in ast.walk(tree)
    )


def _tests() -> Iterator[tuple[str, ast.FunctionDef]]:
    for path in sorted(UNIT.rglob("test_*.py")):
        if path == Path(__file__):  # this file's literals are the rule's own examples
            continue
        tree = ast.parse(path.read_text(), filename=str(path))
        if not reaches_the_story(tree):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test"):
                yield f"{path.relative_to(UNIT).as_posix()}::{node.name}", node


def test_no_test_pins_a_sentence_fragment() -> None:
    found = [
        f"{key} (line {line}): {text!r}"
        for key, test in _tests()
        if key not in EXEMPT
        for line, text in pins(test)
    ]
    assert not found, (
        f"{len(found)} assert(s) pin more than {MAX_WORDS} words of generated text: assert the "
        "findings' verdict and the figures the text states instead (the story snapshot holds "
        "the words):\n" + "\n".join(found)
    )


def test_each_exemption_names_a_test_that_still_pins() -> None:
    tests = dict(_tests())
    stale = [key for key in EXEMPT if key not in tests or not any(pins(tests[key]))]
    assert not stale, f"exempt, yet no longer pinning (or gone): {stale}"
    assert len(EXEMPT) <= MOST_EXEMPT, f"{len(EXEMPT)} exemptions: assert verdicts and figures"


def test_the_rule_reads_the_tests_that_reach_a_lessons_module() -> None:
    assert [
        reaches_the_story(ast.parse(source))
        for source in (
            "from servelab.lessons.the_dials.words import dials_text",
            "import servelab.lessons.compare as compare",
            "from servelab.bench import Result",
            "from servelab import lessons_of_another_name",
        )
    ] == [True, True, False, False]


def test_the_rule_counts_words_not_figures() -> None:
    assert words("**35 → 90 ms**") == 1 and words("2.4× sooner") == 1
    assert words("1,024 tokens") == 1 and words("max_num_seqs=4 up to 2 req/s") == 2
    assert words("makes no case for chunking") == 5


def test_the_rule_catches_a_pinned_phrase_in_each_form_it_takes() -> None:
    source = """
import pytest

def test_plain(text):
    assert "makes no case for chunking" in text

def test_inside_all(text):
    assert all(p in text for p in ["a trade for them here"])

@pytest.mark.parametrize(("verdict", "says"), [(1, "the ranges overlap, so it cannot tell")])
def test_through_a_parameter(verdict, says, text):
    assert says in text

def test_figures_pass(text):
    assert "**35 → 90 ms**" in text and "2.4× sooner" in text
"""
    tests = {
        node.name: node for node in ast.walk(ast.parse(source)) if isinstance(node, ast.FunctionDef)
    }
    assert [
        len(list(pins(tests[name])))
        for name in (
            "test_plain",
            "test_inside_all",
            "test_through_a_parameter",
            "test_figures_pass",
        )
    ] == [1, 1, 1, 0]
