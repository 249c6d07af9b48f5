"""Kernel confinement of the worker process with Linux's Landlock (Linux 5.13 and later, unprivileged).

The worker's audit-hook guard (``grader.isolation.worker``) refuses what no solution needs, but it is Python
code in the same process as the learner's code, so code determined to corrupt the interpreter can
switch it off. Landlock rules are enforced by the kernel and inherited by every process the worker
starts: once applied, the worker (and anything it forks) can

- write, create or remove files only inside its scratch folder (no device nodes, links, pipes or socket files
  there), and ``/dev/null``;
- run no program but its own interpreter (and that program's loader: ``_programs``), so not ``/bin/sh`` past
  the guard (issue 41's second attacker trial);
- read only the Python installation, the system's libraries (``/usr``, ``/lib*``, and of
  ``/etc`` the files of ``ETC_READ_PATHS``) and its scratch folder; so not the kit (the reference solution, the
  hidden cases, the grader's bytecode), not ``/proc``, not results files, not ``/etc/shadow``;
- (Landlock ABI 4, Linux 6.7) not bind or connect TCP sockets;
- (ABI 6, Linux 6.12) not signal processes outside its own sandbox (the grader), nor connect to
  abstract Unix sockets outside it.

Landlock does not cover changes of file metadata (mode, owner, times, extended attributes), UDP,
or resource limits of other processes: the guard refuses those (``grader.isolation.worker``), and the seccomp
filter below refuses them whatever code asks.

Two more kernel rules, independent of Landlock:

- a seccomp filter (Linux 3.5+, x86-64 and arm64; ``filter_instructions``) refuses, with EPERM, whatever native
  code the worker runs (a C extension, a subinterpreter without the guard's hooks, io_uring):
  - every system call that creates a process (``fork``, ``vfork``, ``clone`` without ``CLONE_THREAD``); threads
    are still allowed, and ``clone3`` answers "not implemented", so the C library falls back to ``clone`` for
    them. A submission that gets past the audit-hook guard still cannot start anything that could outlive it;
  - every socket but a connected AF_UNIX stream pair (what asyncio and ``multiprocessing.Pipe`` use), and
    io_uring, which makes sockets of its own: no UDP, TCP or UNIX socket outside the sandbox, whatever Landlock's
    version;
  - System V IPC and POSIX message queues (named machine-wide, another way out);
  - changing any file's owner or extended attributes, or its flags by ioctl, which Landlock does not govern
    (so not in scratch either: no solution needs it); ``chmod`` and ``utime`` answer success and do nothing;
  - acting on another process by its id (``setpriority``, ``sched_*``, ``prlimit``, ``kill`` and the signal calls);
  - tracing or reading other processes (``ptrace``, ``process_vm_readv``, pidfds...), namespaces and mounts, BPF,
    the keyrings, and the calls that act on the whole machine as root (CI and containers run the worker as root);
  - the network's device ioctls, scheduling and pinned memory, memory files, inotify and file locks;
- a worker started by root keeps none of root's capabilities (``drop_capabilities``): its user is still 0, but
  the kernel's own checks then refuse what only capabilities allow (network administration, tracing past the
  owner check, realtime scheduling, locking memory, descriptors in flight past its file limit), whatever a
  filter misses;
- the worker is a "child subreaper" (``PR_SET_CHILD_SUBREAPER``, Linux 3.4+): where no filter can
  be installed, every process it starts stays below it, even one that leaves its session, so
  ``kill_tree`` finds and ends them all.
- before all of these, the worker enters a user and a network namespace of its own (``enter_namespaces``, where
  the system allows them: ``namespace_refusal``): its network has no device but a loopback that is down, so no
  packet leaves it whatever a filter misses, and from a user namespace it can trace or read no process outside.
  It keeps its user and group ids, its pid and its files; where user namespaces are refused (Docker's default
  seccomp profile, a limit of 0, AppArmor's restriction) the worker runs with the other rules alone.

Documented in the kernel's userspace API (Documentation/userspace-api/landlock.rst); the
constants below are from ``include/uapi/linux/landlock.h``. The system calls have the same numbers
on every architecture (444-446). ``ctypes`` calls them because the standard library has no
wrapper; nothing else in the kit needs native code. Where Landlock is missing (other kernels,
macOS) the worker runs with the guard alone, and ``grader.isolation.protections.walls()`` says so.
"""

import ctypes
import errno
import os
import platform
import signal
import struct
import subprocess
import sys
import typing

from grader.paths import KIT_ROOT

CREATE_RULESET, ADD_RULE, RESTRICT_SELF = 444, 445, 446
CREATE_RULESET_VERSION = 1 << 0
RULE_PATH_BENEATH = 1
PR_SET_NO_NEW_PRIVS = 38
PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 22, 2
PR_SET_CHILD_SUBREAPER = 36
CLONE_NEWUSER, CLONE_NEWNET = 0x10000000, 0x40000000  # include/uapi/linux/sched.h
PR_GET_DUMPABLE, PR_SET_DUMPABLE = 3, 4
# Capabilities (include/uapi/linux/capability.h, prctl.h; man 7 capabilities): the bounding set limits what an
# exec may grant, so root's next program gets none of them; capset then empties the three sets now.
PR_CAPBSET_READ, PR_CAPBSET_DROP, PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL = 23, 24, 47, 4
LINUX_CAPABILITY_VERSION_3, CAP_SETPCAP, CAPABILITY_SLOTS = 0x20080522, 8, 64

FS_EXECUTE, FS_WRITE_FILE, FS_READ_FILE, FS_READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
FS_MAKE_CHAR, FS_MAKE_SOCK, FS_MAKE_FIFO, FS_MAKE_BLOCK, FS_MAKE_SYM = 1 << 6, 1 << 9, 1 << 10, 1 << 11, 1 << 12
FS_ABI1 = (1 << 13) - 1  # EXECUTE .. MAKE_SYM: every right of ABI 1
FS_REFER, FS_TRUNCATE, FS_IOCTL_DEV = 1 << 13, 1 << 14, 1 << 15
NET_BIND_TCP, NET_CONNECT_TCP = 1 << 0, 1 << 1
SCOPE_ABSTRACT_UNIX_SOCKET, SCOPE_SIGNAL = 1 << 0, 1 << 1
FILE_RIGHTS = FS_EXECUTE | FS_WRITE_FILE | FS_READ_FILE | FS_TRUNCATE | FS_IOCTL_DEV  # those valid on a file

SYSTEM_READ_PATHS = ("/usr", "/lib", "/lib64", "/lib32", "/bin", "/sbin")
# Of /etc, only what the C library and the standard library read: the whole folder let a worker started by root
# print /etc/shadow in a visible case (issue 40's fourth trial; root reads it as its owner, capabilities or not).
# The loader's cache and preload list, time zone, users and groups (getpass, pwd, grp), name service, services and
# protocols (socket.getservbyname), mime.types (mimetypes), os-release (platform), locale aliases, OpenSSL's
# configuration and the certificates (import ssl), musl's library path. A path this system lacks is left out.
ETC_READ_PATHS = ("ld.so.cache", "ld.so.preload", "ld.so.conf", "ld.so.conf.d", "localtime", "timezone", "passwd",
                  "group", "nsswitch.conf", "host.conf", "hosts", "services", "protocols", "networks", "gai.conf",
                  "mime.types", "os-release", "locale.alias", "ssl/openssl.cnf", "ssl/certs",
                  "ld-musl-x86_64.path", "ld-musl-aarch64.path")


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


