"""Kernel confinement of the worker process with Linux's Landlock (Linux 5.13 and later, unprivileged).

The worker's audit-hook guard (``grader.worker``) refuses what no solution needs, but it is Python
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
or resource limits of other processes: the guard refuses those (``grader.worker``).

Documented in the kernel's userspace API (Documentation/userspace-api/landlock.rst); the
constants below are from ``include/uapi/linux/landlock.h``. The system calls have the same numbers
on every architecture (444-446). ``ctypes`` calls them because the standard library has no
wrapper; nothing else in the kit needs native code. Where Landlock is missing (other kernels,
macOS) the worker runs with the guard alone, and ``status()`` says so.
"""

import ctypes
import os
import sys

CREATE_RULESET, ADD_RULE, RESTRICT_SELF = 444, 445, 446
CREATE_RULESET_VERSION = 1 << 0
RULE_PATH_BENEATH = 1
PR_SET_NO_NEW_PRIVS = 38

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
    if not version:
        return "Landlock is not available here: the worker runs with the audit-hook guard only."
    extras = []
    if version >= 4:
        extras.append("no TCP")
    if version >= 6:
        extras.append("no signals to the grader")
    return (f"Landlock ABI {version}: the worker can write only in its scratch folder and read only Python and "
            "system libraries" + (f"; {', '.join(extras)}" if extras else "") + ".")


def _read_paths():
    """Folders the worker must read: the Python installation(s) it runs from, and system libraries."""
    paths = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix,
             os.path.dirname(os.path.realpath(sys.executable)), *SYSTEM_READ_PATHS}
    return sorted(p for p in paths if p and os.path.isdir(p))


def prepare(scratch):
    """Everything ``apply`` needs, computed in the grader before it forks (no allocation after fork).

    Args:
        scratch: the worker's scratch folder (str), the only place it may write.
    Returns:
        a plan (tuple) for ``apply``, or None when Landlock is unavailable.
    """
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


def apply(plan):
    """Confine the calling process (and its future children) by ``plan``; call in the forked child.

    Raises:
        OSError: a system call failed; the worker must then not start (``subprocess`` reports it),
            rather than run unconfined while the grader believes it is confined.
    """
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
        if _LIBC.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS) failed")
        if _LIBC.syscall(RESTRICT_SELF, ctypes.c_int(ruleset), ctypes.c_uint32(0)) < 0:
            raise OSError(ctypes.get_errno(), "landlock_restrict_self failed")
    finally:
        os.close(ruleset)
