"""The kit's own test session: its shared helpers and the hooks that set the session up.

Helpers: ``run_grader`` (the command line, in a subprocess), the ``grade`` fixture (in this process, each distinct
submission once per session: ``tests/graded.py``), the session's ``student_release``. Hooks: the controller
prepares the shared session folder (``tests/session_share.py``), compiles the kit and points Hypothesis's example
database into pytest's cache before any test process starts; the files are ordered longest first; the install
tests' venvs start building as soon as collection shows they are needed (``tests/venvs.py``).
"""

import json
import os
import subprocess
import sys

import pytest

from grader.paths import KIT_ROOT

# Golden submissions are graded by tests, never executed as notebooks by nbval.
collect_ignore_glob = ["golden/*", "faulty/*", "hostile/*", "attacks/*"]

ROOT = KIT_ROOT  # the repository (grader.paths knows where it is)


def run_grader(submission, *options, results=None, timeout=300, env=None):
    """Run ``python -m grader SUBMISSION [options]`` from the repository root.

    Args:
        submission: path of the file to grade (str or path-like).
        options: extra command-line options (str).
        results: where to write results.json (path-like), or None.
        timeout: seconds before the test gives up on the grader (float).
        env: variables to set for the grader on top of this process's (dict) or None.
    Returns:
        ``(completed_process, results_dict_or_None)``.
    """
    command = [sys.executable, "-m", "grader", os.fspath(submission), *options]
    if results is not None:
        command += ["--results", os.fspath(results)]
    process = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=timeout,
                             env={**os.environ, **env} if env else None)
    data = None
    if results is not None and os.path.exists(results):
        with open(results, encoding="utf-8") as handle:
            data = json.load(handle)
    return process, data


@pytest.fixture(autouse=True)
def namespaces_as_this_system_gives_them(monkeypatch):
    """What this process learnt about namespaces (``grader.isolation.kernel_rules._NAMESPACES``) is undone after
    each test: a test that starts a worker past the kernel's rules (or refuses them on purpose) would otherwise be
    taken for a system that refuses namespaces, and every later test in the process would grade without them."""
    from grader.isolation import kernel_rules

    monkeypatch.setattr(kernel_rules, "_NAMESPACES", list(kernel_rules._NAMESPACES))


@pytest.fixture(params=["posix", "portable"])
def transport(request, monkeypatch):
    """Each worker transport in turn, for a Sandbox the test makes: the POSIX one and the portable one (which applies
    the same kernel rules on Linux since issue 41). Returns its name (str)."""
    monkeypatch.setenv("KIT_PORTABLE_WORKER", "1" if request.param == "portable" else "0")
    return request.param


@pytest.fixture
def grade():
    """``grade(path, *options) -> (outcome, results)``: graded in this process, once per session for the same
    submission (``tests/graded.py``); ``outcome`` has the command line's ``returncode``, ``stdout``, ``stderr``.
    Tests of the command line itself use ``run_grader``."""
    from graded import graded

    return graded


@pytest.fixture(scope="session")
def student_release():
    """The full student release, ``python -m course.release DEST --zip`` (a ``pathlib.Path``; its archive beside it,
    ``DEST.zip``), built once per session for every test process (``tests/session_share.py``). Read it; a test
    that changes files copies it first."""
    import pathlib

    import session_share

    def build(destination):
        process = subprocess.run([sys.executable, "-m", "course.release", destination, "--zip"], cwd=ROOT,
                                 capture_output=True, text=True)
        assert process.returncode == 0, process.stderr

    return pathlib.Path(session_share.built_once("course", build))


def docked_groups(results):
    """The set of case groups in a results.json that lost points."""
    return {test["tags"][0] for test in results["tests"] if test["status"] == "failed"}


# Files in the order their tests start: pytest-xdist hands each worker a whole file (``--dist loadfile``, in this
# order with ``--no-loadscope-reorder``), so the longest go first and do not run alone at the end; nbgrader's
# real autograde (about 40 s) among them, started once its venv (tests/venvs.py, built from the session's start)
# is likely ready; the installed kit's short tests last, to find theirs built. Measured with ``--durations=0`` (docs/speed.md, "The kit's own test suite"); a file not named
# here runs between the two lists, in collection order.
FIRST = ("test_portable.py", "test_insight.py", "test_browser.py", "test_attacks.py", "test_classroom.py",
         "test_interrupt.py", "test_hostile.py", "test_no_answers.py", "test_faulty_library.py", "test_nbgrader.py")
LAST = ("test_packaging.py",)


def file_rank(item):
    """Where ``item``'s file starts in the session (int, lower first): ``FIRST``, then the rest, then ``LAST``."""
    name = os.path.basename(str(item.path))
    if name in FIRST:
        return FIRST.index(name)
    return len(FIRST) + 1 + LAST.index(name) if name in LAST else len(FIRST)


def pytest_configure(config):
    """In every test process, Hypothesis's example database (``keep_hypothesis_examples_in_the_cache``). In the
    controller, before any worker starts: the session's shared folder (tests/session_share.py), and the
    kit's bytecode compiled once (a grading voids itself when its grader's folder changes under it, and a shell
    with ``PYTHONDONTWRITEBYTECODE`` would otherwise compile the grader afresh in every ``python -m grader``)."""
    import compileall

    import session_share
    from grader.pipeline import grader_packages

    keep_hypothesis_examples_in_the_cache(config)
    if session_share.is_worker(config):
        return
    session_share.start()
    for package in [*grader_packages(), os.path.join(ROOT, "course")]:  # not the cases: compiled on every grading
        compileall.compile_dir(package, quiet=2, maxlevels=0)


def keep_hypothesis_examples_in_the_cache(config):
    """Hypothesis's folder (its example database, its cache of the constants in the code under test) in pytest's
    cache folder (``cache_dir`` in pytest.ini, outside the clone); with the cache off (``-p no:cacheprovider``), a
    temporary folder and no example database. By default Hypothesis writes ``.hypothesis/`` into the working folder:
    the work tree, and every copy of the kit the tests make (found by a contributor's trial)."""
    import atexit
    import shutil
    import tempfile

    from hypothesis import settings
    from hypothesis.configuration import set_hypothesis_home_dir
    from hypothesis.database import DirectoryBasedExampleDatabase

    cache = getattr(config, "cache", None)
    if cache is not None:
        home = str(cache.mkdir("hypothesis"))
    else:
        home = tempfile.mkdtemp(prefix="kit-hypothesis-")
        atexit.register(shutil.rmtree, home, True)  # one per test process: gone with it
    set_hypothesis_home_dir(home)
    database = DirectoryBasedExampleDatabase(os.path.join(home, "examples")) if cache is not None else None
    settings.register_profile("kit", database=database)
    settings.load_profile("kit")


def pytest_collection_modifyitems(session, config, items):
    """Start the files in ``file_rank``'s order (in the controller and in each xdist worker alike)."""
    items.sort(key=file_rank)  # stable: each file's own order (a notebook's cells) is kept


def pytest_collection_finish(session):
    """Start building the install tests' venvs in the background if any selected test needs one (tests/venvs.py).
    Runs in every process that collects (under xdist, each worker): the first to claim a venv in the session folder
    builds it, the others wait for it."""
    import venvs

    needed = {name for item in session.items for name in getattr(item, "fixturenames", ())}
    venvs.start_for(needed)


def pytest_sessionfinish(session):
    """In the controller, once every worker is done: stop the venv builds and remove the shared folder."""
    import session_share
    import venvs

    if session_share.is_worker(session.config):
        return
    venvs.clean_up()
    session_share.finish()
