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

from grader.intake.exercises import BY_ID
from grader.isolation.worker import apply_view, describe
from grader.judging import expectations, reference_steps
from grader.judging.harness import (
    Responder,
    Transcript,
    from_description,
    receipt_dispatch,
    tools_bound_sentence,
)
from grader.judging.registries import fresh
from grader.judging.visible_cases import (
    VISIBLE_CASES,
    LoopCase,
    PathCase,
    ToolCallCase,
    TurnCase,
    expand,
    failure_text,
    registry_source,
)
from grader.learner import notebook_file
from grader.results.text_report import not_counted
from grader.translations import N_, _, current, say

CASE_SECONDS = 5


class _TimedOut(BaseException):
    """Raised into the learner's code by the alarm when a case runs too long."""


class SelfCheckReport:
    """The table a self-check cell shows: rich HTML in Jupyter, plain text anywhere else.

    Attributes:
        rows: ``[(title, passed: bool, detail: str)]`` in case order.
        notes: sentences shown once under the summary (list of str), e.g. why some checks are not counted.
    """

    def __init__(self, rows, name, notes=()):
        self.rows = rows
        self.name = name
        self.notes = list(notes)

    @property
    def passed(self):
        """Number of visible cases that passed (int)."""
        return sum(1 for _title, ok, _detail in self.rows if ok)

    def summary(self):
        """One line: how many visible cases passed, and what that does and does not mean."""
        total = len(self.rows)
        if self.passed == total:
            return (say("All {total} visible checks passed for {name}. Now run the grader for the hidden cases: "
                        "passing these is not the same as passing those.", total=total, name=self.name))
        return say("{passed} of {total} visible checks passed for {name}. Fix the first failure and run this cell "
                   "again.", passed=self.passed, total=total, name=self.name)

    def __str__(self):
        lines = [self.summary()] + [f"  ! {note}" for note in self.notes]
        marks = {True: _("PASS"), False: _("FAIL")}
        width = max(len(mark) for mark in marks.values())  # the titles line up whatever the words' lengths
        for title, ok, detail in self.rows:
            lines.append(f"  {marks[ok]:<{width}}  {title}")
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
        notes = "".join(f"<p>⚠ {html.escape(note)}</p>" for note in self.notes)
        heads = html.escape(_("Visible check")), html.escape(_("What happened / hint"))
        return (f"<p><b>{html.escape(self.summary())}</b></p>{notes}<table class='kit-selfcheck'>"
                f"<tr><th></th><th>{heads[0]}</th><th>{heads[1]}</th></tr>{body}</table>")


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
        transcript.problem = say("It did not finish within {case_seconds:g} s (an endless loop or an unbounded "
                                 "retry?).", case_seconds=CASE_SECONDS)
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
        call, observation = reference_steps.check(raw, case.tools)
        return call, observation

    expectations.judging_loop_alone = style != "seed"  # as in grading: the loop is judged alone
    expectations.renamed_by = None  # a visible case's texts are as written (a grading before may have left its draw)
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


def _turn_proxies(responder):
    """``check`` and ``dispatch`` for a turn case run in-process, answered by ``responder`` as the grader answers them."""
    errors = {"TimeoutError": TimeoutError, "ConnectionError": ConnectionError}

    def check(tool_call):
        return tuple(responder.answer("check", {"raw": describe(tool_call)})["value"])

    def dispatch(name, arguments):
        reply = responder.answer("dispatch", {"name": describe(name), "args": describe(arguments)})
        if reply["op"] == "raise":
            raise errors.get(reply["type"], RuntimeError)(reply["message"])
        return reply["value"]
    return check, dispatch


