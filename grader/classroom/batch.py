"""Batch grading: a folder of submissions -> per-student feedback and results, a gradebook, a Canvas import.

``python -m grader.batch SUBMISSIONS --out OUT [--exercise ID ... | --notebooks SPEC] [--workers N] [--regrade]``

Layouts (what nbgrader's ``submitted/`` and Gradescope's exports look like): every ``.py`` or
``.ipynb`` file directly in SUBMISSIONS is one student (named by the file's stem); every folder is
one student (named by the folder) whose ``.py``/``.ipynb`` files, at any depth, are all graded and
merged (the best score per exercise counts). Symbolic links are refused with a note: an archive can
hold a link to the instructor's solved notebook or to a classmate's file.

The assignment is what the instructor names (``grader.classroom.assignment``: ``--exercise``, ``--notebooks``, the
capstone by default): every student is graded on exactly its exercises and gets 0 with a reason for one
none of their files holds.

Each student is graded in a pool of grader processes (``--workers``, default: the number of CPUs);
each submission's code still runs only in its own sandboxed worker. One broken or hostile submission
costs that student, never the batch. What is guaranteed (docs/instructors.md):
- a student's result is stored (``OUT/results/STUDENT.json``, atomically, last) only when it is complete;
- a re-run reuses a stored result only when the submission's content (SHA-256 of every file), the
  grader (``grader.results.provenance.code_fingerprint``) and the options are all the same (``reuse_key``);
- Ctrl+C (SIGINT, to the process or its group) or SIGTERM stops within seconds: nothing half-graded is
  stored, the gradebook is written for what is complete (the others' rows blank, with a note), and the
  message says how many are left and that the same command resumes; a ``kill -9`` at any moment leaves
  only complete results (the tables of an earlier run are removed when a run starts grading).
Writes ``OUT/gradebook.csv``, ``OUT/maxima.csv``, ``OUT/canvas.csv`` (``grader.classroom.gradebook``),
``OUT/feedback/STUDENT/FILE.txt`` (the learner's report) with its ``.results.json``, and
``OUT/results/STUDENT.json``.
"""

import argparse
import collections
import concurrent.futures
import dataclasses
import functools
import hashlib
import json
import os
import platform
import re
import signal
import sys
import threading
import time

from grader import __version__
from grader.isolation import kernel_rules
from grader.isolation.deadlines import Budget
from grader.isolation.limits import Limits
from grader.judging.draw import seed_for
from grader.results.atomic_write import write_json_atomically, write_text_atomically
from grader.results.formats import gradescope_results
from grader.results.provenance import code_fingerprint
from grader.results.text_report import text_report
from grader.translations import N_, _, add_language_option, choose, said, say, use

SUFFIXES = (".py", ".ipynb")
IGNORED_PARTS = {".ipynb_checkpoints", "__pycache__", ".git"}
KILLED = "grading this submission killed the grader process"
LINK = N_("{name} is a symbolic link, so it was not graded; hand in the file itself, not a link to it.")
NOTHING = "no .py or .ipynb file was submitted"
PENDING = "not graded yet: the run was stopped before this student; run the same command again to grade them"
STOP_SECONDS = 5.0  # how long a stopping batch waits for its grader processes before killing them
TABLES = ("gradebook.csv", "maxima.csv", "canvas.csv")


class Stopped(Exception):
    """Grading was stopped by a signal; nothing of this student was stored."""


def submission_files(folder):
    """Every ``.py``/``.ipynb`` file under ``folder`` at any depth, skipping checkpoints, caches, hidden
    files and symbolic links. Shared with the Gradescope bundle, where ``folder`` is the upload.

    Returns:
        ``(files, refused)``: sorted paths (list of str), and one sentence per symbolic link found
        (to a file or a folder), which is never followed (list of str).
    """
    files, refused = [], []
    for base, folders, names in os.walk(folder):
        kept = []
        for name in sorted(folders):
            if name in IGNORED_PARTS or name.startswith("."):
                continue
            if os.path.islink(os.path.join(base, name)):
                refused.append(_(LINK).format(name=shown(os.path.relpath(os.path.join(base, name), folder))))
            else:
                kept.append(name)
        folders[:] = kept
        for name in sorted(names):
            if not name.endswith(SUFFIXES) or name.startswith("."):
                continue
            path = os.path.join(base, name)
            if os.path.islink(path):
                refused.append(_(LINK).format(name=shown(os.path.relpath(path, folder))))
            else:
                files.append(path)
    return files, refused


