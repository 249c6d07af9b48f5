"""Class insight: which known mistakes may explain the cases each student failed.

The known mistakes are the kit's faulty-solution library (``tests/faulty/``): correct solutions with
one fault each, graded by the grader. ``grader/insight_misconceptions.json`` records, for each, the
exact cases it fails (and their groups); ``python -m course.misconceptions`` writes it and the tests
fail, saying so, when it no longer matches the library or the cases.

A student's pattern is the set of cases they failed in one exercise. It matches a mistake
- **exactly** when it is the mistake's set of cases;
- **partly** when it holds every case of the mistake and more: the known mistakes whose cases it
  holds are chosen greedily, the one explaining most of the still unexplained failures first, and
  each chosen one is a partial match (two mistakes at once, or a broader form of one).
A match is a likely cause to check in the student's code, never a verdict. A student who passed no
case of an exercise is not compared (nothing tells their mistakes apart), nor is one who passed all.
"""

import json
import os
from dataclasses import dataclass, field

MISCONCEPTIONS_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "insight_misconceptions.json")


@dataclass(frozen=True)
class Mistake:
    """One known mistake.

    Attributes:
        id: ``"EXERCISE:NAME"`` (str). exercise: exercise id (str).
        name: what the mistake is, in one sentence (str). origin: where the library has it from (str).
        groups: the case groups it loses points in (frozenset of str).
        cases: the cases it fails, as ``(group, title)`` (frozenset of tuples).
    """

    id: str
    exercise: str
    name: str
    origin: str
    groups: frozenset
    cases: frozenset


def load_mistakes(path=MISCONCEPTIONS_PATH):
    """Read the known mistakes (list of ``Mistake``, in file order).

    Raises:
        OSError, ValueError, KeyError: a missing or malformed file (a kit bug its tests catch).
    """
    with open(path, encoding="utf-8") as handle:
        data = json.load(handle)
    return [Mistake(m["id"], m["exercise"], m["name"], m.get("origin", ""), frozenset(m["groups"]),
                    frozenset(tuple(c) for c in m["cases"])) for m in data["mistakes"]]


@dataclass
class MistakeRow:
    """Known mistakes of one exercise that fail the same cases, with the students who match.

    Attributes:
        exercise: (str). mistakes: the ``Mistake``s (list; several only when their cases are the same).
        cases: the cases they fail (frozenset). identifiable: False when they fail every case of the
            exercise, like an untouched stub, so results cannot point to them (bool).
        exact, partial: matching students (sorted lists of str).
    """

    exercise: str
    mistakes: list
    cases: frozenset
    identifiable: bool
    exact: list = field(default_factory=list)
    partial: list = field(default_factory=list)

    @property
    def name(self):
        """The mistakes' sentences joined with " / " (str)."""
        return " / ".join(m.name for m in self.mistakes)

    @property
    def groups(self):
        """Case groups the mistakes lose points in, sorted (list of str)."""
        return sorted({g for m in self.mistakes for g in m.groups})


@dataclass
class MistakeReport:
    """Known mistakes against a class.

    Attributes:
        rows: ``[MistakeRow, ...]``, most exact matches first.
        compared: ``{exercise: students compared}`` (int): graded, passed some case and failed some.
        unexplained: ``{exercise: [students]}`` compared, matching no known mistake.
        nothing_passed: ``{exercise: [students]}`` graded but passing no case (not compared).
        stale: sentences for mistakes that name cases the results do not have (list of str).
    """

    rows: list = field(default_factory=list)
    compared: dict = field(default_factory=dict)
    unexplained: dict = field(default_factory=dict)
    nothing_passed: dict = field(default_factory=dict)
    stale: list = field(default_factory=list)


def _rows(mistakes, data):
    rows = {}
    for mistake in mistakes:
        if mistake.exercise not in data.cases:
            continue
        key = (mistake.exercise, mistake.cases)
        if key not in rows:
            every = {case.key for case in data.cases[mistake.exercise]}
            rows[key] = MistakeRow(mistake.exercise, [], mistake.cases, identifiable=not every <= mistake.cases)
        rows[key].mistakes.append(mistake)
    return list(rows.values())


def explain(failed, rows):
    """Match one student's failed cases against the known mistakes of their exercise.

    Args:
        failed: the cases the student failed (frozenset of ``(group, title)``).
        rows: the exercise's ``MistakeRow``s.
    Returns:
        ``(exact, partial)``: the rows matching exactly (list) and the rows chosen as partial matches
        (list, in the order chosen); both empty when nothing known explains the pattern.
    """
    usable = [row for row in rows if row.identifiable and row.cases]
    exact = [row for row in usable if row.cases == failed]
    if exact:
        return exact, []
    candidates = [row for row in usable if row.cases < failed]
    chosen, explained = [], set()
    while True:
        best = max(candidates, key=lambda r: (len(r.cases - explained), len(r.cases), -usable.index(r)), default=None)
        if best is None or not best.cases - explained:
            return [], chosen
        chosen.append(best)
        explained |= best.cases
        candidates.remove(best)


def match_class(data, mistakes):
    """Match every student's pattern of failed cases, per exercise, against the known mistakes.

    Args:
        data: ``grader.insight_read.ClassResults``. mistakes: list of ``Mistake`` (``load_mistakes()``).
    Returns:
        ``MistakeReport``.
    """
    report = MistakeReport()
    rows = _rows(mistakes, data)
    for row in rows:
        every = {case.key for case in data.cases[row.exercise]}
        unknown = row.cases - every
        if unknown and data.graded(row.exercise):
            report.stale.append(f"{row.mistakes[0].id} names {len(unknown)} case(s) these results do not have "
                                f"(first: {sorted(unknown)[0][1]}); grader/insight_misconceptions.json may be stale.")
    for exercise in data.exercises:
        mine = [row for row in rows if row.exercise == exercise]
        report.compared[exercise] = 0
        report.unexplained[exercise] = []
        report.nothing_passed[exercise] = []
        for student, failed in sorted(data.failed.get(exercise, {}).items()):
            total = len(data.outcomes[exercise][student])
            if not failed:
                continue
            if len(failed) >= total:
                report.nothing_passed[exercise].append(student)
                continue
            report.compared[exercise] += 1
            exact, partial = explain(failed, mine)
            for row in exact:
                row.exact.append(student)
            for row in partial:
                row.partial.append(student)
            if not exact and not partial:
                report.unexplained[exercise].append(student)
    report.rows = sorted(rows, key=lambda r: (-len(r.exact), -len(r.partial), r.exercise, r.mistakes[0].id))
    return report
