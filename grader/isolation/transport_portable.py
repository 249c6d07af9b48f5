"""The portable transport (Windows, or forced with ``KIT_PORTABLE_WORKER=1``): nothing POSIX-only.

The worker's stdin and stdout are the channel, read and written by two daemon threads of the grader (a queue with
a timeout instead of ``select``); its stderr is the grader's output file. No resource limit is set at start: the
grader watches memory and output instead (``Sandbox._watch``), and the process tree is killed with psutil. On
Linux the kernel's rules of ``grader.isolation.kernel_rules`` (Landlock, seccomp, no capabilities) are applied
between fork and exec as on the POSIX transport: past the audit-hook guard a submission otherwise had a shell, the
kit and the grader's memory (issue 41). The worker reads its own source from stdin, as a Windows command line holds
at most 32,767 characters (``CreateProcessW``'s ``lpCommandLine``).
"""

import os
import queue
import subprocess
import sys
import threading

from grader.isolation import kernel_rules
from grader.isolation.deadlines import unread_bytes
from grader.isolation.processes import kill_tree_portable
from grader.paths import KIT_ROOT

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


def portable_worker():
    """True when the worker runs on the portable transport (bool).

    ``KIT_PORTABLE_WORKER=1`` forces it (the tests run it on Linux), ``=0`` refuses it where the POSIX
    transport can run. Otherwise it is used where the POSIX transport cannot run: Windows, or a Python
    without ``os.fork``/``os.killpg``/``os.set_blocking``/``os.pread`` (no ``preexec_fn``, process groups,
    non-blocking pipes or positioned reads).
    """
    posix = os.name == "posix" and all(hasattr(os, name) for name in ("fork", "killpg", "set_blocking", "pread"))
    return os.environ.get(PORTABLE_SWITCH, "") == "1" or not posix


class _Pipes:
    """The portable transport's ends of one worker's stdin and stdout, served by two daemon threads.

    ``replies`` receives what the worker writes, chunk by chunk (``b""`` at its end); ``write(data, deadline)``
    hands bytes to the writer thread and waits until the deadline for them to be written.
    """

    def __init__(self, process):
        self.replies = queue.Queue()
        # Every message handed to the writer counts from ``write`` until written (``unfinished_tasks``), not
        # only while the writer thread holds it: under load that thread may not have run yet (CI, issue 24).
        self.requests = queue.Queue()
        self.failed = False
        stdout, stdin = process.stdout, process.stdin
        self.reply_fd = stdout.fileno()
        threading.Thread(target=self._read, args=(stdout,), daemon=True).start()
        threading.Thread(target=self._write, args=(stdin,), daemon=True).start()

    def _read(self, stream):
        fd = stream.fileno()
        try:
            while True:
                try:
                    data = self._read_chunk(fd)
                except OSError:
                    data = b""
                self.replies.put(data)
                if not data:
                    return
        finally:
            self.reply_fd = None  # before closing: the number may be reused by a file the grader opens
            stream.close()

    @staticmethod
    def _read_chunk(fd):
        return os.read(fd, 1 << 16)  # a seam: tests stall the reader thread here

    def _write(self, stream):
        fd = stream.fileno()
        try:
            while True:
                item = self.requests.get()
                if item is None:
                    self.requests.task_done()
                    return
                data, done = item
                try:
                    view = memoryview(data)
                    while view:
                        view = view[os.write(fd, view):]
                except OSError:
                    self.failed = True
                self.requests.task_done()
                done.set()
                if self.failed:
                    return
        finally:
            try:
                stream.close()
            except OSError:
                pass

    def write(self, data, deadline=None):
        """Write ``data`` (bytes); True when written before ``deadline`` (``grader.isolation.deadlines.Deadline``),
        whose end may move while this waits; with None, queue it and return False at once. Raises BrokenPipeError
        when the worker is gone."""
        if self.failed:
            raise BrokenPipeError("the worker is gone")
        done = threading.Event()
        self.requests.put((data, done))
        if deadline is None:
            return False
        while not done.wait(deadline.remaining()):
            if deadline.passed():
                return False
        if self.failed:
            raise BrokenPipeError("the worker is gone")
        return True

    def close(self):
        """Let the writer thread end (the reader ends at the worker's end of output)."""
        self.requests.put(None)