# -- seccomp: no new processes, no sockets, no other processes -----------------------------------

class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]


class _SockFilter(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint16), ("jt", ctypes.c_uint8), ("jf", ctypes.c_uint8), ("k", ctypes.c_uint32)]


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_uint16), ("filter", ctypes.POINTER(_SockFilter))]


# From include/uapi/linux/audit.h, seccomp.h, sched.h, socket.h, stat.h and each architecture's system call table
# (arch/x86/entry/syscalls/syscall_64.tbl; include/uapi/asm-generic/unistd.h for arm64). Calls numbered 424 and up
# have one number on every architecture.
_SHARED_NUMBERS = {"pidfd_send_signal": 424, "io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427,
                   "open_tree": 428, "move_mount": 429, "fsopen": 430, "fsconfig": 431, "fsmount": 432, "fspick": 433,
                   "pidfd_open": 434, "clone3": 435, "pidfd_getfd": 438, "process_madvise": 440, "mount_setattr": 442,
                   "quotactl_fd": 443, "process_mrelease": 448, "fchmodat2": 452, "setxattrat": 463,
                   "removexattrat": 466, "open_tree_attr": 467, "file_setattr": 469, "memfd_secret": 447,
                   "landlock_create_ruleset": 444, "landlock_add_rule": 445, "landlock_restrict_self": 446}
_X86_64 = {**_SHARED_NUMBERS,
           "fork": 57, "vfork": 58, "clone": 56, "socket": 41, "socketpair": 53, "connect": 42, "bind": 49,
           "listen": 50, "accept": 43, "accept4": 288, "ioctl": 16, "mknod": 133, "mknodat": 259,
           "ptrace": 101, "process_vm_readv": 310, "process_vm_writev": 311, "kcmp": 312, "migrate_pages": 256,
           "move_pages": 279, "unshare": 272, "setns": 308, "mount": 165, "umount2": 166, "pivot_root": 155,
           "chroot": 161, "bpf": 321, "userfaultfd": 323, "perf_event_open": 298, "personality": 135, "keyctl": 250,
           "add_key": 248, "request_key": 249, "reboot": 169, "kexec_load": 246, "kexec_file_load": 320,
           "init_module": 175, "finit_module": 313, "delete_module": 176, "create_module": 174, "uselib": 134,
           "swapon": 167, "swapoff": 168, "iopl": 172, "ioperm": 173, "settimeofday": 164, "clock_settime": 227,
           "clock_adjtime": 305, "adjtimex": 159, "sethostname": 170, "setdomainname": 171, "acct": 163,
           "quotactl": 179, "open_by_handle_at": 304, "fanotify_init": 300, "syslog": 103, "vhangup": 153,
           "lookup_dcookie": 212, "_sysctl": 156, "nfsservctl": 180,
           "shmget": 29, "shmat": 30, "shmctl": 31, "shmdt": 67, "semget": 64, "semop": 65, "semctl": 66,
           "semtimedop": 220, "msgget": 68, "msgsnd": 69, "msgrcv": 70, "msgctl": 71, "mq_open": 240,
           "mq_unlink": 241, "mq_timedsend": 242, "mq_timedreceive": 243, "mq_notify": 244, "mq_getsetattr": 245,
           "chmod": 90, "fchmod": 91, "fchmodat": 268, "chown": 92, "fchown": 93, "lchown": 94, "fchownat": 260,
           "utime": 132, "utimes": 235, "futimesat": 261, "utimensat": 280, "setxattr": 188, "lsetxattr": 189,
           "fsetxattr": 190, "removexattr": 197, "lremovexattr": 198, "fremovexattr": 199,
           "modify_ldt": 154, "sysfs": 139, "ustat": 136, "get_kernel_syms": 177, "query_module": 178,
           "setpriority": 141, "sched_setaffinity": 203, "sched_setscheduler": 144, "sched_setparam": 142,
           "sched_setattr": 314, "ioprio_set": 251, "prlimit64": 302, "get_robust_list": 274, "kill": 62,
           "tkill": 200, "tgkill": 234, "rt_sigqueueinfo": 129, "rt_tgsigqueueinfo": 297, "prctl": 157, "fcntl": 72,
           "fallocate": 285, "umask": 95, "mkdir": 83, "mkdirat": 258, "setsockopt": 54, "flock": 73,
           "inotify_init": 253, "inotify_init1": 294, "memfd_create": 319, "mlock": 149, "mlockall": 151, "mlock2": 325,
           "io_setup": 206, "vmsplice": 278, "seccomp": 317}
_ARM64 = {**_SHARED_NUMBERS,  # arm64 has none of x86-64's old calls (fork, mknod, chmod, utime, modify_ldt, sysfs...)
          "clone": 220, "socket": 198, "socketpair": 199, "connect": 203, "bind": 200, "listen": 201, "accept": 202,
          "accept4": 242, "ioctl": 29, "mknodat": 33, "ptrace": 117, "process_vm_readv": 270,
          "process_vm_writev": 271, "kcmp": 272, "migrate_pages": 238, "move_pages": 239, "unshare": 97, "setns": 268,
          "mount": 40, "umount2": 39, "pivot_root": 41, "chroot": 51, "bpf": 280, "userfaultfd": 282,
          "perf_event_open": 241, "personality": 92, "keyctl": 219, "add_key": 217, "request_key": 218, "reboot": 142,
          "kexec_load": 104, "kexec_file_load": 294, "init_module": 105, "finit_module": 273, "delete_module": 106,
          "swapon": 224, "swapoff": 225, "settimeofday": 170, "clock_settime": 112, "clock_adjtime": 266,
          "adjtimex": 171, "sethostname": 161, "setdomainname": 162, "acct": 89, "quotactl": 60,
          "open_by_handle_at": 265, "fanotify_init": 262, "syslog": 116, "vhangup": 58, "lookup_dcookie": 18,
          "nfsservctl": 42,
          "shmget": 194, "shmat": 196, "shmctl": 195, "shmdt": 197, "semget": 190, "semop": 193, "semctl": 191,
          "semtimedop": 192, "msgget": 186, "msgsnd": 189, "msgrcv": 188, "msgctl": 187, "mq_open": 180,
          "mq_unlink": 181, "mq_timedsend": 182, "mq_timedreceive": 183, "mq_notify": 184, "mq_getsetattr": 185,
          "fchmod": 52, "fchmodat": 53, "fchown": 55, "fchownat": 54, "utimensat": 88, "setxattr": 5,
          "lsetxattr": 6, "fsetxattr": 7, "removexattr": 14, "lremovexattr": 15, "fremovexattr": 16,
          "setpriority": 140, "sched_setaffinity": 122, "sched_setscheduler": 119, "sched_setparam": 118,
          "sched_setattr": 274, "ioprio_set": 30, "prlimit64": 261, "get_robust_list": 100, "kill": 129,
          "tkill": 130, "tgkill": 131, "rt_sigqueueinfo": 138, "rt_tgsigqueueinfo": 240, "prctl": 167, "fcntl": 25,
          "fallocate": 47, "umask": 166, "mkdirat": 34, "setsockopt": 208, "flock": 32, "inotify_init1": 26,
          "memfd_create": 279, "mlock": 228, "mlockall": 230, "mlock2": 284, "io_setup": 0, "vmsplice": 75,
          "seccomp": 277}