def find_submissions(folder):
    """Map each student to their submission files.

    Args:
        folder: the submissions folder (str).
    Returns:
        dict ``{student: (files, refused)}`` in sorted order: the files to grade (list of str, maybe
        empty: reported as "no submission file") and one sentence per symbolic link refused.
    """
    students = {}
    for entry in sorted(os.listdir(folder)):
        path = os.path.join(folder, entry)
        if entry.startswith(".") or entry in IGNORED_PARTS:
            continue
        files, refused = students.setdefault(entry if os.path.isdir(path) else os.path.splitext(entry)[0], ([], []))
        # A student may hand in a file and a folder of the same name (carol.py and carol/): both count.
        if os.path.islink(path) and (os.path.isdir(path) or entry.endswith(SUFFIXES)):
            refused.append(_(LINK).format(name=shown(entry)))
        elif os.path.isfile(path) and entry.endswith(SUFFIXES):
            files.append(path)
        elif os.path.isdir(path):
            found, links = submission_files(path)
            files.extend(found)
            refused.extend(links)
    return {student: (sorted(files), refused) for student, (files, refused) in sorted(students.items())
            if files or refused or os.path.isdir(os.path.join(folder, student))}


def shown(name):
    """A name as the gradebook and summaries show it, reversibly: a backslash becomes ``\\\\``, a control
    character or a byte that is not UTF-8 (a file name from another system) becomes ``\\xNN``.
    ``original_name`` turns it back into the bytes of the name (str)."""
    out = []
    for char in name:
        code = ord(char)
        if char == "\\":
            out.append("\\\\")
        elif 0xDC80 <= code <= 0xDCFF:  # os.fsdecode's stand-in for an undecodable byte
            out.append(f"\\x{code - 0xDC00:02x}")
        elif code < 0x20 or code == 0x7F:
            out.append(f"\\x{code:02x}")
        else:
            out.append(char)
    return "".join(out)


def original_name(text):
    """The file name (bytes) that ``shown`` displayed as ``text``: ``os.fsencode`` of the student's name."""
    import codecs

    return codecs.escape_decode(text.encode("utf-8"))[0]


DIGEST_CHARACTERS = 16  # hex digits of SHA-256 a changed name gets: 64 bits, past any search for a collision
# What a name that had to change looks like: anything, "-", the digest. A name that already looks so gets a digest
# of its own (``safe_file_name``).
_ESCAPED_FORM = re.compile(r".*-[0-9a-f]{%d}\Z" % DIGEST_CHARACTERS, re.DOTALL)


# Names Windows gives to devices in every folder ("con.json" is the console): such a file name needs its digest too.
_DEVICE_NAMES = re.compile(r"(con|prn|aux|nul|com[0-9]|lpt[0-9])(\..*)?\Z", re.IGNORECASE | re.DOTALL)


def safe_file_name(name):
    """A file-name-safe version of a student or file name (str), different for every two names, on every system.

    ASCII letters, digits, ``-``, ``_`` and ``.`` are kept, anything else becomes ``_``, at most 120 characters
    are kept, and a leading ``-`` becomes ``_`` (a results file never reads as a command's option). A name that
    had to change gets ``-`` and 16 hex digits of its SHA-256, so "dan smith" and "dan_smith" never share a
    results file (found by an adversarial test). So does a name that already ends like that, so that no student
    can name a folder after a classmate's changed name ("jos_-d994e1d0" took josé's results file and row once:
    issue 41); a name with a capital letter, as macOS and Windows see "Alice.json" and "alice.json" as one file
    (issue 41's instructor trial); and a name Windows keeps for a device (``con``, ``nul``...). Two names share a
    file only if their digests agree, one chance in 2**64.
    """
    safe = "".join(c if c.isascii() and (c.isalnum() or c in "-_.") else "_" for c in name)[:120] or "_"
    if safe.startswith("-"):
        safe = "_" + safe[1:]
    if safe == name and safe == safe.lower() and not _ESCAPED_FORM.match(name) and not _DEVICE_NAMES.match(name):
        return safe
    digest = hashlib.sha256(name.encode("utf-8", "surrogateescape")).hexdigest()[:DIGEST_CHARACTERS]
    return f"{safe}-{digest}"


def upload_digest(files):
    """What a student's files are drawn from together (str, hex SHA-256): one file's own digest (``file_digest``, so a
    lone file draws what ``python -m grader`` and nbgrader's cells draw for it), or for several the digest of their
    sorted digests.

    Every file of one upload is then graded on the same hidden inputs: with a seed per file, ten copies of a solution
    that fails some inputs, differing by a comment, drew ten times and the best copy counted (125 of 133 points where
    one copy scored 28 to 122: an attacker's trial of issue 28)."""
    digests = sorted(file_digest(path) for path in files)
    if len(digests) == 1:
        return digests[0]
    return hashlib.sha256("\n".join(digests).encode("ascii")).hexdigest()