class PortableTransport:
    """One worker's channel over its stdin and stdout, served by two threads of the grader (``_Pipes``).

    Args:
        scratch: the worker's scratch folder (str), the only folder the kernel's rules let it write; None: no
            kernel rules (the tests that drive the transport alone).

    Every method is the transport's part of ``grader.isolation.sandbox.Sandbox``, which holds the protocol.
    """

    def __init__(self, scratch=None):
        self.pipes = None
        # The kernel's plan (grader.isolation.kernel_rules.prepare): None off Linux, where no kernel rule exists.
        self.confinement = kernel_rules.prepare(scratch) if scratch is not None and os.name == "posix" else None

    def start(self, source, scratch, output_fd, limits, env):
        """Start the bootstrap, which reads ``source`` from stdin; its stderr is the output file ``output_fd``.

        Args:
            as ``grader.isolation.transport_posix.PosixTransport.start``; ``limits.output_bytes`` caps what the
            worker writes itself, as no file size limit holds here.
        Returns:
            the worker's ``subprocess.Popen``.
        Raises:
            OSError, subprocess.SubprocessError: no process could start, or the kernel refused the confinement.
        """
        options = {"start_new_session": True} if os.name == "posix" else {
            "creationflags": subprocess.CREATE_NEW_PROCESS_GROUP | getattr(subprocess, "CREATE_NO_WINDOW", 0)}

        def start(plan):
            # apply raises if it fails: never unconfined by surprise
            preexec = {"preexec_fn": lambda: kernel_rules.apply(plan)} if plan is not None else {}
            return subprocess.Popen(
                [sys.executable, "-I", "-S", "-B", "-u", "-c", BOOTSTRAP, "stdio", "stdio", scratch, KIT_ROOT,
                 str(limits.output_bytes)],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=output_fd, cwd=scratch, env=env, bufsize=0,
                **options, **preexec)

        process, self.confinement = kernel_rules.start_confined(start, self.confinement)
        self.pipes = _Pipes(process)
        encoded = source.encode("utf-8")
        self.pipes.write(b"%010d" % len(encoded) + encoded)  # queued now: the worker reads it as it starts
        return process

    def send(self, data, deadline):
        """Write ``data`` before ``deadline`` (``grader.isolation.deadlines.Deadline``): True when written, False
        when it passed first.

        Raises:
            BrokenPipeError: the worker is gone.
        """
        return self.pipes.write(data, deadline)

    def next_chunk(self, timeout):
        """The next bytes the worker wrote (``b""`` at its end), or None when none came within ``timeout`` s."""
        try:
            return self.pipes.replies.get(timeout=timeout)
        except queue.Empty:
            return None

    def worker_waits(self):
        """Whether the worker is waiting for the grader (bool), for ``grader.isolation.deadlines.Deadline``: what it
        wrote lies in the reply queue or, not yet taken by the reader thread, in the pipe; or a message handed to
        the writer thread is not all written (the worker's reading is its main thread's: a submission's code does
        not run then). The reader and writer threads are the grader's: on a busy machine they wait for the CPU
        like the rest of it, and CI lost 1 MB cases to that wait (issue 24)."""
        pipes = self.pipes
        if pipes is None or pipes.failed:  # failed: the worker stopped reading, so it is gone
            return False
        if pipes.requests.unfinished_tasks or not pipes.replies.empty():
            return True
        try:
            return unread_bytes(pipes.reply_fd) > 0
        except (OSError, TypeError):  # closed: the worker is gone
            return False

    def kill(self, process):
        """End the worker and every process below it (psutil; on POSIX its session's group too)."""
        kill_tree_portable(process)

    stop = kill  # nothing here touches a descriptor the interrupted code may be using

    def close(self):
        """Let the writer thread end (the reader ends at the worker's end of output)."""
        if self.pipes is not None:
            self.pipes.close()
            self.pipes = None
