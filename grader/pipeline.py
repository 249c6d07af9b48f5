"""Grade one submission: the pipeline every command runs, intake -> isolation -> judging -> results.

``grade(path)`` reads the submission (``grader.intake``: nothing of it runs), starts one worker per exercise
(``grader.isolation``), runs that exercise's cases against it with pytest (``grader.judging``), and returns one
``GradeResult`` (``grader.results``), which every report and file format is written from. Around that it keeps
the grader's own folder unchanged while a submission is graded (no bytecode written, a digest compared before
and after) and cleans every text a submission could have influenced.
"""

import contextlib
import hashlib
import importlib.util
import os
import stat
import sys
import time

from grader.intake import exercises as course
from grader.intake.extract import ReadInBackground, SubmissionError
from grader.isolation.deadlines import Budget
from grader.isolation.limits import Limits
from grader.isolation.protections import protection_note, walls_line
from grader.isolation.sandbox import Sandbox
from grader.isolation.sanitise import strip_controls
from grader.judging.case_runner import import_pytest, run_cases
from grader.judging.draw import Draw, new_seed
from grader.judging.harness import Harness
from grader.paths import CASES_DIR, GRADER_DIR
from grader.results.grade_result import GradeResult
from grader.results.text_report import capped
from grader.translations import _, say


def folder_state(folder=GRADER_DIR):
    """Everything in the grader's folder: every entry's name, type, permissions and owner, every regular file's
    bytes (bytecode caches included), to notice a submission adding or editing anything. Two states are equal
    (``==``) when nothing changed between them: what comparing two ``folder_state_digest`` values tells.

    Taken before and after each grading and compared as they are: comparing the bytes costs less than hashing
    them twice (2 MB of files and caches, about 3 ms a grading).
    Never blocks: special files (a FIFO planted by a submission) are named, not opened.
    Returns:
        list of ``(description, content)``: description a str, content bytes (None when not a readable regular file).
    """
    state = []
    for base, folders, files in os.walk(folder):
        folders.sort()
        for name in sorted(files):
            path = os.path.join(base, name)
            try:
                info = os.lstat(path)
            except OSError:
                continue
            # Mode and owner too: a changed permission can break or open up later runs (an adversarial test).
            description = f"{os.path.relpath(path, folder)}:{info.st_mode}:{info.st_uid}:{info.st_size}"
            content = None
            if stat.S_ISREG(info.st_mode):
                try:
                    # (Windows has neither flag, nor FIFOs or symbolic links a submission could plant there.)
                    descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0)
                                         | getattr(os, "O_BINARY", 0))
                except OSError:
                    pass
                else:
                    with os.fdopen(descriptor, "rb") as handle:
                        content = handle.read()
            state.append((description, content))
    return state


def folder_state_digest(folder=GRADER_DIR):
    """SHA-256 of ``folder_state(folder)``: everything in the grader's folder, as one digest (to notice tampering
    between two moments without keeping the bytes); the fingerprint results carry is
    ``grader.results.provenance.code_fingerprint``.

    Returns:
        str (hex digest).
    """
    digest = hashlib.sha256()
    for description, content in folder_state(folder):
        digest.update(description.encode())
        if content is not None:
            digest.update(content)
    return digest.hexdigest()


def grader_packages(folder=GRADER_DIR):
    """The grader's package folders: ``folder`` and each folder below it that holds an ``__init__.py`` (the case
    folders hold none: they are pytest's, compiled from source on every run). List of str, sorted."""
    found = []
    for base, folders, names in os.walk(folder):
        folders[:] = sorted(f for f in folders if f != "__pycache__")
        if base == folder or "__init__.py" in names:
            found.append(base)
        else:
            folders[:] = []  # not a package: nothing below it is one of the grader's modules
    return found


def warm_bytecode_cache(folder=GRADER_DIR):
    """Compile the grader's own modules (its packages: not the cases) into ``__pycache__`` before a run.

    During a run the grader writes no bytecode (its folder's digest would change, voiding the result),
    so modules it imports lazily would otherwise be compiled from source on every run. Skipped when
    Python is told not to write bytecode (``PYTHONDONTWRITEBYTECODE``); a read-only kit is fine.
    About 1 ms when the caches are current.
    """
    if sys.dont_write_bytecode:
        return
    for package in grader_packages(folder):
        for name in os.listdir(package):
            if not name.endswith(".py"):
                continue
            source = os.path.join(package, name)
            try:
                current = os.path.getmtime(importlib.util.cache_from_source(source)) >= os.path.getmtime(source)
            except OSError:
                current = False
            if not current:  # compileall costs 7 ms to import: only when something needs compiling
                import compileall

                compileall.compile_dir(package, quiet=2, maxlevels=0)
                break


