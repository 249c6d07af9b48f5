"""Batch grading: a folder of submissions -> per-student feedback and results, and a gradebook CSV.

``python -m grader.batch SUBMISSIONS --out OUT [--workers N] [--regrade]``

Layouts (what nbgrader's ``submitted/`` and Gradescope's exports look like): every ``.py`` or
``.ipynb`` file directly in SUBMISSIONS is one student (named by the file's stem); every folder is
one student (named by the folder) whose ``.py``/``.ipynb`` files, at any depth, are all graded and
merged (the best score per exercise counts).

Each student is graded in a pool of grader processes (``--workers``, default: the number of CPUs);
each submission's code still runs only in its own sandboxed worker. One broken or hostile
submission costs that student, never the batch. Results are written atomically; a re-run skips
students whose results are newer than their files (``--regrade`` grades everyone again).
Writes ``OUT/gradebook.csv`` (one row per student, one column per exercise, total),
``OUT/feedback/STUDENT/FILE.txt`` (the learner's report) and ``OUT/results/STUDENT.json``.
"""

import argparse
import concurrent.futures
import csv
import hashlib
import io
import json
import os
import sys
import time

from grader.exercises import EXERCISES
from grader.report import gradescope_results, text_report, write_json_atomically, write_text_atomically
from grader.sandbox import Limits

SUFFIXES = (".py", ".ipynb")
IGNORED_PARTS = {".ipynb_checkpoints", "__pycache__", ".git"}
KILLED = "grading this submission killed the grader process"


def submission_files(folder):
    """Every ``.py``/``.ipynb`` file under ``folder`` at any depth, sorted, skipping checkpoints, caches
    and hidden folders (list of str). Shared with the Gradescope bundle, where ``folder`` is the upload."""
    files = []
    for base, folders, names in os.walk(folder):
        folders[:] = sorted(f for f in folders if f not in IGNORED_PARTS and not f.startswith("."))
        files += [os.path.join(base, n) for n in sorted(names) if n.endswith(SUFFIXES) and not n.startswith(".")]
    return files


def find_submissions(folder):
    """Map each student to their submission files.

    Args:
        folder: the submissions folder (str).
    Returns:
        dict ``{student: [path, ...]}`` in sorted order; a folder without any ``.py``/``.ipynb``
        maps to an empty list (reported as "no submission file").
    """
    students = {}
    for entry in sorted(os.listdir(folder)):
        path = os.path.join(folder, entry)
        if entry.startswith(".") or entry in IGNORED_PARTS:
            continue
        # A student may hand in a file and a folder of the same name (carol.py and carol/): both count.
        if os.path.isfile(path) and entry.endswith(SUFFIXES):
            students.setdefault(os.path.splitext(entry)[0], []).append(path)
        elif os.path.isdir(path):
            students.setdefault(entry, []).extend(submission_files(path))
    return {student: sorted(files) for student, files in sorted(students.items())}


def shown(name):
    """A name as the gradebook and summaries show it: a file name that is not UTF-8 gets U+FFFD for its
    undecodable bytes (str), so it can be written, and compared again on the next run."""
    return name.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def _safe(name):
    """A file-name-safe version of a student or file name (str).

    A name that had to change gets a short digest of the original, so "dan smith" and "dan_smith"
    never share a results file (found by an adversarial test).
    """
    safe = "".join(c if c.isascii() and (c.isalnum() or c in "-_.") else "_" for c in name)[:120] or "_"
    if safe == name:
        return safe
    digest = hashlib.sha256(name.encode("utf-8", "surrogateescape")).hexdigest()[:8]
    return f"{safe}-{digest}"


def up_to_date(summary_path, files):
    """The stored summary when it still describes ``files``, else None.

    Up to date means: the summary exists, names exactly these files, and is newer than each of
    them (a file copied in with an old timestamp still changes the list, so it is graded).
    Returns:
        the summary dict, or None.
    """
    try:
        graded = os.path.getmtime(summary_path)
        with open(summary_path, encoding="utf-8") as handle:
            summary = json.load(handle)
    except (OSError, ValueError):
        return None
    if not isinstance(summary, dict) or summary.get("files") != [shown(os.path.basename(f)) for f in files]:
        return None
    return summary if all(os.path.getmtime(f) <= graded for f in files) else None


def zero_score_reason(result):
    """Why a graded file earned nothing, for the gradebook's notes column: the first failed case's
    feedback, cut to 160 characters (str), or an empty string when it earned points."""
    if result.score > 0 or result.error:
        return ""
    failed = [case.feedback for case in result.cases if not case.passed and case.feedback]
    reason = failed[0] if failed else "no case passed"
    return reason if len(reason) <= 160 else reason[:159] + "…"


MAX_FILES_PER_STUDENT = 20


