"""A synthetic class with known content, for the class report's tests and its screenshot.

``build_class(folder)`` writes one submission per student into ``folder`` (the layout
``python -m grader.batch`` reads) and returns a ``Manifest`` saying what each student holds:

- correct capstone solutions in five independent styles: the faulty library's compact base, the
  course's reference (assembled from ``solutions/``), and ``tests/insight/`` classy, flat and table;
- ``table_copied``: ``table.py`` with its variables renamed and its functions reordered (as a
  notebook, like the original, so the shipped cells are exercised as boilerplate);
- the untouched capstone notebook (the shipped stub), and a student folder holding no file;
- every known mistake of the faulty library, planted 1 to 3 times (capstone) or 1 to 2 times
  (step exercises), each as its library solution: one fault, nothing else;
- two students with two capstone faults at once (for partial matches);
- each step exercise's correct base once.

Students are numbered in a shuffled (seeded) order so that related students are not neighbours.
About 110 files: the batch grades them in about 25 s on two cores.
"""

import os
import random
from dataclasses import dataclass, field

import nbformat

from conftest import ROOT
from course.misconceptions import apply_edits, library
from faulty.faults import FAULTS
from faulty.step_faults import BASES

HERE = os.path.join(ROOT, "tests", "insight")
CAPSTONE_NOTEBOOK = os.path.join(ROOT, "notebooks", "05_capstone.ipynb")
# Pairs whose faults do not mask each other (bool_is_int with first_violation_only passes a case each fails alone).
DOUBLE_FAULTS = [("bool_is_int", "strips_fences"), ("crash_on_deep_nesting", "normalises_names")]


@dataclass
class Manifest:
    """What the synthetic class holds.

    Attributes:
        styles: ``{style: student}`` for the independent correct capstone solutions.
        copied: ``(original student, copier)``. stub: the student who handed in the untouched notebook.
        no_file: the student whose folder holds no submission file.
        planted: ``{mistake id: [students]}`` (ids as in grader/insight/misconceptions.json).
        doubles: ``{student: (mistake id, mistake id)}``. step_bases: ``{exercise: student}``.
    """

    styles: dict = field(default_factory=dict)
    copied: tuple = ()
    stub: str = ""
    no_file: str = ""
    planted: dict = field(default_factory=dict)
    doubles: dict = field(default_factory=dict)
    step_bases: dict = field(default_factory=dict)


def _read(path):
    with open(path, encoding="utf-8") as handle:
        return handle.read()


def capstone_notebook(code):
    """The learner's capstone notebook with ``code`` in its exercise cell (an nbformat node)."""
    notebook = nbformat.read(CAPSTONE_NOTEBOOK, as_version=4)
    for cell in notebook.cells:
        if cell.get("metadata", {}).get("nbgrader", {}).get("grade_id") == "capstone":
            cell.source = code
    return notebook


