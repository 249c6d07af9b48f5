"""Points available per exercise, read from the grader itself, so tests follow the case files.

Hard-coded totals (116, then 129...) had to be edited in a dozen tests whenever a hidden case was added; the
golden examples (``tests/test_golden.py``) are what pins the exact figures. ``available(id)`` grades the
exercise's solved notebook once per test process and returns its maximum (float).
"""

import functools
import os

from grader.paths import KIT_ROOT

ROOT = KIT_ROOT  # the repository (grader.paths knows where it is)


@functools.lru_cache(maxsize=None)
def available(exercise_id):
    """The points available in one exercise (float), from grading its solved notebook with the kit's grader."""
    from grader.intake.exercises import BY_ID
    from grader.pipeline import grade

    notebook = os.path.join(ROOT, "solutions", "notebooks", BY_ID[exercise_id].notebook)
    result = grade(notebook, exercise_ids=[exercise_id])
    assert result.max_score > 0 and not result.error, f"grading the solved {exercise_id} failed: {result.error}"
    return result.max_score


def shown(value):
    """A score as the gradebook and the text report write it: ``129`` for 129.0, else ``12.5`` (str)."""
    return f"{value:g}"


def golden(name):
    """``(score, max_score)`` of a golden example's expected results.json (floats): what grading it must give."""
    import json

    with open(os.path.join(ROOT, "tests", "golden", name, "expected_results.json"), encoding="utf-8") as handle:
        data = json.load(handle)
    return data["score"], sum(test["max_score"] for test in data["tests"])
