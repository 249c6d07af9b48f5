"""Class insight, step 1: read a batch run's output folder (``python -m grader.batch ... --out OUT``).

``read_batch_output(OUT)`` is the one reader the class report uses, so a change to the batch's files
has one place to land. It reads, and never regrades:

- ``OUT/results/STUDENT.json``: each student's summary (``student``, ``files``, ``exercises``
  ``{id: [earned, available]}``, ``errors``), written by ``grader.classroom.batch.grade_student``;
- ``OUT/feedback/STUDENT/FILE.results.json``: Gradescope's results.json per graded file, whose
  ``tests`` carry each case's ``name``, ``score``, ``max_score``, ``status``, ``tags`` (case group,
  visibility) and ``extra_data.exercise`` (``grader.results.formats.gradescope_results``);
- ``OUT/gradebook.csv``, only for its ``student`` column: the class of the last run (a student
  removed from the submissions folder keeps an old results file, which is then left out).

Fields it does not know are ignored, so the batch can add some (a version, content hashes) freely.
A file it cannot read costs that file, with a sentence in ``ClassResults.notes``, never the report.
"""

import csv
import json
import os
from dataclasses import dataclass, field

from grader.intake.exercises import BY_ID, EXERCISES
from grader.results.csv_cells import original_cell

# A case whose own check passed but whose points were voided because the submission failed one of the
# grader's randomised canary checks (``grader.judging.canaries.void_reference``, shown by ``grader.results.formats.case_output``).
VOIDED = "What happened: Not counted: "


@dataclass(frozen=True)
class Case:
    """One test case of an exercise, as results.json names it.

    Attributes:
        exercise: exercise id (str). group: case group, without the exercise title a
        multi-exercise file puts before it (str). title: the case's one-line title (str).
        visibility: ``"visible"`` or ``"hidden"`` (str). max_points: points available (float).
    """

    exercise: str
    group: str
    title: str
    visibility: str
    max_points: float

    @property
    def key(self):
        """``(group, title)``: what identifies a case within its exercise (tuple of str)."""
        return (self.group, self.title)


@dataclass
class ClassResults:
    """What a batch run says about a class.

    Attributes:
        folder: the batch output folder (str).
        students: every student in the class, sorted (list of str).
        exercises: ids of the exercises anyone was graded on, in course order (list of str).
        maximum: ``{exercise: points available}`` (float).
        scores: ``{student: {exercise: earned points}}`` (float); an exercise a student has no
            graded file for is absent.
        files: ``{student: {exercise: file name}}``: the file each exercise's score came from.
        cases: ``{exercise: [Case, ...]}`` in the order results.json lists them.
        outcomes: ``{exercise: {student: {case key: points earned}}}``; a case is passed when it
            earned its ``max_points`` (results.json's ``status``); see ``passed``.
        failed: ``{exercise: {student: frozenset of case keys}}``: the cases each student failed.
        voided: ``{exercise: {student: frozenset of case keys}}``: failed cases whose own check
            passed, voided by a failed canary check (random, so no part of a mistake's pattern).
        errors: ``{student: [sentence, ...]}`` from the batch's summary (the gradebook's notes).
        notes: sentences about what could not be read (list of str).
    """

    folder: str
    students: list = field(default_factory=list)
    exercises: list = field(default_factory=list)
    maximum: dict = field(default_factory=dict)
    scores: dict = field(default_factory=dict)
    files: dict = field(default_factory=dict)
    cases: dict = field(default_factory=dict)
    outcomes: dict = field(default_factory=dict)
    failed: dict = field(default_factory=dict)
    voided: dict = field(default_factory=dict)
    errors: dict = field(default_factory=dict)
    notes: list = field(default_factory=list)

    def graded(self, exercise):
        """Students with a graded file for ``exercise``, sorted (list of str)."""
        return [s for s in self.students if exercise in self.scores.get(s, {})]

    def pattern(self, exercise, student):
        """The cases the student failed in ``exercise`` by their own check: failed, not voided (frozenset)."""
        return self.failed.get(exercise, {}).get(student, frozenset()) - self.voided.get(exercise, {}).get(
            student, frozenset())


