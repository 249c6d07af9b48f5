"""Which grader produced a result (the kit's version and a fingerprint of its files), and the kit's licenses.

Every result carries both: results.json's top-level ``extra_data`` (Gradescope's place for data of the
autograder's own), JUnit's ``<properties>``, the batch's per-student results and the gradebook's
``grader`` column. The version names a release (CHANGELOG.md says what changed, scores included); the
fingerprint tells apart two copies of one version whose grader differs (a case an instructor added,
a local edit), which the version alone cannot.

The kit's requirement ranges are read here too (``pinned``): what the student release and the Gradescope bundle
install comes from the same ranges as the README's set-up and ``pip install``.
"""

import functools
import hashlib
import os
import re

from grader import __version__
from grader.paths import GRADER_DIR, LICENSE_PATHS, REQUIREMENTS_PATH

DISTRIBUTION = "tool-call-kit"  # the name pyproject.toml gives the installable package
# The code is MIT-licensed, the course text CC BY 4.0 (docs/instructors.md says why and what is which).
LICENSE_FILES = tuple(LICENSE_PATHS)


# What grading needs, by name: pyproject.toml's dependencies, and what the Gradescope bundle installs
# (tests/test_packaging.py keeps the three equal).
GRADING_PACKAGES = ("nbformat", "ipython", "pytest", "tqdm", "psutil")


def requirement_lines():
    """The kit's requirement lines (list of str): requirements.txt in a clone, the distribution's metadata (its
    dependencies and extras, markers cut off) when installed."""
    try:
        with open(REQUIREMENTS_PATH, encoding="utf-8") as handle:
            return handle.read().splitlines()
    except OSError:
        from importlib import metadata

        return [requirement.split(";")[0].replace(" ", "") for requirement in metadata.requires(DISTRIBUTION) or []]


def pinned(names):
    """The kit's requirement line of each package in ``names``, in that order, with its range (list of str).

    Raises:
        LookupError: a package has no line (the requirement files and this list disagree).
    """
    lines = {}
    for line in requirement_lines():
        line = line.split("#")[0].strip()
        if line and not line.startswith("-"):
            lines[re.split(r"[<>=!~\[ ;]", line, maxsplit=1)[0].lower()] = line
    missing = [name for name in names if name not in lines]
    if missing:
        raise LookupError(f"the kit's requirements name no range for {', '.join(missing)}")
    return [lines[name] for name in names]


def version_line():
    """What ``--version`` prints, e.g. ``"tool-call-kit <version>"`` (str)."""
    return f"{DISTRIBUTION} {__version__}"


@functools.lru_cache(maxsize=None)
def code_fingerprint(folder=GRADER_DIR):
    """The grader's fingerprint in every result: a digest of what grades, every file's path and bytes under
    ``folder`` (its modules, cases and course metadata), bytecode caches left out.

    Unlike ``grader.pipeline.folder_state_digest`` (which also covers caches, permissions and owners, to notice
    a submission touching anything while it runs), this one changes only when what grades changes: a
    case, a module, the course metadata. Computed once per process (about 6 ms).

    Args:
        folder: the grader's folder (str).
    Returns:
        str: the first 16 hex digits of a SHA-256.
    """
    digest = hashlib.sha256()
    for base, folders, names in os.walk(folder):
        folders[:] = sorted(f for f in folders if f != "__pycache__")
        for name in sorted(names):
            if name.endswith((".pyc", ".pyo")):
                continue
            path = os.path.join(base, name)
            try:
                with open(path, "rb") as handle:
                    data = handle.read()
            except OSError:  # a file that vanished or cannot be read changes the digest by its absence
                continue
            relative = os.path.relpath(path, folder).replace(os.sep, "/")
            digest.update(f"{relative}\0{len(data)}\0".encode("utf-8", "surrogateescape") + data)
    return digest.hexdigest()[:16]


def provenance():
    """``{"grader_version": "<version>", "grader_fingerprint": "<16 hex digits>"}`` for a result (dict)."""
    return {"grader_version": __version__, "grader_fingerprint": code_fingerprint()}


def license_texts():
    """The kit's license files as ``{file name: text}``, for a student release or an autograder bundle.

    Read from the repository's root in a clone, or from the installed distribution's metadata after
    ``pip install`` (where the root is site-packages).
    Returns:
        dict; a file that cannot be found is missing from it (the caller says so).
    """
    texts = {}
    for name in LICENSE_FILES:
        try:
            with open(LICENSE_PATHS[name], encoding="utf-8") as handle:
                texts[name] = handle.read()
        except OSError:
            pass
    if len(texts) < len(LICENSE_FILES):
        from importlib import metadata

        try:
            files = metadata.distribution(DISTRIBUTION).files or []
        except metadata.PackageNotFoundError:
            files = []
        for entry in files:
            if entry.name in LICENSE_FILES and entry.name not in texts:
                texts[entry.name] = entry.read_text(encoding="utf-8")
    return texts
