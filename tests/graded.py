"""Grading in the test process, each distinct submission once per test session.

Most tests ask what the grader makes of a submission, not how its command line starts: they grade with
``grader.pipeline.grade`` in this process (the submission still runs only in the grader's worker processes) and
read the results.json the command line would write (``grader.results.formats.gradescope_results``). A fresh
``python -m grader`` process costs about 0.3 s of start-up and imports per grading; the command line's own
contract (exit status, files written, ``-I`` isolation) keeps its subprocess tests in ``tests/test_cli.py``.

The same submissions are graded by several files (the faulty library by its own tests and by the class report's,
the seed's sample by three), so results are kept for the session, keyed by everything a result depends on: the
submission's bytes and file name, the grader's fingerprint (``grader.results.provenance.code_fingerprint``: its
modules, cases and metadata), the exercises asked for, the limits and any seed in the environment. A test that
means to grade again (a grading whose randomness or timing it studies) passes ``again=True``.

The suite's processes (pytest-xdist's workers) share what they graded: each result is also kept as a file in the
session's folder (``tests/session_share.py``), so a submission graded by one worker's tests is read, not graded
again, by the other's.
"""

import copy
import hashlib
import os
import pickle
import time
from dataclasses import dataclass

import session_share

# Variables that change what a grading draws or how it runs: part of the cache key.
SEED_VARIABLES = ("KIT_SEED", "KIT_PORTABLE_WORKER")

# The fixed draw of the hidden inputs the faulty library is graded on first (tests/test_faulty_library.py; its second
# draw is new each session), and the class report's synthetic class on (tests/test_insight.py): the class's patterns
# of failed cases are then the same on every run, and a known mistake that fails a case on some draws only cannot
# turn an exact match into a partial one by chance (the CI run of stop 52 failed so).
LIBRARY_DRAW = "library"

_RESULTS = {}  # cache key -> (Outcome, results dict, GradeResult)
_MINE = set()  # the keys this process claimed (``_claim``): it grades them, the session's other processes wait
counts = {"graded": 0, "reused": 0}  # for the session's summary line (tests/conftest.py)


@dataclass
class Outcome:
    """What ``python -m grader`` would have ended with: ``returncode`` (0 graded, 2 not gradable, as
    ``grader.classroom.cli.main``), ``stdout`` (the text report) and ``stderr`` (its ``error:`` line, or "")."""

    returncode: int
    stdout: str
    stderr: str


def _key(submission, exercises, limits, within=None, seed=None, language="en"):
    from grader.results.provenance import code_fingerprint

    try:
        with open(submission, "rb") as handle:
            content = hashlib.sha256(handle.read()).hexdigest()
    except OSError:
        content = None  # a missing file: graded each time (its error names the path)
    seeds = tuple(os.environ.get(name) for name in SEED_VARIABLES)
    # A grading without --seed draws afresh, but the session grades it once: its draw is whichever came first.
    return (content, os.path.basename(os.fspath(submission)), code_fingerprint(), tuple(exercises or ()),
            tuple(within or ()), repr(limits), seeds, seed, language)


def _stored_path(key, suffix=".pickle"):
    """Where the session keeps the result of ``key`` for every test process (str); ``suffix`` ``".claim"`` names the
    folder a process makes when it starts grading ``key``, ``".failed"`` the file it leaves when that failed."""
    folder = os.path.join(session_share.folder(), "graded")
    os.makedirs(folder, exist_ok=True)
    return os.path.join(folder, hashlib.sha256(repr(key).encode("utf-8", "surrogatepass")).hexdigest() + suffix)


def _claim(key):
    """Take the grading of ``key`` for this process (True), or learn that another test process has it (False)."""
    if key in _MINE:
        return True
    _stored_path(key)  # makes the folder the claim goes in
    if not session_share.claim("graded/" + os.path.basename(_stored_path(key, ""))):
        return False
    _MINE.add(key)
    return True


def _stored(key, wait=False, timeout=900):
    """The entry a test process of this session stored for ``key``, kept in memory too; or None.

    Args:
        wait: while another process grades ``key`` (it claimed it), wait for its result (bool).
        timeout: seconds to wait at most (float).
    Returns:
        the cache entry, or None: nothing stored (and, when waiting, the other process failed or took too long).
    """
    path, deadline = _stored_path(key), time.monotonic() + timeout
    while True:
        try:
            with open(path, "rb") as handle:
                _RESULTS[key] = pickle.load(handle)
            return _RESULTS[key]
        except (OSError, EOFError, pickle.UnpicklingError):
            if not wait or os.path.exists(_stored_path(key, ".failed")) or time.monotonic() > deadline:
                return None
            time.sleep(0.05)


def _store(key, value):
    """Keep ``value`` for ``key`` in memory and, written whole or not at all, for the session's other processes."""
    _RESULTS[key] = value
    path = _stored_path(key)
    with open(f"{path}.{os.getpid()}", "wb") as handle:
        pickle.dump(value, handle, protocol=pickle.HIGHEST_PROTOCOL)
    os.replace(f"{path}.{os.getpid()}", path)


def _parse(submission, options):
    from grader.classroom.cli import build_parser, limits_from

    args = build_parser().parse_args([os.fspath(submission), *options])
    assert not (args.results or args.exercism or args.junit), "graded() returns the results; it writes no file"
    return args, limits_from(args)


