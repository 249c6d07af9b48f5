"""One source of truth: generated files are up to date, and solution regions are stripped correctly."""

import json
import os

import nbformat
import pytest

from conftest import ROOT
from course.notebooks import build
from course.notebooks import MarkerError, learner_version, strip_solutions
from grader.paths import REAL_CALLS_PATH

SHARED_REAL_CALLS = os.path.join(ROOT, "..", "shared", "real_calls", "malformed_calls.json")
KIT_REAL_CALLS = REAL_CALLS_PATH


def test_generated_files_are_up_to_date():
    changed, kept = build(check=True)
    assert changed == [], "generated files are stale: run python -m course.build"
    assert kept == [], ("a learner notebook holds work in its exercise cells; these tests check the notebooks as "
                        "shipped, so run them on a clean checkout (git stash) or keep your work in a copy")


def test_build_never_wipes_learner_work(tmp_path, monkeypatch):
    import course.notebooks as notebooks

    learner_dir = tmp_path / "notebooks"
    learner_dir.mkdir()
    monkeypatch.setattr(notebooks, "LEARNER_DIR", str(learner_dir))
    notebooks.build()  # writes fresh learner notebooks into the temporary folder
    path = learner_dir / "05_capstone.ipynb"
    notebook = nbformat.read(path, as_version=4)
    exercise = next(c for c in notebook.cells if c.metadata.get("nbgrader", {}).get("solution"))
    exercise.source += "\n# my work"
    nbformat.write(notebook, path)
    changed, kept = notebooks.build()
    assert kept == [os.path.relpath(path, ROOT)] and "# my work" in path.read_text()
    changed, kept = notebooks.build(force=True)
    assert "# my work" not in path.read_text()


def test_strip_solutions_uses_the_stub_or_nbgraders_default():
    source = "import json\n\ndef f():\n    ### BEGIN SOLUTION\n    return 42\n    ### END SOLUTION\n"
    assert strip_solutions(source) == "import json\n\ndef f():\n    # YOUR CODE HERE\n    raise NotImplementedError()"
    assert strip_solutions(source, stub="    ...") == "import json\n\ndef f():\n    ..."


def test_hidden_tests_are_removed_from_the_learner_version():
    source = "x = check()\n### BEGIN HIDDEN TESTS\nassert x\n### END HIDDEN TESTS"
    assert strip_solutions(source) == "x = check()"


@pytest.mark.parametrize("source, message", [
    ("### BEGIN SOLUTION\nx = 1", "never closed"),
    ("x = 1\n### END SOLUTION", "without"),
    ("### BEGIN SOLUTION\n### BEGIN SOLUTION\n### END SOLUTION", "inside another"),
])
def test_malformed_regions_are_errors(source, message):
    with pytest.raises(MarkerError, match=message):
        strip_solutions(source)


def test_learner_notebook_has_no_solution_and_no_outputs():
    learner = nbformat.read(os.path.join(ROOT, "notebooks", "05_capstone.ipynb"), as_version=4)
    solved = nbformat.read(os.path.join(ROOT, "solutions", "notebooks", "05_capstone.ipynb"), as_version=4)
    text = nbformat.writes(learner)
    assert "### BEGIN SOLUTION" not in text and "def run_tool_call" not in text
    assert "def run_tool_call" in nbformat.writes(solved)
    for cell in learner.cells:
        assert "kit" not in cell.metadata or set(cell.metadata["kit"]) == {"stub_sha256"}
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None
    ids = [c.metadata["nbgrader"]["grade_id"] for c in learner.cells]
    assert len(ids) == len(set(ids)), "nbgrader grade_ids must be unique"
    exercise = [c for c in learner.cells if c.metadata["nbgrader"]["solution"]]
    assert len(exercise) == 1 and "def handle_tool_call(raw: str, ask_model) -> dict:" in exercise[0].source
    position = learner.cells.index(exercise[0])
    assert learner_version(solved, "x").cells[position].source == exercise[0].source


def test_russian_original_is_kept_beside_the_english():
    learner = nbformat.read(os.path.join(ROOT, "notebooks", "05_capstone.ipynb"), as_version=4)
    text = "\n".join(c.source for c in learner.cells)
    assert "Проверьте сырой вызов инструмента от модели по схеме" in text
    assert "The tool name must be registered" in text


@pytest.mark.skipif(not os.path.exists(SHARED_REAL_CALLS), reason="shared/real_calls is not beside this checkout")
def test_real_calls_copy_matches_shared():
    with open(SHARED_REAL_CALLS, encoding="utf-8") as a, open(KIT_REAL_CALLS, encoding="utf-8") as b:
        assert json.load(a) == json.load(b)