def build_class(folder):
    """Write the synthetic class into ``folder`` (created if missing); returns its ``Manifest``."""
    from course.assemble import seed_form

    os.makedirs(folder, exist_ok=True)
    base = _read(os.path.join(ROOT, "tests", "faulty", "base.py"))
    entries = []  # (kind, detail, file suffix, content)
    styles = {"base": base, "reference": seed_form(), "classy": _read(os.path.join(HERE, "classy.py")),
              "flat": _read(os.path.join(HERE, "flat.py"))}
    entries += [("style", name, ".py", code) for name, code in styles.items()]
    entries.append(("style", "table", ".ipynb", capstone_notebook(_read(os.path.join(HERE, "table.py")))))
    entries.append(("copy", "table_copied", ".ipynb", capstone_notebook(_read(os.path.join(HERE, "table_copied.py")))))
    entries.append(("stub", "", ".ipynb", nbformat.read(CAPSTONE_NOTEBOOK, as_version=4)))
    entries.append(("no_file", "", "", None))
    for number, (mistake_id, exercise, _, _, source) in enumerate(library()):
        times = number % 3 + 1 if exercise == "capstone" else number % 2 + 1
        entries += [("planted", mistake_id, ".py", source)] * times
    by_name = {f.name: f for f in FAULTS}
    for first, second in DOUBLE_FAULTS:
        source = apply_edits(apply_edits(base, by_name[first].edits), by_name[second].edits)
        entries.append(("double", (f"capstone:{first}", f"capstone:{second}"), ".py", source))
    entries += [("step_base", exercise, ".py", code) for exercise, code in sorted(BASES.items())]
    numbers = list(range(1, len(entries) + 1))
    random.Random(17).shuffle(numbers)
    manifest = Manifest()
    for number, (kind, detail, suffix, content) in zip(numbers, entries):
        student = f"s{number:03d}"
        if kind == "no_file":
            os.makedirs(os.path.join(folder, student), exist_ok=True)
            manifest.no_file = student
            continue
        path = os.path.join(folder, student + suffix)
        if suffix == ".ipynb":
            nbformat.write(content, path)
        else:
            with open(path, "w", encoding="utf-8") as handle:
                handle.write(content)
        if kind == "style":
            manifest.styles[detail] = student
        elif kind == "copy":
            manifest.copied = (manifest.styles["table"], student)
        elif kind == "stub":
            manifest.stub = student
        elif kind == "planted":
            manifest.planted.setdefault(detail, []).append(student)
        elif kind == "double":
            manifest.doubles[student] = detail
        else:
            manifest.step_bases[detail] = student
    return manifest


# -- batch output written from results, without grading (for unit tests and the benchmark) -----------

def write_batch_output(out, graded):
    """Write a batch output folder the way ``grader.classroom.batch.grade_student`` does, from ready results.

    Args:
        out: the output folder (str). graded: ``{student: [(file name, GradeResult), ...]}``; an
            empty list is a student who handed in no file.
    Returns:
        the summaries written (list of dict), as ``grader.classroom.batch.run_batch`` returns them.
    """
    from grader.classroom.batch import safe_file_name, write_tables
    from grader.intake.exercises import EXERCISES
    from grader.results.atomic_write import write_json_atomically
    from grader.results.formats import gradescope_results
    from grader.results.grade_result import best_per_exercise

    summaries = []
    for student, files in sorted(graded.items()):
        summary = {"student": student, "files": [name for name, _ in files], "exercises": {},
                   "errors": [] if files else ["no .py or .ipynb file was submitted"]}
        for name, result in files:
            write_json_atomically(os.path.join(out, "feedback", safe_file_name(student), safe_file_name(name) + ".results.json"),
                                  gradescope_results(result))
        combined = best_per_exercise([result for _, result in files], student)
        for exercise_id in dict.fromkeys(case.exercise_id for case in combined.cases):
            cases = [case for case in combined.cases if case.exercise_id == exercise_id]
            summary["exercises"][exercise_id] = [sum(c.points for c in cases), sum(c.max_points for c in cases)]
        write_json_atomically(os.path.join(out, "results", safe_file_name(student) + ".json"), summary)
        summaries.append(summary)
    # The assignment: every exercise some student was graded on, at its maximum, in course order.
    maxima = {}
    for summary in summaries:
        for exercise_id, (_, available) in summary["exercises"].items():
            maxima[exercise_id] = available
    maxima = {e.id: maxima[e.id] for e in EXERCISES if e.id in maxima}
    write_tables(out, sorted(graded), {s["student"]: s for s in summaries}, maxima)
    return summaries


def result_from(templates, failed, submission):
    """A ``GradeResult`` whose cases are ``templates`` (passing ``CaseResult``s), failing those in ``failed``.

    Args:
        templates: list of ``grader.results.grade_result.CaseResult``. failed: ``(group, title)`` keys to fail (set).
        submission: the file's name (str).
    """
    from dataclasses import replace

    from grader.results.grade_result import GradeResult

    cases = [replace(c, passed=False, points=0.0, feedback="synthetic failure") if (c.group, c.title) in failed
             else replace(c, passed=True, points=c.max_points, feedback="") for c in templates]
    return GradeResult(submission=submission, cases=cases)