def _load_json(path, notes):
    try:
        with open(path, encoding="utf-8") as handle:
            return json.load(handle)
    except (OSError, ValueError) as exc:
        notes.append(f"{path} could not be read ({type(exc).__name__}); it is left out.")
        return None


def gradebook_students(path):
    """The ``student`` column of a gradebook CSV (list of str), or None when there is no gradebook.

    Finds the header row by its first cell, ``student``, so a line the batch may put above it (a
    version) does not matter; rows after it keep their first cell.
    """
    try:
        with open(path, encoding="utf-8", newline="") as handle:
            rows = list(csv.reader(handle))
    except OSError:
        return None
    for number, row in enumerate(rows):
        if row and row[0] == "student":
            return [r[0] for r in rows[number + 1:] if r]
    return None


def _unescaped(name, known):
    """The results' name for a gradebook cell, which the batch wrote through the kit's CSV guard
    (``grader.results.csv_cells.safe_cell``: a leading apostrophe against CSV injection), or None.

    The guard's own inverse first; then the cell as it is, which is how an older gradebook wrote a name that
    began with an apostrophe of its own.
    """
    for candidate in (original_cell(name), name):
        if candidate in known:
            return candidate
    return None


def _case_parts(test, exercise):
    """``(group, title, visibility)`` of one results.json test, or None when it is malformed."""
    tags = test.get("tags")
    name = test.get("name")
    if not isinstance(name, str) or not isinstance(tags, list) or not tags or not isinstance(tags[0], str):
        return None
    label = tags[0]
    title = name[len(label) + 2:] if name.startswith(label + ": ") else name
    known = BY_ID.get(exercise)
    # A file graded on several exercises labels each group "<exercise title> · <group>".
    if known is not None and label.startswith(known.title + " · "):
        label = label[len(known.title) + 3:]
    visibility = tags[1] if len(tags) > 1 and isinstance(tags[1], str) else "hidden"
    return label, title, visibility


def _tests_by_exercise(results):
    """``{exercise: [test, ...]}`` from one results.json dict (tests without an exercise are skipped)."""
    out = {}
    for test in results.get("tests", []) if isinstance(results, dict) else []:
        extra = test.get("extra_data") if isinstance(test, dict) else None
        exercise = extra.get("exercise") if isinstance(extra, dict) else None
        if isinstance(exercise, str) and isinstance(test.get("score"), (int, float)):
            out.setdefault(exercise, []).append(test)
    return out


def _feedback_files(folder, listed):
    """The student's results.json files in the order the batch graded them (its ``files`` list)."""
    try:
        present = sorted(n for n in os.listdir(folder) if n.endswith(".results.json"))
    except OSError:
        return []
    ordered = [f"{name}.results.json" for name in listed if f"{name}.results.json" in present]
    return [os.path.join(folder, n) for n in ordered + [n for n in present if n not in ordered]]


