"""Progress across the course: which exercises are done, failing or not started.

Uses the grader itself (``python -m grader NOTEBOOK --results ...``, one run per notebook), so the
progress view and the grader can never disagree. An exercise whose cell still holds the shipped
stub (its SHA-256 is stored in the learner notebook's ``metadata.kit.stub_sha256``) is "not
started" and is not graded.
"""

import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass

from grader.intake.exercises import EXERCISES
from grader.paths import KIT_ROOT, NOTEBOOKS_DIR, notebooks_dir as notebooks_in
from grader.results.grade_result import points_text
from grader.translations import N_, _, current

STATES = (N_("done"), N_("visible ok"), N_("failing"), N_("not started"), N_("missing"))
"""The states a row can be in (``ExerciseProgress.state``), kept in English and translated where shown."""


def stub_digest(source):
    """SHA-256 hex digest of a cell's source (str), as stored in ``metadata.kit.stub_sha256``."""
    return hashlib.sha256(source.encode("utf-8")).hexdigest()


@dataclass
class ExerciseProgress:
    """Where a learner stands on one exercise.

    Attributes:
        exercise: the ``grader.intake.exercises.Exercise``.
        state: ``"done"``, ``"visible ok"`` (every visible case passes, and this copy of the kit has no
            hidden cases: a student release), ``"failing"``, ``"not started"`` or ``"missing"`` (no
            notebook) (str).
        score: points earned, max_score: points available (float; 0 when not graded).
        detail: one sentence for the table, e.g. the first failing case (str).
        rule: the rule of the first failing case (str; empty when none failed).
        case_hint: that case's own hint, when it is a visible case (str).
    """

    exercise: object
    state: str
    score: float = 0.0
    max_score: float = 0.0
    detail: str = ""
    rule: str = ""
    case_hint: str = ""


def rule_and_hint(output):
    """The ``Rule:`` line and a visible case's ``Hint:`` line of a failed case's results.json output (str, str).

    A rule line with the notebook's rule ids (``Rule [parse.finite]: <sentence>``, ``CaseResult.rule_line``) gives
    ``"<sentence> [parse.finite]"``. The labels are read in English and in the current language (the grader writes
    them in the language it was run in)."""
    rule_labels = "|".join(re.escape(label) for label in dict.fromkeys(("Rule", _("Rule"))))
    hints = tuple(dict.fromkeys(("Hint: ", _("Hint") + ": ")))
    rule_line = re.compile(rf"(?:{rule_labels})(?: \[([^\]]*)\])?: (.*)")
    rule = hint = ""
    for line in str(output).splitlines():
        found = rule_line.match(line)
        if found and not rule:
            rule = found.group(2) + (f" [{found.group(1)}]" if found.group(1) else "")
        elif line.startswith(hints) and not hint:
            hint = line.split(": ", 1)[1]
    return rule, hint


def _started(notebook, exercise_id):
    for cell in notebook.get("cells", []):
        meta = cell.get("metadata", {})
        if meta.get("nbgrader", {}).get("grade_id") == exercise_id:
            source = cell.get("source", "")
            source = "".join(source) if isinstance(source, list) else source
            return stub_digest(source) != meta.get("kit", {}).get("stub_sha256")
    return True  # no marked cell: a learner's own notebook, always graded


def run_grader(path, exercise_ids=(), timeout=None):
    """Run ``python -m grader PATH --results ...`` in a subprocess, as a learner would.

    Args:
        path: the notebook or file to grade (str; relative paths are taken from the current folder).
        exercise_ids: grade only these exercises (ids); default: those found in the file.
        timeout: seconds to wait for the grader (float or None).
    Returns:
        ``(report, results)``: the printed report (or the grader's error line) and the Gradescope
        results dict, or None when no results.json was written.
    Raises:
        subprocess.TimeoutExpired: the grader took longer than ``timeout``.
    """
    with tempfile.TemporaryDirectory() as folder:
        results = os.path.join(folder, "results.json")
        command = [sys.executable, "-m", "grader", os.path.abspath(path), "--results", results]
        for exercise_id in exercise_ids:
            command += ["--exercise", exercise_id]
        run = subprocess.run(command, capture_output=True, text=True, cwd=KIT_ROOT, timeout=timeout,
                             env={**os.environ, "PYTHONPATH": KIT_ROOT})
        try:
            with open(results, encoding="utf-8") as handle:
                data = json.load(handle)
        except (OSError, ValueError):
            data = None
    return run.stdout or run.stderr, data


