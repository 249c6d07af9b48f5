"""The pytest plugin that turns hidden-case test functions into a GradeResult.

Cases are ordinary pytest tests under ``grader/judging/cases``. Each module sets ``GROUP`` (report
heading), ``ORDER`` (its place) and optionally ``VISIBILITY``; each test carries
``@pytest.mark.points(n)``, ``@pytest.mark.rule("...")`` and ``@pytest.mark.rule_id("area.rule")``
(``grader.judging.rule_ids``); its docstring's first line is the
learner-facing title and the rest says why the case exists. Tests receive the ``harness``
fixture (``grader.judging.harness.Harness``) and judge with ``grader.judging.expectations``.
"""

import secrets
import sys
import tempfile

import pytest

from grader.judging.canaries import (
    RUNS_PER_KIND,
    WHY,
    disagreement_note,
    disagreement_reference,
    kinds_for,
    run_canary,
    void_note,
    void_reference,
)
from grader.isolation.sandbox import FLOODED
from grader.judging import expectations
from grader.judging.expectations import CaseFailed
from grader.judging.rule_ids import MARKER
from grader.results.grade_result import CaseResult
from grader.translations import N_, _, say

NOTE = N_("Note:")
"""What starts a note added to a case's feedback (why a submission cannot see the registry installed, ...)."""


def note_mark():
    """``" Note: "`` in the current language: what separates a case's feedback from each note after it (str)."""
    return f" {_(NOTE)} "


def docstring_title(doc):
    """A case's title from its docstring (str or None): the first paragraph on one line, without its closing full
    stop; None for no docstring. The first paragraph, not the first line: a title that wrapped was shown cut."""
    paragraph = (doc or "").strip().split("\n\n")[0]
    return " ".join(paragraph.split()).rstrip(".") or None


def case_title(item):
    """The learner-facing title of a test item, in the learner's language: its docstring's first paragraph
    (``docstring_title``, translated by the catalog), plus the parameter id."""
    callspec = getattr(item, "callspec", None)
    for value in (callspec.params.values() if callspec else ()):
        if isinstance(getattr(value, "title", None), str):
            return _(value.title)  # a visible case names itself
    title = docstring_title(item.function.__doc__)
    doc = _(title) if title else item.name  # the catalog holds each title (course.catalogs)
    return f"{doc} [{callspec.id}]" if callspec else doc


def case_rule(item, default):
    """The rule of a test item: a visible case's own rule when the parameter carries one, else ``default``."""
    callspec = getattr(item, "callspec", None)
    for value in (callspec.params.values() if callspec else ()):
        if isinstance(getattr(value, "rule", None), str):
            return _(value.rule)
    return default


def case_visibility(item):
    """``"visible"`` or ``"hidden"``: the case module's ``VISIBILITY`` (hidden unless it says otherwise)."""
    return getattr(item.module, "VISIBILITY", "hidden")


def case_gate(item):
    """The canary a test item depends on: its ``gate`` marker, or a visible case's own ``gate``; or None."""
    marker = item.get_closest_marker("gate")
    if marker:
        return marker.args[0]
    callspec = getattr(item, "callspec", None)
    for value in (callspec.params.values() if callspec else ()):
        if getattr(value, "gate", None) in WHY:
            return value.gate
    return None


@pytest.fixture(scope="session")
def harness(request):
    """The submission under grading, called the way this exercise is called (``grader.judging.harness.ExerciseHarness``).

    Defined here, not in a ``conftest.py`` next to the cases: pytest imports conftest files before
    collection and may cache their bytecode there, outside the grader's control. This module is
    registered as a plugin next to the ``GradingPlugin`` instance (see ``grader.judging.case_runner.run_cases``).
    """
    return request.config.kit_grading.view