# machine -> (AUDIT_ARCH_*, whether the x32 ABI exists, {system call: number})
ARCHITECTURES = {"x86_64": (0xC000003E, True, _X86_64), "aarch64": (0xC00000B7, False, _ARM64)}
ARCHITECTURES["amd64"] = ARCHITECTURES["x86_64"]
ARCHITECTURES["arm64"] = ARCHITECTURES["aarch64"]

# What the filter refuses with EPERM (Python raises PermissionError), by why. No correct submission needs any of it.
# Creating processes: clone without CLONE_THREAD too, and clone3 answers ENOSYS (see confinement_filter).
PROCESS_CALLS = ("fork", "vfork")
# Sockets: none but a connected AF_UNIX stream pair (asyncio's event loop wakes itself with one;
# multiprocessing.Pipe is one). Past the guard, a subinterpreter sent every hidden input to a UDP listener on the
# same machine and spoke to a UNIX socket outside the sandbox; Landlock up to ABI 7 governs neither. io_uring
# makes sockets (IORING_OP_SOCKET) and opens files without any of these system calls, so it goes too.
SOCKET_CALLS = ("socket", "connect", "bind", "listen", "accept", "accept4",
                "io_uring_setup", "io_uring_enter", "io_uring_register")
# Reaching another process: reading or writing its memory, tracing it, comparing or taking its file descriptors,
# moving its pages, signalling it through a pidfd (a submission read the grader's heap through /proc/<pid>/mem).
OTHER_PROCESS_CALLS = ("ptrace", "process_vm_readv", "process_vm_writev", "kcmp", "pidfd_open", "pidfd_getfd",
                       "pidfd_send_signal", "process_madvise", "process_mrelease", "migrate_pages", "move_pages")
# Other ways to talk to processes outside the worker: System V shared memory, semaphores and message queues, and
# POSIX message queues, all named machine-wide (an attacker's submission wrote every input it was given into a
# System V segment that a process outside read).
IPC_CALLS = ("shmget", "shmat", "shmctl", "shmdt", "semget", "semop", "semctl", "semtimedop", "msgget", "msgsnd",
             "msgrcv", "msgctl", "mq_open", "mq_unlink", "mq_timedsend", "mq_timedreceive", "mq_notify",
             "mq_getsetattr")
# Changing a file's owner or extended attributes: Landlock governs no metadata, so any file the worker's user owns
# (as root, every file) could change, and the same attacker wrote inputs into the extended attributes of a file
# outside scratch. No solution needs either, in scratch or outside (shutil.copy2 passes over EPERM on xattrs).
METADATA_CALLS = ("chown", "fchown", "lchown", "fchownat", "setxattr", "lsetxattr", "fsetxattr", "removexattr",
                  "lremovexattr", "fremovexattr", "setxattrat", "removexattrat", "file_setattr")
# A file's mode and times carry bits just as well (the attacker wrote inputs into both, outside scratch), but
# shutil.copy, copy2, copytree and Path.touch() set them on the files they make in scratch, and a filter cannot tell
# which file a call names. So these return success without doing anything: a copy in scratch works, with the
# mode and times the kernel gave the new file; nothing changes outside. umask too (it answers 0): a mask of 0o700
# made folders their owner cannot list, below the grader's count and cleanup when it is not root (see MKDIR_MODE).
PRETENDED_CALLS = ("chmod", "fchmod", "fchmodat", "fchmodat2", "utime", "utimes", "futimesat", "utimensat", "umask")
# Changing what the worker sees: namespaces and mounts undo Landlock's view of the file system or a namespace wall.
VIEW_CALLS = ("unshare", "setns", "mount", "umount2", "pivot_root", "chroot", "open_tree", "open_tree_attr",
              "move_mount", "fsopen", "fsconfig", "fsmount", "fspick", "mount_setattr")
# The kernel's own surface: programs loaded into it, page faults handled by the process (a way to win kernel
# races), hardware counters, another execution domain, the user's keyrings (shared by all their processes), x86's
# local descriptor table and the obsolete calls that tell of file systems and modules.
# A filter or Landlock ruleset of the worker's own: the fifth trial stacked a filter answering SECCOMP_RET_LOG
# and wrote an input into the kernel log one call per byte, and held 0.9 GB of unreclaimable kernel memory in
# Landlock rules. The grader applies both before this filter, which then refuses them (and PR_SET_SECCOMP).
KERNEL_CALLS = ("bpf", "userfaultfd", "perf_event_open", "personality", "keyctl", "add_key", "request_key",
                "modify_ldt", "sysfs", "ustat", "get_kernel_syms", "query_module", "seccomp",
                "landlock_create_ruleset", "landlock_add_rule", "landlock_restrict_self")
# Root-only calls: CI, containers and Gradescope run the worker as root, where each of these acts on the whole
# machine (open_by_handle_at reads any file past Landlock's paths with CAP_DAC_READ_SEARCH).
ROOT_CALLS = ("reboot", "kexec_load", "kexec_file_load", "init_module", "finit_module", "delete_module",
              "create_module", "uselib", "swapon", "swapoff", "iopl", "ioperm", "settimeofday", "clock_settime",
              "clock_adjtime", "adjtimex", "sethostname", "setdomainname", "acct", "quotactl", "quotactl_fd",
              "open_by_handle_at", "fanotify_init", "syslog", "vhangup", "lookup_dcookie", "_sysctl", "nfsservctl")
# Reserving disk without writing it: the file size limit bounds each file, not how many, and native code made
# 12 800 files of 8 MB a second with fallocate (100 GB/s, a grading machine's disk full within one case, before
# the grader's check after the case). Writing the same bytes goes at the disk's speed (0.3 GB/s here), and no
# solution reserves space. glibc's posix_fallocate falls back to writing only on EOPNOTSUPP, so EPERM stops it.
DISK_CALLS = ("fallocate",)
# Taking the machine's time or memory from other processes (issue 40's fourth attacker trial, as root): a worker
# at SCHED_FIFO priority 99 left a process sharing its CPU none of it for 1.75 s of a 2.5 s spin; realtime I/O
# priority and mlockall worked too. Memory files (memfd) hold memory outside the address-space limit: parked in
# the socket pair, 1.6 GB. No solution schedules, pins or makes memory files (sched_setaffinity stays: SELF_ONLY).
# The fifth trial: vmsplice of huge pages left 2 MB pinned per pipe slot outside the address-space limit and the
# worker's RSS (215 MB for 100 slots; the OOM killer would pick other processes); io_setup takes native AIO
# contexts from fs.aio-max-nr, shared by the whole machine, with no capability exemption.
PRIORITY_CALLS = ("sched_setscheduler", "sched_setparam", "sched_setattr", "ioprio_set", "mlock", "mlock2",
                  "mlockall", "memfd_create", "memfd_secret", "vmsplice", "io_setup")
