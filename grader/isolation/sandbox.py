"""Isolated execution: run a submission in a worker process with limits, and talk to it safely.

The grader's own process never imports or executes submission code. ``Sandbox`` starts
``grader/isolation/worker.py`` in a new process group with resource limits (CPU seconds, address space,
output file size, open files, no core dumps, processes where the kernel applies that limit), in a
scratch directory, with stdin closed, under the kernel's rules of ``grader.isolation.kernel_rules``. A case that
hangs, floods, fills its scratch folder or kills the worker costs that case: the worker, and every
process below it, is killed and restarted for the next one. The grader uses one ``Sandbox`` per
exercise. This follows Gradescope's published best practice (run student code in a subprocess);
what it does not guarantee is documented in docs/threat-model.md. The POSIX-only calls (``fork``
hooks, ``select`` on pipes, process groups) live here and in ``grader.isolation.kernel_rules``.

Two transports carry the same protocol (``portable_worker`` picks one):

- the POSIX one (Linux, macOS): two inherited pipes read with ``select``, the limits and kernel rules
  applied between fork and exec, the process group killed with ``os.killpg``;
- the portable one (Windows, or forced with ``KIT_PORTABLE_WORKER=1``): the worker's stdin/stdout
  read and written by two threads of the grader (a queue with a timeout instead of ``select``), no
  hooks at start, the process tree killed with psutil, memory and output watched from the grader.

``protections()`` says which protections hold with the transport in use; docs/threat-model.md has the table.
"""

import json
import os
import queue
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import weakref
from dataclasses import dataclass, field

from grader.isolation import kernel_rules
from grader.paths import KIT_ROOT, WORKER_PATH
from grader.isolation.sanitise import clean_text
from grader.isolation.worker import MAX_SCRATCH_ENTRIES

with open(WORKER_PATH, encoding="utf-8") as _handle:
    # Run as ``python -c``: sys.argv[0] then names no file inside the kit.
    WORKER_SOURCE = _handle.read()
# Every Sandbox of this process, and whether grading was stopped (``stop_all_workers``): a batch's grader
# process stops at once on SIGINT/SIGTERM, with no worker left running and none started after.
_LIVE = weakref.WeakSet()
_STOPPED = []
MAX_MESSAGE_BYTES = 4 * 1024 * 1024  # the largest case sends about 1 MB; more only slows the grader
HALT_GRACE = 5  # requests answered with "halt" before a submission that catches the halt is killed
PORTABLE_SWITCH = "KIT_PORTABLE_WORKER"  # "1": always the portable transport; "0": never where POSIX allows
# The portable worker's first command: it reads the worker's text from stdin (10 digits of length, then the
# text), as a Windows command line holds at most 32,767 characters. Filename "<string>", as with ``-c``.
BOOTSTRAP = ("import os\n"
             "def _take(n, got=b''):\n"
             "    while len(got) < n:\n"
             "        more = os.read(0, n - len(got))\n"
             "        if not more:\n"
             "            raise SystemExit(0)\n"
             "        got += more\n"
             "    return got\n"
             "exec(compile(_take(int(_take(10))), '<string>', 'exec'))\n")
WATCH_SECONDS = 0.05  # the portable transport checks the worker's memory and output this often while waiting
OUTPUT_SLACK = 1024 * 1024  # bytes past the output limit (written around the worker's own cap) before a kill


def portable_worker():
    """True when the worker runs on the portable transport (bool).

    ``KIT_PORTABLE_WORKER=1`` forces it (the tests run it on Linux), ``=0`` refuses it where the POSIX
    transport can run. Otherwise it is used where the POSIX transport cannot run: Windows, or a Python
    without ``os.fork``/``os.killpg``/``os.set_blocking``/``os.pread`` (no ``preexec_fn``, process groups,
    non-blocking pipes or positioned reads).
    """
    posix = os.name == "posix" and all(hasattr(os, name) for name in ("fork", "killpg", "set_blocking", "pread"))
    return os.environ.get(PORTABLE_SWITCH, "") == "1" or not posix


PROTECTIONS = ("separate process", "time limits", "memory limit", "output limit", "audit-hook guard",
               "kernel rules", "process-tree cleanup")


