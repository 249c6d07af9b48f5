"""Running one exercise's case folder with pytest, in the grader's process, against the loaded submission.

The cases are ordinary pytest tests (``grader/judging/cases/<exercise>/``); this drives pytest over them with the
grading plugin (``grader.judging.pytest_plugin``), which hands each case its harness and collects the points.
pytest runs as a library here: no repository configuration, no installed plugins, no conftest.py, no caches.
"""

import contextlib
import io
import os
import sys

from grader.paths import CASES_DIR


def import_pytest():
    """Import pytest, the grading plugin and the modules the cases import (about 0.1 s in a fresh process).

    Called while a notebook is read in another process (``grader.pipeline``): the case modules' own imports
    (the visible cases, the rule ids) are then done while waiting, not during pytest's collection.
    """
    import pytest  # noqa: F401

    import grader.judging.pytest_plugin  # noqa: F401
    import grader.judging.rule_ids  # noqa: F401
    import grader.judging.visible_cases  # noqa: F401


# pytest's built-in plugins the cases never use: each costs registration and hook calls on every run.
UNUSED_PLUGINS = ("unraisableexception", "threadexception", "pastebin", "junitxml", "doctest", "unittest",
                  "legacypath", "tmpdir", "monkeypatch", "recwarn", "setuponly", "setupplan", "stepwise",
                  "subtests", "debugging", "skipping")


def forget_foreign_case_modules(cases_dir, folders):
    """Drop from ``sys.modules`` every module named like one of ``folders``' case modules (``tool_call``,
    ``tool_call.test_04_dispatch``) that was not loaded from ``cases_dir``.

    pytest's importlib mode names a case module by its path below ``--rootdir`` and reuses a module already
    in ``sys.modules`` under that name: after grading with another case folder (a copy, a release) in this
    process, that copy's module stood in for the real file and its cases went missing. Modules loaded from
    ``cases_dir`` itself stay cached (a batch process grades many students with them).
    """
    root = os.path.realpath(cases_dir) + os.sep
    packages = {os.path.basename(folder) for folder in folders}
    for name in [n for n in list(sys.modules) if n.partition(".")[0] in packages]:
        where = getattr(sys.modules.get(name), "__file__", None) or ""
        if not os.path.realpath(where).startswith(root):
            sys.modules.pop(name, None)


def run_cases(exercise, harness, cases_dir=CASES_DIR):
    """Run one exercise's case folder with pytest, in this process, against the loaded submission.

    Returns:
        the ``GradingPlugin`` after the run (``results``, ``internal_errors``).
    """
    import pytest  # imported here, while the worker loads the submission (see ``grade``)

    from grader.judging.canaries import drawing_from
    from grader.judging.pytest_plugin import GradingPlugin

    plugin = GradingPlugin(exercise, harness)
    folders = [os.path.join(cases_dir, "visible"), os.path.join(cases_dir, exercise.cases)]
    forget_foreign_case_modules(cases_dir, folders)
    args = [
        *[folder for folder in folders if os.path.isdir(folder)],  # a student release has no hidden cases
        "-c", os.path.join(cases_dir, "pytest.ini"),  # never pick up the repository's own pytest.ini
        "--rootdir", cases_dir,
        "--import-mode=importlib",  # case folders may reuse module names
        "-p", "no:cacheprovider",
        # Installed pytest plugins (nbval, xdist, anyio...) have no business here; loading them costs
        # more than running every case (nbval alone imports jupyter_client: about 0.1 s).
        "--disable-plugin-autoload",
        "--noconftest",  # the fixtures live in GradingPlugin; a conftest.py planted among the cases is never loaded
        # The cases print nothing and need no logging, warnings or fd capture: about 8% faster per run.
        "--capture=no", "-p", "no:logging", "-p", "no:warnings", "-p", "no:faulthandler", "--tb=no",
        *[arg for name in UNUSED_PLUGINS for arg in ("-p", "no:" + name)],
        "--assert=plain",  # no rewriting: the cases judge with grader.judging.expectations, and no rewrite caches exist
        "-q",
    ]
    # pytest's own chatter is not the learner's report; the report is built from plugin.results.
    # The canaries draw their values from the harness's draw, so that its seed reproduces them.
    source = harness.draw.random if harness.draw is not None else None
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()), stack_room(), \
            drawing_from(source):
        pytest.main(args, plugins=[plugin, sys.modules["grader.judging.pytest_plugin"]])  # the module holds the harness fixture
    return plugin


# Frames the cases may use above the caller's: pytest's own (about 60) and the cases' deepest data (900 levels,
# encoded for the worker) must fit whoever calls the grader.
CASE_FRAMES = 3000


@contextlib.contextmanager
def stack_room(frames=CASE_FRAMES):
    """Within the block, the recursion limit leaves ``frames`` (int) frames above the caller's stack depth.

    A case that sends 900 nested lists to the worker is encoded here, in the grader's process, and counts
    against Python's recursion limit (1000) from wherever ``grade`` was called: from a fresh command it fitted,
    from a process forked deep inside a test run (or any deep caller) it raised RecursionError and the case
    became an internal error. Only the grader's own code runs here (learner code runs in the worker, under the
    worker's own limit), so the room is safe to give. The previous limit is restored afterwards.
    """
    previous = sys.getrecursionlimit()
    depth, frame = 0, sys._getframe()
    while frame is not None:
        depth, frame = depth + 1, frame.f_back
    sys.setrecursionlimit(max(previous, depth + frames))
    try:
        yield
    finally:
        sys.setrecursionlimit(previous)
