"""Extraction: turn a submission file (.py or .ipynb) into labelled chunks of code for the worker.

Notebooks are read with nbformat (any version it can upgrade). Like nbgrader's autograder, every
code cell runs, in order, except cells tagged ``grader-skip`` (the kit tags its self-check,
playground and grader cells: they need a kernel and the kit, and prove nothing about the
learner's code). IPython magics and shell escapes cannot run outside a kernel, so those lines are
commented out and reported.
"""

import json
import os
import re
import select
import sys
import time
import warnings
from dataclasses import asdict, dataclass, field

MAX_SUBMISSION_BYTES = 5 * 1024 * 1024  # code and text: a .py file, or a notebook without its outputs
# A notebook file is read at all up to this size, outputs included: outputs are not code, and a correct
# notebook saved with 50 MB of them was refused before (found in a classroom trial).
MAX_NOTEBOOK_FILE_BYTES = 200 * 1024 * 1024
CLEAR_OUTPUTS = "clear its outputs (Edit > Clear Outputs of All Cells in JupyterLab), save, and hand it in again"
LARGE_NOTEBOOK_CHARACTERS = 200_000  # above this, nbformat validates with fastjsonschema (see extract_notebook)


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
    previous = os.environ.get("NBFORMAT_VALIDATOR")
    if len(text) > LARGE_NOTEBOOK_CHARACTERS:
        # jsonschema's validator starts at once but is slow on huge notebooks (a 5 MB notebook of 50,000
        # cells took 23 s); fastjsonschema compiles first (0.03 s), then checks it in about 2 s.
        os.environ["NBFORMAT_VALIDATOR"] = "fastjsonschema"
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # e.g. MissingIDFieldWarning for old notebooks: noise for a learner
            notebook = notebook_reader(text, as_version=4)
    except Exception as exc:  # nbformat raises several types (NotJSONError, ValidationError, KeyError...)
        kind = type(exc).__name__
        raise SubmissionError(f"{os.path.basename(path)} is not a readable Jupyter notebook ({kind}); "
                              "re-download it or save it again from Jupyter.") from None
    finally:
        if previous is None:
            os.environ.pop("NBFORMAT_VALIDATOR", None)
        else:
            os.environ["NBFORMAT_VALIDATOR"] = previous
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
        SubmissionError: the file is missing, unreadable, too large (a .py file over 5 MB; a notebook
            over 200 MB, or over 5 MB of code and text once its outputs are set aside), of another kind,
            or not a notebook when it claims to be one. The message is one sentence saying what to do.
    """
    path = os.fspath(path)
    name = os.path.basename(path)
    if not os.path.exists(path):
        raise SubmissionError(f"{path} does not exist; pass the path of a .py file or .ipynb notebook.")
    if os.path.isdir(path):
        raise SubmissionError(f"{path} is a folder; pass the path of one .py file or .ipynb notebook.")
    if not path.endswith((".py", ".ipynb")):
        raise SubmissionError(f"{name} is neither a .py file nor a .ipynb notebook, so it cannot be graded.")
    if not os.path.isfile(path):
        # A FIFO would block the grader forever and /dev/zero never ends (found by an adversarial test).
        raise SubmissionError(f"{name} is not a regular file (a pipe, device or socket), so it cannot be graded.")
    notebook = path.endswith(".ipynb")
    cap = MAX_NOTEBOOK_FILE_BYTES if notebook else MAX_SUBMISSION_BYTES
    try:
        with open(path, "rb") as handle:
            data = handle.read(cap + 1)  # never more, even if the file grows meanwhile
        size = max(os.path.getsize(path), len(data))
    except OSError as exc:
        raise SubmissionError(f"{path} could not be read ({exc.strerror or type(exc).__name__}).") from None
    if len(data) > cap:
        what = f"notebooks over {cap:,} bytes are not read: {CLEAR_OUTPUTS}" if notebook else \
            f"files over {cap:,} bytes are not graded; remove large pasted data from it"
        raise SubmissionError(f"{name} is {size:,} bytes; {what}.")
    notes = []
    if notebook and len(data) > MAX_SUBMISSION_BYTES:
        data, outputs = without_outputs(data)
        if len(data) > MAX_SUBMISSION_BYTES:
            raise SubmissionError(f"{name} holds {len(data):,} bytes of code and text even without its outputs; "
                                  f"notebooks over {MAX_SUBMISSION_BYTES:,} bytes of code and text are not graded: "
                                  "remove large pasted data from its cells.")
        notes.append(f"Its saved outputs ({outputs:,} bytes) were set aside before grading: outputs are not graded, "
                     f"and the {MAX_SUBMISSION_BYTES:,}-byte limit counts code and text only (to hand in a smaller "
                     "file, clear the outputs and save).")
    text = data.decode("utf-8", errors="replace")
    if notebook:
        submission = extract_notebook(path, text)
        submission.notes[:0] = notes
        return submission
    return Submission(path, chunks=[{"label": name, "kind": "file", "code": text}])


def without_outputs(data):
    """A notebook's bytes without what is not code or text: cell outputs, execution counts, attachments.

    Args:
        data: the notebook file's bytes.
    Returns:
        ``(bytes, removed)``: the notebook as JSON without those (UTF-8), and how many bytes were left out
        (int). Bytes that are not a JSON object come back unchanged (0 removed), for nbformat to refuse
        with its own sentence.
    """
    try:
        notebook = json.loads(data)
    except (ValueError, RecursionError):
        return data, 0
    if not isinstance(notebook, dict) or not isinstance(notebook.get("cells"), list):
        return data, 0
    for cell in notebook["cells"]:
        if isinstance(cell, dict):
            if "outputs" in cell:
                cell["outputs"] = []
            if "execution_count" in cell:
                cell["execution_count"] = None
            cell.pop("attachments", None)
    stripped = json.dumps(notebook, ensure_ascii=False).encode("utf-8", "surrogatepass")
    return stripped, max(len(data) - len(stripped), 0)


# -- reading while the grader does other work ---------------------------------------------------

READ_SECONDS = 30.0  # a 5 MB notebook reads in well under a second; more means something is wrong
READ_MEMORY_BYTES = 2 * 1024 ** 3


def _read_in_child(path, write_fd):
    """In the forked child: extract, send the result as JSON, and end without running any cleanup."""
    status = 0
    try:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (READ_MEMORY_BYTES, READ_MEMORY_BYTES))
        try:
            out = {"submission": asdict(extract(path))}
        except SubmissionError as exc:
            out = {"error": str(exc)}
        data = json.dumps(out).encode("utf-8", "surrogatepass")
        while data:
            data = data[os.write(write_fd, data):]
    except BaseException:  # noqa: BLE001 - whatever happens, the child must not return into the grader
        status = 1
    finally:
        os._exit(status)


class ReadInBackground:
    """Read a notebook in a forked process while this one goes on (for example, importing pytest).

    Reading a notebook first imports nbformat (about 0.08 s); a one-off grading run also imports
    pytest (about 0.06 s). On a machine with two cores the two can happen at once. A forked child
    shares everything this process has imported, so it starts at once; it also keeps a notebook
    that exhausts memory while parsed away from the grader (a 2 GiB address-space limit, 30 s).

    Used only when it can help: a notebook, a platform with ``os.fork``, and nbformat not imported
    yet (a batch process that has read a notebook already reads the next one faster itself).

    Args:
        path: the submission (str or path-like), as for ``extract``.
    Use ``result()`` for the ``Submission``; it raises ``SubmissionError`` as ``extract`` does.
    """

    def __init__(self, path):
        self.path = os.fspath(path)
        self.pid = None
        self.read_fd = None
        if (self.path.endswith(".ipynb") and hasattr(os, "fork") and "nbformat" not in sys.modules
                and os.path.isfile(self.path)):
            read_fd, write_fd = os.pipe()
            try:
                pid = os.fork()
            except OSError:  # no process to spare (a process limit): read it here instead
                os.close(read_fd)
                os.close(write_fd)
                return
            if pid == 0:  # the child never returns from here
                os.close(read_fd)
                _read_in_child(self.path, write_fd)
            os.close(write_fd)
            self.pid, self.read_fd = pid, read_fd

    def result(self):
        """The ``Submission``.

        Raises:
            SubmissionError: as ``extract`` does; or when reading took more than 30 s or the
                reading process ended without a result (one sentence).
        """
        if self.pid is None:
            return extract(self.path)
        name = os.path.basename(self.path)
        chunks, deadline = [], time.monotonic() + READ_SECONDS
        try:
            while True:
                remaining = deadline - time.monotonic()
                if remaining <= 0 or not select.select([self.read_fd], [], [], remaining)[0]:
                    raise SubmissionError(f"Reading {name} took more than {READ_SECONDS:g} s, so it was not graded.")
                data = os.read(self.read_fd, 1 << 20)
                if not data:
                    break
                chunks.append(data)
        finally:
            self.cancel()
        try:
            out = json.loads(b"".join(chunks).decode("utf-8", "surrogatepass"))
        except ValueError:
            out = None
        if not isinstance(out, dict) or not ("error" in out or "submission" in out):
            raise SubmissionError(f"{name} could not be read: reading it ran out of memory or crashed.")
        if "error" in out:
            raise SubmissionError(out["error"])
        data = out["submission"]
        return Submission(self.path, data["chunks"], data["notes"], tuple(data["grade_ids"]))

    def cancel(self):
        """Stop and reap the reading process (if any) and close the pipe; safe to call twice."""
        if self.pid is not None:
            try:
                os.kill(self.pid, 9)
            except ProcessLookupError:
                pass
            os.waitpid(self.pid, 0)
            self.pid = None
        if self.read_fd is not None:
            os.close(self.read_fd)
            self.read_fd = None