def protections(portable=None):
    """How far each protection holds for a worker started here now (dict: name from ``PROTECTIONS`` ->
    ``"yes"``, ``"partly"`` or ``"no"``), as docs/threat-model.md's table per system says.

    ``portable``: the transport (bool), or None for ``portable_worker()``. The kernel rules are Landlock or the
    seccomp filter (``grader.isolation.kernel_rules``: Linux only, and only on the POSIX transport, which applies them between
    fork and exec). Off Linux's POSIX transport, the memory limit is the grader's watch of the worker
    (``memory_used``: psutil off Linux), the output limit on the portable transport the worker's own count plus
    the grader's check of the file, and the process tree is found with psutil (else only the worker, or its
    process group, is killed).
    """
    portable = portable_worker() if portable is None else portable
    linux = sys.platform.startswith("linux")
    psutil = _psutil() is not None
    if linux and not portable:
        kernel = kernel_rules.abi_version() > 0 or kernel_rules.seccomp_available()
        return {**dict.fromkeys(PROTECTIONS, "yes"), "memory limit": "yes" if _has_resource() else "no",
                "kernel rules": "yes" if kernel else "no"}
    return {"separate process": "yes", "time limits": "yes",
            "memory limit": "partly" if linux or psutil else "no",
            "output limit": "partly" if portable else "yes",
            "audit-hook guard": "yes", "kernel rules": "no",
            "process-tree cleanup": "partly" if psutil or not portable or os.name == "posix" else "no"}


def protection_note():
    """One sentence for the report when the worker runs off Linux's POSIX transport, naming the protections
    missing or holding only in part there (str), else None (nothing is missing on Linux's default path)."""
    if sys.platform.startswith("linux") and not portable_worker():
        return None
    levels = protections()
    missing = [name for name, level in levels.items() if level == "no"]
    partial = [name for name, level in levels.items() if level == "partly"]
    if not missing and not partial:
        return None
    parts = ([f"lacks {', '.join(missing)}"] if missing else []) + \
        ([f"has only in part: {', '.join(partial)}"] if partial else [])
    return (f"On this system the grader's sandbox {' and '.join(parts)} (see the table in docs/threat-model.md). That "
            "is fine for grading your own work; an instructor grading untrusted work should use Linux, a container, "
            "or Gradescope.")


def _has_resource():
    try:
        import resource  # noqa: F401
    except ImportError:
        return False
    return True


def _psutil():
    """The psutil module, or None where it is not installed (the POSIX transport on Linux does not need it)."""
    try:
        import psutil
    except ImportError:
        return None
    return psutil


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


def kill_descendants(pid):
    """Suspend ``pid`` and every process below it, then kill those below it (psutil; any system).

    Suspended first, so that none starts another while the tree is read. A process that left the tree
    before this call (its parent died) is not found. Does nothing without psutil.
    Returns:
        the PIDs killed (list of int).
    """
    psutil = _psutil()
    found = []
    if psutil is None:
        return []
    try:
        root = psutil.Process(pid)
        root.suspend()
        pending = root.children()
    except psutil.Error:
        pending = []
    while pending:
        child = pending.pop()
        try:
            child.suspend()
            found.append(child)
            pending += child.children()
        except psutil.Error:
            continue
    for child in found:
        try:
            child.kill()
        except psutil.Error:
            pass
    return [child.pid for child in found]


def kill_tree_portable(process):
    """End a worker and every process below it, on any system: ``kill_descendants``, then the worker and (on
    POSIX) its session's process group. Without psutil only the worker (and its group) is killed. The caller
    reaps the worker.

    Args:
        process: the worker's ``subprocess.Popen``.
    Returns:
        the PIDs ended besides the worker's (list of int).
    """
    found = kill_descendants(process.pid)
    try:
        process.kill()
    except OSError:
        pass
    if os.name == "posix" and hasattr(os, "killpg"):
        try:
            os.killpg(process.pid, signal.SIGKILL)  # it was started in a session of its own
        except OSError:
            pass
    return found


