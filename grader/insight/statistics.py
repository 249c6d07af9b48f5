"""Class insight: score distributions, and how each case and case group did across the class.

Discrimination is the **point-biserial correlation between passing the case and the rest score**
(the student's points on the same exercise without this case's own points; the "corrected item-total
correlation" of classical test theory, as PrairieLearn and most item analyses report it). Near +1:
the students who pass the case are those who do well on the rest of the exercise; near 0: passing
it says nothing about the rest; below 0: the stronger students fail it more often than the weaker,
which is what a broken or misleading case looks like.

Which students count: the case statistics use the students graded on the exercise who passed at
least one of its cases. A submission that passes nothing (an untouched stub, a notebook that does
not load) fails every case alike and would make every case look discriminating.
"""

import math
import statistics
from dataclasses import dataclass, field

from grader.intake.exercises import BY_ID

NEGATIVE = -0.1  # discrimination below this: the stronger students fail the case more often
MIN_STUDENTS_FOR_DISCRIMINATION = 5  # fewer students: a correlation is not worth printing
MIN_STUDENTS_FOR_FLAG = 20  # fewer students: one or two of them decide the sign of the correlation


@dataclass
class ExerciseStats:
    """One exercise over the class.

    Attributes:
        exercise: id (str). title: (str). maximum: points available (float).
        students: students in the class (int). graded: students with a graded file for it (int).
        no_file: students without one ("handed nothing in") (list of str).
        nothing_passed: graded students who passed no case (list of str).
        mean, median: points over the graded students (float, or None when nobody was graded).
        bins: the score distribution: ``[(low, high, students), ...]``; a bin holds scores with
            low <= score < high, the last one also its high end (float, float, int).
    """

    exercise: str
    title: str
    maximum: float
    students: int
    graded: int
    no_file: list
    nothing_passed: list
    mean: float | None
    median: float | None
    bins: list = field(default_factory=list)


@dataclass
class ItemStats:
    """One case, or one case group (passing a group means full marks on every case in it).

    Attributes:
        exercise: id (str). group: (str). title: the case's title, or "" for a group (str).
        visibility: ``"visible"``/``"hidden"`` for a case, "" for a group (str). cases: cases in it (int).
        max_points: (float). students: students counted (int). passed: how many passed (int).
        discrimination: the point-biserial correlation (float), or None when it is undefined (fewer
            than ``MIN_STUDENTS_FOR_DISCRIMINATION`` students, or everyone passes, or everyone fails).
        flag: why the item may be broken (str): "no student passes it", "stronger students fail it more
            often" (discrimination below ``NEGATIVE`` with at least ``MIN_STUDENTS_FOR_FLAG`` students), or "".
        failed_by: the students counted who did not pass (sorted list of str).
    """

    exercise: str
    group: str
    title: str
    visibility: str
    cases: int
    max_points: float
    students: int
    passed: int
    discrimination: float | None
    flag: str
    failed_by: list

    @property
    def pass_rate(self):
        """Share of the counted students who passed (float, 0 to 1; 0 when nobody was counted)."""
        return self.passed / self.students if self.students else 0.0


def score_bins(maximum):
    """Bin edges for an exercise's score histogram: one bin per point up to 40 points, else 20 equal bins.

    Returns:
        list of ``(low, high)`` floats covering 0..maximum.
    """
    if maximum <= 0:
        return [(0.0, 0.0)]
    count = int(math.ceil(maximum)) if maximum <= 40 else 20
    width = maximum / count
    return [(i * width, (i + 1) * width) for i in range(count)]


def _histogram(scores, maximum):
    edges = score_bins(maximum)
    counts = [0] * len(edges)
    for score in scores:
        for index, (low, high) in enumerate(edges):
            if low <= score < high or index == len(edges) - 1:
                counts[index] += 1
                break
    return [(low, high, n) for (low, high), n in zip(edges, counts)]


