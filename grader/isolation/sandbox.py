"""Isolated execution: run a submission in a worker process with limits, and talk to it safely.

The grader's own process never imports or executes submission code. ``Sandbox`` starts
``grader/isolation/worker.py`` in a process of its own, in a scratch directory, with stdin closed, and speaks the
worker protocol with it (``load``, then per case ``case`` and the requests it answers). A case that hangs, floods,
fills its scratch folder or kills the worker costs that case: the worker, and every process below it, is killed
and restarted for the next one. The grader uses one ``Sandbox`` per exercise. This follows Gradescope's published
best practice (run student code in a subprocess); what it does not guarantee is documented in
docs/threat-model.md.

Two transports carry the same protocol (``grader.isolation.transport_portable.portable_worker`` picks one):

- ``grader.isolation.transport_posix`` (Linux, macOS): two inherited pipes read with ``select``, the resource
  limits and kernel rules (``grader.isolation.kernel_rules``) applied between fork and exec, the process group
  killed with ``os.killpg``;
- ``grader.isolation.transport_portable`` (Windows, or forced with ``KIT_PORTABLE_WORKER=1``): the worker's
  stdin/stdout read and written by two threads of the grader, the process tree killed with psutil, memory and
  output watched from the grader (``Sandbox._watch``), and on Linux the same kernel rules applied at start.

``grader.isolation.protections`` says which protections hold with the transport in use.
"""

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import weakref
from dataclasses import dataclass, field

from grader.isolation import kernel_rules
from grader.isolation.deadlines import Deadline, run_queue_wait
from grader.isolation.limits import Limits
from grader.isolation.processes import memory_used
from grader.isolation.sanitise import clean_text
from grader.isolation.transport_portable import PortableTransport, portable_worker
from grader.isolation.transport_posix import PosixTransport
from grader.isolation.worker import MAX_SCRATCH_ENTRIES
from grader.paths import WORKER_PATH
from grader.translations import N_, _, say

FLOODED = N_("(the submission printed more than {mb} MB in one case; the rest of its output was dropped)")
"""The line that starts a case's printed text when the submission printed past the limit (its output was cut)."""

with open(WORKER_PATH, encoding="utf-8") as _handle:
    # Run as ``python -c``: sys.argv[0] then names no file inside the kit.
    WORKER_SOURCE = _handle.read()
# Every Sandbox of this process, and whether grading was stopped (``stop_all_workers``): a batch's grader
# process stops at once on SIGINT/SIGTERM, with no worker left running and none started after.
_LIVE = weakref.WeakSet()
_STOPPED = []
MAX_MESSAGE_BYTES = 4 * 1024 * 1024  # the largest case sends about 1 MB; more only slows the grader
HALT_GRACE = 5  # requests answered with "halt" before a submission that catches the halt is killed
# How long the worker may take to start (a fresh interpreter, the guard, reading the code) before the load limit
# starts counting (s). Generous: only a machine at a standstill needs more.
STARTUP_SECONDS = 60.0
WATCH_SECONDS = 0.05  # a watched worker's memory and output are checked this often while waiting (``_watch``)
OUTPUT_SLACK = 1024 * 1024  # bytes past the output limit (written around the worker's own cap) before a kill


LONG_TEXT = 1 << 16  # characters: a string this long goes to the worker as bytes after its message (frame_message)


def _long_text_places(message):
    """Where ``message`` may hold a long string: a reply's value, and each argument of a case's invocations.

    Those are where the 1 MB cases put their raw calls (the call, then the model's retry). A fixed list of places
    keeps the search cheap for the 350 messages of a grading; a long string elsewhere is simply left in the JSON.
    Returns a list of paths (lists of keys and indexes).
    """
    places = []
    if type(message.get("value")) is str and len(message["value"]) >= LONG_TEXT:
        places.append(["value"])
    invocations = message.get("invocations")
    if type(invocations) is list:
        for i, invocation in enumerate(invocations):
            if type(invocation) is list:
                places += [["invocations", i, j] for j, arg in enumerate(invocation)
                           if type(arg) is str and len(arg) >= LONG_TEXT]
    return places