def run_turn_case(function, case):
    """Run one ``TurnCase`` in-process (``answer_turn(message, provider, check, dispatch, done)``, ``times`` times with
    one ``done``) and return its Transcript, as ``grader.judging.harness.ExerciseHarness.turn`` builds it."""
    from grader.judging.scripted_models import NeverCorrects

    transcript = Transcript(function=getattr(function, "__name__", "the function"))
    transcript.turn, transcript.done = copy.deepcopy(case.message), {}
    responder = Responder(transcript, NeverCorrects(None), case.dispatch_reply(), case.tools, allow_check=True,
                          checker=reference_steps.check_tool_call)
    check_, dispatch = _turn_proxies(responder)
    expectations.renamed_by = None  # a visible case's texts are as written
    done = {}
    for _time in range(case.times):
        _call_with_limits(transcript, function, (copy.deepcopy(case.message), case.provider, check_, dispatch, done))
    return transcript


def run_loop_case(function, case):
    """Run one ``LoopCase`` in-process (``run_agent(task, model, check, dispatch, sleep, limits)``) and return its
    Transcript, as ``grader.judging.harness.ExerciseHarness.loop`` builds it: the scripted model, the kit's check and
    the case's dispatch answered by a ``Responder``, each wait recorded and not slept."""
    from grader.judging.scripted_models import LoopScript, NeverCorrects

    transcript = Transcript(function=getattr(function, "__name__", "the function"))
    transcript.loop = (case.task, copy.deepcopy(case.steps), dict(case.limits))
    responder = Responder(transcript, NeverCorrects(None), case.dispatch_reply(), case.tools, allow_check=True,
                          checker=reference_steps.check, loop_model=LoopScript(case.steps))
    errors = {"TimeoutError": TimeoutError, "ConnectionError": ConnectionError}

    def model(messages):
        reply = responder.answer("model", {"messages": describe(messages)})
        if reply["op"] == "raise":
            raise errors.get(reply["type"], RuntimeError)(reply["message"])
        return reply["value"]

    def check(raw, tools=None):
        return tuple(responder.answer("check", {"raw": describe(raw)})["value"])

    _check, dispatch = _turn_proxies(responder)

    def sleep(seconds):
        responder.answer("sleep", {"seconds": describe(seconds)})

    expectations.renamed_by = None  # a visible case's texts are as written
    _call_with_limits(transcript, function, (case.task, model, check, dispatch, sleep, dict(case.limits)))
    return transcript


def path_folder(folder=None):
    """Make the kit's example folder for notebook 9 (``grader.judging.file_trees``, readable names) in ``folder`` or a
    new temporary folder, and return ``(root, names)``: the allowed folder's path and the names of what is in it.

    Raises:
        OSError: the folder could not be made (on Windows, making symbolic links may need Developer Mode).
    """
    import atexit
    import secrets
    import shutil
    import tempfile

    from grader.judging import file_trees

    names = dict(file_trees.SHOWN, token=secrets.token_hex(8))
    if folder is None:
        folder = tempfile.mkdtemp(prefix="kit-paths-")
        atexit.register(shutil.rmtree, folder, True)  # the kernel's end removes it: a notebook leaves nothing behind
    return file_trees.make_tree(folder, names), names


def path_of(template, root, names):
    """The path a notebook 9 case names (``file_trees.render``), in the folder ``path_folder`` made."""
    from grader.judging import file_trees

    return file_trees.render(template, root, names)