def read_batch_output(folder):
    """Read a batch output folder into a ``ClassResults``.

    Per student and exercise the cases come from the file whose points for it equal the summary's
    (the batch counts each exercise once, from the student's best file; ``grader.results.grade_result.best_per_exercise``).

    Args:
        folder: the ``--out`` folder of ``python -m grader.batch`` (str or path-like).
    Returns:
        ``ClassResults``.
    Raises:
        FileNotFoundError: ``folder`` has no ``results/`` folder (not a batch output); the message
            is one sentence.
    """
    folder = os.fspath(folder)
    results_dir = os.path.join(folder, "results")
    if not os.path.isdir(results_dir):
        raise FileNotFoundError(f"{folder} holds no results/ folder: pass the --out folder of python -m grader.batch.")
    data = ClassResults(folder=folder)
    summaries = {}
    for name in sorted(os.listdir(results_dir)):
        if not name.endswith(".json") or name.startswith("."):
            continue
        summary = _load_json(os.path.join(results_dir, name), data.notes)
        if not isinstance(summary, dict) or not isinstance(summary.get("student"), str):
            if summary is not None:
                data.notes.append(f"results/{name} is not a student summary; it is left out.")
            continue
        summaries[summary["student"]] = (name[:-len(".json")], summary)
    roster = gradebook_students(os.path.join(folder, "gradebook.csv"))
    if roster is None:
        data.students = sorted(summaries)
    else:
        matched = [_unescaped(name, summaries) for name in roster]
        missing = [name for name, found in zip(roster, matched) if found is None]
        if missing:
            data.notes.append(f"{len(missing)} student(s) of gradebook.csv have no results file (first: {missing[0]}).")
        stale = len(set(summaries) - set(matched))
        if stale:
            data.notes.append(f"{stale} results file(s) name students who are not in gradebook.csv (graded in an "
                              "earlier run, then removed from the submissions); they are left out.")
        data.students = sorted(name for name in matched if name is not None)
    seen_cases, names = {}, {}
    for student in data.students:
        stem, summary = summaries[student]
        data.errors[student] = [str(e) for e in summary.get("errors", []) if e]
        exercises = summary.get("exercises") if isinstance(summary.get("exercises"), dict) else {}
        listed = [str(f) for f in summary.get("files", []) if isinstance(f, str)]
        per_file = []
        for path in _feedback_files(os.path.join(folder, "feedback", stem), listed):
            results = _load_json(path, data.notes)
            per_file.append((os.path.basename(path)[:-len(".results.json")], _tests_by_exercise(results)))
        for exercise, pair in exercises.items():
            if not (isinstance(pair, list) and len(pair) == 2 and all(isinstance(v, (int, float)) for v in pair)):
                continue
            earned, available = float(pair[0]), float(pair[1])
            data.maximum[exercise] = max(data.maximum.get(exercise, 0.0), available)
            candidates = [(name, tests[exercise]) for name, tests in per_file if exercise in tests]
            if not candidates:
                # The batch scores every exercise of the assignment; one that no file of the student was
                # graded on (none defines its function) counts as "no file", not as an attempt passing no case.
                continue
            data.scores.setdefault(student, {})[exercise] = earned
            chosen = next((c for c in candidates if abs(sum(t["score"] for t in c[1]) - earned) < 1e-9), None)
            if chosen is None:
                if candidates:
                    data.notes.append(f"{student}: no results file matches the summary's score for {exercise}; "
                                      "its cases are left out.")
                continue
            data.files.setdefault(student, {})[exercise] = chosen[0]
            points, failed, voided = {}, set(), set()
            known = seen_cases.setdefault(exercise, {})
            for test in chosen[1]:
                # Every student's file names the same cases: parse each name once (500 students: 170,000 tests).
                signature = (test.get("name"), str(test.get("tags")))
                parts = names.get((exercise, signature))
                if parts is None:
                    parts = names[(exercise, signature)] = _case_parts(test, exercise) or ()
                if not parts:
                    continue
                key = parts[:2]
                if key not in known:
                    known[key] = Case(exercise, parts[0], parts[1], parts[2], float(test.get("max_score") or 0.0))
                points[key] = float(test["score"])
                if test.get("status") != "passed":
                    failed.add(key)
                    if VOIDED in str(test.get("output", "")):
                        voided.add(key)
            data.outcomes.setdefault(exercise, {})[student] = points
            data.failed.setdefault(exercise, {})[student] = frozenset(failed)
            data.voided.setdefault(exercise, {})[student] = frozenset(voided)
    course_order = [e.id for e in EXERCISES]
    data.exercises = sorted(data.maximum, key=lambda e: (course_order.index(e) if e in course_order else len(course_order), e))
    data.cases = {e: list(seen_cases.get(e, {}).values()) for e in data.exercises}
    return data