def memory_used(pid):
    """The most memory the process ``pid`` has held (int, bytes), or 0 when it cannot be read.

    The peak, so that a short-lived allocation freed before the next look still counts: Linux's ``VmPeak``
    (virtual, as ``RLIMIT_AS`` counts), Windows' peak committed memory (psutil's ``peak_pagefile``);
    elsewhere the resident size now (psutil's ``rss``: macOS reserves far more address space than it uses).
    """
    if sys.platform.startswith("linux"):
        try:
            with open(f"/proc/{pid}/status", encoding="ascii", errors="replace") as handle:
                for line in handle:
                    if line.startswith("VmPeak:"):
                        return int(line.split()[1]) * 1024
        except (OSError, ValueError, IndexError):
            return 0
        return 0
    psutil = _psutil()
    if psutil is None:
        return 0
    try:
        info = psutil.Process(pid).memory_info()
    except psutil.Error:
        return 0
    return getattr(info, "peak_pagefile", None) or info.rss


class _Pipes:
    """The portable transport's ends of one worker's stdin and stdout, served by two daemon threads.

    ``replies`` receives what the worker writes, chunk by chunk (``b""`` at its end); ``write(data, timeout)``
    hands bytes to the writer thread and waits at most ``timeout`` seconds for them to be written.
    """

    def __init__(self, process):
        self.replies = queue.Queue()
        self.requests = queue.Queue()
        self.failed = False
        stdout, stdin = process.stdout, process.stdin
        threading.Thread(target=self._read, args=(stdout,), daemon=True).start()
        threading.Thread(target=self._write, args=(stdin,), daemon=True).start()

    def _read(self, stream):
        fd = stream.fileno()
        try:
            while True:
                try:
                    data = os.read(fd, 1 << 16)
                except OSError:
                    data = b""
                self.replies.put(data)
                if not data:
                    return
        finally:
            stream.close()

    def _write(self, stream):
        fd = stream.fileno()
        try:
            while True:
                item = self.requests.get()
                if item is None:
                    return
                data, done = item
                try:
                    view = memoryview(data)
                    while view:
                        view = view[os.write(fd, view):]
                except OSError:
                    self.failed = True
                done.set()
                if self.failed:
                    return
        finally:
            try:
                stream.close()
            except OSError:
                pass

    def write(self, data, timeout):
        """Write ``data`` (bytes); True when written within ``timeout`` seconds. Raises BrokenPipeError when the
        worker is gone."""
        if self.failed:
            raise BrokenPipeError("the worker is gone")
        done = threading.Event()
        self.requests.put((data, done))
        if not done.wait(max(timeout, 0)):
            return False
        if self.failed:
            raise BrokenPipeError("the worker is gone")
        return True

    def close(self):
        """Let the writer thread end (the reader ends at the worker's end of output)."""
        self.requests.put(None)