def frame_message(message):
    """The bytes that carry one message (a dict of JSON data) to the worker (``grader.isolation.worker.Channel``).

    One line of JSON, then the UTF-8 bytes of each long string the line leaves out: the line holds ``""`` in
    its place and lists ``"texts": [[path, byte count], ...]``, and the worker reads those bytes and puts the
    strings back. Escaping a 1 MB string into JSON and parsing it back cost about 6 ms each way, and the 1 MB
    cases send their call twice (the call and the model's retry): about a tenth of grading the solved capstone
    (issue 22). UTF-8 rather than ``\\u`` escapes in the line too, the non-ASCII text a third faster; JSON
    escapes every newline inside a string, so the line ends at the first one. ``surrogatepass`` on both sides:
    a lone surrogate a case sends arrives as it was sent.

    Returns:
        bytes. ``message`` itself is not changed.
    """
    places = _long_text_places(message)
    if not places:
        return (json.dumps(message, ensure_ascii=False) + "\n").encode("utf-8", "surrogatepass")
    line = dict(message)
    if "invocations" in line:
        line["invocations"] = [list(invocation) for invocation in line["invocations"]]
    blobs, texts = [], []
    for path in places:
        holder = line
        for key in path[:-1]:
            holder = holder[key]
        blob = holder[path[-1]].encode("utf-8", "surrogatepass")
        holder[path[-1]] = ""
        blobs.append(blob)
        texts.append([path, len(blob)])
    line["texts"] = texts
    return b"".join([(json.dumps(line, ensure_ascii=False) + "\n").encode("utf-8", "surrogatepass"), *blobs])


def worker_environment(scratch):
    """The worker's environment variables (dict): nothing of the grader's, a UTF-8 locale, and the scratch
    folder as home and temporary folder. On Windows, ``SYSTEMROOT`` too (Python needs it to start)."""
    env = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "PYTHONIOENCODING": "utf-8", "HOME": scratch,
           "TMPDIR": scratch}  # tempfile then writes where the worker may write
    if os.name == "nt":
        root = os.environ.get("SYSTEMROOT", r"C:\Windows")
        env.update({"SYSTEMROOT": root, "PATH": os.path.join(root, "System32"), "TEMP": scratch, "TMP": scratch,
                    "USERPROFILE": scratch})
    return env


_DIRECTORY_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)


def remove_tree(path):
    """Remove the folder ``path`` (str) and everything in it, however deep or wide; return whether it is gone (bool).

    Never raises. shutil.rmtree recurses once per folder on Python 3.11 and 3.12: a submission's native code made
    994 nested folders (fewer entries than the scratch bound), rmtree's RecursionError got past ``ignore_errors``,
    the grader died with a traceback and the scratch folder stayed in /tmp with every input in it (issue 40's
    attacker trial). This walks with one open folder at a time, by descriptor (never following a link), climbs
    back by ``..`` and stops if that is not the folder it came from. Each folder is read once, its subfolders'
    names kept: reading a parent again after each climb made 8000 sibling folders take 23 s (quadratic), so a
    submission that made many could have held the grader for hours. What cannot be removed is left, and the
    answer is False. Where descriptors cannot name folders (Windows), rmtree does the work and a RecursionError
    counts as failure.
    """
    if os.open not in os.supports_dir_fd or os.scandir not in os.supports_fd:
        try:
            shutil.rmtree(path, ignore_errors=True)
        except RecursionError:
            pass
        return not os.path.lexists(path)
    try:
        fd = _open_folder(path, None)  # the scratch folder itself may have been made 0o000 too
    except FileNotFoundError:
        return True
    except OSError:
        return False
    above = []  # per level climbed down: (the parent's folders still to do, the name taken, the parent's identity)
    try:
        here, todo = os.fstat(fd), _unlink_files(fd)
        while True:
            if todo:
                name = todo.pop()
                try:
                    inner = _open_folder(name, fd)
                except OSError:
                    continue  # it stays, and so does every folder above it
                above.append((todo, name, (here.st_dev, here.st_ino)))
                os.close(fd)
                fd = inner
                here, todo = os.fstat(fd), _unlink_files(fd)
                continue
            if not above:
                break
            todo, name, parent = above.pop()
            outer = os.open("..", _DIRECTORY_FLAGS, dir_fd=fd)
            os.close(fd)
            fd = outer
            here = os.fstat(fd)
            if (here.st_dev, here.st_ino) != parent:
                return False  # the tree moved under it: stop rather than remove what is not the scratch folder's
            try:
                os.rmdir(name, dir_fd=fd)
            except OSError:
                pass  # not empty: the last rmdir fails and says so
    except OSError:
        return False
    finally:
        os.close(fd)
    try:
        os.rmdir(path)
    except FileNotFoundError:
        pass
    except OSError:
        return False
    return True


def _open_folder(name, parent):
    """Open the folder ``name`` (str) in the folder open as ``parent`` (int, or None: ``name`` is a path) for
    ``remove_tree``; return its
    descriptor (int), its owner's read, write and search bits given back first where they are missing (a
    folder made 0o300 or 0o500 cannot be listed or emptied by its owner, and a grader that is not root is its
    owner). Raises OSError when it cannot."""
    if os.stat(name, dir_fd=parent, follow_symlinks=False).st_mode & 0o700 != 0o700:
        os.chmod(name, 0o700, dir_fd=parent)  # a folder (its entry said so) of a worker that has ended
    return os.open(name, _DIRECTORY_FLAGS, dir_fd=parent)