def try_paths(function, paths):
    """Show what the learner's ``allowed_path`` makes of ``paths`` (list of str, in the kit's example folder's names)
    in a fresh copy of the kit's example folder (notebook 9's "Try it"), beside what the rules say; never raises for
    what the learner's code does. Returns None."""
    import os
    import shutil
    import tempfile

    from grader.judging import file_trees

    folder = tempfile.mkdtemp(prefix="kit-paths-")
    try:
        try:
            root, _names = path_folder(folder)
        except OSError as exc:
            print(say("The kit could not make the example folder here ({name}); on Windows, turn on Developer Mode "
                      "so that symbolic links can be made.", name=type(exc).__name__))
            return None
        print(say("The allowed folder: {root}", root=root))
        for path in paths:
            expected = file_trees.verdict(path, root)
            try:
                real, reason = function(path, root)
            except NotImplementedError:
                print(say("allowed_path is not written yet: write it in the cell above, run that cell, then this one."))
                return None
            except Exception as exc:  # the learner's bug is shown, never raised into the notebook
                print(say("{path!r}: allowed_path raised {name}: {exc}", path=path, name=type(exc).__name__, exc=exc))
                continue
            where = os.path.relpath(real, os.path.realpath(root)) if isinstance(real, str) else real
            shown = say("allowed as {where!r}", where=where) if real is not None else say("refused: {reason}", reason=reason)
            rules = say("allowed") if expected is not None else say("refused")
            mark = "" if (real is None) == (expected is None) else say("   <- the rules say: {verdict}", verdict=rules)
            print(f"{path!r}: {shown}{mark}")
        return None
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def run_path_case(function, case):
    """Run one ``PathCase`` in-process: the kit's folder made in a temporary folder, ``allowed_path`` called with the
    case's path and its control, the verdicts taken while the folder stands; the Transcript as
    ``ExerciseHarness.confined`` builds it."""
    import shutil
    import tempfile

    from grader.judging import file_trees

    transcript = Transcript(function=getattr(function, "__name__", say("the function")))
    folder = tempfile.mkdtemp(prefix="kit-paths-")
    try:
        try:
            root, names = path_folder(folder)
        except OSError as exc:
            transcript.problem = (say("The kit could not make the example folder here ({name}: {exc}); on Windows, "
                                      "turn on Developer Mode so that symbolic links can be made.", name=type(exc).__name__, exc=exc))
            return transcript
        paths = [file_trees.render(case.template, root, names), file_trees.render(case.control, root, names)]
        transcript.paths = [(p, root, file_trees.verdict(p, root), expectations.path_rule(p, root),
                             file_trees.secrets_of(p, root, names, names["token"])) for p in paths]
        expectations.renamed_by = None
        for path in paths:
            _call_with_limits(transcript, function, (path, root))
        return transcript
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def loop_model(steps):
    """A scripted model for notebook 8's playground: ``model(messages)`` answers with ``steps`` in order (a reply, or
    ``{"raise": "TimeoutError" | "ConnectionError" | "RuntimeError", "message": ...}``), then a final answer."""
    from grader.judging.scripted_models import LoopScript

    return LoopScript(steps)


def loop_check(tools=None):
    """A ``check(raw) -> (call, observation)`` for notebook 8's playground: the kit's steps 1 to 3 on one raw call
    (``reference_steps.check``), against ``tools`` (Python classes; notebook 2's five tools by default). In a student
    release, which has no reference, a visible case's call is answered from the kit's table and any other by the
    learner's own steps 1 to 3 from their saved notebooks (``grader.learner.own_steps``), as notebook 4's simulator
    does; when those cannot check it, the observation says why."""
    import grader.paths
    from grader.judging.registries import TYPED_TOOLS
    from grader.learner.own_steps import own_check, own_steps

    registry = tools if tools is not None else TYPED_TOOLS

    def check(raw):
        call, observation = reference_steps.check(raw, registry)
        if reference_steps.available() or observation != reference_steps.UNCHECKED:
            return call, observation
        try:  # a student release: the learner's own steps, building on notebooks 1 to 3, as saved now
            return own_check(raw, registry, own_steps(grader.paths.notebooks_dir(current())))
        except LookupError as exc:
            return None, str(exc)
    return check


