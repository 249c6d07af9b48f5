"""Issue 11: no answers anywhere a learner looks, and none in what the instructor uploads.

Every code cell of every learner notebook (the committed ones and those a fresh student release writes), and every
Python file of a Gradescope bundle for the whole course, is graded as a submission for every exercise: each earns
zero hidden points. Before issue 11, notebook 3's given cell scored full marks on exercises 1 and 2.
"""

import json
import os
import subprocess
import sys
import zipfile

import nbformat
import pytest

from conftest import ROOT
from grader.intake.exercises import EXERCISES

ALL_EXERCISES = [option for e in EXERCISES for option in ("--exercise", e.id)]


def hidden_points(source, tmp_path, label):
    """The hidden points ``source`` earns as a submission for every exercise (float), and the cases that earned them."""
    submission = tmp_path / f"{label}.py"
    submission.write_text(source, encoding="utf-8")
    results_path = tmp_path / f"{label}.json"
    process = subprocess.run([sys.executable, "-m", "grader", str(submission), *ALL_EXERCISES, "--results", str(results_path)],
                             cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert results_path.exists(), process.stderr
    results = json.loads(results_path.read_text(encoding="utf-8"))
    earned = [t for t in results["tests"] if "hidden" in t["tags"] and t["score"] > 0]
    return sum(t["score"] for t in earned), [t["name"] for t in earned[:3]]


def code_cells(folder):
    """``{source: "notebook#index"}`` for every code cell of the notebooks in ``folder``."""
    cells = {}
    for name in sorted(os.listdir(folder)):
        if name.endswith(".ipynb"):
            notebook = nbformat.read(os.path.join(folder, name), as_version=4)
            for index, cell in enumerate(notebook.cells):
                if cell.cell_type == "code" and cell.source.strip():
                    cells.setdefault(cell.source, f"{name}#{index}")
    return cells


@pytest.fixture(scope="module")
def release_folder(tmp_path_factory):
    from course.release import build_release

    destination = tmp_path_factory.mktemp("release") / "course"
    build_release(str(destination))
    return destination


def test_no_code_cell_of_a_learner_notebook_or_the_release_earns_hidden_points(tmp_path, release_folder):
    cells = code_cells(os.path.join(ROOT, "notebooks"))
    for source, where in code_cells(release_folder / "notebooks").items():
        cells.setdefault(source, "release/" + where)
    assert len(cells) >= 30  # every notebook's set-up, exercise, self-check, hint and playground cells
    offenders = {}
    for number, (source, where) in enumerate(cells.items()):
        points, cases = hidden_points(source, tmp_path, f"cell{number}")
        if points:
            offenders[where] = (points, cases)
    assert offenders == {}


def test_no_python_file_of_a_gradescope_bundle_earns_hidden_points(tmp_path):
    bundle = tmp_path / "autograder.zip"
    process = subprocess.run([sys.executable, "-m", "grader.gradescope", str(bundle), "--notebooks", "00-06"], cwd=ROOT,
                             capture_output=True, text=True)
    assert process.returncode == 0, process.stderr
    with zipfile.ZipFile(bundle) as archive:
        files = {name: archive.read(name).decode("utf-8") for name in archive.namelist() if name.endswith(".py")}
    assert "grader/judging/harness.py" in files and "solutions/schema.py" in files  # the grader, and the trusted steps 1-3
    offenders = {}
    for number, (name, source) in enumerate(sorted(files.items())):
        points, cases = hidden_points(source, tmp_path, f"file{number}")
        if points:
            offenders[name] = (points, cases)
    assert offenders == {}
