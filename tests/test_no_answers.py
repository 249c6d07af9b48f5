"""Issue 11: no answers anywhere a learner looks, and none in what the instructor uploads.

Every code cell of every learner notebook (the committed ones and those a fresh student release writes), and every
Python file of a Gradescope bundle for the whole course, is graded as a submission for every exercise: each earns
zero hidden points. Before issue 11, notebook 3's given cell scored full marks on exercises 1 and 2.
"""

import os
import subprocess
import sys
import zipfile

import nbformat
import pytest
from conftest import ROOT

from grader.intake.exercises import EXERCISES

pytestmark = pytest.mark.slow  # about a hundred submissions, each graded for all eight exercises



def exercises_it_names(source):
    """The exercises whose functions ``source`` names (list of ids): the only ones it could earn points in.

    The grader calls an exercise's functions by name from the loaded submission, so a file in which none of
    the names occurs binds none of them (the kit's own files build no names from pieces). Grading each file for
    these alone, not all eight, keeps every file under test at a fraction of the time.
    """
    return [e.id for e in EXERCISES if any(function in source for function in e.functions)]


def hidden_points(sources, tmp_path):
    """``{label: (hidden points, first cases that earned them)}`` for each of ``sources`` (``{label: source}``)
    graded as a submission for every exercise it names, ahead of the tests (``tests/graded.py``); a source naming
    none earns ``(0, [])`` ungraded."""
    from graded import grade_ahead, graded

    todo, earned = {}, {}
    for number, (label, source) in enumerate(sources.items()):
        named = exercises_it_names(source)
        if not named:
            earned[label] = (0, [])
            continue
        path = tmp_path / f"submission{number}.py"
        path.write_text(source, encoding="utf-8")
        todo[label] = (path, tuple(option for exercise in named for option in ("--exercise", exercise)))
    assert len(todo) >= 10  # the exercise cells and stubs, the grader's harness and cases name the functions
    grade_ahead(list(todo.values()))
    for label, (path, options) in todo.items():
        outcome, results = graded(path, *options)
        assert len({t["extra_data"]["exercise"] for t in results["tests"]}) == len(options) // 2, outcome.stderr
        cases = [t for t in results["tests"] if "hidden" in t["tags"] and t["score"] > 0]
        earned[label] = (sum(t["score"] for t in cases), [t["name"] for t in cases[:3]])
    return earned


def test_a_file_is_graded_for_each_exercise_whose_function_it_names():
    assert exercises_it_names("def parse_call(raw):\n    return raw_call_from_anthropic(raw)\n") == [
        "parse-call", "adapters"]
    assert exercises_it_names("import json\n") == []


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


@pytest.fixture
def release_folder(student_release):
    """The session's student release (tests/conftest.py)."""
    return student_release


def test_no_code_cell_of_a_learner_notebook_or_the_release_earns_hidden_points(tmp_path, release_folder):
    cells = code_cells(os.path.join(ROOT, "notebooks"))
    for source, where in code_cells(release_folder / "notebooks").items():
        cells.setdefault(source, "release/" + where)
    assert len(cells) >= 30  # every notebook's set-up, exercise, self-check, hint and playground cells
    earned = hidden_points({where: source for source, where in cells.items()}, tmp_path)
    assert len(earned) == len(cells)
    assert {where: found for where, found in earned.items() if found[0]} == {}


def test_no_python_file_of_a_gradescope_bundle_earns_hidden_points(tmp_path):
    bundle = tmp_path / "autograder.zip"
    process = subprocess.run([sys.executable, "-m", "grader.gradescope", str(bundle), "--notebooks", "00-09"], cwd=ROOT,
                             capture_output=True, text=True)
    assert process.returncode == 0, process.stderr
    with zipfile.ZipFile(bundle) as archive:
        files = {name: archive.read(name).decode("utf-8") for name in archive.namelist() if name.endswith(".py")}
    assert "grader/judging/harness.py" in files and "solutions/schema.py" in files  # the grader, and the trusted steps 1-3
    earned = hidden_points(dict(sorted(files.items())), tmp_path)
    assert len(earned) == len(files) >= 50
    assert {name: found for name, found in earned.items() if found[0]} == {}


def test_no_python_file_of_a_prairielearn_question_earns_hidden_points(tmp_path):
    """Issue 28: what the PrairieLearn question adds to the grader the Gradescope bundle already carries (the editors'
    starting code, the packages in serverFilesCourse) holds no answer either."""
    process = subprocess.run([sys.executable, "-m", "grader.prairielearn", str(tmp_path / "course"), "--notebooks",
                              "00-09", "--input", "editor", "--qid", "all"], cwd=ROOT, capture_output=True, text=True)
    assert process.returncode == 0, process.stderr
    files = {}
    for base, _, names in os.walk(tmp_path / "course"):
        for name in names:
            relative = os.path.relpath(os.path.join(base, name), tmp_path / "course")
            if name.endswith(".py") and not relative.startswith(("questions/all/tests/grader/", "questions/all/tests/solutions/")):
                with open(os.path.join(base, name), encoding="utf-8") as handle:
                    files[relative] = handle.read()
    assert len([name for name in files if name.startswith("questions/all/initial_code/")]) == len(EXERCISES)
    earned = hidden_points(dict(sorted(files.items())), tmp_path)
    assert {name: found for name, found in earned.items() if found[0]} == {}
