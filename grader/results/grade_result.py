"""The result of grading: ``CaseResult`` and ``GradeResult``, which every report and file format is written from,
how a student's several files combine (``best_per_exercise``), and how a score is written (``points_text``)."""

import os
from dataclasses import dataclass, field

from grader.translations import _


def points_text(value):
    """A number of points as every report, table and view writes it: ``116``, ``12.5``, ``0`` (str).

    Args:
        value: points (int or float).
    """
    return f"{value:g}"


@dataclass
class CaseResult:
    """One graded case.

    Attributes:
        case_id: stable identifier, e.g. ``"capstone::test_01_parsing.py::test_trailing_prose"`` (str).
        exercise: the title of the exercise the case belongs to (str).
        exercise_id: its id in ``grader/intake/exercises.json`` (str).
        group: the case group shown in reports, e.g. ``"Parsing"`` (str).
        order: sort key of the group (int).
        title: learner-facing one-line description (str; never the hidden input).
        points: points earned (float); max_points: points available (float).
        passed: bool.
        rule: the rule this case checks, in one sentence (str).
        rule_ids: the course's ids of the rules it checks (tuple of str, ``area.rule``, sorted;
            ``grader.judging.rule_ids``): each stands in the exercise's notebook beside the rule, so a learner finds
            where the rule is explained (issue 25); empty for a case without ids.
        feedback: what went wrong and how to fix it; empty when passed (str).
        visibility: ``"visible"`` (input may be shown) or ``"hidden"`` (only the rule is shown).
        output: what the submission printed during the case (str, capped).
    """

    case_id: str
    exercise: str
    group: str
    order: int
    title: str
    points: float
    max_points: float
    passed: bool
    rule: str = ""
    feedback: str = ""
    visibility: str = "hidden"
    output: str = ""
    exercise_id: str = ""
    rule_ids: tuple = ()

    def rule_line(self):
        """The rule as every report writes it (str): ``"Rule [parse.finite]: <sentence>"``, ``"Rule: <sentence>"``
        without ids, ``""`` without a rule."""
        if not self.rule:
            return ""
        return _("Rule") + (f" [{', '.join(self.rule_ids)}]: " if self.rule_ids else ": ") + self.rule


@dataclass
class GradeResult:
    """The whole grade of one submission.

    Attributes:
        submission: the graded path as given (str).
        cases: list of ``CaseResult`` in collection order.
        notes: sentences about loading/extraction the learner should read (list of str).
        error: a sentence when the submission could not be graded at all, else None.
        execution_time: wall-clock seconds the grading took (float).
        seed: the seed the hidden inputs were drawn with (str, ``grader.judging.draw``): grading the same file with
            it again draws the same inputs; None when unknown, or for a combination of files drawn with several.
        isolation: the walls that stood around the worker (str, ``grader.isolation.protections.walls_line``), or
            None when nothing of the submission ran.
        absent: ``{exercise id: {"functions": [its functions the submission does not define], "problem": the first
            problem while loading (str, "" for none: a cell that did not compile or raised)}}`` for each graded
            exercise whose code was loaded but lacks one of its functions (dict; empty when every one was found).
            PrairieLearn's question calls such an upload not gradable (``grader.classroom.prairielearn_question``).
    """

    submission: str
    cases: list = field(default_factory=list)
    notes: list = field(default_factory=list)
    error: str | None = None
    execution_time: float = 0.0
    seed: str | None = None
    isolation: str | None = None
    absent: dict = field(default_factory=dict)

    @property
    def score(self):
        """Points earned over all cases (float)."""
        return sum(case.points for case in self.cases)

    @property
    def max_score(self):
        """Points available over all cases (float)."""
        return sum(case.max_points for case in self.cases)

    def groups(self):
        """Cases grouped for reports: a list of ``(group, [CaseResult, ...])`` in group order."""
        exercises = self.exercises()
        groups = {}
        for case in sorted(self.cases, key=lambda c: (exercises.index(c.exercise), c.order)):
            label = case.group if len(exercises) == 1 else f"{case.exercise} · {case.group}"
            groups.setdefault(label, []).append(case)
        return list(groups.items())

    def exercises(self):
        """Titles of the graded exercises, in the order graded (list of str)."""
        return list(dict.fromkeys(case.exercise for case in self.cases))


def best_per_exercise(results, submission):
    """One result for a student who handed in several files: per exercise, the file that scored best.

    Like a gradebook that keeps a student's best attempt, each exercise counts once, from the file
    with the most points for it (the first such file on a tie); a file that could not be read counts
    only when no file could. Notes and errors of every file are kept, prefixed with its file name.

    Args:
        results: ``GradeResult`` per file, in the order the files were graded (list).
        submission: what the combined result names as its submission (str), e.g. the upload folder.
    Returns:
        ``GradeResult``; ``error`` is set only when no file could be graded at all (the files'
        sentences joined), and ``execution_time`` is the sum over the files (s).
    """
    combined = GradeResult(submission=submission)
    best = {}
    # A file that could not be read says nothing about any exercise: its cases count only when no file was read.
    readable = [result for result in results if not result.error] or results
    for result in readable:
        for exercise_id in dict.fromkeys(case.exercise_id for case in result.cases):
            score = sum(case.points for case in result.cases if case.exercise_id == exercise_id)
            if exercise_id not in best or score > best[exercise_id][0]:
                best[exercise_id] = (score, result)
    for exercise_id, (_rank, result) in best.items():
        combined.cases += [case for case in result.cases if case.exercise_id == exercise_id]
        # Absent only when no readable file graded on it defines its functions.
        lacking = [r.absent.get(exercise_id) for r in readable if any(c.exercise_id == exercise_id for c in r.cases)]
        if lacking and all(lacking):
            combined.absent[exercise_id] = lacking[0]
    seeds = {result.seed for result in results}
    combined.seed = seeds.pop() if len(seeds) == 1 else None
    # The walls of the gradings that ran; they are one machine's, so they differ only if a limit was reached meanwhile.
    combined.isolation = "; ".join(dict.fromkeys(result.isolation for result in results if result.isolation)) or None
    for result in results:
        name = os.path.basename(result.submission)
        prefix = f"{name}: " if len(results) > 1 else ""
        combined.notes += [prefix + note for note in result.notes]
        if result.error and len(results) > 1:
            combined.notes.append(f"{name} could not be graded: {result.error}")
        combined.execution_time += result.execution_time
    if results and all(result.error for result in results):
        combined.error = "; ".join(dict.fromkeys(result.error for result in results))
    return combined
