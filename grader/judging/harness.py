"""The trusted side of a case: play the model and the dispatcher, record everything, judge nothing.

A case asks ``Harness.run(raw, model=..., tools=...)`` and gets a ``Transcript``: what the
submission returned, every observation it sent to ``ask_model``, every call it dispatched, and
any problem (timeout, crash). The counting happens here, in the grader's process, so a
submission cannot rewrite the record. Judging is ``grader.judging.expectations``' job.
"""

import builtins
import contextlib
import copy
import functools
import json
import os
import secrets
import shutil
import threading
import time
from dataclasses import dataclass, field

from grader.isolation.deadlines import Budget
from grader.isolation.limits import OUTPUT_LIMIT, Limits
from grader.isolation.sandbox import LoadReport, translated_place
from grader.isolation.sanitise import clean_text
from grader.isolation.worker import DESCRIPTIONS
from grader.judging import expectations
from grader.judging.draw import NAME_FIELD
from grader.judging.registries import SEED_TOOLS, encode_registry
from grader.judging.scripted_models import Answers, NeverCorrects, make_call
from grader.results.text_report import NOT_COUNTED, NOT_RUN, STOPPED
from grader.translations import N_, _, say

ASK_MODEL = {"__kit__": "ask_model"}
# A submission that hangs on this many cases in a row hangs on the rest too, almost always; stopping
# keeps a whole class's grading run from waiting (1 s x 100 cases) on one endless loop.
MAX_TIMEOUTS_IN_A_ROW = 2
# And one that hangs on every other case (keeping a counter across restarts) would dodge that rule and
# take the whole total budget (found by an adversarial test); a correct but slow solution times out
# on the five 1 MB cases at most.
MAX_TIMEOUTS_IN_TOTAL = 6
# Likewise for a worker that dies (crash, exit, garbage on the channel) on every case: restarting it
# 100 times proves nothing more than five times does.
MAX_CRASHES_IN_A_ROW = 5
# A retry loop that swallows the grader's halt (see grader.isolation.sandbox.HALT_GRACE) does so on every case;
# each one costs a worker restart.
MAX_UNSTOPPABLE_IN_A_ROW = 2
# How a case was cut short (grader.isolation.sandbox.CaseOutcome.stopped) -> (cases in a row that end the
# submission, the sentence every remaining case gets).
# (The sentence follows NOT_RUN, with {count} the cases in a row; made when it is said, in the learner's language.)
STREAK_LIMITS = {
    "timeout": (MAX_TIMEOUTS_IN_A_ROW,
                N_("the submission timed out on {count} cases in a row, so the remaining cases were skipped to keep "
                   "grading bounded; fix the endless loop first.")),
    "unstoppable": (MAX_UNSTOPPABLE_IN_A_ROW,
                    N_("on {count} cases in a row the submission kept calling ask_model/dispatch after the grader "
                       "stopped the call (it catches BaseException), so the remaining cases were skipped; let the retry "
                       "end after one attempt.")),
    "crash": (MAX_CRASHES_IN_A_ROW,
              N_("the submission's process died on {count} cases in a row, so the remaining cases were skipped; fix "
                 "that crash first.")),
}
DISPATCH = {"__kit__": "dispatch"}
CHECK = {"__kit__": "check"}


class Unplain:
    """Stands for a value the submission passed or returned that is not plain JSON data.

    Attributes:
        what: e.g. ``"an object of type Weird"`` (str). Compares unequal to everything.
    """

    def __init__(self, what):
        self.what = what

    def __eq__(self, other):
        return False

    __hash__ = None

    def __repr__(self):
        return f"<{self.what}>"


BUILTIN_EXCEPTIONS = frozenset(name for name in dir(builtins) if name[:1].isupper())


@functools.cache
def standard_exceptions():
    """``{class name: "module.Name"}`` for the exceptions of the standard-library modules a solution meets
    (json.JSONDecodeError above all); the built-ins are ``BUILTIN_EXCEPTIONS``. A fixed vocabulary: a
    hidden case may name one of these without showing anything the submission chose (issue 11: a
    JSONDecodeError was called "an exception of the submission's own class").

    Built on first need, once per process: it imports fifteen modules (tomllib, pickle, statistics...), about
    10 ms that a submission raising only built-in exceptions, or none, never needs.
    """
    import importlib

    found = {}
    for module_name in ("json", "re", "decimal", "ast", "csv", "binascii", "struct", "zlib", "copy", "queue",
                        "urllib.error", "configparser", "pickle", "tomllib", "statistics"):
        try:
            module = importlib.import_module(module_name)
        except ImportError:
            continue
        for name, value in vars(module).items():
            if (isinstance(value, type) and issubclass(value, BaseException) and name[:1].isupper()
                    and name not in BUILTIN_EXCEPTIONS):
                found.setdefault(name, f"{module_name}.{name}")
    return found


def redacted_exception(text):
    """What a hidden case keeps of an exception the submission raised, for its verdict: its built-in or
    standard-library type only (str); where it was raised is left out by the caller (which line raises can depend
    on the input too). The report shows even less (``Transcript.raised_shown``).

    The message, or a class the submission made up, could carry the hidden input back into the
    feedback (an adversarial test printed every hidden input that way).
    """
    if text.startswith("called sys.exit"):
        return EXIT_HIDDEN
    if text.startswith(OUTPUT_LIMIT):  # the grader's own output limit, worth naming; not a message that says so
        return OUTPUT_LIMIT
    name = text.partition(":")[0].strip()
    if name in BUILTIN_EXCEPTIONS:
        return REDACTED.format(name=name)
    standard = standard_exceptions()
    if name in standard:
        return REDACTED.format(name=standard[name])
    return OWN_CLASS


def shown_raise(text):
    """What the transcript says was raised (``redacted_exception``'s English, or a visible case's ``Type: message``),
    as a report shows it, in the learner's language (str)."""
    if text in (EXIT_HIDDEN, OWN_CLASS):
        return _(text)
    suffix = REDACTED.split("}", 1)[1]
    if text.endswith(suffix) and text[: -len(suffix)].replace(".", "").isidentifier():
        return _(REDACTED).format(name=text[: -len(suffix)])
    return text


def from_description(description):
    """Turn the worker's ``{"plain": v}`` / ``{"unplain": what}`` into ``v`` or an ``Unplain``.

    ``what`` is kept only when it is one of the worker's fixed sentences (``grader.isolation.worker.DESCRIPTIONS``):
    the worker runs the submission's code, so anything else it sends could be the submission's text.
    """
    if isinstance(description, dict) and "plain" in description:
        return description["plain"]
    what = description.get("unplain") if isinstance(description, dict) else None
    return Unplain(what if what in DESCRIPTIONS else "a value that is not plain JSON data")


# What the report says a submission raised in a hidden case. Its type is judged but never shown: choosing among
# the built-in exception types by a character of the input tells about 5 bits of every hidden input per run
# (issue 40). Visible cases name the type, the message and the line: their inputs are public.
HIDDEN_RAISE = N_("an exception (in a hidden case, which one, its message and its line are not shown)")
# How ``redacted_exception`` words what it keeps (English, as the transcript holds it); ``shown_raise`` translates.
REDACTED = N_("{name} (its message and line are not shown in a hidden case)")
OWN_CLASS = N_("an exception of the submission's own class (not shown in a hidden case)")
EXIT_HIDDEN = N_("called sys.exit (its argument is not shown in a hidden case)")
# The fixed sentences a hidden case still gives in full: they carry nothing of the input (the shipped stub's
# NotImplementedError, sys.exit, the grader's own output limit).
FIXED_RAISES = ("called sys.exit", "NotImplementedError", OUTPUT_LIMIT)


@dataclass
class Transcript:
    """Everything one case observed.

    Attributes:
        returns: one entry per call that finished: ``("returned", value)`` or ``("raised", "Type: msg")``.
        observations: what was passed to ask_model, in order (str, or ``Unplain``).
        dispatches: ``(name, arguments)`` pairs passed to dispatch, in order.
        dispatch_replies: what dispatch returned to the submission, in order.
        problem: a sentence if the case did not finish (timeout, crash, missing function), else None.
        output: what the submission printed during the case (str, capped).
        notes: sentences about the submission that explain failures (e.g. TOOLS bound as a default).
        tools_replaced: True when the case used a registry other than the seed's.
        drawn_arguments: the valid optional fields the draw sent in a call the case expects dispatched (``{field:
            value}``, in the cases' words; ``ExerciseHarness.run``'s ``vary="dispatch"``), else {}.
        drawn_name: ``(the tool name as written, the name drawn in its place)`` of a hidden ``parse_call`` case whose
            call had nothing else to draw (``grader.judging.draw.Draw.with_drawn_name``), else None.
        function: the learner's function the case called (str), for messages.
        hidden: the case is a hidden one (bool): what the submission raised is judged, not shown.
        stopped: how the worker cut the run short (``grader.isolation.sandbox.CaseOutcome.stopped``: ``"timeout"``,
            ``"unbounded"``...), or None.
        model_raised: how many times the scripted model's ask_model raised (int): asking again after that is a
            second retry of its own kind (``expectations.expect_one_retry``).
        worker: which worker ran the case (an opaque key, or None): what a submission keeps between calls lives in
            one worker (``expectations.stopped_asking``).
        checks: ``(value, [call, observation])`` for each ``check`` a turn case (notebook 7) asked the grader, in order.
        turn: the assistant message a turn case handed over (``ExerciseHarness.turn``), in the cases' words, or None.
        done: what the caller's record held before a turn case's first answer (``{call_id: answer}``), or {}.
        model_requests: the conversations a loop case (notebook 8) handed its model, in order (lists of messages).
        sleeps: the waits a loop case asked for, in seconds, in order (list of whatever was passed).
        loop: a loop case's ``(task, steps, limits)`` as the cases wrote them (``ExerciseHarness.loop``), or None.
        paths: a path case's ``[(path, root, verdict, rule, secrets), ...]`` as handed over (``ExerciseHarness.confined``), or [].
    """

    returns: list = field(default_factory=list)
    observations: list = field(default_factory=list)
    dispatches: list = field(default_factory=list)
    dispatch_replies: list = field(default_factory=list)
    problem: str | None = None
    output: str = ""
    notes: list = field(default_factory=list)
    tools_replaced: bool = False
    drawn_arguments: dict = field(default_factory=dict)
    drawn_name: tuple | None = None
    stopped: str | None = None
    function: str = "handle_tool_call"
    hidden: bool = False
    worker: object = None
    model_raised: int = 0
    checks: list = field(default_factory=list)
    turn: object = None
    done: dict = field(default_factory=dict)
    model_requests: list = field(default_factory=list)
    sleeps: list = field(default_factory=list)
    loop: object = None
    paths: list = field(default_factory=list)

    @property
    def result(self):
        """The value the (only or last) call returned, or None if it raised or never finished."""
        if self.returns and self.returns[-1][0] == "returned":
            return self.returns[-1][1]
        return None

    @property
    def raised(self):
        """``"Type: message"`` if the (only or last) call raised, else None: for verdicts (in a hidden case the type
        only, ``redacted_exception``); a report says ``raised_shown``."""
        if self.returns and self.returns[-1][0] == "raised":
            return self.returns[-1][1]
        return None

    @property
    def raised_shown(self):
        """What a report may say the (only or last) call raised (str), or None: ``raised`` in a visible case; in a
        hidden one ``HIDDEN_RAISE``, but for the ``FIXED_RAISES`` sentences."""
        raised = self.raised
        if raised is None or not self.hidden or raised.startswith(FIXED_RAISES):
            return None if raised is None else shown_raise(raised)
        return _(HIDDEN_RAISE)