# Watching and holding files outside: inotify watches any folder the worker reads (the trial parked inotify
# descriptors past the 64-file limit and used up root's 128 instances for the whole machine), and flock holds a
# lock on any file it reads (/etc/.pwd.lock, which useradd and passwd take, from plain Python with the guard on).
# fcntl's locks, leases and F_NOTIFY are refused with them (FCNTL_REFUSED).
FILE_WATCH_CALLS = ("inotify_init", "inotify_init1", "flock")
REFUSED_CALLS = (SOCKET_CALLS + IPC_CALLS + OTHER_PROCESS_CALLS + METADATA_CALLS + DISK_CALLS + PRIORITY_CALLS
                 + FILE_WATCH_CALLS + VIEW_CALLS + KERNEL_CALLS + ROOT_CALLS)
CLONE_THREAD = 0x00010000
# A thread may not start in a namespace of its own: clone's rule let CLONE_THREAD with CLONE_NEWNET, NEWNS, NEWUTS
# and NEWCGROUP through (the trial); unshare and setns are refused (VIEW_CALLS), clone3 answers ENOSYS.
CLONE_NAMESPACES = 0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000 | 0x40000000
AF_UNIX, SOCK_STREAM, SOCK_TYPE_MASK = 1, 1, 0xF  # SOCK_NONBLOCK and SOCK_CLOEXEC sit above the type's 4 bits
# ioctls that type into a terminal (root may use them on any terminal it can open, not only its own).
TIOCSTI, TIOCLINUX = 0x5412, 0x541C
# mknod's file types that are devices (root can make a node for the raw disk and read the kit past every path check).
S_IFMT, S_IFCHR, S_IFBLK = 0o170000, 0o020000, 0o060000
# ioctl request types (bits 8-15) that change a file's attributes or its file system: 'f' (FS_IOC_SETFLAGS made a
# scratch file immutable, so the grader's cleanup left it with an input in it: the attacker's trial; fs-verity),
# 'v' (a file's generation), 'X' (FS_IOC_FSSETXATTR; FIFREEZE freezes a whole file system for root) and 0x94
# (clones, labels); and the network's: 0x89 (SIOC*: the allowed socket pair reached the machine's interfaces,
# which root could take down, past the guard, from plain Python: the fourth trial read eth0's flags and set a
# missing interface's MTU past the permission check) and 0x8B (wireless). No solution uses any of them; the
# terminal requests it may use (FIONBIO, FIONREAD, TCGETS) are type 'T'.
IOCTL_TYPE_MASK, FILE_IOCTL_TYPES = 0xFF00, (0x6600, 0x7600, 0x5800, 0x9400, 0x8900, 0x8B00)
# prctl: PR_SET_NAME puts 16 bytes in /proc/<pid>/comm, which every process on the machine reads (the trial did);
# it returns success without effect (Python 3.14 names its threads so). PR_SET_MM rewrites what /proc shows of
# the process's memory map and command line, as root.
PR_SET_NAME, PR_SET_MM = 15, 35
# fcntl F_SETOWN and F_SETOWN_EX make the kernel send SIGIO to a process of the caller's choice, and so do the
# ioctls FIOSETOWN and SIOCSPGRP (0x8901, 0x8902: refused with the rest of type 0x89, FILE_IOCTL_TYPES): from
# pure Python (fcntl.ioctl) they killed the grader, and a whole batch, with SIGIO where Landlock's signal scope
# (ABI 6, Linux 6.12) is missing (issue 40's attacker trial).
F_SETOWN, F_SETOWN_EX = 8, 15
# fcntl F_SETLEASE: a read lease on any file the worker may read (as root, CAP_LEASE: the interpreter's own files)
# makes every process on the machine that opens it for writing wait for the worker, up to fs.lease-break-time
# (45 s by default; measured: a writer waited the 8 s the holder slept), and tells the worker it happened. No
# solution takes a lease.
F_SETLEASE = 1024
# Record locks (F_SETLK, F_SETLKW and the open-file ones) hold any readable file as flock does; F_NOTIFY watches a
# folder as inotify does (FILE_WATCH_CALLS).
F_NOTIFY, F_SETLK, F_SETLKW, F_OFD_SETLK, F_OFD_SETLKW = 1026, 6, 7, 37, 38
FCNTL_REFUSED = (F_SETOWN, F_SETOWN_EX, F_SETLEASE, F_NOTIFY, F_SETLK, F_SETLKW, F_OFD_SETLK, F_OFD_SETLKW)
# setsockopt SO_SNDBUFFORCE and SO_RCVBUFFORCE (root) let one socket pair queue 1.5 GB past the address-space limit.
SOL_SOCKET, SO_SNDBUFFORCE, SO_RCVBUFFORCE = 1, 32, 33
# mkdir's mode must keep the owner's read, write and search bits: a folder made 0o300 could be written into but
# not listed, so a grader that is not root could neither count nor measure nor remove what was in it (241 MB and
# every hidden input stayed in /tmp: the same trial).
MKDIR_MODE = 0o700
PRIO_PROCESS = 0
# A placeholder for the worker's process id in the program: the grader builds the filter before the fork, and
# ``apply`` writes the real id in its place. No process has it (pid_max is at most 2**22).
SELF = 0x7FFFFFF0
# Calls that act on a process by its id, allowed only on the worker itself: (argument index, values allowed,
# argument that must be the "this process" kind and its value or None). setpriority(PRIO_USER, 0) as root
# renices every root process on the machine; setpriority and the sched_* calls reach any process of the same user
# past Landlock (the trial changed another process's nice value); kill(-1) as root ends every process where
# Landlock's signal scope (ABI 6) is missing. 0 means "the caller" (kill(0): the worker's own group, which it
# leads).
SELF_ONLY = {"setpriority": (1, (0, SELF), (0, PRIO_PROCESS)), "sched_setaffinity": (0, (0, SELF), None),
             "prlimit64": (0, (0, SELF), None), "get_robust_list": (0, (0, SELF), None),
             "kill": (0, (0, SELF, -SELF & 0xFFFFFFFF), None), "tkill": (0, (SELF,), None),
             "tgkill": (0, (SELF,), None), "rt_sigqueueinfo": (0, (SELF,), None),
             "rt_tgsigqueueinfo": (0, (SELF,), None)}
X32_SYSCALL_BIT = 0x40000000
SECCOMP_RET_ALLOW, SECCOMP_RET_ERRNO = 0x7FFF0000, 0x00050000
EPERM, ENOSYS = 1, 38
BPF_MAXINSNS = 4096
_OPCODES = {"ld": 0x20, "and": 0x54, "ja": 0x05, "jeq": 0x15, "jge": 0x35, "jset": 0x45, "ret": 0x06}
# struct seccomp_data: nr at 0, arch at 4, args[i] at 16 + 8 * i; the low 32 bits of an argument come first on
# both little-endian architectures, and every argument the filter reads is a 32-bit value in the kernel.
NR, ARCH = 0, 4


def _argument(index):
    return 16 + 8 * index