class GradingPlugin:
    """Collects points and feedback for one exercise while pytest runs its cases.

    Args:
        exercise: the ``grader.intake.exercises.Exercise`` being graded.
        harness: the shared ``grader.judging.harness.Harness`` (the submission, loaded once).
    After the run, ``results`` holds one ``CaseResult`` per case, ``notes`` the sentences for the report
    (why voided cases were not counted), and ``internal_errors`` any case the grader itself could not judge.
    """

    def __init__(self, exercise, harness):
        self.exercise = exercise
        self._harness = harness
        self.view = harness.for_exercise(exercise)
        self.results = []
        self.internal_errors = []
        self.canary_plan = {}  # item index -> canary kinds to run just before that item
        self.canary_failures = {}  # kind -> the first reason a run of that canary failed
        self.gated = []  # (CaseResult, kind) of passed cases whose points depend on a canary
        self.paired = []  # CaseResult of the cases whose call had siblings in the other worker
        self.notes = []  # one sentence per failed canary kind that voided cases (shown before the cases)
        self.busy_reruns = 0  # cases run again because the machine timed them out (_run_again_when_the_machine_was_busy)
        expectations.retry_log.clear()  # what this exercise's cases see of the retries (expectations.stopped_asking)

    def pytest_generate_tests(self, metafunc):
        """Give ``visible_case`` the visible cases of the exercise being graded."""
        if "visible_case" in metafunc.fixturenames:
            from grader.judging.visible_cases import VISIBLE_CASES

            cases = VISIBLE_CASES.get(self.exercise.id, [])
            metafunc.parametrize("visible_case", cases, ids=[c.case_id for c in cases])

    def pytest_configure(self, config):
        config.addinivalue_line("markers", "points(n): points the case is worth")
        config.addinivalue_line("markers", "rule(*parts): the rule the case checks, shown to the learner (each part "
                                "translated, joined by spaces)")
        config.addinivalue_line("markers", "rule_id(*ids): the course's ids of the rules the case checks (grader.judging.rule_ids)")
        config.addinivalue_line("markers", "gate(kind): count the case only if the exercise's canary of that kind holds")
        config.kit_grading = self

    @pytest.hookimpl(hookwrapper=True)
    def pytest_collection(self, session):
        # The case modules are compiled from their source, never from a __pycache__ file next to them:
        # a planted bytecode file must not be able to stand in for a case. Only the collection (which
        # imports the cases) is affected; pytest's own modules keep their caches.
        previous = sys.pycache_prefix
        with tempfile.TemporaryDirectory(prefix="kit-pycache-") as private:
            sys.pycache_prefix = private
            try:
                yield
            finally:
                sys.pycache_prefix = previous

    def pytest_collectreport(self, report):
        # A case file that cannot be collected would silently take its cases out of every maximum: it is an
        # internal error, counted and reported like one (found when a stale module stood in for a case file).
        if report.failed:
            self.internal_errors.append(f"could not collect {report.nodeid or 'the cases'}: "
                                        f"{str(report.longrepr).strip().splitlines()[-1][:300] if report.longrepr else ''}")

    def pytest_collection_modifyitems(self, items):
        """Plan the canary runs: each kind ``RUNS_PER_KIND`` times, before items drawn at random, and with two workers
        (the capstone's) in both, the first one drawn (``Harness.placed_in``)."""
        self.item_index = {item.nodeid: number for number, item in enumerate(items)}
        # The draw's generator when there is one: the same seed plans the same canary runs.
        draw = self._harness.draw.random if self._harness.draw is not None else secrets.SystemRandom()
        # The workers from a generator of their own, so that placing them changes no other draw of the seed.
        places = self._harness.draw.generator("canary workers") if self._harness.draw is not None \
            else secrets.SystemRandom()
        for kind in kinds_for(self.exercise.cases):
            first = places.randrange(2)
            for run, number in enumerate(draw.sample(range(len(items)), min(RUNS_PER_KIND, len(items)))):
                self.canary_plan.setdefault(number, []).append((kind, (first + run) % 2))

    def pytest_runtest_setup(self, item):
        # A canary's verdict voids hidden cases, so it is told as a hidden case is: by then the submission may
        # hold earlier hidden inputs, and an exception message could carry them into the void sentence.
        self._harness.redact = True
        # A canary starts from nothing the last case drew (its templated field names read back as the case's words
        # made the valid-call canary's drawn field come back as "city": seed slow-e5d404a4).
        self.view.forget_the_case()
        for kind, worker in self.canary_plan.get(self.item_index.get(item.nodeid), ()):
            self._run_canary(kind, worker)
        # In a hidden case nothing the submission produces from the input is shown back (see _record).
        self._harness.redact = case_visibility(item) == "hidden"
        self.view.forget_the_case()  # each case draws its own registries and fields (ExerciseHarness.run)
        self._run_again_when_the_machine_was_busy(item)

    def _run_again_when_the_machine_was_busy(self, item):
        """Make ``item`` run a second time, from the same draw, when a run of it timed out because the machine kept
        the worker waiting (``grader.judging.harness.Harness.busy``): the wall clock alone never decides a case
        (issue 25: a correct notebook scored 121 and 0 on two runs of one class). The second run counts, whatever
        it ends in, so grading stays bounded."""
        harness, view, first_run = self._harness, self.view, item.runtest

        def runtest():
            state = harness.snapshot()
            harness.busy = False
            try:
                first_run()
            except BaseException:
                if not harness.busy:
                    raise
            else:
                if not harness.busy:
                    return
            harness.restore(state)
            view.forget_the_case()
            self.busy_reruns += 1
            first_run()

        item.runtest = runtest

    def _run_canary(self, kind, worker=None):
        # A canary is no case: its timeout must not count toward the cases' "in a row" and "in total" stops. Its
        # place is drawn afresh for every grading, so counting it ended the same submission's grading one case
        # earlier on some runs (an endless loop: 1 run in 12 showed one timed-out case fewer; found by the suite).
        streak, timeouts = self._harness.streak, self._harness.timeouts_in_total
        self.view.siblings = False  # a canary is one plain input: a sibling would only cost time
        try:
            with self._harness.placed_in(worker):  # with one worker, every index means that one
                reason = run_canary(self.view, self.exercise.cases, kind)
        finally:
            self.view.siblings = True
        self._harness.streak, self._harness.timeouts_in_total = streak, timeouts
        self._harness.take_output()  # what the canary printed belongs to no case
        self._harness.last_transcript = None
        if reason is not None:
            self.canary_failures.setdefault(kind, reason)

    def pytest_sessionfinish(self):
        """Void the passed cases whose canary failed in any of its runs (all runs are over by now); the cause is
        told once, in ``notes``, and each voided case points at it. Say how many cases were run again because the
        machine was busy."""
        if expectations.stopped_asking(expectations.retry_log):
            # A retry budget kept between calls: each "never asked" says so, and one note before the cases (the
            # trial's learner met the same line on about 100 cases, the useful one buried among them).
            spent = [result for result in self.results if not result.passed and
                     expectations.told_never_asked(result.feedback)]
            for result in spent:
                # Only the first sentence changes: a visible case keeps its input and hint lines, a hidden one its
                # notes (the attacker trial saw both lost).
                head, newline, rest = result.feedback.partition("\n")
                notes = head[head.index(note_mark()):] if note_mark() in head else ""
                result.feedback = expectations.retry_spent_earlier(self.view.entry) + notes + newline + rest
            self.notes.append(say("{function} stopped asking the model after its first invalid call(s): {count} cases "
                                  "failed for that alone. Keep the retry count in a local variable of the function "
                                  "that loops, so that every call of {function} gets its one retry.",
                                  function=self.view.entry, count=len(spent)))
        if self.busy_reruns:
            self.notes.append(say("The grading machine was busy: {count} case(s) ran out of time while the machine kept "
                                  "your code waiting, and were run again; the second run counts.",
                                  count=self.busy_reruns))
        voided = {}
        # A registry bound when the module ran sees none of the drawn names, so the canary fails for that reason:
        # each voided case says so too, as every other failed case of the submission does.
        bound = "".join(note_mark() + note for note in self._harness.notes_for(self.view.entry)) \
            if self.view.style == "seed" and self._harness.draw is not None else ""
        for result, kind in self.gated:
            if kind in self.canary_failures:
                result.points, result.passed = 0.0, False
                result.feedback = void_reference(self.view.entry, kind) + bound
                voided[kind] = voided.get(kind, 0) + 1
        for kind, count in voided.items():
            self.notes.append(void_note(self.view.entry, kind, self.canary_failures[kind], count))
        if self._harness.disagreement:
            # A call and its unchanged copy were answered apart (grader.judging.harness.ANCHOR_SHARE): no case whose
            # call had siblings in the other worker tells anything.
            apart = [result for result in self.paired if result.passed]
            for result in apart:
                result.points, result.passed = 0.0, False
                result.feedback = disagreement_reference(self.view.entry)
            if apart:
                self.notes.append(disagreement_note(self.view.entry, len(apart)))

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
        printed = self._harness.take_output()
        if printed.strip() and case_visibility(item) == "hidden":
            # Printing the input would reveal the hidden case (an adversarial test did, for all 106 of them).
            # The grader's own note about an output flood is kept.
            flood = printed.splitlines()[0] if printed.startswith(_(FLOODED).split("{mb}")[0]) else ""
            printed = ((flood + "\n" if flood else "") +
                       _("(your code printed something here; what it prints during a hidden case is not shown, so "
                         "that the case's input stays hidden: print in the visible cases instead)"))
        passed = report.passed
        if passed and self.view.sibling_failure:
            # The case's own checks passed, its sibling's did not (grader.judging.siblings); a submission that cannot
            # see the registry installed is told why, as in any other failed case.
            passed, feedback = False, _(self.view.sibling_failure)  # one of harness's SIBLING_ sentences
            last = self._harness.last_transcript
            if last is not None and last.tools_replaced:
                feedback += "".join(note_mark() + note for note in last.notes)
        gate = case_gate(item) if passed else None
        if passed:
            self._harness.last_transcript = None
        if not report.passed:
            exc = call.excinfo.value if call.excinfo else None
            if isinstance(exc, CaseFailed):
                feedback = str(exc)
                last = self._harness.last_transcript
                if last is not None and last.tools_replaced:
                    # This case installed its own TOOLS: a submission that cannot see it needs to know why.
                    feedback += "".join(note_mark() + note for note in last.notes)
            else:
                # A bug in the case itself, never the learner's fault; keep details for instructors.
                feedback = _("The grader could not judge this case (an internal error); the case counts as failed.")
                self.internal_errors.append(f"{item.nodeid}: {type(exc).__name__}: {exc}" if exc else item.nodeid)
        result = CaseResult(
            case_id=f"{self.exercise.id}::{item.nodeid}",
            exercise=_(self.exercise.title),
            exercise_id=self.exercise.id,
            group=_(getattr(module, "GROUP", module.__name__)),
            order=getattr(module, "ORDER", 99),
            title=case_title(item),
            points=max_points if passed else 0.0,
            max_points=max_points,
            passed=passed,
            rule=case_rule(item, " ".join(_(part) for part in rule.args) if rule else ""),
            rule_ids=tuple(sorted({rule_id for mark in item.iter_markers(MARKER) for rule_id in mark.args})),
            feedback=feedback,
            visibility=case_visibility(item),
            output=printed,
        )
        self.results.append(result)
        if gate:
            self.gated.append((result, gate))
        if self.view.paired:
            self.paired.append(result)