def file_digest(path):
    """SHA-256 of a file's bytes (hex str), or ``"unreadable: <reason>"``."""
    digest = hashlib.sha256()
    try:
        with open(path, "rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
    except OSError as exc:
        return f"unreadable: {exc.strerror or type(exc).__name__}"
    return digest.hexdigest()


def reuse_key(student_dir, files, refused, assignment, limits, secret=None):
    """Everything a stored result depends on; a re-run reuses the result only when it is equal.

    Args:
        student_dir: the folder the student's files are named relative to (str).
        files: the student's files (list of str). refused: the sentences about refused links (list of str).
        assignment: exercise ids (list of str). limits: ``grader.isolation.limits.Limits``.
        secret: the assignment's seed (str or None): another seed draws other hidden inputs.
    Returns:
        dict (JSON data): each file's relative name and SHA-256 (so an older file copied in with ``cp -p``
        or ``unzip``, which keep times, still counts as changed), the refused links, the assignment, every
        limit, the grader's version and fingerprint, the Python version, and a seed made from the secret as a
        file's is (never the secret: results/ may be shared more widely than the secret should be).
    """
    return {
        "files": [[shown(os.path.relpath(path, student_dir)), file_digest(path)] for path in files],
        "refused": refused,
        "assignment": list(assignment),
        "limits": {"case_seconds": limits.case_seconds, "load_seconds": limits.load_seconds,
                   "memory_mb": limits.memory_mb, "cpu_seconds": limits.cpu_seconds,
                   "output_bytes": limits.output_bytes, "max_requests": limits.max_requests,
                   "total_seconds": limits.total_seconds},
        "grader_version": __version__,
        "grader_fingerprint": code_fingerprint(),
        "python": platform.python_version(),
        "seed": seed_for(secret, "reuse key") if secret else None,
    }


def stored_result(summary_path, key):
    """The stored summary when it is complete and was made with exactly ``key``, else None."""
    try:
        with open(summary_path, encoding="utf-8") as handle:
            summary = json.load(handle)
    except (OSError, ValueError):
        return None
    if isinstance(summary, dict) and summary.get("complete") is True and summary.get("key") == key:
        return summary
    return None


def zero_score_reason(result):
    """Why a result (a file, or one exercise's cases) earned nothing, for the gradebook's notes column: the
    first failed case's feedback, cut to 160 characters (str), or an empty string when it earned points."""
    if result.score > 0 or result.error:
        return ""
    failed = [case.feedback for case in result.cases if not case.passed and case.feedback]
    reason = failed[0] if failed else "no case passed"
    return reason if len(reason) <= 160 else reason[:159] + "…"


MAX_FILES_PER_STUDENT = 20
_STOPPING = []  # set in a grader process by SIGINT/SIGTERM (``stop_grading``)


def grade_files(files, limits, exercise_ids=None, within=None, secret=None, student=""):
    """Grade one student's files within one shared time budget (the batch's and Gradescope's loop).

    Without a shared budget, a student could hand in many slow files and hold a grading process for
    minutes (found by an adversarial test). Files beyond ``MAX_FILES_PER_STUDENT`` are not graded.

    Args:
        files: paths (list of str). limits: ``grader.isolation.limits.Limits``; its ``total_seconds`` is the
            time budget for all the files together (float, s; ``grader.isolation.deadlines.Budget``).
        exercise_ids: grade these exercises in every file (list of ids), or None to detect them.
        within: the assignment's exercise ids: detect only among them (``grader.pipeline.grade``), or None.
        secret: the assignment's seed (str), or None for a fresh draw per file; with it, each file is graded with
            ``grader.judging.draw.seed_for(secret, student, upload_digest(files))``: every file of the student on the
            same inputs. student: the student's id (str).
    Yields:
        ``(path, GradeResult or None, problem sentence or None)`` per file, in order; nothing more once
        grading was stopped (a result graded while it stopped is never yielded).
    """
    from grader.pipeline import grade  # imported in the pool process, once

    budget = Budget(limits.total_seconds)
    seed = seed_for(secret, student, upload_digest(files)) if secret and files else None
    for number, path in enumerate(files):
        if _STOPPING:
            return
        if number >= MAX_FILES_PER_STUDENT:
            yield path, None, f"not graded: only the first {MAX_FILES_PER_STUDENT} files of a submission are graded"
        elif budget.spent():
            yield path, None, f"not graded: the submission's files used up their time budget of {limits.total_seconds:g} s"
        else:
            try:
                result = grade(path, limits=limits, exercise_ids=exercise_ids, within=within, budget=budget,
                               seed=seed)
            except Exception as exc:  # a grader bug must cost one student, never the batch
                result, problem = None, f"the grader failed ({type(exc).__name__})"
            else:
                problem = None
            if _STOPPING:  # cut short by the stop: not a result
                return
            yield path, result, problem


def missing_exercises(result, assignment, where):
    """Add to ``result`` a failed case for every case of each assignment exercise it has none of.

    Each such case fails with one sentence naming the exercise's function, so the maximum is the same
    for every student and the zero comes with its reason.

    Args:
        result: a combined ``GradeResult`` (changed in place). assignment: exercise ids (list of str).
        where: what was searched, for the sentence, e.g. ``"none of your files"`` (str).
    Returns:
        ``{exercise id: the sentence}`` for the exercises added (dict).
    """
    from grader.intake.exercises import BY_ID

    present = {case.exercise_id for case in result.cases}
    added = {}
    for exercise_id in assignment:
        if exercise_id in present:
            continue
        exercise = BY_ID[exercise_id]
        added[exercise_id] = say("{where} defines {functions} (the exercise of {notebook})", where=said(where),
                                 functions=", ".join(exercise.functions), notebook=exercise.notebook)
        sentence = say("Not graded: {what}.", what=added[exercise_id])
        result.cases += [dataclasses.replace(case) for case in _failed_cases(exercise_id, str(sentence))]
    return added


@functools.lru_cache(maxsize=64)
def _failed_cases(exercise_id, sentence):
    """Every case of one exercise, failed with ``sentence`` (tuple of ``CaseResult``; callers copy them).

    Counted once per process and sentence: it is a pytest run over the exercise's cases (about 0.3 s), and a
    course-wide assignment asks it for every exercise a student did not hand in (seven per student handing in
    the capstone alone: most of a class's grading time before). No submission is involved, so the result is
    the same each time.
    """
    from grader.intake.exercises import BY_ID
    from grader.pipeline import run_exercises

    return tuple(run_exercises("(missing)", None, [BY_ID[exercise_id]], None, fatal=sentence).cases)


def grade_student(student, files, refused, out, limits, assignment, key, secret=None):
    """Grade every file of one student; write their feedback, then their summary. Runs in a pool process.

    Args:
        student: the student's id (str). files: their submission files (list of str).
        refused: sentences about symbolic links that were not graded (list of str).
        out: the output folder (str). limits: ``grader.isolation.limits.Limits`` (its ``total_seconds``: the budget
            for all of the student's files together; see ``grade_files``).
        assignment: the assignment's exercise ids (list of str). key: ``reuse_key`` for these files (dict).
        secret: the assignment's seed (str or None; ``grade_files``).
    Returns:
        the summary dict written to ``OUT/results/STUDENT.json``: ``{"student", "files",
        "exercises": {id: [score, max]}, "errors": [...], "grader": {"grader_version", "grader_fingerprint"},
        "seeds": {file: the seed it was drawn with}, "key", "complete": true, "isolation": the walls that stood
        (``grader.isolation.protections.walls_line``) or null}``; each exercise counts once, from the student's
        best file for it (``grader.results.grade_result.best_per_exercise``).
    Raises:
        Stopped: grading was stopped by a signal; nothing of this student was written.
    """
    from grader.results.grade_result import GradeResult, best_per_exercise
    from grader.results.provenance import provenance

    if _STOPPING:
        raise Stopped(student)
    summary = {"student": shown(student), "files": [shown(os.path.basename(f)) for f in files], "exercises": {},
               "errors": list(refused), "grader": provenance(), "seeds": {}, "key": key, "complete": True}
    if not files and not refused:
        summary["errors"].append(NOTHING)
    feedback, results = {}, []
    for path, result, problem in grade_files(files, limits, within=assignment, secret=secret, student=student):
        name = shown(os.path.basename(path))
        if result is None:
            summary["errors"].append(f"{name}: {problem}")
            continue
        results.append(result)
        summary["seeds"][name] = result.seed  # python -m grader FILE --seed SEED reproduces its report
        feedback[safe_file_name(os.path.basename(path))] = result
        if result.error:
            summary["errors"].append(f"{name}: {result.error}")
    if _STOPPING:
        raise Stopped(student)
    combined = best_per_exercise(results, student)
    summary["isolation"] = combined.isolation  # this pool process's own: the console joins them (walls_lines)
    absent = missing_exercises(combined, assignment, "none of the files handed in")
    for exercise_id in assignment:
        cases = [case for case in combined.cases if case.exercise_id == exercise_id]
        summary["exercises"][exercise_id] = [sum(c.points for c in cases), sum(c.max_points for c in cases)]
        # A zero always says why: the file problems above, else the exercise's first failed case.
        reason = absent.get(exercise_id) or zero_score_reason(GradeResult(student, cases))
        if reason and any(not result.error for result in results):
            summary["errors"].append(f"{exercise_id}: 0 points; {reason}")
    folder = os.path.join(out, "feedback", safe_file_name(student))
    for name, result in feedback.items():
        write_text_atomically(os.path.join(folder, name + ".txt"), text_report(result) + "\n")
        write_json_atomically(os.path.join(folder, name + ".results.json"), gradescope_results(result))
    _remove_stale_feedback(folder, {n + suffix for n in feedback for suffix in (".txt", ".results.json")})
    if _STOPPING:  # nothing stored says this student is done until the summary below
        raise Stopped(student)
    write_json_atomically(os.path.join(out, "results", safe_file_name(student) + ".json"), summary)
    return summary


def walls_lines(summaries):
    """The batch console's lines on the walls its students were graded behind (list of str): each distinct
    ``isolation`` line of ``summaries`` (list of summary dicts, ``grade_student``), with how many students it
    holds for when they differ, most first; empty when none says.

    Each pool process learns about namespaces itself (``grader.isolation.kernel_rules.note_worker``): a line of the
    console's own would miss a refusal in one of them (issue 42's attacker trial: the console named namespaces
    that one student's workers lacked).
    """
    counts = collections.Counter(summary.get("isolation") for summary in summaries if summary.get("isolation"))
    if len(counts) <= 1:
        return list(counts)
    return [f"{line.rstrip('.')} ({count} student{'s' * (count != 1)})." for line, count in counts.most_common()]


def _remove_stale_feedback(folder, keep):
    """Delete feedback files of files the student no longer hands in (a re-run after a change)."""
    try:
        names = os.listdir(folder)
    except OSError:
        return
    for name in names:
        if name not in keep:
            try:
                os.unlink(os.path.join(folder, name))
            except OSError:
                pass


def _failed(student, files, error):
    """The summary of a student whose grading failed as a whole: no scores, one sentence why; never stored."""
    return {"student": shown(student), "files": [shown(os.path.basename(f)) for f in files], "exercises": {},
            "errors": [error]}


def stop_grading(signum, frame):
    """A grader process's SIGINT/SIGTERM handler: stop at once, store nothing half-graded.

    Kills this process's sandbox workers (``grader.isolation.sandbox.stop_all_workers``), so the case running now
    fails at once, and sets the flag that keeps ``grade_files``/``grade_student`` from yielding or storing
    anything graded from now on.
    """
    from grader.isolation.sandbox import stop_all_workers

    _STOPPING.append(signum)
    stop_all_workers()


def _exit_with_the_batch(parent, interval=0.5):
    """In a grader process, a daemon thread's loop: when the batch that started it is gone (a ``kill -9``), kill
    this process's workers and exit, storing nothing more (the pool's queues would keep it waiting forever).
    It imports nothing once started, so it never holds the import lock when the main thread forks a worker."""
    from grader.isolation.sandbox import stop_all_workers

    while os.getppid() == parent:
        time.sleep(interval)
    _STOPPING.append("orphaned")
    stop_all_workers()
    os._exit(1)


def prepare_pool_process():
    """Set up a grader process: non-dumpable (``grader.isolation.kernel_rules.hide_memory``), the stop handlers, then
    nbformat and pytest imported once, before its first student.

    Each notebook is still read in a forked, limited child (``grader.intake.extract.ReadInBackground``), which then
    starts at once with nbformat and its fast validator already compiled.
    """
    kernel_rules.hide_memory()  # again: a pool started by spawn or forkserver runs a new program
    signal.signal(signal.SIGINT, stop_grading)
    signal.signal(signal.SIGTERM, stop_grading)
    threading.Thread(target=_exit_with_the_batch, args=(os.getppid(),), daemon=True).start()
    from grader.intake.extract import warm_notebook_validator
    from grader.judging.case_runner import import_pytest

    warm_notebook_validator()  # nbformat imported, and its fast validator compiled once for every notebook
    import_pytest()


def assignment_maxima(assignment):
    """``{exercise id: points available}`` for the assignment, counted from its cases (no submission runs).

    Returns:
        dict in course order. Every student's row uses these, whatever they handed in.
    """
    from grader.results.grade_result import GradeResult

    result = GradeResult(submission="(maxima)")
    missing_exercises(result, assignment, "nothing")
    return {e: sum(c.max_points for c in result.cases if c.exercise_id == e) for e in assignment}


class _Pool:
    """A process pool that a stop request ends within seconds (``concurrent.futures`` alone waits for every
    running task, and a KeyboardInterrupt inside its workers let pytest record half a run as complete)."""

    def __init__(self, workers, stop):
        from grader.pipeline import warm_bytecode_cache

        self.stop = stop
        # Compiled here, once, before any pool process grades: two processes compiling a cold clone's modules at
        # once could write a .pyc during the other's grading, which voids it (grader.pipeline.grade).
        warm_bytecode_cache()
        self.executor = concurrent.futures.ProcessPoolExecutor(max_workers=workers, initializer=prepare_pool_process)

    def run(self, tasks, summaries, bar, retry=False):
        """Grade ``tasks`` (``{student: args for grade_student}``); returns the students whose grading the
        pool lost (its process died). Students left when the pool stopped are simply not in ``summaries``."""
        lost = []
        futures = {self.executor.submit(grade_student, s, *args): s for s, args in tasks.items()}
        pending = set(futures)
        while pending and not self.stop.is_set():
            done, pending = concurrent.futures.wait(pending, timeout=0.2,
                                                    return_when=concurrent.futures.FIRST_COMPLETED)
            for future in done:
                self._collect(future, futures[future], tasks, summaries, lost, retry, bar)
        if pending:
            self._stop(pending)
            for future in pending:
                if future.done():
                    self._collect(future, futures[future], tasks, summaries, lost, retry, bar)
        return lost

    def _collect(self, future, student, tasks, summaries, lost, retry, bar):
        if future.cancelled():
            return
        try:
            summaries[student] = future.result()
        except Stopped:
            return
        except concurrent.futures.process.BrokenProcessPool:
            if self.stop.is_set():
                return  # killed by the stop itself
            if not retry:
                lost.append(student)
                return
            summaries[student] = _failed(student, tasks[student][0], KILLED)
        except Exception as exc:  # a grader bug costs one student
            summaries[student] = _failed(student, tasks[student][0], f"the grader process failed ({type(exc).__name__})")
        if bar is not None:
            bar.update(1)

    def _stop(self, pending):
        """Cancel what has not started, tell each grader process to stop, wait briefly, kill what is left."""
        processes = dict(getattr(self.executor, "_processes", None) or {})  # shutdown() forgets them
        self.executor.shutdown(wait=False, cancel_futures=True)
        for pid in processes:
            try:
                os.kill(pid, signal.SIGTERM)
            except OSError:
                pass
        # Polled: a future cancelled by shutdown() is done but never wakes concurrent.futures.wait().
        deadline = time.monotonic() + STOP_SECONDS
        while time.monotonic() < deadline and not all(future.done() for future in pending):
            time.sleep(0.05)
        for pid, process in processes.items():
            if process.is_alive():
                try:
                    os.kill(pid, getattr(signal, "SIGKILL", signal.SIGTERM))  # Windows: SIGTERM terminates
                except OSError:
                    pass

    def close(self):
        self.executor.shutdown(wait=True, cancel_futures=True)


def _clean(out):
    """Remove what an earlier run left that could be mistaken for current: temporary files of writes cut
    short (a ``kill -9``) and the earlier run's tables (written again at the end)."""
    for folder in (out, os.path.join(out, "results")):
        try:
            names = os.listdir(folder)
        except OSError:
            continue
        for name in names:
            if (name.startswith(".kit-") and name.endswith(".tmp")) or (folder == out and name in TABLES):
                try:
                    os.unlink(os.path.join(folder, name))
                except OSError:
                    pass


def write_tables(out, students, summaries, maxima, canvas_assignment="Tool-call validation",
                 canvas_id="sis-login-id"):
    """Write ``gradebook.csv``, ``maxima.csv`` and ``canvas.csv`` (``grader.classroom.gradebook``) for every student.

    Args:
        out: the output folder (str). students: every student found, in order (list of str).
        summaries: ``{student: summary}`` of those graded (now or before); the others get blank rows.
        maxima: ``assignment_maxima``. canvas_assignment, canvas_id: see ``grader.classroom.gradebook.canvas_csv``.
    """
    from grader.classroom.gradebook import canvas_csv, gradebook_csv, maxima_csv
    from grader.intake.exercises import BY_ID

    entries = [{"student": shown(s), "folder": safe_file_name(s), "summary": summaries.get(s), "pending": PENDING}
               for s in students]
    write_text_atomically(os.path.join(out, "maxima.csv"),
                          maxima_csv(maxima, {e: BY_ID[e].title for e in maxima}))
    write_text_atomically(os.path.join(out, "canvas.csv"), canvas_csv(entries, maxima, canvas_assignment, canvas_id))
    write_text_atomically(os.path.join(out, "gradebook.csv"), gradebook_csv(entries, maxima))


def run_batch(folder, out, workers=None, regrade=False, limits=None, progress=True,
              assignment=None, stop=None, canvas_assignment="Tool-call validation", canvas_id="sis-login-id",
              secret=None):
    """Grade a folder of submissions in parallel and write the tables.

    Args:
        folder: the submissions folder (str). out: the output folder (str).
        workers: grader processes (int; default ``os.cpu_count()``).
        regrade: grade students whose stored results are still valid too (bool).
        limits: ``grader.isolation.limits.Limits`` (its ``total_seconds``: the budget for all of one student's files).
        progress: show a progress bar on stderr (bool).
        assignment: the exercise ids every student is graded on (list of str; default: the capstone).
        stop: a ``threading.Event``; once set, grading stops within seconds (see the module docstring).
        canvas_assignment, canvas_id: see ``grader.classroom.gradebook.canvas_csv``.
        secret: the assignment's seed (str), or None to draw each file's hidden inputs afresh (``grade_files``).
    Returns:
        ``(summaries, graded_now, left)``: the summary of every student graded now or before, sorted by
        student; how many were graded in this run (int); the students not graded because the run was
        stopped (list of str).
    """
    from grader.intake.exercises import DEFAULT

    kernel_rules.hide_memory()  # it holds every student's results; its forked pool processes inherit this
    limits = limits or Limits()
    assignment = list(assignment or [DEFAULT.id])
    stop = stop or threading.Event()
    students = find_submissions(folder)
    summaries, todo = {}, {}
    for student, (files, refused) in students.items():
        base = os.path.join(folder, student) if os.path.isdir(os.path.join(folder, student)) else folder
        key = reuse_key(base, files, refused, assignment, limits, secret)
        stored = None if regrade else stored_result(os.path.join(out, "results", safe_file_name(student) + ".json"), key)
        if stored is not None:
            summaries[student] = stored
        else:
            todo[student] = (files, refused, out, limits, assignment, key, secret)
    if todo:
        _clean(out)
    bar = None
    if progress and todo:
        from tqdm import tqdm

        bar = tqdm(total=len(todo), unit="student", desc="Grading", file=sys.stderr)
    pending = dict(todo)
    pool = _Pool(workers or os.cpu_count(), stop) if todo else None
    # Counted from the cases by the pool (about 0.3 s) while it grades: a stopped run writes its tables at once.
    # (Not in a thread of this process: the pool's processes are forked, and a fork taken while another
    # thread holds the import lock never gets it.)
    counting = pool.executor.submit(assignment_maxima, assignment) if pool else None
    try:
        while pending and not stop.is_set():
            # A pool whose process dies (a submission that found a way to kill it) is broken for every task
            # in flight: each affected student is then graded again alone, so only the culprit loses.
            broken = pool.run(pending, summaries, bar)
            pool.close()
            pending = {}
            if len(broken) == 1:
                summaries[broken[0]] = _failed(broken[0], todo[broken[0]][0], KILLED)
            else:
                for student in broken:
                    if stop.is_set():
                        break
                    pool = _Pool(1, stop)
                    pool.run({student: todo[student]}, summaries, bar, retry=True)
                    pool.close()
    finally:
        if pool is not None:
            pool.close()
        if bar is not None:
            bar.close()
    try:
        maxima = counting.result(timeout=0) if counting is not None else None
    except Exception:  # not counted (the run was stopped first, or the pool broke): count here
        maxima = None
    maxima = maxima or assignment_maxima(assignment)
    left = [s for s in students if s not in summaries]
    write_tables(out, list(students), summaries, maxima, canvas_assignment, canvas_id)
    ordered = [summaries[s] for s in sorted(summaries)]
    return ordered, sum(s in todo for s in summaries), left


SIGNAL_NAMES = {signal.SIGINT: "Ctrl+C (SIGINT)", signal.SIGTERM: "SIGTERM"}


def main(argv=None):
    """Command line; returns 0 when the batch completed (whatever the scores), 2 for a missing folder or
    bad options, 128 + the signal's number (130 for Ctrl+C, 143 for SIGTERM) when it was stopped.

    It is the whole process (``python -m grader.batch``, ``toolcall-batch``): its SIGINT and SIGTERM handlers stay
    installed when it returns, so a signal while the finished process exits does not kill it."""
    from grader.classroom.assignment import (
        SEED_FILE,
        add_assignment_options,
        add_seed_option,
        assignment_seed,
        exercises_from,
    )
    from grader.classroom.cli import (
        add_grading_options,
        limits_from,
        warn_of_stray_folders,
    )
    from grader.classroom.gradebook import CANVAS_ID_COLUMNS
    from grader.results.provenance import version_line

    parser = argparse.ArgumentParser(prog="python -m grader.batch", description=__doc__.splitlines()[0])
    parser.add_argument("submissions", help="folder with one file or one folder per student")
    parser.add_argument("--out", required=True, help="folder for gradebook.csv, canvas.csv, feedback/ and results/")
    parser.add_argument("--workers", type=int, default=None, help="grader processes (default: the number of CPUs)")
    parser.add_argument("--regrade", action="store_true", help="grade students whose stored results are valid too")
    add_assignment_options(parser)
    add_grading_options(parser, total=_("all of one student's files"), exercise=False)
    add_seed_option(parser, "the student's id and the student's files' bytes; without it or the variable, the seed kept in "
                            "OUT/assignment-seed.txt (made on the first run)")
    parser.add_argument("--canvas-assignment", default="Tool-call validation", metavar="TITLE",
                        help="canvas.csv's assignment column: the Canvas assignment's title, or 'Title (id)' as "
                             "Canvas's own export writes it (default: %(default)s)")
    parser.add_argument("--canvas-id", default="sis-login-id", choices=sorted(CANVAS_ID_COLUMNS),
                        help="the canvas.csv column that holds the student id the batch knows (the submission's "
                             "folder or file name) (default: %(default)s)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.add_argument("--version", action="version", version=version_line())
    add_language_option(parser)
    args = parser.parse_args(argv)
    use(choose(args.lang))  # the students' feedback files speak it (the class's tables stay English)
    if not os.path.isdir(args.submissions):
        print(f"error: {args.submissions} is not a folder of submissions.", file=sys.stderr)
        return 2
    submissions, out = os.path.realpath(args.submissions), os.path.realpath(args.out)
    if os.path.commonpath([submissions, out]) == submissions:
        # Its results/ and feedback/ would be graded as two students next time (issue 41's instructor trial).
        print(f"error: --out {args.out} is inside the submissions folder {args.submissions}; choose a folder outside "
              "it, or the next run grades the output as students.", file=sys.stderr)
        return 2
    try:
        assignment = [e.id for e in exercises_from(args)]
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    try:
        secret, how = assignment_seed(args.assignment_seed, args.out)
    except OSError as exc:
        print(f"error: could not keep the assignment's seed in {os.path.join(args.out, SEED_FILE)} "
              f"({exc.strerror or exc}).", file=sys.stderr)
        return 2
    warn_of_stray_folders()
    stop, received = threading.Event(), []

    def request_stop(signum, frame):
        received.append(signum)
        stop.set()

    # The handlers stay until the process ends: restoring the default ones after the run let a SIGTERM that came
    # while the finished process was exiting kill it (status -15 instead of 0, found by tests/test_interrupt.py).
    # A signal after the run is recorded and changes nothing: the gradebook is written.
    for number in SIGNAL_NAMES:
        signal.signal(number, request_stop)
    try:
        summaries, graded, left = run_batch(
            args.submissions, args.out, workers=args.workers, regrade=args.regrade, limits=limits_from(args),
            progress=not args.no_progress, assignment=assignment, stop=stop,
            canvas_assignment=args.canvas_assignment, canvas_id=args.canvas_id, secret=secret)
    except OSError as exc:  # the output folder cannot be written: say so, the graded students' files stay
        print(f"error: could not write into {args.out} ({exc.strerror or exc}).", file=sys.stderr)
        return 2
    received = list(received)  # what stopped the run; later signals are not part of it
    gradebook = os.path.join(args.out, "gradebook.csv")
    if received:
        print(f"Stopped by {SIGNAL_NAMES.get(received[0], 'a signal')}: graded {graded} student"
              f"{'s' * (graded != 1)} in this run; {len(left)} left, with blank rows in {gradebook}. "
              "Run the same command again to grade them; results already stored are kept.")
        return 128 + received[0]
    problems = sum(bool(s["errors"]) for s in summaries)
    skipped = len(summaries) - graded
    from grader.isolation.protections import protection_note

    note = protection_note()
    if note and graded:  # the instructor's, not only each student's report (issue 41's instructor trial)
        print(note)
    print(f"Graded {graded} student{'s' * (graded != 1)}"
          + (f" ({skipped} up to date, not graded again; --regrade grades them)" if skipped else "")
          + f"; gradebook of {len(summaries)}: {gradebook} (and canvas.csv, maxima.csv)"
          + (f"; {problems} with notes (see the notes column)" if problems else ""))
    if graded:
        for line in walls_lines(summaries):  # which walls stood, as each student's report says (issue 42)
            print(line)
    print(f"Hidden inputs: drawn from the assignment's seed, {how}.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