def grade_files(files, limits, total_seconds, exercise_ids=None):
    """Grade one student's files within one shared time budget (the batch's and Gradescope's loop).

    Without a shared budget, a student could hand in many slow files and hold a grading process for
    minutes (found by an adversarial test). Files beyond ``MAX_FILES_PER_STUDENT`` are not graded.

    Args:
        files: paths (list of str). limits: ``grader.sandbox.Limits``.
        total_seconds: wall-clock budget for all the files together (float, s).
        exercise_ids: grade these exercises in every file (list of ids), or None to detect them.
    Yields:
        ``(path, GradeResult or None, problem sentence or None)`` per file, in order.
    """
    from grader.run import grade  # imported in the pool process, once

    deadline = time.monotonic() + total_seconds
    for number, path in enumerate(files):
        remaining = deadline - time.monotonic()
        if number >= MAX_FILES_PER_STUDENT:
            yield path, None, f"not graded: only the first {MAX_FILES_PER_STUDENT} files of a submission are graded"
        elif remaining <= 0:
            yield path, None, f"not graded: the submission's files used up their time budget of {total_seconds:g} s"
        else:
            try:
                yield path, grade(path, limits=limits, total_seconds=remaining, exercise_ids=exercise_ids), None
            except Exception as exc:  # a grader bug must cost one student, never the batch
                yield path, None, f"the grader failed ({type(exc).__name__})"


def grade_student(student, files, out, limits, total_seconds, exercise_ids=None):
    """Grade every file of one student; write their feedback and summary. Runs in a pool process.

    Args:
        student: the student's id (str). files: their submission files (list of str).
        out: the output folder (str). limits: ``grader.sandbox.Limits``.
        total_seconds: budget for all of the student's files together (float, s; see ``grade_files``).
        exercise_ids: grade these exercises in every file (list of ids), or None to detect them.
    Returns:
        the summary dict written to ``OUT/results/STUDENT.json``:
        ``{"student", "files", "exercises": {id: [score, max]}, "errors": [...]}``; each exercise
        counts once, from the student's best file for it (``grader.scoring.best_per_exercise``).
    """
    from grader.scoring import best_per_exercise

    summary = {"student": shown(student), "files": [shown(os.path.basename(f)) for f in files], "exercises": {},
               "errors": []}
    if not files:
        summary["errors"].append("no .py or .ipynb file was submitted")
    feedback_dir = os.path.join(out, "feedback", _safe(student))
    results = []
    for path, result, problem in grade_files(files, limits, total_seconds, exercise_ids):
        if result is None:
            summary["errors"].append(f"{shown(os.path.basename(path))}: {problem}")
            continue
        results.append(result)
        name = _safe(os.path.basename(path))
        write_text_atomically(os.path.join(feedback_dir, name + ".txt"), text_report(result) + "\n")
        write_json_atomically(os.path.join(feedback_dir, name + ".results.json"), gradescope_results(result))
        if result.error:
            summary["errors"].append(f"{shown(os.path.basename(path))}: {result.error}")
        elif zero_score_reason(result):
            summary["errors"].append(f"{shown(os.path.basename(path))}: 0 points; {zero_score_reason(result)}")
    combined = best_per_exercise(results, student)
    for exercise_id in dict.fromkeys(case.exercise_id for case in combined.cases):
        cases = [case for case in combined.cases if case.exercise_id == exercise_id]
        summary["exercises"][exercise_id] = [sum(c.points for c in cases), sum(c.max_points for c in cases)]
    write_json_atomically(os.path.join(out, "results", _safe(student) + ".json"), summary)
    return summary


def gradebook_csv(summaries):
    """The gradebook as CSV text: one row per student, one column per exercise seen, total, notes.

    Every student has the same ``max_total``: an exercise some student was graded on counts for
    everyone, and a student with no file for it gets 0 there (as nbgrader's gradebook does for a
    missing submission), so a percentage means the same in every row.
    """
    maxima = {}
    for summary in summaries:
        for exercise_id, (_, available) in summary["exercises"].items():
            maxima[exercise_id] = max(maxima.get(exercise_id, 0), available)
    columns = [e.id for e in EXERCISES if e.id in maxima]
    available = sum(maxima[c] for c in columns)
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(["student", *columns, "total", "max_total", "notes"])
    for summary in summaries:
        scores = summary["exercises"]
        earned = [scores[c][0] if c in scores else 0 for c in columns]
        notes = list(summary["errors"])
        missing = [c for c in columns if c not in scores]
        if missing and summary["files"]:
            notes.append("nothing graded for " + ", ".join(missing))
        writer.writerow([summary["student"], *[f"{e:g}" for e in earned], f"{sum(earned):g}", f"{available:g}",
                         "; ".join(notes)])
    return buffer.getvalue()


def _failed(student, files, error):
    """The summary of a student whose grading failed as a whole: no scores, one sentence why."""
    return {"student": shown(student), "files": [shown(os.path.basename(f)) for f in files], "exercises": {},
            "errors": [error]}


def prepare_pool_process():
    """Import nbformat and pytest once per pool process, before its first student.

    A process that has nbformat reads each notebook itself (about 0.01 s) instead of in a forked
    reader that imports nbformat every time (``grader.extract.ReadInBackground``).
    """
    from grader.extract import read_notebook_text
    from grader.run import import_pytest

    read_notebook_text()
    import_pytest()


