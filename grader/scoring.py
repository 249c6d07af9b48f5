"""Scoring: the result model every report is written from (text, Gradescope results.json)."""

from dataclasses import dataclass, field


@dataclass
class CaseResult:
    """One graded case.

    Attributes:
        case_id: stable identifier, e.g. ``"capstone::test_01_parsing.py::test_trailing_prose"`` (str).
        exercise: the title of the exercise the case belongs to (str).
        exercise_id: its id in ``grader/exercises.json`` (str).
        group: the case group shown in reports, e.g. ``"Parsing"`` (str).
        order: sort key of the group (int).
        title: learner-facing one-line description (str; never the hidden input).
        points: points earned (float); max_points: points available (float).
        passed: bool.
        rule: the rule this case checks, in one sentence (str).
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


@dataclass
class GradeResult:
    """The whole grade of one submission.

    Attributes:
        submission: the graded path as given (str).
        cases: list of ``CaseResult`` in collection order.
        notes: sentences about loading/extraction the learner should read (list of str).
        error: a sentence when the submission could not be graded at all, else None.
        execution_time: wall-clock seconds the grading took (float).
    """

    submission: str
    cases: list = field(default_factory=list)
    notes: list = field(default_factory=list)
    error: str | None = None
    execution_time: float = 0.0

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

    def group_scores(self):
        """``{group: (earned, available)}`` in group order."""
        return {name: (sum(c.points for c in cases), sum(c.max_points for c in cases)) for name, cases in self.groups()}
