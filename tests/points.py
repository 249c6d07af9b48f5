"""Points available per exercise: a versioned table the tests compare with, checked against the grader.

The totals used to be read from the grader under test, so tests using them compared the grader with itself.
``MAXIMA`` is written here instead; ``tests/test_golden.py::test_the_maxima_table_is_what_the_grader_counts``
grades each exercise's solved notebook and fails, naming the exercise, when a case added or removed changes a
total: then update the table (and ``MAXIMA_VERSION``) in the same commit as the cases.
"""

import os

from grader.paths import KIT_ROOT

ROOT = KIT_ROOT  # the repository (grader.paths knows where it is)

# The kit's version when the table was last changed, and each exercise's points (its cases' max_score summed).
MAXIMA_VERSION = "2.0.0"
MAXIMA = {
    "tool-result": 9.0,
    "parse-call": 48.0,
    "validate-call": 60.0,
    "observe": 35.0,
    "retry-loop": 133.0,
    "capstone": 133.0,
    "json-schema": 56.0,
    "adapters": 32.0,
    "turn": 31.0,
    "stream": 26.0,
    "loop": 40.0,
    "authorise": 38.0,
}


# How many cases the capstone grades (visible and hidden; some are worth 2 points), for tests that count them.
CASE_COUNTS = {"capstone": 128}


def case_count(exercise_id):
    """The number of cases one exercise grades (int), from ``CASE_COUNTS``; KeyError for an exercise not in it."""
    return CASE_COUNTS[exercise_id]


def available(exercise_id):
    """The points available in one exercise (float), from ``MAXIMA``; KeyError for an exercise not in it."""
    return MAXIMA[exercise_id]


def shown(value):
    """A score as the gradebook and the text report write it: ``129`` for 129.0, else ``12.5`` (str)."""
    return f"{value:g}"


def golden(name):
    """``(score, max_score)`` of a golden example's expected results.json (floats): what grading it must give."""
    import json

    with open(os.path.join(ROOT, "tests", "golden", name, "expected_results.json"), encoding="utf-8") as handle:
        data = json.load(handle)
    return data["score"], sum(test["max_score"] for test in data["tests"])
