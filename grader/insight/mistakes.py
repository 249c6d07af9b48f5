"""Class insight: which known mistakes may explain the cases each student failed.

The known mistakes are the kit's faulty-solution library (``tests/faulty/``): correct solutions with
one fault each, graded by the grader. ``grader/insight/misconceptions.json`` records, for each, the
cases it fails on every draw of the hidden inputs, those it fails on some draws only (issue 24 draws every input:
a difflib repair of a tool name meets a near miss on one draw and not on the next), and their groups;
``python -m course.misconceptions`` writes it and the tests fail, saying so, when it no longer matches the library
or the cases.

A student's pattern is the set of cases they failed in one exercise by the case's own check (a case
voided by a failed random canary check is left out: ``ClassResults.pattern``). Known mistakes whose
cases are the same, or differ by one case, share a row: results cannot tell them apart (a retry
budget kept in a never-reset global fails what "no retry" fails, give or take the one case that
happened to get the retry). A pattern matches a row
- **exactly** when it holds every case all its mistakes fail and no case none of them fails (for a
  one-mistake row: it is the mistake's set of cases);
- **partly** otherwise, when it holds at least two thirds of the mistake's cases: such mistakes are
  chosen greedily, the one explaining most of the still unexplained failures first, until none
  explains more, and each chosen one is a partial match (two mistakes at once, which can also hide
  some of each other's symptoms, or a broader or narrower form of one).
A match is a likely cause to check in the student's code, never a verdict. A student who failed every
case of an exercise by its own check is not compared (nothing tells their mistakes apart), nor is
one who failed none.
"""

import json
from dataclasses import dataclass, field

from grader.paths import MISCONCEPTIONS_PATH


@dataclass(frozen=True)
class Mistake:
    """One known mistake.

    Attributes:
        id: ``"EXERCISE:NAME"`` (str). exercise: exercise id (str).
        name: what the mistake is, in one sentence (str). origin: where the library has it from (str).
        groups: the case groups of its cases (frozenset of str).
        cases: the cases it fails by their own check, as ``(group, title)`` (frozenset of tuples); cases
            voided by a failed canary check are not among them.
    """

    id: str
    exercise: str
    name: str
    origin: str
    groups: frozenset
    cases: frozenset
    sometimes: frozenset = frozenset()


def load_mistakes(path=MISCONCEPTIONS_PATH):
    """Read the known mistakes (list of ``Mistake``, in file order).

    Raises:
        OSError, ValueError, KeyError: a missing or malformed file (a kit bug its tests catch).
    """
    with open(path, encoding="utf-8") as handle:
        data = json.load(handle)
    return [Mistake(m["id"], m["exercise"], m["name"], m.get("origin", ""), frozenset(m["groups"]),
                    frozenset(tuple(c) for c in m["cases"]), frozenset(tuple(c) for c in m.get("sometimes", [])))
            for m in data["mistakes"]]


