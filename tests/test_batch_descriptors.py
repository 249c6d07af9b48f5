"""A grading process keeps no file descriptors between students.

Found grading a synthetic class of 136 with ``--notebooks all``: each student's missing exercises leaked
pipes, until every worker's start failed at its descriptor limit (RLIMIT_NOFILE is 64 in the worker)
and 130 students got zero with "could not start the process". These tests count this process's open
descriptors (Linux's /proc/self/fd) around the steps a batch process repeats per student.
"""

import os
import subprocess

import pytest

from grader.classroom.batch import grade_student, missing_exercises
from grader.intake.exercises import EXERCISES
from grader.isolation.limits import Limits
from grader.isolation.sandbox import Sandbox
from grader.results.grade_result import GradeResult
from conftest import ROOT

pytestmark = pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="counts descriptors in /proc/self/fd (Linux)")
ALL = [e.id for e in EXERCISES]


def open_descriptors():
    """How many file descriptors this process holds (int)."""
    return len(os.listdir("/proc/self/fd"))


def test_filling_in_missing_exercises_opens_nothing_and_says_why():
    """Every case of an exercise no file defines fails with the sentence naming the function, and no
    worker is started for it (so nothing can leak)."""
    before = open_descriptors()
    for _ in range(3):
        result = GradeResult(submission="s.py")
        added = missing_exercises(result, ALL, "none of the files handed in")
    assert open_descriptors() == before
    assert set(added) == set(ALL)
    capstone = [c for c in result.cases if c.exercise_id == "capstone"]
    assert capstone and all(c.feedback == "Not graded: " + added["capstone"] + "." for c in capstone
                            if c.visibility == "hidden")
    assert not any(c.passed for c in result.cases)


def test_a_worker_that_fails_to_start_leaves_no_pipe_open(monkeypatch):
    """When the worker's process cannot be started, the grader's ends of its pipes are closed too."""
    def refuse(*args, **kwargs):
        raise subprocess.SubprocessError("Exception occurred in preexec_fn.")

    sandbox = Sandbox(Limits())
    try:
        sandbox.close()  # nothing started yet; only the scratch folder existed
        before = open_descriptors()
        monkeypatch.setattr(subprocess, "Popen", refuse)
        for _ in range(5):
            sandbox = Sandbox(Limits())
            with pytest.raises(subprocess.SubprocessError):
                sandbox._spawn()
            sandbox.close()
        assert open_descriptors() == before
    finally:
        sandbox.close()


def test_a_grading_process_holds_no_more_descriptors_after_each_student(tmp_path):
    """Five students graded on the whole course in one process: the count after the first is the count
    after the last (a leak of even two per student reached the worker's limit within a class)."""
    base = os.path.join(ROOT, "tests", "faulty", "base.py")
    for folder in ("results", "feedback"):
        os.makedirs(tmp_path / folder)
    counts = []
    for number in range(5):
        summary = grade_student(f"s{number}", [base], [], str(tmp_path), Limits(), ALL, {})
        counts.append(open_descriptors())
        assert summary["exercises"]["capstone"][0] == summary["exercises"]["capstone"][1], summary["errors"]
    assert counts[-1] == counts[0], counts