def try_loop(function, task, steps, errors=(), limits=None, tools=None):
    """Run one task through the learner's ``run_agent`` in the notebook, and show what happened (notebook 8's "Try
    it"): each dispatch and each wait as it comes, then the stop, the turns and the answer.

    Args:
        function: the learner's ``run_agent``. task: the user's request (str). steps: the model's script
            (``loop_model``). errors: as ``turn_dispatch``. limits: the budgets (dict; ``LOOP_LIMITS`` by default).
        tools: as ``loop_check``.
    Returns:
        what ``function`` returned, or None when it raised (the error is printed). Never raises for what the
        learner's code does.
    """
    inner = turn_dispatch(errors)

    def dispatch(name, arguments):
        print(f"dispatch({name!r}, {arguments!r})")
        return inner(name, arguments)

    def sleep(seconds):
        print(f"sleep({seconds!r})")

    try:
        result = function(task, loop_model(steps), loop_check(tools), dispatch, sleep,
                          dict(limits or expectations.LOOP_LIMITS))
    except NotImplementedError:
        print(say("run_agent is not written yet: write it in the cell above, run that cell, then this one."))
        return None
    except Exception as exc:  # the learner's bug is shown, never raised into the notebook
        print(say("run_agent raised {name}: {exc}", name=type(exc).__name__, exc=exc))
        return None
    if isinstance(result, dict):
        print(f"stop={result.get('stop')!r} turns={result.get('turns')!r} tool={result.get('tool')!r} "
              f"answer={result.get('answer')!r}")
    return result


def turn_check(tools=None):
    """A ``check(tool_call) -> (call, observation)`` for notebook 7's playground: the kit's steps 1 to 3 and notebook
    6b's adapters on one tool call as its provider sent it (``reference_steps.check_tool_call``), against ``tools``
    (Python classes; notebook 2's five tools by default). In a student release only the visible cases' calls can be
    checked; any other gets an observation saying so."""
    from grader.judging.registries import TYPED_TOOLS

    registry = tools if tools is not None else TYPED_TOOLS

    def check(tool_call):
        call, observation = reference_steps.check_tool_call(tool_call, registry)
        return call, observation
    return check


def turn_dispatch(errors=()):
    """A stand-in ``dispatch(name, arguments)`` for notebook 7's playground: a receipt for each call, or the exception
    named for its tool (``errors``: ``[[tool, "TimeoutError" | "ConnectionError" | "RuntimeError", message], ...]``).
    Nothing runs."""
    kinds = {"TimeoutError": TimeoutError, "ConnectionError": ConnectionError}
    raising = {name: (kind, text) for name, kind, text in errors}

    def dispatch(name, arguments):
        if name in raising:
            kind, text = raising[name]
            raise kinds.get(kind, RuntimeError)(text)
        return receipt_dispatch(name, arguments)
    return dispatch


def try_turn(function, message, provider, errors=(), tools=None):
    """Answer one turn with the learner's ``answer_turn`` in the notebook, and show what ran (notebook 7's "Try it").

    ``check`` is the kit's (``turn_check(tools)``), ``dispatch`` the stand-in (``turn_dispatch(errors)``), ``done`` a
    new dict. Prints each dispatch as it happens; never raises for what the learner's code does.

    Args:
        function: the learner's ``answer_turn``. message: an assistant message in the provider's shape (dict).
        provider: ``"openai"`` or ``"anthropic"`` (str). errors: as ``turn_dispatch``. tools: as ``turn_check``.
    Returns:
        what ``function`` returned (the messages to append), or None when it raised (the error is printed).
    """
    inner = turn_dispatch(errors)

    def dispatch(name, arguments):
        print(f"dispatch({name!r}, {arguments!r})")
        return inner(name, arguments)

    try:
        return function(message, provider, turn_check(tools), dispatch, {})
    except NotImplementedError:
        print(say("answer_turn is not written yet: write it in the cell above, run that cell, then this one."))
    except Exception as exc:  # the learner's bug is shown, never raised into the notebook
        print(say("answer_turn raised {name}: {exc}", name=type(exc).__name__, exc=exc))
    return None


