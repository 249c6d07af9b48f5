"""Extraction: turn a submission file (.py or .ipynb) into labelled chunks of code for the worker.

Notebooks are read with nbformat (any version it can upgrade). Like nbgrader's autograder, every
code cell runs, in order, except cells tagged ``grader-skip`` (the kit tags its self-check,
playground and grader cells: they need a kernel and the kit, and prove nothing about the
learner's code). IPython magics and shell escapes cannot run outside a kernel, so those lines are
commented out and reported.
"""

import os
import re
import sys
import warnings
from dataclasses import dataclass, field

MAX_SUBMISSION_BYTES = 5 * 1024 * 1024


class SubmissionError(Exception):
    """The submission cannot be read at all; ``str(exc)`` is one sentence for the learner."""


@dataclass
class Submission:
    """Learner code ready for the worker.

    Attributes:
        path: the file graded (str).
        chunks: ``[{"label": "cell 4", "kind": "cell", "code": "..."}]`` in file order.
        notes: sentences about what extraction changed or skipped (list of str).
        grade_ids: nbgrader ``grade_id`` of every solution cell, in order (tuple of str).
    """

    path: str
    chunks: list = field(default_factory=list)
    notes: list = field(default_factory=list)
    grade_ids: tuple = ()


# IPython's "files = !ls" and "t = %time f()" assign a magic's result.
SHELL_ASSIGNMENT = re.compile(r"^[\w.\[\], ]+=\s*[!%]")


def neutralise_magics(source):
    """Comment out IPython-only lines so the cell can run as plain Python.

    Args:
        source: a cell's source (str).
    Returns:
        ``(code, changed)``: the code, and the number of lines that were commented out (int). A
        cell magic (``%%bash``...) turns the whole cell into comments.
    """
    lines = source.splitlines()
    if lines and lines[0].lstrip().startswith("%%"):
        return "\n".join("# " + line for line in lines), len(lines)
    changed = 0
    out = []
    for line in lines:
        stripped = line.lstrip()
        if (stripped.startswith(("%", "!")) or SHELL_ASSIGNMENT.match(stripped)
                or (stripped.endswith("?") and stripped[:-1].strip().isidentifier())):
            out.append(line[: len(line) - len(stripped)] + "pass  # " + stripped)
            changed += 1
        else:
            out.append(line)
    return "\n".join(out), changed


SKIP_TAG = "grader-skip"


def _graded_cell(cell):
    meta = cell.get("metadata") if isinstance(cell.get("metadata"), dict) else {}
    tags = meta.get("tags", [])
    return not (isinstance(tags, list) and SKIP_TAG in tags)


# jsonschema (imported by nbformat) imports these optional packages, when installed, to check string
# formats (JupyterLab's dependencies install them). Notebook validation checks no such format, and
# importing them costs about 0.05 s, a tenth of grading; rfc3987_syntax alone builds a grammar for 1 s.
FORMAT_PACKAGES = ("fqdn", "idna", "isoduration", "jsonpointer", "rfc3339_validator", "rfc3986_validator",
                   "rfc3987", "rfc3987_syntax", "uri_template", "webcolors")


def read_notebook_text():
    """``nbformat.reads``, imported without jsonschema's optional format checkers.

    The packages in ``FORMAT_PACKAGES`` are hidden only while nbformat is first imported, and
    only those not imported already; afterwards any other code can import them as usual.
    Returns:
        the ``nbformat.reads`` function.
    """
    if "nbformat" in sys.modules:
        return sys.modules["nbformat"].reads
    hidden = [name for name in FORMAT_PACKAGES if name not in sys.modules]
    for name in hidden:
        sys.modules[name] = None  # "import name" now raises ImportError, which jsonschema expects
    try:
        import nbformat
    finally:
        for name in hidden:
            if sys.modules.get(name, 0) is None:
                del sys.modules[name]
    return nbformat.reads


def extract_notebook(path, text):
    """Chunks from a notebook's text (see module docstring for which cells count).

    Raises:
        SubmissionError: the text is not a notebook nbformat can read.
    """
    notebook_reader = read_notebook_text()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # e.g. MissingIDFieldWarning for old notebooks: noise for a learner
            notebook = notebook_reader(text, as_version=4)
    except Exception as exc:  # nbformat raises several types (NotJSONError, ValidationError, KeyError...)
        kind = type(exc).__name__
        raise SubmissionError(f"{os.path.basename(path)} is not a readable Jupyter notebook ({kind}); "
                              "re-download it or save it again from Jupyter.") from None
    submission = Submission(path)
    cells = [c for c in notebook.get("cells", []) if c.get("cell_type") == "code"]
    magic_lines = 0
    for number, cell in enumerate(notebook.get("cells", []), start=1):
        if cell.get("cell_type") != "code" or not _graded_cell(cell):
            continue
        source = cell.get("source", "")
        source = "".join(source) if isinstance(source, list) else str(source)
        code, changed = neutralise_magics(source)
        magic_lines += changed
        meta = cell.get("metadata") if isinstance(cell.get("metadata"), dict) else {}
        grade_id = meta["nbgrader"].get("grade_id") if isinstance(meta.get("nbgrader"), dict) else None
        label = f"cell {number}" + (f" ({grade_id})" if grade_id else "")
        submission.chunks.append({"label": label, "kind": "cell", "code": code})
    submission.grade_ids = tuple(
        str(c["metadata"]["nbgrader"].get("grade_id")) for c in cells
        if isinstance(c.get("metadata"), dict) and isinstance(c["metadata"].get("nbgrader"), dict)
        and c["metadata"]["nbgrader"].get("solution"))
    if magic_lines:
        submission.notes.append(f"{magic_lines} line(s) of IPython magics or shell escapes (% or !) were skipped: "
                                "they only work inside Jupyter.")
    if not submission.chunks:
        submission.notes.append("The notebook has no code cells to grade.")
    return submission


def extract(path):
    """Read a submission and return its code as chunks.

    Args:
        path: a ``.py`` file or a ``.ipynb`` notebook (str or path-like).
    Returns:
        ``Submission``.
    Raises:
        SubmissionError: the file is missing, unreadable, too large (over 5 MB), of another
            kind, or not a notebook when it claims to be one. The message is one sentence.
    """
    path = os.fspath(path)
    name = os.path.basename(path)
    if not os.path.exists(path):
        raise SubmissionError(f"{path} does not exist; pass the path of a .py file or .ipynb notebook.")
    if os.path.isdir(path):
        raise SubmissionError(f"{path} is a folder; pass the path of one .py file or .ipynb notebook.")
    if not path.endswith((".py", ".ipynb")):
        raise SubmissionError(f"{name} is neither a .py file nor a .ipynb notebook, so it cannot be graded.")
    try:
        size = os.path.getsize(path)
        if size > MAX_SUBMISSION_BYTES:
            raise SubmissionError(f"{name} is {size:,} bytes; submissions over {MAX_SUBMISSION_BYTES:,} bytes are not graded.")
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as exc:
        raise SubmissionError(f"{path} could not be read ({exc.strerror or type(exc).__name__}).") from None
    text = data.decode("utf-8", errors="replace")
    if path.endswith(".ipynb"):
        return extract_notebook(path, text)
    return Submission(path, chunks=[{"label": name, "kind": "file", "code": text}])

