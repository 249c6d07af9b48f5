"""What the processes of one test session share: a folder, and what is built once in it.

The suite runs in pytest-xdist's worker processes (``-n auto`` in pytest.ini: two on a 2-core machine), each with
its own memory. What costs seconds to make and is the same for every test (a student release, a graded
submission's results, a fresh venv) is made once in a folder all of them see, by whichever process asks first;
the others wait for it. The controller (or a run without xdist, which is its own controller) makes the folder in
``pytest_configure`` (tests/conftest.py), hands it to the workers in the environment (``VARIABLE``) and removes it
at the end of the session.
"""

import os
import shutil
import tempfile
import time
import traceback

VARIABLE = "KIT_TEST_SESSION_FOLDER"


def is_worker(config):
    """True in an xdist worker process, False in the controller or a run without xdist (bool)."""
    return hasattr(config, "workerinput")


def start():
    """Make the session's folder and name it in the environment, for the workers started after this (str: its path)."""
    os.environ[VARIABLE] = tempfile.mkdtemp(prefix="kit-tests-")
    return os.environ[VARIABLE]


def folder():
    """The session's shared folder (str); made on first use when no controller made one (a test run by hand)."""
    path = os.environ.get(VARIABLE)
    if not path or not os.path.isdir(path):
        path = start()
    return path


def finish():
    """Remove the session's folder and everything in it; returns None."""
    path = os.environ.pop(VARIABLE, None)
    if path:
        shutil.rmtree(path, ignore_errors=True)


def claim(name):
    """Take ``name`` for this process (True), or learn that another process took it first (False).

    ``os.mkdir`` either creates the folder or fails, atomically, on every system: exactly one process wins.
    """
    try:
        os.mkdir(os.path.join(folder(), name + ".claim"))
        return True
    except FileExistsError:
        return False


def built_once(name, build, timeout=900):
    """The path ``<folder>/<name>`` after ``build(path)`` made it, in exactly one process of the session.

    Args:
        name: what is built (str; a file or folder name). build: called with the path to create (str) in the
            process that claims ``name``; its return value is ignored. timeout: seconds to wait for another
            process's build (float).
    Returns:
        the path (str).
    Raises:
        AssertionError: the build failed here or in another process (with that process's traceback).
        TimeoutError: another process's build did not finish within ``timeout``.
    """
    target = os.path.join(folder(), name)
    done = target + ".done"
    if claim(name):
        try:
            build(target)
        except BaseException:
            _write(done, traceback.format_exc())
            raise
        _write(done, "")
        return target
    deadline = time.monotonic() + timeout
    while not os.path.exists(done):
        if time.monotonic() > deadline:
            raise TimeoutError(f"{name} was not built by another test process within {timeout} s")
        time.sleep(0.05)
    with open(done, encoding="utf-8") as handle:
        failure = handle.read()
    if failure:
        raise AssertionError(f"building {name} failed in another test process:\n{failure}")
    return target


def _write(path, text):
    """Write ``text`` to ``path`` whole or not at all (a reader polls for the file's existence)."""
    from grader.results.atomic_write import write_text_atomically

    write_text_atomically(path, text)