class Responder:
    """Answers the worker's ``ask_model``, ``dispatch`` and ``check`` requests and records them in a Transcript.

    Args:
        transcript: the ``Transcript`` to fill. model: the scripted model. dispatch_reply: what dispatch returns.
        tools: the case's registry (Python classes), against which ``check`` requests are answered with the
            grader's trusted steps (``grader.judging.reference_steps.check``).
        allow_check: answer ``check`` requests (bool). Only a loop judged alone (retry-loop) and a turn's answer
            (notebook 7) are handed ``check``; any other exercise asking for it is refused like an unknown request,
            so a submission that walks the worker's frames to the proxy cannot make the grader do its work (found by
            an attacker: 129/129 on the capstone and 44/44 on parse-call with no checks of its own).
        checker: what answers ``check``: ``callable(value, tools) -> [call, observation]``; the trusted steps on a raw
            call (``reference_steps.check``) by default, on a provider's tool call for notebook 7
            (``reference_steps.check_tool_call``).
        loop_model: notebook 8's model (``grader.judging.scripted_models.LoopScript``), or None: then ``model`` and
            ``sleep`` requests are refused.

    ``dispatch_reply`` may raise ``ConnectionError``, ``TimeoutError`` or ``RuntimeError`` (a tool that failed or timed
    out): the submission's ``dispatch`` then raises the same (``grader.isolation.worker.PROXY_ERRORS``).
    """

    def __init__(self, transcript, model, dispatch_reply, tools=None, allow_check=False, checker=None, loop_model=None):
        from grader.judging import reference_steps

        self.transcript = transcript
        self.model = model
        self.dispatch_reply = dispatch_reply
        self.tools = tools
        self.allow_check = allow_check
        self.checker = checker or reference_steps.check
        # Only a turn's checks are judged from the record (expectations.expect_turn_answered); a loop's check may be
        # handed a 1 MB call, and renaming it back to record it cost the case its time (a clean-clone CI's slow tier).
        self.record_checks = checker is not None
        # Notebook 8's model (``scripted_models.LoopScript``), answering ``model`` requests, and its ``sleep``; any
        # other exercise asking for either is refused like an unknown request.
        self.loop_model = loop_model

    def answer(self, op, message):
        """Return the reply message for one request from the worker (see ``Sandbox.run``)."""
        if op == "ask_model":
            observation = from_description(message.get("observation"))
            self.transcript.observations.append(observation)
            try:
                reply = self.model(observation if isinstance(observation, str) else None)
            except (ConnectionError, TimeoutError, RuntimeError) as exc:
                self.transcript.model_raised += 1
                return {"op": "raise", "type": type(exc).__name__, "message": str(exc)}
            return {"op": "reply", "value": reply}
        if op == "dispatch":
            name = from_description(message.get("name"))
            arguments = from_description(message.get("args"))
            self.transcript.dispatches.append((name, arguments))
            try:
                reply = self.dispatch_reply(name, arguments)
            except (ConnectionError, TimeoutError, RuntimeError) as exc:  # a tool that failed (notebook 7's cases)
                self.transcript.dispatch_replies.append(exc)
                return {"op": "raise", "type": type(exc).__name__, "message": str(exc)}
            self.transcript.dispatch_replies.append(reply)
            return {"op": "reply", "value": reply}
        if op == "model" and self.loop_model is not None:
            messages = from_description(message.get("messages"))
            self.transcript.model_requests.append(copy.deepcopy(messages))
            try:
                reply = self.loop_model(messages)
            except (ConnectionError, TimeoutError, RuntimeError) as exc:
                self.transcript.model_raised += 1
                return {"op": "raise", "type": type(exc).__name__, "message": str(exc)}
            return {"op": "reply", "value": reply}
        if op == "sleep" and self.loop_model is not None:
            self.transcript.sleeps.append(from_description(message.get("seconds")))
            return {"op": "reply", "value": None}
        if op == "check" and self.allow_check:
            raw = from_description(message.get("raw"))  # an Unplain is no string: the check says so
            answer = self.checker(raw, self.tools if self.tools is not None else SEED_TOOLS)
            if self.record_checks:
                self.transcript.checks.append((raw, answer))
            return {"op": "reply", "value": answer}
        return {"op": "raise", "type": "RuntimeError", "message": f"unknown request {op!r}"}


class WithDrawnRequired:
    """A scripted model whose replies get the fields a draw made required on their tool (``grader.judging.draw.Draw.
    with_required``): a case's corrected retry is written without them, and without them it would carry a fault the
    case did not write. The fields added go into ``transcript.drawn_arguments``, where ``expect_dispatched`` expects
    them.

    Args:
        model: the case's scripted model (``callable(observation) -> reply``). draw: the ``Draw``. tools: the
            registry the run installs (cases' words). transcript: the run's ``Transcript``.
    """

    def __init__(self, model, draw, tools, transcript):
        self.model, self.draw, self.tools, self.transcript = model, draw, tools, transcript

    def __call__(self, observation):
        """The model's reply to ``observation`` (str or None), with the drawn required fields of its tool."""
        reply = self.model(observation)
        if isinstance(reply, str) and self.tools is not None:
            reply, fields = self.draw.with_required(reply, self.tools)
            self.transcript.drawn_arguments = {**self.transcript.drawn_arguments, **fields}
        return reply


class DrawnResponder:
    """A ``Responder`` seen through a draw (``grader.judging.draw.Draw``): the worker's requests are renamed back
    into the cases' own words before ``inner`` answers (and records) them, and the answer is renamed forward.

    Args:
        inner: the ``Responder`` (anything with ``answer(op, message) -> dict``). draw: the ``Draw``.
    """

    def __init__(self, inner, draw):
        self.inner = inner
        self.draw = draw
        # The registry as the worker sees it, for the trusted check (None: the check is not handed over).
        tools = getattr(inner, "tools", None) if getattr(inner, "allow_check", False) else None
        self.worker_tools = draw.forward(tools) if tools is not None else None

    def answer(self, op, message):
        """``inner.answer`` with ``message``'s plain values renamed back and the reply's value and message renamed.

        The trusted check (``check`` requests of a loop judged alone) reads the call as the worker sent it, against the
        registry as the worker sees it, and its answer goes back as it is: renamed forward, an observation made in the
        cases' words to fit 2,000 characters could pass them (an image's length is drawn), and the loop that passed it
        on lost the case (issue 24)."""
        if op == "check" and self.worker_tools is not None:
            raw = from_description(message.get("raw"))  # an Unplain is no string: the check says so
            answer = self.inner.checker(raw, self.worker_tools)
            transcript = getattr(self.inner, "transcript", None)
            if transcript is not None and self.inner.record_checks:  # in the cases' words, as the transcript holds all
                transcript.checks.append((self.draw.backward(raw), self.draw.backward(answer)))
            return {"op": "reply", "value": answer}
        message = {key: ({"plain": self.draw.backward(value["plain"])} if isinstance(value, dict) and "plain" in value
                         else value) for key, value in message.items()}
        reply = dict(self.inner.answer(op, message))
        for key in ("value", "message"):
            if key in reply:
                reply[key] = self.draw.forward(reply[key])
        return reply


def with_id(answer, call_id):
    """A stored answer (an OpenAI tool message or an Anthropic tool_result block) with its id replaced by ``call_id``."""
    answer = dict(answer)
    for key in ("tool_call_id", "tool_use_id"):
        if key in answer:
            answer[key] = call_id
    return answer


def drawn_ids(message, provider, draw_id):
    """``message`` (an assistant turn, JSON data) with each tool call's id replaced by ``draw_id(id)``; a call whose id
    is not a non-empty string keeps it, and two calls with the same id keep one id."""
    message = copy.deepcopy(message)
    calls = (message.get("tool_calls") or [] if provider == "openai" else
             [b for b in message.get("content") or [] if isinstance(b, dict) and b.get("type") == "tool_use"])
    drawn = {}
    for call in calls:
        if isinstance(call, dict) and isinstance(call.get("id"), str) and call["id"]:
            call["id"] = drawn.setdefault(call["id"], draw_id(call["id"]))
    return message


