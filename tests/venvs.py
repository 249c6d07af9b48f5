"""The fresh virtual environments of the install tests, built in the background from the start of the session.

Building one is mostly waiting for pip (downloads, unpacking, about 20 to 100 s each); done in the background
while the rest of the suite grades, the three of them cost the suite little of its wall-clock time. A build starts
when the session's selected tests include one that needs it (``pytest_collection_finish`` in tests/conftest.py),
or on first use otherwise; its fixture waits for it (``built``). Each is built once per session, in the session's
shared folder (``tests/session_share.py``), by the first of pytest-xdist's worker processes to ask for it.
"""

import os
import shutil
import signal
import subprocess
import sys
import sysconfig
import time

import session_share

from grader.paths import KIT_ROOT

NBGRADER = "nbgrader==0.9.6"
# What a source copy leaves out: the clone's own environment and caches, build output, anything not the kit's.
COPY_IGNORE = shutil.ignore_patterns(".git", ".venv", "__pycache__", "*.pyc", "build", "*.egg-info", "artifacts",
                                     ".pytest_cache", ".hypothesis", ".ipynb_checkpoints")
# name -> (the fixtures that need it, what pip installs: "KIT" stands for a fresh copy of the kit's files, whether
# the venv sees this test environment's packages too). The kit's own venvs are fresh: they test what the kit declares.
# nbgrader's is layered on this environment (a .pth file naming its site-packages, after the venv's own): pip adds
# nbgrader and what it needs beyond the kit's set, instead of unpacking all of Jupyter a third time (72 s of the
# suite's end waited for that build).
BUILDS = {
    "kit": (("installed_kit",), ("KIT",), False),
    "kit-insight": (("installed_kit_with_insight",), ("KIT[insight]",), False),
    "nbgrader": (("course",), (NBGRADER, "KIT"), True),
}
_RUNNING = {}  # name -> (Popen or None when another test process builds it, venv folder, log path, exit status file)


def venv_python(venv):
    """The Python executable of a virtual environment (str)."""
    return os.path.join(venv, "Scripts" if os.name == "nt" else "bin", "python")


def source_copy(folder):
    """A copy of the kit's files in ``folder`` (what a fresh clone holds), to build from (str)."""
    shutil.copytree(KIT_ROOT, folder, ignore=COPY_IGNORE)
    return folder


def start(name):
    """Start building the venv ``name`` of ``BUILDS`` in the background, once per session: the first test process
    to ask builds it (``session_share.claim``), the others wait for its exit status file. Returns None."""
    if name in _RUNNING:
        return
    folder = os.path.join(session_share.folder(), "venvs", name)
    venv, log, status = os.path.join(folder, "venv"), os.path.join(folder, "build.log"), os.path.join(folder, "status")
    os.makedirs(os.path.dirname(folder), exist_ok=True)
    if not session_share.claim(f"venv-{name}"):
        _RUNNING[name] = (None, venv, log, status)
        return
    os.makedirs(folder)
    kit = source_copy(os.path.join(folder, "kit"))
    requirements = [item.replace("KIT", kit) for item in BUILDS[name][1]]
    # --no-compile: pip's bytecode for every file of every package (a good part of a build's CPU) is not what the
    # tests check; a module is compiled when a test first imports it. The build writes its exit status last (whole,
    # by a rename): what a process that did not start it waits for.
    layer = ""
    if BUILDS[name][2]:
        layer = (f"site = subprocess.check_output([{venv_python(venv)!r}, '-c', 'import sysconfig; "
                 f"print(sysconfig.get_paths()[\\'purelib\\'])'], text=True).strip()\n"
                 f"open(os.path.join(site, 'zz_test_environment.pth'), 'w').write({sysconfig.get_paths()['purelib']!r})\n")
    script = ("import os, subprocess, sys, venv\n"
              f"venv.create({venv!r}, with_pip=True)\n"
              + layer +
              f"code = subprocess.call([{venv_python(venv)!r}, '-m', 'pip', 'install', '--disable-pip-version-check', "
              f"'--no-compile', '-q', *{requirements!r}])\n"
              f"open({status + '.part'!r}, 'w').write(str(code))\n"
              f"os.replace({status + '.part'!r}, {status!r})\n")
    with open(log, "w", encoding="utf-8") as handle:
        process = subprocess.Popen([sys.executable, "-c", script], stdout=handle, stderr=subprocess.STDOUT,
                                   start_new_session=True)
    with open(os.path.join(folder, "pid"), "w", encoding="utf-8") as handle:
        handle.write(str(process.pid))
    _RUNNING[name] = (process, venv, log, status)


def start_for(fixture_names):
    """Start the builds that any of ``fixture_names`` (set of str: the selected tests' fixtures) needs."""
    for name, (fixtures, _, _) in BUILDS.items():
        if set(fixtures) & set(fixture_names):
            start(name)


def built(name, network_errors=(), timeout=1800):
    """Wait for the venv ``name``: ``(its Python, None)``, or ``(None, the reason)`` when pip could not reach the
    package index (one of ``network_errors``, str, in its output), for the caller to skip.

    Raises:
        AssertionError: with pip's output, when the build failed otherwise.
    """
    start(name)
    process, venv, log, status = _RUNNING[name]
    deadline = time.monotonic() + timeout
    if process is not None:
        process.wait(timeout=timeout)
    while not os.path.exists(status):
        if time.monotonic() > deadline:
            raise AssertionError(f"the {name} venv was not built within {timeout} s (by another test process)")
        time.sleep(0.2)
    with open(status, encoding="utf-8") as handle:
        returncode = int(handle.read() or 1)
    with open(log, encoding="utf-8", errors="replace") as handle:
        output = handle.read()
    if returncode != 0:
        if any(error in output for error in network_errors):
            return None, "pip could not reach the package index: " + output.strip().splitlines()[-1]
        raise AssertionError(f"building the {name} venv failed:\n{output[-3000:]}")
    return venv_python(venv), None


def clean_up():
    """Stop every build of the session that still runs (in the controller at the session's end, when no test
    process waits for one any more: a build may belong to a worker that finished first); returns None."""
    base = os.path.join(session_share.folder(), "venvs")
    for name in os.listdir(base) if os.path.isdir(base) else ():
        try:
            with open(os.path.join(base, name, "pid"), encoding="utf-8") as handle:
                pid = int(handle.read())
            if hasattr(os, "killpg") and not os.path.exists(os.path.join(base, name, "status")):
                os.killpg(pid, signal.SIGKILL)  # its own session: the builder and the pip it started
        except (OSError, ValueError):
            pass
    _RUNNING.clear()
