"""Extraction: turn a submission file (.py or .ipynb) into labelled chunks of code for the worker.

Notebooks are read with nbformat (any version it can upgrade). Like nbgrader's autograder, every
code cell runs, in order, except cells tagged ``grader-skip`` (the kit tags its self-check,
playground and grader cells: they need a kernel and the kit, and prove nothing about the
learner's code). A cell with IPython syntax (magics, ``!`` commands) is turned into Python by
IPython's own transformer, as a kernel does (``ipython_to_python``); the worker's ``get_ipython()``
runs what can run outside a kernel. A ``.py`` file is decoded as Python decodes it (a byte-order
mark or a coding cookie decides the encoding).
"""

import ast
import atexit
import contextlib
import io
import json
import os
import select
import sys
import time
import tokenize
import warnings
from dataclasses import asdict, dataclass, field

from grader.isolation.sanitise import clean_text
from grader.translations import N_, say

MAX_SUBMISSION_BYTES = 5 * 1024 * 1024  # code and text: a .py file, or a notebook without its outputs
# A notebook file is read at all up to this size, outputs included: outputs are not code, and a correct
# notebook saved with 50 MB of them was refused before (found in a classroom trial).
MAX_NOTEBOOK_FILE_BYTES = 200 * 1024 * 1024
CLEAR_OUTPUTS = N_("clear its outputs (Edit > Clear Outputs of All Cells in JupyterLab), save, and hand it in again")
LARGE_NOTEBOOK_CHARACTERS = 200_000  # above this, nbformat validates with fastjsonschema (see notebook_validator)


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


# Cell magics whose body is Python that IPython runs in the notebook's namespace (or, for timeit, in a
# throw-away one): their body is turned into Python too, as IPython's own magics do before compiling it.
BODY_MAGICS = frozenset({"time", "capture", "prun", "timeit", "debug"})
_TRANSFORMER = []  # IPython's TransformerManager, imported on first need (about 0.2 s)


def _ipython_transformer():
    """IPython's ``TransformerManager``, or None when IPython is not installed."""
    if not _TRANSFORMER:
        try:
            from IPython.core.inputtransformer2 import TransformerManager
        except ImportError:
            _TRANSFORMER.append(None)
        else:
            _TRANSFORMER.append(TransformerManager())
    return _TRANSFORMER[0]


def is_plain_python(source):
    """True when ``source`` parses as Python, so IPython's transformer would leave its meaning unchanged.

    Every piece of IPython-only syntax (``%magic``, ``%%cell_magic``, ``!shell``, ``x = !cmd``,
    ``obj?``, prompts, a leading indent) is a syntax error in Python, so only cells that fail to
    parse need IPython, and IPython (0.2 s to import) is imported only for them.
    """
    try:
        ast.parse(source)
    except SyntaxError:
        return False
    except (ValueError, RecursionError, MemoryError):  # null bytes, absurd nesting: the worker reports it
        return True
    return True


def _leading_blank_lines(text):
    count = 0
    for line in text.split("\n"):
        if line.strip():
            break
        count += 1
    return count


