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
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

UNIT = Path(__file__).parent
MAX_WORDS = 3  # "35 → 90 ms", "2.4× sooner", "**4 times**" pass; "makes no case for chunking" not
STRIP = "*`“”\"'()[]{},.;:!?"

FORMATTER = ("an exact-output formatter: its whole output is a figure with its unit, or a "
             "table's headers, so the exact string is what it is for")
MESSAGE = ("an error or validation message quoted to the person who must act on it, held "
           "verbatim: not a chapter's story")
INPUT = "the literal is the test's input (a source text, a cell, an import line), not words made"
PRINTED = "a progress, log or install line a tool prints, held as printed: not a chapter's story"
LABEL = "a table's, axis's or placement's label, the whole label as a formatter gives it"
ALT = ("a figure's alt text, whose order and words are what a screen reader reads "
       "(servelab.plots.alt): held exactly, as a formatter's output is")
SUMMARY = "a record's one-line summary (its __str__), the record's own format: held exactly"

# "file under tests/unit::test name": why its long literals stay.
EXEMPT = {
    "servelab/lessons/throughput_vs_latency/test_sweep_words.py::"
    "test_held_to_names_the_last_rate_every_run_held_and_the_next": FORMATTER,
    "servelab/lessons/the_dials/test_words.py::"
    "test_times_counts_every_run_a_run_or_once": FORMATTER,
    "servelab/lessons/paged_attention/test_capacity_words.py::"
    "test_the_table_has_one_row_a_plan_and_readable_columns": FORMATTER,
    "servelab/bench/test_prefill.py::test_the_prefill_rate_leaves_the_fixed_cost_per_request_out":
        FORMATTER,
    "servelab/bench/test_spread.py::test_a_spread_is_the_median_and_range_of_what_was_measured":
        FORMATTER,
    "servelab/test_tables.py::test_a_latency_key_reads_as_its_family_statistic_and_unit": LABEL,
    "servelab/plots/test_comparisons.py::test_chunking_trade_puts_one_point_per_run": LABEL,
    "servelab/engines/test_placement.py::"
    "test_side_by_side_splits_cores_and_cache_or_refuses_one_core": LABEL,
    "servelab/engines/test_placement.py::test_two_gpus_give_each_half_its_own_gpu_and_label_it":
        LABEL,
    "autograder/test_answer.py::test_anything_else_stays_bad_answer": MESSAGE,
    "autograder/test_answer.py::"
    "test_the_reason_shows_the_code_that_was_not_run_the_cell_only_its_numbers": MESSAGE,
    "autograder/test_intake.py::"
    "test_zip_timestamps_never_decide_and_paths_inside_never_name_the_student": MESSAGE,
    "course/checks/test_load.py::test_lesson_import_errors": MESSAGE,
    "course/checks/test_load.py::test_yaml_errors_say_what_is_wrong": MESSAGE,
    "servelab/bench/test_client.py::test_stream_of_only_a_closing_chunk_is_an_error": MESSAGE,
    "servelab/test_results.py::test_a_broken_record_reads_back_as_an_error_with_its_reason":
        MESSAGE,
    "course/checks/test_cells.py::test_cells_follow_the_contract": INPUT,
    "servelab/lessons/test_guess.py::test_numbers_are_read_with_the_unit_after_them": INPUT,
    "servelab/lessons/test_story.py::test_a_shown_section_keeps_its_findings_for_the_snapshot":
        INPUT,
    "course/checks/test_load.py::test_yaml_loads_with_the_right_letter": INPUT,
    "servelab/test_bench.py::test_plots_draw_from_a_result": INPUT,
    "test_import_layers.py::test_only_the_top_layer_imports_the_package_itself": INPUT,
    "test_chapter_lists.py::test_the_readers_find_a_missing_chapter": INPUT,
    "test_own_words.py::test_a_copied_run_is_found_and_a_paraphrase_is_not": INPUT,
    "test_own_words.py::test_words_ignore_case_punctuation_numbers_and_code": INPUT,
    "course/checks/test_notebook.py::test_write_checks_command_covers_the_chapters_that_exist":
        PRINTED,
    "servelab/bench/test_in_turn.py::test_kept_up_each_server_starts_once_and_they_take_turns":
        PRINTED,
    "servelab/bench/test_runner.py::test_a_run_without_a_bar_ends_on_the_line_a_bar_would_show":
        PRINTED,
    "servelab/test_progress.py::test_a_wait_without_a_bar_ends_on_one_line": PRINTED,
    "servelab/env/test_install.py::test_another_version_of_the_engine_is_replaced_by_the_pin":
        PRINTED,
    "servelab/env/test_installers.py::test_pip_noise_is_dropped": PRINTED,
    "servelab/env/test_installers.py::"
    "test_the_gpu_engine_goes_through_uv_and_falls_back_to_pip": PRINTED,
    "servelab/env/test_install.py::test_the_install_says_which_installer_took_how_long": PRINTED,
    "servelab/engines/test_vllm_server.py::test_capacity_is_parsed_from_the_engine_log": SUMMARY,
    "servelab/plots/test_alt.py::"
    "test_a_lone_panel_takes_its_title_as_the_heading_and_a_twin_axis_joins_it": ALT,
    "servelab/plots/test_alt.py::test_a_notebook_shows_a_figure_as_one_html_output_with_its_alt":
        ALT,
    "servelab/plots/test_alt.py::test_alt_text_names_the_finding_each_panel_its_axes_and_series":
        ALT,
    "servelab/plots/test_alt.py::test_html_carries_the_alt_escaped_and_one_copy_of_the_image":
        ALT,
    "servelab/plots/test_alt.py::test_series_every_panel_draws_are_named_once_in_the_key": ALT,
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
            yield child.lineno, "".join(
                part.value if isinstance(part, ast.Constant) else " 0 " for part in child.values)


def _parametrized(test: ast.FunctionDef) -> dict[str, list[ast.AST]]:
    """The values each ``pytest.mark.parametrize`` argument of ``test`` takes, by name."""
    values: dict[str, list[ast.AST]] = {}
    for decorator in test.decorator_list:
        if not (isinstance(decorator, ast.Call) and len(decorator.args) >= 2
                and getattr(decorator.func, "attr", "") == "parametrize"):
            continue
        names_node, cases = decorator.args[0], decorator.args[1]
        if isinstance(names_node, ast.Constant) and isinstance(names_node.value, str):
            names = [name.strip() for name in names_node.value.split(",")]
        elif isinstance(names_node, (ast.Tuple, ast.List)):
            names = [element.value for element in names_node.elts
                     if isinstance(element, ast.Constant)]
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
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name)
                and call.func.id in ("all", "any") and call.args
                and isinstance(call.args[0], (ast.GeneratorExp, ast.ListComp, ast.SetComp))):
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
            if not (isinstance(compare, ast.Compare) and any(
                    isinstance(op, (ast.In, ast.NotIn, ast.Eq, ast.NotEq)) for op in compare.ops)):
                continue
            for side in (compare.left, *compare.comparators):
                found = list(_strings(side))
                for name in ast.walk(side):
                    if isinstance(name, ast.Name) and name.id in by_name:
                        for value in by_name[name.id]:
                            found += list(_strings(value))
                yield from ((line, text) for line, text in found if words(text) > MAX_WORDS)