def point_biserial(passes, rest):
    """Pearson correlation between 0/1 outcomes and scores (float), or None when either does not vary.

    Args:
        passes: list of bool. rest: list of float, same length.
    """
    n = len(passes)
    if n < MIN_STUDENTS_FOR_DISCRIMINATION:
        return None
    x = [1.0 if p else 0.0 for p in passes]
    mean_x, mean_y = sum(x) / n, sum(rest) / n
    sxy = sum((a - mean_x) * (b - mean_y) for a, b in zip(x, rest))
    sxx = sum((a - mean_x) ** 2 for a in x)
    syy = sum((b - mean_y) ** 2 for b in rest)
    if sxx <= 0 or syy <= 1e-12:
        return None
    return sxy / math.sqrt(sxx * syy)


def _flag(passed, students, discrimination):
    if students and not passed:
        return "no student passes it"
    if discrimination is not None and discrimination < NEGATIVE and students >= MIN_STUDENTS_FOR_FLAG:
        return "stronger students fail it more often"
    return ""


def exercise_stats(data):
    """Per exercise: the distribution and who handed nothing in (list of ``ExerciseStats``, course order)."""
    out = []
    for exercise in data.exercises:
        graded = data.graded(exercise)
        scores = [data.scores[s][exercise] for s in graded]
        failed = data.failed.get(exercise, {})
        outcomes = data.outcomes.get(exercise, {})
        nothing = [s for s in graded if s in outcomes and outcomes[s] and len(failed[s]) >= len(outcomes[s])]
        known = BY_ID.get(exercise)
        out.append(ExerciseStats(
            exercise, known.title if known else exercise, data.maximum[exercise], len(data.students), len(graded),
            [s for s in data.students if s not in graded], nothing,
            statistics.fmean(scores) if scores else None, statistics.median(scores) if scores else None,
            _histogram(scores, data.maximum[exercise])))
    return out


def counted_students(data, exercise):
    """The students the case statistics of ``exercise`` count: graded, passing at least one case (list)."""
    outcomes = data.outcomes.get(exercise, {})
    failed = data.failed.get(exercise, {})
    return [s for s in data.graded(exercise) if s in outcomes and len(failed[s]) < len(outcomes[s])]


def _sort_key(item):
    order = 0 if item.flag == "no student passes it" else 1 if item.flag else 2
    return (order, item.discrimination if order == 1 else item.pass_rate, item.group, item.title)


def item_stats(data):
    """Per case and per case group: pass rate, discrimination, flag and who failed.

    Returns:
        ``(cases, groups)``: two lists of ``ItemStats``; within each exercise, possibly broken items
        first (no student passes, then the most negative discrimination), then by pass rate, lowest first.
    """
    cases_out, groups_out = [], []
    for exercise in data.exercises:
        students = counted_students(data, exercise)
        outcomes = data.outcomes[exercise] if students else {}
        failed = data.failed.get(exercise, {})
        totals = {s: data.scores[s][exercise] for s in students}
        exercise_cases, exercise_groups = [], []
        groups = {}
        for case in data.cases.get(exercise, []):
            groups.setdefault(case.group, []).append(case)
            present = [s for s in students if case.key in outcomes[s]]
            passes = [case.key not in failed[s] for s in present]
            rest = [totals[s] - outcomes[s][case.key] for s in present]
            r = point_biserial(passes, rest)
            passed = sum(passes)
            exercise_cases.append(ItemStats(
                exercise, case.group, case.title, case.visibility, 1, case.max_points, len(present), passed, r,
                _flag(passed, len(present), r), sorted(s for s, p in zip(present, passes) if not p)))
        for group, members in groups.items():
            keys = [c.key for c in members]
            present = [s for s in students if all(k in outcomes[s] for k in keys)]
            passes = [not any(k in failed[s] for k in keys) for s in present]
            rest = [totals[s] - sum(outcomes[s][k] for k in keys) for s in present]
            r = point_biserial(passes, rest)
            passed = sum(passes)
            exercise_groups.append(ItemStats(
                exercise, group, "", "", len(members), sum(c.max_points for c in members), len(present), passed, r,
                _flag(passed, len(present), r), sorted(s for s, p in zip(present, passes) if not p)))
        cases_out += sorted(exercise_cases, key=_sort_key)
        groups_out += sorted(exercise_groups, key=_sort_key)
    return cases_out, groups_out