class KernelHarness:
    """The grader's canaries (``grader.judging.canaries``) run in the kernel: the ``ExerciseHarness`` calls they make
    (``run``, ``call``, ``entry``), answered in-process as the self-check runs its cases.

    So the self-check voids the checks the grader voids, and its count agrees with the grader's visible count
    for the same code (issue 11). Canary inputs are drawn as the grader draws them.

    Args:
        function: the learner's main function. exercise: the exercise id (str).
    Attributes:
        last_input: the arguments of the last call, as JSON text (str), to show with a failure.
    """

    # Nothing is drawn in the kernel: a canary's inputs are as its code writes them (ExerciseHarness.draw is None in
    # a visible run too).
    draw = None

    def __init__(self, function, exercise):
        self.function = function
        self.exercise = BY_ID[exercise]
        self.entry = self.exercise.entry
        self.last_input = ""

    def run(self, raw, *, model=None, tools=None, dispatch_reply=receipt_dispatch, vary=False, in_place=None):
        """Run the tool-call entry on ``raw`` (see ``grader.judging.harness.ExerciseHarness.run``); returns a Transcript.
        ``vary`` and ``in_place`` are accepted and change nothing: nothing is drawn in the kernel, and the registry is
        installed as the self-check installs every case's. (Without them the valid-call canary raised TypeError here,
        which the self-check took for a canary that holds.)"""
        import types

        from grader.judging.registries import SEED_TOOLS
        from grader.judging.scripted_models import NeverCorrects

        self.last_input = raw if isinstance(raw, str) else str(raw)
        case = types.SimpleNamespace(raw=raw, tools=tools if tools is not None else SEED_TOOLS,
                                     model=lambda: model if model is not None else NeverCorrects(raw))
        return run_tool_call_case(self.function, case, self.exercise.style)

    def turn(self, message, provider, *, tools=None, dispatch_reply=receipt_dispatch, times=1):
        """Answer one turn with the exercise's entry (see ``grader.judging.harness.ExerciseHarness.turn``); returns a
        Transcript, as the self-check runs a turn case."""
        import json
        import types

        from grader.judging.registries import TYPED_TOOLS

        self.last_input = json.dumps(message)
        case = types.SimpleNamespace(message=message, provider=provider, times=times,
                                     tools=tools if tools is not None else TYPED_TOOLS,
                                     dispatch_reply=lambda: dispatch_reply)
        return run_turn_case(self.function, case)

    def call(self, *args, function=None, view=None, times=1):
        """Call a plain function of the exercise (see ``grader.judging.harness.ExerciseHarness.call``); returns a Transcript."""
        import json

        from grader.isolation.worker import decode

        target = self.function
        if function:
            target = getattr(self.function, "__globals__", {}).get(function, self.function)
        transcript = Transcript(function=function or getattr(target, "__name__", self.entry))
        live = [decode(arg, {}) for arg in args]  # registries (grader.judging.registries.encode_registry) get real classes
        self.last_input = ", ".join(json.dumps(arg, default=str) for arg in args if not isinstance(arg, dict)
                                    or arg.get("__kit__") != "registry")
        for _time in range(times):
            _call_with_limits(transcript, target, copy.deepcopy(live), view)
        return transcript


def _void_failed_canaries(function, exercise, rows, cases):
    """Fail the passed rows whose canary fails, as the grader voids them; returns the notes that say why once."""
    from grader.judging.canaries import (
        CANARIES,
        RUNS_PER_KIND,
        run_canary,
        void_note,
        void_reference,
    )

    canaries = CANARIES.get(BY_ID[exercise].cases, {})
    harness = KernelHarness(function, exercise)
    notes = []
    for kind in sorted({case.gate for case in cases if case.gate in canaries}):
        gated = [number for number, case in enumerate(cases) if case.gate == kind and rows[number][1]]
        if not gated:
            continue
        reason = None
        for _run in range(RUNS_PER_KIND):
            try:
                reason = run_canary(harness, BY_ID[exercise].cases, kind)
            except Exception:  # the self-check never raises into the notebook; the grader still judges this
                reason = None
            if reason is not None:
                break
        if reason is None:
            continue
        for number in gated:
            rows[number] = (rows[number][0], False, void_reference(harness.entry, kind))
        note = void_note(harness.entry, kind, reason, len(gated))
        # The note speaks of the grader's check, which ran here too (the phrase is translated as a piece of the note).
        shown = harness.last_input[:200] + ("…" if len(harness.last_input) > 200 else "")
        notes.append(note.replace(_("the grader's check"), _("the grader's check (run here too)"))
                     + (say(" Its input: {input}", input=shown) if harness.last_input else ""))
    return notes


