"""Feedback pages are rendered with nbconvert's HTML sanitiser on (issue 27, part B): a second
layer behind FeedbackOnly, which already keeps only text outputs and the check cells."""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest
from nbconvert.exporters import HTMLExporter
from nbgrader.converters import GenerateFeedback
from traitlets.config.loader import PyFileConfigLoader

from autograder import synthetic
from autograder.course import ScratchCourse
from course.nbgrader_cli import CONFIG_NAME

pytestmark = pytest.mark.tooling  # nbgrader: a scratch course and its feedback converter

SCRIPT = "alert('pwned')"


def _hostile() -> nbformat.NotebookNode:
    """What FeedbackOnly would never let through: markup and rich outputs from a submission."""
    output = nbformat.v4.new_output(
        "display_data",
        data={"text/html": f'<script>{SCRIPT}</script><img src=x onerror="{SCRIPT}">'},
    )
    code = nbformat.v4.new_code_cell("1", outputs=[output])
    markdown = nbformat.v4.new_markdown_cell(f"<script>{SCRIPT}</script>**bold**")
    return nbformat.v4.new_notebook(cells=[markdown, code])


def _feedback_html(config) -> str:
    """A page rendered with `config` and the classic template nbgrader's feedback template
    extends (where the sanitiser is applied to markdown and outputs)."""
    assert (
        "classic"
        in (
            Path(GenerateFeedback(config=config).config.HTMLExporter.extra_template_basedirs[0])
            / "feedback"
            / "index.html.j2"
        ).read_text()
    )
    return HTMLExporter(config=config, template_name="classic").from_notebook_node(_hostile())[0]


def test_the_feedback_exporter_sanitises_html(tmp_path):
    course = synthetic.write_course(tmp_path / "course", ("02-continuous-batching",))
    scratch = ScratchCourse(course, tmp_path / "scratch")
    scratch.prepare()
    config = PyFileConfigLoader(CONFIG_NAME, path=str(scratch.root)).load_config()
    assert config.HTMLExporter.sanitize_html is True
    html = _feedback_html(config)
    assert "bold" in html
    assert not re.search(r"<script>alert|<img[^>]*onerror", html)
    config.HTMLExporter.sanitize_html = False  # the same page without the sanitiser
    assert re.search(r"<script>alert", _feedback_html(config))