@contextlib.contextmanager
def no_bytecode_writes():
    """Within the block Python writes no ``.pyc`` files, so the grader's folder does not change."""
    previous = sys.dont_write_bytecode
    sys.dont_write_bytecode = True
    try:
        yield
    finally:
        sys.dont_write_bytecode = previous


def grade(path, limits=None, exercise_ids=None, cases_dir=CASES_DIR, within=None, budget=None, seed=None):
    """Run every case of every exercise the submission contains.

    The submission's code runs only in worker processes (``grader.isolation.sandbox``), one per exercise;
    this process runs pytest over each exercise's case folder.

    Args:
        path: a ``.py`` file or ``.ipynb`` notebook (str or path-like).
        limits: ``grader.isolation.limits.Limits`` (default limits when None); its ``total_seconds`` is the
            time budget for all cases of this submission (``grader.isolation.deadlines.Budget``: the wall clock
            less what a busy machine kept the worker waiting).
        exercise_ids: grade these exercises (list of ids from ``grader/intake/exercises.json``) instead of
            the ones detected in the submission.
        cases_dir: the folder holding one case folder per exercise (str).
        within: an assignment's exercise ids (list of str), or None: grade the exercises detected in the
            submission that belong to it, or all of it when the submission holds none of it (so the
            learner is told what is missing). Ignored when ``exercise_ids`` is given.
        budget: the ``grader.isolation.deadlines.Budget`` of a caller that shares one budget over several files
            (``grader.classroom.batch.grade_files``), or None: one of ``limits.total_seconds`` from now.
        seed: what decides the hidden inputs' draw (str; ``grader.judging.draw``), or None for a fresh random one.
            The same seed, file and kit give the same hidden inputs.
    Returns:
        ``GradeResult``; ``error`` is set (and every case failed with that sentence) when the
        submission could not be read. Never raises for anything inside the submission.
    """
    started = time.monotonic()
    limits = limits or Limits()
    budget = budget if budget is not None else Budget(limits.total_seconds)
    warm_bytecode_cache()
    with no_bytecode_writes():
        return _grade(path, limits, budget, exercise_ids, cases_dir, started, within, seed)


def _grade(path, limits, budget, exercise_ids, cases_dir, started, within=None, seed=None):
    # The notebook's reader first: importing nbformat and reading take longest of the starting steps, and it
    # runs nothing of the submission, so it can go on while this process takes the folder's state, starts the
    # worker and imports pytest.
    reading = ReadInBackground(path)
    sandbox = None
    try:
        before = folder_state()
        sandbox = Sandbox(limits)
        sandbox.start()  # the worker boots while the submission is read
        try:
            if reading.pid is not None:
                import_pytest()  # while the notebook is read in the other process
            submission, fatal = reading.result(), None
        except SubmissionError as exc:
            submission, fatal = None, str(exc)
        if exercise_ids:
            chosen = [course.BY_ID[i] for i in exercise_ids]
        else:
            chosen = course.detect(submission) if submission else [course.DEFAULT]
            if within:  # an assignment's grading: never an exercise outside it (grader.classroom.assignment)
                chosen = [e for e in chosen if e.id in within] or [course.BY_ID[i] for i in within]
        result = run_exercises(path, submission, chosen, limits, fatal=fatal, cases_dir=cases_dir,
                               budget=budget, first=sandbox, seed=seed)
        result.error = fatal
    finally:
        reading.cancel()
        if sandbox is not None:
            sandbox.close()  # before the state is compared: no submission code may run after it
    if folder_state() != before:
        # Only code running during grading can have done it; no score from this run can be trusted.
        for case in result.cases:
            case.points, case.passed = 0.0, False
            case.feedback = _("Void: the grader's own files changed while this submission was graded.")
        result.error = _("the grader's files changed while this submission was graded, so the result is void")
    result.execution_time = time.monotonic() - started
    return clean_result(result)


def clean_result(result):
    """``result`` with control characters removed from every text a learner or instructor reads (see
    ``grader.isolation.sanitise``): feedback, printed output and notes may hold the submission's text, and the
    submission's file name is its author's choice too. Returns the same ``GradeResult``."""
    for case in result.cases:
        case.title, case.rule = strip_controls(case.title), strip_controls(case.rule)
        case.feedback, case.output = strip_controls(case.feedback), strip_controls(case.output)
    result.notes = [strip_controls(note) for note in result.notes]
    result.error = strip_controls(result.error) if result.error is not None else None
    return result