def receipt_dispatch(name, arguments):
    """The grader's dispatcher: returns a fresh receipt with a random token nobody can guess.

    Returns:
        ``{"status": "ok", "tool": name, "receipt": "<8 hex digits>"}`` (or a receipt without the
        tool name when the name is not a string). A submission that returns this exact object
        must have called dispatch and passed its result through unchanged.
    """
    return {"status": "ok", "tool": name if isinstance(name, str) else None, "receipt": secrets.token_hex(4)}


def tools_bound_sentence(function):
    """What a learner is told when ``function`` (str) binds TOOLS as a default argument (str): by the grader's notes
    (``Harness.notes_for``) and by the notebooks' self-check (``grader.learner.selfcheck.kept_between_calls``)."""
    return say("{function} binds TOOLS as a default argument when it is defined, so it never sees the registry the "
               "grader installs; read the global TOOLS inside the function.", function=function)


class Harness:
    """One loaded submission, for the cases of one exercise (each exercise gets its own worker, the capstone two).

    Args:
        sandbox: a ``grader.isolation.sandbox.Sandbox`` for the submission, or None when ``fatal`` is given.
        spare: a second ``Sandbox`` of the same submission (the capstone's), or None. With a spare and a draw, each
            run goes to one of the two workers, drawn, and a case's siblings to the other one than the case's own
            call, at the same time (``ExerciseHarness.run``): nothing a submission remembers from one handover can meet
            the same call's other verdict (issue 24's eighth attacker trial, ``tests/attacks/order_memory.py``), no run
            ends before its pair starts (the ninth, ``tests/attacks/timing_phase_memory.py``), and the kernel's rules
            keep the two workers from telling each other (``grader.isolation.kernel_rules``: no shared file, socket,
            IPC, signal or trace). Only the spare's fatal load sentence is used; notes come from ``sandbox``.
        spare_code: ``(chunks, entries)`` the spare loads (``Sandbox.begin_load``) once ``sandbox`` has loaded without a
            fatal problem, or None when the spare was sent its code already.
        total_seconds: the time budget for all cases of this submission (float, s; ``budget``'s seconds when one is
            given); cases after it is spent fail at once with a sentence saying so.
        fatal: a sentence explaining why the submission cannot run at all (it could not be read).
        draw: the ``grader.judging.draw.Draw`` that renames the words of every hidden case's input (and of the
            canaries'), or None to hand the cases' inputs over as they are written (the visible cases always are).
        budget: the ``grader.isolation.deadlines.Budget`` shared with other exercises' harnesses (and, in a batch,
            a student's other files); None to start one of ``total_seconds`` now. What the machine kept a counted run
            of the worker waiting is given back to it (issue 25).
    """

    def __init__(self, sandbox, total_seconds=Limits.total_seconds, fatal=None, budget=None, draw=None, spare=None,
                 spare_code=None):
        self.sandbox = sandbox
        self.spare = spare
        self._spare_code = spare_code
        self._loading = threading.Lock()  # a call and its siblings run at once (ExerciseHarness.run): one load each
        self._spare_report = None
        self.draw = draw
        self.budget = budget if budget is not None else Budget(total_seconds)
        self.total_seconds = self.budget.seconds
        self._report = LoadReport(fatal=fatal) if fatal else None
        self.printed = ""
        self.last_transcript = None
        self.redact = False  # set by the plugin while a hidden case runs
        self.streak = (None, 0)  # (how the last cases were cut short, how many in a row)
        self.timeouts_in_total = 0
        self.placed = None  # the worker (0 or 1) a run not told its worker goes to; None: drawn (``placed_in``)
        # Which hidden calls are also handed over unchanged in the other worker (``ExerciseHarness.run``), from a
        # generator of its own: the seed's other draws stay as they were.
        self.anchors = draw.generator("anchors") if draw is not None else None
        self.disagreement = False  # whether a call and its unchanged copy were answered apart (``ANCHOR_SHARE``)
        self.busy = False  # a counted run timed out because the machine kept the worker waiting (``CaseOutcome.busy``)

    def snapshot(self):
        """What a case may change in this harness and its draw, to be put back by ``restore`` so that a case run
        again after the machine timed it out (``busy``) draws and counts as its first run would have (opaque)."""
        drawn = None if self.draw is None else self.draw.state()
        return (drawn, self.anchors.getstate() if self.anchors is not None else None, self.streak,
                self.timeouts_in_total, self.printed, self.last_transcript, self.disagreement)

    def restore(self, state):
        """Put back what ``snapshot`` took, and clear ``busy``."""
        drawn, anchors, self.streak, self.timeouts_in_total, self.printed, self.last_transcript, self.disagreement = state
        if drawn is not None:
            self.draw.set_state(drawn)
        if anchors is not None:
            self.anchors.setstate(anchors)
        self.busy = False

    @property
    def report(self):
        """The ``LoadReport``; the first use waits for the worker to finish loading the submission,
        so that the grader imports pytest while the worker loads."""
        if self._report is not None:
            return self._report
        with self._loading:
            if self._report is None:
                self._report = self.sandbox.load()
                self.budget.forgive(self._report.waited)
                if self.spare is not None and self._spare_code is not None and not self._report.fatal:
                    self.spare.begin_load(*self._spare_code)  # it loads while the first cases run
                    self._spare_code = None
        return self._report

    def worker(self, index=None):
        """``(sandbox, fatal)``: the worker a run goes to and why it cannot run there (str) or None.

        Args:
            index: 0 (the first worker), 1 (the spare) or None (drawn from the draw's random when there is a spare
                and a draw; else the first). With no spare every index means the first worker.
        """
        if self.spare is None:
            return self.sandbox, None
        if index is None:
            # Drawn even when placed, so that a placed canary leaves the seed's later draws as they were.
            index = self.draw.random.randrange(2) if self.draw is not None else 0
            index = self.placed if self.placed is not None else index
        if index == 0:
            return self.sandbox, None
        with self._loading:
            if self._spare_report is None:
                if self._spare_code is not None:
                    self.spare.begin_load(*self._spare_code)
                    self._spare_code = None
                self._spare_report = self.spare.load()
        return self.spare, self._spare_report.fatal

    @contextlib.contextmanager
    def placed_in(self, index):
        """Within the block every run not told its worker goes to worker ``index`` (0, 1, or None: drawn as usual).

        For the canaries (``grader.judging.pytest_plugin``): each kind runs in both workers, so a submission whose two
        workers answer differently, each by a bit of its own (its process id), fails the canary in one of them; with
        each canary run's worker drawn, all three of a kind fell in one worker one grading in eight, and such a file
        kept 51 hidden capstone points against its control's 40 (``tests/attacks/worker_identity_split.py``).
        """
        previous, self.placed = self.placed, index
        try:
            yield
        finally:
            self.placed = previous

    def pick(self):
        """A drawn worker index (0 or 1) for a run and its siblings' other one; None when there is one worker."""
        if self.spare is None or self.draw is None:
            return None
        return self.draw.random.randrange(2)

    def take_output(self):
        """Return and forget what the submission printed since the last call (str, capped per case)."""
        printed, self.printed = self.printed, ""
        return printed

    def problem_for(self, function):
        """A sentence when ``function`` cannot be called at all (or time is up), else None."""
        if self.report.fatal:
            return self.report.fatal
        state = self.report.entries.get(function, {}).get("state", "missing")
        if state != "ok":
            first = say(" (first problem while loading: {problem})", problem=self.report.problems[0].rstrip(".")) \
                if self.report.problems else ""
            # Said as "Not run:" so that the report tells it once and folds the cases after it (a syntax error made
            # every case of a Russian learner's trial repeat it).
            if state == "missing":
                return say(NOT_RUN) + " " + say("No function named {function} was found; keep the name and signature "
                                                "from the stub{first}.", function=function, first=first)
            return say(NOT_RUN) + " " + say("{function} is not a function, so it cannot be called{first}.",
                                            function=function, first=first)
        if self.budget.spent():
            return say(STOPPED) + " " + say("the submission used up its total time budget of {seconds:g} s.",
                                            seconds=self.total_seconds)
        kind, count = self.streak
        if kind in STREAK_LIMITS and count >= STREAK_LIMITS[kind][0]:
            return say(NOT_RUN) + " " + say(STREAK_LIMITS[kind][1], count=STREAK_LIMITS[kind][0])
        if self.timeouts_in_total >= MAX_TIMEOUTS_IN_TOTAL:
            return say(NOT_RUN) + " " + say("the submission timed out on {count} cases, so the remaining cases were "
                                            "skipped to keep grading bounded; find what makes it hang or so slow.",
                                            count=MAX_TIMEOUTS_IN_TOTAL)
        return None

    def notes_for(self, function):
        """Sentences about how ``function`` binds the grader's globals (see the contract)."""
        bound = self.report.entries.get(function, {}).get("bound", [])
        notes = []
        if "TOOLS" in bound:
            notes.append(tools_bound_sentence(function))
        if "dispatch" in bound:
            notes.append(say("{function} binds dispatch as a default argument when it is defined, so the grader's "
                             "dispatch is never called; call the global dispatch inside the function.",
                             function=function))
        for pair in self.report.entries.get(function, {}).get("aliased", []):
            # A second name bound at module level (REGISTRY = TOOLS) is the default-argument mistake in another
            # form (issue 11); the worker sends identifiers only.
            if not (isinstance(pair, list) and len(pair) == 2 and all(isinstance(p, str) and p.isidentifier()
                                                                       and len(p) <= 40 for p in pair)):
                continue
            name, alias = pair
            if name == "TOOLS":
                notes.append(say("{function} reads {alias}, a second name for TOOLS bound when the module ran ({alias} "
                                 "= TOOLS), so it never sees the registry the grader installs; read the global TOOLS "
                                 "inside the function.", function=function, alias=alias))
            else:
                notes.append(say("{function} calls {alias}, a second name for dispatch bound when the module ran "
                                 "({alias} = dispatch), so the grader's dispatch is never called; call the global "
                                 "dispatch inside the function.", function=function, alias=alias))
        return notes

    def execute(self, transcript, function, invocations, globals_=None, responder=None, view=None, worker=None,
                counted=True, max_requests=None, prepare=None):
        """Run ``function(*args)`` for each argument list in the worker and fill ``transcript``.

        Args:
            transcript: the ``Transcript`` to fill (returns, problem, output).
            function: the learner's function name (str).
            invocations: list of argument lists (JSON data with ``__kit__`` markers).
            globals_: module globals to install first (dict), or None.
            responder: answers ask_model/dispatch requests (``Responder``), or None.
            view: how the worker turns the result into plain data: None, ``"texts"`` (a list of
                problems becomes their str()), ``"pair_with_texts"`` (``(value, problems)``) or ``"all_so_far"``
                (after each call, every result of the case so far, as it is then).
            worker: which worker runs it (``worker``: 0, 1 or None for a drawn one).
            counted: False for a sibling, which may run at the same time as its case in the other worker: it leaves the
                harness's record alone (the last transcript, what was printed, the cases cut short in a row and in all).
            max_requests: requests one call may make (int; ``grader.isolation.sandbox.Sandbox.run``), or None.
            prepare: ``callable(scratch) -> invocations`` run in the grader once the worker is chosen, given its scratch
                folder (str), returning the invocations (replacing ``invocations``), handed over without renaming: a
                case whose input names files the grader makes there (notebook 9), whose names are drawn by the case.
        Returns:
            the same ``transcript``.
        """
        if counted:
            self.last_transcript = transcript
        transcript.function = function
        transcript.hidden = self.redact
        problem = self.problem_for(function)
        sandbox, fatal = self.worker(worker) if not problem else (None, None)
        if problem or fatal:
            transcript.problem = problem or fatal
            return transcript
        responder = responder or Responder(transcript, NeverCorrects(None), receipt_dispatch)
        if prepare is not None:
            try:
                invocations = prepare(sandbox.scratch)
            except OSError as exc:  # the grader's own files: a machine that refuses links cannot run this case
                transcript.problem = say("The grader could not make this case's folder here ({error}).",
                                         error=type(exc).__name__)
                return transcript
        draw = self.draw if self.redact and prepare is None else None
        expectations.renamed_by = draw
        if draw is not None:
            # What the worker gets is renamed; what it sends back is renamed back before anything records it.
            invocations, globals_ = draw.forward(invocations), draw.forward(globals_ or {})
            responder = DrawnResponder(responder, draw)
        transcript.worker = id(sandbox)
        # Passed only when set: the run's other callers (and the tests that wrap it) keep the bound of ``Limits``.
        extra = {} if max_requests is None else {"max_requests": max_requests}
        outcome = sandbox.run(function, invocations, globals_ or {}, responder, view=view, hidden=self.redact, **extra)
        for entry in outcome.results:
            if "raised" in entry:
                # Where it raised is shown in visible cases only: which line raised depends on the input.
                where = say(" (at {place})", place=translated_place(clean_text(entry["where"], 200))) \
                    if entry.get("where") and not self.redact else ""
                text = clean_text(entry["raised"], 300) or "an exception"
                if self.redact:
                    text = redacted_exception(text)
                transcript.returns.append(("raised", f"{text}{where}"))
            else:
                value = from_description(entry.get("result"))
                transcript.returns.append(("returned", draw.backward(value) if draw is not None else value))
        transcript.problem, transcript.stopped = outcome.problem, outcome.stopped
        transcript.output = outcome.output
        if not counted:
            return transcript
        self.printed += outcome.output
        kind, count = self.streak
        self.streak = (outcome.stopped, count + 1 if outcome.stopped == kind else 1) if outcome.stopped else (None, 0)
        self.timeouts_in_total += outcome.stopped == "timeout"
        self.busy = self.busy or outcome.busy
        self.budget.forgive(outcome.waited)  # a sibling's wait overlaps its case's: only counted runs give back
        return transcript

    def for_exercise(self, exercise):
        """The view of this submission that one exercise's cases use (``ExerciseHarness``)."""
        return ExerciseHarness(self, exercise.entry, exercise.style)


