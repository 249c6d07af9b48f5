"""The notebook self-check: run the visible cases against the learner's function, in the kernel.

Fast (milliseconds), in-process, and polite: it never raises, whatever the learner's code does;
it shows a pass/fail table with a hint per failure. The hidden cases run only in the grader,
which isolates the code in another process; passing here is necessary, not sufficient.
Standard library only (plus IPython's display when it is there).
"""

import copy
import html
import signal
import threading

from grader import expectations
from grader.exercises import BY_ID
from grader.harness import Responder, Transcript, from_description, receipt_dispatch
from grader.registries import fresh
from grader import trusted
from grader.visible_cases import VISIBLE_CASES, ToolCallCase, expand, failure_text
from grader.worker import apply_view, describe

CASE_SECONDS = 5


class _TimedOut(BaseException):
    """Raised into the learner's code by the alarm when a case runs too long."""


class SelfCheckReport:
    """The table a self-check cell shows: rich HTML in Jupyter, plain text anywhere else.

    Attributes:
        rows: ``[(title, passed: bool, detail: str)]`` in case order.
    """

    def __init__(self, rows, name):
        self.rows = rows
        self.name = name

    @property
    def passed(self):
        """Number of visible cases that passed (int)."""
        return sum(1 for _, ok, _ in self.rows if ok)

    def summary(self):
        """One line: how many visible cases passed, and what that does and does not mean."""
        total = len(self.rows)
        if self.passed == total:
            return (f"All {total} visible checks passed for {self.name}. Now run the grader for the hidden cases: "
                    "passing these is not the same as passing those.")
        return f"{self.passed} of {total} visible checks passed for {self.name}. Fix the first failure and run this cell again."

    def __str__(self):
        lines = [self.summary()]
        for title, ok, detail in self.rows:
            lines.append(f"  {'PASS' if ok else 'FAIL'}  {title}")
            if not ok:
                lines.append(f"        {detail}")
        return "\n".join(lines)

    __repr__ = __str__

    def _repr_html_(self):
        body = "".join(
            f"<tr><td>{'✓' if ok else '✗'}</td><td style='text-align:left'>{html.escape(title)}</td>"
            f"<td style='text-align:left'>{'' if ok else html.escape(detail)}</td></tr>"
            for title, ok, detail in self.rows
        )
        return (f"<p><b>{html.escape(self.summary())}</b></p><table class='kit-selfcheck'>"
                f"<tr><th></th><th>Visible check</th><th>What happened / hint</th></tr>{body}</table>")


def _with_alarm(function, seconds):
    """Run ``function()`` with a SIGALRM time limit (``seconds``, float) when possible (Unix, main thread)."""
    usable = hasattr(signal, "SIGALRM") and threading.current_thread() is threading.main_thread()
    if not usable:
        return function()

    def on_alarm(signum, frame):
        raise _TimedOut()

    previous = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        return function()
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _call_with_limits(transcript, function, args, view=None):
    """Call ``function(*args)`` in-process with a time limit; record the result as the grader would."""
    try:
        result = _with_alarm(lambda: function(*args), CASE_SECONDS)  # read at call time: tests shorten it
        transcript.returns.append(("returned", from_description(describe(apply_view(view, result)))))
    except _TimedOut:
        transcript.problem = f"It did not finish within {CASE_SECONDS:g} s (an endless loop or an unbounded retry?)."
    except Exception as exc:  # the learner's bug is reported in the table, never raised into the notebook
        transcript.returns.append(("raised", f"{type(exc).__name__}: {exc}"))


def run_tool_call_case(function, case, style):
    """Run one ``ToolCallCase`` in-process and return its Transcript (the same shape the grader builds).

    With ``style == "seed"`` the learner's globals ``TOOLS`` and ``dispatch`` are replaced for the
    case, as the grader does, and restored afterwards; otherwise they are passed as arguments.
    """
    transcript = Transcript(function=getattr(function, "__name__", "the function"))
    responder = Responder(transcript, case.model(), receipt_dispatch)

    def ask_model(observation):
        reply = responder.answer("ask_model", {"observation": describe(observation)})
        if reply["op"] == "raise":
            raise ConnectionError(reply["message"])
        return reply["value"]

    def dispatch(name, arguments):
        return responder.answer("dispatch", {"name": describe(name), "args": describe(arguments)})["value"]

    def check(raw, tools=None):
        # The grader's trusted steps 1-3, as in grading: a learner's loop is judged alone (issue 11).
        call, observation = trusted.check(raw, case.tools)
        return call, observation

    expectations.judging_loop_alone = style != "seed"  # as in grading: the loop is judged alone
    if style != "seed":
        _call_with_limits(transcript, function, (case.raw, ask_model, fresh(case.tools), dispatch, check))
        return transcript
    namespace = getattr(function, "__globals__", {})
    saved = {key: namespace[key] for key in ("TOOLS", "dispatch") if key in namespace}
    namespace["TOOLS"] = fresh(case.tools)
    namespace["dispatch"] = dispatch
    try:
        _call_with_limits(transcript, function, (case.raw, ask_model))
    finally:
        namespace.pop("TOOLS", None)
        namespace.pop("dispatch", None)
        namespace.update(saved)
    return transcript


