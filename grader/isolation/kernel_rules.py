"""Kernel confinement of the worker process with Linux's Landlock (Linux 5.13 and later, unprivileged).

The worker's audit-hook guard (``grader.isolation.worker``) refuses what no solution needs, but it is Python
code in the same process as the learner's code, so code determined to corrupt the interpreter can
switch it off. Landlock rules are enforced by the kernel and inherited by every process the worker
starts: once applied, the worker (and anything it forks) can

- write, create or remove files only inside its scratch folder (no device nodes there), and ``/dev/null``;
- read and execute only the Python installation, the system's libraries (``/usr``, ``/lib*``,
  ``/etc``) and its scratch folder; so not the kit (the reference solution, the hidden cases,
  the grader's bytecode), not ``/proc``, not results files;
- (Landlock ABI 4, Linux 6.7) not bind or connect TCP sockets;
- (ABI 6, Linux 6.12) not signal processes outside its own sandbox (the grader), nor connect to
  abstract Unix sockets outside it.

Landlock does not cover changes of file metadata (mode, owner, times, extended attributes), UDP,
or resource limits of other processes: the guard refuses those (``grader.isolation.worker``).

Two more kernel rules, independent of Landlock:

- a seccomp filter (Linux 3.5+, x86-64 and arm64) refuses every system call that creates a process
  (``fork``, ``vfork``, ``clone`` without ``CLONE_THREAD``); threads are still allowed, and
  ``clone3`` answers "not implemented", so the C library falls back to ``clone`` for them. A
  submission that gets past the audit-hook guard still cannot start anything that could outlive it;
- the worker is a "child subreaper" (``PR_SET_CHILD_SUBREAPER``, Linux 3.4+): where no filter can
  be installed, every process it starts stays below it, even one that leaves its session, so
  ``kill_tree`` finds and ends them all.

Documented in the kernel's userspace API (Documentation/userspace-api/landlock.rst); the
constants below are from ``include/uapi/linux/landlock.h``. The system calls have the same numbers
on every architecture (444-446). ``ctypes`` calls them because the standard library has no
wrapper; nothing else in the kit needs native code. Where Landlock is missing (other kernels,
macOS) the worker runs with the guard alone, and ``status()`` says so.
"""

import ctypes
import os
import platform
import signal
import sys

CREATE_RULESET, ADD_RULE, RESTRICT_SELF = 444, 445, 446
CREATE_RULESET_VERSION = 1 << 0
RULE_PATH_BENEATH = 1
PR_SET_NO_NEW_PRIVS = 38
PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 22, 2
PR_SET_CHILD_SUBREAPER = 36

FS_EXECUTE, FS_WRITE_FILE, FS_READ_FILE, FS_READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
FS_MAKE_CHAR, FS_MAKE_BLOCK = 1 << 6, 1 << 11
FS_ABI1 = (1 << 13) - 1  # EXECUTE .. MAKE_SYM: every right of ABI 1
FS_REFER, FS_TRUNCATE, FS_IOCTL_DEV = 1 << 13, 1 << 14, 1 << 15
NET_BIND_TCP, NET_CONNECT_TCP = 1 << 0, 1 << 1
SCOPE_ABSTRACT_UNIX_SOCKET, SCOPE_SIGNAL = 1 << 0, 1 << 1
FILE_RIGHTS = FS_EXECUTE | FS_WRITE_FILE | FS_READ_FILE | FS_TRUNCATE | FS_IOCTL_DEV  # those valid on a file

SYSTEM_READ_PATHS = ("/usr", "/lib", "/lib64", "/lib32", "/etc", "/bin", "/sbin")


class _RulesetAttr(ctypes.Structure):
    _fields_ = [("handled_access_fs", ctypes.c_uint64), ("handled_access_net", ctypes.c_uint64),
                ("scoped", ctypes.c_uint64)]


class _PathBeneathAttr(ctypes.Structure):
    _pack_ = 1  # the kernel's struct is packed
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


def _libc():
    try:
        return ctypes.CDLL(None, use_errno=True)
    except OSError:
        return None


_LIBC = _libc() if sys.platform.startswith("linux") else None


def abi_version():
    """The running kernel's Landlock ABI version (int), or 0 when Landlock is unavailable."""
    if _LIBC is None:
        return 0
    version = _LIBC.syscall(CREATE_RULESET, None, ctypes.c_size_t(0), ctypes.c_uint32(CREATE_RULESET_VERSION))
    return max(version, 0)


def status():
    """One sentence for reports and the README's checks: which confinement the worker gets (str)."""
    version = abi_version()
    processes = (" The kernel refuses to let it start processes (seccomp)." if seccomp_available() else
                 " No seccomp filter here: only the guard stops it starting processes; any it starts are killed with it.")
    if not version:
        return "Landlock is not available here: the worker runs with the audit-hook guard only." + processes
    extras = []
    if version >= 4:
        extras.append("no TCP")
    if version >= 6:
        extras.append("no signals to the grader")
    return (f"Landlock ABI {version}: the worker can write only in its scratch folder and read only Python and "
            "system libraries" + (f"; {', '.join(extras)}" if extras else "") + "." + processes)


