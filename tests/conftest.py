"""Shared helpers for the kit's own tests: run the grader as a learner would, in a subprocess."""

import json
import os
import subprocess
import sys

import pytest

from grader.paths import KIT_ROOT

# Golden submissions are graded by tests, never executed as notebooks by nbval.
collect_ignore_glob = ["golden/*", "faulty/*", "hostile/*", "attacks/*"]

ROOT = KIT_ROOT  # the repository (grader.paths knows where it is)


def run_grader(submission, *options, results=None, timeout=300, env=None):
    """Run ``python -m grader SUBMISSION [options]`` from the repository root.

    Args:
        submission: path of the file to grade (str or path-like).
        options: extra command-line options (str).
        results: where to write results.json (path-like), or None.
        timeout: seconds before the test gives up on the grader (float).
        env: variables to set for the grader on top of this process's (dict) or None.
    Returns:
        ``(completed_process, results_dict_or_None)``.
    """
    command = [sys.executable, "-m", "grader", os.fspath(submission), *options]
    if results is not None:
        command += ["--results", os.fspath(results)]
    process = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=timeout,
                             env={**os.environ, **env} if env else None)
    data = None
    if results is not None and os.path.exists(results):
        with open(results, encoding="utf-8") as handle:
            data = json.load(handle)
    return process, data


@pytest.fixture
def grade():
    """``grade(path, *options) -> (outcome, results)``: graded in this process, once per session for the same
    submission (``tests/graded.py``); ``outcome`` has the command line's ``returncode``, ``stdout``, ``stderr``.
    Tests of the command line itself use ``run_grader``."""
    from graded import graded

    return graded


def docked_groups(results):
    """The set of case groups in a results.json that lost points."""
    return {test["tags"][0] for test in results["tests"] if test["status"] == "failed"}


def pytest_collection_finish(session):
    """Start building the install tests' venvs in the background if any selected test needs one (tests/venvs.py)."""
    import venvs

    needed = {name for item in session.items for name in getattr(item, "fixturenames", ())}
    venvs.start_for(needed)


def pytest_sessionfinish(session):
    import venvs

    venvs.clean_up()