@dataclass
class Limits:
    """Bounds for one submission's worker process.

    Attributes:
        case_seconds: wall-clock limit for one case, including the model/dispatch exchanges (float, s).
        load_seconds: wall-clock limit for loading the submission (float, s).
        memory_mb: address-space limit of the worker (int, MiB).
        cpu_seconds: CPU-time limit of one worker process over its life (int, s).
        output_bytes: how much the submission may print per case (and while loading) before the rest is dropped (int, bytes).
        max_requests: ask_model/dispatch requests allowed in one call before it is stopped as
            unbounded (int); the contract allows one of each, and four times that is still bounded. Further requests are answered with
            ``halt`` (the worker raises an exception the learner's ``except Exception`` does not
            catch); after ``HALT_GRACE`` more, the worker is killed.
    """

    # The slowest case (1 MB of input, twice) takes about 0.05 s against the reference: 1 s leaves a slow
    # machine 20 times that, and keeps a hanging submission cheap in a class's batch.
    case_seconds: float = 1.0
    load_seconds: float = 3.0
    memory_mb: int = 1024
    cpu_seconds: int = 120
    output_bytes: int = 8 * 1024 * 1024
    max_requests: int = 8


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
    """

    problems: list = field(default_factory=list)
    entries: dict = field(default_factory=dict)
    fatal: str | None = None
    output: str = ""
    skipped: list = field(default_factory=list)


@dataclass
class CaseOutcome:
    """The raw outcome of one case, before any judging.

    Attributes:
        results: one dict per invocation that finished: ``{"result": {"plain": v}|{"unplain": what}}``
            or ``{"raised": "ValueError: ...", "where": "cell 3, line 4"}``.
        problem: a sentence when the case did not finish (timeout, crash, flood), else None.
        output: what the submission printed during the case, capped (str).
        stopped: why the case was cut short: ``"timeout"``, ``"crash"``, ``"limit"``, ``"unstoppable"``
            (it kept asking after the grader's halt, so the worker was killed), or None.
    """

    results: list = field(default_factory=list)
    problem: str | None = None
    output: str = ""
    stopped: str | None = None


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
            if sandbox.portable:
                kill_tree_portable(process)
                continue
            try:
                kernel_rules.kill_tree(process.pid)  # what it started in other sessions too (reads /proc, sends signals)
                os.killpg(process.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError, OSError):
                pass


class _Stop(Exception):
    """The case cannot go on; ``args[0]`` is the sentence for the learner, ``args[1]`` the kind:
    ``"timeout"``, ``"crash"`` (the worker died or broke the protocol), ``"limit"`` (stopped by a bound)
    or ``"unstoppable"`` (it swallowed the halt after a bound, and was killed)."""


def process_limit(margin=64):
    """A bound for ``RLIMIT_NPROC`` that leaves the worker ``margin`` more threads, or None where it cannot
    be set usefully (int or None).

    The limit counts every process and thread of the *user*, so it is set only where it binds (not for
    root, whom the kernel exempts) and to the number of tasks on the whole machine now (``/proc/loadavg``,
    at least the user's) plus ``margin``: a submission can then start no fork bomb, and learner threads
    have room. Where the seccomp filter is in force (``grader.isolation.kernel_rules``), no process can start anyway.
    """
    if not hasattr(os, "getuid") or os.getuid() == 0:
        return None
    try:
        with open("/proc/loadavg", encoding="ascii") as handle:
            return int(handle.read().split()[3].partition("/")[2]) + margin
    except (OSError, ValueError, IndexError):
        return None


def _limit_resources(limits, confinement=None, processes=None):
    """Return a preexec function that applies ``limits`` (and the kernel ``confinement`` plan from
    ``grader.isolation.kernel_rules.prepare``, if any, and ``processes`` as ``RLIMIT_NPROC``) inside the child before exec."""

    def apply():
        import resource

        memory = limits.memory_mb * 1024 * 1024
        for which, value in (
            (resource.RLIMIT_AS, memory),
            (resource.RLIMIT_CPU, limits.cpu_seconds),
            (resource.RLIMIT_FSIZE, limits.output_bytes),
            (resource.RLIMIT_NOFILE, 64),
            (resource.RLIMIT_CORE, 0),
            *([(resource.RLIMIT_NPROC, processes)] if processes else []),
        ):
            try:
                resource.setrlimit(which, (value, value))
            except (ValueError, OSError):
                pass  # a limit the platform refuses is skipped, not fatal
        if confinement is not None:
            kernel_rules.apply(confinement)  # raises if it fails: never run unconfined by surprise

    return apply


def checked_load_report(message, entries):
    """A ``LoadReport`` built only from well-typed, bounded parts of the worker's ``loaded`` message."""
    problems = message.get("problems")
    problems = [clean_text(p) for p in problems[:20]] if isinstance(problems, list) else []
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
WINDOWS_CRASHES = {0xC0000005: "crashed with a segmentation fault", 0xC00000FD: "crashed with a stack overflow"}


def describe_exit(returncode, limits, hidden=False):
    """One sentence for how a worker process ended.

    Args:
        returncode: ``Popen.returncode`` (negative: killed by that signal).
        limits: the ``Limits`` in force, to name the bound that was hit.
        hidden: in a hidden case, an exit status or a signal of the submission's choosing could spell
            out the case's input, so only the kind of ending is named (bool).
    Returns:
        str, e.g. ``"crashed with a segmentation fault"``.
    """
    if returncode is None:
        return "stopped responding"
    if returncode in WINDOWS_CRASHES:  # Windows reports a crash as an NTSTATUS exit code, not a signal
        return WINDOWS_CRASHES[returncode]
    if returncode >= 0:
        return "exited (its status is not shown in a hidden case)" if hidden else f"exited with status {returncode}"
    number = -returncode
    if number == signal.SIGSEGV:
        return "crashed with a segmentation fault"
    if number == getattr(signal, "SIGXCPU", None):
        return f"used more than {limits.cpu_seconds} s of CPU time and was stopped"
    if number == getattr(signal, "SIGKILL", None):
        return "was killed (it may have run out of memory)"
    if hidden:
        return "was ended by a signal (which one is not shown in a hidden case)"
    try:
        name = signal.Signals(number).name
    except ValueError:
        name = f"signal {number}"
    return f"was ended by {name}"


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
        self.pipes = None  # the portable transport's threads (``_Pipes``)
        self.chunks = []
        self.entries = []
        self.limits = limits or Limits()
        self.scratch = tempfile.mkdtemp(prefix="kit-grade-")
        self.output_path = os.path.join(self.scratch, ".output")
        self.process = None
        self.reply_fd = None
        self.request_fd = None
        self.buffer = b""
        self.output_fd = None
        self.load_report = None
        self.load_deadline = None  # set while a load message is sent and its answer not yet read
        self.hidden = False  # while a hidden case runs: sentences about the worker name no number it chose
        # None where the kernel offers no confinement, or where nothing can apply it (the portable transport)
        self.confinement = None if self.portable else kernel_rules.prepare(self.scratch)
        _LIVE.add(self)

    # -- process management -------------------------------------------------------------------

    def _spawn(self):
        if _STOPPED:
            raise OSError("grading was stopped")
        if self.output_fd is None:
            flags = os.O_RDWR | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0)
            self.output_fd = os.open(self.output_path, flags, 0o600)
        if self.portable:
            return self._spawn_portable()
        request_r, request_w = os.pipe()
        reply_r, reply_w = os.pipe()
        output = os.dup(self.output_fd)
        env = worker_environment(self.scratch)
        try:
            self.process = subprocess.Popen(
                [sys.executable, "-I", "-S", "-B", "-u", "-c", WORKER_SOURCE, str(request_r), str(reply_w), self.scratch, KIT_ROOT],
                stdin=subprocess.DEVNULL,
                stdout=output,
                stderr=subprocess.STDOUT,
                cwd=self.scratch,
                env=env,
                pass_fds=(request_r, reply_w),
                start_new_session=True,
                preexec_fn=_limit_resources(self.limits, self.confinement, process_limit()),
            )
        except BaseException:
            # The grader's ends too: a batch process that leaked them reached the worker's descriptor
            # limit, and every later worker failed to start (found grading a class of 136).
            os.close(request_w)
            os.close(reply_r)
            raise
        finally:
            os.close(output)
            os.close(request_r)
            os.close(reply_w)
        self.reply_fd = reply_r
        self.request_fd = request_w
        os.set_blocking(request_w, False)  # a worker that stops reading must not block the grader
        self.buffer = b""

    def _spawn_portable(self):
        """Start the worker with nothing POSIX-only: its stdin/stdout are the channel, its stderr the output file."""
        options = {"start_new_session": True} if os.name == "posix" else {
            "creationflags": subprocess.CREATE_NEW_PROCESS_GROUP | getattr(subprocess, "CREATE_NO_WINDOW", 0)}
        self.process = subprocess.Popen(
            [sys.executable, "-I", "-S", "-B", "-u", "-c", BOOTSTRAP, "stdio", "stdio", self.scratch, KIT_ROOT,
             str(self.limits.output_bytes)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.output_fd, cwd=self.scratch,
            env=worker_environment(self.scratch), bufsize=0, **options)
        self.pipes = _Pipes(self.process)
        self.buffer = b""
        source = WORKER_SOURCE.encode("utf-8")
        self.pipes.write(b"%010d" % len(source) + source, 0)  # queued now: the worker reads it as it starts

    def _kill(self):
        if self.process is None:
            return None
        if self.portable:
            kill_tree_portable(self.process)
        else:
            # Every process below the worker, in any session (it is a child subreaper: grader.isolation.kernel_rules), then its group.
            # Elsewhere (macOS: no /proc) psutil finds those still below it.
            if sys.platform.startswith("linux"):
                kernel_rules.kill_tree(self.process.pid)
            else:
                kill_descendants(self.process.pid)
            try:
                os.killpg(self.process.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:  # pragma: no cover - SIGKILL should not be ignored
            pass
        code = self.process.returncode
        for fd in (self.reply_fd, self.request_fd):
            try:
                os.close(fd)
            except (OSError, TypeError):
                pass
        self.reply_fd = self.request_fd = None
        if self.pipes is not None:
            self.pipes.close()
            self.pipes = None
        self.process = None
        return code

    def close(self):
        """Stop the worker (and its process group) and remove the scratch directory."""
        self._kill()
        if self.output_fd is not None:
            os.close(self.output_fd)
            self.output_fd = None
        shutil.rmtree(self.scratch, ignore_errors=True)

    # -- messages ------------------------------------------------------------------------------

    def _send(self, message, deadline, what):
        """Write one message, waiting at most until ``deadline`` for the worker to read it."""
        data = memoryview((json.dumps(message) + "\n").encode("utf-8", "surrogatepass"))
        if self.portable:
            try:
                written = self.pipes.write(data, deadline - time.monotonic())
            except BrokenPipeError:
                raise _Stop(self._ended(), "crash")
            if not written:
                self._kill()
                raise _Stop(f"timed out after {what}", "timeout")
            return
        while data:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                self._kill()
                raise _Stop(f"timed out after {what}", "timeout")
            _, writable, _ = select.select([], [self.request_fd], [], remaining)
            if not writable:
                continue
            try:
                written = os.write(self.request_fd, data)
            except BlockingIOError:
                continue
            except OSError:
                raise _Stop(self._ended(), "crash")
            data = data[written:]

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
        if not self.portable:
            ready, _, _ = select.select([self.reply_fd], [], [], min(remaining, WATCH_SECONDS) if self.watched else remaining)
            data = os.read(self.reply_fd, 1 << 16) if ready else None
            if self.watched:
                self._watch()
            return data
        try:
            data = self.pipes.replies.get(timeout=min(remaining, WATCH_SECONDS))
        except queue.Empty:
            data = None
        self._watch()
        return data

    def _watch(self):
        """The portable transport's limits, checked from the grader: the worker's memory and its output file."""
        if memory_used(self.process.pid) > self.limits.memory_mb * 1024 * 1024:
            self._kill()
            raise _Stop(f"ran out of memory (it used more than {self.limits.memory_mb} MB, the grader's limit) and "
                        "was stopped", "limit")
        try:
            size = os.fstat(self.output_fd).st_size
        except OSError:
            return
        if size > self.limits.output_bytes + OUTPUT_SLACK:
            self._kill()
            raise _Stop(f"printed more than {self.limits.output_bytes // (1024 * 1024)} MB in one case and was "
                        "stopped", "limit")

    def _receive(self, deadline, what):
        while b"\n" not in self.buffer:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                self._kill()
                raise _Stop(f"timed out after {what}", "timeout")
            data = self._next_chunk(remaining)
            if data is None:
                continue
            if not data:
                raise _Stop(self._ended(), "crash")
            self.buffer += data
            if len(self.buffer) > MAX_MESSAGE_BYTES:
                self._kill()
                raise _Stop(f"sent a value larger than {MAX_MESSAGE_BYTES // (1024 * 1024)} MB back to the grader", "limit")
        line, _, self.buffer = self.buffer.partition(b"\n")
        try:
            message = json.loads(line.decode("utf-8", "surrogatepass"))
        except (ValueError, RecursionError):  # RecursionError: deeply nested garbage
            message = None
        if not isinstance(message, dict) or not isinstance(message.get("op"), str):
            # Only learner code writing into the grader's pipe can produce this.
            self._kill()
            raise _Stop("wrote garbage into the grader's channel", "crash")
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
            text += f"\n… (output truncated: only the first {limit} bytes are kept)"
        if size >= self.limits.output_bytes:
            # First, so that no later cut hides it.
            text = (f"(the submission printed more than {self.limits.output_bytes // (1024 * 1024)} MB in one case; "
                    "the rest of its output was dropped)\n") + text
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
                self.load_report = LoadReport(fatal=f"The grader could not start the process that runs submissions "
                                                    f"({type(exc).__name__}: {exc}); please report it.")

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
            return self.load_report.fatal if self.load_report is not None else "the worker could not start"
        self.load_deadline = time.monotonic() + self.limits.load_seconds
        try:
            self._send({"op": "load", "chunks": self.chunks, "entries": self.entries}, self.load_deadline,
                       self._load_what())
        except _Stop as stop:
            self.load_deadline = None
            return f"While loading, the submission {stop.args[0]}."
        return None

    def _load_what(self):
        return f"{self.limits.load_seconds:g} s (an endless loop at the top level?)"

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
        fatal = self._send_load() if self.load_deadline is None else None
        if fatal is None:
            try:
                message = self._receive(self.load_deadline, self._load_what())
                if message.get("op") != "loaded":
                    self._kill()
                    raise _Stop("sent an unexpected message while loading", "crash")
                report = checked_load_report(message, self.entries)
            except _Stop as stop:
                fatal = f"While loading, the submission {stop.args[0]}."
            finally:
                self.load_deadline = None
        if first:
            self.load_report = LoadReport(fatal=fatal) if fatal else report
            self.load_report.output = self._read_output()
        elif fatal:
            self.load_report = LoadReport(problems=self.load_report.problems, entries=self.load_report.entries,
                                          fatal=fatal, output=self.load_report.output,
                                          skipped=self.load_report.skipped)
        return self.load_report

    def run(self, entry, invocations, globals_, responder, view=None, hidden=False):
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
        deadline = time.monotonic() + self.limits.case_seconds
        requests = 0
        unbounded = f"made more than {self.limits.max_requests} requests to ask_model/dispatch for one call: the retry is not bounded"
        try:
            what = f"{self.limits.case_seconds:g} s"
            self._send({"op": "case", "entry": entry, "invocations": invocations, "globals": globals_, "view": view},
                       deadline, what)
            while len(outcome.results) < len(invocations):
                message = self._receive(deadline, what)
                if message["op"] == "done":
                    outcome.results.append(message)
                    if requests <= self.limits.max_requests:
                        requests = 0  # the budget is per call; a halted call keeps the case failed
                    continue
                requests += 1
                if requests > self.limits.max_requests + HALT_GRACE:
                    self._kill()  # it swallowed the halts too: only a restart stops it
                    raise _Stop(unbounded, "unstoppable")
                if requests > self.limits.max_requests:
                    # Raise an exception into the loop instead of killing the worker: restarting it costs
                    # more than the whole case (about 0.04 s), and most loops end on the first halt.
                    self._send({"op": "halt"}, deadline, what)
                    continue
                self._send(responder.answer(message["op"], message), deadline, what)
            if requests > self.limits.max_requests:
                raise _Stop(unbounded, "limit")  # whatever the halted calls returned does not count
        except _Stop as stop:
            outcome.problem = f"The submission {stop.args[0]}."
            outcome.stopped = stop.args[1]
        if self.scratch_used() > self.scratch_bytes:
            self._kill()
            self._empty_scratch()
            outcome.problem = (f"The submission used more than {self.scratch_bytes // (1024 * 1024)} MB of disk in its "
                               "working folder, so it was stopped and the folder emptied; write less (a few small "
                               "files at most).")
            outcome.stopped = "limit"
        outcome.output = self._read_output()
        return outcome

    # -- the scratch folder -------------------------------------------------------------------------

    @property
    def scratch_bytes(self):
        """The most disk the scratch folder may use (int, bytes): the files the guard lets a submission create
        (``grader.isolation.worker.MAX_SCRATCH_ENTRIES``), each at most the per-file size limit, and the output file."""
        return (MAX_SCRATCH_ENTRIES + 1) * self.limits.output_bytes

    def scratch_used(self, limit=1000):
        """Disk used by the scratch folder (int, bytes, as allocated), reading at most ``limit`` entries."""
        used, pending, seen = 0, [self.scratch], 0
        while pending and seen < limit:
            try:
                with os.scandir(pending.pop()) as entries:
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
                continue
        return used if seen < limit else max(used, self.scratch_bytes + 1)  # more entries than any solution needs

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
                shutil.rmtree(entry.path, ignore_errors=True)
            else:
                try:
                    os.unlink(entry.path)
                except OSError:
                    pass