# -- seccomp: no new processes ------------------------------------------------------------------

class _SockFilter(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint16), ("jt", ctypes.c_uint8), ("jf", ctypes.c_uint8), ("k", ctypes.c_uint32)]


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_uint16), ("filter", ctypes.POINTER(_SockFilter))]


# From include/uapi/linux/audit.h, seccomp.h, sched.h and each architecture's syscall table.
# machine -> (AUDIT_ARCH_*, syscalls that always create a process, clone, clone3, whether the x32 ABI exists)
ARCHITECTURES = {
    "x86_64": (0xC000003E, (57, 58), 56, 435, True),  # fork, vfork
    "aarch64": (0xC00000B7, (), 220, 435, False),  # arm64 has no fork or vfork system call
}
ARCHITECTURES["amd64"] = ARCHITECTURES["x86_64"]
ARCHITECTURES["arm64"] = ARCHITECTURES["aarch64"]
CLONE_THREAD = 0x00010000
X32_SYSCALL_BIT = 0x40000000
SECCOMP_RET_ALLOW, SECCOMP_RET_ERRNO = 0x7FFF0000, 0x00050000
EPERM, ENOSYS = 1, 38
_LD_ABS_W, _JEQ, _JGE, _JSET, _RET = 0x20, 0x15, 0x35, 0x45, 0x06


def no_process_filter(machine=None):
    """The seccomp program that refuses creating processes (an array of ``sock_filter``), or None
    where the architecture is not one the kit knows the system calls of.

    ``fork``/``vfork`` and ``clone`` without ``CLONE_THREAD`` fail with EPERM; ``clone3`` (whose
    flags a filter cannot read) fails with ENOSYS, so glibc creates threads with ``clone`` instead;
    a system call of another ABI (32-bit or x32 calls from a 64-bit process) fails with EPERM.
    """
    arch = ARCHITECTURES.get(machine or platform.machine())
    if arch is None:
        return None
    audit_arch, forks, clone, clone3, x32 = arch
    program = [("ld", 4), ("jeq", audit_arch, None, "deny"), ("ld", 0)]  # (op, k, jump if true, jump if false)
    if x32:
        program.append(("jge", X32_SYSCALL_BIT, "deny", None))
    program += [("jeq", number, "deny", None) for number in forks]
    program += [("jeq", clone3, "nosys", None), ("jeq", clone, None, "allow"), ("ld", 16),
                ("jset", CLONE_THREAD, "allow", "deny")]
    labels = {"allow": len(program), "deny": len(program) + 1, "nosys": len(program) + 2}
    codes = {"ld": _LD_ABS_W, "jeq": _JEQ, "jge": _JGE, "jset": _JSET}
    filters = []
    for index, (op, k, *jumps) in enumerate(program):
        jt, jf = ((labels[j] - index - 1 if j else 0) for j in (jumps or [None, None]))
        filters.append((codes[op], jt, jf, k))
    filters += [(_RET, 0, 0, SECCOMP_RET_ALLOW), (_RET, 0, 0, SECCOMP_RET_ERRNO | EPERM),
                (_RET, 0, 0, SECCOMP_RET_ERRNO | ENOSYS)]
    return (_SockFilter * len(filters))(*[_SockFilter(*f) for f in filters])


# -- the worker's process tree -------------------------------------------------------------------

def _children(pid):
    """PIDs of ``pid``'s children, from /proc (every thread's list), or from every process's parent link."""
    try:
        threads = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return []
    found = []
    for thread in threads:
        try:
            with open(f"/proc/{pid}/task/{thread}/children", encoding="ascii") as handle:
                found += [int(child) for child in handle.read().split()]
        except FileNotFoundError:  # a kernel without CONFIG_PROC_CHILDREN: read every process's parent
            return _children_by_parent(pid)
        except OSError:
            continue
    return found


def _children_by_parent(pid):
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="ascii", errors="replace") as handle:
                fields = handle.read().rpartition(")")[2].split()
        except OSError:
            continue
        if len(fields) > 1 and fields[1] == str(pid):
            found.append(int(entry))
    return found


def kill_tree(pid):
    """End ``pid`` and every process below it, in any session or process group (Linux; elsewhere only ``pid``).

    The worker is a child subreaper (see ``apply``), so a process it started that detached itself
    (a double fork, a new session) is still below it. Each process found is stopped first, so none
    can start another while the tree is read, then all are killed. Only the caller reaps ``pid``.
    Returns:
        the PIDs ended besides ``pid`` (list of int).
    """
    seen, pending = [], _children(pid)
    if pending:
        try:
            os.kill(pid, signal.SIGSTOP)
        except OSError:
            pass
    while pending:
        child = pending.pop()
        if child in seen:
            continue
        try:
            os.kill(child, signal.SIGSTOP)
        except OSError:
            continue
        seen.append(child)
        pending += _children(child)
    for target in [pid, *seen]:
        try:
            os.kill(target, signal.SIGKILL)
        except OSError:
            pass
    return seen