def check(function, exercise="capstone"):
    """Run an exercise's visible cases against ``function``; show the returned table as a cell's last line.

    Args:
        function: the learner's function, e.g. ``handle_tool_call`` or ``parse_call``.
        exercise: the exercise id from ``grader/intake/exercises.json`` (str), e.g. ``"parse-call"``.
    Returns:
        ``SelfCheckReport``. Never raises for anything the learner's code does.
    """
    name = getattr(function, "__name__", say("your function"))
    cases = VISIBLE_CASES[exercise]
    style = BY_ID[exercise].style
    if not callable(function):
        return SelfCheckReport([(_(c.title), False, say("{name!r} is not a function yet.", name=name)) for c in cases],
                               str(name))
    rows = []
    expectations.retry_log.clear()  # as the grader tells a retry count kept between calls (stopped_asking)
    never_asked = []
    for case in cases:
        if isinstance(case, ToolCallCase):
            transcript = run_tool_call_case(function, case, style)
        elif isinstance(case, TurnCase):
            transcript = run_turn_case(function, case)
        elif isinstance(case, LoopCase):
            transcript = run_loop_case(function, case)
        elif isinstance(case, PathCase):
            transcript = run_path_case(function, case)
        else:
            transcript = run_call_case(function, case)
        try:
            case.check(transcript)
        except expectations.CaseFailed as exc:
            if expectations.told_never_asked(str(exc)):
                never_asked.append((len(rows), case))
            rows.append((_(case.title), False, failure_text(exc, case, 120, separator=" ")))
        else:
            rows.append((_(case.title), True, ""))
    if expectations.stopped_asking(expectations.retry_log):
        for number, case in never_asked:
            spent = expectations.CaseFailed(expectations.retry_spent_earlier(name))
            rows[number] = (_(case.title), False, failure_text(spent, case, 120, separator=" "))
    notes = _void_failed_canaries(function, exercise, rows, cases)
    if any(not ok for _title, ok, _detail in rows) and any(isinstance(case, ToolCallCase) for case in cases):
        notes += kept_between_calls(function, name)  # the loops' exercises: a retry budget is what state spends
    return SelfCheckReport(rows, name, notes)


def _own_functions(function):
    """``function`` and the functions of the same namespace its code names, transitively (list of functions): what
    a call of it may run, as far as its code tells."""
    import inspect

    namespace = getattr(function, "__globals__", {})
    found, todo = [], [function]
    while todo:
        current = todo.pop()
        if not inspect.isfunction(current) or current in found:
            continue
        found.append(current)
        todo += [namespace.get(name) for name in current.__code__.co_names]
    return found


def kept_between_calls(function, name):
    """Sentences about state ``function`` keeps between calls, as far as its code tells (list of str): globals it or
    a function it names assigns (``global COUNT``), and the registry bound as a default argument (``tools=TOOLS``).

    The grader tells both from what the code does (``expectations.stopped_asking``, the worker's default-argument
    check); in the kernel a cell run before the self-check (the notebook's "Try it" cell) may have spent such a
    budget already, so the self-check saw only "never asked" (issue 25's learner trial).

    Args:
        function: the learner's function. name: its name as the report shows it (str).
    Returns:
        list of str; empty when the code shows neither.
    """
    import dis

    notes = []
    namespace = getattr(function, "__globals__", {})
    for own in _own_functions(function):
        assigned = sorted({i.argval for i in dis.get_instructions(own) if i.opname in ("STORE_GLOBAL", "DELETE_GLOBAL")})
        if assigned:
            notes.append(say("{own} assigns the global {names}: whatever it counts lasts from one call of {function} to "
                             "the next (and from any cell that called it before this check), so a retry count kept "
                             "there is spent by the first calls. Keep it in a local variable.", own=own.__name__,
                             names=", ".join(assigned[:3]), function=name))
        tools = namespace.get("TOOLS")
        defaults = list(getattr(own, "__defaults__", None) or ()) + list((getattr(own, "__kwdefaults__", None) or {}).values())
        if tools is not None and any(value is tools for value in defaults):
            notes.append(tools_bound_sentence(own.__name__))
    return notes


