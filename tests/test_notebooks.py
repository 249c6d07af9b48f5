"""The capstone notebook, executed top to bottom as a learner would (nbclient), in both versions.

nbval (configured in pytest.ini) also runs every learner notebook and fails on any error; these
tests add what nbval's lax mode does not check: what the self-check and grader cells print.
"""

import os

import nbformat
import pytest
from nbclient import NotebookClient

from conftest import ROOT


def run_notebook(path):
    notebook = nbformat.read(path, as_version=4)
    NotebookClient(notebook, timeout=120, kernel_name="python3",
                   resources={"metadata": {"path": os.path.dirname(path)}}).execute()
    return notebook


def cell_text(notebook, grade_id):
    cell = next(c for c in notebook.cells if c.metadata.get("nbgrader", {}).get("grade_id") == grade_id)
    parts = []
    for output in cell.outputs:
        assert output.output_type != "error", f"{grade_id} raised: {output.get('ename')}: {output.get('evalue')}"
        parts.append(output.get("text", "") or output.get("data", {}).get("text/plain", ""))
    return "".join(parts)


@pytest.fixture(scope="module")
def solved():
    return run_notebook(os.path.join(ROOT, "solutions", "notebooks", "05_capstone.ipynb"))


@pytest.fixture(scope="module")
def learner():
    return run_notebook(os.path.join(ROOT, "notebooks", "05_capstone.ipynb"))


def test_solved_notebook_passes_its_self_check_and_the_grader(solved):
    assert "All 6 visible checks passed" in cell_text(solved, "selfcheck")
    assert "Score: 115 / 115" in cell_text(solved, "run-grader")
    assert "Result: {'status': 'dispatched', 'name': 'get_weather', 'arguments': {'city': 'Paris'}}" in cell_text(solved, "try")


def test_shipped_stub_fails_politely(learner):
    assert "0 of 6 visible checks passed" in cell_text(learner, "selfcheck")
    assert "Score: 0 / 115" in cell_text(learner, "run-grader")
    assert "Result: None" in cell_text(learner, "try")
