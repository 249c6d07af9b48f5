"""A worker's processes on any system: finding and ending the tree below it, and how much memory it held.

psutil where it is installed (the portable transport needs it; Linux's POSIX transport does not, as the kernel's
rules and ``/proc`` serve it: ``grader.isolation.kernel_rules``). Every function here does nothing harmful when
psutil is missing: it finds nothing, or reads 0.
"""

import os
import signal
import sys


def psutil_or_none():
    """The psutil module, or None where it is not installed (the POSIX transport on Linux does not need it)."""
    try:
        import psutil
    except ImportError:
        return None
    return psutil


def kill_descendants(pid):
    """Suspend ``pid`` and every process below it, then kill those below it (psutil; any system).

    Suspended first, so that none starts another while the tree is read. A process that left the tree
    before this call (its parent died) is not found. Does nothing without psutil.
    Returns:
        the PIDs killed (list of int).
    """
    psutil = psutil_or_none()
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
    psutil = psutil_or_none()
    if psutil is None:
        return 0
    try:
        info = psutil.Process(pid).memory_info()
    except psutil.Error:
        return 0
    return getattr(info, "peak_pagefile", None) or info.rss