def show(exercise, case_id=None):
    """Print the whole input of an exercise's visible cases (or of one) as Python you can paste and run; returns None.

    A case whose argument is a registry shows it whole, its classes by name, so a failing visible case can be
    reproduced in the notebook (issue 11: notebook 2's cases use a five-tool registry).

    Args:
        exercise: the exercise id (str), e.g. ``"validate-call"``. case_id: one case's id (str), e.g.
            ``"unknown-tool"``, as the self-check's hint names it; None for every case.
    """
    entry = BY_ID[exercise].entry
    for case in VISIBLE_CASES[exercise]:
        if case_id is not None and case.case_id != case_id:
            continue
        print(f"# {case.case_id}: {_(case.title)}")
        if isinstance(case, ToolCallCase):
            print(f"TOOLS = {registry_source(case.tools)}")
            print(f"{entry}({case.raw[:2000]!r}, ask_model)")
        else:
            print(case.python_source(entry))
        print()


# The hint levels, in the order a learner gets them: a push, then the rules, then the recipe (issue 27: one hint cell
# gave the whole recipe at once). The notebook's hint cell shows the next level each time it runs.
HINT_LEVELS = {1: N_("a nudge"), 2: N_("the rule"), 3: N_("the recipe")}
_shown_levels = {}  # exercise id -> the last level shown in this kernel


def hint_lines(info, level, case=None, case_note=None):
    """The lines of one hint level for exercise ``info`` (list of str): level 1 names the first failing check and
    nudges; level 2 adds that check's rule and the exercise's rules; level 3 adds that check's own hint and the
    recipe. ``case`` is the first failing visible case (or None); ``case_note`` replaces its hint (a voided check)."""
    lines = [say("Hint {level} of 3 ({name}) for {title}:", level=level, name=_(HINT_LEVELS[level]), title=_(info.title))]
    if case is not None:
        lines.append(say("First failing check: {title}", title=_(case.title)))
        if level >= 2:
            lines.append(say("Rule: {rule}", rule=_(case.rule)))
        if level >= 3:
            lines.append(case_note or say("Hint for that check: {hint}", hint=_(case.hint)))
    lines.append(_({1: info.nudge, 2: info.rule, 3: info.hint}[level] or info.hint))
    lines.append(say("Run this again for hint {level} of 3 ({name}).", level=level + 1, name=_(HINT_LEVELS[level + 1]))
                 if level < 3 else
                 say("That was the last level. kit_selfcheck.hint(\"{id}\", level=1) starts again.", id=info.id))
    return lines