def _tests() -> Iterator[tuple[str, ast.FunctionDef]]:
    for path in sorted(UNIT.rglob("test_*.py")):
        if path == Path(__file__):  # this file's literals are the rule's own examples
            continue
        tree = ast.parse(path.read_text(), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test"):
                yield f"{path.relative_to(UNIT).as_posix()}::{node.name}", node


def test_no_test_pins_a_sentence_fragment() -> None:
    found = [f"{key} (line {line}): {text!r}" for key, test in _tests() if key not in EXEMPT
             for line, text in pins(test)]
    assert not found, (
        f"{len(found)} assert(s) pin more than {MAX_WORDS} words of generated text: assert the "
        "findings' verdict and the figures the text states instead (the story snapshot holds "
        "the words):\n" + "\n".join(found))


def test_each_exemption_names_a_test_that_still_pins() -> None:
    tests = dict(_tests())
    stale = [key for key in EXEMPT if key not in tests or not any(pins(tests[key]))]
    assert not stale, f"exempt, yet no longer pinning (or gone): {stale}"


def test_the_rule_counts_words_not_figures() -> None:
    assert words("**35 → 90 ms**") == 1 and words("2.4× sooner") == 1
    assert words("1,024 tokens") == 1 and words("max_num_seqs=4 up to 2 req/s") == 2
    assert words("makes no case for chunking") == 5


def test_the_rule_catches_a_pinned_phrase_in_each_form_it_takes() -> None:
    source = '''
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
'''
    tests = {node.name: node for node in ast.walk(ast.parse(source))
             if isinstance(node, ast.FunctionDef)}
    assert [len(list(pins(tests[name]))) for name in
            ("test_plain", "test_inside_all", "test_through_a_parameter", "test_figures_pass")] \
        == [1, 1, 1, 0]
