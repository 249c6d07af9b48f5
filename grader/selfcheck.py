"""The notebook self-check: run the visible cases against the learner's function, in the kernel.

Fast (milliseconds), in-process, and polite: it never raises, whatever the learner's code does;
it shows a pass/fail table with a hint per failure. The hidden cases run only in the grader,
which isolates the code in another process; passing here is necessary, not sufficient.
Standard library only (plus IPython's display when it is there).
"""

import html
import signal
import threading

from grader import expectations
from grader.harness import Responder, Transcript, from_description, receipt_dispatch
from grader.registries import fresh
from grader.visible_cases import VISIBLE_CASES
from grader.worker import describe

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
            f"<tr><td>{'✅' if ok else '❌'}</td><td style='text-align:left'>{html.escape(title)}</td>"
            f"<td style='text-align:left'>{'' if ok else html.escape(detail)}</td></tr>"
            for title, ok, detail in self.rows
        )
        return (f"<p><b>{html.escape(self.summary())}</b></p><table class='kit-selfcheck'>"
                f"<tr><th></th><th>Visible check</th><th>What happened / hint</th></tr>{body}</table>")


def _with_alarm(function, seconds):
    """Run ``function()`` with a SIGALRM time limit when that is possible (Unix, main thread)."""
    usable = hasattr(signal, "SIGALRM") and threading.current_thread() is threading.main_thread()
    if not usable:
        return function()

    def on_alarm(signum, frame):
        raise _TimedOut()

    previous = signal.signal(signal.SIGALRM, on_alarm)
    signal.alarm(seconds)
    try:
        return function()
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def run_case(function, case):
    """Run one visible case in-process and return its Transcript (the same shape the grader builds).

    The learner's globals ``TOOLS`` and ``dispatch`` are replaced for the case, as the grader does,
    and restored afterwards.
    """
    transcript = Transcript()
    responder = Responder(transcript, case.model(), receipt_dispatch)

    def ask_model(observation):
        reply = responder.answer("ask_model", {"observation": describe(observation)})
        if reply["op"] == "raise":
            raise ConnectionError(reply["message"])
        return reply["value"]

    def dispatch(name, arguments):
        return responder.answer("dispatch", {"name": describe(name), "args": describe(arguments)})["value"]

    namespace = getattr(function, "__globals__", {})
    saved = {key: namespace[key] for key in ("TOOLS", "dispatch") if key in namespace}
    namespace["TOOLS"] = fresh(case.tools)
    namespace["dispatch"] = dispatch
    try:
        result = _with_alarm(lambda: function(case.raw, ask_model), CASE_SECONDS)
        transcript.returns.append(("returned", from_description(describe(result))))
    except _TimedOut:
        transcript.problem = f"It did not finish within {CASE_SECONDS} s (an endless loop or an unbounded retry?)."
    except Exception as exc:  # the learner's bug is reported in the table, never raised into the notebook
        transcript.returns.append(("raised", f"{type(exc).__name__}: {exc}"))
    finally:
        namespace.pop("TOOLS", None)
        namespace.pop("dispatch", None)
        namespace.update(saved)
    return transcript


def check(function, cases=VISIBLE_CASES):
    """Run the visible cases against ``function`` and return a table (display it as a cell's last line).

    Args:
        function: the learner's ``handle_tool_call(raw, ask_model)``.
        cases: the visible cases (default: ``grader.visible_cases.VISIBLE_CASES``).
    Returns:
        ``SelfCheckReport``. Never raises for anything the learner's code does.
    """
    name = getattr(function, "__name__", "your function")
    rows = []
    if not callable(function):
        return SelfCheckReport([(c.title, False, f"{name!r} is not a function yet.") for c in cases], str(name))
    for case in cases:
        transcript = run_case(function, case)
        try:
            case.check(transcript)
        except expectations.CaseFailed as exc:
            rows.append((case.title, False, f"{exc} Input: {case.raw[:120]} Hint: {case.hint}"))
        else:
            rows.append((case.title, True, ""))
    return SelfCheckReport(rows, name)