def run_exercises(path, submission, chosen, limits, fatal=None, cases_dir=CASES_DIR, budget=None, first=None,
                  seed=None):
    """Run the cases of each chosen exercise, each against its own freshly loaded worker, and gather the notes.

    Each exercise gets a new worker and an empty scratch folder: nothing the submission kept from one
    exercise's hidden cases (in memory or on disk) can reach another exercise's visible cases. The
    next exercise's worker starts while the current one's cases run. The capstone gets two, each run going to a
    drawn one and a hidden call's siblings to the other (``grader.judging.harness.Harness``).

    Args:
        path: the submission's path (str or path-like), for the result.
        submission: the ``grader.intake.extract.Submission``, or None when it could not be read.
        chosen: the ``grader.intake.exercises.Exercise`` objects to grade (list).
        limits: the ``grader.isolation.limits.Limits`` of every worker (defaults when None).
        fatal: why the submission cannot run at all (str), or None.
        cases_dir: the folder holding one case folder per exercise (str).
        budget: the submission's ``grader.isolation.deadlines.Budget``, or None for one of ``limits.total_seconds``
            from now.
        first: a started ``Sandbox`` for the first exercise (the caller closes it), or None.
        seed: the draw's seed (str), or None for a fresh random one; each exercise draws from it and its own id.
    Returns:
        ``GradeResult`` with every case and the learner-facing notes (``error`` not yet set).
    """
    seed = seed if seed is not None else new_seed()
    result = GradeResult(submission=os.fspath(path), seed=seed)
    limits = limits or Limits()
    budget = budget if budget is not None else Budget(limits.total_seconds)
    internal_errors = []
    loading = None  # the first exercise's load report: the notes about loading come from it
    upcoming = first or Sandbox(limits)
    for number, exercise in enumerate(chosen):
        sandbox, upcoming = upcoming, (Sandbox(limits) if number + 1 < len(chosen) else None)
        # The capstone's hidden calls have siblings, which run in a second worker (grader.judging.harness.Harness).
        spare = Sandbox(limits) if exercise.style == "seed" and submission is not None else None
        try:
            if submission is not None:
                sandbox.begin_load(submission.chunks, exercise.functions)  # it loads while pytest is imported
            if spare is not None:
                # It boots now and loads the code once the first worker has loaded it: a submission that never
                # finishes loading would otherwise run twice over the load limit, sharing the cores (an instructor's
                # trial: 5-9 s for a 3 s limit).
                spare.start()
            if upcoming is not None:
                upcoming.start()  # boots while this exercise's cases run
            if not os.path.isdir(os.path.join(cases_dir, exercise.cases)):
                result.notes.append(say("This copy of the kit has no hidden cases for {title}: only its visible cases "
                                        "were run. Your instructor's grader runs the hidden ones too.",
                                        title=_(exercise.title)))
            harness = Harness(sandbox, total_seconds=limits.total_seconds, fatal=fatal, budget=budget,
                              draw=Draw(seed, exercise.id), spare=spare,
                              spare_code=(submission.chunks, exercise.functions) if spare is not None else None)
            plugin = run_cases(exercise, harness, cases_dir)
            result.cases += plugin.results
            result.notes += plugin.notes
            internal_errors += plugin.internal_errors
            for function in exercise.functions:
                result.notes += [n for n in harness.notes_for(function) if n not in result.notes]
            # Absent: the code was loaded and lacks the function, perhaps because a cell could not be compiled or
            # raised (PrairieLearn calls such an upload not gradable: a syntax error is its own example).
            if submission is not None and not fatal and not harness.report.fatal:
                lacking = [f for f in exercise.functions
                           if harness.report.entries.get(f, {}).get("state", "missing") == "missing"]
                if lacking:
                    result.absent[exercise.id] = {"functions": lacking, "problem": (harness.report.problems or [""])[0]}
            loading = loading or (harness.report if submission is not None else None)
        finally:
            if sandbox is not first:
                sandbox.close()
            if spare is not None:
                spare.close()
    if upcoming is not None and upcoming is not first:
        upcoming.close()
    if loading is not None:
        printed = loading.output.strip()
        printed = [say("While loading, your code printed: {output}", output=capped(printed))] if printed else []
        result.notes = submission.notes + list(loading.problems) + skipped_note(loading.skipped) + printed + result.notes
    if internal_errors:
        result.notes.append(say("{count} case(s) hit an internal grader error; please report it.",
                                count=len(internal_errors)))
    # Off Linux's default transport: once, whatever the number of exercises; not when nothing of the submission ran.
    missing = protection_note() if submission is not None else None
    if missing:
        result.notes.append(missing)
    if submission is not None:
        result.isolation = walls_line()  # which walls stood: an instructor reads it beside the score (issue 42)
    return result


def skipped_note(skipped):
    """The note for IPython commands the worker could not run (list of at most one str)."""
    if not skipped:
        return []
    shown = ", ".join(skipped[:8]) + (_(" and more") if len(skipped) > 8 else "")
    return [say("Not run while grading: {commands}. Shell commands (!...) and magics that need a Jupyter kernel or "
                "another process cannot run in the grader's sandbox (it starts no processes); the rest of each cell "
                "ran. If your solution needs what they do, do it in Python (standard library only).", commands=shown)]
