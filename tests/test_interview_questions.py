"""Issue 27: every notebook ends with 3 to 5 interview questions, and each has its model answer, numbered alike."""

import os
import re

import nbformat
import pytest

from grader.paths import ANSWERS_DIR, NOTEBOOKS_DIR, SOLVED_NOTEBOOKS_DIR

NOTEBOOKS = sorted(name for name in os.listdir(SOLVED_NOTEBOOKS_DIR) if name.endswith(".ipynb"))
HEADING = "## Interview questions"


def numbered(text):
    """The numbers of a Markdown text's top-level numbered items, in order (list of int)."""
    return [int(number) for number in re.findall(r"^(\d+)\. ", text, re.MULTILINE)]


def questions_cell(folder, name):
    """The source of notebook ``name``'s interview cell in ``folder`` (str); fails when there is not exactly one."""
    cells = [cell for cell in nbformat.read(os.path.join(folder, name), as_version=4).cells
             if cell.cell_type == "markdown" and cell.source.startswith(HEADING)]
    assert len(cells) == 1, f"{name}: {len(cells)} cells start with {HEADING!r}"
    return cells[0].source


def test_every_notebook_is_listed():
    assert len(NOTEBOOKS) >= 8 and NOTEBOOKS[0] == "00_start_here.ipynb"


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_three_to_five_questions_each_with_its_model_answer(name):
    source = questions_cell(SOLVED_NOTEBOOKS_DIR, name)
    questions = numbered(source)
    assert 3 <= len(questions) <= 5, f"{name}: {len(questions)} interview questions"
    assert questions == list(range(1, len(questions) + 1))
    stem = name[:-len(".ipynb")]
    assert f"`solutions/answers/{stem}.md`" in source and f"`answers/{stem}.md`" in source
    with open(os.path.join(ANSWERS_DIR, stem + ".md"), encoding="utf-8") as handle:
        answers = handle.read()
    assert numbered(answers) == questions, f"{stem}.md answers {numbered(answers)}, the notebook asks {questions}"
    # Each answer leads with its point in bold, as a reader skimming for the one they missed expects.
    bold = re.findall(r"^\d+\. \*\*[^*]+\*\*", answers, re.MULTILINE)
    assert len(bold) == len(questions)


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_the_learner_notebook_asks_the_same_questions(name):
    assert questions_cell(NOTEBOOKS_DIR, name) == questions_cell(SOLVED_NOTEBOOKS_DIR, name)