# What a case that passed on its own call says when its sibling (grader.judging.siblings) was handled wrongly. It
# names no input: the case is hidden.
SIBLING_VALID = N_("Beside this call the grader sent the very same call with a registry that allows it (the tool and "
                 "every field it sends declared as sent), and it was not dispatched as sent: refuse a call for what the "
                 "registry it meets says, never for how the call looks.")
SIBLING_REFUSED = N_("Beside this call the grader sent the very same call with a registry that forbids it (one more "
                   "field required, which the call leaves out), and it was dispatched: check every call against the "
                   "registry it meets, never against calls you have seen.")
SIBLING_SHORT_FIX = N_("Beside this call the grader sent the very same call with the same registry, answered by a fix from "
                     "the model that leaves out a field the tool requires, and that fix was dispatched: check the retry "
                     "against the registry as every call, never by what fixes looked like before.")
SIBLING_SHORT_VALID = N_("Beside this call the grader sent the very same call with a registry that refuses it and allows "
                       "the model's fix (a field it leaves out declared optional there), and that fix was not dispatched "
                       "as sent: check the retry against the registry it meets, never by how it compares with the first "
                       "call.")
SIBLING_RAISED = N_("Beside this call the grader sent the very same call with a registry near this one, and there the "
                  "function raised an exception: it must end every call with a verdict, dispatched or refused, and never "
                  "raise.")
SIBLING_UNFINISHED = N_("Beside this call the grader sent the very same call with a registry near this one, and there "
                      "the function was stopped before it ended (it hung past the time limit, crashed or went past a "
                      "limit): it must end every call with a verdict, dispatched or refused.")
# How a sibling's run may be cut short and still count as handled wrongly (``grader.isolation.sandbox.CaseOutcome``):
# not "unbounded" or "unstoppable" (a retry without bound, which the retry cases judge), nor a run that never started
# (the time budget spent, a worker that could not load: the case's own call meets the same).
UNFINISHED = frozenset({"timeout", "crash", "limit"})
SIBLING_FIX = N_("Beside this call the grader sent the very same call, answered by the same fix from the model, with a "
               "registry that forbids the fix (one more field required, which the fix leaves out), and the fix was "
               "dispatched: check the retry against the registry as every call, never by what fixes looked like before.")


def registry_key(tools):
    """What tells two registries apart (str): their tools, fields and type names, as JSON."""
    return json.dumps(encode_registry(tools), sort_keys=True, default=str)


_KEYS = {}  # id(registry) -> (registry, its key): the registries the cases name, kept alive so that no id is reused


def registry_key_of(tools):
    """``registry_key`` of a registry the cases hand over again and again (a module's constant, a case's drawn
    registry), made once per object: every hidden run looks its registry up (ExerciseHarness.run). The registry must
    not change afterwards; the cases' registries never do. At most 256 are kept."""
    known = _KEYS.get(id(tools))
    if known is not None and known[0] is tools:
        return known[1]
    if len(_KEYS) >= 256:
        _KEYS.clear()
    key = registry_key(tools)
    _KEYS[id(tools)] = (tools, key)
    return key


# The share of a hidden capstone call's runs with siblings that are also handed over unchanged (the same text, registry
# and model) in the other worker. A submission whose two workers answer apart, by a bit each reads from its process
# id, gets a call and its sibling right half the time without a check; the canaries catch it only where they run, and
# a file that flipped its verdict only in runs no canary could be (a registry bound anew, a tool met before) kept 57 to
# 62 hidden points against its control's 42 (issue 24's tenth attacker trial). Its unchanged copy is answered apart
# from the call in a third of its cases, and then every case with siblings is voided; a submission whose verdict
# depends only on the call and the registry always answers both alike.
ANCHOR_SHARE = 1 / 3


def _apart(one, other):
    """Whether two runs of the same call, registry and model (``Transcript``, or None) ended differently: other
    dispatches (names, arguments, how many), or one returned where the other raised or was halted for asking too often.
    A deterministic submission ends both alike. False when either was cut short by the machine (a timeout, a crash, a
    bound on memory, output or disk: the time limits are wall-clock ones until issue 25), so a loaded machine voids
    nothing; an exception raised or a halt after too many requests counts, since a worker that raised on every run it
    could not place left the copies unjudged (issue 24's eleventh attacker trial)."""
    if one is None or other is None:
        return False

    def ending(transcript):
        if transcript.stopped == "unbounded":
            return "halted"
        if transcript.problem:
            return None
        return "raised" if any(kind == "raised" for kind, _value in transcript.returns) else "returned"

    endings = ending(one), ending(other)
    if None in endings:
        return False
    if endings[0] != endings[1] or len(one.dispatches) != len(other.dispatches):
        return True
    return not all(expectations.strict_equal(a[0], b[0]) and expectations.strict_equal(a[1], b[1])
                   for a, b in zip(one.dispatches, other.dispatches))


class _Siblings(threading.Thread):
    """A hidden call's siblings run one after another in the other worker than the call, while the call runs
    (``ExerciseHarness.run``). ``finish()`` waits for them and raises what they raised (an internal error of the
    grader's, never the submission's: that comes back as a sentence)."""

    def __init__(self, view, siblings, dispatch_reply, fill, worker):
        super().__init__(name="kit-siblings", daemon=True)
        self.view, self.siblings, self.dispatch_reply, self.fill, self.worker = view, siblings, dispatch_reply, fill, worker
        self.error = None

    def run(self):
        try:
            for sibling in self.siblings:
                self.view._run_sibling(*sibling, self.dispatch_reply, self.fill, self.worker)
        except BaseException as exc:  # handed to the case's thread by finish()
            self.error = exc

    def finish(self):
        """Wait for the siblings (each bounded by the worker's own limits) and raise what they raised, if anything."""
        self.join()
        if self.error is not None:
            raise self.error