def _unlink_files(fd):
    """Unlink everything but folders in the folder open as ``fd`` (int); return its subfolders' names (list of str).

    Links are unlinked, never followed; an entry that cannot be unlinked or read is skipped (it stays)."""
    folders = []
    with os.scandir(fd) as entries:
        for entry in entries:
            try:
                if entry.is_dir(follow_symlinks=False):
                    folders.append(entry.name)
                else:
                    os.unlink(entry.name, dir_fd=fd)
            except OSError:
                continue
    return folders


@dataclass
class LoadReport:
    """What loading the submission told us.

    Attributes:
        problems: one sentence per chunk that failed to compile or raised while loading (list of str).
        entries: per requested function name, ``{"state": "ok"|"missing"|"not callable", "bound": [...],
            "aliased": [[global, alias], ...]}`` (``grader.isolation.worker.aliased_globals``).
        fatal: a sentence when the worker could not load at all (exited, timed out), else None.
        output: what the submission printed while loading (str, capped).
        skipped: IPython commands that could not run while grading, e.g. ``["!pip", "%%bash"]`` (list of str).
        waited: seconds the worker sat ready to run but waiting for a CPU from its start until it had loaded
            (float; ``grader.isolation.deadlines.run_queue_wait``): the machine's time, given back to the budget.
    """

    problems: list = field(default_factory=list)
    entries: dict = field(default_factory=dict)
    fatal: str | None = None
    output: str = ""
    skipped: list = field(default_factory=list)
    waited: float = 0.0


@dataclass
class CaseOutcome:
    """The raw outcome of one case, before any judging.

    Attributes:
        results: one dict per invocation that finished: ``{"result": {"plain": v}|{"unplain": what}}``
            or ``{"raised": "ValueError: ...", "where": "cell 3, line 4"}``.
        problem: a sentence when the case did not finish (timeout, crash, flood), else None.
        output: what the submission printed during the case, capped (str).
        stopped: why the case was cut short: ``"timeout"``, ``"crash"``, ``"limit"``, ``"unbounded"`` (a call made
            more requests than allowed and was halted), ``"unstoppable"`` (it kept asking after the grader's halt, so
            the worker was killed), or None.
        busy: the case timed out at its backstop while the worker was still owed CPU time and kept waiting
            (``grader.isolation.deadlines.Deadline.busy``): the machine, not the submission, used the time, so the
            harness runs the case again before it counts (bool).
        waited: seconds the worker sat ready to run but waiting for a CPU during the case (float; 0.0 where the
            kernel keeps no count or the worker ended): the submission's time budget gives them back
            (``grader.isolation.deadlines.Budget``).
    """

    results: list = field(default_factory=list)
    problem: str | None = None
    output: str = ""
    stopped: str | None = None
    busy: bool = False
    waited: float = 0.0


def stop_all_workers():
    """Kill the worker (with its process group) of every Sandbox in this process, and start no new one.

    For a signal handler (the batch's grader processes on SIGINT/SIGTERM): it only reads ``/proc``, sends
    signals and sets a flag, touching no file descriptor the interrupted code may be using. The cases still running then
    fail at once, as the worker is gone; such a result is never stored (``grader.classroom.batch``).
    """
    _STOPPED.append(True)
    for sandbox in list(_LIVE):
        process = sandbox.process
        if process is not None:
            sandbox.transport.stop(process)


class _Stop(Exception):
    """The case cannot go on; ``args[0]`` is the sentence for the learner, ``args[1]`` the kind:
    ``"timeout"``, ``"crash"`` (the worker died or broke the protocol), ``"limit"`` (stopped by a bound),
    ``"unbounded"`` (a call halted for making too many requests) or ``"unstoppable"`` (it swallowed the halt after a
    bound, and was killed)."""


# The worker's loading sentences (``grader.isolation.worker.Loader.load``), which it writes in English: it imports
# nothing of the grader. They are put into the learner's language here, on the trusted side, from their parts; a
# sentence of another shape is kept as it came.
_SYNTAX = re.compile(r"(?P<label>.+?) has a syntax error(?: on line (?P<line>\d+))? \((?P<reason>.*)\); that "
                     r"(?P<kind>cell|file) was skipped\.", re.DOTALL)
_EXIT = re.compile(r"(?P<label>.+?) called sys\.exit\((?P<code>.*)\) while loading; the rest of it was skipped\.",
                   re.DOTALL)
_RAISED = re.compile(r"(?P<where>.+?) raised (?P<error>.*?)(?P<hint> \(input\(\) gets no answer while grading\)| "
                     r"\(the grader runs cells without a Jupyter kernel: [^()]*\)| \(the grader runs submissions with "
                     r"Python's standard library only: [^()]*\))? while loading; the rest of that (?P<kind>cell|file) "
                     r"was skipped\.", re.DOTALL)
