"""The pytest plugin that turns hidden-case test functions into a GradeResult.

Cases are ordinary pytest tests under ``grader/cases``. Each module sets ``GROUP`` (report
heading), ``ORDER`` (its place) and optionally ``VISIBILITY``; each test carries
``@pytest.mark.points(n)`` and ``@pytest.mark.rule("...")``; its docstring's first line is the
learner-facing title and the rest says why the case exists. Tests receive the ``harness``
fixture (``grader.harness.Harness``) and judge with ``grader.expectations``.
"""

import time

import pytest

from grader.expectations import CaseFailed
from grader.harness import Harness
from grader.sandbox import LoadReport, Sandbox
from grader.scoring import CaseResult


class _Unloadable:
    """A harness stand-in for a submission that could not be extracted: every case fails with one sentence."""

    def __init__(self, message):
        self.report = LoadReport(fatal=message)

    def run(self, *args, **kwargs):
        from grader.harness import Transcript

        return Transcript(problem=self.report.fatal)


def case_title(item):
    """The learner-facing title of a test item: its docstring's first line, plus the parameter id."""
    callspec = getattr(item, "callspec", None)
    for value in (callspec.params.values() if callspec else ()):
        if isinstance(getattr(value, "title", None), str):
            return value.title  # a visible case names itself
    doc = (item.function.__doc__ or item.name).strip().splitlines()[0].rstrip(".")
    return f"{doc} [{callspec.id}]" if callspec else doc


def case_rule(item, default):
    """The rule of a test item: a visible case's own rule when the parameter carries one, else ``default``."""
    callspec = getattr(item, "callspec", None)
    for value in (callspec.params.values() if callspec else ()):
        if isinstance(getattr(value, "rule", None), str):
            return value.rule
    return default


class GradingPlugin:
    """Collects points and feedback for one submission while pytest runs the cases.

    Args:
        submission: a ``grader.extract.Submission``, or None when extraction failed.
        limits: ``grader.sandbox.Limits``.
        total_seconds: wall-clock budget for all cases (float, s).
        fatal: the sentence that explains why the submission could not be extracted, or None.
    After the run, ``results`` holds one ``CaseResult`` per case and ``load_notes`` the loading problems.
    """

    def __init__(self, submission, limits, total_seconds=120.0, fatal=None):
        self.submission = submission
        self.limits = limits
        self.total_seconds = total_seconds
        self.fatal = fatal
        self.results = []
        self.load_notes = []
        self.internal_errors = []
        self._harness = None

    def pytest_configure(self, config):
        config.addinivalue_line("markers", "points(n): points the case is worth")
        config.addinivalue_line("markers", "rule(text): the rule the case checks, shown to the learner")
        config.kit_grading = self

    def open_harness(self):
        """Generator for the session ``harness`` fixture (``grader/cases/conftest.py``): the
        submission loaded once in a worker process, closed when grading ends."""
        if self.fatal:
            yield _Unloadable(self.fatal)
            return
        sandbox = Sandbox(self.submission.chunks, ["handle_tool_call"], self.limits)
        try:
            self._harness = Harness(sandbox, total_seconds=self.total_seconds)
            self.load_notes = list(self._harness.report.problems) + self._harness.notes()
            yield self._harness
        finally:
            sandbox.close()

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item, call):
        outcome = yield
        report = outcome.get_result()
        if report.when == "call" or (report.when == "setup" and not report.passed):
            self._record(item, call, report)

    def _record(self, item, call, report):
        module = item.module
        points = item.get_closest_marker("points")
        rule = item.get_closest_marker("rule")
        max_points = float(points.args[0]) if points else 1.0
        feedback = ""
        printed = self._harness.take_output() if self._harness is not None else ""
        if self._harness is not None and report.passed:
            self._harness.last_transcript = None
        if not report.passed:
            exc = call.excinfo.value if call.excinfo else None
            if isinstance(exc, CaseFailed):
                feedback = str(exc)
                last = self._harness.last_transcript if self._harness is not None else None
                if last is not None and last.tools_replaced:
                    # This case installed its own TOOLS: a submission that cannot see it needs to know why.
                    feedback += "".join(" Note: " + note for note in last.notes)
            else:
                # A bug in the case itself, never the learner's fault; keep details for instructors.
                feedback = "The grader could not judge this case (an internal error); the case counts as failed."
                self.internal_errors.append(f"{item.nodeid}: {type(exc).__name__}: {exc}" if exc else item.nodeid)
        self.results.append(CaseResult(
            case_id=item.nodeid,
            group=getattr(module, "GROUP", module.__name__),
            order=getattr(module, "ORDER", 99),
            title=case_title(item),
            points=max_points if report.passed else 0.0,
            max_points=max_points,
            passed=report.passed,
            rule=case_rule(item, rule.args[0] if rule else ""),
            feedback=feedback,
            visibility=getattr(module, "VISIBILITY", "hidden"),
            output=printed,
        ))