@dataclass
class MistakeRow:
    """Known mistakes of one exercise that fail the same cases, with the students who match.

    Attributes:
        exercise: (str). mistakes: the ``Mistake``s (list; several when their cases are the same or
            differ by one case). cases: the cases any of them fails on some draw (frozenset). core: the cases all
            of them fail on every draw (frozenset). identifiable: False when they fail every case of the exercise,
            like an untouched stub, so results cannot point to them (bool).
        exact, partial: matching students (sorted lists of str).
    """

    exercise: str
    mistakes: list
    cases: frozenset
    identifiable: bool
    core: frozenset = None
    exact: list = field(default_factory=list)
    partial: list = field(default_factory=list)

    def __post_init__(self):
        if self.core is None:
            self.core = self.cases  # one mistake failing the same cases on every draw: all its cases are the core

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
        nothing_passed: ``{exercise: [students]}`` graded but failing every case by its own check (not compared).
        stale: sentences for mistakes that name cases the results do not have (list of str).
    """

    rows: list = field(default_factory=list)
    compared: dict = field(default_factory=dict)
    unexplained: dict = field(default_factory=dict)
    nothing_passed: dict = field(default_factory=dict)
    stale: list = field(default_factory=list)


LOOK_ALIKE = 1  # mistakes whose case sets differ by at most this many cases share a row


def rows_for(mistakes, every_case):
    """Group known mistakes into ``MistakeRow``s: those of one exercise whose case sets differ by at most
    ``LOOK_ALIKE`` cases, and share more than that, are one row (transitively); so are those with the same cases.

    Args:
        mistakes: list of ``Mistake``. every_case: ``{exercise: set of case keys}`` seen in the class;
            mistakes of other exercises are left out.
    Returns:
        list of ``MistakeRow`` (in the mistakes' order). Look-alikes are judged by the cases failed on every draw;
        a row's ``cases`` add those failed on some draws (``Mistake.sometimes``), its ``core`` does not.
    """
    groups = []
    for mistake in mistakes:
        if mistake.exercise not in every_case:
            continue
        # Alike only when they share more than they differ by: one-case mistakes on different cases ({spacing},
        # {prefix}) are told apart by their results, and a two-fault mistake failing both must not chain them.
        near = [g for g in groups if g[0].exercise == mistake.exercise
                and any(m.cases == mistake.cases
                        or (len(m.cases ^ mistake.cases) <= LOOK_ALIKE and len(m.cases & mistake.cases) > LOOK_ALIKE)
                        for m in g)]
        merged = [mistake] + [m for g in near for m in g]
        groups = [g for g in groups if g not in near] + [sorted(merged, key=mistakes.index)]
    groups = _merge_the_indistinguishable(groups, mistakes)
    rows = []
    for group in sorted(groups, key=lambda g: mistakes.index(g[0])):
        cases = frozenset().union(*(m.cases | m.sometimes for m in group))
        core = frozenset.intersection(*(m.cases for m in group))
        exercise = group[0].exercise
        rows.append(MistakeRow(exercise, group, cases, identifiable=not every_case[exercise] <= core, core=core))
    return rows


def _span(group):
    """``(core, cases)`` of a group of mistakes: the cases all fail on every draw, the cases any fails on some draw."""
    return frozenset.intersection(*(m.cases for m in group)), frozenset().union(*(m.cases | m.sometimes for m in group))


def _merge_the_indistinguishable(groups, mistakes):
    """``groups`` (lists of ``Mistake``) with any two merged while a mistake of one, graded alone, would match the
    other exactly (its cases lie between the other's core and cases): results cannot tell them apart, so a row of
    each would name a student's one mistake twice (issue 25: "no retry" matched the never-reset global counter's row
    too, once its cases on some draws were counted)."""
    merged = True
    while merged:
        merged = False
        for one in groups:
            for other in groups:
                if one is other or one[0].exercise != other[0].exercise:
                    continue
                core, cases = _span(other)
                if any(core <= m.cases <= cases for m in one):
                    groups = [g for g in groups if g is not one and g is not other] + [
                        sorted(one + other, key=mistakes.index)]
                    merged = True
                    break
            if merged:
                break
    return groups


PARTIAL_SHARE = 2 / 3  # of a mistake's cases a student must fail for a partial match


def explain(failed, rows):
    """Match one student's failed cases against the known mistakes of their exercise.

    Args:
        failed: the student's pattern: the cases they failed (frozenset of ``(group, title)``).
        rows: the exercise's ``MistakeRow``s.
    Returns:
        ``(exact, partial)``: the rows matching exactly (list) and the rows chosen as partial matches
        (list, in the order chosen; see the module docstring); both empty when nothing known explains
        the pattern.
    """
    usable = [row for row in rows if row.identifiable and row.cases]
    exact = [row for row in usable if row.core <= failed <= row.cases]
    if exact:
        return exact, []
    candidates = [row for row in usable if len(row.cases & failed) >= PARTIAL_SHARE * len(row.cases)]
    chosen, explained = [], set()
    while True:
        best = max(candidates, key=lambda r: (len((r.cases & failed) - explained), len(r.cases & failed) / len(r.cases),
                                              len(r.cases), -usable.index(r)), default=None)
        if best is None or not (best.cases & failed) - explained:
            return [], chosen
        chosen.append(best)
        explained |= best.cases & failed
        candidates.remove(best)


def match_class(data, mistakes):
    """Match every student's pattern of failed cases, per exercise, against the known mistakes.

    Args:
        data: ``grader.insight.read_batch.ClassResults``. mistakes: list of ``Mistake`` (``load_mistakes()``).
    Returns:
        ``MistakeReport``.
    """
    report = MistakeReport()
    rows = rows_for(mistakes, {e: {case.key for case in data.cases[e]} for e in data.exercises})
    for row in rows:
        every = {case.key for case in data.cases[row.exercise]}
        unknown = row.cases - every
        if unknown and data.graded(row.exercise):
            report.stale.append(f"{row.mistakes[0].id} names {len(unknown)} case(s) these results do not have "
                                f"(first: {sorted(unknown)[0][1]}); grader/insight/misconceptions.json may be stale.")
    for exercise in data.exercises:
        mine = [row for row in rows if row.exercise == exercise]
        report.compared[exercise] = 0
        report.unexplained[exercise] = []
        report.nothing_passed[exercise] = []
        for student, failed in sorted(data.failed.get(exercise, {}).items()):
            pattern = data.pattern(exercise, student)
            if not pattern:
                continue
            if len(pattern) >= len(data.outcomes[exercise][student]):
                report.nothing_passed[exercise].append(student)
                continue
            report.compared[exercise] += 1
            exact, partial = explain(pattern, mine)
            for row in exact:
                row.exact.append(student)
            for row in partial:
                row.partial.append(student)
            if not exact and not partial:
                report.unexplained[exercise].append(student)
    report.rows = sorted(rows, key=lambda r: (-len(r.exact), -len(r.partial), r.exercise, r.mistakes[0].id))
    return report