def course_progress(notebooks_dir=None, timeout=300):
    """Grade every started exercise in ``notebooks_dir`` and report where the learner stands.

    Args:
        notebooks_dir: folder of learner notebooks (str; default: ``notebooks/``, or ``notebooks/ru/`` in Russian).
        timeout: seconds allowed for grading one notebook (float).
    Returns:
        list of ``ExerciseProgress`` in course order. Never raises for a broken notebook: its
        exercises are "failing" with the grader's sentence.
    """
    notebooks_dir = notebooks_dir or notebooks_in(current())
    by_notebook = {}
    for exercise in EXERCISES:
        by_notebook.setdefault(exercise.notebook, []).append(exercise)
    rows = {}
    for name, exercises in by_notebook.items():
        path = os.path.join(notebooks_dir, name)
        if not os.path.exists(path):
            rows.update({e.id: ExerciseProgress(e, "missing", detail=_("{name} is not in {folder}.").format(
                name=name, folder=notebooks_dir)) for e in exercises})
            continue
        try:
            with open(path, encoding="utf-8") as handle:
                notebook = json.load(handle)
        except (OSError, ValueError):
            notebook = {}
        started = [e for e in exercises if _started(notebook, e.id)]
        rows.update({e.id: ExerciseProgress(e, "not started", detail=_("Still the shipped stub.")) for e in exercises if e not in started})
        if not started:
            continue
        try:
            _report, results = run_grader(path, [e.id for e in started], timeout)
            if results is None:
                raise ValueError("no results.json")
        except (OSError, ValueError, subprocess.SubprocessError) as exc:
            rows.update({e.id: ExerciseProgress(e, "failing", detail=_("Could not grade {name} ({error}).").format(
                name=name, error=type(exc).__name__))
                         for e in started})
            continue
        for exercise in started:
            tests = [t for t in results.get("tests", []) if t.get("extra_data", {}).get("exercise") == exercise.id]
            earned = sum(t["score"] for t in tests)
            available = sum(t["max_score"] for t in tests)
            failed = [t for t in tests if t["status"] == "failed"]
            if tests and not failed and all(t.get("tags", [None, None])[1] == "visible" for t in tests):
                # A student release has no hidden cases: passing the visible ones is not "done".
                rows[exercise.id] = ExerciseProgress(exercise, "visible ok", earned, available,
                                                     _("Every visible case passes; the hidden cases run only "
                                                       "in your instructor's grader."))
            elif tests and not failed:
                rows[exercise.id] = ExerciseProgress(exercise, "done", earned, available, _("Every case passes."))
            else:
                first = failed[0]["name"] if failed else results.get("output", "").splitlines()[-1:]
                rule, case_hint = rule_and_hint(failed[0].get("output", "")) if failed else ("", "")
                rows[exercise.id] = ExerciseProgress(exercise, "failing", earned, available,
                                                     _("First failing case: {case}").format(case=first) if failed
                                                     else str(first),
                                                     rule, case_hint)
    return [rows[e.id] for e in EXERCISES]


def format_progress(rows):
    """The progress rows as a plain-text table (str)."""
    width = max(len(_(r.exercise.title)) for r in rows)
    state_width = max(len(_(state)) for state in STATES + (N_("State"),))
    heads = (_("Exercise"), _("State"), _("Score"), _("Detail"))
    lines = [f"{heads[0]:<{width}}  {heads[1]:<{state_width}}  {heads[2]:<7}  {heads[3]}"]
    for row in rows:
        score = f"{points_text(row.score)}/{points_text(row.max_score)}" if row.max_score else "-"
        lines.append(f"{_(row.exercise.title):<{width}}  {_(row.state):<{state_width}}  {score:<7}  {row.detail}")
    done = sum(r.state == "done" for r in rows)
    visible_only = sum(r.state == "visible ok" for r in rows)
    lines.append(_("{done} of {count} exercises done; {visible} pass their visible cases (hidden cases are not in this "
                   "copy).").format(done=done, count=len(rows), visible=visible_only) if visible_only
                 else _("{done} of {count} exercises done.").format(done=done, count=len(rows)))
    return "\n".join(lines)