class ExerciseHarness:
    """What a case sees: the submission, called the way its exercise is called.

    Args:
        harness: the shared ``Harness``.
        entry: the exercise's main function (str).
        style: ``"seed"`` (TOOLS and dispatch are module globals: the capstone), ``"explicit"``
            (``entry(raw, ask_model, tools, dispatch, check)``, ``check`` the grader's trusted steps 1-3)
            or ``"call"`` (a plain function).
    """

    def __init__(self, harness, entry, style):
        self.harness = harness
        self.entry = entry
        self.style = style
        # (the registry as written, as a key; the registry the case drew from it) of the case's last drawn run or
        # ``varied``, and (fields, indices) its last varied call sent (``Draw.sent``, ``Draw.placed``), for its twins;
        # the plugin forgets both before each case (``forget_the_case``).
        self.last_drawn = self.last_sent = None
        # Hidden capstone runs get siblings (``grader.judging.siblings``; the plugin turns them off for its canaries),
        # and the first sibling of a case handled wrongly fails the case once its own checks pass (str or None).
        self.siblings, self.sibling_failure = True, None
        # Whether the case's call had siblings in the other worker (``paired``): those are the cases a verdict that
        # depends on the worker could win, voided when the same call was answered apart (``ANCHOR_SHARE``).
        self.paired = False
        self._anchor = None  # the transcript of the last unchanged copy run in the other worker
        # The registry the last ``observe`` handed over (the case's, or one drawn around its call), for a case that
        # expects its tools listed.
        self.last_observed_tools = None

    @property
    def report(self):
        """The shared ``LoadReport``."""
        return self.harness.report

    def forget_the_case(self):
        """Forget what the last case drew (its registries, its varied call's fields, the fields it made required):
        each case draws its own; and whether a sibling of it was handled wrongly."""
        self.last_drawn = self.last_sent = self.sibling_failure = None
        self.paired = False
        if self.harness.draw is not None:
            self.harness.draw.required_values = {}
            self.harness.draw.forget_template()

    def run(self, raw, *, model=None, tools=None, dispatch_reply=receipt_dispatch, vary=False, in_place=None):
        """Run the tool-call entry on one raw call (or several in a row) and record what happens.

        Args:
            raw: the first raw call (str), or a list of them to run one after another in the same
                loaded submission (each with its own retry).
            model: a ``grader.judging.scripted_models.ScriptedModel``; default: one that repeats ``raw``.
            tools: the registry to use; default: the seed's.
            dispatch_reply: ``callable(name, arguments) -> JSON value`` that dispatch returns.
            vary: what a hidden run draws besides the renaming (``grader.judging.draw.Draw``); a visible case's run
                draws nothing. Every hidden run draws at least its registry, so whether a registry has drawn fields
                tells nothing about what a case expects (issue 24's attacker trial: counting the registry's optional
                fields told the refused cases from the dispatched ones, 112/129 with no schema checks).
                - False: the case's drawn registry for the registry as written: valid optional fields on every tool,
                  none sent (``Draw.varied_registry``), drawn at the case's first run on that registry and the same
                  for its later runs (a twin must see the registry its judged call saw: a text that dumps the
                  registry would otherwise differ where the drawn fields do); the calls as written.
                - True: for a case whose every call is refused for a fault of its own: valid optional fields drawn
                  around each fault too (``Draw.varied_call``, one registry for all). A ``NeverCorrects`` model
                  repeating one of the calls then repeats it as it was handed over.
                - ``"dispatch"``: for a case that expects its (last) call dispatched as sent: one valid ``json.dumps``
                  call of a registered tool is made again from its kind (``Draw.templated_valid``: its values and
                  declared types kept, every name and the rest drawn, the names read back as the case's words), others
                  are varied as with True; the drawn fields the last call sends go into
                  ``Transcript.drawn_arguments``, which ``grader.judging.expectations.expect_dispatched`` expects among
                  the dispatched arguments.
                - ``"template"``: for a case with one call that only expects it refused: the call and its registry
                  made again from the call's kind, its own structure drawn (``Draw.templated``: names, the types and
                  values of the fields not at fault, more fields, other tools); a call that is no ``json.dumps`` call
                  of a registered tool with an arguments object is varied as with True.
                - ``"like-last"``: for a case's second call, expected dispatched, that must meet the drawn fields of
                  the case's last varied call (``_like_last``): a second call with fields of its own could be told
                  from the first by them, and a table that knew the first refused it by rote and dispatched the
                  second (issue 24's third attacker trial).
                A varied run's registry (True, "dispatch", "like-last") is the case's drawn registry for later runs.
            in_place: the registry goes into the module's own TOOLS dict (True), or is bound as a new one (False);
                default: in place for the seed's registry only (a canary made again from its kind stands for the
                seed's, and a module that bound TOOLS as a default argument sees it as it sees the seed's).
        Returns:
            ``Transcript``.
        """
        from grader.judging import expectations

        written = raw if isinstance(raw, list) else [raw]
        fill = tools is None or tools == SEED_TOOLS if in_place is None else in_place  # into the module's own TOOLS
        draw = self.harness.draw if self.harness.redact else None
        drawn_arguments = None
        if draw is None:
            raws = self.drawn_raws(written)
        else:
            written_tools = tools if tools is not None else SEED_TOOLS
            key = registry_key_of(written_tools)
            valid = draw.templated_valid(written[0], written_tools) if vary == "dispatch" and len(written) == 1 \
                else None
            if vary == "like-last":
                raws, tools, drawn_arguments = self._like_last(draw, written, written_tools)
            elif valid is not None:
                # A valid call made again from its kind; the fields it adds are expected in the dispatch.
                raws, tools, drawn_arguments = [valid[0]], valid[1], valid[2]
                self.last_sent = ({}, None)
                if isinstance(model, NeverCorrects) and model.raw in written:
                    model = NeverCorrects(raws[0])
            elif vary in (True, "dispatch", "template"):
                # A varied call is padded by varied_call where it has no word: padding it here first renamed each
                # 1 MB call twice (once as written, once as varied).
                raws, tools = list(written), written_tools
                for index, one in enumerate(raws):
                    made = draw.templated(one, tools) if vary == "template" and len(raws) == 1 else (one, tools)
                    raws[index], tools = made if made[0] != one else draw.varied_call(one, tools)
                self.last_sent = (draw.sent, draw.placed)
                if vary == "dispatch":
                    drawn_arguments = draw.sent
                if isinstance(model, NeverCorrects) and model.raw in written:
                    model = NeverCorrects(raws[written.index(model.raw)])  # "the same invalid call" again, as handed over
            else:
                raws = self.drawn_raws(written)
                if self.last_drawn is not None and self.last_drawn[0] == key:
                    tools = self.last_drawn[1]
                else:
                    tools = draw.varied_registry(written_tools, raws)
                for index, one in enumerate(raws):  # a tool made required fields of the draw: they are sent
                    raws[index], fields = draw.with_required(one, tools)
                    drawn_arguments = {**(drawn_arguments or {}), **fields}
            self.last_drawn = (key, tools)
        model = model if model is not None else NeverCorrects(raws[0])
        before, after = [], []
        if draw is not None and self.siblings and self.style == "seed" and len(raws) == 1 and (
                vary in (True, "template") or (vary == "dispatch" and type(model) is NeverCorrects)):
            for sibling in self._siblings(raws[0], tools if tools is not None else SEED_TOOLS, draw, vary, model):
                # Before or after the case's own call, drawn: neither its place nor its input tells it.
                (before if draw.random.randrange(2) else after).append(sibling)
        # With two workers (the capstone's), the case's own call goes to a drawn one and its siblings to the other, at
        # the same time: a submission never meets a call and its sibling in one process, so no memory of texts tells
        # them apart, and neither run ends before the other starts, so no worker can tell the other when it saw the
        # call by when it returns (the ninth attacker trial timed its return to the clock's phase).
        own = self.harness.pick() if before or after else None
        anchored = own is not None and self.harness.anchors.random() < ANCHOR_SHARE
        if anchored:
            # The very call, registry and model again, in the other worker, in a drawn place among the siblings: a
            # submission that answers by the call alone must answer it as in the call's own worker, where the sibling
            # asks for the opposite (``ANCHOR_SHARE``).
            (before if self.harness.anchors.randrange(2) else after).append((raws[0], tools, None, model.fresh(), None))
        self.paired = self.paired or own is not None
        try:
            if own is not None:
                self._anchor = None
                beside = _Siblings(self, before + after, dispatch_reply, fill, 1 - own)
                beside.start()
                try:
                    transcript = self._execute(raws, tools, model, dispatch_reply, drawn_arguments, fill, own)
                finally:
                    beside.finish()
                if anchored and not self.harness.disagreement and _apart(transcript, self._anchor):
                    self.harness.disagreement = True
            else:
                for sibling in before:
                    self._run_sibling(*sibling, dispatch_reply, fill)
                transcript = self._execute(raws, tools, model, dispatch_reply, drawn_arguments, fill)
                for sibling in after:
                    self._run_sibling(*sibling, dispatch_reply, fill)
            self.harness.last_transcript = transcript  # a failed case's notes are its own call's
            return transcript
        finally:
            if draw is not None and vary in ("template", "dispatch"):
                # The drawn field names are renamed back while the run's messages come in, and no longer: a later
                # run's drawn field could be the same pool word (a canary's came back as "city").
                draw.forget_template()

    def _siblings(self, raw, tools, draw, vary, model):
        """The hidden run's siblings (``grader.judging.siblings``), each ``(raw, registry, refused, model, message)``
        (list, maybe empty): the same call where a registry as near ``tools`` as can be gives it the opposite verdict;
        and where the model answers with a fix, the same call answered by the fix short of a required field, refused
        on the case's registry and dispatched on one that allows it (or, where the fix sends no required field, the
        same fix where the registry forbids it: one more field required), each with the case's kind of model."""
        from grader.judging import siblings

        if vary == "dispatch":
            registry = siblings.forbidding(raw, tools, draw.random, draw.fresh_name)
            return [] if registry is None else [(raw, registry, True, NeverCorrects(raw), SIBLING_REFUSED)]
        made = []
        registry = siblings.allowing(raw, tools, draw.random, draw.fresh_name)
        if registry is not None:
            # The case's own kind of model: a call dispatched at once never meets it, and one that asked it first
            # heard the case's answer, not the same text back (``ScriptedModel.fresh``).
            made.append((raw, registry, False, model.fresh(), SIBLING_VALID))
        if type(model) is Answers and isinstance(model.fixed, str):
            # A classifier that knew the call's shape replayed "ask once, dispatch the reply" (issue 24's fifth trial).
            # The same call on the same registry, answered by the fix without a required field it sends: only checking
            # the retry tells it from the case.
            # The fix as it is handed over, with the draw's required fields (``WithDrawnRequired``): those stay in.
            handed = draw.with_required(model.fixed, tools)[0]
            first = siblings.parsed(raw)
            short = siblings.short_fix(handed, tools, draw.random, keep=draw.required_values,
                                       first=first[1] if first is not None else None)
            if short is not None:
                made.append((raw, tools, True, Answers(short, model.description), SIBLING_SHORT_FIX))
                # Its twin: the same call and short fix on a registry that allows the fix and still refuses the call
                # for its own faults, where the fix is dispatched. Both texts are the same in the two; only the
                # registry differs.
                allowed = siblings.allowing(short, tools, draw.random, draw.fresh_name,
                                            keep=first[1] if first is not None else ())
                if allowed is not None:
                    allowed = siblings.confirmed(raw, allowed, valid=False)
                if allowed is not None:
                    made.append((raw, allowed, short, Answers(short, model.description), SIBLING_SHORT_VALID))
                return made
            # Where the fix sends no required field: a registry that forbids the fix. The call itself keeps its faults
            # and no other (its fields untouched) and must still be refused.
            registry = siblings.forbidding(model.fixed, tools, draw.random, draw.fresh_name,
                                           keep=first[1] if first is not None else ())
            if registry is not None and first is not None:
                registry = siblings.confirmed(raw, registry, valid=False)
            if registry is not None:
                made.append((raw, registry, True, Answers(model.fixed, model.description), SIBLING_FIX))
        return made

    def _run_sibling(self, raw, registry, refused, model, message, dispatch_reply, fill, worker=None):
        """Run a sibling (on ``worker``: ``Harness.worker``) and remember, for the case, the first one handled wrongly
        (``sibling_failure``: its ``message``, str). ``refused``: True, nothing may be dispatched; False, ``raw`` is
        dispatched as sent; a str, that retry is (``SIBLING_SHORT_VALID``); None, the call's unchanged copy, compared
        with the call's own run instead (``run``).

        Only the verdict is judged (the call dispatched as sent, or nothing dispatched): how a rejection is written,
        how often the model is asked and what is returned are the other cases' rules, and a sibling that judged them
        too docked one fault in groups it does not belong to (a retry without bound lost the valid-call cases). A sibling
        that raised gave no verdict and is handled wrongly (``SIBLING_RAISED``), and so is one cut short by a timeout,
        a crash or a limit (``SIBLING_UNFINISHED``); a retry halted after too many requests is not judged here."""
        from grader.judging.siblings import parsed

        # A sibling is no case: its timeout must not count toward the cases' "in a row" and "in total" stops (a
        # handler that loops on a fence lost its third such case to the total, not to its own loop).
        transcript = self._execute([raw], registry, model, dispatch_reply, None, fill, worker, counted=False)
        if refused is None:  # the call's unchanged copy: compared with the call's own run (``run``)
            self._anchor = transcript
            return
        if not transcript.problem and any(kind == "raised" for kind, _value in transcript.returns):
            # An exception is no refusal: a worker that raised on every run where it could not tell a sibling from the
            # call's unchanged copy passed the refused siblings (issue 24's eleventh attacker trial).
            if self.sibling_failure is None:
                self.sibling_failure = SIBLING_RAISED
            return
        if transcript.stopped in UNFINISHED:
            # Nor is a run cut short: the twelfth trial hung on every run whose text repeated the last one in its worker
            # (never the case's own call, which is alone in its worker), and each timed-out refused sibling passed. A
            # retry halted after too many requests is not judged here: the retry cases judge it.
            if self.sibling_failure is None:
                self.sibling_failure = SIBLING_UNFINISHED
            return
        if refused is True:
            wrong = bool(transcript.dispatches)
        else:
            # What comes back is renamed back as it comes (a template's drawn names read as the case's words): the
            # call that went out (or the retry, ``refused`` a str) is expected as it comes back.
            draw = self.harness.draw
            name, arguments = draw.backward(draw.forward(list(parsed(raw if refused is False else refused))))
            wrong = not transcript.dispatches or not (expectations.strict_equal(transcript.dispatches[0][0], name) and
                                                      expectations.strict_equal(transcript.dispatches[0][1], arguments))
        if wrong and self.sibling_failure is None:
            self.sibling_failure = message

    def _execute(self, raws, tools, model, dispatch_reply, drawn_arguments, fill, worker=None, counted=True):
        """Run ``raws`` (list of str, as handed over) on ``tools`` (a registry of classes, or None for the seed's) with
        ``model`` answering; ``fill``: the registry goes into the module's own TOOLS (``run``); ``worker``: which
        worker (``Harness.worker``; None: drawn); ``counted``: as for ``Harness.execute``. Returns the
        ``Transcript``."""
        draw = self.harness.draw if self.harness.redact else None
        registry = encode_registry(tools if tools is not None else SEED_TOOLS)  # a new JSON copy: nothing shared
        seed = self.style == "seed"
        expectations.judging_loop_alone = not seed  # the loop is handed the grader's check: its feedback is the loop's
        # A drawn case installs a registry with other names: a submission that cannot see it needs the note too.
        transcript = Transcript(notes=self.harness.notes_for(self.entry) if seed else [],
                                tools_replaced=draw is not None or (tools is not None and tools != SEED_TOOLS),
                                drawn_arguments=drawn_arguments or {})
        if draw is not None and draw.required_values:
            model = WithDrawnRequired(model, draw, tools, transcript)
        checked = tools if tools is not None else SEED_TOOLS  # what the trusted check reads a call against
        responder = Responder(transcript, model, dispatch_reply, checked, allow_check=not seed)
        if seed:
            if fill:
                registry["fill"] = True  # into the module's own TOOLS (grader.isolation.worker.run_case)
            invocations = [[r, ASK_MODEL] for r in raws]
            globals_ = {"TOOLS": registry, "dispatch": DISPATCH}
        else:
            # Step 4 is judged alone: the grader's trusted check stands in for steps 1-3 (issue 11).
            invocations = [[r, ASK_MODEL, registry, DISPATCH, CHECK] for r in raws]
            globals_ = None
        return self.harness.execute(transcript, self.entry, invocations, globals_, responder, worker=worker,
                                    counted=counted)

    def templated(self, raws, tools=None, wrong_drawn=False):
        """``(raws, tools)`` for a hidden case that judges one call by difference with another of the same tool:
        both made again from their kind together (``grader.judging.draw.Draw.templated_together``), the drawn names
        read back as the case's words until the case ends; as written in a visible case or when nothing is drawn.
        ``tools`` defaults to the seed's registry; run the calls with ``tools=`` the registry returned. ``wrong_drawn``:
        the wrong values drawn from their kind too (``Draw.templated_together``), for a case that names no value."""
        tools = tools if tools is not None else SEED_TOOLS
        draw = self.draw
        return (list(raws), tools) if draw is None else draw.templated_together(list(raws), tools, wrong_drawn)

    def templated_around(self, calls, tools, about=None):
        """``(calls, tools)`` for a hidden validate_call case whose fault is the call's form (its name, or arguments
        that are no object): ``calls`` (list of ``(name, arguments)``) and ``tools`` (a registry) made again from their
        kind (``grader.judging.draw.Draw.templated_around``; ``about``: the registered tool they name or nearly name,
        or None), the drawn names read back as the case's words until the case ends; as given in a visible case or
        when nothing is drawn. Pass the calls on with ``drawn=True``: nothing more is drawn around them."""
        draw = self.draw
        return (list(calls), tools) if draw is None else draw.templated_around(list(calls), tools, about)

    @property
    def draw(self):
        """The ``grader.judging.draw.Draw`` of a hidden run, for a case that draws its own free text (an id, a
        message); None in a visible case or when nothing is drawn."""
        return self.harness.draw if self.harness.redact else None

    def _like_last(self, draw, written, tools):
        """``(raws, tools, fields)`` for ``run(vary="like-last")``: the calls ``written`` (list of str) with the fields
        the case's last varied call sent, where it sent them (``Draw.mirrored``), and those fields declared on each
        tool of ``tools`` (a registry as written) that the calls name, required where the last call's registry
        required them (their drawn values stay in ``Draw.required_values``), each of its value's type; ``fields`` is
        ``{field: value}``, what ``expect_dispatched`` expects besides the case's own arguments."""
        sent, placed = self.last_sent or ({}, None)
        before = self.last_drawn[1] if self.last_drawn else {}
        named = {match.group(2) for one in written if isinstance(one, str) for match in NAME_FIELD.finditer(one)}
        tools = dict(tools)
        for name in named & set(tools):
            spec, required = tools[name], before.get(name, {}).get("required", {})
            tools[name] = {**spec,
                           "required": {**spec.get("required", {}), **{f: type(v) for f, v in sent.items() if f in required}},
                           "optional": {**spec.get("optional", {}),
                                        **{f: type(v) for f, v in sent.items() if f not in required}}}
        return [draw.mirrored(one, sent, placed) for one in written], tools, dict(sent)

    def varied(self, name, arguments, tools, registry_only=False):
        """``(arguments, tools)`` for a hidden case that hands a call's parts to a plain function (``validate_call``):
        valid optional fields drawn around whatever is wrong (``grader.judging.draw.Draw.varied_arguments``), or with
        ``registry_only`` drawn into the registry alone (``Draw.varied_registry``); as given in a visible case or when
        nothing is drawn. ``tools`` holds Python classes (encode it afterwards); the given objects are never changed.
        """
        draw = self.harness.draw
        if draw is None or not self.harness.redact:
            return arguments, tools
        if registry_only:
            drawn = arguments, draw.varied_registry(tools)
        else:
            drawn = draw.varied_arguments(name, arguments, tools)
            self.last_sent = (draw.sent, draw.placed)
        self.last_drawn = (registry_key_of(drawn[1]), drawn[1])  # the case's later runs on it draw nothing more
        return drawn

    def drawn_raws(self, raws):
        """``raws`` (list of raw calls) as a hidden case hands them over: a call with no word to draw gets drawn JSON
        whitespace around it (``grader.judging.draw.Draw.padded``); a visible case's stay as written."""
        draw = self.harness.draw
        if draw is None or not self.harness.redact:
            return list(raws)
        return [draw.padded(raw) for raw in raws]

    def twin_observation(self, raw, tools=None):
        """The observation the submission gives for a *twin* call: one like a judged call whose problems lie
        elsewhere, for judging observations by difference (``grader.judging.expectations.expect_says_what_is_wrong``).

        The model answers the twin's retry with a valid call, so the twin judges nothing but its first
        observation: a submission that mishandles the twin's own problem, or retries wrongly, is docked by
        the cases for that.

        Args:
            raw: the twin's raw call (str). tools: the registry (default: the seed's).
        The twin runs on the registry its case drew for the same registry as written (``run``), as its judged call.

        Returns:
            what the submission passed to ask_model first (str or another value), or None when it never
            asked (it dispatched or refused the twin at once; then the comparison is skipped).
        Raises:
            grader.judging.expectations.CaseFailed: the twin did not finish (a crash or timeout is reported as such).
        """
        from grader.judging.canaries import city
        from grader.judging.expectations import finished

        # A twin after a varied call gets that call's drawn registry: a text that dumps the registry would otherwise
        # name the drawn fields' types (list, dict...) in one observation only (the stuffed-observation attack did);
        # and the fields that call sent, where it sent them, when its tool declares them (Draw.mirrored).
        draw = self.harness.draw if self.harness.redact else None
        written = tools if tools is not None else SEED_TOOLS
        if draw is not None and self.last_sent and self.last_drawn and self.last_drawn[0] == registry_key_of(written):
            sent, placed = self.last_sent
            named = [match.group(2) for match in NAME_FIELD.finditer(raw)] if isinstance(raw, str) else []
            registry = self.last_drawn[1]
            if not any(name in registry and not set(sent) <= {*registry[name].get("optional", {}),
                                                               *registry[name].get("required", {})} for name in named):
                raw = draw.mirrored(raw, sent, placed)
        transcript = self.run(raw, model=Answers(make_call("get_weather", {"city": city()})), tools=tools)
        finished(transcript)
        return transcript.observations[0] if transcript.observations else None

    def observe(self, raw, tools=None, times=1, around=True):
        """Call the observe step the way notebook 3 defines it: with the call and the problems the grader's
        trusted steps 1 and 2 found for ``raw`` (data, never code), and the registry.

        In a hidden case a ``json.dumps`` call of a registered tool is made again from its kind with its registry
        (``grader.judging.draw.Draw.templated``: its faults kept, names, the types and values of the fields not at
        fault, more fields and other tools drawn), and any other raw call gets valid optional fields drawn around
        whatever is wrong with it, declared in the registry (``Draw.varied_call``), before the trusted steps read it:
        the call, its problems and the registry then have a new shape on every draw (issue 24: a table keyed by their
        skeleton replays nothing; one keyed by skeletons without word lengths took the added fields away again and
        knew 18 of observe's hidden points).

        A call ``templated`` cannot make (its form is at fault) is made again around its form (``_around``: the
        registry drawn whole, or around the tool it names); the registry handed over is ``last_observed_tools``.

        Args:
            raw: the raw call (str). tools: the registry (Python classes; default: the seed's).
            times: as ``call``.
            around: whether a call whose form is at fault may get a registry drawn around it (False for a case whose
                registry is its point: 25 tools whose names must all be listed).
        Returns:
            ``Transcript``.
        """
        from grader.judging import reference_steps

        tools = tools if tools is not None else SEED_TOOLS
        raw, tools = self.drawn_call(raw, tools, around)
        call, problems = reference_steps.problems_for(raw, tools)
        draw = self.harness.draw if self.harness.redact else None
        if draw is not None and around and call is None:
            # No call came out of it (no JSON, no object): the registry is no part of what is wrong, so it is drawn
            # whole, or a table knew the problems and the registry as written (a 1 MB text, 100,000 brackets).
            tools = draw.templated_around([], tools)[1]
        self.last_observed_tools = tools
        return self.call(call, problems, encode_registry(tools), times=times)

    def drawn_call(self, raw, tools, around=True):
        """``(raw, tools)``: a hidden case's raw call (str) and registry made again from the call's kind before the
        trusted steps read it: ``Draw.templated`` for a ``json.dumps`` call of a registered tool; else, with
        ``around``, ``_around`` for a call whose form is at fault; else valid fields drawn around whatever is wrong
        (``Draw.varied_call``). As given in a visible case or when nothing is drawn."""
        draw = self.harness.draw if self.harness.redact else None
        if draw is None:
            return raw, tools
        made = draw.templated(raw, tools)
        if made[0] == raw and around:
            made = self._around(draw, raw, tools)
        return made if made[0] != raw else draw.varied_call(raw, tools)

    @staticmethod
    def _around(draw, raw, tools):
        """``(raw, tools)`` for ``observe``'s hidden call that ``Draw.templated`` leaves as it is: a ``json.dumps`` call
        whose form is at fault (a name that is no registered one or no string, arguments that are no object) made
        again around its form with ``Draw.templated_around`` (the tool it names, if registered, is what it is about);
        JSON that is no object of at most ``HUGE`` characters drawn again in its form (a list of other items, another
        number), on a registry drawn whole; anything else as it is (``varied_call`` then draws around it).

        On the registry as written, a table keyed by skeletons without word lengths knew these cases (issue 24)."""
        from grader.judging.draw import HUGE

        try:
            value = json.loads(raw) if isinstance(raw, str) and len(raw) <= HUGE else None
        except (ValueError, RecursionError):
            return raw, tools
        if isinstance(value, dict) and set(value) == {"name", "arguments"} and json.dumps(value) == raw:
            name = value["name"]
            about = name if isinstance(name, str) and name in tools else None
            [(name, arguments)], registry = draw.templated_around([(name, value["arguments"])], tools, about)
            return json.dumps({"name": name, "arguments": arguments}), registry
        if value is not None and not isinstance(value, dict) and json.dumps(value) == raw:
            [(_raw, drawn)], registry = draw.templated_around([(None, value)], tools)
            return json.dumps(drawn), registry
        return raw, tools

    def turn(self, message, provider, *, tools=None, dispatch_reply=receipt_dispatch, times=1, done=None):
        """Answer one assistant turn with the exercise's entry (notebook 7's ``answer_turn``) and record what happens.

        The entry is called as ``answer_turn(message, provider, check, dispatch, done)``: ``check`` is the grader's
        trusted steps on a provider's tool call (``reference_steps.check_tool_call``, against ``tools``), ``dispatch``
        answers with ``dispatch_reply``, and ``done`` is one dict the case's calls share (the caller's idempotency
        record). In a hidden case every call id gets a drawn tail (``Draw.with_id_tail``) and the words are drawn.

        Args:
            message: the assistant message in the provider's shape (JSON data, the cases' words).
            provider: ``"openai"`` or ``"anthropic"`` (str).
            tools: the registry the calls are checked against (Python classes; the seed's by default).
            dispatch_reply: ``callable(name, arguments) -> value``; may raise ``TimeoutError``, ``ConnectionError``
                or ``RuntimeError`` (a tool that failed).
            times: how many times the same turn is answered, with the same ``done`` (a replay: int).
            done: what the caller's ``done`` holds before the first answer (``{call_id: answer}``, the ids as written;
                a drawn id's tail is added to its key and to the answer's id), or None for an empty one.
        Returns:
            ``Transcript`` (``returns``: one entry per answer; ``dispatches``; ``checks``); its ``turn`` attribute is
            the message as handed over, in the cases' words (with the drawn ids), and ``done`` what ``done`` held
            before the first answer (with the drawn ids).
        """
        from grader.judging import reference_steps

        transcript = Transcript()
        draw = self.harness.draw if self.harness.redact else None
        done = copy.deepcopy(done or {})
        if draw is not None:
            tails = {}
            message = drawn_ids(message, provider, lambda call_id: tails.setdefault(call_id, draw.with_id_tail(call_id)))
            done = {tails.setdefault(key, draw.with_id_tail(key)): with_id(answer, tails[key]) for key, answer in done.items()}
        transcript.turn, transcript.done = message, done
        tools = tools if tools is not None else SEED_TOOLS
        responder = Responder(transcript, NeverCorrects(None), dispatch_reply, tools, allow_check=True,
                              checker=reference_steps.check_tool_call)
        proxies = [{"__kit__": "check_call"}, {"__kit__": "dispatch"}, {"__kit__": "store", "value": done}]
        # A check and a dispatch per call of the turn, and the usual margin: a loop that asks on and on still stops.
        allowed = Limits.max_requests + 2 * len(expectations.turn_calls(message, provider))
        return self.harness.execute(transcript, self.entry, [[message, provider, *proxies]] * times,
                                    responder=responder, max_requests=allowed)

    def loop(self, task, steps, *, tools=None, dispatch_reply=receipt_dispatch, limits=None):
        """Run one task through the exercise's agent loop (notebook 8's ``run_agent``) and record what happens.

        The entry is called as ``run_agent(task, model, check, dispatch, sleep, limits)``: ``model`` is a scripted
        model (``scripted_models.LoopScript(steps)``) that gets the whole conversation, ``check`` the grader's trusted
        steps 1 to 3 on a raw call against ``tools``, ``dispatch`` answers with ``dispatch_reply``, and ``sleep`` is
        recorded, never slept. In a hidden case the words are drawn (``Harness.execute``).

        Args:
            task: the user's request (str). steps: the model's script (``LoopScript``'s steps, the cases' words).
            tools: the registry (Python classes; the seed's by default). dispatch_reply: ``callable(name, arguments)
            -> value``; may raise ``TimeoutError``, ``ConnectionError`` or ``RuntimeError``. limits: the loop's
            budgets (dict; ``grader.judging.expectations.LOOP_LIMITS`` by default).
        Returns:
            ``Transcript`` (``returns``, ``model_requests``, ``sleeps``, ``dispatches``, ``checks``); its ``loop`` is
            ``(task, steps, limits)``.
        """
        from grader.judging import reference_steps
        from grader.judging.scripted_models import LoopScript

        transcript = Transcript()
        limits = dict(limits or expectations.LOOP_LIMITS)
        draw = self.harness.draw if self.harness.redact else None
        if draw is not None:
            steps, limits = self._drawn_script(draw, task, steps, limits)
        transcript.loop = (task, copy.deepcopy(steps), limits)
        tools = tools if tools is not None else SEED_TOOLS
        responder = Responder(transcript, NeverCorrects(None), dispatch_reply, tools, allow_check=True,
                              checker=reference_steps.check, loop_model=LoopScript(steps))
        proxies = [{"__kit__": "model"}, {"__kit__": "check"}, {"__kit__": "dispatch"}, {"__kit__": "sleep"}]
        calls = sum(len(step.get("calls") or []) for step in steps if isinstance(step, dict))
        # Every request the script allows (a model request per step and one past it, a check and a dispatch per call,
        # a wait per failure) and the usual margin: a loop that asks on and on still stops.
        allowed = Limits.max_requests + 2 * len(steps) + 2 * calls + 2
        return self.harness.execute(transcript, self.entry, [[task, *proxies, limits]], responder=responder,
                                    max_requests=allowed)

    @staticmethod
    def _drawn_script(draw, task, steps, limits):
        """A hidden loop case's script and budgets, drawn: every call id gets a drawn tail, one or two turns of valid
        calls with drawn numbers go first (``max_turns`` grows by as many), and the backoff is scaled. Renaming words
        alone left ids, digits, punctuation and limits as written, and a table keyed by them knew every case (an
        attacker's trial of notebook 8: 35/35 with no budget kept). Returns ``(steps, limits)``."""
        generator = draw.generator(f"loop {task}")
        tails = {}
        drawn = []
        for _turn in range(generator.randint(1, 2)):
            arguments = {"timezone": f"UTC+{generator.randint(1, 12)}"} if generator.random() < 0.7 else {}
            drawn.append({"role": "assistant", "content": None, "calls": [
                {"id": draw.with_id_tail("call_"), "raw": json.dumps({"name": "get_time", "arguments": arguments})}]})
        for step in steps:
            if isinstance(step, dict) and step.get("calls"):
                step = dict(step, calls=[dict(call, id=tails.setdefault(call["id"], draw.with_id_tail(call["id"])))
                                         for call in step["calls"]])
            drawn.append(step)
        limits = dict(limits, max_turns=limits["max_turns"] + len(drawn) - len(steps),
                      backoff=limits["backoff"] * generator.choice((0.5, 1.0, 2.0)))
        return drawn, limits

    def confined(self, template, control, via_link=False):
        """Hand notebook 9's ``allowed_path`` a path in a folder the grader makes, and a control path of the other
        verdict, and record what it returns (``grader.judging.file_trees``).

        The grader makes the case's tree in the worker's scratch folder (files, a sibling folder, symbolic links), with
        names drawn for a hidden case and readable ones for a visible case, then calls ``allowed_path(path, root)`` for
        the case's path and for the control. The control catches a function that gives one verdict to every path.

        Args:
            template: the case's path (``file_trees.render``: ``{part}`` names, ``{root}``; or a value that is no str).
            control: a path template the rules decide the other way (str).
            via_link: hand the allowed folder over by a path that reaches it through a symbolic link (bool), as
                macOS's ``/tmp`` does.
        Returns:
            ``Transcript``: ``returns`` one entry per path; ``paths`` ``(path, root, verdict, rule, secrets)`` for the
            path and the control, as handed, with ``file_trees.verdict``, ``expectations.path_rule`` and
            ``file_trees.secrets_of`` taken while the tree stood.
        """
        from grader.judging import file_trees

        transcript = Transcript()
        draw = self.harness.draw if self.harness.redact else None
        names = (file_trees.drawn_names(draw.generator(f"tree {template!r}")) if draw is not None
                 else dict(file_trees.SHOWN))
        names["token"] = secrets.token_hex(8)

        def prepare(scratch):
            root = file_trees.make_tree(scratch, names)
            if via_link:
                root = os.path.join(os.path.dirname(root), names["alias"])
            paths = [file_trees.render(template, root, names), file_trees.render(control, root, names)]
            # Judged now, while the tree stands: it is gone when the case's verdict is given.
            transcript.paths = [(path, root, file_trees.verdict(path, root), expectations.path_rule(path, root),
                                 file_trees.secrets_of(path, root, names, names["token"])) for path in paths]
            return [[path, root] for path in paths]

        try:
            return self.harness.execute(transcript, self.entry, [], prepare=prepare)
        finally:
            if transcript.paths:
                shutil.rmtree(os.path.dirname(transcript.paths[0][1]), ignore_errors=True)

    def call_each(self, arg_lists, view=None):
        """Call the exercise's main entry once per argument list, in order, in one case (a new run of the worker's
        loop, nothing drawn here: the case draws its inputs).

        Args:
            arg_lists: list of argument lists (JSON data). view: see ``Harness.execute``; ``"all_so_far"`` returns
                after each call the list of every result so far, as it is now (a shared object changed by a later
                call shows there).
        Returns:
            ``Transcript`` with one entry in ``returns`` per call.
        """
        return self.harness.execute(Transcript(), self.entry, [list(args) for args in arg_lists], view=view)

    def call(self, *args, function=None, view=None, times=1, vary=True):
        """Call a plain function of the exercise and record what it returned.

        Args:
            args: JSON data; registries must be passed through ``grader.judging.registries.encode_registry``.
            function: which of the exercise's functions (default: the main entry).
            view: see ``Harness.execute``.
            times: call it this many times with the same arguments (to test determinism).
            vary: for ``validate_arguments`` in a hidden case: the schema and its value made again from their kind
                (``grader.judging.draw.Draw.templated_schema``: property names drawn, more properties). For ``parse_call`` in a hidden case, whose argument is a raw call: draw valid fields into the
                call's arguments object where it has one (``grader.judging.draw.Draw.varied_call``; their values go
                into ``Transcript.drawn_arguments``, which ``grader.judging.expectations.expect_parsed`` expects in
                the parsed call), else drawn whitespace where it has no word (``Draw.padded``); False: only the
                whitespace (a case that expects the arguments string as written).
        Returns:
            ``Transcript`` with one entry in ``returns`` per call.
        """
        transcript = Transcript()
        draw = self.harness.draw if self.harness.redact else None
        if (function or self.entry) == "validate_arguments" and len(args) >= 2 and vary and draw is not None:
            # A value and a schema (notebook 6): made again from their kind (Draw.templated_schema), for the cases
            # and their canary alike.
            args = (*draw.templated_schema(args[0], args[1]), *args[2:])
        if (function or self.entry) == "parse_call" and args:  # its argument is a raw call
            if vary and draw is not None and isinstance(args[0], str):
                # The skeleton of a raw call (each letter as a or A) survives the renaming: without drawn fields a
                # table of the reference's answers keyed by it passed every parse_call case (issue 24).
                raw, _drawn = draw.varied_call(args[0], SEED_TOOLS)
                transcript.drawn_arguments = draw.sent
                # And a drawn name: a call with no arguments object (null, missing, a string) had nothing else drawn,
                # and fields drawn into a string were taken away again by a table (issue 24).
                raw, transcript.drawn_name = draw.with_drawn_name(raw)
                # And drawn whitespace after JSON: the drawn fields alone gave a skeleton already recorded on about one
                # draw in six for a call with one nested object (a replay earned a hidden point; issue 25's suite).
                args = (draw.padded(raw, any_json=True), *args[1:])
            else:
                args = (*self.drawn_raws(args[:1]), *args[1:])
                if draw is not None and isinstance(args[0], str):  # the arguments as written, the name drawn
                    raw, transcript.drawn_name = draw.with_drawn_name(args[0])
                    args = (raw, *args[1:])
        return self.harness.execute(transcript, function or self.entry, [list(args)] * times, view=view)