def _assemble(program):
    """Classic BPF instructions from ``program``, a list of tuples: ``("label", name)`` marks a place;
    ``("ld", offset)``, ``("and", k)``, ``("ret", k)``; ``("ja", label)``; ``(jeq|jge|jset, k, label if true,
    label if false)``, where a label of None is the next instruction.

    Returns:
        a list of ``(code, jt, jf, k)`` tuples.
    Raises:
        ValueError: a jump backwards or longer than BPF allows (255 for a conditional jump), a program longer
            than the kernel accepts (``BPF_MAXINSNS``) (the kernel would refuse either), or a label defined twice.
        KeyError: a jump to a label the program never defines, or an operation not in ``_OPCODES``.
    """
    labels, count = {}, 0
    for op in program:
        if op[0] == "label":
            if op[1] in labels:
                raise ValueError(f"the label {op[1]!r} is defined twice")
            labels[op[1]] = count
        else:
            count += 1
    if count > BPF_MAXINSNS:
        raise ValueError(f"a seccomp program of {count} instructions is longer than the kernel accepts")

    def offset(label, index, longest):
        distance = labels[label] - index - 1 if label else 0
        if not 0 <= distance <= longest:
            raise ValueError(f"a BPF jump to {label!r} of {distance} instructions")
        return distance

    out = []
    for op in program:
        if op[0] == "label":
            continue
        index, code = len(out), _OPCODES[op[0]]
        if op[0] == "ja":
            out.append((code, 0, 0, offset(op[1], index, 0xFFFFFFFF)))
        elif op[0] in ("jeq", "jge", "jset"):
            out.append((code, offset(op[2], index, 255), offset(op[3], index, 255), op[1]))
        else:
            out.append((code, 0, 0, op[1]))
    return out


def filter_instructions(machine=None, processes=True, pid=SELF):
    """The worker's seccomp program as ``(code, jt, jf, k)`` tuples (list), or None where the architecture is not
    one the kit knows the system calls of (anything but x86-64 and arm64).

    Args:
        machine: ``platform.machine()``'s answer for the architecture to build for (str); None: this machine's.
        processes: also refuse creating processes (bool; False only for the tests of the process-tree cleanup).
        pid: the worker's process id (int); by default the placeholder ``SELF``, which ``apply`` replaces in the
            forked worker (see ``pid_slots``).
    Refused with EPERM: every call of ``REFUSED_CALLS`` (sockets, IPC, other processes, owners and extended
    attributes, reserving disk, scheduling and pinned or file-backed memory, inotify and flock, mounts and
    namespaces, the kernel's own surface, root-only calls: see each tuple's comment); ``socketpair`` but for an
    ``AF_UNIX`` ``SOCK_STREAM`` pair (a datagram pair sends to any UNIX socket by its path; a stream pair answers
    EISCONN); the ``TIOCSTI`` and ``TIOCLINUX`` ioctls and those of ``FILE_IOCTL_TYPES`` (file attributes and the
    network's SIOC* requests); ``mknod``/``mknodat`` of a device; ``mkdir``/``mkdirat`` with a mode lacking any of
    ``MKDIR_MODE``; ``prctl(PR_SET_MM)`` and ``prctl(PR_SET_SECCOMP)``; the ``fcntl`` commands of
    ``FCNTL_REFUSED`` (SIGIO's owner, leases, locks, F_NOTIFY); ``setsockopt`` ``SO_SNDBUFFORCE`` and
    ``SO_RCVBUFFORCE``; ``clone`` with any namespace flag; the calls of ``SELF_ONLY`` aimed at another process;
    a system call of another ABI (i386's ``int 0x80``, whose ``socketcall`` reaches every socket call, and x32
    calls, which carry x86-64's AUDIT_ARCH).
    Answered with success and not run: ``PRETENDED_CALLS`` and ``prctl(PR_SET_NAME)``. With ``processes``:
    ``fork``, ``vfork`` and ``clone`` without ``CLONE_THREAD``, and ``clone3`` (whose flags a filter cannot read)
    with ENOSYS instead, so that glibc creates threads with ``clone``. Everything else is allowed: the filter lists
    what no solution needs rather than what Python uses, so a new interpreter's calls never break it (a missed call
    in a default-deny list kills CPython). The rules and their measured reasons: shared design "isolation", section 1,
    and issue 40's attacker trials (each constant's comment).
    """
    arch = ARCHITECTURES.get(machine or platform.machine())
    if arch is None:
        return None
    audit_arch, x32, numbers = arch
    refused = [numbers[name] for name in (PROCESS_CALLS if processes else ()) + REFUSED_CALLS if name in numbers]
    pretended = [numbers[name] for name in PRETENDED_CALLS if name in numbers]
    program = [("ld", ARCH), ("jeq", audit_arch, None, "deny"), ("ld", NR)]
    if x32:
        program.append(("jge", X32_SYSCALL_BIT, "deny", None))
    # A conditional jump reaches at most 255 instructions, so the list of refusals has its own answer after it.
    program += [("jeq", number, "refuse", None) for number in refused]
    program += [("jeq", number, "pretend", None) for number in pretended]
    program += [("ja", "dispatch"), ("label", "refuse"), ("ret", SECCOMP_RET_ERRNO | EPERM),
                ("label", "pretend"), ("ret", SECCOMP_RET_ERRNO), ("label", "dispatch")]
    program += [("jeq", numbers["socketpair"], "socketpair", None), ("jeq", numbers["ioctl"], "ioctl", None),
                ("jeq", numbers["mknodat"], "mknodat", None), ("jeq", numbers["prctl"], "prctl", None),
                ("jeq", numbers["fcntl"], "fcntl", None), ("jeq", numbers["mkdirat"], "mkdirat", None),
                ("jeq", numbers["setsockopt"], "setsockopt", None), ("jeq", numbers["clone"], "clone", None)]
    program += [("jeq", numbers[name], name, None) for name in ("mknod", "mkdir") if name in numbers]  # x86-64
    program += [("jeq", numbers[name], "self " + name, None) for name in SELF_ONLY]
    if processes:
        program.append(("jeq", numbers["clone3"], "nosys", None))
    program += [("ret", SECCOMP_RET_ALLOW),
                ("label", "socketpair"), ("ld", _argument(0)), ("jeq", AF_UNIX, None, "deny"), ("ld", _argument(1)),
                ("and", SOCK_TYPE_MASK), ("jeq", SOCK_STREAM, "allow", "deny"),
                ("label", "ioctl"), ("ld", _argument(1)), ("jeq", TIOCSTI, "deny", None),
                ("jeq", TIOCLINUX, "deny", None),
                ("and", IOCTL_TYPE_MASK)]
    program += [("jeq", kind, "deny", None) for kind in FILE_IOCTL_TYPES]
    program += [("ja", "allow"),
                ("label", "mknod"), ("ld", _argument(1)), ("ja", "mode"),
                ("label", "mknodat"), ("ld", _argument(2)),
                ("label", "mode"), ("and", S_IFMT), ("jeq", S_IFCHR, "deny", None), ("jeq", S_IFBLK, "deny", "allow"),
                ("label", "prctl"), ("ld", _argument(0)), ("jeq", PR_SET_NAME, "succeed", None),
                ("jeq", PR_SET_SECCOMP, "deny", None), ("jeq", PR_SET_MM, "deny", "allow"),
                ("label", "fcntl"), ("ld", _argument(1))]
    program += [("jeq", command, "deny", None) for command in FCNTL_REFUSED]
    program += [("ja", "allow"),
                ("label", "setsockopt"), ("ld", _argument(1)), ("jeq", SOL_SOCKET, None, "allow"), ("ld", _argument(2)),
                ("jeq", SO_SNDBUFFORCE, "deny", None), ("jeq", SO_RCVBUFFORCE, "deny", "allow"),
                ("label", "mkdir"), ("ld", _argument(1)), ("ja", "folder mode"),
                ("label", "mkdirat"), ("ld", _argument(2)),
                ("label", "folder mode"), ("and", MKDIR_MODE), ("jeq", MKDIR_MODE, "allow", "deny")]
    for name, (index, values, kind) in SELF_ONLY.items():
        program.append(("label", "self " + name))
        if kind is not None:
            program += [("ld", _argument(kind[0])), ("jeq", kind[1], None, "deny")]
        program.append(("ld", _argument(index)))
        program += [("jeq", _self(value, pid), "allow", None) for value in values]
        program.append(("ja", "deny"))
    program += [("label", "clone"), ("ld", _argument(0)), ("jset", CLONE_NAMESPACES, "deny", None),
                ("jset", CLONE_THREAD, "allow", "deny") if processes else ("ja", "allow"),
                ("label", "allow"), ("ret", SECCOMP_RET_ALLOW),
                ("label", "deny"), ("ret", SECCOMP_RET_ERRNO | EPERM),
                ("label", "nosys"), ("ret", SECCOMP_RET_ERRNO | ENOSYS),
                ("label", "succeed"), ("ret", SECCOMP_RET_ERRNO)]  # errno 0: the call returns 0, not run
    return _assemble(program)


