"""Wall-clock limits that a busy machine does not use up: a worker that is computing, or waiting for the grader,
keeps its time.

A case's limit (``grader.isolation.limits.Limits.case_seconds``) is there to catch an endless loop or a hang.
Measured on the wall clock alone it judged the machine instead: a 1 MB call takes the reference 0.2 s on an idle
machine, and CI, with the suite beside it, once stopped that case at 1 s; issue 25 saw one notebook score 121
and 0 on two runs. A ``Deadline`` that reaches its end looks at the worker first. If the kernel says the worker
is computing (state ``R``, running or ready to run, or ``D``, waiting for the disk) and it has used less CPU time
than the limit (every thread's), the machine kept it waiting, so the end moves by the CPU time it has not used
yet. So it does when the worker waits for the grader (``waits``): its answer lies unread in the pipe, or the
grader is partway through writing it a message. That is the grader kept off the CPU, not the worker: CI lost a
case of 10,000 undeclared fields (0.04 s idle; a 600 kB answer, more than a pipe holds) to the 1 s limit while
the worker sat blocked writing its answer. A worker that sleeps, or waits for something that does not come, is
stopped at the limit, as before; so is one whose CPU time reaches the limit. The end never moves past
``BACKSTOP_FACTOR`` times the limit. On an idle machine a computing worker's CPU time is its wall time, and the
grader reads what it writes at once, so nothing changes there. Where ``/proc`` is missing
(Windows, macOS) the limit is the wall clock alone.

Why not the kernel's per-task wait time (``/proc/<pid>/schedstat``) for a case: it reads 0 where the kernel keeps no
such count, as on some machines this kit was measured on. The submission's whole budget (``Budget``) does use it where
it reads: there it gives back what the machine took, and elsewhere it is the wall clock within a backstop.
"""

import os
import struct
import time

try:  # POSIX only; elsewhere no pipe can be asked how much it holds
    import fcntl
    import termios
except ImportError:
    fcntl = termios = None

# How far past its limit a deadline may be moved while the machine is busy: a case of 1 s may take 10 s of wall
# clock on a machine ten times oversubscribed, and never more, whatever the kernel reports.
BACKSTOP_FACTOR = 10.0
_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100  # /proc's unit of CPU time; no sysconf on Windows
_COMPUTING = {b"R", b"D"}  # running or ready to run; waiting for the disk (proc(5), /proc/pid/stat field 3)


def process_state(pid):
    """``(state, cpu)`` of the process ``pid``: its state letter from ``/proc/<pid>/stat`` (bytes, e.g. ``b"R"``,
    ``b"S"``; of its first thread) and the CPU time its threads have used (float, s, user and system); ``(None,
    0.0)`` when it cannot be read (no ``/proc``, the process ended).

    Fields 3, 14 and 15 of proc(5), read after the command name's closing parenthesis: the submission can put
    spaces and parentheses in its name."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            fields = handle.read().rpartition(b")")[2].split()
        return fields[0], (int(fields[11]) + int(fields[12])) / _TICKS
    except (OSError, ValueError, IndexError):
        return None, 0.0


def unread_bytes(fd):
    """Bytes (int) waiting in the pipe of which ``fd`` is an end (``FIONREAD`` works on either end, pipe(7)); 0
    where the system has no ``FIONREAD`` (Windows). Raises OSError (or TypeError for None) when ``fd`` is not open.

    Both transports' ``worker_waits`` use it: a worker whose answer lies unread in its pipe waits for the grader."""
    if fcntl is None:
        return 0
    return struct.unpack("i", fcntl.ioctl(fd, termios.FIONREAD, b"\0\0\0\0"))[0]


def run_queue_wait(pid):
    """Seconds (float) the process ``pid``'s main thread has spent ready to run but waiting for a CPU, from
    ``/proc/<pid>/schedstat`` (its second field, in nanoseconds; sched-stats.rst in the kernel's documentation); None
    where it cannot be read (no ``/proc``, the process ended). Reads 0 where the kernel keeps no such count."""
    try:
        with open(f"/proc/{pid}/schedstat", "rb") as handle:
            return int(handle.read().split()[1]) / 1e9
    except (OSError, ValueError, IndexError):
        return None