def _cell_magic_call(code):
    """``(name, line, body)`` when ``code`` is exactly IPython's ``get_ipython().run_cell_magic(...)``, else None."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    if len(tree.body) != 1 or not isinstance(tree.body[0], ast.Expr):
        return None
    call = tree.body[0].value
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "run_cell_magic"
            and isinstance(call.func.value, ast.Call) and getattr(call.func.value.func, "id", None) == "get_ipython"
            and len(call.args) == 3 and not call.keywords
            and all(isinstance(a, ast.Constant) and isinstance(a.value, str) for a in call.args)):
        return None
    return tuple(a.value for a in call.args)


# Characters str.splitlines() breaks lines at besides "\n" and "\r": IPython's transformer splits a cell with
# it, so one of them inside a string would cut the string in two (and the transformer fails on the cell). They
# stand in a cell only inside strings and comments (Python refuses them elsewhere), so they are swapped for
# private-use characters while IPython reads the cell and put back after. The form feed, which Python allows
# as indentation, is left alone.
OTHER_LINE_BREAKS = "\x0b\x1c\x1d\x1e\x85\u2028\u2029"
_PLACEHOLDERS = "".join(chr(0xE000 + number) for number in range(len(OTHER_LINE_BREAKS)))
_PROTECT = str.maketrans(OTHER_LINE_BREAKS, _PLACEHOLDERS)
_RESTORE = str.maketrans(_PLACEHOLDERS, OTHER_LINE_BREAKS)
# A magic's argument comes back as a string literal (IPython writes it with repr), where each stands escaped.
_ESCAPED = [(repr(placeholder)[1:-1], repr(original)[1:-1]) for placeholder, original in zip(_PLACEHOLDERS, OTHER_LINE_BREAKS)]


def _restore(code):
    for escaped, original in _ESCAPED:
        code = code.replace(escaped, original)
    return code.translate(_RESTORE)


def ipython_to_python(source, depth=0):
    """Turn a notebook cell's IPython syntax into Python with IPython's own transformer.

    A cell that is already Python is returned unchanged. Otherwise ``IPython.core.inputtransformer2``
    rewrites it exactly as a Jupyter kernel does before running it (``%time f()`` becomes
    ``get_ipython().run_line_magic('time', 'f()')``, ``!ls`` becomes ``get_ipython().system('ls')``);
    the worker's ``get_ipython()`` then runs what can run outside a kernel (see ``grader.isolation.worker``).
    The body of a cell magic that runs Python (``%%time``, ``%%capture``...) is transformed too, as
    IPython's magics do. Blank lines IPython drops at the top are put back, so line numbers match the cell,
    and a cell is split at newlines only (see ``OTHER_LINE_BREAKS``).

    Args:
        source: a code cell's source (str).
        depth: nesting of cell magics (int; internal).
    Returns:
        ``(code, problem)``: the Python code (str), and a sentence when the cell needed IPython but
        IPython is not installed (else None); the cell is then left as it is.
    """
    if is_plain_python(source):
        return source, None
    transformer = _ipython_transformer()
    if transformer is None:
        return source, (say("IPython is not installed next to the grader, so cells with IPython syntax (% magics, ! "
                            "commands) could not be turned into Python and fail with a syntax error; install IPython "
                            "there."))
    protect = not any(p in source for p in _PLACEHOLDERS) and "\\ue00" not in source.lower()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # IPython warns about lines without line endings: noise for a learner
            code = transformer.transform_cell(source.translate(_PROTECT) if protect else source)
    except Exception:  # noqa: BLE001 - IPython cannot read it either: the worker reports the syntax error
        return source, None
    if protect:
        code = _restore(code)
    magic = _cell_magic_call(code)
    if magic and magic[0] in BODY_MAGICS and depth < 10:
        name, line, body = magic
        body, _ = ipython_to_python(body, depth + 1)
        code = f"get_ipython().run_cell_magic({name!r}, {line!r}, {body!r})\n"
    code = "\n" * max(0, _leading_blank_lines(source) - _leading_blank_lines(code)) + code
    return code, None


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


def notebook_validator(characters):
    """Which of nbformat's validators checks a notebook of ``characters`` (int) characters: ``"jsonschema"`` or
    ``"fastjsonschema"`` (the names ``NBFORMAT_VALIDATOR`` takes).

    jsonschema's validator starts at once and checks the course's notebooks in about 0.02 s, but is slow on huge
    ones (a 5 MB notebook of 50,000 cells took 23 s); fastjsonschema checks that one in about 2 s, but compiles the
    schema first, 0.06 to 0.1 s, which is nbformat's default and was the longest step of reading one notebook in
    a one-off grading (issue 22). So fastjsonschema reads large notebooks, and every notebook in a process that has
    compiled it already (a batch's pool process: ``warm_notebook_validator``); jsonschema reads the rest.
    """
    if characters > LARGE_NOTEBOOK_CHARACTERS:
        return "fastjsonschema"
    validator = sys.modules.get("nbformat.validator")
    compiled = getattr(validator, "validators", {}) if validator is not None else {}
    if any(isinstance(key, tuple) and key and key[0] == "fastjsonschema" for key in compiled):
        return "fastjsonschema"
    return "jsonschema"


def warm_notebook_validator():
    """Compile nbformat's fastjsonschema validator for the current notebook format in this process (about 0.1 s),
    so that every later notebook read here is checked with it (``notebook_validator``). For a process that
    reads many notebooks: a batch's pool process (``grader.classroom.batch.prepare_pool_process``)."""
    read_notebook_text()
    import nbformat.validator

    with _validator_named("fastjsonschema"):
        nbformat.validator.get_validator()


@contextlib.contextmanager
def _validator_named(name):
    """Within the block, nbformat validates with ``name`` (``NBFORMAT_VALIDATOR``); the variable is restored after."""
    previous = os.environ.get("NBFORMAT_VALIDATOR")
    os.environ["NBFORMAT_VALIDATOR"] = name
    try:
        yield
    finally:
        if previous is None:
            os.environ.pop("NBFORMAT_VALIDATOR", None)
        else:
            os.environ["NBFORMAT_VALIDATOR"] = previous


def extract_notebook(path, text):
    """Chunks from a notebook's text (see module docstring for which cells count).

    Raises:
        SubmissionError: the text is not a notebook nbformat can read.
    """
    notebook_reader = read_notebook_text()
    try:
        with _validator_named(notebook_validator(len(text))), warnings.catch_warnings():
            warnings.simplefilter("ignore")  # e.g. MissingIDFieldWarning for old notebooks: noise for a learner
            notebook = notebook_reader(text, as_version=4)
    except Exception as exc:  # nbformat raises several types (NotJSONError, ValidationError, KeyError...)
        kind = type(exc).__name__
        raise SubmissionError(say("{name} is not a readable Jupyter notebook ({kind}); re-download it or save it "
                                  "again from Jupyter.", name=os.path.basename(path), kind=kind)) from None
    submission = Submission(path)
    cells = [c for c in notebook.get("cells", []) if c.get("cell_type") == "code"]
    for number, cell in enumerate(notebook.get("cells", []), start=1):
        if cell.get("cell_type") != "code" or not _graded_cell(cell):
            continue
        source = cell.get("source", "")
        source = "".join(source) if isinstance(source, list) else str(source)
        code, problem = ipython_to_python(source)
        if problem and problem not in submission.notes:
            submission.notes.append(problem)
        meta = cell.get("metadata") if isinstance(cell.get("metadata"), dict) else {}
        grade_id = meta["nbgrader"].get("grade_id") if isinstance(meta.get("nbgrader"), dict) else None
        # A grade_id is the notebook's text, so the submission's: it appears in reports only cleaned and short.
        label = f"cell {number}" + (f" ({clean_text(str(grade_id), 40)})" if grade_id else "")
        submission.chunks.append({"label": label, "kind": "cell", "code": code})
    submission.grade_ids = tuple(
        str(c["metadata"]["nbgrader"].get("grade_id")) for c in cells
        if isinstance(c.get("metadata"), dict) and isinstance(c["metadata"].get("nbgrader"), dict)
        and c["metadata"]["nbgrader"].get("solution"))
    if not submission.chunks:
        submission.notes.append(say("The notebook has no code cells to grade."))
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
        raise SubmissionError(say("{path} does not exist; pass the path of a .py file or .ipynb notebook.", path=path))
    if os.path.isdir(path):
        raise SubmissionError(say("{path} is a folder; pass the path of one .py file or .ipynb notebook.", path=path))
    if not path.endswith((".py", ".ipynb")):
        raise SubmissionError(say("{name} is neither a .py file nor a .ipynb notebook, so it cannot be graded.", name=name))
    if not os.path.isfile(path):
        # A FIFO would block the grader forever and /dev/zero never ends (found by an adversarial test).
        raise SubmissionError(say("{name} is not a regular file (a pipe, device or socket), so it cannot be graded.", name=name))
    notebook = path.endswith(".ipynb")
    cap = MAX_NOTEBOOK_FILE_BYTES if notebook else MAX_SUBMISSION_BYTES
    try:
        with open(path, "rb") as handle:
            data = handle.read(cap + 1)  # never more, even if the file grows meanwhile
        size = max(os.path.getsize(path), len(data))
    except OSError as exc:
        raise SubmissionError(say("{path} could not be read ({reason}).", path=path,
                                  reason=exc.strerror or type(exc).__name__)) from None
    if len(data) > cap:
        what = say("notebooks over {cap:,} bytes are not read: {clear_outputs}", cap=cap, clear_outputs=say(CLEAR_OUTPUTS)) if notebook else \
            say("files over {cap:,} bytes are not graded; remove large pasted data from it", cap=cap)
        raise SubmissionError(say("{name} is {size:,} bytes; {what}.", name=clean_text(name, 200), size=size, what=what))
    notes = []
    if notebook and len(data) > MAX_SUBMISSION_BYTES:
        data, outputs = without_outputs(data)
        if len(data) > MAX_SUBMISSION_BYTES:
            raise SubmissionError(say("{name} holds {size:,} bytes of code and text even without its outputs; "
                                      "notebooks over {limit:,} bytes of code and text are not graded: remove large "
                                      "pasted data from its cells.", name=clean_text(name, 200), size=len(data),
                                      limit=MAX_SUBMISSION_BYTES))
        notes.append(say("Its saved outputs ({outputs:,} bytes) were set aside before grading: outputs are not "
                         "graded, and the {limit:,}-byte limit counts code and text only (to hand in "
                         "a smaller file, clear the outputs and save).", outputs=outputs, limit=MAX_SUBMISSION_BYTES))
    if notebook:
        submission = extract_notebook(path, data.decode("utf-8", errors="replace"))
        submission.notes[:0] = notes
        return submission
    text, notes = decode_source(data, name)
    return Submission(path, chunks=[{"label": clean_text(name, 200), "kind": "file", "code": text}], notes=notes)


def decode_source(data, name):
    """Decode a ``.py`` file's bytes as Python does: a UTF-8 byte-order mark or a PEP 263 coding cookie
    (``# -*- coding: latin-1 -*-``) decides the encoding, else UTF-8 (``tokenize.detect_encoding``).

    Args:
        data: the file's bytes. name: its file name, for messages (str).
    Returns:
        ``(text, notes)``: the source without a byte-order mark (str), and a sentence when some bytes
        were not valid in that encoding and were replaced (Python would refuse such a file).
    Raises:
        SubmissionError: the file names an encoding Python does not know, or has a BOM and another cookie.
    """
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as exc:
        raise SubmissionError(say("{name} cannot be read as Python source ({reason}); save it as UTF-8.",
                                  name=clean_text(name, 200), reason=clean_text(exc.msg, 100))) from None
    try:
        return data.decode(encoding), []
    except UnicodeDecodeError:
        return data.decode(encoding, errors="replace"), [
            say("Some bytes of {name} are not valid {encoding} and were replaced by U+FFFD (Python itself "
                "would refuse the file); save it as UTF-8.", name=clean_text(name, 200), encoding=encoding)]


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


def read_submission(path):
    """The ``Submission`` of ``path`` (str), read as the grader reads it: a notebook in a limited child process
    (``ReadInBackground``), a ``.py`` file here. Raises ``SubmissionError`` as ``extract`` does, or with one
    sentence when reading the notebook ran out of its time or memory."""
    return ReadInBackground(path, ahead=False).result()


def _read_in_child(path, write_fd):
    """In the forked child: extract, send the result as JSON, and end without running any cleanup."""
    status = 0
    try:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (READ_MEMORY_BYTES, READ_MEMORY_BYTES))
        seconds = int(READ_SECONDS) + 1  # CPU as well as the wall clock: a crafted notebook cost 78 s (issue 41)
        resource.setrlimit(resource.RLIMIT_CPU, (seconds, seconds))
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