def _self(value, pid):
    """``value`` of ``SELF_ONLY`` with ``pid`` (int) in place of the placeholder ``SELF`` (and of its negation)."""
    if value == SELF:
        return pid & 0xFFFFFFFF
    if value == -SELF & 0xFFFFFFFF:
        return -pid & 0xFFFFFFFF
    return value


def pid_slots(instructions):
    """Where the placeholder process id sits in ``filter_instructions``'s default program (list of
    ``(index, negated)``: the instruction's index and whether it holds the id's negation), for ``apply``."""
    return [(index, k != SELF) for index, (code, _, _, k) in enumerate(instructions)
            if code == _OPCODES["jeq"] and k in (SELF, -SELF & 0xFFFFFFFF)]


def confinement_filter(machine=None, processes=True):
    """``filter_instructions``'s program as the array of ``sock_filter`` the kernel reads, or None (same arguments)."""
    instructions = filter_instructions(machine, processes)
    if instructions is None:
        return None
    return (_SockFilter * len(instructions))(*[_SockFilter(*instruction) for instruction in instructions])


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
        usable = _LIBC is not None and filter_instructions() is not None and _LIBC.prctl(PR_GET_SECCOMP, 0, 0, 0, 0) >= 0
        _SECCOMP.append(bool(usable))
    return _SECCOMP[0]


# -- namespaces: a second wall around the network and the other processes ----------------------------

# Why a namespace was refused, by the error unshare(2) or the id map gave (the shared design "isolation", section 3,
# measured: ENOSPC where the limit of user namespaces is 0; from the docs: Docker's default seccomp profile answers
# EPERM, Ubuntu's AppArmor restriction EACCES or EPERM on the id map, a kernel without CONFIG_USER_NS EINVAL).
NAMESPACE_REASONS = {
    "ENOSPC": "the limit of user namespaces (user.max_user_namespaces) is reached",
    "EPERM": "the system forbids them here (a container's seccomp profile, or a security module)",
    "EACCES": "a security module forbids them here (for example AppArmor's restrict_unprivileged_userns)",
    "EINVAL": "this kernel has no user namespaces",
    "EUSERS": "the limit of nested user namespaces is reached",
}
NAMESPACE_PROBE_SECONDS = 10.0  # the probe is one short process; a machine that cannot start it in this long gets none
# The probe: the same steps as the worker's start, in a process of its own (never in the grader: no namespace can
# be left), answering "ok" or "<step> <errno name>".
NAMESPACE_PROBE = r"""
import errno, os, sys
sys.path.insert(0, sys.argv[1])
from grader.isolation import kernel_rules
try:
    kernel_rules.enter_namespaces(os.geteuid(), os.getegid())
except OSError as exc:
    print(exc.strerror or "unshare", errno.errorcode.get(exc.errno, str(exc.errno)))
else:
    print("ok")
"""
_NAMESPACES = []  # once known in this process: None (a worker got them) or why not (str)


def enter_namespaces(uid, gid):
    """Move the calling process into a new user namespace and a new network namespace, keeping its ids: call only
    in a process that is about to become the worker (``apply``) or the probe; it cannot be undone.

    Args:
        uid, gid: the process's effective user and group ids (int), mapped to themselves (not to root: the worker
            keeps the owner it had, so its scratch folder and the grader's view of it are unchanged).
    Effects: ``unshare(CLONE_NEWUSER | CLONE_NEWNET)``, then ``setgroups`` denied (which an unprivileged id map
    requires, since Linux 3.19) and the one-line uid and gid maps. The network namespace has only ``lo``, down:
    UDP and TCP to 127.0.0.1 fail with ENETUNREACH and abstract UNIX sockets are not found (they belong to a
    network namespace); a UNIX socket by path is not covered (the seccomp filter and Landlock cover it).
    Last, where ``/proc/sys`` lets it (not in a container that mounts it read-only), the namespace's own limit of
    user namespaces is set to 0: a worker without the seccomp filter (another architecture) can make no nested
    namespace in which it would hold every capability again (issue 42's attacker trial).
    Raises:
        OSError: with ``strerror`` "unshare" (the namespaces were refused: nothing changed) or "uid_map",
            "gid_map", "setgroups" (the namespace exists but its ids could not be mapped: Ubuntu's AppArmor
            restriction refuses the map, not the namespace).
    """
    if _LIBC is None or _LIBC.unshare(CLONE_NEWUSER | CLONE_NEWNET) != 0:
        raise OSError(ctypes.get_errno() if _LIBC is not None else errno.EINVAL, "unshare")
    for name, text in (("setgroups", b"deny"), ("uid_map", b"%d %d 1" % (uid, uid)),
                       ("gid_map", b"%d %d 1" % (gid, gid))):
        try:
            fd = os.open("/proc/self/" + name, os.O_WRONLY | os.O_CLOEXEC)
            try:
                os.write(fd, text)
            finally:
                os.close(fd)
        except OSError as exc:
            if name == "setgroups" and exc.errno == errno.ENOENT:
                continue  # before Linux 3.19 there is no setgroups file, and none is needed
            raise OSError(exc.errno, name) from None
    try:
        fd = os.open("/proc/sys/user/max_user_namespaces", os.O_WRONLY | os.O_CLOEXEC)
        try:
            os.write(fd, b"0")  # this namespace's own limit (per user namespace); the host's is untouched
        finally:
            os.close(fd)
    except OSError:
        pass  # read-only /proc/sys: the seccomp filter's unshare rule is the wall there