def _run_pool(tasks, out, limits, total_seconds, workers, summaries, bar, retry=False, exercise_ids=None):
    """Grade ``tasks`` in a process pool; returns the students whose grading the pool lost."""
    lost = []
    with concurrent.futures.ProcessPoolExecutor(max_workers=workers, initializer=prepare_pool_process) as pool:
        futures = {pool.submit(grade_student, s, f, out, limits, total_seconds, exercise_ids): s
                   for s, f in tasks.items()}
        for future in concurrent.futures.as_completed(futures):
            student = futures[future]
            try:
                summaries[student] = future.result()
            except concurrent.futures.process.BrokenProcessPool:
                if retry:
                    summaries[student] = _failed(student, tasks[student], KILLED)
                else:
                    lost.append(student)
                    continue
            except Exception as exc:  # a grader bug costs one student
                summaries[student] = _failed(student, tasks[student], f"the grader process failed ({type(exc).__name__})")
            if bar is not None:
                bar.update(1)
    return lost


def run_batch(folder, out, workers=None, regrade=False, limits=None, total_seconds=120.0, progress=True,
              exercise_ids=None):
    """Grade a folder of submissions in parallel and write the gradebook.

    Args:
        folder: the submissions folder (str). out: the output folder (str).
        workers: grader processes (int; default ``os.cpu_count()``).
        regrade: grade students whose results are up to date too (bool).
        limits: ``grader.sandbox.Limits``. total_seconds: budget for all of one student's files (float, s).
        progress: show a progress bar on stderr (bool).
        exercise_ids: grade these exercises in every file (list of ids), or None to detect them.
    Returns:
        ``(summaries, graded_now)``: every student's summary (graded now or before), sorted by
        student, and how many students were graded in this run (int).
    """
    limits = limits or Limits()
    students = find_submissions(folder)
    summaries, todo = {}, {}
    for student, files in students.items():
        summary_path = os.path.join(out, "results", _safe(student) + ".json")
        stored = None if regrade else up_to_date(summary_path, files)
        if stored is not None:
            summaries[student] = stored
        else:
            todo[student] = files
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=len(todo), unit="student", desc="Grading", file=sys.stderr)
    pending = dict(todo)
    while pending:
        # A pool whose process dies (a submission that found a way to kill it) is broken for every task
        # in flight: each affected student is then graded again alone, so only the culprit loses.
        broken = _run_pool(pending, out, limits, total_seconds, workers or os.cpu_count(), summaries, bar,
                           exercise_ids=exercise_ids)
        pending = {s: todo[s] for s in broken}
        if len(broken) == 1:
            student = broken[0]
            summaries[student] = _failed(student, todo[student], KILLED)
            pending = {}
        elif broken:
            for student in broken:
                _run_pool({student: todo[student]}, out, limits, total_seconds, 1, summaries, bar, retry=True,
                          exercise_ids=exercise_ids)
            pending = {}
    if bar is not None:
        bar.close()
    ordered = [summaries[s] for s in sorted(summaries)]
    write_text_atomically(os.path.join(out, "gradebook.csv"), gradebook_csv(ordered))
    return ordered, len(todo)


def main(argv=None):
    """Command line; returns 0 when the batch completed (whatever the scores), 2 for a missing folder."""
    from grader.cli import add_grading_options, limits_from

    parser = argparse.ArgumentParser(prog="python -m grader.batch", description=__doc__.splitlines()[0])
    parser.add_argument("submissions", help="folder with one file or one folder per student")
    parser.add_argument("--out", required=True, help="folder for gradebook.csv, feedback/ and results/")
    parser.add_argument("--workers", type=int, default=None, help="grader processes (default: the number of CPUs)")
    parser.add_argument("--regrade", action="store_true", help="grade students whose results are up to date too")
    add_grading_options(parser, total="all of one student's files")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    args = parser.parse_args(argv)
    if not os.path.isdir(args.submissions):
        print(f"error: {args.submissions} is not a folder of submissions.", file=sys.stderr)
        return 2
    limits = limits_from(args)
    try:
        summaries, graded = run_batch(args.submissions, args.out, workers=args.workers, regrade=args.regrade, limits=limits,
                                      total_seconds=args.total_timeout, progress=not args.no_progress,
                                      exercise_ids=args.exercise)
    except OSError as exc:  # the output folder cannot be written: say so, the graded students' files stay
        print(f"error: could not write into {args.out} ({exc.strerror or exc}).", file=sys.stderr)
        return 2
    problems = sum(bool(s["errors"]) for s in summaries)
    skipped = len(summaries) - graded
    print(f"Graded {graded} student{'s' * (graded != 1)}"
          + (f" ({skipped} up to date, not graded again; --regrade grades them)" if skipped else "")
          + f"; gradebook of {len(summaries)}: {os.path.join(args.out, 'gradebook.csv')}"
          + (f"; {problems} with notes (see the notes column)" if problems else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