_AHEAD = {}  # real path -> a ReadInBackground started by ReadInBackground.ahead, not taken over yet


def _identity(path):
    """What says a file is unchanged between two looks at it: (device, inode, size, mtime in ns), or None."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    return (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns)


def _stop_readers_ahead():
    for reader in list(_AHEAD.values()):
        reader.cancel()
    _AHEAD.clear()


class ReadInBackground:
    """Read a notebook in a forked process while this one goes on (for example, importing pytest).

    Reading a notebook first imports nbformat (about 0.08 s); a one-off grading run also imports
    pytest (about 0.06 s). On a machine with two cores the two can happen at once. A forked child
    shares everything this process has imported, so it starts at once; it also keeps a notebook
    that exhausts memory or CPU while parsed away from the grader (a 2 GiB address-space limit, 30 s
    of CPU and of wall clock).

    Used for every notebook where ``os.fork`` exists, nbformat imported or not: a batch's pool
    process read notebooks itself once, and a crafted one cost it 560 MB or 78 s of CPU (issue 41).
    Elsewhere (Windows) the notebook is read in this process.

    Args:
        path: the submission (str or path-like), as for ``extract``.
    Use ``result()`` for the ``Submission``; it raises ``SubmissionError`` as ``extract`` does.
    """

    def __init__(self, path, ahead=True):
        self.path = os.fspath(path)
        self.pid = None
        self.read_fd = None
        self.identity = None
        early = _AHEAD.pop(os.path.realpath(self.path), None) if ahead and _AHEAD else None
        if early is not None:
            if early.identity is not None and early.identity == _identity(self.path):
                self.pid, self.read_fd, self.identity = early.pid, early.read_fd, early.identity
                return
            early.cancel()  # the file changed since: read it again
        if self.path.endswith(".ipynb") and hasattr(os, "fork") and os.path.isfile(self.path):
            self.identity = _identity(self.path)
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
                    raise SubmissionError(say("Reading {name} took more than {seconds:g} s, so it was not graded.",
                                              name=name, seconds=READ_SECONDS))
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
            raise SubmissionError(say("{name} could not be read: reading it ran out of memory or crashed.", name=name))
        if "error" in out:
            raise SubmissionError(out["error"])
        data = out["submission"]
        return Submission(self.path, data["chunks"], data["notes"], tuple(data["grade_ids"]))

    @classmethod
    def ahead(cls, arguments):
        """Start reading the notebook a command line names, before the rest of the command is even imported.

        ``python -m grader notebook.ipynb`` then reads it while it imports its command line and pytest and
        starts the worker: importing nbformat (about 0.15 s) was the longest of those steps and decided when
        the first case could run (issue 22). ``ReadInBackground(path)`` for the same file, unchanged since
        (same inode, size and modification time), takes this reader over; one never taken over is stopped
        when the process ends.

        Args:
            arguments: the command's arguments (list of str): the one that ends in ``.ipynb`` and is not an
                option is read; none, or more than one, reads nothing.
        Returns:
            None.
        """
        named = [a for a in arguments if a.endswith(".ipynb") and not a.startswith("-")]
        if len(named) != 1:
            return
        reader = cls(named[0], ahead=False)
        if reader.pid is not None:
            _AHEAD[os.path.realpath(reader.path)] = reader
            if len(_AHEAD) == 1:
                atexit.register(_stop_readers_ahead)

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