def _probe_namespaces():
    """Run ``NAMESPACE_PROBE`` in a process of its own: None when the namespaces can be made, else the reason (str,
    one clause naming the error: ``NAMESPACE_REASONS``)."""
    try:
        answer = subprocess.run([sys.executable, "-I", "-S", "-B", "-c", NAMESPACE_PROBE, KIT_ROOT],
                                capture_output=True, text=True, timeout=NAMESPACE_PROBE_SECONDS,
                                stdin=subprocess.DEVNULL).stdout.split()
    except (OSError, subprocess.SubprocessError) as exc:
        return f"the probe for namespaces could not run ({type(exc).__name__})"
    if answer == ["ok"]:
        return None
    if len(answer) == 2:
        step, name = answer
        if step != "unshare":
            return f"refused with {name}: the user namespace was made but its {step} was refused"
        if name == "ENOSPC" and _namespace_limit() == "0":
            # A limit of 0 is a setting, not a shortage that passes (issue 42's instructor trial).
            return "refused with ENOSPC: user namespaces are switched off here (user.max_user_namespaces is 0)"
        return f"refused with {name}: {NAMESPACE_REASONS.get(name, 'the system forbids them here')}"
    return "the probe for namespaces gave no answer"


def _namespace_limit():
    """This process's user namespace's ``user.max_user_namespaces`` (str), or "" where it cannot be read."""
    try:
        with open("/proc/sys/user/max_user_namespaces", encoding="ascii") as handle:
            return handle.read().strip()
    except OSError:
        return ""


def namespace_refusal():
    """Why the worker gets no user and network namespace on this system (str), or None when it gets them.

    Known once per process: from the first worker's start (``note_worker``, free where they are made), else probed
    now in a short process of its own (``_probe_namespaces``: 30 to 60 ms). Off Linux "namespaces are Linux's";
    otherwise the error's name and its reason from ``NAMESPACE_REASONS``, e.g. "refused with ENOSPC: the limit of
    user namespaces (user.max_user_namespaces) is reached". Never raises: a system without them still grades.
    """
    if not _NAMESPACES:
        _NAMESPACES.append("namespaces are Linux's" if _LIBC is None else _probe_namespaces())
    return _NAMESPACES[0]


def note_worker(pid, plan):
    """Record, after a worker started with ``plan`` (``prepare``'s), whether it got its namespaces: its network
    namespace differs from this process's (two ``readlink`` of ``/proc/<pid>/ns/net``, every worker). The first
    worker is the probe: where it got them nothing else runs; where one did not (the first, or a later one when
    the system's limit was reached meanwhile), ``_probe_namespaces`` learns why, and later plans ask for none, so
    that no report claims a wall a worker lacked.

    Args:
        pid: the worker's process id (int), just started. plan: its ``Plan``, or None.
    """
    if plan is None or not plan.namespaces:
        return
    try:
        own = os.readlink(f"/proc/{pid}/ns/net") != os.readlink("/proc/self/ns/net")
    except OSError:
        return  # not readable here: namespace_refusal() probes when asked
    if own:
        if not _NAMESPACES:
            _NAMESPACES.append(None)
        return
    _NAMESPACES[:] = [_probe_namespaces()
                      or "refused when a worker started (a limit reached meanwhile), not when probed"]


def start_confined(start, plan):
    """Start a worker with ``start(plan)`` and learn whether it got its namespaces (``note_worker``); where the start
    failed because the system makes the namespace but refuses its ids (Ubuntu's AppArmor restriction: issue 42's
    attacker trial), start it once more without namespaces (``without_refused_namespaces``). Both transports
    start their workers through this.

    Args:
        start: a callable taking a ``Plan`` (or None) and returning the started ``subprocess.Popen``, which applies
            that plan in the child. plan: ``prepare``'s plan, or None.
    Returns:
        ``(process, plan)``: the worker and the plan it was started with, for the caller's later starts.
    Raises:
        whatever ``start`` raised, when namespaces are not why: the plan is never weakened for another reason.
    """
    try:
        process = start(plan)
    except subprocess.SubprocessError:
        again = without_refused_namespaces(plan)
        if again is None:
            raise
        plan = again
        process = start(plan)
    note_worker(process.pid, plan)
    return process, plan


def without_refused_namespaces(plan):
    """After a worker's start failed with ``plan``: the same plan without namespaces when they are why (a system
    that makes the namespace but refuses its id map, as Ubuntu's AppArmor restriction does), recording the reason;
    None when the plan asked for none or the namespaces are not to blame (the caller then reports the failure).

    Args:
        plan: the ``Plan`` the failed start used, or None.
    Returns:
        a ``Plan`` to start the worker with again, or None.
    """
    if plan is None or not plan.namespaces:
        return None
    reason = _probe_namespaces()
    if reason is None:
        return None
    _NAMESPACES[:] = [reason]
    return plan._replace(namespaces=None)


def _elf_interpreter(path):
    """The program loader a 64-bit ELF executable names (its PT_INTERP: ``/lib64/ld-linux-x86-64.so.2``...), as a
    str; "" for a static one; None when ``path`` is not a 64-bit ELF file this function can read."""
    try:
        with open(path, "rb") as handle:
            header = handle.read(64)
            if header[:5] != b"\x7fELF\x02":  # 64-bit ELF only: the architectures the filter knows
                return None
            order = "<" if header[5] == 1 else ">"
            offset, = struct.unpack_from(order + "Q", header, 0x20)
            size, count = struct.unpack_from(order + "HH", header, 0x36)
            handle.seek(offset)
            table = handle.read(size * count)
            for index in range(count):
                kind, = struct.unpack_from(order + "I", table, index * size)
                if kind == 3:  # PT_INTERP
                    where, = struct.unpack_from(order + "Q", table, index * size + 8)  # p_offset
                    length, = struct.unpack_from(order + "Q", table, index * size + 32)  # p_filesz
                    handle.seek(where)
                    return handle.read(length).rstrip(b"\0").decode("utf-8", "replace")
    except (OSError, struct.error, ValueError):
        return None
    return ""


def _programs():
    """The files the worker may run (list of str, resolved): the interpreter and its loader; empty (run anything
    Landlock lets it read, as before) where the interpreter is not an ELF file this module can read."""
    executable = os.path.realpath(sys.executable)
    loader = _elf_interpreter(executable)
    if loader is None:
        return []
    return [executable] + ([os.path.realpath(loader)] if loader and os.path.exists(loader) else [])


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
    # Programs: only the interpreter the worker is, and its loader, may be run (execve). Past the guard a submission
    # ran /bin/sh (issue 41's second attacker trial); the first exec, of the worker itself, needs these two.
    programs = _programs()
    read = ((FS_READ_FILE | FS_READ_DIR) if programs else (FS_EXECUTE | FS_READ_FILE | FS_READ_DIR)) & fs
    rules = [(path, read) for path in _read_paths()] + [(path, (FS_EXECUTE | FS_READ_FILE) & fs) for path in programs]
    # Of /etc what ETC_READ_PATHS names, and devices that carry nothing (open("/dev/urandom") failed in a correct
    # submission: the fifth trial), read only; a rule on a file may hold file rights only.
    for path in [os.path.join("/etc", name) for name in ETC_READ_PATHS] + ["/dev/urandom", "/dev/random", "/dev/zero"]:
        if os.path.exists(path):
            rules.append((path, read if os.path.isdir(path) else FS_READ_FILE & fs))
    # In scratch: everything but running programs and making device nodes (a character device made there
    # reached the kernel log: an adversarial test), symbolic links, named pipes and socket files (native code made a
    # link there past the guard, which refuses all three: issue 41's attacker trial).
    scratch_rights = fs & ~(FS_EXECUTE | FS_MAKE_CHAR | FS_MAKE_BLOCK | FS_MAKE_SYM | FS_MAKE_FIFO | FS_MAKE_SOCK)
    rules += [("/dev/null", (FS_READ_FILE | FS_WRITE_FILE | FS_TRUNCATE) & fs & FILE_RIGHTS), (scratch, scratch_rights)]
    return attr, size, [(os.fsencode(path), rights) for path, rights in rules]