_HINTS = {" (input() gets no answer while grading)": N_(" (input() gets no answer while grading)"),
          "kernel": N_(" (the grader runs cells without a Jupyter kernel: of IPython it has display, clear_output, the "
                       "display classes such as Markdown and HTML, and get_ipython; other parts need a kernel)"),
          "standard": N_(" (the grader runs submissions with Python's standard library only: third-party packages are "
                         "not installed there)")}


def translated_place(label):
    """A chunk's label or a place in it (``cell 3 (parse-call)``, ``cell 3, line 7``, ``file.py, line 2``) in the
    learner's language (str): the kit's words translated, the names kept."""
    label = re.sub(r"^cell (\d+)", lambda m: say("cell {number}", number=m.group(1)), label)
    return re.sub(r", line (\d+)$", lambda m: say(", line {number}", number=m.group(1)), label)


def translated_problem(text):
    """One of the worker's loading sentences in the learner's language (str); as it came when it is not one of the
    three it writes (a syntax error, ``sys.exit``, an exception while loading)."""
    found = _SYNTAX.fullmatch(text)
    if found:
        cell = found["kind"] == "cell"
        if found["line"]:
            template = (N_("{where} has a syntax error on line {line} ({reason}); that cell was skipped.") if cell else
                        N_("{where} has a syntax error on line {line} ({reason}); that file was skipped."))
        else:
            template = (N_("{where} has a syntax error ({reason}); that cell was skipped.") if cell else
                        N_("{where} has a syntax error ({reason}); that file was skipped."))
        return say(template, where=translated_place(found["label"]), line=found["line"], reason=found["reason"])
    found = _EXIT.fullmatch(text)
    if found:
        return say("{where} called sys.exit({code}) while loading; the rest of it was skipped.",
                   where=translated_place(found["label"]), code=found["code"])
    found = _RAISED.fullmatch(text)
    if found:
        hint = found["hint"] or ""
        key = hint if hint in _HINTS else "kernel" if "Jupyter kernel" in hint else "standard" if hint else None
        template = (N_("{where} raised {error}{hint} while loading; the rest of that cell was skipped.")
                    if found["kind"] == "cell" else
                    N_("{where} raised {error}{hint} while loading; the rest of that file was skipped."))
        return say(template, where=translated_place(found["where"]), error=found["error"], hint=_(_HINTS[key]) if key else "")
    return text


def checked_load_report(message, entries):
    """A ``LoadReport`` built only from well-typed, bounded parts of the worker's ``loaded`` message; its problem
    sentences in the learner's language (``translated_problem``)."""
    problems = message.get("problems")
    problems = [translated_problem(clean_text(p)) for p in problems[:20]] if isinstance(problems, list) else []
    raw_entries = message.get("entries") if isinstance(message.get("entries"), dict) else {}
    checked = {}
    for name in entries:
        entry = raw_entries.get(name) if isinstance(raw_entries.get(name), dict) else {}
        state = entry.get("state") if entry.get("state") in ("ok", "missing", "not callable") else "missing"
        bound = entry.get("bound") if isinstance(entry.get("bound"), list) else []
        aliased = entry.get("aliased") if isinstance(entry.get("aliased"), list) else []
        checked[name] = {"state": state, "bound": [b for b in bound if b in ("TOOLS", "dispatch")],
                         "aliased": [pair for pair in aliased[:4] if isinstance(pair, list) and len(pair) == 2
                                     and pair[0] in ("TOOLS", "dispatch") and isinstance(pair[1], str)
                                     and pair[1].isidentifier() and len(pair[1]) <= 40]}
    skipped = message.get("skipped") if isinstance(message.get("skipped"), list) else []
    return LoadReport(problems=problems, entries=checked,
                      skipped=list(dict.fromkeys(clean_text(s, 40) for s in skipped[:20] if isinstance(s, str))))


# NTSTATUS codes a crashed process exits with on Windows (ntstatus.h): its counterparts of SIGSEGV.
WINDOWS_CRASHES = {0xC0000005: N_("crashed with a segmentation fault"), 0xC00000FD: N_("crashed with a stack overflow")}


def describe_exit(returncode, limits, hidden=False):
    """One sentence for how a worker process ended.

    Args:
        returncode: ``Popen.returncode`` (negative: killed by that signal).
        limits: the ``Limits`` in force, to name the bound that was hit.
        hidden: in a hidden case, an exit status or a signal of the submission's choosing could spell
            out the case's input, so only the kind of ending is named (bool).
    Returns:
        ``Said`` in the learner's language (what the submission did: a verb phrase), e.g. ``"crashed with a
        segmentation fault"``.
    """
    if returncode is None:
        return say("stopped responding")
    if returncode in WINDOWS_CRASHES:  # Windows reports a crash as an NTSTATUS exit code, not a signal
        return say(WINDOWS_CRASHES[returncode])
    if returncode >= 0:
        return say("exited (its status is not shown in a hidden case)") if hidden \
            else say("exited with status {status}", status=returncode)
    number = -returncode
    if number == signal.SIGSEGV:
        return say("crashed with a segmentation fault")
    if number == getattr(signal, "SIGXCPU", None):
        return say("used more than {seconds} s of CPU time and was stopped", seconds=limits.cpu_seconds)
    if number == getattr(signal, "SIGKILL", None):
        return say("was killed (it may have run out of memory)")
    if hidden:
        return say("was ended by a signal (which one is not shown in a hidden case)")
    try:
        name = signal.Signals(number).name
    except ValueError:
        name = f"signal {number}"
    return say("was ended by {signal}", signal=name)