def run_call_case(function, case):
    """Run one ``CallCase`` in-process (registries as real classes) and return its Transcript."""
    if case.function:
        function = getattr(function, "__globals__", {}).get(case.function, function)
    transcript = Transcript(function=case.function or getattr(function, "__name__", "the function"))
    if not callable(function):
        transcript.problem = f"No function named {case.function} was found."
        return transcript
    args = [copy.deepcopy(a) for a in expand(case.args, fresh)]
    _call_with_limits(transcript, function, args, case.view)
    return transcript


def check(function, exercise="capstone"):
    """Run an exercise's visible cases against ``function``; show the returned table as a cell's last line.

    Args:
        function: the learner's function, e.g. ``handle_tool_call`` or ``parse_call``.
        exercise: the exercise id from ``grader/exercises.json`` (str), e.g. ``"parse-call"``.
    Returns:
        ``SelfCheckReport``. Never raises for anything the learner's code does.
    """
    name = getattr(function, "__name__", "your function")
    cases = VISIBLE_CASES[exercise]
    style = BY_ID[exercise].style
    if not callable(function):
        return SelfCheckReport([(c.title, False, f"{name!r} is not a function yet.") for c in cases], str(name))
    rows = []
    for case in cases:
        if isinstance(case, ToolCallCase):
            transcript = run_tool_call_case(function, case, style)
        else:
            transcript = run_call_case(function, case)
        try:
            case.check(transcript)
        except expectations.CaseFailed as exc:
            rows.append((case.title, False, failure_text(exc, case, 120, separator=" ")))
        else:
            rows.append((case.title, True, ""))
    return SelfCheckReport(rows, name)


def hint(exercise):
    """Print the hint of an exercise (from ``grader/exercises.json``); returns None.

    Args:
        exercise: the exercise id (str), e.g. ``"parse-call"``.
    """
    print(f"Hint for {BY_ID[exercise].title}:\n{BY_ID[exercise].hint}")


def notebook_path(default):
    """The file of the notebook this kernel belongs to, as Jupyter Server tells it, else ``default``.

    Jupyter Server sets ``JPY_SESSION_NAME`` to the notebook's path (relative to where the server
    was started, or absolute; jupyter-server/jupyter_server #679, #1100); a kernel started another way (nbclient,
    nbval) has no such variable.

    Args:
        default: the notebook's shipped file name, looked up in the working directory (str).
    Returns:
        str: an existing ``.ipynb`` path, or ``default``.
    """
    import os
    import pathlib

    session = os.environ.get("JPY_SESSION_NAME", "")
    if session.endswith(".ipynb"):
        root = pathlib.Path(__file__).resolve().parent.parent
        for candidate in (pathlib.Path(session), root / session, pathlib.Path(pathlib.Path(session).name)):
            if candidate.exists():
                return str(candidate)
    return default


class GraderRun:
    """What ``grade_notebook`` shows: the report as text, plus the score for assertions.

    Attributes:
        report: the grader's printed report, or its one-line error (str).
        score, max_score: points earned and available (float; 0 when grading failed).
    """

    def __init__(self, report, score, max_score):
        self.report = report
        self.score = score
        self.max_score = max_score

    def __repr__(self):
        return self.report


def grade_notebook(default):
    """Run ``python -m grader`` on this notebook's saved file (the notebooks' grader cell).

    Args:
        default: the notebook's shipped file name (str), used when Jupyter does not say which file
            this kernel belongs to.
    Returns:
        ``GraderRun``; displayed as the report. Never raises: a grader failure is shown as text.
    """
    from grader.progress import run_grader

    path = notebook_path(default)
    print(f"Grading the saved file {path} (save first: the grader reads the file, not this kernel).")
    report, data = run_grader(path)
    try:
        score, max_score = data["score"], sum(t["max_score"] for t in data["tests"])
    except (TypeError, KeyError):
        score, max_score = 0.0, 0.0
    return GraderRun(report, score, max_score)