class Plan(typing.NamedTuple):
    """What ``apply`` does in the worker, computed by ``prepare`` in the grader.

    Attributes:
        landlock: the Landlock ruleset's parts, or None where this kernel has no Landlock.
        seccomp: ``(fprog, program, slots)``: the filter, its instructions, and ``pid_slots`` of them (where
            ``apply`` writes the worker's id); ``(None, None, [])`` where there is no filter.
        capabilities: give up every capability (bool).
        namespaces: ``(uid, gid)`` to map in a new user and network namespace (``enter_namespaces``), or None
            where this system is known to refuse them (``namespace_refusal``, ``note_worker``).
    """

    landlock: object
    seccomp: tuple
    capabilities: bool
    namespaces: tuple | None = None


def prepare(scratch, processes=True):
    """Everything ``apply`` needs, computed in the grader before it forks (no allocation after fork).

    Args:
        scratch: the worker's scratch folder (str), the only place it may write.
        processes: the seccomp filter also refuses creating processes (bool; False only for the tests of the
            process-tree cleanup, which keep every other rule).
    Returns:
        a ``Plan`` for ``apply``, each part empty where this system lacks it; or None when the system offers no
        kernel rule at all (not Linux).
    """
    if _LIBC is None:
        return None
    program = confinement_filter(processes=processes) if seccomp_available() else None
    seccomp = _SockFprog(len(program), ctypes.cast(program, ctypes.POINTER(_SockFilter))) if program else None
    slots = pid_slots([(op.code, op.jt, op.jf, op.k) for op in program]) if program else []
    _LIBC.capset, _LIBC.unshare  # looked up now: the child after the fork only calls them
    # Asked for until a worker was refused them (note_worker): the first worker's start is the probe.
    namespaces = None if _NAMESPACES and _NAMESPACES[0] else (os.geteuid(), os.getegid())
    return Plan(_landlock_plan(scratch), (seccomp, program, slots), True, namespaces)


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


def drop_capabilities():
    """Give up every capability, now and across exec: empty the bounding and ambient sets, then the effective,
    permitted and inheritable ones. Call in the forked child (``apply`` does); it cannot be undone.

    Why: CI, containers and Gradescope run the grader as root, and a worker that kept root's capabilities passed
    every permission check a filter does not cover: the fourth attacker trial of issue 40 used CAP_NET_ADMIN on
    the machine's interfaces through the allowed socket pair, CAP_SYS_NICE for SCHED_FIFO 99, CAP_IPC_LOCK for
    mlockall, and CAP_SYS_ADMIN to park descriptors in the pair past its 64-file limit. Measured in the shared
    design "isolation", section 2: root with an empty bounding set cannot read another root process's memory.
    The user id stays 0 (files the worker may read are still read as their owner's).

    Returns:
        True when no capability is left, now or for a program the worker runs (bool); False when the bounding
        set could not be emptied (a process without CAP_SETPCAP, e.g. a container that dropped it: a program
        run by root would get the rest back; the seccomp filter refuses starting one).
    Raises:
        OSError: capset refused to empty the sets (it never should: dropping needs no privilege).
    """
    emptied = True
    for cap in range(CAPABILITY_SLOTS):
        if _LIBC.prctl(PR_CAPBSET_READ, cap, 0, 0, 0) == 1 and _LIBC.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) < 0:
            emptied = False  # EPERM without CAP_SETPCAP; capabilities past the kernel's last answer EINVAL to READ
    _LIBC.prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)  # EINVAL before Linux 4.3, which has none
    header, data = _CapHeader(LINUX_CAPABILITY_VERSION_3, 0), (_CapData * 2)()
    if _LIBC.capset(ctypes.byref(header), data) < 0:
        raise OSError(ctypes.get_errno(), "capset failed")
    return emptied


def hide_memory():
    """Make the calling grading process non-dumpable (``prctl(PR_SET_DUMPABLE, 0)``): a process of another user id,
    or of the same one without ``CAP_SYS_PTRACE``, can then neither open its ``/proc/<pid>/mem``, ``environ`` or
    ``maps`` nor trace it or read it with ``process_vm_readv``, and it leaves no core dump.

    Why: on the portable transport a submission opened ``/proc/<grader's pid>/mem`` and printed hidden cases'
    texts and inputs (issue 41; measured in the shared design "isolation", section 2). It does not stop root with
    its capabilities (the worker gives them up: ``drop_capabilities``), and ``execve`` sets it back to 1, so every
    grading process calls this itself: ``grader.isolation.sandbox.Sandbox`` before its worker starts, and a
    batch's pool process as it starts. The worker stays dumpable: the grader reads its memory use and children.

    Returns:
        True when the process is non-dumpable now (bool); False off Linux or where the kernel refused (never
        raises: a grader that cannot hide still grades, and the kernel rules still confine the worker).
    """
    if _LIBC is None:
        return False
    return _LIBC.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) == 0 and _LIBC.prctl(PR_GET_DUMPABLE, 0, 0, 0, 0) == 0


def apply(plan):
    """Confine the calling process (and its future children) by ``plan``; call in the forked child.

    Makes the process a child subreaper, enters its own user and network namespace where the plan says so
    (``enter_namespaces``: first, since Landlock and the filter then forbid it; the design's measured order), gives
    up every capability where the plan says so (``drop_capabilities``: after the namespace, in which the process
    briefly holds them all), sets ``no_new_privs`` (which both rules require), then applies the Landlock rules
    and the seccomp filter that the plan holds.
    Raises:
        OSError: a system call failed; the worker must then not start (``subprocess`` reports it),
            rather than run unconfined while the grader believes it is confined. A namespace refused here although
            a worker got them before (the system's limit reached meanwhile), or the first worker's, is the
            exception: the worker starts with the other rules, and ``note_worker`` records why.
    """
    landlock, (seccomp, program, slots), capabilities, namespaces = plan
    if seccomp:
        pid = os.getpid()  # the filter was built before the fork: only now is the worker's id known
        for index, negated in slots:
            program[index].k = (-pid if negated else pid) & 0xFFFFFFFF
    _LIBC.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)  # Linux 3.4+; without it kill_tree still finds attached children
    if namespaces:
        try:
            enter_namespaces(*namespaces)
        except OSError as exc:
            if exc.strerror != "unshare":
                # In a namespace whose ids are not mapped nothing is as the grader expects: the start fails, and
                # the grader starts it again without namespaces (without_refused_namespaces).
                raise
    if capabilities:
        drop_capabilities()  # before the rules: dropping the bounding set needs CAP_SETPCAP, which this gives up
    # no_new_privs with the capabilities too: where the bounding set could not be emptied (a root grader without
    # CAP_SETPCAP), root's exec would take back every capability left in it (issue 42's attacker trial).
    if (landlock or seccomp or capabilities) and _LIBC.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS) failed")
    if landlock:
        _landlock(landlock)
    if seccomp and _LIBC.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(seccomp), 0, 0) < 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_SECCOMP) failed")