def _grade_once(submission, options, within=None, again=False, claimed=False):
    """The cache entry ``(Outcome, results dict, GradeResult)`` for one grading, graded now when needed: by this
    process when it is the first of the session to ask (or ``again``, or ``claimed``: a pool process of
    ``grade_ahead`` grading what its parent claimed), else read from the process that graded it."""
    args, limits = _parse(submission, options)
    key = _key(submission, args.exercise, limits, within, args.seed, _language(args))
    if again or key[0] is None:
        _RESULTS[key] = _grade_now(args, limits, within)  # this test's own grading: the others keep theirs
    elif key in _RESULTS or _stored(key) is not None:
        counts["reused"] += 1
    elif claimed or _claim(key):
        try:
            _store(key, _grade_now(args, limits, within))
        except BaseException:
            open(_stored_path(key, ".failed"), "w").close()  # whoever waits for it grades it itself
            raise
    elif _stored(key, wait=True) is not None:
        counts["reused"] += 1
    else:
        _RESULTS[key] = _grade_now(args, limits, within)
    return key, _RESULTS[key]


def _language(args):
    """The language the command line would speak with ``args`` (``--lang``, else the environment): part of the key."""
    from grader.translations import choose

    return choose(args.lang)


def _grade_now(args, limits, within):
    """Grade as the command line would (``args``: its parsed options, ``--lang`` too); the cache entry (a tuple of
    three)."""
    from grader.pipeline import grade
    from grader.results.formats import gradescope_results
    from grader.results.text_report import text_report
    from grader.translations import speaking

    with speaking(_language(args)):
        result = grade(args.submission, limits=limits, exercise_ids=args.exercise, within=within, seed=args.seed or None)
        outcome = Outcome(2 if result.error else 0, text_report(result), f"error: {result.error}\n" if result.error else "")
        results = gradescope_results(result)
    counts["graded"] += 1
    return outcome, results, result


def graded(submission, *options, again=False):
    """Grade ``submission`` as ``python -m grader SUBMISSION OPTIONS --results R`` would, in this process.

    Args:
        submission: path of a ``.py`` or ``.ipynb`` file (str or path-like).
        options: the command line's grading options (str): ``--exercise ID`` (repeatable), ``--case-timeout``,
            ``--load-timeout``, ``--memory-mb``, ``--total-timeout``, ``--seed``, ``--lang``; output options are not accepted.
        again: grade even when this session already graded the same submission (bool).
    Returns:
        ``(Outcome, results)``: results is the results.json dict (a copy: a test may change it freely).
    Raises:
        SystemExit: an option the command line would refuse (argparse's own exit, status 2).
    """
    _, (outcome, results, _) = _grade_once(submission, options, again=again)
    return copy.copy(outcome), copy.deepcopy(results)


def graded_result(submission, *options, within=None):
    """The ``GradeResult`` of ``submission`` graded with ``options`` (as ``graded``'s), or as the batch grades a file
    of an assignment (``within``: its exercise ids, or None), once per session; a copy."""
    _, (_, _, result) = _grade_once(submission, options, within=within)
    return copy.deepcopy(result)


def default_workers():
    """How many gradings one test process runs at once (int): its share of the machine's CPUs (pytest-xdist's
    workers share them), from 1 to 4. Not more: the grader's limits are wall-clock ones (until issue 25), and with
    two gradings per test process on 2 cores a clean CI run docked ``unbounded_retry`` for timed-out cases."""
    share = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT") or 1)
    return max(1, min(4, (os.cpu_count() or 1) // share))


def _graded_in_child(submission, options, within):
    return _grade_once(submission, options, within=within, claimed=True)


def grade_ahead(submissions, workers=None):
    """Grade many submissions at once in ``workers`` processes and keep their results for ``graded``.

    For a file whose parametrised tests each grade one submission (the faulty library): graded one by one,
    each test waits for its grading; graded ahead, two gradings share the machine's two cores.

    Args:
        submissions: ``(path, options)`` or ``(path, options, within)`` tuples (path str or path-like; options a
            tuple of str, as ``graded``'s; within as ``graded_result``'s).
        workers: processes (int; default: ``default_workers()``).
    Returns:
        int: how many were graded now (those this session's processes graded or are grading are skipped: their
        tests wait for them).
    """
    from concurrent.futures import ProcessPoolExecutor

    from grader.pipeline import warm_bytecode_cache

    todo, seen = [], set()
    for path, options, *rest in submissions:
        within = rest[0] if rest else None
        args, limits = _parse(path, options)
        key = _key(path, args.exercise, limits, within, args.seed, _language(args))
        if key not in _RESULTS and key not in seen and _stored(key) is None and _claim(key):
            seen.add(key)
            todo.append((path, tuple(options), within))
    if not todo:
        return 0
    # Compiled once here: a pool process compiling the grader's modules while another grades would change
    # the grader's folder under it, and that grading would be voided (grader.pipeline.folder_state_digest).
    warm_bytecode_cache()
    try:
        with ProcessPoolExecutor(max_workers=workers or default_workers()) as pool:
            for key, value in pool.map(_graded_in_child, *zip(*todo)):
                _RESULTS[key] = value  # the child stored it for the session's other processes
                counts["graded"] += 1
    except Exception as exc:  # only a speed-up: each test then grades its own submission, and says why here
        import warnings

        warnings.warn(f"grading ahead stopped ({type(exc).__name__}: {exc}); the tests grade one at a time")
    return len(todo)
