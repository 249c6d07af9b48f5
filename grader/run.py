"""Grade one submission: extraction -> isolated execution (via pytest cases) -> GradeResult."""

import contextlib
import io
import os
import time

from grader.extract import SubmissionError, extract
from grader.plugin import GradingPlugin
from grader.sandbox import Limits
from grader.scoring import GradeResult

CASES_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "cases")


def grade(path, limits=None, total_seconds=120.0, cases_dir=CASES_DIR):
    """Run every case in ``cases_dir`` against the submission at ``path``.

    The submission's code runs only in worker processes (``grader.sandbox``); this process runs
    pytest over the case files with ``GradingPlugin`` collecting points.

    Args:
        path: a ``.py`` file or ``.ipynb`` notebook (str or path-like).
        limits: ``grader.sandbox.Limits`` (default limits when None).
        total_seconds: wall-clock budget for all cases of this submission (float, s).
        cases_dir: the folder of case files (str).
    Returns:
        ``GradeResult``; ``error`` is set (and every case failed with that sentence) when the
        submission could not be read. Never raises for anything inside the submission.
    """
    started = time.monotonic()
    limits = limits or Limits()
    submission, fatal = None, None
    try:
        submission = extract(path)
    except SubmissionError as exc:
        fatal = str(exc)
    plugin = GradingPlugin(submission, limits, total_seconds=total_seconds, fatal=fatal)
    args = [
        cases_dir,
        "-c", os.path.join(cases_dir, "pytest.ini"),  # never pick up the repository's own pytest.ini
        "--rootdir", cases_dir,
        "-p", "no:cacheprovider",
        "-q",
        "-W", "ignore::pytest.PytestAssertRewriteWarning",
    ]
    import pytest

    # pytest's own chatter is not the learner's report; the report is built from plugin.results.
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        pytest.main(args, plugins=[plugin])
    result = GradeResult(submission=os.fspath(path), cases=plugin.results, error=fatal)
    if submission is not None:
        result.notes = submission.notes + plugin.load_notes
    if plugin.internal_errors:
        result.notes.append(f"{len(plugin.internal_errors)} case(s) hit an internal grader error; please report it.")
    result.execution_time = time.monotonic() - started
    return result
