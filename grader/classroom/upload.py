"""One student's upload on a grading platform, and what every platform's package carries.

Gradescope (``grader.classroom.gradescope_bundle``) and PrairieLearn (``grader.classroom.prairielearn_question``)
both hand the grader a folder of what one student uploaded and want one result for the assignment chosen when
the package was built. This module grades such a folder, and lists the files every package copies: the grader
with its hidden cases and, where the assignment needs them, the reference steps 1 to 3 of its trusted side.
"""

import os
from dataclasses import dataclass, field

from grader.paths import GRADER_DIR, GRADER_FILE_SUFFIXES, SOLUTIONS_DIR
from grader.translations import N_, _, ngettext


def nothing_uploaded(assignment):
    """The note for an upload holding no .py or .ipynb file (str), naming the assignment's own notebooks (an
    instructor's trial: a bundle for notebooks 01-02 told students to upload 05_capstone.ipynb).

    Args:
        assignment: exercise ids (list of str).
    """
    from grader.intake.exercises import BY_ID

    notebooks = list(dict.fromkeys(BY_ID[e].notebook for e in assignment if e in BY_ID))
    shown = _(" and ").join(notebooks) if len(notebooks) <= 3 else ", ".join(notebooks[:3]) + _(" and the others")
    return ngettext("No .py or .ipynb file was found in your upload: upload your notebook ({notebooks}) or your .py "
                    "file, then submit again.",
                    "No .py or .ipynb file was found in your upload: upload your notebooks ({notebooks}) or your .py "
                    "file, then submit again.", len(notebooks)).format(notebooks=shown)


@dataclass
class GradedUpload:
    """What grading one upload folder found.

    Attributes:
        result: the combined ``grader.results.grade_result.GradeResult`` (the best file per exercise, plus a failed
            case for every case of an exercise no file holds), its notes naming refused and ungraded files.
        files: the .py and .ipynb files graded (list of str paths).
        unreadable: ``[(file name, sentence)]`` for each file that could not be read (a corrupt notebook, a syntax
            error) (list).
        missing: ``{exercise id: sentence}`` for each assignment exercise no graded file holds (dict).
        refused: one sentence per symbolic link refused (list of str).
        skipped: one sentence per file not graded (past ``MAX_FILES_PER_STUDENT``, or out of time) (list of str).
    """

    result: object
    files: list = field(default_factory=list)
    unreadable: list = field(default_factory=list)
    missing: dict = field(default_factory=dict)
    refused: list = field(default_factory=list)
    skipped: list = field(default_factory=list)


def grade_upload_folder(folder, assignment, secret=None, student="", limits=None):
    """Grade every .py and .ipynb file under ``folder`` on ``assignment``, within one shared time budget.

    Every upload is graded on the same exercises, so every upload has the same maximum: an exercise no uploaded
    file holds gets its cases, failed, with a sentence (``grader.classroom.batch.missing_exercises``).

    Args:
        folder: the upload (str; a folder that does not exist counts as empty).
        assignment: the exercise ids (list of str, not empty).
        secret: the assignment's seed (str), or None to draw afresh: each file's hidden inputs are drawn from it, the
            student and the files' SHA-256 together, one draw for the upload (``grader.classroom.batch.grade_files``).
        student: who uploaded it (str), so that two students' equal files are drawn apart.
        limits: ``grader.isolation.limits.Limits`` (default: the kit's), its ``total_seconds`` shared by the files.
    Returns:
        ``GradedUpload``.
    """
    from grader.classroom.batch import grade_files, missing_exercises, submission_files
    from grader.isolation.limits import Limits
    from grader.results.grade_result import best_per_exercise

    files, refused = submission_files(folder) if os.path.isdir(folder) else ([], [])
    graded = list(grade_files(files, limits or Limits(), within=assignment, secret=secret, student=student))  # one budget
    combined = best_per_exercise([result for _path, result, _problem in graded if result is not None], folder)
    combined.notes += refused + [f"{os.path.basename(path)}: {problem}" for path, _result, problem in graded if problem]
    if not files:
        combined.notes.insert(0, nothing_uploaded(assignment))
    unreadable = [(os.path.basename(path), result.error) for path, result, _problem in graded
                  if result is not None and result.error]
    missing = missing_exercises(combined, assignment, N_("none of your files") if files else N_("your upload has no file that"))
    skipped = [f"{os.path.basename(path)}: {problem}" for path, result, problem in graded if result is None and problem]
    return GradedUpload(combined, files, unreadable, missing, refused, skipped)


def grader_files():
    """The grader's own files as package members: ``{"grader/...": bytes}`` for every file under ``grader/`` of the
    kinds it runs on (``grader.paths.GRADER_FILE_SUFFIXES``: hidden cases and catalogs included; ``__pycache__``
    never), in a stable order.

    Raises:
        ValueError: ``grader/`` holds a folder that is none of its packages (``grader.paths.refuse_stray_folders``):
            the package copies ``grader/`` whole, so what is in it would travel, and never run.
    """
    from grader.paths import refuse_stray_folders

    refuse_stray_folders("The bundle")
    members = {}
    for base, folders, names in os.walk(GRADER_DIR):
        folders[:] = sorted(f for f in folders if f != "__pycache__")
        for name in sorted(names):
            if name.endswith(GRADER_FILE_SUFFIXES):
                path = os.path.join(base, name)
                with open(path, "rb") as handle:
                    members[os.path.join("grader", os.path.relpath(path, GRADER_DIR))] = handle.read()
    return members


# The exercises judged alone (issue 11): the grader hands them earlier steps from its trusted side
# (``grader.judging.reference_steps``), which runs in the grader's process only, never in the worker that runs the upload.
TRUSTED_EXERCISES = {"observe", "retry-loop"}
TRUSTED_MODULES = ("violations", "registry", "parse", "schema", "observation")


def needs_trusted_steps(assignment):
    """Whether an assignment (exercise ids, list of str; empty: the capstone) needs the reference steps 1 to 3 on the
    grading machine: an exercise judged alone (``TRUSTED_EXERCISES``), or one whose hidden calls get siblings (the
    capstone's style, ``"seed"``), each confirmed by the reference steps before it is handed over
    (``grader.judging.siblings.confirmed``). Without them a bundle graded the capstone with no sibling, silently, and
    a mistake the siblings dock scored more on Gradescope than in the batch (30 against 27, an instructor's trial)."""
    from grader.intake.exercises import BY_ID, DEFAULT

    chosen = set(assignment) or {DEFAULT.id}
    return bool(chosen & TRUSTED_EXERCISES) or any(BY_ID[name].style == "seed" for name in chosen if name in BY_ID)


def trusted_steps():
    """The reference steps 1 to 3 that ``grader.judging.reference_steps`` imports, as package members
    (``{"solutions/...": bytes}``).

    Only these modules, under a package ``__init__`` that imports nothing: no notebooks, no model answers,
    no capstone. They stay on the grading image (students never see the package) and out of the
    submission's reach (the worker runs with ``python -I`` from a scratch folder).
    """
    members = {"solutions/__init__.py": b'"""The grader\'s trusted steps 1 to 3 (see grader/judging/reference_steps.py)."""\n'}
    for module in TRUSTED_MODULES:
        with open(os.path.join(SOLUTIONS_DIR, module + ".py"), "rb") as handle:
            members[f"solutions/{module}.py"] = handle.read()
    return members
