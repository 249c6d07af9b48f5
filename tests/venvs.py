"""The fresh virtual environments of the install tests, built in the background from the start of the session.

Building one is mostly waiting for pip (downloads, unpacking, about 20 to 100 s each); done in the background
while the rest of the suite grades, the three of them cost the suite little of its wall-clock time. A build starts
when the session's selected tests include one that needs it (``pytest_collection_finish`` in tests/conftest.py),
or on first use otherwise; its fixture waits for it (``built``).
"""

import os
import shutil
import subprocess
import sys
import tempfile

from grader.paths import KIT_ROOT

NBGRADER = "nbgrader==0.9.6"
# What a source copy leaves out: the clone's own environment and caches, build output, anything not the kit's.
COPY_IGNORE = shutil.ignore_patterns(".git", ".venv", "__pycache__", "*.pyc", "build", "*.egg-info", "artifacts",
                                     ".pytest_cache", ".ipynb_checkpoints")
# name -> (the fixtures that need it, what pip installs: "KIT" stands for a fresh copy of the kit's files)
BUILDS = {
    "kit": (("installed_kit",), ("KIT",)),
    "kit-insight": (("installed_kit_with_insight",), ("KIT[insight]",)),
    "nbgrader": (("course",), (NBGRADER, "KIT")),
}
_BASE = None
_RUNNING = {}  # name -> (Popen, folder, log path)


def venv_python(venv):
    """The Python executable of a virtual environment (str)."""
    return os.path.join(venv, "Scripts" if os.name == "nt" else "bin", "python")


def source_copy(folder):
    """A copy of the kit's files in ``folder`` (what a fresh clone holds), to build from (str)."""
    shutil.copytree(KIT_ROOT, folder, ignore=COPY_IGNORE)
    return folder


def start(name):
    """Start building the venv ``name`` of ``BUILDS`` in the background (once per session); returns None."""
    global _BASE
    if name in _RUNNING:
        return
    _BASE = _BASE or tempfile.mkdtemp(prefix="kit-venvs-")
    folder = os.path.join(_BASE, name)
    os.makedirs(folder)
    kit = source_copy(os.path.join(folder, "kit"))
    requirements = [item.replace("KIT", kit) for item in BUILDS[name][1]]
    venv = os.path.join(folder, "venv")
    script = ("import subprocess, sys, venv\n"
              f"venv.create({venv!r}, with_pip=True)\n"
              f"sys.exit(subprocess.call([{venv_python(venv)!r}, '-m', 'pip', 'install', '--disable-pip-version-check', "
              f"'-q', *{requirements!r}]))\n")
    log = os.path.join(folder, "build.log")
    with open(log, "w", encoding="utf-8") as handle:
        _RUNNING[name] = (subprocess.Popen([sys.executable, "-c", script], stdout=handle, stderr=subprocess.STDOUT), venv, log)


def start_for(fixture_names):
    """Start the builds that any of ``fixture_names`` (set of str: the selected tests' fixtures) needs."""
    for name, (fixtures, _) in BUILDS.items():
        if set(fixtures) & set(fixture_names):
            start(name)


def built(name, network_errors=(), timeout=1800):
    """Wait for the venv ``name``: ``(its Python, None)``, or ``(None, the reason)`` when pip could not reach the
    package index (one of ``network_errors``, str, in its output), for the caller to skip.

    Raises:
        AssertionError: with pip's output, when the build failed otherwise.
    """
    start(name)
    process, venv, log = _RUNNING[name]
    process.wait(timeout=timeout)
    with open(log, encoding="utf-8", errors="replace") as handle:
        output = handle.read()
    if process.returncode != 0:
        if any(error in output for error in network_errors):
            return None, "pip could not reach the package index: " + output.strip().splitlines()[-1]
        raise AssertionError(f"building the {name} venv failed:\n{output[-3000:]}")
    return venv_python(venv), None


def clean_up():
    """Stop what still builds and remove every venv of the session."""
    for process, _, _ in _RUNNING.values():
        if process.poll() is None:
            process.kill()
            process.wait()
    if _BASE:
        shutil.rmtree(_BASE, ignore_errors=True)
