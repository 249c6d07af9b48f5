"""The POSIX transport (Linux, macOS): two inherited pipes read with ``select``, and the limits and kernel rules
applied between fork and exec.

The worker starts in a session of its own, with resource limits (CPU seconds, address space, output file size,
open files, no core dumps, processes where the kernel applies that limit) and, on Linux, under the kernel's rules
of ``grader.isolation.kernel_rules`` (Landlock, seccomp); its process group and every process below it are killed
at the end of a case that went wrong.
"""

import os
import select
import signal
import subprocess
import sys

from grader.isolation import kernel_rules
from grader.isolation.deadlines import unread_bytes
from grader.isolation.processes import kill_descendants
from grader.paths import KIT_ROOT


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


def limit_resources(limits, confinement=None, processes=None):
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
            # Locked memory (mmap's MAP_LOCKED locked 4 MB past the filter's mlock rule: issue 40's fifth trial) and
            # queued signals, counted per user machine-wide (1000 POSIX timers raised root's count for every root
            # process); no solution locks memory or queues realtime signals.
            (resource.RLIMIT_MEMLOCK, 0),
            (resource.RLIMIT_SIGPENDING, 64),
            *([(resource.RLIMIT_NPROC, processes)] if processes else []),
        ):
            try:
                resource.setrlimit(which, (value, value))
            except (ValueError, OSError):
                pass  # a limit the platform refuses is skipped, not fatal
        if confinement is not None:
            kernel_rules.apply(confinement)  # raises if it fails: never run unconfined by surprise

    return apply


class PosixTransport:
    """One worker's channel over two inherited pipes: the grader's ends, and the worker's kernel rules.

    Args:
        scratch: the worker's scratch folder (str): the only folder the kernel's rules let it write.

    Every method is the transport's part of ``grader.isolation.sandbox.Sandbox``, which holds the protocol.
    """

    def __init__(self, scratch):
        # The kernel's plan (grader.isolation.kernel_rules.prepare), or None where the kernel offers no confinement.
        self.confinement = kernel_rules.prepare(scratch)
        self.reply_fd = None
        self.request_fd = None
        self.sending = False  # partway through writing a message (``send``)

    def start(self, source, scratch, output_fd, limits, env):
        """Start ``python -c source`` with the limits and kernel rules applied between fork and exec.

        Args:
            source: the worker's text (str). scratch: its working folder (str). output_fd: the grader's output
            file, the worker's stdout and stderr (int). limits: ``grader.isolation.limits.Limits``. env: dict.
        Returns:
            the worker's ``subprocess.Popen``.
        Raises:
            OSError, subprocess.SubprocessError: no process could start, or the kernel refused the confinement.
        """
        request_r, request_w = os.pipe()
        reply_r, reply_w = os.pipe()
        output = os.dup(output_fd)

        def start(plan):
            return subprocess.Popen(
                [sys.executable, "-I", "-S", "-B", "-u", "-c", source, str(request_r), str(reply_w), scratch, KIT_ROOT],
                stdin=subprocess.DEVNULL,
                stdout=output,
                stderr=subprocess.STDOUT,
                cwd=scratch,
                env=env,
                pass_fds=(request_r, reply_w),
                start_new_session=True,
                preexec_fn=limit_resources(limits, plan, process_limit()),
            )

        try:
            process, self.confinement = kernel_rules.start_confined(start, self.confinement)
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
        return process

    def send(self, data, deadline):
        """Write ``data`` (bytes or memoryview) before ``deadline`` (``grader.isolation.deadlines.Deadline``).

        Returns:
            True when all of it was written, False when the deadline passed first.
        Raises:
            BrokenPipeError: the worker is gone (its end of the pipe is closed).
        """
        self.sending = True
        try:
            while data:
                _, writable, _ = select.select([], [self.request_fd], [], deadline.remaining())
                if not writable:
                    if deadline.passed():
                        return False
                    continue
                try:
                    written = os.write(self.request_fd, data)
                except BlockingIOError:
                    continue
                except OSError as exc:
                    raise BrokenPipeError("the worker is gone") from exc
                data = data[written:]
            return True
        finally:
            self.sending = False

    def worker_waits(self):
        """Whether the worker is waiting for the grader (bool), for ``grader.isolation.deadlines.Deadline``: what it
        wrote lies unread in the reply pipe, or the grader is partway through a message and the worker has read all
        of it that is in the request pipe. ``FIONREAD`` on either end of a pipe gives the bytes in it (pipe(7))."""
        try:
            if unread_bytes(self.reply_fd) > 0:
                return True
            return self.sending and unread_bytes(self.request_fd) == 0
        except (OSError, TypeError):  # closed: the worker is gone
            return False

    def next_chunk(self, timeout):
        """The next bytes the worker wrote (``b""`` at its end), or None when none came within ``timeout`` s."""
        ready, _, _ = select.select([self.reply_fd], [], [], timeout)
        return os.read(self.reply_fd, 1 << 16) if ready else None

    def kill(self, process):
        """Kill every process below the worker, in any session (it is a child subreaper: ``grader.isolation.kernel_rules``),
        then its group. Elsewhere (macOS: no /proc) psutil finds those still below it. The caller reaps the worker."""
        if sys.platform.startswith("linux"):
            kernel_rules.kill_tree(process.pid)
        else:
            kill_descendants(process.pid)
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass

    def stop(self, process):
        """``kill`` for a signal handler (``grader.isolation.sandbox.stop_all_workers``): it only reads ``/proc`` and
        sends signals, touching no file descriptor the interrupted code may be using."""
        try:
            kernel_rules.kill_tree(process.pid)  # what it started in other sessions too (reads /proc, sends signals)
            os.killpg(process.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError, OSError):
            pass

    def close(self):
        """Close the grader's ends of the pipes (after the worker was killed)."""
        for fd in (self.reply_fd, self.request_fd):
            try:
                os.close(fd)
            except (OSError, TypeError):
                pass
        self.reply_fd = self.request_fd = None