class Sandbox:
    """One submission's worker process, restarted as needed, and the protocol to talk to it.

    Args:
        limits: a ``Limits`` (defaults when None).
        portable: use the portable transport (bool), or None for ``portable_worker()``.

    Use ``start()`` as early as possible (the worker boots while the grader reads the submission
    and imports pytest), ``begin_load(chunks, entries)`` once the code is known, ``load()`` when the
    first case needs it, then ``run(...)`` per case, then ``close()``. Never raises for anything the
    submission does; problems come back as sentences.
    """

    def __init__(self, limits=None, portable=None):
        self.portable = portable_worker() if portable is None else portable
        # Where RLIMIT_AS does not hold (the portable transport; macOS does not enforce it), the grader watches.
        self.watched = self.portable or not sys.platform.startswith("linux")
        self.chunks = []
        self.entries = []
        self.limits = limits or Limits()
        self.scratch = tempfile.mkdtemp(prefix="kit-grade-")
        self.output_path = os.path.join(self.scratch, ".output")
        self.process = None
        self.buffer = b""
        self.output_fd = None
        self.load_report = None
        self.load_deadline = None  # set while a load message is sent and its answer not yet read
        self.hidden = False  # while a hidden case runs: sentences about the worker name no number it chose
        # The channel to the worker: grader.isolation.transport_posix or grader.isolation.transport_portable.
        self.transport = PortableTransport(self.scratch) if self.portable else PosixTransport(self.scratch)
        kernel_rules.hide_memory()  # before any worker runs: none may read this process's memory (issue 41)
        _LIVE.add(self)

    # -- process management -------------------------------------------------------------------

    def _spawn(self):
        if _STOPPED:
            raise OSError("grading was stopped")
        if self.output_fd is None:
            flags = os.O_RDWR | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0)
            self.output_fd = os.open(self.output_path, flags, 0o600)
        self.process = self.transport.start(WORKER_SOURCE, self.scratch, self.output_fd, self.limits,
                                            worker_environment(self.scratch))
        self.buffer = b""

    def _kill(self):
        if self.process is None:
            return None
        self.transport.kill(self.process)
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:  # pragma: no cover - SIGKILL should not be ignored
            pass
        code = self.process.returncode
        self.transport.close()
        self.process = None
        return code

    def close(self):
        """Stop the worker (and its process group) and remove the scratch directory."""
        self._kill()
        if self.output_fd is not None:
            os.close(self.output_fd)
            self.output_fd = None
        if not remove_tree(self.scratch):
            sys.stderr.write(f"The grader could not remove its scratch folder {self.scratch}; remove it by hand.\n")

    # -- messages ------------------------------------------------------------------------------

    def _send(self, message, deadline, what):
        """Write one message, waiting at most until ``deadline`` (``Deadline``) for the worker to read it."""
        data = memoryview(frame_message(message))
        try:
            written = self.transport.send(data, deadline)
        except BrokenPipeError:
            raise _Stop(self._ended(), "crash")
        if not written:
            self._kill()
            raise _Stop(f"timed out after {what}", "timeout")

    def _ended(self):
        """Reap a worker that stopped talking and describe how it ended."""
        try:
            self.process.wait(timeout=1)
        except subprocess.TimeoutExpired:
            pass
        code = self.process.returncode
        self._kill()
        return describe_exit(code, self.limits, self.hidden)

    def _next_chunk(self, remaining):
        """The next bytes the worker wrote (b"" at its end), or None when none came within ``remaining`` s."""
        data = self.transport.next_chunk(min(remaining, WATCH_SECONDS) if self.watched else remaining)
        if self.watched:
            self._watch()
        return data

    def _watch(self):
        """The limits the kernel does not hold for a watched worker (the portable transport; macOS, where
        ``RLIMIT_AS`` is not enforced), checked from the grader: the worker's memory and its output file."""
        if memory_used(self.process.pid) > self.limits.memory_mb * 1024 * 1024:
            self._kill()
            raise _Stop(say("ran out of memory (it used more than {mb} MB, the grader's limit) and was stopped",
                            mb=self.limits.memory_mb), "limit")
        try:
            size = os.fstat(self.output_fd).st_size
        except OSError:
            return
        if size > self.limits.output_bytes + OUTPUT_SLACK:
            self._kill()
            raise _Stop(say("printed more than {mb} MB in one case and was stopped",
                            mb=self.limits.output_bytes // (1024 * 1024)), "limit")

    def _receive(self, deadline, what):
        while b"\n" not in self.buffer:
            # Read before judging the time: a grader kept off the CPU past the end may find the answer waiting.
            data = self._next_chunk(deadline.remaining())
            if data is None:
                if deadline.passed():
                    self._kill()
                    raise _Stop(say("timed out after {what}", what=what), "timeout")
                continue
            if not data:
                raise _Stop(self._ended(), "crash")
            self.buffer += data
            if len(self.buffer) > MAX_MESSAGE_BYTES:
                self._kill()
                raise _Stop(say("sent a value larger than {mb} MB back to the grader",
                                mb=MAX_MESSAGE_BYTES // (1024 * 1024)), "limit")
        line, _newline, self.buffer = self.buffer.partition(b"\n")
        try:
            message = json.loads(line.decode("utf-8", "surrogatepass"))
        except (ValueError, RecursionError):  # RecursionError: deeply nested garbage
            message = None
        if not isinstance(message, dict) or not isinstance(message.get("op"), str):
            # Only learner code writing into the grader's pipe can produce this.
            self._kill()
            raise _Stop(say("wrote garbage into the grader's channel"), "crash")
        return message

    def _read_output(self, limit=4000):
        # Read through the grader's own descriptor: the submission may delete or replace the file
        # (with a FIFO, say), but it cannot change what this descriptor points at.
        try:
            size = os.fstat(self.output_fd).st_size
            if hasattr(os, "pread"):
                data = os.pread(self.output_fd, limit + 1, 0)
            else:  # Windows: the worker's handle appends, so moving this one's position is harmless
                os.lseek(self.output_fd, 0, os.SEEK_SET)
                data = os.read(self.output_fd, limit + 1)
            # Start each case with an empty file: the size limit then bounds one case's output, and
            # the worker's O_APPEND handle keeps writing at the new end.
            os.ftruncate(self.output_fd, 0)
        except (OSError, TypeError):
            return ""
        text = clean_text(data[:limit].decode("utf-8", "replace"), limit)
        if len(data) > limit:
            text += "\n… " + say("(output truncated: only the first {limit} bytes are kept)", limit=limit)
        if size >= self.limits.output_bytes:
            # First, so that no later cut hides it.
            text = say(FLOODED, mb=self.limits.output_bytes // (1024 * 1024)) + "\n" + text
        return text

    # -- public API ----------------------------------------------------------------------------

    def start(self):
        """Start the worker process now, if none is running; it waits for ``begin_load``.

        Starting a Python process takes tens of milliseconds; started first, it overlaps with the
        grader's own work instead of adding to it.
        """
        if self.process is None and not (self.load_report is not None and self.load_report.fatal):
            try:
                self._spawn()
            except (OSError, subprocess.SubprocessError) as exc:  # no process left, or confinement refused
                error = f"{type(exc).__name__}: {exc}"
                self.load_report = LoadReport(fatal=say("The grader could not start the process that runs submissions "
                                                        "({error}); please report it.", error=error))

    def begin_load(self, chunks, entries):
        """Send the submission's code to the worker without waiting for the answer (``load`` reads it).

        Args:
            chunks: learner code as ``[{"label": "cell 4", "kind": "cell", "code": "..."}]``.
            entries: names of the functions the cases will call (list of str).
        """
        self.chunks, self.entries = chunks, list(entries)
        self._send_load()

    def _send_load(self):
        """Start the worker if needed and send it the code; returns a fatal sentence when that failed, else None."""
        self.start()
        if self.process is None:  # it could not start: load_report says why
            return self.load_report.fatal if self.load_report is not None else say("the worker could not start")
        # The worker reads the code once it has started: starting counts against STARTUP_SECONDS, not the
        # submission's load limit (on a loaded machine a 2 s limit once ran out before any learner code ran).
        self.load_deadline = Deadline(self.limits.load_seconds, self.process.pid, slack=STARTUP_SECONDS,
                                      waits=self.transport.worker_waits)
        try:
            self._send({"op": "load", "chunks": self.chunks, "entries": self.entries}, self.load_deadline,
                       self._load_what())
        except _Stop as stop:
            self.load_deadline = None
            return say("While loading, the submission {what}.", what=stop.args[0])
        return None

    def _load_what(self):
        return say("{seconds:g} s (an endless loop at the top level?)", seconds=self.limits.load_seconds)

    def _load_once(self):
        """Send the code if it was not sent yet and wait for the worker's report: ``(fatal, report, busy)``, a sentence
        when loading failed (else None), the ``LoadReport`` (None when it failed), and whether the load limit ran
        out at its backstop while the machine kept the worker waiting (``Deadline.busy``)."""
        report, busy = None, False
        fatal = self._send_load() if self.load_deadline is None else None
        if fatal is None:
            try:
                # "ready": the worker has started and read the code, and none of it has run yet, so the load
                # limit counts from here: the submission's own time, whatever the machine's load.
                message = self._receive(self.load_deadline, say("{seconds:g} s before the grader's worker started "
                                                                "(the machine is overloaded?)", seconds=STARTUP_SECONDS))
                if message.get("op") != "ready":
                    self._kill()
                    raise _Stop(say("sent an unexpected message while loading"), "crash")
                self.load_deadline = Deadline(self.limits.load_seconds, self.process.pid,
                                              waits=self.transport.worker_waits)
                message = self._receive(self.load_deadline, self._load_what())
                if message.get("op") != "loaded":
                    self._kill()
                    raise _Stop(say("sent an unexpected message while loading"), "crash")
                report = checked_load_report(message, self.entries)
                report.waited = run_queue_wait(self.process.pid) or 0.0  # since it started: the machine's time
                self._bound_scratch()  # loading may write too: 1.5 GB in 3 s past the guard (issue 40's trial)
            except _Stop as stop:
                fatal = say("While loading, the submission {what}.", what=stop.args[0])
                busy = stop.args[1] == "timeout" and self.load_deadline is not None and self.load_deadline.busy
            finally:
                self.load_deadline = None
        return fatal, report, busy

    def load(self):
        """Load the submission (restarting the worker if it is not running) and wait for the answer.

        The first load's report is the one that counts. A reload (after a case killed the worker)
        runs amid the cases, when the scratch folder may hold what earlier cases wrote: what it prints
        is left to the case that caused it, and only a fixed sentence of how it failed is kept.
        Returns:
            ``LoadReport``; ``fatal`` is set when the code cannot be loaded at all (then every case
            fails with that sentence, and the worker is not restarted again).
        """
        first = self.load_report is None
        if not first and self.load_report.fatal:
            return self.load_report
        self.hidden = not first
        fatal, report, busy = self._load_once()
        if busy:
            # The load limit ran out at its backstop while the worker was still owed CPU time: the machine used it.
            # Loaded again, once, before it counts (issue 25: one notebook scored 121 and 0 on two runs at a load of 6).
            self._kill()
            self._read_output()  # what the cut-short load printed: the second load prints it again
            fatal, report, busy = self._load_once()
        if first:
            self.load_report = LoadReport(fatal=fatal) if fatal else report
            self.load_report.output = self._read_output()
        elif fatal:
            self.load_report = LoadReport(problems=self.load_report.problems, entries=self.load_report.entries,
                                          fatal=fatal, output=self.load_report.output,
                                          skipped=self.load_report.skipped)
        return self.load_report

    def run(self, entry, invocations, globals_, responder, view=None, hidden=False, max_requests=None):
        """Run one case: call ``entry(*args)`` for each invocation, answering its requests.

        Args:
            entry: the function name to call (str).
            invocations: a list of argument lists; ``{"__kit__": "ask_model"}`` in an argument
                list stands for the ask_model proxy.
            globals_: module globals to set first, e.g. ``{"TOOLS": {"__kit__": "registry", ...},
                "dispatch": {"__kit__": "dispatch"}}``.
            responder: an object with ``answer(op, message) -> dict`` returning
                ``{"op": "reply", "value": v}`` or ``{"op": "raise", "type": ..., "message": ...}``.
            view: how the worker makes the result plain data (see ``grader.judging.harness.Harness.execute``).
            hidden: the case is hidden: how the worker ended is described without numbers it chose (bool).
            max_requests: the requests one call may make (int), for a case whose call asks more than a retry loop
                does (notebook 7: a check and a dispatch per tool call of the turn); None: ``Limits.max_requests``.
        Returns:
            ``CaseOutcome``. A timed-out or crashed worker is killed; the next ``run`` restarts it.
            So is one whose scratch folder grew past ``scratch_bytes`` (possible only past the guard).
        """
        outcome = CaseOutcome()
        if self.process is None:
            report = self.load()
            if report.fatal:
                outcome.problem = report.fatal
                return outcome
        self.hidden = hidden
        pid, waited_before = self.process.pid, run_queue_wait(self.process.pid)
        deadline = Deadline(self.limits.case_seconds, self.process.pid, waits=self.transport.worker_waits)
        requests = 0
        allowed = self.limits.max_requests if max_requests is None else max_requests
        # A retry loop's bound is the retry; a turn's or an agent loop's (notebooks 7 and 8: ``max_requests`` given) is
        # its own stop, which a learner of those notebooks would not call a retry.
        unbounded = (say("made more than {count} requests to ask_model/dispatch for one call: the retry is not bounded",
                         count=allowed) if max_requests is None else
                     say("made more than {count} requests to the grader (model, check, dispatch) for one call: it did "
                         "not stop where the case's rules stop it", count=allowed))
        try:
            what = say("{seconds:g} s", seconds=self.limits.case_seconds)
            self._send({"op": "case", "entry": entry, "invocations": invocations, "globals": globals_, "view": view},
                       deadline, what)
            while len(outcome.results) < len(invocations):
                message = self._receive(deadline, what)
                if message["op"] == "done":
                    outcome.results.append(message)
                    if requests <= allowed:
                        requests = 0  # the budget is per call; a halted call keeps the case failed
                    continue
                requests += 1
                if requests > allowed + HALT_GRACE:
                    self._kill()  # it swallowed the halts too: only a restart stops it
                    raise _Stop(unbounded, "unstoppable")
                if requests > allowed:
                    # Raise an exception into the loop instead of killing the worker: restarting it costs
                    # more than the whole case (about 0.04 s), and most loops end on the first halt.
                    self._send({"op": "halt"}, deadline, what)
                    continue
                self._send(responder.answer(message["op"], message), deadline, what)
            if requests > self.limits.max_requests:
                raise _Stop(unbounded, "unbounded")  # whatever the halted calls returned does not count
        except _Stop as stop:
            outcome.problem = say("The submission {what}.", what=stop.args[0])
            outcome.stopped = stop.args[1]
            outcome.busy = stop.args[1] == "timeout" and deadline.busy
        try:
            self._bound_scratch()
        except _Stop as stop:
            outcome.problem = say("The submission {what}.", what=stop.args[0])
            outcome.stopped = stop.args[1]
        outcome.output = self._read_output()
        waited_after = run_queue_wait(pid)
        if waited_before is not None and waited_after is not None:
            outcome.waited = max(0.0, waited_after - waited_before)
        return outcome

    # -- the scratch folder -------------------------------------------------------------------------

    @property
    def scratch_bytes(self):
        """The most disk the scratch folder may use (int, bytes): the files the guard lets a submission create
        (``grader.isolation.worker.MAX_SCRATCH_ENTRIES``), each at most the per-file size limit, and the output file."""
        return (MAX_SCRATCH_ENTRIES + 1) * self.limits.output_bytes

    def _bound_scratch(self):
        """Stop the worker and empty the scratch folder if it holds more than ``scratch_bytes`` (possible only past
        the guard). Raises ``_Stop`` with the sentence's end and the kind "limit"; returns None otherwise."""
        if self.scratch_used() > self.scratch_bytes:
            self._kill()
            self._empty_scratch()
            raise _Stop(say("used more than {mb} MB of disk in its working folder, so it was stopped and the folder "
                            "emptied; write less (a few small files at most)", mb=self.scratch_bytes // (1024 * 1024)),
                        "limit")

    def scratch_used(self, limit=1000, attempts=3):
        """Disk used by the scratch folder (int, bytes, as allocated), reading at most ``limit`` entries.

        A folder or file that vanishes while it is read spoils the count: a thread renaming a folder back and
        forth hid 160 MB from every check (issue 40's fifth attacker trial). The count is taken again, up to
        ``attempts`` times; one never completed counts as past the bound (``scratch_bytes``), since no solution
        renames its folders between cases.
        """
        used = 0
        for _attempt in range(attempts):
            used, seen, complete = self._count_scratch(limit)
            if seen >= limit:
                return max(used, self.scratch_bytes + 1)  # more entries than any solution needs
            if complete:
                return used
        return max(used, self.scratch_bytes + 1)

    def _count_scratch(self, limit):
        """One reading of the scratch folder: (bytes used, entries seen, whether nothing vanished meanwhile)."""
        used, pending, seen, complete = 0, [self.scratch], 0, True
        while pending and seen < limit:
            folder = pending.pop()
            try:
                with os.scandir(folder) as entries:
                    for entry in entries:
                        seen += 1
                        info = entry.stat(follow_symlinks=False)
                        size = getattr(info, "st_blocks", info.st_size // 512) * 512
                        if entry.path == self.output_path:  # past its limit only without RLIMIT_FSIZE: _watch says so
                            size = min(size, self.limits.output_bytes)
                        used += size
                        if entry.is_dir(follow_symlinks=False):
                            pending.append(entry.path)
            except OSError:
                complete = complete and folder == self.scratch  # the folder itself gone: the sandbox is closed
        return used, seen, complete

    def _empty_scratch(self):
        """Remove everything the submission left in the scratch folder (the grader's output file stays)."""
        try:
            entries = list(os.scandir(self.scratch))
        except OSError:
            return
        for entry in entries:
            if entry.path == self.output_path:
                continue
            if entry.is_dir(follow_symlinks=False):
                remove_tree(entry.path)
            else:
                try:
                    os.unlink(entry.path)
                except OSError:
                    pass