def _read_paths():
    """Folders the worker must read: the Python installation(s) it runs from, and system libraries."""
    paths = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix,
             os.path.dirname(os.path.realpath(sys.executable)), *SYSTEM_READ_PATHS}
    return sorted(p for p in paths if p and os.path.isdir(p))


PR_GET_SECCOMP = 21
_SECCOMP = []  # whether this kernel accepts seccomp filters, probed once


def seccomp_available():
    """True when the kernel accepts seccomp filters and the kit knows this architecture's system calls."""
    if not _SECCOMP:
        usable = _LIBC is not None and no_process_filter() is not None and _LIBC.prctl(PR_GET_SECCOMP, 0, 0, 0, 0) >= 0
        _SECCOMP.append(bool(usable))
    return _SECCOMP[0]


def _landlock_plan(scratch):
    version = abi_version()
    if not version:
        return None
    fs = FS_ABI1 | (FS_REFER if version >= 2 else 0) | (FS_TRUNCATE if version >= 3 else 0) \
        | (FS_IOCTL_DEV if version >= 5 else 0)
    net = (NET_BIND_TCP | NET_CONNECT_TCP) if version >= 4 else 0
    scoped = (SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL) if version >= 6 else 0
    attr = _RulesetAttr(fs, net, scoped)
    size = 24 if version >= 6 else 16 if version >= 4 else 8  # older kernels refuse fields they do not know
    read = (FS_EXECUTE | FS_READ_FILE | FS_READ_DIR) & fs
    rules = [(path, read) for path in _read_paths()]
    # In scratch: everything but running programs and making device nodes (a character device made there
    # reached the kernel log: an adversarial test).
    scratch_rights = fs & ~(FS_EXECUTE | FS_MAKE_CHAR | FS_MAKE_BLOCK)
    rules += [("/dev/null", (FS_READ_FILE | FS_WRITE_FILE | FS_TRUNCATE) & fs & FILE_RIGHTS), (scratch, scratch_rights)]
    return attr, size, [(os.fsencode(path), rights) for path, rights in rules]


def prepare(scratch, processes=True):
    """Everything ``apply`` needs, computed in the grader before it forks (no allocation after fork).

    Args:
        scratch: the worker's scratch folder (str), the only place it may write.
        processes: also refuse creating processes (the seccomp filter) where the kernel allows it (bool).
    Returns:
        a plan for ``apply``: ``(landlock, seccomp)``, each None where this kernel lacks it; or None
        when the system offers neither (not Linux).
    """
    if _LIBC is None:
        return None
    program = no_process_filter() if processes and seccomp_available() else None
    seccomp = _SockFprog(len(program), ctypes.cast(program, ctypes.POINTER(_SockFilter))) if program else None
    return _landlock_plan(scratch), (seccomp, program)


def _landlock(plan):
    attr, size, rules = plan
    ruleset = _LIBC.syscall(CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(size), ctypes.c_uint32(0))
    if ruleset < 0:
        raise OSError(ctypes.get_errno(), "landlock_create_ruleset failed")
    try:
        for path, rights in rules:
            try:
                fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
            except OSError:
                continue  # a folder this system lacks
            try:
                rule = _PathBeneathAttr(rights, fd)
                if _LIBC.syscall(ADD_RULE, ctypes.c_int(ruleset), ctypes.c_int(RULE_PATH_BENEATH), ctypes.byref(rule),
                                 ctypes.c_uint32(0)) < 0:
                    raise OSError(ctypes.get_errno(), f"landlock_add_rule failed for {path!r}")
            finally:
                os.close(fd)
        if _LIBC.syscall(RESTRICT_SELF, ctypes.c_int(ruleset), ctypes.c_uint32(0)) < 0:
            raise OSError(ctypes.get_errno(), "landlock_restrict_self failed")
    finally:
        os.close(ruleset)


def apply(plan):
    """Confine the calling process (and its future children) by ``plan``; call in the forked child.

    Makes the process a child subreaper, sets ``no_new_privs`` (which both rules require), then
    applies the Landlock rules and the seccomp filter that the plan holds.
    Raises:
        OSError: a system call failed; the worker must then not start (``subprocess`` reports it),
            rather than run unconfined while the grader believes it is confined.
    """
    landlock, (seccomp, _) = plan
    _LIBC.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)  # Linux 3.4+; without it kill_tree still finds attached children
    if (landlock or seccomp) and _LIBC.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS) failed")
    if landlock:
        _landlock(landlock)
    if seccomp and _LIBC.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(seccomp), 0, 0) < 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_SECCOMP) failed")