def hint(exercise, function=None, level=None):
    """Print the next hint level for an exercise (a nudge, then the rule, then the recipe: one level each time it
    runs), about its first failing visible check; returns None.

    Args:
        exercise: the exercise id (str), e.g. ``"parse-call"``.
        function: the learner's function; default: the exercise's function in the notebook's namespace, if any.
        level: 1, 2 or 3 to ask for that level; None for the one after the level shown last in this kernel (1 at
            first, then 2, then 3, which stays).
    """
    info = BY_ID[exercise]
    if level not in HINT_LEVELS:
        level = min(_shown_levels.get(exercise, 0) + 1, 3)
    _shown_levels[exercise] = level
    if function is None:
        function = notebook_file.user_namespace().get(info.entry)
    case = note = None
    if callable(function):
        report = check(function, exercise)
        failing = next((number for number, (_title, ok, _detail) in enumerate(report.rows) if not ok), None)
        if failing is None:
            # The hint levels still follow: a hidden case may fail where every visible one passes (a learner's trial
            # read them, without this sentence's last words, as hints about a failure the table did not show).
            print(say("Every visible check of {title} passes. Run the grader cell: its report gives the rule of each "
                      "hidden case that fails. If one does, this hint may help:", title=_(info.title)) + "\n")
        else:
            case = VISIBLE_CASES[exercise][failing]
            if not_counted(report.rows[failing][2]) and report.notes:
                note = say("Why it is not counted: {notes}", notes=report.notes[0])
    for line in hint_lines(info, level, case, note):
        print(line)
    if callable(function):
        for note in kept_between_calls(function, info.entry):  # a check that passed before may fail now
            print(say("Note: {note}", note=note))


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
            this kernel belongs to, unless a copy in the working folder holds the functions this kernel runs and
            ``default`` does not (``notebook_file.holds``).
    Returns:
        ``GraderRun``; displayed as the report, headed by a warning when the graded file does not hold the code this
        kernel runs. Never raises: a grader failure is shown as text.
    """
    import os

    from grader.learner.progress import run_grader

    # What this kernel runs, to tell whether a saved file holds it (issue 25's trial: a copy run outside JupyterLab
    # was graded as the original, whose 129/129 headed the copy's report).
    sources = notebook_file.kernel_sources(sorted({f for exercise in BY_ID.values() for f in exercise.functions}))
    shown = sorted(sources)[:3]
    names = _(" and ").join([", ".join(shown[:-1]), shown[-1]] if len(shown) > 1 else shown) or _("code")
    warning = ""
    path, source = notebook_file.find_notebook(default)
    if source:
        print(say("Grading the saved file {path}, the notebook this cell is in ({source} says so). Save first: the "
                  "grader reads the file, not this kernel.", path=path, source=source))
        if not notebook_file.holds(path, sources):
            warning = (say("The saved {basename} does not hold the {names} this kernel runs, so the grade below is "
                           "for older code: save the notebook (Ctrl+S) and run this cell again.", basename=os.path.basename(path), names=names))
    else:
        copies = notebook_file.other_copies(default)
        holding = [name for name in [default] + copies if os.path.isfile(name) and notebook_file.holds(name, sources)]
        if sources and holding and default not in holding:
            path = holding[0]
            print(say("Grading the saved file {path}: Jupyter did not say which notebook this cell is in, and {path} "
                      "is the notebook in this folder that holds the {names} this kernel runs.", path=path, names=names))
        else:
            print(say("Grading the saved file {path}: Jupyter did not say which notebook this cell is in, so this is "
                      "the notebook's usual name. Save first: the grader reads the file, not this kernel.", path=path))
            example = copies[0] if copies else "my_copy.ipynb"
            here = say(" (this folder has {join})", join=', '.join(copies[:3])) if copies else ""
            print(say("Working in a copy{here}? Grade it with kit_selfcheck.grade_notebook(\"{example}\").", here=here, example=example))
            if sources and not holding:
                warning = (say("No saved notebook in this folder holds the {names} this kernel runs (unsaved "
                               "changes, or a notebook elsewhere?), so the grade below is for {path}, not for this "
                               "kernel's code. Save it, or name its file: kit_selfcheck.grade_notebook(\"{example}\").", names=names, path=path, example=example))
    report, data = run_grader(path)
    try:
        score, max_score = data["score"], sum(t["max_score"] for t in data["tests"])
    except (TypeError, KeyError):
        score, max_score = 0.0, 0.0
    if warning:
        report = f"⚠ {warning}\n\n{report}"  # before the score, which a learner reads first
    return GraderRun(report, score, max_score)
