"""Golden examples: each submission in tests/golden/ is graded and compared with its expected results.json.

Timings are normalised. To accept a deliberate change in the grader's output, run
``KIT_UPDATE_GOLDEN=1 python -m pytest tests/test_golden.py`` and review the diff before committing.
"""

import json
import os

import pytest

from conftest import ROOT
from course.assemble import seed_form

GOLDEN = os.path.join(ROOT, "tests", "golden")
# name -> the submission it grades (most live beside their expected results; the stub is the shipped notebook).
SUBMISSIONS = {
    "reference_seed_form": None,  # generated from the solutions package at test time (see reference_submission)
    "seed_sample": os.path.join(GOLDEN, "seed_sample", "submission.py"),
    "stub_notebook": os.path.join(ROOT, "notebooks", "05_capstone.ipynb"),
    "broken_notebook": os.path.join(GOLDEN, "broken_notebook", "submission.ipynb"),
    "syntax_error_cell": os.path.join(GOLDEN, "syntax_error_cell", "submission.ipynb"),
    "exits_while_loading": os.path.join(GOLDEN, "exits_while_loading", "submission.py"),
}


def normalise(results):
    """Drop what legitimately varies between runs: the execution time, and the grader's fingerprint (it
    changes with every edit of the grader; the version stays, so a release is visible in the diff)."""
    results = dict(results)
    results["execution_time"] = 0
    results["extra_data"] = {**results["extra_data"], "grader_fingerprint": "(any)"}
    return results


def reference_submission(folder):
    """The reference package assembled into the seed's form, written to ``folder/submission.py``."""
    path = folder / "submission.py"
    path.write_text(seed_form(), encoding="utf-8")
    return path


@pytest.mark.parametrize("name", sorted(SUBMISSIONS))
def test_golden_results(grade, tmp_path, name):
    process, results = grade(SUBMISSIONS[name] or reference_submission(tmp_path))
    assert "Traceback" not in process.stdout + process.stderr
    expected_path = os.path.join(GOLDEN, name, "expected_results.json")
    if os.environ.get("KIT_UPDATE_GOLDEN"):
        with open(expected_path, "w", encoding="utf-8") as handle:
            json.dump(normalise(results), handle, indent=2, ensure_ascii=False)
            handle.write("\n")
    with open(expected_path, encoding="utf-8") as handle:
        expected = json.load(handle)
    assert normalise(results) == expected


def test_golden_scores_are_what_the_issue_promises():
    def score(name):
        with open(os.path.join(GOLDEN, name, "expected_results.json"), encoding="utf-8") as handle:
            data = json.load(handle)
        return data["score"], sum(t["max_score"] for t in data["tests"])

    earned, total = score("reference_seed_form")
    assert earned == total > 100
    assert score("stub_notebook")[0] == 0
    assert score("broken_notebook")[0] == 0
    assert score("exits_while_loading")[0] == 0
    assert score("syntax_error_cell") == (total, total)  # the broken cell is skipped, the rest is graded
    assert 0 < score("seed_sample")[0] < total