class Budget:
    """The time budget of one submission (every exercise of a file; in a batch, all of one student's files), in
    ``seconds`` (float, s) of wall clock less the time the machine kept the submission's worker waiting for a CPU.

    ``forgive(seconds)`` gives back what a run of the worker waited in the kernel's run queue
    (``run_queue_wait``), so a busy machine does not use up a correct submission's budget (issue 25); a sleeping or
    slow submission spends it as before. Where the kernel keeps no such count nothing is given back, and the budget
    is the wall clock, as it was. The budget ends, whatever was given back, at ``BUDGET_BACKSTOP`` times
    ``seconds``: grading stays bounded.
    """

    def __init__(self, seconds):
        self.seconds = seconds
        self.start = time.monotonic()
        self.forgiven = 0.0

    def forgive(self, seconds):
        """Give back ``seconds`` (float, s; None or negative: nothing) the machine took from the submission."""
        if seconds and seconds > 0:
            self.forgiven += seconds

    def spent(self):
        """Whether the budget is used up (bool)."""
        used = time.monotonic() - self.start
        return used - self.forgiven >= self.seconds or used >= self.seconds * BUDGET_BACKSTOP


# A submission's whole budget is not stretched past this many times its seconds, however busy the machine: a class's
# grading must end. Under a load of 21 on 2 cores, in a class of 52, the slowest correct file took 38 s (3 s idle)
# and a file that hangs on every other case 122 s (8 s idle).
BUDGET_BACKSTOP = 3.0


class Deadline:
    """A limit of ``seconds`` of wall clock from now that a computing worker ``pid`` does not lose to a busy machine.

    Args:
        seconds: the limit (float, s).
        pid: the worker's process id (int), or None for a plain wall-clock deadline.
        slack: seconds added to the limit that the backstop does not multiply (float, s): the worker's start.
        waits: a function of no arguments returning whether the worker is waiting for the grader (bool), e.g.
            ``grader.isolation.transport_posix.PosixTransport.worker_waits``; None: never.
    Use ``remaining()`` where ``deadline - time.monotonic()`` was used: it returns 0.0, for good, once the end has
    passed and the worker is not owed more. ``extended`` (float, s) is how far the end has moved. ``busy`` (bool)
    is True when the end came at the backstop while the worker was still owed CPU time and kept waiting: the
    machine, not the submission, used the time, so the caller runs the case again before it counts (issue 25).
    """

    def __init__(self, seconds, pid=None, slack=0.0, waits=None):
        self.start = time.monotonic()
        self.seconds = seconds + slack
        self.end = self.start + self.seconds
        self.backstop = self.start + slack + seconds * BACKSTOP_FACTOR
        self.pid = pid
        self.waits = waits
        self.extended = 0.0
        self.expired = False
        self.busy = False
        self._cpu = process_state(pid)[1] if pid is not None else 0.0

    def remaining(self):
        """Seconds (float) until the end, 0.0 once it has passed; at the end, first moves it later by the CPU
        time a computing (or waiting) worker has not used yet, within the backstop."""
        if self.expired:
            return 0.0
        now = time.monotonic()
        if now < self.end:
            return self.end - now
        if self.pid is not None:
            state, cpu = process_state(self.pid)
            owed = self.seconds - (cpu - self._cpu)
            kept_waiting = state in _COMPUTING or (state is not None and self.waits is not None and self.waits())
            if kept_waiting and owed > 0:
                if now >= self.backstop:
                    self.busy = True
                else:
                    end = min(now + owed, self.backstop)
                    self.extended += end - self.end
                    self.end = end
                    return end - now
        self.expired = True
        return 0.0

    def passed(self):
        """Whether the end has passed (bool): ``remaining() <= 0``."""
        return self.remaining() <= 0
